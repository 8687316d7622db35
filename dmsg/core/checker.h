/* The checker for well-synchronized programs (DMSG_CHECK=1, docs/model.md).
 *
 * Per barrier epoch, every PE logs in private memory what its dmsg calls do
 * to symmetric memory: byte ranges (runs, and regular progressions of runs,
 * so a section is a few records, not one per element) that it writes into
 * or reads from on some PE, and the events that order PEs inside an epoch:
 * counted deposits, awaits and quiets. Each record carries the PE's event
 * number in the epoch (program order).
 *
 * Before each barrier a PE publishes its log, sorted by the PE whose memory
 * each range is, in a window at the top of its own symmetric segment (hidden
 * from dmsg_alloc); after it, every PE reads from every window the ordering
 * events and the ranges of its own memory (with the transport's fetch),
 * rebuilds which awaits certainly consumed which deposits (vector clocks),
 * and reports overlapping ranges of two PEs, one of them a write, that
 * neither a barrier nor such a chain of deposits and awaits orders. A log
 * larger than the window is passed on in rounds (two extra barriers each),
 * so nothing is left unchecked. Windows alternate by epoch parity: a PE
 * writes the next epoch's window only after the barrier that every PE
 * passes after finishing its check of the previous one.
 *
 * All entry points do nothing unless dmsg_g.check is set. */
#ifndef DMSG_CORE_CHECKER_H
#define DMSG_CORE_CHECKER_H

#include <stdint.h>
#include "dmsg/base/status.h"
#include "dmsg/transport/transport.h"

/* Bytes reserved for the window at the top of a segment of seg_size bytes:
 * `want` (DMSG_CHECK_LOG) or, when it is 0, a quarter of the segment up to
 * 32M; 0: the segment is too small to check. */
uint64_t dmsg_chk_bytes(uint64_t seg_size, uint64_t want);

/* Sets up this PE's window at segment offset `off` (the heap ends there). */
dmsg_status dmsg_chk_init(uint64_t off, uint64_t bytes);

/* A checked transfer issued by this PE, called from `ra`: slot is the
 * counter it names (UINT32_MAX: none); nb: a non-blocking fetch (complete
 * only at the next quiet or barrier). */
void dmsg_chk_op(const dmsg_op *op, uint32_t slot, int nb, const void *ra);

/* dmsg_quiet: this PE's deposits issued so far are complete. */
void dmsg_chk_quiet(void);

/* A counter slot was created (its counts start from zero). */
void dmsg_chk_ctr_reset(uint32_t slot);

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
