/* Progress and bounded waiting. Most providers here progress data only when
 * the application calls into them (FI_PROGRESS_MANUAL), so every dmsg wait
 * polls the CQ: a PE blocked in an await or a barrier keeps serving the
 * traffic that targets it, and two PEs that deposit to each other and then
 * both wait cannot deadlock. */
#include <poll.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "dmsg/transport/ofi/ofi.h"

void dmsg_ofi_complete(ofi_state *s, void *ctx, dmsg_status st)
{
    if (s->tx_pending)
        s->tx_pending--;
    ofi_batch *b = ctx;
    if (b) {
        if (st && !b->status)
            b->status = st;
        if (b->pending)
            b->pending--;
        if (b->heap && b->pending == 0) {
            /* Nobody waits for it: its failure goes to the next quiet. */
            if (b->status && !s->failed)
                s->failed = b->status;
            free(b);
        }
    }
}

static dmsg_status read_error(ofi_state *s)
{
    struct fi_cq_err_entry e = {0};
    char buf[128];
    if (fi_cq_readerr(s->fab.cq, &e, 0) != 1)
        return DMSG_OK;
    const char *pe = fi_cq_strerror(s->fab.cq, e.prov_errno, e.err_data, buf, sizeof buf);
    dmsg_status st = DMSG_FAIL(DMSG_ERR_TRANSPORT, "%s: operation failed: %s (%s)", s->caps.prov,
                               fi_strerror(e.err), pe ? pe : "");
    if (!(e.flags & FI_REMOTE_CQ_DATA))
        dmsg_ofi_complete(s, e.op_context, st);
    if (!s->failed)
        s->failed = st;
    return st;
}

/* The end of a progress call: replies the provider refused before go out,
 * the peers owed a ring since before the call (owed) get it now that the
 * provider has moved their operations, and peers asleep until this PE
 * answered them get theirs now that the provider has answered. */
static void progress_done(ofi_state *s, int owed)
{
    if (s->amo.outn)
        dmsg_ofi_amo_send_queued(s);
    if (s->bell.hdr)
        dmsg_ofi_bell_after_progress(s, owed);
}

dmsg_status dmsg_ofi_progress(ofi_state *s)
{
    struct fi_cq_data_entry ent[OFI_CQ_BATCH];
    int owed = s->bell.n;
    for (;;) {
        ssize_t n = fi_cq_read(s->fab.cq, ent, OFI_CQ_BATCH);
        if (n == -FI_EAGAIN) {
            progress_done(s, owed);
            return DMSG_OK;
        }
        if (n == -FI_EAVAIL) {
            read_error(s);
            continue;
        }
        if (n < 0)
            return DMSG_FAIL(DMSG_ERR_TRANSPORT, "%s: fi_cq_read: %s", s->caps.prov,
                             fi_strerror((int)-n));
        s->bell.events += (uint64_t)n;
        for (ssize_t i = 0; i < n; i++) {
            uint64_t fl = ent[i].flags;
            if ((fl & FI_RECV) && (fl & FI_MSG)) {
                /* A signal message (dmsg_ofi_inject_signal) or an engine message. */
                if (fl & FI_REMOTE_CQ_DATA) {
                    dmsg_ofi_on_signal(s, ent[i].data);
                    dmsg_ofi_engine_repost(s, ent[i].op_context);
                } else {
                    dmsg_ofi_engine_recv(s, ent[i].op_context, ent[i].len);
                }
            } else if (fl & FI_REMOTE_CQ_DATA) {
                dmsg_ofi_on_signal(s, ent[i].data);
            } else {
                dmsg_ofi_complete(s, ent[i].op_context, DMSG_OK);
            }
        }
        if (n < OFI_CQ_BATCH) {
            progress_done(s, owed);
            return DMSG_OK;
        }
    }
}

/* A transport error in a wait usually means a peer died (its connection was
 * reset). Under dmsgrun, give the launcher a moment to notice which PE died
 * and raise the abort flag, so that the job is reported by its real cause. */
dmsg_status dmsg_ofi_peer_failed(ofi_state *s, dmsg_status st)
{
    if (s->boot->kind == DMSG_BOOT_PMI)
        return st; /* no launcher of ours to name the dead PE */
    double until = dmsg_clock_now() + OFI_ABORT_GRACE;
    while (dmsg_clock_now() < until) {
        if (dmsg_boot_aborted(s->boot))
            return DMSG_FAIL(DMSG_ERR_ABORTED, "the launcher is tearing the job down");
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return st;
}

/* Whether a wait can sleep on the CQ's file descriptor: every event of a
 * wait arrives through the CQ where progress is manual (dmsg reads the CQ,
 * so the provider signals the descriptor when something arrives for it)
 * and deposits are counted by remote CQ data, not by counters. */
int dmsg_ofi_sleeps_on_fd(const ofi_state *s)
{
    return s->fab.wait_fd >= 0 && s->caps.manual && !s->by_counter;
}

int dmsg_ofi_idle(ofi_state *s, ofi_backoff *b, int (*ready)(ofi_state *, const void *),
             const void *arg)
{
    /* Sleep on the CQ's file descriptor. fi_trywait after an empty read
     * says whether the sleep is safe: -FI_EAGAIN means something arrived
     * in between, so poll again instead (fi_poll(3)). */
    if (dmsg_ofi_sleeps_on_fd(s)) {
        struct fid *f = &s->fab.cq->fid;
        int rc = fi_trywait(s->fab.fabric, &f, 1);
        if (rc == 0) {
            struct pollfd p = {.fd = s->fab.wait_fd, .events = POLLIN};
            poll(&p, 1, OFI_SLEEP_MS);
            return 0;
        }
        if (rc == -FI_EAGAIN)
            return 0;
    }
    /* No descriptor to sleep on: sleep a little, a little longer each time
     * nothing came (the next poll finds what arrived meanwhile). Under
     * dmsgrun the sleep is on this PE's bell, which every operation a peer
     * starts to it rings (ofi_bell.c): the backoff then only bounds how
     * long what rings no bell waits. */
    if (b->ns == 0)
        b->ns = 1000;
    int rung = 0;
    if (s->bell.hdr) {
        rung = dmsg_ofi_bell_sleep(s, b->ns, ready, arg) == 2;
    } else {
        struct timespec ts = {0, b->ns};
        nanosleep(&ts, NULL);
    }
    if (b->ns < OFI_BACKOFF_MAX_NS)
        b->ns *= 2;
    return rung;
}

/* One step of a wait after a poll that found nothing, by the wait policy
 * (dmsg/transport/wait_policy.h). A poll here is a call into the provider,
 * often a system call, so the automatic spin is a short time, not a count
 * as on shm; when PEs outnumber cores, or other work loads the host, the
 * PE we wait for needs our core, so only a poll (OFI_SPIN_OVERSUB).
 * Yielding (PEs outnumber cores and nothing will wake this PE: no
 * descriptor): the PE it waits for is likely waiting for this core;
 * sched_yield hands the core over at once and polls again when the others
 * have had their turn, where a timed sleep would wait for its timer (a
 * 1 us nanosleep sleeps about 50 us: timer slack) however soon the event
 * came. Only for OFI_YIELD_S, so that a long wait does not keep taking
 * turns on a core. With a descriptor the wait sleeps at once (the policy's
 * yield time is 0 then, ofi.c): a PE woken by the kernel gets the core
 * before PEs that merely yield it, which matters when other jobs load the
 * host (yielding there made rounds over tcp;ofi_rxm slower). Returns the
 * policy's answer; the caller ends the wait on TIMEOUT or ABORTED. */
dmsg_wait_act dmsg_ofi_wait_step(ofi_state *s, dmsg_waiter *w, ofi_backoff *b,
                                 int (*ready)(ofi_state *, const void *), const void *arg)
{
    dmsg_wait_act act = dmsg_waiter_next(w);
    if (act == DMSG_WAIT_YIELD)
        sched_yield();
    /* A peer that rang this PE awake is likely to send more soon (the next
     * atomic of a loop): poll for a spin's time again first, as at the
     * start of a wait. */
    else if (act == DMSG_WAIT_SLEEP && dmsg_ofi_idle(s, b, ready, arg))
        dmsg_waiter_respin(w);
    return act;
}

dmsg_status dmsg_ofi_wait_pred(ofi_state *s, int (*ready)(ofi_state *, const void *), const void *arg,
                          const char *what)
{
    ofi_backoff b = {0};
    dmsg_waiter w;
    dmsg_waiter_start(&w, &s->tp->wait);
    for (;;) {
        dmsg_status st = dmsg_ofi_progress(s);
        if (st)
            return dmsg_ofi_peer_failed(s, st);
        if (ready(s, arg)) {
            dmsg_waiter_done(&w);
            return DMSG_OK;
        }
        dmsg_wait_act act = dmsg_ofi_wait_step(s, &w, &b, ready, arg);
        if (act == DMSG_WAIT_TIMEOUT)
            return DMSG_FAIL(DMSG_ERR_TIMEOUT,
                             "%s: waited %g s for %s (DMSG_TIMEOUT); a peer may have died",
                             s->caps.prov, s->tp->wait.timeout, what);
        if (act == DMSG_WAIT_ABORTED)
            return dmsg_waiter_fail(&w, act, what);
    }
}

static int batch_done(ofi_state *s, const void *arg)
{
    const ofi_batch *b = arg;
    return b->pending == 0;
}

dmsg_status dmsg_ofi_wait_batch(ofi_state *s, ofi_batch *b, const char *what)
{
    dmsg_status st = b->pending ? dmsg_ofi_wait_pred(s, batch_done, b, what) : DMSG_OK;
    if (st)
        return st;
    return b->status == DMSG_ERR_TRANSPORT ? dmsg_ofi_peer_failed(s, b->status) : b->status;
}

static int all_done(ofi_state *s, const void *arg)
{
    return s->tx_pending == 0;
}

uint64_t dmsg_ofi_write_flags(const ofi_state *s, size_t bytes)
{
    if (s->caps.tx_delivers && bytes > s->caps.inject)
        return 0;
    return !s->flush && s->caps.delivery_complete == 1 ? FI_DELIVERY_COMPLETE : 0;
}

/* Where the provider orders a read after earlier writes and sends to the
 * same peer (FI_ORDER_RAW, FI_ORDER_RAS), a small read completes only after
 * they are processed at the target: one round trip per peer at quiet time
 * instead of a delivery acknowledgement per operation (which costs a round
 * trip on every tcp;ofi_rxm write). */
dmsg_status dmsg_ofi_flush(ofi_state *s, int pe)
{
    ofi_batch b = {0};
    struct fi_rma_iov r = {.addr = s->peer[pe].addr + OFI_SCRATCH_OFF, .len = sizeof s->flushbuf,
                           .key = s->peer[pe].key};
    struct iovec iov = {.iov_base = &s->flushbuf, .iov_len = sizeof s->flushbuf};
    dmsg_status st = dmsg_ofi_post_rma(s, 1, pe, &iov, 1, &r, 1, 0, 0, &b);
    dmsg_status w = dmsg_ofi_wait_batch(s, &b, "a flushing read");
    if (!st && !w)
        s->dirty[pe] = 0;
    return st ? st : w;
}

/* An operation to pe was refused with -FI_EAGAIN (its queue is full): drive
 * progress so that it drains, and fail once it has stayed full for
 * DMSG_TIMEOUT (where set). *deadline starts at 0. The refusal may never
 * end: tcp;ofi_rxm answers -FI_EAGAIN to every write to a dead PE while it
 * tries to connect again, so the retry looks for the end of the job (the
 * abort flag, dmsgrun's life pipe) as a wait does; else a PE that left
 * dmsgrun's process group spun there for ever once dmsgrun was killed. */
dmsg_status dmsg_ofi_retry(ofi_state *s, int pe, double *deadline)
{
    dmsg_status st = dmsg_ofi_progress(s);
    if (st)
        return st;
    if (dmsg_boot_aborted(s->boot))
        return DMSG_FAIL(DMSG_ERR_ABORTED, "%s: the job was stopped while PE %d's queue was full",
                         s->caps.prov, pe);
    double t = dmsg_clock_now();
    if (s->tp->conf.timeout <= 0)
        ; /* no limit (DMSG_TIMEOUT=0) */
    else if (!*deadline)
        *deadline = t + s->tp->conf.timeout;
    else if (t > *deadline)
        return DMSG_FAIL(DMSG_ERR_TIMEOUT, "%s: send queue to PE %d stayed full", s->caps.prov,
                         pe);
    else if (s->oversubscribed)
        sched_yield(); /* the PE that drains the queue may need this core */
    dmsg_ofi_bell_ring_now(s, pe); /* its progress drains the queue: wake it if it sleeps */
    return DMSG_OK;
}

dmsg_status dmsg_ofi_quiet(dmsg_tp *tp)
{
    ofi_state *s = tp->priv;
    dmsg_status st = s->tx_pending ? dmsg_ofi_wait_pred(s, all_done, NULL, "local completions")
                                   : DMSG_OK;
    if (st)
        return st;
    for (int pe = 0; pe < s->tp->npes; pe++) {
        if (s->flush && s->dirty[pe] && (st = dmsg_ofi_flush(s, pe)))
            return st;
        if (s->sigpend[pe] && (st = dmsg_ofi_flush_signals(s, pe)))
            return st;
    }
    st = s->failed;
    s->failed = DMSG_OK;
    return st == DMSG_ERR_TRANSPORT && s->eng.refused == 0 ? dmsg_ofi_peer_failed(s, st) : st;
}
