/* Checking a described transfer (dmsg_op, dmsg/xfer/op.h): what every
 * deposit and fetch entry point builds. Keeping deposits and fetches on one
 * descriptor means one set of checks and one call into the transport for
 * all patterns. */
#ifndef DMSG_CORE_OP_H
#define DMSG_CORE_OP_H

#include "dmsg/core/state.h"

/* Validates everything (PE, NULLs, shapes, overflow, every remote byte inside
 * the segment) without side effects but filling op->roff and op->payload. */
dmsg_status dmsg_op_check(dmsg_op *op);

/* Remote bytes [lo, hi) (segment offsets inside the segment) must not reach
 * past the highest allocated block (DMSG_ERR_RANGE): what every deposit,
 * fetch, atomic and signal checks. */
dmsg_status dmsg_heap_bound(uint64_t lo, uint64_t hi);

#endif
