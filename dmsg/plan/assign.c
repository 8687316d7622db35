/* Array assignments: building, checking, and the pure per-pair query that
 * plans and code generators share. */
#include <stdlib.h>
#include <string.h>
#include "dmsg/plan/plan_impl.h"

void dmsg_section_whole(const dmsg_darray *a, dmsg_section *s)
{
    if (a == NULL || s == NULL) return;
    memset(s, 0, sizeof *s);
    for (int d = 0; d < a->desc.ndims; d++) {
        s->hi[d] = a->desc.extent[d] - 1;
        s->step[d] = 1;
    }
}

int dmsg_assign_init(dmsg_assign *as, const dmsg_darray *dst, const dmsg_darray *src)
{
    if (as == NULL || dst == NULL || src == NULL)
        return DMSG_FAIL(DMSG_ERR_NULL, "assign_init: NULL argument");
    dmsg_assign t;
    memset(&t, 0, sizeof t);
    t.dst = dst;
    t.src = src;
    dmsg_section_whole(dst, &t.dsec);
    dmsg_section_whole(src, &t.ssec);
    for (int d = 0; d < DMSG_MAX_DIMS; d++)
        t.perm[d] = d < dst->desc.ndims && d < src->desc.ndims ? d : -1;
    *as = t;
    return DMSG_OK;
}

/* Indices of a section must lie in the array; its length goes to cnt. */
static dmsg_status check_section(const dmsg_darray *a, const dmsg_section *s, const char *side,
                                 size_t *cnt)
{
    for (int d = 0; d < a->desc.ndims; d++) {
        if (s->step[d] == 0)
            return DMSG_FAIL(DMSG_ERR_ARG, "assign: %s step of dimension %d is 0", side, d);
        cnt[d] = dmsg_plan_sec_count(s->lo[d], s->hi[d], s->step[d]);
        if (cnt[d] == 0) continue;
        size_t n = a->desc.extent[d], lo = s->lo[d],
               as = (size_t)(s->step[d] < 0 ? -s->step[d] : s->step[d]);
        /* The last index visited; lo and it bound the section. */
        size_t last = s->step[d] > 0 ? lo + (cnt[d] - 1) * as : lo - (cnt[d] - 1) * as;
        if (lo >= n || last >= n)
            return DMSG_FAIL(DMSG_ERR_RANGE,
                             "assign: %s section %zu:%zu:%td of dimension %d "
                             "outside 0..%zu",
                             side, lo, s->hi[d], s->step[d], d, n - 1);
    }
    return DMSG_OK;
}

int dmsg_assign_check(const dmsg_assign *as, int npes)
{
    if (as == NULL || as->dst == NULL || as->src == NULL)
        return DMSG_FAIL(DMSG_ERR_NULL, "assign: NULL assignment or array");
    const dmsg_darray *A = as->src, *B = as->dst;
    if (A->desc.elem_size != B->desc.elem_size)
        return DMSG_FAIL(DMSG_ERR_ARG, "assign: element sizes %zu and %zu differ",
                         A->desc.elem_size, B->desc.elem_size);
    if (A->grid_pes > npes || B->grid_pes > npes)
        return DMSG_FAIL(DMSG_ERR_PE, "assign: grids of %d and %d PEs, job of %d", A->grid_pes,
                         B->grid_pes, npes);
    size_t ca[DMSG_MAX_DIMS], cb[DMSG_MAX_DIMS];
    dmsg_status st = check_section(A, &as->ssec, "source", ca);
    if (st == DMSG_OK) st = check_section(B, &as->dsec, "destination", cb);
    if (st != DMSG_OK) return st;
    int seen[DMSG_MAX_DIMS] = {0};
    for (int d = 0; d < B->desc.ndims; d++) {
        int da = as->perm[d];
        if (da < -1 || da >= A->desc.ndims || (da >= 0 && seen[da]++))
            return DMSG_FAIL(DMSG_ERR_ARG,
                             "assign: perm[%d] = %d is not a free source "
                             "dimension",
                             d, da);
        if (da >= 0 && ca[da] != cb[d])
            return DMSG_FAIL(DMSG_ERR_ARG,
                             "assign: destination dimension %d has %zu elements, "
                             "source dimension %d has %zu",
                             d, cb[d], da, ca[da]);
        if (da < 0 && cb[d] != 1)
            return DMSG_FAIL(DMSG_ERR_ARG,
                             "assign: unmatched destination dimension %d has %zu "
                             "elements, not 1",
                             d, cb[d]);
    }
    for (int d = 0; d < A->desc.ndims; d++)
        if (!seen[d] && ca[d] != 1)
            return DMSG_FAIL(DMSG_ERR_ARG,
                             "assign: unmatched source dimension %d has %zu "
                             "elements, not 1",
                             d, ca[d]);
    return DMSG_OK;
}

int dmsg_assign_pieces(const dmsg_assign *as, int npes, int p, int q, dmsg_piece *out, size_t cap,
                       size_t *n)
{
    if (n == NULL || (out == NULL && cap > 0))
        return DMSG_FAIL(DMSG_ERR_NULL, "assign_pieces: NULL argument");
    dmsg_status st = dmsg_assign_check(as, npes);
    if (st != DMSG_OK) return st;
    if (p < 0 || p >= npes || q < 0 || q >= npes)
        return DMSG_FAIL(DMSG_ERR_PE, "assign_pieces: PEs %d, %d not in 0..%d", p, q, npes - 1);
    plan_pieces ps = {NULL, 0, 0};
    st = dmsg_plan_pair_pieces(as, p, q, &ps);
    if (st == DMSG_OK) {
        if (cap > 0 && ps.n > 0) /* out may be NULL when only counting */
            memcpy(out, ps.v, (ps.n < cap ? ps.n : cap) * sizeof *out);
        *n = ps.n;
    }
    dmsg_plan_pieces_free(&ps);
    return st;
}

/* FNV-1a, fed field by field (never struct padding). */
static uint64_t fnv(uint64_t h, const void *p, size_t len)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < len; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

#define HASH(h, x) ((h) = fnv((h), &(x), sizeof(x)))

static uint64_t hash_darray(uint64_t h, const dmsg_darray *a)
{
    const dmsg_darray_desc *d = &a->desc;
    HASH(h, d->ndims);
    HASH(h, d->extent);
    HASH(h, d->elem_size);
    HASH(h, d->grid_ndims);
    HASH(h, d->grid);
    HASH(h, d->dist);
    HASH(h, d->block);
    HASH(h, d->onto);
    HASH(h, d->halo_lo);
    HASH(h, d->halo_hi);
    HASH(h, d->pad);
    return h;
}

uint64_t dmsg_plan_hash_assign(const dmsg_assign *as, int mech, const char *machine)
{
    uint64_t h = 14695981039346656037ull;
    h = hash_darray(h, as->dst);
    h = hash_darray(h, as->src);
    for (int d = 0; d < as->dst->desc.ndims; d++) {
        HASH(h, as->dsec.lo[d]);
        HASH(h, as->dsec.hi[d]);
        HASH(h, as->dsec.step[d]);
        HASH(h, as->perm[d]);
    }
    for (int d = 0; d < as->src->desc.ndims; d++) {
        HASH(h, as->ssec.lo[d]);
        HASH(h, as->ssec.hi[d]);
        HASH(h, as->ssec.step[d]);
    }
    HASH(h, mech);
    if (machine != NULL) h = fnv(h, machine, strlen(machine));
    return h;
}
