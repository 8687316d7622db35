/* Shared helpers of the OpenSHMEM front end's test programs (tests/shmem/). */
#ifndef SHTEST_H
#define SHTEST_H
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

static int sht_fail;
#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "PE %d: %s:%d: check failed: %s\n", shmem_my_pe(), __FILE__,          \
                    __LINE__, #c);                                                                 \
            sht_fail++;                                                                            \
        }                                                                                          \
    } while (0)

/* shmem_init; with SHT_MULTIPLE=1 in the environment shmem_init_thread
 * at SHMEM_THREAD_MULTIPLE instead, so that the same checks run through the
 * front end's paths for threads (the lock, polling waits, the collectives'
 * gate: dmsg/front/shmem/thr.c), from one thread. */
static inline void sht_init(void)
{
    const char *mt = getenv("SHT_MULTIPLE");
    if (!mt || *mt != '1') {
        shmem_init();
        return;
    }
    int provided = -1;
    if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) != 0 ||
        provided != SHMEM_THREAD_MULTIPLE) {
        fprintf(stderr, "SHMEM_THREAD_MULTIPLE not provided (%d)\n", provided);
        shmem_global_exit(1);
    }
}

/* Ends the test: every PE reports; the job fails when any check failed. */
static inline int sht_end(const char *name)
{
    static long fails, total;
    static long psync[SHMEM_REDUCE_SYNC_SIZE];
    static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 1];
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    fails = sht_fail;
    shmem_barrier_all();
    shmem_long_sum_to_all(&total, &fails, 1, 0, 0, shmem_n_pes(), pwrk, psync);
    if (shmem_my_pe() == 0)
        printf("%s: %s (%d PEs, %ld failed checks)\n", name, total ? "FAIL" : "ok", shmem_n_pes(),
               total);
    shmem_finalize();
    return total ? 1 : 0;
}
#endif
