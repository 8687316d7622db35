/* Collectives on teams for every type (broadcast, collect, fcollect,
 * alltoall, alltoalls, every reduction), teams (world, shared,
 * split_strided, split_2d, translate, config, destroy), and the deprecated
 * active-set forms on the whole job and on a strided subset (barrier,
 * broadcast, collect, fcollect, alltoall(s), *_to_all). */
#include "shtest.h"
#include <string.h>

#define MAXP 16
static long psync[SHMEM_SYNC_SIZE];
static unsigned char s_src[8 * 16 * MAXP], s_dst[8 * 16 * MAXP];
static long s_pe_ptr_probe; /* a symmetric object for shmem_ptr */
/* Long vectors in static data and on the heap (dmsg's direct path on shm
 * from 32 KiB, 128 KiB for the movers): 20001 longs, not a multiple of the
 * PE count. */
#define LN 20001
static long l_src[LN], l_dst[LN], l_all[MAXP * 2500];
static long l_wrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE], l_psync[SHMEM_REDUCE_SYNC_SIZE];

static long lval(int pe, int i)
{
    return (long)pe * 1000003L + i * 7L - 5000;
}

static void long_vectors(int me, int npes)
{
    long *h_src = shmem_malloc(LN * sizeof(long)), *h_dst = shmem_malloc(LN * sizeof(long));
    CHECK(h_src && h_dst);
    for (int i = 0; i < LN; i++)
        l_src[i] = h_src[i] = lval(me, i);
    long tri = (long)npes * (npes - 1) / 2;
    /* static source and dest, heap source and dest, static in place */
    CHECK(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, l_dst, l_src, LN) == 0);
    CHECK(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, h_dst, h_src, LN) == 0);
    for (int i = 0; i < LN; i++)
        CHECK(l_dst[i] == tri * 1000003L + npes * (i * 7L - 5000) && h_dst[i] == l_dst[i]);
    CHECK(shmem_long_max_reduce(SHMEM_TEAM_WORLD, l_src, l_src, LN) == 0);
    for (int i = 0; i < LN; i++)
        CHECK(l_src[i] == lval(npes - 1, i));
    /* the 1.4 form on the whole job, static source, heap dest */
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        l_psync[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < LN; i++)
        l_src[i] = lval(me, i);
    shmem_barrier_all();
    shmem_long_sum_to_all(h_dst, l_src, LN, 0, 0, npes, l_wrk, l_psync);
    for (int i = 0; i < LN; i++)
        CHECK(h_dst[i] == l_dst[i]);
    /* a broadcast of 160 KB from static data, and an fcollect into it */
    CHECK(shmem_long_broadcast(SHMEM_TEAM_WORLD, l_dst, l_src, LN, npes - 1) == 0);
    for (int i = 0; i < LN; i++)
        CHECK(l_dst[i] == lval(npes - 1, i));
    CHECK(shmem_long_fcollect(SHMEM_TEAM_WORLD, l_all, l_src, 2500) == 0);
    for (int p = 0; p < npes; p++)
        for (int i = 0; i < 2500; i++)
            CHECK(l_all[p * 2500 + i] == lval(p, i));
    shmem_barrier_all();
    shmem_free(h_dst);
    shmem_free(h_src);
}

#define COLL(T, N)                                                                                 \
    {                                                                                              \
        T *src = (T *)s_src, *dst = (T *)s_dst;                                                    \
        for (int i = 0; i < 4 * npes; i++)                                                         \
            src[i] = (T)(me * 10 + i % 10);                                                        \
        memset(s_dst, 0, sizeof s_dst);                                                            \
        CHECK(shmem_##N##_broadcast(SHMEM_TEAM_WORLD, dst, src, 3, npes - 1) == 0);                \
        CHECK(dst[2] == (T)((npes - 1) * 10 + 2));                                                 \
        CHECK(shmem_##N##_fcollect(SHMEM_TEAM_WORLD, dst, src, 2) == 0);                           \
        CHECK(dst[2 * (npes - 1) + 1] == (T)((npes - 1) * 10 + 1));                                \
        CHECK(shmem_##N##_collect(SHMEM_TEAM_WORLD, dst, src, (size_t)me % 2 + 1) == 0);           \
        CHECK(dst[0] == (T)0 && (npes < 2 || dst[1] == (T)10));                                    \
        CHECK(shmem_##N##_alltoall(SHMEM_TEAM_WORLD, dst, src, 2) == 0);                           \
        CHECK(dst[2 * (npes - 1)] == (T)((npes - 1) * 10 + (2 * me) % 10));                        \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_##N##_alltoalls(SHMEM_TEAM_WORLD, dst, src, 2, 1, 1) == 0);                    \
        CHECK(dst[2 * (npes - 1)] == (T)((npes - 1) * 10 + me % 10));                              \
        shmem_barrier_all();                                                                       \
    }

#define RED_ARITH(T, N)                                                                            \
    {                                                                                              \
        T s = (T)(me + 1), d = 0;                                                                  \
        CHECK(shmem_##N##_sum_reduce(SHMEM_TEAM_WORLD, &d, &s, 1) == 0 &&                          \
              d == (T)(npes * (npes + 1) / 2));                                                    \
        CHECK(shmem_##N##_prod_reduce(SHMEM_TEAM_WORLD, &d, &s, 1) == 0 && d == (T)fact);          \
    }
#define RED_CMP(T, N)                                                                              \
    {                                                                                              \
        T s = (T)(me + 1), d = 0;                                                                  \
        CHECK(shmem_##N##_max_reduce(SHMEM_TEAM_WORLD, &d, &s, 1) == 0 && d == (T)npes);           \
        CHECK(shmem_##N##_min_reduce(SHMEM_TEAM_WORLD, &d, &s, 1) == 0 && d == (T)1);              \
    }
#define RED_BIT(T, N)                                                                              \
    {                                                                                              \
        T s = (T)((T)1 << me), d = 0;                                                              \
        CHECK(shmem_##N##_or_reduce(SHMEM_TEAM_WORLD, &d, &s, 1) == 0 &&                           \
              d == (T)((1u << npes) - 1));                                                         \
        CHECK(shmem_##N##_xor_reduce(SHMEM_TEAM_WORLD, &d, &s, 1) == 0 &&                          \
              d == (T)((1u << npes) - 1));                                                         \
        CHECK(shmem_##N##_and_reduce(SHMEM_TEAM_WORLD, &d, &s, 1) == 0 && d == (T)(npes == 1));    \
    }
/* The deprecated reductions: on the subset (members only), then on all. */
#define TOALL(T, N, OP, SETVAL, ALLOP, ALLVAL)                                                     \
    {                                                                                              \
        static T s, d, w[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 1];                                       \
        s = (T)(strcmp(#OP, "or") ? me + 1 : 1L << me);                                            \
        if (in_set) {                                                                              \
            shmem_##N##_##OP##_to_all(&d, &s, 1, a_start, a_log, a_size, w, psync);                \
            CHECK(d == (T)(SETVAL));                                                               \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        s = (T)(strcmp(#ALLOP, "xor") ? me + 1 : 1L << me);                                        \
        shmem_##N##_##ALLOP##_to_all(&d, &s, 1, 0, 0, npes, w, psync);                             \
        CHECK(d == (T)(ALLVAL));                                                                   \
        shmem_barrier_all();                                                                       \
    }
#define TOALL_ARITH(T, N) TOALL(T, N, sum, a_sum, prod, fact)
#define TOALL_CMP(T, N) TOALL(T, N, max, a_max, min, 1)
#define TOALL_BIT(T, N) TOALL(T, N, or, a_or, xor, (1L << npes) - 1)

int main(void)
{
    sht_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes > MAXP)
        return 1;
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    long fact = 1;
    for (int i = 2; i <= npes; i++)
        fact *= i;
    DMSG_SHMEM_RMA_TYPES(COLL)
    DMSG_SHMEM_RED_ARITH_TYPES(RED_ARITH)
    DMSG_SHMEM_RED_CMP_TYPES(RED_CMP)
    DMSG_SHMEM_RED_BIT_TYPES(RED_BIT)
    long_vectors(me, npes);
    /* the generic forms */
    int gi = me, go = -1;
    CHECK(shmem_max_reduce(SHMEM_TEAM_WORLD, &go, &gi, 1) == 0 && go == npes - 1);
    CHECK(shmem_broadcast(SHMEM_TEAM_WORLD, &go, &gi, 1, 0) == 0 && go == 0);

    /* the active set for the deprecated forms: PEs 1, 3, 5, ... (or all of 1 PE) */
    int a_start = npes > 1 ? 1 : 0, a_log = npes > 1 ? 1 : 0, a_size = npes > 1 ? npes / 2 : 1;
    int in_set = me >= a_start && (me - a_start) % (1 << a_log) == 0 &&
                 (me - a_start) / (1 << a_log) < a_size;
    long a_sum = 0, a_max = 0, a_or = 0;
    for (int i = 0; i < a_size; i++) {
        int p = a_start + i * (1 << a_log);
        a_sum += p + 1;
        a_max = p + 1;
        a_or |= 1L << p;
    }
    DMSG_SHMEM_TOALL_ARITH_TYPES(TOALL_ARITH)
    DMSG_SHMEM_TOALL_CMP_TYPES(TOALL_CMP)
    DMSG_SHMEM_TOALL_BIT_TYPES(TOALL_BIT)

    /* the other active-set collectives, on the subset and on all */
    static long src64[MAXP * 2], dst64[MAXP * 2];
    static int src32[MAXP * 2], dst32[MAXP * 2];
    for (int i = 0; i < 2 * MAXP; i++) {
        src64[i] = me * 100 + i;
        src32[i] = me * 100 + i;
        dst64[i] = dst32[i] = -1;
    }
    shmem_barrier_all();
    if (in_set) {
        shmem_barrier(a_start, a_log, a_size, psync);
        shmem_broadcast64(dst64, src64, 2, 0, a_start, a_log, a_size, psync);
        if (me != a_start)
            CHECK(dst64[1] == a_start * 100 + 1);
        else
            CHECK(dst64[1] == -1); /* 1.4: not on the root */
        shmem_fcollect32(dst32, src32, 1, a_start, a_log, a_size, psync);
        CHECK(dst32[a_size - 1] == (a_start + (a_size - 1) * (1 << a_log)) * 100);
        shmem_collect64(dst64, src64, 1, a_start, a_log, a_size, psync);
        CHECK(dst64[0] == a_start * 100);
        shmem_alltoall64(dst64, src64, 1, a_start, a_log, a_size, psync);
        CHECK(dst64[0] == a_start * 100 + (me - a_start) / (1 << a_log));
        shmem_alltoalls32(dst32, src32, 1, 2, 1, a_start, a_log, a_size, psync);
        CHECK(dst32[0] == a_start * 100 + 2 * ((me - a_start) / (1 << a_log)));
        shmem_sync(a_start, a_log, a_size, psync);
    }
    shmem_barrier_all();
    shmem_broadcast32(dst32, src32, 3, npes - 1, 0, 0, npes, psync);
    if (me != npes - 1)
        CHECK(dst32[2] == (npes - 1) * 100 + 2);
    shmem_collect32(dst32, src32, (size_t)(me % 2 + 1), 0, 0, npes, psync);
    CHECK(dst32[0] == 0);
    shmem_fcollect64(dst64, src64, 1, 0, 0, npes, psync);
    CHECK(dst64[npes - 1] == (npes - 1) * 100);
    shmem_alltoall32(dst32, src32, 1, 0, 0, npes, psync);
    CHECK(dst32[npes - 1] == (npes - 1) * 100 + me);
    shmem_barrier(0, 0, npes, psync);

    /* teams */
    shmem_team_t evens, xt, yt;
    shmem_team_config_t cfg = {.num_contexts = 2}, got;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, &cfg,
                                   SHMEM_TEAM_NUM_CONTEXTS, &evens) == 0);
    if (me % 2 == 0) {
        CHECK(evens != SHMEM_TEAM_INVALID && shmem_team_my_pe(evens) == me / 2);
        CHECK(shmem_team_n_pes(evens) == (npes + 1) / 2);
        CHECK(shmem_team_translate_pe(evens, 1, SHMEM_TEAM_WORLD) == (npes > 2 ? 2 : -1));
        CHECK(shmem_team_get_config(evens, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0 &&
              got.num_contexts == 2);
        long one = 1, sum = 0;
        CHECK(shmem_long_sum_reduce(evens, &sum, &one, 1) == 0 && sum == (npes + 1) / 2);
        CHECK(shmem_team_sync(evens) == 0);
        shmem_sync(evens);
        shmem_team_destroy(evens);
    } else {
        CHECK(evens == SHMEM_TEAM_INVALID && shmem_team_my_pe(evens) == -1);
    }
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &xt, NULL, 0, &yt) == 0);
    CHECK(shmem_team_my_pe(xt) == me % 2 && shmem_team_my_pe(yt) == me / 2);
    CHECK(shmem_team_translate_pe(yt, 0, SHMEM_TEAM_WORLD) == me % 2);
    shmem_team_destroy(xt);
    shmem_team_destroy(yt);
    /* The shared team is the PEs shmem_ptr reaches (tests/shmem/ptr.c
     * checks which they are per transport). */
    int reached = 0;
    for (int p = 0; p < npes; p++)
        reached += shmem_ptr(&s_pe_ptr_probe, p) != NULL;
    CHECK(shmem_team_n_pes(SHMEM_TEAM_SHARED) == reached);
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, npes - 1, SHMEM_TEAM_WORLD) == npes - 1);
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes + 1, NULL, 0, &xt) != 0 &&
          xt == SHMEM_TEAM_INVALID);
    /* A full team table fails a split on every PE, also those outside the
     * would-be team, and a split works again after a destroy. */
    shmem_team_t fill[64];
    int made = 0;
    while (made < 64 &&
           shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &fill[made]) == 0)
        made++;
    CHECK(made > 0 && made < 64);
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, NULL, 0, &xt) != 0 &&
          xt == SHMEM_TEAM_INVALID);
    shmem_team_destroy(fill[--made]);
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, NULL, 0, &xt) == 0);
    CHECK((xt != SHMEM_TEAM_INVALID) == (me == 0));
    if (xt != SHMEM_TEAM_INVALID)
        shmem_team_destroy(xt);
    while (made > 0)
        shmem_team_destroy(fill[--made]);
    shmem_barrier_all();
    return sht_end("coll");
}
