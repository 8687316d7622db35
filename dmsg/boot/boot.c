/* Choosing how this PE finds its peers. */
#include <stdlib.h>
#include <unistd.h>
#include "dmsg/boot/job.h"
#include "dmsg/boot/pmi.h"

/* Seconds a PMI answer (a start-up barrier: all PEs must arrive) may take. */
#define BOOT_PMI_TIMEOUT 120.0

dmsg_status dmsg_boot_start(dmsg_boot *b, uint64_t seg_size, uint32_t max_counters)
{
    /* dmsgrun's protocol wins: it is set only by the local launcher. */
    if (!getenv(DMSG_BOOT_ENV_FD) && dmsg_pmi_present()) {
        dmsg_pmi *p;
        int rank, npes;
        dmsg_status st = dmsg_pmi_init(&p, &rank, &npes, BOOT_PMI_TIMEOUT);
        if (st)
            return st;
        *b = (dmsg_boot){.kind = DMSG_BOOT_PMI, .rank = rank, .npes = npes, .fd = -1, .priv = p};
        return DMSG_OK;
    }
    return dmsg_boot_local(b, seg_size, max_counters);
}

int dmsg_boot_env_rank(void)
{
    const char *r = getenv(DMSG_BOOT_ENV_RANK);
    if (!r)
        r = getenv("PMI_RANK");
    return r ? atoi(r) : 0;
}

void dmsg_boot_end(dmsg_boot *b)
{
    if (b->fd >= 0)
        close(b->fd);
    b->fd = -1;
    if (b->kind == DMSG_BOOT_PMI && b->priv)
        dmsg_pmi_finalize(b->priv);
    b->priv = NULL;
}
