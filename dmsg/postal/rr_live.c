/* The addresses of this PE's live RRMSG requests (rr.h). The engine keeps
 * and updates a request at the address it was started with (its lists link
 * the caller's structs), so a byte copy of a request, made while it was
 * active or after it was retired, is not a request: it would never complete.
 * The set tells a request from such a copy, as the core's set of live ids
 * does for dmsg_req (dmsg/core/reqset.h); both are key sets
 * (dmsg/base/keyset.h). */
#include <stdint.h>
#include "dmsg/postal/rr.h"

static uint64_t key(const dmsg_rr_req *r)
{
    return (uint64_t)(uintptr_t)r;
}

dmsg_status dmsg_rr_live_add(rr_live *s, dmsg_rr_req *r)
{
    /* The engine's lists link the request's own storage: starting another
     * transfer in it would unlink the first one. */
    if (dmsg_rr_live_has(s, r))
        return DMSG_FAIL(DMSG_ERR_HANDLE, "req is a request still in progress");
    return dmsg_keyset_add(&s->set, key(r));
}

int dmsg_rr_live_has(const rr_live *s, const dmsg_rr_req *r)
{
    return r && dmsg_keyset_has(&s->set, key(r));
}

void dmsg_rr_live_remove(rr_live *s, const dmsg_rr_req *r)
{
    dmsg_keyset_remove(&s->set, key(r));
}

void dmsg_rr_live_free(rr_live *s)
{
    dmsg_keyset_fini(&s->set);
}
