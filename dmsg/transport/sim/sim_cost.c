/* Costs of the sim transport's operations, from the machine description by
 * the copy-transfer model (ctm.h). Patterns: the copy-transfer model counts
 * in 64-bit words, so a byte stride becomes a word stride (at least 1). */
#include <math.h>
#include <stdlib.h>
#include "dmsg/model/ctm.h"
#include "dmsg/transport/sim/sim.h"

static long model_pat(sim_pat p, ptrdiff_t stride)
{
    switch (p) {
    case SIM_PAT_CONTIG: return 1;
    case SIM_PAT_INDEXED: return DMSG_PAT_INDEXED;
    case SIM_PAT_STRIDED: break;
    }
    long words = labs((long)stride) / 8;
    return words < 1 ? 1 : words;
}

static double secs(double bytes, double mbs)
{
    return mbs > 0 ? bytes / (mbs * 1e6) : 0;
}

double dmsg_sim_cost_deposit(const sim_state *s, const sim_transfer *x, double *copy_part)
{
    const dmsg_machine *m = &s->m;
    long src = model_pat(x->src, x->src_stride), dst = model_pat(x->dst, x->dst_stride);
    double bytes = (double)x->bytes;
    *copy_part = 0;
    /* A deposit to oneself is a local copy xCy. */
    if (x->pe == s->tp->rank) {
        *copy_part = secs(bytes, dmsg_ctm_copy_mbs(m, src, dst, NULL, 0));
        return *copy_part;
    }
    dmsg_mech used;
    /* A deposit the topology model routed: the congestion on its route
     * (sim_topo.c; 0 for anything it does not route). */
    double cong = s->topo_c > 0 ? s->topo_c : s->congestion;
    double mbs = dmsg_ctm_remote_mbs(m, src, dst, s->mech, cong, &used, NULL, 0);
    if (mbs <= 0) /* the forced mechanism cannot move this pattern: take what can */
        mbs = dmsg_ctm_remote_mbs(m, src, dst, DMSG_MECH_AUTO, cong, &used, NULL, 0);
    /* Packing copies at both ends, also 1C1 ones: the model charges them
     * (xC1 o ... o 1Cy, as in the published worked example). */
    if (used == DMSG_MECH_PACKED)
        *copy_part = secs(bytes, dmsg_ctm_copy_mbs(m, src, 1, NULL, 0)) +
                     secs(bytes, dmsg_ctm_copy_mbs(m, 1, dst, NULL, 0));
    return m->overhead_us * 1e-6 + secs(bytes, mbs);
}

double dmsg_sim_cost_latency(const sim_state *s)
{
    /* One way: half of a blocking round trip (write + ack, else a read). */
    const dmsg_machine *m = &s->m;
    return 0.5e-6 * (m->write_us > 0 ? m->write_us : m->read_us);
}

double dmsg_sim_cost_amo(const sim_state *s)
{
    const dmsg_machine *m = &s->m;
    return 1e-6 * (m->amo_us > 0 ? m->amo_us : m->read_us);
}

double dmsg_sim_cost_barrier(const sim_state *s, int npes)
{
    return dmsg_ctm_barrier_seconds(&s->m, npes);
}

/* A fetch as one request answered by a block transfer: the request's latency
 * and overhead, then the data at the remote copy rate (no prefetch hardware). */
static double fetch_block(const sim_state *s, double bytes, long src, long dst, double *issue)
{
    const dmsg_machine *m = &s->m;
    dmsg_mech used;
    double mbs = dmsg_ctm_remote_mbs(m, src, dst, DMSG_MECH_AUTO, s->congestion, &used, NULL, 0);
    *issue = m->overhead_us * 1e-6;
    return 2 * m->overhead_us * 1e-6 + m->read_us * 1e-6 + secs(bytes, mbs);
}

double dmsg_sim_cost_fetch(const sim_state *s, const sim_transfer *x, double *issue_part)
{
    const dmsg_machine *m = &s->m;
    long src = model_pat(x->src, x->src_stride), dst = model_pat(x->dst, x->dst_stride);
    double bytes = (double)x->bytes, k = ceil(bytes / 8), t;
    sim_fetch how = s->fetch;
    if (x->pe == s->tp->rank) {
        *issue_part = secs(bytes, dmsg_ctm_copy_mbs(m, src, dst, NULL, 0));
        return *issue_part;
    }
    if (how == SIM_FETCH_AUTO)
        how = m->vec_len > 1 ? SIM_FETCH_VECTOR
              : m->pf_window > 0 ? SIM_FETCH_PIPELINED : SIM_FETCH_AUTO;
    if (k == 0)
        how = SIM_FETCH_AUTO;
    switch (how) {
    case SIM_FETCH_BLOCKING: /* one blocking remote read per word */
        t = dmsg_ctm_scap_blocking(k, m->read_us * 1e3) * 1e-9;
        *issue_part = t;
        return t;
    case SIM_FETCH_PIPELINED:
        if (m->pf_window <= 0)
            break;
        {
            double cn = m->pf_net_capacity > 0 ? m->pf_net_capacity : m->pf_window;
            t = dmsg_ctm_scap_pipelined(k, m->pf_latency_ns, m->pf_issue_ns, m->pf_access_ns,
                                        m->net_issue_ns, cn, m->pf_window, NULL, NULL, 0) *
                1e-9;
            *issue_part = k * m->pf_issue_ns * 1e-9;
            return t;
        }
    case SIM_FETCH_VECTOR:
        if (m->vec_len <= 1)
            break;
        {
            double L = m->vec_len, tl = m->vec_latency_ns > 0 ? m->vec_latency_ns
                                                              : m->pf_latency_ns;
            if (src == DMSG_PAT_INDEXED) {
                /* An indexed gather: single prefetches, vector access, with
                 * the indirect-gather kernel's times where the machine has
                 * them. */
                double tv = m->gather_tv_ns > 0 ? m->gather_tv_ns : m->vec_tv_ns;
                double tzL = m->gather_tzL_ns > 0 ? m->gather_tzL_ns : m->vec_tzL_ns;
                t = dmsg_ctm_vscap_1L(k, L, tl, tv, tzL, NULL, 0) * 1e-9;
                *issue_part = k * tv * 1e-9;
            } else {
                t = dmsg_ctm_vscap_LL(k, L, tl, m->net_issue_ns, m->vec_tvL_ns, m->vec_tzL_ns,
                                      m->vec_ts_ns, m->vec_window, NULL, NULL, 0) * 1e-9;
                *issue_part = ceil(k / L) * m->vec_tvL_ns * 1e-9;
            }
            return t;
        }
    case SIM_FETCH_AUTO: break;
    }
    return fetch_block(s, bytes, src, dst, issue_part);
}
