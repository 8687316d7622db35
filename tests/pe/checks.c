/* The checker's corpus (DMSG_CHECK=1): small programs that are
 * well-synchronized (chk_ok_*: no report allowed) and programs that are not
 * (chk_bad_*: each must be reported). The bad programs still run to a clean
 * end, so that only the checker's report tells them apart; the suite
 * (tests/integ/checker.c) reads stderr. Every case needs 2 PEs or more. */
#include <stdlib.h>
#include "pe.h"

#define N 64

/* Another PE than 0 and 1 when there is one, else PE 0 itself. */
static int third(void)
{
    return pe_n() > 2 ? 2 : 0;
}

/* ------------------------------------------------------------- incorrect */

/* PEs 0 and 1 deposit the same 8 bytes of PE 0 in one epoch. */
static int chk_bad_ww(void)
{
    uint64_t *x, v = (uint64_t)pe_me();
    PE_OK(dmsg_alloc(N * sizeof *x, (void **)&x));
    if (pe_me() <= 1)
        PE_OK(dmsg_deposit(&x[3], &v, sizeof v, 0, DMSG_CTR_NONE));
    PE_OK(dmsg_sync());
    PE_OK(dmsg_free(x));
    return 0;
}

/* PE 1 deposits into PE 0's bytes that another PE fetches in the same epoch. */
static int chk_bad_fetch(void)
{
    uint64_t *x, v = 7, got;
    PE_OK(dmsg_alloc(N * sizeof *x, (void **)&x));
    if (pe_me() == 1)
        PE_OK(dmsg_deposit(&x[5], &v, sizeof v, 0, DMSG_CTR_NONE));
    if (pe_me() == third())
        PE_OK(dmsg_fetch(&got, &x[5], sizeof got, 0));
    PE_OK(dmsg_sync());
    PE_OK(dmsg_free(x));
    return 0;
}

/* PE 0 sends from its own symmetric x (a local read) while PE 1 deposits
 * into those bytes of PE 0. */
static int chk_bad_local_read(void)
{
    uint64_t *x, *y, v = 9;
    PE_OK(dmsg_alloc(N * sizeof *x, (void **)&x));
    PE_OK(dmsg_alloc(N * sizeof *y, (void **)&y));
    if (pe_me() == 0)
        PE_OK(dmsg_deposit(y, x, 4 * sizeof *x, 1, DMSG_CTR_NONE));
    if (pe_me() == 1)
        PE_OK(dmsg_deposit(&x[2], &v, sizeof v, 0, DMSG_CTR_NONE));
    PE_OK(dmsg_sync());
    PE_OK(dmsg_free(y));
    PE_OK(dmsg_free(x));
    return 0;
}

/* PE 0 deposits into its own x (a local write through dmsg) while PE 1
 * deposits into the same bytes. */
static int chk_bad_self_deposit(void)
{
    uint64_t *x, v = 1;
    PE_OK(dmsg_alloc(N * sizeof *x, (void **)&x));
    if (pe_me() <= 1)
        PE_OK(dmsg_deposit(&x[10], &v, sizeof v, 0, DMSG_CTR_NONE));
    PE_OK(dmsg_sync());
    PE_OK(dmsg_free(x));
    return 0;
}

/* Two column sections of an 8x8 matrix on PE 0 share column 3. */
static int chk_bad_section(void)
{
    double *m, src[16] = {0};
    PE_OK(dmsg_alloc(64 * sizeof *m, (void **)&m));
    /* 2 columns x 8 rows: dimension 0 = columns, dimension 1 = rows */
    dmsg_layout dl = pe_l2(2, sizeof(double), 8, 8 * sizeof(double));
    dmsg_layout sl = pe_l1(16, sizeof(double));
    if (pe_me() == 0)
        PE_OK(dmsg_deposit_section(&m[2], &dl, src, &sl, sizeof(double), 0, DMSG_CTR_NONE));
    if (pe_me() == 1)
        PE_OK(dmsg_deposit_section(&m[3], &dl, src, &sl, sizeof(double), 0, DMSG_CTR_NONE));
    PE_OK(dmsg_sync());
    PE_OK(dmsg_free(m));
    return 0;
}

/* Indexed scatters of PEs 0 and 1 into PE 0 share index 17. */
static int chk_bad_indexed(void)
{
    int32_t *a, src[3] = {1, 2, 3};
    PE_OK(dmsg_alloc(N * sizeof *a, (void **)&a));
    size_t i0[3] = {1, 17, 30}, i1[3] = {2, 17, 31};
    if (pe_me() <= 1)
        PE_OK(dmsg_deposit_indexed(a, pe_me() ? i1 : i0, src, 3, sizeof *a, 0, DMSG_CTR_NONE));
    PE_OK(dmsg_sync());
    PE_OK(dmsg_free(a));
    return 0;
}

/* An address-data record of PE 1 hits what PE 0 deposits contiguously. */
static int chk_bad_adp(void)
{
    uint64_t *a, src[4] = {0};
    PE_OK(dmsg_alloc(N * sizeof *a, (void **)&a));
    dmsg_adp8 rec[2] = {{8 * 40, 1}, {8 * 21, 2}};
    if (pe_me() == 0)
        PE_OK(dmsg_deposit(&a[20], src, sizeof src, 0, DMSG_CTR_NONE));
    if (pe_me() == 1)
        PE_OK(dmsg_deposit_adp(a, rec, 2, 8, 0, DMSG_CTR_NONE));
    PE_OK(dmsg_sync());
    PE_OK(dmsg_free(a));
    return 0;
}

/* PE 0 awaits 2 messages; only PE 1 deposits, once. The checker reports the
 * await and ends it with DMSG_ERR_STATE (without the checker it would wait
 * forever: run this case with DMSG_CHECK=1 only). */
static int chk_bad_await(void)
{
    uint64_t *x, v = 3;
    dmsg_ctr c;
    PE_OK(dmsg_alloc(N * sizeof *x, (void **)&x));
    PE_OK(dmsg_ctr_create(&c));
    if (pe_me() == 1)
        PE_OK(dmsg_deposit(x, &v, sizeof v, 0, c));
    if (pe_me() == 0)
        PE_EXPECT(dmsg_await(c, 2), DMSG_ERR_STATE);
    PE_OK(dmsg_sync());
    PE_OK(dmsg_ctr_destroy(c));
    PE_OK(dmsg_free(x));
    return 0;
}

/* PE 1 deposits two blocks into PE 0's x on one counter; PE 0 awaits them
 * (one message, or all_of_them: one message, then all the bytes, then one
 * more), then sends the second block on. */
static int await_then_forward(int all_of_them)
{
    uint64_t *x, *y, v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    dmsg_ctr c;
    PE_OK(dmsg_alloc(N * sizeof *x, (void **)&x));
    PE_OK(dmsg_alloc(N * sizeof *y, (void **)&y));
    PE_OK(dmsg_ctr_create(&c));
    if (pe_me() == 1) {
        PE_OK(dmsg_deposit(&x[0], v, sizeof v, 0, c));
        PE_OK(dmsg_deposit(&x[8], v, sizeof v, 0, c));
    }
    if (pe_me() == 0) {
        PE_OK(dmsg_await(c, 1));
        if (all_of_them) {
            PE_OK(dmsg_await_bytes(c, 2 * sizeof v));
            PE_OK(dmsg_await(c, 1));
        }
        PE_OK(dmsg_deposit(y, &x[8], sizeof v, 1, DMSG_CTR_NONE));
    }
    PE_OK(dmsg_sync());
    PE_OK(dmsg_ctr_destroy(c));
    PE_OK(dmsg_free(y));
    PE_OK(dmsg_free(x));
    return 0;
}

/* PE 0 awaits only one of the two messages: which deposit the await counted
 * depends on timing, so the send may read bytes still arriving. */
static int chk_bad_await_fewer(void)
{
    return await_then_forward(0);
}

/* PE 1 deposits into a block that every PE has freed (a stale pointer); a
 * new block was allocated after the free. */
static int chk_bad_freed(void)
{
    uint64_t *x, *y, v = 5;
    PE_OK(dmsg_alloc(N * sizeof *x, (void **)&x));
    PE_OK(dmsg_free(x));
    PE_OK(dmsg_alloc(N * sizeof *y, (void **)&y));
    if (pe_me() == 1)
        PE_OK(dmsg_deposit(&x[2], &v, sizeof v, 0, DMSG_CTR_NONE));
    PE_OK(dmsg_sync());
    PE_OK(dmsg_free(y));
    return 0;
}

/* PE 0 scatters 3000 elements into its own a (records that do not merge,
 * more than a small check log holds), then PEs 0 and 1 deposit the same
 * bytes of PE 0: the conflict comes after the log's first window. */
static int chk_bad_late(void)
{
    enum { M = 4099, K = 3000 };
    uint32_t *a, *src;
    uint64_t *x, v = 1;
    size_t *idx = malloc(K * sizeof *idx);
    src = calloc(K, sizeof *src);
    PE_CHECK(idx && src, "out of memory");
    for (size_t i = 0; i < K; i++)
        idx[i] = (i * 1237) % M;
    PE_OK(dmsg_alloc(M * sizeof *a, (void **)&a));
    PE_OK(dmsg_alloc(N * sizeof *x, (void **)&x));
    if (pe_me() == 0)
        PE_OK(dmsg_deposit_indexed(a, idx, src, K, sizeof *a, 0, DMSG_CTR_NONE));
    if (pe_me() <= 1)
        PE_OK(dmsg_deposit(&x[3], &v, sizeof v, 0, DMSG_CTR_NONE));
    PE_OK(dmsg_sync());
    PE_OK(dmsg_free(x));
    PE_OK(dmsg_free(a));
    free(src);
    free(idx);
    return 0;
}

/* --------------------------------------------------------------- correct */

/* Indexed deposits in no order, many of them in one epoch: every PE but 0
 * deposits to PE 0 the elements i = p - 1 (mod npes - 1) of a 2^20-element
 * array, shuffled, 1000 a call. Correct (no element is named twice); the
 * checker must also take time about linear in the records: chance pairs of
 * indices made progressions spanning megabytes, and checking 2^20 such
 * records took longer than the suite's watchdog (minutes; 1 s now). */
static int chk_ok_random_scatter(void)
{
    enum { M = 1 << 20, CALL = 1000 };
    int me = pe_me(), n = pe_n();
    double *a;
    PE_OK(dmsg_alloc(M * sizeof *a, (void **)&a));
    if (me == 0)
        for (size_t i = 0; i < M; i++)
            a[i] = -1;
    PE_OK(dmsg_sync());
    if (me > 0 && n > 1) {
        size_t k = 0, cap = M / (size_t)(n - 1) + 1;
        size_t *idx = malloc(cap * sizeof *idx);
        double *v = malloc(cap * sizeof *v);
        PE_CHECK(idx && v, "out of memory");
        for (size_t i = (size_t)(me - 1); i < M; i += (size_t)(n - 1))
            idx[k++] = i;
        uint64_t seed = (uint64_t)me;
        for (size_t i = k - 1; i > 0; i--) { /* Fisher-Yates */
            size_t j = (size_t)(pe_rnd_next(&seed) % (i + 1)), t = idx[i];
            idx[i] = idx[j], idx[j] = t;
        }
        for (size_t i = 0; i < k; i++)
            v[i] = (double)idx[i];
        for (size_t o = 0; o < k; o += CALL)
            PE_OK(dmsg_deposit_indexed(a, idx + o, v + o, k - o < CALL ? k - o : CALL,
                                       sizeof *v, 0, DMSG_CTR_NONE));
        free(idx);
        free(v);
    }
    PE_OK(dmsg_sync());
    if (me == 0 && n > 1)
        for (size_t i = 0; i < M; i++)
            PE_CHECK(a[i] == (double)i, "element %zu is %g", i, a[i]);
    PE_OK(dmsg_free(a));
    return 0;
}

/* A pipeline, 5 steps: PE 0 deposits a block to PE 1; every other PE
 * awaits the block from its left neighbour and forwards the bytes it
 * received (its own symmetric buf is the source) to the next PE, the last
 * one to PE 0's out; then all sync. The await orders each forward after
 * the deposit it counted. */
static int chk_ok_pipeline(void)
{
    enum { W = 8 };
    uint64_t *buf, *out, v[W];
    dmsg_ctr c;
    int me = pe_me(), n = pe_n();
    PE_OK(dmsg_alloc(W * sizeof *buf, (void **)&buf));
    PE_OK(dmsg_alloc(W * sizeof *out, (void **)&out));
    PE_OK(dmsg_ctr_create(&c));
    for (uint64_t step = 0; step < 5; step++) {
        if (me == 0) {
            for (int i = 0; i < W; i++)
                v[i] = step * 100 + (uint64_t)i;
            PE_OK(dmsg_deposit(buf, v, sizeof v, 1, c));
        } else {
            PE_OK(dmsg_await(c, 1));
            if (me + 1 < n)
                PE_OK(dmsg_deposit(buf, buf, sizeof v, me + 1, c));
            else
                PE_OK(dmsg_deposit(out, buf, sizeof v, 0, DMSG_CTR_NONE));
        }
        PE_OK(dmsg_sync());
        if (me == 0)
            PE_CHECK(out[W - 1] == step * 100 + W - 1, "step %llu: out[%d] = %llu",
                     (unsigned long long)step, W - 1, (unsigned long long)out[W - 1]);
    }
    PE_OK(dmsg_ctr_destroy(c));
    PE_OK(dmsg_free(out));
    PE_OK(dmsg_free(buf));
    return 0;
}

/* As chk_bad_await_fewer, but PE 0 awaits both messages before it sends
 * the second block on: the await counted every deposit that could arrive. */
static int chk_ok_await_all(void)
{
    return await_then_forward(1);
}

/* Every PE deposits its block of columns, strided, into every PE's matrix:
 * the blocks interleave in memory but share no byte. */
static int chk_ok_transpose(void)
{
    int n = pe_n(), b = 4, cols = n * b;
    double *m, src[4 * 8];
    PE_OK(dmsg_alloc((size_t)cols * 8 * sizeof *m, (void **)&m));
    for (int i = 0; i < 32; i++)
        src[i] = pe_me() + i;
    dmsg_layout dl = pe_l2((size_t)b, sizeof(double), 8, (ptrdiff_t)cols * (ptrdiff_t)sizeof(double));
    dmsg_layout sl = pe_l1(32, sizeof(double));
    for (int k = 0; k < n; k++)
        PE_OK(dmsg_deposit_section(&m[pe_me() * b], &dl, src, &sl, sizeof(double), pe_up(k),
                                   DMSG_CTR_NONE));
    PE_OK(dmsg_sync());
    PE_OK(dmsg_free(m));
    return 0;
}

/* The same bytes deposited by different PEs in different epochs. */
static int chk_ok_epochs(void)
{
    uint64_t *x, v;
    PE_OK(dmsg_alloc(N * sizeof *x, (void **)&x));
    for (int p = 0; p < pe_n(); p++) {
        v = (uint64_t)p;
        if (pe_me() == p)
            PE_OK(dmsg_deposit(&x[1], &v, sizeof v, 0, DMSG_CTR_NONE));
        PE_OK(dmsg_sync());
    }
    if (pe_me() == 0)
        PE_CHECK(x[1] == (uint64_t)(pe_n() - 1), "x[1] = %llu", (unsigned long long)x[1]);
    PE_OK(dmsg_free(x));
    return 0;
}

/* Deposit, barrier, then everybody fetches what was deposited, then a
 * barrier before the next deposit. */
static int chk_ok_fetch_after_sync(void)
{
    uint64_t *x, v = 11, got = 0;
    PE_OK(dmsg_alloc(N * sizeof *x, (void **)&x));
    if (pe_me() == 1)
        PE_OK(dmsg_deposit(&x[4], &v, sizeof v, 0, DMSG_CTR_NONE));
    PE_OK(dmsg_sync());
    PE_OK(dmsg_fetch(&got, &x[4], sizeof got, 0));
    PE_CHECK(got == 11, "fetched %llu", (unsigned long long)got);
    PE_OK(dmsg_sync());
    if (pe_me() == 1)
        PE_OK(dmsg_deposit(&x[4], &v, sizeof v, 0, DMSG_CTR_NONE));
    PE_OK(dmsg_sync());
    PE_OK(dmsg_free(x));
    return 0;
}

/* Every PE deposits into its own slot of every PE and awaits exactly what
 * arrives; one PE deposits the same bytes twice (program order). */
static int chk_ok_counters(void)
{
    uint64_t *x, v = (uint64_t)pe_me();
    dmsg_ctr c;
    PE_OK(dmsg_alloc(N * sizeof *x, (void **)&x));
    PE_OK(dmsg_ctr_create(&c));
    for (int k = 0; k < pe_n(); k++)
        PE_OK(dmsg_deposit(&x[pe_me()], &v, sizeof v, pe_up(k), c));
    PE_OK(dmsg_deposit(&x[pe_me()], &v, sizeof v, pe_me(), c));
    PE_OK(dmsg_await(c, (uint64_t)pe_n() + 1));
    for (int p = 0; p < pe_n(); p++)
        PE_CHECK(x[p] == (uint64_t)p, "x[%d] = %llu", p, (unsigned long long)x[p]);
    PE_OK(dmsg_sync());
    PE_OK(dmsg_ctr_destroy(c));
    PE_OK(dmsg_free(x));
    return 0;
}

/* Every PE fetches the same bytes of PE 0 in one epoch: reads never conflict. */
static int chk_ok_reads(void)
{
    uint64_t *x, got[4];
    PE_OK(dmsg_alloc(N * sizeof *x, (void **)&x));
    size_t idx[4] = {3, 1, 2, 3};
    PE_OK(dmsg_fetch(got, x, sizeof got, 0));
    PE_OK(dmsg_fetch_indexed(got, x, idx, 4, sizeof *x, 0));
    PE_OK(dmsg_sync());
    PE_OK(dmsg_free(x));
    return 0;
}

/* A collective (here dmsg_alloc) is a barrier too: it ends the epoch. */
static int chk_ok_collective_epoch(void)
{
    uint64_t *x, *y, v = 5;
    PE_OK(dmsg_alloc(N * sizeof *x, (void **)&x));
    if (pe_me() == 0)
        PE_OK(dmsg_deposit(&x[0], &v, sizeof v, 0, DMSG_CTR_NONE));
    PE_OK(dmsg_alloc(N * sizeof *y, (void **)&y));
    if (pe_me() == 1)
        PE_OK(dmsg_deposit(&x[0], &v, sizeof v, 0, DMSG_CTR_NONE));
    PE_OK(dmsg_sync());
    PE_OK(dmsg_free(y));
    PE_OK(dmsg_free(x));
    return 0;
}

/* A halo exchange: each PE writes its two ghost rows of its neighbours,
 * reads its own after the barrier, and computes before the next one. */
static int chk_ok_halo(void)
{
    double *g, row[8];
    PE_OK(dmsg_alloc(2 * 8 * sizeof *g, (void **)&g));
    dmsg_ctr c;
    PE_OK(dmsg_ctr_create(&c));
    for (int it = 0; it < 3; it++) {
        for (int i = 0; i < 8; i++)
            row[i] = pe_me() * 100 + it;
        /* my row goes to the upper neighbour's ghost 0 and the lower's ghost 1 */
        PE_OK(dmsg_deposit(&g[0], row, sizeof row, pe_up(1), c));
        PE_OK(dmsg_deposit(&g[8], row, sizeof row, pe_down(1), c));
        PE_OK(dmsg_await(c, 2));
        PE_OK(dmsg_sync());
    }
    PE_OK(dmsg_ctr_destroy(c));
    PE_OK(dmsg_free(g));
    return 0;
}

#define CM_N 8192
/* Deposits and collectives in the same epochs: the collectives' traffic
 * (their scratch, below the checker's window) never touches the logs of
 * the deposits around it. */
static int chk_ok_coll_mixed(void)
{
    double *g, row[8];
    PE_OK(dmsg_alloc(16 * sizeof *g, (void **)&g));
    double *mine = malloc(CM_N * sizeof *mine);
    double *all = malloc((size_t)pe_n() * CM_N * sizeof *all);
    PE_CHECK(mine && all, "out of memory");
    for (int it = 0; it < 3; it++) {
        for (int i = 0; i < 8; i++)
            row[i] = pe_me() * 100 + it;
        PE_OK(dmsg_deposit(&g[0], row, sizeof row, pe_up(1), DMSG_CTR_NONE));
        for (int i = 0; i < CM_N; i++)
            mine[i] = pe_me() + i;
        PE_OK(dmsg_allgather(DMSG_TEAM_WORLD, all, mine, CM_N * sizeof *mine));
        PE_OK(dmsg_deposit(&g[8], row, sizeof row, pe_down(1), DMSG_CTR_NONE));
        double s = pe_me();
        PE_OK(dmsg_allreduce(DMSG_TEAM_WORLD, &s, &s, 1, DMSG_TYPE_DOUBLE, DMSG_OP_SUM));
        PE_OK(dmsg_sync());
        PE_CHECK(g[0] == pe_down(1) * 100 + it && g[8] == pe_up(1) * 100 + it, "halo rows");
        PE_CHECK(all[(size_t)(pe_n() - 1) * CM_N + 5] == pe_n() - 1 + 5, "allgather");
        PE_CHECK(s == pe_n() * (pe_n() - 1) / 2.0, "allreduce %g", s);
        PE_OK(dmsg_sync());
    }
    free(mine);
    free(all);
    PE_OK(dmsg_free(g));
    return 0;
}

const pe_case pe_check_cases[] = {
    {"chk_bad_ww", chk_bad_ww, 0},
    {"chk_bad_fetch", chk_bad_fetch, 0},
    {"chk_bad_local_read", chk_bad_local_read, 0},
    {"chk_bad_self_deposit", chk_bad_self_deposit, 0},
    {"chk_bad_section", chk_bad_section, 0},
    {"chk_bad_indexed", chk_bad_indexed, 0},
    {"chk_bad_adp", chk_bad_adp, 0},
    {"chk_bad_await", chk_bad_await, 0},
    {"chk_bad_await_fewer", chk_bad_await_fewer, 0},
    {"chk_bad_freed", chk_bad_freed, 0},
    {"chk_bad_late", chk_bad_late, 0},
    {"chk_ok_pipeline", chk_ok_pipeline, 0},
    {"chk_ok_random_scatter", chk_ok_random_scatter, 0},
    {"chk_ok_await_all", chk_ok_await_all, 0},
    {"chk_ok_transpose", chk_ok_transpose, 0},
    {"chk_ok_epochs", chk_ok_epochs, 0},
    {"chk_ok_fetch_after_sync", chk_ok_fetch_after_sync, 0},
    {"chk_ok_counters", chk_ok_counters, 0},
    {"chk_ok_reads", chk_ok_reads, 0},
    {"chk_ok_collective_epoch", chk_ok_collective_epoch, 0},
    {"chk_ok_halo", chk_ok_halo, 0},
    {"chk_ok_coll_mixed", chk_ok_coll_mixed, 0},
    {NULL, NULL, 0},
};
