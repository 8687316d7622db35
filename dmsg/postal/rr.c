/* RRMSG: lifetime and the protocol engine (request -> response -> data ->
 * acknowledgement). Control messages travel on a channel (chan.h); data is
 * one deposit straight into the receiver's destination, counted on the
 * counter data[sender] at the receiver. A sender deposits the data of one
 * receiver's responses in the order it finds them, each completed before the
 * next (dmsg_chan_kick), so the receiver's count of data deposits from a sender
 * names exactly which of its accepted responses have their data in place. */
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

/* The layer is the job's (as postal's): requests a program left behind
 * are its own memory; their counters and channel went with the job. */
static void rr_forget(void)
{
    rr_state *g = &dmsg_rr_g;
    if (!g->started)
        return;
    dmsg_chan_forget(&g->ch);
    free(g->data);
    free(g->expect);
    dmsg_rr_posted_free(&g->posted);
    dmsg_rr_live_free(&g->live);
    memset(g, 0, sizeof *g);
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
    n.data = calloc((size_t)np, sizeof *n.data);
    n.expect = calloc((size_t)np, sizeof *n.expect);
    /* A local failure must not leave the collectives out of step: the
     * channel's first collective carries the verdict (a zero-size mismatch). */
    st = dmsg_chan_open(&n.ch, (n.data && n.expect) ? RR_RING : 0, UINT64_MAX);
    if (st)
        goto err_mem;
    /* One collective step for all P counters (n.data is not NULL here: the
     * channel's first collective refused a NULL table on any PE). */
    if ((st = dmsg_ctr_create_many(n.data, (size_t)np)))
        goto err_ctrs;
    n.ch.ordered = dmsg_order_on();
    n.started = 1;
    *g = n;
    return DMSG_OK;

err_ctrs:
    dmsg_chan_close(&n.ch);
err_mem:
    free(n.data);
    free(n.expect);
    return st;
}

int dmsg_rr_finalize(void)
{
    rr_state *g = &dmsg_rr_g;
    RR_REQUIRE();
    if (g->active)
        return DMSG_FAIL(DMSG_ERR_STATE, "%llu RRMSG transfers still in progress",
                         (unsigned long long)g->active);
    dmsg_status st = dmsg_chan_close(&g->ch);
    dmsg_status s2 = dmsg_ctr_destroy_many(g->data, (size_t)dmsg_npes());
    st = st ? st : s2;
    free(g->data);
    free(g->expect);
    dmsg_rr_posted_free(&g->posted);
    dmsg_rr_live_free(&g->live);
    memset(g, 0, sizeof *g);
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

static dmsg_status send_ctl(int pe, uint32_t type, int tag, const uint64_t aux[3],
                            const void *body, size_t len)
{
    char buf[CHAN_HDR + sizeof(rr_resp)];
    chan_hdr h = {.type = type, .tag = tag};
    memcpy(h.aux, aux, sizeof h.aux);
    if (len)
        memcpy(buf + CHAN_HDR, body, len);
    dmsg_rr_g.st.control++;
    return dmsg_chan_send(&dmsg_rr_g.ch, pe, &h, buf, len);
}

dmsg_status dmsg_rr_send_request(dmsg_rr_req *r)
{
    uint64_t aux[3] = {(uint64_t)(uintptr_t)r, r->bytes, r->kind == RR_K_CONTIG ? 0 : r->elem};
    return send_ctl(r->pe, RR_T_REQ, r->tag, aux, NULL, 0);
}

static void finish(dmsg_rr_req *r, dmsg_status st)
{
    r->status = st;
    r->state = RR_S_DONE;
}

/* Whether a request of `bytes` in elements of `elem` (0: plain bytes) fits
 * the posted receive r. */
static dmsg_status fits(const dmsg_rr_req *r, uint64_t bytes, uint64_t elem)
{
    if (r->kind == RR_K_CONTIG)
        return bytes <= r->bytes ? DMSG_OK
                                 : DMSG_FAIL(DMSG_ERR_SIZE, "%llu bytes for a receive of %zu",
                                             (unsigned long long)bytes, r->bytes);
    if (bytes != r->bytes || (elem && elem != r->elem))
        return DMSG_FAIL(DMSG_ERR_SIZE, "%llu bytes of %llu-byte elements for a section of %zu "
                         "elements of %zu", (unsigned long long)bytes, (unsigned long long)elem,
                         r->n, r->elem);
    return DMSG_OK;
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

/* The send a response or acknowledgement names: a live request (the set of
 * their addresses is a hash set; the list of sends it replaced was searched
 * for each message, P^2 comparisons a PE and step in an all-to-all) that
 * waits for one; a receive never does. Nothing is read at an address that
 * is not a live request's. */
static dmsg_rr_req *find_send(uint64_t id)
{
    dmsg_rr_req *r = (dmsg_rr_req *)(uintptr_t)id;
    if (!dmsg_rr_live_has(&dmsg_rr_g.live, r))
        return NULL;
    return r->state == RR_S_WAIT_RESP || r->state == RR_S_WAIT_ACK ? r : NULL;
}

/* Gathers an indexed source into a contiguous buffer: the one case the
 * deposit API has no single call for (indexed source into a section). */
static dmsg_status deposit_packed(dmsg_rr_req *s, char *dst, const rr_resp *rp)
{
    char *tmp = malloc(s->bytes ? s->bytes : 1);
    if (!tmp)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "packing %zu bytes", s->bytes);
    for (size_t i = 0; i < s->n; i++)
        memcpy(tmp + i * s->elem, (const char *)s->src + s->idx[i] * s->elem, s->elem);
    dmsg_layout sl = {.ndims = 1, .count = {s->n}, .stride = {(ptrdiff_t)s->elem}};
    dmsg_status st = dmsg_deposit_section(dst, &rp->dl, tmp, &sl, s->elem, s->pe,
                                          dmsg_rr_g.data[dmsg_pe()]);
    free(tmp);
    dmsg_rr_g.st.pack_bytes += s->bytes;
    return st;
}

/* The receiver reserved its destination: deposit the data straight there. */
static dmsg_status deliver(dmsg_rr_req *s, const rr_resp *rp)
{
    rr_state *g = &dmsg_rr_g;
    dmsg_ctr ctr = g->data[dmsg_pe()];
    char *dst = g->ch.rings + rp->off;
    size_t el = rp->kind == RR_K_SECTION ? rp->elem : s->elem;
    dmsg_layout flat = {.ndims = 1, .count = {el ? s->bytes / el : 0}, .stride = {(ptrdiff_t)el}};
    dmsg_status st;
    if (s->kind == RR_K_GATHERED && rp->kind == RR_K_SECTION)
        st = deposit_packed(s, dst, rp);
    else if (s->kind == RR_K_GATHERED)
        st = dmsg_deposit_gathered(dst, s->src, s->idx, s->n, s->elem, s->pe, ctr);
    else if (s->kind == RR_K_CONTIG && rp->kind == RR_K_CONTIG)
        st = dmsg_deposit(dst, s->src, s->bytes, s->pe, ctr);
    else
        st = dmsg_deposit_section(dst, rp->kind == RR_K_SECTION ? &rp->dl : &flat, s->src,
                                  s->kind == RR_K_SECTION ? &s->lay : &flat, el, s->pe, ctr);
    if (!st) {
        g->st.data_bytes += s->bytes;
        st = dmsg_chan_kick(&g->ch, s->pe); /* complete before the next data deposit to pe */
    }
    return st;
}

dmsg_status dmsg_rr_on_message(chan_msg *m, int *consumed)
{
    rr_state *g = &dmsg_rr_g;
    dmsg_status st = DMSG_OK;
    *consumed = 1;
    switch (m->h.type) {
    case RR_T_REQ: {
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
        dmsg_rr_req *s = find_send(rp.sreq);
        if (!s || s->state != RR_S_WAIT_RESP)
            return DMSG_FAIL(DMSG_ERR_TRANSPORT, "response for no request from PE %d", m->src);
        if (rp.status) {
            finish(s, rp.status);
            return DMSG_OK;
        }
        s->state = RR_S_WAIT_ACK;
        st = deliver(s, &rp);
        if (st) {
            finish(s, st);
        }
        return st;
    }
    case RR_T_ACK: {
        if ((st = dmsg_chan_take(&g->ch, m)))
            return st;
        dmsg_rr_req *s = find_send(m->h.aux[0]);
        if (!s || s->state != RR_S_WAIT_ACK)
            return DMSG_FAIL(DMSG_ERR_TRANSPORT, "acknowledgement for no request from PE %d",
                             m->src);
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
    uint64_t aux[3] = {r->peer_id, 0, 0};
    dmsg_status st = send_ctl(src, RR_T_ACK, r->peer_tag, aux, NULL, 0);
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

dmsg_status dmsg_rr_progress_found(void)
{
    rr_state *g = &dmsg_rr_g;
    dmsg_status st = dmsg_chan_progress(&g->ch);
    if (st)
        return st;
    /* The responses and acknowledgements of this pass go out as one batch:
     * one completion and one wake-up per partner, not one per message. */
    g->ch.hold_bells = 1;
    chan_msg *m = g->ch.head;
    while (m && !st) {
        chan_msg *next = m->next;
        int consumed;
        st = dmsg_rr_on_message(m, &consumed);
        if (consumed)
            dmsg_chan_consume(&g->ch, m);
        m = next;
    }
    for (int p = 0; p < dmsg_npes() && !st; p++)
        st = landed(p);
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
