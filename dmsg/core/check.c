/* Argument checks shared by every entry point. Pointer arithmetic is done on
 * uintptr_t so that out-of-segment pointers are compared, never formed. */
#include <stdlib.h>
#include <string.h>
#include "dmsg/core/checker.h"
#include "dmsg/core/state.h"

dmsg_status dmsg_check_pe(int pe)
{
    if (pe < 0 || pe >= dmsg_g.tp.npes)
        return DMSG_FAIL(DMSG_ERR_PE, "PE %d is not in [0, %d)", pe, dmsg_g.tp.npes);
    return DMSG_OK;
}

dmsg_status dmsg_sym_range(const void *p, size_t bytes, size_t *off)
{
    uintptr_t base = (uintptr_t)dmsg_g.seg, a = (uintptr_t)p;
    size_t size = dmsg_g.tp.seg_size;
    if (!p)
        return DMSG_FAIL(DMSG_ERR_NULL, "symmetric address is NULL");
    if (a < base || a - base > size)
        return DMSG_FAIL(DMSG_ERR_RANGE, "%p is not in the symmetric segment", p);
    size_t o = (size_t)(a - base);
    if (bytes > size - o)
        return DMSG_FAIL(DMSG_ERR_RANGE, "%zu bytes at segment offset %zu pass its end (%zu)",
                         bytes, o, size);
    *off = o;
    return DMSG_OK;
}

dmsg_status dmsg_sym_extent(const void *p, dmsg_extent ext, size_t *off)
{
    size_t o;
    dmsg_status st = dmsg_sym_range(p, 0, &o);
    if (st)
        return st;
    /* o <= size <= 2^40, so these sums cannot overflow ptrdiff_t unless the
     * extent itself is near its limits; check that first. */
    if (ext.lo < -(ptrdiff_t)o || ext.hi > (ptrdiff_t)(dmsg_g.tp.seg_size - o))
        return DMSG_FAIL(DMSG_ERR_RANGE, "section [%td, %td) at offset %zu leaves the segment",
                         ext.lo, ext.hi, o);
    *off = o;
    return DMSG_OK;
}

dmsg_status dmsg_ctr_slot(dmsg_ctr ctr, int allow_none, uint32_t *slot)
{
    if (ctr == DMSG_CTR_NONE) {
        if (allow_none) {
            *slot = UINT32_MAX;
            return DMSG_OK;
        }
        return DMSG_FAIL(DMSG_ERR_COUNTER, "DMSG_CTR_NONE cannot be awaited or read");
    }
    uint64_t s = (ctr & 0xffffffffu) - 1;
    uint32_t gen = (uint32_t)(ctr >> 32);
    if (s >= dmsg_g.tp.max_counters || dmsg_g.ctr_gen[s] != gen || !(gen & 1))
        return DMSG_FAIL(DMSG_ERR_COUNTER, "counter handle %#llx is not live",
                         (unsigned long long)ctr);
    *slot = (uint32_t)s;
    return DMSG_OK;
}

dmsg_status dmsg_coll_check(uint64_t op, uint64_t arg, dmsg_status local)
{
    dmsg_state *g = &dmsg_g;
    uint64_t mine[4] = {op, arg, g->coll_seq++, (uint64_t)(int64_t)local};
    uint64_t(*all)[4] = g->coll_buf; /* allocated at init: nothing here may fail alone */
    dmsg_wait_enter(DMSG_WAIT_COLL);
    dmsg_chk_arrive();
    dmsg_status st = g->tp.ops->allgather(&g->tp, mine, sizeof mine, all);
    if (!st)
        dmsg_chk_epoch_end(); /* the all-gather is a barrier: an epoch ends */
    dmsg_wait_leave();
    /* Every PE sees the same gathered rows, so every PE reaches the same
     * verdict: disagreement first, then the lowest-ranked PE's own error. */
    for (int p = 0; !st && p < g->tp.npes; p++)
        if (memcmp(all[p], all[0], 3 * sizeof mine[0]) != 0)
            st = DMSG_FAIL(DMSG_ERR_COLLECTIVE,
                           "PE %d called collective %llu(%llu) #%llu, PE 0 %llu(%llu) #%llu", p,
                           (unsigned long long)all[p][0], (unsigned long long)all[p][1],
                           (unsigned long long)all[p][2], (unsigned long long)all[0][0],
                           (unsigned long long)all[0][1], (unsigned long long)all[0][2]);
    for (int p = 0; !st && p < g->tp.npes; p++)
        st = (dmsg_status)(int64_t)all[p][3];
    return st;
}
