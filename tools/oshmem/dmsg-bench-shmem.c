/*
 * dmsg-bench-shmem - the OpenSHMEM (Open MPI's OSHMEM) reference side of
 * dmsg-bench's collective and atomic rows.
 *
 * Usage: oshrun -n P dmsg-bench-shmem coll [BUDGET_MS]
 *   The rows of tools/bench_coll.h (2 PEs or more); BUDGET_MS is the wall
 *   time one row's measurement may take (default 1000).
 *
 * PE 0 prints one line per figure on stdout, as the dmsg and MPI workers:
 *   R <test> <npes> <param> oshmem <best> <median> us
 * and "D done" when all are printed. OSHMEM 4.1 crashes in shmem_finalize
 * on this host after correct runs (docs/kernels.md), so dmsg-bench takes
 * the figures of a run that printed "D done" whatever its exit status.
 *
 * The installed OSHMEM implements OpenSHMEM 1.4: no teams, so the
 * collectives are the 1.4 calls on the active set of all PEs (PE_start 0,
 * logPE_stride 0, PE_size npes): shmem_double_sum_to_all,
 * shmem_broadcast64, shmem_alltoall64, each with the pSync (and pWrk) they
 * require. Back-to-back calls alternate between two pSync arrays, as the
 * specification allows for consecutive collectives on one active set. The
 * atomics are shmem_long_atomic_fetch_add and
 * shmem_long_atomic_compare_swap (long is 64 bits here). Every sample is
 * the maximum over the PEs of one repetition; the loops have the same
 * shape as the other two workers'.
 */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../bench_coll.h"

#define MAX_REPS 32
#define MAX_PES 1024

static int g_me;
static int g_np;

/* Symmetric scratch of the worker's own collectives (a broadcast of a
 * long, a maximum over the PEs). */
static long g_bcast;
static double g_samples[MAX_PES][MAX_REPS];

static void die(const char *msg)
{
    fprintf(stderr, "dmsg-bench-shmem (PE %d): %s\n", g_me, msg);
    exit(1);
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sort_doubles(double *v, int n)
{
    for (int i = 1; i < n; i++) {
        double x = v[i];
        int j = i - 1;
        while (j >= 0 && v[j] > x) {
            v[j + 1] = v[j];
            j--;
        }
        v[j + 1] = x;
    }
}

static void report(const char *test, long param, const double *samples, int n)
{
    double v[MAX_REPS];
    memcpy(v, samples, (size_t)n * sizeof v[0]);
    sort_doubles(v, n);
    double med = (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    if (g_me == 0) {
        printf("R %s %d %ld oshmem %.6g %.6g us\n", test, g_np, param, v[0], med);
        fflush(stdout);
    }
}

/* PE 0's value of v, on every PE. */
static long bcast_long(long v)
{
    shmem_barrier_all(); /* clearance: everybody has read the previous value */
    if (g_me == 0)
        for (int pe = 0; pe < g_np; pe++)
            shmem_long_p(&g_bcast, v, pe);
    shmem_barrier_all();
    return g_bcast;
}

/* Replaces s[0..n) on PE 0 by the maximum over all PEs of each element. */
static void max_over_pes(double *s, int n)
{
    shmem_barrier_all();
    shmem_putmem(g_samples[g_me], s, (size_t)n * sizeof *s, 0);
    shmem_barrier_all();
    if (g_me == 0)
        for (int pe = 0; pe < g_np; pe++)
            for (int i = 0; i < n; i++)
                s[i] = s[i] > g_samples[pe][i] ? s[i] : g_samples[pe][i];
}

typedef void (*step_fn)(void *arg);

static double time_steps(step_fn step, void *arg, long n)
{
    shmem_barrier_all();
    double t0 = wall_now();
    for (long i = 0; i < n; i++)
        step(arg);
    return wall_now() - t0;
}

/* As the other workers' plan_steps: the slowest PE's time counts, PE 0 decides. */
static long plan_steps(step_fn step, void *arg, long warm, double rep_s, long hi)
{
    time_steps(step, arg, warm);
    long n = 1;
    double t;
    for (;;) {
        t = time_steps(step, arg, n);
        max_over_pes(&t, 1);
        if (!bcast_long(t < rep_s / 8 && n < hi)) break;
        n *= 2;
    }
    long steps = t > 0 ? (long)((double)n * rep_s / t) : hi;
    steps = steps < 1 ? 1 : steps > hi ? hi : steps;
    return bcast_long(steps);
}

/* reps repetitions of planned length; sample r: seconds per step, max over PEs (on PE 0). */
static void measure(step_fn step, void *arg, long warm, double budget_s, int reps, double *s)
{
    long n = plan_steps(step, arg, warm, budget_s / (reps + 1), 10000000);
    for (int r = 0; r < reps; r++)
        s[r] = time_steps(step, arg, n) / (double)n;
    max_over_pes(s, reps);
}

/* Ends the job when any PE counted wrong results. */
static void check_all(long bad, const char *test, long param)
{
    double worst = (double)bad;
    max_over_pes(&worst, 1);
    if (bcast_long(worst > 0)) {
        if (bad)
            fprintf(stderr, "dmsg-bench-shmem: %s %ld: %ld wrong on PE %d\n", test, param, bad,
                    g_me);
        exit(1);
    }
}

/* pSync of every collective used here: the largest of the three sizes. */
#define SYNC_LEN                                                                                   \
    (SHMEM_REDUCE_SYNC_SIZE > SHMEM_BCAST_SYNC_SIZE                                                \
         ? (SHMEM_REDUCE_SYNC_SIZE > SHMEM_ALLTOALL_SYNC_SIZE ? SHMEM_REDUCE_SYNC_SIZE             \
                                                              : SHMEM_ALLTOALL_SYNC_SIZE)          \
         : (SHMEM_BCAST_SYNC_SIZE > SHMEM_ALLTOALL_SYNC_SIZE ? SHMEM_BCAST_SYNC_SIZE               \
                                                             : SHMEM_ALLTOALL_SYNC_SIZE))
static long g_psync[2][SYNC_LEN];

struct coll_arg {
    const struct coll_row *row;
    void *src, *dst; /* symmetric */
    double *wrk;     /* symmetric pWrk of the reduction */
    int k;           /* which pSync the next call uses */
};

static void coll_step(void *arg)
{
    struct coll_arg *a = arg;
    const struct coll_row *r = a->row;
    long *ps = g_psync[a->k];
    a->k ^= 1;
    switch (r->kind) {
    case COLL_ALLREDUCE:
        shmem_double_sum_to_all(a->dst, a->src, (int)(r->bytes / 8), 0, 0, g_np, a->wrk, ps);
        break;
    case COLL_BCAST:
        shmem_broadcast64(a->dst, a->src, r->bytes / 8, 0, 0, 0, g_np, ps);
        break;
    case COLL_ALLTOALL:
        shmem_alltoall64(a->dst, a->src, r->bytes / 8, 0, 0, g_np, ps);
        break;
    }
}

struct amo_arg {
    int row;
    long *words; /* symmetric: one word per row, used on PE 0 */
    long expect;
    long done;
};

static void amo_step(void *arg)
{
    struct amo_arg *a = arg;
    if (!amo_active(a->row, g_me)) return;
    if (a->row == AMO_FADD_ALL || a->row == AMO_FADD_ONE) {
        (void)shmem_long_atomic_fetch_add(&a->words[a->row], 1, 0);
        a->done++;
    } else {
        long old = shmem_long_atomic_compare_swap(&a->words[a->row], a->expect, a->expect + 1, 0);
        if (old == a->expect) {
            a->expect++;
            a->done++;
        } else {
            a->expect = old;
        }
    }
}

static void test_coll(double budget_s)
{
    enum { REPS = 5 };
    double s[MAX_REPS];
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < SYNC_LEN; i++)
            g_psync[k][i] = SHMEM_SYNC_VALUE;
    size_t maxn = 0, maxwrk = 0;
    for (int i = 0; i < COLL_NROWS; i++) {
        size_t n = coll_buf_bytes(&coll_rows[i], g_np);
        maxn = n > maxn ? n : maxn;
        size_t w = coll_rows[i].bytes / 8 / 2 + 1;
        maxwrk = w > maxwrk ? w : maxwrk;
    }
    if (maxwrk < SHMEM_REDUCE_MIN_WRKDATA_SIZE) maxwrk = SHMEM_REDUCE_MIN_WRKDATA_SIZE;
    char *src = shmem_malloc(maxn), *dst = shmem_malloc(maxn);
    double *wrk = shmem_malloc(maxwrk * sizeof(double));
    long *words = shmem_malloc(AMO_NROWS * sizeof(long));
    if (!src || !dst || !wrk || !words) die("shmem_malloc failed");
    memset(words, 0, AMO_NROWS * sizeof(long));
    shmem_barrier_all(); /* pSync initialized everywhere before first use */
    for (int i = 0; i < COLL_NROWS; i++) {
        const struct coll_row *r = &coll_rows[i];
        struct coll_arg a = {r, src, dst, wrk, 0};
        coll_fill(r, g_me, g_np, src, dst);
        /* shmem_broadcast64 leaves the root's target alone: its result is its source. */
        if (r->kind == COLL_BCAST && g_me == 0) memcpy(dst, src, r->bytes);
        measure(coll_step, &a, 10, budget_s, REPS, s);
        check_all((long)coll_check(r, g_me, g_np, dst), r->test, (long)r->bytes);
        for (int k = 0; k < REPS; k++)
            s[k] *= 1e6;
        report(r->test, (long)r->bytes, s, REPS);
    }
    for (int row = 0; row < AMO_NROWS; row++) {
        struct amo_arg a = {row, words, 0, 0};
        measure(amo_step, &a, 100, budget_s, REPS, s);
        /* Every successful operation added exactly 1 to PE 0's word. */
        double done = (double)a.done;
        shmem_barrier_all();
        shmem_putmem(g_samples[g_me], &done, sizeof done, 0);
        shmem_barrier_all();
        long bad = 0;
        if (g_me == 0) {
            double total = 0;
            for (int pe = 0; pe < g_np; pe++)
                total += g_samples[pe][0];
            bad = shmem_long_atomic_fetch(&words[row], 0) != (long)total;
        }
        check_all(bad, amo_rows[row], 8);
        for (int k = 0; k < REPS; k++)
            s[k] *= 1e6;
        report(amo_rows[row], 8, s, REPS);
    }
    shmem_barrier_all();
    shmem_free(words);
    shmem_free(wrk);
    shmem_free(dst);
    shmem_free(src);
}

int main(int argc, char **argv)
{
    shmem_init();
    g_me = shmem_my_pe();
    g_np = shmem_n_pes();
    if (argc < 2 || strcmp(argv[1], "coll") != 0) {
        if (g_me == 0) fprintf(stderr, "usage: oshrun -n P dmsg-bench-shmem coll [BUDGET_MS]\n");
        shmem_finalize();
        return 2;
    }
    if (g_np < 2 || g_np > MAX_PES) {
        if (g_me == 0) fprintf(stderr, "dmsg-bench-shmem: coll needs 2 to %d PEs\n", MAX_PES);
        shmem_finalize();
        return 2;
    }
    test_coll((argc > 2 ? atof(argv[2]) : 1000.0) / 1000.0);
    if (g_me == 0) {
        printf("D done\n");
        fflush(stdout);
    }
    shmem_finalize();
    return 0;
}
