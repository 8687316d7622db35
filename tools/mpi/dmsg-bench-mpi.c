/*
 * dmsg-bench-mpi - the MPI (MPICH) reference side of dmsg-bench.
 *
 * Usage: mpiexec -n P dmsg-bench-mpi TEST [BUDGET_MS]
 *   TEST is pingpong (needs 2 ranks), bw (2 ranks), barrier (any count),
 *   redist (BLOCK -> CYCLIC(k) of M doubles; argument "M K") or coll (the
 *   collective and atomic rows of tools/bench_coll.h; 2 ranks or more).
 *   BUDGET_MS is the wall time one measurement may take (default 1000).
 *
 * Rank 0 prints one machine-readable line per figure on stdout:
 *   R <test> <npes> <param> mpi <best> <median> <unit>
 * which build/bin/dmsg-bench collects and prints next to the dmsg figure.
 * The measurement loops mirror the dmsg worker's on purpose (same warm-up,
 * same repetition scheme) so that the two columns differ only in the library.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../bench_coll.h"
#include "../bench_sizes.h"

#define MAX_REPS 64

static int g_rank;
static int g_npes;

/* Sorts a short array in place (insertion sort: n <= MAX_REPS). */
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

/* Prints the best and median of n samples. For latencies best is the
 * minimum; for bandwidths (higher_better) the maximum. */
static void report(const char *test, long param, const double *samples, int n, int higher_better,
                   const char *unit)
{
    double v[MAX_REPS];
    memcpy(v, samples, (size_t)n * sizeof v[0]);
    sort_doubles(v, n);
    double best = higher_better ? v[n - 1] : v[0];
    double med = (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    if (g_rank == 0) {
        printf("R %s %d %ld mpi %.6g %.6g %s\n", test, g_npes, param, best, med, unit);
        fflush(stdout);
    }
}

/* As report, under another name than "mpi" (a test with several ways). */
static void report_named(const char *test, long param, const char *name, const double *samples,
                         int n, int higher_better, const char *unit)
{
    double v[MAX_REPS];
    memcpy(v, samples, (size_t)n * sizeof v[0]);
    sort_doubles(v, n);
    double best = higher_better ? v[n - 1] : v[0];
    double med = (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    if (g_rank == 0) {
        printf("R %s %d %ld %s %.6g %.6g %s\n", test, g_npes, param, name, best, med, unit);
        fflush(stdout);
    }
}

/* One iteration of a measured operation; every rank calls it alike. */
typedef void (*step_fn)(void *arg);

/* Seconds taken by n steps on this rank, started together after a barrier. */
static double time_steps(step_fn step, void *arg, long n)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; i < n; i++)
        step(arg);
    return MPI_Wtime() - t0;
}

/* Runs `warm` untimed steps (connection set-up, page faults), then doubles a
 * trial count until it takes a measurable time, and turns that into the step
 * count of one repetition of about rep_s seconds. The slowest rank's time
 * counts (in a test where only rank 1 works, rank 0's steps take nothing);
 * rank 0 decides and broadcasts: every rank must run the same number of steps. */
static long plan_steps(step_fn step, void *arg, long warm, double rep_s, long hi)
{
    time_steps(step, arg, warm);
    long n = 1;
    double t = 0;
    for (;;) {
        double mine = time_steps(step, arg, n);
        MPI_Allreduce(&mine, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        int more = t < rep_s / 8 && n < hi;
        MPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (!more) break;
        n *= 2;
    }
    long steps = t > 0 ? (long)((double)n * rep_s / t) : hi;
    steps = steps < 1 ? 1 : steps > hi ? hi : steps;
    MPI_Bcast(&steps, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    return steps;
}

/* Measures `reps` repetitions of planned length; sample r is seconds per step. */
static void measure(step_fn step, void *arg, long warm, double budget_s, int reps, double *s)
{
    long n = plan_steps(step, arg, warm, budget_s / (reps + 1), 10000000);
    for (int r = 0; r < reps; r++)
        s[r] = time_steps(step, arg, n) / (double)n;
}

/* One round trip of 8 bytes between ranks 0 and 1. */
static void pingpong_step(void *arg)
{
    char *buf = arg;
    if (g_rank == 0) {
        MPI_Send(buf, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(buf, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (g_rank == 1) {
        MPI_Recv(buf, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
}

/* Half round-trip time of an 8-byte MPI_Send/MPI_Recv ping-pong, in us. */
static void test_pingpong(double budget_s)
{
    enum { REPS = 11 };
    char buf[8] = {0};
    double s[REPS];
    measure(pingpong_step, buf, 2000, budget_s, REPS, s);
    for (int r = 0; r < REPS; r++)
        s[r] = s[r] / 2.0 * 1e6;
    report("pingpong", 8, s, REPS, 0, "us");
}

struct bw_arg {
    char *buf;
    size_t bytes;
    int win;
};

/* One window of `win` sends of `bytes` from rank 0 to rank 1, closed by a
 * zero-byte acknowledgement, as a bandwidth test must wait for arrival. */
static void bw_step(void *arg)
{
    struct bw_arg *a = arg;
    MPI_Request req[64];
    /* A real status array: GCC's -Wstringop-overflow misreads MPI_STATUSES_IGNORE. */
    MPI_Status st[64];
    if (g_rank == 0) {
        for (int w = 0; w < a->win; w++)
            MPI_Isend(a->buf, (int)a->bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &req[w]);
        MPI_Waitall(a->win, req, st);
        MPI_Recv(NULL, 0, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (g_rank == 1) {
        for (int w = 0; w < a->win; w++)
            MPI_Irecv(a->buf + (size_t)w * a->bytes, (int)a->bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD,
                      &req[w]);
        MPI_Waitall(a->win, req, st);
        MPI_Send(NULL, 0, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
    }
}

/* Contiguous MPI bandwidth by size (informational column beside dmsg).
 * Each receive of a window has its own slot: the standard forbids pending
 * receives into one buffer. budget_s is per size. */
static void test_bw(double budget_s, size_t max_bytes)
{
    enum { REPS = 5 };
    for (size_t bytes = 8; bytes <= max_bytes; bytes = next_size(bytes, max_bytes)) {
        struct bw_arg a = {NULL, bytes, bw_window_len(bytes)};
        a.buf = malloc(bytes * (size_t)a.win);
        if (!a.buf) {
            fprintf(stderr, "dmsg-bench-mpi: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        memset(a.buf, 1, bytes * (size_t)a.win);
        double s[REPS];
        measure(bw_step, &a, 2, budget_s, REPS, s);
        for (int r = 0; r < REPS; r++)
            s[r] = (double)bytes * a.win / s[r] / 1e6;
        report("bw", (long)bytes, s, REPS, 1, "MB/s");
        free(a.buf);
    }
}

static void barrier_step(void *arg)
{
    MPI_Barrier(MPI_COMM_WORLD);
}

/* MPI_Barrier latency. The step count follows the time budget because with
 * more ranks than cores a busy-polling barrier costs milliseconds. */
static void test_barrier(double budget_s)
{
    enum { REPS = 5 };
    double s[REPS];
    measure(barrier_step, NULL, 10, budget_s, REPS, s);
    for (int r = 0; r < REPS; r++)
        s[r] *= 1e6;
    report("barrier", 0, s, REPS, 0, "us");
}

/* BLOCK -> CYCLIC(k) redistribution of m doubles (m a multiple of P*P*k),
 * the reference of dmsg-bench's plan row, in MPICH's two usual ways. From
 * my block, the elements rank q owns are count runs of k at a stride of
 * P*k; at q they are contiguous. */
struct rd_arg {
    double *a, *b, *pack;
    int *scount, *sdispl, *pdispl, *rcount, *rdispl, *wsc, *wsd, *wrc, *wrd;
    MPI_Datatype *stype, *rtype;
    size_t blk, k, count;
};

/* MPI_Alltoallw: a vector type per destination, contiguous receives. */
static void rd_a2aw_step(void *arg)
{
    struct rd_arg *r = arg;
    MPI_Alltoallw(r->a, r->wsc, r->wsd, r->stype, r->b, r->wrc, r->wrd, r->rtype, MPI_COMM_WORLD);
}

/* Pack each destination's runs into one buffer, then MPI_Alltoallv. */
static void rd_pack_step(void *arg)
{
    struct rd_arg *r = arg;
    size_t P = (size_t)g_npes, k = r->k;
    for (size_t q = 0; q < P; q++) {
        const double *src = r->a + r->sdispl[q]; /* q's first run in my block */
        double *dst = r->pack + r->pdispl[q];
        for (size_t c = 0; c < r->count; c++)
            memcpy(dst + c * k, src + c * P * k, k * sizeof(double));
    }
    MPI_Alltoallv(r->pack, r->scount, r->pdispl, MPI_DOUBLE, r->b, r->rcount, r->rdispl, MPI_DOUBLE,
                  MPI_COMM_WORLD);
}

static void test_redist(double budget_s, size_t m, size_t k)
{
    enum { REPS = 5 };
    size_t P = (size_t)g_npes, me = (size_t)g_rank, blk = m / P;
    if (m % (P * P * k) != 0) {
        if (g_rank == 0) fprintf(stderr, "dmsg-bench-mpi: redist: m %% (P*P*k) != 0\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    struct rd_arg r = {0};
    r.blk = blk;
    r.k = k;
    r.count = blk / k / P; /* runs of k from my block to each rank */
    r.a = malloc(blk * sizeof(double));
    r.b = malloc(blk * sizeof(double));
    r.pack = malloc(blk * sizeof(double));
    int *ints = calloc(9 * P, sizeof(int));
    r.stype = malloc(2 * P * sizeof(MPI_Datatype));
    if (!r.a || !r.b || !r.pack || !ints || !r.stype) {
        fprintf(stderr, "dmsg-bench-mpi: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    r.rtype = r.stype + P;
    r.scount = ints, r.sdispl = ints + P, r.rcount = ints + 2 * P, r.rdispl = ints + 3 * P;
    r.wsc = ints + 4 * P, r.wsd = ints + 5 * P, r.wrc = ints + 6 * P, r.wrd = ints + 7 * P;
    r.pdispl = ints + 8 * P;
    size_t b0 = me * blk / k; /* my first global run of k */
    for (size_t i = 0; i < blk; i++)
        r.a[i] = (double)(me * blk + i);
    MPI_Datatype vec;
    MPI_Type_vector((int)r.count, (int)k, (int)(P * k), MPI_DOUBLE, &vec);
    for (size_t q = 0; q < P; q++) {
        size_t first = (q + P - b0 % P) % P; /* my first run that q owns */
        r.sdispl[q] = (int)(first * k);      /* elements (pack step) */
        r.scount[q] = (int)(r.count * k);
        r.wsc[q] = 1;
        r.wsd[q] = (int)(first * k * sizeof(double));
        r.stype[q] = vec;
        /* From rank p: its runs owned by me land after those of ranks < p. */
        r.rcount[q] = (int)(r.count * k);
        r.rdispl[q] = (int)(q * r.count * k);
        r.wrc[q] = (int)(r.count * k);
        r.wrd[q] = (int)(q * r.count * k * sizeof(double));
        r.rtype[q] = MPI_DOUBLE;
        r.pdispl[q] = (int)(q * r.count * k); /* the packed buffer, by destination */
    }
    MPI_Type_commit(&vec);
    step_fn steps[2] = {rd_a2aw_step, rd_pack_step};
    static const char *names[2] = {"mpi-a2aw", "mpi-pack"};
    for (int v = 0; v < 2; v++) {
        memset(r.b, 0xff, blk * sizeof(double));
        steps[v](&r);
        /* Check: local element l of cyclic(k) is global ((l/k)*P + me)*k + l%k. */
        size_t bad = 0;
        for (size_t l = 0; l < blk; l++)
            bad += r.b[l] != (double)(((l / k) * P + me) * k + l % k);
        if (bad) {
            fprintf(stderr, "dmsg-bench-mpi: redist %s: %zu wrong elements on rank %d\n", names[v],
                    bad, g_rank);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        double s[REPS];
        measure(steps[v], &r, 2, budget_s / 2, REPS, s);
        for (int i = 0; i < REPS; i++)
            s[i] = (double)(blk * sizeof(double)) / s[i] / 1e6;
        report_named("redist", (long)k, names[v], s, REPS, 1, "MB/s");
    }
    MPI_Type_free(&vec);
    free(r.a);
    free(r.b);
    free(r.pack);
    free(ints);
    free(r.stype);
}


/* Measures as `measure`, then replaces each sample on rank 0 by its maximum
 * over the ranks (the dmsg worker's max_over_pes: a collective's time is
 * that of its slowest member, e.g. not the root's of a broadcast). */
static void measure_max(step_fn step, void *arg, long warm, double budget_s, int reps, double *s)
{
    double mine[MAX_REPS];
    measure(step, arg, warm, budget_s, reps, mine);
    MPI_Reduce(mine, s, reps, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
}

/* Ends the job when any rank counted wrong results: a timing of wrong
 * results would mean nothing. */
static void check_all(long bad, const char *test, long param)
{
    long worst = 0;
    MPI_Allreduce(&bad, &worst, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    if (worst) {
        if (bad)
            fprintf(stderr, "dmsg-bench-mpi: %s %ld: %ld wrong on rank %d\n", test, param, bad,
                    g_rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

struct coll_arg {
    const struct coll_row *row;
    void *src, *dst;
};

/* One collective of a row: every rank calls it, back to back. The
 * broadcast's root sends from src (MPI_Bcast works in place), the others
 * receive into dst. */
static void coll_step(void *arg)
{
    struct coll_arg *a = arg;
    const struct coll_row *r = a->row;
    switch (r->kind) {
    case COLL_ALLREDUCE:
        MPI_Allreduce(a->src, a->dst, (int)(r->bytes / 8), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        break;
    case COLL_BCAST:
        MPI_Bcast(g_rank == 0 ? a->src : a->dst, (int)r->bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
        break;
    case COLL_ALLTOALL:
        MPI_Alltoall(a->src, (int)r->bytes, MPI_BYTE, a->dst, (int)r->bytes, MPI_BYTE,
                     MPI_COMM_WORLD);
        break;
    }
}

/* Passive-target atomics on rank 0's words of a window, each completed by
 * MPI_Win_flush (the epoch is one MPI_Win_lock_all for the whole test). */
struct amo_arg {
    int row;
    MPI_Win win;
    int64_t expect; /* compare_swap: the value this rank believes is there */
    long done;      /* operations performed (fetch_add) or succeeded (compare_swap) */
};

static void amo_step(void *arg)
{
    struct amo_arg *a = arg;
    if (!amo_active(a->row, g_rank)) return;
    int64_t one = 1, res = 0;
    if (a->row == AMO_FADD_ALL || a->row == AMO_FADD_ONE) {
        MPI_Fetch_and_op(&one, &res, MPI_INT64_T, 0, a->row, MPI_SUM, a->win);
        MPI_Win_flush(0, a->win);
        a->done++;
    } else {
        int64_t nv = a->expect + 1;
        MPI_Compare_and_swap(&nv, &a->expect, &res, MPI_INT64_T, 0, a->row, a->win);
        MPI_Win_flush(0, a->win);
        if (res == a->expect) {
            a->expect = nv;
            a->done++;
        } else {
            a->expect = res;
        }
    }
}

/* Reads rank 0's word of a row (an atomic read through the window). */
static int64_t amo_read(MPI_Win win, int row)
{
    int64_t v = 0, dummy = 0;
    MPI_Fetch_and_op(&dummy, &v, MPI_INT64_T, 0, row, MPI_NO_OP, win);
    MPI_Win_flush(0, win);
    return v;
}

static void test_coll(double budget_s)
{
    enum { REPS = 5 };
    double s[MAX_REPS];
    for (int i = 0; i < COLL_NROWS; i++) {
        const struct coll_row *r = &coll_rows[i];
        size_t n = coll_buf_bytes(r, g_npes);
        struct coll_arg a = {r, malloc(n), malloc(n)};
        if (!a.src || !a.dst) {
            fprintf(stderr, "dmsg-bench-mpi: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        coll_fill(r, g_rank, g_npes, a.src, a.dst);
        if (r->kind == COLL_BCAST && g_rank == 0) memcpy(a.dst, a.src, n); /* the root's result */
        measure_max(coll_step, &a, 10, budget_s, REPS, s);
        check_all((long)coll_check(r, g_rank, g_npes, a.dst), r->test, (long)r->bytes);
        for (int k = 0; k < REPS; k++)
            s[k] *= 1e6;
        report(r->test, (long)r->bytes, s, REPS, 0, "us");
        free(a.src);
        free(a.dst);
    }
    int64_t *words;
    MPI_Win win;
    MPI_Win_allocate(AMO_NROWS * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &words, &win);
    memset(words, 0, AMO_NROWS * sizeof(int64_t));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    for (int row = 0; row < AMO_NROWS; row++) {
        struct amo_arg a = {row, win, 0, 0};
        measure_max(amo_step, &a, 100, budget_s, REPS, s);
        /* Every successful operation added exactly 1 to the word. */
        long total = 0;
        MPI_Allreduce(&a.done, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        int64_t got = g_rank == 0 ? amo_read(win, row) : total;
        check_all(got != total, amo_rows[row], 8);
        for (int k = 0; k < REPS; k++)
            s[k] *= 1e6;
        report(amo_rows[row], 8, s, REPS, 0, "us");
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
}

static void usage(void)
{
    fprintf(stderr, "usage: mpiexec -n P dmsg-bench-mpi pingpong|bw|barrier|coll [BUDGET_MS "
                    "[MAX_BYTES]]\n"
                    "       mpiexec -n P dmsg-bench-mpi redist BUDGET_MS \"M K\"\n");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_npes);
    if (argc < 2) {
        if (g_rank == 0) usage();
        MPI_Finalize();
        return 2;
    }
    double budget_s = (argc > 2 ? atof(argv[2]) : 1000.0) / 1000.0;
    size_t max_bytes = argc > 3 ? (size_t)atol(argv[3]) : (size_t)4 << 20;
    int rc = 0;
    if (strcmp(argv[1], "barrier") == 0) {
        test_barrier(budget_s);
    } else if (g_npes < 2) {
        if (g_rank == 0) fprintf(stderr, "dmsg-bench-mpi: %s needs at least 2 ranks\n", argv[1]);
        rc = 2;
    } else if (strcmp(argv[1], "pingpong") == 0) {
        test_pingpong(budget_s);
    } else if (strcmp(argv[1], "bw") == 0) {
        test_bw(budget_s, max_bytes);
    } else if (strcmp(argv[1], "coll") == 0) {
        test_coll(budget_s);
    } else if (strcmp(argv[1], "redist") == 0 && argc > 3) {
        /* dmsg-bench passes "M K" as one argument. */
        unsigned long m = 0, k = 0;
        if (sscanf(argv[3], "%lu %lu", &m, &k) != 2 || k == 0) {
            if (g_rank == 0) usage();
            rc = 2;
        } else {
            test_redist(budget_s, m, k);
        }
    } else {
        if (g_rank == 0) usage();
        rc = 2;
    }
    MPI_Finalize();
    return rc;
}
