/* Every atomic routine and type: standard (fetch, set, swap, compare_swap,
 * fetch_inc, inc, fetch_add, add), extended (float, double), bitwise, the
 * _nbi and context forms, the deprecated 1.3 names, and the C11 generic
 * forms; every PE updating PE 0's word at once sums right. Locks too. */
#include "shtest.h"

#define STD(T, N)                                                                                  \
    {                                                                                              \
        static T w;                                                                                \
        T f;                                                                                       \
        shmem_##N##_atomic_set(&w, (T)0, me);                                                      \
        shmem_barrier_all();                                                                       \
        shmem_##N##_atomic_add(&w, (T)(me + 1), 0);                                                \
        shmem_##N##_atomic_inc(&w, 0);                                                             \
        (void)shmem_##N##_atomic_fetch_add(&w, (T)1, 0);                                           \
        (void)shmem_##N##_atomic_fetch_inc(&w, 0);                                                 \
        shmem_##N##_atomic_fetch_add_nbi(&f, &w, (T)1, 0);                                         \
        shmem_##N##_atomic_fetch_inc_nbi(&f, &w, 0);                                               \
        shmem_quiet();                                                                             \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_##N##_atomic_fetch(&w, 0) == (T)(npes * (npes + 1) / 2 + 5 * npes));           \
        shmem_barrier_all();                                                                       \
        if (me == 0)                                                                               \
            shmem_##N##_atomic_set(&w, (T)7, 0);                                                   \
        shmem_barrier_all();                                                                       \
        /* exactly one PE's compare_swap wins */                                                   \
        static int won;                                                                            \
        won = 0;                                                                                   \
        shmem_barrier_all();                                                                       \
        if (shmem_##N##_atomic_compare_swap(&w, (T)7, (T)(100 + me), 0) == (T)7)                   \
            shmem_int_atomic_inc(&won, 0);                                                         \
        shmem_barrier_all();                                                                       \
        if (me == 0)                                                                               \
            CHECK(won == 1);                                                                       \
        shmem_##N##_atomic_compare_swap_nbi(&f, &w, (T)1, (T)2, 0);                                \
        shmem_quiet();                                                                             \
        CHECK(f >= (T)100);                                                                        \
        shmem_barrier_all();                                                                       \
    }

#define EXT(T, N)                                                                                  \
    {                                                                                              \
        static T x;                                                                                \
        T f;                                                                                       \
        shmem_ctx_##N##_atomic_set(SHMEM_CTX_DEFAULT, &x, (T)(me + 2), me);                        \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_##N##_atomic_fetch(&x, right) == (T)(right + 2));                              \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_##N##_atomic_swap(&x, (T)1, right) == (T)(right + 2));                         \
        shmem_##N##_atomic_swap_nbi(&f, &x, (T)3, right);                                          \
        shmem_##N##_atomic_fetch_nbi(&f, &x, right);                                               \
        shmem_quiet();                                                                             \
        CHECK(f == (T)3);                                                                          \
        shmem_barrier_all();                                                                       \
    }

#define BIT(T, N)                                                                                  \
    {                                                                                              \
        static T b;                                                                                \
        T f;                                                                                       \
        shmem_##N##_atomic_set(&b, (T)0, me);                                                      \
        shmem_barrier_all();                                                                       \
        shmem_##N##_atomic_or(&b, (T)1 << me, 0);                                                  \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_##N##_atomic_fetch(&b, 0) == (T)(((T)1 << npes) - 1));                         \
        shmem_barrier_all();                                                                       \
        shmem_##N##_atomic_and(&b, ~((T)1 << me), 0);                                              \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_##N##_atomic_fetch(&b, 0) == 0);                                               \
        shmem_barrier_all();                                                                       \
        shmem_##N##_atomic_xor(&b, (T)1 << me, 0);                                                 \
        (void)shmem_##N##_atomic_fetch_xor(&b, (T)1 << me, 0);                                     \
        (void)shmem_##N##_atomic_fetch_or(&b, (T)1 << me, 0);                                      \
        shmem_##N##_atomic_fetch_and_nbi(&f, &b, (T)-1, 0);                                        \
        shmem_##N##_atomic_fetch_or_nbi(&f, &b, (T)0, 0);                                          \
        shmem_##N##_atomic_fetch_xor_nbi(&f, &b, (T)0, 0);                                         \
        (void)shmem_##N##_atomic_fetch_and(&b, (T)-1, 0);                                          \
        shmem_quiet();                                                                             \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_##N##_atomic_fetch(&b, 0) == (T)(((T)1 << npes) - 1));                         \
        shmem_barrier_all();                                                                       \
    }

int main(void)
{
    sht_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), right = (me + 1) % npes;
    DMSG_SHMEM_AMO_STD_TYPES(STD)
    DMSG_SHMEM_AMO_EXT_TYPES(EXT)
    DMSG_SHMEM_AMO_BIT_TYPES(BIT)

    /* deprecated names and generic forms */
    static long l;
    static long long ll;
    static float fl;
    l = 0;
    shmem_barrier_all();
    shmem_long_add(&l, 2, 0);
    shmem_long_inc(&l, 0);
    (void)shmem_long_fadd(&l, 1, 0);
    (void)shmem_long_finc(&l, 0);
    shmem_barrier_all();
    CHECK(shmem_long_fetch(&l, 0) == 5 * npes);
    shmem_barrier_all();
    CHECK(shmem_longlong_cswap(&ll, 0, 0, right) == 0);
    shmem_float_set(&fl, 2.0f, me);
    CHECK(shmem_float_swap(&fl, 3.0f, me) == 2.0f);
    shmem_barrier_all();
    l = 0;
    shmem_barrier_all();
    shmem_atomic_add(&l, 1L, 0);
    shmem_atomic_inc(SHMEM_CTX_DEFAULT, &l, 0);
    shmem_barrier_all();
    CHECK(shmem_atomic_fetch(&l, 0) == 2 * npes);
    unsigned int ub = 0;
    static unsigned int s_ub;
    shmem_atomic_set(&s_ub, 0u, me);
    shmem_barrier_all();
    shmem_atomic_or(&s_ub, 1u << me, 0);
    shmem_barrier_all();
    ub = shmem_atomic_fetch(&s_ub, 0);
    CHECK(ub == (1u << npes) - 1);

    /* lock: the counter under it is never torn */
    static long lock, counter;
    shmem_barrier_all();
    for (int i = 0; i < 20; i++) {
        shmem_set_lock(&lock);
        long c = shmem_long_g(&counter, 0);
        shmem_long_p(&counter, c + 1, 0);
        shmem_clear_lock(&lock);
    }
    shmem_barrier_all();
    CHECK(shmem_long_g(&counter, 0) == 20 * npes);
    shmem_barrier_all();
    if (me == 0) {
        CHECK(shmem_test_lock(&lock) == 0);
        shmem_clear_lock(&lock);
    }
    return sht_end("amo");
}
