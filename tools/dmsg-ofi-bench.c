/* dmsg-ofi-bench: dmsg over libfabric next to the raw libfabric operation of
 * the same size, measured by this program in the same run between the same
 * two PEs on the same endpoint (one fi_write / fi_read, completion waited).
 * Deposits are counted (a counter is named).
 *
 *   DMSG_TRANSPORT=ofi DMSG_OFI_PROVIDER=shm dmsgrun -n 2 dmsg-ofi-bench [MAXBYTES]
 *   (or under mpiexec -n 2). PE 0 measures, PE 1 serves (it waits in a
 *   barrier, which keeps its provider progressing).
 *
 * Columns: bytes, raw and dmsg time per operation (us), raw and dmsg MB/s,
 * dmsg/raw throughput ratio, the time dmsg adds per operation (us), and for
 * deposits the time of the same deposit without a counter, and, for
 * information, raw writes (fi_writemsg, completion waited) with
 * FI_DELIVERY_COMPLETE (dc_us), with remote CQ data (data_us) and with both
 * (data_dc_us): what each of the flags dmsg may use costs on its own. Deposits are timed
 * as a stream of `reps` dmsg_deposit calls closed by one dmsg_quiet (which
 * makes them complete at the target), against `reps` raw fi_writes each
 * waited for locally: a deposit returns when its source may be reused, as a
 * raw write's completion says, and remote completion is settled once per
 * phase by quiet or sync, as programs do. Small deposits are injected and
 * need not wait at all, so their time is the issue rate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dmsg.h"
#include "dmsg/transport/ofi/ofi.h" /* the running transport's endpoint: dmsg_ofi_active */

static ofi_state *S;

/* Polls our CQ for one local completion; remote CQ data that arrives meanwhile
 * (a peer's barrier token) is handed to dmsg as its progress would. */
static int raw_wait(void)
{
    struct fi_cq_data_entry e[8];
    double end = dmsg_clock_now() + 10;
    for (;;) {
        ssize_t n = fi_cq_read(S->fab.cq, e, 8);
        int got = 0;
        for (ssize_t i = 0; i < n; i++) {
            if (e[i].flags & FI_REMOTE_CQ_DATA)
                dmsg_ofi_on_signal(S, e[i].data);
            else
                got = 1;
        }
        if (got)
            return 0;
        if (n == -FI_EAVAIL || dmsg_clock_now() > end)
            return -1;
    }
}

static int raw_op(int rd, char *local, size_t off, size_t n)
{
    uint64_t addr = S->peer[1].addr + OFI_CTL_BYTES + off, key = S->peer[1].key;
    ssize_t rc;
    do {
        rc = rd ? fi_read(S->fab.ep, local, n, NULL, 1, addr, key, NULL)
                : fi_write(S->fab.ep, local, n, NULL, 1, addr, key, NULL);
        if (rc == -FI_EAGAIN)
            dmsg_ofi_progress(S);
    } while (rc == -FI_EAGAIN);
    return rc ? -1 : raw_wait();
}

/* A raw write with explicit flags (informational columns): delivery
 * completion and/or remote CQ data (data 0: the target ignores it). */
static int raw_write_flags(char *local, size_t off, size_t n, uint64_t flags)
{
    struct iovec iov = {.iov_base = local, .iov_len = n};
    struct fi_rma_iov r = {.addr = S->peer[1].addr + OFI_CTL_BYTES + off, .len = n,
                           .key = S->peer[1].key};
    struct fi_msg_rma m = {.msg_iov = &iov, .iov_count = 1, .addr = 1, .rma_iov = &r,
                           .rma_iov_count = 1, .data = 0};
    ssize_t rc;
    do {
        rc = fi_writemsg(S->fab.ep, &m, FI_COMPLETION | flags);
        if (rc == -FI_EAGAIN)
            dmsg_ofi_progress(S);
    } while (rc == -FI_EAGAIN);
    return rc ? -1 : raw_wait();
}

/* Raw write variants timed for information: delivery completion, remote CQ
 * data, both. */
#define NVAR 3
static const uint64_t var_flags[NVAR] = {FI_DELIVERY_COMPLETE, FI_REMOTE_CQ_DATA,
                                         FI_REMOTE_CQ_DATA | FI_DELIVERY_COMPLETE};

static int reps_for(size_t n)
{
    size_t r = ((size_t)64 << 20) / (n ? n : 1);
    return r < 20 ? 20 : r > 2000 ? 2000 : (int)r;
}

int main(int argc, char **argv)
{
    size_t max = argc > 1 ? strtoul(argv[1], NULL, 0) : (size_t)4 << 20;
    int st = dmsg_init();
    if (st) {
        fprintf(stderr, "dmsg-ofi-bench: dmsg_init: %s\n", dmsg_strerror(st));
        return 1;
    }
    /* It measures the ofi transport's own paths: ofi's state exists. */
    if (!dmsg_ofi_active || dmsg_npes() != 2) {
        if (dmsg_pe() == 0)
            fprintf(stderr, "dmsg-ofi-bench: run 2 PEs with DMSG_TRANSPORT=ofi\n");
        dmsg_finalize();
        return 1;
    }
    S = dmsg_ofi_active;
    char *seg, *local = malloc(max);
    dmsg_ctr ctr;
    if (!local || dmsg_alloc(max, (void **)&seg) || dmsg_ctr_create(&ctr)) {
        fprintf(stderr, "dmsg-ofi-bench: setup failed\n");
        return 1;
    }
    memset(local, 1, max);
    size_t off = (size_t)(seg - S->seg);
    if (dmsg_pe() == 0)
        printf("# provider %s (%s), 2 PEs; times per operation, completion waited\n"
               "# %-9s %10s %10s %10s %10s %8s %9s %10s %9s %9s %9s\n",
               S->caps.prov, S->caps.domain, "bytes", "raw_us", "dmsg_us", "raw_MB/s",
               "dmsg_MB/s", "ratio", "added_us", "nocnt_us", "dc_us", "data_us", "data_dc_us");
    static const char *const what[] = {"deposit (fi_write)", "fetch (fi_read)"};
    int bad = 0;
    for (int rd = 0; rd < 2; rd++) {
        if (dmsg_pe() == 0)
            printf("# %s\n", what[rd]);
        for (size_t n = 8; n <= max; n *= 2) {
            if (dmsg_pe() == 0) {
                int reps = reps_for(n);
                double best_raw = 1e9, best_dmsg = 1e9, best_nc = 1e9;
                double best_var[NVAR] = {1e9, 1e9, 1e9};
                for (int trial = 0; trial < 3; trial++) {
                    double t0 = dmsg_wtime();
                    for (int i = 0; i < reps && !bad; i++)
                        bad |= raw_op(rd, local, off, n);
                    double t1 = dmsg_wtime();
                    for (int i = 0; i < reps && !bad; i++) {
                        if (rd)
                            bad |= dmsg_fetch(local, seg, n, 1) != DMSG_OK;
                        else
                            bad |= dmsg_deposit(seg, local, n, 1, ctr) != DMSG_OK;
                    }
                    bad |= dmsg_quiet() != DMSG_OK;
                    double t2 = dmsg_wtime();
                    /* The same deposit without a counter (no remote CQ data). */
                    for (int i = 0; i < reps && !bad && !rd; i++)
                        bad |= dmsg_deposit(seg, local, n, 1, DMSG_CTR_NONE) != DMSG_OK;
                    bad |= dmsg_quiet() != DMSG_OK;
                    double t3 = dmsg_wtime();
                    if (!rd && (t3 - t2) / reps < best_nc)
                        best_nc = (t3 - t2) / reps;
                    /* Informational: raw writes with the flags dmsg may use. */
                    for (int v = 0; v < NVAR && !rd; v++) {
                        double a = dmsg_wtime();
                        for (int i = 0; i < reps && !bad; i++)
                            bad |= raw_write_flags(local, off, n, var_flags[v]);
                        double t = (dmsg_wtime() - a) / reps;
                        if (t < best_var[v])
                            best_var[v] = t;
                    }
                    if ((t1 - t0) / reps < best_raw)
                        best_raw = (t1 - t0) / reps;
                    if ((t2 - t1) / reps < best_dmsg)
                        best_dmsg = (t2 - t1) / reps;
                }
                if (bad) {
                    fprintf(stderr, "dmsg-ofi-bench: an operation failed at %zu bytes\n", n);
                    break;
                }
                printf("  %-9zu %10.2f %10.2f %10.1f %10.1f %8.3f %9.2f", n, best_raw * 1e6,
                       best_dmsg * 1e6, n / best_raw / 1e6, n / best_dmsg / 1e6,
                       best_raw / best_dmsg, (best_dmsg - best_raw) * 1e6);
                if (rd)
                    printf("\n");
                else
                    printf(" %10.2f %9.2f %9.2f %9.2f\n", best_nc * 1e6, best_var[0] * 1e6,
                           best_var[1] * 1e6, best_var[2] * 1e6);
                fflush(stdout);
            }
            if (dmsg_sync())
                break;
            if (!rd && dmsg_pe() == 1) {
                /* Consume this size's deposits so the count stays small. */
                uint64_t m;
                dmsg_ctr_read(ctr, &m, NULL);
                if (m)
                    dmsg_await(ctr, m);
            }
        }
    }
    dmsg_ctr_destroy(ctr);
    dmsg_free(seg);
    free(local);
    dmsg_finalize();
    return bad;
}
