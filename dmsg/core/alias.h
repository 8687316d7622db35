/* Aliasing process memory onto the symmetric segment (the OpenSHMEM front
 * end's static data, dmsg/front/shmem/static.c). */
#ifndef DMSG_CORE_ALIAS_H
#define DMSG_CORE_ALIAS_H

#include <stddef.h>
#include "dmsg/base/status.h"

/* Copies [at, at + len) into the symmetric block at sym (this PE's
 * segment, from dmsg_alloc) and maps the block's pages at `at`, so that a
 * store to `at` is a store to sym and a peer's deposit to sym lands at
 * `at`. Local. sym, at and len page-aligned, [sym, sym + len) inside the
 * segment. Errors: DMSG_ERR_NOT_INIT, DMSG_ERR_ALIGN, DMSG_ERR_RANGE,
 * DMSG_ERR_UNSUPPORTED (the transport has no seg_alias),
 * DMSG_ERR_TRANSPORT (the mapping failed; `at` unchanged then). */
dmsg_status dmsg_seg_alias(void *sym, size_t len, void *at);

#endif
