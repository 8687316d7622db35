/* OpenSHMEM atomics on dmsg_atomic (shmem.h, "atomics"). The _nbi forms run
 * the blocking operation: complete (fetch written) on return, so also at
 * the next shmem_quiet, as the specification requires. */
#include "dmsg/front/shmem/shmem_impl.h"

static void amo(const char *call, shmem_ctx_t ctx, const void *dst, dmsg_amo_op op, dmsg_type t,
                const void *operand, const void *cmp, void *result, int pe)
{
    /* Under MULTIPLE the lock keeps the core to one thread; the operation
     * itself is atomic across threads and PEs alike (a CPU atomic on shm). */
    dmsg_shmem_lock();
    int p = ctx == SHMEM_CTX_DEFAULT ? pe : dmsg_shmem_ctx_pe(ctx, pe, call);
    int st = dmsg_atomic(dmsg_shmem_sym(dst), op, t, operand, cmp, result, p);
    dmsg_shmem_unlock();
    if (st)
        dmsg_shmem_die(call, st, NULL);
}

#define DEF_AMO_EXT(T, N)                                                                          \
    T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe)                       \
    {                                                                                              \
        T r;                                                                                       \
        amo(__func__, ctx, source, DMSG_AMO_FETCH, DMSG_SHMEM_DT_##N, NULL, NULL, &r, pe);         \
        return r;                                                                                  \
    }                                                                                              \
    T shmem_##N##_atomic_fetch(const T *source, int pe)                                            \
    {                                                                                              \
        return shmem_ctx_##N##_atomic_fetch(SHMEM_CTX_DEFAULT, source, pe);                        \
    }                                                                                              \
    void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T *dest, T value, int pe)                     \
    {                                                                                              \
        amo(__func__, ctx, dest, DMSG_AMO_SET, DMSG_SHMEM_DT_##N, &value, NULL, NULL, pe);         \
    }                                                                                              \
    void shmem_##N##_atomic_set(T *dest, T value, int pe)                                          \
    {                                                                                              \
        shmem_ctx_##N##_atomic_set(SHMEM_CTX_DEFAULT, dest, value, pe);                            \
    }                                                                                              \
    T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T *dest, T value, int pe)                       \
    {                                                                                              \
        T r;                                                                                       \
        amo(__func__, ctx, dest, DMSG_AMO_SWAP, DMSG_SHMEM_DT_##N, &value, NULL, &r, pe);          \
        return r;                                                                                  \
    }                                                                                              \
    T shmem_##N##_atomic_swap(T *dest, T value, int pe)                                            \
    {                                                                                              \
        return shmem_ctx_##N##_atomic_swap(SHMEM_CTX_DEFAULT, dest, value, pe);                    \
    }                                                                                              \
    void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch, const T *source, int pe)      \
    {                                                                                              \
        amo(__func__, ctx, source, DMSG_AMO_FETCH, DMSG_SHMEM_DT_##N, NULL, NULL, fetch, pe);      \
    }                                                                                              \
    void shmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe)                           \
    {                                                                                              \
        shmem_ctx_##N##_atomic_fetch_nbi(SHMEM_CTX_DEFAULT, fetch, source, pe);                    \
    }                                                                                              \
    void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe)      \
    {                                                                                              \
        amo(__func__, ctx, dest, DMSG_AMO_SWAP, DMSG_SHMEM_DT_##N, &value, NULL, fetch, pe);       \
    }                                                                                              \
    void shmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe)                           \
    {                                                                                              \
        shmem_ctx_##N##_atomic_swap_nbi(SHMEM_CTX_DEFAULT, fetch, dest, value, pe);                \
    }
DMSG_SHMEM_AMO_EXT_TYPES(DEF_AMO_EXT)

#define DEF_AMO_STD(T, N)                                                                          \
    T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T *dest, T cond, T value, int pe)       \
    {                                                                                              \
        T r;                                                                                       \
        amo(__func__, ctx, dest, DMSG_AMO_CSWAP, DMSG_SHMEM_DT_##N, &value, &cond, &r, pe);        \
        return r;                                                                                  \
    }                                                                                              \
    T shmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe)                            \
    {                                                                                              \
        return shmem_ctx_##N##_atomic_compare_swap(SHMEM_CTX_DEFAULT, dest, cond, value, pe);      \
    }                                                                                              \
    T shmem_ctx_##N##_atomic_fetch_add(shmem_ctx_t ctx, T *dest, T value, int pe)                  \
    {                                                                                              \
        T r;                                                                                       \
        amo(__func__, ctx, dest, DMSG_AMO_FETCH_ADD, DMSG_SHMEM_DT_##N, &value, NULL, &r, pe);     \
        return r;                                                                                  \
    }                                                                                              \
    T shmem_##N##_atomic_fetch_add(T *dest, T value, int pe)                                       \
    {                                                                                              \
        return shmem_ctx_##N##_atomic_fetch_add(SHMEM_CTX_DEFAULT, dest, value, pe);               \
    }                                                                                              \
    void shmem_ctx_##N##_atomic_add(shmem_ctx_t ctx, T *dest, T value, int pe)                     \
    {                                                                                              \
        amo(__func__, ctx, dest, DMSG_AMO_ADD, DMSG_SHMEM_DT_##N, &value, NULL, NULL, pe);         \
    }                                                                                              \
    void shmem_##N##_atomic_add(T *dest, T value, int pe)                                          \
    {                                                                                              \
        shmem_ctx_##N##_atomic_add(SHMEM_CTX_DEFAULT, dest, value, pe);                            \
    }                                                                                              \
    T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T *dest, int pe)                           \
    {                                                                                              \
        T r, one = 1;                                                                              \
        amo(__func__, ctx, dest, DMSG_AMO_FETCH_ADD, DMSG_SHMEM_DT_##N, &one, NULL, &r, pe);       \
        return r;                                                                                  \
    }                                                                                              \
    T shmem_##N##_atomic_fetch_inc(T *dest, int pe)                                                \
    {                                                                                              \
        return shmem_ctx_##N##_atomic_fetch_inc(SHMEM_CTX_DEFAULT, dest, pe);                      \
    }                                                                                              \
    void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T *dest, int pe)                              \
    {                                                                                              \
        T one = 1;                                                                                 \
        amo(__func__, ctx, dest, DMSG_AMO_ADD, DMSG_SHMEM_DT_##N, &one, NULL, NULL, pe);           \
    }                                                                                              \
    void shmem_##N##_atomic_inc(T *dest, int pe)                                                   \
    {                                                                                              \
        shmem_ctx_##N##_atomic_inc(SHMEM_CTX_DEFAULT, dest, pe);                                   \
    }                                                                                              \
    void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T cond,       \
                                                 T value, int pe)                                  \
    {                                                                                              \
        amo(__func__, ctx, dest, DMSG_AMO_CSWAP, DMSG_SHMEM_DT_##N, &value, &cond, fetch, pe);     \
    }                                                                                              \
    void shmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe)           \
    {                                                                                              \
        shmem_ctx_##N##_atomic_compare_swap_nbi(SHMEM_CTX_DEFAULT, fetch, dest, cond, value, pe);  \
    }                                                                                              \
    void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T *fetch, T *dest, int pe)          \
    {                                                                                              \
        T one = 1;                                                                                 \
        amo(__func__, ctx, dest, DMSG_AMO_FETCH_ADD, DMSG_SHMEM_DT_##N, &one, NULL, fetch, pe);    \
    }                                                                                              \
    void shmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe)                               \
    {                                                                                              \
        shmem_ctx_##N##_atomic_fetch_inc_nbi(SHMEM_CTX_DEFAULT, fetch, dest, pe);                  \
    }                                                                                              \
    void shmem_ctx_##N##_atomic_fetch_add_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe) \
    {                                                                                              \
        amo(__func__, ctx, dest, DMSG_AMO_FETCH_ADD, DMSG_SHMEM_DT_##N, &value, NULL, fetch, pe);  \
    }                                                                                              \
    void shmem_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe)                      \
    {                                                                                              \
        shmem_ctx_##N##_atomic_fetch_add_nbi(SHMEM_CTX_DEFAULT, fetch, dest, value, pe);           \
    }
DMSG_SHMEM_AMO_STD_TYPES(DEF_AMO_STD)

#define DEF_AMO_BIT1(T, N, OP, FOP, POP)                                                           \
    T shmem_ctx_##N##_atomic_fetch_##OP(shmem_ctx_t ctx, T *dest, T value, int pe)                 \
    {                                                                                              \
        T r;                                                                                       \
        amo(__func__, ctx, dest, FOP, DMSG_SHMEM_DT_##N, &value, NULL, &r, pe);                    \
        return r;                                                                                  \
    }                                                                                              \
    T shmem_##N##_atomic_fetch_##OP(T *dest, T value, int pe)                                      \
    {                                                                                              \
        return shmem_ctx_##N##_atomic_fetch_##OP(SHMEM_CTX_DEFAULT, dest, value, pe);              \
    }                                                                                              \
    void shmem_ctx_##N##_atomic_##OP(shmem_ctx_t ctx, T *dest, T value, int pe)                    \
    {                                                                                              \
        amo(__func__, ctx, dest, POP, DMSG_SHMEM_DT_##N, &value, NULL, NULL, pe);                  \
    }                                                                                              \
    void shmem_##N##_atomic_##OP(T *dest, T value, int pe)                                         \
    {                                                                                              \
        shmem_ctx_##N##_atomic_##OP(SHMEM_CTX_DEFAULT, dest, value, pe);                           \
    }                                                                                              \
    void shmem_ctx_##N##_atomic_fetch_##OP##_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value,      \
                                                 int pe)                                           \
    {                                                                                              \
        amo(__func__, ctx, dest, FOP, DMSG_SHMEM_DT_##N, &value, NULL, fetch, pe);                 \
    }                                                                                              \
    void shmem_##N##_atomic_fetch_##OP##_nbi(T *fetch, T *dest, T value, int pe)                   \
    {                                                                                              \
        shmem_ctx_##N##_atomic_fetch_##OP##_nbi(SHMEM_CTX_DEFAULT, fetch, dest, value, pe);        \
    }
#define DEF_AMO_BIT(T, N)                                                                          \
    DEF_AMO_BIT1(T, N, and, DMSG_AMO_FETCH_AND, DMSG_AMO_AND)                                      \
    DEF_AMO_BIT1(T, N, or, DMSG_AMO_FETCH_OR, DMSG_AMO_OR)                                         \
    DEF_AMO_BIT1(T, N, xor, DMSG_AMO_FETCH_XOR, DMSG_AMO_XOR)
DMSG_SHMEM_AMO_BIT_TYPES(DEF_AMO_BIT)

/* The deprecated 1.3 names. */
#define DEF_OLD_AMO(T, N)                                                                          \
    T shmem_##N##_cswap(T *dest, T cond, T value, int pe)                                          \
    {                                                                                              \
        return shmem_##N##_atomic_compare_swap(dest, cond, value, pe);                             \
    }                                                                                              \
    T shmem_##N##_finc(T *dest, int pe)                                                            \
    {                                                                                              \
        return shmem_##N##_atomic_fetch_inc(dest, pe);                                             \
    }                                                                                              \
    void shmem_##N##_inc(T *dest, int pe)                                                          \
    {                                                                                              \
        shmem_##N##_atomic_inc(dest, pe);                                                          \
    }                                                                                              \
    T shmem_##N##_fadd(T *dest, T value, int pe)                                                   \
    {                                                                                              \
        return shmem_##N##_atomic_fetch_add(dest, value, pe);                                      \
    }                                                                                              \
    void shmem_##N##_add(T *dest, T value, int pe)                                                 \
    {                                                                                              \
        shmem_##N##_atomic_add(dest, value, pe);                                                   \
    }
#define DEF_OLD_AMO_EXT(T, N)                                                                      \
    T shmem_##N##_fetch(const T *source, int pe)                                                   \
    {                                                                                              \
        return shmem_##N##_atomic_fetch(source, pe);                                               \
    }                                                                                              \
    void shmem_##N##_set(T *dest, T value, int pe)                                                 \
    {                                                                                              \
        shmem_##N##_atomic_set(dest, value, pe);                                                   \
    }                                                                                              \
    T shmem_##N##_swap(T *dest, T value, int pe)                                                   \
    {                                                                                              \
        return shmem_##N##_atomic_swap(dest, value, pe);                                           \
    }
DMSG_SHMEM_OLD_AMO_TYPES(DEF_OLD_AMO)
DMSG_SHMEM_OLD_AMO_TYPES(DEF_OLD_AMO_EXT)
DEF_OLD_AMO_EXT(float, float)
DEF_OLD_AMO_EXT(double, double)

long shmem_swap(long *dest, long value, int pe)
{
    return shmem_long_atomic_swap(dest, value, pe);
}
