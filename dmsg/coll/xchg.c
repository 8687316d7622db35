/* Steps, messages and the engines every collective is made of (coll.h
 * says why steps need no acknowledgements). */
#include <string.h>
#include "dmsg/coll/coll.h"

/* The lane of the acked broadcast's acknowledgements (its data: lane 0). */
#define ACK_LANE 1

void dmsg_coll_team_fresh(coll_team *t)
{
    t->seq = 0;
    t->known = -2; /* as if a full step -1 had been: generations 0 .. 2 are free */
    t->last_root = -1;
    t->acks = 0;
    t->bseq = 0;
    t->ring_root = -1;
    t->ring_pend = 0;
    memset(t->ring_acks, 0, sizeof t->ring_acks);
}

static dmsg_status await_lane(const coll_team *t, unsigned gen, unsigned lane, uint64_t n)
{
    if (n == 0)
        return DMSG_OK;
    return dmsg_g.tp.ops->ctr_wait(&dmsg_g.tp, t->lane0 + gen * DMSG_COLL_LANES + lane, 0, n);
}

dmsg_status dmsg_coll_step_begin(coll_team *t, coll_step *s, int kind)
{
    int64_t sq = (int64_t)t->seq++;
    s->t = t;
    s->gen = (unsigned)(sq % DMSG_COLL_GENS);
    s->base = dmsg_g.seg + t->reg_off + s->gen * t->gen_bytes;
    /* The previous step was an acked broadcast with this PE as root: its
     * acknowledgements say every member entered it (coll.h). */
    dmsg_status st = DMSG_OK;
    if (t->acks) {
        st = await_lane(t, (unsigned)((sq - 1) % DMSG_COLL_GENS), ACK_LANE, t->acks);
        t->acks = 0;
    }
    if (kind == COLL_STEP_FULL) {
        t->known = sq - 1;
    } else if (kind >= 0) {
        int64_t root_knows = t->last_root == kind ? sq - 2 : t->known;
        if (root_knows > t->known)
            t->known = root_knows;
    }
    t->last_root = kind >= 0 ? kind : -1;
    return st;
}

dmsg_status dmsg_coll_nonfull(coll_team *t, int root)
{
    int64_t s = (int64_t)t->seq;
    if (t->size == 1 || t->known >= s - 2 || (root >= 0 && root == t->last_root))
        return DMSG_OK;
    return dmsg_coll_barrier(t);
}

dmsg_status dmsg_coll_send(const coll_step *s, int r, size_t off, const void *src, size_t bytes,
                      unsigned lane)
{
    const coll_team *t = s->t;
    size_t roff = t->reg_off + s->gen * t->gen_bytes + off;
    /* Built and checked here rather than by dmsg_op_check: the scratch lies
     * above the heap, where user deposits are refused. */
    dmsg_op op = {.kind = DMSG_OP_CONTIG, .dir = DMSG_DIR_PUT, .pe = dmsg_coll_world(t, r),
                  .remote = dmsg_g.seg + roff, .local = (void *)(src ? src : s->base), .elem = 1,
                  .n = bytes, .roff = roff, .payload = bytes};
    return dmsg_g.tp.ops->put(&dmsg_g.tp, &op, t->lane0 + s->gen * DMSG_COLL_LANES + lane);
}

dmsg_status dmsg_coll_recv(const coll_step *s, unsigned lane, uint64_t n)
{
    return await_lane(s->t, s->gen, lane, n);
}

dmsg_status dmsg_coll_barrier(coll_team *t)
{
    if (t->size == 1)
        return DMSG_OK;
    coll_step s;
    dmsg_status st = dmsg_coll_step_begin(t, &s, COLL_STEP_FULL);
    unsigned k = 0;
    for (int d = 1; !st && d < t->size; d *= 2, k++) {
        st = dmsg_coll_send(&s, (t->me + d) % t->size, 0, NULL, 0, k);
        if (!st)
            st = dmsg_coll_recv(&s, k, 1);
    }
    return st;
}

static unsigned log2_floor(int n)
{
    unsigned l = 0;
    while ((2 << l) <= n)
        l++;
    return l;
}

int dmsg_coll_rd_room(const coll_team *t)
{
    /* dmsg_coll_rd_max(t) >= 128 without its division (a 64-bit divide is
     * tens of cycles, on every collective's path): floor(g / n) & ~63 >=
     * 128 exactly when g >= 128 n. */
    return t->gen_bytes >= (size_t)128 * (log2_floor(t->size) + 2);
}

size_t dmsg_coll_rd_max(const coll_team *t)
{
    unsigned nports = log2_floor(t->size) + 2;
    return (t->gen_bytes / nports) & ~(size_t)63;
}

dmsg_status dmsg_coll_rd(coll_team *t, void *val, size_t bytes, coll_combine_fn combine, void *ctx)
{
    int P = t->size, me = t->me;
    if (P == 1)
        return DMSG_OK;
    coll_step s;
    dmsg_status st = dmsg_coll_step_begin(t, &s, COLL_STEP_FULL);
    if (st)
        return st;
    unsigned L = log2_floor(P);
    int p2 = 1 << L, rem = P - p2, nr;
    size_t port = dmsg_coll_rd_max(t);
    /* Members 0 .. 2*rem-1 pair up: the even one hands its value to the odd
     * one and gets the result back from it at the end. */
    if (me < 2 * rem) {
        if (me % 2 == 0) {
            if ((st = dmsg_coll_send(&s, me + 1, 0, val, bytes, 0)) ||
                (st = dmsg_coll_recv(&s, L + 1, 1)))
                return st;
            memcpy(val, s.base + (L + 1) * port, bytes);
            return DMSG_OK;
        }
        if ((st = dmsg_coll_recv(&s, 0, 1)))
            return st;
        combine(val, s.base, 1, ctx);
        nr = me / 2;
    } else {
        nr = me - rem;
    }
    for (unsigned k = 0; k < L; k++) {
        int pn = nr ^ (1 << k);
        int pr = pn < rem ? 2 * pn + 1 : pn + rem;
        if ((st = dmsg_coll_send(&s, pr, (k + 1) * port, val, bytes, k + 1)) ||
            (st = dmsg_coll_recv(&s, k + 1, 1)))
            return st;
        combine(val, s.base + (k + 1) * port, pn < nr, ctx);
    }
    if (me < 2 * rem)
        return dmsg_coll_send(&s, me - 1, (L + 1) * port, val, bytes, L + 1);
    return DMSG_OK;
}

size_t dmsg_coll_bcast_max(const coll_team *t)
{
    return t->gen_bytes;
}

dmsg_status dmsg_coll_bcast_step(coll_team *t, void *dst, const void *src, size_t bytes, int root,
                            int fan)
{
    int P = t->size, me = t->me, rel = (me - root + P) % P;
    dmsg_status st = dmsg_coll_nonfull(t, root);
    coll_step s;
    if (st || (st = dmsg_coll_step_begin(t, &s, root)))
        return st;
    const void *from = src;
    if (rel == 0) {
        t->acks = (uint64_t)(P - 1); /* awaited when the next step begins */
    } else {
        /* Entered: the root may write this PE's generation of the step
         * after next (coll.h). Then the data, from the parent. */
        if ((st = dmsg_coll_send(&s, root, 0, NULL, 0, ACK_LANE)) || (st = dmsg_coll_recv(&s, 0, 1)))
            return st;
        from = s.base;
    }
    /* Children in a tree of fan-out `fan` numbered from the root: the
     * members rel * fan + 1 .. rel * fan + fan. Deposits come first, the
     * copy out afterwards, so that the subtrees start early. */
    for (int64_t c = (int64_t)rel * fan + 1; !st && c <= (int64_t)rel * fan + fan && c < P; c++)
        st = dmsg_coll_send(&s, (int)((c + root) % P), 0, from, bytes, 0);
    if (!st && rel != 0 && bytes && dst)
        memcpy(dst, s.base, bytes);
    return st;
}

/* Deposits bytes from src (NULL: this PE's own slot) into ring slot k of
 * member r, counted on ring lane `lane` (data: k; acknowledgements of
 * group g: DMSG_COLL_RING + g). */
static dmsg_status ring_put(const coll_team *t, int r, unsigned k, const void *src, size_t bytes,
                            unsigned lane)
{
    size_t roff = t->ring_off + k * t->ring_slot;
    dmsg_op op = {.kind = DMSG_OP_CONTIG, .dir = DMSG_DIR_PUT, .pe = dmsg_coll_world(t, r),
                  .remote = dmsg_g.seg + roff, .local = (void *)(src ? src : dmsg_g.seg + roff),
                  .elem = 1, .n = bytes, .roff = roff, .payload = bytes};
    return dmsg_g.tp.ops->put(&dmsg_g.tp, &op,
                              t->lane0 + DMSG_COLL_GENS * DMSG_COLL_LANES + lane);
}

static dmsg_status ring_await(const coll_team *t, unsigned lane, uint64_t n)
{
    return dmsg_g.tp.ops->ctr_wait(&dmsg_g.tp, t->lane0 + DMSG_COLL_GENS * DMSG_COLL_LANES + lane,
                                   0, n);
}

#define RING_GROUPS (DMSG_COLL_RING / DMSG_COLL_RING_GROUP)

/* This member's acknowledgement of group g (to the ring's root). */
static dmsg_status ring_ack(coll_team *t, unsigned g)
{
    t->ring_pend = 0;
    return ring_put(t, t->ring_root, g * DMSG_COLL_RING_GROUP, NULL, 0, DMSG_COLL_RING + g);
}

dmsg_status dmsg_coll_ring_drain(coll_team *t)
{
    dmsg_status st = DMSG_OK;
    if (t->ring_pend)
        st = ring_ack(t, (unsigned)(t->ring_pend - 1));
    for (unsigned g = 0; !st && g < RING_GROUPS; g++)
        if (t->ring_acks[g]) {
            st = ring_await(t, DMSG_COLL_RING + g, t->ring_acks[g]);
            t->ring_acks[g] = 0;
        }
    return st;
}

dmsg_status dmsg_coll_ring_bcast(coll_team *t, void *dst, const void *src, size_t bytes, int root,
                            int fan)
{
    int P = t->size, me = t->me, rel = (me - root + P) % P, first = 0;
    dmsg_status st = DMSG_OK;
    if (t->ring_root != root) {
        /* Who else may write a slot now: only the old root knows they are
         * free; the flush, its wait and a barrier tell the new one. */
        if (t->ring_root >= 0 && ((st = dmsg_coll_ring_drain(t)) || (st = dmsg_coll_barrier(t))))
            return st;
        t->ring_root = root;
        first = 1;
    }
    unsigned k = (unsigned)(t->bseq++ % DMSG_COLL_RING), g = k / DMSG_COLL_RING_GROUP;
    int last = k % DMSG_COLL_RING_GROUP == DMSG_COLL_RING_GROUP - 1;
    const void *from = src;
    if (rel == 0) {
        /* Entering group g: its previous use consumed everywhere. */
        if (first || k % DMSG_COLL_RING_GROUP == 0) {
            if (t->ring_acks[g] && (st = ring_await(t, DMSG_COLL_RING + g, t->ring_acks[g])))
                return st;
            t->ring_acks[g] = (uint64_t)(P - 1);
        }
    } else {
        if ((st = ring_await(t, k, 1)))
            return st;
        from = NULL; /* forward from this PE's own slot */
    }
    for (int64_t c = (int64_t)rel * fan + 1; !st && c <= (int64_t)rel * fan + fan && c < P; c++)
        st = ring_put(t, (int)((c + root) % P), k, from, bytes, k);
    if (st || rel == 0)
        return st;
    if (bytes && dst)
        memcpy(dst, dmsg_g.seg + t->ring_off + k * t->ring_slot, bytes);
    if (last)
        return ring_ack(t, g);
    t->ring_pend = (int)g + 1;
    return DMSG_OK;
}

size_t dmsg_coll_direct_max(const coll_team *t)
{
    size_t pb = t->gen_bytes / (size_t)t->size;
    return pb >= 64 ? pb & ~(size_t)63 : pb;
}

dmsg_status dmsg_coll_move(coll_team *t, const coll_plan *p, size_t maxblock)
{
    int P = t->size, me = t->me;
    size_t pb = dmsg_coll_direct_max(t), n;
    /* This PE's own block first (no message). */
    const unsigned char *sb = p->sblock(p->ctx, me, &n);
    size_t rn;
    unsigned char *rb = p->rblock(p->ctx, me, &rn);
    if (sb && rb && n)
        memcpy(rb, sb, n < rn ? n : rn);
    if (P == 1)
        return DMSG_OK;
    if (pb == 0)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "collectives' scratch too small for %d PEs "
                                         "(DMSG_COLL_SCRATCH)", P);
    size_t nsteps = maxblock ? (maxblock + pb - 1) / pb : 1;
    dmsg_status st = DMSG_OK;
    for (size_t c = 0; !st && c < nsteps; c++) {
        /* A step that is not full may need a barrier first (coll.h). */
        if (!p->full && (st = dmsg_coll_nonfull(t, -1)))
            break;
        coll_step s;
        if ((st = dmsg_coll_step_begin(t, &s, p->full ? COLL_STEP_FULL : COLL_STEP_PART)))
            break;
        size_t off = c * pb;
        for (int d = 1; !st && d < P; d++) {
            int j = (me + d) % P; /* everyone starts with a different target */
            sb = p->sblock(p->ctx, j, &n);
            if (!sb)
                continue;
            size_t len = n > off ? (n - off < pb ? n - off : pb) : 0;
            st = dmsg_coll_send(&s, j, (size_t)me * pb, len ? sb + off : NULL, len, 0);
        }
        uint64_t nexp = 0;
        for (int i = 0; i < P; i++)
            if (i != me && p->rblock(p->ctx, i, &rn))
                nexp++;
        if (!st)
            st = dmsg_coll_recv(&s, 0, nexp);
        for (int i = 0; !st && i < P; i++) {
            if (i == me || !(rb = p->rblock(p->ctx, i, &rn)) || rn <= off)
                continue;
            memcpy(rb + off, s.base + (size_t)i * pb, rn - off < pb ? rn - off : pb);
        }
    }
    return st;
}

typedef struct agree_ctx {
    size_t n, n_or;
} agree_ctx;

static void agree_combine(void *acc, const void *in, int in_lower, void *ctx)
{
    (void)in_lower;
    const agree_ctx *a = ctx;
    uint64_t *w = acc, v;
    for (size_t i = 0; i < a->n; i++) {
        memcpy(&v, (const char *)in + i * 8, 8);
        w[i] = i < a->n_or ? w[i] | v : (v > w[i] ? v : w[i]);
    }
}

dmsg_status dmsg_coll_agree(coll_team *t, uint64_t *w, size_t n, size_t n_or)
{
    agree_ctx a = {n, n_or};
    if (n * 8 > dmsg_coll_rd_max(t))
        return DMSG_FAIL(DMSG_ERR_NOMEM, "collectives' scratch too small (DMSG_COLL_SCRATCH)");
    return dmsg_coll_rd(t, w, n * 8, agree_combine, &a);
}
