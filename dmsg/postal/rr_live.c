/* Which RRMSG requests are live (rr.h). The engine keeps and updates a
 * request at the address it was started with (its lists link the caller's
 * structs), so a byte copy of a request, made while it was active or after
 * it was retired, is not a request: it would never complete. A started
 * request carries its own address (`self`) until it is retired: a copy
 * carries the original's, a retired request none. This takes a comparison
 * where a set of the live addresses took a hash insertion, two look-ups and
 * a removal a transfer (a tenth of a small message's time in a ping-pong). */
#include <stdint.h>
#include "dmsg/postal/rr.h"

dmsg_status dmsg_rr_live_check(const dmsg_rr_req *r)
{
    /* The engine's lists link the request's own storage: starting another
     * transfer in it would unlink the first one. */
    if (dmsg_rr_live_has(r))
        return DMSG_FAIL(DMSG_ERR_HANDLE, "req is a request still in progress");
    return DMSG_OK;
}

int dmsg_rr_live_has(const dmsg_rr_req *r)
{
    return r && r->magic == RR_MAGIC && r->self == r && r->state != RR_S_IDLE;
}

void dmsg_rr_live_mark(dmsg_rr_req *r)
{
    r->self = r;
}

void dmsg_rr_live_remove(dmsg_rr_req *r)
{
    r->self = NULL;
}
