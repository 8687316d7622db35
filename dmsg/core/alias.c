/* dmsg_seg_alias: checks, then the transport's seg_alias op (alias.h). */
#include "dmsg/core/alias.h"

#include <stdint.h>
#include <unistd.h>
#include "dmsg/core/state.h"

dmsg_status dmsg_seg_alias(void *sym, size_t len, void *at)
{
    DMSG_REQUIRE_INIT();
    size_t page = (size_t)sysconf(_SC_PAGESIZE), off;
    if (((uintptr_t)sym | (uintptr_t)at | len) & (page - 1))
        return DMSG_FAIL(DMSG_ERR_ALIGN, "seg_alias: %p, %p, %zu not page-aligned", sym, at, len);
    dmsg_status st = dmsg_sym_range(sym, len, &off);
    if (st)
        return st;
    if (!dmsg_g.tp.ops->seg_alias)
        return DMSG_FAIL(DMSG_ERR_UNSUPPORTED, "transport %s cannot alias memory onto its segment",
                         dmsg_g.tp.ops->name);
    return dmsg_g.tp.ops->seg_alias(&dmsg_g.tp, off, len, at);
}
