/* Deposits. Pieces of a transfer are chained into fi_writemsg iov lists (as
 * many as the provider takes per operation, dmsg_op_runs.c); transfers that fit
 * the inject size return at once, larger ones when the source may be
 * reused. A counted deposit of one operation carries its count as remote CQ
 * data, except a large one on a tx_delivers provider (shm), which is a plain
 * write followed by a signal message; one of several operations is counted
 * by a separate signal after all of them are delivered, so the count never
 * runs ahead of the data. Counting by remote counters (ofi_rcount.c), every
 * counted deposit is its data operations and then a signal write. */
#include "dmsg/transport/ofi/ofi.h"
#include "dmsg/xfer/xfer.h"

/* One RMA operation (fi_writemsg or fi_readmsg), retried while the queue is
 * full. Writes up to the inject size are injected; writes ask for the
 * completion level dmsg_ofi_write_flags says. */
dmsg_status dmsg_ofi_post_rma(ofi_state *s, int read, int pe, const struct iovec *iov, size_t n,
                         const struct fi_rma_iov *riov, size_t rn, uint64_t flags, uint64_t data,
                         ofi_batch *b)
{
    size_t bytes = 0;
    for (size_t i = 0; i < n; i++)
        bytes += iov[i].iov_len;
    flags |= FI_COMPLETION;
    if (!read) {
        flags |= dmsg_ofi_write_flags(s, bytes);
        if (bytes <= s->inject_max)
            flags |= FI_INJECT;
        /* A signal write into the scratch word (a barrier token, a count)
         * carries nothing anybody reads: only its remote CQ data counts,
         * which arrives after the write is placed. It needs no flushing
         * read at the next quiet (on tcp;ofi_rxm a barrier's tokens would
         * otherwise cost a round trip per peer in the next barrier). */
        if (rn != 1 || riov[0].addr != s->peer[pe].addr + OFI_SCRATCH_OFF)
            s->dirty[pe] = 1;
    }
    struct fi_msg_rma m = {.msg_iov = iov, .desc = NULL, .iov_count = n, .addr = (fi_addr_t)pe,
                           .rma_iov = riov, .rma_iov_count = rn, .context = b, .data = data};
    double deadline = 0;
    ssize_t rc;
    dmsg_status st;
    while ((rc = read ? fi_readmsg(s->fab.ep, &m, flags) : fi_writemsg(s->fab.ep, &m, flags)) ==
           -FI_EAGAIN)
        if ((st = dmsg_ofi_retry(s, pe, &deadline)))
            return st;
    if (rc)
        return DMSG_FAIL(DMSG_ERR_TRANSPORT, "%s: fi_%smsg of %zu bytes %s PE %d: %s",
                         s->caps.prov, read ? "read" : "write", bytes, read ? "from" : "to", pe,
                         fi_strerror((int)-rc));
    s->tx_pending++;
    if (b)
        b->pending++;
    dmsg_ofi_bell_ring(s, pe); /* pe's progress places or answers it */
    return DMSG_OK;
}

/* Pieces chained into fi_writemsg lists. The last group is held back so
 * that a deposit of a single operation can carry its own count. */
static dmsg_status put(ofi_state *s, const dmsg_op *op, uint32_t slot)
{
    int counted = slot != UINT32_MAX;
    ofi_batch b = {0};
    ofi_group g;
    dmsg_ofi_group_init(&g, s, op->pe, 0, &b);
    dmsg_status st = dmsg_op_runs(op, dmsg_ofi_group_add, &g);
    if (st)
        goto wait;
    uint64_t sig = counted ? dmsg_ofi_sig_deposit(slot, op->payload) : 0;
    if (s->by_counter) {
        /* The count is a separate signal write, after all the data. */
        if (g.k)
            st = dmsg_ofi_group_post(&g, 0, 0, &b);
        if (!st && counted)
            st = dmsg_ofi_rcount_signal(s, op->pe, slot, op->payload, &b, op->payload);
        counted = 0;
    } else if (g.k && g.ops == 0) {
        /* One operation: it carries its own count, and when it is injected
         * the deposit returns without waiting (quiet and barriers wait). */
        size_t bytes = 0;
        for (size_t i = 0; i < g.k; i++)
            bytes += g.iov[i].iov_len;
        uint64_t fl = counted ? FI_REMOTE_CQ_DATA : 0;
        st = dmsg_ofi_group_post(&g, fl, sig, bytes <= s->inject_max ? NULL : &b);
        counted = 0;
    } else if (g.k) {
        st = dmsg_ofi_group_post(&g, 0, 0, &b);
    }
wait:
    /* Every operation refers to b: wait for all of them even after an error. */
    {
        dmsg_status w = dmsg_ofi_wait_batch(s, &b, "deposit completions");
        if (!st)
            st = w;
    }
    /* The signal may only follow data that is visible at the target. */
    if (!st && counted && s->flush)
        st = dmsg_ofi_flush(s, op->pe);
    if (!st && counted)
        st = s->caps.tx_delivers ? dmsg_ofi_inject_signal(s, op->pe, sig)
                                 : dmsg_ofi_send_signal(s, op->pe, sig);
    return st;
}

/* The common case, without the piece machinery: one operation that carries
 * its own count; injected ones return at once. */
static dmsg_status put_contig(ofi_state *s, const dmsg_op *op, uint32_t slot)
{
    struct iovec iov = {.iov_base = op->local, .iov_len = op->n};
    struct fi_rma_iov r = ofi_seg_riov(s, op->pe, op->roff, op->n);
    int counted = slot != UINT32_MAX;
    if (s->by_counter) {
        /* Data, then the signal write; an injected deposit with
         * write-after-write order returns without any wait. */
        if (op->n <= s->inject_max && (!counted || dmsg_ofi_rcount_ordered(s, op->n))) {
            dmsg_status st = dmsg_ofi_post_rma(s, 0, op->pe, &iov, 1, &r, 1, 0, 0, NULL);
            return st || !counted ? st : dmsg_ofi_rcount_signal(s, op->pe, slot, op->payload, NULL, 0);
        }
        ofi_batch b = {0};
        dmsg_status st = dmsg_ofi_post_rma(s, 0, op->pe, &iov, 1, &r, 1, 0, 0, &b);
        if (!st && counted)
            st = dmsg_ofi_rcount_signal(s, op->pe, slot, op->payload, &b, op->n);
        dmsg_status w = dmsg_ofi_wait_batch(s, &b, "deposit completion");
        return st ? st : w;
    }
    uint64_t sig = counted ? dmsg_ofi_sig_deposit(slot, op->payload) : 0;
    uint64_t fl = counted ? FI_REMOTE_CQ_DATA : 0;
    if (op->n <= s->inject_max)
        return dmsg_ofi_post_rma(s, 0, op->pe, &iov, 1, &r, 1, fl, sig, NULL);
    /* Where the local completion of a large write means that the target has
     * its data (tx_delivers: shm), the write goes plain: without remote CQ
     * data and delivery completion the provider keeps its single-copy path.
     * An injected signal message behind it counts it; quiet flushes those. */
    int split = counted && s->caps.tx_delivers;
    ofi_batch b = {0};
    dmsg_status st = dmsg_ofi_post_rma(s, 0, op->pe, &iov, 1, &r, 1, split ? 0 : fl, sig, &b);
    dmsg_status w = dmsg_ofi_wait_batch(s, &b, "deposit completion");
    if (!st && !w && split)
        st = dmsg_ofi_inject_signal(s, op->pe, sig);
    return st ? st : w;
}

/* Chained or packed: the cost of a deposit is about one operation's
 * overhead per fi_writemsg (lim pieces each) against one per 32 KiB message
 * plus a copy at both ends, which is cheap next to an operation while
 * pieces are short. Long pieces go chained: no copies, and single-copy
 * paths (CMA on shm) stay usable. */
static int use_engine(const ofi_state *s, const dmsg_op *op, size_t lim)
{
    if (s->mech == DMSG_MECH_CHAINED || op->kind == DMSG_OP_CONTIG)
        return 0;
    if (s->mech == DMSG_MECH_PACKED)
        return 1;
    size_t run, n = dmsg_ofi_kinds[op->kind].pieces(op, &run);
    size_t chained_ops = (n + lim - 1) / lim;
    size_t packed_msgs = (size_t)(op->payload / (OFI_ENG_MSG / 2)) + 1;
    return run < 4096 && chained_ops > packed_msgs;
}

dmsg_status dmsg_ofi_move(dmsg_tp *tp, const dmsg_op *op, uint32_t slot)
{
    ofi_state *s = tp->priv;
    if (op->pe == s->tp->rank) {
        dmsg_copy_op(op, s->seg + op->roff, &s->tp->conf.xp); /* a transfer with oneself: a local copy */
        if (op->dir == DMSG_DIR_PUT && slot != UINT32_MAX)
            dmsg_ofi_on_signal(s, dmsg_ofi_sig_deposit(slot, op->payload));
        return DMSG_OK;
    }
    if (op->dir == DMSG_DIR_GET) {
        int done;
        dmsg_status st = dmsg_ofi_get_span(s, op, &done);
        if (st || done)
            return st;
        ofi_batch b = {0};
        st = dmsg_ofi_get(s, op, &b);
        dmsg_status w = dmsg_ofi_wait_batch(s, &b, "fetch completions");
        return st ? st : w;
    }
    if (op->kind == DMSG_OP_CONTIG && op->n && op->n <= s->caps.max_msg)
        return put_contig(s, op, slot);
    size_t lim = s->caps.iov_limit < s->caps.rma_iov_limit ? s->caps.iov_limit
                                                             : s->caps.rma_iov_limit;
    if (use_engine(s, op, lim))
        return dmsg_ofi_engine_put(s, op, slot);
    return put(s, op, slot);
}
