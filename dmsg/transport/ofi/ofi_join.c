/* Finding the peers: joining the job through the boot, exchanging
 * endpoint names and keys with the start-up exchange service, and the
 * address table indexed by rank. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dmsg/base/shmfiles.h"
#include "dmsg/transport/ofi/ofi.h"

/* What each PE publishes at start-up. */
typedef struct ofi_card {
    uint32_t namelen;
    uint32_t pad;
    uint64_t base;
    uint64_t key;
    uint64_t cells; /* counting by remote counters, virtual addresses: the cells table */
    char prov[24]; /* the provider chosen, so that a PE that fell back is named */
    char name[OFI_ADDR_MAX];
} ofi_card;

/* Rank and size come from the boot; the sizes from the job region where
 * dmsgrun made one (its own settings), else from ours. No data ever moves
 * through the region: it serves the start-up exchange and the doorbells
 * (ofi_bell.c) only. */
dmsg_status dmsg_ofi_join_job(dmsg_tp *tp, dmsg_boot *boot)
{
    dmsg_status st = dmsg_boot_join(boot);
    if (st)
        return st;
    /* Under dmsgrun every PE has joined before any starts its (slow, and
     * differently slow) libfabric start-up, so that each wait for a peer
     * later covers that start-up only, not also the launch's skew. */
    if (boot->hdr && (st = dmsg_boot_barrier(boot)))
        return st;
    tp->rank = boot->rank;
    tp->npes = boot->npes;
    tp->seg_size = boot->hdr ? boot->hdr->seg_size : tp->conf.seg_size;
    tp->max_counters = boot->hdr ? boot->hdr->max_counters : tp->conf.max_counters;
    return DMSG_OK;
}

/* Every PE publishes its card; all must have chosen the same provider. */
dmsg_status dmsg_ofi_connect_peers(dmsg_tp *tp, ofi_state *s, dmsg_boot *boot)
{
    ofi_card me = {.namelen = (uint32_t)s->fab.namelen,
                   .base = s->caps.virt_addr ? (uint64_t)(uintptr_t)s->fab.base : 0,
                   .key = s->fab.key,
                   .cells = s->caps.virt_addr ? (uint64_t)(uintptr_t)s->rc.cells : 0};
    memcpy(me.name, s->fab.name, s->fab.namelen);
    snprintf(me.prov, sizeof me.prov, "%.*s", (int)sizeof me.prov - 1, s->caps.prov);
    dmsg_status st;
    ofi_card *all = calloc((size_t)tp->npes, sizeof *all);
    fi_addr_t *fa = calloc((size_t)tp->npes, sizeof *fa);
    if (!all || !fa) {
        st = DMSG_FAIL(DMSG_ERR_NOMEM, "address table");
        goto out;
    }
    if ((st = dmsg_boot_allgather(boot, &me, sizeof me, all)))
        goto out;
    for (int p = 0; p < tp->npes; p++)
        all[p].prov[sizeof all[p].prov - 1] = '\0';
    for (int p = 0; p < tp->npes; p++) {
        if (strcmp(all[p].prov, all[0].prov) != 0) {
            /* Every PE fails with the same detail (the first PE that differs
             * from PE 0), which dmsgrun prints once for the job. */
            st = DMSG_FAIL(DMSG_ERR_TRANSPORT,
                           "ofi: PE 0 uses provider \"%s\", PE %d \"%s\": every PE must use the "
                           "same one (set DMSG_OFI_PROVIDER; DMSG_DEBUG=1 shows why a provider "
                           "failed)",
                           all[0].prov, p, all[p].prov);
            goto out;
        }
        if (all[p].namelen == 0 || all[p].namelen > OFI_ADDR_MAX) {
            st = DMSG_FAIL(DMSG_ERR_TRANSPORT, "PE %d published a %u-byte address", p,
                           all[p].namelen);
            goto out;
        }
        s->peer[p] = (ofi_peer){.addr = all[p].base, .key = all[p].key, .cells = all[p].cells};
    }
    /* One address per call: the same provider's addresses may differ in
     * length (the shm provider's name carries the pid, so PEs 9999 and 10000
     * have 18- and 19-byte names), and a packed array has one stride. */
    for (int p = 0; p < tp->npes; p++) {
        int n = fi_av_insert(s->fab.av, all[p].name, 1, &fa[p], 0, NULL);
        if (n != 1) {
            st = DMSG_FAIL(DMSG_ERR_TRANSPORT, "%s: fi_av_insert refused PE %d's address (%d)",
                           s->caps.prov, p, n);
            goto out;
        }
    }
    for (int p = 0; p < tp->npes; p++)
        if (fa[p] != (fi_addr_t)p) {
            st = DMSG_FAIL(DMSG_ERR_TRANSPORT, "%s: address table is not indexed by rank",
                           s->caps.prov);
            goto out;
        }
out:
    free(fa);
    free(all);
    return st;
}

/* libfabric's shm provider names its region in /dev/shm after our pid, and
 * a PE that crashes leaves it behind. Once every peer has reached us (the
 * first barrier: each has written its token into the region) the name is no
 * longer needed, so it goes now and the kernel frees the memory with the
 * last process that maps it. */
void dmsg_ofi_unlink_shm_names(void)
{
    dmsg_shm_unlink_pid((long)getpid());
}
