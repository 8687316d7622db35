/* Shared by the atomic, signal and wait entry points (amo.c, signal.c,
 * waitu.c). */
#ifndef DMSG_CORE_AMO_H
#define DMSG_CORE_AMO_H

#include "dmsg/core/state.h"

/* Whether an atomic op returns the old value (FETCH, SWAP, CSWAP, FETCH_*). */
int dmsg_amo_fetches(int op);

/* A word of size bytes at symmetric address p (not NULL): inside the
 * segment and below the highest allocated block (DMSG_ERR_RANGE), aligned
 * to its size (DMSG_ERR_ALIGN); *off: its segment offset. */
dmsg_status dmsg_word_check(const void *p, size_t size, size_t *off);

/* Whether the transport ops claims atomics on words of size (4 or 8)
 * bytes (DMSG_TP_CAP_AMO4/AMO8): DMSG_OK, else DMSG_ERR_UNSUPPORTED with a
 * detail naming the size and the transport. The core asks it before every
 * atomic, so none reaches a transport on a size it does not claim. */
dmsg_status dmsg_amo_supported(const dmsg_tp_ops *ops, int size);

#endif
