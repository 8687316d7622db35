/* Copy-transfer model evaluator (REFERENCE.md 1): composes basic transfers
 * of a machine into local and remote copies, with a trace of the formula so
 * an estimate can be checked by hand against the published ones. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmsg/model/ctm.h"

/* Appends to a bounded trace buffer (NULL or len 0: nothing). */
static void tr(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void tr(char *buf, size_t len, const char *fmt, ...)
{
    if (!buf || !len)
        return;
    size_t used = strnlen(buf, len);
    if (used + 1 >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

static void tr_reset(char *buf, size_t len)
{
    if (buf && len)
        buf[0] = 0;
}

double dmsg_ctm_par(const double *mbs, int n)
{
    double r = n > 0 ? mbs[0] : 0;
    for (int i = 1; i < n; i++)
        r = mbs[i] < r ? mbs[i] : r;
    return r > 0 ? r : 0;
}

double dmsg_ctm_seq(const double *mbs, int n)
{
    double t = 0;
    for (int i = 0; i < n; i++) {
        if (!(mbs[i] > 0))
            return 0;
        t += 1 / mbs[i];
    }
    return n > 0 ? 1 / t : 0;
}

const char *dmsg_ctm_pat_str(long pat, char *buf, size_t len)
{
    if (pat == DMSG_PAT_INDEXED)
        snprintf(buf, len, "w");
    else
        snprintf(buf, len, "%ld", pat);
    return buf;
}

static int parse_pat(const char *s, size_t n, long *pat)
{
    if (n == 1 && s[0] == 'w') {
        *pat = DMSG_PAT_INDEXED;
        return 0;
    }
    if (n == 0 || n > 9)
        return -1;
    long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    if (v < 1)
        return -1;
    *pat = v;
    return 0;
}

int dmsg_ctm_parse_name(const char *s, long *x, long *y)
{
    const char *op = strpbrk(s, "QC");
    if (!op || parse_pat(s, (size_t)(op - s), x) || parse_pat(op + 1, strlen(op + 1), y))
        return 0;
    return *op;
}

/* ---------------------------------------------------------- local copy */

double dmsg_ctm_copy_mbs(const dmsg_machine *m, long x, long y, char *trace, size_t len)
{
    char xs[16], ys[16];
    dmsg_ctm_pat_str(x, xs, sizeof xs);
    dmsg_ctm_pat_str(y, ys, sizeof ys);
    tr_reset(trace, len);
    double r;
    if (y == 1 || x == 1) {
        r = y == 1 ? dmsg_mach_curve_at(&m->copy_gather, x)
                   : dmsg_mach_curve_at(&m->copy_scatter, y);
        if (r > 0)
            tr(trace, len, "%sC%s = %.6g", xs, ys, r);
        else
            tr(trace, len, "%sC%s: no copy.%sC%s in %s", xs, ys, xs, ys, m->name);
        return r;
    }
    /* Neither end contiguous: time per byte of the gather plus the scatter,
     * minus the contiguous copy that both of them include once. */
    double g = dmsg_mach_curve_at(&m->copy_gather, x);
    double s = dmsg_mach_curve_at(&m->copy_scatter, y);
    double c = dmsg_mach_curve_at(&m->copy_gather, 1);
    if (!(g > 0 && s > 0 && c > 0)) {
        tr(trace, len, "%sC%s: %s lacks copy.%sC1 or copy.1C%s", xs, ys, m->name, xs, ys);
        return 0;
    }
    double t = 1 / g + 1 / s - 1 / c;
    r = t > 0 ? 1 / t : (g < s ? g : s);
    tr(trace, len, "%sC%s = 1/(1/%sC1 + 1/1C%s - 1/1C1) = 1/(1/%.6g + 1/%.6g - 1/%.6g) = %.1f",
       xs, ys, xs, ys, g, s, c, r);
    return r;
}

/* --------------------------------------------------------- remote copy */

/* One end of the network path: the better of the processor and the engine.
 * Writes the chosen basic transfer's name into name. */
static double best_end(const dmsg_mach_curve *proc, const dmsg_mach_curve *eng, long pat,
                       int send, char *name, size_t len)
{
    char ps[16];
    dmsg_ctm_pat_str(pat, ps, sizeof ps);
    double p = dmsg_mach_curve_at(proc, pat), e = dmsg_mach_curve_at(eng, pat);
    int use_eng = e > p;
    if (send)
        snprintf(name, len, "%s%s0", ps, use_eng ? "F" : "S");
    else
        snprintf(name, len, "0%s%s", use_eng ? "D" : "R", ps);
    return use_eng ? e : p;
}

static double packed(const dmsg_machine *m, long x, long y, double c, char *trace, size_t len)
{
    char xs[16], ys[16], sn[24], rn[24];
    dmsg_ctm_pat_str(x, xs, sizeof xs);
    dmsg_ctm_pat_str(y, ys, sizeof ys);
    double gather = dmsg_mach_curve_at(&m->copy_gather, x);
    double scatter = dmsg_mach_curve_at(&m->copy_scatter, y);
    double snd = best_end(&m->send, &m->fetch, 1, 1, sn, sizeof sn);
    double rcv = best_end(&m->recv, &m->deposit, 1, 0, rn, sizeof rn);
    double nd = dmsg_mach_net_at(m->net_nd, c);
    double mid3[3] = {snd, nd, rcv};
    double mid = dmsg_ctm_par(mid3, 3);
    double all[3] = {gather, mid, scatter};
    double r = dmsg_ctm_seq(all, 3);
    tr(trace, len, "packed: %sC1 o (%s || Nd[c=%g] || %s) o 1C%s", xs, sn, c, rn, ys);
    if (!(r > 0)) {
        tr(trace, len, ": %s lacks copy.%sC1 or copy.1C%s", m->name, xs, ys);
        return 0;
    }
    tr(trace, len, " = 1/(1/%.6g + 1/min(%.6g, %.6g, %.6g) + 1/%.6g) = %.1f MB/s", gather, snd,
       nd, rcv, scatter, r);
    return r;
}

static double chained(const dmsg_machine *m, long x, long y, double c, char *trace, size_t len)
{
    char xs[16], ys[16], sn[24], rn[24];
    dmsg_ctm_pat_str(x, xs, sizeof xs);
    dmsg_ctm_pat_str(y, ys, sizeof ys);
    int direct = x == 1 && y == 1;
    if (!direct && !(m->mechanisms & DMSG_MECH_CHAINED)) {
        tr(trace, len, "chained: not allowed on %s (mechanisms: packed only)", m->name);
        return 0;
    }
    /* Processor-driven chaining: the engines move contiguous blocks only and
     * the receiving processor computes the addresses, so no address crosses
     * the network (REFERENCE.md 9, the Paragon). */
    static const dmsg_mach_curve none = {.none = 1};
    int proc = !direct && m->chain_form == DMSG_CHAIN_PROCESSOR;
    double snd = best_end(&m->send, proc ? &none : &m->fetch, x, 1, sn, sizeof sn);
    double rcv = best_end(&m->recv, proc ? &none : &m->deposit, y, 0, rn, sizeof rn);
    int data_only = direct || proc;
    double net = dmsg_mach_net_at(data_only ? m->net_nd : m->net_nadp, c);
    tr(trace, len, "%s: %s || %s[c=%g] || %s", direct ? "direct" : "chained", sn,
       data_only ? "Nd" : "Nadp", c, rn);
    double v[3] = {snd, net, rcv};
    double r = dmsg_ctm_par(v, 3);
    if (!(r > 0)) {
        tr(trace, len, ": %s has no %s", m->name, snd > 0 ? rn : sn);
        return 0;
    }
    tr(trace, len, " = min(%.6g, %.6g, %.6g) = %.1f MB/s", snd, net, rcv, r);
    return r;
}

double dmsg_ctm_remote_mbs(const dmsg_machine *m, long x, long y, dmsg_mech mech, double c,
                           dmsg_mech *used, char *trace, size_t len)
{
    tr_reset(trace, len);
    char xs[16], ys[16];
    tr(trace, len, "%s %sQ%s ", m->name, dmsg_ctm_pat_str(x, xs, sizeof xs),
       dmsg_ctm_pat_str(y, ys, sizeof ys));
    if (!(c >= 1)) {
        tr(trace, len, "congestion %g < 1", c);
        return 0;
    }
    if (mech == DMSG_MECH_CHAINED) {
        if (used)
            *used = DMSG_MECH_CHAINED;
        return chained(m, x, y, c, trace, len);
    }
    if (mech == DMSG_MECH_PACKED) {
        if (used)
            *used = DMSG_MECH_PACKED;
        if (!(m->mechanisms & DMSG_MECH_PACKED)) {
            tr(trace, len, "packed: not allowed on %s", m->name);
            return 0;
        }
        return packed(m, x, y, c, trace, len);
    }
    /* AUTO: evaluate both into scratch traces, keep the faster. */
    char tp[512] = "", tc[512] = "";
    double p = (m->mechanisms & DMSG_MECH_PACKED) ? packed(m, x, y, c, tp, sizeof tp) : 0;
    double ch = chained(m, x, y, c, tc, sizeof tc);
    int pick_chained = ch > p;
    if (used)
        *used = pick_chained ? DMSG_MECH_CHAINED : DMSG_MECH_PACKED;
    tr(trace, len, "auto -> %s", pick_chained ? tc : tp);
    return pick_chained ? ch : p;
}

double dmsg_ctm_transfer_seconds(const dmsg_machine *m, const dmsg_ctm_transfer *x, dmsg_mech mech,
                                 char *trace, size_t tracelen)
{
    double mbs = dmsg_ctm_remote_mbs(m, x->src, x->dst, mech, m->congestion, NULL, trace,
                                     tracelen);
    if (x->bytes > 0 && !(mbs > 0))
        return -1;
    double s = m->overhead_us * 1e-6 + (x->bytes > 0 ? (double)x->bytes / (mbs * 1e6) : 0);
    tr(trace, tracelen, "; %zu B / %.1f MB/s + %g us = %.3f us", x->bytes, mbs, m->overhead_us,
       s * 1e6);
    return s;
}

double dmsg_ctm_barrier_seconds(const dmsg_machine *m, int npes)
{
    if (m->barrier_kind != DMSG_BARRIER_TREE || npes <= 1)
        return m->barrier_us * 1e-6;
    int depth = 0;
    while ((1L << depth) < npes)
        depth++;
    return (m->barrier_us + 2.0 * depth * m->barrier_hop_us) * 1e-6;
}

/* ------------------------------------------------------ SCAP / VSCAP */

static double dmax(double a, double b)
{
    return a > b ? a : b;
}

double dmsg_ctm_scap_blocking(double k, double tl)
{
    return k * tl;
}

double dmsg_ctm_scap_pipelined(double k, double tl, double dtp, double dtc, double dtn, double cn,
                               double cp, int *cls, char *trace, size_t len)
{
    tr_reset(trace, len);
    if (!(k > 0))
        return 0;
    if (!(dtc >= dtn) || !(fmin(cn, cp) * dtp >= tl)) {
        tr(trace, len,
           "pipelined: outside the class model (needs dt_c >= dt_n and min(C_n, C_p) dt_p >= "
           "T_L)");
        return -1;
    }
    /* T = k dt_p + waits. Only the first access can wait: for T_L - k dt_p
     * when the issue loop is shorter than the latency. Later accesses find
     * their data because the window covers the latency and accesses keep up
     * with the network; the access loop is not charged (REFERENCE.md 9). */
    int c = k <= cn ? 1 : k <= cp ? 2 : 3;
    double issue = k * dtp, wait = fmax(0, tl - issue), t = issue + wait;
    tr(trace, len, "pipelined class %d (k %s C_n = %g%s): k dt_p + wait = %g*%g + max(0, %g - %g)"
       " = %.1f ns", c, c == 1 ? "<=" : ">", cn, c == 3 ? ", k > C_p" : "", k, dtp, tl, issue, t);
    if (cls)
        *cls = c;
    return t;
}

double dmsg_ctm_vscap_LL(double K, double L, double tl, double tn, double tvL, double tzL,
                         double ts, double cv, int *which, char *trace, size_t len)
{
    tr_reset(trace, len);
    double nv = K / L, t;
    int c;
    if (K <= cv - L && nv * tvL < tl + (L - 1) * tn) {
        c = 1;
        t = nv * tzL + tl + (L - 1) * tn;
        tr(trace, len, "(L,L) case 1: (K/L) t_z^L + T_L + (L-1) t_n = %g*%g + %g + %g*%g", nv,
           tzL, tl, L - 1, tn);
    } else if (K <= cv - L) {
        c = 2;
        t = nv * (tvL + tzL);
        tr(trace, len, "(L,L) case 2: (K/L)(t_v^L + t_z^L) = %g*(%g + %g)", nv, tvL, tzL);
    } else {
        c = 3;
        t = nv * (tvL + tzL) - ((K - cv + L) / L) * ts;
        tr(trace, len,
           "(L,L) case 3: (K/L)(t_v^L + t_z^L) - ((K-C_V+L)/L) t_s = %g*(%g + %g) - %g*%g", nv,
           tvL, tzL, (K - cv + L) / L, ts);
    }
    tr(trace, len, " = %.1f ns", t);
    if (which)
        *which = c;
    return t;
}

double dmsg_ctm_vscap_1L(double K, double L, double tl, double tv, double tzL, char *trace,
                         size_t len)
{
    tr_reset(trace, len);
    double t = K * tv + dmax(tl, (K / L) * tzL);
    tr(trace, len, "(1,L): K t_v + max(T_L, (K/L) t_z^L) = %g*%g + max(%g, %g*%g) = %.1f ns", K,
       tv, tl, K / L, tzL, t);
    return t;
}
