/* Channels: see chan.h for the protocol. */
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "dmsg/core/ctr_many.h"
#include "dmsg/core/order.h"
#include "dmsg/core/work.h"
#include "dmsg/postal/chan.h"

/* A buffering copy (queue, spill, reassembly): a contiguous local copy,
 * booked as one (a simulated machine charges its 1C1 rate). */
dmsg_status dmsg_chan_copy(void *dst, const void *src, size_t bytes)
{
    if (!bytes)
        return DMSG_OK;
    memcpy(dst, src, bytes);
    dmsg_work w = {.kind = DMSG_WORK_COPY, .n = bytes / 8, .elem = 8, .src_stride = 8,
                   .dst_stride = 8};
    dmsg_status st = w.n ? dmsg_work_book(&w) : DMSG_OK;
    w = (dmsg_work){.kind = DMSG_WORK_COPY, .n = bytes % 8, .elem = 1, .src_stride = 1,
                    .dst_stride = 1};
    return st || !w.n ? st : dmsg_work_book(&w);
}

static uint64_t pad64(uint64_t n)
{
    return (n + CHAN_HDR - 1) & ~(uint64_t)(CHAN_HDR - 1);
}

size_t dmsg_chan_max_len(const chan *c)
{
    return c->ring / 2 - CHAN_HDR;
}

dmsg_status dmsg_chan_reserve(chan *c, int pe, uint64_t bytes)
{
    if (c->tx[pe].qbytes + bytes <= c->qlimit && bytes <= c->qlimit)
        return DMSG_OK;
    dmsg_status st = dmsg_chan_progress(c);
    if (st)
        return st;
    if (c->tx[pe].qbytes + bytes <= c->qlimit && bytes <= c->qlimit)
        return DMSG_OK;
    return DMSG_FAIL(DMSG_ERR_NOMEM,
                     "%llu bytes for PE %d with %llu queued exceed DMSG_POSTAL_QUEUE (%llu)",
                     (unsigned long long)bytes, pe, (unsigned long long)c->tx[pe].qbytes,
                     (unsigned long long)c->qlimit);
}

static void free_arrays(chan *c)
{
    free(c->tx_fp);
    free(c->rx_fp);
    free(c->rx_done);
    c->tx_fp = c->rx_fp = NULL;
    c->rx_done = NULL;
    free(c->tx);
    free(c->rx);
    free(c->pair);
    free(c->touched);
    c->tx = NULL;
    c->rx = NULL;
    c->pair = NULL;
    c->touched = NULL;
}

static dmsg_status alloc_arrays(chan *c)
{
    int n = c->npes;
    c->tx = calloc((size_t)n, sizeof *c->tx);
    c->rx = calloc((size_t)n, sizeof *c->rx);
    c->pair = calloc((size_t)n, sizeof *c->pair);
    c->touched = calloc((size_t)n, 1);
    if (!c->tx || !c->rx || !c->pair || !c->touched)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "channel tables for %d PEs", n);
    /* One table each, message number major: the first messages to and from
     * every partner share pages. A table per partner (a footprint per
     * message the ring can hold: 36 KiB a partner with postal's 256 KiB
     * mailboxes) touched a page or more of each even for one message, about
     * 12 MiB a PE at 1024 PEs, 12 GiB a job, where an all-to-all step uses a
     * few messages a partner. These are calloc'd whole (mapped on demand:
     * untouched pages cost nothing). */
    c->tx_fp = calloc(c->cap * (size_t)n, sizeof *c->tx_fp);
    c->rx_fp = calloc(c->cap * (size_t)n, sizeof *c->rx_fp);
    c->rx_done = calloc(c->cap * (size_t)n, 1);
    if (!c->tx_fp || !c->rx_fp || !c->rx_done)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "channel tables for %d PEs", n);
    return DMSG_OK;
}

/* Where message i of partner p is in a table. */
static size_t at(const chan *c, int p, uint64_t i)
{
    return (size_t)(i % c->cap) * (size_t)c->npes + (size_t)p;
}

/* Counters are collective, so every PE reaches the same verdict. All P + 2
 * in one step (dmsg_ctr_create_many), in the slots one creation at a time
 * gave: bell, fin, then pair[0..P). */
static dmsg_status make_counters(chan *c)
{
    size_t n = (size_t)c->npes + 2;
    dmsg_ctr *all = malloc(n * sizeof *all);
    /* A local failure goes into the collective as a NULL array (refused
     * there on every PE alike). */
    dmsg_status st = dmsg_ctr_create_many(all, n);
    if (!st) {
        c->bell = all[0];
        c->fin = all[1];
        memcpy(c->pair, all + 2, (size_t)c->npes * sizeof *all);
    }
    free(all);
    return st;
}

dmsg_status dmsg_chan_open(chan *c, size_t ring, uint64_t qlimit)
{
    dmsg_status st;
    memset(c, 0, sizeof *c);
    c->me = dmsg_pe();
    c->npes = dmsg_npes();
    c->ring = ring;
    c->cap = ring / CHAN_HDR;
    c->qlimit = qlimit;
    size_t total;
    if (__builtin_mul_overflow(ring, (size_t)c->npes, &total))
        return DMSG_FAIL(DMSG_ERR_NOMEM, "mailbox of %zu bytes for %d PEs", ring, c->npes);
    /* The local tables may fail on one PE only: agree before the collectives. */
    dmsg_status local = ring < 4 * CHAN_HDR
                            ? DMSG_FAIL(DMSG_ERR_NOMEM, "mailbox of %zu bytes", ring)
                            : alloc_arrays(c);
    if ((st = dmsg_alloc(local ? 0 : total, (void **)&c->rings)))
        goto err_arrays;
    if (local) {
        st = local;
        goto err_rings;
    }
    if ((st = dmsg_alloc(CHAN_HDR, (void **)&c->scratch)))
        goto err_rings;
    if ((st = make_counters(c)))
        goto err_scratch;
    c->lazy_take = !dmsg_order_on();
    c->vclock = dmsg_order_on();
    c->open = 1;
    return DMSG_OK;

err_scratch:
    dmsg_free(c->scratch);
err_rings:
    dmsg_free(c->rings);
err_arrays:
    free_arrays(c);
    return st;
}

uint64_t dmsg_chan_queued(const chan *c)
{
    uint64_t n = 0;
    for (int p = 0; p < c->npes; p++)
        n += c->tx[p].qcount;
    return n;
}

/* ------------------------------------------------------------ sending */

static uint64_t ring_free(const chan *c, const chan_tx *t)
{
    return c->ring - (t->wpos - t->cpos);
}

uint64_t dmsg_chan_headers_fit(const chan *c, int pe)
{
    const chan_tx *t = &c->tx[pe];
    uint64_t f = ring_free(c, t);
    /* each keeps a STUCK notice's room in reserve, as try_deposit does */
    return t->qhead || f < 2 * CHAN_HDR ? 0 : (f - CHAN_HDR) / CHAN_HDR;
}

/* Footprint of a message of len payload bytes written at the current position. */
static uint64_t footprint(const chan *c, const chan_tx *t, uint64_t len, int *wrap)
{
    uint64_t tail = c->ring - t->wpos % c->ring;
    *wrap = CHAN_HDR + pad64(len) > tail;
    return *wrap ? tail + pad64(len) : CHAN_HDR + pad64(len);
}

/* Deposits one message (header already in buf) into pe's ring for this PE.
 * A wrapped message is two deposits, the header first, completed in order. */
static dmsg_status deposit_msg(chan *c, int pe, char *buf, uint64_t len, uint64_t fp, int wrap)
{
    chan_tx *t = &c->tx[pe];
    char *ring = c->rings + (size_t)c->me * c->ring;
    uint64_t pos = t->wpos % c->ring;
    dmsg_status st;
    if (!wrap) {
        st = dmsg_deposit(ring + pos, buf, CHAN_HDR + len, pe, c->pair[c->me]);
    } else {
        st = dmsg_deposit(ring + pos, buf, CHAN_HDR, pe, c->pair[c->me]);
        if (!st)
            st = dmsg_quiet();
        if (!st)
            st = dmsg_deposit(ring, buf + CHAN_HDR, len, pe, c->pair[c->me]);
    }
    if (st)
        return st;
    c->tx_fp[at(c, pe, t->sent)] = (uint32_t)fp;
    t->sent++;
    t->wpos += fp;
    c->touched[pe] = 1;
    c->st.transfer_bytes += CHAN_HDR + len;
    return DMSG_OK;
}

/* Fills the fields of a header that are decided when it is deposited. */
static void stamp(chan *c, int pe, chan_hdr *h, uint64_t len, int wrap)
{
    chan_rx *r = &c->rx[pe];
    h->len = len;
    h->seq = c->tx[pe].seq++;
    h->wrap = (uint32_t)wrap;
    h->queued = (uint32_t)(c->tx[pe].qcount > UINT32_MAX ? UINT32_MAX : c->tx[pe].qcount);
    h->credit = 0;
    /* Without a bell a stuck sender might never look at room reported
     * here: it gets its reports with a bell (report_room). One not known
     * to be stuck gets them here, as with any message (a room report
     * deposit less); if it sends a STUCK notice before it read them, that
     * notice rings its bell (quiet_credit, dmsg_chan_walk). */
    if (c->silent && r->stuck)
        return;
    if (c->silent && r->freed > r->reported)
        r->quiet_credit = 1;
    h->credit = r->freed - r->reported; /* room reported with the message */
    r->reported = r->freed;
    r->unrep_bytes = 0;
}

/* Sends a message if it fits, keeping a STUCK notice's room in reserve. */
static dmsg_status try_deposit(chan *c, int pe, char *buf, uint64_t len, int *sent)
{
    chan_tx *t = &c->tx[pe];
    int wrap;
    uint64_t fp = footprint(c, t, len, &wrap);
    *sent = 0;
    if (fp + CHAN_HDR > ring_free(c, t))
        return DMSG_OK;
    chan_hdr h;
    memcpy(&h, buf, sizeof h);
    stamp(c, pe, &h, len, wrap);
    memcpy(buf, &h, sizeof h);
    dmsg_status st = deposit_msg(c, pe, buf, len, fp, wrap);
    if (!st)
        *sent = 1;
    return st;
}

static dmsg_status send_stuck(chan *c, int pe)
{
    chan_tx *t = &c->tx[pe];
    int wrap;
    if (t->stuck_sent || footprint(c, t, 0, &wrap) > ring_free(c, t))
        return DMSG_OK;
    char buf[CHAN_HDR] = {0};
    chan_hdr h = {.type = CHAN_T_STUCK};
    stamp(c, pe, &h, 0, 0);
    memcpy(buf, &h, sizeof h);
    dmsg_status st = deposit_msg(c, pe, buf, 0, CHAN_HDR, 0);
    if (!st) {
        t->stuck_sent = 1;
        c->st.control++;
    }
    return st;
}

/* Sends queued messages to pe while they fit, in order. */
static dmsg_status push_queue(chan *c, int pe)
{
    chan_tx *t = &c->tx[pe];
    dmsg_status st = DMSG_OK;
    while (t->qhead) {
        chan_qmsg *q = t->qhead;
        int sent;
        t->qcount--; /* the header tells how many stay queued behind it */
        st = try_deposit(c, pe, q->buf, q->len, &sent);
        if (st || !sent) {
            t->qcount++;
            break;
        }
        t->qhead = q->next;
        if (!t->qhead)
            t->qtail = NULL;
        t->qbytes -= q->len;
        free(q);
    }
    if (!st && t->qhead)
        st = send_stuck(c, pe);
    if (!t->qhead)
        t->stuck_sent = 0;
    return st;
}

/* Completes every deposit issued since the last bells, then rings them. */
static dmsg_status ring_bells(chan *c)
{
    int any = 0;
    for (int p = 0; p < c->npes; p++)
        any |= c->touched[p];
    if (!any)
        return DMSG_OK;
    dmsg_status st = dmsg_quiet();
    for (int p = 0; !st && p < c->npes; p++)
        if (c->touched[p]) {
            st = dmsg_deposit(c->scratch, c->scratch, 0, p, c->ordered ? DMSG_CTR_NONE : c->bell);
            c->touched[p] = 0;
            c->rx[p].quiet_credit = 0;
            c->st.control++;
        }
    return st;
}

dmsg_status dmsg_chan_kick(chan *c, int pe)
{
    c->touched[pe] = 1;
    return ring_bells(c);
}

dmsg_status dmsg_chan_ring(chan *c)
{
    return ring_bells(c);
}

dmsg_status dmsg_chan_send(chan *c, int pe, const chan_hdr *h, char *buf, size_t len)
{
    chan_tx *t = &c->tx[pe];
    memcpy(buf, h, sizeof *h);
    dmsg_status st;
    /* A batch holds the bells, not the order: an earlier deposit to pe
     * completes before the next one goes (the byte tally names a prefix). */
    if (c->hold_bells && c->touched[pe] && (st = dmsg_quiet()))
        return st;
    if (!t->qhead) {
        int sent;
        uint8_t owed = c->touched[pe];
        if ((st = try_deposit(c, pe, buf, len, &sent)))
            return st;
        if (sent && c->silent) {
            /* Completed now, so the next deposit to pe lands after it; a
             * bell owed to pe anyway (a batch) completes it with the rest. */
            c->st.sent++;
            c->touched[pe] = owed;
            return owed ? DMSG_OK : dmsg_quiet();
        }
        if (sent) {
            c->st.sent++;
            return c->hold_bells ? DMSG_OK : ring_bells(c);
        }
        /* Room may have come back since the last look. */
        if ((st = dmsg_chan_progress(c)))
            return st;
        if (!t->qhead) {
            if ((st = try_deposit(c, pe, buf, len, &sent)))
                return st;
            if (sent) {
                c->st.sent++;
                return c->hold_bells ? DMSG_OK : ring_bells(c);
            }
        }
    }
    if (t->qbytes + len > c->qlimit) {
        if ((st = dmsg_chan_progress(c)))
            return st;
        if (t->qbytes + len > c->qlimit)
            return DMSG_FAIL(DMSG_ERR_NOMEM, "mailbox of PE %d full and %llu bytes queued for it",
                             pe, (unsigned long long)t->qbytes);
    }
    double t0 = dmsg_chan_clock(c);
    chan_qmsg *q = malloc(sizeof *q + CHAN_HDR + len);
    if (!q)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "queueing a message of %zu bytes", len);
    q->next = NULL;
    q->len = len;
    dmsg_status cst = dmsg_chan_copy(q->buf, buf, CHAN_HDR + len);
    if (cst) {
        free(q);
        return cst;
    }
    c->st.t_manage += dmsg_chan_clock(c) - t0;
    if (t->qtail)
        t->qtail->next = q;
    else
        t->qhead = q;
    t->qtail = q;
    t->qbytes += len;
    t->qcount++;
    c->st.sent++;
    c->st.queued++;
    c->st.queue_bytes += len;
    if ((st = push_queue(c, pe)))
        return st;
    return c->hold_bells ? DMSG_OK : ring_bells(c);
}

/* ---------------------------------------------------------- receiving */

/* The sender learnt that n more of its messages to pe were freed. */
static void acked(chan *c, int pe, uint64_t n)
{
    chan_tx *t = &c->tx[pe];
    if (n > t->sent - t->acked)
        n = t->sent - t->acked; /* cannot happen in a correct peer; never trust past what was sent */
    for (uint64_t i = 0; i < n; i++, t->acked++)
        t->cpos += c->tx_fp[at(c, pe, t->acked)];
}

/* Frees ring room in ring order up to the first message still in use. */
static void free_prefix(chan *c, int src)
{
    chan_rx *r = &c->rx[src];
    while (r->freed < r->walked && c->rx_done[at(c, src, r->freed)]) {
        r->unrep_bytes += c->rx_fp[at(c, src, r->freed)];
        r->freed++;
    }
}

static void ring_done(chan *c, int src, uint64_t idx)
{
    c->rx_done[at(c, src, idx)] = 1;
    free_prefix(c, src);
}

static void append(chan *c, chan_msg *m)
{
    m->next = NULL;
    if (c->tail)
        c->tail->next = m;
    else
        c->head = m;
    c->tail = m;
    c->nmsgs++;
}

/* An ordered channel acts on a room report at its arrival, like on any
 * message: of the reports counted, those that have arrived by the clock
 * (the rest stay counted for a later walk). */
static dmsg_status arrived_reports(chan *c, int src, uint64_t *reports)
{
    double now = dmsg_wtime(), t;
    uint64_t k = 0;
    dmsg_status st = DMSG_OK;
    while (k < *reports && !(st = dmsg_order_due(c->pair[src], 2, k + 1, &t)) && t <= now)
        k++;
    *reports = k;
    return st;
}

#define CHAN_SPARE_MAX 64

static chan_msg *msg_new(chan *c)
{
    chan_msg *m = c->spare;
    if (!m)
        return malloc(sizeof *m);
    c->spare = m->next;
    c->nspare--;
    return m;
}

static void msg_free(chan *c, chan_msg *m)
{
    if (!c->open || c->nspare >= CHAN_SPARE_MAX) {
        free(m);
        return;
    }
    m->next = c->spare;
    c->spare = m;
    c->nspare++;
}

/* Walks the landed part of src's ring: everything the byte tally covers. */
dmsg_status dmsg_chan_walk(chan *c, int src)
{
    chan_rx *r = &c->rx[src];
    uint64_t msgs, bytes;
    dmsg_status st = DMSG_OK;
    /* This PE's own ring holds only what it sent itself (messages and room
     * reports for them): a PE that never did has nothing there to read, and
     * every progress pass would read its counter for nothing. */
    if (src == c->me && c->tx[src].sent == 0)
        return DMSG_OK;
    if ((st = dmsg_ctr_read(c->pair[src], &msgs, &bytes)))
        return st;
    /* Nothing new (no header, no room report beyond the counts still owed
     * and the messages walked and not taken): the counts owed wait for the
     * walk that finds something, so that a look (a send checking for its
     * READY, a receive for a request) costs one counter read, not two
     * awaits and a read. */
    if (msgs - r->owe_msgs <= r->dep_pending &&
        bytes - r->owe_bytes - (r->cum_walked - r->cum_taken) < CHAN_HDR)
        return DMSG_OK;
    if (r->owe_bytes)
        st = dmsg_await_bytes(c->pair[src], r->owe_bytes);
    if (!st && r->owe_msgs)
        st = dmsg_await(c->pair[src], r->owe_msgs);
    msgs -= r->owe_msgs;
    bytes -= r->owe_bytes;
    r->owe_bytes = r->owe_msgs = 0;
    if (st)
        return st;
    char *ring = c->rings + (size_t)src * c->ring;
    uint64_t off = 0, deps = 0, landed = 0, now = 0;
    /* The counts of walked messages are consumed when they are taken. */
    bytes -= r->cum_walked - r->cum_taken;
    /* The clock only when there is something to scan (most walks of a
     * progress pass find nothing, and a clock read costs as much as the
     * rest of such a walk), and only on a simulated machine: a scan never
     * waits (dmsg_chan_clock). */
    int timed = bytes >= CHAN_HDR && !c->untimed && c->vclock;
    double t0 = timed ? dmsg_wtime() : 0;
    while (bytes - off >= CHAN_HDR) {
        chan_hdr h;
        uint64_t pos = r->rpos % c->ring;
        memcpy(&h, ring + pos, sizeof h);
        if (bytes - off < CHAN_HDR + h.len) {
            landed = 1; /* a wrapped message's header without its payload yet */
            break;
        }
        uint64_t fp = h.wrap ? c->ring - pos + pad64(h.len) : CHAN_HDR + pad64(h.len);
        uint64_t idx = r->walked++;
        c->rx_fp[at(c, src, idx)] = (uint32_t)fp;
        c->rx_done[at(c, src, idx)] = 0;
        r->rpos += fp;
        off += CHAN_HDR + h.len;
        deps += h.wrap ? 2 : 1;
        acked(c, src, h.credit);
        chan_msg *m = msg_new(c);
        if (!m)
            return DMSG_FAIL(DMSG_ERR_NOMEM, "message descriptor");
        m->h = h;
        m->src = src;
        m->data = ring + (h.wrap ? 0 : pos + CHAN_HDR);
        m->spilled = 0;
        m->borrowed = 0;
        m->idx = idx;
        m->user = 0;
        r->cum_walked += CHAN_HDR + h.len;
        m->cum = r->cum_walked;
        m->ndep = h.wrap ? 2 : 1;
        m->taken = 0;
        m->at_known = 0;
        m->at = 0;
        r->dep_pending += (uint64_t)m->ndep;
        if (h.type == CHAN_T_STUCK) {
            r->stuck = 1;
            if (r->quiet_credit) { /* it may sleep before it reads that room */
                c->touched[src] = 1;
                r->quiet_credit = 0;
            }
            now += (uint64_t)m->ndep; /* read in msgs above, consumed here */
            st = dmsg_chan_take(c, m);     /* acted on now */
            msg_free(c, m);
            if (st)
                return st;
            ring_done(c, src, idx);
            continue;
        }
        if (h.queued == 0)
            r->stuck = 0;
        append(c, m);
    }
    /* The rest of the message tally are room reports, acted on now: a lower
     * bound, since the tallies were read messages first. */
    uint64_t rest = r->dep_pending + now + landed;
    uint64_t reports = msgs > rest ? msgs - rest : 0;
    if (reports && c->ordered && (st = arrived_reports(c, src, &reports)))
        return st;
    acked(c, src, reports);
    if (timed)
        c->st.t_scan += dmsg_wtime() - t0;
    if (reports && (st = c->ordered ? dmsg_order_await_empty(c->pair[src], reports)
                                    : dmsg_await(c->pair[src], reports)))
        return st;
    return DMSG_OK;
}

dmsg_status dmsg_chan_inject(chan *c, int src, const chan_hdr *h, chan_msg **out)
{
    chan_msg *m = msg_new(c);
    if (!m)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "message descriptor");
    memset(m, 0, sizeof *m);
    m->h = *h;
    m->h.len = 0;
    m->src = src;
    m->spilled = m->borrowed = m->taken = 1; /* nothing in the ring, nothing to free or take */
    chan_msg *prev = NULL, *x = c->head;
    while (x && !(x->src == src && x->h.seq >= h->seq)) {
        prev = x;
        x = x->next;
    }
    m->next = x;
    if (prev)
        prev->next = m;
    else
        c->head = m;
    if (!x)
        c->tail = m;
    c->nmsgs++;
    *out = m;
    return DMSG_OK;
}

dmsg_status dmsg_chan_take(chan *c, chan_msg *m)
{
    chan_rx *r = &c->rx[m->src];
    dmsg_status st = DMSG_OK;
    if (m->taken)
        return DMSG_OK;
    m->taken = 1;
    r->dep_pending -= (uint64_t)m->ndep;
    if (c->lazy_take) { /* the counts are there (walked): consumed at the next walk */
        if (m->cum > r->cum_taken) {
            r->owe_bytes += m->cum - r->cum_taken;
            r->cum_taken = m->cum;
        }
        r->owe_msgs += (uint64_t)m->ndep;
        return DMSG_OK;
    }
    if (m->cum > r->cum_taken) {
        st = dmsg_await_bytes(c->pair[m->src], m->cum - r->cum_taken);
        r->cum_taken = m->cum;
    }
    return st ? st : dmsg_await(c->pair[m->src], (uint64_t)m->ndep);
}

/* Room reports owed: all of them to a stuck sender, else once a quarter of
 * its ring is free and unreported. */
static dmsg_status report_room(chan *c, int src)
{
    chan_rx *r = &c->rx[src];
    uint64_t n = r->freed - r->reported;
    if (n == 0 || (!r->stuck && r->unrep_bytes < c->ring / 4))
        return DMSG_OK;
    double t0 = dmsg_chan_clock(c);
    for (uint64_t i = 0; i < n; i++) {
        dmsg_status st = dmsg_deposit(c->scratch, c->scratch, 0, src, c->pair[c->me]);
        if (st)
            return st;
        r->reported++;
        c->st.control++;
    }
    c->st.t_manage += dmsg_chan_clock(c) - t0;
    r->unrep_bytes = 0;
    c->touched[src] = 1;
    return DMSG_OK;
}

dmsg_status dmsg_chan_progress(chan *c)
{
    dmsg_status st;
    for (int p = 0; p < c->npes; p++)
        if ((st = dmsg_chan_walk(c, p)))
            return st;
    for (int p = 0; p < c->npes; p++) {
        if (c->tx[p].qhead && (st = push_queue(c, p)))
            return st;
        if ((st = report_room(c, p)))
            return st;
    }
    if (c->serve && (st = c->serve(c)))
        return st;
    return ring_bells(c);
}

/* Copies a message's payload out of the ring, so its room can be freed. */
dmsg_status dmsg_chan_spill(chan *c, chan_msg *m)
{
    if (m->spilled || !c->rx[m->src].stuck)
        return DMSG_OK;
    dmsg_status st = dmsg_chan_take(c, m);
    if (st)
        return st;
    double t0 = dmsg_chan_clock(c);
    char *copy = malloc(m->h.len ? m->h.len : 1);
    if (!copy)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "spilling a message of %llu bytes",
                         (unsigned long long)m->h.len);
    st = dmsg_chan_copy(copy, m->data, m->h.len);
    if (st) {
        free(copy);
        return st;
    }
    m->data = copy;
    m->spilled = 1;
    ring_done(c, m->src, m->idx);
    c->st.spilled++;
    c->st.spill_bytes += m->h.len;
    c->st.t_manage += dmsg_chan_clock(c) - t0;
    return DMSG_OK;
}

dmsg_status dmsg_chan_own(chan *c, chan_msg *m, size_t cap)
{
    dmsg_status st = dmsg_chan_take(c, m);
    if (st)
        return st;
    double t0 = dmsg_chan_clock(c);
    char *copy = malloc(cap ? cap : 1);
    if (!copy)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "a message of %zu bytes", cap);
    st = dmsg_chan_copy(copy, m->data, m->h.len);
    if (st) {
        free(copy);
        return st;
    }
    if (!m->spilled)
        ring_done(c, m->src, m->idx);
    else if (!m->borrowed)
        free(m->data);
    m->data = copy;
    m->spilled = 1;
    m->borrowed = 0;
    c->st.spill_bytes += m->h.len;
    c->st.t_manage += dmsg_chan_clock(c) - t0;
    return DMSG_OK;
}

dmsg_status dmsg_chan_make_room(chan *c, int *did)
{
    dmsg_status st;
    int act = 0;
    *did = 0;
    if (c->held && !c->held->spilled && c->rx[c->held->src].stuck) {
        if ((st = dmsg_chan_spill(c, c->held)))
            return st;
        act = 1;
    }
    for (chan_msg *m = c->head; m; m = m->next)
        if (!m->spilled && c->rx[m->src].stuck) {
            if ((st = dmsg_chan_spill(c, m)))
                return st;
            act = 1;
        }
    /* Room freed by receives since the last pass counts too: a stuck
     * sender waits for it as much as for the room of the spills. */
    for (int p = 0; p < c->npes && !act; p++)
        act = c->rx[p].stuck && c->rx[p].freed > c->rx[p].reported;
    if (!act)
        return DMSG_OK;
    *did = 1;
    return dmsg_chan_progress(c); /* the room reports go out */
}

dmsg_status dmsg_chan_wait(chan *c)
{
    int did;
    dmsg_status st = dmsg_chan_make_room(c, &did);
    if (st || did)
        return st; /* the caller looks again before this PE sleeps */
    if (c->ordered)
        return dmsg_order_wait(INFINITY);
    /* One wake-up at a time: on a simulated machine an await takes the
     * earliest arrivals first, so a partner's later wake-ups (a partner
     * running ahead) do not move this PE's clock before it needs them. */
    return dmsg_await(c->bell, 1);
}

void dmsg_chan_unlink(chan *c, chan_msg *m)
{
    chan_msg **pp = &c->head, *prev = NULL;
    while (*pp && *pp != m) {
        prev = *pp;
        pp = &(*pp)->next;
    }
    if (!*pp)
        return;
    *pp = m->next;
    if (c->tail == m)
        c->tail = prev;
    c->nmsgs--;
    m->next = NULL;
}

void dmsg_chan_release(chan *c, chan_msg *m)
{
    if (m->spilled) {
        if (!m->borrowed)
            free(m->data);
    }
    else
        ring_done(c, m->src, m->idx);
    msg_free(c, m);
}

void dmsg_chan_consume(chan *c, chan_msg *m)
{
    dmsg_chan_unlink(c, m);
    dmsg_chan_release(c, m);
}

/* ------------------------------------------------------------- closing */

/* Every PE delivers its queue (spilling, or dropping, what reaches it),
 * then tells every PE it is done; once all are done no ring deposit can
 * follow until the next send. */
dmsg_status dmsg_chan_drain(chan *c, int drop)
{
    dmsg_status st;
    int told = 0;
    for (;;) {
        if ((st = dmsg_chan_progress(c)))
            return st;
        if (drop) {
            while (c->head)
                dmsg_chan_consume(c, c->head);
            for (int p = 0; p < c->npes; p++)
                c->rx[p].stuck = 1; /* report all room at once */
            if ((st = dmsg_chan_progress(c)))
                return st;
        }
        if (!told && dmsg_chan_queued(c) == 0) {
            for (int p = 0; p < c->npes && !st; p++) {
                st = dmsg_deposit(c->scratch, c->scratch, 0, p, c->fin);
                c->touched[p] = 1;
            }
            if (st || (st = ring_bells(c)))
                return st;
            told = 1;
        }
        uint64_t done;
        if ((st = dmsg_ctr_read(c->fin, &done, NULL)))
            return st;
        if (told && done >= (uint64_t)c->npes)
            return dmsg_await(c->fin, (uint64_t)c->npes);
        if ((st = dmsg_chan_wait(c)))
            return st;
    }
}

void dmsg_chan_forget(chan *c)
{
    while (c->head)
        dmsg_chan_consume(c, c->head);
    while (c->spare) {
        chan_msg *m = c->spare;
        c->spare = m->next;
        free(m);
    }
    c->nspare = 0;
    for (int p = 0; c->tx && p < c->npes; p++)
        while (c->tx[p].qhead) {
            chan_qmsg *q = c->tx[p].qhead;
            c->tx[p].qhead = q->next;
            free(q);
        }
    free_arrays(c);
    c->open = 0;
}

dmsg_status dmsg_chan_close(chan *c)
{
    dmsg_status st = dmsg_chan_drain(c, 1);
    while (c->head)
        dmsg_chan_consume(c, c->head);
    /* The collectives run even after a failed drain, so the PEs stay in step
     * as far as they can; the first error is the one returned. */
    dmsg_status s2 = dmsg_ctr_destroy_many(c->pair, (size_t)c->npes);
    st = st ? st : s2;
    dmsg_ctr two[2] = {c->fin, c->bell};
    s2 = dmsg_ctr_destroy_many(two, 2);
    st = st ? st : s2;
    s2 = dmsg_free(c->scratch);
    st = st ? st : s2;
    s2 = dmsg_free(c->rings);
    st = st ? st : s2;
    dmsg_chan_forget(c);
    return st;
}
