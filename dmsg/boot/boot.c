/* Choosing how this PE finds its peers. */
#include <stdlib.h>
#include <unistd.h>
#include "dmsg/boot/job.h"

dmsg_status dmsg_boot_start(dmsg_boot *b, uint64_t seg_size, uint32_t max_counters)
{
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
}
