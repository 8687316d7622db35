/* Error paths. Each bad call must return its exact status and have no
 * effect: the target area (filled with guard bytes on every PE) and the
 * counter named by the call are checked after a sync.
 *
 * Expected codes where the header allows a choice:
 * - contiguous SIZE_MAX bytes, and a stride whose extent overflows: either
 *   DMSG_ERR_OVERFLOW (the end address dst + bytes is not representable) or
 *   DMSG_ERR_RANGE (a check written as "bytes > room left in the segment"
 *   never overflows and correctly says the range leaves the segment);
 * - counts whose product overflows: DMSG_ERR_OVERFLOW only, because the
 *   element total itself is not representable, so no range can be judged. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pe.h"

#define AREA 1024
#define ULL(x) ((unsigned long long)(x))

/* Every PE's target area, guarded, and a counter that must stay at zero. */
typedef struct target {
    char *area;
    dmsg_ctr ctr;
} target;

static int target_open(target *t)
{
    t->area = pe_alloc(AREA);
    PE_CHECK(t->area != NULL, "alloc failed");
    PE_OK(dmsg_ctr_create(&t->ctr));
    memset(t->area, PE_GUARD, AREA);
    PE_OK(dmsg_sync());
    return 0;
}

/* After all bad calls: nothing landed anywhere and nothing was counted. */
static int target_close(target *t, const char *what)
{
    PE_OK(dmsg_sync());
    char msg[96];
    snprintf(msg, sizeof msg, "target area after failed %s calls", what);
    PE_TRY(pe_check_bytes(t->area, AREA, PE_GUARD, msg));
    uint64_t m = 9, b = 9;
    PE_OK(dmsg_ctr_read(t->ctr, &m, &b));
    PE_CHECK(m == 0 && b == 0, "counter after failed %s calls: expected 0/0 got %llu/%llu", what,
             ULL(m), ULL(b));
    PE_OK(dmsg_ctr_destroy(t->ctr));
    PE_OK(dmsg_free(t->area));
    return 0;
}

/* Expects one of two codes (see the file comment for where that applies). */
#define PE_EXPECT2(call, a, b)                                                                     \
    do {                                                                                           \
        int st2_ = (call);                                                                         \
        if (st2_ != (a) && st2_ != (b))                                                            \
            return pe_fail(__FILE__, __LINE__, "%s: expected %s or %s got %s", #call,              \
                           pe_status_name(a), pe_status_name(b), pe_status_name(st2_));            \
    } while (0)

/* All remote-access calls aimed at one PE number, each expected to fail with `want`. */
static int all_calls_to_pe(target *t, int pe, int want)
{
    char src[64] = {0};
    char local[64 + 128];
    size_t idx[4] = {0, 1, 2, 3};
    dmsg_adp8 rec[2] = {{0, 1}, {8, 2}};
    dmsg_layout l = pe_l1(4, 8);
    char *dst = t->area + 256;
    memset(local, PE_GUARD, sizeof local);
    char *ld = local + 64;
    PE_EXPECT(dmsg_deposit(dst, src, 8, pe, t->ctr), want);
    PE_EXPECT(dmsg_deposit(dst, src, 0, pe, t->ctr), want);
    PE_EXPECT(dmsg_deposit_section(dst, &l, src, &l, 4, pe, t->ctr), want);
    PE_EXPECT(dmsg_deposit_indexed(dst, idx, src, 4, 8, pe, t->ctr), want);
    PE_EXPECT(dmsg_deposit_gathered(dst, src, idx, 4, 8, pe, t->ctr), want);
    PE_EXPECT(dmsg_deposit_adp(dst, rec, 2, 8, pe, t->ctr), want);
    PE_EXPECT(dmsg_fetch(ld, dst, 8, pe), want);
    PE_EXPECT(dmsg_fetch_section(ld, &l, dst, &l, 4, pe), want);
    PE_EXPECT(dmsg_fetch_indexed(ld, dst, idx, 4, 8, pe), want);
    dmsg_req req;
    memset(&req, 0, sizeof req);
    PE_EXPECT(dmsg_fetch_nb(ld, dst, 8, pe, &req), want);
    PE_EXPECT(dmsg_wait(&req), DMSG_ERR_HANDLE);
    PE_TRY(pe_check_bytes(local, sizeof local, PE_GUARD, "local buffer after failed fetches"));
    return 0;
}

static int err_pe(void)
{
    target t;
    PE_TRY(target_open(&t));
    int n = pe_n();
    const int bad[] = {-1, n, n + 1, INT_MAX, INT_MIN};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        PE_TRY(all_calls_to_pe(&t, bad[i], DMSG_ERR_PE));
    /* The detail of the last error names the PE and the range. */
    char want[64];
    snprintf(want, sizeof want, "PE %d is not in [0, %d)", n + 7, n);
    PE_EXPECT(dmsg_deposit(t.area, t.area, 8, n + 7, DMSG_CTR_NONE), DMSG_ERR_PE);
    PE_CHECK(strcmp(dmsg_last_error(), want) == 0, "dmsg_last_error() is \"%s\", wanted \"%s\"",
             dmsg_last_error(), want);
    return target_close(&t, "bad-PE");
}

static int err_range(void)
{
    target t;
    PE_TRY(target_open(&t));
    char *end = pe_segment_end(t.area);
    char *base = pe_segment_base(t.area);
    char tail[8], after[8];
    memcpy(tail, end - 8, 8); /* last bytes of this PE's segment, must stay */
    char src[64] = {0};
    char stackbuf[64];
    char *heap = malloc(64);
    PE_CHECK(heap != NULL, "malloc failed");
    int to = pe_up(1);

    /* contiguous destinations that are not (wholly) symmetric */
    PE_EXPECT(dmsg_deposit(stackbuf, src, 8, to, t.ctr), DMSG_ERR_RANGE);
    PE_EXPECT(dmsg_deposit(heap, src, 8, to, t.ctr), DMSG_ERR_RANGE);
    PE_EXPECT(dmsg_deposit(end - 8, src, 16, to, t.ctr), DMSG_ERR_RANGE);
    PE_EXPECT(dmsg_deposit(end - 8, src, 9, to, t.ctr), DMSG_ERR_RANGE);
    PE_EXPECT(dmsg_deposit(end, src, 1, to, t.ctr), DMSG_ERR_RANGE);
    PE_EXPECT(dmsg_deposit(base - 8, src, 16, to, t.ctr), DMSG_ERR_RANGE);

    /* sections whose extent leaves the segment */
    size_t seg = dmsg_segment_size();
    dmsg_layout dl = pe_l1(4, (ptrdiff_t)(seg / 2));
    dmsg_layout sl = pe_l1(4, 1);
    PE_EXPECT(dmsg_deposit_section(t.area, &dl, src, &sl, 1, to, t.ctr), DMSG_ERR_RANGE);
    dl = pe_l2(8, 1, 2, end - 4 - t.area); /* second row straddles the end */
    sl = pe_l1(16, 1);
    PE_EXPECT(dmsg_deposit_section(t.area, &dl, src, &sl, 1, to, t.ctr), DMSG_ERR_RANGE);
    dl = pe_l1(8, 1);
    PE_EXPECT(dmsg_deposit_section(stackbuf, &dl, src, &dl, 1, to, t.ctr), DMSG_ERR_RANGE);

    /* fetch sources that are not symmetric, or leave the segment */
    char local[128 + 64];
    memset(local, PE_GUARD, sizeof local);
    char *ld = local + 64;
    PE_EXPECT(dmsg_fetch(ld, stackbuf, 8, to), DMSG_ERR_RANGE);
    PE_EXPECT(dmsg_fetch(ld, heap, 8, to), DMSG_ERR_RANGE);
    PE_EXPECT(dmsg_fetch(ld, end - 8, 16, to), DMSG_ERR_RANGE);
    dmsg_layout rs = pe_l1(4, -64); /* negative remote stride walking below the base */
    dmsg_layout ls = pe_l1(4, 1);
    PE_EXPECT(dmsg_fetch_section(ld, &ls, base + 64, &rs, 1, to), DMSG_ERR_RANGE);
    PE_TRY(pe_check_bytes(local, sizeof local, PE_GUARD, "local buffer after failed fetches"));

    PE_OK(dmsg_sync());
    memcpy(after, end - 8, 8);
    PE_TRY(pe_check_equal(after, tail, 8, "last 8 bytes of the segment after straddling deposits"));
    free(heap);
    return target_close(&t, "out-of-range");
}

static int err_overflow(void)
{
    target t;
    PE_TRY(target_open(&t));
    char src[64] = {0};
    char local[64];
    int to = pe_up(1);
    PE_EXPECT2(dmsg_deposit(t.area, src, SIZE_MAX, to, t.ctr), DMSG_ERR_OVERFLOW, DMSG_ERR_RANGE);
    PE_EXPECT2(dmsg_deposit(t.area + 64, src, SIZE_MAX - 32, to, t.ctr), DMSG_ERR_OVERFLOW,
               DMSG_ERR_RANGE);
    PE_EXPECT2(dmsg_fetch(local, t.area, SIZE_MAX, to), DMSG_ERR_OVERFLOW, DMSG_ERR_RANGE);

    /* 2^32 * 2^32 elements: the total does not fit in size_t */
    size_t big = (size_t)1 << 32;
    dmsg_layout l = pe_l2(big, 1, big, (ptrdiff_t)big);
    PE_EXPECT(dmsg_deposit_section(t.area, &l, src, &l, 1, to, t.ctr), DMSG_ERR_OVERFLOW);
    PE_EXPECT(dmsg_fetch_section(local, &l, t.area, &l, 1, to), DMSG_ERR_OVERFLOW);
    dmsg_layout l3 = pe_l3(1 << 22, 1, 1 << 22, 1 << 22, 1 << 22, (ptrdiff_t)1 << 44);
    PE_EXPECT(dmsg_deposit_section(t.area, &l3, src, &l3, 1, to, t.ctr), DMSG_ERR_OVERFLOW);

    /* a stride whose extent overflows */
    dmsg_layout ls = pe_l1(9, PTRDIFF_MAX / 4);
    dmsg_layout lc = pe_l1(9, 1);
    PE_EXPECT2(dmsg_deposit_section(t.area, &ls, src, &lc, 1, to, t.ctr), DMSG_ERR_OVERFLOW,
               DMSG_ERR_RANGE);
    return target_close(&t, "overflowing");
}

static int err_null(void)
{
    target t;
    PE_TRY(target_open(&t));
    char src[64] = {0};
    char local[64];
    size_t idx[2] = {0, 1};
    dmsg_adp8 rec[1] = {{0, 1}};
    dmsg_layout l = pe_l1(2, 8);
    char *dst = t.area + 128;
    int to = pe_up(1);
    dmsg_ctr c = t.ctr;
    PE_EXPECT(dmsg_deposit(NULL, src, 8, to, c), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_deposit(dst, NULL, 8, to, c), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_deposit_section(NULL, &l, src, &l, 8, to, c), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_deposit_section(dst, NULL, src, &l, 8, to, c), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_deposit_section(dst, &l, NULL, &l, 8, to, c), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_deposit_section(dst, &l, src, NULL, 8, to, c), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_deposit_indexed(NULL, idx, src, 2, 8, to, c), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_deposit_indexed(dst, NULL, src, 2, 8, to, c), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_deposit_indexed(dst, idx, NULL, 2, 8, to, c), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_deposit_gathered(NULL, src, idx, 2, 8, to, c), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_deposit_gathered(dst, NULL, idx, 2, 8, to, c), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_deposit_gathered(dst, src, NULL, 2, 8, to, c), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_deposit_adp(NULL, rec, 1, 8, to, c), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_deposit_adp(dst, NULL, 1, 8, to, c), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_fetch(NULL, dst, 8, to), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_fetch(local, NULL, 8, to), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_fetch_section(NULL, &l, dst, &l, 8, to), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_fetch_section(local, NULL, dst, &l, 8, to), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_fetch_section(local, &l, NULL, &l, 8, to), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_fetch_section(local, &l, dst, NULL, 8, to), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_fetch_indexed(NULL, dst, idx, 2, 8, to), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_fetch_indexed(local, NULL, idx, 2, 8, to), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_fetch_indexed(local, dst, NULL, 2, 8, to), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_ctr_create(NULL), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_alloc(8, NULL), DMSG_ERR_NULL);
    return target_close(&t, "NULL-argument");
}

static int err_args(void)
{
    target t;
    PE_TRY(target_open(&t));
    char src[256] = {0};
    char local[256];
    char *dst = t.area + 256;
    int to = pe_up(1);
    dmsg_ctr c = t.ctr;
    dmsg_layout ok = pe_l1(4, 8);
    dmsg_layout bad = ok;

    bad.ndims = 0;
    PE_EXPECT(dmsg_deposit_section(dst, &bad, src, &ok, 8, to, c), DMSG_ERR_ARG);
    PE_EXPECT(dmsg_deposit_section(dst, &ok, src, &bad, 8, to, c), DMSG_ERR_ARG);
    bad.ndims = DMSG_MAX_DIMS + 1;
    PE_EXPECT(dmsg_deposit_section(dst, &bad, src, &ok, 8, to, c), DMSG_ERR_ARG);
    bad.ndims = -1;
    PE_EXPECT(dmsg_deposit_section(dst, &bad, src, &ok, 8, to, c), DMSG_ERR_ARG);
    PE_EXPECT(dmsg_deposit_section(dst, &ok, src, &ok, 0, to, c), DMSG_ERR_ARG);

    dmsg_layout five = pe_l1(5, 8); /* element totals differ: 4 vs 5 */
    PE_EXPECT(dmsg_deposit_section(dst, &ok, src, &five, 8, to, c), DMSG_ERR_ARG);
    /* A negative destination stride is legal (its elements do not overlap);
     * checked below on a local fetch, which leaves the target untouched. */
    dmsg_layout neg = pe_l1(4, -8);
    dmsg_layout zero = pe_l1(4, 0); /* all elements on one spot */
    PE_EXPECT(dmsg_deposit_section(dst, &zero, src, &ok, 8, to, c), DMSG_ERR_ARG);
    dmsg_layout tight = pe_l1(4, 4); /* stride below the element size */
    PE_EXPECT(dmsg_deposit_section(dst, &tight, src, &ok, 8, to, c), DMSG_ERR_ARG);
    dmsg_layout rows = pe_l2(4, 8, 4, 16); /* rows of 32 bytes every 16 bytes */
    dmsg_layout flat = pe_l1(16, 8);
    PE_EXPECT(dmsg_deposit_section(dst, &rows, src, &flat, 8, to, c), DMSG_ERR_ARG);
    /* For a fetch the destination is local: the same rules apply to it. */
    char fwd[32], rev[32];
    memset(rev, 0, sizeof rev); /* the area holds guard bytes: every slot must be written */
    PE_EXPECT(dmsg_fetch(fwd, t.area, sizeof fwd, to), DMSG_OK);
    PE_EXPECT(dmsg_fetch_section(rev + 24, &neg, t.area, &ok, 8, to), DMSG_OK);
    for (int i = 0; i < 4; i++)
        PE_CHECK(memcmp(rev + 24 - 8 * i, fwd + 8 * i, 8) == 0,
                 "negative destination stride: element %d misplaced", i);
    PE_EXPECT(dmsg_fetch_section(local, &zero, t.area, &ok, 8, to), DMSG_ERR_ARG);
    PE_EXPECT(dmsg_fetch_section(local, &rows, t.area, &flat, 8, to), DMSG_ERR_ARG);
    PE_EXPECT(dmsg_fetch_section(local, &ok, t.area, &five, 8, to), DMSG_ERR_ARG);

    size_t idx[2] = {0, 1};
    PE_EXPECT(dmsg_deposit_indexed(dst, idx, src, 2, 0, to, c), DMSG_ERR_ARG);
    PE_EXPECT(dmsg_deposit_gathered(dst, src, idx, 2, 0, to, c), DMSG_ERR_ARG);
    dmsg_adp8 rec[1] = {{0, 1}};
    PE_EXPECT(dmsg_deposit_adp(dst, rec, 1, 3, to, c), DMSG_ERR_ARG);
    PE_EXPECT(dmsg_deposit_adp(dst, rec, 1, 0, to, c), DMSG_ERR_ARG);
    PE_EXPECT(dmsg_deposit_adp(dst, rec, 1, 32, to, c), DMSG_ERR_ARG);
    return target_close(&t, "bad-argument");
}

/* One bad index among good ones: nothing at all is written. */
static int err_indexed(void)
{
    target t;
    PE_TRY(target_open(&t));
    char src[128];
    memset(src, 0x11, sizeof src);
    char *end = pe_segment_end(t.area);
    size_t seg_elems = (size_t)(end - t.area) / 8;
    int to = pe_up(1);
    size_t idx[8] = {0, 1, 2, 3, 4, 5, 6, 7};

    idx[6] = (size_t)1 << 40;
    PE_EXPECT(dmsg_deposit_indexed(t.area, idx, src, 8, 8, to, t.ctr), DMSG_ERR_RANGE);
    idx[6] = seg_elems; /* first element past the end */
    PE_EXPECT(dmsg_deposit_indexed(t.area, idx, src, 8, 8, to, t.ctr), DMSG_ERR_RANGE);
    idx[6] = SIZE_MAX / 4; /* idx * 8 overflows */
    PE_EXPECT2(dmsg_deposit_indexed(t.area, idx, src, 8, 8, to, t.ctr), DMSG_ERR_RANGE,
               DMSG_ERR_OVERFLOW);
    idx[6] = 6;
    idx[0] = seg_elems + 1; /* the bad one first */
    PE_EXPECT(dmsg_deposit_indexed(t.area, idx, src, 8, 8, to, t.ctr), DMSG_ERR_RANGE);
    idx[0] = 0;

    /* a gathered deposit whose contiguous target runs off the segment */
    PE_EXPECT(dmsg_deposit_gathered(end - 32, src, idx, 8, 8, to, t.ctr), DMSG_ERR_RANGE);

    /* an indexed fetch with a bad index writes nothing locally */
    char local[64 + 64 + 64];
    memset(local, PE_GUARD, sizeof local);
    idx[3] = seg_elems + 5;
    PE_EXPECT(dmsg_fetch_indexed(local + 64, t.area, idx, 8, 8, to), DMSG_ERR_RANGE);
    dmsg_req req;
    memset(&req, 0, sizeof req);
    PE_EXPECT(dmsg_fetch_indexed_nb(local + 64, t.area, idx, 8, 8, to, &req), DMSG_ERR_RANGE);
    PE_EXPECT(dmsg_wait(&req), DMSG_ERR_HANDLE);
    PE_TRY(pe_check_bytes(local, sizeof local, PE_GUARD, "local buffer after bad indexed fetch"));
    return target_close(&t, "bad-index");
}

/* Address-data records: misaligned or out-of-range offsets, nothing written. */
static int err_adp(void)
{
    target t;
    PE_TRY(target_open(&t));
    int to = pe_up(1);
    char *end = pe_segment_end(t.area);
    uint64_t past = (uint64_t)(end - t.area);

    dmsg_adp4 r4[4] = {{0, 1, 0}, {4, 2, 0}, {8, 3, 0}, {6, 4, 0}};
    PE_EXPECT(dmsg_deposit_adp(t.area, r4, 4, 4, to, t.ctr), DMSG_ERR_ALIGN);
    dmsg_adp8 r8[3] = {{0, 1}, {16, 2}, {4, 3}};
    PE_EXPECT(dmsg_deposit_adp(t.area, r8, 3, 8, to, t.ctr), DMSG_ERR_ALIGN);
    dmsg_adp16 r16[2] = {{0, {1}}, {8, {2}}};
    PE_EXPECT(dmsg_deposit_adp(t.area, r16, 2, 16, to, t.ctr), DMSG_ERR_ALIGN);

    r8[2].off = past; /* aligned, but one element past the end of the segment */
    PE_EXPECT(dmsg_deposit_adp(t.area, r8, 3, 8, to, t.ctr), DMSG_ERR_RANGE);
    r8[2].off = (uint64_t)1 << 50;
    PE_EXPECT(dmsg_deposit_adp(t.area, r8, 3, 8, to, t.ctr), DMSG_ERR_RANGE);
    r4[3].off = past;
    PE_EXPECT(dmsg_deposit_adp(t.area, r4, 4, 4, to, t.ctr), DMSG_ERR_RANGE);
    return target_close(&t, "bad-record");
}

/* Destroyed, NONE and garbage counter handles. */
static int err_counter(void)
{
    target t;
    PE_TRY(target_open(&t));
    char src[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    int to = pe_up(1);
    dmsg_ctr dead;
    PE_OK(dmsg_ctr_create(&dead));
    PE_OK(dmsg_ctr_destroy(dead));
    const dmsg_ctr bad[] = {dead, DMSG_CTR_NONE, 0xDEADBEEFDEADBEEFull, (1ull << 63) | 5};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t m = 77, b = 78;
        PE_EXPECT(dmsg_await(bad[i], 1), DMSG_ERR_COUNTER);
        PE_EXPECT(dmsg_await_bytes(bad[i], 1), DMSG_ERR_COUNTER);
        PE_EXPECT(dmsg_ctr_read(bad[i], &m, &b), DMSG_ERR_COUNTER);
        PE_CHECK(m == 77 && b == 78, "failed dmsg_ctr_read (handle %zu) changed its outputs", i);
        if (bad[i] != DMSG_CTR_NONE) /* NONE is valid on a deposit: "count nothing" */
            PE_EXPECT(dmsg_deposit(t.area, src, 8, to, bad[i]), DMSG_ERR_COUNTER);
    }
    PE_EXPECT(dmsg_ctr_destroy(dead), DMSG_ERR_COUNTER);
    PE_EXPECT(dmsg_ctr_destroy(DMSG_CTR_NONE), DMSG_ERR_COUNTER);

    /* A stale handle stays invalid after its slot may have been reused. */
    dmsg_ctr fresh;
    PE_OK(dmsg_ctr_create(&fresh));
    PE_CHECK(fresh != dead, "a new counter got the handle of a destroyed one (%llu)", ULL(dead));
    PE_EXPECT(dmsg_deposit(t.area, src, 8, to, dead), DMSG_ERR_COUNTER);
    PE_EXPECT(dmsg_await(dead, 1), DMSG_ERR_COUNTER);
    uint64_t m = 5;
    PE_OK(dmsg_ctr_read(fresh, &m, NULL));
    PE_CHECK(m == 0, "fresh counter: expected 0 msgs got %llu", ULL(m));
    PE_OK(dmsg_ctr_destroy(fresh));
    return target_close(&t, "bad-counter");
}

static int err_strerror(void)
{
    const char *s[18];
    for (int code = 0; code >= -17; code--) {
        s[-code] = dmsg_strerror(code);
        PE_CHECK(s[-code] != NULL && s[-code][0] != '\0', "dmsg_strerror(%d) is empty", code);
        for (int j = 0; j < -code; j++)
            PE_CHECK(strcmp(s[j], s[-code]) != 0, "dmsg_strerror(%d) == dmsg_strerror(%d): \"%s\"",
                     -j, code, s[j]);
    }
    const int unknown[] = {1, -18, -1000, INT_MIN, INT_MAX};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        const char *u = dmsg_strerror(unknown[i]);
        PE_CHECK(u != NULL && u[0] != '\0', "dmsg_strerror(%d) is empty", unknown[i]);
    }
    return 0;
}

/* Calls before dmsg_init and after dmsg_finalize, and dmsg_init twice. */
static int not_initialized(const char *when)
{
    void *p = NULL;
    dmsg_ctr c = 0;
    char buf[16] = {0};
    PE_EXPECT(dmsg_sync(), DMSG_ERR_NOT_INIT);
    PE_EXPECT(dmsg_quiet(), DMSG_ERR_NOT_INIT);
    PE_EXPECT(dmsg_finalize(), DMSG_ERR_NOT_INIT);
    PE_EXPECT(dmsg_alloc(64, &p), DMSG_ERR_NOT_INIT);
    PE_CHECK(p == NULL, "%s: failed dmsg_alloc changed its output", when);
    PE_EXPECT(dmsg_ctr_create(&c), DMSG_ERR_NOT_INIT);
    PE_EXPECT(dmsg_await(1, 1), DMSG_ERR_NOT_INIT);
    PE_EXPECT(dmsg_deposit(buf, buf + 8, 8, 0, DMSG_CTR_NONE), DMSG_ERR_NOT_INIT);
    PE_EXPECT(dmsg_fetch(buf, buf + 8, 8, 0), DMSG_ERR_NOT_INIT);
    PE_CHECK(dmsg_segment_size() == 0, "%s: dmsg_segment_size() = %zu, expected 0", when,
             dmsg_segment_size());
    PE_CHECK(dmsg_addr_is_symmetric(buf, 1) == 0, "%s: a stack address is symmetric", when);
    return 0;
}

static int err_lifecycle(void)
{
    PE_CHECK(dmsg_pe() == -1 && dmsg_npes() == 0,
             "before init: dmsg_pe() = %d, dmsg_npes() = %d, expected -1 and 0", dmsg_pe(),
             dmsg_npes());
    PE_CHECK(dmsg_transport_name() == NULL, "before init: transport name is \"%s\", expected NULL",
             dmsg_transport_name());
    PE_TRY(not_initialized("before init"));

    PE_OK(dmsg_init());
    int me = dmsg_pe(), n = dmsg_npes();
    PE_CHECK(n >= 1 && me >= 0 && me < n, "after init: PE %d of %d", me, n);
    const char *want_tp = getenv("DMSG_TRANSPORT") ? getenv("DMSG_TRANSPORT") : "shm";
    PE_CHECK(dmsg_transport_name() != NULL && strcmp(dmsg_transport_name(), want_tp) == 0,
             "transport: expected \"%s\" got \"%s\"", want_tp,
             dmsg_transport_name() ? dmsg_transport_name() : "(null)");
    PE_EXPECT(dmsg_init(), DMSG_ERR_STATE);
    PE_CHECK(dmsg_pe() == me && dmsg_npes() == n,
             "a second dmsg_init changed PE %d of %d to %d of %d",
             me, n, dmsg_pe(), dmsg_npes());
    PE_OK(dmsg_sync());
    double t0 = dmsg_wtime(), t1 = dmsg_wtime();
    PE_CHECK(t1 >= t0, "dmsg_wtime went backwards: %f then %f", t0, t1);
    PE_OK(dmsg_finalize());
    PE_TRY(not_initialized("after finalize"));
    return 0;
}

/* Runs with DMSG_TIMEOUT=2 (set here and by the integration suite). The
 * limit bounds every wait, dmsg_init's start-up exchanges too: with 0.5 s a
 * start-up over tcp;ofi_rxm on a host at a load of 20 timed out before the
 * await this case is about. */
static int err_timeout(void)
{
    setenv("DMSG_TIMEOUT", "2", 1);
    PE_OK(dmsg_init());
    dmsg_ctr c, hand;
    PE_OK(dmsg_ctr_create(&c));
    PE_OK(dmsg_ctr_create(&hand));
    uint64_t *flag = pe_alloc(64);
    PE_CHECK(flag != NULL, "alloc failed");
    double t0 = pe_now();
    PE_EXPECT(dmsg_await(c, 1), DMSG_ERR_TIMEOUT);
    double dt = pe_now() - t0;
    PE_CHECK(dt >= 1.95 && dt < 12.0, "await timed out after %.3f s, expected about 2 s", dt);
    PE_EXPECT(dmsg_await_bytes(c, 1), DMSG_ERR_TIMEOUT);
    uint64_t m = 9, b = 9;
    PE_OK(dmsg_ctr_read(c, &m, &b));
    PE_CHECK(m == 0 && b == 0, "counter after timeouts: expected 0/0 got %llu/%llu", ULL(m),
             ULL(b));

    /* No PE may reach a barrier while another still awaits c: under
     * DMSG_CHECK that barrier tells the other's await that it can never
     * complete (DMSG_ERR_STATE, rightly), and on a loaded host one PE may
     * start its awaits seconds after the other. So a handshake by deposits
     * first: a PE goes on once every PE is past both awaits (a wait longer
     * than the limit times out, and is waited again). */
    uint64_t one = 1;
    for (int p = 0; p < dmsg_npes(); p++)
        PE_OK(dmsg_deposit(&flag[dmsg_pe() % 8], &one, 8, p, hand));
    int st, tries = 0;
    while ((st = dmsg_await(hand, (uint64_t)dmsg_npes())) == DMSG_ERR_TIMEOUT && ++tries < 30)
        ;
    PE_CHECK(st == DMSG_OK, "handshake after the timeouts: %s", dmsg_strerror(st));

    /* A timeout is not fatal: the counter and the job still work. */
    PE_OK(dmsg_sync());
    uint64_t *slot = pe_alloc(64);
    PE_CHECK(slot != NULL, "alloc failed");
    uint64_t v = 4242 + (uint64_t)dmsg_pe();
    PE_OK(dmsg_deposit(slot, &v, 8, pe_up(1), c));
    PE_OK(dmsg_await(c, 1));
    PE_CHECK(slot[0] == 4242 + (uint64_t)pe_down(1), "value after timeout: expected %llu got %llu",
             ULL(4242 + (uint64_t)pe_down(1)), ULL(slot[0]));
    PE_OK(dmsg_free(slot));
    PE_OK(dmsg_free(flag));
    PE_OK(dmsg_ctr_destroy(hand));
    PE_OK(dmsg_ctr_destroy(c));
    PE_OK(dmsg_finalize());
    return 0;
}

/* Started without dmsgrun (a 1-PE job): bad settings make dmsg_init fail
 * with DMSG_ERR_ENV and no effect, so a corrected retry succeeds; the
 * detail (dmsg_last_error) names the setting and its value, for the
 * application to print (dmsg prints nothing itself). */
static int env_bad_settings(void)
{
    static const char *const bad[][2] = {
        {"DMSG_SEGMENT_SIZE", "garbage"}, {"DMSG_SEGMENT_SIZE", "12Q"},
        {"DMSG_SEGMENT_SIZE", "-5"},      {"DMSG_TIMEOUT", "soon"},
        {"DMSG_MAX_COUNTERS", "lots"},    {"DMSG_TRANSPORT", "carrier-pigeon"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *old = getenv(bad[i][0]);
        char *saved = old ? strdup(old) : NULL;
        setenv(bad[i][0], bad[i][1], 1);
        int st = dmsg_init();
        if (st == DMSG_OK)
            dmsg_finalize();
        PE_CHECK(st == DMSG_ERR_ENV, "dmsg_init with %s=%s: expected DMSG_ERR_ENV got %s",
                 bad[i][0], bad[i][1], pe_status_name(st));
        PE_CHECK(dmsg_pe() == -1, "failed dmsg_init left dmsg_pe() = %d", dmsg_pe());
        char want[64];
        snprintf(want, sizeof want, "%s=%s", bad[i][0], bad[i][1]);
        const char *why = dmsg_last_error();
        PE_CHECK(strstr(why, bad[i][0]) != NULL && strstr(why, bad[i][1]) != NULL,
                 "dmsg_init with %s: the detail \"%s\" does not name it", want, why);
        if (saved) {
            setenv(bad[i][0], saved, 1);
            free(saved);
        } else {
            unsetenv(bad[i][0]);
        }
    }
    setenv("DMSG_SEGMENT_SIZE", "4M", 1);
    PE_OK(dmsg_init());
    PE_CHECK(dmsg_segment_size() >= ((size_t)4 << 20) && dmsg_segment_size() < ((size_t)5 << 20),
             "DMSG_SEGMENT_SIZE=4M gave a segment of %zu bytes", dmsg_segment_size());
    PE_OK(dmsg_finalize());
    return 0;
}

const pe_case pe_error_cases[] = {
    {"err_pe", err_pe, 0},
    {"err_range", err_range, 0},
    {"err_overflow", err_overflow, 0},
    {"err_null", err_null, 0},
    {"err_args", err_args, 0},
    {"err_indexed", err_indexed, 0},
    {"err_adp", err_adp, 0},
    {"err_counter", err_counter, 0},
    {"err_strerror", err_strerror, 0},
    {"err_lifecycle", err_lifecycle, PE_MANUAL_INIT},
    {"err_timeout", err_timeout, PE_MANUAL_INIT},
    {"env_bad_settings", env_bad_settings, PE_MANUAL_INIT},
    {NULL, NULL, 0},
};
