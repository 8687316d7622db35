/* Distributed array descriptors: validation, the local layout every PE
 * shares, and the owner / local index arithmetic. Every distribution is
 * handled as CYCLIC(k): BLOCK is CYCLIC(ceil(n/P)) (one cycle), a dimension
 * that is not distributed is one block of n on one "processor". */
#include <limits.h>
#include <string.h>
#include "dmsg/coll/agree.h"
#include "dmsg/plan/plan_impl.h"

/* Rank stride of grid dimension g. */
static size_t grid_stride(const dmsg_darray *a, int g)
{
    size_t s = 1;
    for (int k = 0; k < g; k++)
        s *= (size_t)a->desc.grid[k];
    return s;
}

int dmsg_plan_coord(const dmsg_darray *a, int pe, int d)
{
    if (pe < 0 || pe >= a->grid_pes) return -1;
    /* A grid dimension the array does not use holds it at coordinate 0. */
    for (int g = 0; g < a->desc.grid_ndims; g++) {
        int used = 0;
        for (int k = 0; k < a->desc.ndims; k++)
            used |= a->desc.dist[k] != DMSG_DIST_NONE && a->desc.onto[k] == g;
        if (!used && ((size_t)pe / grid_stride(a, g)) % (size_t)a->desc.grid[g] != 0) return -1;
    }
    if (a->desc.dist[d] == DMSG_DIST_NONE) return 0;
    int g = a->desc.onto[d];
    return (int)(((size_t)pe / grid_stride(a, g)) % (size_t)a->desc.grid[g]);
}

size_t dmsg_plan_local_count(const dmsg_darray *a, int d, size_t c)
{
    size_t n = a->desc.extent[d], k = a->blk[d], cyc = k * (size_t)a->procs[d];
    size_t full = n / cyc, rem = n % cyc, first = c * k;
    size_t part = rem > first ? rem - first : 0;
    return full * k + (part < k ? part : k);
}

size_t dmsg_plan_local_index(const dmsg_darray *a, int d, size_t i)
{
    size_t k = a->blk[d];
    return i / (k * (size_t)a->procs[d]) * k + i % k;
}

size_t dmsg_plan_owner_coord(const dmsg_darray *a, int d, size_t i)
{
    return i / a->blk[d] % (size_t)a->procs[d];
}

static int mul_ok(size_t x, size_t y, size_t *r)
{
    if (y != 0 && x > SIZE_MAX / y) return 0;
    *r = x * y;
    return 1;
}

static int add_ok(size_t x, size_t y, size_t *r)
{
    if (x > SIZE_MAX - y) return 0;
    *r = x + y;
    return 1;
}

/* Checks the grid and fills procs / blk; returns a status. */
static dmsg_status check_dists(const dmsg_darray_desc *d, dmsg_darray *a)
{
    size_t pes = 1;
    if (d->grid_ndims < 1 || d->grid_ndims > DMSG_MAX_DIMS)
        return DMSG_FAIL(DMSG_ERR_ARG, "darray: grid_ndims %d not in 1..%d", d->grid_ndims,
                         DMSG_MAX_DIMS);
    for (int g = 0; g < d->grid_ndims; g++) {
        if (d->grid[g] < 1)
            return DMSG_FAIL(DMSG_ERR_ARG, "darray: grid[%d] = %d < 1", g, d->grid[g]);
        if (!mul_ok(pes, (size_t)d->grid[g], &pes) || pes > INT_MAX)
            return DMSG_FAIL(DMSG_ERR_ARG, "darray: grid larger than INT_MAX PEs");
    }
    a->grid_pes = (int)pes;
    unsigned used = 0;
    for (int k = 0; k < d->ndims; k++) {
        size_t n = d->extent[k];
        if (n == 0) return DMSG_FAIL(DMSG_ERR_ARG, "darray: extent[%d] is 0", k);
        if (d->dist[k] == DMSG_DIST_NONE) {
            a->procs[k] = 1;
            a->blk[k] = n;
            continue;
        }
        if (d->dist[k] != DMSG_DIST_BLOCK && d->dist[k] != DMSG_DIST_CYCLIC)
            return DMSG_FAIL(DMSG_ERR_ARG, "darray: dist[%d] = %d unknown", k, d->dist[k]);
        int g = d->onto[k];
        if (g < 0 || g >= d->grid_ndims)
            return DMSG_FAIL(DMSG_ERR_ARG, "darray: onto[%d] = %d not a grid dimension", k, g);
        if (used & (1u << g))
            return DMSG_FAIL(DMSG_ERR_ARG, "darray: two dimensions onto grid dimension %d", g);
        used |= 1u << g;
        size_t p = (size_t)d->grid[g], k0 = d->block[k];
        a->procs[k] = (int)p;
        if (d->dist[k] == DMSG_DIST_BLOCK) {
            size_t need = n / p + (n % p != 0);
            if (k0 != 0 && k0 < need)
                return DMSG_FAIL(DMSG_ERR_ARG,
                                 "darray: BLOCK(%zu) of dimension %d too small for "
                                 "%zu elements on %zu PEs",
                                 k0, k, n, p);
            a->blk[k] = k0 != 0 ? k0 : need;
        } else {
            a->blk[k] = k0 != 0 ? k0 : 1;
        }
        size_t cyc;
        if (!mul_ok(a->blk[k], p, &cyc))
            return DMSG_FAIL(DMSG_ERR_OVERFLOW, "darray: block %zu x %zu PEs overflows", a->blk[k],
                             p);
    }
    return DMSG_OK;
}

/* Strides, origin and bytes of the local storage. */
static dmsg_status layout(const dmsg_darray_desc *d, dmsg_darray *a)
{
    size_t stride = d->elem_size, origin = 0;
    for (int k = 0; k < d->ndims; k++) {
        a->lmax[k] = dmsg_plan_local_count(a, k, 0); /* coordinate 0 holds the most */
        size_t ext, off;
        if (!add_ok(a->lmax[k], d->halo_lo[k], &ext) || !add_ok(ext, d->halo_hi[k], &ext) ||
            !add_ok(ext, d->pad[k], &ext) || stride > PTRDIFF_MAX ||
            !mul_ok(d->halo_lo[k], stride, &off) || !add_ok(origin, off, &origin))
            return DMSG_FAIL(DMSG_ERR_OVERFLOW, "darray: local storage size overflows");
        a->stride[k] = (ptrdiff_t)stride;
        if (!mul_ok(stride, ext, &stride) || stride > PTRDIFF_MAX)
            return DMSG_FAIL(DMSG_ERR_OVERFLOW, "darray: local storage size overflows");
    }
    a->origin = origin;
    a->bytes = stride;
    return DMSG_OK;
}

int dmsg_darray_init(dmsg_darray *a, const dmsg_darray_desc *d)
{
    if (a == NULL || d == NULL) return DMSG_FAIL(DMSG_ERR_NULL, "darray_init: NULL argument");
    if (d->ndims < 1 || d->ndims > DMSG_MAX_DIMS)
        return DMSG_FAIL(DMSG_ERR_ARG, "darray_init: ndims %d not in 1..%d", d->ndims,
                         DMSG_MAX_DIMS);
    if (d->elem_size == 0) return DMSG_FAIL(DMSG_ERR_ARG, "darray_init: elem_size 0");
    dmsg_darray t;
    memset(&t, 0, sizeof t);
    t.desc = *d;
    /* Unused entries are zeroed so that equal arrays compare and hash equal. */
    for (int k = d->ndims; k < DMSG_MAX_DIMS; k++) {
        t.desc.extent[k] = t.desc.block[k] = t.desc.halo_lo[k] = t.desc.halo_hi[k] = 0;
        t.desc.pad[k] = 0;
        t.desc.dist[k] = t.desc.onto[k] = 0;
    }
    for (int g = d->grid_ndims > 0 ? d->grid_ndims : 0; g < DMSG_MAX_DIMS; g++)
        t.desc.grid[g] = 0;
    for (int k = 0; k < d->ndims; k++)
        if (d->dist[k] == DMSG_DIST_NONE) t.desc.onto[k] = 0, t.desc.block[k] = 0;
    dmsg_status st = check_dists(&t.desc, &t);
    if (st == DMSG_OK) st = layout(&t.desc, &t);
    if (st != DMSG_OK) return st;
    *a = t;
    return DMSG_OK;
}

/* After a failed collective allocation (the verdict is the same on every
 * PE): every PE's own status in one agreement, and the lowest ranked PE's
 * error, or `failed` where no PE had one of its own. */
static int agree(int mine, int failed)
{
    int64_t row = 0, all[dmsg_npes()]; /* a word per PE, at most DMSG_MAX_PES */
    dmsg_status verdict = DMSG_OK;
    int xst = dmsg_agree_rows(mine, &row, sizeof row, all, &verdict);
    if (xst != DMSG_OK) return xst; /* out of step: nothing more to agree on */
    return verdict != DMSG_OK ? verdict : failed;
}

int dmsg_darray_alloc(dmsg_darray *a)
{
    /* Every PE takes part in dmsg_alloc even after a local error, so that a
     * bad argument on one PE cannot leave the others waiting. */
    int st = DMSG_OK;
    size_t bytes = 0;
    if (a == NULL)
        st = DMSG_FAIL(DMSG_ERR_NULL, "darray_alloc: NULL array");
    else if (a->base != NULL)
        st = DMSG_FAIL(DMSG_ERR_ARG, "darray_alloc: array already has storage");
    else if (a->grid_pes > dmsg_npes())
        st = DMSG_FAIL(DMSG_ERR_PE, "darray_alloc: grid of %d PEs, job of %d", a->grid_pes,
                       dmsg_npes());
    else
        bytes = a->bytes;
    void *p = NULL;
    /* A PE with a bad argument asks for a size no other PE asks for
     * (SIZE_MAX), so dmsg_alloc fails on every PE alike (DMSG_ERR_COLLECTIVE,
     * or DMSG_ERR_NOMEM when all ask for it); the PEs then agree on the
     * reason, so that every PE returns the same status. */
    int ast = dmsg_alloc(st == DMSG_OK ? bytes : SIZE_MAX, &p);
    if (ast == DMSG_OK && st != DMSG_OK) { /* not expected: SIZE_MAX never fits */
        dmsg_free(p);
        ast = DMSG_ERR_NOMEM;
    }
    /* Other failures (not initialized, a failed barrier) leave nothing to agree on. */
    if (ast == DMSG_ERR_COLLECTIVE || ast == DMSG_ERR_NOMEM) return agree(st, ast);
    if (ast != DMSG_OK) return ast;
    a->base = p;
    return DMSG_OK;
}

int dmsg_darray_attach(dmsg_darray *a, void *sym, size_t bytes)
{
    if (a == NULL || sym == NULL) return DMSG_FAIL(DMSG_ERR_NULL, "darray_attach: NULL argument");
    if (a->base != NULL) return DMSG_FAIL(DMSG_ERR_ARG, "darray_attach: array already has storage");
    if (bytes < a->bytes || !dmsg_addr_is_symmetric(sym, a->bytes))
        return DMSG_FAIL(DMSG_ERR_RANGE,
                         "darray_attach: %zu bytes at %p are not symmetric "
                         "storage of %zu bytes",
                         bytes, sym, a->bytes);
    a->base = sym;
    return DMSG_OK;
}

int dmsg_darray_free(dmsg_darray *a)
{
    if (a == NULL) return DMSG_FAIL(DMSG_ERR_NULL, "darray_free: NULL array");
    int st = dmsg_free(a->base);
    if (st == DMSG_OK) a->base = NULL;
    return st;
}

static dmsg_status check_index(const dmsg_darray *a, const size_t *gidx)
{
    for (int d = 0; d < a->desc.ndims; d++)
        if (gidx[d] >= a->desc.extent[d])
            return DMSG_FAIL(DMSG_ERR_RANGE, "darray: index %zu of dimension %d outside 0..%zu",
                             gidx[d], d, a->desc.extent[d] - 1);
    return DMSG_OK;
}

/* Rank of the PE that owns gidx (already checked). */
static int owner_rank(const dmsg_darray *a, const size_t *gidx)
{
    size_t rank = 0;
    for (int d = 0; d < a->desc.ndims; d++)
        if (a->desc.dist[d] != DMSG_DIST_NONE)
            rank += dmsg_plan_owner_coord(a, d, gidx[d]) * grid_stride(a, a->desc.onto[d]);
    return (int)rank;
}

int dmsg_darray_owner(const dmsg_darray *a, const size_t *gidx, int *pe)
{
    if (a == NULL || gidx == NULL || pe == NULL)
        return DMSG_FAIL(DMSG_ERR_NULL, "darray_owner: NULL argument");
    dmsg_status st = check_index(a, gidx);
    if (st != DMSG_OK) return st;
    *pe = owner_rank(a, gidx);
    return DMSG_OK;
}

int dmsg_darray_locate(const dmsg_darray *a, const size_t *gidx, int *pe, size_t *byte_off)
{
    if (a == NULL || gidx == NULL || pe == NULL || byte_off == NULL)
        return DMSG_FAIL(DMSG_ERR_NULL, "darray_locate: NULL argument");
    dmsg_status st = check_index(a, gidx);
    if (st != DMSG_OK) return st;
    size_t off = a->origin;
    for (int d = 0; d < a->desc.ndims; d++)
        off += dmsg_plan_local_index(a, d, gidx[d]) * (size_t)a->stride[d];
    *pe = owner_rank(a, gidx);
    *byte_off = off;
    return DMSG_OK;
}

int dmsg_darray_local_extent(const dmsg_darray *a, int pe, size_t *extent)
{
    if (a == NULL || extent == NULL)
        return DMSG_FAIL(DMSG_ERR_NULL, "darray_local_extent: NULL argument");
    if (pe < 0) return DMSG_FAIL(DMSG_ERR_PE, "darray_local_extent: pe %d", pe);
    size_t ext[DMSG_MAX_DIMS];
    int none = dmsg_plan_coord(a, pe, 0) < 0;
    for (int d = 0; d < a->desc.ndims; d++)
        ext[d] = none ? 0 : dmsg_plan_local_count(a, d, (size_t)dmsg_plan_coord(a, pe, d));
    memcpy(extent, ext, (size_t)a->desc.ndims * sizeof ext[0]);
    return DMSG_OK;
}

int dmsg_darray_global(const dmsg_darray *a, int pe, const size_t *lidx, size_t *gidx)
{
    if (a == NULL || lidx == NULL || gidx == NULL)
        return DMSG_FAIL(DMSG_ERR_NULL, "darray_global: NULL argument");
    if (pe < 0) return DMSG_FAIL(DMSG_ERR_PE, "darray_global: pe %d", pe);
    size_t g[DMSG_MAX_DIMS];
    for (int d = 0; d < a->desc.ndims; d++) {
        int c = dmsg_plan_coord(a, pe, d);
        if (c < 0 || lidx[d] >= dmsg_plan_local_count(a, d, (size_t)c))
            return DMSG_FAIL(DMSG_ERR_RANGE,
                             "darray_global: local index %zu of dimension %d "
                             "not owned by PE %d",
                             lidx[d], d, pe);
        size_t k = a->blk[d];
        g[d] = (lidx[d] / k * (size_t)a->procs[d] + (size_t)c) * k + lidx[d] % k;
    }
    memcpy(gidx, g, (size_t)a->desc.ndims * sizeof g[0]);
    return DMSG_OK;
}
