/* The transports of this build. A transport is a folder under
 * dmsg/transport/ that defines `const dmsg_tp_ops dmsg_tp_NAME_ops` and one
 * line below; docs/running.md says what it provides. The order is the order
 * of --help-env and of "not a transport of this build" messages. */
#include <string.h>
#include "dmsg/transport/transport.h"

/* The Makefile says whether ofi is built (OFI=0: no libfabric headers). */
#ifndef DMSG_WITH_OFI
#define DMSG_WITH_OFI 1
#endif
#if DMSG_WITH_OFI
#define IF_OFI(x) x
#else
#define IF_OFI(x)
#endif

#define TRANSPORTS(T) T(shm) T(sim) IF_OFI(T(ofi))

#define DECLARE(name) extern const dmsg_tp_ops dmsg_tp_##name##_ops;
#define ENTRY(name) &dmsg_tp_##name##_ops,
TRANSPORTS(DECLARE)
const dmsg_tp_ops *const dmsg_tp_all[] = {TRANSPORTS(ENTRY)};
const size_t dmsg_tp_count = sizeof dmsg_tp_all / sizeof dmsg_tp_all[0];

const dmsg_tp_ops *dmsg_tp_find(const char *name)
{
    for (size_t i = 0; i < dmsg_tp_count; i++)
        if (!strcmp(dmsg_tp_all[i]->name, name))
            return dmsg_tp_all[i];
    return NULL;
}
