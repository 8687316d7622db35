/* RRMSG: lifetime and the protocol engine (request -> response -> data ->
 * acknowledgement). Control messages travel on a channel (chan.h); data is
 * one deposit straight into the receiver's destination, counted on the
 * counter data[sender] at the receiver. A sender deposits the data of one
 * receiver's responses in the order it finds them, each completed before the
 * next (dmsg_chan_kick), so the receiver's count of data deposits from a sender
 * names exactly which of its accepted responses have their data in place.
 *
 * Responses ahead (transports in real time only; an ordered channel, the
 * simulator, keeps the protocol above): a receive that surely takes its
 * source's next send of its tag sends its response at posting (READY); the
 * send that finds it deposits uncounted, completes the deposit and sends its
 * request after the data (DONE), which completes the receive. Requests that
 * crossed a READY are bound to it in order (on_message). There a send is
 * complete with its data (dmsg_quiet), and acknowledgements, owed when a
 * receive completes, ride on the next control message to their sender, or
 * leave alone without a bell at the next progress pass or after the next
 * send (docs/baselines.md, "Responses sent ahead").
 *
 * Counted data (real time): one READY of a receiver at a time goes as a
 * READYC; a contiguous send of at least one byte that finds it before
 * sending a request deposits its data counted on the receiver's channel
 * bell (the count is its wake-up; bells themselves count no bytes), and no
 * DONE goes: the bell's bytes complete that receive and say how much
 * landed. A send that sent its request first (the request crossed the
 * READY) answers with a DONE as for a READY, so the request is read before
 * the transfer ends and never stays behind for a later receive. On shm
 * that READY rides on the data of the receiver's next send to its sender
 * (rr_ride.c). */
#include <stdlib.h>
#include <string.h>
#include "dmsg/core/at_fini.h"
#include "dmsg/core/ctr_many.h"
#include "dmsg/core/order.h"
#include "dmsg/core/work.h"
#include "dmsg/postal/rr.h"

rr_state dmsg_rr_g;

void dmsg_rr_fifo_push(rr_fifo *f, dmsg_rr_req *r)
{
    r->next = NULL;
    if (f->tail)
        f->tail->next = r;
    else
        f->head = r;
    f->tail = r;
}

int dmsg_rr_fifo_remove(rr_fifo *f, dmsg_rr_req *r)
{
    dmsg_rr_req *prev = NULL;
    for (dmsg_rr_req *x = f->head; x; prev = x, x = x->next)
        if (x == r) {
            if (prev)
                prev->next = r->next;
            else
                f->head = r->next;
            if (f->tail == r)
                f->tail = prev;
            r->next = NULL;
            return 1;
        }
    return 0;
}

/* Frees what dmsg_rr_init allocated and clears the state (its counters
 * and channel are ended or forgotten by the caller first). */
static void rr_free_tables(rr_state *g)
{
    free(g->data);
    free(g->expect);
    free(g->ahead);
    free(g->owed);
    free(g->ackdue);
    free(g->ackpes);
    free(g->acklisted);
    free(g->sends);
    free(g->slot_seen);
    free(g->slot_sent);
    dmsg_rr_posted_free(&g->posted);
    memset(g, 0, sizeof *g);
}

/* The layer is the job's (as postal's): requests a program left behind
 * are its own memory; their counters and channel went with the job. */
static void rr_forget(void)
{
    rr_state *g = &dmsg_rr_g;
    if (!g->started)
        return;
    dmsg_chan_forget(&g->ch);
    dmsg_rr_ride_forget(g);
    rr_free_tables(g);
}

int dmsg_rr_init(void)
{
    rr_state *g = &dmsg_rr_g;
    if (dmsg_pe() < 0)
        return DMSG_FAIL(DMSG_ERR_NOT_INIT, "dmsg_rr_init before dmsg_init");
    if (g->started)
        return DMSG_FAIL(DMSG_ERR_STATE, "dmsg_rr_init twice");
    dmsg_status st = dmsg_at_finalize(rr_forget);
    if (st)
        return st;
    rr_state n;
    memset(&n, 0, sizeof n);
    int np = dmsg_npes();
    n.nctr = (size_t)np;
    n.data = calloc(n.nctr, sizeof *n.data);
    n.expect = calloc((size_t)np, sizeof *n.expect);
    n.ahead = calloc((size_t)np, sizeof *n.ahead);
    n.owed = calloc((size_t)np, sizeof *n.owed);
    n.ackdue = calloc((size_t)np, sizeof *n.ackdue);
    n.ackpes = calloc((size_t)np, sizeof *n.ackpes);
    n.acklisted = calloc((size_t)np, sizeof *n.acklisted);
    n.sends = calloc((size_t)np, sizeof *n.sends);
    n.slot_seen = calloc((size_t)np, sizeof *n.slot_seen);
    n.slot_sent = calloc((size_t)np, sizeof *n.slot_sent);
    /* A local failure must not leave the collectives out of step: the
     * channel's first collective carries the verdict (a zero-size mismatch). */
    st = dmsg_chan_open(&n.ch, (n.data && n.expect && n.ahead && n.owed && n.ackdue && n.ackpes &&
                                   n.acklisted && n.sends && n.slot_seen && n.slot_sent)
                                  ? RR_RING
                                  : 0,
                        UINT64_MAX);
    if (st)
        goto err_mem;
    /* One collective step for all P counters (n.data is not NULL here: the
     * channel's first collective refused a NULL table on any PE). */
    if ((st = dmsg_ctr_create_many(n.data, n.nctr)))
        goto err_ctrs;
    if ((st = dmsg_rr_ride_open(&n)))
        goto err_ride;
    n.ch.ordered = dmsg_order_on();
    n.ch.untimed = 1; /* its scan time is in no RRMSG statistic */
    n.started = 1;
    *g = n;
    return DMSG_OK;

err_ride:
    dmsg_ctr_destroy_many(n.data, n.nctr);
err_ctrs:
    dmsg_chan_close(&n.ch);
err_mem:
    rr_free_tables(&n); /* the same tables (posted receives: none yet) */
    return st;
}

int dmsg_rr_finalize(void)
{
    rr_state *g = &dmsg_rr_g;
    RR_REQUIRE();
    if (g->active)
        return DMSG_FAIL(DMSG_ERR_STATE, "%llu RRMSG transfers still in progress",
                         (unsigned long long)g->active);
    dmsg_status st = dmsg_rr_flush_acks(); /* the receiver's word, before the channel goes */
    dmsg_status s2 = dmsg_chan_close(&g->ch);
    st = st ? st : s2;
    s2 = dmsg_ctr_destroy_many(g->data, g->nctr);
    st = st ? st : s2;
    s2 = dmsg_rr_ride_close(g);
    st = st ? st : s2;
    rr_free_tables(g);
    return st;
}

int dmsg_rr_stats_get(dmsg_rr_stats *stats)
{
    RR_REQUIRE();
    if (!stats)
        return DMSG_FAIL(DMSG_ERR_NULL, "stats is NULL");
    dmsg_rr_stats s = dmsg_rr_g.st;
    s.signals = dmsg_rr_g.ch.st.control;
    *stats = s;
    return DMSG_OK;
}

/* ------------------------------------------------------------ protocol */

/* The element size a request states (0: plain bytes). */
static uint64_t req_elem(const dmsg_rr_req *s)
{
    return s->kind == RR_K_CONTIG ? 0 : s->elem;
}

/* Sends a control message. On a transport in real time the
 * acknowledgements this PE owes pe ride on it (the type word's high bits):
 * the receiver learns of them as from an ACK of their own, without another
 * deposit, counter update and walk. */
static dmsg_status send_ctl(int pe, uint32_t type, int tag, const uint64_t aux[3],
                            const void *body, size_t len)
{
    rr_state *g = &dmsg_rr_g;
    char buf[CHAN_HDR + sizeof(rr_resp)];
    /* A READY held back for pe goes first: the control messages to a PE
     * leave in the order the protocol made them (rr_ride.c). */
    dmsg_status st;
    if (g->fast_held && g->fast_r->pe == pe && (st = dmsg_rr_ready_release()))
        return st;
    uint32_t acks = g->ch.ordered ? 0 : g->ackdue[pe];
    if (acks > RR_ACKS_MAX)
        acks = RR_ACKS_MAX;
    chan_hdr h = {.type = type | acks << 8, .tag = tag};
    memcpy(h.aux, aux, sizeof h.aux);
    if (len)
        memcpy(buf + CHAN_HDR, body, len);
    g->st.control++;
    st = dmsg_chan_send(&g->ch, pe, &h, buf, len);
    if (!st) {
        g->ackdue[pe] -= acks;
        g->st.ctl_sent++;
        g->st.ctl_bytes += CHAN_HDR + len;
    }
    return st;
}

dmsg_status dmsg_rr_send_request(dmsg_rr_req *r)
{
    uint64_t aux[3] = {(uint64_t)(uintptr_t)r, r->bytes, req_elem(r)};
    dmsg_status st = send_ctl(r->pe, RR_T_REQ, r->tag, aux, NULL, 0);
    /* A send's peer_id (a receive's field): 1 once its request went, so a
     * READYC found later is answered with a DONE behind that request. */
    if (!st)
        r->peer_id = 1;
    return st;
}

static void finish(dmsg_rr_req *r, dmsg_status st)
{
    r->status = st;
    r->state = RR_S_DONE;
}

/* Whether a request of `bytes` in elements of `elem` (0: plain bytes) fits
 * a receive of `kind` holding `cap` bytes in elements of `relem`: the one
 * rule, applied by the receiver to a request and by a sender to a response
 * sent ahead. */
static dmsg_status fits_rule(int kind, uint64_t cap, uint64_t relem, uint64_t bytes,
                             uint64_t elem)
{
    if (kind == RR_K_CONTIG)
        return bytes <= cap ? DMSG_OK
                            : DMSG_FAIL(DMSG_ERR_SIZE, "%llu bytes for a receive of %llu",
                                        (unsigned long long)bytes, (unsigned long long)cap);
    if (bytes != cap || (elem && elem != relem))
        return DMSG_FAIL(DMSG_ERR_SIZE, "%llu bytes of %llu-byte elements for a section of %llu "
                         "elements of %llu", (unsigned long long)bytes, (unsigned long long)elem,
                         (unsigned long long)(relem ? cap / relem : 0), (unsigned long long)relem);
    return DMSG_OK;
}

static dmsg_status fits(const dmsg_rr_req *r, uint64_t bytes, uint64_t elem)
{
    return fits_rule(r->kind, r->bytes, r->elem, bytes, elem);
}

dmsg_rr_req *dmsg_rr_match_posted(int src, int tag, int book)
{
    uint64_t pos;
    dmsg_rr_req *r = dmsg_rr_posted_first(&dmsg_rr_g.posted, src, tag, &pos);
    /* Booked as a search of the list in posting order: the receives up to
     * the match, or all of them. */
    dmsg_work w = {.kind = DMSG_WORK_MATCH, .n = pos};
    if (w.n && book)
        dmsg_work_book(&w);
    return r;
}

/* A request met a posted receive: answer it. */
static dmsg_status respond(dmsg_rr_req *r, const chan_msg *m)
{
    rr_state *g = &dmsg_rr_g;
    dmsg_rr_posted_remove(&g->posted, r);
    r->peer = m->src;
    r->peer_tag = m->h.tag;
    r->peer_id = m->h.aux[0];
    dmsg_status why = fits(r, m->h.aux[1], m->h.aux[2]);
    rr_resp body = {.sreq = m->h.aux[0], .status = why, .kind = r->kind,
                    .off = (int64_t)((char *)r->dst - g->ch.rings), .elem = r->elem, .dl = r->lay};
    uint64_t aux[3] = {0};
    dmsg_status st = send_ctl(m->src, RR_T_RESP, m->h.tag, aux, &body, sizeof body);
    if (st)
        return st;
    if (why) {
        finish(r, why);
        return DMSG_OK;
    }
    r->bytes = m->h.aux[1]; /* what will land */
    r->state = RR_S_WAIT_DATA;
    dmsg_rr_fifo_push(&g->expect[m->src], r);
    return DMSG_OK;
}

/* The send to pe that a response or acknowledgement from pe names: one of
 * the sends to pe waiting for one (a list per destination: an all-to-all
 * step has one a partner). Nothing is read at an address that is not one
 * of them. */
static dmsg_rr_req *find_send(int pe, uint64_t id)
{
    for (dmsg_rr_req *r = dmsg_rr_g.sends[pe].head; r; r = r->next)
        if ((uint64_t)(uintptr_t)r == id)
            return r->state == RR_S_WAIT_RESP || r->state == RR_S_WAIT_ACK ? r : NULL;
    return NULL;
}

/* Gathers an indexed source into a contiguous buffer: the one case the
 * deposit API has no single call for (indexed source into a section). */
static dmsg_status deposit_packed(dmsg_rr_req *s, char *dst, const rr_resp *rp, dmsg_ctr ctr)
{
    char *tmp = malloc(s->bytes ? s->bytes : 1);
    if (!tmp)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "packing %zu bytes", s->bytes);
    for (size_t i = 0; i < s->n; i++)
        memcpy(tmp + i * s->elem, (const char *)s->src + s->idx[i] * s->elem, s->elem);
    dmsg_layout sl = {.ndims = 1, .count = {s->n}, .stride = {(ptrdiff_t)s->elem}};
    dmsg_status st = dmsg_deposit_section(dst, &rp->dl, tmp, &sl, s->elem, s->pe, ctr);
    free(tmp);
    dmsg_rr_g.st.pack_bytes += s->bytes;
    return st;
}

/* The receiver reserved its destination: deposit the data straight there.
 * For a response (RESP) the deposit is counted on data[me] at the receiver
 * and its bell rung; for a response sent ahead (READY) it is not counted
 * (the DONE that follows says it is there), only completed before the DONE
 * goes. */
static dmsg_status deliver(dmsg_rr_req *s, const rr_resp *rp, int ahead)
{
    rr_state *g = &dmsg_rr_g;
    dmsg_ctr ctr = ahead ? DMSG_CTR_NONE : g->data[dmsg_pe()];
    char *dst = g->ch.rings + rp->off;
    dmsg_status st;
    if (s->kind == RR_K_CONTIG && rp->kind == RR_K_CONTIG) {
        st = dmsg_deposit(dst, s->src, s->bytes, s->pe, ctr);
    } else if (s->kind == RR_K_GATHERED && rp->kind == RR_K_SECTION) {
        st = deposit_packed(s, dst, rp, ctr);
    } else if (s->kind == RR_K_GATHERED) {
        st = dmsg_deposit_gathered(dst, s->src, s->idx, s->n, s->elem, s->pe, ctr);
    } else {
        size_t el = rp->kind == RR_K_SECTION ? rp->elem : s->elem;
        dmsg_layout flat = {.ndims = 1, .count = {el ? s->bytes / el : 0},
                            .stride = {(ptrdiff_t)el}};
        st = dmsg_deposit_section(dst, rp->kind == RR_K_SECTION ? &rp->dl : &flat, s->src,
                                  s->kind == RR_K_SECTION ? &s->lay : &flat, el, s->pe, ctr);
    }
    if (!st) {
        g->st.data_bytes += s->bytes;
        /* complete before the next data deposit to pe, or before the DONE */
        st = ahead ? dmsg_quiet() : dmsg_chan_kick(&g->ch, s->pe);
    }
    return st;
}

/* A send whose data is in the receiver's memory (dmsg_quiet completed the
 * deposit there): on a transport in real time it is complete now, its
 * source free (what the acknowledgement reports, which still follows and
 * is taken when it comes); on an ordered channel (a simulated machine) it
 * waits for the acknowledgement, as the machine's sender did. */
static void sent(dmsg_rr_req *s)
{
    rr_state *g = &dmsg_rr_g;
    if (g->ch.ordered) {
        s->state = RR_S_WAIT_ACK;
        return;
    }
    dmsg_rr_fifo_remove(&g->sends[s->pe], s);
    g->owed[s->pe]++;
    finish(s, DMSG_OK);
}

/* An acknowledgement on an ordered channel (a simulated machine): at once,
 * with its bell, as the machine's receiver sent it (its sender waits for
 * it). */
static dmsg_status ack_now(int pe, int tag, uint64_t sid)
{
    uint64_t aux[3] = {sid, 0, 0};
    return send_ctl(pe, RR_T_ACK, tag, aux, NULL, 0);
}

/* The acknowledgement of a receive whose data is in place. On a transport
 * in real time nobody waits for it (the send completed with its data): it
 * is owed to pe and rides on the next control message to pe, or goes
 * without a bell at the next progress pass or after the next send
 * (dmsg_rr_flush_acks), so a receiver that answers with a send (a
 * ping-pong) deposits that data first. It is counted now: the statistics
 * say what the protocol sent for the transfers completed, whenever and
 * however it leaves. */
static dmsg_status send_ack(int pe, int tag, uint64_t sid)
{
    rr_state *g = &dmsg_rr_g;
    if (g->ch.ordered)
        return ack_now(pe, tag, sid);
    /* Listed once until the next flush, however often its acknowledgements
     * rode away and fell due again in between (the list holds npes). */
    if (!g->acklisted[pe]) {
        g->acklisted[pe] = 1;
        g->ackpes[g->nackpes++] = pe;
    }
    g->ackdue[pe]++;
    g->st.control++;
    return DMSG_OK;
}

dmsg_status dmsg_rr_flush_acks(void)
{
    rr_state *g = &dmsg_rr_g;
    chan *c = &g->ch;
    dmsg_status st = DMSG_OK;
    size_t i = 0;
    if (!g->nackpes)
        return DMSG_OK;
    /* The PEs owed some, each once; a PE whose acknowledgements rode on
     * another message since has none left. One ACK carries all owed to a
     * PE; it rings no bell (nobody sleeps waiting for it). */
    while (i < g->nackpes && !st) {
        int pe = g->ackpes[i];
        /* A READY held for pe leaves first and carries them (send_ctl). */
        if (g->fast_held && g->fast_r->pe == pe)
            st = dmsg_rr_ready_release();
        while (g->ackdue[pe] && !st) {
            uint64_t aux[3] = {0};
            c->silent = 1;
            g->st.control--; /* counted when due: send_ctl counts it again */
            st = send_ctl(pe, RR_T_ACK, 0, aux, NULL, 0);
            c->silent = 0;
            if (st)
                g->st.control++;
        }
        if (!st)
            g->acklisted[g->ackpes[i++]] = 0;
    }
    memmove(g->ackpes, g->ackpes + i, (g->nackpes - i) * sizeof *g->ackpes);
    g->nackpes -= i;
    return st;
}

/* The first send to pe with tag still waiting for its response: a response
 * sent ahead answers the sends of a pair and tag in the order started, as
 * the receiver matches their requests in the order sent. */
static dmsg_rr_req *waiting_send(int pe, int tag)
{
    for (dmsg_rr_req *r = dmsg_rr_g.sends[pe].head; r; r = r->next)
        if (r->tag == tag && r->state == RR_S_WAIT_RESP)
            return r;
    return NULL;
}

/* A response sent ahead (READY) for the send s: check the fit as the
 * receiver would, deposit, then tell the receiver with a DONE (the request
 * of this transfer, after its data). */
static dmsg_status use_ready(dmsg_rr_req *s, const rr_resp *rp, uint64_t cap, int counted)
{
    rr_state *g = &dmsg_rr_g;
    dmsg_status why = fits_rule(rp->kind, cap, rp->elem, s->bytes, req_elem(s));
    if (!why && counted && s->kind == RR_K_CONTIG && !s->peer_id && s->bytes) {
        /* Counted data (READYC): counted on the receiver's bell, the count
         * is its wake-up and its bytes complete the receive (rr.h). No
         * DONE, no bell of its own. Complete before the send is (its
         * source is free) and before the next deposit to pe. */
        dmsg_status st = dmsg_rr_ride(s->pe); /* this PE's READY for s->pe rides along */
        if (!st)
            st = dmsg_deposit(g->ch.rings + rp->off, s->src, s->bytes, s->pe, g->ch.bell);
        if (!st) {
            g->st.data_bytes += s->bytes;
            st = dmsg_quiet();
        }
        if (!st) {
            sent(s);
            return DMSG_OK;
        }
        dmsg_rr_fifo_remove(&g->sends[s->pe], s);
        finish(s, st);
        return st;
    }
    if (!why)
        why = deliver(s, rp, 1);
    /* The data in place: the header says it all; a refusal carries why. */
    rr_done body = {.rid = rp->sreq, .status = why};
    uint64_t aux[3] = {(uint64_t)(uintptr_t)s, s->bytes, rp->sreq};
    dmsg_status st = send_ctl(s->pe, RR_T_DONE, s->tag, aux, &body, why ? sizeof body : 0);
    if (!st && !why) {
        sent(s);
        return DMSG_OK;
    }
    dmsg_rr_fifo_remove(&g->sends[s->pe], s);
    finish(s, st ? st : why);
    /* a refusal (DMSG_ERR_SIZE) is the transfer's status, not the pass's */
    return st ? st : why == DMSG_ERR_SIZE ? DMSG_OK : why;
}

/* The first receive from src answered ahead in state `state` (tag < 0: any
 * tag; id: only the receive with that id, 0: any). */
static dmsg_rr_req *find_ahead(int src, int tag, int state, uint64_t id)
{
    for (dmsg_rr_req *r = dmsg_rr_g.ahead[src].head; r; r = r->next)
        if ((tag < 0 || r->tag == tag) && (state < 0 || r->state == state) &&
            (!id || (uint64_t)(uintptr_t)r == id))
            return r;
    return NULL;
}

dmsg_status dmsg_rr_answer_ahead(dmsg_rr_req *r, int *answered)
{
    rr_state *g = &dmsg_rr_g;
    uint64_t pos;
    *answered = 0;
    /* Only a receive that takes the next request of its source and tag for
     * certain: no posted receive (a wildcard one included) could take it
     * first, and no request of that source and tag found here yet (it
     * would take that one). Requests that land later are bound to it
     * (on_message). Decided before it enters the posted index, which a
     * receive answered ahead never does. */
    if (g->ch.ordered || r->state != RR_S_POSTED || r->pe == DMSG_RR_ANY ||
        r->tag == DMSG_RR_ANY || dmsg_rr_posted_first(&g->posted, r->pe, r->tag, &pos))
        return DMSG_OK;
    /* A READY held back goes first: a receiver's READYs leave in posting
     * order (rr_ride.c). */
    dmsg_status st = dmsg_rr_ready_release();
    if (st)
        return st;
    /* A request that has landed is answered as it is (a RESP). */
    if ((st = dmsg_chan_walk(&g->ch, r->pe)))
        return st;
    for (const chan_msg *m = g->ch.head; m; m = m->next)
        if (m->src == r->pe && RR_TYPE(m->h.type) == RR_T_REQ && m->h.tag == r->tag)
            return DMSG_OK;
    /* The one READY out that its data may answer by a count (rr.h); where
     * READYs ride, it waits for this PE's next send to r->pe (not to this
     * PE itself: that send looks for it in its own ring). */
    int counted = r->kind == RR_K_CONTIG && !g->fast_r;
    if (counted && g->slots && r->pe != dmsg_pe())
        dmsg_rr_ready_hold(r);
    else if ((st = dmsg_rr_send_ready(r, counted, 0)))
        return st;
    r->state = RR_S_AHEAD;
    dmsg_rr_fifo_push(&g->ahead[r->pe], r);
    if (counted)
        g->fast_r = r;
    *answered = 1;
    return DMSG_OK;
}

dmsg_status dmsg_rr_send_ready(dmsg_rr_req *r, int counted, int bell)
{
    rr_state *g = &dmsg_rr_g;
    uint64_t rid = (uint64_t)(uintptr_t)r;
    int64_t off = (int64_t)((char *)r->dst - g->ch.rings);
    /* A contiguous receive's READY is its header alone (rr.h, rr_resp). */
    int bare = r->kind == RR_K_CONTIG;
    uint64_t aux[3] = {bare ? rid : 0, r->bytes, bare ? (uint64_t)off : 0};
    /* Without a bell: a sender finds it when it starts the send; one that
     * started before it landed sent a request, whose arrival here rings
     * its bell (on_message). So the partner of a ping-pong, asleep until
     * the data of this PE's previous send, is woken once, not twice. A READY
     * held back and sent later rings (`bell`): its sender may have sent its
     * request meanwhile and sleep, while this PE waits outside RRMSG and
     * binds nothing. The caller's own silence (an acknowledgement going
     * alone) comes back. */
    int silent = g->ch.silent;
    dmsg_status st;
    g->ch.silent = !bell;
    if (bare) {
        st = send_ctl(r->pe, counted ? RR_T_READYC : RR_T_READY, r->tag, aux, NULL, 0);
    } else {
        rr_resp body = {.sreq = rid, .status = DMSG_OK, .kind = r->kind, .off = off,
                        .elem = r->elem, .dl = r->lay};
        st = send_ctl(r->pe, RR_T_READY, r->tag, aux, &body, sizeof body);
    }
    g->ch.silent = silent;
    return st;
}

/* A READY's response into *rp: its payload, or for a contiguous receive its
 * header (no layout then: a contiguous destination has none). */
static void ready_of(const chan_msg *m, rr_resp *rp)
{
    if (m->h.len) {
        memcpy(rp, m->data, sizeof *rp);
        return;
    }
    rp->sreq = m->h.aux[0];
    rp->status = DMSG_OK;
    rp->kind = RR_K_CONTIG;
    rp->off = (int64_t)m->h.aux[2];
    rp->elem = 1;
    rp->dl.ndims = 0;
}

dmsg_status dmsg_rr_on_message(chan_msg *m, int *consumed)
{
    rr_state *g = &dmsg_rr_g;
    dmsg_status st = DMSG_OK;
    *consumed = 1;
    /* Acknowledgements that rode on the message (real time), taken once: a
     * message left for later (consumed = 0) comes back without them. */
    /* Counted data its sender deposited before this message completes its
     * receive first (the sender completed it before sending more): else a
     * request sent after it could bind to that receive, still answered
     * ahead here, and a DONE complete a later receive before it. The other
     * types concern this PE's sends: no counter read for them. */
    uint32_t type = RR_TYPE(m->h.type);
    chan_msg *in;
    if (g->fast_r && g->fast_r->pe == m->src && (type == RR_T_REQ || type == RR_T_DONE) &&
        (st = dmsg_rr_fast_landed(&in)))
        return st;
    uint32_t acks = RR_ACKS(m->h.type);
    if (acks) {
        if (acks > g->owed[m->src])
            return DMSG_FAIL(DMSG_ERR_TRANSPORT, "%u acknowledgements for %llu transfers from PE %d",
                             acks, (unsigned long long)g->owed[m->src], m->src);
        g->owed[m->src] -= acks;
        m->h.type = RR_TYPE(m->h.type);
    }
    switch (m->h.type) {
    case RR_T_REQ: {
        /* A receive answered ahead precedes every posted one that could take
         * this request (it was answered only if none was posted before it):
         * the sender answers its READY with a DONE, nothing to send here. */
        dmsg_rr_req *a = g->ch.ordered ? NULL : find_ahead(m->src, m->h.tag, RR_S_AHEAD, 0);
        if (a) {
            a->state = RR_S_BOUND;
            if ((st = dmsg_chan_take(&g->ch, m)))
                return st;
            /* The READY went without a bell: wake its sender, which may
             * sleep waiting for an answer to this request, unless its DONE
             * is here already (it found the READY). */
            for (const chan_msg *d = m->next; d; d = d->next)
                if (d->src == m->src && RR_TYPE(d->h.type) == RR_T_DONE &&
                    d->h.aux[2] == (uint64_t)(uintptr_t)a)
                    return DMSG_OK;
            return dmsg_chan_kick(&g->ch, m->src);
        }
        if (!dmsg_rr_match_posted(m->src, m->h.tag, 0)) {
            *consumed = 0; /* unexpected: waits for its receive */
            return DMSG_OK;
        }
        /* At the request's arrival first, then the matching work. */
        if ((st = dmsg_chan_take(&g->ch, m)))
            return st;
        return respond(dmsg_rr_match_posted(m->src, m->h.tag, 1), m);
    }
    case RR_T_RESP: {
        if ((st = dmsg_chan_take(&g->ch, m)))
            return st;
        rr_resp rp;
        memcpy(&rp, m->data, sizeof rp);
        dmsg_rr_req *s = find_send(m->src, rp.sreq);
        if (!s || s->state != RR_S_WAIT_RESP)
            return DMSG_FAIL(DMSG_ERR_TRANSPORT, "response for no request from PE %d", m->src);
        if (rp.status) {
            dmsg_rr_fifo_remove(&g->sends[s->pe], s);
            finish(s, rp.status);
            return DMSG_OK;
        }
        st = deliver(s, &rp, 0);
        if (st) {
            dmsg_rr_fifo_remove(&g->sends[s->pe], s);
            finish(s, st);
            return st;
        }
        sent(s);
        return DMSG_OK;
    }
    case RR_T_READY:
    case RR_T_READYC: {
        dmsg_rr_req *s = waiting_send(m->src, m->h.tag);
        if (!s) {
            *consumed = 0; /* waits for the send it answers */
            return DMSG_OK;
        }
        if ((st = dmsg_chan_take(&g->ch, m)))
            return st;
        rr_resp rp;
        ready_of(m, &rp);
        return use_ready(s, &rp, m->h.aux[1], m->h.type == RR_T_READYC);
    }
    case RR_T_DONE: {
        if ((st = dmsg_chan_take(&g->ch, m)))
            return st;
        rr_done d = {.rid = m->h.aux[2], .status = DMSG_OK};
        if (m->h.len)
            memcpy(&d, m->data, sizeof d);
        dmsg_rr_req *r = find_ahead(m->src, m->h.tag, -1, d.rid);
        if (!r || !d.rid)
            return DMSG_FAIL(DMSG_ERR_TRANSPORT, "data for no receive from PE %d", m->src);
        dmsg_rr_fifo_remove(&g->ahead[m->src], r);
        if (r == g->fast_r) /* a READYC answered with a DONE */
            g->fast_r = NULL;
        r->peer = m->src;
        r->peer_tag = m->h.tag;
        r->peer_id = m->h.aux[0];
        if (d.status) {
            finish(r, d.status);
            return DMSG_OK;
        }
        r->bytes = m->h.aux[1]; /* what landed */
        st = send_ack(m->src, m->h.tag, m->h.aux[0]);
        if (!st)
            finish(r, DMSG_OK);
        return st;
    }
    case RR_T_ACK: {
        if ((st = dmsg_chan_take(&g->ch, m)))
            return st;
        if (!g->ch.ordered) { /* its send completed with its data; its count rode above */
            if (!acks)
                return DMSG_FAIL(DMSG_ERR_TRANSPORT, "acknowledgement for no transfer from PE %d",
                                 m->src);
            return DMSG_OK;
        }
        dmsg_rr_req *s = find_send(m->src, m->h.aux[0]);
        if (!s || s->state != RR_S_WAIT_ACK)
            return DMSG_FAIL(DMSG_ERR_TRANSPORT, "acknowledgement for no request from PE %d",
                             m->src);
        dmsg_rr_fifo_remove(&g->sends[s->pe], s);
        finish(s, DMSG_OK);
        return DMSG_OK;
    }
    default: return DMSG_FAIL(DMSG_ERR_TRANSPORT, "control message of type %u", m->h.type);
    }
}

dmsg_status dmsg_rr_complete_one(int src)
{
    rr_fifo *f = &dmsg_rr_g.expect[src];
    dmsg_rr_req *r = f->head;
    f->head = r->next;
    if (!f->head)
        f->tail = NULL;
    dmsg_status st = send_ack(src, r->peer_tag, r->peer_id);
    if (!st)
        finish(r, DMSG_OK);
    return st;
}

/* Data of accepted responses that has landed: complete and acknowledge. */
static dmsg_status landed(int src)
{
    rr_state *g = &dmsg_rr_g;
    rr_fifo *f = &g->expect[src];
    if (!f->head)
        return DMSG_OK;
    uint64_t k;
    dmsg_status st = dmsg_ctr_read(g->data[src], &k, NULL);
    if (st || k == 0)
        return st;
    uint64_t done = 0;
    while (f->head && done < k) {
        done++;
        if ((st = dmsg_rr_complete_one(src)))
            return st;
    }
    /* Consumes the counts (and on a simulated machine takes the data's arrival time). */
    return dmsg_await(g->data[src], done);
}

dmsg_status dmsg_rr_fast_landed(chan_msg **in)
{
    rr_state *g = &dmsg_rr_g;
    dmsg_rr_req *r = g->fast_r;
    *in = NULL;
    if (!r || g->fast_held)
        return DMSG_OK;
    uint64_t b;
    /* The bell's bytes: only counted data adds any (bells are zero-byte
     * deposits, and its awaits consume messages only), so they only grow,
     * and what this PE has seen of them (fast_bytes) tells the new: the
     * one counted transfer it waits for, never zero bytes (use_ready). */
    dmsg_status st = dmsg_ctr_read(g->ch.bell, NULL, &b);
    if (st || b == g->fast_bytes)
        return st;
    g->fast_r = NULL;
    dmsg_rr_fifo_remove(&g->ahead[r->pe], r);
    r->peer = r->pe;
    r->peer_tag = r->tag;
    r->peer_id = 0;
    r->bytes = b - g->fast_bytes; /* what landed */
    g->fast_bytes = b;
    st = send_ack(r->pe, r->tag, 0);
    if (!st)
        finish(r, DMSG_OK);
    /* A READY of the sender's that rode on this data joins the landed
     * messages, after the ring messages it sent before it. */
    return st ? st : dmsg_rr_ride_landed(r->pe, in);
}

/* Serves the taken messages in arrival order: every one (pe < 0), or only
 * pe's answers to this PE's sends (RESP, READY), the rest left for the
 * next progress pass. */
static dmsg_status serve_taken(rr_state *g, int pe)
{
    dmsg_status st = DMSG_OK;
    chan_msg *m = g->ch.head;
    while (m && !st) {
        /* Before a message of the PE whose counted data is awaited: that
         * data, if it landed first, and a READY that rode on it, which goes
         * before this message if it was sent before it (rr_ride.c). */
        if (g->fast_r && g->fast_r->pe == m->src) {
            chan_msg *in;
            if ((st = dmsg_rr_fast_landed(&in)))
                break;
            if (in && in->next == m)
                m = in;
        }
        chan_msg *next = m->next;
        int consumed;
        uint32_t t = RR_TYPE(m->h.type);
        if (pe < 0 ||
            (m->src == pe && (t == RR_T_RESP || t == RR_T_READY || t == RR_T_READYC))) {
            st = dmsg_rr_on_message(m, &consumed);
            if (consumed)
                dmsg_chan_consume(&g->ch, m);
        }
        m = next;
    }
    return st;
}

dmsg_status dmsg_rr_progress_found(void)
{
    rr_state *g = &dmsg_rr_g;
    /* A READY held back leaves now: a progress pass may precede a wait. */
    dmsg_status st = dmsg_rr_ready_release();
    if (st || (st = dmsg_rr_flush_acks()) || (st = dmsg_chan_progress(&g->ch)))
        return st;
    /* The responses and acknowledgements of this pass go out as one batch:
     * one completion and one wake-up per partner, not one per message. */
    g->ch.hold_bells = 1;
    st = serve_taken(g, -1);
    for (int p = 0; p < dmsg_npes() && !st; p++)
        st = landed(p);
    chan_msg *in = NULL;
    if (!st)
        st = dmsg_rr_fast_landed(&in);
    if (!st && in) /* a READY rode on it: a send of this PE's may wait for it */
        st = serve_taken(g, -1);
    g->ch.hold_bells = 0;
    dmsg_status s2 = dmsg_chan_ring(&g->ch);
    return st ? st : s2;
}

dmsg_status dmsg_rr_serve_from(int pe, int walk)
{
    rr_state *g = &dmsg_rr_g;
    dmsg_status st = walk ? dmsg_chan_walk(&g->ch, pe) : DMSG_OK;
    if (st)
        return st;
    /* Only what concerns this PE's sends to pe (RESP, READY), and those in
     * arrival order: a READY behind a RESP answers the send after the one
     * the RESP answers. The rest waits for the next progress pass. */
    g->ch.hold_bells = 1;
    st = serve_taken(g, pe);
    g->ch.hold_bells = 0;
    dmsg_status s2 = dmsg_chan_ring(&g->ch);
    return st ? st : s2;
}

dmsg_status dmsg_rr_layout_span(const dmsg_layout *l, size_t elem, int written, size_t *n,
                           ptrdiff_t *lo, ptrdiff_t *hi)
{
    if (l->ndims < 1 || l->ndims > DMSG_MAX_DIMS)
        return DMSG_FAIL(DMSG_ERR_ARG, "ndims %d", l->ndims);
    size_t total = 1;
    ptrdiff_t a = 0, b = 0;
    for (int d = 0; d < l->ndims; d++) {
        if (__builtin_mul_overflow(total, l->count[d], &total))
            return DMSG_FAIL(DMSG_ERR_OVERFLOW, "element count");
        ptrdiff_t ext;
        if (l->count[d] > (size_t)PTRDIFF_MAX ||
            __builtin_mul_overflow((ptrdiff_t)(l->count[d] ? l->count[d] - 1 : 0), l->stride[d],
                                   &ext))
            return DMSG_FAIL(DMSG_ERR_OVERFLOW, "extent of dimension %d", d);
        if ((ext < 0 && __builtin_add_overflow(a, ext, &a)) ||
            (ext > 0 && __builtin_add_overflow(b, ext, &b)))
            return DMSG_FAIL(DMSG_ERR_OVERFLOW, "extent");
    }
    if (total && __builtin_add_overflow(b, (ptrdiff_t)elem, &b))
        return DMSG_FAIL(DMSG_ERR_OVERFLOW, "extent");
    if (written && total > 1) {
        /* Dimensions sorted by |stride|: each must step over all inside it. */
        int ord[DMSG_MAX_DIMS], k = 0;
        for (int d = 0; d < l->ndims; d++)
            if (l->count[d] > 1)
                ord[k++] = d;
        for (int i = 1; i < k; i++)
            for (int j = i; j > 0 && llabs(l->stride[ord[j]]) < llabs(l->stride[ord[j - 1]]); j--) {
                int t = ord[j];
                ord[j] = ord[j - 1];
                ord[j - 1] = t;
            }
        ptrdiff_t span = (ptrdiff_t)elem;
        for (int i = 0; i < k; i++) {
            ptrdiff_t s = llabs(l->stride[ord[i]]);
            if (s < span)
                return DMSG_FAIL(DMSG_ERR_ARG, "destination elements overlap (dimension %d)",
                                 ord[i]);
            span = s * (ptrdiff_t)(l->count[ord[i]] - 1) + span;
        }
    }
    *n = total;
    *lo = a;
    *hi = total ? b : a;
    return DMSG_OK;
}
