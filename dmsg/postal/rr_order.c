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
#include "dmsg/core/order.h"
#include "dmsg/postal/rr.h"

typedef struct rr_event {
    double t;
    int src;
    chan_msg *m; /* NULL: the data of src's first accepted receive */
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

/* The earliest arrival the engine can act on now; ev->t = INFINITY: none. */
static dmsg_status earliest(rr_event *ev)
{
    rr_state *g = &dmsg_rr_g;
    dmsg_status st;
    *ev = (rr_event){.t = INFINITY, .src = -1};
    for (chan_msg *m = g->ch.head; m; m = m->next) {
        if (m->h.type == RR_T_REQ && !rr_match_posted(m->src, m->h.tag, 0))
            continue; /* unexpected: waits for its receive */
        rr_event e = {.src = m->src, .m = m};
        if ((st = arrival_of(m, &e.t)))
            return st;
        if (before(&e, ev))
            *ev = e;
    }
    for (int p = 0; p < dmsg_npes(); p++) {
        uint64_t k;
        if (!g->expect[p].head)
            continue;
        if ((st = dmsg_ctr_read(g->data[p], &k, NULL)))
            return st;
        rr_event e = {.src = p};
        if (k == 0)
            continue;
        if ((st = dmsg_order_due(g->data[p], 0, 1, &e.t)))
            return st;
        if (before(&e, ev))
            *ev = e;
    }
    return DMSG_OK;
}

/* Serves arrivals in virtual-time order while the horizon allows, and no
 * later than `until`; *next: the earliest arrival it had to leave
 * (INFINITY: none); *served: how many it served. */
static dmsg_status progress_ordered(double until, double *next, int *served)
{
    rr_state *g = &dmsg_rr_g;
    *served = 0;
    for (;;) {
        double h;
        rr_event ev;
        /* The horizon first: what the walk below does not find yet
         * arrives after it. */
        dmsg_status st = dmsg_order_horizon(&h);
        if (st || (st = chan_progress(&g->ch)) || (st = earliest(&ev)))
            return st;
        /* Nothing, or not yet (h may be infinite). */
        if (ev.src < 0 || ev.t > h || ev.t > until) {
            *next = ev.t;
            return DMSG_OK;
        }
        if (ev.m) {
            int consumed;
            st = rr_on_message(ev.m, &consumed);
            if (consumed)
                chan_consume(&g->ch, ev.m);
        } else if (!(st = dmsg_await(g->data[ev.src], 1))) {
            st = rr_complete_one(ev.src); /* acknowledged once it has arrived */
        }
        if (st)
            return st;
        ++*served;
    }
}

dmsg_status rr_progress(void)
{
    double next;
    int served;
    return dmsg_rr_g.ch.ordered ? progress_ordered(INFINITY, &next, &served) : rr_progress_found();
}

dmsg_status rr_progress_wait(void)
{
    rr_state *g = &dmsg_rr_g;
    double next;
    int served;
    if (!g->ch.ordered)
        return chan_wait(&g->ch);
    dmsg_status st = progress_ordered(INFINITY, &next, &served);
    return st || served ? st : dmsg_order_wait(next);
}

dmsg_status rr_progress_test(void)
{
    if (!dmsg_rr_g.ch.ordered)
        return rr_progress_found();
    double next, now = dmsg_wtime();
    int served;
    /* Everything that arrives up to now, whatever the host's timing. */
    dmsg_status st = dmsg_order_wait(now);
    if (!st)
        st = progress_ordered(dmsg_wtime(), &next, &served);
    if (!st && !served && next < INFINITY && !(st = dmsg_order_wait(next)))
        st = progress_ordered(next, &next, &served);
    return st;
}
