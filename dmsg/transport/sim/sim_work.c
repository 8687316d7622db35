/* Costs of modelled local work (the vtime extension's work): a pack or unpack copy costs
 * what the machine's processor takes for that local copy xCy (the
 * copy-transfer model), per-message software what the machine description
 * gives for one message (msg.overhead_us), buffer management and matching
 * its msg.buffer_us per buffer and msg.match_us per header compared (0 in
 * a description without them). */
#include <stdlib.h>
#include "dmsg/model/ctm.h"
#include "dmsg/transport/sim/sim.h"

/* A pattern in the model's terms: a stride in 64-bit words (at least 1). */
static long pat(size_t elem, ptrdiff_t stride, int indexed)
{
    if (indexed)
        return DMSG_PAT_INDEXED;
    if (stride == (ptrdiff_t)elem)
        return 1;
    long words = labs((long)stride) / 8;
    return words < 1 ? 1 : words;
}

double dmsg_sim_cost_work(const sim_state *s, const dmsg_work *w, int *k)
{
    const dmsg_machine *m = &s->m;
    switch (w->kind) {
    case DMSG_WORK_COPY: {
        double mbs = dmsg_ctm_copy_mbs(m, pat(w->elem, w->src_stride, w->src_indexed),
                                       pat(w->elem, w->dst_stride, w->dst_indexed), NULL, 0);
        *k = SIM_T_COPY;
        return mbs > 0 ? (double)w->n * (double)w->elem / (mbs * 1e6) : 0;
    }
    case DMSG_WORK_MESSAGE:
        *k = SIM_T_TRANSFER;
        return (double)w->n * m->overhead_us * 1e-6;
    case DMSG_WORK_BUFFER:
        *k = SIM_T_SYNC;
        return (double)w->n * m->buffer_us * 1e-6;
    case DMSG_WORK_MATCH:
        *k = SIM_T_SYNC;
        return (double)w->n * m->match_us * 1e-6;
    }
    return -1;
}
