/* Splits a checked transfer into pieces that are contiguous at both ends,
 * merging neighbours, so that each piece is one entry of an iov list; and
 * groups pieces into operations (fi_writemsg / fi_readmsg iov lists) with a
 * window of operations in flight, for deposits and fetches alike. */
#include <string.h>
#include "dmsg/transport/ofi/ofi.h"
#include "dmsg/xfer/xfer.h"

typedef struct merger {
    ofi_run_fn fn;
    void *arg;
    size_t roff;
    char *local;
    size_t len;
    int have;
} merger;

static dmsg_status add(merger *m, size_t roff, char *local, size_t len)
{
    if (m->have && roff == m->roff + m->len && local == m->local + m->len) {
        m->len += len;
        return DMSG_OK;
    }
    dmsg_status st = m->have ? m->fn(m->arg, m->roff, m->local, m->len) : DMSG_OK;
    *m = (merger){m->fn, m->arg, roff, local, len, 1};
    return st;
}

static dmsg_status flush(merger *m)
{
    return m->have ? m->fn(m->arg, m->roff, m->local, m->len) : DMSG_OK;
}

/* Normalized section: nested loops, dimension 0 innermost. */
static dmsg_status walk_sect(merger *m, const dmsg_sect *s, int put, size_t roff, char *l)
{
    size_t idx[DMSG_MAX_DIMS] = {0};
    const ptrdiff_t *rs = put ? s->dstride : s->sstride, *ls = put ? s->sstride : s->dstride;
    ptrdiff_t ro = 0, lo = 0;
    dmsg_status st;
    for (;;) {
        if ((st = add(m, (size_t)((ptrdiff_t)roff + ro), l + lo, s->elem)))
            return st;
        int d = 0;
        for (; d < s->nd; d++) {
            ro += rs[d];
            lo += ls[d];
            if (++idx[d] < s->count[d])
                break;
            ro -= rs[d] * (ptrdiff_t)s->count[d];
            lo -= ls[d] * (ptrdiff_t)s->count[d];
            idx[d] = 0;
        }
        if (d == s->nd)
            return DMSG_OK;
    }
}

/* Odometer over one layout, row-major with dimension 0 fastest. */
typedef struct odo {
    const dmsg_layout *l;
    size_t idx[DMSG_MAX_DIMS];
    ptrdiff_t off;
} odo;

static void odo_next(odo *o)
{
    for (int d = 0; d < o->l->ndims; d++) {
        o->off += o->l->stride[d];
        if (++o->idx[d] < o->l->count[d])
            return;
        o->off -= o->l->stride[d] * (ptrdiff_t)o->l->count[d];
        o->idx[d] = 0;
    }
}

static dmsg_status walk_generic(merger *m, const dmsg_op *op, char *l)
{
    odo r = {.l = op->rl}, lo = {.l = op->ll};
    dmsg_status st;
    for (size_t i = 0; i < op->n; i++) {
        if ((st = add(m, (size_t)((ptrdiff_t)op->roff + r.off), l + lo.off, op->elem)))
            return st;
        odo_next(&r);
        odo_next(&lo);
    }
    return DMSG_OK;
}

dmsg_status ofi_runs(const dmsg_op *op, ofi_run_fn fn, void *arg)
{
    merger m = {.fn = fn, .arg = arg};
    char *l = op->local;
    int put = op->dir == DMSG_DIR_PUT;
    dmsg_status st = DMSG_OK;
    switch (op->kind) {
    case DMSG_OP_CONTIG:
        if (op->n)
            st = add(&m, op->roff, l, op->n);
        break;
    case DMSG_OP_SECTION: {
        if (op->n == 0)
            break;
        dmsg_sect s;
        const dmsg_layout *dl = put ? op->rl : op->ll, *sl = put ? op->ll : op->rl;
        if (dmsg_sect_normalize(&s, dl, sl, op->elem))
            st = walk_sect(&m, &s, put, op->roff, l);
        else
            st = walk_generic(&m, op, l);
        break;
    }
    case DMSG_OP_REMOTE_INDEXED:
        for (size_t i = 0; i < op->n && !st; i++)
            st = add(&m, op->roff + op->idx[i] * op->elem, l + i * op->elem, op->elem);
        break;
    case DMSG_OP_LOCAL_INDEXED:
        for (size_t i = 0; i < op->n && !st; i++)
            st = add(&m, op->roff + i * op->elem, l + op->idx[i] * op->elem, op->elem);
        break;
    case DMSG_OP_ADP: {
        size_t rs = dmsg_adp_record_size(op->elem);
        for (size_t i = 0; i < op->n && !st; i++) {
            char *rec = l + i * rs;
            uint64_t off;
            memcpy(&off, rec, sizeof off);
            st = add(&m, op->roff + (size_t)off, rec + sizeof off, op->elem);
        }
        break;
    }
    }
    return st ? st : flush(&m);
}

/* ---- groups: pieces chained into one operation each (deposits and fetches) ---- */

void ofi_group_init(ofi_group *g, ofi_state *s, int pe, int read, ofi_batch *b)
{
    *g = (ofi_group){.s = s, .pe = pe, .read = read, .b = b};
    g->lim = s->caps.iov_limit < s->caps.rma_iov_limit ? s->caps.iov_limit
                                                         : s->caps.rma_iov_limit;
    if (g->lim > OFI_GROUP_MAX)
        g->lim = OFI_GROUP_MAX;
}

static int window_ok(ofi_state *s, const void *arg)
{
    const ofi_batch *b = arg;
    return b->pending < OFI_WINDOW;
}

dmsg_status ofi_group_post(ofi_group *g, uint64_t flags, uint64_t data, ofi_batch *b)
{
    ofi_state *s = g->s;
    dmsg_status st;
    if (g->b->pending >= OFI_WINDOW &&
        (st = ofi_wait_pred(s, window_ok, g->b, g->read ? "the fetch window"
                                                        : "the deposit window")))
        return st;
    st = ofi_post_rma(s, g->read, g->pe, g->iov, g->k, g->riov, g->k, flags, data, b);
    g->k = 0;
    g->ops++;
    return st;
}

/* An ofi_run_fn: appends a piece, posting the group when it is full (pieces
 * longer than the provider's message size are cut). */
dmsg_status ofi_group_add(void *arg, size_t roff, char *local, size_t len)
{
    ofi_group *g = arg;
    ofi_state *s = g->s;
    while (len) {
        dmsg_status st;
        if (g->k == g->lim && (st = ofi_group_post(g, 0, 0, g->b)))
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
