/*
 * caf_xfer.c - coindexed assignments: a(...)[j] = b (send), b = a(...)[j]
 * (get) and a(...)[j] = c(...)[k] (sendget). A section of any rank and
 * strides becomes one dmsg section deposit or fetch (dimensions folded by
 * the descriptor walk; more than DMSG_MAX_DIMS left, or vector subscripts,
 * become an indexed transfer); kind conversion, a scalar source for an
 * array target, and possible overlap go through a contiguous buffer.
 *
 * SPDX-License-Identifier: BSD-3-Clause (the LICENSE file of dmsg)
 */
#include <stdlib.h>
#include <string.h>

#include "dmsg/front/caf/caf.h"

typedef dmsg_caf_rside rside;

static int vec_index(const caf_vec *v, size_t i, ptrdiff_t *out)
{
    switch (v->u.v.kind) {
    case 1: *out = ((const int8_t *)v->u.v.vector)[i]; return 0;
    case 2: *out = ((const int16_t *)v->u.v.vector)[i]; return 0;
    case 4: *out = ((const int32_t *)v->u.v.vector)[i]; return 0;
    case 8: *out = ((const int64_t *)v->u.v.vector)[i]; return 0;
    default: return -1;
    }
}

static ptrdiff_t bstride(const caf_desc *d, int k)
{
    ptrdiff_t unit = d->span > 0 ? d->span : (ptrdiff_t)d->dtype.elem_len;
    return d->dim[k].stride * unit;
}

/* Byte offsets of every element, in Fortran order, from the remote array's
 * first element (vector subscripts: from its declared lower bounds). */
static int offsets(const caf_desc *d, const caf_vec *vec, ptrdiff_t **out, size_t *n)
{
    int r = d->dtype.rank;
    size_t ext[CAF_MAX_DIMS], total = 1;
    for (int k = 0; k < r; k++) {
        if (vec && vec[k].nvec)
            ext[k] = vec[k].nvec;
        else if (vec) {
            ptrdiff_t e = vec[k].u.t.stride
                ? (vec[k].u.t.upper - vec[k].u.t.lower) / vec[k].u.t.stride + 1 : 0;
            ext[k] = e > 0 ? (size_t)e : 0;
        } else {
            ptrdiff_t e = d->dim[k].ubound - d->dim[k].lbound + 1;
            ext[k] = e > 0 ? (size_t)e : 0;
        }
        total *= ext[k];
    }
    ptrdiff_t *o = malloc((total ? total : 1) * sizeof *o);
    if (!o)
        return -1;
    size_t ix[CAF_MAX_DIMS] = {0};
    for (size_t i = 0; i < total; i++) {
        ptrdiff_t off = 0;
        for (int k = 0; k < r; k++) {
            ptrdiff_t sub;
            if (!vec)
                sub = (ptrdiff_t)ix[k];
            else if (vec[k].nvec) {
                if (vec_index(&vec[k], ix[k], &sub)) {
                    free(o);
                    return -1;
                }
                sub -= d->dim[k].lbound;
            } else
                sub = vec[k].u.t.lower + (ptrdiff_t)ix[k] * vec[k].u.t.stride - d->dim[k].lbound;
            off += sub * bstride(d, k);
        }
        o[i] = off;
        for (int k = 0; k < r; k++) {
            if (++ix[k] < ext[k])
                break;
            ix[k] = 0;
        }
    }
    *out = o;
    *n = total;
    return 0;
}

static int rside_init(rside *rs, dmsg_caf_token *t, size_t offset, int image, const caf_desc *d,
                      const caf_vec *vec)
{
    memset(rs, 0, sizeof *rs);
    rs->pe = dmsg_caf_pe(image);
    if (rs->pe < 0 || !t)
        return DMSG_ERR_PE;
    rs->base = t->mem + offset;
    rs->es = d->dtype.elem_len;
    if (!vec && dmsg_caf_desc_layout(d, &rs->l) == 0) {
        rs->n = dmsg_caf_desc_count(d);
        return DMSG_OK;
    }
    ptrdiff_t *o = NULL, lo = 0;
    if (offsets(d, vec, &o, &rs->n))
        return DMSG_ERR_NOMEM;
    int aligned = 1;
    for (size_t i = 0; i < rs->n; i++)
        if (o[i] < lo)
            lo = o[i];
    for (size_t i = 0; i < rs->n; i++) {
        o[i] -= lo;
        if ((size_t)o[i] % rs->es)
            aligned = 0;
    }
    rs->base += lo;
    rs->mode = aligned ? 1 : 2;
    rs->idx = (size_t *)o;
    for (size_t i = 0; aligned && i < rs->n; i++)
        rs->idx[i] /= rs->es;
    return DMSG_OK;
}

static void contig(dmsg_layout *l, size_t n, size_t es)
{
    memset(l, 0, sizeof *l);
    l->ndims = 1;
    l->count[0] = n;
    l->stride[0] = (ptrdiff_t)es;
}

static int rside_store(rside *rs, const void *buf)
{
    dmsg_layout c;
    if (rs->mode == 0) {
        if (rs->l.ndims == 1 && rs->l.stride[0] == (ptrdiff_t)rs->es)
            return dmsg_deposit(rs->base, buf, rs->n * rs->es, rs->pe, DMSG_CTR_NONE);
        contig(&c, rs->n, rs->es);
        return dmsg_deposit_section(rs->base, &rs->l, buf, &c, rs->es, rs->pe, DMSG_CTR_NONE);
    }
    if (rs->mode == 1)
        return dmsg_deposit_indexed(rs->base, rs->idx, buf, rs->n, rs->es, rs->pe, DMSG_CTR_NONE);
    for (size_t i = 0; i < rs->n; i++) {
        int rc = dmsg_deposit(rs->base + rs->idx[i], (const char *)buf + i * rs->es, rs->es, rs->pe,
                              DMSG_CTR_NONE);
        if (rc)
            return rc;
    }
    return DMSG_OK;
}

static int rside_fetch(rside *rs, void *buf)
{
    dmsg_layout c;
    if (rs->mode == 0) {
        if (rs->l.ndims == 1 && rs->l.stride[0] == (ptrdiff_t)rs->es)
            return dmsg_fetch(buf, rs->base, rs->n * rs->es, rs->pe);
        contig(&c, rs->n, rs->es);
        return dmsg_fetch_section(buf, &c, rs->base, &rs->l, rs->es, rs->pe);
    }
    if (rs->mode == 1)
        return dmsg_fetch_indexed(buf, rs->base, rs->idx, rs->n, rs->es, rs->pe);
    for (size_t i = 0; i < rs->n; i++) {
        int rc = dmsg_fetch((char *)buf + i * rs->es, rs->base + rs->idx[i], rs->es, rs->pe);
        if (rc)
            return rc;
    }
    return DMSG_OK;
}

static int needs_conv(const caf_desc *a, int akind, const caf_desc *b, int bkind)
{
    return a->dtype.type != b->dtype.type || a->dtype.elem_len != b->dtype.elem_len ||
           (akind != bkind && a->dtype.type != CAF_BT_DERIVED);
}

/* Packs n_src elements of the local descriptor, converted to the target's
 * type, and repeated when a scalar is assigned to n elements. */
static void *source_buf(const caf_desc *src, const char *sbase, int skind, size_t n_src,
                        const caf_desc *dst, int dkind, size_t n, int *bad)
{
    size_t ses = src->dtype.elem_len, des = dst->dtype.elem_len;
    char *p = malloc((n_src ? n_src : 1) * ses), *q = NULL;
    if (!p)
        return NULL;
    dmsg_caf_pack(src, sbase, p);
    q = malloc((n ? n : 1) * des);
    if (!q) {
        free(p);
        return NULL;
    }
    if (dmsg_caf_convert(q, dst->dtype.type, dkind, des, p, src->dtype.type, skind, ses,
                         n_src < n ? n_src : n)) {
        *bad = 1;
        free(p);
        free(q);
        return NULL;
    }
    for (size_t i = n_src; i < n; i++)
        memcpy(q + i * des, q, des);
    free(p);
    return q;
}

const char *dmsg_caf_tname(int t)
{
    static const char *n[] = {"?", "INTEGER", "LOGICAL", "REAL", "COMPLEX", "derived type",
                              "CHARACTER"};
    return t >= 1 && t <= 6 ? n[t] : "?";
}

/* [*lo, *hi): the bytes a section touches. */
static void span_of(const char *base, const dmsg_layout *l, size_t es, uintptr_t *lo, uintptr_t *hi)
{
    uintptr_t a = (uintptr_t)base, b = (uintptr_t)base + es;
    for (int k = 0; k < l->ndims; k++) {
        ptrdiff_t reach = l->stride[k] * (ptrdiff_t)(l->count[k] ? l->count[k] - 1 : 0);
        if (reach < 0)
            a -= (uintptr_t)-reach;
        else
            b += (uintptr_t)reach;
    }
    *lo = a;
    *hi = b;
}

/* Whether a put to this image may copy straight from the source: the two
 * sections share no byte (the copy engine orders and tiles its loops, so
 * an overlap would read what it has already written). */
static int disjoint(const rside *rs, const caf_desc *src, const dmsg_layout *sl)
{
    uintptr_t dlo, dhi, slo, shi;
    span_of(rs->base, &rs->l, rs->es, &dlo, &dhi);
    span_of(src->base, sl, src->dtype.elem_len, &slo, &shi);
    return dhi <= slo || shi <= dlo;
}

int dmsg_caf_rside_put(rside *rs, const caf_desc *dest, int dst_kind, const caf_desc *src,
                       int src_kind)
{
    void *buf = NULL;
    int bad = 0, rc = DMSG_OK;
    size_t ns = dmsg_caf_desc_count(src);
    if (rs->n == 0)
        return DMSG_OK;
    int conv = needs_conv(dest, dst_kind, src, src_kind);
    dmsg_layout sl;
    /* Straight from the source's memory unless it overlaps the target
     * (this image), needs converting, or is a scalar for many elements. */
    if (!conv && ns == rs->n && rs->mode == 0 && dmsg_caf_desc_layout(src, &sl) == 0 &&
        (rs->pe != dmsg_pe() || disjoint(rs, src, &sl))) {
        if (rs->l.ndims == 1 && sl.ndims == 1 && rs->l.stride[0] == (ptrdiff_t)rs->es &&
            sl.stride[0] == (ptrdiff_t)rs->es)
            return dmsg_deposit(rs->base, src->base, rs->n * rs->es, rs->pe, DMSG_CTR_NONE);
        return dmsg_deposit_section(rs->base, &rs->l, src->base, &sl, rs->es, rs->pe,
                                    DMSG_CTR_NONE);
    }
    if (ns != rs->n && ns != 1)
        return DMSG_ERR_ARG;
    buf = source_buf(src, src->base, src_kind, ns, dest, dst_kind, rs->n, &bad);
    if (!buf)
        return bad ? DMSG_ERR_UNSUPPORTED : DMSG_ERR_NOMEM;
    rc = rside_store(rs, buf);
    free(buf);
    return rc;
}

void _gfortran_caf_send(void *token, size_t offset, int image, caf_desc *dest, caf_vec *dvec,
                        caf_desc *src, int dst_kind, int src_kind, bool may_require_tmp,
                        int *stat);
void _gfortran_caf_send(void *token, size_t offset, int image, caf_desc *dest, caf_vec *dvec,
                        caf_desc *src, int dst_kind, int src_kind, bool may_require_tmp,
                        int *stat)
{
    /* A scalar to a scalar of another image, same type and kind: one
     * deposit, no descriptor walk (the 8-byte put's latency). */
    if (dest->dtype.rank == 0 && src->dtype.rank == 0 && !dvec && token &&
        !needs_conv(dest, dst_kind, src, src_kind)) {
        int pe = dmsg_caf_pe(image);
        if (pe >= 0 && pe != dmsg_pe()) {
            int frc = dmsg_deposit(((dmsg_caf_token *)token)->mem + offset, src->base,
                                   dest->dtype.elem_len, pe, DMSG_CTR_NONE);
            if (frc == DMSG_OK)
                frc = dmsg_quiet();
            if (frc == DMSG_OK) {
                if (stat)
                    *stat = 0;
                return;
            }
        }
    }
    rside rs;
    int rc = rside_init(&rs, token, offset, image, dest, dvec);
    if (rc == DMSG_OK)
        rc = dmsg_caf_rside_put(&rs, dest, dst_kind, src, src_kind);
    (void)may_require_tmp;
    /* A later access by this image of the same location sees the data. */
    if (rc == DMSG_OK)
        rc = dmsg_quiet();
    free(rs.idx);
    if (rc)
        dmsg_caf_fail(stat, NULL, 0, 1, "coindexed assignment to image %d (%s to %s): %s (%s)",
                      image, dmsg_caf_tname(src->dtype.type), dmsg_caf_tname(dest->dtype.type),
                      dmsg_strerror(rc), dmsg_last_error());
    else if (stat)
        *stat = 0;
}

int dmsg_caf_rside_get(rside *rs, const caf_desc *src, int src_kind, caf_desc *dest,
                       int dst_kind, bool may_require_tmp)
{
    char *buf = NULL, *cbuf = NULL;
    int rc = DMSG_OK;
    size_t nd = dmsg_caf_desc_count(dest), des = dest->dtype.elem_len;
    if (nd == 0)
        goto out;
    int conv = needs_conv(dest, dst_kind, src, src_kind);
    dmsg_layout dl;
    if (!conv && nd == rs->n && rs->mode == 0 && (rs->pe != dmsg_pe() || !may_require_tmp) &&
        dmsg_caf_desc_layout(dest, &dl) == 0) {
        if (rs->l.ndims == 1 && dl.ndims == 1 && rs->l.stride[0] == (ptrdiff_t)rs->es &&
            dl.stride[0] == (ptrdiff_t)rs->es)
            rc = dmsg_fetch(dest->base, rs->base, rs->n * rs->es, rs->pe);
        else
            rc = dmsg_fetch_section(dest->base, &dl, rs->base, &rs->l, rs->es, rs->pe);
        goto out;
    }
    if (rs->n != nd && rs->n != 1) {
        rc = DMSG_ERR_ARG;
        goto out;
    }
    buf = malloc((rs->n ? rs->n : 1) * rs->es);
    cbuf = malloc(nd * des);
    if (!buf || !cbuf) {
        rc = DMSG_ERR_NOMEM;
        goto out;
    }
    if ((rc = rside_fetch(rs, buf)))
        goto out;
    if (dmsg_caf_convert(cbuf, dest->dtype.type, dst_kind, des, buf, src->dtype.type, src_kind,
                         rs->es, rs->n)) {
        rc = DMSG_ERR_UNSUPPORTED;
        goto out;
    }
    for (size_t i = rs->n; i < nd; i++)
        memcpy(cbuf + i * des, cbuf, des);
    dmsg_caf_unpack(dest, dest->base, cbuf);
out:
    free(buf);
    free(cbuf);
    return rc;
}

void _gfortran_caf_get(void *token, size_t offset, int image, caf_desc *src, caf_vec *svec,
                       caf_desc *dest, int src_kind, int dst_kind, bool may_require_tmp,
                       int *stat);
void _gfortran_caf_get(void *token, size_t offset, int image, caf_desc *src, caf_vec *svec,
                       caf_desc *dest, int src_kind, int dst_kind, bool may_require_tmp,
                       int *stat)
{
    /* A scalar from a scalar of another image, same type and kind: one
     * fetch, no descriptor walk (the 8-byte get's latency). */
    if (dest->dtype.rank == 0 && src->dtype.rank == 0 && !svec && token &&
        !needs_conv(dest, dst_kind, src, src_kind)) {
        int pe = dmsg_caf_pe(image);
        if (pe >= 0 && pe != dmsg_pe() &&
            dmsg_fetch(dest->base, ((dmsg_caf_token *)token)->mem + offset, src->dtype.elem_len,
                       pe) == DMSG_OK) {
            if (stat)
                *stat = 0;
            return;
        }
    }
    rside rs;
    int rc = rside_init(&rs, token, offset, image, src, svec);
    if (rc == DMSG_OK)
        rc = dmsg_caf_rside_get(&rs, src, src_kind, dest, dst_kind, may_require_tmp);
    free(rs.idx);
    if (rc)
        dmsg_caf_fail(stat, NULL, 0, 1, "coindexed reference to image %d (%s to %s): %s (%s)",
                      image, dmsg_caf_tname(src->dtype.type), dmsg_caf_tname(dest->dtype.type),
                      dmsg_strerror(rc), dmsg_last_error());
    else if (stat)
        *stat = 0;
}

int dmsg_caf_rside_copy(rside *ds, const caf_desc *dest, int dst_kind, rside *ss,
                        const caf_desc *src, int src_kind)
{
    char *buf = NULL, *cbuf = NULL;
    int rc = DMSG_OK;
    if (ds->n == 0)
        goto out;
    if (ss->n != ds->n && ss->n != 1) {
        rc = DMSG_ERR_ARG;
        goto out;
    }
    /* Through this image: fetch the source, convert, deposit (the two
     * remote images need not take part). */
    buf = malloc((ss->n ? ss->n : 1) * ss->es);
    cbuf = malloc(ds->n * ds->es);
    if (!buf || !cbuf) {
        rc = DMSG_ERR_NOMEM;
        goto out;
    }
    if ((rc = rside_fetch(ss, buf)))
        goto out;
    if (dmsg_caf_convert(cbuf, dest->dtype.type, dst_kind, ds->es, buf, src->dtype.type, src_kind,
                         ss->es, ss->n)) {
        rc = DMSG_ERR_UNSUPPORTED;
        goto out;
    }
    for (size_t i = ss->n; i < ds->n; i++)
        memcpy(cbuf + i * ds->es, cbuf, ds->es);
    rc = rside_store(ds, cbuf);
out:
    free(buf);
    free(cbuf);
    return rc;
}

void _gfortran_caf_sendget(void *dtoken, size_t doffset, int dimage, caf_desc *dest,
                           caf_vec *dvec, void *stoken, size_t soffset, int simage,
                           caf_desc *src, caf_vec *svec, int dst_kind, int src_kind,
                           bool may_require_tmp, int *stat);
void _gfortran_caf_sendget(void *dtoken, size_t doffset, int dimage, caf_desc *dest,
                           caf_vec *dvec, void *stoken, size_t soffset, int simage,
                           caf_desc *src, caf_vec *svec, int dst_kind, int src_kind,
                           bool may_require_tmp, int *stat)
{
    rside ds, ss;
    (void)may_require_tmp;
    memset(&ss, 0, sizeof ss);
    int rc = rside_init(&ds, dtoken, doffset, dimage, dest, dvec);
    if (rc == DMSG_OK && (rc = rside_init(&ss, stoken, soffset, simage, src, svec)) == DMSG_OK &&
        (rc = dmsg_caf_rside_copy(&ds, dest, dst_kind, &ss, src, src_kind)) == DMSG_OK)
        rc = dmsg_quiet();
    free(ds.idx);
    free(ss.idx);
    if (rc)
        dmsg_caf_fail(stat, NULL, 0, 1, "coindexed assignment from image %d to image %d: %s (%s)",
                      simage, dimage, dmsg_strerror(rc), dmsg_last_error());
    else if (stat)
        *stat = 0;
}
