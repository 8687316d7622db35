/* First-fit allocator over the symmetric segment, with coalescing. Metadata
 * lives in private memory, so a stray remote write cannot corrupt it. */
#include <stdlib.h>
#include <string.h>
#include "dmsg/core/heap.h"

dmsg_status dmsg_heap_init(dmsg_heap *h, uint64_t size)
{
    h->cap = 16;
    h->b = malloc(h->cap * sizeof *h->b);
    if (!h->b)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "heap metadata");
    h->n = 1;
    h->size = size;
    h->fresh_first = 0;
    h->fresh = 0;
    h->top = 0;
    h->b[0] = (dmsg_heap_block){0, size, 0};
    return DMSG_OK;
}

void dmsg_heap_fini(dmsg_heap *h)
{
    free(h->b);
    memset(h, 0, sizeof *h);
}

dmsg_status dmsg_heap_reserve(dmsg_heap *h)
{
    if (h->n < h->cap)
        return DMSG_OK;
    dmsg_heap_block *nb = realloc(h->b, 2 * h->cap * sizeof *nb);
    if (!nb)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "heap metadata");
    h->b = nb;
    h->cap *= 2;
    return DMSG_OK;
}

static dmsg_status insert_at(dmsg_heap *h, size_t i, dmsg_heap_block blk)
{
    dmsg_status st = dmsg_heap_reserve(h);
    if (st)
        return st;
    memmove(&h->b[i + 1], &h->b[i], (h->n - i) * sizeof *h->b);
    h->b[i] = blk;
    h->n++;
    return DMSG_OK;
}

static void remove_at(dmsg_heap *h, size_t i)
{
    memmove(&h->b[i], &h->b[i + 1], (h->n - i - 1) * sizeof *h->b);
    h->n--;
}

/* Blocks are coalesced and cover [0, size): when the last one is free,
 * everything from its start up is. */
static void set_top(dmsg_heap *h)
{
    const dmsg_heap_block *last = &h->b[h->n - 1];
    h->top = last->used ? last->off + last->size : last->off;
}

dmsg_status dmsg_heap_alloc(dmsg_heap *h, uint64_t size, uint64_t *off)
{
    if (size > h->size)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "%llu bytes exceed the segment (DMSG_SEGMENT_SIZE)",
                         (unsigned long long)size);
    uint64_t need = size ? (size + DMSG_HEAP_ALIGN - 1) & ~(uint64_t)(DMSG_HEAP_ALIGN - 1)
                         : DMSG_HEAP_ALIGN;
    size_t i = 0;
    if (h->fresh_first)
        for (; i < h->n; i++) {
            dmsg_heap_block *b = &h->b[i];
            uint64_t end = b->off + b->size;
            if (b->used || end <= h->fresh || end - (b->off > h->fresh ? b->off : h->fresh) < need)
                continue;
            if (b->off < h->fresh) { /* leave the hole below fresh free */
                dmsg_heap_block above = {h->fresh, end - h->fresh, 0};
                dmsg_status st = insert_at(h, i + 1, above);
                if (st)
                    return st;
                h->b[i].size = h->fresh - h->b[i].off;
                i++;
            }
            break;
        }
    if (i == h->n) /* no fresh memory left (or not asked for): first fit */
        i = 0;
    for (; i < h->n; i++) {
        dmsg_heap_block *b = &h->b[i];
        if (b->used || b->size < need)
            continue;
        if (b->size > need) {
            dmsg_heap_block rest = {b->off + need, b->size - need, 0};
            dmsg_status st = insert_at(h, i + 1, rest);
            if (st)
                return st;
            b = &h->b[i];
            b->size = need;
        }
        b->used = 1;
        *off = b->off;
        if (b->off + b->size > h->fresh)
            h->fresh = b->off + b->size;
        set_top(h);
        return DMSG_OK;
    }
    return DMSG_FAIL(DMSG_ERR_NOMEM, "no free block of %llu bytes (DMSG_SEGMENT_SIZE)",
                     (unsigned long long)need);
}

static size_t find(const dmsg_heap *h, uint64_t off)
{
    size_t lo = 0, hi = h->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (h->b[mid].off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int dmsg_heap_is_used(const dmsg_heap *h, uint64_t off, uint64_t len)
{
    size_t i = find(h, off + 1); /* the first block starting after off */
    if (i == 0)
        return 0;
    for (i--; i < h->n && h->b[i].used; i++) /* the block holding off, then on */
        if (h->b[i].off + h->b[i].size >= off + len)
            return 1;
    return 0;
}

int dmsg_heap_is_block(const dmsg_heap *h, uint64_t off)
{
    size_t i = find(h, off);
    return i < h->n && h->b[i].off == off && h->b[i].used;
}

dmsg_status dmsg_heap_free(dmsg_heap *h, uint64_t off)
{
    size_t i = find(h, off);
    if (i >= h->n || h->b[i].off != off || !h->b[i].used)
        return DMSG_FAIL(DMSG_ERR_ARG, "offset %llu is not a live symmetric block",
                         (unsigned long long)off);
    h->b[i].used = 0;
    if (i + 1 < h->n && !h->b[i + 1].used) {
        h->b[i].size += h->b[i + 1].size;
        remove_at(h, i + 1);
    }
    if (i > 0 && !h->b[i - 1].used) {
        h->b[i - 1].size += h->b[i].size;
        remove_at(h, i);
    }
    set_top(h);
    return DMSG_OK;
}
