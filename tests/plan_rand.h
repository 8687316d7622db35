/* Random array assignments for the plan property tests (tests/unit/test_plan.c
 * and tests/pe/plan.c): random ranks, extents, distributions, grids, halos,
 * sections with strides of either sign, and permutations, all derived from
 * one seed so that every PE builds the same statement. Also the serial
 * evaluation the results are compared with. Header-only (static). */
#ifndef DMSG_TESTS_PLAN_RAND_H
#define DMSG_TESTS_PLAN_RAND_H

#include <stdint.h>
#include <string.h>
#include "dmsg_plan.h"

typedef struct prand {
    uint64_t s;
} prand;

static inline uint32_t prand_next(prand *r)
{
    r->s = r->s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(r->s >> 33);
}

/* Uniform in [lo, hi]. */
static inline long prand_range(prand *r, long lo, long hi)
{
    return lo + (long)(prand_next(r) % (uint32_t)(hi - lo + 1));
}

/* A random statement for a job of npes PEs: fills the two descriptions
 * (the caller inits the arrays and points as->dst/src at them) and the
 * sections and perm of *as. max_len bounds section lengths. */
static inline void prand_statement(uint64_t seed, int npes, long max_len, dmsg_darray_desc *da,
                                   dmsg_darray_desc *db, dmsg_assign *as)
{
    prand r = {seed * 2654435761ull + 12345};
    for (int i = 0; i < 3; i++)
        prand_next(&r);
    memset(da, 0, sizeof *da);
    memset(db, 0, sizeof *db);
    memset(as, 0, sizeof *as);
    static const size_t elems[] = {4, 8, 16, 8, 1, 2};
    size_t elem = elems[prand_range(&r, 0, 5)];
    da->elem_size = db->elem_size = elem;
    int nm = (int)prand_range(&r, 1, 3);
    int xa = prand_range(&r, 0, 3) == 0, xb = prand_range(&r, 0, 3) == 0; /* single-index dims */
    da->ndims = nm + xa;
    db->ndims = nm + xb;
    /* Which dimensions are matched: a random placement of the single index. */
    int sa_pos = xa ? (int)prand_range(&r, 0, nm) : -1,
        sb_pos = xb ? (int)prand_range(&r, 0, nm) : -1;
    int amap[DMSG_MAX_DIMS], bmap[DMSG_MAX_DIMS], ia = 0, ib = 0; /* matched index -> dim */
    for (int d = 0; d < da->ndims; d++)
        if (d != sa_pos) amap[ia++] = d;
    for (int d = 0; d < db->ndims; d++)
        if (d != sb_pos) bmap[ib++] = d;
    int perm[DMSG_MAX_DIMS];
    for (int i = 0; i < nm; i++)
        perm[i] = i;
    for (int i = nm - 1; i > 0; i--) {
        int j = (int)prand_range(&r, 0, i), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int d = 0; d < DMSG_MAX_DIMS; d++)
        as->perm[d] = -1;
    static const long steps[] = {1, 1, 1, 2, 3, -1, -2, 5, 1, -3};
    for (int i = 0; i < nm; i++) {
        int dbd = bmap[i], dad = amap[perm[i]];
        as->perm[dbd] = dad;
        long m = prand_range(&r, 0, 9) == 0 ? prand_range(&r, 1, 2) : prand_range(&r, 1, max_len);
        long s[2] = {steps[prand_range(&r, 0, 9)], steps[prand_range(&r, 0, 9)]};
        dmsg_darray_desc *dd[2] = {da, db};
        dmsg_section *sec[2] = {&as->ssec, &as->dsec};
        int dim[2] = {dad, dbd};
        for (int k = 0; k < 2; k++) {
            long as_ = s[k] < 0 ? -s[k] : s[k], span = (m - 1) * as_ + 1;
            long ext = span + prand_range(&r, 0, 6);
            long off = prand_range(&r, 0, ext - span); /* lowest index visited */
            dd[k]->extent[dim[k]] = (size_t)ext;
            sec[k]->step[dim[k]] = s[k];
            if (s[k] > 0) {
                sec[k]->lo[dim[k]] = (size_t)off;
                long hi = off + span - 1 + prand_range(&r, 0, as_ - 1);
                sec[k]->hi[dim[k]] = (size_t)(hi < ext ? hi : ext - 1);
            } else {
                sec[k]->lo[dim[k]] = (size_t)(off + span - 1);
                long hi = off - prand_range(&r, 0, as_ - 1);
                sec[k]->hi[dim[k]] = (size_t)(hi < 0 ? 0 : hi);
            }
        }
    }
    if (xa) {
        da->extent[sa_pos] = (size_t)prand_range(&r, 1, 4);
        as->ssec.lo[sa_pos] = as->ssec.hi[sa_pos] =
            (size_t)prand_range(&r, 0, (long)da->extent[sa_pos] - 1);
        as->ssec.step[sa_pos] = 1;
    }
    if (xb) {
        db->extent[sb_pos] = (size_t)prand_range(&r, 1, 4);
        as->dsec.lo[sb_pos] = as->dsec.hi[sb_pos] =
            (size_t)prand_range(&r, 0, (long)db->extent[sb_pos] - 1);
        as->dsec.step[sb_pos] = prand_range(&r, 0, 1) ? 1 : -1;
    }
    /* Grids and distributions. */
    dmsg_darray_desc *dd[2] = {da, db};
    for (int k = 0; k < 2; k++) {
        dmsg_darray_desc *d = dd[k];
        int g0 = (int)prand_range(&r, 1, npes), g1 = 1;
        if (prand_range(&r, 0, 2) == 0 && npes >= 4) {
            g0 = (int)prand_range(&r, 1, 3);
            g1 = (int)prand_range(&r, 1, npes / g0);
        }
        d->grid_ndims = g1 > 1 || prand_range(&r, 0, 1) ? 2 : 1;
        d->grid[0] = g0;
        d->grid[1] = g1;
        int used[2] = {0, 0};
        for (int i = 0; i < d->ndims; i++) {
            int kind = (int)prand_range(&r, 0, 3);
            int g = (int)prand_range(&r, 0, d->grid_ndims - 1);
            if (kind == 0 || used[g]) {
                d->dist[i] = DMSG_DIST_NONE;
                continue;
            }
            used[g] = 1;
            d->onto[i] = g;
            if (kind == 1) {
                d->dist[i] = DMSG_DIST_BLOCK;
            } else {
                d->dist[i] = DMSG_DIST_CYCLIC;
                d->block[i] = (size_t)prand_range(&r, 0, 4);
            }
            if (prand_range(&r, 0, 3) == 0) {
                d->halo_lo[i] = (size_t)prand_range(&r, 0, 2);
                d->halo_hi[i] = (size_t)prand_range(&r, 0, 2);
                d->pad[i] = (size_t)prand_range(&r, 0, 1);
            }
        }
    }
}

/* Row-major linear index (dimension 0 fastest) of a global index. */
static inline size_t prand_linear(const dmsg_darray *a, const size_t *g)
{
    size_t lin = 0;
    for (int d = a->desc.ndims - 1; d >= 0; d--)
        lin = lin * a->desc.extent[d] + g[d];
    return lin;
}

static inline void prand_unlinear(const dmsg_darray *a, size_t lin, size_t *g)
{
    for (int d = 0; d < a->desc.ndims; d++) {
        g[d] = lin % a->desc.extent[d];
        lin /= a->desc.extent[d];
    }
}

/* Serial evaluation: if global element gb of dst is assigned, its source
 * index goes to ga and the result is 1; else 0. */
static inline int prand_source_of(const dmsg_assign *as, const size_t *gb, size_t *ga)
{
    const dmsg_darray *A = as->src, *B = as->dst;
    for (int d = 0; d < A->desc.ndims; d++)
        ga[d] = as->ssec.lo[d];
    for (int d = 0; d < B->desc.ndims; d++) {
        long lo = (long)as->dsec.lo[d], s = as->dsec.step[d], i = (long)gb[d];
        long m = 0;
        if (s > 0)
            m = as->dsec.hi[d] < as->dsec.lo[d] ? 0
                                                : (long)(as->dsec.hi[d] - as->dsec.lo[d]) / s + 1;
        else
            m = as->dsec.lo[d] < as->dsec.hi[d] ? 0
                                                : (long)(as->dsec.lo[d] - as->dsec.hi[d]) / -s + 1;
        if ((i - lo) % s != 0) return 0;
        long t = (i - lo) / s;
        if (t < 0 || t >= m) return 0;
        int da = as->perm[d];
        if (da >= 0) ga[da] = (size_t)((long)as->ssec.lo[da] + t * as->ssec.step[da]);
    }
    return 1;
}

/* Byte j of the element of array `salt` at linear index lin. */
static inline unsigned char prand_byte(uint32_t salt, size_t lin, size_t j)
{
    uint64_t x = (lin + 1) * 0x9E3779B97F4A7C15ull ^ (salt * 0xC2B2AE3D27D4EB4Full) ^ (j * 131);
    x ^= x >> 29;
    return (unsigned char)(x * 0xBF58476D1CE4E5B9ull >> 56);
}

#endif
