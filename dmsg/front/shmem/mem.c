/* OpenSHMEM memory management on dmsg's symmetric heap (dmsg_alloc). Each
 * block starts with a small header before the user's pointer: where the
 * dmsg block starts and the user's size, written by every PE alike. The
 * calls are collectives (dmsg_shmem_coll_enter, for SHMEM_THREAD_MULTIPLE). */
#include <stdlib.h>
#include <string.h>
#include "dmsg/front/shmem/shmem_impl.h"

typedef struct blk_hdr {
    void *base;
    size_t size;
} blk_hdr;

#define HDR_ROOM 64u /* keeps the user's pointer 64-byte aligned */

static void *alloc_aligned(const char *call, size_t align, size_t size)
{
    dmsg_shmem_need_init(call);
    if (size == 0)
        return NULL;
    if (align == 0 || (align & (align - 1)))
        return NULL;
    size_t extra = align > HDR_ROOM ? align : 0;
    if (size > SIZE_MAX - HDR_ROOM - extra)
        return NULL;
    void *base;
    dmsg_shmem_coll_enter(call, DMSG_TEAM_WORLD, NULL);
    int st = dmsg_alloc(HDR_ROOM + extra + size, &base);
    dmsg_shmem_coll_leave();
    if (st == DMSG_ERR_NOMEM)
        return NULL;
    if (st)
        dmsg_shmem_die(call, st, NULL);
    size_t a = align > HDR_ROOM ? align : HDR_ROOM;
    uintptr_t u = ((uintptr_t)base + HDR_ROOM + a - 1) & ~(uintptr_t)(a - 1);
    blk_hdr *h = (blk_hdr *)u - 1;
    h->base = base;
    h->size = size;
    return (void *)u;
}

void *shmem_malloc(size_t size)
{
    return alloc_aligned(__func__, HDR_ROOM, size);
}

void *shmem_malloc_with_hints(size_t size, long hints)
{
    (void)hints;
    return alloc_aligned(__func__, HDR_ROOM, size);
}

void *shmem_align(size_t alignment, size_t size)
{
    return alloc_aligned(__func__, alignment, size);
}

void *shmem_calloc(size_t count, size_t size)
{
    if (count && size > SIZE_MAX / count)
        return NULL;
    void *p = alloc_aligned(__func__, HDR_ROOM, count * size);
    if (p) {
        memset(p, 0, count * size);
        /* Nobody may put into the block before every PE has cleared it. */
        dmsg_shmem_coll_enter(__func__, DMSG_TEAM_WORLD, NULL);
        int st = dmsg_sync();
        dmsg_shmem_coll_leave();
        if (st)
            dmsg_shmem_die(__func__, st, NULL);
    }
    return p;
}

void shmem_free(void *ptr)
{
    dmsg_shmem_need_init(__func__);
    void *base = NULL;
    if (ptr) {
        if (!dmsg_addr_is_symmetric(ptr, 1))
            dmsg_shmem_die(__func__, 0, "not a block of shmem_malloc");
        base = ((blk_hdr *)ptr - 1)->base;
    }
    dmsg_shmem_coll_enter(__func__, DMSG_TEAM_WORLD, NULL);
    int st = dmsg_free(base);
    dmsg_shmem_coll_leave();
    if (st)
        dmsg_shmem_die(__func__, st, NULL);
}

void *shmem_realloc(void *ptr, size_t size)
{
    if (!ptr)
        return shmem_malloc(size);
    if (size == 0) {
        shmem_free(ptr);
        return NULL;
    }
    if (!dmsg_addr_is_symmetric(ptr, 1))
        dmsg_shmem_die(__func__, 0, "not a block of shmem_malloc");
    size_t old = ((blk_hdr *)ptr - 1)->size;
    void *n = shmem_malloc(size);
    if (!n)
        return NULL;
    memcpy(n, ptr, old < size ? old : size);
    shmem_free(ptr); /* starts with a barrier: every PE has copied its own */
    return n;
}
