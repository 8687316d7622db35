/*
 * transpose.c - B = transpose(A) for an N x N complex matrix, the all-to-all
 * personalized exchange at the heart of a 2-D FFT.
 *
 * Both matrices are distributed by blocks of b = N / npes rows. Block column
 * q of my rows of A becomes block column me of PE q's rows of B, transposed.
 * That is ONE section deposit per partner: both sides are b x b blocks with
 * the same counts, and the strides are swapped, so the copy engine does the
 * transpose on the way (no pack, no unpack, no receive). All deposits name one
 * counter; a PE's B is complete when it has counted npes deposits.
 *
 *   dmsgrun -n 4 ./transpose [N [iterations]]     (default 1024 5)
 */
#include <dmsg.h>
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


typedef struct cplx {
    double re, im;
} cplx;

/* A[i][j]: small integers, so every value is exact and comparisons are exact. */
static cplx f(size_t i, size_t j, size_t n)
{
    return (cplx){(double)(i * n + j), (double)j - (double)i};
}

static long arg_or(int argc, char **argv, int i, long dflt)
{
    return argc > i ? strtol(argv[i], NULL, 10) : dflt;
}

/* Sends the b x b block at column block q of my rows to PE q, transposed:
 * element (r, c) of the source lands at (c, me*b + r) of q's rows of B. */
static void deposit_block(cplx *b_sym, const cplx *a, size_t n, size_t b, int me, int q,
                          dmsg_ctr ctr)
{
    const ptrdiff_t elem = sizeof(cplx), row = (ptrdiff_t)(n * sizeof(cplx));
    dmsg_layout src = {.ndims = 2, .count = {b, b}, .stride = {elem, row}};
    dmsg_layout dst = {.ndims = 2, .count = {b, b}, .stride = {row, elem}};
    CHECK(dmsg_deposit_section(b_sym + (size_t)me * b, &dst, a + (size_t)q * b, &src, sizeof(cplx),
                               q, ctr));
}

/* Seconds of one transpose, from a common start. */
typedef struct timing {
    double mine; /* until this PE's rows of B were complete (its await returned) */
    double step; /* until every PE's were (the closing dmsg_sync returned) */
} timing;

/* One transpose. The opening dmsg_sync is the clearance (every PE is done
 * with its B, so it may be overwritten) and lines the clocks up. Partners are
 * visited in a staggered order so that the PEs do not all write to PE 0
 * first. */
static timing transpose_once(cplx *b_sym, const cplx *a, size_t n, int me, int npes, dmsg_ctr ctr)
{
    size_t b = n / (size_t)npes;
    timing t;
    CHECK(dmsg_sync());
    double t0 = dmsg_wtime();
    for (int k = 0; k < npes; k++)
        deposit_block(b_sym, a, n, b, me, (me + k) % npes, ctr);
    CHECK(dmsg_await(ctr, (uint64_t)npes));
    t.mine = dmsg_wtime() - t0;
    CHECK(dmsg_sync());
    t.step = dmsg_wtime() - t0;
    return t;
}

/* Counts the elements of my rows of B that differ from A transposed. */
static uint64_t count_errors(const cplx *b_sym, size_t n, size_t b, int me)
{
    uint64_t errors = 0;
    for (size_t r = 0; r < b; r++) {
        size_t i = (size_t)me * b + r;
        for (size_t j = 0; j < n; j++) {
            cplx want = f(j, i, n), got = b_sym[r * n + j];
            if (got.re != want.re || got.im != want.im) {
                if (errors++ < 5)
                    fprintf(stderr, "PE %d: B[%zu][%zu] = (%g, %g), want (%g, %g)\n", me, i, j,
                            got.re, got.im, want.re, want.im);
            }
        }
    }
    return errors;
}

/* What each PE reports to PE 0. */
typedef struct result {
    timing best;     /* fastest iteration, each field minimized separately */
    uint64_t errors; /* wrong elements in its rows of B */
} result;

/* PE 0 prints per-PE throughput (bytes of A a PE moves, its own block
 * included, over the time until its B was complete) and the total (all bytes
 * over the whole step, which ends when the slowest PE is done). Returns the
 * total error count. */
static uint64_t report(const result *res, size_t n, int npes, long iters)
{
    double bytes_pe = (double)(n / (size_t)npes) * (double)n * sizeof(cplx);
    double step = res[0].best.step;
    uint64_t errors = 0;
    for (int pe = 0; pe < npes; pe++) {
        printf("  PE %3d: %10.1f MB/s  (%.3f ms)\n", pe, bytes_pe / res[pe].best.mine / 1e6,
               res[pe].best.mine * 1e3);
        step = res[pe].best.step > step ? res[pe].best.step : step;
        errors += res[pe].errors;
    }
    printf("transpose: N = %zu, %d PEs, best of %ld: total %.1f MB/s (%.1f MB moved in %.3f ms)\n",
           n, npes, iters, bytes_pe * npes / step / 1e6, bytes_pe * npes / 1e6, step * 1e3);
    return errors;
}

int main(int argc, char **argv)
{
    CHECK(dmsg_init());
    int me = dmsg_pe(), npes = dmsg_npes();
    long n_arg = arg_or(argc, argv, 1, 1024), iters = arg_or(argc, argv, 2, 5);
    if (n_arg <= 0 || n_arg % npes != 0 || iters <= 0) {
        if (me == 0)
            fprintf(stderr, "usage: transpose [N [iterations]]: N > 0 divisible by npes (%d)\n",
                    npes);
        dmsg_finalize();
        return EXIT_FAILURE;
    }
    size_t n = (size_t)n_arg, b = n / (size_t)npes;

    /* A is only read by its owner, so it is ordinary memory; B is a deposit
     * target, so it lives in the symmetric segment. */
    cplx *a = malloc(b * n * sizeof(cplx));
    cplx *b_sym;
    result *res;
    dmsg_ctr ctr;
    if (a == NULL) {
        fprintf(stderr, "PE %d: out of memory\n", me);
        return EXIT_FAILURE;
    }
    CHECK(dmsg_alloc(b * n * sizeof(cplx), (void **)&b_sym));
    CHECK(dmsg_alloc((size_t)npes * sizeof(result), (void **)&res));
    CHECK(dmsg_ctr_create(&ctr));
    for (size_t r = 0; r < b; r++)
        for (size_t j = 0; j < n; j++)
            a[r * n + j] = f((size_t)me * b + r, j, n);

    timing best = {0.0, 0.0};
    for (long it = 0; it < iters; it++) {
        /* The check below must see only what the last transpose wrote. B is
         * mine to overwrite here: deposits into it start only after the next
         * dmsg_sync, and earlier ones completed by the previous one. */
        if (it == iters - 1) memset(b_sym, 0xff, b * n * sizeof(cplx)); /* NaN everywhere */
        timing t = transpose_once(b_sym, a, n, me, npes, ctr);
        if (it == 0) best = t;
        best.mine = t.mine < best.mine ? t.mine : best.mine;
        best.step = t.step < best.step ? t.step : best.step;
    }
    result mine = {best, count_errors(b_sym, n, b, me)};
    int failed = mine.errors != 0;

    CHECK(dmsg_deposit(&res[me], &mine, sizeof mine, 0, DMSG_CTR_NONE));
    CHECK(dmsg_sync()); /* completes the result deposits */
    if (me == 0) {
        uint64_t errors = report(res, n, npes, iters);
        failed |= errors != 0;
        printf("transpose: %s (%llu wrong elements)\n", errors ? "FAILED" : "OK",
               (unsigned long long)errors);
    }

    CHECK(dmsg_ctr_destroy(ctr));
    CHECK(dmsg_free(res));
    CHECK(dmsg_free(b_sym));
    free(a);
    CHECK(dmsg_finalize());
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
