/* Delivery in virtual-time order (order.h): the transport's virtual-time
 * extension (dmsg_tp_vtime_ops), whose every slot the registration check
 * guarantees. */
#include "dmsg/core/caps.h"
#include "dmsg/core/order.h"
#include "dmsg/core/state.h"

int dmsg_order_on(void)
{
    return dmsg_vtime() != NULL;
}

static dmsg_status require(const dmsg_tp_vtime_ops **v)
{
    DMSG_REQUIRE_INIT();
    if (!(*v = dmsg_vtime()))
        return DMSG_FAIL(DMSG_ERR_UNSUPPORTED, "transport %s keeps no virtual time",
                         dmsg_g.tp.ops->name);
    return DMSG_OK;
}

dmsg_status dmsg_order_due(dmsg_ctr ctr, int bytes_mode, uint64_t n, double *t)
{
    const dmsg_tp_vtime_ops *v;
    dmsg_status st = require(&v);
    uint32_t slot;
    if (st)
        return st;
    if (!t)
        return DMSG_FAIL(DMSG_ERR_NULL, "t is NULL");
    if ((st = dmsg_ctr_slot(ctr, 0, &slot)))
        return st;
    return v->ctr_due(&dmsg_g.tp, slot, bytes_mode, n, t);
}

dmsg_status dmsg_order_await_empty(dmsg_ctr ctr, uint64_t n)
{
    const dmsg_tp_vtime_ops *v;
    dmsg_status st = require(&v);
    uint32_t slot;
    if (st || (st = dmsg_ctr_slot(ctr, 0, &slot)) || n == 0)
        return st;
    dmsg_wait_enter(DMSG_WAIT_AWAIT);
    st = v->ctr_wait_empty(&dmsg_g.tp, slot, n);
    dmsg_wait_leave();
    return st;
}

dmsg_status dmsg_order_horizon(double *h)
{
    const dmsg_tp_vtime_ops *v;
    dmsg_status st = require(&v);
    if (st)
        return st;
    if (!h)
        return DMSG_FAIL(DMSG_ERR_NULL, "h is NULL");
    *h = v->horizon(&dmsg_g.tp);
    return DMSG_OK;
}

dmsg_status dmsg_order_wait(double t)
{
    const dmsg_tp_vtime_ops *v;
    dmsg_status st = require(&v);
    if (st)
        return st;
    dmsg_wait_enter(DMSG_WAIT_AWAIT);
    st = v->order_wait(&dmsg_g.tp, t);
    dmsg_wait_leave();
    return st;
}
