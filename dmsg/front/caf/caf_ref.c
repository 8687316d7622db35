/*
 * caf_ref.c - coindexed references through components of derived-type
 * coarrays: gfortran's _by_ref calls (get, send, sendget, is_present).
 * gfortran describes the reference as a chain (caf_ref): a component (its
 * offset in the parent; for an allocatable or pointer component also where
 * its token is), an array ref through a descriptor (an allocatable array:
 * the coarray itself, or a component whose descriptor lives on the remote
 * image), or through a static array (starts, ends and strides counted in
 * elements from 0). The chain is walked here: the remote image's
 * descriptors and pointers of allocatable components are fetched from it
 * (dmsg_fetch) and their addresses turned into this image's symmetric ones
 * (the other image's anchor word says where its segment lies); what is
 * left is a base, an element size and one n-D section (Fortran lets one
 * part of the reference have rank), or a list of offsets for vector
 * subscripts, which caf_xfer.c moves as it does for plain coarrays.
 *
 * SPDX-License-Identifier: BSD-3-Clause (the LICENSE file of dmsg)
 */
#include <stdlib.h>
#include <string.h>

#include "dmsg/front/caf/caf.h"

/* gfortran's caf_reference_t (libcaf.h of gcc 8 and later). */
enum { REF_COMPONENT, REF_ARRAY, REF_STATIC_ARRAY };
enum { ARR_NONE, ARR_VECTOR, ARR_FULL, ARR_RANGE, ARR_SINGLE, ARR_OPEN_END, ARR_OPEN_START };

typedef struct caf_ref {
    struct caf_ref *next;
    int type;
    size_t item_size;
    union {
        struct {
            ptrdiff_t offset;
            ptrdiff_t caf_token_offset; /* 0: neither allocatable nor pointer */
        } c;
        struct {
            unsigned char mode[CAF_MAX_DIMS];
            int static_array_type;
            union {
                struct {
                    ptrdiff_t start, end, stride;
                } s;
                struct {
                    void *vector;
                    size_t nvec;
                    int kind;
                } v;
            } dim[CAF_MAX_DIMS];
        } a;
    } u;
} caf_ref;

/* Where a reference leads: elements base + sum of dim k's offsets. */
typedef struct walk {
    int pe;
    char *base;   /* this image's symmetric address for the remote object */
    size_t es;    /* bytes of the element now referenced */
    int nd;       /* dimensions of the part with rank (0: a scalar) */
    size_t cnt[CAF_MAX_DIMS];
    ptrdiff_t str[CAF_MAX_DIMS]; /* bytes between elements */
    ptrdiff_t *vec[CAF_MAX_DIMS]; /* vector subscripts: byte offsets, cnt of them */
    int absent;   /* an allocatable component on the way is not allocated */
} walk;

static void walk_free(walk *w)
{
    for (int k = 0; k < w->nd; k++)
        free(w->vec[k]);
}

static uint64_t *anchors; /* per job PE: its anchor word, 0 until read */

/* This image's symmetric address for `bytes` at `rptr`, a pointer in the
 * process of job PE pe (its component's address), or NULL when it does not
 * lie in the segment (a pointer component aimed at non-coarray memory). */
static char *local_of(uint64_t rptr, int pe, size_t bytes, int *rc)
{
    if (!anchors && !(anchors = calloc((size_t)dmsg_npes(), sizeof *anchors))) {
        *rc = DMSG_ERR_NOMEM;
        return NULL;
    }
    if (!anchors[pe]) {
        uint64_t a = 0;
        *rc = dmsg_fetch(&a, DMSG_CAF_ANCHOR, sizeof a, pe);
        if (*rc != DMSG_OK)
            return NULL;
        anchors[pe] = a;
    }
    /* unsigned arithmetic: the difference may be negative */
    uintptr_t l = (uintptr_t)dmsg_caf_status + (uintptr_t)(rptr - anchors[pe]);
    if (!dmsg_addr_is_symmetric((const void *)l, bytes ? bytes : 1)) {
        *rc = DMSG_ERR_RANGE;
        return NULL;
    }
    *rc = DMSG_OK;
    return (char *)l;
}

static int vec_at(const void *v, int kind, size_t i, ptrdiff_t *out)
{
    switch (kind) {
    case 1: *out = ((const int8_t *)v)[i]; return 0;
    case 2: *out = ((const int16_t *)v)[i]; return 0;
    case 4: *out = ((const int32_t *)v)[i]; return 0;
    case 8: *out = ((const int64_t *)v)[i]; return 0;
    default: return -1;
    }
}

static int ref_rank(const caf_ref *r)
{
    int n = 0;
    while (n < CAF_MAX_DIMS && r->u.a.mode[n] != ARR_NONE)
        n++;
    return n;
}

/* Adds dimension (count, stride) or a vector of byte offsets to the part
 * with rank. Fortran allows one such part in a reference. */
static int add_dim(walk *w, size_t cnt, ptrdiff_t str, ptrdiff_t *vec, const char **why)
{
    if (w->nd == CAF_MAX_DIMS) {
        free(vec);
        *why = "more than 15 dimensions";
        return DMSG_ERR_UNSUPPORTED;
    }
    w->cnt[w->nd] = cnt;
    w->str[w->nd] = str;
    w->vec[w->nd] = vec;
    w->nd++;
    return DMSG_OK;
}

/* One array ref: through descriptor d (whose base is already this image's
 * symmetric address) or, without one, a static array. */
static int array_ref(walk *w, const caf_ref *r, const caf_desc *d, const char **why)
{
    int rank = ref_rank(r), had = w->nd;
    for (int k = 0; k < rank; k++) {
        int m = r->u.a.mode[k];
        ptrdiff_t lo, hi, st, bs, lb = 0;
        if (d) {
            ptrdiff_t unit = d->span > 0 ? d->span : (ptrdiff_t)r->item_size;
            lb = d->dim[k].lbound;
            bs = d->dim[k].stride * unit;
            lo = d->dim[k].lbound;
            hi = d->dim[k].ubound;
        } else {
            /* static arrays: in elements from 0, the bounds in the ref */
            bs = (ptrdiff_t)r->item_size;
            lo = r->u.a.dim[k].s.start;
            hi = r->u.a.dim[k].s.end;
        }
        st = 1;
        switch (m) {
        case ARR_SINGLE:
            w->base += (r->u.a.dim[k].s.start - lb) * bs;
            continue;
        case ARR_FULL:
            /* (::2) is a full ref with a stride; gfortran sets it always */
            if (r->u.a.dim[k].s.stride)
                st = r->u.a.dim[k].s.stride;
            break;
        case ARR_RANGE:
            lo = r->u.a.dim[k].s.start;
            hi = r->u.a.dim[k].s.end;
            st = r->u.a.dim[k].s.stride;
            break;
        case ARR_OPEN_END:
            lo = r->u.a.dim[k].s.start;
            st = r->u.a.dim[k].s.stride;
            break;
        case ARR_OPEN_START:
            hi = r->u.a.dim[k].s.end;
            st = r->u.a.dim[k].s.stride;
            break;
        case ARR_VECTOR: {
            if (!d) {
                *why = "a vector subscript of a static array component";
                return DMSG_ERR_UNSUPPORTED;
            }
            if (had) {
                *why = "two parts of a reference with rank";
                return DMSG_ERR_ARG;
            }
            size_t n = r->u.a.dim[k].v.nvec;
            ptrdiff_t *o = malloc((n ? n : 1) * sizeof *o);
            if (!o)
                return DMSG_ERR_NOMEM;
            for (size_t i = 0; i < n; i++) {
                ptrdiff_t x;
                if (vec_at(r->u.a.dim[k].v.vector, r->u.a.dim[k].v.kind, i, &x)) {
                    free(o);
                    *why = "a vector subscript of an unknown integer kind";
                    return DMSG_ERR_ARG;
                }
                o[i] = (x - lb) * bs;
            }
            int rc = add_dim(w, n, 0, o, why);
            if (rc)
                return rc;
            continue;
        }
        default:
            *why = "an array reference of an unknown form";
            return DMSG_ERR_ARG;
        }
        if (st == 0) {
            *why = "a zero stride";
            return DMSG_ERR_ARG;
        }
        if (had) {
            *why = "two parts of a reference with rank";
            return DMSG_ERR_ARG;
        }
        ptrdiff_t c = (hi - lo) / st + 1;
        w->base += (lo - lb) * bs;
        int rc = add_dim(w, c > 0 ? (size_t)c : 0, st * bs, NULL, why);
        if (rc)
            return rc;
    }
    w->es = r->item_size;
    return DMSG_OK;
}

/* Walks refs from the coarray of token t on image `image`. An allocatable
 * component that is not allocated sets w->absent and ends the walk. */
static int walk_refs(walk *w, dmsg_caf_token *t, int image, const caf_ref *r, const char **why)
{
    memset(w, 0, sizeof *w);
    w->pe = dmsg_caf_pe(image);
    if (w->pe < 0 || !t || !t->mem) {
        *why = w->pe < 0 ? "no such image" : "the coarray is not allocated";
        return w->pe < 0 ? DMSG_ERR_PE : DMSG_ERR_ARG;
    }
    w->base = t->mem;
    caf_desc rd; /* a remote component's descriptor, read for the array ref after it */
    int have_rd = 0, first = 1, rc = DMSG_OK;
    for (; r; r = r->next, first = 0) {
        switch (r->type) {
        case REF_COMPONENT:
            if (r->u.c.caf_token_offset <= 0) {
                w->base += r->u.c.offset;
                w->es = r->item_size;
                break;
            }
            if (w->nd) {
                *why = "an allocatable component of an array section";
                return DMSG_ERR_ARG;
            }
            if (r->next && r->next->type == REF_ARRAY) {
                /* an allocatable array: its descriptor is in the parent */
                size_t bytes =
                    offsetof(caf_desc, dim) + (size_t)ref_rank(r->next) * sizeof(caf_dim);
                memset(&rd, 0, sizeof rd);
                if ((rc = dmsg_fetch(&rd, w->base + r->u.c.offset, bytes, w->pe)))
                    return rc;
                if (!rd.base) {
                    w->absent = 1;
                    return DMSG_OK;
                }
                char *l = local_of((uint64_t)(uintptr_t)rd.base, w->pe, r->item_size, &rc);
                if (!l) {
                    *why = "a component outside the coarray memory (a pointer component?)";
                    return rc;
                }
                rd.base = l;
                have_rd = 1;
            } else {
                /* an allocatable scalar: a pointer in the parent */
                uint64_t p = 0;
                if ((rc = dmsg_fetch(&p, w->base + r->u.c.offset, sizeof p, w->pe)))
                    return rc;
                if (!p) {
                    w->absent = 1;
                    return DMSG_OK;
                }
                if (!(w->base = local_of(p, w->pe, r->item_size, &rc))) {
                    *why = "a component outside the coarray memory (a pointer component?)";
                    return rc;
                }
            }
            w->es = r->item_size;
            break;
        case REF_ARRAY: {
            const caf_desc *d = NULL;
            if (have_rd) {
                d = &rd;
                w->base = rd.base;
            } else if (first && t->desc) {
                /* the coarray itself: every image has the same bounds */
                d = t->desc;
            } else {
                *why = "an array reference without a descriptor";
                return DMSG_ERR_ARG;
            }
            if ((rc = array_ref(w, r, d, why)))
                return rc;
            have_rd = 0;
            break;
        }
        case REF_STATIC_ARRAY:
            if ((rc = array_ref(w, r, NULL, why)))
                return rc;
            break;
        default:
            *why = "a reference of an unknown kind";
            return DMSG_ERR_ARG;
        }
    }
    return DMSG_OK;
}

/* The walk as a transfer's remote side (caf_xfer.c): one section when no
 * dimension has a vector subscript and the folded section fits a dmsg
 * layout, else the byte offset of every element. */
static int to_rside(walk *w, dmsg_caf_rside *rs)
{
    memset(rs, 0, sizeof *rs);
    rs->pe = w->pe;
    rs->es = w->es;
    rs->base = w->base;
    size_t n = 1;
    int vec = 0;
    for (int k = 0; k < w->nd; k++) {
        n *= w->cnt[k];
        vec |= w->vec[k] != NULL;
    }
    rs->n = n;
    if (!vec) {
        dmsg_layout *l = &rs->l;
        int nd = 0;
        for (int k = 0; k < w->nd; k++) {
            if (w->cnt[k] == 1)
                continue;
            if (nd > 0 && l->stride[nd - 1] * (ptrdiff_t)l->count[nd - 1] == w->str[k]) {
                l->count[nd - 1] *= w->cnt[k];
                continue;
            }
            if (nd == DMSG_MAX_DIMS)
                goto offsets;
            l->count[nd] = w->cnt[k];
            l->stride[nd] = w->str[k];
            nd++;
        }
        if (nd == 0) {
            l->count[0] = 1;
            l->stride[0] = (ptrdiff_t)rs->es;
            nd = 1;
        }
        l->ndims = nd;
        return DMSG_OK;
    }
offsets:;
    ptrdiff_t *o = malloc((n ? n : 1) * sizeof *o), lo = 0;
    if (!o)
        return DMSG_ERR_NOMEM;
    size_t ix[CAF_MAX_DIMS] = {0};
    for (size_t i = 0; i < n; i++) {
        ptrdiff_t off = 0;
        for (int k = 0; k < w->nd; k++)
            off += w->vec[k] ? w->vec[k][ix[k]] : (ptrdiff_t)ix[k] * w->str[k];
        o[i] = off;
        if (off < lo)
            lo = off;
        for (int k = 0; k < w->nd; k++) {
            if (++ix[k] < w->cnt[k])
                break;
            ix[k] = 0;
        }
    }
    /* offsets from the lowest element, which becomes the base */
    for (size_t i = 0; i < n; i++)
        o[i] -= lo;
    rs->base += lo;
    rs->mode = 2;
    rs->idx = (size_t *)o;
    return DMSG_OK;
}

/* A descriptor that names only the remote side's type and element size. */
static caf_desc type_desc(int type, size_t es)
{
    caf_desc d;
    memset(&d, 0, sizeof d);
    d.dtype.type = (signed char)type;
    d.dtype.elem_len = es;
    d.span = (ptrdiff_t)es;
    return d;
}

/* Gives an allocatable destination the shape of the reference (Fortran's
 * reallocation on assignment): lower bounds 1, contiguous. */
static int reshape_dest(caf_desc *dst, const walk *w)
{
    int r = dst->dtype.rank;
    if (r == 0 || w->nd == 0)
        return DMSG_OK;
    if (r != w->nd)
        return DMSG_ERR_ARG;
    int same = dst->base != NULL;
    for (int k = 0; same && k < r; k++)
        same = (size_t)(dst->dim[k].ubound - dst->dim[k].lbound + 1) == w->cnt[k];
    if (same)
        return DMSG_OK;
    size_t n = 1;
    for (int k = 0; k < r; k++)
        n *= w->cnt[k];
    size_t bytes = n * dst->dtype.elem_len;
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        return DMSG_ERR_NOMEM;
    free(dst->base);
    dst->base = p;
    ptrdiff_t stride = 1, off = 0;
    for (int k = 0; k < r; k++) {
        dst->dim[k].lbound = 1;
        dst->dim[k].ubound = (ptrdiff_t)w->cnt[k];
        dst->dim[k].stride = stride;
        off -= stride;
        stride *= (ptrdiff_t)w->cnt[k];
    }
    dst->offset = (size_t)off;
    dst->span = (ptrdiff_t)dst->dtype.elem_len;
    return DMSG_OK;
}

void _gfortran_caf_get_by_ref(void *token, int image, caf_desc *dst, caf_ref *refs, int dst_kind,
                              int src_kind, bool may_require_tmp, bool dst_reallocatable,
                              int *stat, int src_type);
void _gfortran_caf_get_by_ref(void *token, int image, caf_desc *dst, caf_ref *refs, int dst_kind,
                              int src_kind, bool may_require_tmp, bool dst_reallocatable,
                              int *stat, int src_type)
{
    walk w;
    dmsg_caf_rside rs;
    const char *why = NULL;
    memset(&rs, 0, sizeof rs);
    int rc = walk_refs(&w, token, image, refs, &why);
    if (rc == DMSG_OK && w.absent) {
        why = "an allocatable component that is not allocated there";
        rc = DMSG_ERR_ARG;
    }
    if (rc == DMSG_OK && dst_reallocatable && (rc = reshape_dest(dst, &w)))
        why = "the destination's rank differs";
    if (rc == DMSG_OK && !dst->base) {
        why = "the destination is not allocated";
        rc = DMSG_ERR_ARG;
    }
    if (rc == DMSG_OK && (rc = to_rside(&w, &rs)) == DMSG_OK) {
        caf_desc sd = type_desc(src_type, w.es);
        rc = dmsg_caf_rside_get(&rs, &sd, src_kind, dst, dst_kind, may_require_tmp);
    }
    free(rs.idx);
    walk_free(&w);
    if (rc)
        dmsg_caf_fail(stat, NULL, 0, 1, "coindexed reference to a component on image %d: %s (%s)",
                      image, why ? why : dmsg_strerror(rc),
                      why ? dmsg_strerror(rc) : dmsg_last_error());
    else if (stat)
        *stat = 0;
}

void _gfortran_caf_send_by_ref(void *token, int image, caf_desc *src, caf_ref *refs, int dst_kind,
                               int src_kind, bool may_require_tmp, bool dst_reallocatable,
                               int *stat, int dst_type);
void _gfortran_caf_send_by_ref(void *token, int image, caf_desc *src, caf_ref *refs, int dst_kind,
                               int src_kind, bool may_require_tmp, bool dst_reallocatable,
                               int *stat, int dst_type)
{
    walk w;
    dmsg_caf_rside rs;
    const char *why = NULL;
    (void)may_require_tmp;
    (void)dst_reallocatable; /* another image's component cannot be
                              * reallocated from here: a shape that differs
                              * is an error below (Fortran forbids it too) */
    memset(&rs, 0, sizeof rs);
    int rc = walk_refs(&w, token, image, refs, &why);
    if (rc == DMSG_OK && w.absent) {
        why = "an allocatable component that is not allocated there (only its image can "
              "allocate it)";
        rc = DMSG_ERR_ARG;
    }
    if (rc == DMSG_OK && (rc = to_rside(&w, &rs)) == DMSG_OK) {
        size_t ns = dmsg_caf_desc_count(src);
        if (ns != rs.n && ns != 1) {
            why = "the shapes differ";
            rc = DMSG_ERR_ARG;
        } else {
            caf_desc dd = type_desc(dst_type, w.es);
            rc = dmsg_caf_rside_put(&rs, &dd, dst_kind, src, src_kind);
            if (rc == DMSG_OK)
                rc = dmsg_quiet();
        }
    }
    free(rs.idx);
    walk_free(&w);
    if (rc)
        dmsg_caf_fail(stat, NULL, 0, 1, "coindexed assignment to a component on image %d: %s (%s)",
                      image, why ? why : dmsg_strerror(rc),
                      why ? dmsg_strerror(rc) : dmsg_last_error());
    else if (stat)
        *stat = 0;
}

void _gfortran_caf_sendget_by_ref(void *dtoken, int dimage, caf_ref *drefs, void *stoken,
                                  int simage, caf_ref *srefs, int dst_kind, int src_kind,
                                  bool may_require_tmp, int *dstat, int *sstat, int dst_type,
                                  int src_type);
void _gfortran_caf_sendget_by_ref(void *dtoken, int dimage, caf_ref *drefs, void *stoken,
                                  int simage, caf_ref *srefs, int dst_kind, int src_kind,
                                  bool may_require_tmp, int *dstat, int *sstat, int dst_type,
                                  int src_type)
{
    walk dw, sw;
    dmsg_caf_rside ds, ss;
    const char *why = NULL;
    (void)may_require_tmp;
    memset(&ds, 0, sizeof ds);
    memset(&ss, 0, sizeof ss);
    memset(&sw, 0, sizeof sw);
    int rc = walk_refs(&dw, dtoken, dimage, drefs, &why);
    if (rc == DMSG_OK)
        rc = walk_refs(&sw, stoken, simage, srefs, &why);
    if (rc == DMSG_OK && (dw.absent || sw.absent)) {
        why = "an allocatable component that is not allocated there";
        rc = DMSG_ERR_ARG;
    }
    if (rc == DMSG_OK && (rc = to_rside(&dw, &ds)) == DMSG_OK &&
        (rc = to_rside(&sw, &ss)) == DMSG_OK) {
        caf_desc dd = type_desc(dst_type, dw.es), sd = type_desc(src_type, sw.es);
        if ((rc = dmsg_caf_rside_copy(&ds, &dd, dst_kind, &ss, &sd, src_kind)) == DMSG_OK)
            rc = dmsg_quiet();
    }
    free(ds.idx);
    free(ss.idx);
    walk_free(&dw);
    walk_free(&sw);
    if (sstat)
        *sstat = 0;
    if (rc)
        dmsg_caf_fail(dstat, NULL, 0, 1,
                      "coindexed assignment between components of images %d and %d: %s (%s)",
                      simage, dimage, why ? why : dmsg_strerror(rc),
                      why ? dmsg_strerror(rc) : dmsg_last_error());
    else if (dstat)
        *dstat = 0;
}

int _gfortran_caf_is_present(void *token, int image, caf_ref *refs);
int _gfortran_caf_is_present(void *token, int image, caf_ref *refs)
{
    walk w;
    const char *why = NULL;
    int rc = walk_refs(&w, token, image, refs, &why);
    walk_free(&w);
    if (rc) {
        dmsg_caf_fail(NULL, NULL, 0, 1, "ALLOCATED of a component on image %d: %s (%s)", image,
                      why ? why : dmsg_strerror(rc), dmsg_strerror(rc));
        return 0;
    }
    return !w.absent;
}
