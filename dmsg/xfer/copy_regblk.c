/* Streaming register-block kernels for transposes of 8-byte elements: one
 * line block (8 x 8 elements, a 64-byte cache line of elements per side)
 * transposed through vector registers and written with non-temporal
 * stores. The destination is contiguous along i, the source along j (the
 * plane copy_sect.c calls a line block): d + i*8 + j*dsj receives
 * s + i*ssi + j*8. Every destination row of the block is one whole line
 * (the caller streams only planes whose rows start on a line), written
 * with back-to-back stores before the next row starts, so each line leaves
 * the write-combining buffers full; the caller ends the copy with an
 * sfence. Measurements: the notes at the top of copy_sect.c.
 *
 * AVX2 does 4 x 4 blocks (four 32-byte row loads, two shuffle stages);
 * SSE2, which every x86-64 has, 2 x 2. A first AVX2 form stored each 4 x 4
 * block as soon as it was made (four rows, half a line each, then the
 * other halves) and ran 1.35x slower than SSE2; an SSE2 form that walked
 * column pairs across all eight rows (eight lines open, each filled in
 * four pieces) ran at 0.9 GB/s, the buffers flushed part-full. Plain-store
 * forms of the same blocks lost to the element loop's line blocks at 1-8
 * MiB planes (write allocate dominates there), so plain stores keep the
 * element loop (copy_sect.c). */
#include "dmsg/xfer/xfer_impl.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define REGBLK_X86 1
#else
#define REGBLK_X86 0
#endif

#if REGBLK_X86
/* SSE2: 2 x 2 units; rows j, j+1 get a whole line (four units along i)
 * before the next pair of rows starts. */
#define SSE2_UNIT(STORE)                                                                       \
    do {                                                                                       \
        __m128d a = _mm_loadu_pd((const double *)(const void *)(s + i * ssi + j * 8));        \
        __m128d b = _mm_loadu_pd((const double *)(const void *)(s + (i + 1) * ssi + j * 8));  \
        STORE((double *)(void *)(d + j * dsj + i * 8), _mm_unpacklo_pd(a, b));                 \
        STORE((double *)(void *)(d + (j + 1) * dsj + i * 8), _mm_unpackhi_pd(a, b));           \
    } while (0)

static void blk8_sse2_nt(char *d, ptrdiff_t dsj, const char *s, ptrdiff_t ssi)
{
    for (ptrdiff_t j = 0; j < 8; j += 2)
        for (ptrdiff_t i = 0; i < 8; i += 2)
            SSE2_UNIT(_mm_stream_pd);
}

/* AVX2: 4 x 4 blocks; rows j..j+3 get whole lines (two blocks along i)
 * before the next four rows start. */
/* Rows i..i+3 of source columns j..j+3, transposed: out[c] holds
 * destination row j+c's four elements i..i+3. */
#define AVX2_4X4(P, OUT)                                                                       \
    do {                                                                                       \
        __m256d r0 = _mm256_loadu_pd((const double *)(const void *)(P));                       \
        __m256d r1 = _mm256_loadu_pd((const double *)(const void *)((P) + ssi));               \
        __m256d r2 = _mm256_loadu_pd((const double *)(const void *)((P) + 2 * ssi));           \
        __m256d r3 = _mm256_loadu_pd((const double *)(const void *)((P) + 3 * ssi));           \
        __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);             \
        __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);             \
        OUT[0] = _mm256_permute2f128_pd(t0, t2, 0x20);                                         \
        OUT[1] = _mm256_permute2f128_pd(t1, t3, 0x20);                                         \
        OUT[2] = _mm256_permute2f128_pd(t0, t2, 0x31);                                         \
        OUT[3] = _mm256_permute2f128_pd(t1, t3, 0x31);                                         \
    } while (0)

/* Four destination rows at a time, each written as one whole line (two
 * 32-byte stores back to back) before the next row. The first form stored
 * each 4 x 4 block as it was made (four rows, half a line each, then the
 * other halves): 1.35x slower streamed than SSE2 on the Xeon. The
 * streaming form needs 32-byte aligned destinations: rows on a line
 * (the caller's lines_aligned). */
#define AVX2_BLOCK(STORE)                                                                      \
    do {                                                                                       \
        for (ptrdiff_t j = 0; j < 8; j += 4) {                                                 \
            __m256d lo[4], hi[4];                                                              \
            AVX2_4X4(s + j * 8, lo);                                                           \
            AVX2_4X4(s + 4 * ssi + j * 8, hi);                                                 \
            for (int c = 0; c < 4; c++) {                                                      \
                double *q = (double *)(void *)(d + (j + c) * dsj);                             \
                STORE(q, lo[c]);                                                               \
                STORE(q + 4, hi[c]);                                                           \
            }                                                                                  \
        }                                                                                      \
    } while (0)

__attribute__((target("avx2"))) static void blk8_avx2_nt(char *d, ptrdiff_t dsj,
                                                         const char *s, ptrdiff_t ssi)
{
    AVX2_BLOCK(_mm256_stream_pd);
}

static int have_avx2(void)
{
    return __builtin_cpu_supports("avx2");
}
#endif

int dmsg_xfer_regblk_best(void)
{
#if REGBLK_X86
    return have_avx2() ? DMSG_XFER_KERNEL_AVX2 : DMSG_XFER_KERNEL_SSE2;
#else
    return DMSG_XFER_KERNEL_AUTO; /* none: no streaming stores */
#endif
}

xfer_blk8_fn dmsg_xfer_regblk8(int kernel, int *got)
{
#if REGBLK_X86
    int best = dmsg_xfer_regblk_best();
    int k = kernel == DMSG_XFER_KERNEL_AUTO || kernel > best ? best : kernel;
    if (got)
        *got = k;
    return k == DMSG_XFER_KERNEL_AVX2 ? blk8_avx2_nt : blk8_sse2_nt;
#else
    (void)kernel;
    if (got)
        *got = DMSG_XFER_KERNEL_AUTO;
    return NULL;
#endif
}

const char *dmsg_xfer_kernel_name(int kernel)
{
    switch (kernel) {
    case DMSG_XFER_KERNEL_SSE2: return "SSE2 2x2 register blocks";
    case DMSG_XFER_KERNEL_AVX2: return "AVX2 4x4 register blocks";
    default: return "none";
    }
}
