/*
 * kern_xpose.c - the transpose kernel (CMU transposes package pattern): an
 * N x N double-complex matrix in row blocks, B = transpose(A), one block per
 * pair of PEs. Also the tiled block pack/unpack that the packing variants of
 * every library share, so that their copies cost the same.
 */
#include "kern.h"

#include <string.h>

typedef struct cplx {
    double re, im;
} cplx;

/* Square tiles: both the strided reads and the writes of a transposed copy
 * stay in cache (a row-by-row transpose is several times slower). */
#define TILE 32

#define XPOSE_LOOP(T)                                                                              \
    do {                                                                                           \
        T *d = dst;                                                                                \
        const T *s = src;                                                                          \
        for (size_t r0 = 0; r0 < b; r0 += TILE)                                                    \
            for (size_t c0 = 0; c0 < b; c0 += TILE) {                                              \
                size_t r1 = r0 + TILE < b ? r0 + TILE : b, c1 = c0 + TILE < b ? c0 + TILE : b;     \
                for (size_t r = r0; r < r1; r++)                                                   \
                    for (size_t c = c0; c < c1; c++)                                               \
                        d[c * ldd + r] = s[r * lds + c];                                           \
            }                                                                                      \
    } while (0)

void kern_xpose_block(void *dst, size_t ldd, const void *src, size_t lds, size_t b, size_t elem)
{
    if (elem == 16)
        XPOSE_LOOP(cplx);
    else if (elem == 8)
        XPOSE_LOOP(uint64_t);
    else
        kern_die("transpose: element size %zu", elem);
}

void kern_pack_block(void *buf, const void *src, size_t n, size_t b, size_t q, size_t elem)
{
    kern_xpose_block(buf, b, (const char *)src + q * b * elem, n, b, elem);
}

void kern_local_block(void *dst, const void *src, size_t n, size_t b, size_t me, size_t elem)
{
    kern_xpose_block((char *)dst + me * b * elem, n, (const char *)src + me * b * elem, n, b, elem);
}

void kern_unpack_block(void *dst, const void *buf, size_t n, size_t b, size_t p, size_t elem)
{
    /* Packed rows are already transposed: one contiguous copy per row. */
    for (size_t c = 0; c < b; c++)
        memcpy((char *)dst + (c * n + p * b) * elem, (const char *)buf + c * b * elem, b * elem);
}

static struct {
    cplx *a, *b;
    kl_xpose *plan;
    size_t rows;
} X;

/* A[i][j]: small integers, exact in every variant. */
static cplx f(size_t i, size_t j, size_t n)
{
    return (cplx){(double)(i * n + j), (double)j - (double)i};
}

static void setup(const kern_prob *pr)
{
    int me = kl_me(), np = kl_np();
    size_t n = pr->n;
    if (n == 0 || n % (size_t)np) kern_die("transpose: N = %zu must be a multiple of %d", n, np);
    X.rows = kern_rows(n, np);
    X.a = kl_alloc(X.rows * n * sizeof(cplx));
    X.b = kl_alloc(X.rows * n * sizeof(cplx));
    for (size_t r = 0; r < X.rows; r++)
        for (size_t j = 0; j < n; j++)
            X.a[r * n + j] = f((size_t)me * X.rows + r, j, n);
    X.plan = kl_xpose_plan(X.b, X.a, n, sizeof(cplx));
}

static void verify(const kern_prob *pr, kern_stats *st)
{
    int me = kl_me(), np = kl_np();
    size_t n = pr->n, wrong = 0;
    memset(X.b, 0xff, X.rows * n * sizeof(cplx)); /* NaN: a missed element shows */
    kl_barrier();
    kl_xpose_run(X.plan);
    kl_barrier();
    for (size_t r = 0; r < X.rows; r++)
        for (size_t j = 0; j < n; j++) {
            cplx want = f(j, (size_t)me * X.rows + r, n), got = X.b[r * n + j];
            wrong += got.re != want.re || got.im != want.im;
        }
    st->ok = wrong == 0;
    st->maxerr = (double)wrong;
    st->bytes = (double)X.rows * (double)X.rows * sizeof(cplx) * (double)(np - 1);
    st->flops = 0;
}

static void run(const kern_prob *pr)
{
    for (int s = 0; s < pr->steps; s++) {
        kern_align();
        kl_xpose_run(X.plan);
    }
}

const kern_kernel kern_xpose_kernel = {"transpose", setup, verify, run};
