/* Checking and running a described transfer (dmsg_op, dmsg/transport/transport.h):
 * what every deposit and fetch entry point builds. Keeping deposits and fetches
 * on one descriptor means one set of checks and one dispatch to the transport
 * for all patterns. */
#ifndef DMSG_CORE_OP_H
#define DMSG_CORE_OP_H

#include "dmsg/core/state.h"

/* Validates everything (PE, NULLs, shapes, overflow, every remote byte inside
 * the segment) without side effects. */
dmsg_status dmsg_op_check(dmsg_op *op);

/* Moves the data of a checked op and, for puts with a counter slot other than
 * UINT32_MAX, counts it at the target after the data is visible. A transport
 * with a cost model is told first; *done_at (may be NULL) receives the time
 * the transfer completes by that model, for non-blocking fetches. */
dmsg_status dmsg_op_run(const dmsg_op *op, uint32_t slot, int nonblocking, double *done_at);

#endif
