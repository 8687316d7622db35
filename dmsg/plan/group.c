/* A partner's periodic pieces as one section of sections (xfer.h's
 * periodic pattern). A CYCLIC(a) -> CYCLIC(b) pair gives K pieces that
 * share their outermost dimension (one per interval of the period, each
 * repeated once per period at the same strides); moved one by one, each
 * passes over the whole array at the period's stride, so the source is read
 * K times with runs of a few elements. Here the pieces that share the most
 * common outermost (stride, stride) become one period's list of runs,
 * sorted by source offset, moved period by period in one pass: one deposit
 * (direct), or one gather and one scatter (packed). Both ends build the
 * group from the same pieces in the same order, so they agree on the
 * packed layout (the group's runs in copy order, then the other pieces).
 * The runs are bounded (PLAN_GROUP_MAX_RUNS): past that the pieces are moved
 * one by one as before. */
#include <stdlib.h>
#include <string.h>
#include "dmsg/plan/plan_impl.h"

/* Runs of one period, at most: a period's list is walked once per period,
 * so it should stay cache-sized (and plan memory per period, not array). */
#define PLAN_GROUP_MAX_RUNS 4096

/* A lone piece becomes a group (dmsg_plan_group_single) only where its runs
 * are shorter than a cache line: longer ones already read whole lines. */
#define PLAN_GROUP_SHORT_RUN 64

typedef struct key_ix {
    ptrdiff_t ss, ds;
    size_t k;
} key_ix;

static int cmp_key(const void *a, const void *b)
{
    const key_ix *x = a, *y = b;
    if (x->ss != y->ss) return x->ss < y->ss ? -1 : 1;
    if (x->ds != y->ds) return x->ds < y->ds ? -1 : 1;
    return x->k < y->k ? -1 : x->k > y->k;
}

static int cmp_run(const void *a, const void *b)
{
    const dmsg_prun *x = a, *y = b;
    if (x->soff != y->soff) return x->soff < y->soff ? -1 : 1;
    return x->doff < y->doff ? -1 : x->doff > y->doff;
}

/* Appends the runs of one piece's inner dimensions (all but the outermost)
 * to g, merging elements that continue each other at both ends. Returns 0
 * past the bound. */
static int piece_runs(const dmsg_piece *pc, size_t elem, plan_group *g, size_t *cap)
{
    int o = pc->src.ndims - 1;
    size_t reps = pc->src.count[o], idx[DMSG_MAX_DIMS] = {0};
    size_t inner = 1;
    for (int d = 0; d < o; d++)
        inner *= pc->src.count[d];
    /* Dimension 0 contiguous at both ends moves whole rows. */
    size_t row =
        o > 0 && pc->src.stride[0] == (ptrdiff_t)elem && pc->dst.stride[0] == (ptrdiff_t)elem
            ? pc->src.count[0]
            : 1;
    int d0 = row > 1 ? 1 : 0;
    for (size_t done = 0; done < inner; done += row) {
        ptrdiff_t so = (ptrdiff_t)pc->src_off, dof = (ptrdiff_t)pc->dst_off;
        for (int d = d0; d < o; d++) {
            so += (ptrdiff_t)idx[d] * pc->src.stride[d];
            dof += (ptrdiff_t)idx[d] * pc->dst.stride[d];
        }
        dmsg_prun *last = g->nruns ? &g->run[g->nruns - 1] : NULL;
        size_t b = row * elem;
        if (last != NULL && last->reps == reps && last->soff + (ptrdiff_t)last->bytes == so &&
            last->doff + (ptrdiff_t)last->bytes == dof) {
            last->bytes += b;
        } else {
            if (g->nruns == PLAN_GROUP_MAX_RUNS) return 0;
            if (g->nruns == *cap) {
                size_t nc = *cap ? 2 * *cap : 64;
                dmsg_prun *v = realloc(g->run, nc * sizeof *v);
                if (v == NULL) return -1;
                g->run = v;
                *cap = nc;
            }
            g->run[g->nruns++] = (dmsg_prun){so, dof, b, reps};
        }
        for (int d = d0; d < o && ++idx[d] == pc->src.count[d]; d++)
            idx[d] = 0;
    }
    return 1;
}

void dmsg_plan_group_free(plan_group *g)
{
    if (g == NULL) return;
    free(g->mid);
    free(g->last);
    free(g->run);
    free(g->rest);
    free(g);
}

static dmsg_status build(const dmsg_piece *v, size_t n, size_t elem, size_t min_n,
                         plan_group **out)
{
    *out = NULL;
    key_ix *keys = malloc((n ? n : 1) * sizeof *keys);
    if (keys == NULL) return DMSG_FAIL(DMSG_ERR_NOMEM, "plan: out of memory");
    size_t nk = 0;
    for (size_t k = 0; k < n; k++) {
        const dmsg_piece *pc = &v[k];
        int o = pc->src.ndims - 1;
        if (o < 0 || pc->src.count[o] < 2 || pc->dst.ndims != pc->src.ndims) continue;
        keys[nk++] = (key_ix){pc->src.stride[o], pc->dst.stride[o], k};
    }
    qsort(keys, nk, sizeof *keys, cmp_key);
    /* The key most pieces share (the first of equals, in key order). */
    size_t best = 0, best_n = 0;
    for (size_t i = 0; i < nk;) {
        size_t j = i + 1;
        while (j < nk && keys[j].ss == keys[i].ss && keys[j].ds == keys[i].ds)
            j++;
        if (j - i > best_n) {
            best = i;
            best_n = j - i;
        }
        i = j;
    }
    /* Of those, the pieces repeated as often as the most repeated one or
     * once less (R or R + 1 periods: a section cut inside a period): a
     * piece repeated fewer times would end the whole periods early (the
     * copy walks the periods after the shortest run one run at a time). */
    size_t most = 0, kept = 0;
    for (size_t i = best; i < best + best_n; i++) {
        size_t c = v[keys[i].k].src.count[v[keys[i].k].src.ndims - 1];
        most = c > most ? c : most;
    }
    for (size_t i = best; i < best + best_n; i++)
        if (v[keys[i].k].src.count[v[keys[i].k].src.ndims - 1] + 1 >= most)
            keys[best + kept++] = keys[i];
    best_n = kept;
    dmsg_status st = DMSG_OK;
    if (best_n < min_n) goto out; /* one piece already moves in one pass */
    plan_group *g = calloc(1, sizeof *g);
    char *in = calloc(n, 1);
    if (g == NULL || in == NULL) {
        free(g);
        free(in);
        st = DMSG_FAIL(DMSG_ERR_NOMEM, "plan: out of memory");
        goto out;
    }
    g->sstride = keys[best].ss;
    g->dstride = keys[best].ds;
    /* Pieces in their own order (k ascending within the key). */
    size_t cap = 0;
    int ok = 1;
    for (size_t i = best; i < best + best_n && ok == 1; i++) {
        const dmsg_piece *pc = &v[keys[i].k];
        ok = piece_runs(pc, elem, g, &cap);
        g->bytes += pc->elems * elem;
        in[keys[i].k] = 1;
    }
    if (ok == 1) g->rest = malloc((n - best_n ? n - best_n : 1) * sizeof *g->rest);
    if (ok < 0 || (ok == 1 && g->rest == NULL)) {
        st = DMSG_FAIL(DMSG_ERR_NOMEM, "plan: out of memory");
        ok = 0;
    }
    if (ok == 1) {
        g->slices = 1;
        for (size_t k = 0; k < n; k++)
            if (!in[k]) g->rest[g->nrest++] = k;
        qsort(g->run, g->nruns, sizeof *g->run, cmp_run);
        /* Neighbours across pieces that continue each other merge too. */
        size_t w = 0;
        for (size_t r = 0; r < g->nruns; r++) {
            dmsg_prun *a = w ? &g->run[w - 1] : NULL, *b = &g->run[r];
            if (a != NULL && a->reps == b->reps && a->soff + (ptrdiff_t)a->bytes == b->soff &&
                a->doff + (ptrdiff_t)a->bytes == b->doff)
                a->bytes += b->bytes;
            else
                g->run[w++] = *b;
        }
        g->nruns = w;
        *out = g;
    } else {
        dmsg_plan_group_free(g);
    }
    free(in);
out:
    free(keys);
    return st;
}

dmsg_status dmsg_plan_group_build(const dmsg_piece *v, size_t n, size_t elem, plan_group **out)
{
    return build(v, n, elem, 2, out);
}

dmsg_status dmsg_plan_group_single(const dmsg_piece *pc, size_t elem, plan_group **out)
{
    dmsg_status st = build(pc, 1, elem, 1, out);
    for (size_t k = 0; st == DMSG_OK && *out != NULL && k < (*out)->nruns; k++)
        if ((*out)->run[k].bytes >= PLAN_GROUP_SHORT_RUN) {
            dmsg_plan_group_free(*out);
            *out = NULL;
        }
    return st;
}

dmsg_periodic dmsg_plan_group_pattern(const plan_group *g, int stream)
{
    dmsg_periodic p;
    memset(&p, 0, sizeof p);
    p.run = g->run;
    p.nruns = g->nruns;
    p.sstride = g->sstride;
    p.dstride = g->dstride;
    p.stream = stream;
    return p;
}

size_t dmsg_plan_peer_deposits(const plan_peer *pr)
{
    return pr->grp != NULL ? 1 + pr->grp->nrest : pr->npieces;
}

dmsg_status dmsg_plan_group_slice(plan_group *g, size_t window)
{
    size_t full = SIZE_MAX;
    for (size_t k = 0; k < g->nruns; k++)
        full = g->run[k].reps < full ? g->run[k].reps : full;
    if (g->sstride <= 0 || g->dstride <= 0 || g->nruns == 0) return DMSG_OK;
    size_t per = window / (size_t)g->sstride;
    per = per ? per : 1;
    size_t slices = (full + per - 1) / per; /* the last starts inside the whole periods */
    if (slices < 2) return DMSG_OK;
    dmsg_prun *mid = malloc(g->nruns * sizeof *mid), *last = malloc(g->nruns * sizeof *last);
    if (mid == NULL || last == NULL) {
        free(mid);
        free(last);
        return DMSG_FAIL(DMSG_ERR_NOMEM, "plan: out of memory");
    }
    size_t r0 = (slices - 1) * per;
    for (size_t k = 0; k < g->nruns; k++) {
        mid[k] = last[k] = g->run[k];
        mid[k].reps = per;
        last[k].reps = g->run[k].reps - r0; /* >= 1: r0 < full <= reps */
    }
    g->mid = mid;
    g->last = last;
    g->slice_periods = per;
    g->slices = slices;
    return DMSG_OK;
}

dmsg_periodic dmsg_plan_group_slice_pattern(const plan_group *g, size_t s, size_t *r0)
{
    dmsg_periodic p = dmsg_plan_group_pattern(g, DMSG_PER_NO_STREAM);
    *r0 = 0;
    if (g->slices < 2) return p;
    *r0 = s * g->slice_periods;
    p.run = s + 1 < g->slices ? g->mid : g->last;
    return p;
}
