/* Mechanism choice per partner, by the copy-transfer model (docs/ctm.md).
 *
 * Direct: one section deposit per piece (a partner's periodic group: one
 * periodic deposit, priced by its mean run and spacing), which the transport moves its own
 * way (on sim: the faster of chaining and its internal packing, and every
 * deposit pays the per-message overhead). Packed: the pieces are gathered
 * into one buffer by local copies (xC1), sent as one contiguous deposit
 * (1Q1: one overhead), and scattered by the receiver (1Cy). Packing pays
 * where a partner gets many small pieces, or where the machine moves
 * contiguous blocks much faster than strided ones. A pair whose only piece
 * is contiguous at both ends, and the pair with oneself, never pack.
 *
 * The patterns of a piece are those the core reports to the transport: of
 * the innermost dimension after the copy engine's normalization. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dmsg/model/ctm.h"
#include "dmsg/plan/choose.h"
#include "dmsg/xfer/xfer.h"

struct plan_model {
    dmsg_machine m;
    double call_us; /* per piece and side of packing: one local copy call */
};

dmsg_status dmsg_plan_model_open(const char *machine, plan_model **out)
{
    plan_model *pm = calloc(1, sizeof *pm);
    if (pm == NULL) return DMSG_FAIL(DMSG_ERR_NOMEM, "plan: out of memory");
    if (dmsg_machine_load(machine, &pm->m) != DMSG_OK) {
        free(pm);
        return DMSG_FAIL(DMSG_ERR_ENV, "plan: machine %s: %s", machine, dmsg_last_error());
    }
    *out = pm;
    return DMSG_OK;
}

dmsg_status dmsg_plan_model_parse(const char *text, const char *fname, plan_model **out)
{
    plan_model *pm = calloc(1, sizeof *pm);
    if (pm == NULL) return DMSG_FAIL(DMSG_ERR_NOMEM, "plan: out of memory");
    if (dmsg_machine_parse(text, fname, &pm->m) != DMSG_OK) {
        free(pm);
        return DMSG_FAIL(DMSG_ERR_ENV, "plan: %s", dmsg_last_error());
    }
    *out = pm;
    return DMSG_OK;
}

void dmsg_plan_model_host(plan_model *pm)
{
    pm->call_us = pm->m.overhead_us;
}

void dmsg_plan_model_close(plan_model *pm)
{
    free(pm);
}

const char *dmsg_plan_model_name(const plan_model *pm)
{
    return pm->m.name;
}

const dmsg_machine *dmsg_plan_model_machine(const plan_model *pm)
{
    return &pm->m;
}

/* Model pattern of one side: 1 (contiguous) or a stride in 64-bit words. */
static long pat(size_t elem, size_t count0, ptrdiff_t stride)
{
    if (count0 <= 1 || stride == (ptrdiff_t)elem) return 1;
    long words = labs((long)stride) / 8;
    return words < 1 ? 1 : words;
}

void dmsg_plan_piece_pats(const dmsg_piece *pc, size_t elem, long *src, long *dst)
{
    dmsg_sect s;
    if (dmsg_sect_normalize(&s, &pc->dst, &pc->src, elem) && s.nd > 0) {
        *src = pat(s.elem, s.count[0], s.sstride[0]);
        *dst = pat(s.elem, s.count[0], s.dstride[0]);
    } else {
        *src = *dst = 1;
    }
}

static double secs(double bytes, double mbs)
{
    return mbs > 0 ? bytes / (mbs * 1e6) : 0;
}

int dmsg_plan_pack_candidate(const dmsg_piece *pcs, size_t n, size_t elem, int self)
{
    return !self && n > 0 && !(n == 1 && dmsg_plan_piece_contiguous(&pcs[0], elem));
}

void dmsg_plan_group_pats(const plan_group *g, long *x, long *y)
{
    dmsg_periodic p = dmsg_plan_group_pattern(g, DMSG_PER_NO_STREAM);
    size_t run;
    ptrdiff_t sp;
    *x = *y = 1;
    if (dmsg_periodic_check(&p, NULL, NULL) != DMSG_OK) return;
    dmsg_periodic_pattern(&p, 0, &run, &sp);
    *x = pat(run, 2, sp);
    dmsg_periodic_pattern(&p, 1, &run, &sp);
    *y = pat(run, 2, sp);
}

/* Adds one transfer of b bytes with patterns x, y to the direct (*td) and
 * packed (*tp) times: one deposit call direct, one gather and one scatter
 * call packed. */
static void add_transfer(const plan_model *pm, double b, long x, long y, int self, double *td,
                         double *tp)
{
    const dmsg_machine *m = &pm->m;
    if (self) {
        *td += secs(b, dmsg_ctm_copy_mbs(m, x, y, NULL, 0));
        return;
    }
    dmsg_mech used;
    double mbs = dmsg_ctm_remote_mbs(m, x, y, DMSG_MECH_AUTO, m->congestion, &used, NULL, 0);
    *td += m->overhead_us * 1e-6 + secs(b, mbs);
    if (used == DMSG_MECH_PACKED) { /* the transport's own gather and scatter */
        if (x != 1) *td += secs(b, dmsg_ctm_copy_mbs(m, x, 1, NULL, 0));
        if (y != 1) *td += secs(b, dmsg_ctm_copy_mbs(m, 1, y, NULL, 0));
    }
    /* Packing: gather by a local copy, scatter by the receiver's; on
     * a host each is a call of its own per piece. */
    *tp += secs(b, dmsg_ctm_copy_mbs(m, x, 1, NULL, 0)) +
           secs(b, dmsg_ctm_copy_mbs(m, 1, y, NULL, 0)) + 2 * pm->call_us * 1e-6;
}

/* The totals over the pieces (all, or those outside g) and g. */
static void predict(const plan_model *pm, const dmsg_piece *pcs, size_t n, const plan_group *g,
                    size_t elem, int self, double *direct_mbs, double *pack_mbs)
{
    const dmsg_machine *m = &pm->m;
    double c = m->congestion, bytes = 0, td = 0, tp = 0;
    size_t one = g != NULL ? g->nrest : n;
    for (size_t i = 0; i < one; i++) {
        const dmsg_piece *pc = &pcs[g != NULL ? g->rest[i] : i];
        double b = (double)(pc->elems * elem);
        long x, y;
        dmsg_plan_piece_pats(pc, elem, &x, &y);
        bytes += b;
        add_transfer(pm, b, x, y, self, &td, &tp);
    }
    if (g != NULL) { /* one periodic transfer in one pass */
        long x, y;
        dmsg_plan_group_pats(g, &x, &y);
        bytes += (double)g->bytes;
        add_transfer(pm, (double)g->bytes, x, y, self, &td, &tp);
    }
    if (!self) {
        td += m->partner_us * 1e-6;
        tp += m->partner_us * 1e-6 + m->overhead_us * 1e-6 +
              secs(bytes, dmsg_ctm_remote_mbs(m, 1, 1, DMSG_MECH_AUTO, c, NULL, NULL, 0));
    }
    *direct_mbs = td > 0 ? bytes / td / 1e6 : 0;
    *pack_mbs = self ? 0 : tp > 0 ? bytes / tp / 1e6 : 0;
}

void dmsg_plan_model_predict(const plan_model *pm, const dmsg_piece *pcs, size_t n, size_t elem,
                        int self, double *direct_mbs, double *pack_mbs)
{
    predict(pm, pcs, n, NULL, elem, self, direct_mbs, pack_mbs);
}

void dmsg_plan_choose(plan_t *pl, const plan_model *pm)
{
    pl->machine[0] = '\0';
    if (pm != NULL) snprintf(pl->machine, sizeof pl->machine, "%s", dmsg_plan_model_name(pm));
    for (int i = 0; i < pl->nto; i++) {
        plan_peer *pr = &pl->to[i];
        const dmsg_piece *pcs = &pl->sendp.v[pr->first];
        int cand = dmsg_plan_pack_candidate(pcs, pr->npieces, pl->elem, pr->pe == pl->me);
        if (pm != NULL)
            predict(pm, pcs, pr->npieces, pr->grp, pl->elem, pr->pe == pl->me, &pr->mbs_direct,
                    &pr->mbs_pack);
        pr->model_pack = cand && pm != NULL && pr->mbs_pack > pr->mbs_direct;
        switch (pl->mech) {
        case DMSG_PLAN_PACK:
        case DMSG_PLAN_MEASURE:
            pr->packable = cand;
            break;
        case DMSG_PLAN_MODEL:
            pr->packable = pr->model_pack;
            break;
        default:
            pr->packable = 0;
            break;
        }
    }
}
