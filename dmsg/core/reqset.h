/* The ids of this PE's live requests (fetches and atomics). A dmsg_req is the caller's
 * storage and may be copied; a copy of a request that was already waited
 * for must be refused, not passed to the transport (whose per-request state
 * is gone by then). The set is the PE's, never a request's, so nothing a
 * handle holds can dangle. */
#ifndef DMSG_CORE_REQSET_H
#define DMSG_CORE_REQSET_H

#include <stddef.h>
#include <stdint.h>
#include "dmsg/base/keyset.h"
#include "dmsg/base/status.h"

typedef struct dmsg_reqset {
    dmsg_keyset set; /* the live ids */
    uint32_t next;   /* the last id handed out */
} dmsg_reqset;

/* A new id, in the set. Errors: DMSG_ERR_NOMEM (the set is unchanged). */
dmsg_status dmsg_reqset_add(dmsg_reqset *s, uint32_t *id);
int dmsg_reqset_has(const dmsg_reqset *s, uint32_t id);
void dmsg_reqset_remove(dmsg_reqset *s, uint32_t id);
void dmsg_reqset_fini(dmsg_reqset *s);

/* Starting a request of any kind (fetch.c): open takes an id (the handle
 * stays unused; on a failed start remove the id again), started marks the
 * handle live once the transport has started the operation. */
dmsg_status dmsg_req_open(dmsg_req *req, uint32_t *id);
void dmsg_req_started(dmsg_req *req, uint32_t id, int pe);

#endif
