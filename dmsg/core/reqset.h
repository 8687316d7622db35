/* The ids of this PE's live fetch requests. A dmsg_req is the caller's
 * storage and may be copied; a copy of a request that was already waited
 * for must be refused, not passed to the transport (whose per-request state
 * is gone by then). The set is the PE's, never a request's, so nothing a
 * handle holds can dangle. */
#ifndef DMSG_CORE_REQSET_H
#define DMSG_CORE_REQSET_H

#include <stddef.h>
#include <stdint.h>
#include "dmsg/base/status.h"

typedef struct dmsg_reqset {
    uint32_t *slot; /* open addressing: 0 empty, UINT32_MAX removed, else an id */
    size_t cap;     /* a power of two, or 0 */
    size_t used;    /* ids and removed marks */
    size_t live;
    uint32_t next;  /* the next id to hand out */
} dmsg_reqset;

/* A new id, in the set. Errors: DMSG_ERR_NOMEM (the set is unchanged). */
dmsg_status dmsg_reqset_add(dmsg_reqset *s, uint32_t *id);
int dmsg_reqset_has(const dmsg_reqset *s, uint32_t id);
void dmsg_reqset_remove(dmsg_reqset *s, uint32_t id);
void dmsg_reqset_fini(dmsg_reqset *s);

#endif
