/* Clearance (barrier that completes everything) and local completion. */
#include "dmsg/core/state.h"

int dmsg_sync(void)
{
    DMSG_REQUIRE_INIT();
    dmsg_status st = dmsg_g.tp.ops->quiet(&dmsg_g.tp);
    return st ? st : dmsg_g.tp.ops->barrier(&dmsg_g.tp);
}

int dmsg_quiet(void)
{
    DMSG_REQUIRE_INIT();
    return dmsg_g.tp.ops->quiet(&dmsg_g.tp);
}
