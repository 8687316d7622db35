/* Collective symmetric allocation. */
#include "dmsg/core/state.h"

int dmsg_alloc(size_t bytes, void **ptr)
{
    dmsg_state *g = &dmsg_g;
    DMSG_REQUIRE_INIT();
    dmsg_status bad = ptr ? dmsg_heap_reserve(&g->heap)
                          : DMSG_FAIL(DMSG_ERR_NULL, "dmsg_alloc: ptr is NULL");
    /* Agree before touching the heap, so that every PE's copy of the block
     * list stays identical, also when the call fails on some PE. */
    dmsg_status st = dmsg_coll_check(DMSG_COLL_ALLOC, bytes, bad);
    if (st)
        return st;
    uint64_t off;
    st = dmsg_heap_alloc(&g->heap, bytes, &off);
    if (st)
        return st;
    *ptr = g->seg + off;
    return DMSG_OK;
}

int dmsg_free(void *ptr)
{
    dmsg_state *g = &dmsg_g;
    DMSG_REQUIRE_INIT();
    uint64_t off = UINT64_MAX;
    size_t o;
    if (ptr && dmsg_sym_range(ptr, 0, &o) == DMSG_OK)
        off = o;
    /* The check is also the barrier that completes operations on the block.
     * A pointer that is not a live block is agreed on first, then rejected
     * everywhere, so the heaps stay identical. */
    dmsg_status st = dmsg_coll_check(DMSG_COLL_FREE, ptr ? off : UINT64_MAX - 1, DMSG_OK);
    if (st || !ptr)
        return st;
    if (!dmsg_heap_is_block(&g->heap, off))
        return DMSG_FAIL(DMSG_ERR_ARG, "dmsg_free(%p): not a live symmetric block", ptr);
    return dmsg_heap_free(&g->heap, off);
}

int dmsg_addr_is_symmetric(const void *addr, size_t bytes)
{
    size_t off;
    return dmsg_g.initialized && dmsg_sym_range(addr, bytes, &off) == DMSG_OK;
}

int dmsg_pe_mapped(int pe)
{
    dmsg_state *g = &dmsg_g;
    if (!g->initialized || pe < 0 || pe >= g->tp.npes)
        return 0;
    if (pe == g->tp.rank)
        return 1;
    /* Asked of the transport by capability: the simulated machine maps its
     * peers too but must see every access to keep its clock. */
    return (g->tp.ops->caps & DMSG_TP_CAP_PEER_MAP) && g->tp.ops->peer_seg(&g->tp, pe) != NULL;
}

void *dmsg_peer_ptr(const void *addr, int pe)
{
    dmsg_state *g = &dmsg_g;
    size_t off;
    if (!g->initialized || pe < 0 || pe >= g->tp.npes || dmsg_sym_range(addr, 1, &off))
        return NULL;
    if (pe == g->tp.rank)
        return (void *)(uintptr_t)addr;
    if (!(g->tp.ops->caps & DMSG_TP_CAP_PEER_MAP))
        return NULL;
    char *base = g->tp.ops->peer_seg(&g->tp, pe);
    return base ? base + off : NULL;
}
