/* The direct path of the collectives (coll.h): where every member's
 * segment is mapped in every member (shm), a collective on symmetric
 * buffers reads and writes the members' buffers in place, with no copy
 * through the scratch area. An agreement first (everyone is in the call,
 * its sources are written, the buffers have the same offsets everywhere),
 * the copies or the combine, then a barrier (everyone has read what it
 * needs from the others and written what it owes them). */
#include <string.h>
#include "dmsg/coll/coll.h"

/* Offset of [p, p + bytes) in the user's part of this PE's segment (below
 * the collectives' scratch), or 0 with nothing set when it is not there.
 * Quiet: a buffer outside the segment is not an error here, it only takes
 * the scratch path. */
static int user_off(const void *p, size_t bytes, size_t *off)
{
    uintptr_t base = (uintptr_t)dmsg_g.seg, a = (uintptr_t)p;
    size_t lim = (size_t)dmsg_g.coll_off;
    if (!p || a < base || a - base > lim || bytes > lim - (size_t)(a - base))
        return 0;
    *off = (size_t)(a - base);
    return 1;
}

int dmsg_coll_direct_may(const coll_team *t)
{
    /* The same answer on every member (one transport for the job), so that
     * members that cannot take the path do not pay for its agreement. */
    return t->size > 1 && (dmsg_g.tp.ops->caps & DMSG_TP_CAP_PEER_MAP);
}

/* One buffer's contribution to the agreement: who must have it symmetric
 * (COLL_ALL, COLL_NOBODY or a member) and its words. */
static void want(const coll_team *t, int who, const void *p, size_t bytes, uint64_t *cannot,
                 uint64_t *one, uint64_t *mx, uint64_t *nmx)
{
    size_t off = 0;
    int sym = user_off(p, bytes, &off);
    *one = 0;
    *mx = 0;
    *nmx = ~(uint64_t)0;
    if (who == COLL_ALL) {
        *cannot |= !sym;
        *mx = off;
        *nmx = ~(uint64_t)off;
    } else if (who == t->me) {
        *cannot |= !sym;
        *one = (uint64_t)off + 1;
    }
}

/* Up to FLAT members, the agreement and the closing barrier are one flat
 * step each (every member deposits to every other and awaits P - 1):
 * recursive doubling and the dissemination barrier take log2 P rounds,
 * each a wake-up where PEs outnumber cores. */
#define FLAT 16

/* dmsg_coll_agree's result, by one flat step: every member's words land
 * in every member's region, and each combines them alike. */
static dmsg_status agree(coll_team *t, uint64_t *w, size_t n, size_t n_or)
{
    int P = t->size, me = t->me;
    size_t pb = dmsg_coll_direct_max(t);
    if (P > FLAT || pb < n * 8)
        return dmsg_coll_agree(t, w, n, n_or);
    coll_step s;
    dmsg_status st = dmsg_coll_step_begin(t, &s, COLL_STEP_FULL);
    for (int d = 1; !st && d < P; d++)
        st = dmsg_coll_send(&s, (me + d) % P, (size_t)me * pb, w, n * 8, 0);
    if (st || (st = dmsg_coll_recv(&s, 0, (uint64_t)(P - 1))))
        return st;
    for (int i = 0; i < P; i++) {
        if (i == me)
            continue;
        uint64_t v;
        for (size_t k = 0; k < n; k++) {
            memcpy(&v, s.base + (size_t)i * pb + k * 8, 8);
            w[k] = k < n_or ? w[k] | v : (v > w[k] ? v : w[k]);
        }
    }
    return DMSG_OK;
}

/* The closing barrier: an empty deposit to every other member. */
static dmsg_status leave(coll_team *t)
{
    int P = t->size, me = t->me;
    if (P > FLAT)
        return dmsg_coll_barrier(t);
    coll_step s;
    dmsg_status st = dmsg_coll_step_begin(t, &s, COLL_STEP_FULL);
    for (int d = 1; !st && d < P; d++)
        st = dmsg_coll_send(&s, (me + d) % P, 0, NULL, 0, 0);
    return st ? st : dmsg_coll_recv(&s, 0, (uint64_t)(P - 1));
}

dmsg_status dmsg_coll_direct_enter(coll_team *t, int swho, const void *src, size_t sbytes,
                                   int dwho, const void *dst, size_t dbytes, size_t tmp,
                                   coll_direct *d, int *go)
{
    *go = 0;
    /* Words: OR of "cannot" and of the one member's offsets + 1, then
     * MAX of the offsets every member must share and of their complements
     * (equal everywhere when max(v) == ~max(~v)). */
    uint64_t w[7] = {0};
    for (int r = 0; r < t->size && !w[0]; r++)
        w[0] |= !dmsg_pe_mapped(dmsg_coll_world(t, r));
    want(t, swho, src, sbytes, &w[0], &w[1], &w[3], &w[4]);
    want(t, dwho, dst, dbytes, &w[0], &w[2], &w[5], &w[6]);
    unsigned char *buf;
    if (tmp && dmsg_coll_tmp(t, tmp, &buf) != DMSG_OK)
        w[0] = 1; /* the scratch path says so, on every member alike */
    dmsg_status st = agree(t, w, 7, 3);
    if (st)
        return st;
    if (w[0] || w[3] != ~w[4] || w[5] != ~w[6])
        return DMSG_OK;
    d->soff = swho == COLL_ALL ? (size_t)w[3] : swho >= 0 ? (size_t)(w[1] - 1) : 0;
    d->doff = dwho == COLL_ALL ? (size_t)w[5] : dwho >= 0 ? (size_t)(w[2] - 1) : 0;
    ((coll_state *)dmsg_g.coll)->direct++;
    *go = 1;
    return DMSG_OK;
}

/* Member r's instance of the object at segment offset off. */
static unsigned char *at(const coll_team *t, int r, size_t off)
{
    return dmsg_peer_ptr(dmsg_g.seg + off, dmsg_coll_world(t, r));
}

dmsg_status dmsg_coll_direct_reduce(coll_team *t, const coll_direct *d, size_t count, size_t es,
                                    coll_red_fn k, int root)
{
    int P = t->size, me = t->me;
    size_t lo, len, ch = COLL_DIRECT_CHUNK / es ? COLL_DIRECT_CHUNK / es : 1;
    coll_part(count, P, me, &lo, &len);
    unsigned char *acc;
    dmsg_status st = dmsg_coll_tmp(t, (len < ch ? len : ch) * es + es, &acc);
    if (st) /* not after dmsg_coll_direct_enter got it (the same size) */
        return st;
    /* Member me owns part me of the vector: nobody else reads or writes
     * it, so with dst == src the writes of a chunk (after all its reads)
     * overwrite only sources that this member has already combined. */
    for (size_t off = lo; off < lo + len; off += ch) {
        size_t n = lo + len - off < ch ? lo + len - off : ch, b = off * es;
        k(acc, at(t, 0, d->soff) + b, at(t, 1, d->soff) + b, n);
        for (int i = 2; i < P; i++)
            k(acc, acc, at(t, i, d->soff) + b, n);
        for (int x = 1; x <= P; x++) {
            int i = (me + x) % P; /* everyone starts with a different member */
            if (root < 0 || i == root)
                memcpy(at(t, i, d->doff) + b, acc, n * es);
        }
    }
    return leave(t);
}

dmsg_status dmsg_coll_direct_move(coll_team *t, const coll_direct *d, int kind, void *dst,
                                  const void *src, size_t bytes, int root)
{
    int P = t->size, me = t->me;
    unsigned char *out = dst;
    /* Each member copies into its own destination (the sources are only
     * read: in place needs no care), starting with a different member. */
    if (kind == COLL_DIRECT_BCAST) {
        const void *from = me == root ? src : at(t, root, d->soff);
        if (bytes && dst != from)
            memcpy(dst, from, bytes);
    } else {
        for (int x = 1; x <= P; x++) {
            int j = (me + x) % P;
            const unsigned char *from = j == me ? src : at(t, j, d->soff);
            if (kind == COLL_DIRECT_ALLTOALL)
                from += (size_t)me * bytes;
            memcpy(out + (size_t)j * bytes, from, bytes);
        }
    }
    return leave(t);
}

int dmsg_coll_direct_pair_may(const coll_team *t)
{
    return t->size == 2 && t->members == NULL && (dmsg_g.tp.ops->caps & DMSG_TP_CAP_PEER_MAP) &&
           dmsg_g.tp.ops->barrier_xchg != NULL;
}

/* The agreement rides in the transport's barrier (barrier_xchg): each PE
 * offers (symmetric?, src offset, dst offset) and both read both, so both
 * decide alike. Then each reads the partner's source where it lies and
 * combines the two in PE order into its own destination (no remote
 * write, no copy through a scratch); the closing barrier keeps each
 * source unchanged until the partner has read it. */
dmsg_status dmsg_coll_direct_pair(coll_team *t, void *dst, const void *src, size_t count,
                                  size_t es, coll_red_fn k, int *done)
{
    size_t bytes = count * es, soff = 0, doff = 0;
    uint64_t w[3] = {0, 0, 0}, a[3], b[3];
    *done = 0;
    /* Where dst overlaps src, the partner may still be reading it when
     * this PE has its result: the result waits in a private buffer until
     * the closing barrier (had before the agreement: no failure after). */
    unsigned char *out = dst;
    int overlap = 0;
    if (user_off(src, bytes, &soff) && user_off(dst, bytes, &doff) && dmsg_pe_mapped(0) &&
        dmsg_pe_mapped(1)) {
        overlap = doff < soff + bytes && soff < doff + bytes;
        w[0] = !overlap || dmsg_coll_tmp(t, bytes, &out) == DMSG_OK;
        w[1] = soff;
        w[2] = doff;
    }
    const void *rows[2];
    dmsg_status st = dmsg_g.tp.ops->barrier_xchg(&dmsg_g.tp, w, sizeof w, rows);
    if (st)
        return st;
    memcpy(a, rows[0], sizeof a);
    memcpy(b, rows[1], sizeof b);
    if (!a[0] || !b[0] || a[1] != b[1] || a[2] != b[2])
        return DMSG_OK; /* the scratch path, on both PEs; the barrier was clearance */
    ((coll_state *)dmsg_g.coll)->direct++;
    *done = 1;
    k(out, at(t, 0, soff), at(t, 1, soff), count);
    if ((st = dmsg_g.tp.ops->barrier(&dmsg_g.tp)))
        return st;
    if (overlap)
        memcpy(dst, out, bytes);
    return DMSG_OK;
}
