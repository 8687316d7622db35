/* Point-to-point synchronization: wait_until and test for every type, the
 * _all/_any/_some and _vector forms with status masks, the deprecated
 * shmem_wait and shmem_wait_until, and the generic forms. PE 0 waits, the
 * others set its words. */
#include "shtest.h"

#define P2P(T, N)                                                                                  \
    {                                                                                              \
        static T w[8];                                                                             \
        T vals[8];                                                                                 \
        size_t idx[8];                                                                             \
        int status[8] = {0};                                                                       \
        for (int i = 0; i < 8; i++) {                                                              \
            w[i] = 0;                                                                              \
            vals[i] = (T)(i + 1);                                                                  \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        if (me == 1) {                                                                             \
            for (int i = 0; i < 8; i++)                                                            \
                shmem_##N##_p(&w[i], (T)(i + 1), 0);                                                 \
        }                                                                                          \
        if (me == 0) {                                                                             \
            shmem_##N##_wait_until(&w[7], SHMEM_CMP_EQ, (T)8);                                     \
            shmem_##N##_wait_until_all(w, 8, NULL, SHMEM_CMP_GT, (T)0);                            \
            size_t k = shmem_##N##_wait_until_any(w, 8, NULL, SHMEM_CMP_GE, (T)3);                 \
            CHECK(k >= 2 && k < 8);                                                                \
            CHECK(shmem_##N##_wait_until_some(w, 8, idx, NULL, SHMEM_CMP_LE, (T)2) == 2 &&          \
                  idx[1] == 1);                                                                    \
            shmem_##N##_wait_until_all_vector(w, 8, NULL, SHMEM_CMP_EQ, vals);                     \
            status[0] = 1;                                                                         \
            k = shmem_##N##_wait_until_any_vector(w, 8, status, SHMEM_CMP_EQ, vals);               \
            CHECK(k >= 1 && k < 8);                                                                \
            CHECK(shmem_##N##_wait_until_some_vector(w, 8, idx, status, SHMEM_CMP_EQ, vals) == 7);  \
            CHECK(shmem_##N##_test(&w[0], SHMEM_CMP_EQ, (T)1) == 1);                               \
            CHECK(shmem_##N##_test(&w[0], SHMEM_CMP_LT, (T)1) == 0);                               \
            CHECK(shmem_##N##_test_all(w, 8, NULL, SHMEM_CMP_GE, (T)1) == 1);                      \
            CHECK(shmem_##N##_test_any(w, 8, status, SHMEM_CMP_GT, (T)100) == SIZE_MAX);           \
            CHECK(shmem_##N##_test_some(w, 8, idx, NULL, SHMEM_CMP_GT, (T)6) == 2 && idx[0] == 6); \
            CHECK(shmem_##N##_test_all_vector(w, 8, NULL, SHMEM_CMP_EQ, vals) == 1);               \
            k = shmem_##N##_test_any_vector(w, 8, status, SHMEM_CMP_EQ, vals);                     \
            CHECK(k >= 1 && k < 8);                                                                \
            CHECK(shmem_##N##_test_some_vector(w, 8, idx, status, SHMEM_CMP_EQ, vals) == 7);       \
            for (int i = 0; i < 8; i++)                                                            \
                status[i] = 1;                                                                     \
            CHECK(shmem_##N##_wait_until_any(w, 8, status, SHMEM_CMP_EQ, (T)0) == SIZE_MAX);       \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
    }

int main(void)
{
    sht_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes < 2) {
        printf("p2p: needs 2 PEs\n");
        return 1;
    }
    DMSG_SHMEM_P2P_TYPES(P2P)

    /* a put is visible when the flag that follows it after a fence is */
    static long data[100], flag;
    long v[100];
    for (int i = 0; i < 100; i++)
        v[i] = i * 7;
    shmem_barrier_all();
    if (me == 1) {
        shmem_long_put(data, v, 100, 0);
        shmem_fence();
        shmem_long_p(&flag, 1, 0);
    }
    if (me == 0) {
        shmem_wait(&flag, 0);
        CHECK(data[99] == 99 * 7);
        (shmem_wait_until)(&flag, SHMEM_CMP_EQ, 1);
        shmem_wait_until(&flag, SHMEM_CMP_NE, 0L);
        CHECK(shmem_test(&flag, SHMEM_CMP_EQ, 1L));
    }
    shmem_barrier_all();
    /* _any is fair: with every word holding, n calls return every index */
    static int fair[5] = {1, 1, 1, 1, 1};
    int seen[5] = {0}, nseen = 0;
    for (int i = 0; i < 5; i++) {
        size_t k = shmem_int_test_any(fair, 5, NULL, SHMEM_CMP_EQ, 1);
        if (k < 5 && !seen[k]++)
            nseen++;
    }
    CHECK(nseen == 5);
    nseen = 0;
    for (int i = 0; i < 5; i++)
        seen[i] = 0;
    for (int i = 0; i < 5; i++) {
        size_t k = shmem_int_wait_until_any(fair, 5, NULL, SHMEM_CMP_EQ, 1);
        if (k < 5 && !seen[k]++)
            nseen++;
    }
    CHECK(nseen == 5);
    shmem_barrier_all();
    /* signals: put_signal from every PE adds 1 */
    static uint64_t sig;
    static int slot[64];
    int mine = me + 10;
    shmem_barrier_all();
    shmem_int_put_signal(&slot[me], &mine, 1, &sig, 1, SHMEM_SIGNAL_ADD, 0);
    if (me == 0) {
        CHECK(shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, (uint64_t)npes) == (uint64_t)npes);
        CHECK(slot[npes - 1] == npes - 1 + 10);
    }
    return sht_end("p2p");
}
