/* Section copies. A normalized section is copied by a plan: the innermost
 * loop runs along the dimension with the most contiguous destination (then
 * source), and when the source is contiguous along a different dimension (a
 * transpose) the two are tiled so that the lines of both sides stay in cache
 * while a tile is copied. Sections whose shapes differ are refined to a common
 * shape when the dimension boundaries line up, else walked by two odometers.
 *
 * Tile size. Measured on 2048x2048 and 2000x2000 transposes (2-core Xeon, 48
 * KiB L1d and 2 MiB L2 per core), tiles of 64 KiB per side were at or near
 * the best for 4-, 8- and 16-byte elements. On a 2-core EPYC (32 KiB L1d,
 * 512 KiB L2 per core, 32 MiB L3), single-thread CPU time, blocks of N x N/2
 * and N x N/4 of 2048x2048: 16-byte elements copied 7-45% faster with tiles
 * of 2-4 KiB per side (16x16 elements) than with 64 KiB, and 2.4x faster
 * where both sides fit in L3 (1024x512); 8-byte elements 1-10% faster at 2-4
 * KiB; 4-byte elements were best at 64 KiB (2.7 against 1.7 GB/s at 2048 x
 * 1024). Small tiles keep the few source lines a tile reads at a
 * power-of-two row stride from evicting each other. In the FFT kernel (8-byte
 * elements, 4 PEs on the 2 cores) 64 KiB did better than 4 KiB in both of two
 * loaded rounds, so 8-byte elements keep 64 KiB: the automatic tile is 4 KiB
 * from 16-byte elements on and 64 KiB below (dmsg_xfer_tile_auto);
 * DMSG_TILE_BYTES overrides it. Line blocks inside the tiles won clearly for
 * 4-byte elements (about 1.4x at 2048), were even for 8, and lost for 16
 * bytes at the power-of-two size, so 16-byte elements use plain tiles.
 * A host profile (copy_tune.c, `dmsg-ctm tune`) may choose another tile and
 * line blocks on or off per element class, 16-byte blocks included.
 *
 * Contiguous runs stay glibc's memcpy. Non-temporal stores (SSE2 streaming
 * stores, 64 bytes a step, then sfence) measured against it on the Intel
 * Xeon host of docs/performance.md (2026-11-26, best of 7, loaded): 8.2 /
 * 12.6 / 10.0 / 2.4 / 2.8 GB/s at 1 / 4 / 16 / 64 / 256 MiB against
 * memcpy's 11.1 / 9.7 / 8.7 / 2.5 / 3.3: no win for the large runs they are
 * meant for (memcpy switches to them itself above its own threshold), and
 * hardware prefetch already follows contiguous runs, so neither is used. */
#include <stdint.h>
#include <string.h>
#include "dmsg/xfer/xfer_impl.h"

#if defined(__x86_64__) && defined(__SSE2__)
#include <emmintrin.h>
#define XFER_HAVE_NT 1
#else
#define XFER_HAVE_NT 0
#endif

/* Copies n elements, stepping ds bytes in dst and ss in src. */
typedef void (*vec_fn)(char *d, ptrdiff_t ds, const char *s, ptrdiff_t ss, size_t n,
                       size_t elem);

/* Copies a square line block of a transpose (see XFER_BLOCK). */
typedef void (*block_fn)(char *d, ptrdiff_t dsj, const char *s, ptrdiff_t ssi);

/* Fixed-size memcpy compiles to plain moves; one kernel per common size. */
#define XFER_VEC_FIXED(K)                                                                      \
    static void vec_##K(char *d, ptrdiff_t ds, const char *s, ptrdiff_t ss, size_t n,          \
                        size_t elem)                                                           \
    {                                                                                          \
        (void)elem;                                                                            \
        for (size_t i = 0; i < n; i++, d += ds, s += ss)                                       \
            memcpy(d, s, K);                                                                   \
    }
XFER_VEC_FIXED(1)
XFER_VEC_FIXED(2)
XFER_VEC_FIXED(4)
XFER_VEC_FIXED(8)
XFER_VEC_FIXED(16)
XFER_VEC_FIXED(32)

static void vec_any(char *d, ptrdiff_t ds, const char *s, ptrdiff_t ss, size_t n, size_t elem)
{
    for (size_t i = 0; i < n; i++, d += ds, s += ss)
        memcpy(d, s, elem);
}

#if XFER_HAVE_NT
/* Transposed planes too large for the caches: streaming stores. A plain
 * store first reads the destination line into the cache (write allocate)
 * and later writes it back, and in a transpose the lines of a tile share
 * cache sets (power-of-two strides), so they are written back early, some
 * more than once. On the 2-core Intel Xeon host of docs/performance.md
 * (2026-11-27, CPU time, best of 5-11, loaded; a process alone or two at
 * once, private or memfd-shared destination alike), a 16-byte transpose of
 * 2048 x 1024 half matrices took 4-5.6 ms with streaming stores against
 * 10.6-13.5 ms with plain ones; 8-byte elements, 4096 x 2048: 9.1-9.4 ms
 * in 16 x 16 tiles against 22-28 ms (64 KiB tiles: 17-18 ms).
 *
 * 8-byte planes of 8 MiB and less first gained nothing from these
 * element-by-element streaming stores (2048 x 1024: 5.5-5.8 against 5.0-5.5
 * ms). Streamed in register blocks (copy_regblk.c: 8 x 8 line blocks
 * through AVX2 or SSE2 registers, each destination line written whole
 * before the next) they win from small planes on: the same Xeon,
 * 2026-11-27, single-thread CPU time, medians of 21 rounds in which the
 * candidates alternate and each is timed on its second copy in a row (a
 * streamed copy leaves no destination line cached, a plain one leaves
 * dirty ones: timed after another candidate, a plain copy measured up to
 * 2x slower), load 8-9: the 2-PE transpose's two 512 x 512 and 1024 x 1024
 * blocks in rows of 1024 / 2048 elements took 14.6 / 13.5 GB/s streamed
 * (AVX2 and SSE2 alike) against 8.7 / 3.6 GB/s in the engine's plain line
 * blocks (64 KiB tiles) and 3.3 / 2.8 GB/s (best 7.3 / 6.2) in dmsg-bench's
 * hand loop (128 x 128 tiles of 16 x 16 blocks); 256 x 256 blocks (512 KiB
 * planes) 15.5-16.9 against 10.4 GB/s; 128 x 128 (128 KiB) even. So
 * 8-byte planes stream from DMSG_XFER_STREAM_FROM_8 (1 MiB: the smaller
 * planes' result may still be read from the caches by the next step, which
 * a single copy does not measure), 16-byte ones from
 * DMSG_XFER_STREAM_FROM_16, unless a host profile chose other thresholds
 * (dmsg-ctm tune: copy_tune.c), in 16 x 16 tiles unless a tile size was
 * set, and only where every destination row starts on a line. Tile rows are whole
 * cache lines (tile_edge) so that the write-combining buffers send full
 * lines; the copy ends with an sfence, as these stores are not ordered with
 * later ones (the deposit's completion). */
static void vec_nt_8(char *d, ptrdiff_t ds, const char *s, ptrdiff_t ss, size_t n, size_t elem)
{
    (void)elem;
    for (size_t i = 0; i < n; i++, d += ds, s += ss) {
        long long v;
        memcpy(&v, s, 8);
        _mm_stream_si64((long long *)(void *)d, v);
    }
}

static void vec_nt_16(char *d, ptrdiff_t ds, const char *s, ptrdiff_t ss, size_t n, size_t elem)
{
    (void)elem; /* d is 16-byte aligned: lines_aligned */
    for (size_t i = 0; i < n; i++, d += ds, s += ss)
        _mm_stream_si128((__m128i *)(void *)d, _mm_loadu_si128((const __m128i *)(const void *)s));
}
#endif

static vec_fn pick_vec(size_t elem)
{
    switch (elem) {
    case 1: return vec_1;
    case 2: return vec_2;
    case 4: return vec_4;
    case 8: return vec_8;
    case 16: return vec_16;
    case 32: return vec_32;
    default: return vec_any;
    }
}

/* Line blocks: a square of one cache line (64 bytes) of elements per side,
 * dst contiguous along i and src contiguous along j. Every line it touches
 * is used whole while it is cached, so even power-of-two strides (where all
 * lines of a tile fall in one cache set) do not thrash. */
#define XFER_BLOCK(K)                                                                          \
    static void block_##K(char *d, ptrdiff_t dsj, const char *s, ptrdiff_t ssi)               \
    {                                                                                          \
        for (int j = 0; j < 64 / K; j++, d += dsj)                                             \
            for (int i = 0; i < 64 / K; i++)                                                   \
                memcpy(d + i * K, s + i * ssi + j * K, K);                                     \
    }
XFER_BLOCK(4)
XFER_BLOCK(8)
XFER_BLOCK(16)

/* The built-in choice (mode AUTO): line blocks for 4-byte elements, and
 * for 8-byte elements on small planes (up to DMSG_XFER_SMALL_PLANE bytes
 * per side); 16-byte blocks measured slower than plain tiles on the Xeon and
 * the EPYC of the notes above, so they are used only where a host profile
 * chose them. 8-byte planes: on the Intel Xeon host of docs/performance.md
 * (2026-11-26, CPU time, medians of 11, the same destination, alternating
 * order) line blocks made a 1024 x 512 plane 1.5x faster, were even at 1448
 * x 724, and made 2048 x 1024 and 4096 x 2048 1.2-1.35x slower; on the EPYC
 * they were even at 2048, so large planes go without them. */
static block_fn pick_block(size_t elem, int mode, int large)
{
    if (mode == DMSG_XFER_BLOCKS_OFF)
        return NULL;
    switch (elem) {
    case 4: return block_4;
    case 8: return mode == DMSG_XFER_BLOCKS_ON || !large ? block_8 : NULL;
    case 16: return mode == DMSG_XFER_BLOCKS_ON ? block_16 : NULL;
    default: return NULL;
    }
}

int dmsg_xfer_streams(const dmsg_xfer_params *p, size_t elem, size_t plane_bytes)
{
#if XFER_HAVE_NT
    if (elem != 8 && elem != 16)
        return 0;
    const dmsg_xfer_stream *st = p ? &p->stream[dmsg_xfer_class(elem)] : NULL;
    if (st && st->mode == DMSG_XFER_STREAM_OFF)
        return 0;
    if (st && st->mode == DMSG_XFER_STREAM_ON)
        return plane_bytes >= st->from;
    return plane_bytes >= (elem == 8 ? DMSG_XFER_STREAM_FROM_8 : DMSG_XFER_STREAM_FROM_16);
#else
    (void)p, (void)elem, (void)plane_bytes;
    return 0;
#endif
}

/* A vector that is contiguous on both sides is one memcpy. */
static void run_vec(vec_fn vec, char *d, ptrdiff_t ds, const char *s, ptrdiff_t ss, size_t n,
                    size_t elem)
{
    if (ds == (ptrdiff_t)elem && ss == (ptrdiff_t)elem)
        memcpy(d, s, n * elem);
    else
        vec(d, ds, s, ss, n, elem);
}

static size_t mag(ptrdiff_t s)
{
    return s < 0 ? (size_t)0 - (size_t)s : (size_t)s;
}

static ptrdiff_t offs(size_t i, ptrdiff_t stride)
{
    return (ptrdiff_t)i * stride;
}

/* ------------------------------------------------------------ the plan */

/* Loop order: dimension 0 is the innermost loop, dimension 1 is its tile
 * partner when tiled, the rest are outer loops (ascending destination stride). */
typedef struct plan {
    int nd;
    int tiled;
    int nt; /* streaming stores (vec_nt_*): an sfence after the copy */
    size_t elem;
    size_t tile; /* tile edge in elements */
    vec_fn vec;
    block_fn block; /* line blocks, when both planes are contiguous */
    size_t count[XFER_WORK_DIMS];
    ptrdiff_t ds[XFER_WORK_DIMS];
    ptrdiff_t ss[XFER_WORK_DIMS];
} plan;

/* Walking a dimension backwards on the destination costs hardware prefetch
 * and can hide a fold; element pairs are independent, so reverse it on both
 * sides. */
static void flip_negative(xfer_work *w, char **dst, const char **src)
{
    for (int k = 0; k < w->nd; k++) {
        if (w->dstride[k] >= 0)
            continue;
        *dst += offs(w->count[k] - 1, w->dstride[k]);
        *src += offs(w->count[k] - 1, w->sstride[k]);
        w->dstride[k] = -w->dstride[k];
        w->sstride[k] = -w->sstride[k];
    }
}

/* Innermost dimension: contiguous destination first, then contiguous
 * source, else the smallest destination stride. */
static int pick_inner(const xfer_work *w)
{
    int best = 0;
    for (int k = 1; k < w->nd; k++) {
        size_t dk = mag(w->dstride[k]), db = mag(w->dstride[best]);
        size_t sk = mag(w->sstride[k]), sb = mag(w->sstride[best]);
        int kd = dk == w->elem, bd = db == w->elem;
        int ks = sk == w->elem, bs = sb == w->elem;
        if (kd != bd) {
            if (kd)
                best = k;
        } else if (ks != bs) {
            if (ks)
                best = k;
        } else if (dk < db || (dk == db && sk < sb)) {
            best = k;
        }
    }
    return best;
}

/* Tile partner: the dimension (other than inner) with the smallest source
 * stride, if reading along it beats reading along the inner one by enough to
 * matter (the inner source stride leaves the cache line). */
static int pick_partner(const xfer_work *w, int inner)
{
    int best = -1;
    for (int k = 0; k < w->nd; k++)
        if (k != inner && (best < 0 || mag(w->sstride[k]) < mag(w->sstride[best])))
            best = k;
    if (best < 0 || mag(w->sstride[best]) >= mag(w->sstride[inner]) ||
        mag(w->sstride[inner]) < 64 || mag(w->dstride[best]) < 64)
        return -1;
    return best;
}

static void plan_push(plan *pl, const xfer_work *w, int k)
{
    pl->count[pl->nd] = w->count[k];
    pl->ds[pl->nd] = w->dstride[k];
    pl->ss[pl->nd] = w->sstride[k];
    pl->nd++;
}

/* Edge of a square tile of tile_bytes, in elements: floor(sqrt(area)),
 * at most 2^20 (beyond any plane that fits in memory twice), at least one
 * block edge, and a whole number of blocks so tiles split into blocks. */
static size_t tile_edge(size_t tile_bytes, size_t elem, size_t block)
{
    size_t area = tile_bytes / elem, lo = 1, hi = (size_t)1 << 20;
    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        if (mid * mid <= area)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo < block ? block : lo - lo % block;
}

size_t dmsg_xfer_tile_auto(size_t elem)
{
    return elem >= 16 ? DMSG_XFER_TILE_WIDE_ELEM : DMSG_XFER_TILE_SMALL_ELEM;
}

/* Every destination row of the plane (and every outer step) starts on a
 * cache line. Streaming stores that fill only part of a line are slow: on
 * the Xeon host, 16-byte transposes whose destination rows started
 * mid-line (724 x 362, 1448 x 362 elements) took 2-3x longer streamed. */
static int lines_aligned(const xfer_work *w, int inner, const char *dst)
{
    uintptr_t a = (uintptr_t)dst;
    for (int k = 0; k < w->nd; k++)
        if (k != inner)
            a |= (uintptr_t)w->dstride[k];
    return (a & 63) == 0;
}

static void make_plan(plan *pl, const xfer_work *w, const dmsg_xfer_params *p, const char *dst)
{
    int used[XFER_WORK_DIMS] = {0};
    int inner = pick_inner(w), partner = pick_partner(w, inner);
    /* DMSG_TILE_BYTES first, then the host profile's choice for this
     * element class, then the built-in one. */
    dmsg_xfer_choice ch = {0};
    int large = partner >= 0 &&
                dmsg_xfer_size_class(w->count[inner] * w->count[partner] * w->elem) == 1;
    if (p && !p->tile_bytes && partner >= 0)
        ch = p->tune[dmsg_xfer_class(w->elem)][large];
    size_t tb = p && p->tile_bytes ? p->tile_bytes
                : ch.tile_bytes    ? ch.tile_bytes
                                   : dmsg_xfer_tile_auto(w->elem);
    pl->nd = 0;
    pl->elem = w->elem;
    pl->vec = pick_vec(w->elem);
    pl->tiled = partner >= 0;
    pl->block = NULL;
    plan_push(pl, w, inner);
    used[inner] = 1;
    if (partner >= 0) {
        plan_push(pl, w, partner);
        used[partner] = 1;
        if (pl->ds[0] == (ptrdiff_t)pl->elem && pl->ss[1] == (ptrdiff_t)pl->elem)
            pl->block = pick_block(pl->elem, ch.blocks, large);
    }
    pl->nt = 0;
#if XFER_HAVE_NT
    size_t plane = pl->tiled ? pl->count[0] * pl->count[1] * pl->elem : 0;
    if (pl->tiled && pl->ds[0] == (ptrdiff_t)pl->elem && dmsg_xfer_streams(p, pl->elem, plane) &&
        lines_aligned(w, inner, dst)) {
        pl->nt = 1;
        pl->vec = pl->elem == 8 ? vec_nt_8 : vec_nt_16;
        pl->block = pl->elem == 8 && pl->ss[1] == 8 ? dmsg_xfer_regblk8(p ? p->kernel : 0, NULL)
                                                    : NULL;
        if (!(p && p->tile_bytes))
            tb = 16 * 16 * pl->elem;
    }
#endif
    pl->tile = tile_edge(tb, w->elem, pl->block || pl->nt ? 64 / w->elem : 1);
    while (pl->nd < w->nd) { /* outer loops: next smallest destination stride */
        int k = -1;
        for (int c = 0; c < w->nd; c++)
            if (!used[c] && (k < 0 || mag(w->dstride[c]) < mag(w->dstride[k])))
                k = c;
        plan_push(pl, w, k);
        used[k] = 1;
    }
}

/* ------------------------------------------------------------- kernels */

static size_t min_sz(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* Rows [j0, j1) of columns [i0, i1) of the plane, one vector per row. */
static void copy_rect(const plan *pl, char *d, const char *s, size_t i0, size_t i1, size_t j0,
                      size_t j1)
{
    if (i0 >= i1)
        return;
    char *dp = d + offs(i0, pl->ds[0]) + offs(j0, pl->ds[1]);
    const char *sp = s + offs(i0, pl->ss[0]) + offs(j0, pl->ss[1]);
    for (size_t j = j0; j < j1; j++, dp += pl->ds[1], sp += pl->ss[1])
        pl->vec(dp, pl->ds[0], sp, pl->ss[0], i1 - i0, pl->elem);
}

/* One tile [i0, i1) x [j0, j1) in line blocks, the ragged edges by rows. */
static void copy_tile_blocked(const plan *pl, char *d, const char *s, size_t i0, size_t i1,
                              size_t j0, size_t j1)
{
    size_t m = 64 / pl->elem, ib = i1 - (i1 - i0) % m, j = j0;
    for (; j + m <= j1; j += m) {
        for (size_t i = i0; i < ib; i += m)
            pl->block(d + offs(i, pl->ds[0]) + offs(j, pl->ds[1]), pl->ds[1],
                      s + offs(i, pl->ss[0]) + offs(j, pl->ss[1]), pl->ss[0]);
        copy_rect(pl, d, s, ib, i1, j, j + m);
    }
    copy_rect(pl, d, s, i0, i1, j, j1);
}

/* Copies the (dim 0, dim 1) plane tile by tile, so that the lines (and
 * pages) of both sides that a tile touches stay cached while it is copied;
 * inside a tile the destination is written along its contiguous dimension. */
static void copy_tiled(const plan *pl, char *d, const char *s)
{
    size_t ni = pl->count[0], nj = pl->count[1], t = pl->tile;
    if (pl->nt) {
        /* Streaming stores need no prefetch, the reads do: the tiles
         * advance along the source rows (the same Xeon: 2048 x 1024 half
         * matrices of 16-byte elements in 2.5-4.9 against 7-7.3 ms). */
        for (size_t ib = 0; ib < ni; ib += t)
            for (size_t jb = 0; jb < nj; jb += t) {
                size_t ie = min_sz(ib + t, ni), je = min_sz(jb + t, nj);
                if (pl->block)
                    copy_tile_blocked(pl, d, s, ib, ie, jb, je);
                else
                    copy_rect(pl, d, s, ib, ie, jb, je);
            }
        return;
    }
    for (size_t jb = 0; jb < nj; jb += t) {
        size_t je = min_sz(jb + t, nj);
        for (size_t ib = 0; ib < ni; ib += t) {
            size_t ie = min_sz(ib + t, ni);
            if (pl->block)
                copy_tile_blocked(pl, d, s, ib, ie, jb, je);
            else
                copy_rect(pl, d, s, ib, ie, jb, je);
        }
    }
}

static void copy_rows(const plan *pl, char *d, const char *s)
{
    run_vec(pl->vec, d, pl->ds[0], s, pl->ss[0], pl->count[0], pl->elem);
}

/* Runs the kernel for every index of the outer dimensions (k down to first). */
static void loop_outer(const plan *pl, int k, int first, char *d, const char *s)
{
    if (k < first) {
        if (pl->tiled)
            copy_tiled(pl, d, s);
        else
            copy_rows(pl, d, s);
        return;
    }
    for (size_t i = 0; i < pl->count[k]; i++, d += pl->ds[k], s += pl->ss[k])
        loop_outer(pl, k - 1, first, d, s);
}

static void copy_work(char *dst, const char *src, xfer_work *w, const dmsg_xfer_params *p)
{
    flip_negative(w, &dst, &src);
    dmsg_xfer_fold(w);
    if (w->nd == 0) {
        memcpy(dst, src, w->elem);
        return;
    }
    plan pl;
    make_plan(&pl, w, p, dst);
    loop_outer(&pl, pl.nd - 1, pl.tiled ? 2 : 1, dst, src);
#if XFER_HAVE_NT
    if (pl.nt)
        _mm_sfence();
#endif
}

void dmsg_copy_sect(char *dst, const char *src, const dmsg_sect *s, const dmsg_xfer_params *p)
{
    xfer_work w = {.nd = s->nd, .elem = s->elem};
    for (int k = 0; k < s->nd; k++) {
        w.count[k] = s->count[k];
        w.dstride[k] = s->dstride[k];
        w.sstride[k] = s->sstride[k];
    }
    copy_work(dst, src, &w, p);
}

/* ------------------------------------------------------ generic walker */

ptrdiff_t dmsg_xfer_cursor_off(const xfer_cursor *c)
{
    return c->base[0] + offs(c->idx[0], c->l->stride[0]);
}

/* Moves past the end of the current innermost row. */
static void cursor_next_row(xfer_cursor *c)
{
    c->idx[0] = 0;
    for (int k = 1; k < c->l->nd; k++) {
        if (++c->idx[k] < c->l->count[k]) {
            c->base[k] += c->l->stride[k];
            for (int j = 0; j < k; j++)
                c->base[j] = c->base[k];
            return;
        }
        c->idx[k] = 0;
    }
}

void dmsg_xfer_cursor_advance(xfer_cursor *c, size_t n)
{
    c->idx[0] += n;
    if (c->idx[0] == c->l->count[0])
        cursor_next_row(c);
}

/* Copies the longest run that is a single row on both sides at each step. */
static void walk_generic(char *dst, const xfer_side *d, const char *src, const xfer_side *s,
                         size_t elem)
{
    xfer_cursor cd = {.l = d}, cs = {.l = s};
    vec_fn vec = pick_vec(elem);
    size_t left = 1;
    for (int k = 0; k < d->nd; k++)
        left *= d->count[k];
    while (left > 0) {
        size_t n = min_sz(d->count[0] - cd.idx[0], s->count[0] - cs.idx[0]);
        run_vec(vec, dst + dmsg_xfer_cursor_off(&cd), d->stride[0], src + dmsg_xfer_cursor_off(&cs), s->stride[0], n,
                elem);
        dmsg_xfer_cursor_advance(&cd, n);
        dmsg_xfer_cursor_advance(&cs, n);
        left -= n;
    }
}

void dmsg_copy_section(char *dst, const dmsg_layout *dl, const char *src, const dmsg_layout *sl,
                       size_t elem_size, const dmsg_xfer_params *p)
{
    dmsg_sect sect;
    if (dmsg_sect_normalize(&sect, dl, sl, elem_size)) {
        dmsg_copy_sect(dst, src, &sect, p);
        return;
    }
    xfer_side d, s;
    if (!dmsg_xfer_squeeze(&d, dl) || !dmsg_xfer_squeeze(&s, sl))
        return; /* no elements */
    dmsg_xfer_side_fold(&d);
    dmsg_xfer_side_fold(&s);
    xfer_work w;
    if (dmsg_xfer_refine(&w, &d, &s, elem_size)) {
        copy_work(dst, src, &w, p);
        return;
    }
    /* Both sides have 2 or more elements here (single elements normalize),
     * so each keeps at least one dimension. */
    walk_generic(dst, &d, src, &s, elem_size);
}
