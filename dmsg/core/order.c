/* Delivery in virtual-time order (order.h): the transport's optional ops. */
#include "dmsg/core/order.h"
#include "dmsg/core/state.h"

int dmsg_order_on(void)
{
    return dmsg_g.initialized && dmsg_g.tp.ops->order_wait != NULL;
}

static dmsg_status require(void)
{
    DMSG_REQUIRE_INIT();
    if (!dmsg_order_on())
        return DMSG_FAIL(DMSG_ERR_UNSUPPORTED, "transport %s keeps no virtual time",
                         dmsg_g.tp.ops->name);
    return DMSG_OK;
}

dmsg_status dmsg_order_due(dmsg_ctr ctr, int bytes_mode, uint64_t n, double *t)
{
    dmsg_status st = require();
    uint32_t slot;
    if (st)
        return st;
    if (!t)
        return DMSG_FAIL(DMSG_ERR_NULL, "t is NULL");
    if ((st = dmsg_ctr_slot(ctr, 0, &slot)))
        return st;
    return dmsg_g.tp.ops->ctr_due(&dmsg_g.tp, slot, bytes_mode, n, t);
}

dmsg_status dmsg_order_await_empty(dmsg_ctr ctr, uint64_t n)
{
    dmsg_status st = require();
    uint32_t slot;
    if (st || (st = dmsg_ctr_slot(ctr, 0, &slot)) || n == 0)
        return st;
    dmsg_wait_enter(DMSG_WAIT_AWAIT);
    st = dmsg_g.tp.ops->ctr_wait(&dmsg_g.tp, slot, 2, n);
    dmsg_wait_leave();
    return st;
}

dmsg_status dmsg_order_horizon(double *h)
{
    dmsg_status st = require();
    if (st)
        return st;
    if (!h)
        return DMSG_FAIL(DMSG_ERR_NULL, "h is NULL");
    *h = dmsg_g.tp.ops->horizon(&dmsg_g.tp);
    return DMSG_OK;
}

dmsg_status dmsg_order_wait(double t)
{
    dmsg_status st = require();
    if (st)
        return st;
    dmsg_wait_enter(DMSG_WAIT_AWAIT);
    st = dmsg_g.tp.ops->order_wait(&dmsg_g.tp, t);
    dmsg_wait_leave();
    return st;
}
