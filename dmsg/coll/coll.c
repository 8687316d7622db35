/* The collectives of include/dmsg.h over the engines of xchg.c (coll.h):
 * argument checks, the DMSG_CHECK agreement, chunking, and the combine
 * functions. docs/api.md names the algorithms. */
#include <stdlib.h>
#include <string.h>
#include "dmsg/coll/coll.h"
#include "dmsg/transport/wait_policy.h"

enum { K_BCAST = 1, K_REDUCE, K_ALLREDUCE, K_SCAN, K_EXSCAN, K_GATHER, K_GATHERV, K_ALLGATHER,
       K_ALLGATHERV, K_ALLTOALL, K_ALLTOALLV };

/* Under DMSG_CHECK every member's (kind, size, type, op, root) and its own
 * verdict are agreed on before anything moves: a disagreement is
 * DMSG_ERR_COLLECTIVE everywhere, else the worst (lowest) local error.
 * Without it, a member returns its own local error at once. */
static dmsg_status agree(coll_team *t, uint64_t kind, uint64_t a, uint64_t type, uint64_t op,
                         int64_t root, dmsg_status local)
{
    if (!dmsg_g.check)
        return local;
    uint64_t v[5] = {kind, a, type, op, (uint64_t)root}, w[11];
    for (int i = 0; i < 5; i++) {
        w[2 * i] = v[i];
        w[2 * i + 1] = ~v[i];
    }
    w[10] = coll_err_word(local);
    dmsg_status st = dmsg_coll_agree(t, w, 11, 0);
    if (st)
        return st;
    for (int i = 0; i < 5; i++)
        if (w[2 * i] != ~w[2 * i + 1])
            return DMSG_FAIL(DMSG_ERR_COLLECTIVE,
                             "members of a team called a collective with different arguments");
    return coll_err_status(w[10]);
}

static dmsg_status check_root(const coll_team *t, int root)
{
    if (root < 0 || root >= t->size)
        return DMSG_FAIL(DMSG_ERR_PE, "root %d is not in the team of %d", root, t->size);
    return DMSG_OK;
}

/* The team, and room for a chunk of at least 64 bytes past a header in
 * its scratch (a tiny DMSG_SEGMENT_SIZE may leave the world less). */
#define BEGIN(team, t)                                                                         \
    coll_team *t;                                                                              \
    dmsg_status st = dmsg_coll_team_get(team, &t);                                                  \
    if (!st && t->size > 1 && !dmsg_coll_rd_room(t))                                               \
        st = DMSG_FAIL(DMSG_ERR_NOMEM, "collectives' scratch too small for %d PEs "           \
                                       "(DMSG_COLL_SCRATCH, DMSG_SEGMENT_SIZE)", t->size);    \
    if (st)                                                                                    \
        return st;


/* A plan from two tables: what goes to member j (sb[j], sn[j]; sb NULL:
 * nothing to anyone) and where member i's block lands (rb[i], rn[i]; rb
 * NULL: nothing expected). */
typedef struct tab_ctx {
    const unsigned char **sb;
    size_t *sn;
    unsigned char **rb;
    size_t *rn;
} tab_ctx;

static const unsigned char *tab_sblock(void *c, int j, size_t *n)
{
    tab_ctx *x = c;
    *n = x->sn ? x->sn[j] : 0;
    return x->sb ? x->sb[j] : NULL;
}

static unsigned char *tab_rblock(void *c, int i, size_t *n)
{
    tab_ctx *x = c;
    *n = x->rn ? x->rn[i] : 0;
    return x->rb ? x->rb[i] : NULL;
}

/* The tables of a scatter/gather-shaped exchange: 2 * P pointers and sizes. */
typedef struct tabs {
    const unsigned char **sb;
    size_t *sn;
    unsigned char **rb;
    size_t *rn;
} tabs;

static dmsg_status tabs_new(int P, tabs *t)
{
    t->sb = calloc((size_t)P, sizeof *t->sb);
    t->sn = calloc((size_t)P, sizeof *t->sn);
    t->rb = calloc((size_t)P, sizeof *t->rb);
    t->rn = calloc((size_t)P, sizeof *t->rn);
    if (!t->sb || !t->sn || !t->rb || !t->rn) {
        free(t->sb);
        free(t->sn);
        free(t->rb);
        free(t->rn);
        return DMSG_FAIL(DMSG_ERR_NOMEM, "collective tables for %d members", P);
    }
    return DMSG_OK;
}

static void tabs_free(tabs *t)
{
    free(t->sb);
    free(t->sn);
    free(t->rb);
    free(t->rn);
}

static dmsg_status tabs_move(coll_team *t, tabs *x, int full, size_t maxblock, int send,
                             int recv)
{
    tab_ctx c = {send ? x->sb : NULL, x->sn, recv ? x->rb : NULL, x->rn};
    coll_plan p = {tab_sblock, tab_rblock, &c, full};
    return dmsg_coll_move(t, &p, maxblock);
}

/* Long broadcast: the root deposits part j of its data to member j
 * (scatter), then every member passes its part to all (all-gather): each
 * member sends about `bytes` in all, instead of log2 n times that. */
static dmsg_status bcast_long(coll_team *t, void *dst, const void *src, size_t bytes, int root)
{
    int P = t->size, me = t->me;
    tabs x;
    dmsg_status st = tabs_new(P, &x);
    if (st)
        return st;
    size_t lo, len, mlo, mlen, max;
    coll_part(bytes, P, 0, &lo, &max);
    coll_part(bytes, P, me, &mlo, &mlen);
    for (int j = 0; j < P; j++) {
        coll_part(bytes, P, j, &lo, &len);
        x.sb[j] = (const unsigned char *)src + lo;
        x.sn[j] = len;
        x.rb[j] = NULL;
        x.rn[j] = 0;
    }
    /* scatter: only the root sends, each member expects its part from it */
    x.rb[root] = (unsigned char *)dst + mlo;
    x.rn[root] = mlen;
    if (me == root && dst == src)
        x.rb[root] = NULL, x.rn[root] = 0; /* in place: nothing to copy to itself */
    st = tabs_move(t, &x, 0, max, me == root, 1);
    for (int j = 0; !st && j < P; j++) {
        coll_part(bytes, P, j, &lo, &len);
        x.sb[j] = (const unsigned char *)dst + mlo;
        x.sn[j] = mlen;
        x.rb[j] = j == me ? NULL : (unsigned char *)dst + lo;
        x.rn[j] = len;
    }
    if (!st)
        st = tabs_move(t, &x, 1, max, 1, 1);
    tabs_free(&x);
    return st;
}

/* The movers' direct path (direct.c) where a member receives at least
 * MOVE_DIRECT times DMSG_COLL_DIRECT bytes: below, the pipelined acked
 * broadcast and the scratch's single step cost less than its agreement
 * and barrier (2 PEs on 2 busy cores: the direct broadcast and allgather
 * 0.6-0.9 times as fast up to 64K, 1.1 at 128K, 1.2-3.2 from 256K). */
#define MOVE_DIRECT 4

/* Tries it for a broadcast (root >= 0), an allgather or an all-to-all
 * (`bytes` a block); *done says whether it was taken (on every member). */
static dmsg_status move_direct(coll_team *t, int kind, void *dst, const void *src, size_t bytes,
                               int root, int *done)
{
    *done = 0;
    size_t min = (size_t)dmsg_g.cfg.coll_direct * MOVE_DIRECT;
    size_t total = kind == COLL_DIRECT_BCAST ? bytes : bytes * (size_t)t->size;
    if (!dmsg_coll_direct_may(t) || !min || !bytes || total < min)
        return DMSG_OK;
    coll_direct d;
    dmsg_status st = dmsg_coll_direct_enter(t, kind == COLL_DIRECT_BCAST ? root : COLL_ALL, src,
                                            kind == COLL_DIRECT_ALLGATHER ? bytes : total,
                                            COLL_NOBODY, NULL, 0, 0, &d, done);
    if (st || !*done)
        return st;
    return dmsg_coll_direct_move(t, &d, kind, dst, src, bytes, root);
}

/* ------------------------------------------------------------ broadcast */

/* The acked broadcast's tree: flat (the root deposits to every member: one
 * wait per member) up to BCAST_FLAT members, else fan-out BCAST_FAN (the
 * root's deposits grow with the team; a tree's depth with its log). Above
 * BCAST_LONG bytes (and more than 2 members) the root's P - 1 copies cost
 * more than bcast_long's scatter and all-gather. Measured on shm with 2-16
 * PEs on 2 cores (docs/performance.md). */
#define BCAST_FLAT 8
#define BCAST_FAN 4
#define BCAST_LONG ((size_t)32 << 10)
/* Acked steps carry at most this much: the root deposits chunk c + 1 while
 * the members copy chunk c out (1 MiB at 2 PEs: 117-198 us in 128 KiB
 * chunks, 134-262 us in one). */
#define BCAST_PIPE ((size_t)128 << 10)

int dmsg_bcast(dmsg_team team, void *dst, const void *src, size_t bytes, int root)
{
    BEGIN(team, t);
    dmsg_status bad = check_root(t, root);
    if (!bad && bytes && (!dst || (t->me == root && !src)))
        bad = DMSG_FAIL(DMSG_ERR_NULL, "dmsg_bcast: NULL buffer of %zu bytes", bytes);
    dmsg_wait_enter(DMSG_WAIT_COLL);
    if ((st = agree(t, K_BCAST, bytes, 0, 0, root, bad)))
        goto out;
    if (t->size == 1) {
        if (bytes && dst != src)
            memcpy(dst, src, bytes);
        goto out;
    }
    int done;
    if ((st = move_direct(t, COLL_DIRECT_BCAST, dst, src, bytes, root, &done)) || done)
        goto out;
    int fan = t->size <= BCAST_FLAT ? t->size - 1 : BCAST_FAN;
    if (bytes <= t->ring_slot) {
        st = dmsg_coll_ring_bcast(t, dst, src, bytes, root, fan);
        if (!st && t->me == root && bytes && dst != src)
            memcpy(dst, src, bytes);
        goto out;
    }
    size_t chunk = dmsg_coll_bcast_max(t) < BCAST_PIPE ? dmsg_coll_bcast_max(t) : BCAST_PIPE;
    if (t->size > 2 && bytes > BCAST_LONG && bytes >= (size_t)t->size) {
        st = bcast_long(t, dst, src, bytes, root);
        goto out;
    }
    if (t->me == root && bytes && dst != src)
        memcpy(dst, src, bytes);
    /* Acked broadcast steps, one per chunk: the root runs at most one step
     * ahead of the slowest member, and no barrier goes between them. */
    size_t nsteps = bytes ? (bytes + chunk - 1) / chunk : 1;
    for (size_t c = 0; !st && c < nsteps; c++) {
        size_t off = c * chunk, len = bytes ? (bytes - off < chunk ? bytes - off : chunk) : 0;
        st = dmsg_coll_bcast_step(t, len ? (char *)dst + off : NULL,
                             len && src ? (const char *)src + off : NULL, len, root, fan);
    }
out:
    dmsg_wait_leave();
    return st;
}

/* ------------------------------------------------------------ reductions */

typedef struct red_ctx {
    coll_red_fn k;
    size_t n;
} red_ctx;

/* Lower members' values always go left: both partners compute one value. */
static void red_combine(void *acc, const void *in, int in_lower, void *ctx)
{
    const red_ctx *r = ctx;
    if (in_lower)
        r->k(acc, in, acc, r->n);
    else
        r->k(acc, acc, in, r->n);
}

static dmsg_status red_args(const coll_team *t, void *dst, const void *src, size_t count,
                            dmsg_type type, dmsg_redop op, int root, coll_red_fn *k,
                            size_t *es)
{
    size_t bytes;
    *es = dmsg_type_size(type);
    *k = dmsg_coll_red_kernel(type, op);
    if (!*k)
        return DMSG_FAIL(DMSG_ERR_ARG, "reduction op %d on type %d", (int)op, (int)type);
    if (__builtin_mul_overflow(count, *es, &bytes))
        return DMSG_FAIL(DMSG_ERR_OVERFLOW, "%zu elements overflow", count);
    if (root >= 0 && check_root(t, root))
        return DMSG_ERR_PE;
    if (count && (!src || ((root < 0 || t->me == root) && !dst)))
        return DMSG_FAIL(DMSG_ERR_NULL, "reduction: NULL buffer with %zu elements", count);
    return DMSG_OK;
}

/* Long vectors (Rabenseifner's scheme without the halving): member j
 * gets part j of every member's vector (all-to-all), combines them in
 * member order 0, 1, ... (so the bits do not depend on arrival), and
 * passes the result to every member (all-gather; to the root only for a
 * reduce). About twice the vector in and out per member. */
static dmsg_status allreduce_long(coll_team *t, void *dst, const void *src, size_t count,
                                  size_t es, coll_red_fn k, int root)
{
    int P = t->size, me = t->me;
    size_t lo, len, mlo, mlen, max;
    coll_part(count, P, 0, &lo, &max);
    coll_part(count, P, me, &mlo, &mlen);
    unsigned char *buf;
    tabs x;
    dmsg_status st = dmsg_coll_tmp(t, (size_t)P * max * es + 1, &buf);
    if (st || (st = tabs_new(P, &x)))
        return st;
    for (int j = 0; j < P; j++) {
        coll_part(count, P, j, &lo, &len);
        x.sb[j] = (const unsigned char *)src + lo * es;
        x.sn[j] = len * es;
        x.rb[j] = buf + (size_t)j * mlen * es;
        x.rn[j] = mlen * es;
    }
    st = tabs_move(t, &x, 1, max * es, 1, 1);
    if (!st) {
        for (int i = 1; i < P; i++)
            k(buf, buf, buf + (size_t)i * mlen * es, mlen);
        for (int j = 0; j < P; j++) {
            coll_part(count, P, j, &lo, &len);
            x.sb[j] = (root < 0 || j == root) ? buf : NULL;
            x.sn[j] = mlen * es;
            x.rb[j] = (root < 0 || me == root) ? (unsigned char *)dst + lo * es : NULL;
            x.rn[j] = len * es;
        }
        st = tabs_move(t, &x, root < 0, max * es, 1, 1);
    }
    tabs_free(&x);
    return st;
}

/* Chunks of the value through recursive doubling; the result goes to dst
 * (NULL: nowhere). */
static dmsg_status allreduce_to(coll_team *t, void *dst, const void *src, size_t count,
                                size_t es, coll_red_fn k)
{
    size_t chunk = dmsg_coll_rd_max(t) / es, nsteps = count ? (count + chunk - 1) / chunk : 1;
    unsigned char *buf;
    dmsg_status st = dmsg_coll_tmp(t, (count < chunk ? count : chunk) * es + 1, &buf);
    for (size_t c = 0; !st && c < nsteps; c++) {
        size_t off = c * chunk, n = count ? (count - off < chunk ? count - off : chunk) : 0;
        if (n)
            memcpy(buf, (const char *)src + off * es, n * es);
        red_ctx r = {k, n};
        st = dmsg_coll_rd(t, buf, n * es, red_combine, &r);
        if (!st && dst && n)
            memcpy((char *)dst + off * es, buf, n * es);
    }
    return st;
}

/* Short vectors on few members: one full step in which every member
 * deposits its vector to every other (at the port of its number), then
 * each combines all of them in member order 0, 1, ... (the same bits
 * everywhere). One wait per member instead of log2 P rounds: cheaper where
 * PEs outnumber cores or the rounds' latency dominates, but P - 1 copies
 * of the vector per member, so only up to FLAT_MAX members and
 * DMSG_COLL_FLAT bytes (default 2K; 8 B at 16 PEs on 2 cores: 2-9x less
 * than recursive doubling, at 8 about even). */
#define FLAT_MAX 16
/* With a core for every PE of one host (every peer mapped, the job's PEs
 * not outnumbering the online cores) a round of recursive doubling costs a
 * line transfer or two, and the flat step's P - 1 deposits cost more from
 * 1 KiB on: OSU's int sums on a 16-core host, world team, DMSG_COLL_XCHG=512,
 * best of 2, flat against recursive doubling, 1 KiB 2.32 / 1.87 us at 4
 * PEs, 4.80 / 2.64 at 8, 10.94 / 3.98 at 16 (2 KiB 3.29 / 2.57, 7.26 /
 * 3.62, 16.47 / 5.45). There the flat step stops at FLAT_CORED bytes. On 2
 * cores (4 PEs, 8 alternating runs) flat kept its lead: medians 6.2 against
 * 7.6 us at 1 KiB, 6.6 against 8.2 at 2 KiB. The same answer on every PE
 * (one host, one count). */
#define FLAT_CORED ((size_t)512)

static int flat_fits(const coll_team *t, size_t bytes)
{
    size_t max = (size_t)dmsg_g.cfg.coll_flat;
    if (max > FLAT_CORED && (dmsg_g.tp.ops->caps & DMSG_TP_CAP_PEER_MAP) &&
        !dmsg_tp_oversubscribed(dmsg_g.tp.npes))
        max = FLAT_CORED;
    return t->size > 1 && t->size <= FLAT_MAX && bytes <= max && bytes <= dmsg_coll_direct_max(t);
}

static dmsg_status allreduce_flat(coll_team *t, void *dst, const void *src, size_t count,
                                  size_t es, coll_red_fn k)
{
    int P = t->size, me = t->me;
    size_t bytes = count * es, pb = dmsg_coll_direct_max(t);
    unsigned char *acc;
    coll_step s;
    dmsg_status st = dmsg_coll_tmp(t, bytes + 1, &acc);
    if (st || (st = dmsg_coll_step_begin(t, &s, COLL_STEP_FULL)))
        return st;
    for (int d = 1; !st && d < P; d++)
        st = dmsg_coll_send(&s, (me + d) % P, (size_t)me * pb, src, bytes, 0);
    if (st || (st = dmsg_coll_recv(&s, 0, (uint64_t)(P - 1))) || !count)
        return st;
    /* Straight into dst unless it is src (in place), which a later
     * member's term still reads: no copy in, none out. */
    unsigned char *out = dst != src ? dst : acc;
    k(out, me == 0 ? src : s.base, me == 1 ? src : s.base + pb, count);
    for (int i = 2; i < P; i++)
        k(out, out, i == me ? src : s.base + (size_t)i * pb, count);
    if (out != dst)
        memcpy(dst, out, bytes);
    return DMSG_OK;
}

/* Short vectors on the whole job, where the transport offers
 * barrier_xchg: they ride in the barrier's own shared words (one pass: no
 * deposit into the scratch, no counter), and each member combines all of
 * them in member order 0, 1, ... (the same bits everywhere). Up to
 * DMSG_COLL_XCHG (default 512) bytes a member and DMSG_TP_XCHG_BYTES of
 * all members together (8 bytes at 4096 PEs). On shm at 2 PEs (OSU's
 * float sums, forced spins, other sessions' load 8-10, best of 3
 * alternating runs) 4 B - 512 B took 0.29-0.52 us against the flat step's
 * 0.38-0.58 (deposit, count, await); from 1 KiB on the copies into and out
 * of the rows cost more than that saves (1 KiB 0.87 against 0.73 us, 4 KiB
 * 1.94 against 1.59). */
#define XCHG_STACK 64

static int xchg_fits(const coll_team *t, size_t bytes)
{
    return t->members == NULL && t->size > 1 && bytes > 0 && bytes <= dmsg_g.cfg.coll_xchg &&
           bytes <= DMSG_TP_XCHG_BYTES / (size_t)t->size && dmsg_g.tp.ops->barrier_xchg != NULL;
}

static dmsg_status allreduce_xchg(coll_team *t, void *dst, const void *src, size_t count,
                                  size_t es, coll_red_fn k)
{
    const void *stack[XCHG_STACK], **rows = stack;
    dmsg_status st = DMSG_OK;
    if (t->size > XCHG_STACK) {
        unsigned char *tmp;
        st = dmsg_coll_tmp(t, (size_t)t->size * sizeof *rows, &tmp);
        rows = (const void **)(void *)tmp;
    }
    if (st || (st = dmsg_g.tp.ops->barrier_xchg(&dmsg_g.tp, src, count * es, rows)))
        return st;
    /* Straight from the rows, where they lie; this member's row is src,
     * which dst may be: past two members the sum then grows in acc, or a
     * later term would read the partial sum (one pass over two rows reads
     * each element before it writes it). */
    _Alignas(16) unsigned char acc[DMSG_COLL_XCHG_MAX];
    unsigned char *out = t->size > 2 && dst == src ? acc : dst;
    k(out, rows[0], rows[1], count);
    for (int i = 2; i < t->size; i++)
        k(out, out, rows[i], count);
    if (out != dst)
        memcpy(dst, out, count * es);
    return DMSG_OK;
}

/* Two PEs take the direct path in two barriers (dmsg_coll_direct_pair)
 * past DMSG_COLL_XCHG and below DMSG_COLL_DIRECT, where the buffers are
 * symmetric: no copy into the scratch or the rows and out again, the
 * partner's vector read where it lies. Float sums (OSU's reduce) at 2 PEs,
 * each PE on its own core, best of 100 windows of 50: 1 KiB 0.60 us
 * against the flat step's 0.73-0.76, 4 KiB 0.75 against 1.45-1.50
 * recursive doubling, 16 KiB 0.98-1.37 against 4.6-4.7; at 64-512 B the
 * second barrier costs more than the rows' copies (0.45-0.58 against
 * 0.28-0.53 us). */
static int pair_fits(const coll_team *t, size_t bytes)
{
    return bytes > dmsg_g.cfg.coll_xchg && bytes < (size_t)dmsg_g.cfg.coll_direct &&
           dmsg_coll_direct_pair_may(t);
}

/* Long vectors take allreduce_long: two steps, about twice the vector in
 * and out per member, where recursive doubling takes log2 P steps of the
 * whole vector each (so from LONG_BYTES on, with more than 2 members: 64 KiB
 * at 8-16 PEs took 2-5x less; 2 members exchange once either way); and
 * always past one recursive-doubling chunk, with an element per member. */
#define LONG_BYTES ((size_t)16 << 10)

static int long_vector(const coll_team *t, size_t count, size_t es)
{
    if (t->size > 2 && count * es >= LONG_BYTES && count >= (size_t)t->size)
        return 1;
    /* (rd_max is at least 128 (BEGIN) and a multiple of 64, es divides
     * it: count > rd_max / es exactly when count * es > rd_max; short
     * vectors skip its division.) */
    size_t bytes = count * es;
    return t->size > 1 && bytes > 128 && bytes > dmsg_coll_rd_max(t) && count >= (size_t)t->size;
}

/* The direct path (direct.c) for vectors from DMSG_COLL_DIRECT bytes on
 * (default 32K), where the members' segments are mapped: one combine of
 * the sources in place and one copy into the destinations, against the
 * scratch path's copies into the scratch and out of it. Its agreement and
 * closing barrier are two steps where recursive doubling of a short vector
 * is one, so short vectors stay on the scratch path (float sums, 2 PEs on
 * 2 busy cores: direct 0.5-0.8 times as fast up to 16K, 1.7 at 32K, 2-4.5
 * from 64K). */

/* Tries the direct path of a reduction (root -1: allreduce); *done says
 * whether it was taken (the same on every member). */
static dmsg_status reduce_direct(coll_team *t, void *dst, const void *src, size_t count, size_t es,
                                 coll_red_fn k, int root, int *done)
{
    *done = 0;
    size_t min = (size_t)dmsg_g.cfg.coll_direct;
    if (!dmsg_coll_direct_may(t) || !min || !count || count * es < min)
        return DMSG_OK;
    size_t lo, len, bytes = count * es, acc;
    coll_part(count, t->size, 0, &lo, &len);
    acc = len * es < COLL_DIRECT_CHUNK ? len * es : COLL_DIRECT_CHUNK;
    coll_direct d;
    dmsg_status st = dmsg_coll_direct_enter(t, COLL_ALL, src, bytes, root < 0 ? COLL_ALL : root,
                                            dst, bytes, acc + es, &d, done);
    if (st || !*done)
        return st;
    return dmsg_coll_direct_reduce(t, &d, count, es, k, root);
}

int dmsg_allreduce(dmsg_team team, void *dst, const void *src, size_t count, dmsg_type type,
                   dmsg_redop op)
{
    BEGIN(team, t);
    coll_red_fn k;
    size_t es;
    int done = 0;
    dmsg_status bad = red_args(t, dst, src, count, type, op, -1, &k, &es);
    dmsg_wait_enter(DMSG_WAIT_COLL);
    if (!(st = agree(t, K_ALLREDUCE, count, (uint64_t)type, (uint64_t)op, -1, bad)) &&
        !(st = reduce_direct(t, dst, src, count, es, k, -1, &done)) && !done)
        st = long_vector(t, count, es)  ? allreduce_long(t, dst, src, count, es, k, -1)
             : xchg_fits(t, count * es) ? allreduce_xchg(t, dst, src, count, es, k)
             : pair_fits(t, count * es) && ((st = dmsg_coll_direct_pair(t, dst, src, count, es, k,
                                                                         &done)) || done)
                 ? st
             : flat_fits(t, count * es) ? allreduce_flat(t, dst, src, count, es, k)
                                        : allreduce_to(t, dst, src, count, es, k);
    dmsg_wait_leave();
    return st;
}

int dmsg_reduce(dmsg_team team, void *dst, const void *src, size_t count, dmsg_type type,
                dmsg_redop op, int root)
{
    BEGIN(team, t);
    coll_red_fn k;
    size_t es;
    int done = 0;
    dmsg_status bad = red_args(t, dst, src, count, type, op, root, &k, &es);
    dmsg_wait_enter(DMSG_WAIT_COLL);
    if (!(st = agree(t, K_REDUCE, count, (uint64_t)type, (uint64_t)op, root, bad)) &&
        !(st = reduce_direct(t, dst, src, count, es, k, root, &done)) && !done)
        st = long_vector(t, count, es)
                 ? allreduce_long(t, dst, src, count, es, k, root)
                 : allreduce_to(t, t->me == root ? dst : NULL, src, count, es, k);
    dmsg_wait_leave();
    return st;
}

/* ------------------------------------------------- gather-style movers */

typedef struct mv_ctx {
    const unsigned char *src;
    unsigned char *dst;
    size_t bytes;                   /* equal sizes */
    const size_t *sc, *sd, *rc, *rd; /* variable sizes (NULL: equal) */
    int root;                       /* -1: everyone receives */
    int me;
    int all_send;                   /* alltoall: block j of src goes to j */
} mv_ctx;

static const unsigned char *mv_sblock(void *c, int j, size_t *n)
{
    mv_ctx *m = c;
    if (m->root >= 0 && j != m->root)
        return NULL;
    if (m->all_send) {
        *n = m->sc ? m->sc[j] : m->bytes;
        return m->src + (m->sd ? m->sd[j] : (size_t)j * m->bytes);
    }
    *n = m->bytes;
    return m->src ? m->src : (const unsigned char *)"";
}

static unsigned char *mv_rblock(void *c, int i, size_t *n)
{
    mv_ctx *m = c;
    if (m->root >= 0 && m->me != m->root)
        return NULL;
    *n = m->rc ? m->rc[i] : m->bytes;
    return m->dst + (m->rd ? m->rd[i] : (size_t)i * m->bytes);
}

static dmsg_status run_move(coll_team *t, mv_ctx *m, size_t maxblock)
{
    m->me = t->me;
    coll_plan p = {mv_sblock, mv_rblock, m, m->root < 0};
    return dmsg_coll_move(t, &p, maxblock);
}

/* The largest block any member sends or receives. */
static dmsg_status agree_max(coll_team *t, size_t mine, size_t *max)
{
    uint64_t w = mine;
    dmsg_status st = dmsg_coll_agree(t, &w, 1, 0);
    if (!st)
        *max = (size_t)w;
    return st;
}

static dmsg_status equal_args(const coll_team *t, void *dst, const void *src, size_t bytes,
                              int root)
{
    size_t total;
    if (root >= 0 && check_root(t, root))
        return DMSG_ERR_PE;
    if (__builtin_mul_overflow(bytes, (size_t)t->size, &total))
        return DMSG_FAIL(DMSG_ERR_OVERFLOW, "%zu bytes from %d members overflow", bytes, t->size);
    if (bytes && (!src || ((root < 0 || t->me == root) && !dst)))
        return DMSG_FAIL(DMSG_ERR_NULL, "NULL buffer with %zu bytes", bytes);
    return DMSG_OK;
}

int dmsg_gather(dmsg_team team, void *dst, const void *src, size_t bytes, int root)
{
    BEGIN(team, t);
    dmsg_status bad = equal_args(t, dst, src, bytes, root);
    dmsg_wait_enter(DMSG_WAIT_COLL);
    if (!(st = agree(t, K_GATHER, bytes, 0, 0, root, bad))) {
        mv_ctx m = {.src = src, .dst = dst, .bytes = bytes, .root = root};
        st = run_move(t, &m, bytes);
    }
    dmsg_wait_leave();
    return st;
}

int dmsg_allgather(dmsg_team team, void *dst, const void *src, size_t bytes)
{
    BEGIN(team, t);
    dmsg_status bad = equal_args(t, dst, src, bytes, -1);
    dmsg_wait_enter(DMSG_WAIT_COLL);
    int done = 0;
    if (!(st = agree(t, K_ALLGATHER, bytes, 0, 0, -1, bad)) &&
        !(st = move_direct(t, COLL_DIRECT_ALLGATHER, dst, src, bytes, -1, &done)) && !done) {
        mv_ctx m = {.src = src, .dst = dst, .bytes = bytes, .root = -1};
        st = run_move(t, &m, bytes);
    }
    dmsg_wait_leave();
    return st;
}

int dmsg_alltoall(dmsg_team team, void *dst, const void *src, size_t bytes)
{
    BEGIN(team, t);
    dmsg_status bad = equal_args(t, dst, src, bytes, -1);
    dmsg_wait_enter(DMSG_WAIT_COLL);
    int done = 0;
    if (!(st = agree(t, K_ALLTOALL, bytes, 0, 0, -1, bad)) &&
        !(st = move_direct(t, COLL_DIRECT_ALLTOALL, dst, src, bytes, -1, &done)) && !done) {
        mv_ctx m = {.src = src, .dst = dst, .bytes = bytes, .root = -1, .all_send = 1};
        st = run_move(t, &m, bytes);
    }
    dmsg_wait_leave();
    return st;
}

/* Under DMSG_CHECK: does every member's size match what its receivers
 * expect? sizes[j] is what this PE sends to j (NULL: `bytes` to root or
 * to all), expect[i] what it expects from i (NULL: nothing). The sizes go
 * through an all-to-all of one word per pair; the verdict is agreed on. */
static dmsg_status check_sizes(coll_team *t, const size_t *sizes, size_t bytes,
                               const size_t *expect, int root)
{
    if (!dmsg_g.check)
        return DMSG_OK;
    int P = t->size;
    unsigned char *buf;
    dmsg_status st = dmsg_coll_tmp(t, (size_t)P * 16, &buf);
    if (st)
        return st;
    uint64_t *out = (uint64_t *)buf, *in = out + P;
    for (int j = 0; j < P; j++)
        out[j] = sizes ? sizes[j] : bytes;
    mv_ctx m = {.src = (unsigned char *)out, .dst = (unsigned char *)in, .bytes = 8, .root = -1,
                .all_send = 1};
    if ((st = run_move(t, &m, 8)))
        return st;
    dmsg_status bad = DMSG_OK;
    for (int i = 0; expect && (root < 0 || t->me == root) && i < P; i++)
        if (in[i] != expect[i])
            bad = DMSG_FAIL(DMSG_ERR_COLLECTIVE, "member %d sends %llu bytes, %zu expected", i,
                            (unsigned long long)in[i], expect[i]);
    uint64_t w = coll_err_word(bad);
    if ((st = dmsg_coll_agree(t, &w, 1, 0)))
        return st;
    return coll_err_status(w);
}

static dmsg_status v_args(const coll_team *t, const void *dst, const size_t *counts,
                          const size_t *displs, int recv, size_t *max)
{
    *max = 0;
    if (!recv)
        return DMSG_OK;
    if (!counts || !displs)
        return DMSG_FAIL(DMSG_ERR_NULL, "counts or displacements are NULL");
    for (int i = 0; i < t->size; i++) {
        size_t end;
        if (__builtin_add_overflow(counts[i], displs[i], &end))
            return DMSG_FAIL(DMSG_ERR_OVERFLOW, "block %d overflows", i);
        if (counts[i] && !dst)
            return DMSG_FAIL(DMSG_ERR_NULL, "dst is NULL");
        if (counts[i] > *max)
            *max = counts[i];
    }
    return DMSG_OK;
}

int dmsg_gatherv(dmsg_team team, void *dst, const size_t *counts, const size_t *displs,
                 const void *src, size_t bytes, int root)
{
    BEGIN(team, t);
    size_t max = 0;
    dmsg_status bad = check_root(t, root);
    if (!bad)
        bad = v_args(t, dst, counts, displs, t->me == root, &max);
    if (!bad && bytes && !src)
        bad = DMSG_FAIL(DMSG_ERR_NULL, "src is NULL with %zu bytes", bytes);
    dmsg_wait_enter(DMSG_WAIT_COLL);
    if (!(st = agree(t, K_GATHERV, 0, 0, 0, root, bad)) &&
        !(st = check_sizes(t, NULL, bytes, t->me == root ? counts : NULL, root)) &&
        !(st = agree_max(t, bytes > max ? bytes : max, &max))) {
        mv_ctx m = {.src = src, .dst = dst, .bytes = bytes, .rc = counts, .rd = displs,
                    .root = root};
        st = run_move(t, &m, max);
    }
    dmsg_wait_leave();
    return st;
}

int dmsg_allgatherv(dmsg_team team, void *dst, const size_t *counts, const size_t *displs,
                    const void *src, size_t bytes)
{
    BEGIN(team, t);
    size_t max = 0;
    dmsg_status bad = v_args(t, dst, counts, displs, 1, &max);
    if (!bad && bytes && !src)
        bad = DMSG_FAIL(DMSG_ERR_NULL, "src is NULL with %zu bytes", bytes);
    dmsg_wait_enter(DMSG_WAIT_COLL);
    if (!(st = agree(t, K_ALLGATHERV, 0, 0, 0, -1, bad)) &&
        !(st = check_sizes(t, NULL, bytes, counts, -1))) {
        mv_ctx m = {.src = src, .dst = dst, .bytes = bytes, .rc = counts, .rd = displs,
                    .root = -1};
        st = run_move(t, &m, max); /* every member knows every count: no agreement */
    }
    dmsg_wait_leave();
    return st;
}

int dmsg_alltoallv(dmsg_team team, void *dst, const size_t *rcounts, const size_t *rdispls,
                   const void *src, const size_t *scounts, const size_t *sdispls)
{
    BEGIN(team, t);
    size_t rmax = 0, smax = 0;
    dmsg_status bad = v_args(t, dst, rcounts, rdispls, 1, &rmax);
    if (!bad)
        bad = v_args(t, src, scounts, sdispls, 1, &smax);
    dmsg_wait_enter(DMSG_WAIT_COLL);
    if (!(st = agree(t, K_ALLTOALLV, 0, 0, 0, -1, bad)) &&
        !(st = check_sizes(t, scounts, 0, rcounts, -1)) &&
        !(st = agree_max(t, rmax > smax ? rmax : smax, &rmax))) {
        mv_ctx m = {.src = src, .dst = dst, .sc = scounts, .sd = sdispls, .rc = rcounts,
                    .rd = rdispls, .root = -1, .all_send = 1};
        st = run_move(t, &m, rmax);
    }
    dmsg_wait_leave();
    return st;
}

/* ------------------------------------------------------------ prefixes */

/* Every member's chunk is gathered everywhere and combined in member order,
 * 0 first, so the result is the same in every run. */
static dmsg_status prefix(dmsg_team team, int kind, void *dst, const void *src, size_t count,
                          dmsg_type type, dmsg_redop op)
{
    BEGIN(team, t);
    coll_red_fn k;
    size_t es;
    dmsg_status bad = red_args(t, dst, src, count, type, op, -1, &k, &es);
    dmsg_wait_enter(DMSG_WAIT_COLL);
    if ((st = agree(t, (uint64_t)kind, count, (uint64_t)type, (uint64_t)op, -1, bad)))
        goto out;
    int P = t->size, me = t->me;
    size_t chunk = ((size_t)1 << 20) / ((size_t)P * es);
    if (chunk == 0)
        chunk = 1;
    size_t nsteps = count ? (count + chunk - 1) / chunk : 1;
    unsigned char *buf;
    if ((st = dmsg_coll_tmp(t, (size_t)(P + 1) * (count < chunk ? count : chunk) * es + 1, &buf)))
        goto out;
    for (size_t c = 0; !st && c < nsteps; c++) {
        size_t off = c * chunk, n = count ? (count - off < chunk ? count - off : chunk) : 0;
        mv_ctx m = {.src = (const unsigned char *)src + off * es, .dst = buf, .bytes = n * es,
                    .root = -1};
        if ((st = run_move(t, &m, n * es)) || !n)
            continue;
        int last = kind == K_SCAN ? me : me - 1;
        if (last < 0)
            continue;
        unsigned char *acc = buf + (size_t)P * n * es;
        memcpy(acc, buf, n * es);
        for (int i = 1; i <= last; i++)
            k(acc, acc, buf + (size_t)i * n * es, n);
        memcpy((char *)dst + off * es, acc, n * es);
    }
out:
    dmsg_wait_leave();
    return st;
}

int dmsg_scan(dmsg_team team, void *dst, const void *src, size_t count, dmsg_type type,
              dmsg_redop op)
{
    return prefix(team, K_SCAN, dst, src, count, type, op);
}

int dmsg_exscan(dmsg_team team, void *dst, const void *src, size_t count, dmsg_type type,
                dmsg_redop op)
{
    return prefix(team, K_EXSCAN, dst, src, count, type, op);
}
