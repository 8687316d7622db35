/* Choosing how this PE finds its peers. */
#include <unistd.h>
#include "dmsg/boot/job.h"

dmsg_status dmsg_boot_start(dmsg_boot *b, uint64_t seg_size, uint32_t max_counters)
{
    return dmsg_boot_local(b, seg_size, max_counters);
}

void dmsg_boot_end(dmsg_boot *b)
{
    if (b->fd >= 0)
        close(b->fd);
    b->fd = -1;
}
