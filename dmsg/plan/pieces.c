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
 * dimension, not one per block. Where both sides' ownership repeats with a
 * period T in t (lcm of k*P / gcd(k*P, |step|) of both sides) and the section
 * spans at least three periods, only two periods are walked: each interval
 * of one period becomes a run repeated once per period (one more section
 * dimension), so CYCLIC(a) -> CYCLIC(b) costs pieces per period, not per
 * block, and the work is per period. A piece is one choice of folded run
 * per dimension: the cross product. Otherwise work is per block touched,
 * never per element, except where a section strides over more blocks than
 * it has elements (then per element, which is fewer). */
#include <stdlib.h>
#include <string.h>
#include "dmsg/plan/plan_impl.h"

typedef long long ll;

size_t dmsg_plan_sec_count(size_t lo, size_t hi, ptrdiff_t step)
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
 * la + r*dla and lb + r*dlb; and that whole run preps times, the j-th
 * shifted by j*pdla and j*pdlb (one period of a periodic pattern: preps 1
 * elsewhere). */
typedef struct fam {
    ll len, reps, la, lb, dla, dlb;
    ll preps, pdla, pdlb;
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
        fam f = {v[i].len, 1, v[i].la, v[i].lb, 0, 0, 1, 0, 0};
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

static ll gcd_ll(ll a, ll b)
{
    while (b != 0) {
        ll t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* The period in t of who owns lo + t*step along dimension d of a, and at
 * which local index: after it the index has moved by a multiple of k*P, so
 * the same coordinate owns it and its local index has moved by
 * period*step/P. 1 where one coordinate owns the whole dimension. */
static ll own_period(const dmsg_darray *a, int d, ll step)
{
    ll P = a->procs[d];
    if (P == 1) return 1;
    ll kp = (ll)a->blk[d] * P, as = step < 0 ? -step : step;
    return kp / gcd_ll(kp, as);
}

/* One side of a matched dimension: the array, its dimension, the owning
 * coordinate, the section's first index and step. */
typedef struct side {
    const dmsg_darray *a;
    int d;
    ll c, lo, step;
} side;

/* The intersection of what both sides own for t in [0, m). */
static dmsg_status pair_list(const side *x, const side *y, ll m, vec *pv)
{
    vec va = {NULL, 0, 0, sizeof(own_iv)}, vb = {NULL, 0, 0, sizeof(own_iv)};
    dmsg_status st = own_list(x->a, x->d, x->c, x->lo, x->step, m, &va);
    if (st == DMSG_OK) st = own_list(y->a, y->d, y->c, y->lo, y->step, m, &vb);
    if (st == DMSG_OK) st = intersect(&va, x->step, &vb, y->step, pv);
    free(va.v);
    free(vb.v);
    return st;
}

static dmsg_status push_pair(vec *x, pair_iv iv)
{
    pair_iv *p = vec_push(x);
    if (p == NULL) return DMSG_FAIL(DMSG_ERR_NOMEM, "plan: out of memory");
    *p = iv;
    return DMSG_OK;
}

/* The folded runs of a pattern that repeats every T values of t, from its
 * intervals pv over t in [0, 2T) (m >= 3T): the intervals of the infinite
 * pattern are those of pv shifted by multiples of T (local indices by pda
 * and pdb per period). Cut at c, the first start of an interval in [0, T),
 * the section is a head before c (at most the rest of an interval begun
 * before t = 0), R whole periods, each holding the same K intervals, and a
 * tail (the first intervals of period R, the last cut at m). Every interval
 * of a period becomes one run repeated R times (R + 1 where its copy in the
 * tail is whole), equal neighbours folded as fold() does: so the runs depend
 * on the period, not on m. *done 0: pv does not have that shape (the pattern
 * covers everything, or an interval is longer than T); the caller then
 * walks the whole section. */
static dmsg_status fold_periodic(const vec *pv, ll T, ll m, ll pda, ll pdb, vec *out, int *done)
{
    const pair_iv *v = pv->v;
    size_t n = pv->n, first = n;
    *done = 0;
    if (n == 0) { /* nothing in a whole period: nothing at all */
        *done = 1;
        return DMSG_OK;
    }
    for (size_t i = 0; i < n && first == n; i++)
        if (v[i].t0 >= T) first = i;
    if (first == n) return DMSG_OK;
    ll c = v[first].t0 - T, R = (m - c) / T;
    size_t b0 = 0, b1;
    while (v[b0].t0 < c)
        b0++;
    for (b1 = b0; b1 < n && v[b1].t0 < c + T; b1++)
        if (v[b1].t0 + v[b1].len > c + T) return DMSG_OK;
    vec head = {NULL, 0, 0, sizeof(pair_iv)}, tail = {NULL, 0, 0, sizeof(pair_iv)};
    dmsg_status st = DMSG_OK;
    for (size_t i = 0; i < b0 && st == DMSG_OK; i++)
        st = push_pair(&head, v[i]);
    if (st == DMSG_OK) st = fold(&head, out);
    /* Periods per interval: R, or R + 1 where the tail holds it whole. */
    for (size_t i = b0; i < b1 && st == DMSG_OK; i++) {
        ll s = v[i].t0 + R * T;
        if (s < m && s + v[i].len > m)
            st = push_pair(&tail, (pair_iv){s, m - s, v[i].la + R * pda, v[i].lb + R * pdb});
    }
#define PERIODS(i) (R + (v[i].t0 + R * T + v[i].len <= m))
    for (size_t i = b0; i < b1 && st == DMSG_OK;) {
        fam f = {v[i].len, 1, v[i].la, v[i].lb, 0, 0, PERIODS(i), pda, pdb};
        size_t j = i + 1;
        if (j < b1 && v[j].len == f.len && PERIODS(j) == f.preps) {
            f.dla = v[j].la - v[i].la;
            f.dlb = v[j].lb - v[i].lb;
            while (j < b1 && v[j].len == f.len && PERIODS(j) == f.preps &&
                   v[j].la - v[j - 1].la == f.dla && v[j].lb - v[j - 1].lb == f.dlb)
                j++;
            f.reps = (ll)(j - i);
        }
#undef PERIODS
        fam *p = vec_push(out);
        if (p == NULL) {
            st = DMSG_FAIL(DMSG_ERR_NOMEM, "plan: out of memory");
            break;
        }
        *p = f;
        i = j;
    }
    if (st == DMSG_OK) st = fold(&tail, out);
    free(head.v);
    free(tail.v);
    *done = st == DMSG_OK;
    return st;
}

/* The period of a matched dimension's pattern, 0 where there is none
 * within a third of the section (then the whole section is walked). */
static ll dim_period(const side *x, const side *y, ll m)
{
    ll ta = own_period(x->a, x->d, x->step), tb = own_period(y->a, y->d, y->step);
    ll g = gcd_ll(ta, tb), T = ta / g <= m / tb ? ta / g * tb : m; /* lcm, or too long */
    return m > 0 && T <= m / 3 ? T : 0;
}

size_t dmsg_plan_dim_period(const dmsg_assign *as, int d)
{
    int da = as->perm[d];
    if (da < 0) return 0;
    ll m = (ll)dmsg_plan_sec_count(as->dsec.lo[d], as->dsec.hi[d], as->dsec.step[d]);
    side x = {as->src, da, 0, (ll)as->ssec.lo[da], as->ssec.step[da]};
    side y = {as->dst, d, 0, (ll)as->dsec.lo[d], as->dsec.step[d]};
    return (size_t)dim_period(&x, &y, m);
}

/* The folded runs of one matched dimension for t in [0, m). Where both
 * sides' patterns repeat within a third of the section, one period is
 * walked (time and memory per period); else the whole section. */
static dmsg_status dim_fams(const side *x, const side *y, ll m, vec *out)
{
    vec pv = {NULL, 0, 0, sizeof(pair_iv)};
    ll T = dim_period(x, y, m);
    dmsg_status st = DMSG_OK;
    int done = 0;
    if (T > 0) {
        st = pair_list(x, y, 2 * T, &pv);
        size_t before = out->n;
        if (st == DMSG_OK)
            st = fold_periodic(&pv, T, m, T * x->step / x->a->procs[x->d],
                               T * y->step / y->a->procs[y->d], out, &done);
        if (!done) out->n = before;
        pv.n = 0;
    }
    if (st == DMSG_OK && !done) st = pair_list(x, y, m, &pv);
    if (st == DMSG_OK && !done) st = fold(&pv, out);
    free(pv.v);
    return st;
}

/* One section dimension of a piece before it is cut to DMSG_MAX_DIMS. */
typedef struct pdim {
    ll count;
    ptrdiff_t sa, sb;
} pdim;

static dmsg_status emit(plan_pieces *out, size_t elem, size_t aoff, size_t boff, const pdim *dims,
                        int nd)
{
    /* Dimensions beyond DMSG_MAX_DIMS become separate pieces: the one with
     * the fewest elements (the outermost of equals) is cut, so that a
     * periodic run's long repeat stays a dimension. */
    if (nd > DMSG_MAX_DIMS) {
        int cut = nd - 1;
        for (int k = nd - 2; k >= 0; k--)
            if (dims[k].count < dims[cut].count) cut = k;
        pdim rest[3 * DMSG_MAX_DIMS];
        for (int k = 0, j = 0; k < nd; k++)
            if (k != cut) rest[j++] = dims[k];
        for (ll r = 0; r < dims[cut].count; r++) {
            dmsg_status st = emit(out, elem, aoff + (size_t)(r * dims[cut].sa),
                                  boff + (size_t)(r * dims[cut].sb), rest, nd - 1);
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

void dmsg_plan_pieces_free(plan_pieces *ps)
{
    free(ps->v);
    ps->v = NULL;
    ps->n = ps->cap = 0;
}

dmsg_status dmsg_plan_pair_pieces(const dmsg_assign *as, int p, int q, plan_pieces *out)
{
    const dmsg_darray *A = as->src, *B = as->dst;
    int nb = B->desc.ndims, na = A->desc.ndims;
    if (dmsg_plan_coord(A, p, 0) < 0 || dmsg_plan_coord(B, q, 0) < 0)
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
        if ((int)dmsg_plan_owner_coord(B, d, i) != dmsg_plan_coord(B, q, d)) return DMSG_OK;
        boff += dmsg_plan_local_index(B, d, i) * (size_t)B->stride[d];
    }
    for (int d = 0; d < na; d++) {
        if (matched[d]) continue;
        size_t i = as->ssec.lo[d];
        if ((int)dmsg_plan_owner_coord(A, d, i) != dmsg_plan_coord(A, p, d)) return DMSG_OK;
        aoff += dmsg_plan_local_index(A, d, i) * (size_t)A->stride[d];
    }
    /* Per matched dimension: the folded runs p sends q. */
    vec fams[DMSG_MAX_DIMS];
    int md[DMSG_MAX_DIMS], nm = 0;
    dmsg_status st = DMSG_OK;
    memset(fams, 0, sizeof fams);
    for (int d = 0; d < nb && st == DMSG_OK; d++) {
        int da = as->perm[d];
        if (da < 0) continue;
        ll m = (ll)dmsg_plan_sec_count(as->dsec.lo[d], as->dsec.hi[d], as->dsec.step[d]);
        side x = {A, da, dmsg_plan_coord(A, p, da), (ll)as->ssec.lo[da], as->ssec.step[da]};
        side y = {B, d, dmsg_plan_coord(B, q, d), (ll)as->dsec.lo[d], as->dsec.step[d]};
        fams[nm] = (vec){NULL, 0, 0, sizeof(fam)};
        st = dim_fams(&x, &y, m, &fams[nm]);
        md[nm++] = d;
    }
    int empty = 0;
    for (int i = 0; i < nm; i++)
        empty |= fams[i].n == 0;
    /* The cross product of the runs, dimension 0 fastest. */
    size_t at[DMSG_MAX_DIMS] = {0};
    while (st == DMSG_OK && !empty) {
        pdim dims[3 * DMSG_MAX_DIMS];
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
            if (f->preps > 1)
                dims[nd++] = (pdim){f->preps, (ptrdiff_t)f->pdla * sta, (ptrdiff_t)f->pdlb * stb};
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
