/*
 * lib_dmsg_base.c - what every dmsg-based kernel program shares (dmsg-kern,
 * and postal-kern for the postal and RRMSG baselines, which are built on
 * dmsg): joining the job, symmetric allocation, barrier, reductions, and the
 * simulated machine's own time accounting.
 */
#include "kern.h"
#include "lib_dmsg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kl_init(int *argc, char ***argv)
{
    /* The mechanism is chosen before dmsg_init reads the settings; an explicit
     * setting in the environment wins. On sim the other variants take "auto",
     * the cheaper mechanism the machine allows: chained where it has one,
     * packed on the iWarp, whose DMA moves contiguous blocks only. */
    const char *v = *argc > 2 ? (*argv)[2] : "";
    int packed = strstr(v, "packed") != NULL;
    setenv("DMSG_SIM_MECH", packed ? "packed" : "auto", 0);
    setenv("DMSG_OFI_MECH", packed ? "packed" : "chained", 0);
    CK(dmsg_init());
    kl_lib_start(v);
}

void kl_finalize(void)
{
    kl_lib_stop();
    CK(dmsg_finalize());
}

int kl_me(void)
{
    return dmsg_pe();
}

int kl_np(void)
{
    return dmsg_npes();
}

const char *kl_transport(void)
{
    return dmsg_transport_name();
}

double kl_wtime(void)
{
    return dmsg_wtime();
}

void *kl_alloc(size_t bytes)
{
    void *p;
    CK(dmsg_alloc(bytes, &p));
    memset(p, 0, bytes);
    CK(dmsg_sync()); /* nobody deposits into it before it is cleared */
    return p;
}

int (*kl_lib_sync)(void) = dmsg_sync;

void kl_barrier(void)
{
    CK(kl_lib_sync());
}

/* The library's own collectives (docs/api.md, "Collectives"): in place, on
 * every PE, bitwise the same result everywhere. */
void kl_allreduce(double *v, int n, int op)
{
    CK(dmsg_allreduce(DMSG_TEAM_WORLD, v, v, (size_t)n, DMSG_TYPE_DOUBLE,
                      op == KL_SUM ? DMSG_OP_SUM : DMSG_OP_MAX));
}

void kl_bcast(void *buf, size_t bytes)
{
    CK(dmsg_bcast(DMSG_TEAM_WORLD, buf, buf, bytes, 0));
}

int kl_times(kern_times *t)
{
    dmsg_times d;
    if (dmsg_times_get(&d) != DMSG_OK) return 0;
    /* Awaits and fetch waits wait for data: transfer, as a receive's wait is. */
    t->xfer = d.transfer + d.ctr_wait + d.fetch_wait;
    t->pack = d.copy;
    t->sync = d.sync;
    t->comp = d.total - t->xfer - t->pack - t->sync;
    if (t->comp < 1e-12) t->comp = 0.0; /* free on sim: what remains is rounding */
    return 1;
}

