/* Checking and moving a described transfer. */
#include <string.h>
#include "dmsg/core/op.h"

static dmsg_status mul_size(size_t a, size_t b, size_t *out)
{
    if (__builtin_mul_overflow(a, b, out))
        return DMSG_FAIL(DMSG_ERR_OVERFLOW, "%zu elements of %zu bytes overflow", a, b);
    return DMSG_OK;
}

static dmsg_status check_section(dmsg_op *op)
{
    size_t rn, ln;
    dmsg_extent rext, lext;
    dmsg_status st;
    if (!op->rl || !op->ll)
        return DMSG_FAIL(DMSG_ERR_NULL, "section layout is NULL");
    if ((st = dmsg_layout_check(op->rl, op->elem, &rn, &rext)) ||
        (st = dmsg_layout_check(op->ll, op->elem, &ln, &lext)))
        return st;
    if (rn != ln)
        return DMSG_FAIL(DMSG_ERR_ARG, "section sides hold %zu and %zu elements", rn, ln);
    /* The written side must not store two elements to one place. */
    st = dmsg_layout_check_disjoint(op->dir == DMSG_DIR_PUT ? op->rl : op->ll, op->elem);
    if (st)
        return st;
    op->n = rn;
    if ((st = mul_size(rn, op->elem, &op->payload)))
        return st;
    return dmsg_sym_extent(op->remote, rext, &op->roff);
}

static dmsg_status check_indexed(dmsg_op *op)
{
    dmsg_status st;
    size_t bytes, span;
    if (!op->idx)
        return DMSG_FAIL(DMSG_ERR_NULL, "index array is NULL");
    if ((st = mul_size(op->n, op->elem, &bytes)))
        return st;
    op->payload = bytes;
    if (op->kind == DMSG_OP_LOCAL_INDEXED)
        return dmsg_sym_range(op->remote, bytes, &op->roff);
    if (op->n == 0)
        return dmsg_sym_range(op->remote, 0, &op->roff);
    size_t imax = dmsg_index_max(op->idx, op->n);
    if (imax == SIZE_MAX || (st = mul_size(imax + 1, op->elem, &span)))
        return DMSG_FAIL(DMSG_ERR_RANGE, "index %zu leaves the segment", imax);
    if ((st = dmsg_sym_range(op->remote, span, &op->roff)))
        return st == DMSG_ERR_RANGE ? DMSG_FAIL(st, "index %zu leaves the segment", imax) : st;
    return DMSG_OK;
}

static dmsg_status check_adp(dmsg_op *op)
{
    dmsg_status st;
    if (dmsg_adp_record_size(op->elem) == 0)
        return DMSG_FAIL(DMSG_ERR_ARG, "address-data element size %zu (4, 8 or 16)", op->elem);
    if ((st = mul_size(op->n, op->elem, &op->payload)))
        return st;
    if ((st = dmsg_sym_range(op->remote, 0, &op->roff)))
        return st;
    return dmsg_adp_check(op->local, op->n, op->elem, dmsg_g.tp.seg_size - op->roff);
}

dmsg_status dmsg_op_check(dmsg_op *op)
{
    dmsg_status st;
    if ((st = dmsg_check_pe(op->pe)))
        return st;
    if (!op->remote || !op->local)
        return DMSG_FAIL(DMSG_ERR_NULL, "%s buffer is NULL", op->remote ? "local" : "remote");
    if (op->elem == 0)
        return DMSG_FAIL(DMSG_ERR_ARG, "element size 0");
    switch (op->kind) {
    case DMSG_OP_CONTIG:
        op->payload = op->n;
        return dmsg_sym_range(op->remote, op->n, &op->roff);
    case DMSG_OP_SECTION: return check_section(op);
    case DMSG_OP_REMOTE_INDEXED:
    case DMSG_OP_LOCAL_INDEXED: return check_indexed(op);
    case DMSG_OP_ADP: return check_adp(op);
    }
    return DMSG_FAIL(DMSG_ERR_ARG, "unknown transfer kind %d", (int)op->kind);
}

void dmsg_op_move(const dmsg_op *op, char *r)
{
    const dmsg_xfer_params *xp = &dmsg_g.xp;
    char *l = op->local;
    int put = op->dir == DMSG_DIR_PUT;
    switch (op->kind) {
    case DMSG_OP_CONTIG:
        /* memmove: source and destination must not overlap (docs/model.md), but
         * a deposit to oneself that breaks this still gets a defined copy. */
        memmove(put ? r : l, put ? l : r, op->n);
        break;
    case DMSG_OP_SECTION:
        if (op->n == 0)
            break;
        if (put)
            dmsg_copy_section(r, op->rl, l, op->ll, op->elem, xp);
        else
            dmsg_copy_section(l, op->ll, r, op->rl, op->elem, xp);
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

/* Pattern of one side of a section at its innermost (normalized) dimension. */
static void side_pattern(size_t elem, size_t count0, ptrdiff_t stride, dmsg_tp_pat *pat,
                         ptrdiff_t *out_stride)
{
    *pat = (count0 <= 1 || stride == (ptrdiff_t)elem) ? DMSG_TP_PAT_CONTIG
                                                        : DMSG_TP_PAT_STRIDED;
    *out_stride = stride;
}

/* Describes a checked op for a transport's cost model. */
static void describe(const dmsg_op *op, dmsg_tp_xfer *x)
{
    *x = (dmsg_tp_xfer){.get = op->dir == DMSG_DIR_GET, .pe = op->pe, .bytes = op->payload,
                        .elem = op->elem, .src = DMSG_TP_PAT_CONTIG, .dst = DMSG_TP_PAT_CONTIG};
    dmsg_tp_pat *remote = x->get ? &x->src : &x->dst, *local = x->get ? &x->dst : &x->src;
    switch (op->kind) {
    case DMSG_OP_CONTIG: x->elem = op->n; break;
    case DMSG_OP_SECTION: {
        dmsg_sect s;
        const dmsg_layout *dl = x->get ? op->ll : op->rl, *sl = x->get ? op->rl : op->ll;
        if (op->n && dmsg_sect_normalize(&s, dl, sl, op->elem)) {
            x->elem = s.elem;
            side_pattern(s.elem, s.nd ? s.count[0] : 1, s.nd ? s.sstride[0] : 0, &x->src,
                         &x->src_stride);
            side_pattern(s.elem, s.nd ? s.count[0] : 1, s.nd ? s.dstride[0] : 0, &x->dst,
                         &x->dst_stride);
        } else {
            side_pattern(op->elem, sl->count[0], sl->stride[0], &x->src, &x->src_stride);
            side_pattern(op->elem, dl->count[0], dl->stride[0], &x->dst, &x->dst_stride);
        }
        break;
    }
    case DMSG_OP_REMOTE_INDEXED: *remote = DMSG_TP_PAT_INDEXED; break;
    case DMSG_OP_LOCAL_INDEXED: *local = DMSG_TP_PAT_INDEXED; break;
    case DMSG_OP_ADP:
        x->dst = DMSG_TP_PAT_INDEXED;
        x->adp = 1;
        break;
    }
}

dmsg_status dmsg_op_run(const dmsg_op *op, uint32_t slot, int nonblocking, double *done_at)
{
    dmsg_tp *tp = &dmsg_g.tp;
    if (tp->ops->account) {
        dmsg_tp_xfer x;
        describe(op, &x);
        x.nonblocking = nonblocking;
        double t = tp->ops->account(tp, &x);
        if (done_at)
            *done_at = t;
    }
    if (!(tp->ops->caps & DMSG_TP_CAP_DIRECT_MAP))
        return tp->ops->xfer(tp, op, slot);
    dmsg_op_move(op, tp->seg[op->pe] + op->roff);
    if (slot != UINT32_MAX)
        tp->ops->ctr_signal(tp, op->pe, slot, op->payload);
    return DMSG_OK;
}
