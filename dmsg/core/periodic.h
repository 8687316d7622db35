/* The deposit of a periodic pattern (dmsg/xfer/xfer.h): not public; the
 * plan layer moves a partner's periodic pieces with it in one pass. */
#ifndef DMSG_CORE_PERIODIC_H
#define DMSG_CORE_PERIODIC_H

#include "dmsg.h"
#include "dmsg/xfer/xfer.h"

/* As dmsg_deposit_section, for the runs of per from the local base src to
 * the symmetric base dst on PE pe: checked (the derived fields of *per are
 * set, every destination byte inside the allocated segment), counted at the
 * target as one message of per->bytes. Synchronization as dmsg_deposit.
 * Errors: as dmsg_deposit_section. */
int dmsg_deposit_periodic(void *dst, const void *src, dmsg_periodic *per, int pe, dmsg_ctr ctr);

/* 1 where DMSG_CHECK watches this PE's deposits: a caller that could
 * store through a mapped peer (dmsg_peer_ptr) instead deposits then, so
 * that the checker sees the stores. Local. */
int dmsg_deposits_checked(void);

#endif
