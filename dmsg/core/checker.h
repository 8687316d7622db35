/* The checker for well-synchronized programs (DMSG_CHECK=1, docs/model.md).
 *
 * Per barrier epoch, every PE logs the byte ranges its calls write into or
 * read from symmetric memory, with the PE whose memory it is and the
 * caller's address. The log lives at the top of the PE's own symmetric
 * segment (hidden from dmsg_alloc), where the other PEs read it with the
 * transport's fetch. After each barrier, each PE checks the records that
 * concern its own memory, from every PE's log, and reports conflicts on
 * stderr. Logs alternate by epoch parity: a PE
 * writes the next epoch's log only after the barrier that every PE passes
 * after finishing its check of the previous one.
 *
 * All entry points do nothing unless dmsg_g.check is set. */
#ifndef DMSG_CORE_CHECKER_H
#define DMSG_CORE_CHECKER_H

#include <stdint.h>
#include "dmsg/base/status.h"
#include "dmsg/transport/transport.h"

/* Bytes reserved for the logs at the top of a segment of seg_size bytes (0:
 * too small to check). */
uint64_t dmsg_chk_bytes(uint64_t seg_size);

/* Sets up this PE's log at segment offset `off` (the heap ends there). */
dmsg_status dmsg_chk_init(uint64_t off, uint64_t bytes);

/* A checked transfer issued by this PE, called from `ra`. */
void dmsg_chk_op(const dmsg_op *op, const void *ra);

/* Around every barrier (dmsg_sync, the checked collectives, finalize). */
void dmsg_chk_arrive(void);
void dmsg_chk_epoch_end(void);

/* An await of n messages (or bytes) on slot, called from ra: waits like
 * the transport's ctr_wait, but when every other PE has reached the barrier
 * that ends this epoch and the counter is still short, reports that the
 * await can never complete and returns DMSG_ERR_STATE. */
dmsg_status dmsg_chk_await(uint32_t slot, int bytes_mode, uint64_t n, const void *ra);

/* Reports of this PE so far (for the summary at finalize). */
void dmsg_chk_finalize(void);

#endif
