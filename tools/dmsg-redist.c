/* dmsg-redist: CYCLIC(a) -> CYCLIC(b) redistributions of a 1-D array of
 * doubles by a plan, several patterns side by side in one run (interleaved
 * rounds), with plan creation time and the first pattern as the reference
 * the others are compared with. tools/mpi/dmsg-redist-mpi.c does the same
 * redistributions with MPICH.
 *
 *   dmsgrun -n P dmsg-redist [-r ROUNDS] [-e EXECS] M A:B [A:B ...]
 *
 * A and B are block sizes (0: BLOCK). Prints the host (CPU model, CPUs
 * online, load average before and after: figures of a loaded host are noisy)
 * and per pattern: create ms (slowest PE), MB/s per PE (source bytes of a PE
 * over the slowest PE's time of one execution; best and median of the
 * rounds) and the ratio of the best to the first pattern's best. Each result
 * is checked element by element. tools/dmsg-redist-ab runs it and the MPICH
 * reference alternately and prints both ratios of issue 29's targets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "dmsg.h"
#include "dmsg_plan.h"

#define MAXP 16
#define MAXR 64

#define CK(x)                                                                                      \
    do {                                                                                           \
        int rc_ = (x);                                                                             \
        if (rc_ != DMSG_OK) {                                                                      \
            fprintf(stderr, "dmsg-redist: %s: %s\n", #x, dmsg_strerror(rc_));                      \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

typedef struct pat {
    size_t a, b;
    dmsg_darray A, B;
    dmsg_plan *plan;
    double create_s, t[MAXR], cpu[MAXR];
    size_t na, nb;
    dmsg_plan_info info;
} pat;

static double *g_red; /* symmetric: one slot per PE */

/* The largest of every PE's x. */
static double max_all(double x)
{
    int np = dmsg_npes(), me = dmsg_pe();
    for (int q = 0; q < np; q++)
        CK(dmsg_deposit(&g_red[me], &x, sizeof x, q, DMSG_CTR_NONE));
    CK(dmsg_sync());
    double m = 0;
    for (int q = 0; q < np; q++)
        m = g_red[q] > m ? g_red[q] : m;
    CK(dmsg_sync());
    return m;
}

/* The sum of every PE's x. */
static double sum_all(double x)
{
    int np = dmsg_npes(), me = dmsg_pe();
    for (int q = 0; q < np; q++)
        CK(dmsg_deposit(&g_red[me], &x, sizeof x, q, DMSG_CTR_NONE));
    CK(dmsg_sync());
    double s = 0;
    for (int q = 0; q < np; q++)
        s += g_red[q];
    CK(dmsg_sync());
    return s;
}

/* CPU seconds this process has used: where other jobs load the host, the
 * CPU time of a transfer moves less than its wall time (which counts the
 * time the PE waited for a core). */
static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void desc(dmsg_darray_desc *d, size_t m, size_t k, int np)
{
    memset(d, 0, sizeof *d);
    d->ndims = 1;
    d->extent[0] = m;
    d->elem_size = 8;
    d->grid_ndims = 1;
    d->grid[0] = (size_t)np;
    d->dist[0] = k ? DMSG_DIST_CYCLIC : DMSG_DIST_BLOCK;
    d->block[0] = k;
}

/* The 1-minute load average, or -1 where /proc does not say. */
static double load1(void)
{
    double l = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f != NULL) {
        if (fscanf(f, "%lf", &l) != 1) l = -1;
        fclose(f);
    }
    return l;
}

/* The CPU's model name from /proc/cpuinfo, or "unknown CPU". */
static void cpu_model(char *buf, size_t len)
{
    snprintf(buf, len, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f == NULL) return;
    char line[256];
    while (fgets(line, sizeof line, f) != NULL) {
        char *c = strchr(line, ':');
        if (strncmp(line, "model name", 10) != 0 || c == NULL) continue;
        c += 1 + (c[1] == ' ');
        c[strcspn(c, "\n")] = 0;
        snprintf(buf, len, "%s", c);
        break;
    }
    fclose(f);
}

static int cmp_d(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

int main(int argc, char **argv)
{
    int rounds = 7, execs = 3, i = 1;
    for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
        if (!strcmp(argv[i], "-r"))
            rounds = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-e"))
            execs = atoi(argv[i + 1]);
    }
    if (argc - i < 2 || rounds < 1 || rounds > MAXR || execs < 1) {
        fprintf(stderr, "usage: dmsg-redist [-r ROUNDS] [-e EXECS] M A:B [A:B ...]\n");
        return 2;
    }
    size_t m = strtoull(argv[i++], NULL, 0);
    CK(dmsg_init());
    int np = dmsg_npes(), me = dmsg_pe();
    double load_before = load1();
    CK(dmsg_alloc(MAXP * sizeof(double) > (size_t)np * sizeof(double) ? MAXP * sizeof(double)
                                                                      : (size_t)np * 8,
                  (void **)&g_red));
    int n = argc - i;
    pat *ps = calloc((size_t)n, sizeof *ps);
    for (int p = 0; p < n; p++) {
        pat *x = &ps[p];
        if (sscanf(argv[i + p], "%zu:%zu", &x->a, &x->b) != 2) {
            fprintf(stderr, "dmsg-redist: bad pattern %s\n", argv[i + p]);
            return 2;
        }
        dmsg_darray_desc da, db;
        desc(&da, m, x->a, np);
        desc(&db, m, x->b, np);
        CK(dmsg_darray_init(&x->A, &da));
        CK(dmsg_darray_init(&x->B, &db));
        CK(dmsg_darray_alloc(&x->A));
        CK(dmsg_darray_alloc(&x->B));
        CK(dmsg_darray_local_extent(&x->A, me, &x->na));
        CK(dmsg_darray_local_extent(&x->B, me, &x->nb));
        for (size_t l = 0; l < x->na; l++) {
            size_t g;
            CK(dmsg_darray_global(&x->A, me, &l, &g));
            ((double *)x->A.base)[l] = (double)g;
        }
        dmsg_assign as;
        CK(dmsg_assign_init(&as, &x->B, &x->A));
        CK(dmsg_sync());
        double t0 = dmsg_wtime();
        CK(dmsg_plan_create(&as, NULL, &x->plan));
        x->create_s = max_all(dmsg_wtime() - t0);
        CK(dmsg_plan_execute(x->plan));
        CK(dmsg_sync());
        size_t bad = 0;
        for (size_t l = 0; l < x->nb; l++) {
            size_t g;
            CK(dmsg_darray_global(&x->B, me, &l, &g));
            bad += ((double *)x->B.base)[l] != (double)g;
        }
        if (max_all((double)bad) > 0) {
            if (me == 0) fprintf(stderr, "dmsg-redist: %s: wrong elements\n", argv[i + p]);
            return 1;
        }
        CK(dmsg_plan_get_info(x->plan, &x->info));
    }
    /* Rounds interleave the patterns, so that load from elsewhere falls on
     * all of them alike. */
    for (int r = 0; r < rounds; r++)
        for (int p = 0; p < n; p++) {
            CK(dmsg_sync());
            double t0 = dmsg_wtime(), c0 = cpu_s();
            for (int e = 0; e < execs; e++)
                CK(dmsg_plan_execute(ps[p].plan));
            double c = (cpu_s() - c0) / execs;
            ps[p].t[r] = max_all((dmsg_wtime() - t0) / execs);
            ps[p].cpu[r] = sum_all(c);
        }
    double base = 0, cbase = 0;
    if (me == 0) {
        char cpu[128];
        cpu_model(cpu, sizeof cpu);
        printf("# dmsg-redist: %zu doubles, %d PEs, transport %s, %d rounds x %d executions\n"
               "# host: %s, %ld CPUs online, load average %.2f before, %.2f after\n"
               "# A:B = CYCLIC(A) -> CYCLIC(B), 0 = BLOCK; MB/s per PE = a PE's source bytes\n"
               "# over the slowest PE's time of one execution; vs_first = best MB/s over\n"
               "# the first pattern's best in this run (issue 29's target for the periodic\n"
               "# patterns against 0:16: >= 0.8); create_ms: dmsg_plan_create, slowest PE\n"
               "# (the first plan of a job also calibrates the host model); cpu_MBs = all\n"
               "# PEs' source bytes over all PEs' CPU time of one execution (best round;\n"
               "# waits count as they burn CPU), cpu_vs_first its ratio: steadier than\n"
               "# wall time where other jobs take the cores\n"
               "# %-8s %10s %10s %10s %8s %10s %12s %8s %8s %8s\n",
               m, np, dmsg_transport_name(), rounds, execs, cpu, sysconf(_SC_NPROCESSORS_ONLN),
               load_before, load1(), "pattern", "create_ms", "best_MBs", "med_MBs", "vs_first",
               "cpu_MBs", "cpu_vs_first", "pieces", "msgs", "packed");
    }
    for (int p = 0; p < n; p++) {
        pat *x = &ps[p];
        double mbs[MAXR];
        for (int r = 0; r < rounds; r++)
            mbs[r] = (double)x->na * 8 / x->t[r] / 1e6;
        qsort(mbs, (size_t)rounds, sizeof *mbs, cmp_d);
        double best = mbs[rounds - 1], med = mbs[rounds / 2], cbest = 0;
        for (int r = 0; r < rounds; r++) {
            double c = (double)m * 8 / x->cpu[r] / 1e6;
            cbest = c > cbest ? c : cbest;
        }
        if (p == 0) {
            base = best;
            cbase = cbest;
        }
        if (me == 0)
            printf("%zu:%-8zu %10.2f %10.3f %10.3f %8.3f %10.1f %12.3f %8llu %8llu %8d\n", x->a,
                   x->b, x->create_s * 1e3, best, med, best / base, cbest, cbest / cbase,
                   (unsigned long long)x->info.pieces,
                   (unsigned long long)x->info.send_msgs, x->info.partners_packed);
    }
    for (int p = 0; p < n; p++) {
        CK(dmsg_plan_destroy(ps[p].plan));
        CK(dmsg_darray_free(&ps[p].B));
        CK(dmsg_darray_free(&ps[p].A));
    }
    free(ps);
    CK(dmsg_free(g_red));
    CK(dmsg_finalize());
    return 0;
}
