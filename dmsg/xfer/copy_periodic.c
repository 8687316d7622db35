/* Periodic patterns (a section of sections, xfer.h): checking and copying.
 * The copy walks period by period and, inside one, the run list in order,
 * so the side the list is sorted by is read (or written) once, in address
 * order: a plan's CYCLIC(a) -> CYCLIC(b) piece list, moved one piece at a
 * time, would pass over the whole array once per piece instead. Runs are
 * short there (1-5 elements), so the common small sizes get fixed-size
 * moves instead of a memcpy call each. */
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

/* Element tables of U periods, for the whole periods: runs that are whole
 * words of W bytes become one (source, destination) offset pair per word,
 * so the loop has no branch on the run length (runs of 1-5 elements make
 * that branch and the memcpy call the cost), and U periods at a time keep
 * the loop long where a period holds few words (CYCLIC(2) -> CYCLIC(3) on
 * two PEs: three per partner). Held on the stack, so only periods of up to
 * XFER_PER_ELEMS words take this way. */
#define XFER_PER_ELEMS 2048
#define XFER_PER_UNROLL 256 /* words the U periods of a table aim at */

typedef struct words_job {
    int ss, ds;
    ptrdiff_t sstride, dstride; /* per table of U periods */
    size_t tables, e;           /* tables to copy, words in one */
} words_job;

#define XFER_PER_WORDS(W)                                                                          \
    static void words_##W(char *dst, const char *src, const words_job *j, const int32_t *so,       \
                          const int32_t *dof)                                                      \
    {                                                                                              \
        size_t e = j->e;                                                                           \
        ptrdiff_t sst = j->ss ? (ptrdiff_t)(e * W) : j->sstride;                                   \
        ptrdiff_t dsst = j->ds ? (ptrdiff_t)(e * W) : j->dstride;                                  \
        for (size_t r = 0; r < j->tables; r++) {                                                   \
            const char *sb = src + (ptrdiff_t)r * sst;                                             \
            char *db = dst + (ptrdiff_t)r * dsst;                                                  \
            if (j->ss)                                                                             \
                for (size_t i = 0; i < e; i++)                                                     \
                    memcpy(db + dof[i], sb + i * W, W);                                            \
            else if (j->ds)                                                                        \
                for (size_t i = 0; i < e; i++)                                                     \
                    memcpy(db + i * W, sb + so[i], W);                                             \
            else                                                                                   \
                _Pragma("GCC unroll 8") for (size_t i = 0; i < e; i++)                             \
                    memcpy(db + dof[i], sb + so[i], W);                                            \
        }                                                                                          \
    }
XFER_PER_WORDS(4)
XFER_PER_WORDS(8)
XFER_PER_WORDS(16)

static int fits32(ptrdiff_t lo, ptrdiff_t hi)
{
    return lo >= INT32_MIN && hi <= INT32_MAX;
}

/* The word size (16, 8 or 4) that every run is made of, the words of one
 * period (*words) and the periods per table (*unroll); 0 where the tables
 * do not apply. */
static size_t word_of(const dmsg_periodic *p, size_t *words, size_t *unroll)
{
    size_t acc = 0, per = 0;
    for (size_t k = 0; k < p->nruns; k++) {
        acc |= p->run[k].bytes;
        per += p->run[k].bytes;
    }
    size_t w = (acc & 15) == 0 ? 16 : (acc & 7) == 0 ? 8 : (acc & 3) == 0 ? 4 : 0;
    if (w == 0 || p->full == 0 || per / w > XFER_PER_ELEMS) return 0;
    size_t e = per / w, u = e >= XFER_PER_UNROLL ? 1 : XFER_PER_UNROLL / e;
    if (u > p->full) u = p->full;
    /* Offsets of the U periods must fit the tables' 32 bits. */
    ptrdiff_t ls = (ptrdiff_t)(u - 1) * p->sstride, ld = (ptrdiff_t)(u - 1) * p->dstride;
    if (u > 1 &&
        ((ls / (ptrdiff_t)(u - 1)) != p->sstride || (ld / (ptrdiff_t)(u - 1)) != p->dstride))
        return 0;
    for (size_t k = 0; k < p->nruns; k++) {
        const dmsg_prun *r = &p->run[k];
        ptrdiff_t b = (ptrdiff_t)r->bytes;
        if (!fits32(r->soff + (ls < 0 ? ls : 0), r->soff + b + (ls > 0 ? ls : 0)) ||
            !fits32(r->doff + (ld < 0 ? ld : 0), r->doff + b + (ld > 0 ? ld : 0)))
            return 0;
    }
    *words = e;
    *unroll = u;
    return w;
}

void dmsg_copy_periodic(char *dst, const char *src, const dmsg_periodic *p)
{
    int ss = p->stream == DMSG_PER_SRC_STREAM, ds = p->stream == DMSG_PER_DST_STREAM;
    size_t e, u, w = word_of(p, &e, &u);
    if (w == 0) {
        walk_all(dst, src, p, ss, ds);
        return;
    }
    int32_t so[XFER_PER_ELEMS + XFER_PER_UNROLL], dof[XFER_PER_ELEMS + XFER_PER_UNROLL];
    size_t i = 0;
    for (size_t q = 0; q < u; q++)
        for (size_t k = 0; k < p->nruns; k++)
            for (size_t b = 0; b < p->run[k].bytes; b += w, i++) {
                so[i] = (int32_t)(p->run[k].soff + (ptrdiff_t)q * p->sstride + (ptrdiff_t)b);
                dof[i] = (int32_t)(p->run[k].doff + (ptrdiff_t)q * p->dstride + (ptrdiff_t)b);
            }
    words_job j = {ss, ds, (ptrdiff_t)u * p->sstride, (ptrdiff_t)u * p->dstride, p->full / u, i};
    switch (w) {
    case 4:
        words_4(dst, src, &j, so, dof);
        break;
    case 8:
        words_8(dst, src, &j, so, dof);
        break;
    default:
        words_16(dst, src, &j, so, dof);
        break;
    }
    /* The whole periods the tables left, and those some runs miss, run by
     * run; the streams go on past the tables. */
    size_t done = j.tables * u;
    char *dc = ds ? dst + done * e * w : dst;
    const char *sc = ss ? src + done * e * w : src;
    walk(dst, src, p, done, p->full, 1, ss, ds, &dc, &sc);
    walk(dst, src, p, p->full, p->periods, 0, ss, ds, &dc, &sc);
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
