/* OpenSHMEM RMA: puts are dmsg deposits, gets dmsg fetches (shmem.h, "RMA").
 * A put returns when its source may be reused (dmsg_deposit), so the _nbi
 * forms are the blocking ones; a get returns with its data, so get_nbi is
 * complete at once, earlier than shmem_quiet requires. Each call holds the
 * PE's lock under SHMEM_THREAD_MULTIPLE (thr.c). */
#include "dmsg/front/shmem/shmem_impl.h"

static inline int pe_of(shmem_ctx_t ctx, int pe, const char *call)
{
    return ctx == SHMEM_CTX_DEFAULT ? pe : dmsg_shmem_ctx_pe(ctx, pe, call);
}

static void put_bytes(const char *call, shmem_ctx_t ctx, void *dest, const void *src, size_t bytes,
                      int pe)
{
    dmsg_shmem_lock();
    int p = pe_of(ctx, pe, call);
    int st = bytes ? dmsg_deposit(dmsg_shmem_sym(dest), src, bytes, p, DMSG_CTR_NONE) : DMSG_OK;
    dmsg_shmem_unlock();
    if (st)
        dmsg_shmem_die(call, st, NULL);
}

static void get_bytes(const char *call, shmem_ctx_t ctx, void *dest, const void *src, size_t bytes,
                      int pe)
{
    dmsg_shmem_lock();
    int p = pe_of(ctx, pe, call);
    int st = bytes ? dmsg_fetch(dest, dmsg_shmem_sym(src), bytes, p) : DMSG_OK;
    dmsg_shmem_unlock();
    if (st)
        dmsg_shmem_die(call, st, NULL);
}

static void strided(const char *call, shmem_ctx_t ctx, int put, void *dest, const void *src,
                    ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t size, int pe)
{
    dmsg_layout dl = {.ndims = 1, .count = {nelems}, .stride = {dst * (ptrdiff_t)size}};
    dmsg_layout sl = {.ndims = 1, .count = {nelems}, .stride = {sst * (ptrdiff_t)size}};
    dmsg_shmem_lock();
    int p = pe_of(ctx, pe, call), st = DMSG_OK;
    if (nelems)
        st = put ? dmsg_deposit_section(dmsg_shmem_sym(dest), &dl, src, &sl, size, p, DMSG_CTR_NONE)
                 : dmsg_fetch_section(dest, &dl, dmsg_shmem_sym(src), &sl, size, p);
    dmsg_shmem_unlock();
    if (st)
        dmsg_shmem_die(call, st, NULL);
}

static void put_signal(const char *call, shmem_ctx_t ctx, void *dest, const void *src, size_t bytes,
                       uint64_t *sig, uint64_t signal, int sig_op, int pe)
{
    dmsg_shmem_lock();
    int p = pe_of(ctx, pe, call);
    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
        dmsg_shmem_die(call, 0, "sig_op is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD");
    dmsg_sig_op op = sig_op == SHMEM_SIGNAL_SET ? DMSG_SIG_SET : DMSG_SIG_ADD;
    int st = bytes ? dmsg_deposit_signal(dmsg_shmem_sym(dest), src, bytes, p, DMSG_CTR_NONE,
                                         dmsg_shmem_sym(sig), signal, op)
                   : dmsg_signal(dmsg_shmem_sym(sig), signal, op, p);
    dmsg_shmem_unlock();
    if (st)
        dmsg_shmem_die(call, st, NULL);
}

#define DEF_RMA(T, N)                                                                              \
    void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe)     \
    {                                                                                              \
        put_bytes(__func__, ctx, dest, source, nelems * sizeof(T), pe);                            \
    }                                                                                              \
    void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe)                          \
    {                                                                                              \
        put_bytes(__func__, SHMEM_CTX_DEFAULT, dest, source, nelems * sizeof(T), pe);              \
    }                                                                                              \
    void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) \
    {                                                                                              \
        put_bytes(__func__, ctx, dest, source, nelems * sizeof(T), pe);                            \
    }                                                                                              \
    void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe)                      \
    {                                                                                              \
        put_bytes(__func__, SHMEM_CTX_DEFAULT, dest, source, nelems * sizeof(T), pe);              \
    }                                                                                              \
    void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe)     \
    {                                                                                              \
        get_bytes(__func__, ctx, dest, source, nelems * sizeof(T), pe);                            \
    }                                                                                              \
    void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe)                          \
    {                                                                                              \
        get_bytes(__func__, SHMEM_CTX_DEFAULT, dest, source, nelems * sizeof(T), pe);              \
    }                                                                                              \
    void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) \
    {                                                                                              \
        get_bytes(__func__, ctx, dest, source, nelems * sizeof(T), pe);                            \
    }                                                                                              \
    void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe)                      \
    {                                                                                              \
        get_bytes(__func__, SHMEM_CTX_DEFAULT, dest, source, nelems * sizeof(T), pe);              \
    }                                                                                              \
    void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe)                              \
    {                                                                                              \
        put_bytes(__func__, ctx, dest, &value, sizeof(T), pe);                                     \
    }                                                                                              \
    void shmem_##N##_p(T *dest, T value, int pe)                                                   \
    {                                                                                              \
        put_bytes(__func__, SHMEM_CTX_DEFAULT, dest, &value, sizeof(T), pe);                       \
    }                                                                                              \
    T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe)                                  \
    {                                                                                              \
        T v;                                                                                       \
        get_bytes(__func__, ctx, &v, source, sizeof(T), pe);                                      \
        return v;                                                                                  \
    }                                                                                              \
    T shmem_##N##_g(const T *source, int pe)                                                       \
    {                                                                                              \
        T v;                                                                                       \
        get_bytes(__func__, SHMEM_CTX_DEFAULT, &v, source, sizeof(T), pe);                         \
        return v;                                                                                  \
    }                                                                                              \
    void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,            \
                              ptrdiff_t sst, size_t nelems, int pe)                                \
    {                                                                                              \
        strided(__func__, ctx, 1, dest, source, dst, sst, nelems, sizeof(T), pe);                  \
    }                                                                                              \
    void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,   \
                          int pe)                                                                  \
    {                                                                                              \
        strided(__func__, SHMEM_CTX_DEFAULT, 1, dest, source, dst, sst, nelems, sizeof(T), pe);    \
    }                                                                                              \
    void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,            \
                              ptrdiff_t sst, size_t nelems, int pe)                                \
    {                                                                                              \
        strided(__func__, ctx, 0, dest, source, dst, sst, nelems, sizeof(T), pe);                  \
    }                                                                                              \
    void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,   \
                          int pe)                                                                  \
    {                                                                                              \
        strided(__func__, SHMEM_CTX_DEFAULT, 0, dest, source, dst, sst, nelems, sizeof(T), pe);    \
    }                                                                                              \
    void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,      \
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)       \
    {                                                                                              \
        put_signal(__func__, ctx, dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, pe); \
    }                                                                                              \
    void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,       \
                                uint64_t signal, int sig_op, int pe)                               \
    {                                                                                              \
        put_signal(__func__, SHMEM_CTX_DEFAULT, dest, source, nelems * sizeof(T), sig_addr,        \
                   signal, sig_op, pe);                                                            \
    }                                                                                              \
    void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,  \
                                        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)   \
    {                                                                                              \
        put_signal(__func__, ctx, dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, pe); \
    }                                                                                              \
    void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,   \
                                    uint64_t signal, int sig_op, int pe)                           \
    {                                                                                              \
        put_signal(__func__, SHMEM_CTX_DEFAULT, dest, source, nelems * sizeof(T), sig_addr,        \
                   signal, sig_op, pe);                                                            \
    }
DMSG_SHMEM_RMA_TYPES(DEF_RMA)

/* putmem and put8..put128: element bytes E (1 for mem). */
#define DEF_SIZED(B, E)                                                                            \
    void shmem_ctx_put##B(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)  \
    {                                                                                              \
        put_bytes(__func__, ctx, dest, source, nelems * (E), pe);                                  \
    }                                                                                              \
    void shmem_put##B(void *dest, const void *source, size_t nelems, int pe)                       \
    {                                                                                              \
        put_bytes(__func__, SHMEM_CTX_DEFAULT, dest, source, nelems * (E), pe);                    \
    }                                                                                              \
    void shmem_ctx_put##B##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,    \
                                int pe)                                                            \
    {                                                                                              \
        put_bytes(__func__, ctx, dest, source, nelems * (E), pe);                                  \
    }                                                                                              \
    void shmem_put##B##_nbi(void *dest, const void *source, size_t nelems, int pe)                 \
    {                                                                                              \
        put_bytes(__func__, SHMEM_CTX_DEFAULT, dest, source, nelems * (E), pe);                    \
    }                                                                                              \
    void shmem_ctx_get##B(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)  \
    {                                                                                              \
        get_bytes(__func__, ctx, dest, source, nelems * (E), pe);                                  \
    }                                                                                              \
    void shmem_get##B(void *dest, const void *source, size_t nelems, int pe)                       \
    {                                                                                              \
        get_bytes(__func__, SHMEM_CTX_DEFAULT, dest, source, nelems * (E), pe);                    \
    }                                                                                              \
    void shmem_ctx_get##B##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,    \
                                int pe)                                                            \
    {                                                                                              \
        get_bytes(__func__, ctx, dest, source, nelems * (E), pe);                                  \
    }                                                                                              \
    void shmem_get##B##_nbi(void *dest, const void *source, size_t nelems, int pe)                 \
    {                                                                                              \
        get_bytes(__func__, SHMEM_CTX_DEFAULT, dest, source, nelems * (E), pe);                    \
    }                                                                                              \
    void shmem_ctx_iput##B(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,         \
                           ptrdiff_t sst, size_t nelems, int pe)                                   \
    {                                                                                              \
        strided(__func__, ctx, 1, dest, source, dst, sst, nelems, (E), pe);                        \
    }                                                                                              \
    void shmem_iput##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,               \
                       size_t nelems, int pe)                                                      \
    {                                                                                              \
        strided(__func__, SHMEM_CTX_DEFAULT, 1, dest, source, dst, sst, nelems, (E), pe);          \
    }                                                                                              \
    void shmem_ctx_iget##B(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,         \
                           ptrdiff_t sst, size_t nelems, int pe)                                   \
    {                                                                                              \
        strided(__func__, ctx, 0, dest, source, dst, sst, nelems, (E), pe);                        \
    }                                                                                              \
    void shmem_iget##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,               \
                       size_t nelems, int pe)                                                      \
    {                                                                                              \
        strided(__func__, SHMEM_CTX_DEFAULT, 0, dest, source, dst, sst, nelems, (E), pe);          \
    }                                                                                              \
    void shmem_ctx_put##B##_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                                   uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)        \
    {                                                                                              \
        put_signal(__func__, ctx, dest, source, nelems * (E), sig_addr, signal, sig_op, pe);       \
    }                                                                                              \
    void shmem_put##B##_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,  \
                               uint64_t signal, int sig_op, int pe)                                \
    {                                                                                              \
        put_signal(__func__, SHMEM_CTX_DEFAULT, dest, source, nelems * (E), sig_addr, signal,      \
                   sig_op, pe);                                                                    \
    }                                                                                              \
    void shmem_ctx_put##B##_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source,            \
                                       size_t nelems, uint64_t *sig_addr, uint64_t signal,         \
                                       int sig_op, int pe)                                         \
    {                                                                                              \
        put_signal(__func__, ctx, dest, source, nelems * (E), sig_addr, signal, sig_op, pe);       \
    }                                                                                              \
    void shmem_put##B##_signal_nbi(void *dest, const void *source, size_t nelems,                  \
                                   uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)        \
    {                                                                                              \
        put_signal(__func__, SHMEM_CTX_DEFAULT, dest, source, nelems * (E), sig_addr, signal,      \
                   sig_op, pe);                                                                    \
    }
#define DEF_SIZED_BITS(B) DEF_SIZED(B, (B) / 8)
DMSG_SHMEM_SIZES(DEF_SIZED_BITS)
DEF_SIZED(mem, 1)
