/*
 * caf_reg.c - registering coarrays, locks, events and critical sections in
 * the symmetric heap (dmsg_alloc: collective, the same offset on every
 * image, which is what a token needs), and releasing them.
 *
 * SPDX-License-Identifier: BSD-3-Clause (the LICENSE file of dmsg)
 */
#include <stdlib.h>

#include "dmsg/front/caf/caf.h"

/* The tokens of components (REGISTER_ONLY), doubly linked: one is taken
 * out at once when it is deregistered, and DEALLOCATE of a coarray frees,
 * in one pass, those kept inside the coarray's memory. */
static dmsg_caf_token *comp_tokens;

static void list_add(dmsg_caf_token *t, void **home)
{
    t->home = home;
    t->lprev = NULL;
    t->lnext = comp_tokens;
    if (comp_tokens)
        comp_tokens->lprev = t;
    comp_tokens = t;
    t->listed = 1;
}

static void list_drop(dmsg_caf_token *t)
{
    if (!t->listed)
        return;
    if (t->lprev)
        t->lprev->lnext = t->lnext;
    else
        comp_tokens = t->lnext;
    if (t->lnext)
        t->lnext->lprev = t->lprev;
    t->listed = 0;
}

/* Frees the component tokens kept in [mem, mem + bytes), a coarray that is
 * being deallocated, with what they still hold in the component heap. */
static void drop_homed(const char *mem, size_t bytes)
{
    dmsg_caf_token *t = comp_tokens;
    while (t) {
        dmsg_caf_token *next = t->lnext;
        if ((const char *)t->home >= mem && (const char *)t->home < mem + bytes) {
            list_drop(t);
            dmsg_caf_heap_free(t->mem);
            free(t);
        }
        t = next;
    }
}

void _gfortran_caf_register(size_t size, int type, void **token, caf_desc *desc, int *stat,
                            char *errmsg, size_t errmsg_len);
void _gfortran_caf_register(size_t size, int type, void **token, caf_desc *desc, int *stat,
                            char *errmsg, size_t errmsg_len)
{
    dmsg_caf_token *t = NULL;
    size_t bytes = size;
    /* Static coarrays are registered by constructors that gfortran runs
     * before main calls _gfortran_caf_init: the job starts here then. */
    if (!dmsg_caf_sync_seen)
        _gfortran_caf_init(NULL, NULL);
    switch (type) {
    case CAF_REG_LOCK_STATIC:
    case CAF_REG_LOCK_ALLOC:
    case CAF_REG_CRITICAL:
    case CAF_REG_EVENT_STATIC:
    case CAF_REG_EVENT_ALLOC:
        /* size counts lock or event variables: one 64-bit word each. */
        bytes = size * sizeof(uint64_t);
        break;
    case CAF_REG_ALLOC_ALLOCATE_ONLY: {
        /* An allocatable component, allocated by this image alone: from
         * its part of the component heap (caf_heap.c). */
        t = *token;
        if (!t && !(t = calloc(1, sizeof *t))) {
            dmsg_caf_fail(stat, errmsg, errmsg_len, 1, "ALLOCATE of a component: out of memory");
            return;
        }
        void *mem = dmsg_caf_heap_alloc(size);
        if (!mem) {
            if (t != *token)
                free(t);
            dmsg_caf_fail(stat, errmsg, errmsg_len, 1,
                          "ALLOCATE of a component of %zu bytes: the component heap (%zu bytes, "
                          "DMSG_CAF_HEAP) is full",
                          size, dmsg_caf_heap_size());
            return;
        }
        t->mem = mem;
        t->bytes = size;
        *token = t;
        if (desc)
            desc->base = mem;
        dmsg_caf_ok(stat, errmsg, errmsg_len);
        return;
    }
    case CAF_REG_ALLOC_REGISTER_ONLY: {
        /* The first one is collective: every image registers the components
         * of a coarray at its own registration or ALLOCATE, and a nested
         * component (registered when one image allocates its parent) comes
         * later. So the heap's collective allocation can happen here. */
        int rc = dmsg_caf_heap_make();
        if (rc != DMSG_OK) {
            dmsg_caf_fail(stat, errmsg, errmsg_len, 1, "the component heap: %s%s",
                          dmsg_strerror(rc),
                          rc == DMSG_ERR_NOMEM ? " (raise DMSG_SEGMENT_SIZE or lower DMSG_CAF_HEAP)"
                                               : "");
            return;
        }
        break;
    }
    default:
        break;
    }
    t = calloc(1, sizeof *t);
    if (!t) {
        dmsg_caf_fail(stat, errmsg, errmsg_len, 1, "coarray registration: out of memory");
        return;
    }
    if (type != CAF_REG_ALLOC_REGISTER_ONLY) {
        if (dmsg_caf_cur->parent) {
            free(t);
            dmsg_caf_unsupported("ALLOCATE of a coarray inside CHANGE TEAM");
        }
        if (dmsg_caf_gate(DMSG_TEAM_WORLD, 0, "ALLOCATE of a coarray", stat, errmsg, errmsg_len)) {
            free(t);
            dmsg_caf_alloc_stopped = stat && *stat == CAF_STAT_STOPPED_IMAGE;
            return;
        }
        void *mem = NULL;
        int rc = dmsg_alloc(bytes, &mem);
        if (rc != DMSG_OK) {
            free(t);
            dmsg_caf_fail(stat, errmsg, errmsg_len, 1, "coarray allocation of %zu bytes failed: %s%s",
                          bytes, dmsg_strerror(rc),
                          rc == DMSG_ERR_NOMEM ? " (raise DMSG_SEGMENT_SIZE)" : "");
            return;
        }
        t->mem = mem;
        t->bytes = bytes;
        if (type == CAF_REG_ALLOC)
            t->desc = desc;
    } else {
        list_add(t, token);
    }
    *token = t;
    if (desc)
        desc->base = t->mem;
    dmsg_caf_ok(stat, errmsg, errmsg_len);
}

void _gfortran_caf_deregister(void **token, int type, int *stat, char *errmsg, size_t errmsg_len);
void _gfortran_caf_deregister(void **token, int type, int *stat, char *errmsg, size_t errmsg_len)
{
    dmsg_caf_token *t = token ? *token : NULL;
    if (!t) {
        dmsg_caf_ok(stat, errmsg, errmsg_len);
        return;
    }
    /* A component of this image's part of the component heap: freed by
     * this image alone (DEALLOCATE(x%a) on one image). DEALLOCATE_ONLY (1)
     * keeps the token for a later ALLOCATE of the same component. */
    if (dmsg_caf_heap_owns(t->mem) || (!t->mem && type == 1)) {
        dmsg_caf_heap_free(t->mem);
        t->mem = NULL;
        t->bytes = 0;
        if (type != 1) {
            list_drop(t);
            free(t);
            *token = NULL;
        }
        dmsg_caf_ok(stat, errmsg, errmsg_len);
        return;
    }
    /* dmsg_free starts with a barrier: every access to it has completed. */
    if (t->mem && dmsg_caf_gate(DMSG_TEAM_WORLD, 0, "DEALLOCATE of a coarray", stat, errmsg,
                                errmsg_len))
        return;
    int rc = t->mem ? dmsg_free(t->mem) : DMSG_OK;
    if (rc != DMSG_OK) {
        dmsg_caf_fail(stat, errmsg, errmsg_len, 1, "DEALLOCATE of a coarray: %s", dmsg_strerror(rc));
        return;
    }
    if (t->mem)
        drop_homed(t->mem, t->bytes);
    list_drop(t);
    free(t);
    *token = NULL;
    dmsg_caf_ok(stat, errmsg, errmsg_len);
}
