/* The set of 64-bit keys (keyset.h). */
#include <stdlib.h>
#include "dmsg/base/keyset.h"

#define REMOVED UINT64_MAX

static size_t home(uint64_t key, size_t cap)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 32) & (cap - 1);
}

static void put(uint64_t *slot, size_t cap, uint64_t key)
{
    size_t i = home(key, cap);
    while (slot[i] != 0 && slot[i] != REMOVED)
        i = (i + 1) & (cap - 1);
    slot[i] = key;
}

/* Rebuilds the table with room for four times the live keys and no removed
 * marks, so that probes stay short. */
static dmsg_status grow(dmsg_keyset *s)
{
    size_t cap = s->cap ? s->cap : 16;
    while (cap < 4 * (s->live + 1))
        cap *= 2;
    uint64_t *slot = calloc(cap, sizeof *slot);
    if (!slot)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "handle table of %zu entries", cap);
    for (size_t i = 0; i < s->cap; i++)
        if (s->slot[i] != 0 && s->slot[i] != REMOVED)
            put(slot, cap, s->slot[i]);
    free(s->slot);
    s->slot = slot;
    s->cap = cap;
    s->used = s->live;
    return DMSG_OK;
}

dmsg_status dmsg_keyset_add(dmsg_keyset *s, uint64_t key)
{
    if (2 * (s->used + 1) > s->cap) {
        dmsg_status st = grow(s);
        if (st)
            return st;
    }
    put(s->slot, s->cap, key);
    s->used++;
    s->live++;
    return DMSG_OK;
}

int dmsg_keyset_has(const dmsg_keyset *s, uint64_t key)
{
    if (s->cap == 0 || key == 0 || key == REMOVED)
        return 0;
    for (size_t i = home(key, s->cap);; i = (i + 1) & (s->cap - 1)) {
        if (s->slot[i] == key)
            return 1;
        if (s->slot[i] == 0)
            return 0;
    }
}

void dmsg_keyset_remove(dmsg_keyset *s, uint64_t key)
{
    if (s->cap == 0 || key == 0 || key == REMOVED)
        return;
    for (size_t i = home(key, s->cap);; i = (i + 1) & (s->cap - 1)) {
        if (s->slot[i] == key) {
            s->slot[i] = REMOVED;
            s->live--;
            return;
        }
        if (s->slot[i] == 0)
            return;
    }
}

void dmsg_keyset_fini(dmsg_keyset *s)
{
    free(s->slot);
    *s = (dmsg_keyset){0};
}
