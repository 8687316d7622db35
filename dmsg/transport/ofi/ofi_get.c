/* Fetches: fi_readmsg over the pieces of the transfer, with a window of
 * reads in flight; non-blocking fetches keep their batch in the request. */
#include <stdlib.h>
#include <string.h>
#include "dmsg/transport/ofi/ofi.h"

dmsg_status ofi_get(ofi_state *s, const dmsg_op *op, ofi_batch *b)
{
    ofi_group g;
    ofi_group_init(&g, s, op->pe, 1, b);
    dmsg_status st = dmsg_op_runs(op, ofi_group_add, &g);
    if (!st && g.k)
        st = ofi_group_post(&g, 0, 0, b);
    return st;
}

dmsg_status ofi_get_nb(dmsg_tp *tp, const dmsg_op *op, dmsg_req *req)
{
    ofi_state *s = tp->priv;
    if (op->pe == s->rank) {
        dmsg_status st = ofi_move(tp, op, UINT32_MAX);
        req->priv[0] = NULL;
        return st;
    }
    ofi_batch *b = calloc(1, sizeof *b);
    if (!b)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "fetch request");
    dmsg_status st = ofi_get(s, op, b);
    if (st) {
        /* Reads already posted refer to b: let them finish before freeing. */
        ofi_wait_batch(s, b, "fetch completions");
        free(b);
        return st;
    }
    req->priv[0] = b;
    return DMSG_OK;
}

dmsg_status ofi_req_test(dmsg_tp *tp, dmsg_req *req, int *done)
{
    ofi_state *s = tp->priv;
    ofi_batch *b = req->priv[0];
    if (!b) {
        *done = 1;
        return DMSG_OK;
    }
    dmsg_status st = ofi_progress(s);
    if (b->pending && !st) {
        /* dmsg_wait polls this without a limit: bound it here. */
        if (!req->priv[1]) {
            double t = dmsg_clock_now() + s->timeout;
            memcpy(&req->priv[1], &t, sizeof t < sizeof(void *) ? sizeof t : sizeof(void *));
            *done = 0;
            return DMSG_OK;
        }
        double t;
        memcpy(&t, &req->priv[1], sizeof t);
        if (dmsg_clock_now() <= t) {
            *done = 0;
            return DMSG_OK;
        }
        st = DMSG_FAIL(DMSG_ERR_TIMEOUT, "%s: fetch not complete after %g s", s->caps.prov,
                       s->timeout);
        /* The reads still refer to b: it is leaked rather than freed under them. */
        req->priv[0] = NULL;
        *done = 1;
        return st;
    }
    req->priv[0] = NULL;
    *done = 1;
    if (b->pending)
        return st; /* progress failed with reads in flight: b is leaked, not freed under them */
    if (!st)
        st = b->status;
    free(b);
    return st;
}
