/* Symmetric heap bookkeeping: alignment, first fit, coalescing, errors. */
#include <criterion/criterion.h>
#include "dmsg/core/heap.h"

Test(heap, alloc_align_and_reuse)
{
    dmsg_heap h;
    uint64_t a, b, c, d;
    cr_assert_eq(dmsg_heap_init(&h, 4096), DMSG_OK);
    cr_assert_eq(dmsg_heap_alloc(&h, 1, &a), DMSG_OK);
    cr_assert_eq(dmsg_heap_alloc(&h, 0, &b), DMSG_OK);
    cr_assert_eq(dmsg_heap_alloc(&h, 100, &c), DMSG_OK);
    cr_assert_eq(a, 0);
    cr_assert_eq(b, 64, "zero-byte blocks are distinct");
    cr_assert_eq(c, 128);
    cr_assert_eq(dmsg_heap_free(&h, b), DMSG_OK);
    cr_assert_eq(dmsg_heap_alloc(&h, 64, &d), DMSG_OK);
    cr_assert_eq(d, 64, "first fit reuses the hole");
    dmsg_heap_fini(&h);
}

Test(heap, exhaustion_and_coalescing)
{
    dmsg_heap h;
    uint64_t a, b, c, x;
    cr_assert_eq(dmsg_heap_init(&h, 1024), DMSG_OK);
    cr_assert_eq(dmsg_heap_alloc(&h, 512, &a), DMSG_OK);
    cr_assert_eq(dmsg_heap_alloc(&h, 256, &b), DMSG_OK);
    cr_assert_eq(dmsg_heap_alloc(&h, 256, &c), DMSG_OK);
    cr_assert_eq(dmsg_heap_alloc(&h, 1, &x), DMSG_ERR_NOMEM);
    cr_assert_eq(dmsg_heap_alloc(&h, 2048, &x), DMSG_ERR_NOMEM);
    cr_assert_eq(dmsg_heap_alloc(&h, UINT64_MAX, &x), DMSG_ERR_NOMEM);
    cr_assert_eq(dmsg_heap_free(&h, b), DMSG_OK);
    cr_assert_eq(dmsg_heap_free(&h, a), DMSG_OK);
    cr_assert_eq(dmsg_heap_alloc(&h, 768, &x), DMSG_OK, "freed neighbours merge");
    cr_assert_eq(x, 0);
    cr_assert_eq(dmsg_heap_free(&h, c), DMSG_OK);
    cr_assert_eq(dmsg_heap_free(&h, x), DMSG_OK);
    cr_assert_eq(h.n, 1, "everything merges back into one block");
    dmsg_heap_fini(&h);
}

Test(heap, bad_free)
{
    dmsg_heap h;
    uint64_t a;
    cr_assert_eq(dmsg_heap_init(&h, 1024), DMSG_OK);
    cr_assert_eq(dmsg_heap_alloc(&h, 128, &a), DMSG_OK);
    cr_assert_not(dmsg_heap_is_block(&h, a + 64));
    cr_assert_eq(dmsg_heap_free(&h, a + 64), DMSG_ERR_ARG);
    cr_assert_eq(dmsg_heap_free(&h, 4096), DMSG_ERR_ARG);
    cr_assert_eq(dmsg_heap_free(&h, a), DMSG_OK);
    cr_assert_eq(dmsg_heap_free(&h, a), DMSG_ERR_ARG, "double free");
    dmsg_heap_fini(&h);
}

/* Under the checker (fresh_first) a freed block is not handed out again
 * while fresh memory is left, so a stale pointer lands in a hole; when the
 * fresh memory runs out, holes are reused (first fit). */
Test(heap, fresh_first_and_used_ranges)
{
    dmsg_heap h;
    uint64_t a, b, c, d;
    cr_assert_eq(dmsg_heap_init(&h, 1024), DMSG_OK);
    h.fresh_first = 1;
    cr_assert_eq(dmsg_heap_alloc(&h, 256, &a), DMSG_OK);
    cr_assert_eq(dmsg_heap_alloc(&h, 256, &b), DMSG_OK);
    cr_assert(dmsg_heap_is_used(&h, a, 512), "two adjacent used blocks");
    cr_assert_eq(dmsg_heap_free(&h, a), DMSG_OK);
    cr_assert(!dmsg_heap_is_used(&h, a + 8, 8), "a freed block is a hole");
    cr_assert(!dmsg_heap_is_used(&h, b + 200, 100), "a range past the last block");
    cr_assert(dmsg_heap_is_used(&h, b + 8, 8));
    cr_assert_eq(dmsg_heap_alloc(&h, 256, &c), DMSG_OK);
    cr_assert_eq(c, 512, "fresh memory first, not the hole at %llu", (unsigned long long)a);
    cr_assert(!dmsg_heap_is_used(&h, a, 8), "the hole stays free");
    cr_assert_eq(dmsg_heap_alloc(&h, 512, &d), DMSG_ERR_NOMEM);
    cr_assert_eq(dmsg_heap_alloc(&h, 256, &d), DMSG_OK);
    cr_assert_eq(d, 768, "the last fresh block");
    cr_assert_eq(dmsg_heap_alloc(&h, 256, &d), DMSG_OK);
    cr_assert_eq(d, a, "no fresh memory left: the hole is reused");
    dmsg_heap_fini(&h);
}
