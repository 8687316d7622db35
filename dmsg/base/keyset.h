/* A set of 64-bit keys (open addressing, linear probing): the live handles
 * of a PE, to tell a handle from a byte copy of one that was retired or was
 * never started (dmsg/core/reqset.h: fetch request ids; dmsg/postal/rr.h:
 * RRMSG request addresses). Keys 0 and UINT64_MAX are never members. Not
 * thread-safe: one PE's calls are one thread's. */
#ifndef DMSG_BASE_KEYSET_H
#define DMSG_BASE_KEYSET_H

#include <stddef.h>
#include <stdint.h>
#include "dmsg/base/status.h"

typedef struct dmsg_keyset {
    uint64_t *slot; /* 0 empty, UINT64_MAX removed, else a key */
    size_t cap;     /* a power of two, or 0 */
    size_t used;    /* keys and removed marks */
    size_t live;    /* keys */
} dmsg_keyset;

/* Adds key (not 0, not UINT64_MAX, not yet a member). Errors:
 * DMSG_ERR_NOMEM (the set is unchanged). */
dmsg_status dmsg_keyset_add(dmsg_keyset *s, uint64_t key);
int dmsg_keyset_has(const dmsg_keyset *s, uint64_t key);
/* Removes key if it is a member. */
void dmsg_keyset_remove(dmsg_keyset *s, uint64_t key);
void dmsg_keyset_fini(dmsg_keyset *s);

#endif
