/* The postal send side: the send buffer, packing, sending. The send buffer
 * is private memory that grows as it is packed, so a message may have any
 * size; packing copies the user's strided elements into it and books the
 * copy as modelled work (a local copy of that pattern on a simulated
 * machine). A message longer than a channel message goes as fragments. */
#include <stdlib.h>
#include <string.h>
#include "dmsg/core/order.h"
#include "dmsg/core/work.h"
#include "dmsg/postal/postal.h"

/* Keeps private memory of a send buffer as a spare (replacing the smallest
 * when all are taken), or frees it. */
static void buf_drop_private(char *p, size_t cap)
{
    postal_state *g = &dmsg_postal_g;
    int k = 0;
    for (int i = 1; i < POSTAL_SPARES; i++)
        if (g->spare_cap[i] < g->spare_cap[k])
            k = i;
    if (p && cap > g->spare_cap[k]) {
        free(g->spare[k]);
        g->spare[k] = p;
        g->spare_cap[k] = cap;
    } else {
        free(p);
    }
}

/* A spare of at least `need` bytes (the smallest such), or NULL. */
static char *spare_take(size_t need, size_t *cap)
{
    postal_state *g = &dmsg_postal_g;
    int k = -1;
    for (int i = 0; i < POSTAL_SPARES; i++)
        if (g->spare[i] && g->spare_cap[i] >= need && (k < 0 || g->spare_cap[i] < g->spare_cap[k]))
            k = i;
    if (k < 0)
        return NULL;
    char *p = g->spare[k];
    *cap = g->spare_cap[k];
    g->spare[k] = NULL;
    g->spare_cap[k] = 0;
    return p;
}

/* Drops one reference to lent memory; the last one keeps it as a spare. */
static void lend_put(postal_lend *l)
{
    if (--l->refs > 0 || l->fixed)
        return;
    buf_drop_private(l->p, l->cap);
    free(l);
}

/* The send buffer stops sharing its memory with pending large messages
 * before anything writes to it: it takes other memory, with a copy of the
 * first `keep` packed bytes (packing more after a send appends). */
static dmsg_status buf_detach(postal_buf *b, size_t keep)
{
    postal_lend *l = b->lent;
    if (!l)
        return DMSG_OK;
    if (l->refs == 1) { /* every large message is gone: the memory is the buffer's again */
        if (!l->fixed) {
            free(l);
            b->lent = NULL;
        }
        return DMSG_OK;
    }
    size_t cap = keep > 4096 ? keep : 4096;
    char *p = spare_take(cap, &cap);
    if (!p && !(p = malloc(CHAN_HDR + cap)))
        return DMSG_FAIL(DMSG_ERR_NOMEM, "send buffer of %zu bytes", cap);
    if (keep)
        memcpy(p + CHAN_HDR, b->p + CHAN_HDR, keep);
    b->p = p;
    b->cap = cap;
    b->lent = NULL;
    lend_put(l);
    return DMSG_OK;
}

/* Whether b lies in a region of the out-window. */
static int in_owin(const postal_buf *b)
{
    return b->lent && b->lent->fixed;
}

/* Where a new region of the out-window would start (its offset in owin,
 * a multiple of 64): past every region in use, except `skip`. */
static size_t owin_top(const postal_lend *skip)
{
    postal_state *g = &dmsg_postal_g;
    size_t top = 0;
    for (int i = 0; i < POSTAL_OREGIONS; i++) {
        const postal_lend *r = &g->oreg[i];
        if (r->refs > 0 && r != skip) {
            size_t end = (size_t)(r->p - g->owin) + CHAN_HDR + r->cap;
            if (end > top)
                top = end;
        }
    }
    return top;
}

/* A free region slot of the out-window and the bytes a buffer placed
 * there may hold (*room), or NULL: none free, or (a simulated machine) a
 * region in use. The region `skip` counts as free (a buffer about to
 * leave it). */
static postal_lend *owin_free(const postal_lend *skip, size_t *top, size_t *room)
{
    postal_state *g = &dmsg_postal_g;
    postal_lend *slot = NULL;
    int busy = 0;
    for (int i = 0; i < POSTAL_OREGIONS; i++) {
        postal_lend *r = &g->oreg[i];
        if (r->refs > 0 && r != skip)
            busy = 1;
        else if (!slot)
            slot = r;
    }
    /* On sim one large message at a time is pulled, the rest pushed, as
     * before regions: its figures stay those of that protocol. */
    if (!g->owin || !slot || (busy && dmsg_order_on()))
        return NULL;
    *top = owin_top(skip);
    *room = *top < g->winsize ? g->winsize - *top : 0;
    return slot;
}

/* A send buffer about to outgrow a fragment moves into a free region of
 * the out-window if it fits there (its large message is then fetched by
 * the receiver); until it is sent the region reaches to the window's end,
 * and send_bulk trims it to the packed bytes. One about to outgrow its
 * region moves out of it. */
static dmsg_status buf_place(postal_buf *b, size_t need)
{
    postal_state *g = &dmsg_postal_g;
    int in = in_owin(b);
    size_t top, room;
    postal_lend *r = NULL;
    int large = !in && g->owin && need > dmsg_chan_max_len(&g->ch);
    dmsg_status st;
    if (large && !((r = owin_free(NULL, &top, &room)) && need <= room) && g->pending &&
        !dmsg_order_on()) { /* (sim: one region at a time, its figures as before) */
        /* Reports of fetched messages may have come (a receiver that keeps
         * a message active reports it at its next receive, often just
         * after its answer): one progress pass takes them, instead of
         * sending this message the slow way (pushed). */
        if ((st = dmsg_postal_progress()))
            return st;
        r = owin_free(NULL, &top, &room);
    }
    if (large && r && need <= room) {
        /* buf_detach ran: b's memory is its own (b->lent is NULL) */
        if (b->used)
            memcpy(g->owin + top + CHAN_HDR, b->p + CHAN_HDR, b->used);
        buf_drop_private(b->p, b->cap);
        *r = (postal_lend){.refs = 1, .p = g->owin + top, .cap = room, .fixed = 1};
        b->p = r->p;
        b->cap = r->cap;
        b->lent = r;
        return DMSG_OK;
    }
    if (in && need > b->cap) {
        /* buf_detach ran: the buffer is the region's only user */
        size_t cap = need;
        char *p = malloc(CHAN_HDR + cap);
        if (!p)
            return DMSG_FAIL(DMSG_ERR_NOMEM, "send buffer of %zu bytes", cap);
        memcpy(p + CHAN_HDR, b->p + CHAN_HDR, b->used);
        b->lent->refs = 0;
        b->p = p;
        b->cap = cap;
        b->lent = NULL;
    }
    return DMSG_OK;
}

/* Makes room for `more` packed bytes after the used ones. A message may
 * not exceed the queue limit (it may all have to wait in the queue). */
static dmsg_status buf_room(postal_buf *b, size_t more)
{
    postal_state *g = &dmsg_postal_g;
    size_t need, most = (size_t)g->ch.qlimit;
    if (__builtin_add_overflow(b->used, more, &need) || need > most)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "message of %zu + %zu bytes exceeds %zu (DMSG_POSTAL_QUEUE)",
                         b->used, more, most);
    dmsg_status st = buf_detach(b, b->used);
    if (st || (st = buf_place(b, need)))
        return st;
    if (need <= b->cap && b->p)
        return DMSG_OK;
    if (!b->p && (b->p = spare_take(need, &b->cap)))
        return DMSG_OK;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < need)
        cap = cap > PTRDIFF_MAX / 2 ? need : 2 * cap;
    char *p = realloc(b->p, CHAN_HDR + cap);
    if (!p)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "send buffer of %zu bytes", cap);
    b->p = p;
    b->cap = cap;
    return DMSG_OK;
}

/* Empties a send buffer. One that sits alone in a region of the
 * out-window leaves it, so that the next large messages can have it. */
static dmsg_status buf_reset(postal_buf *b)
{
    b->used = 0;
    dmsg_status st = buf_detach(b, 0);
    if (!st && in_owin(b)) { /* buf_detach: the buffer is the region's only user */
        b->lent->refs = 0;
        *b = (postal_buf){0};
    }
    return st;
}

int dmsg_postal_initsend(void)
{
    POSTAL_REQUIRE();
    return buf_reset(&dmsg_postal_g.sbuf);
}

int dmsg_postal_pk(const void *data, long n, long stride, size_t elem_size)
{
    postal_state *g = &dmsg_postal_g;
    POSTAL_REQUIRE();
    size_t bytes, span;
    dmsg_status st = dmsg_postal_check_strided(data, n, stride, elem_size, &bytes, &span);
    if (st || (st = buf_room(&g->sbuf, bytes)))
        return st;
    if (n == 0)
        return DMSG_OK;
    double t0 = dmsg_postal_clock();
    st = dmsg_postal_copy(g->sbuf.p + CHAN_HDR + g->sbuf.used, (ptrdiff_t)elem_size, data,
                     (ptrdiff_t)((size_t)stride * elem_size), (size_t)n, elem_size);
    if (st)
        return st;
    g->sbuf.used += bytes;
    g->st.pack_bytes += bytes;
    g->st.pack_time += dmsg_postal_clock() - t0;
    return DMSG_OK;
}

#define PK(name, type, size)                                                                       \
    int dmsg_postal_pk_##name(const type *data, long n, long stride)                               \
    {                                                                                              \
        return dmsg_postal_pk(data, n, stride, size);                                              \
    }
PK(byte, int8_t, 1)
PK(short, int16_t, 2)
PK(int, int32_t, 4)
PK(long, int64_t, 8)
PK(float, float, 4)
PK(double, double, 8)
PK(cplx, float, 8)
PK(dcplx, double, 16)

static dmsg_status check_dest(int pe, int tag)
{
    if (pe < 0 || pe >= dmsg_npes())
        return DMSG_FAIL(DMSG_ERR_PE, "PE %d of %d", pe, dmsg_npes());
    if (tag < 0)
        return DMSG_FAIL(DMSG_ERR_ARG, "tag %d (a send needs a tag >= 0)", tag);
    return DMSG_OK;
}

/* Announces the packed bytes of b as a large message: an RTS to pe, and
 * b's memory lent to the message until the receiver's grants have been
 * served (no copy; a later pack into b detaches it). A buffer in the
 * out-window is announced as a PULL (the receiver fetches it), or as a
 * STREAM when its bytes are still being copied there (send_stream). */
static dmsg_status send_bulk(postal_buf *b, int pe, int tag, uint64_t cw, int stream)
{
    postal_state *g = &dmsg_postal_g;
    int pull = in_owin(b); /* fetched by the receiver from the out-window */
    postal_bulk *e = malloc(sizeof *e);
    if (!e)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "a large message's record");
    if (!b->lent) {
        if (!(b->lent = malloc(sizeof *b->lent))) {
            free(e);
            return DMSG_FAIL(DMSG_ERR_NOMEM, "a large message's record");
        }
        *b->lent = (postal_lend){.refs = 1, .p = b->p, .cap = b->cap};
    }
    char hbuf[CHAN_HDR];
    chan_hdr h = {.type = stream ? POSTAL_T_STREAM : pull ? POSTAL_T_PULL : POSTAL_T_RTS, .tag = tag};
    h.aux[POSTAL_AUX_TOTAL] = b->used;
    g->bulk_ids = (uint32_t)(g->bulk_ids + 1); /* the announcement carries 32 bits of it */
    h.aux[POSTAL_AUX_ANN_ID] = dmsg_postal_ann(g->bulk_ids, pull ? (size_t)(b->p - g->owin) : 0);
    h.aux[POSTAL_AUX_CTX] = cw;
    dmsg_status st = dmsg_chan_send(&g->ch, pe, &h, hbuf, 0);
    if (st) {
        free(e);
        return st;
    }
    *e = (postal_bulk){.pe = pe, .id = g->bulk_ids, .data = b->p + CHAN_HDR, .len = b->used,
                       .lend = b->lent, .next = g->pending};
    if (pull) {
        /* The region ends at the packed bytes (rounded to a header), so the
         * next large message can take a region above it while this one is
         * fetched; packing more into b later moves it (buf_place). */
        size_t cap = (b->used + CHAN_HDR - 1) & ~(size_t)(CHAN_HDR - 1);
        if (cap < b->cap)
            b->cap = b->lent->cap = cap;
    }
    b->lent->refs++;
    g->pending = e;
    return DMSG_OK;
}

dmsg_status dmsg_postal_serve(chan *c)
{
    postal_state *g = &dmsg_postal_g;
    dmsg_status st = DMSG_OK;
    for (chan_msg *m = c->head, *next; m && !st; m = next) {
        next = m->next;
        if (m->h.type == POSTAL_T_PART) { /* a stream of m->src: bytes ready to fetch */
            chan_rx *r = &c->rx[m->src];
            uint64_t id = m->h.aux[POSTAL_AUX_BULK_ID], ready = m->h.aux[POSTAL_AUX_BULK_OFF];
            int src = m->src;
            if ((st = dmsg_chan_take(c, m)))
                break;
            dmsg_chan_consume(c, m);
            if (r->stream_id == id && ready < r->stream_ready) {
                st = DMSG_FAIL(DMSG_ERR_STATE, "stream %llu of PE %d went back to %llu bytes",
                               (unsigned long long)id, src, (unsigned long long)ready);
                break;
            }
            r->stream_id = id;
            r->stream_ready = ready;
            continue;
        }
        if (m->h.type != POSTAL_T_CTS && m->h.type != POSTAL_T_DONE)
            continue;
        uint64_t id = m->h.aux[POSTAL_AUX_BULK_ID], off = m->h.aux[POSTAL_AUX_BULK_OFF],
                 n = m->h.aux[POSTAL_AUX_BULK_LEN];
        postal_bulk **pp = &g->pending;
        while (*pp && !((*pp)->pe == m->src && (*pp)->id == id))
            pp = &(*pp)->next;
        postal_bulk *e = *pp;
        int done = m->h.type == POSTAL_T_DONE;
        if ((st = dmsg_chan_take(c, m)))
            break;
        dmsg_chan_consume(c, m);
        if (!e) {
            st = DMSG_FAIL(DMSG_ERR_STATE, "report on unknown large message %llu from PE %d",
                           (unsigned long long)id, m->src);
            break;
        }
        if (done) { /* the receiver has fetched it from the out-window */
            *pp = e->next;
            lend_put(e->lend);
            free(e);
            continue;
        }
        if (off > e->len || n > e->len - off || n > g->winsize) {
            st = DMSG_FAIL(DMSG_ERR_STATE, "grant of %llu bytes at %llu of large message %llu from PE %d",
                           (unsigned long long)n, (unsigned long long)off, (unsigned long long)id,
                           m->src);
            break;
        }
        if ((st = dmsg_deposit(g->win, e->data + off, (size_t)n, e->pe, g->bulk)))
            break;
        c->touched[e->pe] = 1; /* the bell rings once the deposit is complete */
        c->st.transfer_bytes += n;
        if (off + n == e->len) {
            *pp = e->next;
            lend_put(e->lend);
            free(e);
        }
    }
    return st;
}

void dmsg_postal_bulk_free(void)
{
    postal_state *g = &dmsg_postal_g;
    while (g->pending) {
        postal_bulk *e = g->pending;
        g->pending = e->next;
        lend_put(e->lend);
        free(e);
    }
    postal_buf *bufs[2] = {&g->sbuf, &g->pbuf};
    for (int i = 0; i < 2; i++) {
        postal_lend *l = bufs[i]->lent;
        if (!l || !l->fixed) /* the out-window is symmetric memory, freed with the layer */
            free(bufs[i]->p);
        if (l && !l->fixed) /* the last reference: its memory was the buffer's */
            free(l);
        *bufs[i] = (postal_buf){0};
    }
    for (int i = 0; i < POSTAL_OREGIONS; i++)
        g->oreg[i].refs = 0;
    for (int i = 0; i < POSTAL_SPARES; i++) {
        free(g->spare[i]);
        g->spare[i] = NULL;
        g->spare_cap[i] = 0;
    }
}

/* Sends the packed bytes of b as one message: one channel message, or
 * fragments in order. A fragment's header goes in the CHAN_HDR bytes before
 * its payload, which belong to the previous fragment: they are kept aside
 * and put back (dmsg_chan_send has copied or deposited them by then). The whole
 * message is checked against the queue limit first, so a refused message
 * sends no fragment. */
static dmsg_status send_buf(postal_buf *b, int pe, int tag, uint64_t cw)
{
    postal_state *g = &dmsg_postal_g;
    double t0 = dmsg_postal_clock();
    size_t len = b->used, frag = dmsg_chan_max_len(&g->ch);
    dmsg_status st = DMSG_OK;
    if (len > frag && g->win) {
        if (!(st = send_bulk(b, pe, tag, cw, 0))) {
            g->st.sent++;
            g->st.large++;
        }
        g->st.send_time += dmsg_postal_clock() - t0;
        return st;
    }
    if (len > frag)
        st = dmsg_chan_reserve(&g->ch, pe, len);
    if (!st && !b->p)
        st = buf_room(b, 0);
    for (size_t off = 0; !st && (off < len || off == 0); off += frag) {
        size_t n = len - off < frag ? len - off : frag;
        char *at = b->p + off, keep[CHAN_HDR];
        chan_hdr h = {.type = POSTAL_T_MSG, .tag = tag};
        h.aux[POSTAL_AUX_TOTAL] = len;
        h.aux[POSTAL_AUX_OFF] = off;
        h.aux[POSTAL_AUX_CTX] = cw;
        /* A message buffer per fragment, taken and given its header before
         * the fragment leaves (and released by the receiver): booked first,
         * so that the fragment's arrival, and the receiver, wait for it. */
        dmsg_work w = {.kind = DMSG_WORK_BUFFER, .n = 1};
        if ((st = dmsg_work_book(&w)))
            break;
        memcpy(keep, at, CHAN_HDR);
        st = dmsg_chan_send(&g->ch, pe, &h, at, n);
        memcpy(at, keep, CHAN_HDR);
        if (len == 0)
            break;
    }
    if (!st)
        g->st.sent++;
    g->st.send_time += dmsg_postal_clock() - t0;
    return st;
}

int dmsg_postal_send_ctx_word(int pe, int tag, int ctx, int word)
{
    POSTAL_REQUIRE();
    dmsg_status st = check_dest(pe, tag);
    return st ? st : send_buf(&dmsg_postal_g.sbuf, pe, tag, dmsg_postal_cw(ctx, word));
}

int dmsg_postal_send_ctx(int pe, int tag, int ctx)
{
    return dmsg_postal_send_ctx_word(pe, tag, ctx, 0);
}

int dmsg_postal_send(int pe, int tag)
{
    return dmsg_postal_send_ctx(pe, tag, 0);
}

int dmsg_postal_send_bytes(int pe, int tag, const void *buf, size_t bytes)
{
    return dmsg_postal_send_bytes_ctx(pe, tag, 0, buf, bytes);
}

/* Streams: a large send_bytes is announced before its bytes are copied
 * into the out-window, then copied piece by piece, each piece reported
 * with a PART, so that a receiver already waiting fetches each piece while
 * the next one is copied. The copies are the same two (into the
 * out-window, the receiver's fetch), but they overlap instead of following
 * each other. At most STREAM_PARTS pieces of at least STREAM_PIECE bytes:
 * each costs a 64-byte message and the receiver's wake-up. */
enum { STREAM_PARTS = 8 };
#define STREAM_PIECE ((size_t)64 << 10)

/* The pieces a send_bytes of `bytes` to pe streams in, or 0: not without
 * windows, nor for a message that fits a fragment or exceeds the
 * out-window, nor while the out-window is in use (send_buf decides then),
 * nor where the announcement and its PARTs would not all go straight into
 * pe's ring (a queued PART would keep the receiver waiting until this PE's
 * next postal call), nor on a simulated machine (dmsg_order_on: the model
 * books each copy whole, and its figures stay those of the protocol
 * without streams). */
static size_t stream_parts(int pe, size_t bytes)
{
    postal_state *g = &dmsg_postal_g;
    if (!g->win || bytes <= dmsg_chan_max_len(&g->ch) || bytes > g->winsize || dmsg_order_on())
        return 0;
    /* a region of the out-window holds it, or would once the send buffer,
     * alone in its region, leaves it (sbuf_leave) */
    size_t top, room;
    const postal_lend *sl = in_owin(&g->sbuf) && g->sbuf.lent->refs == 1 ? g->sbuf.lent : NULL;
    if (!(owin_free(NULL, &top, &room) && bytes <= room) &&
        !(sl && owin_free(sl, &top, &room) && bytes <= room))
        return 0;
    size_t parts = bytes / STREAM_PIECE;
    uint64_t fit = dmsg_chan_headers_fit(&g->ch, pe);
    if (parts > STREAM_PARTS)
        parts = STREAM_PARTS;
    if (fit < 1 + parts)
        parts = fit > 1 ? (size_t)fit - 1 : 0;
    return parts >= 2 ? parts : 0;
}

/* The send buffer, alone in the out-window and no longer read by any
 * message, moves to private memory with its packed bytes (a program may
 * send it again or pack more), so that a stream can have the window: a
 * copy, once, where a program follows a large packed message with a large
 * send_bytes. */
static dmsg_status sbuf_leave(void)
{
    postal_buf *b = &dmsg_postal_g.sbuf;
    if (!in_owin(b) || b->lent->refs != 1)
        return DMSG_OK;
    size_t cap = b->used > 4096 ? b->used : 4096;
    char *p = spare_take(cap, &cap);
    if (!p && !(p = malloc(CHAN_HDR + cap)))
        return DMSG_FAIL(DMSG_ERR_NOMEM, "send buffer of %zu bytes", cap);
    if (b->used) {
        dmsg_status st = dmsg_chan_copy(p + CHAN_HDR, b->p + CHAN_HDR, b->used);
        if (st) {
            free(p);
            return st;
        }
    }
    dmsg_postal_g.ch.st.queue_bytes += b->used; /* a copy of packed bytes aside, as into the queue */
    b->lent->refs = 0;
    b->p = p;
    b->cap = cap;
    b->lent = NULL;
    return DMSG_OK;
}

/* send_bytes' buffer holds nothing of use once its message is sent: it
 * lets go of memory lent to the message at once, so that the out-window
 * is free for the next large message of either buffer as soon as the
 * receiver is done with it. */
static void pbuf_let_go(void)
{
    postal_buf *b = &dmsg_postal_g.pbuf;
    if (!b->lent)
        return; /* private memory: kept for the next send_bytes */
    lend_put(b->lent);
    *b = (postal_buf){0};
}

/* Sends `bytes` at buf to pe as a stream of `parts` pieces (see above):
 * the send buffer pbuf moves into the out-window, the STREAM goes out,
 * then each piece is copied and its PART sent. Nothing here waits for the
 * receiver. */
static dmsg_status send_stream(int pe, int tag, uint64_t cw, const void *buf, size_t bytes,
                               size_t parts)
{
    postal_state *g = &dmsg_postal_g;
    postal_buf *b = &g->pbuf;
    double t0 = dmsg_postal_clock();
    size_t top, room;
    dmsg_status st = DMSG_OK;
    if (!(owin_free(NULL, &top, &room) && bytes <= room))
        st = sbuf_leave(); /* stream_parts: then it fits */
    if (st || (st = buf_room(b, bytes)))
        return st;
    if (!in_owin(b))
        return DMSG_FAIL(DMSG_ERR_STATE, "stream of %zu bytes outside the out-window", bytes);
    b->used = bytes; /* the announced length; the PARTs say how much is there */
    if ((st = send_bulk(b, pe, tag, cw, 1)))
        return st;
    uint64_t id = g->bulk_ids;
    size_t piece = (bytes / parts + 4095) & ~(size_t)4095;
    double packing = 0;
    for (size_t off = 0; off < bytes;) {
        size_t n = bytes - off < piece ? bytes - off : piece;
        double t1 = dmsg_postal_clock();
        if ((st = dmsg_postal_copy(b->p + CHAN_HDR + off, 1, (const char *)buf + off, 1, n, 1)))
            return st;
        g->st.pack_bytes += n;
        packing += dmsg_postal_clock() - t1;
        off += n;
        char hbuf[CHAN_HDR];
        chan_hdr h = {.type = POSTAL_T_PART};
        h.aux[POSTAL_AUX_BULK_ID] = id;
        h.aux[POSTAL_AUX_BULK_OFF] = off;
        if ((st = dmsg_chan_send(&g->ch, pe, &h, hbuf, 0)))
            return st;
    }
    g->st.sent++;
    g->st.large++;
    g->st.streamed++;
    g->st.pack_time += packing;
    pbuf_let_go();
    g->st.send_time += dmsg_postal_clock() - t0 - packing;
    return DMSG_OK;
}

int dmsg_postal_send_bytes_ctx_word(int pe, int tag, int ctx, int word, const void *buf,
                                    size_t bytes)
{
    uint64_t cw = dmsg_postal_cw(ctx, word);
    postal_state *g = &dmsg_postal_g;
    POSTAL_REQUIRE();
    dmsg_status st = check_dest(pe, tag);
    if (st)
        return st;
    if (!buf && bytes)
        return DMSG_FAIL(DMSG_ERR_NULL, "buf is NULL");
    if ((st = buf_reset(&g->pbuf)))
        return st;
    size_t parts = stream_parts(pe, bytes);
    if (parts)
        return send_stream(pe, tag, cw, buf, bytes, parts);
    if ((st = buf_room(&g->pbuf, bytes)))
        return st;
    if (bytes) {
        double t0 = dmsg_postal_clock();
        if ((st = dmsg_postal_copy(g->pbuf.p + CHAN_HDR, 1, buf, 1, bytes, 1)))
            return st;
        g->pbuf.used = bytes;
        g->st.pack_bytes += bytes;
        g->st.pack_time += dmsg_postal_clock() - t0;
    }
    if (!(st = send_buf(&g->pbuf, pe, tag, cw)))
        pbuf_let_go();
    return st;
}

int dmsg_postal_send_bytes_ctx(int pe, int tag, int ctx, const void *buf, size_t bytes)
{
    return dmsg_postal_send_bytes_ctx_word(pe, tag, ctx, 0, buf, bytes);
}
