/* Booking modelled local work (work.h). */
#include "dmsg/core/caps.h"
#include "dmsg/core/state.h"
#include "dmsg/core/work.h"

dmsg_status dmsg_work_book(const dmsg_work *w)
{
    DMSG_REQUIRE_INIT();
    if (!w)
        return DMSG_FAIL(DMSG_ERR_NULL, "modelled work is NULL");
    if (w->kind != DMSG_WORK_COPY && w->kind != DMSG_WORK_MESSAGE && w->kind != DMSG_WORK_BUFFER &&
        w->kind != DMSG_WORK_MATCH)
        return DMSG_FAIL(DMSG_ERR_ARG, "modelled work of kind %d", (int)w->kind);
    if (w->kind == DMSG_WORK_COPY && w->elem == 0)
        return DMSG_FAIL(DMSG_ERR_ARG, "modelled copy of 0-byte elements");
    /* Only a virtual clock books it: a real one's time is real. */
    const dmsg_tp_vtime_ops *v = dmsg_vtime();
    return v ? v->work(&dmsg_g.tp, w) : DMSG_OK;
}
