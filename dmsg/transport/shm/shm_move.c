/* The shm transport's data movement: the copy engine copies straight
 * between the local buffer and the target's segment, then the deposit is
 * counted (dmsg_shm_ctr_signal releases it after the copy). */
#include "dmsg/transport/shm/shm.h"

dmsg_status dmsg_shm_put(dmsg_tp *tp, const dmsg_op *op, uint32_t slot)
{
    shm_state *s = tp->priv;
    dmsg_copy_op(op, shm_remote(s, op), &s->xp);
    if (slot != UINT32_MAX)
        dmsg_shm_ctr_signal(tp, op->pe, slot, op->payload);
    shm_ring(s, op->pe); /* a point-to-point wait may watch the words */
    return DMSG_OK;
}

dmsg_status dmsg_shm_get(dmsg_tp *tp, const dmsg_op *op)
{
    shm_state *s = tp->priv;
    dmsg_copy_op(op, shm_remote(s, op), &s->xp);
    return DMSG_OK;
}

dmsg_status dmsg_shm_get_nb(dmsg_tp *tp, const dmsg_op *op, dmsg_req *req)
{
    return dmsg_shm_get(tp, op);
}

dmsg_status dmsg_shm_req_test(dmsg_tp *tp, dmsg_req *req, int *done)
{
    *done = 1;
    return DMSG_OK;
}
