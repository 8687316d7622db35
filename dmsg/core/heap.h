/* Symmetric heap bookkeeping. Every PE keeps its own copy of the block list;
 * because allocation is collective with identical arguments (checked), all
 * copies evolve identically and a block has the same offset on every PE. */
#ifndef DMSG_CORE_HEAP_H
#define DMSG_CORE_HEAP_H

#include <stddef.h>
#include <stdint.h>
#include "dmsg/base/status.h"

#define DMSG_HEAP_ALIGN 64

typedef struct dmsg_heap_block {
    uint64_t off;
    uint64_t size;
    int used;
} dmsg_heap_block;

typedef struct dmsg_heap {
    dmsg_heap_block *b; /* sorted by offset, covering [0, size) */
    size_t n, cap;
    uint64_t size;
    /* Under DMSG_CHECK: allocate above `fresh` (all memory ever handed out
     * lies below it) while there is room, so that a freed block is not
     * handed out again soon and a stale pointer lands in a hole that the
     * checker can see. */
    int fresh_first;
    uint64_t fresh;
    /* The end of the highest used block: nothing above it is allocated, so
     * a transfer that reaches past it is refused (one compare per call). */
    uint64_t top;
} dmsg_heap;

dmsg_status dmsg_heap_init(dmsg_heap *h, uint64_t size);
void dmsg_heap_fini(dmsg_heap *h);
/* Makes room for one more block record, so that the next alloc or free cannot
 * fail on metadata after the PEs have agreed on it. */
dmsg_status dmsg_heap_reserve(dmsg_heap *h);
/* First fit; size rounded up to DMSG_HEAP_ALIGN (0 becomes one unit). */
dmsg_status dmsg_heap_alloc(dmsg_heap *h, uint64_t size, uint64_t *off);
/* Errors: DMSG_ERR_ARG when off is not the start of a used block. */
dmsg_status dmsg_heap_free(dmsg_heap *h, uint64_t off);
/* 1 if every byte of [off, off+len) lies in used blocks (len 0: off is
 * inside or at the end of one). */
int dmsg_heap_is_used(const dmsg_heap *h, uint64_t off, uint64_t len);
/* Would dmsg_heap_free(off) succeed? (checked before the collective step) */
int dmsg_heap_is_block(const dmsg_heap *h, uint64_t off);

#endif
