/* Steps, messages and the engines every collective is made of (coll.h
 * says why steps need no acknowledgements). */
#include <string.h>
#include "dmsg/coll/coll.h"

void coll_step_begin(coll_team *t, coll_step *s)
{
    s->t = t;
    s->gen = (unsigned)(t->seq++ % DMSG_COLL_GENS);
    s->base = dmsg_g.seg + t->reg_off + s->gen * t->gen_bytes;
}

dmsg_status coll_send(const coll_step *s, int r, size_t off, const void *src, size_t bytes,
                      unsigned lane)
{
    const coll_team *t = s->t;
    size_t roff = t->reg_off + s->gen * t->gen_bytes + off;
    /* Built and checked here rather than by dmsg_op_check: the scratch lies
     * above the heap, where user deposits are refused. */
    dmsg_op op = {.kind = DMSG_OP_CONTIG, .dir = DMSG_DIR_PUT, .pe = coll_world(t, r),
                  .remote = dmsg_g.seg + roff, .local = (void *)(src ? src : s->base), .elem = 1,
                  .n = bytes, .roff = roff, .payload = bytes};
    return dmsg_g.tp.ops->put(&dmsg_g.tp, &op, t->lane0 + s->gen * DMSG_COLL_LANES + lane);
}

dmsg_status coll_recv(const coll_step *s, unsigned lane, uint64_t n)
{
    if (n == 0)
        return DMSG_OK;
    return dmsg_g.tp.ops->ctr_wait(&dmsg_g.tp, s->t->lane0 + s->gen * DMSG_COLL_LANES + lane, 0,
                                   n);
}

dmsg_status coll_barrier(coll_team *t)
{
    if (t->size == 1)
        return DMSG_OK;
    coll_step s;
    coll_step_begin(t, &s);
    t->nonfull = 0;
    dmsg_status st = DMSG_OK;
    unsigned k = 0;
    for (int d = 1; !st && d < t->size; d *= 2, k++) {
        st = coll_send(&s, (t->me + d) % t->size, 0, NULL, 0, k);
        if (!st)
            st = coll_recv(&s, k, 1);
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

size_t coll_rd_max(const coll_team *t)
{
    unsigned nports = log2_floor(t->size) + 2;
    return (t->gen_bytes / nports) & ~(size_t)63;
}

dmsg_status coll_rd(coll_team *t, void *val, size_t bytes, coll_combine_fn combine, void *ctx)
{
    int P = t->size, me = t->me;
    if (P == 1)
        return DMSG_OK;
    coll_step s;
    coll_step_begin(t, &s);
    t->nonfull = 0;
    unsigned L = log2_floor(P);
    int p2 = 1 << L, rem = P - p2, nr;
    size_t port = coll_rd_max(t);
    dmsg_status st;
    /* Members 0 .. 2*rem-1 pair up: the even one hands its value to the odd
     * one and gets the result back from it at the end. */
    if (me < 2 * rem) {
        if (me % 2 == 0) {
            if ((st = coll_send(&s, me + 1, 0, val, bytes, 0)) ||
                (st = coll_recv(&s, L + 1, 1)))
                return st;
            memcpy(val, s.base + (L + 1) * port, bytes);
            return DMSG_OK;
        }
        if ((st = coll_recv(&s, 0, 1)))
            return st;
        combine(val, s.base, 1, ctx);
        nr = me / 2;
    } else {
        nr = me - rem;
    }
    for (unsigned k = 0; k < L; k++) {
        int pn = nr ^ (1 << k);
        int pr = pn < rem ? 2 * pn + 1 : pn + rem;
        if ((st = coll_send(&s, pr, (k + 1) * port, val, bytes, k + 1)) ||
            (st = coll_recv(&s, k + 1, 1)))
            return st;
        combine(val, s.base + (k + 1) * port, pn < nr, ctx);
    }
    if (me < 2 * rem)
        return coll_send(&s, me - 1, (L + 1) * port, val, bytes, L + 1);
    return DMSG_OK;
}

size_t coll_direct_max(const coll_team *t)
{
    size_t pb = t->gen_bytes / (size_t)t->size;
    return pb >= 64 ? pb & ~(size_t)63 : pb;
}

dmsg_status coll_move(coll_team *t, const coll_plan *p, size_t maxblock)
{
    int P = t->size, me = t->me;
    size_t pb = coll_direct_max(t), n;
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
        /* Never two steps in a row that are not full (coll.h). */
        if (!p->full && t->nonfull && (st = coll_barrier(t)))
            break;
        coll_step s;
        coll_step_begin(t, &s);
        t->nonfull = !p->full;
        size_t off = c * pb;
        for (int d = 1; !st && d < P; d++) {
            int j = (me + d) % P; /* everyone starts with a different target */
            sb = p->sblock(p->ctx, j, &n);
            if (!sb)
                continue;
            size_t len = n > off ? (n - off < pb ? n - off : pb) : 0;
            st = coll_send(&s, j, (size_t)me * pb, len ? sb + off : NULL, len, 0);
        }
        uint64_t nexp = 0;
        for (int i = 0; i < P; i++)
            if (i != me && p->rblock(p->ctx, i, &rn))
                nexp++;
        if (!st)
            st = coll_recv(&s, 0, nexp);
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

dmsg_status coll_agree(coll_team *t, uint64_t *w, size_t n, size_t n_or)
{
    agree_ctx a = {n, n_or};
    if (n * 8 > coll_rd_max(t))
        return DMSG_FAIL(DMSG_ERR_NOMEM, "collectives' scratch too small (DMSG_COLL_SCRATCH)");
    return coll_rd(t, w, n * 8, agree_combine, &a);
}
