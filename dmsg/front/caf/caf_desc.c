/*
 * caf_desc.c - gfortran array descriptors: element counts, the dmsg layout
 * of a descriptor's elements, packing and unpacking.
 *
 * SPDX-License-Identifier: BSD-3-Clause (the LICENSE file of dmsg)
 */
#include <string.h>

#include "dmsg/front/caf/caf.h"

size_t dmsg_caf_desc_esize(const caf_desc *d)
{
    return d->dtype.elem_len;
}

/* Bytes between consecutive elements along dimension k: the stride counts
 * units of span (the parent's size when the array is a component section). */
static ptrdiff_t bstride(const caf_desc *d, int k)
{
    ptrdiff_t unit = d->span > 0 ? d->span : (ptrdiff_t)d->dtype.elem_len;
    return d->dim[k].stride * unit;
}

static size_t extent(const caf_desc *d, int k)
{
    ptrdiff_t e = d->dim[k].ubound - d->dim[k].lbound + 1;
    return e > 0 ? (size_t)e : 0;
}

size_t dmsg_caf_desc_count(const caf_desc *d)
{
    size_t n = 1;
    for (int k = 0; k < d->dtype.rank; k++)
        n *= extent(d, k);
    return n;
}

int dmsg_caf_desc_layout(const caf_desc *d, dmsg_layout *l)
{
    size_t es = d->dtype.elem_len;
    int nd = 0;
    memset(l, 0, sizeof *l);
    for (int k = 0; k < d->dtype.rank; k++) {
        size_t c = extent(d, k);
        ptrdiff_t s = bstride(d, k);
        if (c == 1)
            continue;
        /* Merge with the dimension below when it continues it without a gap. */
        if (nd > 0 && l->stride[nd - 1] * (ptrdiff_t)l->count[nd - 1] == s) {
            l->count[nd - 1] *= c;
            continue;
        }
        if (nd == DMSG_MAX_DIMS)
            return -1;
        l->count[nd] = c;
        l->stride[nd] = s;
        nd++;
    }
    if (nd == 0) {
        l->count[0] = 1;
        l->stride[0] = (ptrdiff_t)es;
        nd = 1;
    }
    l->ndims = nd;
    return 0;
}

/* Calls fn for every element in Fortran order (first dimension fastest). */
static void walk(const caf_desc *d, char *base, char *buf, int out)
{
    size_t es = d->dtype.elem_len, n = dmsg_caf_desc_count(d);
    int r = d->dtype.rank;
    ptrdiff_t idx[CAF_MAX_DIMS] = {0};
    if (n == 0)
        return;
    for (size_t i = 0; i < n; i++) {
        ptrdiff_t off = 0;
        for (int k = 0; k < r; k++)
            off += idx[k] * bstride(d, k);
        if (out)
            memcpy(base + off, buf + i * es, es);
        else
            memcpy(buf + i * es, base + off, es);
        for (int k = 0; k < r; k++) {
            if ((size_t)++idx[k] < extent(d, k))
                break;
            idx[k] = 0;
        }
    }
}

void dmsg_caf_pack(const caf_desc *d, const char *base, void *buf)
{
    walk(d, (char *)base, buf, 0);
}

void dmsg_caf_unpack(const caf_desc *d, char *base, const void *buf)
{
    walk(d, base, (char *)buf, 1);
}
