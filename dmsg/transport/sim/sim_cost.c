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

/* The kinds of rate a PE asks the model for: a local copy, or a remote
 * copy by a mechanism (RATE_REMOTE + the dmsg_mech). */
enum { RATE_COPY = 1, RATE_REMOTE = 2 };

/* The copy-transfer model's rate of a local copy (mech < 0) or a remote copy
 * (*used: the mechanism it chose). A rate is a pure function of the machine,
 * the patterns, the mechanism and the congestion, but the model composes it
 * anew and formats its formulas on every call (the automatic mechanism
 * evaluates both into scratch traces): at 128 PEs that was 11% of RRMSG's
 * host time. So each PE keeps the rates it used (a small direct-mapped
 * cache; a miss asks the model again), and every figure stays the same. */
static double rate(sim_state *s, int mech, long src, long dst, double cong, dmsg_mech *used)
{
    int kind = mech < 0 ? RATE_COPY : RATE_REMOTE + mech;
    uint64_t h = (uint64_t)src * 0x9e3779b97f4a7c15ull ^ (uint64_t)dst * 0xc2b2ae3d27d4eb4full ^
                 dbits(cong) * 0x165667b19e3779f9ull ^ (uint64_t)kind;
    sim_rate *r = &s->rates[(h ^ h >> 29) % SIM_RATES];
    if (r->kind == kind && r->src == src && r->dst == dst && r->cong == cong) {
        if (used)
            *used = (dmsg_mech)r->used;
        return r->mbs;
    }
    dmsg_mech u = DMSG_MECH_AUTO;
    double mbs = mech < 0 ? dmsg_ctm_copy_mbs(&s->m, src, dst, NULL, 0)
                          : dmsg_ctm_remote_mbs(&s->m, src, dst, (dmsg_mech)mech, cong, &u, NULL, 0);
    *r = (sim_rate){.kind = kind, .used = (int)u, .src = src, .dst = dst, .cong = cong, .mbs = mbs};
    if (used)
        *used = u;
    return mbs;
}

double dmsg_sim_cost_deposit(sim_state *s, const sim_transfer *x, double *copy_part)
{
    const dmsg_machine *m = &s->m;
    long src = model_pat(x->src, x->src_stride), dst = model_pat(x->dst, x->dst_stride);
    double bytes = (double)x->bytes;
    *copy_part = 0;
    /* A deposit to oneself is a local copy xCy. */
    if (x->pe == s->tp->rank) {
        *copy_part = secs(bytes, rate(s, -1, src, dst, 0, NULL));
        return *copy_part;
    }
    dmsg_mech used;
    /* A deposit the topology model routed: the congestion on its route
     * (sim_topo.c; 0 for anything it does not route). */
    double cong = s->topo_c > 0 ? s->topo_c : s->congestion;
    double mbs = rate(s, (int)s->mech, src, dst, cong, &used);
    if (mbs <= 0) /* the forced mechanism cannot move this pattern: take what can */
        mbs = rate(s, DMSG_MECH_AUTO, src, dst, cong, &used);
    /* Packing copies at both ends, also 1C1 ones: the model charges them
     * (xC1 o ... o 1Cy, as in the published worked example). */
    if (used == DMSG_MECH_PACKED)
        *copy_part = secs(bytes, rate(s, -1, src, 1, 0, NULL)) +
                     secs(bytes, rate(s, -1, 1, dst, 0, NULL));
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
static double fetch_block(sim_state *s, double bytes, long src, long dst, double *issue)
{
    const dmsg_machine *m = &s->m;
    dmsg_mech used;
    double mbs = rate(s, DMSG_MECH_AUTO, src, dst, s->congestion, &used);
    *issue = m->overhead_us * 1e-6;
    return 2 * m->overhead_us * 1e-6 + m->read_us * 1e-6 + secs(bytes, mbs);
}

double dmsg_sim_cost_fetch(sim_state *s, const sim_transfer *x, double *issue_part)
{
    const dmsg_machine *m = &s->m;
    long src = model_pat(x->src, x->src_stride), dst = model_pat(x->dst, x->dst_stride);
    double bytes = (double)x->bytes, k = ceil(bytes / 8), t;
    sim_fetch how = s->fetch;
    if (x->pe == s->tp->rank) {
        *issue_part = secs(bytes, rate(s, -1, src, dst, 0, NULL));
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
