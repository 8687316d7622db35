/* The deprecated active-set collectives (OpenSHMEM 1.4): shmem_barrier,
 * shmem_broadcastN, collectN, fcollectN, alltoall(s)N and the *_to_all
 * reductions. On the whole job they are dmsg's collectives. On a smaller
 * set, whose members alone call them (so no dmsg team can be made), they
 * are fetches between barriers of the set: a dissemination barrier whose
 * counters are the words of pSync, changed by atomic adds, consumed by the
 * waiter, so that pSync is back at SHMEM_SYNC_VALUE when the set is done.
 * Under SHMEM_THREAD_MULTIPLE each is a collective of the set (from
 * aset_make to dmsg_shmem_coll_leave; thr.c). */
#include <complex.h>
#include <stdlib.h>
#include <string.h>
#include "dmsg/front/shmem/shmem_impl.h"

/* pSync words: [0, 64) barrier rounds, SIZE_WORD a member's element count. */
#define SIZE_WORD (SHMEM_SYNC_SIZE - 1)

static void aset_make(const char *call, dmsg_shmem_aset *a, int start, int logstride, int size)
{
    dmsg_shmem_need_init(call);
    int n = dmsg_npes(), me = dmsg_pe();
    if (logstride < 0 || logstride > 30 || size < 1 || start < 0)
        dmsg_shmem_die(call, 0, "bad active set (PE_start, logPE_stride, PE_size)");
    long stride = 1L << logstride;
    if (start + (long)(size - 1) * stride >= n)
        dmsg_shmem_die(call, DMSG_ERR_PE, "the active set has PEs past the last PE");
    a->start = start;
    a->stride = (int)stride;
    a->size = size;
    a->me = -1;
    if (me >= start && (me - start) % stride == 0 && (me - start) / stride < size)
        a->me = (int)((me - start) / stride);
    if (a->me < 0)
        dmsg_shmem_die(call, 0, "this PE is not in the active set");
    /* Every caller ends with dmsg_shmem_coll_leave (SHMEM_THREAD_MULTIPLE). */
    dmsg_shmem_coll_enter(call, DMSG_TEAM_WORLD, a);
}

static int aset_world(const dmsg_shmem_aset *a)
{
    return a->start == 0 && a->stride == 1 && a->size == dmsg_npes();
}

static int aset_pe(const dmsg_shmem_aset *a, int i)
{
    return a->start + i * a->stride;
}

static void aset_barrier(const char *call, const dmsg_shmem_aset *a, long *pSync)
{
    int st = dmsg_quiet();
    long *ps = dmsg_shmem_sym(pSync);
    int64_t one = 1, minus = -1, zero = 0;
    for (int k = 0, d = 1; !st && d < a->size; k++, d <<= 1) {
        int to = aset_pe(a, (a->me + d) % a->size);
        st = dmsg_atomic(&ps[k], DMSG_AMO_ADD, DMSG_TYPE_INT64, &one, NULL, NULL, to);
        if (!st)
            st = dmsg_wait_until(&ps[k], DMSG_TYPE_INT64, DMSG_CMP_GT, &zero);
        if (!st)
            st = dmsg_atomic(&ps[k], DMSG_AMO_ADD, DMSG_TYPE_INT64, &minus, NULL, NULL, dmsg_pe());
    }
    if (st)
        dmsg_shmem_die(call, st, NULL);
}

static void fetch(const char *call, void *dst, const void *src, size_t bytes, int pe)
{
    int st = bytes ? dmsg_fetch(dst, dmsg_shmem_sym(src), bytes, pe) : DMSG_OK;
    if (st)
        dmsg_shmem_die(call, st, NULL);
}

static void world_st(const char *call, int st)
{
    if (st)
        dmsg_shmem_die(call, st, NULL);
}

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    dmsg_shmem_aset a;
    aset_make(__func__, &a, PE_start, logPE_stride, PE_size);
    if (aset_world(&a))
        world_st(__func__, dmsg_sync());
    else
        aset_barrier(__func__, &a, pSync);
    dmsg_shmem_coll_leave();
}

void(shmem_sync)(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    shmem_barrier(PE_start, logPE_stride, PE_size, pSync);
}

static void bcast(const char *call, void *dest, const void *src, size_t bytes, int root, int start,
                  int logstride, int size, long *pSync)
{
    dmsg_shmem_aset a;
    aset_make(call, &a, start, logstride, size);
    if (root < 0 || root >= size)
        dmsg_shmem_die(call, DMSG_ERR_PE, "PE_root is not in the active set");
    if (aset_world(&a)) {
        /* 1.4: the root's dest is left alone (in place on the root). */
        int r = a.me == root;
        const void *s = dmsg_shmem_sym(src); /* static data: the direct path sees it symmetric */
        world_st(call,
                 dmsg_bcast(DMSG_TEAM_WORLD, r ? (void *)(uintptr_t)s : dest, s, bytes, root));
    } else {
        aset_barrier(call, &a, pSync);
        if (a.me != root)
            fetch(call, dest, src, bytes, aset_pe(&a, root));
        aset_barrier(call, &a, pSync);
    }
    dmsg_shmem_coll_leave();
}

static void collect(const char *call, int fixed, void *dest, const void *src, size_t bytes,
                    int start, int logstride, int size, long *pSync)
{
    dmsg_shmem_aset a;
    aset_make(call, &a, start, logstride, size);
    if (aset_world(&a) && fixed) {
        world_st(call, dmsg_allgather(DMSG_TEAM_WORLD, dest, dmsg_shmem_sym(src), bytes));
        dmsg_shmem_coll_leave();
        return;
    }
    long *ps = pSync;
    if (!fixed)
        ps[SIZE_WORD] = (long)bytes;
    aset_barrier(call, &a, pSync);
    size_t off = 0;
    for (int i = 0; i < a.size; i++) {
        long b = (long)bytes;
        if (!fixed && i != a.me)
            fetch(call, &b, &ps[SIZE_WORD], sizeof b, aset_pe(&a, i));
        if (i == a.me)
            memcpy((char *)dest + off, src, bytes);
        else
            fetch(call, (char *)dest + off, src, (size_t)b, aset_pe(&a, i));
        off += (size_t)b;
    }
    aset_barrier(call, &a, pSync);
    if (!fixed)
        ps[SIZE_WORD] = SHMEM_SYNC_VALUE;
    dmsg_shmem_coll_leave();
}

static void alltoalls(const char *call, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                      size_t nelems, size_t size, int start, int logstride, int pes, long *pSync)
{
    dmsg_shmem_aset a;
    aset_make(call, &a, start, logstride, pes);
    if (aset_world(&a) && dst == 1 && sst == 1) {
        world_st(call, dmsg_alltoall(DMSG_TEAM_WORLD, dest, src, nelems * size));
        dmsg_shmem_coll_leave();
        return;
    }
    aset_barrier(call, &a, pSync);
    if (nelems) {
        /* From member i: its block for me, every sst-th element. */
        dmsg_layout dl = {.ndims = 1, .count = {nelems}, .stride = {dst * (ptrdiff_t)size}};
        dmsg_layout sl = {.ndims = 1, .count = {nelems}, .stride = {sst * (ptrdiff_t)size}};
        for (int i = 0; i < a.size; i++) {
            char *d = (char *)dest + (size_t)i * nelems * (size_t)dst * size;
            const char *s = (const char *)src + (size_t)a.me * nelems * (size_t)sst * size;
            int st = dmsg_fetch_section(d, &dl, dmsg_shmem_sym(s), &sl, size, aset_pe(&a, i));
            if (st)
                dmsg_shmem_die(call, st, NULL);
        }
    }
    aset_barrier(call, &a, pSync);
    dmsg_shmem_coll_leave();
}

#define DEF_ASET(B)                                                                                \
    void shmem_broadcast##B(void *dest, const void *source, size_t nelems, int PE_root,            \
                            int PE_start, int logPE_stride, int PE_size, long *pSync)              \
    {                                                                                              \
        bcast(__func__, dest, source, nelems * (B / 8), PE_root, PE_start, logPE_stride, PE_size,  \
              pSync);                                                                              \
    }                                                                                              \
    void shmem_collect##B(void *dest, const void *source, size_t nelems, int PE_start,             \
                          int logPE_stride, int PE_size, long *pSync)                              \
    {                                                                                              \
        collect(__func__, 0, dest, source, nelems * (B / 8), PE_start, logPE_stride, PE_size,      \
                pSync);                                                                            \
    }                                                                                              \
    void shmem_fcollect##B(void *dest, const void *source, size_t nelems, int PE_start,            \
                           int logPE_stride, int PE_size, long *pSync)                             \
    {                                                                                              \
        collect(__func__, 1, dest, source, nelems * (B / 8), PE_start, logPE_stride, PE_size,      \
                pSync);                                                                            \
    }                                                                                              \
    void shmem_alltoall##B(void *dest, const void *source, size_t nelems, int PE_start,            \
                           int logPE_stride, int PE_size, long *pSync)                             \
    {                                                                                              \
        alltoalls(__func__, dest, source, 1, 1, nelems, B / 8, PE_start, logPE_stride, PE_size,    \
                  pSync);                                                                          \
    }                                                                                              \
    void shmem_alltoalls##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,          \
                            size_t nelems, int PE_start, int logPE_stride, int PE_size,            \
                            long *pSync)                                                           \
    {                                                                                              \
        alltoalls(__func__, dest, source, dst, sst, nelems, B / 8, PE_start, logPE_stride,         \
                  PE_size, pSync);                                                                 \
    }
DEF_ASET(32)
DEF_ASET(64)

/* Reductions: the world runs dmsg_allreduce; a smaller set fetches every
 * member's source in set order, combines, and writes dest after the last
 * barrier (dest may be source). */
static void *gather_all(const char *call, const dmsg_shmem_aset *a, const void *src, size_t bytes,
                        long *pSync)
{
    char *all = malloc(bytes * (size_t)a->size + 1);
    if (!all)
        dmsg_shmem_die(call, DMSG_ERR_NOMEM, NULL);
    aset_barrier(call, a, pSync);
    for (int i = 0; i < a->size; i++) {
        if (i == a->me)
            memcpy(all + (size_t)i * bytes, src, bytes);
        else
            fetch(call, all + (size_t)i * bytes, src, bytes, aset_pe(a, i));
    }
    aset_barrier(call, a, pSync);
    return all;
}

#define OP_and(x, y) ((x) & (y))
#define OP_or(x, y) ((x) | (y))
#define OP_xor(x, y) ((x) ^ (y))
#define OP_max(x, y) ((x) > (y) ? (x) : (y))
#define OP_min(x, y) ((x) < (y) ? (x) : (y))
#define OP_sum(x, y) ((x) + (y))
#define OP_prod(x, y) ((x) * (y))

#define DEF_TOALL(T, N, OP, DOP)                                                                   \
    void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start,            \
                                   int logPE_stride, int PE_size, T *pWrk, long *pSync)            \
    {                                                                                              \
        dmsg_shmem_aset a;                                                                         \
        aset_make(__func__, &a, PE_start, logPE_stride, PE_size);                                  \
        if (nreduce < 0)                                                                           \
            dmsg_shmem_die(__func__, 0, "nreduce is negative");                                    \
        size_t n = (size_t)nreduce;                                                                \
        if (aset_world(&a)) {                                                                      \
            world_st(__func__,                                                                     \
                     dmsg_allreduce(DMSG_TEAM_WORLD, dmsg_shmem_sym(dest), dmsg_shmem_sym(source), \
                                    n, DMSG_SHMEM_DT_##N, DOP));                                   \
            dmsg_shmem_coll_leave();                                                               \
            return;                                                                                \
        }                                                                                          \
        T *all = gather_all(__func__, &a, source, n * sizeof(T), pSync);                           \
        dmsg_shmem_coll_leave();                                                                   \
        for (int i = 1; i < a.size; i++)                                                           \
            for (size_t j = 0; j < n; j++)                                                         \
                all[j] = OP_##OP(all[j], all[(size_t)i * n + j]);                                  \
        memcpy(dest, all, n * sizeof(T));                                                          \
        free(all);                                                                                 \
    }
#define DEF_TOALL_BIT(T, N)                                                                        \
    DEF_TOALL(T, N, and, DMSG_OP_AND) DEF_TOALL(T, N, or, DMSG_OP_OR)                              \
    DEF_TOALL(T, N, xor, DMSG_OP_XOR)
#define DEF_TOALL_CMP(T, N) DEF_TOALL(T, N, max, DMSG_OP_MAX) DEF_TOALL(T, N, min, DMSG_OP_MIN)
#define DEF_TOALL_ARITH(T, N) DEF_TOALL(T, N, sum, DMSG_OP_SUM) DEF_TOALL(T, N, prod, DMSG_OP_PROD)
DMSG_SHMEM_TOALL_BIT_TYPES(DEF_TOALL_BIT)
DMSG_SHMEM_TOALL_CMP_TYPES(DEF_TOALL_CMP)
DMSG_SHMEM_TOALL_ARITH_TYPES(DEF_TOALL_ARITH)
