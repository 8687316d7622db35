/* Fetches: fi_readmsg over the pieces of the transfer, with a window of
 * reads in flight; non-blocking fetches keep their batch in the request. */
#include <stdlib.h>
#include <string.h>
#include "dmsg/transport/ofi/ofi.h"

dmsg_status dmsg_ofi_get(ofi_state *s, const dmsg_op *op, ofi_batch *b)
{
    ofi_group g;
    dmsg_ofi_group_init(&g, s, op->pe, 1, b);
    dmsg_status st = dmsg_op_runs(op, dmsg_ofi_group_add, &g);
    if (!st && g.k)
        st = dmsg_ofi_group_post(&g, 0, 0, b);
    return st;
}

/* A blocking fetch of many short pieces from a compact remote span (a
 * transposed tile, an indexed gather from a small table) reads the span
 * once into a bounce buffer and copies the pieces out locally, instead of
 * one read per few pieces: on shm only a plain read of one remote piece is
 * served without the target (by CMA), a chained one waits until the
 * target's progress serves it, which with PEs outnumbering cores costs a
 * context switch; on tcp;ofi_rxm every read is a round trip. The bytes
 * between the pieces are inside the segment (the pieces' extent was
 * checked) and read, never written. */
typedef struct span_walk {
    size_t lo, hi, pieces;
    const char *buf;
} span_walk;

static dmsg_status span_note(void *arg, size_t roff, char *local, size_t len)
{
    span_walk *w = arg;
    if (w->pieces == 0 || roff < w->lo)
        w->lo = roff;
    if (w->pieces == 0 || roff + len > w->hi)
        w->hi = roff + len;
    w->pieces++;
    return DMSG_OK;
}

static dmsg_status span_copy(void *arg, size_t roff, char *local, size_t len)
{
    span_walk *w = arg;
    memcpy(local, w->buf + (roff - w->lo), len);
    return DMSG_OK;
}

dmsg_status dmsg_ofi_get_span(ofi_state *s, const dmsg_op *op, int *done)
{
    *done = 0;
    if (op->kind == DMSG_OP_CONTIG || op->payload == 0 || op->payload > OFI_SPAN_MAX)
        return DMSG_OK;
    span_walk w = {0};
    dmsg_status st = dmsg_op_runs(op, span_note, &w);
    size_t lim = s->caps.iov_limit < s->caps.rma_iov_limit ? s->caps.iov_limit
                                                             : s->caps.rma_iov_limit;
    size_t span = w.hi - w.lo;
    if (st || w.pieces <= lim || span > OFI_SPAN_MAX || span > s->caps.max_msg ||
        span > OFI_SPAN_RATIO * op->payload)
        return st;
    char *buf = malloc(span);
    if (!buf)
        return DMSG_OK; /* the piecewise fetch needs no buffer */
    struct iovec iov = {.iov_base = buf, .iov_len = span};
    struct fi_rma_iov r = ofi_seg_riov(s, op->pe, w.lo, span);
    ofi_batch b = {0};
    st = dmsg_ofi_post_rma(s, 1, op->pe, &iov, 1, &r, 1, 0, 0, &b);
    dmsg_status wt = dmsg_ofi_wait_batch(s, &b, "a fetch's span read");
    if (!st)
        st = wt;
    if (!st) {
        w.buf = buf;
        st = dmsg_op_runs(op, span_copy, &w);
    }
    free(buf);
    *done = 1;
    return st;
}

dmsg_status dmsg_ofi_get_nb(dmsg_tp *tp, const dmsg_op *op, dmsg_req *req)
{
    ofi_state *s = tp->priv;
    if (op->pe == s->tp->rank) {
        dmsg_status st = dmsg_ofi_move(tp, op, UINT32_MAX);
        req->priv[0] = NULL;
        return st;
    }
    ofi_batch *b = calloc(1, sizeof *b);
    if (!b)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "fetch request");
    dmsg_status st = dmsg_ofi_get(s, op, b);
    if (st) {
        /* Reads already posted refer to b: let them finish before freeing. */
        dmsg_ofi_wait_batch(s, b, "fetch completions");
        free(b);
        return st;
    }
    req->priv[0] = b;
    return DMSG_OK;
}

dmsg_status dmsg_ofi_req_test(dmsg_tp *tp, dmsg_req *req, int *done)
{
    ofi_state *s = tp->priv;
    ofi_batch *b = req->priv[0];
    if (!b) {
        *done = 1;
        return DMSG_OK;
    }
    dmsg_status st = dmsg_ofi_progress(s);
    if (b->pending && !st) {
        /* A caller's own dmsg_test loop has no limit: bound it here by
         * DMSG_TIMEOUT, where one is set, from the request's first test. */
        if (s->tp->conf.timeout <= 0) {
            *done = 0;
            return DMSG_OK;
        }
        double t = dmsg_clock_now();
        if (b->deadline == 0)
            b->deadline = t + s->tp->conf.timeout;
        if (t <= b->deadline) {
            *done = 0;
            return DMSG_OK;
        }
        st = DMSG_FAIL(DMSG_ERR_TIMEOUT, "%s: fetch not complete after %g s", s->caps.prov,
                       s->tp->conf.timeout);
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
    if (!st && b->amo)
        dmsg_ofi_amo_finish((ofi_amo_ctx *)b);
    free(b);
    return st;
}
