/* Fetches: fi_readmsg over the pieces of the transfer, with a window of
 * reads in flight; non-blocking fetches keep their batch in the request. */
#include <stdlib.h>
#include <string.h>
#include "dmsg/transport/ofi/ofi.h"

typedef struct rgroup {
    ofi_state *s;
    int pe;
    size_t lim;
    struct iovec iov[16];
    struct fi_rma_iov riov[16];
    size_t k;
    ofi_batch *b;
} rgroup;

static int window_ok(ofi_state *s, const void *arg)
{
    const ofi_batch *b = arg;
    return b->pending < OFI_WINDOW;
}

static dmsg_status post_read(rgroup *g)
{
    ofi_state *s = g->s;
    dmsg_status st;
    if (g->b->pending >= OFI_WINDOW &&
        (st = ofi_wait_pred(s, window_ok, g->b, "the fetch window")))
        return st;
    struct fi_msg_rma m = {.msg_iov = g->iov, .iov_count = g->k, .addr = (fi_addr_t)g->pe,
                           .rma_iov = g->riov, .rma_iov_count = g->k, .context = g->b};
    double deadline = 0;
    for (;;) {
        ssize_t rc = fi_readmsg(s->fab.ep, &m, FI_COMPLETION);
        if (rc == 0)
            break;
        if (rc != -FI_EAGAIN)
            return DMSG_FAIL(DMSG_ERR_TRANSPORT, "%s: fi_readmsg from PE %d: %s", s->caps.prov,
                             g->pe, fi_strerror((int)-rc));
        if ((st = ofi_progress(s)))
            return st;
        double t = ofi_now();
        if (!deadline)
            deadline = t + s->timeout;
        else if (t > deadline)
            return DMSG_FAIL(DMSG_ERR_TIMEOUT, "%s: send queue to PE %d stayed full", s->caps.prov,
                             g->pe);
    }
    s->tx_pending++;
    g->b->pending++;
    g->k = 0;
    return DMSG_OK;
}

static dmsg_status on_piece(void *arg, size_t roff, char *local, size_t len)
{
    rgroup *g = arg;
    ofi_state *s = g->s;
    while (len) {
        dmsg_status st;
        if (g->k == g->lim && (st = post_read(g)))
            return st;
        size_t n = len < s->caps.max_msg ? len : s->caps.max_msg;
        g->iov[g->k] = (struct iovec){.iov_base = local, .iov_len = n};
        g->riov[g->k] = (struct fi_rma_iov){.addr = s->peer[g->pe].addr + OFI_CTL_BYTES + roff,
                                            .len = n, .key = s->peer[g->pe].key};
        g->k++;
        roff += n;
        local += n;
        len -= n;
    }
    return DMSG_OK;
}

dmsg_status ofi_get(ofi_state *s, const dmsg_op *op, ofi_batch *b)
{
    rgroup g = {.s = s, .pe = op->pe, .b = b};
    g.lim = s->caps.iov_limit < s->caps.rma_iov_limit ? s->caps.iov_limit : s->caps.rma_iov_limit;
    if (g.lim > 16)
        g.lim = 16;
    dmsg_status st = ofi_runs(op, on_piece, &g);
    if (!st && g.k)
        st = post_read(&g);
    return st;
}

dmsg_status ofi_xfer_nb(dmsg_tp *tp, const dmsg_op *op, dmsg_req *req)
{
    ofi_state *s = tp->priv;
    if (op->pe == s->rank) {
        dmsg_status st = ofi_xfer(tp, op, UINT32_MAX);
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
            double t = ofi_now() + s->timeout;
            memcpy(&req->priv[1], &t, sizeof t < sizeof(void *) ? sizeof t : sizeof(void *));
            *done = 0;
            return DMSG_OK;
        }
        double t;
        memcpy(&t, &req->priv[1], sizeof t);
        if (ofi_now() <= t) {
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
