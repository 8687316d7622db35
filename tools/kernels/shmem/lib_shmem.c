/*
 * lib_shmem.c - the kernels' communication written with OpenSHMEM (built
 * with Open MPI's oshcc, started with oshrun): the closest one-sided peer of
 * dmsg.
 *
 *   shmem-putmem  transpose, fft: pack each block transposed, then one
 *                 shmem_putmem per destination row segment; sor: one
 *                 shmem_putmem of the halo rows per neighbour
 *   shmem-iput    transpose, fft: no packing, one strided shmem_iput64/128
 *                 per source row (the transposition done by the put)
 * A step's puts are followed by one shmem_barrier_all, which completes them
 * and is the clearance of the next step (halo buffers alternate by parity).
 * There is no FEM variant (the issue asks for transpose, FFT and SOR).
 */
#include "kern.h"

#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum mode { M_PUTMEM, M_IPUT };
static enum mode g_mode;
static double *g_red, *g_res;

int kl_variant_ok(const char *kernel, const char *v)
{
    int fft = !strcmp(kernel, "transpose") || !strcmp(kernel, "fft");
    if (!strcmp(v, "shmem-putmem")) {
        g_mode = M_PUTMEM;
        return fft || !strcmp(kernel, "sor");
    }
    if (!strcmp(v, "shmem-iput")) {
        g_mode = M_IPUT;
        return fft;
    }
    return 0;
}

void kl_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    shmem_init();
    g_red = shmem_malloc((size_t)shmem_n_pes() * 16 * sizeof(double));
    g_res = shmem_malloc(16 * sizeof(double));
    if (g_red == NULL || g_res == NULL) kern_die("shmem_malloc failed");
}

void kl_finalize(void)
{
    shmem_finalize();
}

int kl_me(void)
{
    return shmem_my_pe();
}

int kl_np(void)
{
    return shmem_n_pes();
}

const char *kl_transport(void)
{
    return "oshmem";
}

double kl_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void *kl_alloc(size_t bytes)
{
    void *p = shmem_malloc(bytes ? bytes : 64);
    if (p == NULL) kern_die("shmem_malloc(%zu) failed", bytes);
    memset(p, 0, bytes);
    shmem_barrier_all();
    return p;
}

void kl_barrier(void)
{
    shmem_barrier_all();
}

void kl_allreduce(double *v, int n, int op)
{
    int me = shmem_my_pe(), np = shmem_n_pes();
    if (n > 16) kern_die("allreduce of %d values", n);
    shmem_putmem(g_red + (size_t)me * 16, v, (size_t)n * sizeof(double), 0);
    shmem_barrier_all();
    if (me == 0) {
        for (int i = 0; i < n; i++) {
            double r = g_red[i];
            for (int p = 1; p < np; p++) {
                double x = g_red[(size_t)p * 16 + (size_t)i];
                r = op == KL_SUM ? r + x : (x > r ? x : r);
            }
            v[i] = r;
        }
        for (int p = 0; p < np; p++)
            shmem_putmem(g_res, v, (size_t)n * sizeof(double), p);
    }
    shmem_barrier_all();
    memcpy(v, g_res, (size_t)n * sizeof(double));
    shmem_barrier_all();
}

void kl_bcast(void *buf, size_t bytes)
{
    void *sym = shmem_malloc(bytes ? bytes : 64);
    if (sym == NULL) kern_die("shmem_malloc(%zu) failed", bytes);
    if (shmem_my_pe() == 0)
        for (int p = 0; p < shmem_n_pes(); p++)
            shmem_putmem(sym, buf, bytes, p);
    shmem_barrier_all();
    memcpy(buf, sym, bytes);
    shmem_barrier_all();
    shmem_free(sym);
}

int kl_times(kern_times *t)
{
    (void)t;
    return 0;
}

static void barrier_timed(void)
{
    KERN_TIC(t0);
    shmem_barrier_all();
    KERN_TOC(t0, sync);
}

/* ------------------------------------------------------------ transpose */

struct kl_xpose {
    char *dst;
    const char *src;
    size_t n, b, elem;
    char *buf; /* putmem: one packed block */
};

kl_xpose *kl_xpose_plan(void *dst, const void *src, size_t n, size_t elem)
{
    kl_xpose *p = kern_malloc(sizeof *p);
    *p = (kl_xpose){.dst = dst, .src = src, .n = n, .b = kern_rows(n, shmem_n_pes()), .elem = elem};
    if (elem != 8 && elem != 16) kern_die("shmem transpose: element size %zu", elem);
    p->buf = kern_malloc(p->b * p->b * elem);
    return p;
}

void kl_xpose_run(kl_xpose *p)
{
    int me = shmem_my_pe(), np = shmem_n_pes();
    size_t b = p->b, n = p->n, elem = p->elem;
    for (int k = 0; k < np; k++) {
        int q = (me + k) % np;
        char *d = p->dst + (size_t)me * b * elem; /* my column block of q's rows */
        if (g_mode == M_PUTMEM && q == me) {
            KERN_TIC(t0); /* my own block: transposed in place */
            kern_local_block(p->dst, p->src, n, b, (size_t)me, elem);
            KERN_TOC(t0, pack);
        } else if (g_mode == M_PUTMEM) {
            KERN_TIC(t0);
            kern_pack_block(p->buf, p->src, n, b, (size_t)q, elem);
            KERN_TOC(t0, pack);
            KERN_TIC(t1);
            for (size_t c = 0; c < b; c++)
                shmem_putmem(d + c * n * elem, p->buf + c * b * elem, b * elem, q);
            KERN_TOC(t1, xfer);
        } else {
            KERN_TIC(t1);
            for (size_t r = 0; r < b; r++) {
                const char *s = p->src + (r * n + (size_t)q * b) * elem;
                if (elem == 16)
                    shmem_iput128(d + r * elem, s, (ptrdiff_t)n, 1, b, q);
                else
                    shmem_iput64(d + r * elem, s, (ptrdiff_t)n, 1, b, q);
            }
            KERN_TOC(t1, xfer);
        }
    }
    barrier_timed();
}

/* ----------------------------------------------------------------- halo */

struct kl_halo {
    double *grid[2];
    size_t n, b, w;
};

kl_halo *kl_halo_plan(double *grid[2], size_t n, size_t b, size_t w)
{
    kl_halo *h = kern_malloc(sizeof *h);
    *h = (kl_halo){.grid = {grid[0], grid[1]}, .n = n, .b = b, .w = w};
    return h;
}

void kl_halo_run(kl_halo *h, int par)
{
    int me = shmem_my_pe(), np = shmem_n_pes();
    size_t n = h->n, w = h->w, bytes = w * n * sizeof(double);
    double *g = h->grid[par];
    KERN_TIC(t0);
    if (me > 0) shmem_putmem(g + (w + h->b) * n, g + w * n, bytes, me - 1);
    if (me < np - 1) shmem_putmem(g, g + h->b * n, bytes, me + 1);
    KERN_TOC(t0, xfer);
    barrier_timed();
}

/* ------------------------------------------------------------------ fem */

struct kl_fem {
    int unused;
};

kl_fem *kl_fem_plan(double *x[2], size_t len, size_t stage_len, const kern_nbr *nbr, int nnbr)
{
    kern_die("no OpenSHMEM FEM variant");
}

void kl_fem_run(kl_fem *f, int par)
{
    kern_die("no OpenSHMEM FEM variant");
}
