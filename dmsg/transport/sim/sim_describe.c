/* What the cost model needs to know about an op: bytes, partner and the
 * access pattern at each end, taken from the innermost dimension of the
 * normalized section (the one the copy loops stream along). */
#include "dmsg/transport/sim/sim.h"

/* Pattern of one side of a section at its innermost (normalized) dimension. */
static void side_pattern(size_t elem, size_t count0, ptrdiff_t stride, sim_pat *pat,
                         ptrdiff_t *out_stride)
{
    *pat = (count0 <= 1 || stride == (ptrdiff_t)elem) ? SIM_PAT_CONTIG
                                                        : SIM_PAT_STRIDED;
    *out_stride = stride;
}

/* Each kind's description (the sim's row of DMSG_OP_KIND_LIST); x holds
 * the defaults: contiguous at both ends, elements of op->elem. */
static void describe_contig(const dmsg_op *op, sim_transfer *x)
{
    x->elem = op->n;
}

static void describe_section(const dmsg_op *op, sim_transfer *x)
{
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
}

static void describe_remote_indexed(const dmsg_op *op, sim_transfer *x)
{
    *(x->get ? &x->src : &x->dst) = SIM_PAT_INDEXED;
}

static void describe_local_indexed(const dmsg_op *op, sim_transfer *x)
{
    *(x->get ? &x->dst : &x->src) = SIM_PAT_INDEXED;
}

/* Runs read and written in address order: priced as constant strides of
 * the mean run at the mean spacing of the runs (the model's nearest
 * pattern), a stream side as contiguous. */
static void describe_periodic(const dmsg_op *op, sim_transfer *x)
{
    size_t run;
    ptrdiff_t sp;
    dmsg_periodic_pattern(op->per, 0, &run, &sp);
    x->elem = run;
    side_pattern(run, 2, sp, &x->src, &x->src_stride);
    dmsg_periodic_pattern(op->per, 1, &run, &sp);
    side_pattern(run, 2, sp, &x->dst, &x->dst_stride);
}

static void describe_adp(const dmsg_op *op, sim_transfer *x)
{
    x->dst = SIM_PAT_INDEXED;
    x->adp = 1;
}

static void (*const describe_kind[])(const dmsg_op *op, sim_transfer *x) = {
#define SIM_ROW_(K, k) [DMSG_OP_##K] = describe_##k,
    DMSG_OP_KIND_LIST(SIM_ROW_)
#undef SIM_ROW_
};
DMSG_OP_TABLE_CHECK(describe_kind);

void dmsg_sim_describe(const dmsg_op *op, sim_transfer *x)
{
    *x = (sim_transfer){.get = op->dir == DMSG_DIR_GET, .pe = op->pe, .bytes = op->payload,
                        .elem = op->elem, .src = SIM_PAT_CONTIG, .dst = SIM_PAT_CONTIG};
    describe_kind[op->kind](op, x);
}
