/*
 * caf_coll.c - CO_BROADCAST, CO_SUM, CO_MIN, CO_MAX and CO_REDUCE on the
 * core's collectives over the current team. Arrays that are not contiguous
 * are packed first; CO_REDUCE gathers every image's values and folds them
 * with the user's function in image order, so every image gets the same
 * result.
 *
 * SPDX-License-Identifier: BSD-3-Clause (the LICENSE file of dmsg)
 */
#include <complex.h>
#include <stdlib.h>
#include <string.h>

#include "dmsg/front/caf/caf.h"

/* The argument and result conventions gfortran marks CO_REDUCE's function with. */
enum { OPR_BYREF = 1, OPR_HIDDEN_STRLEN = 2, OPR_ARG_VALUE = 4, OPR_ARG_DESC = 8 };

/* The descriptor's elements as one contiguous buffer (the array itself when it is). */
/* What gather_in returns for no bytes: a zero-sized array, or an
 * unallocated component of a derived type, which gfortran passes to
 * CO_BROADCAST with a NULL base (after `b = a` of a value whose component
 * a constructor left unallocated); no failure. */
static char no_bytes[1];

static char *gather_in(caf_desc *d, size_t *bytes)
{
    dmsg_layout l;
    size_t n = dmsg_caf_desc_count(d), es = d->dtype.elem_len;
    if (!d->base) /* an unallocated component: its bounds mean nothing */
        n = 0;
    *bytes = n * es;
    if (*bytes == 0)
        return no_bytes;
    if (d->dtype.rank == 0) /* a scalar: no layout to work out (CO_SUM of one value) */
        return d->base;
    if (dmsg_caf_desc_layout(d, &l) == 0 && l.ndims == 1 && (l.stride[0] == (ptrdiff_t)es || n == 1))
        return d->base;
    char *buf = malloc(*bytes ? *bytes : 1);
    if (buf)
        dmsg_caf_pack(d, d->base, buf);
    return buf;
}

static void scatter_out(caf_desc *d, char *buf)
{
    if (buf != d->base && buf != no_bytes) {
        dmsg_caf_unpack(d, d->base, buf);
        free(buf);
    }
}

static dmsg_type red_type(const caf_desc *d)
{
    size_t es = d->dtype.elem_len;
    switch (d->dtype.type) {
    case CAF_BT_INTEGER:
        return es == 1 ? DMSG_TYPE_INT8 : es == 2 ? DMSG_TYPE_INT16 : es == 4 ? DMSG_TYPE_INT32
             : es == 8 ? DMSG_TYPE_INT64 : 0;
    case CAF_BT_REAL:
        return es == 4 ? DMSG_TYPE_FLOAT : es == 8 ? DMSG_TYPE_DOUBLE
             : es == sizeof(long double) ? DMSG_TYPE_LONG_DOUBLE : 0;
    case CAF_BT_COMPLEX:
        return es == 8 ? DMSG_TYPE_FLOAT_COMPLEX : es == 16 ? DMSG_TYPE_DOUBLE_COMPLEX : 0;
    default:
        return 0;
    }
}

/* acc[i] = acc[i] op x[i] for n elements of one type; integers wrap (in
 * unsigned arithmetic, as the core's reductions). foldable() says which
 * pairs it takes (the others use the core's collective). */
#define FOLD_MINMAX(T)                                                                             \
    do {                                                                                           \
        T a, b;                                                                                    \
        for (size_t i = 0; i < n; i++) {                                                           \
            memcpy(&a, acc + i * sizeof a, sizeof a);                                              \
            memcpy(&b, x + i * sizeof b, sizeof b);                                                \
            if (op == DMSG_OP_MIN ? b < a : b > a)                                                 \
                memcpy(acc + i * sizeof a, &b, sizeof b);                                          \
        }                                                                                          \
    } while (0)
#define FOLD_SUM(T, U)                                                                             \
    do {                                                                                           \
        T a, b;                                                                                    \
        for (size_t i = 0; i < n; i++) {                                                           \
            memcpy(&a, acc + i * sizeof a, sizeof a);                                              \
            memcpy(&b, x + i * sizeof b, sizeof b);                                                \
            a = (T)((U)a + (U)b);                                                                  \
            memcpy(acc + i * sizeof a, &a, sizeof a);                                              \
        }                                                                                          \
    } while (0)
#define FOLD(T, U)                                                                                 \
    do {                                                                                           \
        if (op == DMSG_OP_SUM)                                                                     \
            FOLD_SUM(T, U);                                                                        \
        else                                                                                       \
            FOLD_MINMAX(T);                                                                        \
        return 0;                                                                                  \
    } while (0)

static int foldable(dmsg_type t, dmsg_redop op)
{
    if (op != DMSG_OP_SUM && op != DMSG_OP_MIN && op != DMSG_OP_MAX)
        return 0;
    if (t == DMSG_TYPE_FLOAT_COMPLEX || t == DMSG_TYPE_DOUBLE_COMPLEX)
        return op == DMSG_OP_SUM;
    return t == DMSG_TYPE_INT8 || t == DMSG_TYPE_INT16 || t == DMSG_TYPE_INT32 ||
           t == DMSG_TYPE_INT64 || t == DMSG_TYPE_FLOAT || t == DMSG_TYPE_DOUBLE ||
           t == DMSG_TYPE_LONG_DOUBLE;
}

/* d[i] = a[i] + b[i] for n elements of one type, 16 bytes at a time
 * (GCC's vector extension: gcc -O2 leaves the plain loop scalar); d may be
 * a itself, since each vector is loaded before it is stored. */
#define VSUM(T)                                                                                    \
    do {                                                                                           \
        typedef T vec __attribute__((vector_size(16)));                                            \
        size_t i = 0, per = sizeof(vec) / sizeof(T);                                               \
        for (; i + per <= n; i += per) {                                                           \
            vec va, vb;                                                                            \
            memcpy(&va, a + i * sizeof(T), sizeof va);                                             \
            memcpy(&vb, b + i * sizeof(T), sizeof vb);                                             \
            va += vb;                                                                              \
            memcpy(d + i * sizeof(T), &va, sizeof va);                                             \
        }                                                                                          \
        for (; i < n; i++) {                                                                       \
            T x, y;                                                                                \
            memcpy(&x, a + i * sizeof x, sizeof x);                                                \
            memcpy(&y, b + i * sizeof y, sizeof y);                                                \
            x = (T)(x + y);                                                                        \
            memcpy(d + i * sizeof x, &x, sizeof x);                                                \
        }                                                                                          \
        return 0;                                                                                  \
    } while (0)

static int fold(char *acc, const char *x, size_t n, dmsg_type t, dmsg_redop op);

/* d = a op b (in this order: a is the earlier member); d is a, or overlaps
 * neither. */
static int fold3(char *d, const char *a, const char *b, size_t n, dmsg_type t, dmsg_redop op)
{
    if (op == DMSG_OP_SUM) {
        switch (t) { /* integers in unsigned arithmetic: they wrap */
        case DMSG_TYPE_INT8: VSUM(uint8_t);
        case DMSG_TYPE_INT16: VSUM(uint16_t);
        case DMSG_TYPE_INT32: VSUM(uint32_t);
        case DMSG_TYPE_INT64: VSUM(uint64_t);
        case DMSG_TYPE_FLOAT: VSUM(float);
        case DMSG_TYPE_DOUBLE: VSUM(double);
        /* a complex sum adds the real and the imaginary parts apart */
        case DMSG_TYPE_FLOAT_COMPLEX: n *= 2; VSUM(float);
        case DMSG_TYPE_DOUBLE_COMPLEX: n *= 2; VSUM(double);
        default: break;
        }
    }
    if (d != a)
        memmove(d, a, n * dmsg_type_size(t));
    return fold(d, b, n, t, op);
}

static int fold(char *acc, const char *x, size_t n, dmsg_type t, dmsg_redop op)
{
    switch (t) {
    case DMSG_TYPE_INT8: FOLD(int8_t, uint8_t);
    case DMSG_TYPE_INT16: FOLD(int16_t, uint16_t);
    case DMSG_TYPE_INT32: FOLD(int32_t, uint32_t);
    case DMSG_TYPE_INT64: FOLD(int64_t, uint64_t);
    case DMSG_TYPE_FLOAT: FOLD(float, float);
    case DMSG_TYPE_DOUBLE: FOLD(double, double);
    case DMSG_TYPE_LONG_DOUBLE: FOLD(long double, long double);
    case DMSG_TYPE_FLOAT_COMPLEX:
        if (op != DMSG_OP_SUM)
            return -1;
        FOLD_SUM(float _Complex, float _Complex);
        return 0;
    case DMSG_TYPE_DOUBLE_COMPLEX:
        if (op != DMSG_OP_SUM)
            return -1;
        FOLD_SUM(double _Complex, double _Complex);
        return 0;
    default:
        return -1;
    }
}

/* A small reduction over the initial team, where the transport carries
 * values in its barrier (shm): one world barrier that hands every image
 * every image's values (dmsg_sync_xchg), then the fold in image order, as
 * reduce_small's. A world barrier, so it is counted as SYNC ALL's are, and
 * a stopped image (which passes world barriers until every image has
 * stopped: caf_init.c) takes part in it and is reported the same way.
 * Returns 1 where it does not apply (another team, too large, a pair
 * fold() does not take, or a transport without it: the same on every
 * image). */
static int reduce_world(char *buf, size_t bytes, size_t n, dmsg_type t, dmsg_redop op, int *stat,
                        char *errmsg, size_t errmsg_len, const char *what)
{
    /* every image's values (one thread per image calls the runtime) */
    static _Alignas(16) char all[DMSG_SYNC_XCHG_MAX];
    char acc[DMSG_CAF_SLOT];
    size_t np = (size_t)dmsg_npes();
    if (dmsg_caf_cur->team != DMSG_TEAM_WORLD || bytes > DMSG_CAF_SLOT || bytes == 0 ||
        bytes * np > sizeof all || !foldable(t, op))
        return 1;
    int rc = dmsg_sync_xchg(buf, bytes, all), gone = 0;
    if (rc == DMSG_ERR_UNSUPPORTED)
        return 1;
    if (rc == DMSG_OK)
        gone = dmsg_caf_stopped_by(++dmsg_caf_barriers);
    if (dmsg_caf_step_end(stat, errmsg, errmsg_len, what, rc, gone) == 0) {
        memcpy(acc, all, bytes);
        for (size_t i = 1; i < np; i++)
            (void)fold(acc, all + i * bytes, n, t, op);
        memcpy(buf, acc, bytes);
        dmsg_caf_ok(stat, errmsg, errmsg_len);
    }
    return 0;
}

/* A small reduction is one gate carrying every member's values to every
 * other one (dmsg_caf_gate_data), then a local fold in team order, so
 * every image computes the same result: no collective after the gate.
 * Returns 1 where it does not apply (too large, or a pair fold() does not
 * take). */
static int reduce_small(char *buf, size_t bytes, size_t n, dmsg_type t, dmsg_redop op,
                        int *stat, char *errmsg, size_t errmsg_len, const char *what)
{
    char acc[DMSG_CAF_SLOT];
    dmsg_team team = dmsg_caf_cur->team;
    if (bytes > DMSG_CAF_SLOT || bytes == 0 || !foldable(t, op))
        return 1;
    if (dmsg_caf_gate_data(team, buf, bytes, what, stat, errmsg, errmsg_len))
        return 0;
    int np = dmsg_team_npes(team), me = dmsg_team_pe(team);
    for (int i = 0; i < np; i++) {
        const char *x = i == me ? buf
                                : dmsg_caf_gate_slot(team == DMSG_TEAM_WORLD
                                                         ? i
                                                         : dmsg_team_translate(team, i,
                                                                               DMSG_TEAM_WORLD));
        if (i == 0)
            memcpy(acc, x, bytes);
        else
            (void)fold(acc, x, n, t, op);
    }
    memcpy(buf, acc, bytes);
    dmsg_caf_ok(stat, errmsg, errmsg_len);
    return 0;
}

/* A larger reduction: one or two gates instead of the gate and the core's
 * allreduce (two more rounds of waits for vectors this size; a round
 * waits for every member to be scheduled, and images often outnumber
 * cores). Each member copies its values into its own symmetric
 * dmsg_caf_big and passes the gate (with quiet: the others see the values
 * once they see it). Two members then fetch each other's whole vector and
 * fold. More members split the vector into one part per member: each
 * fetches its part from every member, folds it, puts the result in place
 * of its own values (nobody else reads that part of its dmsg_caf_big),
 * passes a second gate and fetches the other parts' results: about twice
 * the vector read per member, as the core's reduce-scatter and allgather
 * move. Folds run in team order in chunks that stay in cache, so every
 * image computes the same bits. Returns 1 where it does not apply. */
#define BIG_CHUNK ((size_t)8 << 10)

static int member_pe(dmsg_team team, int i)
{
    return team == DMSG_TEAM_WORLD ? i : dmsg_team_translate(team, i, DMSG_TEAM_WORLD);
}

/* buf[lo, hi) = the fold of every member's big[lo, hi), in team order. */
static int fold_range(dmsg_team team, int np, const char *big, char *buf, size_t lo, size_t hi,
                      size_t es, dmsg_type t, dmsg_redop op)
{
    char acc[BIG_CHUNK], x[BIG_CHUNK];
    int rc = DMSG_OK, me = dmsg_pe();
    for (size_t off = lo; off < hi && rc == DMSG_OK; off += BIG_CHUNK) {
        size_t len = hi - off < BIG_CHUNK ? hi - off : BIG_CHUNK;
        for (int i = 0; i < np && rc == DMSG_OK; i++) {
            int pe = member_pe(team, i);
            char *to = i == 0 ? acc : x;
            if (pe == me)
                memcpy(to, buf + off, len);
            else
                rc = dmsg_fetch(to, big + off, len, pe);
            if (rc == DMSG_OK && i > 0)
                (void)fold(acc, x, len / es, t, op);
        }
        if (rc == DMSG_OK)
            memcpy(buf + off, acc, len);
    }
    return rc;
}

/* fold_range without copies where every member's segment is mapped here
 * (dmsg_peer_ptr: shm): buf[lo, hi) is folded straight from the members'
 * big, in team order, chunk by chunk so that the partial result
 * stays in cache (this image's own values from its big too,
 * except as the first member, where the fold starts in buf). Returns 1,
 * having done nothing, where a member is not mapped. */
static int fold_direct(dmsg_team team, int np, int mi, const char *big, char *buf, size_t lo,
                       size_t hi, size_t es, dmsg_type t, dmsg_redop op)
{
    for (int i = 0; i < np; i++)
        if (!dmsg_peer_ptr(big, member_pe(team, i)))
            return 1;
    for (size_t off = lo; off < hi; off += BIG_CHUNK) {
        size_t len = hi - off < BIG_CHUNK ? hi - off : BIG_CHUNK;
        for (int i = 1; i < np; i++) {
            const char *first = dmsg_peer_ptr(big, member_pe(team, 0));
            const char *next = dmsg_peer_ptr(big, member_pe(team, i));
            (void)fold3(buf + off, i > 1 || mi == 0 ? buf + off : first + off, next + off,
                        len / es, t, op);
        }
    }
    return 0;
}

static int reduce_big(char *buf, size_t bytes, size_t es, dmsg_type t, dmsg_redop op, int *stat,
                      char *errmsg, size_t errmsg_len, const char *what)
{
    dmsg_team team = dmsg_caf_cur->team;
    int np = dmsg_team_npes(team), mi = dmsg_team_pe(team), me = dmsg_pe();
    if (bytes <= DMSG_CAF_SLOT || bytes > DMSG_CAF_BIG || np < 2 || !foldable(t, op) ||
        BIG_CHUNK % es)
        return 1;
    /* The two buffers alternate by the team's count of these reductions
     * (every member counts the same): a reader of the previous one may
     * still be reading while this one is filled, so a member that runs
     * ahead does not wait here for the last one's readers. Every reader of
     * the values this image offered in this buffer two uses ago has read
     * them (at once within one team: the gate of the use between waited
     * for them; after a change of team perhaps not). */
    int p = (int)(dmsg_caf_cur->big_uses++ & 1);
    char *big = dmsg_caf_big + (size_t)p * DMSG_CAF_BIG;
    int rc = dmsg_wait_until(&dmsg_caf_big_acks[p], DMSG_TYPE_UINT64, DMSG_CMP_GE,
                             &dmsg_caf_big_want[p]);
    if (rc == DMSG_OK)
        rc = dmsg_deposit(big, buf, bytes, me, DMSG_CTR_NONE);
    if (rc != DMSG_OK) {
        dmsg_caf_fail(stat, errmsg, errmsg_len, 1, "%s: %s (%s)", what, dmsg_strerror(rc),
                      dmsg_last_error());
        return 0;
    }
    /* every member gets the same answer: none reads when it fails */
    if (dmsg_caf_gate(team, 1, what, stat, errmsg, errmsg_len))
        return 0;
    dmsg_caf_big_want[p] += (uint64_t)(np - 1);
    size_t n = bytes / es, per = (n + (size_t)np - 1) / (size_t)np, lo = 0, hi = bytes;
    if (np > 2) {
        lo = (per * (size_t)mi < n ? per * (size_t)mi : n) * es;
        hi = (per * (size_t)(mi + 1) < n ? per * (size_t)(mi + 1) : n) * es;
    }
    if (fold_direct(team, np, mi, big, buf, lo, hi, es, t, op))
        rc = fold_range(team, np, big, buf, lo, hi, es, t, op);
    int gated = 1;
    if (np > 2 && rc == DMSG_OK && hi > lo)
        rc = dmsg_deposit(big + lo, buf + lo, hi - lo, me, DMSG_CTR_NONE);
    if (np > 2 && rc == DMSG_OK)
        gated = dmsg_caf_gate(team, 1, what, stat, errmsg, errmsg_len) == 0;
    for (int i = 0; np > 2 && gated && i < np && rc == DMSG_OK; i++) {
        size_t l = (per * (size_t)i < n ? per * (size_t)i : n) * es,
               h = (per * (size_t)(i + 1) < n ? per * (size_t)(i + 1) : n) * es;
        if (i != mi && h > l)
            rc = dmsg_fetch(buf + l, big + l, h - l, member_pe(team, i));
    }
    /* told even after a failure, so that no owner waits for ever */
    for (int i = 0; i < np; i++) {
        int pe = member_pe(team, i);
        int src = pe == me ? DMSG_OK : dmsg_signal(&dmsg_caf_big_acks[p], 1, DMSG_SIG_ADD, pe);
        if (rc == DMSG_OK)
            rc = src;
    }
    if (!gated)
        return 0; /* the gate reported it */
    if (rc != DMSG_OK)
        dmsg_caf_fail(stat, errmsg, errmsg_len, 1, "%s: %s (%s)", what, dmsg_strerror(rc),
                      dmsg_last_error());
    else
        dmsg_caf_ok(stat, errmsg, errmsg_len);
    return 0;
}

static void reduce(caf_desc *d, dmsg_redop op, int result_image, int *stat, char *errmsg,
                   size_t errmsg_len, const char *what)
{
    size_t bytes;
    dmsg_type t = red_type(d);
    if (!t) {
        dmsg_caf_fail(stat, errmsg, errmsg_len, 1, "%s of this type and kind is not supported", what);
        return;
    }
    char *buf = gather_in(d, &bytes);
    if (!buf) {
        dmsg_caf_fail(stat, errmsg, errmsg_len, 1, "%s: out of memory", what);
        return;
    }
    size_t n = bytes / d->dtype.elem_len;
    /* (with RESULT_IMAGE the others' values become undefined: all get the result) */
    if (reduce_world(buf, bytes, n, t, op, stat, errmsg, errmsg_len, what) == 0 ||
        reduce_small(buf, bytes, n, t, op, stat, errmsg, errmsg_len, what) == 0 ||
        reduce_big(buf, bytes, d->dtype.elem_len, t, op, stat, errmsg, errmsg_len, what) == 0) {
        scatter_out(d, buf);
        return;
    }
    if (dmsg_caf_gate(dmsg_caf_cur->team, 0, what, stat, errmsg, errmsg_len)) {
        if (buf != d->base && buf != no_bytes)
            free(buf);
        return;
    }
    int rc = n == 0           ? DMSG_OK
           : result_image > 0 ? dmsg_reduce(dmsg_caf_cur->team, buf, buf, n, t, op, result_image - 1)
                              : dmsg_allreduce(dmsg_caf_cur->team, buf, buf, n, t, op);
    scatter_out(d, buf);
    if (rc)
        dmsg_caf_fail(stat, errmsg, errmsg_len, 1, "%s: %s (%s)", what, dmsg_strerror(rc),
                      dmsg_last_error());
    else
        dmsg_caf_ok(stat, errmsg, errmsg_len);
}

void _gfortran_caf_co_broadcast(caf_desc *a, int source_image, int *stat, char *errmsg,
                                size_t errmsg_len);
void _gfortran_caf_co_broadcast(caf_desc *a, int source_image, int *stat, char *errmsg,
                                size_t errmsg_len)
{
    size_t bytes;
    if (dmsg_caf_gate(dmsg_caf_cur->team, 0, "CO_BROADCAST", stat, errmsg, errmsg_len))
        return;
    char *buf = gather_in(a, &bytes);
    if (!buf) {
        dmsg_caf_fail(stat, errmsg, errmsg_len, 1, "CO_BROADCAST: out of memory");
        return;
    }
    int rc = bytes ? dmsg_bcast(dmsg_caf_cur->team, buf, buf, bytes, source_image - 1) : DMSG_OK;
    scatter_out(a, buf);
    if (rc)
        dmsg_caf_fail(stat, errmsg, errmsg_len, 1, "CO_BROADCAST: %s (%s)", dmsg_strerror(rc),
                      dmsg_last_error());
    else
        dmsg_caf_ok(stat, errmsg, errmsg_len);
}

void _gfortran_caf_co_sum(caf_desc *a, int result_image, int *stat, char *errmsg,
                          size_t errmsg_len);
void _gfortran_caf_co_sum(caf_desc *a, int result_image, int *stat, char *errmsg,
                          size_t errmsg_len)
{
    reduce(a, DMSG_OP_SUM, result_image, stat, errmsg, errmsg_len, "CO_SUM");
}

/* CHARACTER minimum and maximum: gathered, compared here (Fortran compares
 * by character code, blank-padded strings of one length). */
static int char_cmp(const char *x, const char *y, size_t len, size_t kind)
{
    if (kind == 1)
        return memcmp(x, y, len);
    for (size_t i = 0; i < len; i += 4) {
        uint32_t a, b;
        memcpy(&a, x + i, 4);
        memcpy(&b, y + i, 4);
        if (a != b)
            return a < b ? -1 : 1;
    }
    return 0;
}

static void minmax(caf_desc *a, int result_image, int *stat, char *errmsg, int a_len,
                   size_t errmsg_len, int max)
{
    const char *what = max ? "CO_MAX" : "CO_MIN";
    if (a->dtype.type != CAF_BT_CHARACTER) {
        reduce(a, max ? DMSG_OP_MAX : DMSG_OP_MIN, result_image, stat, errmsg, errmsg_len, what);
        return;
    }
    size_t bytes, es = a->dtype.elem_len, kind = a_len > 0 ? es / (size_t)a_len : 1;
    if (dmsg_caf_gate(dmsg_caf_cur->team, 0, what, stat, errmsg, errmsg_len))
        return;
    int np = dmsg_team_npes(dmsg_caf_cur->team);
    char *buf = gather_in(a, &bytes), *all = buf ? malloc(bytes * (size_t)np + 1) : NULL;
    int rc = !all ? DMSG_ERR_NOMEM : bytes ? dmsg_allgather(dmsg_caf_cur->team, all, buf, bytes) : DMSG_OK;
    if (rc == DMSG_OK && bytes) {
        for (size_t e = 0; e < bytes / es; e++) {
            char *best = all + e * es;
            for (int i = 1; i < np; i++) {
                char *c = all + (size_t)i * bytes + e * es;
                int r = char_cmp(c, best, es, kind);
                if (max ? r > 0 : r < 0)
                    best = c;
            }
            memcpy(buf + e * es, best, es);
        }
    }
    free(all);
    if (buf)
        scatter_out(a, buf);
    if (rc)
        dmsg_caf_fail(stat, errmsg, errmsg_len, 1, "%s: %s", what, dmsg_strerror(rc));
    else
        dmsg_caf_ok(stat, errmsg, errmsg_len);
}

void _gfortran_caf_co_min(caf_desc *a, int result_image, int *stat, char *errmsg, int a_len,
                          size_t errmsg_len);
void _gfortran_caf_co_min(caf_desc *a, int result_image, int *stat, char *errmsg, int a_len,
                          size_t errmsg_len)
{
    minmax(a, result_image, stat, errmsg, a_len, errmsg_len, 0);
}

void _gfortran_caf_co_max(caf_desc *a, int result_image, int *stat, char *errmsg, int a_len,
                          size_t errmsg_len);
void _gfortran_caf_co_max(caf_desc *a, int result_image, int *stat, char *errmsg, int a_len,
                          size_t errmsg_len)
{
    minmax(a, result_image, stat, errmsg, a_len, errmsg_len, 1);
}

/* Calls the user's operation on x and y, leaving the result in x. The
 * function's C signature follows from the type, the kind and the flags. */
#define CALL_OPR(T)                                                                                \
    do {                                                                                           \
        T a, b, r;                                                                                 \
        memcpy(&a, x, sizeof a);                                                                   \
        memcpy(&b, y, sizeof b);                                                                   \
        if (flags & OPR_ARG_VALUE)                                                                 \
            r = ((T(*)(T, T))(void (*)(void))opr)(a, b);                                           \
        else                                                                                       \
            r = ((T(*)(T *, T *))(void (*)(void))opr)(&a, &b);                                     \
        memcpy(x, &r, sizeof r);                                                                   \
        return 0;                                                                                  \
    } while (0)

static int apply(void *opr, int flags, int type, size_t es, char *x, char *y, char *tmp)
{
    if (type == CAF_BT_CHARACTER) {
        /* result buffer and its length first, then the arguments and theirs */
        ((void (*)(char *, size_t, char *, char *, size_t, size_t))(void (*)(void))opr)(
            tmp, es, x, y, es, es);
        memcpy(x, tmp, es);
        return 0;
    }
    if (type == CAF_BT_INTEGER || type == CAF_BT_LOGICAL) {
        switch (es) {
        case 1: CALL_OPR(int8_t);
        case 2: CALL_OPR(int16_t);
        case 4: CALL_OPR(int32_t);
        case 8: CALL_OPR(int64_t);
        default: return -1;
        }
    }
    if (type == CAF_BT_REAL) {
        switch (es) {
        case 4: CALL_OPR(float);
        case 8: CALL_OPR(double);
        default: return -1;
        }
    }
    if (type == CAF_BT_COMPLEX) {
        switch (es) {
        case 8: CALL_OPR(float _Complex);
        case 16: CALL_OPR(double _Complex);
        default: return -1;
        }
    }
    return -1;
}

void _gfortran_caf_co_reduce(caf_desc *a, void *opr, int opr_flags, int result_image, int *stat,
                             char *errmsg, int a_len, size_t errmsg_len);
void _gfortran_caf_co_reduce(caf_desc *a, void *opr, int opr_flags, int result_image, int *stat,
                             char *errmsg, int a_len, size_t errmsg_len)
{
    int flags = opr_flags, type = a->dtype.type;
    size_t bytes, es = a->dtype.elem_len;
    (void)a_len;
    if (type == CAF_BT_DERIVED || (flags & OPR_ARG_DESC))
        dmsg_caf_unsupported("CO_REDUCE of a derived type or with an array-valued operation");
    if (dmsg_caf_gate(dmsg_caf_cur->team, 0, "CO_REDUCE", stat, errmsg, errmsg_len))
        return;
    int np = dmsg_team_npes(dmsg_caf_cur->team);
    char *buf = gather_in(a, &bytes);
    char *all = buf ? malloc(bytes * (size_t)np + 1) : NULL, *tmp = malloc(es + 1);
    int rc = !all || !tmp ? DMSG_ERR_NOMEM
           : bytes        ? dmsg_allgather(dmsg_caf_cur->team, all, buf, bytes)
                          : DMSG_OK;
    for (size_t e = 0; rc == DMSG_OK && bytes && e < bytes / es; e++) {
        char *acc = all + e * es;
        for (int i = 1; i < np && rc == DMSG_OK; i++)
            if (apply(opr, flags, type, es, acc, all + (size_t)i * bytes + e * es, tmp))
                rc = DMSG_ERR_UNSUPPORTED;
        if (rc == DMSG_OK && (result_image <= 0 || result_image - 1 == dmsg_team_pe(dmsg_caf_cur->team)))
            memcpy(buf + e * es, acc, es);
    }
    free(all);
    free(tmp);
    if (buf)
        scatter_out(a, buf);
    if (rc)
        dmsg_caf_fail(stat, errmsg, errmsg_len, 1, "CO_REDUCE: %s", dmsg_strerror(rc));
    else
        dmsg_caf_ok(stat, errmsg, errmsg_len);
}

/* RANDOM_INIT. libgfortran's own _gfortran_random_init serves one image
 * only (it gives every image the same repeatable seed, and stops for
 * REPEATABLE=.false., IMAGE_DISTINCT=.false. beyond image 2), so the seed
 * is chosen here and put with RANDOM_SEED (libgfortran's
 * _gfortran_random_seed_i4, descriptor as in caf.h):
 *   repeatable, distinct:      a fixed sequence, offset by the image number
 *   repeatable, not distinct:  the fixed sequence on every image
 *   not repeatable, distinct:  RANDOM_SEED() (fresh entropy on each image)
 *   neither:                   a sequence from the job's seed, which image 1
 *                              drew at start-up (the same on every image,
 *                              new in every run) */
extern void _gfortran_random_seed_i4(int32_t *size, caf_desc *put, caf_desc *get)
    __attribute__((weak));

/* Park and Miller's minimal standard generator (CACM 31(10), 1988). */
static int32_t lcg_next(uint64_t *state)
{
    *state = *state * 16807 % 2147483647;
    return (int32_t)*state;
}

void _gfortran_caf_random_init(bool repeatable, bool image_distinct);
void _gfortran_caf_random_init(bool repeatable, bool image_distinct)
{
    int32_t size = 0;
    if (!_gfortran_random_seed_i4)
        dmsg_caf_unsupported("RANDOM_INIT without libgfortran");
    if (!repeatable && image_distinct) {
        _gfortran_random_seed_i4(NULL, NULL, NULL);
        return;
    }
    _gfortran_random_seed_i4(&size, NULL, NULL);
    int32_t *seed = malloc((size_t)(size > 0 ? size : 1) * sizeof *seed);
    if (!seed)
        dmsg_caf_fail(NULL, NULL, 0, 1, "RANDOM_INIT: out of memory");
    uint64_t state = 57911963;
    if (!repeatable)
        state = dmsg_caf_job_seed();
    if (image_distinct)
        state += (uint64_t)dmsg_pe() * 1000003;
    state = state % 2147483646 + 1; /* the generator's range: 1 .. 2^31 - 2 */
    for (int32_t i = 0; i < size; i++)
        seed[i] = lcg_next(&state);
    caf_desc d;
    memset(&d, 0, sizeof d);
    d.base = seed;
    d.dtype.elem_len = sizeof *seed;
    d.dtype.rank = 1;
    d.dtype.type = CAF_BT_INTEGER;
    d.span = sizeof *seed;
    d.dim[0].stride = 1;
    d.dim[0].lbound = 1;
    d.dim[0].ubound = size;
    d.offset = (size_t)-1; /* base addresses element 1 */
    _gfortran_random_seed_i4(NULL, &d, NULL);
    free(seed);
}
