/* The model's prediction for a scatter arr(idx) = src: depositing (each
 * holder sends every owner one indexed deposit, 1Qw, with its overhead)
 * against fetching (each owner reads every holder's values by index, as the
 * machine fetches: vector or pipelined prefetches where it has them, else
 * one request answered by a block; then a closing barrier lets the holders
 * reuse src); both open with execute's clearance barrier, so the
 * prediction is the time of one dmsg_iplan_execute. Both ways every element is also copied once locally (the
 * holder's gather into the send buffer, or the owner's placement), so that
 * copy does not tell them apart and is left out. The costs are the
 * copy-transfer model's (docs/ctm.md), composed as the simulated machine
 * composes them. */
#include <math.h>
#include "dmsg/model/ctm.h"
#include "dmsg/plan/iplan_impl.h"

static double secs(double bytes, double mbs)
{
    return mbs > 0 ? bytes / (mbs * 1e6) : 0;
}

/* Seconds until k words read by index from another PE have arrived, and
 * the part of it the reader is busy issuing (the rest overlaps with the
 * next fetches, which are all in flight at once). */
static double fetch_s(const dmsg_machine *m, double bytes, double *issue)
{
    double k = ceil(bytes / 8);
    if (m->vec_len > 1) {
        double tl = m->vec_latency_ns > 0 ? m->vec_latency_ns : m->pf_latency_ns;
        double tv = m->gather_tv_ns > 0 ? m->gather_tv_ns : m->vec_tv_ns;
        double tzL = m->gather_tzL_ns > 0 ? m->gather_tzL_ns : m->vec_tzL_ns;
        *issue = k * tv * 1e-9;
        return dmsg_ctm_vscap_1L(k, m->vec_len, tl, tv, tzL, NULL, 0) * 1e-9;
    }
    if (m->pf_window > 0) {
        double cn = m->pf_net_capacity > 0 ? m->pf_net_capacity : m->pf_window;
        double t = dmsg_ctm_scap_pipelined(k, m->pf_latency_ns, m->pf_issue_ns, m->pf_access_ns,
                                           m->net_issue_ns, cn, m->pf_window, NULL, NULL, 0);
        *issue = k * m->pf_issue_ns * 1e-9;
        if (t >= 0) return t * 1e-9;
    }
    double mbs =
        dmsg_ctm_remote_mbs(m, DMSG_PAT_INDEXED, 1, DMSG_MECH_AUTO, m->congestion, NULL, NULL, 0);
    *issue = m->overhead_us * 1e-6;
    return 2 * m->overhead_us * 1e-6 + m->read_us * 1e-6 + secs(bytes, mbs);
}

void dmsg_iplan_model_predict(const iplan_t *ip, const plan_model *pm, const uint64_t *cnt,
                         size_t stride, int p, double *deposit, double *fetch)
{
    const dmsg_machine *m = dmsg_plan_model_machine(pm);
    const long w = DMSG_PAT_INDEXED;
    double e = (double)ip->elem, dep = 0, busy = 0, done = 0, switch_s = m->partner_us * 1e-6;
    int sends = 0;
    /* Partners in the executor's staggered order: deposits to p + i, fetches from p - i. */
    for (int i = 0; i < ip->npes; i++) {
        int to = (p + i) % ip->npes, from = (p - i + ip->npes) % ip->npes;
        double out = (double)cnt[(size_t)p * stride + (size_t)to] * e;  /* p holds for `to` */
        double in = (double)cnt[(size_t)from * stride + (size_t)p] * e; /* `from` holds for p */
        if (i == 0) { /* a deposit or fetch to oneself: a local copy */
            dep += secs(out, dmsg_ctm_copy_mbs(m, 1, w, NULL, 0));
            busy += secs(in, dmsg_ctm_copy_mbs(m, w, 1, NULL, 0));
            done = busy;
            continue;
        }
        if (out > 0) {
            dep += switch_s + m->overhead_us * 1e-6 +
                   secs(out,
                        dmsg_ctm_remote_mbs(m, 1, w, DMSG_MECH_AUTO, m->congestion, NULL, NULL, 0));
            sends = 1;
        }
        if (in > 0) {
            double issue, t = fetch_s(m, in, &issue);
            busy += switch_s;
            done = fmax(done, busy + t);
            busy += issue;
        }
    }
    /* The last deposit lands one one-way latency after it left (half a
     * blocking round trip, as the simulator charges it). */
    if (sends) dep += 0.5e-6 * (m->write_us > 0 ? m->write_us : m->read_us);
    /* Both ways open with the clearance barrier (dmsg_iplan_execute's
     * dmsg_sync); fetching also closes with one. Leaving the opening one out
     * made both predictions one barrier short of the execution's time (on
     * the simulated T3D at 4 PEs: 1.0 us low every time). */
    double barrier = dmsg_ctm_barrier_seconds(m, ip->npes);
    *deposit = barrier + dep;
    *fetch = barrier + fmax(done, busy) + barrier;
}
