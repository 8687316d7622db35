/* The reduction kernels, every (type, op) pair generated from one list:
 * dst[i] = x[i] op y[i]. Integer sums and products are done in uint64_t
 * and truncated (wrap around, no undefined overflow); min and max take x
 * when the two compare equal or unordered, so the order of the operands
 * (fixed by the callers) decides NaNs too. */
#include <complex.h>
#include <stdint.h>
#include "dmsg/coll/coll.h"

/* GCC's -O2 vectorizes only loops that need no run-time check, and dst
 * may be x or y here: vectorized with the check, a long float sum combines
 * 4-8 elements an instruction instead of one (the direct path's combine
 * runs at memory speed). Element by element as before, so the same bits. */
#if defined(__GNUC__) && !defined(__clang__)
#define VECTORIZED __attribute__((optimize("tree-vectorize", "vect-cost-model=dynamic")))
#else
#define VECTORIZED
#endif

#define KERNEL(NAME, T, EXPR)                                                                  \
    VECTORIZED static void NAME(void *d, const void *x, const void *y, size_t n)               \
    {                                                                                          \
        const T *xs = x, *ys = y;                                                              \
        T *ds = d;                                                                             \
        for (size_t i = 0; i < n; i++) {                                                       \
            T a = xs[i], b = ys[i];                                                            \
            ds[i] = (EXPR);                                                                    \
        }                                                                                      \
    }

#define INT_KERNELS(TN, T)                                                                     \
    KERNEL(k_##TN##_sum, T, (T)((uint64_t)a + (uint64_t)b))                                   \
    KERNEL(k_##TN##_prod, T, (T)((uint64_t)a * (uint64_t)b))                                  \
    KERNEL(k_##TN##_min, T, b < a ? b : a)                                                     \
    KERNEL(k_##TN##_max, T, b > a ? b : a)                                                     \
    KERNEL(k_##TN##_and, T, (T)(a & b))                                                        \
    KERNEL(k_##TN##_or, T, (T)(a | b))                                                         \
    KERNEL(k_##TN##_xor, T, (T)(a ^ b))

#define REAL_KERNELS(TN, T)                                                                    \
    KERNEL(k_##TN##_sum, T, a + b)                                                             \
    KERNEL(k_##TN##_prod, T, a * b)                                                            \
    KERNEL(k_##TN##_min, T, b < a ? b : a)                                                     \
    KERNEL(k_##TN##_max, T, b > a ? b : a)

#define CPLX_KERNELS(TN, T)                                                                    \
    KERNEL(k_##TN##_sum, T, a + b)                                                             \
    KERNEL(k_##TN##_prod, T, a * b)

/* type enum suffix, C type, class */
#define INT_TYPES(X)                                                                           \
    X(INT8, int8_t)                                                                            \
    X(INT16, int16_t)                                                                          \
    X(INT32, int32_t)                                                                          \
    X(INT64, int64_t)                                                                          \
    X(UINT8, uint8_t)                                                                          \
    X(UINT16, uint16_t)                                                                        \
    X(UINT32, uint32_t)                                                                        \
    X(UINT64, uint64_t)
#define REAL_TYPES(X)                                                                          \
    X(FLOAT, float)                                                                            \
    X(DOUBLE, double)                                                                          \
    X(LONG_DOUBLE, long double)
#define CPLX_TYPES(X)                                                                          \
    X(FLOAT_COMPLEX, float _Complex)                                                           \
    X(DOUBLE_COMPLEX, double _Complex)

INT_TYPES(INT_KERNELS)
REAL_TYPES(REAL_KERNELS)
CPLX_TYPES(CPLX_KERNELS)

enum { NTYPES = DMSG_TYPE_DOUBLE_COMPLEX + 1, NOPS = DMSG_OP_XOR + 1 };

#define ROW_INT(TN, T)                                                                         \
    [DMSG_TYPE_##TN] = {[DMSG_OP_SUM] = k_##TN##_sum, [DMSG_OP_PROD] = k_##TN##_prod,          \
                        [DMSG_OP_MIN] = k_##TN##_min, [DMSG_OP_MAX] = k_##TN##_max,            \
                        [DMSG_OP_AND] = k_##TN##_and, [DMSG_OP_OR] = k_##TN##_or,              \
                        [DMSG_OP_XOR] = k_##TN##_xor},
#define ROW_REAL(TN, T)                                                                        \
    [DMSG_TYPE_##TN] = {[DMSG_OP_SUM] = k_##TN##_sum, [DMSG_OP_PROD] = k_##TN##_prod,          \
                        [DMSG_OP_MIN] = k_##TN##_min, [DMSG_OP_MAX] = k_##TN##_max},
#define ROW_CPLX(TN, T) [DMSG_TYPE_##TN] = {[DMSG_OP_SUM] = k_##TN##_sum, [DMSG_OP_PROD] = k_##TN##_prod},

static const coll_red_fn kernels[NTYPES][NOPS] = {INT_TYPES(ROW_INT) REAL_TYPES(ROW_REAL)
                                                      CPLX_TYPES(ROW_CPLX)};

coll_red_fn dmsg_coll_red_kernel(dmsg_type type, dmsg_redop op)
{
    if ((int)type <= 0 || (int)type >= NTYPES || (int)op <= 0 || (int)op >= NOPS)
        return NULL;
    return kernels[type][op];
}

