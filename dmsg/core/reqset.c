/* The set of live request ids (reqset.h). */
#include <stdlib.h>
#include "dmsg/core/reqset.h"

#define REMOVED UINT32_MAX

static size_t home(uint32_t id, size_t cap)
{
    return (size_t)(id * 2654435761u) & (cap - 1);
}

static void put(uint32_t *slot, size_t cap, uint32_t id)
{
    size_t i = home(id, cap);
    while (slot[i] != 0 && slot[i] != REMOVED)
        i = (i + 1) & (cap - 1);
    slot[i] = id;
}

/* Rebuilds the table with room for twice the live ids (and no removed marks). */
static dmsg_status grow(dmsg_reqset *s)
{
    size_t cap = s->cap ? s->cap : 16;
    while (cap < 4 * (s->live + 1))
        cap *= 2;
    uint32_t *slot = calloc(cap, sizeof *slot);
    if (!slot)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "request table of %zu entries", cap);
    for (size_t i = 0; i < s->cap; i++)
        if (s->slot[i] != 0 && s->slot[i] != REMOVED)
            put(slot, cap, s->slot[i]);
    free(s->slot);
    s->slot = slot;
    s->cap = cap;
    s->used = s->live;
    return DMSG_OK;
}

dmsg_status dmsg_reqset_add(dmsg_reqset *s, uint32_t *id)
{
    if (2 * (s->used + 1) > s->cap) {
        dmsg_status st = grow(s);
        if (st)
            return st;
    }
    /* Ids go up to 2^31 - 1 (a request's state field is an int32) and
     * skip ids that are still live after a wrap. */
    do {
        s->next = s->next >= 0x7fffffffu ? 1 : s->next + 1;
    } while (dmsg_reqset_has(s, s->next));
    put(s->slot, s->cap, s->next);
    s->used++;
    s->live++;
    *id = s->next;
    return DMSG_OK;
}

int dmsg_reqset_has(const dmsg_reqset *s, uint32_t id)
{
    if (s->cap == 0 || id == 0 || id == REMOVED)
        return 0;
    for (size_t i = home(id, s->cap);; i = (i + 1) & (s->cap - 1)) {
        if (s->slot[i] == id)
            return 1;
        if (s->slot[i] == 0)
            return 0;
    }
}

void dmsg_reqset_remove(dmsg_reqset *s, uint32_t id)
{
    if (s->cap == 0)
        return;
    for (size_t i = home(id, s->cap);; i = (i + 1) & (s->cap - 1)) {
        if (s->slot[i] == id) {
            s->slot[i] = REMOVED;
            s->live--;
            return;
        }
        if (s->slot[i] == 0)
            return;
    }
}

void dmsg_reqset_fini(dmsg_reqset *s)
{
    free(s->slot);
    *s = (dmsg_reqset){0};
}
