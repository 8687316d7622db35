/* Clearance (barrier that completes everything) and local completion. */
#include <stdlib.h>
#include <string.h>
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

_Static_assert(DMSG_SYNC_XCHG_MAX <= DMSG_TP_XCHG_BYTES, "dmsg_sync_xchg's values fit the rows");

int dmsg_sync_xchg(const void *mine, size_t bytes, void *all)
{
    DMSG_REQUIRE_INIT();
    const dmsg_tp_ops *ops = dmsg_g.tp.ops;
    if (!ops->barrier_xchg)
        return DMSG_FAIL(DMSG_ERR_UNSUPPORTED,
                         "dmsg_sync_xchg: transport %s carries no values in its barrier",
                         ops->name);
    if (bytes && (!mine || !all))
        return DMSG_FAIL(DMSG_ERR_NULL, "dmsg_sync_xchg: NULL buffer of %zu bytes", bytes);
    if (bytes > DMSG_SYNC_XCHG_MAX / (size_t)dmsg_g.tp.npes)
        return DMSG_FAIL(DMSG_ERR_ARG,
                         "dmsg_sync_xchg: %zu bytes from each of %d PEs (at most %d in all)", bytes,
                         dmsg_g.tp.npes, DMSG_SYNC_XCHG_MAX);
    /* The rows' pointers: on the stack up to 64 PEs. */
    const void *stack[64], **rows = stack;
    if (dmsg_g.tp.npes > 64 && !(rows = malloc((size_t)dmsg_g.tp.npes * sizeof *rows)))
        return DMSG_FAIL(DMSG_ERR_NOMEM, "dmsg_sync_xchg: %d row pointers", dmsg_g.tp.npes);
    dmsg_wait_enter(DMSG_WAIT_SYNC);
    /* As dmsg_sync: the quiet first where the barrier does not cover it. */
    dmsg_status st = (ops->caps & DMSG_TP_CAP_BARRIER_QUIET) ? DMSG_OK : ops->quiet(&dmsg_g.tp);
    if (!st) {
        dmsg_chk_arrive();
        st = ops->barrier_xchg(&dmsg_g.tp, mine, bytes, rows);
        if (!st) {
            dmsg_chk_epoch_end();
            for (int p = 0; bytes && p < dmsg_g.tp.npes; p++)
                memcpy((char *)all + (size_t)p * bytes, rows[p], bytes);
        }
    }
    dmsg_wait_leave();
    if (rows != stack)
        free(rows);
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
