/* The run walker (op.h): a checked op as pieces contiguous at both ends,
 * neighbours merged, for transports that move pieces themselves (one piece
 * per iov entry). Sections go through the same normalization and cursors
 * as the copies (copy_sect.c). */
#include <string.h>
#include "dmsg/xfer/kinds.h"
#include "dmsg/xfer/xfer_impl.h"

struct dmsg_merger {
    dmsg_run_fn fn;
    void *arg;
    size_t roff;
    char *local;
    size_t len;
    int have;
};
typedef dmsg_merger merger;

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

/* Two sides of equal totals walked row by row with the engine's cursors:
 * a stretch that is one row on both sides is one run where both rows are
 * contiguous, else one run per element (merged where they continue). */
static dmsg_status walk_sides(merger *m, const xfer_side *r, size_t roff, const xfer_side *l,
                              char *lbase, size_t elem)
{
    xfer_cursor cr = {.l = r}, cl = {.l = l};
    ptrdiff_t rs = r->stride[0], ls = l->stride[0];
    int dense = rs == (ptrdiff_t)elem && ls == (ptrdiff_t)elem;
    size_t left = 1;
    for (int k = 0; k < r->nd; k++)
        left *= r->count[k];
    while (left > 0) {
        size_t n = r->count[0] - cr.idx[0] < l->count[0] - cl.idx[0] ? r->count[0] - cr.idx[0]
                                                                     : l->count[0] - cl.idx[0];
        ptrdiff_t ro = (ptrdiff_t)roff + dmsg_xfer_cursor_off(&cr);
        char *lo = lbase + dmsg_xfer_cursor_off(&cl);
        dmsg_status st = DMSG_OK;
        if (dense)
            st = add(m, (size_t)ro, lo, n * elem);
        for (size_t i = 0; !dense && i < n && !st; i++)
            st = add(m, (size_t)(ro + (ptrdiff_t)i * rs), lo + (ptrdiff_t)i * ls, elem);
        if (st)
            return st;
        dmsg_xfer_cursor_advance(&cr, n);
        dmsg_xfer_cursor_advance(&cl, n);
        left -= n;
    }
    return DMSG_OK;
}

/* A section: normalized where the shapes allow (contiguous dimensions
 * folded into the element), else each side squeezed and folded alone. */
static dmsg_status walk_section(merger *m, const dmsg_op *op, int put)
{
    dmsg_sect s;
    xfer_side r = {0}, l = {0};
    const dmsg_layout *dl = put ? op->rl : op->ll, *sl = put ? op->ll : op->rl;
    if (dmsg_sect_normalize(&s, dl, sl, op->elem)) {
        if (s.nd == 0)
            return add(m, op->roff, op->local, s.elem);
        r.nd = l.nd = s.nd;
        for (int k = 0; k < s.nd; k++) {
            r.count[k] = l.count[k] = s.count[k];
            r.stride[k] = put ? s.dstride[k] : s.sstride[k];
            l.stride[k] = put ? s.sstride[k] : s.dstride[k];
        }
        return walk_sides(m, &r, op->roff, &l, op->local, s.elem);
    }
    if (!dmsg_xfer_squeeze(&r, op->rl) || !dmsg_xfer_squeeze(&l, op->ll))
        return DMSG_OK; /* no elements */
    dmsg_xfer_side_fold(&r);
    dmsg_xfer_side_fold(&l);
    return walk_sides(m, &r, op->roff, &l, op->local, op->elem);
}

/* A periodic pattern in its copy order (period by period, runs in list
 * order), so that a packing transport reads the source as the copy does. */
static dmsg_status walk_periodic(merger *m, const dmsg_op *op)
{
    const dmsg_periodic *p = op->per;
    char *l = op->local;
    size_t so = 0, dsn = 0; /* stream positions */
    dmsg_status st = DMSG_OK;
    for (size_t r = 0; r < p->periods && !st; r++)
        for (size_t k = 0; k < p->nruns && !st; k++) {
            const dmsg_prun *x = &p->run[k];
            if (x->reps <= r) continue;
            size_t ro = p->stream == DMSG_PER_DST_STREAM
                            ? dsn
                            : (size_t)(x->doff + (ptrdiff_t)r * p->dstride);
            char *lo = p->stream == DMSG_PER_SRC_STREAM ? l + so
                                                        : l + x->soff + (ptrdiff_t)r * p->sstride;
            st = add(m, op->roff + ro, lo, x->bytes);
            so += x->bytes;
            dsn += x->bytes;
        }
    return st;
}

/* Each kind's walker (its row in kinds.c). */
dmsg_status dmsg_runs_contig(merger *m, const dmsg_op *op)
{
    return op->n ? add(m, op->roff, op->local, op->n) : DMSG_OK;
}

dmsg_status dmsg_runs_section(merger *m, const dmsg_op *op)
{
    return op->n ? walk_section(m, op, op->dir == DMSG_DIR_PUT) : DMSG_OK;
}

dmsg_status dmsg_runs_remote_indexed(merger *m, const dmsg_op *op)
{
    char *l = op->local;
    dmsg_status st = DMSG_OK;
    for (size_t i = 0; i < op->n && !st; i++)
        st = add(m, op->roff + op->idx[i] * op->elem, l + i * op->elem, op->elem);
    return st;
}

dmsg_status dmsg_runs_local_indexed(merger *m, const dmsg_op *op)
{
    char *l = op->local;
    dmsg_status st = DMSG_OK;
    for (size_t i = 0; i < op->n && !st; i++)
        st = add(m, op->roff + i * op->elem, l + op->idx[i] * op->elem, op->elem);
    return st;
}

dmsg_status dmsg_runs_adp(merger *m, const dmsg_op *op)
{
    char *l = op->local;
    dmsg_status st = DMSG_OK;
    size_t rs = dmsg_adp_record_size(op->elem);
    for (size_t i = 0; i < op->n && !st; i++) {
        char *rec = l + i * rs;
        uint64_t off;
        memcpy(&off, rec, sizeof off);
        st = add(m, op->roff + (size_t)off, rec + sizeof off, op->elem);
    }
    return st;
}

dmsg_status dmsg_runs_periodic(merger *m, const dmsg_op *op)
{
    return walk_periodic(m, op);
}

dmsg_status dmsg_op_runs(const dmsg_op *op, dmsg_run_fn fn, void *arg)
{
    merger m = {.fn = fn, .arg = arg};
    dmsg_status st = dmsg_xfer_kinds[op->kind].runs(&m, op);
    return st ? st : flush(&m);
}
