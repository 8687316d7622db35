/* Symmetric allocation: same offsets on every PE, alignment, disjoint
 * blocks, many allocs and frees, exhaustion, and mismatched collectives. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pe.h"

#define ULL(x) ((unsigned long long)(x))

/* Sends `n` values to every PE (slot [me] of a symmetric table) and checks
 * that all PEs sent the same values as this one. */
static int all_agree(const uint64_t *vals, size_t n, const char *what)
{
    int np = pe_n(), me = pe_me();
    uint64_t *table = pe_alloc((size_t)np * n * sizeof *table);
    PE_CHECK(table != NULL, "alloc failed");
    for (int k = 0; k < np; k++)
        PE_OK(dmsg_deposit(table + (size_t)me * n, vals, n * sizeof *vals, pe_up(k),
                           DMSG_CTR_NONE));
    PE_OK(dmsg_sync());
    for (int from = 0; from < np; from++)
        for (size_t i = 0; i < n; i++)
            PE_CHECK(table[(size_t)from * n + i] == vals[i],
                     "%s [%zu]: PE %d has %llu, this PE has %llu", what, i, from,
                     ULL(table[(size_t)from * n + i]), ULL(vals[i]));
    PE_OK(dmsg_free(table));
    return 0;
}

static int alloc_symmetric(void)
{
    static const size_t sizes[] = {1, 64, 1000, 4096, (size_t)1 << 20, 0, 0, 17};
    enum { NS = sizeof sizes / sizeof sizes[0], BIG = 4 };
    char *p[NS];
    for (int i = 0; i < NS; i++) {
        p[i] = pe_alloc(sizes[i]);
        PE_CHECK(p[i] != NULL, "alloc %d failed", i);
    }
    char *base = pe_segment_base(p[0]);
    char *end = pe_segment_end(p[0]);
    PE_CHECK((size_t)(end - base) == dmsg_segment_size(),
             "segment bounds from dmsg_addr_is_symmetric span %zu bytes, dmsg_segment_size %zu",
             (size_t)(end - base), dmsg_segment_size());

    uint64_t off[NS];
    for (int i = 0; i < NS; i++) {
        PE_CHECK((uintptr_t)p[i] % 64 == 0, "block %d (%zu bytes) at %p not 64-byte aligned", i,
                 sizes[i], (void *)p[i]);
        PE_CHECK(dmsg_addr_is_symmetric(p[i], sizes[i] ? sizes[i] : 1),
                 "block %d (%zu bytes) not inside the segment", i, sizes[i]);
        PE_TRY(pe_check_bytes(p[i], sizes[i], 0, "fresh symmetric memory"));
        off[i] = (uint64_t)(p[i] - base);
        for (int j = 0; j < i; j++) {
            /* zero-sized blocks count as one byte: their pointers must be unique */
            char *ai = p[i], *ei = p[i] + (sizes[i] ? sizes[i] : 1);
            char *aj = p[j], *ej = p[j] + (sizes[j] ? sizes[j] : 1);
            PE_CHECK(ei <= aj || ej <= ai, "blocks %d and %d overlap", j, i);
        }
    }
    PE_TRY(all_agree(off, NS, "offset of block"));

    /* The same address names the same object everywhere: deposit into the
     * 1 MiB block of every PE at slot [me]. */
    uint64_t v = 0xABC00000u + (uint64_t)pe_me();
    for (int k = 0; k < pe_n(); k++)
        PE_OK(dmsg_deposit(p[BIG] + 8 * pe_me(), &v, 8, pe_up(k), DMSG_CTR_NONE));
    PE_OK(dmsg_sync());
    for (int from = 0; from < pe_n(); from++) {
        uint64_t got;
        memcpy(&got, p[BIG] + 8 * from, 8);
        PE_CHECK(got == 0xABC00000u + (uint64_t)from, "value from PE %d: expected %llx got %llx",
                 from, ULL(0xABC00000u + (uint64_t)from), ULL(got));
    }
    for (int i = NS - 1; i >= 0; i--)
        PE_OK(dmsg_free(p[i]));
    return 0;
}

/* Same pseudo-random sequence on every PE (the ops must be collective). */
static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

typedef struct block {
    char *p;
    size_t size;
    unsigned char tag;
} block;

/* Every live block still holds its tag (no two blocks overlap), and every
 * PE has the same offsets. */
static int check_live(const block *live, int nlive, char *base, int op)
{
    uint64_t sum[2] = {0, 0};
    for (int i = 0; i < nlive; i++) {
        char what[64];
        snprintf(what, sizeof what, "op %d: block %d of %zu bytes", op, i, live[i].size);
        PE_TRY(pe_check_bytes(live[i].p, live[i].size, live[i].tag, what));
        uint64_t off = (uint64_t)(live[i].p - base);
        sum[0] += off * (uint64_t)(i + 1);
        sum[1] ^= off * 0x9E3779B97F4A7C15ull + live[i].size;
    }
    return all_agree(sum, 2, "offset checksum of live blocks");
}

static int alloc_many(void)
{
    enum { OPS = 300, MAXLIVE = 16 };
    block live[MAXLIVE];
    int nlive = 0;
    uint32_t seed = 12345;
    char *first = pe_alloc(64);
    PE_CHECK(first != NULL, "alloc failed");
    char *base = pe_segment_base(first);
    PE_OK(dmsg_free(first));
    for (int op = 0; op < OPS; op++) {
        uint32_t r = lcg(&seed);
        if (nlive == 0 || (nlive < MAXLIVE && r % 3 != 0)) {
            size_t size = lcg(&seed) % 5000;
            char *p = pe_alloc(size);
            PE_CHECK(p != NULL, "op %d: alloc(%zu) failed", op, size);
            live[nlive].p = p;
            live[nlive].size = size;
            live[nlive].tag = (unsigned char)(1 + op % 254);
            memset(p, live[nlive].tag, size);
            nlive++;
        } else {
            int victim = (int)(lcg(&seed) % (uint32_t)nlive);
            PE_OK(dmsg_free(live[victim].p));
            live[victim] = live[--nlive];
        }
        if (op % 25 == 24)
            PE_TRY(check_live(live, nlive, base, op));
    }
    while (nlive > 0)
        PE_OK(dmsg_free(live[--nlive].p));
    /* Everything came back: half the segment fits again. */
    char *half = pe_alloc(dmsg_segment_size() / 2);
    PE_CHECK(half != NULL, "alloc of half the segment after freeing everything failed");
    PE_OK(dmsg_free(half));
    return 0;
}

static int alloc_exhaust(void)
{
    size_t seg = dmsg_segment_size();
    PE_CHECK(seg > 0, "dmsg_segment_size() is 0 after init");
    void *sentinel = (void *)&seg, *p = sentinel;
    PE_EXPECT(dmsg_alloc(seg + 1, &p), DMSG_ERR_NOMEM);
    PE_CHECK(p == sentinel, "failed dmsg_alloc changed its output");
    /* SIZE_MAX: rounding it up overflows, and it cannot fit either; both
     * DMSG_ERR_OVERFLOW and DMSG_ERR_NOMEM describe that truthfully. */
    int st = dmsg_alloc(SIZE_MAX, &p);
    PE_CHECK(st == DMSG_ERR_NOMEM || st == DMSG_ERR_OVERFLOW,
             "dmsg_alloc(SIZE_MAX): expected DMSG_ERR_NOMEM or DMSG_ERR_OVERFLOW got %s",
             pe_status_name(st));
    PE_CHECK(p == sentinel, "failed dmsg_alloc(SIZE_MAX) changed its output");

    /* Fill the segment with quarters until it is exhausted. */
    void *q[8];
    int k = 0;
    for (; k < 8; k++) {
        st = dmsg_alloc(seg / 4, &q[k]);
        if (st != DMSG_OK)
            break;
    }
    PE_CHECK(st == DMSG_ERR_NOMEM, "quarter %d: expected DMSG_ERR_NOMEM got %s", k + 1,
             pe_status_name(st));
    PE_CHECK(k >= 2 && k <= 4, "%d quarter-segment blocks fitted, expected 2 to 4", k);
    while (k > 0)
        PE_OK(dmsg_free(q[--k]));

    /* The job still works after the failures. */
    char *blk = pe_alloc(seg / 2);
    PE_CHECK(blk != NULL, "alloc of half the segment after exhaustion failed");
    uint64_t v = 0x5EED0000u + (uint64_t)pe_me();
    PE_OK(dmsg_deposit(blk + seg / 2 - 8, &v, 8, pe_up(1), DMSG_CTR_NONE));
    PE_OK(dmsg_sync());
    uint64_t got;
    memcpy(&got, blk + seg / 2 - 8, 8);
    PE_CHECK(got == 0x5EED0000u + (uint64_t)pe_down(1),
             "deposit after exhaustion: expected %llx got %llx",
             ULL(0x5EED0000u + (uint64_t)pe_down(1)), ULL(got));

    /* free rules */
    PE_OK(dmsg_free(NULL));
    PE_EXPECT(dmsg_free(blk + 64), DMSG_ERR_ARG);
    PE_OK(dmsg_free(blk));
    PE_EXPECT(dmsg_free(blk), DMSG_ERR_ARG);
    PE_EXPECT(dmsg_alloc(64, NULL), DMSG_ERR_NULL);
    PE_OK(dmsg_sync());
    return 0;
}

/* PE 0 disagrees with the others: every PE gets DMSG_ERR_COLLECTIVE and the
 * job goes on. With one PE there is nobody to disagree with. */
static int alloc_mismatch(void)
{
    int multi = pe_n() > 1;
    int want = multi ? DMSG_ERR_COLLECTIVE : DMSG_OK;
    void *sentinel = (void *)&multi, *p = sentinel;
    int st = dmsg_alloc(pe_me() == 0 ? 128 : 64, &p);
    PE_CHECK(st == want, "alloc with PE 0 asking 128 and others 64 bytes: expected %s got %s",
             pe_status_name(want), pe_status_name(st));
    if (multi)
        PE_CHECK(p == sentinel, "failed collective alloc changed its output");
    else
        PE_OK(dmsg_free(p));

    char *a = pe_alloc(64);
    char *b = pe_alloc(64);
    PE_CHECK(a != NULL && b != NULL, "alloc after a mismatched alloc failed");
    st = dmsg_free(pe_me() == 0 ? a : b);
    PE_CHECK(st == want, "free with PE 0 freeing another block: expected %s got %s",
             pe_status_name(want), pe_status_name(st));
    if (multi) {
        PE_OK(dmsg_free(a));
        PE_OK(dmsg_free(b));
    } else {
        PE_OK(dmsg_free(b));
    }

    /* Still a working job. */
    uint64_t *slot = pe_alloc(64);
    PE_CHECK(slot != NULL, "alloc after mismatched collectives failed");
    uint64_t v = 0xFACE0000u + (uint64_t)pe_me();
    PE_OK(dmsg_deposit(slot, &v, 8, pe_up(1), DMSG_CTR_NONE));
    PE_OK(dmsg_sync());
    PE_CHECK(slot[0] == 0xFACE0000u + (uint64_t)pe_down(1),
             "deposit after mismatched collectives: expected %llx got %llx",
             ULL(0xFACE0000u + (uint64_t)pe_down(1)), ULL(slot[0]));
    PE_OK(dmsg_free(slot));
    return 0;
}

/* Parses a DMSG_SEGMENT_SIZE value (bytes, suffix K, M or G); 0 if invalid. */
static size_t parse_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s)
        return 0;
    switch (*end) {
    case 'K': case 'k': v <<= 10; end++; break;
    case 'M': case 'm': v <<= 20; end++; break;
    case 'G': case 'g': v <<= 30; end++; break;
    default: break;
    }
    return *end == '\0' ? (size_t)v : 0;
}

/* The segment has the size DMSG_SEGMENT_SIZE asks for (128M by default),
 * up to page rounding. */
static int env_segment(void)
{
    const char *env = getenv("DMSG_SEGMENT_SIZE");
    size_t want = env != NULL ? parse_size(env) : (size_t)128 << 20;
    PE_CHECK(want > 0, "cannot parse DMSG_SEGMENT_SIZE=%s in the test", env);
    size_t got = dmsg_segment_size();
    PE_CHECK(got >= want && got < want + 65536,
             "dmsg_segment_size() with DMSG_SEGMENT_SIZE=%s: expected %zu got %zu",
             env ? env : "(unset)", want, got);
    char *p = pe_alloc(64);
    PE_CHECK(p != NULL, "alloc failed");
    PE_CHECK((size_t)(pe_segment_end(p) - pe_segment_base(p)) == got,
             "segment bounds span %zu bytes, dmsg_segment_size() %zu",
             (size_t)(pe_segment_end(p) - pe_segment_base(p)), got);
    PE_OK(dmsg_free(p));
    return 0;
}

/* Without the checker, a transfer that reaches past the highest allocated
 * block (memory freed and not handed out again) is refused with
 * DMSG_ERR_RANGE and changes nothing; once the memory is allocated again,
 * the same transfer works. */
static int alloc_freed_refused(void)
{
    enum { W = 16 };
    uint64_t *a, *b, v[W], got[W];
    int to = pe_up(1);
    for (int i = 0; i < W; i++)
        v[i] = 0x5a5a0000u + (uint64_t)i;
    PE_OK(dmsg_alloc(W * sizeof *a, (void **)&a));
    PE_OK(dmsg_alloc(W * sizeof *b, (void **)&b));
    memset(b, 0, W * sizeof *b);
    PE_OK(dmsg_sync());
    PE_OK(dmsg_free(b));
    PE_EXPECT(dmsg_deposit(b, v, sizeof v, to, DMSG_CTR_NONE), DMSG_ERR_RANGE);
    PE_EXPECT(dmsg_deposit(&a[W - 1], v, 2 * sizeof v[0], to, DMSG_CTR_NONE), DMSG_ERR_RANGE);
    size_t idx[2] = {0, W};
    PE_EXPECT(dmsg_deposit_indexed(a, idx, v, 2, sizeof v[0], to, DMSG_CTR_NONE), DMSG_ERR_RANGE);
    dmsg_layout l = pe_l1(W, sizeof v[0]);
    PE_EXPECT(dmsg_deposit_section(b, &l, v, &l, sizeof v[0], to, DMSG_CTR_NONE), DMSG_ERR_RANGE);
    PE_EXPECT(dmsg_fetch(got, b, sizeof got, to), DMSG_ERR_RANGE);
    PE_OK(dmsg_deposit(a, v, sizeof v, to, DMSG_CTR_NONE)); /* the live block still works */
    PE_OK(dmsg_sync());
    PE_CHECK(memcmp(a, v, sizeof v) == 0, "the deposit into the live block did not land");
    uint64_t *c;
    PE_OK(dmsg_alloc(W * sizeof *c, (void **)&c));
    PE_CHECK(c == b, "the freed block was not handed out again (%p, %p)", (void *)c, (void *)b);
    for (int i = 0; i < W; i++)
        PE_CHECK(c[i] == 0, "c[%d] = %#llx: a refused deposit changed it", i,
                 (unsigned long long)c[i]);
    PE_OK(dmsg_sync());
    PE_OK(dmsg_deposit(c, v, sizeof v, to, DMSG_CTR_NONE));
    PE_OK(dmsg_sync());
    PE_CHECK(memcmp(c, v, sizeof v) == 0, "the deposit into the new block did not land");
    PE_OK(dmsg_free(c));
    PE_OK(dmsg_free(a));
    return 0;
}

const pe_case pe_alloc_cases[] = {
    {"env_segment", env_segment, 0},
    {"alloc_symmetric", alloc_symmetric, 0},
    {"alloc_many", alloc_many, 0},
    {"alloc_exhaust", alloc_exhaust, 0},
    {"alloc_mismatch", alloc_mismatch, 0},
    {"alloc_freed_refused", alloc_freed_refused, 0},
    {NULL, NULL, 0},
};
