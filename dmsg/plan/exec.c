/* Executing a plan: clearance, the deposits in staggered order, the await
 * of the precomputed count, unpacking; and DMSG_PLAN_MEASURE's trials.
 * Nothing here allocates: a plan's execution is as cheap as the calls it
 * makes. Packing and unpacking are deposits to oneself, so the copy engine
 * does them (tiled), and a simulated machine charges them as local copies.
 * A partner's periodic group (group.c) moves as one periodic deposit, its
 * packed bytes first in the chunk, then the other pieces one by one. */
#include <string.h>
#include "dmsg/core/periodic.h"
#include "dmsg/plan/choose.h"

/* A contiguous run of n elements. */
static dmsg_layout run(size_t n, size_t elem)
{
    dmsg_layout l;
    memset(&l, 0, sizeof l);
    l.ndims = 1;
    l.count[0] = n;
    l.stride[0] = (ptrdiff_t)elem;
    return l;
}

/* The k-th piece of pr moved one by one: all, or those outside its group. */
static size_t nsingle(const plan_peer *pr)
{
    return pr->grp != NULL ? pr->grp->nrest : pr->npieces;
}

static size_t single(const plan_peer *pr, size_t i)
{
    return pr->first + (pr->grp != NULL ? pr->grp->rest[i] : i);
}

/* Gathers pr's pieces into the send buffer, then one deposit into pr's
 * staging area. */
static int send_packed(plan_t *pl, const plan_peer *pr)
{
    char *buf = pl->stage + pl->stage_in, *src = pl->src.base;
    size_t off = 0;
    if (pr->grp != NULL && pr->grp->nrest == 0 && pl->gather_remote) {
        /* The whole chunk is the group: its runs in copy order straight into
         * the receiver's staging area, the same layout, one deposit. */
        dmsg_periodic per = dmsg_plan_group_pattern(pr->grp, DMSG_PER_DST_STREAM);
        return dmsg_deposit_periodic(pl->stage + pr->stage_off, src, &per, pr->pe, pl->ctr);
    }
    if (pr->grp != NULL) {
        dmsg_periodic per = dmsg_plan_group_pattern(pr->grp, DMSG_PER_DST_STREAM);
        int st = dmsg_deposit_periodic(buf, src, &per, pl->me, DMSG_CTR_NONE);
        if (st != DMSG_OK) return st;
        off += pr->grp->bytes;
    }
    for (size_t i = 0; i < nsingle(pr); i++) {
        const dmsg_piece *pc = &pl->sendp.v[single(pr, i)];
        dmsg_layout l = run(pc->elems, pl->elem);
        int st = dmsg_deposit_section(buf + off, &l, src + pc->src_off, &pc->src, pl->elem, pl->me,
                                      DMSG_CTR_NONE);
        if (st != DMSG_OK) return st;
        off += pc->elems * pl->elem;
    }
    int st = pl->async ? dmsg_quiet() : DMSG_OK; /* the packed bytes are in place */
    if (st != DMSG_OK) return st;
    return dmsg_deposit(pl->stage + pr->stage_off, buf, (size_t)pr->bytes, pr->pe, pl->ctr);
}

/* 1 if pr's group moves in slices (send_sliced) in this execution. */
static int sliced(const plan_t *pl, const plan_peer *pr)
{
    return pr->grp != NULL && pr->grp->slices > 1 && !(pl->pack_on && pr->packable);
}

/* The direct groups of every partner, slice by slice: in each turn every
 * partner's deposit of that slice, so that the slice of the source is read
 * from the cache by all but the first. The PEs start at turns spread over
 * the slices (me * turns / npes), so that no two write the same part of a
 * destination at the same time (their elements share cache lines). Each
 * group's last slice carries its count (deposits to one PE land in the
 * order issued: plan.c slices only then). */
static int send_sliced(plan_t *pl)
{
    size_t turns = pl->slices, start = turns * (size_t)pl->me / (size_t)pl->npes;
    char *src = pl->src.base, *dst = pl->dst.base;
    for (int i = 0; i < pl->nto; i++) {
        plan_peer *pr = &pl->to[i];
        if (!sliced(pl, pr)) continue;
        pr->last_w = turns - 1;
        while ((pr->last_w + start) % turns >= pr->grp->slices)
            pr->last_w--;
    }
    for (size_t w = 0; w < turns; w++) {
        size_t s = (w + start) % turns;
        for (int i = 0; i < pl->nto; i++) {
            const plan_peer *pr = &pl->to[i];
            if (!sliced(pl, pr) || s >= pr->grp->slices) continue;
            size_t r0;
            dmsg_periodic per = dmsg_plan_group_slice_pattern(pr->grp, s, &r0);
            int st = dmsg_deposit_periodic(dst + (ptrdiff_t)r0 * pr->grp->dstride,
                                           src + (ptrdiff_t)r0 * pr->grp->sstride, &per, pr->pe,
                                           w == pr->last_w ? pl->ctr : DMSG_CTR_NONE);
            if (st != DMSG_OK) return st;
        }
    }
    return DMSG_OK;
}

static int send_direct(plan_t *pl, const plan_peer *pr)
{
    char *src = pl->src.base, *dst = pl->dst.base;
    if (pr->grp != NULL && !sliced(pl, pr)) {
        dmsg_periodic per = dmsg_plan_group_pattern(pr->grp, DMSG_PER_NO_STREAM);
        int st = dmsg_deposit_periodic(dst, src, &per, pr->pe, pl->ctr);
        if (st != DMSG_OK) return st;
    }
    for (size_t i = 0; i < nsingle(pr); i++) {
        const dmsg_piece *pc = &pl->sendp.v[single(pr, i)];
        int st = dmsg_deposit_section(dst + pc->dst_off, &pc->dst, src + pc->src_off, &pc->src,
                                      pl->elem, pr->pe, pl->ctr);
        if (st != DMSG_OK) return st;
    }
    return DMSG_OK;
}

/* Scatters the chunk pr deposited into my staging area. */
static int unpack(plan_t *pl, const plan_peer *pr)
{
    char *in = pl->stage + pr->stage_off, *dst = pl->dst.base;
    if (pr->grp != NULL) {
        dmsg_periodic per = dmsg_plan_group_pattern(pr->grp, DMSG_PER_SRC_STREAM);
        int st = dmsg_deposit_periodic(dst, in, &per, pl->me, DMSG_CTR_NONE);
        if (st != DMSG_OK) return st;
        in += pr->grp->bytes;
    }
    for (size_t i = 0; i < nsingle(pr); i++) {
        const dmsg_piece *pc = &pl->recvp.v[single(pr, i)];
        dmsg_layout l = run(pc->elems, pl->elem);
        int st = dmsg_deposit_section(dst + pc->dst_off, &pc->dst, in, &l, pl->elem, pl->me,
                                      DMSG_CTR_NONE);
        if (st != DMSG_OK) return st;
        in += pc->elems * pl->elem;
    }
    return DMSG_OK;
}

int dmsg_plan_start(dmsg_plan *h)
{
    int st;
    plan_t *pl = dmsg_plan_body(h, "plan_start", &st);
    if (pl == NULL) return st;
    if (pl->started) return DMSG_FAIL(DMSG_ERR_STATE, "plan_start: started and not finished");
    if (pl->mech == DMSG_PLAN_MEASURE && pl->execs < PLAN_TRIALS)
        pl->pack_on = (int)(pl->execs % 2); /* trials: direct, packed, direct, packed */
    st = dmsg_sync();
    if (st != DMSG_OK) return st;
    pl->started = 1;
    pl->ticket = dmsg_plan_ctr_begin(dmsg_plan_recv_msgs(pl, pl->pack_on));
    pl->t0 = dmsg_wtime();
    if (dmsg_plan_share_on(pl, pl->pack_on)) return dmsg_plan_share_run(pl);
    if (pl->slices > 1 && (st = send_sliced(pl)) != DMSG_OK) return st;
    for (int i = 0; i < pl->nto; i++) {
        const plan_peer *pr = &pl->to[i];
        st = pl->pack_on && pr->packable ? send_packed(pl, pr) : send_direct(pl, pr);
        if (st != DMSG_OK) return st; /* started stays set: finish still awaits what did arrive */
    }
    return DMSG_OK;
}

/* After the last trial: every PE learns every PE's best times, and all keep
 * the mechanism whose slowest PE was faster. */
static int decide(plan_t *pl)
{
    double worst[2] = {pl->best[0], pl->best[1]};
    int st = dmsg_allreduce(DMSG_TEAM_WORLD, worst, worst, 2, DMSG_TYPE_DOUBLE, DMSG_OP_MAX);
    if (st != DMSG_OK) return st;
    pl->measured[0] = worst[0];
    pl->measured[1] = worst[1];
    pl->pack_on = worst[1] < worst[0];
    return DMSG_OK;
}

int dmsg_plan_finish(dmsg_plan *h)
{
    int st;
    plan_t *pl = dmsg_plan_body(h, "plan_finish", &st);
    if (pl == NULL) return st;
    if (!pl->started) return DMSG_FAIL(DMSG_ERR_STATE, "plan_finish: plan not started");
    st = dmsg_plan_ctr_land(pl->ticket);
    if (st != DMSG_OK) return st;
    pl->started = 0;
    int unpacked = 0;
    for (int i = 0; pl->pack_on && i < pl->nfrom; i++) {
        if (!pl->from[i].packable) continue;
        st = unpack(pl, &pl->from[i]);
        if (st != DMSG_OK) return st;
        unpacked = 1;
    }
    if (unpacked && pl->async && (st = dmsg_quiet()) != DMSG_OK) return st;
    double t = dmsg_wtime() - pl->t0;
    uint64_t trial = pl->execs++;
    if (pl->mech == DMSG_PLAN_MEASURE && trial < PLAN_TRIALS) {
        int k = (int)(trial % 2);
        if (trial < 2 || t < pl->best[k]) pl->best[k] = t;
        if (trial == PLAN_TRIALS - 1) return decide(pl);
    }
    return DMSG_OK;
}

int dmsg_plan_execute(dmsg_plan *h)
{
    int st = dmsg_plan_start(h);
    if (st != DMSG_OK) return st;
    return dmsg_plan_finish(h);
}
