/* What the running transport can do, for the core's own calls, the layers
 * above it (plans, postal) and the tools: they ask capabilities
 * (DMSG_TP_CAP_*, dmsg/transport/transport.h), never the transport's name
 * (tests/layers.sh checks that). Internal: not in dmsg.h. Local, no
 * synchronization; cheap enough for any path. */
#ifndef DMSG_CORE_CAPS_H
#define DMSG_CORE_CAPS_H

#include "dmsg/transport/transport.h"

/* 1 if the running transport has every capability of the set caps, else 0
 * (also before dmsg_init and after dmsg_finalize). */
int dmsg_tp_has(unsigned caps);

/* The running transport's virtual-time extension, or NULL (it keeps real
 * time, or dmsg is not initialized). */
const dmsg_tp_vtime_ops *dmsg_vtime(void);

/* The machine whose cost model the virtual clock follows (what the
 * transport loaded at dmsg_init: a built-in name or a description file),
 * or NULL where the clock is real. */
const char *dmsg_vtime_machine(void);

#endif
