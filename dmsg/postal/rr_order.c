/* RRMSG's progress in virtual-time order (rr.h).
 *
 * On a simulated machine the engine acts on one arrival at a time, the
 * earliest: a control message it can serve (a request with a posted
 * receive, a response, an acknowledgement) or the data of an accepted
 * receive, and only once the horizon says that nothing earlier can still
 * come (dmsg/core/order.h). So a response, which costs a whole data
 * transfer, no longer delays requests that arrived before it, as the
 * machine's message handlers would have served them in arrival order. */

#include <math.h>
#include <stdlib.h>
#include "dmsg/core/order.h"
#include "dmsg/core/work.h"
#include "dmsg/postal/rr.h"

typedef struct rr_event {
    double t;
    int src;
    chan_msg *m; /* NULL: data of src for its first accepted receive not yet completed */
} rr_event;

/* Whether a is to be served before b: arrival, then source, data first,
 * then the per-pair message number, so equal arrivals are served the same
 * way in every run. */
static int before(const rr_event *a, const rr_event *b)
{
    if (a->t != b->t)
        return a->t < b->t;
    if (a->src != b->src)
        return a->src < b->src;
    if (!a->m || !b->m)
        return !a->m && b->m;
    return a->m->h.seq < b->m->h.seq;
}

static dmsg_status arrival_of(chan_msg *m, double *t)
{
    if (!m->at_known) {
        chan *c = &dmsg_rr_g.ch;
        uint64_t taken = c->rx[m->src].cum_taken;
        dmsg_status st = dmsg_order_due(c->pair[m->src], 1, m->cum > taken ? m->cum - taken : 0,
                                        &m->at);
        if (st)
            return st;
        m->at_known = 1;
    }
    *t = m->at;
    return DMSG_OK;
}

static int cmp_events(const void *a, const void *b)
{
    return before(a, b) ? -1 : before(b, a) ? 1 : 0;
}

typedef struct ev_slot {
    int src;
    size_t at; /* index in the sorted batch */
} ev_slot;

typedef struct rr_batch {
    rr_event *ev;
    size_t n, cap;
    /* in_sent_order's scratch, kept with the batch from one look to the
     * next (cap entries each once grown) */
    ev_slot *slot;
    rr_event *run;
    size_t scratch_cap;
    double next; /* the earliest arrival left out (INFINITY: none) */
} rr_batch;

static dmsg_status add(rr_batch *b, const rr_event *e, double lim)
{
    if (e->t > lim) {
        b->next = e->t < b->next ? e->t : b->next;
        return DMSG_OK;
    }
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 64;
        rr_event *ev = realloc(b->ev, cap * sizeof *ev);
        if (!ev)
            return DMSG_FAIL(DMSG_ERR_NOMEM, "%zu RRMSG events", cap);
        b->ev = ev;
        b->cap = cap;
    }
    b->ev[b->n++] = *e;
    return DMSG_OK;
}

static int cmp_slots(const void *a, const void *b)
{
    const ev_slot *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

static int cmp_seq(const void *a, const void *b)
{
    const rr_event *x = a, *y = b;
    return x->m->h.seq < y->m->h.seq ? -1 : x->m->h.seq > y->m->h.seq;
}

/* The messages of one sender land in the order sent, so they are served in
 * that order, whatever arrival times their counts gave: a time is derived
 * from the counts not yet consumed when it is first asked for, and a
 * spill (dmsg_chan_make_room) consumes a run of them at once. Within each
 * sender the slots its messages took in the sorted batch get its messages
 * by their numbers (a later request overtook an earlier one of the same
 * tag, and was matched to the earlier receive, before this). */
static dmsg_status in_sent_order(rr_batch *b)
{
    if (b->scratch_cap < b->cap) {
        ev_slot *sl = realloc(b->slot, b->cap * sizeof *sl);
        if (sl)
            b->slot = sl;
        rr_event *rn = sl ? realloc(b->run, b->cap * sizeof *rn) : NULL;
        if (!rn)
            return DMSG_FAIL(DMSG_ERR_NOMEM, "%zu RRMSG events", b->cap);
        b->run = rn;
        b->scratch_cap = b->cap;
    }
    ev_slot *slot = b->slot;
    rr_event *run = b->run;
    size_t n = 0;
    for (size_t i = 0; i < b->n; i++)
        if (b->ev[i].m)
            slot[n++] = (ev_slot){.src = b->ev[i].src, .at = i};
    qsort(slot, n, sizeof *slot, cmp_slots);
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i; j < n && slot[j].src == slot[i].src; j++)
            run[j - i] = b->ev[slot[j].at];
        qsort(run, j - i, sizeof *run, cmp_seq);
        for (size_t k = i; k < j; k++) {
            double t = b->ev[slot[k].at].t; /* the slot keeps its place */
            b->ev[slot[k].at] = run[k - i];
            b->ev[slot[k].at].t = t;
        }
    }
    return DMSG_OK;
}

/* Every arrival the engine can act on now up to lim, earliest first: the
 * requests with a posted receive, responses, acknowledgements, and per
 * source the data landed for its accepted receives (they complete in
 * order). Serving them cannot add an arrival at or before the horizon
 * (its deposits come later), except data of a source that this batch
 * already holds, so one look serves them all. */
static dmsg_status collect(rr_batch *b, double lim)
{
    rr_state *g = &dmsg_rr_g;
    dmsg_status st;
    b->n = 0;
    b->next = INFINITY;
    for (chan_msg *m = g->ch.head; m; m = m->next) {
        if (RR_TYPE(m->h.type) == RR_T_REQ && !dmsg_rr_match_posted(m->src, m->h.tag, 0))
            continue; /* unexpected: waits for its receive */
        rr_event e = {.src = m->src, .m = m};
        if ((st = arrival_of(m, &e.t)) || (st = add(b, &e, lim)))
            return st;
    }
    for (int p = 0; p < dmsg_npes(); p++) {
        uint64_t k, i = 0;
        if (!g->expect[p].head)
            continue;
        if ((st = dmsg_ctr_read(g->data[p], &k, NULL)))
            return st;
        for (dmsg_rr_req *r = g->expect[p].head; r && i < k; r = r->next) {
            rr_event e = {.src = p};
            if ((st = dmsg_order_due(g->data[p], 0, ++i, &e.t)) || (st = add(b, &e, lim)))
                return st;
        }
    }
    if (b->n > 1) {
        qsort(b->ev, b->n, sizeof *b->ev, cmp_events);
        return in_sent_order(b);
    }
    return DMSG_OK;
}

static dmsg_status serve(const rr_event *ev)
{
    if (ev->m) {
        int consumed;
        dmsg_status st = dmsg_rr_on_message(ev->m, &consumed);
        if (consumed)
            dmsg_chan_consume(&dmsg_rr_g.ch, ev->m);
        return st;
    }
    dmsg_status st = dmsg_await(dmsg_rr_g.data[ev->src], 1);
    return st ? st : dmsg_rr_complete_one(ev->src); /* acknowledged once it has arrived */
}

/* Serves arrivals in virtual-time order while the horizon allows, and no
 * later than `until`; *next: the earliest arrival it had to leave
 * (INFINITY: none); *served: how many it served. */
static dmsg_status progress_ordered(double until, double *next, int *served)
{
    rr_batch b = {0};
    dmsg_status st;
    *served = 0;
    for (;;) {
        double h;
        /* The horizon first: what the walk below does not find yet
         * arrives after it. */
        if ((st = dmsg_order_horizon(&h)) || (st = dmsg_chan_progress(&dmsg_rr_g.ch)) ||
            (st = collect(&b, h < until ? h : until)))
            break;
        if (b.n == 0) { /* nothing, or not yet */
            *next = b.next;
            break;
        }
        for (size_t i = 0; i < b.n && !st; i++)
            st = serve(&b.ev[i]);
        if (st)
            break;
        *served += (int)b.n;
    }
    free(b.ev);
    free(b.slot);
    free(b.run);
    return st;
}

dmsg_status dmsg_rr_progress(void)
{
    double next;
    int served;
    return dmsg_rr_g.ch.ordered ? progress_ordered(INFINITY, &next, &served) : dmsg_rr_progress_found();
}

dmsg_status dmsg_rr_progress_wait(void)
{
    rr_state *g = &dmsg_rr_g;
    double next;
    int served;
    if (!g->ch.ordered)
        return dmsg_chan_wait(&g->ch);
    dmsg_status st = progress_ordered(INFINITY, &next, &served);
    if (st || served)
        return st;
    /* Before it sleeps, this PE makes room for the senders stuck on it, as
     * dmsg_chan_wait does in real time: two PEs that flood each other with
     * requests and then receive wait for each other's room otherwise. A
     * spill consumes its message's counts, after which its arrival can no
     * longer be told from them: every landed message learns its arrival
     * first (requests of one sender are then still served in the order
     * sent; they were not, 10 messages apart, before it did). */
    int did;
    double t;
    for (chan_msg *m = g->ch.head; m && !st; m = m->next)
        st = arrival_of(m, &t);
    if (st || (st = dmsg_chan_make_room(&g->ch, &did)) || did)
        return st;
    return dmsg_order_wait(next);
}

dmsg_status dmsg_rr_progress_test(void)
{
    if (!dmsg_rr_g.ch.ordered)
        return dmsg_rr_progress_found();
    double next, now = dmsg_wtime(), h;
    int served;
    /* Everything that arrives up to now, whatever the host's timing. */
    dmsg_status st = dmsg_order_wait(now);
    if (!st)
        st = progress_ordered(dmsg_wtime(), &next, &served);
    if (st || served)
        return st;
    if (next < INFINITY) { /* the next arrival: the clock moves there */
        if (!(st = dmsg_order_wait(next)))
            st = progress_ordered(next, &next, &served);
        return st;
    }
    /* Nothing has arrived and nothing is on its way here yet. A test still
     * takes time, as the machine's per-message software: without it a
     * polling loop would hold this PE's clock, and so the horizon of every
     * PE waiting for it to pass, where it is for ever, while it polls for
     * something those PEs must send (a deadlock, their waits ending in
     * DMSG_ERR_TIMEOUT). Each fruitless test moves the clock by one
     * message's overhead, so polls cost what the program's number of polls
     * costs, the same in every run; a machine without that overhead moves
     * it to the horizon instead (no arrival can come before it). */
    dmsg_work w = {.kind = DMSG_WORK_MESSAGE, .n = 1};
    if ((st = dmsg_work_book(&w)) || dmsg_wtime() > now)
        return st;
    if ((st = dmsg_order_horizon(&h)) || !(h > now) || isinf(h))
        return st;
    return dmsg_order_wait(h);
}
