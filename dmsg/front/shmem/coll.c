/* OpenSHMEM collectives on teams: dmsg's collectives (dmsg_bcast,
 * dmsg_allgather(v), dmsg_alltoall, dmsg_allreduce) and dmsg_sync. Static
 * data goes to them by its segment address (dmsg_shmem_sym), the same
 * memory, so that their direct path on shm sees it as symmetric. */
#include <stdlib.h>
#include <string.h>
#include "dmsg/front/shmem/shmem_impl.h"

void shmem_barrier_all(void)
{
    dmsg_shmem_need_init(__func__);
    dmsg_shmem_coll_enter(__func__, DMSG_TEAM_WORLD, NULL);
    int st = dmsg_sync();
    dmsg_shmem_coll_leave();
    if (st)
        dmsg_shmem_die(__func__, st, NULL);
}

void shmem_sync_all(void)
{
    dmsg_shmem_need_init(__func__);
    dmsg_shmem_coll_enter(__func__, DMSG_TEAM_WORLD, NULL);
    int st = dmsg_sync();
    dmsg_shmem_coll_leave();
    if (st)
        dmsg_shmem_die(__func__, st, NULL);
}

/* A dmsg status of a collective as the specification's return value; a
 * failure in the waits leaves the PEs out of step, so it ends the job. */
static int ret(const char *call, int st)
{
    dmsg_shmem_coll_leave(); /* entered by coll_team (SHMEM_THREAD_MULTIPLE) */
    if (st == DMSG_ERR_TIMEOUT || st == DMSG_ERR_ABORTED || st == DMSG_ERR_TRANSPORT)
        dmsg_shmem_die(call, st, NULL);
    return st ? -1 : 0;
}

/* The dmsg team of a collective's handle, the collective entered (thr.c);
 * ret() leaves it. */
static dmsg_team coll_team(shmem_team_t team, const char *call)
{
    dmsg_team t = dmsg_shmem_team_of(team, call);
    if (t)
        dmsg_shmem_coll_enter(call, t, NULL);
    return t;
}

static int bcast(const char *call, shmem_team_t team, void *dest, const void *src, size_t bytes,
                 int root)
{
    dmsg_team t = coll_team(team, call);
    if (!t)
        return -1;
    return ret(call, dmsg_bcast(t, dmsg_shmem_sym(dest), dmsg_shmem_sym(src), bytes, root));
}

static int collect(const char *call, shmem_team_t team, void *dest, const void *src, size_t bytes)
{
    dmsg_team t = coll_team(team, call);
    if (!t)
        return -1;
    int n = dmsg_team_npes(t);
    if (n < 0)
        return ret(call, n);
    size_t *cnt = malloc(2 * (size_t)n * sizeof *cnt);
    if (!cnt)
        dmsg_shmem_die(call, DMSG_ERR_NOMEM, NULL);
    size_t *dis = cnt + n;
    int st = dmsg_allgather(t, cnt, &bytes, sizeof bytes);
    if (!st) {
        size_t off = 0;
        for (int i = 0; i < n; i++) {
            dis[i] = off;
            off += cnt[i];
        }
        st = dmsg_allgatherv(t, dest, cnt, dis, src, bytes);
    }
    free(cnt);
    return ret(call, st);
}

static int fcollect(const char *call, shmem_team_t team, void *dest, const void *src, size_t bytes)
{
    dmsg_team t = coll_team(team, call);
    if (!t)
        return -1;
    return ret(call, dmsg_allgather(t, dest, dmsg_shmem_sym(src), bytes));
}

static int alltoall(const char *call, shmem_team_t team, void *dest, const void *src, size_t bytes)
{
    dmsg_team t = coll_team(team, call);
    if (!t)
        return -1;
    return ret(call, dmsg_alltoall(t, dest, dmsg_shmem_sym(src), bytes));
}

/* Strided all-to-all: pack the blocks, exchange them, unpack. */
static int alltoalls(const char *call, shmem_team_t team, void *dest, const void *src,
                     ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t size)
{
    if (dst == 1 && sst == 1)
        return alltoall(call, team, dest, src, nelems * size);
    dmsg_team t = coll_team(team, call);
    if (!t)
        return -1;
    int n = dmsg_team_npes(t);
    if (n < 0 || dst < 1 || sst < 1)
        return ret(call, DMSG_ERR_ARG);
    size_t m = (size_t)n * nelems;
    unsigned char *tmp = malloc(2 * m * size + 1), *in = tmp + m * size;
    if (!tmp)
        dmsg_shmem_die(call, DMSG_ERR_NOMEM, NULL);
    for (size_t i = 0; i < m; i++)
        memcpy(tmp + i * size, (const unsigned char *)src + i * (size_t)sst * size, size);
    int st = dmsg_alltoall(t, in, tmp, nelems * size);
    if (!st)
        for (size_t i = 0; i < m; i++)
            memcpy((unsigned char *)dest + i * (size_t)dst * size, in + i * size, size);
    free(tmp);
    return ret(call, st);
}

#define DEF_COLL(T, N)                                                                             \
    int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems,          \
                              int PE_root)                                                         \
    {                                                                                              \
        return bcast(__func__, team, dest, source, nelems * sizeof(T), PE_root);                   \
    }                                                                                              \
    int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems)            \
    {                                                                                              \
        return collect(__func__, team, dest, source, nelems * sizeof(T));                          \
    }                                                                                              \
    int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems)           \
    {                                                                                              \
        return fcollect(__func__, team, dest, source, nelems * sizeof(T));                         \
    }                                                                                              \
    int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems)           \
    {                                                                                              \
        return alltoall(__func__, team, dest, source, nelems * sizeof(T));                         \
    }                                                                                              \
    int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst,          \
                              ptrdiff_t sst, size_t nelems)                                        \
    {                                                                                              \
        return alltoalls(__func__, team, dest, source, dst, sst, nelems, sizeof(T));               \
    }
DMSG_SHMEM_RMA_TYPES(DEF_COLL)

int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                       int PE_root)
{
    return bcast(__func__, team, dest, source, nelems, PE_root);
}

int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return collect(__func__, team, dest, source, nelems);
}

int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return fcollect(__func__, team, dest, source, nelems);
}

int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return alltoall(__func__, team, dest, source, nelems);
}

int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems)
{
    return alltoalls(__func__, team, dest, source, dst, sst, nelems, 1);
}

static int reduce(const char *call, shmem_team_t team, void *dest, const void *src, size_t n,
                  dmsg_type ty, dmsg_redop op)
{
    dmsg_team t = coll_team(team, call);
    if (!t)
        return -1;
    /* Static data by its segment address: the same memory, which dmsg's
     * direct path (peers' buffers read and written in place) recognizes as
     * symmetric. */
    return ret(call, dmsg_allreduce(t, dmsg_shmem_sym(dest), dmsg_shmem_sym(src), n, ty, op));
}

#define DEF_RED(T, N, OP, DOP)                                                                     \
    int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce)     \
    {                                                                                              \
        return reduce(__func__, team, dest, source, nreduce, DMSG_SHMEM_DT_##N, DOP);              \
    }
#define DEF_RED_BIT(T, N)                                                                          \
    DEF_RED(T, N, and, DMSG_OP_AND) DEF_RED(T, N, or, DMSG_OP_OR) DEF_RED(T, N, xor, DMSG_OP_XOR)
#define DEF_RED_CMP(T, N) DEF_RED(T, N, max, DMSG_OP_MAX) DEF_RED(T, N, min, DMSG_OP_MIN)
#define DEF_RED_ARITH(T, N) DEF_RED(T, N, sum, DMSG_OP_SUM) DEF_RED(T, N, prod, DMSG_OP_PROD)
DMSG_SHMEM_RED_BIT_TYPES(DEF_RED_BIT)
DMSG_SHMEM_RED_CMP_TYPES(DEF_RED_CMP)
DMSG_SHMEM_RED_ARITH_TYPES(DEF_RED_ARITH)
