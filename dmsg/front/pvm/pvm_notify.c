/* pvm_notify: task-exit notices. Every task has a symmetric word per
 * possible watcher (watch[w] on the watched task: 0, or the tag and context
 * watcher w asked for). A task that leaves PVM first marks itself gone
 * (slot[PVM_SLOT_GONE]) and then takes every watch word with an atomic
 * swap and sends each watcher its notice; a watcher sets its word and then
 * looks at the gone mark, and if the task is gone already, takes the word
 * back with a compare-and-swap and sends the notice to itself. Both sides
 * take the word atomically, so each request gets exactly one notice, sent by
 * whichever side took it. Host and route events never happen on one host:
 * those requests are accepted and never fire. */
#include <string.h>
#include "dmsg/front/pvm/pvm_impl.h"

static int64_t *watch; /* symmetric: npes words */

int dmsg_pvm_notify_init(void)
{
    size_t bytes = (size_t)dmsg_pvm_g.npes * sizeof(int64_t);
    if (dmsg_alloc(bytes, (void **)&watch))
        return PvmNoMem;
    memset(watch, 0, bytes);
    return PvmOk;
}

/* A watch word: the tag (>= 0) plus 1 in the low half, the context in the
 * high half, so that 0 means none. */
static int64_t word_of(int tag, int ctx)
{
    return (int64_t)((uint64_t)(uint32_t)(tag + 1) | (uint64_t)(uint32_t)ctx << 32);
}

/* The notice of task `tid`'s exit to PE pe: the tid, packed as an int. */
static int notice(int pe, int64_t w, int tid)
{
    int tag = (int)(uint32_t)w - 1, ctx = (int)(uint32_t)((uint64_t)w >> 32);
    return dmsg_pvm_send_bytes(pe, tag, ctx, &tid, sizeof tid);
}

void dmsg_pvm_notify_exit(void)
{
    pvm_state *g = &dmsg_pvm_g;
    if (!watch)
        return;
    int64_t one = 1, zero = 0, w;
    if (dmsg_atomic(&g->slot[PVM_SLOT_GONE], DMSG_AMO_SET, DMSG_TYPE_INT64, &one, NULL, NULL,
                    g->me))
        return;
    for (int p = 0; p < g->npes; p++) {
        if (p == g->me)
            continue; /* its own exit: nobody left to tell */
        if (dmsg_atomic(&watch[p], DMSG_AMO_SWAP, DMSG_TYPE_INT64, &zero, NULL, &w, g->me))
            return;
        if (w)
            notice(p, w, dmsg_pvm_tid(g->me)); /* best effort: this task is leaving */
    }
}

/* Watches (or, cancelling, stops watching) task tid for this task. */
static int watch_one(int tid, int64_t w, int cancel)
{
    pvm_state *g = &dmsg_pvm_g;
    int p = dmsg_pvm_pe(tid);
    if (p == g->me)
        return PvmOk; /* its own exit: it could never receive the notice */
    if (p < 0)
        return notice(g->me, w, tid); /* no such task: gone, as PVM says */
    int64_t zero = 0, old, gone;
    if (!cancel &&
        dmsg_atomic(&watch[g->me], DMSG_AMO_SWAP, DMSG_TYPE_INT64, &w, NULL, &old, p))
        return PvmSysErr;
    if (dmsg_atomic(&g->slot[PVM_SLOT_GONE], DMSG_AMO_FETCH, DMSG_TYPE_INT64, &zero, NULL, &gone,
                    p))
        return PvmSysErr;
    if (!cancel && !gone)
        return PvmOk;
    /* gone, or cancelled: the notice goes now, if the word is still ours */
    if (dmsg_atomic(&watch[g->me], DMSG_AMO_CSWAP, DMSG_TYPE_INT64, &zero, &w, &old, p))
        return PvmSysErr;
    return old == w ? notice(g->me, w, tid) : PvmOk;
}

int pvm_notify(int what, int msgtag, int cnt, int *tids)
{
    pvm_state *g = &dmsg_pvm_g;
    int rc = dmsg_pvm_enroll();
    if (rc)
        return rc;
    int cancel = (what & PvmNotifyCancel) != 0, kind = what & ~PvmNotifyCancel;
    if (kind < PvmTaskExit || kind > PvmRouteDelete || msgtag < 0)
        return dmsg_pvm_err(PvmBadParam);
    if (kind != PvmTaskExit)
        return PvmOk; /* hosts and routes never change on one host */
    if (cnt < 0 || (cnt > 0 && !tids))
        return dmsg_pvm_err(PvmBadParam);
    int64_t w = word_of(msgtag, g->ctx);
    for (int i = 0; i < cnt; i++)
        if ((rc = watch_one(tids[i], w, cancel)))
            return dmsg_pvm_err(rc);
    return PvmOk;
}
