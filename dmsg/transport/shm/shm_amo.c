/* Atomics, signals and point-to-point waits in shared memory. Every PE maps
 * every segment, so an atomic is one CPU atomic instruction on the target's
 * word (seq_cst: atomic with respect to every other PE's, and ordered after
 * this PE's earlier deposits, which are complete when their copy returns),
 * followed by a ring of the target's doorbell for a sleeping wait. */
#include "dmsg/transport/shm/shm.h"

#define AMO_APPLY(T, p, a)                                                                      \
    do {                                                                                        \
        T *w_ = (T *)(p), op_ = (T)(a)->operand, old_;                                          \
        switch ((a)->op) {                                                                      \
        case DMSG_AMO_FETCH: return __atomic_load_n(w_, __ATOMIC_SEQ_CST);                      \
        case DMSG_AMO_SET: __atomic_store_n(w_, op_, __ATOMIC_SEQ_CST); return 0;               \
        case DMSG_AMO_SWAP: return __atomic_exchange_n(w_, op_, __ATOMIC_SEQ_CST);              \
        case DMSG_AMO_CSWAP:                                                                    \
            old_ = (T)(a)->compare;                                                             \
            __atomic_compare_exchange_n(w_, &old_, op_, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
            return old_;                                                                        \
        case DMSG_AMO_ADD:                                                                      \
        case DMSG_AMO_FETCH_ADD: return __atomic_fetch_add(w_, op_, __ATOMIC_SEQ_CST);          \
        case DMSG_AMO_AND:                                                                      \
        case DMSG_AMO_FETCH_AND: return __atomic_fetch_and(w_, op_, __ATOMIC_SEQ_CST);          \
        case DMSG_AMO_OR:                                                                       \
        case DMSG_AMO_FETCH_OR: return __atomic_fetch_or(w_, op_, __ATOMIC_SEQ_CST);            \
        case DMSG_AMO_XOR:                                                                      \
        case DMSG_AMO_FETCH_XOR: return __atomic_fetch_xor(w_, op_, __ATOMIC_SEQ_CST);          \
        }                                                                                       \
        return 0;                                                                               \
    } while (0)

static uint64_t apply32(void *p, const dmsg_amo *a)
{
    AMO_APPLY(uint32_t, p, a);
}

static uint64_t apply64(void *p, const dmsg_amo *a)
{
    AMO_APPLY(uint64_t, p, a);
}

uint64_t dmsg_shm_amo_apply(shm_state *s, const dmsg_amo *a)
{
    void *p = s->seg[a->pe] + a->roff;
    return a->size == 4 ? apply32(p, a) : apply64(p, a);
}

/* Complete inside the call in every mode: a request is born finished
 * (dmsg_shm_req_test reports it done), its result already written. */
dmsg_status dmsg_shm_amo(dmsg_tp *tp, const dmsg_amo *a, int mode, void *result, dmsg_req *req)
{
    shm_state *s = tp->priv;
    uint64_t old = dmsg_shm_amo_apply(s, a);
    if (result) {
        if (a->size == 4) {
            uint32_t o32 = (uint32_t)old;
            __builtin_memcpy(result, &o32, 4);
        } else {
            __builtin_memcpy(result, &old, 8);
        }
    }
    shm_ring_after_rmw(s, a->pe); /* every op on the word is seq_cst */
    return DMSG_OK;
}

dmsg_status dmsg_shm_signal(dmsg_tp *tp, int pe, size_t roff, uint64_t value, int add)
{
    shm_state *s = tp->priv;
    uint64_t *w = (uint64_t *)(s->seg[pe] + roff);
    /* Release (seq_cst) after the deposits' copies: a PE that acquires the
     * new value sees their data. */
    if (add)
        __atomic_fetch_add(w, value, __ATOMIC_SEQ_CST);
    else
        __atomic_store_n(w, value, __ATOMIC_SEQ_CST);
    shm_ring(s, pe);
    return DMSG_OK;
}

/* Nothing needs progress here (writers do their own work), so a test
 * returns at once; a wait spins, yields when PEs outnumber cores, then
 * sleeps on the doorbell, which every change to this PE's words rings. */
dmsg_status dmsg_shm_word_wait(dmsg_tp *tp, dmsg_tp_ready_fn ready, const void *arg, int once)
{
    shm_state *s = tp->priv;
    if (once)
        return DMSG_OK;
    shm_bell *b = shm_bell_at(s, tp->rank);
    return dmsg_shm_wait(s, ready, arg, &b->seq, &b->sleepers);
}
