/*
 * kern_sor.c - the SOR kernel: an N x N grid of doubles in row blocks, a
 * weighted 5-point relaxation (Jacobi order, so that the parallel and the
 * serial sweeps compute exactly the same values), and before every
 * iteration a halo of W = 4 rows exchanged with both neighbours, as in the
 * thesis's benchmark (the stencil reads one of the four rows; the width is
 * the benchmark's communication volume).
 */
#include "kern.h"

#include <stdlib.h>
#include <string.h>

#define W 4
#define OMEGA 0.9

static struct {
    size_t n, b, row0;
    double *grid[2]; /* W ghost rows, b owned rows, W ghost rows */
    kl_halo *plan;
    long iter; /* iterations done: parities alternate for the whole run */
} S;

/* Reproducible pseudo-random interior, fixed non-zero border. */
static double initial(size_t i, size_t j, size_t n)
{
    if (i == 0) return 1.0;
    if (i == n - 1 || j == 0 || j == n - 1) return (double)(i + j) / (double)(2 * n);
    uint64_t h = (uint64_t)i * 0x9E3779B97F4A7C15u ^ (uint64_t)j * 0xC2B2AE3D27D4EB4Fu;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9u;
    h ^= h >> 32;
    return (double)(h >> 11) * 0x1.0p-53;
}

/* One row of the sweep, shared by the parallel and the serial code so that
 * both round identically. Row i of the global grid; border rows and
 * columns stay fixed. */
static void relax_row(double *x, const double *c, const double *up, const double *down, size_t i,
                      size_t n)
{
    if (i == 0 || i == n - 1) {
        memcpy(x, c, n * sizeof(double));
        return;
    }
    x[0] = c[0];
    for (size_t j = 1; j < n - 1; j++) {
        double s = 0.25 * (((up[j] + down[j]) + c[j - 1]) + c[j + 1]);
        x[j] = (1.0 - OMEGA) * c[j] + OMEGA * s;
    }
    x[n - 1] = c[n - 1];
}

static void init_grid(void)
{
    size_t n = S.n;
    for (int k = 0; k < 2; k++)
        memset(S.grid[k], 0, (S.b + 2 * W) * n * sizeof(double));
    for (size_t r = 0; r < S.b; r++)
        for (size_t j = 0; j < n; j++)
            S.grid[0][(W + r) * n + j] = initial(S.row0 + r, j, n);
    S.iter = 0;
}

static void iterate(int steps, int compute)
{
    size_t n = S.n;
    for (int s = 0; s < steps; s++, S.iter++) {
        int par = (int)(S.iter % 2);
        kern_align();
        kl_halo_run(S.plan, par);
        if (!compute) continue;
        KERN_CTIC(t0);
        const double *cur = S.grid[par] + W * n;
        double *next = S.grid[!par] + W * n;
        for (size_t r = 0; r < S.b; r++)
            relax_row(next + r * n, cur + r * n, cur + r * n - n, cur + r * n + n, S.row0 + r, n);
        KERN_CTOC(t0, comp);
    }
}

static void setup(const kern_prob *pr)
{
    int np = kl_np();
    S.n = pr->n;
    if (S.n % (size_t)np || S.n / (size_t)np < W)
        kern_die("sor: N = %zu must be a multiple of %d with at least %d rows per PE", S.n, np, W);
    S.b = kern_rows(S.n, np);
    S.row0 = (size_t)kl_me() * S.b;
    for (int k = 0; k < 2; k++)
        S.grid[k] = kl_alloc((S.b + 2 * W) * S.n * sizeof(double));
    S.plan = kl_halo_plan(S.grid, S.n, S.b, W);
}

/* Serial reference for my rows: the sweep over my rows and `steps` rows on
 * each side (their domain of dependence after `steps` iterations), so every
 * PE can check itself at any machine size. Rows at the band's ends stay
 * fixed; their error moves one row per iteration and never reaches mine. */
static double *serial_band(int steps, size_t *lo_out)
{
    size_t n = S.n, lo = S.row0 > (size_t)steps ? S.row0 - (size_t)steps : 0;
    size_t hi = S.row0 + S.b + (size_t)steps < n ? S.row0 + S.b + (size_t)steps : n;
    size_t rows = hi - lo;
    double *cur = kern_malloc(rows * n * sizeof(double)),
           *next = kern_malloc(rows * n * sizeof(double));
    for (size_t r = 0; r < rows; r++)
        for (size_t j = 0; j < n; j++)
            cur[r * n + j] = initial(lo + r, j, n);
    for (int s = 0; s < steps; s++) {
        memcpy(next, cur, n * sizeof(double));
        memcpy(next + (rows - 1) * n, cur + (rows - 1) * n, n * sizeof(double));
        for (size_t r = 1; r + 1 < rows; r++)
            relax_row(next + r * n, cur + r * n, cur + (r - 1) * n, cur + (r + 1) * n, lo + r, n);
        double *t = cur;
        cur = next;
        next = t;
    }
    free(next);
    *lo_out = lo;
    return cur;
}

static void verify(const kern_prob *pr, kern_stats *st)
{
    init_grid();
    kl_barrier();
    iterate(pr->steps, 1);
    kl_barrier();
    size_t lo, n = S.n, wrong = 0;
    double *ref = serial_band(pr->steps, &lo);
    const double *mine = S.grid[S.iter % 2] + W * n;
    for (size_t r = 0; r < S.b; r++)
        for (size_t j = 0; j < n; j++)
            wrong += mine[r * n + j] != ref[(S.row0 - lo + r) * n + j]; /* NaN counts too */
    free(ref);
    int np = kl_np(), me = kl_me();
    st->ok = wrong == 0;
    st->maxerr = (double)wrong;
    st->bytes = (double)((me > 0) + (me < np - 1)) * W * (double)n * sizeof(double);
    st->flops = 7.0 * (double)S.b * (double)n;
}

static void run(const kern_prob *pr)
{
    iterate(pr->steps, !pr->nocompute);
}

const kern_kernel kern_sor_kernel = {"sor", setup, verify, run};
