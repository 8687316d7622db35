/* The mechanism choice of a plan: per partner, direct section deposits or
 * packing, as the plan's setting and the copy-transfer model say. */
#ifndef DMSG_PLAN_CHOOSE_H
#define DMSG_PLAN_CHOOSE_H

#include "dmsg/plan/plan_impl.h"

/* Sets packable and the model predictions of every send partner of pl and
 * pl->machine. machine: a machine name or file for DMSG_PLAN_MODEL, NULL
 * for the transport's own. Errors: DMSG_ERR_ENV (unknown machine). */
dmsg_status plan_choose(dmsg_plan *pl, const char *machine);

/* Deposits row (len bytes) into this PE's row of pl->xch on every PE, then
 * dmsg_sync: afterwards every PE's row is readable everywhere. */
dmsg_status plan_exchange(dmsg_plan *pl, const void *row, size_t len);

#endif
