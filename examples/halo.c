/*
 * halo.c - 2-D 5-point Jacobi relaxation with a halo (ghost row) exchange.
 *
 * The N x N grid is distributed by blocks of b = N / npes rows. Each PE keeps
 * a ghost copy of the row above and the row below its block in symmetric
 * memory. Every iteration it deposits its first and last rows into the ghost
 * rows of its two neighbours, awaits the rows its neighbours deposit, and
 * relaxes. The border of the grid is fixed. At the end every PE compares its
 * rows with a serial Jacobi of the whole grid. Both use the same stencil
 * function, so they round identically and must agree exactly (difference 0).
 *
 * Clearance without a barrier per iteration: ghost rows are double-buffered
 * by iteration parity, each parity with its own counter. A deposit of
 * iteration k goes to buffer k % 2, which the receiver last read in
 * iteration k - 2. The sender can only be in iteration k after awaiting the
 * receiver's deposit of iteration k - 1, and the receiver issues that deposit
 * only after it finished relaxing iteration k - 2. So the buffer is free:
 * the neighbour's own deposit was the clearance. For the same reason a
 * neighbour is at most one iteration ahead, so counts of iteration k + 1
 * land on the other counter and never satisfy the await of iteration k.
 * (The simpler alternative is a dmsg_sync before each exchange.)
 *
 *   dmsgrun -n 4 ./halo [N [iterations]]     (default 256 100)
 */
#include <dmsg.h>
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


enum { ABOVE = 0, BELOW = 1 };

/* Ghost rows in symmetric memory: ghost[parity][side] is a row of n doubles. */
typedef struct halo {
    size_t n, b; /* grid size, rows per PE */
    int me, npes;
    double *ghost;      /* symmetric: 2 parities x 2 sides x n */
    dmsg_ctr landed[2]; /* one counter per parity */
} halo;

static double *ghost_row(const halo *h, long iter, int side)
{
    return h->ghost + ((size_t)(iter % 2) * 2 + (size_t)side) * h->n;
}

/* Initial grid: fixed border values, zero interior. */
static double initial(size_t i, size_t j, size_t n)
{
    if (i == 0) return 1.0;
    if (i == n - 1 || j == 0 || j == n - 1) return (double)(i + j) / (double)(2 * n);
    return 0.0;
}

/* The one stencil, shared by the parallel and the serial code so that both
 * round identically. */
static double stencil(double up, double down, double left, double right)
{
    return 0.25 * (((up + down) + left) + right);
}

/* Relaxes rows [0, rows) of grid `cur` (row stride n) into `next`; `above`
 * and `below` are the rows just outside the block. `row0` is the global index
 * of the first row; border rows and columns are copied unchanged. */
static void relax(double *next, const double *cur, const double *above, const double *below,
                  size_t row0, size_t rows, size_t n)
{
    for (size_t r = 0; r < rows; r++) {
        const double *c = cur + r * n;
        double *x = next + r * n;
        size_t i = row0 + r;
        if (i == 0 || i == n - 1) {
            memcpy(x, c, n * sizeof(double));
            continue;
        }
        const double *up = r == 0 ? above : c - n;
        const double *down = r == rows - 1 ? below : c + n;
        x[0] = c[0];
        for (size_t j = 1; j < n - 1; j++)
            x[j] = stencil(up[j], down[j], c[j - 1], c[j + 1]);
        x[n - 1] = c[n - 1];
    }
}

/* Deposits my first row into the BELOW ghost of the PE above me and my last
 * row into the ABOVE ghost of the PE below me; awaits what my neighbours
 * send. Returns when both my ghost rows of this iteration are current. */
static void exchange(const halo *h, const double *cur, long iter)
{
    dmsg_ctr ctr = h->landed[iter % 2];
    uint64_t neighbours = 0;
    size_t row = h->n * sizeof(double);
    const double *first = cur, *last = cur + (h->b - 1) * h->n;
    if (h->me > 0) {
        CHECK(dmsg_deposit(ghost_row(h, iter, BELOW), first, row, h->me - 1, ctr));
        neighbours++;
    }
    if (h->me < h->npes - 1) {
        CHECK(dmsg_deposit(ghost_row(h, iter, ABOVE), last, row, h->me + 1, ctr));
        neighbours++;
    }
    CHECK(dmsg_await(ctr, neighbours));
}

/* The reference: the whole grid on one PE, border rows doubling as "ghosts". */
static double *serial_jacobi(size_t n, long iters)
{
    double *cur = malloc(n * n * sizeof(double)), *next = malloc(n * n * sizeof(double));
    if (cur == NULL || next == NULL) {
        fprintf(stderr, "serial_jacobi: out of memory\n");
        exit(EXIT_FAILURE);
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            cur[i * n + j] = initial(i, j, n);
    for (long it = 0; it < iters; it++) {
        /* rows 0 and n-1 are border rows, so `above`/`below` are never read */
        relax(next, cur, NULL, NULL, 0, n, n);
        double *t = cur;
        cur = next;
        next = t;
    }
    free(next);
    return cur;
}

static long arg_or(int argc, char **argv, int i, long dflt)
{
    return argc > i ? strtol(argv[i], NULL, 10) : dflt;
}

int main(int argc, char **argv)
{
    CHECK(dmsg_init());
    halo h = {.me = dmsg_pe(), .npes = dmsg_npes()};
    long n_arg = arg_or(argc, argv, 1, 256), iters = arg_or(argc, argv, 2, 100);
    if (n_arg < 3 || n_arg % h.npes != 0 || iters < 0) {
        if (h.me == 0)
            fprintf(stderr, "usage: halo [N [iterations]]: N >= 3 divisible by npes (%d)\n",
                    h.npes);
        dmsg_finalize();
        return EXIT_FAILURE;
    }
    h.n = (size_t)n_arg;
    h.b = h.n / (size_t)h.npes;
    size_t row0 = (size_t)h.me * h.b;

    /* Only the ghost rows are deposit targets; the block itself is private. */
    CHECK(dmsg_alloc(4 * h.n * sizeof(double), (void **)&h.ghost));
    CHECK(dmsg_ctr_create(&h.landed[0]));
    CHECK(dmsg_ctr_create(&h.landed[1]));
    double *cur = malloc(h.b * h.n * sizeof(double)), *next = malloc(h.b * h.n * sizeof(double));
    if (cur == NULL || next == NULL) {
        fprintf(stderr, "PE %d: out of memory\n", h.me);
        return EXIT_FAILURE;
    }
    for (size_t r = 0; r < h.b; r++)
        for (size_t j = 0; j < h.n; j++)
            cur[r * h.n + j] = initial(row0 + r, j, h.n);

    /* dmsg_ctr_create ended with a barrier: every ghost buffer is free. */
    double t0 = dmsg_wtime();
    for (long it = 0; it < iters; it++) {
        exchange(&h, cur, it);
        relax(next, cur, ghost_row(&h, it, ABOVE), ghost_row(&h, it, BELOW), row0, h.b, h.n);
        double *t = cur;
        cur = next;
        next = t;
    }
    double elapsed = dmsg_wtime() - t0;

    double *ref = serial_jacobi(h.n, iters), maxdiff = 0.0;
    size_t wrong = 0;
    for (size_t k = 0; k < h.b * h.n; k++) {
        double want = ref[row0 * h.n + k];
        wrong += cur[k] != want; /* NaN counts too */
        maxdiff = fmax(maxdiff, fabs(cur[k] - want));
    }
    int failed = wrong != 0;
    if (failed)
        fprintf(stderr, "halo: PE %d: %zu values differ from serial, max |difference| %g\n", h.me,
                wrong, maxdiff);

    /* PE 0 collects every PE's verdict before it prints the summary. */
    int *verdicts;
    CHECK(dmsg_alloc((size_t)h.npes * sizeof(int), (void **)&verdicts));
    CHECK(dmsg_deposit(&verdicts[h.me], &failed, sizeof failed, 0, DMSG_CTR_NONE));
    CHECK(dmsg_sync());
    if (h.me == 0) {
        int bad = 0;
        for (int pe = 0; pe < h.npes; pe++)
            bad += verdicts[pe] != 0;
        printf("halo: %.3f us per iteration on PE 0 (%s clock)\n",
               iters ? elapsed / (double)iters * 1e6 : 0.0, dmsg_transport_name());
        /* PE 0's payload (one ghost row per neighbour and iteration) over its
         * time: the machine's communication throughput per PE. */
        double sent = (double)(h.npes > 1) * (double)iters * (double)(h.n * sizeof(double));
        printf("halo: %.1f MB/s per PE (PE 0 deposited %.0f bytes in %.3f us)\n",
               elapsed > 0 ? sent / elapsed / 1e6 : 0.0, sent, elapsed * 1e6);
        printf("halo: N = %zu, %d PEs, %ld iterations: %s (%d PEs differ from serial Jacobi)\n",
               h.n, h.npes, iters, bad ? "FAILED" : "OK", bad);
        failed |= bad != 0;
    }

    free(ref);
    free(cur);
    free(next);
    CHECK(dmsg_free(verdicts));
    CHECK(dmsg_ctr_destroy(h.landed[1]));
    CHECK(dmsg_ctr_destroy(h.landed[0]));
    CHECK(dmsg_free(h.ghost));
    CHECK(dmsg_finalize());
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
