/*
 * kern_fft.c - the 2D-FFT kernel: an N x N single-precision complex array in
 * row blocks; 1-D FFTs of the local rows (FFTW, plans made once), a
 * transpose, 1-D FFTs again, a transpose back. The result is the 2-D
 * transform in the original layout.
 *
 * Serial reference. The input is x = a (x) b + c (x) d (two outer products of
 * seeded random vectors), whose exact 2-D DFT is X = A (x) B + C (x) D with
 * A = DFT(a) and so on. The parallel code does not know that: it moves and
 * transforms the whole array. Every PE computes the four 1-D transforms in
 * double precision and checks its own rows of X, so the check costs O(N log
 * N) per PE and runs at every size and PE count (a full serial 2-D FFT on
 * each of 512 simulated PEs would not). A block in the wrong place shows,
 * since A(u)B(v) != A(v)B(u).
 *
 * Timed steps alternate forward and normalized backward transforms, so the
 * values stay bounded however many steps run.
 */
#include "kern.h"

#include <complex.h>
#include <fftw3.h> /* after complex.h: fftw_complex is the C99 type */
#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct {
    size_t n, b;
    fftwf_complex *a, *bt; /* my rows of the array and of its transpose */
    fftwf_plan fwd_a, fwd_b, bwd_a, bwd_b;
    kl_xpose *to_b, *to_a;
    int dir; /* direction of the next timed transform: 0 forward */
} F;

static double rnd(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdu;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53u;
    k ^= k >> 33;
    return (double)(k >> 11) * 0x1.0p-53 - 0.5;
}

/* Element i of the seeded vector v (0..3 = a, b, c, d). */
static double complex vec(int v, size_t i)
{
    uint64_t k = ((uint64_t)v << 40) + 2 * (uint64_t)i;
    return rnd(k) + I * rnd(k + 1);
}

static void fill_input(void)
{
    size_t n = F.n, row0 = (size_t)kl_me() * F.b;
    for (size_t r = 0; r < F.b; r++)
        for (size_t j = 0; j < n; j++) {
            double complex x = vec(0, row0 + r) * vec(1, j) + vec(2, row0 + r) * vec(3, j);
            F.a[r * n + j] = (float complex)x;
        }
}

static void setup(const kern_prob *pr)
{
    int np = kl_np();
    F.n = pr->n;
    if (F.n == 0 || F.n % (size_t)np) kern_die("fft: N = %zu must be a multiple of %d", F.n, np);
    F.b = kern_rows(F.n, np);
    F.a = kl_alloc(F.b * F.n * sizeof(fftwf_complex));
    F.bt = kl_alloc(F.b * F.n * sizeof(fftwf_complex));
    int len = (int)F.n, howmany = (int)F.b, dist = (int)F.n;
    /* FFTW_ESTIMATE: planning leaves the arrays alone and takes no time, so
     * 512 simulated PEs start quickly; every variant runs the same plans. */
    F.fwd_a = fftwf_plan_many_dft(1, &len, howmany, F.a, NULL, 1, dist, F.a, NULL, 1, dist,
                                  FFTW_FORWARD, FFTW_ESTIMATE);
    F.fwd_b = fftwf_plan_many_dft(1, &len, howmany, F.bt, NULL, 1, dist, F.bt, NULL, 1, dist,
                                  FFTW_FORWARD, FFTW_ESTIMATE);
    F.bwd_a = fftwf_plan_many_dft(1, &len, howmany, F.a, NULL, 1, dist, F.a, NULL, 1, dist,
                                  FFTW_BACKWARD, FFTW_ESTIMATE);
    F.bwd_b = fftwf_plan_many_dft(1, &len, howmany, F.bt, NULL, 1, dist, F.bt, NULL, 1, dist,
                                  FFTW_BACKWARD, FFTW_ESTIMATE);
    if (!F.fwd_a || !F.fwd_b || !F.bwd_a || !F.bwd_b) kern_die("fft: FFTW planning failed");
    F.to_b = kl_xpose_plan(F.bt, F.a, F.n, sizeof(fftwf_complex));
    F.to_a = kl_xpose_plan(F.a, F.bt, F.n, sizeof(fftwf_complex));
}

/* One 2-D transform of my rows in F.a, in place. */
static void fft2d(int backward, int compute)
{
    KERN_CTIC(t0);
    if (compute) fftwf_execute(backward ? F.bwd_a : F.fwd_a);
    KERN_CTOC(t0, comp);
    kern_align();
    kl_xpose_run(F.to_b);
    KERN_CTIC(t1);
    if (compute) fftwf_execute(backward ? F.bwd_b : F.fwd_b);
    KERN_CTOC(t1, comp);
    kern_align();
    kl_xpose_run(F.to_a);
    if (backward && compute) {
        KERN_CTIC(t2);
        float s = 1.0f / ((float)F.n * (float)F.n);
        float *v = (float *)F.a;
        for (size_t k = 0; k < 2 * F.b * F.n; k++)
            v[k] *= s;
        KERN_CTOC(t2, comp);
    }
}

/* DFT of seeded vector v in double precision (FFTW, double). */
static double complex *dft_of(int v)
{
    size_t n = F.n;
    fftw_complex *x = fftw_malloc(n * sizeof(fftw_complex));
    if (x == NULL) kern_die("out of memory");
    fftw_plan p = fftw_plan_dft_1d((int)n, x, x, FFTW_FORWARD, FFTW_ESTIMATE);
    for (size_t i = 0; i < n; i++) {
        x[i] = vec(v, i);
    }
    fftw_execute(p);
    double complex *out = kern_malloc(n * sizeof(double complex));
    for (size_t i = 0; i < n; i++)
        out[i] = x[i];
    fftw_destroy_plan(p);
    fftw_free(x);
    return out;
}

static void verify(const kern_prob *pr, kern_stats *st)
{
    size_t n = F.n, row0 = (size_t)kl_me() * F.b;
    fill_input();
    kl_barrier();
    fft2d(0, 1);
    kl_barrier();
    double complex *dft[4];
    for (int v = 0; v < 4; v++)
        dft[v] = dft_of(v);
    /* Error relative to the largest reference value; single precision
     * FFTs of these sizes stay far below 1e-4 of it. */
    double err = 0.0, big = 0.0;
    for (size_t r = 0; r < F.b; r++) {
        size_t u = row0 + r;
        for (size_t v = 0; v < n; v++) {
            double complex want = dft[0][u] * dft[1][v] + dft[2][u] * dft[3][v];
            double complex got = F.a[r * n + v];
            double e = cabs(got - want);
            err = isnan(e) || e > err ? (isnan(e) ? INFINITY : e) : err;
            big = cabs(want) > big ? cabs(want) : big;
        }
    }
    double v2[1] = {big};
    kl_allreduce(v2, 1, KL_MAX);
    for (int v = 0; v < 4; v++)
        free(dft[v]);
    st->maxerr = err / v2[0];
    st->ok = st->maxerr < 1e-4;
    int np = kl_np();
    st->bytes = 2.0 * (double)F.b * (double)F.b * sizeof(fftwf_complex) * (double)(np - 1);
    st->flops = 2.0 * (double)F.b * 5.0 * (double)n * log2((double)n);
    F.dir = 1; /* the verified forward transform is undone first */
    (void)pr;
}

static void run(const kern_prob *pr)
{
    for (int s = 0; s < pr->steps; s++) {
        fft2d(F.dir, !pr->nocompute);
        F.dir = !F.dir;
    }
}

const kern_kernel kern_fft_kernel = {"fft", setup, verify, run};
