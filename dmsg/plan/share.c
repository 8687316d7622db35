/* Shares: where every pair of a plan is one periodic group (a CYCLIC(a) ->
 * CYCLIC(b) redistribution) and this process can load and store every PE's
 * segment (dmsg_pe_mapped: shm), each PE moves one share of the periods of
 * every pair (s, q), s and q any PEs: period r of every pair covers the
 * same part of the global array, so PE p takes the periods [R p / P,
 * R (p + 1) / P) of each, reads them from every source (dmsg_peer_ptr) and
 * deposits them into every destination. Each line of a source and of a
 * destination is then moved by one PE only: deposited by their owners, the
 * runs of 1-5 elements put the elements of up to P senders into every
 * destination line, which went to the cache of each of them in turn (and
 * bounced between the cores that wrote it at once); fetched by their
 * receivers, the same for the source lines (docs/performance.md).
 * After its share, a PE deposits a note (0 bytes, counted on the plan's
 * counter) to every PE: a PE's finish awaits the notes of all, so that its
 * destination is complete and its source read when it returns, as with the
 * owners' deposits. Both ends of every pair build the same groups, and the
 * create exchange makes the choice the same on every PE (plan.c).
 * How a PE moves its shares: where this process maps every destination too
 * and no checker watches deposits, all its pairs at once as one set
 * (dmsg_copy_periodic_set): their periods in step, a few at a time, every
 * pair's moves of those periods in turn, with plain stores through the
 * mappings. Each source and destination line is then fetched into this
 * core's L1 once for all pairs; pair by pair, each pair's deposit of a
 * 512 KiB turn fetched each line of its source and destination again from
 * the L2 or further, P times per line in all (CPU time against BLOCK ->
 * CYCLIC(16): 0.71-0.87 -> 1.0-1.16 at 2 PEs, 0.59-0.69 -> 0.93-1.17 at 4,
 * 0.49-0.63 -> 0.94-1.11 at 8; docs/performance.md). Otherwise (DMSG_CHECK
 * on: the checker must see the stores as deposits) pair by pair, as
 * periodic deposits in turns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dmsg/core/periodic.h"
#include "dmsg/plan/plan_impl.h"

/* Pairs (P^2) a plan walks at creation to decide: bounded, since every PE
 * builds the group of every pair. */
#define PLAN_SHARE_MAX_PES 64

/* Source bytes of a pair that a share's turn moves: each turn reads a part
 * of every source that stays in the cache (L2) for all its destinations.
 * Not divided by the PEs: smaller parts make more deposits, whose fixed
 * cost (checks, the copy's tables) outweighed the cache at 8 PEs on 2
 * cores (64 KiB: 0.37-0.62 of BLOCK -> CYCLIC(16), 512 KiB: 0.55-0.79;
 * 2 MiB lost at 2 and 4 PEs). */
#define PLAN_SHARE_WINDOW (512u << 10)

/* The bytes of all pairs' sources and destinations that one step of the
 * set copy (dmsg_copy_periodic_set) spans: about a page of each stream
 * at 2 PEs. Alternated on the 2-core Xeon host (CPU time against BLOCK ->
 * CYCLIC(16), 2 PEs): 2-4 KiB 1.06-1.16, 8 KiB 0.91-1.16, 16 KiB 0.85-0.97,
 * 32 KiB 0.83-0.97, 256 KiB 0.70-0.93 (the pairs' reads and writes of one
 * line no longer meet in the L1); 4 KiB with the set's floor of four
 * moves a pair's table 0.93-1.17 at 2, 4 and 8 PEs (docs/performance.md). */
#define PLAN_SHARE_BUDGET (4u << 10)

void dmsg_plan_share_free(plan_t *pl)
{
    dmsg_periodic_set_free(pl->share_set);
    pl->share_set = NULL;
    free(pl->share_src);
    free(pl->share_dst);
    pl->share_src = NULL;
    pl->share_dst = NULL;
    for (size_t i = 0; i < pl->nshare; i++)
        dmsg_plan_group_free(pl->share[i].g);
    free(pl->share);
    pl->share = NULL;
    pl->nshare = 0;
    pl->share_turns = 0;
}

/* The periods [r0, r1) of g, in place: runs of fewer periods shortened,
 * runs that miss them all dropped. */
static void cut_periods(plan_group *g, size_t r0, size_t r1)
{
    size_t w = 0;
    for (size_t k = 0; k < g->nruns; k++) {
        dmsg_prun r = g->run[k];
        if (r.reps <= r0) continue;
        r.reps = (r.reps < r1 ? r.reps : r1) - r0;
        g->run[w++] = r;
    }
    g->nruns = w;
}

/* Pair (s, q)'s pieces as one whole group with positive strides, or *g
 * NULL (then the plan takes no shares). */
static dmsg_status pair_group(const plan_t *pl, const dmsg_assign *as, int s, int q,
                              plan_pieces *tmp, plan_group **g, int *none)
{
    *g = NULL;
    *none = 0;
    tmp->n = 0;
    dmsg_status st = dmsg_plan_pair_pieces(as, s, q, tmp);
    if (st != DMSG_OK) return st;
    if (tmp->n == 0) {
        *none = 1;
        return DMSG_OK;
    }
    /* As build_side does, so that a pair is a group here where it is one there. */
    st = dmsg_plan_group_build(tmp->v, tmp->n, pl->elem, g);
    if (st == DMSG_OK && *g == NULL && tmp->n == 1)
        st = dmsg_plan_group_single(&tmp->v[0], pl->elem, g);
    if (st == DMSG_OK && *g != NULL &&
        ((*g)->nrest != 0 || (*g)->sstride <= 0 || (*g)->dstride <= 0)) {
        dmsg_plan_group_free(*g);
        *g = NULL;
    }
    return st;
}

/* The shares as one set copied through the mapped destinations
 * (dmsg_copy_periodic_set), where the tables apply and no checker needs to
 * see deposits; else none, and the shares move as deposits. */
static dmsg_status build_set(plan_t *pl)
{
    if (pl->nshare == 0 || dmsg_deposits_checked()) return DMSG_OK;
    dmsg_periodic *per = calloc(pl->nshare, sizeof *per);
    pl->share_src = calloc(pl->nshare, sizeof *pl->share_src);
    pl->share_dst = calloc(pl->nshare, sizeof *pl->share_dst);
    dmsg_status st = DMSG_OK;
    if (per == NULL || pl->share_src == NULL || pl->share_dst == NULL) {
        st = DMSG_FAIL(DMSG_ERR_NOMEM, "plan: out of memory");
        goto out;
    }
    for (size_t i = 0; i < pl->nshare; i++) {
        const plan_share *sh = &pl->share[i];
        char *d = dmsg_peer_ptr(pl->dst.base, sh->q);
        if (d == NULL) goto out; /* not mapped after all: deposits */
        per[i] = dmsg_plan_group_pattern(sh->g, DMSG_PER_NO_STREAM);
        if ((st = dmsg_periodic_check(&per[i], NULL, NULL)) != DMSG_OK) goto out;
        pl->share_src[i] = sh->src + (ptrdiff_t)sh->r0 * sh->g->sstride;
        pl->share_dst[i] = d + (ptrdiff_t)sh->r0 * sh->g->dstride;
    }
    st = dmsg_periodic_set_build(per, pl->nshare, PLAN_SHARE_BUDGET, &pl->share_set);
out:
    free(per);
    if (pl->share_set == NULL) {
        free(pl->share_src);
        free(pl->share_dst);
        pl->share_src = NULL;
        pl->share_dst = NULL;
    }
    return st;
}

dmsg_status dmsg_plan_share_build(plan_t *pl, const dmsg_assign *as, int able)
{
    int np = pl->npes;
    pl->share_ok = 0;
    if (!able || np < 2 || np > PLAN_SHARE_MAX_PES || pl->slices < 2) return DMSG_OK;
    /* Cheap first: my own pairs must be whole groups (all PEs see the same
     * for them below; a PE that stops here says no, and so would the rest). */
    for (int i = 0; i < pl->nto; i++)
        if (pl->to[i].grp == NULL || pl->to[i].grp->nrest != 0) return DMSG_OK;
    for (int q = 0; q < np; q++)
        if (!dmsg_pe_mapped(q) || dmsg_peer_ptr(pl->src.base, q) == NULL) return DMSG_OK;
    pl->share = calloc((size_t)np * (size_t)np, sizeof *pl->share);
    if (pl->share == NULL) return DMSG_FAIL(DMSG_ERR_NOMEM, "plan: out of memory");
    plan_pieces tmp = {NULL, 0, 0};
    dmsg_status st = DMSG_OK;
    size_t window = PLAN_SHARE_WINDOW;
    int ok = 1;
    for (int s = 0; ok && st == DMSG_OK && s < np; s++)
        for (int q = 0; ok && st == DMSG_OK && q < np; q++) {
            plan_group *g;
            int none;
            st = pair_group(pl, as, s, q, &tmp, &g, &none);
            if (st != DMSG_OK || none) continue;
            if (g == NULL) {
                ok = 0;
                break;
            }
            size_t per = 0;
            for (size_t k = 0; k < g->nruns; k++)
                per = g->run[k].reps > per ? g->run[k].reps : per;
            size_t r0 = per * (size_t)pl->me / (size_t)np,
                   r1 = per * (size_t)(pl->me + 1) / (size_t)np;
            cut_periods(g, r0, r1);
            if (g->nruns == 0) {
                dmsg_plan_group_free(g);
                continue;
            }
            st = dmsg_plan_group_slice(g, window ? window : 1);
            if (st != DMSG_OK) {
                dmsg_plan_group_free(g);
                break;
            }
            pl->share[pl->nshare++] =
                (plan_share){s, q, r0, (const char *)dmsg_peer_ptr(pl->src.base, s), g};
            if (g->slices > pl->share_turns) pl->share_turns = g->slices;
        }
    dmsg_plan_pieces_free(&tmp);
    if (st == DMSG_OK && ok) st = build_set(pl);
    if (st != DMSG_OK || !ok) {
        dmsg_plan_share_free(pl);
        return st;
    }
    pl->share_ok = 1;
    return DMSG_OK;
}

int dmsg_plan_share_on(const plan_t *pl, int pack_on)
{
    return pl->shared && !(pack_on && pl->any_packed);
}

int dmsg_plan_share_run(plan_t *pl)
{
    char *dst = pl->dst.base;
    if (pl->share_set != NULL) {
        /* Plain stores into the mapped destinations: the notes below count
         * after them, as after a deposit's (a counter's add is a release). */
        dmsg_copy_periodic_set(pl->share_set, pl->share_dst, pl->share_src);
        goto notes;
    }
    /* In each turn, that part of every pair: the sources' parts are read
     * once from memory for all destinations, the destinations' parts are
     * written whole while in this core's cache. */
    for (size_t w = 0; w < pl->share_turns; w++)
        for (size_t i = 0; i < pl->nshare; i++) {
            const plan_share *sh = &pl->share[i];
            if (w >= sh->g->slices) continue;
            size_t r0;
            dmsg_periodic per = dmsg_plan_group_slice_pattern(sh->g, w, &r0);
            r0 += sh->r0;
            int st = dmsg_deposit_periodic(dst + (ptrdiff_t)r0 * sh->g->dstride,
                                           sh->src + (ptrdiff_t)r0 * sh->g->sstride, &per, sh->q,
                                           DMSG_CTR_NONE);
            if (st != DMSG_OK) return st;
        }
notes:
    /* The notes: deposits to one PE land in the order issued, and each
     * counts after the loads and stores of this PE before it. */
    for (int i = 0; i < pl->npes; i++) {
        int st = dmsg_deposit(dst, dst, 0, (pl->me + i) % pl->npes, pl->ctr);
        if (st != DMSG_OK) return st;
    }
    return DMSG_OK;
}
