/*
 * caf_heap.c - the component heap: where allocatable components of
 * derived-type coarrays live. gfortran allocates such a component on one
 * image alone (ALLOCATE(x%a(n)): caf_register ALLOCATE_ONLY), so
 * dmsg_alloc, which is collective, cannot serve it; but other images reach
 * it by coindexed references, so it must lie in the symmetric segment. The
 * heap is one symmetric block, made collectively at the first registration
 * of a component (gfortran registers the components of a coarray on every
 * image, when the coarray is registered or allocated), in which every image
 * then allocates and frees its own components without telling the others:
 * another image learns where a component is from the component's descriptor
 * (caf_ref.c). The bookkeeping is local (a list of free extents).
 *
 * SPDX-License-Identifier: BSD-3-Clause (the LICENSE file of dmsg)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmsg/base/env.h"
#include "dmsg/front/caf/caf.h"

/* Allocation granule: keeps every component as aligned as dmsg_alloc's. */
#define HEAP_ALIGN 64
/* Without DMSG_CAF_HEAP the heap takes this part of the segment (halved
 * while that does not fit). */
#define HEAP_PART 4
#define HEAP_MIN ((size_t)64 << 10)

typedef struct extent {
    size_t off, len;
    struct extent *next; /* ascending offsets, never adjacent (merged) */
} extent;

/* An allocated block: where it starts and how long it is. */
typedef struct block {
    size_t off, len;
    struct block *next;
} block;

static char *heap;
static size_t heap_bytes;
static extent *free_list;
static block *used;

/* DMSG_CAF_HEAP (registered in dmsg/plan/registry.c): parsed as dmsgrun
 * checks it, by the settings machinery's size parser; 0 or unset: none.
 * Returns -1 for anything else. */
static int heap_setting(size_t *out)
{
    const char *s = getenv("DMSG_CAF_HEAP");
    uint64_t v = 0;
    *out = 0;
    if (!s || !*s)
        return 0;
    if (dmsg_env_parse(DMSG_ENV_SIZE, s, &v, sizeof v) != DMSG_OK || v > SIZE_MAX)
        return -1;
    *out = (size_t)v;
    return 0;
}

int dmsg_caf_heap_make(void)
{
    if (heap)
        return DMSG_OK;
    size_t set = 0;
    if (heap_setting(&set)) {
        fprintf(stderr, "libcaf_dmsg: DMSG_CAF_HEAP=%s is not a size (bytes, K, M, G, T)\n",
                getenv("DMSG_CAF_HEAP"));
        return DMSG_ERR_ARG;
    }
    size_t want = set ? (set + HEAP_ALIGN - 1) / HEAP_ALIGN * HEAP_ALIGN
                      : dmsg_segment_size() / HEAP_PART / HEAP_ALIGN * HEAP_ALIGN;
    void *p = NULL;
    int rc = DMSG_ERR_NOMEM;
    if (set)
        rc = dmsg_alloc(want, &p);
    else
        /* Every image gets the same answer from dmsg_alloc, so every image
         * halves alike and all end with the same block. */
        while (want >= HEAP_MIN && (rc = dmsg_alloc(want, &p)) == DMSG_ERR_NOMEM)
            want = want / 2 / HEAP_ALIGN * HEAP_ALIGN;
    if (rc != DMSG_OK)
        return rc;
    extent *e = malloc(sizeof *e);
    if (!e) {
        (void)dmsg_free(p);
        return DMSG_ERR_NOMEM;
    }
    e->off = 0;
    e->len = want;
    e->next = NULL;
    free_list = e;
    heap = p;
    heap_bytes = want;
    return DMSG_OK;
}

size_t dmsg_caf_heap_size(void)
{
    return heap_bytes;
}

int dmsg_caf_heap_owns(const void *p)
{
    return heap && (const char *)p >= heap && (const char *)p < heap + heap_bytes;
}

void *dmsg_caf_heap_alloc(size_t bytes)
{
    if (!heap || bytes > heap_bytes)
        return NULL;
    size_t len = (bytes + HEAP_ALIGN - 1) / HEAP_ALIGN * HEAP_ALIGN;
    if (len == 0)
        len = HEAP_ALIGN;
    block *b = malloc(sizeof *b);
    if (!b)
        return NULL;
    for (extent **pe = &free_list; *pe; pe = &(*pe)->next) {
        extent *e = *pe;
        if (e->len < len)
            continue;
        b->off = e->off;
        b->len = len;
        b->next = used;
        used = b;
        e->off += len;
        e->len -= len;
        if (e->len == 0) {
            *pe = e->next;
            free(e);
        }
        return heap + b->off;
    }
    free(b);
    return NULL;
}

void dmsg_caf_heap_free(void *p)
{
    if (!dmsg_caf_heap_owns(p))
        return;
    size_t off = (size_t)((char *)p - heap);
    block *b = NULL;
    for (block **pb = &used; *pb; pb = &(*pb)->next)
        if ((*pb)->off == off) {
            b = *pb;
            *pb = b->next;
            break;
        }
    if (!b)
        return; /* not a block of this heap: nothing to give back */
    size_t len = b->len;
    free(b);
    /* Insert in order, merging with the neighbours it touches. */
    extent **pe = &free_list, *prev = NULL;
    while (*pe && (*pe)->off < off) {
        prev = *pe;
        pe = &(*pe)->next;
    }
    extent *nx = *pe;
    if (prev && prev->off + prev->len == off) {
        prev->len += len;
        if (nx && prev->off + prev->len == nx->off) {
            prev->len += nx->len;
            prev->next = nx->next;
            free(nx);
        }
        return;
    }
    if (nx && off + len == nx->off) {
        nx->off = off;
        nx->len += len;
        return;
    }
    extent *e = malloc(sizeof *e);
    if (!e)
        return; /* the extent is lost to this run, nothing else goes wrong */
    e->off = off;
    e->len = len;
    e->next = nx;
    *pe = e;
}
