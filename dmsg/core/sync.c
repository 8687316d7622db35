/* Clearance (barrier that completes everything) and local completion. */
#include "dmsg/core/checker.h"
#include "dmsg/core/state.h"

int dmsg_sync(void)
{
    DMSG_REQUIRE_INIT();
    dmsg_wait_enter(DMSG_WAIT_SYNC);
    /* On shm the quiet is a fence that the barrier's own ordering covers:
     * a fence less in the 2-PE barrier's 0.2-0.3 us. */
    dmsg_status st = (dmsg_g.tp.ops->caps & DMSG_TP_CAP_BARRIER_QUIET)
                         ? DMSG_OK
                         : dmsg_g.tp.ops->quiet(&dmsg_g.tp);
    if (!st) {
        dmsg_chk_arrive();
        st = dmsg_g.tp.ops->barrier(&dmsg_g.tp);
        if (!st)
            dmsg_chk_epoch_end();
    }
    dmsg_wait_leave();
    return st;
}

int dmsg_quiet(void)
{
    DMSG_REQUIRE_INIT();
    dmsg_wait_enter(DMSG_WAIT_QUIET);
    dmsg_status st = dmsg_g.tp.ops->quiet(&dmsg_g.tp);
    if (!st && dmsg_g.check)
        dmsg_chk_quiet();
    dmsg_wait_leave();
    return st;
}
