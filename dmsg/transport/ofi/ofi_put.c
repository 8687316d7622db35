/* Deposits. Pieces of a transfer are chained into fi_writemsg iov lists (as
 * many as the provider takes per operation); transfers that fit the inject
 * size return at once, larger ones when the source may be reused. A counted
 * deposit of one operation carries its count as remote CQ data; one of
 * several operations is counted by a separate signal after all of them are
 * delivered, so the count never runs ahead of the data. */
#include <string.h>
#include "dmsg/transport/ofi/ofi.h"
#include "dmsg/xfer/xfer.h"

dmsg_status ofi_post_write(ofi_state *s, int pe, const struct iovec *iov, size_t n,
                           const struct fi_rma_iov *riov, size_t rn, uint64_t flags,
                           uint64_t data, ofi_batch *b)
{
    size_t bytes = 0;
    for (size_t i = 0; i < n; i++)
        bytes += iov[i].iov_len;
    flags |= FI_COMPLETION | ofi_write_flags(s);
    s->dirty[pe] = 1;
    if (bytes <= s->inject_max)
        flags |= FI_INJECT;
    struct fi_msg_rma m = {.msg_iov = iov, .desc = NULL, .iov_count = n, .addr = (fi_addr_t)pe,
                           .rma_iov = riov, .rma_iov_count = rn, .context = b, .data = data};
    double deadline = 0;
    for (;;) {
        ssize_t rc = fi_writemsg(s->fab.ep, &m, flags);
        if (rc == 0)
            break;
        if (rc != -FI_EAGAIN)
            return DMSG_FAIL(DMSG_ERR_TRANSPORT, "%s: fi_writemsg of %zu bytes to PE %d: %s",
                             s->caps.prov, bytes, pe, fi_strerror((int)-rc));
        dmsg_status st = ofi_progress(s);
        if (st)
            return st;
        double t = ofi_now();
        if (!deadline)
            deadline = t + s->timeout;
        else if (t > deadline)
            return DMSG_FAIL(DMSG_ERR_TIMEOUT, "%s: send queue to PE %d stayed full", s->caps.prov,
                             pe);
    }
    s->tx_pending++;
    if (b)
        b->pending++;
    return DMSG_OK;
}

/* Groups pieces into operations; the last group is held back so that a
 * deposit of a single operation can carry its own count. */
typedef struct group {
    ofi_state *s;
    int pe;
    size_t lim;
    struct iovec iov[16];
    struct fi_rma_iov riov[16];
    size_t k;
    size_t ops;
    ofi_batch b;
} group;

static int window_ok(ofi_state *s, const void *arg)
{
    const ofi_batch *b = arg;
    return b->pending < OFI_WINDOW;
}

static dmsg_status post_group(group *g, uint64_t flags, uint64_t data)
{
    ofi_state *s = g->s;
    dmsg_status st;
    if (g->b.pending >= OFI_WINDOW &&
        (st = ofi_wait_pred(s, window_ok, &g->b, "the deposit window")))
        return st;
    st = ofi_post_write(s, g->pe, g->iov, g->k, g->riov, g->k, flags, data, &g->b);
    g->k = 0;
    g->ops++;
    return st;
}

static dmsg_status on_piece(void *arg, size_t roff, char *local, size_t len)
{
    group *g = arg;
    ofi_state *s = g->s;
    while (len) {
        dmsg_status st;
        if (g->k == g->lim && (st = post_group(g, 0, 0)))
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

/* A transfer with this PE itself is a local copy, as on shared memory. */
static void move_local(ofi_state *s, const dmsg_op *op)
{
    char *r = s->seg + op->roff, *l = op->local;
    int put = op->dir == DMSG_DIR_PUT;
    switch (op->kind) {
    case DMSG_OP_CONTIG:
        memmove(put ? r : l, put ? l : r, op->n);
        break;
    case DMSG_OP_SECTION:
        if (op->n)
            dmsg_copy_section(put ? r : l, put ? op->rl : op->ll, put ? l : r,
                              put ? op->ll : op->rl, op->elem, NULL);
        break;
    case DMSG_OP_REMOTE_INDEXED:
        if (put)
            dmsg_copy_scatter(r, op->idx, l, op->n, op->elem);
        else
            dmsg_copy_gather(l, r, op->idx, op->n, op->elem);
        break;
    case DMSG_OP_LOCAL_INDEXED:
        if (put)
            dmsg_copy_gather(r, l, op->idx, op->n, op->elem);
        else
            dmsg_copy_scatter(l, op->idx, r, op->n, op->elem);
        break;
    case DMSG_OP_ADP: dmsg_copy_adp(r, l, op->n, op->elem); break;
    }
}

static dmsg_status put(ofi_state *s, const dmsg_op *op, uint32_t slot)
{
    int counted = slot != UINT32_MAX;
    group g = {.s = s, .pe = op->pe};
    g.lim = s->caps.iov_limit < s->caps.rma_iov_limit ? s->caps.iov_limit : s->caps.rma_iov_limit;
    if (g.lim > 16)
        g.lim = 16;
    dmsg_status st = ofi_runs(op, on_piece, &g);
    if (st)
        goto wait;
    uint64_t sig = counted ? ofi_sig_deposit(slot, op->payload) : 0;
    if (g.k && g.ops == 0) {
        /* One operation: it carries its own count, and when it is injected
         * the deposit returns without waiting (quiet and barriers wait). */
        size_t bytes = 0;
        for (size_t i = 0; i < g.k; i++)
            bytes += g.iov[i].iov_len;
        uint64_t fl = counted ? FI_REMOTE_CQ_DATA : 0;
        st = ofi_post_write(s, g.pe, g.iov, g.k, g.riov, g.k, fl, sig,
                            bytes <= s->inject_max ? NULL : &g.b);
        counted = 0;
    } else if (g.k) {
        st = post_group(&g, 0, 0);
    }
wait:
    /* Every operation refers to g.b: wait for all of them even after an error. */
    {
        dmsg_status w = ofi_wait_batch(s, &g.b, "deposit completions");
        if (!st)
            st = w;
    }
    /* The signal may only follow data that is visible at the target. */
    if (!st && counted && s->flush)
        st = ofi_flush(s, op->pe);
    if (!st && counted)
        st = ofi_send_signal(s, op->pe, sig);
    return st;
}

/* The common case, without the piece machinery: one operation that carries
 * its own count; injected ones return at once. */
static dmsg_status put_contig(ofi_state *s, const dmsg_op *op, uint32_t slot)
{
    struct iovec iov = {.iov_base = op->local, .iov_len = op->n};
    struct fi_rma_iov r = {.addr = s->peer[op->pe].addr + OFI_CTL_BYTES + op->roff, .len = op->n,
                           .key = s->peer[op->pe].key};
    uint64_t fl = slot != UINT32_MAX ? FI_REMOTE_CQ_DATA : 0;
    uint64_t sig = slot != UINT32_MAX ? ofi_sig_deposit(slot, op->payload) : 0;
    if (op->n <= s->inject_max)
        return ofi_post_write(s, op->pe, &iov, 1, &r, 1, fl, sig, NULL);
    ofi_batch b = {0};
    dmsg_status st = ofi_post_write(s, op->pe, &iov, 1, &r, 1, fl, sig, &b);
    dmsg_status w = ofi_wait_batch(s, &b, "deposit completion");
    return st ? st : w;
}

/* Pieces (contiguous at both ends) a transfer falls into, estimated
 * without walking it: sections by their folded run length. */
static size_t pieces(const dmsg_op *op, size_t *run)
{
    switch (op->kind) {
    case DMSG_OP_CONTIG: *run = op->n; return 1;
    case DMSG_OP_SECTION: {
        dmsg_sect sc;
        if (op->n && dmsg_sect_normalize(&sc, op->rl, op->ll, op->elem)) {
            *run = sc.elem;
            return sc.elem ? (size_t)(op->payload / sc.elem) : 1;
        }
        break;
    }
    default: break;
    }
    *run = op->elem;
    return op->n;
}

/* Chained or packed: the cost of a deposit is about one operation's
 * overhead per fi_writemsg (lim pieces each) against one per 32 KiB message
 * plus a copy at both ends, which is cheap next to an operation while
 * pieces are short. Long pieces go chained: no copies, and single-copy
 * paths (CMA on shm) stay usable. */
static int use_engine(const ofi_state *s, const dmsg_op *op, size_t lim)
{
    if (s->mech == OFI_MECH_CHAINED || op->kind == DMSG_OP_CONTIG)
        return 0;
    if (s->mech == OFI_MECH_PACKED)
        return 1;
    size_t run, n = pieces(op, &run);
    size_t chained_ops = (n + lim - 1) / lim;
    size_t packed_msgs = (size_t)(op->payload / (OFI_ENG_MSG / 2)) + 1;
    return run < 4096 && chained_ops > packed_msgs;
}

dmsg_status ofi_xfer(dmsg_tp *tp, const dmsg_op *op, uint32_t slot)
{
    ofi_state *s = tp->priv;
    if (op->pe == s->rank) {
        move_local(s, op);
        if (op->dir == DMSG_DIR_PUT && slot != UINT32_MAX)
            ofi_on_signal(s, ofi_sig_deposit(slot, op->payload));
        return DMSG_OK;
    }
    if (op->dir == DMSG_DIR_GET) {
        ofi_batch b = {0};
        dmsg_status st = ofi_get(s, op, &b);
        dmsg_status w = ofi_wait_batch(s, &b, "fetch completions");
        return st ? st : w;
    }
    if (op->kind == DMSG_OP_CONTIG && op->n && op->n <= s->caps.max_msg)
        return put_contig(s, op, slot);
    size_t lim = s->caps.iov_limit < s->caps.rma_iov_limit ? s->caps.iov_limit
                                                             : s->caps.rma_iov_limit;
    if (use_engine(s, op, lim))
        return ofi_engine_put(s, op, slot);
    return put(s, op, slot);
}
