/* The addresses of this PE's live RRMSG requests (rr.h). The engine keeps
 * and updates a request at the address it was started with (its lists link
 * the caller's structs), so a byte copy of a request, made while it was
 * active or after it was retired, is not a request: it would never complete.
 * The set tells a request from such a copy, as the core's set of live ids
 * does for dmsg_req (dmsg/core/reqset.h). Open addressing, linear probing. */
#include <stdint.h>
#include <stdlib.h>
#include "dmsg/postal/rr.h"

/* A removed entry: never a request's address. */
#define GONE ((dmsg_rr_req *)(uintptr_t)1)

static size_t home(const dmsg_rr_req *r, size_t cap)
{
    uint64_t h = (uint64_t)(uintptr_t)r * 0x9E3779B97F4A7C15ULL;
    return (size_t)(h >> 32) & (cap - 1);
}

static void put(dmsg_rr_req **slot, size_t cap, dmsg_rr_req *r)
{
    size_t i = home(r, cap);
    while (slot[i] && slot[i] != GONE)
        i = (i + 1) & (cap - 1);
    slot[i] = r;
}

/* Rebuilds the table with room for the live entries and no removed marks. */
static dmsg_status grow(rr_live *s)
{
    size_t cap = s->cap ? s->cap : 64;
    while (cap < 4 * (s->live + 1))
        cap *= 2;
    dmsg_rr_req **slot = calloc(cap, sizeof *slot);
    if (!slot)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "RRMSG request table of %zu entries", cap);
    for (size_t i = 0; i < s->cap; i++)
        if (s->slot[i] && s->slot[i] != GONE)
            put(slot, cap, s->slot[i]);
    free(s->slot);
    s->slot = slot;
    s->cap = cap;
    s->used = s->live;
    return DMSG_OK;
}

dmsg_status rr_live_add(rr_live *s, dmsg_rr_req *r)
{
    /* The engine's lists link the request's own storage: starting another
     * transfer in it would unlink the first one. */
    if (rr_live_has(s, r))
        return DMSG_FAIL(DMSG_ERR_HANDLE, "req is a request still in progress");
    if (2 * (s->used + 1) > s->cap) {
        dmsg_status st = grow(s);
        if (st)
            return st;
    }
    put(s->slot, s->cap, r);
    s->used++;
    s->live++;
    return DMSG_OK;
}

int rr_live_has(const rr_live *s, const dmsg_rr_req *r)
{
    if (s->cap == 0 || !r)
        return 0;
    for (size_t i = home(r, s->cap);; i = (i + 1) & (s->cap - 1)) {
        if (s->slot[i] == r)
            return 1;
        if (!s->slot[i])
            return 0;
    }
}

void rr_live_remove(rr_live *s, const dmsg_rr_req *r)
{
    if (s->cap == 0)
        return;
    for (size_t i = home(r, s->cap);; i = (i + 1) & (s->cap - 1)) {
        if (s->slot[i] == r) {
            s->slot[i] = GONE;
            s->live--;
            return;
        }
        if (!s->slot[i])
            return;
    }
}

void rr_live_free(rr_live *s)
{
    free(s->slot);
    *s = (rr_live){0};
}
