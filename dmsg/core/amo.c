/* Atomic entry points: every argument is checked before the transport sees
 * the operation, which reaches it as bits (dmsg_amo): floats and signedness
 * stay here. */
#include <string.h>
#include "dmsg/core/amo.h"
#include "dmsg/core/op.h"

size_t dmsg_type_size(dmsg_type t)
{
    switch (t) {
    case DMSG_TYPE_INT8:
    case DMSG_TYPE_UINT8: return 1;
    case DMSG_TYPE_INT16:
    case DMSG_TYPE_UINT16: return 2;
    case DMSG_TYPE_INT32:
    case DMSG_TYPE_UINT32:
    case DMSG_TYPE_FLOAT: return 4;
    case DMSG_TYPE_INT64:
    case DMSG_TYPE_UINT64:
    case DMSG_TYPE_DOUBLE: return 8;
    case DMSG_TYPE_LONG_DOUBLE: return sizeof(long double);
    case DMSG_TYPE_FLOAT_COMPLEX: return 2 * sizeof(float);
    case DMSG_TYPE_DOUBLE_COMPLEX: return 2 * sizeof(double);
    }
    return 0;
}

int dmsg_amo_fetches(int op)
{
    switch (op) {
    case DMSG_AMO_FETCH:
    case DMSG_AMO_SWAP:
    case DMSG_AMO_CSWAP:
    case DMSG_AMO_FETCH_ADD:
    case DMSG_AMO_FETCH_AND:
    case DMSG_AMO_FETCH_OR:
    case DMSG_AMO_FETCH_XOR: return 1;
    }
    return 0;
}

/* The word size of a (type, op) pair, or 0 when the pair is not allowed. */
static int amo_size(dmsg_amo_op op, dmsg_type type)
{
    if (op < DMSG_AMO_FETCH || op > DMSG_AMO_FETCH_XOR)
        return 0;
    switch (type) {
    case DMSG_TYPE_INT32:
    case DMSG_TYPE_UINT32: return 4;
    case DMSG_TYPE_INT64:
    case DMSG_TYPE_UINT64: return 8;
    case DMSG_TYPE_FLOAT:
    case DMSG_TYPE_DOUBLE:
        /* Arithmetic and bitwise ops on floats have no one meaning across
         * transports (provider atomics differ): moving bits is all. */
        if (op != DMSG_AMO_FETCH && op != DMSG_AMO_SET && op != DMSG_AMO_SWAP)
            return 0;
        return type == DMSG_TYPE_FLOAT ? 4 : 8;
    default: return 0;
    }
}

dmsg_status dmsg_word_check(const void *p, size_t size, size_t *off)
{
    dmsg_status st = dmsg_sym_range(p, size, off);
    if (!st)
        st = dmsg_heap_bound(*off, *off + size);
    if (!st && *off % size != 0)
        return DMSG_FAIL(DMSG_ERR_ALIGN, "word at segment offset %zu is not %zu-byte aligned",
                         *off, size);
    return st;
}

/* Checks everything and fills *a; nothing is done. */
static dmsg_status amo_check(void *dst, dmsg_amo_op op, dmsg_type type, const void *operand,
                             const void *compare, const void *result, int pe, dmsg_amo *a)
{
    int size = amo_size(op, type);
    if (!size)
        return DMSG_FAIL(DMSG_ERR_ARG, "atomic op %d on type %d is not allowed", (int)op,
                         (int)type);
    if (!dst)
        return DMSG_FAIL(DMSG_ERR_NULL, "atomic: dst is NULL");
    if (op != DMSG_AMO_FETCH && !operand)
        return DMSG_FAIL(DMSG_ERR_NULL, "atomic: operand is NULL");
    if (op == DMSG_AMO_CSWAP && !compare)
        return DMSG_FAIL(DMSG_ERR_NULL, "atomic: compare is NULL");
    if (dmsg_amo_fetches(op) && !result)
        return DMSG_FAIL(DMSG_ERR_NULL, "atomic: result is NULL for a fetching op");
    dmsg_status st = dmsg_check_pe(pe);
    size_t off;
    if (!st)
        st = dmsg_word_check(dst, (size_t)size, &off);
    if (st)
        return st;
    *a = (dmsg_amo){.op = op, .size = size, .pe = pe, .roff = off};
    if (op != DMSG_AMO_FETCH)
        memcpy(&a->operand, operand, (size_t)size); /* little or big endian: the low bytes */
    if (op == DMSG_AMO_CSWAP)
        memcpy(&a->compare, compare, (size_t)size);
    return DMSG_OK;
}

dmsg_status dmsg_amo_supported(const dmsg_tp_ops *ops, int size)
{
    unsigned cap = size == 4 ? DMSG_TP_CAP_AMO4 : size == 8 ? DMSG_TP_CAP_AMO8 : 0;
    if (!cap || !(ops->caps & cap) || !ops->amo)
        return DMSG_FAIL(DMSG_ERR_UNSUPPORTED, "transport %s has no %d-byte atomics", ops->name,
                         size);
    return DMSG_OK;
}

int dmsg_atomic(void *dst, dmsg_amo_op op, dmsg_type type, const void *operand,
                const void *compare, void *result, int pe)
{
    DMSG_REQUIRE_INIT();
    dmsg_amo a;
    dmsg_status st = amo_check(dst, op, type, operand, compare, result, pe, &a);
    if (st)
        return st;
    dmsg_tp *tp = &dmsg_g.tp;
    if ((st = dmsg_amo_supported(tp->ops, a.size)))
        return st;
    /* The transport writes a word of ours: result is touched only on success. */
    uint64_t old = 0;
    dmsg_wait_enter(DMSG_WAIT_ATOMIC);
    st = tp->ops->amo(tp, &a, DMSG_AMO_BLOCKING, dmsg_amo_fetches(op) ? &old : NULL, NULL);
    dmsg_wait_leave();
    if (!st && dmsg_amo_fetches(op))
        memcpy(result, &old, (size_t)a.size);
    return st;
}

int dmsg_atomic_nb(void *dst, dmsg_amo_op op, dmsg_type type, const void *operand,
                   const void *compare, void *result, int pe, dmsg_req *req)
{
    DMSG_REQUIRE_INIT();
    dmsg_amo a;
    dmsg_status st = amo_check(dst, op, type, operand, compare, result, pe, &a);
    if (st)
        return st;
    if (!req && dmsg_amo_fetches(op))
        return DMSG_FAIL(DMSG_ERR_NULL, "dmsg_atomic_nb: a fetching op needs a request");
    dmsg_tp *tp = &dmsg_g.tp;
    if ((st = dmsg_amo_supported(tp->ops, a.size)))
        return st;
    if (!req)
        return tp->ops->amo(tp, &a, DMSG_AMO_NB_QUIET, NULL, NULL);
    uint32_t id;
    if ((st = dmsg_req_open(req, &id)))
        return st;
    if ((st = tp->ops->amo(tp, &a, DMSG_AMO_NB_REQ, dmsg_amo_fetches(op) ? result : NULL, req))) {
        dmsg_reqset_remove(&dmsg_g.reqs, id);
        return st; /* not started: the handle stays unused */
    }
    dmsg_req_started(req, id, pe);
    return DMSG_OK;
}
