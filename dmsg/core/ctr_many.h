/* Many deposit counters made or ended by one collective step. A layer that
 * needs a counter per PE (RRMSG: one for the data from each sender, and its
 * channel's pair counters) paid one agreement, two barriers, per counter:
 * at 1024 simulated PEs dmsg_rr_init's 2P+2 creations were 4.2 million
 * scheduler hand-offs, five minutes of host time. */
#ifndef DMSG_CORE_CTR_MANY_H
#define DMSG_CORE_CTR_MANY_H

#include <stddef.h>
#include "dmsg.h"
#include "dmsg/base/status.h"

/* Collective over all PEs: as n calls of dmsg_ctr_create (the same slots,
 * lowest free first, each zeroed before any PE can deposit to it), agreed
 * in one step; ctrs[0..n) get the handles. Nothing is created unless all
 * are: DMSG_ERR_NOMEM when fewer than n slots are free, DMSG_ERR_NULL for
 * a NULL ctrs with n > 0, DMSG_ERR_COLLECTIVE when the PEs disagree (n, or
 * the slots found). n = 0 is a collective no-op. */
dmsg_status dmsg_ctr_create_many(dmsg_ctr *ctrs, size_t n);

/* Collective over all PEs: as n calls of dmsg_ctr_destroy of world
 * counters (a barrier: deposits to them are complete), agreed in one step.
 * A team's counter among them, or an invalid handle, is refused before
 * anything is destroyed (DMSG_ERR_ARG / the handle's error, on every PE). */
dmsg_status dmsg_ctr_destroy_many(const dmsg_ctr *ctrs, size_t n);

#endif
