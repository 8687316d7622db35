/* Atomics, signals and point-to-point waits (include/dmsg.h sections
 * "atomics", "signals", "waits"). Transport-independent: every case runs
 * over shm, sim and ofi alike. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pe.h"

#define ULL(x) ((unsigned long long)(x))

/* One value of any atomic type, read and written through its first bytes. */
typedef union amo_val {
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    float f;
    double d;
} amo_val;

static const dmsg_type int_types[] = {DMSG_TYPE_INT32, DMSG_TYPE_UINT32, DMSG_TYPE_INT64,
                                      DMSG_TYPE_UINT64};

static uint64_t mask_of(size_t size)
{
    return size == 8 ? ~0ull : (1ull << (8 * size)) - 1;
}

static amo_val val_of(uint64_t bits, size_t size)
{
    amo_val v;
    memset(&v, 0, sizeof v);
    if (size == 4)
        v.u32 = (uint32_t)bits;
    else
        v.u64 = bits;
    return v;
}

static uint64_t bits_of(const amo_val *v, size_t size)
{
    return size == 4 ? v->u32 : v->u64;
}

/* The word after op with old a, operand b, compare c; *fetched: whether
 * the op returns old. */
static uint64_t model(dmsg_amo_op op, uint64_t a, uint64_t b, uint64_t c, uint64_t mask)
{
    switch (op) {
    case DMSG_AMO_FETCH: return a;
    case DMSG_AMO_SET:
    case DMSG_AMO_SWAP: return b;
    case DMSG_AMO_CSWAP: return a == c ? b : a;
    case DMSG_AMO_ADD:
    case DMSG_AMO_FETCH_ADD: return (a + b) & mask;
    case DMSG_AMO_AND:
    case DMSG_AMO_FETCH_AND: return a & b;
    case DMSG_AMO_OR:
    case DMSG_AMO_FETCH_OR: return a | b;
    case DMSG_AMO_XOR:
    case DMSG_AMO_FETCH_XOR: return a ^ b;
    }
    return 0;
}

static int fetching(dmsg_amo_op op)
{
    return op == DMSG_AMO_FETCH || op == DMSG_AMO_SWAP || op == DMSG_AMO_CSWAP ||
           op == DMSG_AMO_FETCH_ADD || op == DMSG_AMO_FETCH_AND || op == DMSG_AMO_FETCH_OR ||
           op == DMSG_AMO_FETCH_XOR;
}

/* One op on the word at (w, pe) from old a: checks result and the word. */
static int one_op(void *w, int pe, dmsg_type t, size_t size, dmsg_amo_op op, uint64_t a,
                  uint64_t b, uint64_t c, int nb)
{
    uint64_t m = mask_of(size);
    amo_val va = val_of(a, size), vb = val_of(b, size), vc = val_of(c, size), res, got;
    memset(&res, 0x5a, sizeof res);
    amo_val sentinel = res;
    PE_OK(dmsg_atomic(w, DMSG_AMO_SET, t, &va, NULL, NULL, pe));
    if (nb) {
        dmsg_req req;
        PE_OK(dmsg_atomic_nb(w, op, t, &vb, &vc, &res, pe, &req));
        PE_OK(dmsg_wait(&req));
    } else {
        PE_OK(dmsg_atomic(w, op, t, &vb, &vc, &res, pe));
    }
    PE_OK(dmsg_atomic(w, DMSG_AMO_FETCH, t, NULL, NULL, &got, pe));
    uint64_t want = model(op, a, b, c, m);
    PE_CHECK(bits_of(&got, size) == want,
             "type %d op %d on PE %d (nb %d): a %#llx b %#llx c %#llx: word %#llx, expected %#llx",
             (int)t, (int)op, pe, nb, ULL(a), ULL(b), ULL(c), ULL(bits_of(&got, size)), ULL(want));
    if (fetching(op))
        PE_CHECK(bits_of(&res, size) == a, "type %d op %d: result %#llx, expected old %#llx",
                 (int)t, (int)op, ULL(bits_of(&res, size)), ULL(a));
    else
        PE_CHECK(!memcmp(&res, &sentinel, sizeof res), "type %d op %d wrote result", (int)t,
                 (int)op);
    return 0;
}

/* Every op on every integer type, on a remote PE and on this one, blocking
 * and through a request; each PE owns its word on the target. */
static int amo_ops(void)
{
    int me = pe_me(), n = pe_n();
    uint64_t *words = pe_alloc((size_t)n * 8);
    PE_CHECK(words != NULL, "alloc");
    const int targets[2] = {pe_up(1), me};
    for (int ti = 0; ti < 2; ti++)
        for (size_t k = 0; k < sizeof int_types / sizeof int_types[0]; k++) {
            dmsg_type t = int_types[k];
            size_t size = dmsg_type_size(t);
            uint64_t m = mask_of(size);
            /* Values with every bit pattern that matters: high bits, the sign
             * bit, wrap-around on add. */
            const uint64_t a = 0xf0f0f0f0a5a5a5a5ull & m, b = 0x0ff00ff0ffff0001ull & m;
            void *w = &words[me];
            for (int op = DMSG_AMO_FETCH; op <= DMSG_AMO_FETCH_XOR; op++)
                for (int nb = 0; nb < 2; nb++) {
                    PE_TRY(one_op(w, targets[ti], t, size, (dmsg_amo_op)op, a, b, a, nb));
                    PE_TRY(one_op(w, targets[ti], t, size, (dmsg_amo_op)op, m, 1, 0, nb));
                    PE_TRY(one_op(w, targets[ti], t, size, (dmsg_amo_op)op, 5, (uint64_t)-3 & m,
                                  4, nb));
                }
        }
    /* Floats move bits: FETCH, SET, SWAP. */
    for (int ti = 0; ti < 2; ti++) {
        int pe = targets[ti];
        amo_val x = {0}, y = {0}, r = {0};
        x.f = -1.5f;
        y.f = 3.25e7f;
        PE_OK(dmsg_atomic(&words[me], DMSG_AMO_SET, DMSG_TYPE_FLOAT, &x, NULL, NULL, pe));
        PE_OK(dmsg_atomic(&words[me], DMSG_AMO_SWAP, DMSG_TYPE_FLOAT, &y, NULL, &r, pe));
        PE_CHECK(r.f == -1.5f, "float swap returned %g", (double)r.f);
        PE_OK(dmsg_atomic(&words[me], DMSG_AMO_FETCH, DMSG_TYPE_FLOAT, NULL, NULL, &r, pe));
        PE_CHECK(r.f == 3.25e7f, "float fetch returned %g", (double)r.f);
        x.d = -2.0e-300;
        y.d = 1.0 / 3.0;
        PE_OK(dmsg_atomic(&words[me], DMSG_AMO_SET, DMSG_TYPE_DOUBLE, &x, NULL, NULL, pe));
        PE_OK(dmsg_atomic(&words[me], DMSG_AMO_SWAP, DMSG_TYPE_DOUBLE, &y, NULL, &r, pe));
        PE_CHECK(r.d == -2.0e-300, "double swap returned %g", r.d);
        PE_OK(dmsg_atomic(&words[me], DMSG_AMO_FETCH, DMSG_TYPE_DOUBLE, NULL, NULL, &r, pe));
        PE_CHECK(r.d == 1.0 / 3.0, "double fetch returned %g", r.d);
    }
    PE_OK(dmsg_sync());
    PE_OK(dmsg_free(words));
    return 0;
}

/* Every PE's share of `total` operations. */
static long share(long total)
{
    long n = pe_n(), me = pe_me();
    return total / n + (me < total % n);
}

#define CONTEND_TOTAL 100000L

/* All PEs hammer words on PE 0: fetch-add (each old value must be handed
 * out once: a fetch-or on a bitmap proves it) and a CAS-loop increment. */
static int amo_contend(void)
{
    size_t bwords = (CONTEND_TOTAL + 63) / 64;
    uint64_t *w = pe_alloc((2 + bwords) * 8);
    PE_CHECK(w != NULL, "alloc");
    uint64_t *bitmap = w + 2;
    PE_OK(dmsg_sync());
    long mine = share(CONTEND_TOTAL);
    for (long i = 0; i < mine; i++) {
        uint64_t one = 1, old = 0, seen = 0;
        PE_OK(dmsg_atomic(&w[0], DMSG_AMO_FETCH_ADD, DMSG_TYPE_UINT64, &one, NULL, &old, 0));
        PE_CHECK(old < (uint64_t)CONTEND_TOTAL, "fetch-add returned %llu", ULL(old));
        uint64_t bit = 1ull << (old % 64);
        PE_OK(dmsg_atomic(&bitmap[old / 64], DMSG_AMO_FETCH_OR, DMSG_TYPE_UINT64, &bit, NULL,
                          &seen, 0));
        PE_CHECK(!(seen & bit), "old value %llu handed out twice", ULL(old));
    }
    for (long i = 0; i < mine; i++) {
        int32_t cur = 0, next, old;
        PE_OK(dmsg_atomic(&w[1], DMSG_AMO_FETCH, DMSG_TYPE_INT32, NULL, NULL, &cur, 0));
        for (;;) {
            next = cur + 1;
            PE_OK(dmsg_atomic(&w[1], DMSG_AMO_CSWAP, DMSG_TYPE_INT32, &next, &cur, &old, 0));
            if (old == cur)
                break;
            cur = old;
        }
    }
    PE_OK(dmsg_sync());
    if (pe_me() == 0) {
        PE_CHECK(w[0] == (uint64_t)CONTEND_TOTAL, "fetch-add word %llu, expected %ld", ULL(w[0]),
                 CONTEND_TOTAL);
        int32_t c;
        memcpy(&c, &w[1], 4);
        PE_CHECK(c == CONTEND_TOTAL, "CAS word %d, expected %ld", c, CONTEND_TOTAL);
        for (long v = 0; v < CONTEND_TOTAL; v++)
            PE_CHECK(bitmap[v / 64] >> (v % 64) & 1, "old value %ld never handed out", v);
    }
    PE_OK(dmsg_sync());
    PE_OK(dmsg_free(w));
    return 0;
}

/* Non-blocking atomics: with requests (wait and test), and without (done
 * by quiet, and by sync as seen from the target). */
static int amo_nb(void)
{
    int up = pe_up(1);
    uint64_t *w = pe_alloc(3 * 8);
    PE_CHECK(w != NULL, "alloc");
    PE_OK(dmsg_sync());
    enum { K = 64 };
    dmsg_req reqs[K];
    uint64_t olds[K], one = 1;
    for (int i = 0; i < K; i++)
        PE_OK(dmsg_atomic_nb(&w[0], DMSG_AMO_FETCH_ADD, DMSG_TYPE_UINT64, &one, NULL, &olds[i], up,
                             &reqs[i]));
    for (int i = 0; i < K; i++) {
        if (i % 2) {
            PE_OK(dmsg_wait(&reqs[i]));
        } else {
            int done = 0;
            while (!done)
                PE_OK(dmsg_test(&reqs[i], &done));
        }
        PE_CHECK(olds[i] < (uint64_t)K, "old value %llu", ULL(olds[i]));
    }
    /* A retired request is refused. */
    PE_EXPECT(dmsg_wait(&reqs[0]), DMSG_ERR_HANDLE);
    /* Non-fetching with a request: result unused (NULL). */
    dmsg_req r;
    PE_OK(dmsg_atomic_nb(&w[1], DMSG_AMO_ADD, DMSG_TYPE_UINT64, &one, NULL, NULL, up, &r));
    PE_OK(dmsg_wait(&r));
    /* Without a request: complete after quiet. */
    for (int i = 0; i < K; i++)
        PE_OK(dmsg_atomic_nb(&w[2], DMSG_AMO_ADD, DMSG_TYPE_UINT64, &one, NULL, NULL, up, NULL));
    PE_OK(dmsg_quiet());
    PE_OK(dmsg_sync());
    /* Only the PE below updates this PE's words. */
    PE_CHECK(w[0] == (uint64_t)K, "nb fetch-add word %llu, expected %d", ULL(w[0]), K);
    PE_CHECK(w[1] == 1, "nb add with request: %llu", ULL(w[1]));
    PE_CHECK(w[2] == (uint64_t)K, "nb add without request: %llu", ULL(w[2]));
    /* Each fetch-add got a distinct old value. */
    for (int i = 0; i < K; i++)
        for (int j = 0; j < i; j++)
            PE_CHECK(olds[i] != olds[j], "old value %llu fetched twice", ULL(olds[i]));
    /* Without quiet: sync alone completes them. The PE above checked its
     * words too before they change again. */
    PE_OK(dmsg_sync());
    for (int i = 0; i < K; i++)
        PE_OK(dmsg_atomic_nb(&w[2], DMSG_AMO_XOR, DMSG_TYPE_UINT64, &one, NULL, NULL, up, NULL));
    PE_OK(dmsg_sync());
    PE_CHECK(w[2] == (uint64_t)K, "nb xor pairs without request: %llu", ULL(w[2]));
    PE_OK(dmsg_sync());
    PE_OK(dmsg_free(w));
    return 0;
}

#define SIG_BLOCK 4096
#define SIG_ROUNDS 200

/* Put with signal, many rounds: the data of round r is complete when the
 * receiver sees signal r. The receiver acknowledges each round with an
 * added signal, so the sender never overwrites unread data. */
static int signal_order(void)
{
    int up = pe_up(1), down = pe_down(1);
    char *buf = pe_alloc(SIG_BLOCK + 2 * 8);
    PE_CHECK(buf != NULL, "alloc");
    uint64_t *sig = (uint64_t *)(buf + SIG_BLOCK), *ack = sig + 1;
    char *src = malloc(SIG_BLOCK);
    PE_CHECK(src != NULL, "malloc");
    PE_OK(dmsg_sync());
    for (uint64_t r = 1; r <= SIG_ROUNDS; r++) {
        uint64_t prev = r - 1;
        /* up has read round r - 1 */
        PE_OK(dmsg_wait_until(ack, DMSG_TYPE_UINT64, DMSG_CMP_GE, &prev));
        pe_fill(src, SIG_BLOCK, pe_me(), (uint32_t)r);
        if (r % 2) {
            PE_OK(dmsg_deposit_signal(buf, src, SIG_BLOCK, up, DMSG_CTR_NONE, sig, r,
                                      DMSG_SIG_SET));
        } else {
            PE_OK(dmsg_deposit(buf, src, SIG_BLOCK / 2, up, DMSG_CTR_NONE));
            PE_OK(dmsg_deposit(buf + SIG_BLOCK / 2, src + SIG_BLOCK / 2, SIG_BLOCK / 2, up,
                               DMSG_CTR_NONE));
            PE_OK(dmsg_signal(sig, 1, DMSG_SIG_ADD, up));
        }
        PE_OK(dmsg_wait_until(sig, DMSG_TYPE_UINT64, DMSG_CMP_EQ, &r));
        PE_TRY(pe_check_pattern(buf, SIG_BLOCK, down, (uint32_t)r, "data at its signal"));
        PE_OK(dmsg_signal(ack, 1, DMSG_SIG_ADD, down));
    }
    PE_OK(dmsg_sync());
    free(src);
    PE_OK(dmsg_free(buf));
    return 0;
}

/* Initial word, written value and compared value per comparison: the
 * comparison fails on the initial word and holds on the written one.
 * Signed rows use negative numbers, so a wait that compared unsigned would
 * fail them. */
typedef struct cmp_row {
    dmsg_cmp cmp;
    int64_t init, put, v;
} cmp_row;

static const cmp_row rows_u[] = {
    {DMSG_CMP_EQ, 0, 5, 5}, {DMSG_CMP_NE, 0, 5, 0},  {DMSG_CMP_GT, 0, 5, 4},
    {DMSG_CMP_GE, 0, 5, 5}, {DMSG_CMP_LT, 10, 5, 6}, {DMSG_CMP_LE, 10, 5, 5},
};
static const cmp_row rows_s[] = {
    {DMSG_CMP_EQ, 0, -5, -5},   {DMSG_CMP_NE, 0, -5, 0},    {DMSG_CMP_GT, -10, -5, -6},
    {DMSG_CMP_GE, -10, -5, -5}, {DMSG_CMP_LT, 0, -5, -4},   {DMSG_CMP_LE, 0, -5, -5},
};

static const dmsg_type wait_types[] = {DMSG_TYPE_INT16, DMSG_TYPE_UINT16, DMSG_TYPE_INT32,
                                       DMSG_TYPE_UINT32, DMSG_TYPE_INT64, DMSG_TYPE_UINT64};

static int wait_signed(dmsg_type t)
{
    return t == DMSG_TYPE_INT16 || t == DMSG_TYPE_INT32 || t == DMSG_TYPE_INT64;
}

/* wait_until and test_until with every comparison on every type: the PE
 * below changes the word by a deposit (16-bit words: no atomics there). */
static int wait_cmp(void)
{
    int up = pe_up(1);
    int64_t *w = pe_alloc(8);
    PE_CHECK(w != NULL, "alloc");
    for (size_t k = 0; k < sizeof wait_types / sizeof wait_types[0]; k++) {
        dmsg_type t = wait_types[k];
        size_t size = dmsg_type_size(t);
        const cmp_row *rows = wait_signed(t) ? rows_s : rows_u;
        for (int i = 0; i < 6; i++) {
            const cmp_row *row = &rows[i];
            /* The low bytes of a 64-bit two's complement value are the
             * narrower type's value (little endian). */
            int64_t init = row->init, put = row->put, v = row->v;
            memcpy(w, &init, size);
            PE_OK(dmsg_sync());
            int met = 7;
            PE_OK(dmsg_test_until(w, t, row->cmp, &v, &met));
            PE_CHECK(met == 0, "type %d cmp %d: test_until met before the write", (int)t,
                     (int)row->cmp);
            PE_OK(dmsg_sync());
            PE_OK(dmsg_deposit(w, &put, size, up, DMSG_CTR_NONE));
            PE_OK(dmsg_wait_until(w, t, row->cmp, &v));
            PE_CHECK(!memcmp(w, &put, size), "type %d cmp %d: word after the wait", (int)t,
                     (int)row->cmp);
            PE_OK(dmsg_test_until(w, t, row->cmp, &v, &met));
            PE_CHECK(met == 1, "type %d cmp %d: test_until not met after the wait", (int)t,
                     (int)row->cmp);
            PE_OK(dmsg_sync());
        }
    }
    PE_OK(dmsg_free(w));
    return 0;
}

#define SET_N 8

static int check_indices(const size_t *got, size_t ngot, const size_t *want, size_t nwant,
                         const char *what)
{
    PE_CHECK(ngot == nwant, "%s: nfound %zu, expected %zu", what, ngot, nwant);
    for (size_t i = 0; i < nwant; i++)
        PE_CHECK(got[i] == want[i], "%s: index %zu is %zu, expected %zu", what, i, got[i],
                 want[i]);
    return 0;
}

/* Set waits: ALL with vector values and a status mask, ANY (lowest
 * included), SOME (every satisfied included index), tests, and a set with
 * every word left out. The PE below sets the words by atomics. */
static int wait_set(void)
{
    int up = pe_up(1);
    int32_t *w = pe_alloc(SET_N * 4);
    PE_CHECK(w != NULL, "alloc");
    int32_t vals[SET_N], zero = 0;
    int status[SET_N] = {0};
    size_t idx[SET_N], nf = 99;
    for (int i = 0; i < SET_N; i++)
        vals[i] = 10 * (i + 1);
    status[3] = status[6] = 1; /* never written */
    dmsg_wait_set ws = {.ivars = w, .n = SET_N, .type = DMSG_TYPE_INT32, .cmp = DMSG_CMP_EQ,
                        .values = vals, .vector = 1, .status = status};
    PE_OK(dmsg_sync());
    /* ALL, racing with the writer. */
    PE_OK(dmsg_test_until_set(&ws, DMSG_WAIT_ALL, idx, &nf));
    PE_CHECK(nf == 0, "test ALL before any write: nfound %zu", nf);
    PE_OK(dmsg_sync());
    for (int i = SET_N - 1; i >= 0; i--)
        if (!status[i])
            PE_OK(dmsg_atomic(&w[i], DMSG_AMO_SET, DMSG_TYPE_INT32, &vals[i], NULL, NULL, up));
    PE_OK(dmsg_wait_until_set(&ws, DMSG_WAIT_ALL, idx, &nf));
    const size_t all_want[] = {0, 1, 2, 4, 5, 7};
    PE_TRY(check_indices(idx, nf, all_want, 6, "ALL"));
    PE_OK(dmsg_wait_until_set(&ws, DMSG_WAIT_ALL, NULL, &nf));
    PE_CHECK(nf == 6, "ALL without indices: nfound %zu", nf);
    PE_OK(dmsg_sync());

    /* ANY and SOME against a scalar: words 2 and 5 become non-zero, 2 is
     * left out. */
    for (int i = 0; i < SET_N; i++)
        w[i] = 0;
    int st2[SET_N] = {0};
    st2[2] = 1;
    dmsg_wait_set ws2 = {.ivars = w, .n = SET_N, .type = DMSG_TYPE_INT32, .cmp = DMSG_CMP_NE,
                         .values = &zero, .vector = 0, .status = st2};
    PE_OK(dmsg_sync());
    PE_OK(dmsg_test_until_set(&ws2, DMSG_WAIT_ANY, idx, &nf));
    PE_CHECK(nf == 0, "test ANY before any write: nfound %zu", nf);
    PE_OK(dmsg_sync());
    int32_t one = 1;
    PE_OK(dmsg_atomic(&w[2], DMSG_AMO_SET, DMSG_TYPE_INT32, &one, NULL, NULL, up));
    PE_OK(dmsg_atomic(&w[5], DMSG_AMO_SET, DMSG_TYPE_INT32, &one, NULL, NULL, up));
    PE_OK(dmsg_wait_until_set(&ws2, DMSG_WAIT_ANY, idx, &nf));
    const size_t any_want[] = {5};
    PE_TRY(check_indices(idx, nf, any_want, 1, "ANY with word 2 left out"));
    PE_OK(dmsg_sync());
    /* Now 2 and 5 hold: SOME reports every included one, ANY the lowest. */
    PE_OK(dmsg_atomic(&w[7], DMSG_AMO_SET, DMSG_TYPE_INT32, &one, NULL, NULL, up));
    PE_OK(dmsg_sync());
    ws2.status = NULL;
    PE_OK(dmsg_wait_until_set(&ws2, DMSG_WAIT_SOME, idx, &nf));
    const size_t some_want[] = {2, 5, 7};
    PE_TRY(check_indices(idx, nf, some_want, 3, "SOME"));
    PE_OK(dmsg_test_until_set(&ws2, DMSG_WAIT_SOME, idx, &nf));
    PE_TRY(check_indices(idx, nf, some_want, 3, "test SOME"));
    PE_OK(dmsg_wait_until_set(&ws2, DMSG_WAIT_ANY, idx, &nf));
    const size_t low_want[] = {2};
    PE_TRY(check_indices(idx, nf, low_want, 1, "ANY"));
    ws2.status = st2;
    PE_OK(dmsg_wait_until_set(&ws2, DMSG_WAIT_SOME, idx, &nf));
    const size_t some2_want[] = {5, 7};
    PE_TRY(check_indices(idx, nf, some2_want, 2, "SOME with word 2 left out"));
    /* Every word left out: at once, nothing found. */
    int allout[SET_N];
    for (int i = 0; i < SET_N; i++)
        allout[i] = 1;
    ws2.status = allout;
    nf = 99;
    PE_OK(dmsg_wait_until_set(&ws2, DMSG_WAIT_ALL, idx, &nf));
    PE_CHECK(nf == 0, "all left out: nfound %zu", nf);
    ws2.n = 0;
    ws2.status = NULL;
    nf = 99;
    PE_OK(dmsg_wait_until_set(&ws2, DMSG_WAIT_ANY, idx, &nf));
    PE_CHECK(nf == 0, "empty set: nfound %zu", nf);
    PE_OK(dmsg_sync());
    PE_OK(dmsg_free(w));
    return 0;
}

/* Every argument error returns its status and changes nothing: the target
 * word, the result and the signal word keep their values. */
static int amo_errors(void)
{
    int n = pe_n(), up = pe_up(1);
    uint64_t *w = pe_alloc(64);
    PE_CHECK(w != NULL, "alloc");
    uint64_t *spare = pe_alloc(64);
    PE_CHECK(spare != NULL, "alloc");
    const uint64_t init = 0x1122334455667788ull;
    w[0] = w[1] = init;
    PE_OK(dmsg_sync());
    uint64_t one = 1, res = 77, local = 0;
    char *wc = (char *)w;
    char *end = pe_segment_end(w);
    /* Op and type. */
    PE_EXPECT(dmsg_atomic(w, (dmsg_amo_op)0, DMSG_TYPE_UINT64, &one, NULL, &res, up), DMSG_ERR_ARG);
    PE_EXPECT(dmsg_atomic(w, (dmsg_amo_op)99, DMSG_TYPE_UINT64, &one, NULL, &res, up),
              DMSG_ERR_ARG);
    PE_EXPECT(dmsg_atomic(w, DMSG_AMO_ADD, DMSG_TYPE_DOUBLE, &one, NULL, NULL, up), DMSG_ERR_ARG);
    PE_EXPECT(dmsg_atomic(w, DMSG_AMO_CSWAP, DMSG_TYPE_FLOAT, &one, &one, &res, up), DMSG_ERR_ARG);
    PE_EXPECT(dmsg_atomic(w, DMSG_AMO_ADD, DMSG_TYPE_INT16, &one, NULL, NULL, up), DMSG_ERR_ARG);
    PE_EXPECT(dmsg_atomic(w, DMSG_AMO_ADD, DMSG_TYPE_INT8, &one, NULL, NULL, up), DMSG_ERR_ARG);
    PE_EXPECT(dmsg_atomic(w, DMSG_AMO_SET, DMSG_TYPE_LONG_DOUBLE, &one, NULL, NULL, up),
              DMSG_ERR_ARG);
    PE_EXPECT(dmsg_atomic(w, DMSG_AMO_SET, (dmsg_type)0, &one, NULL, NULL, up), DMSG_ERR_ARG);
    /* NULLs. */
    PE_EXPECT(dmsg_atomic(NULL, DMSG_AMO_ADD, DMSG_TYPE_UINT64, &one, NULL, NULL, up),
              DMSG_ERR_NULL);
    PE_EXPECT(dmsg_atomic(w, DMSG_AMO_ADD, DMSG_TYPE_UINT64, NULL, NULL, NULL, up), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_atomic(w, DMSG_AMO_CSWAP, DMSG_TYPE_UINT64, &one, NULL, &res, up),
              DMSG_ERR_NULL);
    PE_EXPECT(dmsg_atomic(w, DMSG_AMO_FETCH_ADD, DMSG_TYPE_UINT64, &one, NULL, NULL, up),
              DMSG_ERR_NULL);
    PE_EXPECT(dmsg_atomic(w, DMSG_AMO_FETCH, DMSG_TYPE_UINT64, NULL, NULL, NULL, up),
              DMSG_ERR_NULL);
    PE_EXPECT(dmsg_atomic_nb(w, DMSG_AMO_FETCH_ADD, DMSG_TYPE_UINT64, &one, NULL, &res, up, NULL),
              DMSG_ERR_NULL);
    /* PE, range, alignment. */
    PE_EXPECT(dmsg_atomic(w, DMSG_AMO_ADD, DMSG_TYPE_UINT64, &one, NULL, NULL, n), DMSG_ERR_PE);
    PE_EXPECT(dmsg_atomic(w, DMSG_AMO_ADD, DMSG_TYPE_UINT64, &one, NULL, NULL, -1), DMSG_ERR_PE);
    PE_EXPECT(dmsg_atomic(&local, DMSG_AMO_ADD, DMSG_TYPE_UINT64, &one, NULL, NULL, up),
              DMSG_ERR_RANGE);
    PE_EXPECT(dmsg_atomic(end - 4, DMSG_AMO_ADD, DMSG_TYPE_UINT64, &one, NULL, NULL, up),
              DMSG_ERR_RANGE);
    PE_EXPECT(dmsg_atomic(end - 8, DMSG_AMO_ADD, DMSG_TYPE_UINT64, &one, NULL, NULL, up),
              DMSG_ERR_RANGE); /* in the segment, past the allocated blocks */
    PE_EXPECT(dmsg_atomic(wc + 4, DMSG_AMO_ADD, DMSG_TYPE_UINT64, &one, NULL, NULL, up),
              DMSG_ERR_ALIGN);
    PE_EXPECT(dmsg_atomic(wc + 2, DMSG_AMO_ADD, DMSG_TYPE_UINT32, &one, NULL, NULL, up),
              DMSG_ERR_ALIGN);
    PE_EXPECT(dmsg_atomic_nb(wc + 4, DMSG_AMO_ADD, DMSG_TYPE_UINT64, &one, NULL, NULL, up, NULL),
              DMSG_ERR_ALIGN);
    /* Signals. */
    PE_EXPECT(dmsg_signal(NULL, 1, DMSG_SIG_SET, up), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_signal(&w[1], 1, (dmsg_sig_op)0, up), DMSG_ERR_ARG);
    PE_EXPECT(dmsg_signal(&w[1], 1, DMSG_SIG_SET, n), DMSG_ERR_PE);
    PE_EXPECT(dmsg_signal(&local, 1, DMSG_SIG_SET, up), DMSG_ERR_RANGE);
    PE_EXPECT(dmsg_signal((uint64_t *)(wc + 4), 1, DMSG_SIG_SET, up), DMSG_ERR_ALIGN);
    /* Put with signal: a bad half stops both. */
    uint64_t data = 0xdeadbeefull;
    PE_EXPECT(dmsg_deposit_signal(&w[0], &data, 8, up, DMSG_CTR_NONE, &local, 1, DMSG_SIG_SET),
              DMSG_ERR_RANGE);
    PE_EXPECT(dmsg_deposit_signal(&w[0], &data, 8, up, DMSG_CTR_NONE, &w[1], 1, (dmsg_sig_op)7),
              DMSG_ERR_ARG);
    PE_EXPECT(dmsg_deposit_signal(&w[0], &data, 8, up, (dmsg_ctr)12345, &w[1], 1, DMSG_SIG_SET),
              DMSG_ERR_COUNTER);
    PE_EXPECT(dmsg_deposit_signal(&w[0], NULL, 8, up, DMSG_CTR_NONE, &w[1], 1, DMSG_SIG_SET),
              DMSG_ERR_NULL);
    PE_EXPECT(dmsg_deposit_signal(end - 4, &data, 8, up, DMSG_CTR_NONE, &w[1], 1, DMSG_SIG_SET),
              DMSG_ERR_RANGE);
    /* Waits. */
    uint64_t v = 1;
    int met = 5;
    PE_EXPECT(dmsg_wait_until(&local, DMSG_TYPE_UINT64, DMSG_CMP_EQ, &v), DMSG_ERR_RANGE);
    PE_EXPECT(dmsg_wait_until(NULL, DMSG_TYPE_UINT64, DMSG_CMP_EQ, &v), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_wait_until(&w[1], DMSG_TYPE_UINT64, DMSG_CMP_EQ, NULL), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_wait_until(&w[1], DMSG_TYPE_FLOAT, DMSG_CMP_EQ, &v), DMSG_ERR_ARG);
    PE_EXPECT(dmsg_wait_until(&w[1], DMSG_TYPE_INT8, DMSG_CMP_EQ, &v), DMSG_ERR_ARG);
    PE_EXPECT(dmsg_wait_until(&w[1], DMSG_TYPE_UINT64, (dmsg_cmp)0, &v), DMSG_ERR_ARG);
    PE_EXPECT(dmsg_wait_until(wc + 4, DMSG_TYPE_UINT64, DMSG_CMP_EQ, &v), DMSG_ERR_ALIGN);
    PE_EXPECT(dmsg_wait_until(end - 8, DMSG_TYPE_UINT64, DMSG_CMP_EQ, &v), DMSG_ERR_RANGE);
    PE_EXPECT(dmsg_test_until(&w[1], DMSG_TYPE_UINT64, DMSG_CMP_EQ, &v, NULL), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_test_until(&local, DMSG_TYPE_UINT64, DMSG_CMP_EQ, &v, &met), DMSG_ERR_RANGE);
    PE_CHECK(met == 5, "a failed test_until wrote met");
    size_t idx[4] = {9, 9, 9, 9}, nf = 9;
    uint64_t lw[4] = {0};
    dmsg_wait_set ws = {.ivars = lw, .n = 4, .type = DMSG_TYPE_UINT64, .cmp = DMSG_CMP_EQ,
                        .values = &v, .vector = 0, .status = NULL};
    PE_EXPECT(dmsg_wait_until_set(&ws, DMSG_WAIT_ALL, idx, &nf), DMSG_ERR_RANGE);
    ws.ivars = w;
    PE_EXPECT(dmsg_wait_until_set(NULL, DMSG_WAIT_ALL, idx, &nf), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_wait_until_set(&ws, DMSG_WAIT_ALL, idx, NULL), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_wait_until_set(&ws, DMSG_WAIT_ANY, NULL, &nf), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_wait_until_set(&ws, (dmsg_wait_mode)0, idx, &nf), DMSG_ERR_ARG);
    ws.values = NULL;
    PE_EXPECT(dmsg_wait_until_set(&ws, DMSG_WAIT_ALL, idx, &nf), DMSG_ERR_NULL);
    ws.values = &v;
    ws.cmp = (dmsg_cmp)9;
    PE_EXPECT(dmsg_test_until_set(&ws, DMSG_WAIT_ALL, idx, &nf), DMSG_ERR_ARG);
    ws.cmp = DMSG_CMP_EQ;
    ws.type = DMSG_TYPE_DOUBLE;
    PE_EXPECT(dmsg_test_until_set(&ws, DMSG_WAIT_ALL, idx, &nf), DMSG_ERR_ARG);
    ws.type = DMSG_TYPE_UINT64;
    ws.ivars = wc + 4;
    PE_EXPECT(dmsg_test_until_set(&ws, DMSG_WAIT_ALL, idx, &nf), DMSG_ERR_ALIGN);
    ws.ivars = w;
    ws.n = SIZE_MAX / 4;
    PE_EXPECT(dmsg_test_until_set(&ws, DMSG_WAIT_ALL, idx, &nf), DMSG_ERR_OVERFLOW);
    ws.n = 64 * 1024;
    PE_EXPECT(dmsg_test_until_set(&ws, DMSG_WAIT_ALL, idx, &nf), DMSG_ERR_RANGE);
    PE_CHECK(nf == 9 && idx[0] == 9, "a failed set wait wrote its outputs");
    PE_CHECK(res == 77, "a failed atomic wrote result (%llu)", ULL(res));
    /* A freed block is refused too. */
    PE_OK(dmsg_free(spare));
    PE_EXPECT(dmsg_atomic(spare, DMSG_AMO_ADD, DMSG_TYPE_UINT64, &one, NULL, NULL, up),
              DMSG_ERR_RANGE);
    PE_EXPECT(dmsg_signal(spare, 1, DMSG_SIG_ADD, up), DMSG_ERR_RANGE);
    PE_OK(dmsg_sync());
    PE_CHECK(w[0] == init && w[1] == init, "words changed by failed calls: %#llx %#llx",
             ULL(w[0]), ULL(w[1]));
    PE_CHECK(dmsg_type_size(DMSG_TYPE_INT16) == 2 && dmsg_type_size(DMSG_TYPE_DOUBLE) == 8 &&
                 dmsg_type_size(DMSG_TYPE_DOUBLE_COMPLEX) == 16 && dmsg_type_size((dmsg_type)0) == 0 &&
                 dmsg_type_size((dmsg_type)99) == 0,
             "dmsg_type_size");
    PE_OK(dmsg_sync());
    PE_OK(dmsg_free(w));
    return 0;
}

/* Before dmsg_init every call is refused. */
static int amo_not_init(void)
{
    uint64_t x = 0, v = 0;
    int met;
    size_t nf;
    PE_EXPECT(dmsg_atomic(&x, DMSG_AMO_ADD, DMSG_TYPE_UINT64, &v, NULL, NULL, 0),
              DMSG_ERR_NOT_INIT);
    PE_EXPECT(dmsg_signal(&x, 1, DMSG_SIG_SET, 0), DMSG_ERR_NOT_INIT);
    PE_EXPECT(dmsg_wait_until(&x, DMSG_TYPE_UINT64, DMSG_CMP_EQ, &v), DMSG_ERR_NOT_INIT);
    PE_EXPECT(dmsg_test_until(&x, DMSG_TYPE_UINT64, DMSG_CMP_EQ, &v, &met), DMSG_ERR_NOT_INIT);
    dmsg_wait_set ws = {.ivars = &x, .n = 1, .type = DMSG_TYPE_UINT64, .cmp = DMSG_CMP_EQ,
                        .values = &v};
    PE_EXPECT(dmsg_wait_until_set(&ws, DMSG_WAIT_ALL, NULL, &nf), DMSG_ERR_NOT_INIT);
    PE_OK(dmsg_init());
    PE_OK(dmsg_finalize());
    return 0;
}

/* Nobody signals: the wait ends with DMSG_ERR_TIMEOUT after DMSG_TIMEOUT
 * (2 s here), and the job still works afterwards. */
static int wait_timeout(void)
{
    setenv("DMSG_TIMEOUT", "2", 1);
    PE_OK(dmsg_init());
    uint64_t *w = pe_alloc(16);
    PE_CHECK(w != NULL, "alloc");
    uint64_t v = 1, zero = 0;
    size_t nf = 9, idx[2];
    double t0 = pe_now();
    PE_EXPECT(dmsg_wait_until(w, DMSG_TYPE_UINT64, DMSG_CMP_EQ, &v), DMSG_ERR_TIMEOUT);
    double dt = pe_now() - t0;
    PE_CHECK(dt >= 1.95 && dt < 30.0, "wait_until timed out after %.3f s, expected about 2 s", dt);
    dmsg_wait_set ws = {.ivars = w, .n = 2, .type = DMSG_TYPE_UINT64, .cmp = DMSG_CMP_NE,
                        .values = &zero};
    PE_EXPECT(dmsg_wait_until_set(&ws, DMSG_WAIT_ANY, idx, &nf), DMSG_ERR_TIMEOUT);
    PE_CHECK(nf == 9, "a timed-out set wait wrote nfound");
    PE_OK(dmsg_sync());
    PE_OK(dmsg_signal(w, 1, DMSG_SIG_SET, pe_up(1)));
    PE_OK(dmsg_wait_until(w, DMSG_TYPE_UINT64, DMSG_CMP_EQ, &v));
    PE_OK(dmsg_sync());
    PE_OK(dmsg_free(w));
    PE_OK(dmsg_finalize());
    return 0;
}

/* The latency of a blocking fetch-add to a PE that waits: PE 1 does
 * PE_ROUNDS (default 2000) of them on a word of PE 0 while PE 0 waits in
 * dmsg_sync, and prints the time of one ("amo_us N"). Over libfabric
 * providers whose target executes atomics in its own progress, this is the
 * time a waiting PE takes to serve one (docs/transports.md, "Waking a
 * waiting PE"). Checks every old value and the final word. */
static int amo_latency(void)
{
    const char *e = getenv("PE_ROUNDS");
    long rounds = e ? strtol(e, NULL, 10) : 2000;
    PE_CHECK(rounds > 0, "PE_ROUNDS=%s: expected a positive number", e);
    uint64_t *w = pe_alloc(sizeof *w);
    PE_CHECK(w != NULL, "alloc");
    PE_OK(dmsg_sync());
    if (pe_me() == 1) {
        double t0 = dmsg_wtime();
        for (long i = 0; i < rounds; i++) {
            uint64_t one = 1, old = 0;
            PE_OK(dmsg_atomic(w, DMSG_AMO_FETCH_ADD, DMSG_TYPE_UINT64, &one, NULL, &old, 0));
            PE_CHECK(old == (uint64_t)i, "fetch-add %ld returned %llu", i, ULL(old));
        }
        printf("amo_us %.2f\n", (dmsg_wtime() - t0) / (double)rounds * 1e6);
    }
    PE_OK(dmsg_sync());
    if (pe_me() == 0)
        PE_CHECK(*w == (pe_n() > 1 ? (uint64_t)rounds : 0), "word %llu after %ld fetch-adds",
                 ULL(*w), rounds);
    PE_OK(dmsg_sync());
    PE_OK(dmsg_free(w));
    return 0;
}

const pe_case pe_amo_cases[] = {
    {"amo_ops", amo_ops, 0},
    {"amo_contend", amo_contend, 0},
    {"amo_latency", amo_latency, 0},
    {"amo_nb", amo_nb, 0},
    {"amo_errors", amo_errors, 0},
    {"amo_not_init", amo_not_init, PE_MANUAL_INIT},
    {"signal_order", signal_order, 0},
    {"wait_cmp", wait_cmp, 0},
    {"wait_set", wait_set, 0},
    {"wait_timeout", wait_timeout, PE_MANUAL_INIT},
    {NULL, NULL, 0},
};
