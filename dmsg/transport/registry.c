/* The transports of this build. A transport is a folder under
 * dmsg/transport/ that defines `const dmsg_tp_ops dmsg_tp_NAME_ops` and one
 * line below; docs/running.md says what it provides. The order is the order
 * of --help-env and of "not a transport of this build" messages.
 * dmsg_tp_find refuses a record that breaks transport.h's contract. */
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

/* Whether a slot is set exactly where its capability is: a slot without
 * the capability would be dead code the core never calls, a capability
 * without its slot a call into NULL. */
static int agree(unsigned caps, unsigned cap, int has_slot)
{
    return !(caps & cap) == !has_slot;
}

static const char *vtime_incomplete(const dmsg_tp_vtime_ops *v)
{
    if (!v->wtime || !v->times || !v->work || !v->machine)
        return "its vtime extension lacks a clock slot (wtime, times, work, machine)";
    if (!v->ctr_due || !v->ctr_wait_empty || !v->horizon || !v->order_wait)
        return "its vtime extension lacks an ordering slot (ctr_due, ctr_wait_empty, horizon, "
               "order_wait)";
    return NULL;
}

const char *dmsg_tp_incomplete(const dmsg_tp_ops *ops)
{
    if (!ops->name || !ops->name[0])
        return "it has no name";
    if (!ops->init || !ops->finalize)
        return "a required slot is NULL (init, finalize)";
    if (!ops->barrier || !ops->quiet || !ops->allgather)
        return "a required slot is NULL (barrier, quiet, allgather)";
    if (!ops->ctr_reset || !ops->ctr_wait || !ops->ctr_read)
        return "a required slot is NULL (ctr_reset, ctr_wait, ctr_read)";
    if (!ops->put || !ops->get || !ops->get_nb || !ops->req_test)
        return "a required slot is NULL (put, get, get_nb, req_test)";
    unsigned c = ops->caps;
    if (!agree(c, DMSG_TP_CAP_AMO4 | DMSG_TP_CAP_AMO8, ops->amo != NULL))
        return "the amo slot and the atomics capabilities (DMSG_TP_CAP_AMO4, AMO8) disagree";
    if (!agree(c, DMSG_TP_CAP_SIGNAL, ops->signal != NULL))
        return "the signal slot and DMSG_TP_CAP_SIGNAL disagree";
    if (!agree(c, DMSG_TP_CAP_WORD_WAIT, ops->word_wait != NULL))
        return "the word_wait slot and DMSG_TP_CAP_WORD_WAIT disagree";
    if (!agree(c, DMSG_TP_CAP_PEER_MAP, ops->peer_seg != NULL))
        return "the peer_seg slot and DMSG_TP_CAP_PEER_MAP disagree";
    const dmsg_tp_vtime_ops *v = dmsg_tp_vtime(ops);
    if (!agree(c, DMSG_TP_CAP_VTIME, v != NULL))
        return "its vtime extension and DMSG_TP_CAP_VTIME disagree";
    return v ? vtime_incomplete(v) : NULL;
}

const dmsg_tp_ops *dmsg_tp_find(const char *name)
{
    for (size_t i = 0; i < dmsg_tp_count; i++) {
        const dmsg_tp_ops *ops = dmsg_tp_all[i];
        if (!ops->name || strcmp(ops->name, name))
            continue;
        const char *why = dmsg_tp_incomplete(ops);
        if (!why)
            return ops;
        /* A defect of the build, not of the job: the detail of the
         * failed dmsg_init on every PE, since none may run it. */
        (void)DMSG_FAIL(DMSG_ERR_UNSUPPORTED,
                        "transport %s is refused: %s (dmsg/transport/transport.h)", name, why);
        return NULL;
    }
    return NULL;
}
