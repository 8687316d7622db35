/* Layout validation, extents, the destination overlap check and section
 * normalization. Everything here runs before any byte is written, so every
 * size computation is overflow-checked. */
#include <stdint.h>
#include <string.h>
#include "dmsg/xfer/xfer_impl.h"

static dmsg_status check_shape(const dmsg_layout *l, size_t elem_size)
{
    if (l->ndims < 1 || l->ndims > DMSG_MAX_DIMS)
        return DMSG_FAIL(DMSG_ERR_ARG, "ndims %d not in [1, %d]", l->ndims, DMSG_MAX_DIMS);
    if (elem_size == 0)
        return DMSG_FAIL(DMSG_ERR_ARG, "element size 0");
    if (elem_size > PTRDIFF_MAX)
        return DMSG_FAIL(DMSG_ERR_OVERFLOW, "element size %zu too large", elem_size);
    return DMSG_OK;
}

static int layout_is_empty(const dmsg_layout *l)
{
    for (int d = 0; d < l->ndims; d++)
        if (l->count[d] == 0)
            return 1;
    return 0;
}

/* Byte offset of the last element along d relative to the first:
 * (count - 1) * stride, which may be negative. */
static dmsg_status dim_span(const dmsg_layout *l, int d, ptrdiff_t *span)
{
    size_t steps = l->count[d] - 1;
    if (steps > PTRDIFF_MAX || __builtin_mul_overflow((ptrdiff_t)steps, l->stride[d], span))
        return DMSG_FAIL(DMSG_ERR_OVERFLOW, "extent of dimension %d overflows", d);
    return DMSG_OK;
}

static dmsg_status layout_extent(const dmsg_layout *l, size_t elem_size, dmsg_extent *ext)
{
    ptrdiff_t lo = 0, hi = (ptrdiff_t)elem_size, span, width;
    for (int d = 0; d < l->ndims; d++) {
        dmsg_status st = dim_span(l, d, &span);
        if (st != DMSG_OK)
            return st;
        int ovf = span < 0 ? __builtin_add_overflow(lo, span, &lo)
                           : __builtin_add_overflow(hi, span, &hi);
        if (ovf)
            return DMSG_FAIL(DMSG_ERR_OVERFLOW, "layout extent overflows at dimension %d", d);
    }
    /* Callers compare hi - lo against segment sizes, so it must be representable. */
    if (__builtin_sub_overflow(hi, lo, &width))
        return DMSG_FAIL(DMSG_ERR_OVERFLOW, "layout extent width overflows");
    ext->lo = lo;
    ext->hi = hi;
    return DMSG_OK;
}

dmsg_status dmsg_layout_check(const dmsg_layout *l, size_t elem_size, size_t *nelems,
                              dmsg_extent *ext)
{
    if (!l || !nelems || !ext)
        return DMSG_FAIL(DMSG_ERR_NULL, "layout check: NULL argument");
    dmsg_status st = check_shape(l, elem_size);
    if (st != DMSG_OK)
        return st;
    if (layout_is_empty(l)) {
        *nelems = 0;
        ext->lo = ext->hi = 0;
        return DMSG_OK;
    }
    size_t total = 1, bytes;
    for (int d = 0; d < l->ndims; d++)
        if (__builtin_mul_overflow(total, l->count[d], &total))
            return DMSG_FAIL(DMSG_ERR_OVERFLOW, "element count overflows at dimension %d", d);
    if (__builtin_mul_overflow(total, elem_size, &bytes))
        return DMSG_FAIL(DMSG_ERR_OVERFLOW, "%zu elements of %zu bytes overflow", total,
                         elem_size);
    dmsg_extent e;
    st = layout_extent(l, elem_size, &e);
    if (st != DMSG_OK)
        return st;
    *nelems = total;
    *ext = e;
    return DMSG_OK;
}

static size_t abs_stride(ptrdiff_t s)
{
    /* Through size_t so that PTRDIFF_MIN does not overflow. */
    return s < 0 ? (size_t)0 - (size_t)s : (size_t)s;
}

dmsg_status dmsg_layout_check_disjoint(const dmsg_layout *l, size_t elem_size)
{
    if (!l)
        return DMSG_FAIL(DMSG_ERR_NULL, "disjoint check: NULL layout");
    dmsg_status st = check_shape(l, elem_size);
    if (st != DMSG_OK)
        return st;
    xfer_side s;
    if (!dmsg_xfer_squeeze(&s, l))
        return DMSG_OK; /* no elements, nothing can overlap */
    size_t mag[DMSG_MAX_DIMS], cnt[DMSG_MAX_DIMS];
    for (int i = 0; i < s.nd; i++) { /* insertion sort by |stride| */
        size_t m = abs_stride(s.stride[i]), c = s.count[i];
        int j = i;
        for (; j > 0 && mag[j - 1] > m; j--) {
            mag[j] = mag[j - 1];
            cnt[j] = cnt[j - 1];
        }
        mag[j] = m;
        cnt[j] = c;
    }
    /* A dimension whose step is at least the span of everything inside it
     * lays its copies of that span side by side, never on top of each other. */
    size_t span = elem_size, grow;
    for (int i = 0; i < s.nd; i++) {
        if (mag[i] < span)
            return DMSG_FAIL(DMSG_ERR_ARG, "destination elements overlap (stride %zu < %zu)",
                             mag[i], span);
        if (__builtin_mul_overflow(cnt[i] - 1, mag[i], &grow) ||
            __builtin_add_overflow(span, grow, &span))
            return DMSG_FAIL(DMSG_ERR_OVERFLOW, "destination extent overflows");
    }
    return DMSG_OK;
}

int dmsg_xfer_squeeze(xfer_side *out, const dmsg_layout *l)
{
    out->nd = 0;
    for (int d = 0; d < l->ndims; d++) {
        if (l->count[d] == 0)
            return 0;
        if (l->count[d] == 1)
            continue;
        out->count[out->nd] = l->count[d];
        out->stride[out->nd] = l->stride[d];
        out->nd++;
    }
    return 1;
}

/* True when a dimension of stride `outer` continues `count` steps of `inner`. */
static int continues(ptrdiff_t outer, size_t count, ptrdiff_t inner)
{
    ptrdiff_t next;
    if (count > PTRDIFF_MAX || __builtin_mul_overflow((ptrdiff_t)count, inner, &next))
        return 0;
    return outer == next;
}

void dmsg_xfer_side_fold(xfer_side *s)
{
    int n = 0;
    for (int d = 0; d < s->nd; d++) {
        if (n > 0 && continues(s->stride[d], s->count[n - 1], s->stride[n - 1])) {
            s->count[n - 1] *= s->count[d];
            continue;
        }
        s->count[n] = s->count[d];
        s->stride[n] = s->stride[d];
        n++;
    }
    s->nd = n;
}

void dmsg_xfer_fold(xfer_work *w)
{
    int n = 0;
    for (int d = 0; d < w->nd; d++) {
        if (n > 0 && continues(w->dstride[d], w->count[n - 1], w->dstride[n - 1]) &&
            continues(w->sstride[d], w->count[n - 1], w->sstride[n - 1])) {
            w->count[n - 1] *= w->count[d];
            continue;
        }
        w->count[n] = w->count[d];
        w->dstride[n] = w->dstride[d];
        w->sstride[n] = w->sstride[d];
        n++;
    }
    w->nd = n;
    /* After the merge above, the new innermost dimension cannot continue the
     * grown element, so one fold into elem is enough. */
    if (n > 0 && w->dstride[0] == (ptrdiff_t)w->elem && w->sstride[0] == (ptrdiff_t)w->elem) {
        w->elem *= w->count[0];
        memmove(w->count, w->count + 1, (size_t)(n - 1) * sizeof w->count[0]);
        memmove(w->dstride, w->dstride + 1, (size_t)(n - 1) * sizeof w->dstride[0]);
        memmove(w->sstride, w->sstride + 1, (size_t)(n - 1) * sizeof w->sstride[0]);
        w->nd = n - 1;
    }
}

static void work_push(xfer_work *w, size_t count, ptrdiff_t dstride, ptrdiff_t sstride)
{
    w->count[w->nd] = count;
    w->dstride[w->nd] = dstride;
    w->sstride[w->nd] = sstride;
    w->nd++;
}

int dmsg_xfer_refine(xfer_work *w, const xfer_side *d, const xfer_side *s, size_t elem)
{
    w->nd = 0;
    w->elem = elem;
    int i = 0, j = 0;
    size_t ci = 0, cj = 0; /* remaining count of the current dimension per side */
    ptrdiff_t si = 0, sj = 0;
    while (i < d->nd || ci > 1) {
        if (ci <= 1) {
            ci = d->count[i];
            si = d->stride[i++];
        }
        if (cj <= 1) {
            if (j >= s->nd)
                return 0;
            cj = s->count[j];
            sj = s->stride[j++];
        }
        size_t c = ci < cj ? ci : cj;
        if ((ci % c) || (cj % c) || w->nd == XFER_WORK_DIMS)
            return 0;
        work_push(w, c, si, sj);
        /* The remainder of a split dimension steps over c elements at once;
         * when it has 2 or more steps left it lies inside the original extent,
         * so the product cannot overflow. */
        ci /= c;
        cj /= c;
        if (ci > 1)
            si *= (ptrdiff_t)c;
        if (cj > 1)
            sj *= (ptrdiff_t)c;
    }
    return j == s->nd && cj <= 1;
}

int dmsg_xfer_work_to_sect(dmsg_sect *out, const xfer_work *w)
{
    if (w->nd > DMSG_MAX_DIMS)
        return 0;
    out->nd = w->nd;
    out->elem = w->elem;
    for (int d = 0; d < w->nd; d++) {
        out->count[d] = w->count[d];
        out->dstride[d] = w->dstride[d];
        out->sstride[d] = w->sstride[d];
    }
    return 1;
}

static int same_shape(const xfer_side *a, const xfer_side *b)
{
    if (a->nd != b->nd)
        return 0;
    for (int d = 0; d < a->nd; d++)
        if (a->count[d] != b->count[d])
            return 0;
    return 1;
}

int dmsg_sect_normalize(dmsg_sect *out, const dmsg_layout *dl, const dmsg_layout *sl,
                        size_t elem_size)
{
    xfer_side d, s;
    if (!out || !dl || !sl || elem_size == 0 || dl->ndims < 1 || dl->ndims > DMSG_MAX_DIMS ||
        sl->ndims < 1 || sl->ndims > DMSG_MAX_DIMS)
        return 0;
    if (!dmsg_xfer_squeeze(&d, dl) || !dmsg_xfer_squeeze(&s, sl) || !same_shape(&d, &s))
        return 0;
    xfer_work w = {.nd = 0, .elem = elem_size};
    for (int k = 0; k < d.nd; k++)
        work_push(&w, d.count[k], d.stride[k], s.stride[k]);
    dmsg_xfer_fold(&w);
    return dmsg_xfer_work_to_sect(out, &w);
}
