/* The closed form of an assignment's communication: which sections PE p
 * deposits to PE q.
 *
 * Per matched pair of dimensions the statement walks t = 0 .. m-1, reading
 * source index lo_s + t*step_s and writing destination index lo_d + t*step_d.
 * The t that p owns in the source form a sorted list of intervals, one per
 * CYCLIC(k) block the section touches (BLOCK is one block; inside a block the
 * local index moves with t exactly as the global one does); so do the t that
 * q owns in the destination. Their intersection, one merge, is what p sends
 * q along that dimension. Runs of intervals of equal length whose local
 * offsets advance by the same amounts on both sides fold into one more
 * section dimension, so BLOCK <-> CYCLIC(k) costs a handful of sections per
 * dimension, not one per block. A piece is one choice of folded run per
 * dimension: the cross product. Work is per block touched, never per
 * element, except where a section strides over more blocks than it has
 * elements (then per element, which is fewer). */
#include <stdlib.h>
#include <string.h>
#include "dmsg/plan/plan_impl.h"

typedef long long ll;

size_t plan_sec_count(size_t lo, size_t hi, ptrdiff_t step)
{
    if (step > 0) return hi < lo ? 0 : (hi - lo) / (size_t)step + 1;
    if (step < 0) return lo < hi ? 0 : (lo - hi) / (size_t)(-step) + 1;
    return 0;
}

/* t in [t0, t0+len) owned by one side; local index l0 at t0. */
typedef struct own_iv {
    ll t0, len, l0;
} own_iv;

/* Intersection: local indices la (source) and lb (destination) at t0. */
typedef struct pair_iv {
    ll t0, len, la, lb;
} pair_iv;

/* A folded run: reps intervals of len, the r-th starting at local indices
 * la + r*dla and lb + r*dlb. */
typedef struct fam {
    ll len, reps, la, lb, dla, dlb;
} fam;

typedef struct vec {
    void *v;
    size_t n, cap, size;
} vec;

static void *vec_push(vec *x)
{
    if (x->n == x->cap) {
        size_t cap = x->cap ? 2 * x->cap : 16;
        void *v = realloc(x->v, cap * x->size);
        if (v == NULL) return NULL;
        x->v = v;
        x->cap = cap;
    }
    return (char *)x->v + x->size * x->n++;
}

/* Appends [t, t+len) at local l, merged with the previous interval when it
 * continues it (same block: the local index keeps moving with t). */
static dmsg_status own_push(vec *x, ll t, ll len, ll l, ll step)
{
    own_iv *prev = x->n ? (own_iv *)x->v + x->n - 1 : NULL;
    if (prev != NULL && prev->t0 + prev->len == t && prev->l0 + prev->len * step == l) {
        prev->len += len;
        return DMSG_OK;
    }
    own_iv *iv = vec_push(x);
    if (iv == NULL) return DMSG_FAIL(DMSG_ERR_NOMEM, "plan: out of memory");
    *iv = (own_iv){t, len, l};
    return DMSG_OK;
}

static ll ceil_div(ll a, ll b)
{
    return a <= 0 ? 0 : (a + b - 1) / b;
}

/* The t of lo + t*step (t < m) that coordinate c owns along dimension d. */
static dmsg_status own_list(const dmsg_darray *a, int d, ll c, ll lo, ll step, ll m, vec *out)
{
    ll P = a->procs[d], k = (ll)a->blk[d], as = step < 0 ? -step : step;
    ll last = lo + (m - 1) * step;
    if (m == 0) return DMSG_OK;
    if (P == 1) /* one owner, local index = global index */
        return own_push(out, 0, m, lo, step);
    ll lo_i = step > 0 ? lo : last, hi_i = step > 0 ? last : lo;
    ll blocks = (hi_i / k - lo_i / k) / P + 1;
    dmsg_status st = DMSG_OK;
    if (m <= blocks) { /* sparser than the blocks: per element is less work */
        for (ll t = 0; t < m && st == DMSG_OK; t++) {
            ll i = lo + t * step;
            if ((i / k) % P == c) st = own_push(out, t, 1, (i / (k * P)) * k + i % k, step);
        }
        return st;
    }
    ll b0 = lo / k;
    if (step > 0) {
        for (ll b = b0 + ((c - b0 % P) % P + P) % P; b * k <= last && st == DMSG_OK; b += P) {
            ll bs = b * k, be = bs + k - 1;
            ll tl = bs <= lo ? 0 : ceil_div(bs - lo, as), th = (be - lo) / as;
            if (th > m - 1) th = m - 1;
            if (tl <= th) {
                ll i = lo + tl * step;
                st = own_push(out, tl, th - tl + 1, (i / (k * P)) * k + i % k, step);
            }
        }
    } else {
        for (ll b = b0 - ((b0 % P - c) % P + P) % P;
             b >= 0 && b * k + k - 1 >= last && st == DMSG_OK; b -= P) {
            ll bs = b * k, be = bs + k - 1;
            ll tl = be >= lo ? 0 : ceil_div(lo - be, as), th = (lo - bs) / as;
            if (th > m - 1) th = m - 1;
            if (tl <= th) {
                ll i = lo + tl * step;
                st = own_push(out, tl, th - tl + 1, (i / (k * P)) * k + i % k, step);
            }
        }
    }
    return st;
}

/* Merges two sorted interval lists into their intersection. */
static dmsg_status intersect(const vec *A, ll sa, const vec *B, ll sb, vec *out)
{
    const own_iv *x = A->v, *y = B->v;
    size_t i = 0, j = 0;
    while (i < A->n && j < B->n) {
        ll t0 = x[i].t0 > y[j].t0 ? x[i].t0 : y[j].t0;
        ll ex = x[i].t0 + x[i].len, ey = y[j].t0 + y[j].len, t1 = ex < ey ? ex : ey;
        if (t0 < t1) {
            pair_iv *p = vec_push(out);
            if (p == NULL) return DMSG_FAIL(DMSG_ERR_NOMEM, "plan: out of memory");
            *p = (pair_iv){t0, t1 - t0, x[i].l0 + (t0 - x[i].t0) * sa,
                           y[j].l0 + (t0 - y[j].t0) * sb};
        }
        if (ex <= ey)
            i++;
        else
            j++;
    }
    return DMSG_OK;
}

/* Folds runs of equal intervals with constant offset deltas. */
static dmsg_status fold(const vec *iv, vec *out)
{
    const pair_iv *v = iv->v;
    size_t i = 0;
    while (i < iv->n) {
        fam f = {v[i].len, 1, v[i].la, v[i].lb, 0, 0};
        if (i + 1 < iv->n && v[i + 1].len == v[i].len) {
            f.dla = v[i + 1].la - v[i].la;
            f.dlb = v[i + 1].lb - v[i].lb;
            size_t j = i + 1;
            while (j < iv->n && v[j].len == f.len && v[j].la - v[j - 1].la == f.dla &&
                   v[j].lb - v[j - 1].lb == f.dlb)
                j++;
            f.reps = (ll)(j - i);
        }
        fam *p = vec_push(out);
        if (p == NULL) return DMSG_FAIL(DMSG_ERR_NOMEM, "plan: out of memory");
        *p = f;
        i += (size_t)f.reps;
    }
    return DMSG_OK;
}

/* One section dimension of a piece before it is cut to DMSG_MAX_DIMS. */
typedef struct pdim {
    ll count;
    ptrdiff_t sa, sb;
} pdim;

static dmsg_status emit(plan_pieces *out, size_t elem, size_t aoff, size_t boff, const pdim *dims,
                        int nd)
{
    /* Dimensions beyond DMSG_MAX_DIMS become separate pieces. */
    if (nd > DMSG_MAX_DIMS) {
        const pdim *top = &dims[nd - 1];
        for (ll r = 0; r < top->count; r++) {
            dmsg_status st = emit(out, elem, aoff + (size_t)(r * top->sa),
                                  boff + (size_t)(r * top->sb), dims, nd - 1);
            if (st != DMSG_OK) return st;
        }
        return DMSG_OK;
    }
    if (out->n == out->cap) {
        size_t cap = out->cap ? 2 * out->cap : 8;
        dmsg_piece *v = realloc(out->v, cap * sizeof *v);
        if (v == NULL) return DMSG_FAIL(DMSG_ERR_NOMEM, "plan: out of memory");
        out->v = v;
        out->cap = cap;
    }
    dmsg_piece *p = &out->v[out->n++];
    memset(p, 0, sizeof *p);
    p->src_off = aoff;
    p->dst_off = boff;
    p->elems = 1;
    for (int k = 0; k < nd; k++) {
        p->src.count[k] = p->dst.count[k] = (size_t)dims[k].count;
        p->src.stride[k] = dims[k].sa;
        p->dst.stride[k] = dims[k].sb;
        p->elems *= (size_t)dims[k].count;
    }
    p->src.ndims = p->dst.ndims = nd;
    if (nd == 0) { /* a single element */
        p->src.ndims = p->dst.ndims = 1;
        p->src.count[0] = p->dst.count[0] = 1;
        p->src.stride[0] = p->dst.stride[0] = (ptrdiff_t)elem;
    }
    return DMSG_OK;
}

void plan_pieces_free(plan_pieces *ps)
{
    free(ps->v);
    ps->v = NULL;
    ps->n = ps->cap = 0;
}

dmsg_status plan_pair_pieces(const dmsg_assign *as, int p, int q, plan_pieces *out)
{
    const dmsg_darray *A = as->src, *B = as->dst;
    int nb = B->desc.ndims, na = A->desc.ndims;
    if (plan_coord(A, p, 0) < 0 || plan_coord(B, q, 0) < 0)
        return DMSG_OK; /* p owns nothing of A or q nothing of B */
    size_t aoff = A->origin, boff = B->origin;
    int matched[DMSG_MAX_DIMS] = {0};
    /* Single-index dimensions: the owner must be p (q), the offset is fixed. */
    for (int d = 0; d < nb; d++) {
        if (as->perm[d] >= 0) {
            matched[as->perm[d]] = 1;
            continue;
        }
        size_t i = as->dsec.lo[d];
        if ((int)plan_owner_coord(B, d, i) != plan_coord(B, q, d)) return DMSG_OK;
        boff += plan_local_index(B, d, i) * (size_t)B->stride[d];
    }
    for (int d = 0; d < na; d++) {
        if (matched[d]) continue;
        size_t i = as->ssec.lo[d];
        if ((int)plan_owner_coord(A, d, i) != plan_coord(A, p, d)) return DMSG_OK;
        aoff += plan_local_index(A, d, i) * (size_t)A->stride[d];
    }
    /* Per matched dimension: the folded runs p sends q. */
    vec fams[DMSG_MAX_DIMS];
    int md[DMSG_MAX_DIMS], nm = 0;
    dmsg_status st = DMSG_OK;
    memset(fams, 0, sizeof fams);
    for (int d = 0; d < nb && st == DMSG_OK; d++) {
        int da = as->perm[d];
        if (da < 0) continue;
        ll m = (ll)plan_sec_count(as->dsec.lo[d], as->dsec.hi[d], as->dsec.step[d]);
        ll sa = as->ssec.step[da], sb = as->dsec.step[d];
        vec va = {NULL, 0, 0, sizeof(own_iv)}, vb = {NULL, 0, 0, sizeof(own_iv)};
        vec pv = {NULL, 0, 0, sizeof(pair_iv)};
        fams[nm] = (vec){NULL, 0, 0, sizeof(fam)};
        st = own_list(A, da, plan_coord(A, p, da), (ll)as->ssec.lo[da], sa, m, &va);
        if (st == DMSG_OK) st = own_list(B, d, plan_coord(B, q, d), (ll)as->dsec.lo[d], sb, m, &vb);
        if (st == DMSG_OK) st = intersect(&va, sa, &vb, sb, &pv);
        if (st == DMSG_OK) st = fold(&pv, &fams[nm]);
        free(va.v);
        free(vb.v);
        free(pv.v);
        md[nm++] = d;
    }
    int empty = 0;
    for (int i = 0; i < nm; i++)
        empty |= fams[i].n == 0;
    /* The cross product of the runs, dimension 0 fastest. */
    size_t at[DMSG_MAX_DIMS] = {0};
    while (st == DMSG_OK && !empty) {
        pdim dims[2 * DMSG_MAX_DIMS];
        int nd = 0;
        size_t ao = aoff, bo = boff;
        for (int i = 0; i < nm; i++) {
            const fam *f = (const fam *)fams[i].v + at[i];
            int d = md[i], da = as->perm[d];
            ptrdiff_t sta = A->stride[da], stb = B->stride[d];
            ao += (size_t)f->la * (size_t)sta;
            bo += (size_t)f->lb * (size_t)stb;
            if (f->len > 1)
                dims[nd++] = (pdim){f->len, (ptrdiff_t)as->ssec.step[da] * sta,
                                    (ptrdiff_t)as->dsec.step[d] * stb};
            if (f->reps > 1)
                dims[nd++] = (pdim){f->reps, (ptrdiff_t)f->dla * sta, (ptrdiff_t)f->dlb * stb};
        }
        st = emit(out, A->desc.elem_size, ao, bo, dims, nd);
        int i = 0;
        while (i < nm && ++at[i] == fams[i].n)
            at[i++] = 0;
        if (i == nm) break;
    }
    for (int i = 0; i < nm; i++)
        free(fams[i].v);
    return st;
}
