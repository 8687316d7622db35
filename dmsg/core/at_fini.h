/* State that the layers above the core keep per job (the plan layer's
 * agreed host model) must end with the job: the core cannot call up into
 * those layers, so they register a function here that dmsg_finalize runs,
 * and a later dmsg_init in the same process starts from nothing. */
#ifndef DMSG_CORE_AT_FINI_H
#define DMSG_CORE_AT_FINI_H

#include "dmsg/base/status.h"

/* Registers fn to run at every later dmsg_finalize of this process, after
 * its last barrier (fn must not call dmsg; it forgets state). Registering
 * the same fn again does nothing. DMSG_ERR_NOMEM when the few slots are
 * all taken (a new user of this needs a larger DMSG_AT_FINI_MAX). */
dmsg_status dmsg_at_finalize(void (*fn)(void));

/* Runs the registered functions, in registration order (dmsg_finalize). */
void dmsg_at_finalize_run(void);

/* Sets the one function that runs at the start of every core call that may
 * wait for other PEs (dmsg_wait_enter: barriers, awaits, quiet, fetches,
 * collectives), before it waits; NULL removes it. For a layer that holds
 * back a message another PE may be waiting for (RRMSG's response sent
 * ahead, which rides on the next send's data when there is one): it goes
 * before this PE waits for anything. fn runs inside the waits of its own
 * layer too and within the deposits it makes itself: it must return at once
 * when it has nothing to send or is already running. dmsg_finalize removes
 * it. */
void dmsg_before_wait(void (*fn)(void));

#endif
