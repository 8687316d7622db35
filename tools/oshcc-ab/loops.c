/*
 * loops - long-running OpenSHMEM loops for tools/dmsg-oshcc-ab, built
 * unchanged with Open MPI's oshcc and with dmsg-oshcc (OpenSHMEM 1.4 calls
 * only, which both provide).
 *
 * OSU's programs time short loops (100 barriers; puts timed by the wall
 * clock), which on a shared host measure mostly whether both PEs held a
 * core during the loop. These loops run long enough to average over the
 * host's scheduling, and also give CPU time where the wall clock is noise:
 *   barrier_all_us      wall time per shmem_barrier_all over N calls
 *   barrier_all_cpu_us  PE 0's CPU time per call (spinning counts fully)
 *   sum_to_all_4B_us    wall time per shmem_int_sum_to_all of one int
 *   put_cpu_us_SIZE     PE 0's thread CPU time per shmem_putmem of SIZE
 *                       bytes to PE 1 plus shmem_quiet (best of 7 loops):
 *                       the copy's cost without the waits for a core
 * Usage: oshrun -n P loops [N]   (N barriers and reductions, default 20000;
 * the put rows need 2 PEs or more). Prints "key value" lines on PE 0.
 */
#define _GNU_SOURCE
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double clock_s(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static long psync[2][_SHMEM_REDUCE_SYNC_SIZE];
static int pwrk[_SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static int src = 1, dst;

int main(int argc, char **argv)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long iters = argc > 1 ? atol(argv[1]) : 20000;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < _SHMEM_REDUCE_SYNC_SIZE; i++)
            psync[k][i] = _SHMEM_SYNC_VALUE;
    shmem_barrier_all();

    for (long i = 0; i < iters / 10; i++) /* warm up */
        shmem_barrier_all();
    double w0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    for (long i = 0; i < iters; i++)
        shmem_barrier_all();
    double w = clock_s(CLOCK_MONOTONIC) - w0, c = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    if (me == 0)
        printf("barrier_all_us %.3f\nbarrier_all_cpu_us %.3f\n", 1e6 * w / (double)iters,
               1e6 * c / (double)iters);

    /* Consecutive reductions alternate pSync arrays (the specification). */
    shmem_barrier_all();
    w0 = clock_s(CLOCK_MONOTONIC);
    for (long i = 0; i < iters; i++)
        shmem_int_sum_to_all(&dst, &src, 1, 0, 0, n, pwrk, psync[i & 1]);
    w = clock_s(CLOCK_MONOTONIC) - w0;
    if (me == 0)
        printf("sum_to_all_4B_us %.3f\n", 1e6 * w / (double)iters);
    if (dst != n && me == 0)
        printf("# sum_to_all gave %d, want %d\n", dst, n);

    size_t max = (size_t)4 << 20;
    char *s = shmem_malloc(max), *r = shmem_malloc(max);
    if (!s || !r) {
        shmem_finalize();
        return 1;
    }
    memset(s, 'a', max);
    memset(r, 'b', max);
    for (size_t sz = (size_t)64 << 10; n > 1 && sz <= max; sz *= 2) {
        double best = 1e30;
        int loop = sz >= ((size_t)1 << 20) ? 50 : 200;
        for (int rep = 0; rep < 7; rep++) {
            shmem_barrier_all();
            if (me != 0)
                continue;
            double t0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
            for (int i = 0; i < loop; i++) {
                shmem_putmem(r, s, sz, 1);
                shmem_quiet();
            }
            double t = (clock_s(CLOCK_THREAD_CPUTIME_ID) - t0) / loop;
            if (t < best)
                best = t;
        }
        if (me == 0)
            printf("put_cpu_us_%zu %.2f\n", sz, 1e6 * best);
    }
    shmem_barrier_all();
    shmem_free(r);
    shmem_free(s);
    shmem_finalize();
    return 0;
}
