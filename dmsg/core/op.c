/* Checking a described transfer before a transport sees it. */
#include <string.h>
#include "dmsg/core/op.h"

static dmsg_status mul_size(size_t a, size_t b, size_t *out)
{
    if (__builtin_mul_overflow(a, b, out))
        return DMSG_FAIL(DMSG_ERR_OVERFLOW, "%zu elements of %zu bytes overflow", a, b);
    return DMSG_OK;
}

/* The remote bytes [lo, hi) of a transfer (segment offsets, already inside
 * the segment) must not reach past the highest allocated block: memory
 * there was freed (and not handed out again) or never allocated. Holes
 * below it are not seen here (DMSG_CHECK=1 reports them). */
dmsg_status dmsg_heap_bound(uint64_t lo, uint64_t hi)
{
    if (hi > dmsg_g.heap.top)
        return DMSG_FAIL(DMSG_ERR_RANGE,
                         "segment offsets %#llx..%#llx pass the end of the allocated blocks "
                         "(%#llx): freed by dmsg_free, or never allocated",
                         (unsigned long long)lo, (unsigned long long)hi,
                         (unsigned long long)dmsg_g.heap.top);
    return DMSG_OK;
}

static dmsg_status check_section(dmsg_op *op)
{
    size_t rn, ln;
    dmsg_extent rext, lext;
    dmsg_status st;
    if (!op->rl || !op->ll)
        return DMSG_FAIL(DMSG_ERR_NULL, "section layout is NULL");
    if ((st = dmsg_layout_check(op->rl, op->elem, &rn, &rext)) ||
        (st = dmsg_layout_check(op->ll, op->elem, &ln, &lext)))
        return st;
    if (rn != ln)
        return DMSG_FAIL(DMSG_ERR_ARG, "section sides hold %zu and %zu elements", rn, ln);
    /* The written side must not store two elements to one place. */
    st = dmsg_layout_check_disjoint(op->dir == DMSG_DIR_PUT ? op->rl : op->ll, op->elem);
    if (st)
        return st;
    op->n = rn;
    if ((st = mul_size(rn, op->elem, &op->payload)))
        return st;
    if ((st = dmsg_sym_extent(op->remote, rext, &op->roff)))
        return st;
    return dmsg_heap_bound(op->roff + (uint64_t)rext.lo, op->roff + (uint64_t)rext.hi);
}

static dmsg_status check_indexed(dmsg_op *op)
{
    dmsg_status st;
    size_t bytes, span;
    if (!op->idx)
        return DMSG_FAIL(DMSG_ERR_NULL, "index array is NULL");
    if ((st = mul_size(op->n, op->elem, &bytes)))
        return st;
    op->payload = bytes;
    if (op->kind == DMSG_OP_LOCAL_INDEXED) {
        if ((st = dmsg_sym_range(op->remote, bytes, &op->roff)))
            return st;
        return dmsg_heap_bound(op->roff, op->roff + bytes);
    }
    if (op->n == 0) {
        if ((st = dmsg_sym_range(op->remote, 0, &op->roff)))
            return st;
        return dmsg_heap_bound(op->roff, op->roff);
    }
    size_t imax = dmsg_index_max(op->idx, op->n);
    if (imax == SIZE_MAX || (st = mul_size(imax + 1, op->elem, &span)))
        return DMSG_FAIL(DMSG_ERR_RANGE, "index %zu leaves the segment", imax);
    if ((st = dmsg_sym_range(op->remote, span, &op->roff)))
        return st == DMSG_ERR_RANGE ? DMSG_FAIL(st, "index %zu leaves the segment", imax) : st;
    return dmsg_heap_bound(op->roff, op->roff + span);
}

static dmsg_status check_adp(dmsg_op *op)
{
    dmsg_status st;
    if (dmsg_adp_record_size(op->elem) == 0)
        return DMSG_FAIL(DMSG_ERR_ARG, "address-data element size %zu (4, 8 or 16)", op->elem);
    if ((st = mul_size(op->n, op->elem, &op->payload)))
        return st;
    if ((st = dmsg_sym_range(op->remote, 0, &op->roff)) ||
        (st = dmsg_heap_bound(op->roff, op->roff)))
        return st;
    return dmsg_adp_check(op->local, op->n, op->elem, dmsg_g.heap.top - op->roff);
}

/* A periodic pattern (the plan layer's): deposits only; the destination's
 * extent inside the segment. */
static dmsg_status check_periodic(dmsg_op *op)
{
    dmsg_extent sext, dext;
    dmsg_status st;
    if (op->dir != DMSG_DIR_PUT)
        return DMSG_FAIL(DMSG_ERR_ARG, "a periodic pattern is deposited, not fetched");
    if ((st = dmsg_periodic_check((dmsg_periodic *)op->per, &sext, &dext)))
        return st;
    op->n = (size_t)op->per->pieces;
    op->payload = op->per->bytes;
    if ((st = dmsg_sym_extent(op->remote, dext, &op->roff)))
        return st;
    return dmsg_heap_bound(op->roff + (uint64_t)dext.lo, op->roff + (uint64_t)dext.hi);
}

static dmsg_status check_contig(dmsg_op *op)
{
    dmsg_status st;
    op->payload = op->n;
    if ((st = dmsg_sym_range(op->remote, op->n, &op->roff)))
        return st;
    return dmsg_heap_bound(op->roff, op->roff + op->n);
}

static dmsg_status check_remote_indexed(dmsg_op *op)
{
    return check_indexed(op);
}

static dmsg_status check_local_indexed(dmsg_op *op)
{
    return check_indexed(op);
}

/* The core's row of each transfer kind (DMSG_OP_KIND_LIST): its argument
 * check, which fills roff and payload and proves every remote byte inside
 * the target's heap. The checker keeps its own row (checker.c). */
typedef struct core_kind {
    dmsg_status (*check)(dmsg_op *op);
} core_kind;

static const core_kind core_kinds[] = {
#define CORE_ROW_(K, k) [DMSG_OP_##K] = {check_##k},
    DMSG_OP_KIND_LIST(CORE_ROW_)
#undef CORE_ROW_
};
DMSG_OP_TABLE_CHECK(core_kinds);

dmsg_status dmsg_op_check(dmsg_op *op)
{
    dmsg_status st;
    if ((st = dmsg_check_pe(op->pe)))
        return st;
    if (!op->remote || !op->local)
        return DMSG_FAIL(DMSG_ERR_NULL, "%s buffer is NULL", op->remote ? "local" : "remote");
    if (op->elem == 0)
        return DMSG_FAIL(DMSG_ERR_ARG, "element size 0");
    if ((unsigned)op->kind >= DMSG_OP_KINDS)
        return DMSG_FAIL(DMSG_ERR_ARG, "unknown transfer kind %d", (int)op->kind);
    return core_kinds[op->kind].check(op);
}
