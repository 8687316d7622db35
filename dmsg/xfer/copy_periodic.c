/* Periodic patterns (a section of sections, xfer.h): checking and copying.
 * The copy walks period by period and, inside one, the run list in order,
 * so the side the list is sorted by is read (or written) once, in address
 * order: a plan's CYCLIC(a) -> CYCLIC(b) piece list, moved one piece at a
 * time, would pass over the whole array once per piece instead. Runs are
 * short there (1-5 elements), so the common small sizes get fixed-size
 * moves instead of a memcpy call each. */
#include <stdlib.h>
#include <string.h>
#include "dmsg/xfer/xfer_impl.h"

/* One side's extent: run at off, b bytes, n periods stride s apart. */
static int side_extent(ptrdiff_t off, size_t b, size_t n, ptrdiff_t s, dmsg_extent *e)
{
    ptrdiff_t span, lo, hi;
    if (n - 1 > (size_t)PTRDIFF_MAX || b > (size_t)PTRDIFF_MAX ||
        __builtin_mul_overflow((ptrdiff_t)(n - 1), s, &span))
        return 0;
    if (__builtin_add_overflow(off, span < 0 ? span : 0, &lo) ||
        __builtin_add_overflow(off, (ptrdiff_t)b, &hi) ||
        __builtin_add_overflow(hi, span > 0 ? span : 0, &hi))
        return 0;
    if (lo < e->lo) e->lo = lo;
    if (hi > e->hi) e->hi = hi;
    return 1;
}

dmsg_status dmsg_periodic_check(dmsg_periodic *p, dmsg_extent *sext, dmsg_extent *dext)
{
    if (p == NULL || (p->nruns > 0 && p->run == NULL))
        return DMSG_FAIL(DMSG_ERR_NULL, "periodic pattern: NULL runs");
    if (p->stream < DMSG_PER_NO_STREAM || p->stream > DMSG_PER_DST_STREAM)
        return DMSG_FAIL(DMSG_ERR_ARG, "periodic pattern: unknown stream side %d", p->stream);
    dmsg_extent s = {PTRDIFF_MAX, PTRDIFF_MIN}, d = s;
    uint64_t bytes = 0, pieces = 0;
    size_t periods = 0, full = SIZE_MAX;
    for (size_t k = 0; k < p->nruns; k++) {
        const dmsg_prun *r = &p->run[k];
        uint64_t b;
        if (r->bytes == 0 || r->reps == 0)
            return DMSG_FAIL(DMSG_ERR_ARG, "periodic pattern: run %zu is empty", k);
        if (__builtin_mul_overflow((uint64_t)r->bytes, (uint64_t)r->reps, &b) ||
            __builtin_add_overflow(bytes, b, &bytes) || bytes > (uint64_t)PTRDIFF_MAX ||
            (p->stream != DMSG_PER_SRC_STREAM &&
             !side_extent(r->soff, r->bytes, r->reps, p->sstride, &s)) ||
            (p->stream != DMSG_PER_DST_STREAM &&
             !side_extent(r->doff, r->bytes, r->reps, p->dstride, &d)))
            return DMSG_FAIL(DMSG_ERR_OVERFLOW, "periodic pattern: run %zu overflows", k);
        pieces += r->reps;
        periods = r->reps > periods ? r->reps : periods;
        full = r->reps < full ? r->reps : full;
    }
    if (bytes == 0) {
        s.lo = s.hi = d.lo = d.hi = 0;
        full = 0;
    }
    if (p->stream == DMSG_PER_SRC_STREAM) s = (dmsg_extent){0, (ptrdiff_t)bytes};
    if (p->stream == DMSG_PER_DST_STREAM) d = (dmsg_extent){0, (ptrdiff_t)bytes};
    p->periods = periods;
    p->full = full;
    p->bytes = bytes;
    p->pieces = pieces;
    if (sext) *sext = s;
    if (dext) *dext = d;
    return DMSG_OK;
}

/* Small runs are whole elements of 4 or 8 bytes in a plan: fixed moves. */
static inline void mv(char *d, const char *s, size_t n)
{
    switch (n) {
    case 4:
        memcpy(d, s, 4);
        break;
    case 8:
        memcpy(d, s, 8);
        break;
    case 16:
        memcpy(d, s, 16);
        break;
    case 24:
        memcpy(d, s, 24);
        break;
    case 32:
        memcpy(d, s, 32);
        break;
    case 40:
        memcpy(d, s, 40);
        break;
    default:
        memcpy(d, s, n);
        break;
    }
}

/* Periods [r0, r1): every run when all is set, else those with reps > r.
 * The stream flags are constants at every call, so each case compiles to
 * its own loop. */
static inline __attribute__((always_inline)) void walk(char *dst, const char *src,
                                                       const dmsg_periodic *p, size_t r0, size_t r1,
                                                       int all, int sstream, int dstream,
                                                       char **dcur, const char **scur)
{
    const dmsg_prun *run = p->run;
    size_t n = p->nruns;
    char *dc = *dcur;
    const char *sc = *scur;
    for (size_t r = r0; r < r1; r++) {
        const char *sb = src + (ptrdiff_t)r * p->sstride;
        char *db = dst + (ptrdiff_t)r * p->dstride;
        for (size_t k = 0; k < n; k++) {
            if (!all && run[k].reps <= r) continue;
            size_t b = run[k].bytes;
            const char *s = sstream ? sc : sb + run[k].soff;
            char *d = dstream ? dc : db + run[k].doff;
            mv(d, s, b);
            if (sstream) sc += b;
            if (dstream) dc += b;
        }
    }
    *dcur = dc;
    *scur = sc;
}

static void walk_all(char *dst, const char *src, const dmsg_periodic *p, int ss, int ds)
{
    char *dc = dst;
    const char *sc = src;
    if (ss)
        walk(dst, src, p, 0, p->full, 1, 1, 0, &dc, &sc);
    else if (ds)
        walk(dst, src, p, 0, p->full, 1, 0, 1, &dc, &sc);
    else
        walk(dst, src, p, 0, p->full, 1, 0, 0, &dc, &sc);
    walk(dst, src, p, p->full, p->periods, 0, ss, ds, &dc, &sc);
}

/* Move tables of U periods, for the whole periods: each run becomes moves
 * of a fixed size, 16 bytes (the last one of a run ending at its end, so
 * that it overlaps the one before: bytes written twice with the same
 * value, and nothing outside the run), 8 or 4 bytes where a run is
 * shorter than 16 (two overlapping moves where it is not a multiple of 8
 * or 4). Each size has its own loop, with no branch on a run's length:
 * runs of 1-5 elements make that branch and a memcpy call the cost, and a
 * run of 2-5 doubles takes 1-3 moves instead of one per element (the
 * copy's cost on cached data is its moves: CYCLIC(16) -> CYCLIC(5) has
 * runs of 4 doubles on average). A move's two offsets are one table entry,
 * read by one load. U periods at a time keep the loops long where a period
 * holds few moves (CYCLIC(2) -> CYCLIC(3) on two PEs: two per partner).
 * Held on the stack, so only periods of up to XFER_PER_MOVES moves take
 * this way, and runs of up to XFER_PER_TABLE_RUN bytes (a longer run is
 * one memcpy call, run by run). */
#define XFER_PER_MOVES 2048
#define XFER_PER_UNROLL 256 /* moves the U periods of a table aim at */
#define XFER_PER_TABLE_RUN 128
#define XFER_PER_SET_MOVES (1u << 16) /* a set member's table: 512 KiB at most */
#define XFER_PER_SET_MIN_MOVES 4      /* a set member's moves per table, at least (mean) */

typedef struct pmove {
    int32_t s, d; /* source and destination offsets in the table's periods */
} pmove;

typedef struct moves_job {
    ptrdiff_t sstride, dstride; /* per table of U periods */
    size_t tables;
    size_t n[3]; /* moves of 16, 8 and 4 bytes */
} moves_job;

#define XFER_PER_MOVE(W)                                                                           \
    static inline __attribute__((always_inline)) void moves_##W(char *db, const char *sb,          \
                                                                const pmove *m, size_t n)          \
    {                                                                                              \
        _Pragma("GCC unroll 4") for (size_t i = 0; i < n; i++)                                     \
        {                                                                                          \
            uint64_t sd;                                                                           \
            memcpy(&sd, &m[i], sizeof sd);                                                         \
            pmove x;                                                                               \
            memcpy(&x, &sd, sizeof x);                                                             \
            memcpy(db + x.d, sb + x.s, W);                                                         \
        }                                                                                          \
    }
XFER_PER_MOVE(16)
XFER_PER_MOVE(8)
XFER_PER_MOVE(4)

static void moves(char *dst, const char *src, const moves_job *j, const pmove *m)
{
    const pmove *m16 = m, *m8 = m16 + j->n[0], *m4 = m8 + j->n[1];
    for (size_t r = 0; r < j->tables; r++) {
        const char *sb = src + (ptrdiff_t)r * j->sstride;
        char *db = dst + (ptrdiff_t)r * j->dstride;
        moves_16(db, sb, m16, j->n[0]);
        moves_8(db, sb, m8, j->n[1]);
        moves_4(db, sb, m4, j->n[2]);
    }
}

static int fits32(ptrdiff_t lo, ptrdiff_t hi)
{
    return lo >= INT32_MIN && hi <= INT32_MAX;
}

/* Moves of each size (16, 8, 4) that a run of b bytes takes; 0 where it
 * is shorter than 4 bytes or too long for the tables. */
static int run_moves(size_t b, size_t n[3])
{
    if (b < 4 || b > XFER_PER_TABLE_RUN) return 0;
    n[0] = b >= 16 ? (b + 15) / 16 : 0;
    n[1] = b < 16 && b >= 8 ? 1 + (b % 8 != 0) : 0;
    n[2] = b < 8 ? 1 + (b % 4 != 0) : 0;
    return 1;
}

/* The moves of one period (*per); 0 where the tables do not apply. */
static int period_moves(const dmsg_periodic *p, size_t *per)
{
    size_t e = 0, n[3];
    if (p->full == 0) return 0;
    for (size_t k = 0; k < p->nruns; k++) {
        if (!run_moves(p->run[k].bytes, n)) return 0;
        e += n[0] + n[1] + n[2];
        if (e > XFER_PER_MOVES) return 0;
    }
    *per = e;
    return 1;
}

/* 1 if tables of u periods of p fit the tables' 32-bit offsets (a
 * stream's too: u periods' bytes, less than the source's span). */
static int tables_fit(const dmsg_periodic *p, size_t u)
{
    ptrdiff_t ls = (ptrdiff_t)(u - 1) * p->sstride, ld = (ptrdiff_t)(u - 1) * p->dstride;
    if (u > 1 &&
        ((ls / (ptrdiff_t)(u - 1)) != p->sstride || (ld / (ptrdiff_t)(u - 1)) != p->dstride))
        return 0;
    uint64_t bytes = 0;
    for (size_t k = 0; k < p->nruns; k++) {
        const dmsg_prun *r = &p->run[k];
        ptrdiff_t b = (ptrdiff_t)r->bytes;
        bytes += r->bytes;
        if (!fits32(r->soff + (ls < 0 ? ls : 0), r->soff + b + (ls > 0 ? ls : 0)) ||
            !fits32(r->doff + (ld < 0 ? ld : 0), r->doff + b + (ld > 0 ? ld : 0)))
            return 0;
    }
    return bytes * u <= INT32_MAX;
}

/* The moves of one period (*per) and the periods per table (*unroll); 0
 * where the tables do not apply. */
static int plan_moves(const dmsg_periodic *p, size_t *per, size_t *unroll)
{
    size_t e;
    if (!period_moves(p, &e)) return 0;
    size_t u = e >= XFER_PER_UNROLL ? 1 : XFER_PER_UNROLL / e;
    if (u > p->full) u = p->full;
    if (!tables_fit(p, u)) return 0;
    *per = e;
    *unroll = u;
    return 1;
}

/* Appends the moves of b bytes at (so, dof) to the three tables. */
static void add_moves(pmove *t[3], ptrdiff_t so, ptrdiff_t dof, size_t b)
{
    static const size_t w[3] = {16, 8, 4};
    size_t n[3];
    run_moves(b, n);
    for (int c = 0; c < 3; c++)
        for (size_t i = 0; i < n[c]; i++) {
            /* The last move of a run ends at the run's end. */
            ptrdiff_t o = i + 1 < n[c] ? (ptrdiff_t)(i * w[c]) : (ptrdiff_t)(b - w[c]);
            *t[c]++ = (pmove){(int32_t)(so + o), (int32_t)(dof + o)};
        }
}

/* Fills m (room for u periods' moves) and j's sizes and strides for tables
 * of u periods of p; returns a stream's bytes per table. */
static ptrdiff_t fill_moves(const dmsg_periodic *p, size_t u, int ss, int ds, pmove *m,
                            moves_job *j)
{
    size_t n[3];
    j->n[0] = j->n[1] = j->n[2] = 0;
    for (size_t k = 0; k < p->nruns; k++) {
        run_moves(p->run[k].bytes, n);
        for (int c = 0; c < 3; c++)
            j->n[c] += n[c] * u;
    }
    pmove *t[3] = {m, m + j->n[0], m + j->n[0] + j->n[1]};
    ptrdiff_t pos = 0; /* a stream's offset in the table */
    for (size_t q = 0; q < u; q++)
        for (size_t k = 0; k < p->nruns; k++) {
            const dmsg_prun *r = &p->run[k];
            ptrdiff_t so = ss ? pos : r->soff + (ptrdiff_t)q * p->sstride;
            ptrdiff_t dof = ds ? pos : r->doff + (ptrdiff_t)q * p->dstride;
            add_moves(t, so, dof, r->bytes);
            pos += (ptrdiff_t)r->bytes;
        }
    j->sstride = ss ? pos : (ptrdiff_t)u * p->sstride;
    j->dstride = ds ? pos : (ptrdiff_t)u * p->dstride;
    return pos;
}

void dmsg_copy_periodic(char *dst, const char *src, const dmsg_periodic *p)
{
    int ss = p->stream == DMSG_PER_SRC_STREAM, ds = p->stream == DMSG_PER_DST_STREAM;
    size_t e, u;
    if (!plan_moves(p, &e, &u)) {
        walk_all(dst, src, p, ss, ds);
        return;
    }
    pmove m[XFER_PER_MOVES + XFER_PER_UNROLL];
    moves_job j;
    ptrdiff_t pos = fill_moves(p, u, ss, ds, m, &j);
    j.tables = p->full / u;
    moves(dst, src, &j, m);
    /* The whole periods the tables left, and those some runs miss, run by
     * run; the streams go on past the tables. */
    size_t done = j.tables * u;
    char *dc = ds ? dst + (ptrdiff_t)j.tables * pos : dst;
    const char *sc = ss ? src + (ptrdiff_t)j.tables * pos : src;
    walk(dst, src, p, done, p->full, 1, ss, ds, &dc, &sc);
    walk(dst, src, p, p->full, p->periods, 0, ss, ds, &dc, &sc);
}

/* A set: every member's move tables of the same u periods. */
typedef struct set_member {
    dmsg_periodic p; /* its runs are the set's copy */
    moves_job j;     /* j.tables unused: the set's */
    pmove *m;
} set_member;

struct dmsg_periodic_set {
    size_t n, u, tables;
    set_member *mem;
};

void dmsg_periodic_set_free(dmsg_periodic_set *set)
{
    if (set == NULL) return;
    for (size_t i = 0; i < set->n; i++) {
        free(set->mem[i].m);
        free((void *)set->mem[i].p.run);
    }
    free(set->mem);
    free(set);
}

dmsg_status dmsg_periodic_set_build(const dmsg_periodic *p, size_t n, size_t budget,
                                    dmsg_periodic_set **out)
{
    *out = NULL;
    if (n == 0 || (p == NULL)) return DMSG_OK;
    size_t span = 0, full = SIZE_MAX, most = 0, moves_all = 0;
    for (size_t i = 0; i < n; i++) {
        size_t e;
        if (p[i].stream != DMSG_PER_NO_STREAM || !period_moves(&p[i], &e)) return DMSG_OK;
        ptrdiff_t a = p[i].sstride < 0 ? -p[i].sstride : p[i].sstride;
        ptrdiff_t b = p[i].dstride < 0 ? -p[i].dstride : p[i].dstride;
        span += (size_t)a + (size_t)b;
        full = p[i].full < full ? p[i].full : full;
        most = e > most ? e : most;
        moves_all += e;
    }
    /* u periods of every member touch about u * span bytes: budget's worth
     * stays in the cache from one member's moves to the next one's. */
    size_t u = span ? budget / span : 1;
    if (u < 1) u = 1;
    /* But not so few periods that a member's table is a move or two: a
     * pair of CYCLIC(2) -> CYCLIC(3) on 8 PEs has one run a period, and
     * tables of one period ran at 0.7 of those of four (4 KiB budget). */
    size_t um = (XFER_PER_SET_MIN_MOVES * n + moves_all - 1) / moves_all;
    if (u < um) u = um;
    if (u > full) u = full;
    if (u * most > XFER_PER_SET_MOVES) u = XFER_PER_SET_MOVES / most;
    if (u < 1) u = 1;
    for (size_t i = 0; i < n; i++)
        if (!tables_fit(&p[i], u)) return DMSG_OK;
    dmsg_periodic_set *set = calloc(1, sizeof *set);
    if (set == NULL || (set->mem = calloc(n, sizeof *set->mem)) == NULL) {
        free(set);
        return DMSG_FAIL(DMSG_ERR_NOMEM, "periodic set: out of memory");
    }
    set->u = u;
    set->tables = full / u;
    for (size_t i = 0; i < n; i++, set->n++) {
        size_t e;
        period_moves(&p[i], &e);
        set_member *x = &set->mem[i];
        dmsg_prun *runs = malloc(p[i].nruns * sizeof *runs);
        x->m = malloc(e * u * sizeof *x->m);
        if (runs == NULL || x->m == NULL) {
            free(runs);
            free(x->m);
            x->m = NULL;
            dmsg_periodic_set_free(set);
            return DMSG_FAIL(DMSG_ERR_NOMEM, "periodic set: out of memory");
        }
        memcpy(runs, p[i].run, p[i].nruns * sizeof *runs);
        x->p = p[i];
        x->p.run = runs;
        fill_moves(&x->p, u, 0, 0, x->m, &x->j);
    }
    *out = set;
    return DMSG_OK;
}

void dmsg_copy_periodic_set(const dmsg_periodic_set *set, char *const *dst, const char *const *src)
{
    for (size_t t = 0; t < set->tables; t++)
        for (size_t i = 0; i < set->n; i++) {
            const set_member *x = &set->mem[i];
            const pmove *m16 = x->m, *m8 = m16 + x->j.n[0], *m4 = m8 + x->j.n[1];
            const char *sb = src[i] + (ptrdiff_t)t * x->j.sstride;
            char *db = dst[i] + (ptrdiff_t)t * x->j.dstride;
            moves_16(db, sb, m16, x->j.n[0]);
            moves_8(db, sb, m8, x->j.n[1]);
            moves_4(db, sb, m4, x->j.n[2]);
        }
    /* Each member's periods past the common tables, run by run. */
    size_t done = set->tables * set->u;
    for (size_t i = 0; i < set->n; i++) {
        const dmsg_periodic *p = &set->mem[i].p;
        char *dc = dst[i];
        const char *sc = src[i];
        walk(dst[i], src[i], p, done, p->full, 1, 0, 0, &dc, &sc);
        walk(dst[i], src[i], p, p->full, p->periods, 0, 0, 0, &dc, &sc);
    }
}

void dmsg_periodic_pattern(const dmsg_periodic *p, int side, size_t *run, ptrdiff_t *spacing)
{
    int stream = p->stream == (side ? DMSG_PER_DST_STREAM : DMSG_PER_SRC_STREAM);
    ptrdiff_t per = side ? p->dstride : p->sstride;
    size_t mean = p->pieces ? (size_t)(p->bytes / p->pieces) : 1;
    *run = mean ? mean : 1;
    if (per < 0) per = -per;
    /* Runs spread over one period's stride; a stream, or runs that fill
     * their period, are contiguous. */
    ptrdiff_t gap = p->nruns ? per / (ptrdiff_t)p->nruns : 0;
    *spacing = stream || gap <= (ptrdiff_t)*run ? (ptrdiff_t)*run : gap;
}
