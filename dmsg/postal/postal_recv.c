/* The postal receive side: reassembly of fragments, matching by source and
 * tag, the active receive buffer, unpacking. Unpacking copies out of this
 * PE's own mailbox (or the private copy of a spilled or reassembled
 * message) into the user's strided elements, booked as a local copy. */
#include <stdlib.h>
#include <string.h>
#include "dmsg/core/order.h"
#include "dmsg/core/work.h"
#include "dmsg/postal/postal.h"

/* Takes one newly found message into the reassembly: a whole message is
 * ready at once; the first fragment of a longer one moves into a private
 * buffer of the whole length, and each later fragment of that sender is
 * copied behind it and consumed, so fragments never hold mailbox room. */
static dmsg_status reassemble(chan *c, chan_msg *m)
{
    uint64_t total = m->h.aux[POSTAL_AUX_TOTAL], off = m->h.aux[POSTAL_AUX_OFF];
    chan_msg *first = c->rx[m->src].open;
    m->user = POSTAL_SEEN;
    if (dmsg_postal_announced(m)) {
        m->user = POSTAL_READY; /* fetched when a receive takes it */
        return DMSG_OK;
    }
    if (!first && off == 0 && total == m->h.len) {
        m->user = POSTAL_READY; /* taken when a receive matches it */
        return DMSG_OK;
    }
    if (!first) {
        if (off != 0 || total < m->h.len)
            return DMSG_FAIL(DMSG_ERR_STATE, "fragment at %llu of a message from PE %d",
                             (unsigned long long)off, m->src);
        dmsg_status st = dmsg_chan_own(c, m, (size_t)total);
        if (st)
            return st;
        c->rx[m->src].open = m;
        return DMSG_OK;
    }
    /* aux[OFF] of the first fragment counts the bytes assembled so far. */
    if (off != first->h.len || off + m->h.len > total)
        return DMSG_FAIL(DMSG_ERR_STATE, "fragment at %llu from PE %d, expected %llu",
                         (unsigned long long)off, m->src, (unsigned long long)first->h.len);
    dmsg_status st = dmsg_chan_take(c, m);
    if (st)
        return st;
    double t0 = dmsg_chan_clock(c);
    st = dmsg_chan_copy(first->data + off, m->data, m->h.len);
    if (st)
        return st;
    c->st.spill_bytes += m->h.len;
    first->h.len += m->h.len;
    c->st.t_manage += dmsg_chan_clock(c) - t0;
    if (first->h.len == total) {
        first->user = POSTAL_READY;
        c->rx[m->src].open = NULL;
    }
    dmsg_chan_consume(c, m);
    return DMSG_OK;
}

/* Progress passes until reassembly frees no more mailbox room: the room it
 * frees must be reported (and the queue pushed) before this PE may wait. */
dmsg_status dmsg_postal_progress(void)
{
    chan *c = &dmsg_postal_g.ch;
    for (;;) {
        dmsg_status st = dmsg_chan_progress(c);
        int took = 0;
        for (chan_msg *m = c->head, *next; !st && m; m = next) {
            next = m->next;
            if (!m->user) {
                took |= (m->h.type == POSTAL_T_MSG && m->h.aux[POSTAL_AUX_TOTAL] != m->h.len) ||
                        c->rx[m->src].open;
                st = reassemble(c, m);
            }
        }
        if (st || !took)
            return st;
    }
}

static dmsg_status check_match(int src, int tag)
{
    if (src != DMSG_POSTAL_ANY && (src < 0 || src >= dmsg_npes()))
        return DMSG_FAIL(DMSG_ERR_PE, "source PE %d of %d", src, dmsg_npes());
    if (tag < DMSG_POSTAL_ANY)
        return DMSG_FAIL(DMSG_ERR_ARG, "tag %d (>= 0, or DMSG_POSTAL_ANY)", tag);
    return DMSG_OK;
}

/* The first landed message that matches, in arrival order. */
static chan_msg *find(int src, int tag)
{
    double t0 = dmsg_postal_clock();
    chan_msg *m = dmsg_postal_g.ch.head;
    dmsg_work w = {.kind = DMSG_WORK_MATCH, .n = 1};
    for (; m && !(m->user == POSTAL_READY && (src == DMSG_POSTAL_ANY || m->src == src) &&
                  (tag == DMSG_POSTAL_ANY || m->h.tag == tag));
         m = m->next)
        w.n++;
    if (m || w.n > 1)
        dmsg_work_book(&w); /* the headers compared (a failed search of an empty list: none) */
    dmsg_postal_g.st.match_time += dmsg_postal_clock() - t0;
    return m;
}

static void describe(const chan_msg *m, dmsg_postal_info *info)
{
    if (info)
        *info = (dmsg_postal_info){.src = m->src, .tag = m->h.tag, .bytes = dmsg_postal_len(m),
                                   .ctx = dmsg_postal_ctx(m),
                                   .word = dmsg_postal_word(m)};
}

/* Finds a match, driving progress; waits for one only when `block`. A
 * search that finds nothing makes room for stuck senders and reports it
 * (dmsg_chan_make_room, inside dmsg_chan_wait when waiting) whether it waits or not:
 * the match may be queued behind a full mailbox, and a program that polls
 * with nrecv or probe must get it as one that waits does. */
static dmsg_status match(int src, int tag, int block, chan_msg **out)
{
    chan *c = &dmsg_postal_g.ch;
    dmsg_status st;
    int did;
    chan_msg *m = find(src, tag);
    while (!m) {
        if ((st = dmsg_postal_progress()))
            return st;
        if ((m = find(src, tag)))
            break;
        if (!block) {
            if ((st = dmsg_chan_make_room(c, &did)))
                return st;
            break;
        }
        if ((st = dmsg_chan_wait(c)))
            return st;
    }
    *out = m;
    return DMSG_OK;
}

/* Waits until the piece of a large message this PE granted has landed in
 * its window, serving everything else meanwhile (the sender may be waiting
 * for this PE's own grant, or for room). */
static dmsg_status bulk_wait(void)
{
    postal_state *g = &dmsg_postal_g;
    for (;;) {
        uint64_t n;
        dmsg_status st = dmsg_ctr_read(g->bulk, &n, NULL);
        if (!st && n)
            return dmsg_await(g->bulk, 1);
        if (st || (st = dmsg_postal_progress()) || (st = dmsg_ctr_read(g->bulk, &n, NULL)))
            return st;
        if (n)
            return dmsg_await(g->bulk, 1);
        if ((st = dmsg_chan_wait(&g->ch)))
            return st;
    }
}

/* Fetches the large message m announces (taken, unlinked, its counts
 * consumed): grants the window to its sender piece by piece and waits for
 * each. A message that fits the window is then read from it (borrowed: the
 * active buffer, until the next receive or grant); a longer one is copied
 * piece by piece into private memory. m becomes an
 * ordinary message of its whole length. */
static dmsg_status bulk_fetch(chan_msg *m)
{
    postal_state *g = &dmsg_postal_g;
    chan *c = &g->ch;
    size_t total = (size_t)m->h.aux[POSTAL_AUX_TOTAL];
    int whole = total <= g->winsize;
    dmsg_status st;
    /* The window may still hold the active buffer (recv_bytes does not
     * release it): that one moves to private memory first. */
    chan_msg *a = g->active;
    if (a && a->borrowed && (st = dmsg_chan_own(c, a, (size_t)a->h.len)))
        return st;
    /* m's ring room (its header) is freed now, its payload goes to private
     * memory of the whole length, or (a message that fits) to the window. */
    if ((st = dmsg_chan_own(c, m, whole ? 0 : total)))
        return st;
    for (size_t off = 0; off < total;) {
        size_t n = total - off < g->winsize ? total - off : g->winsize;
        char hbuf[CHAN_HDR];
        chan_hdr h = {.type = POSTAL_T_CTS};
        h.aux[POSTAL_AUX_BULK_ID] = dmsg_postal_ann_id(m->h.aux[POSTAL_AUX_ANN_ID]);
        h.aux[POSTAL_AUX_BULK_OFF] = off;
        h.aux[POSTAL_AUX_BULK_LEN] = n;
        if ((st = dmsg_chan_send(c, m->src, &h, hbuf, 0)) || (st = bulk_wait()))
            return st;
        if (!whole) {
            double t0 = dmsg_chan_clock(c);
            if ((st = dmsg_chan_copy(m->data + off, g->win, n)))
                return st;
            c->st.spill_bytes += n;
            c->st.t_manage += dmsg_chan_clock(c) - t0;
        }
        off += n;
    }
    if (whole) {
        free(m->data);
        m->data = g->win;
        m->borrowed = 1;
    }
    m->h.type = POSTAL_T_MSG;
    m->h.len = total;
    return DMSG_OK;
}

/* How many bytes of stream `id` of the sender whose chan_rx is r are in
 * its out-window. A sender sends every PART of a stream before it
 * announces the next one, and several of its streams may be in flight at
 * once (each in a region of the out-window of its own), while the serve
 * hook notes only the latest stream's PART: once a PART of a later stream
 * has come, every byte of this one is there (ids are 32 bits that wrap). */
static size_t stream_ready(const chan_rx *r, uint64_t id, size_t all)
{
    if (r->stream_id == id)
        return (size_t)r->stream_ready;
    return (int32_t)(uint32_t)(r->stream_id - id) > 0 ? all : 0;
}

/* Fetches bytes [skip, skip + n) of the large message that m's sender
 * streams into its out-window (STREAM) to dst, each piece as soon as a
 * PART says it is there (the serve hook notes them in the sender's
 * chan_rx), serving everything else while it waits. The sender is inside
 * send_bytes or past it, with every PART in this PE's ring (it streams
 * only then), so the wait ends without any other call of the sender. */
static dmsg_status stream_fetch(const chan_msg *m, char *dst, size_t skip, size_t n)
{
    postal_state *g = &dmsg_postal_g;
    const chan_rx *r = &g->ch.rx[m->src];
    uint64_t id = dmsg_postal_ann_id(m->h.aux[POSTAL_AUX_ANN_ID]);
    const char *from = g->owin + CHAN_HDR + dmsg_postal_ann_off(m->h.aux[POSTAL_AUX_ANN_ID]);
    size_t got = skip, end = skip + n;
    dmsg_status st;
    while (got < end) {
        size_t ready = stream_ready(r, id, end);
        if (ready > got) {
            size_t k = (ready < end ? ready : end) - got;
            if ((st = dmsg_fetch(dst + (got - skip), from + got, k, m->src)))
                return st;
            got += k;
            continue;
        }
        if ((st = dmsg_postal_progress()))
            return st;
        if (stream_ready(r, id, end) > got)
            continue;
        if ((st = dmsg_chan_wait(&g->ch)))
            return st;
    }
    return DMSG_OK;
}

/* Fetches the large message m announces from its sender's out-window
 * (PULL or STREAM; m taken and unlinked): its bytes [skip, skip + n) into dst when
 * given (recv_bytes, match_copy: the user's buffer), else all of it into
 * the window, which m then borrows (the active buffer, as bulk_fetch
 * leaves it). Then tells the sender (DONE), whose out-window is free again
 * once every receiver has. */
static dmsg_status pull_fetch(chan_msg *m, void *dst, size_t skip, size_t n)
{
    postal_state *g = &dmsg_postal_g;
    chan *c = &g->ch;
    size_t total = (size_t)m->h.aux[POSTAL_AUX_TOTAL];
    size_t at = dmsg_postal_ann_off(m->h.aux[POSTAL_AUX_ANN_ID]); /* its region in the out-window */
    dmsg_status st;
    if (total > g->winsize || at > g->winsize - total)
        return DMSG_FAIL(DMSG_ERR_STATE,
                         "large message of %zu bytes at %zu from PE %d, window %zu", total, at,
                         m->src, g->winsize);
    if (!dst) {
        skip = 0;
        n = total;
    } else if (skip > total || n > total - skip) {
        return DMSG_FAIL(DMSG_ERR_STATE, "fetching %zu bytes at %zu of a message of %zu", n, skip,
                         total);
    }
    chan_msg *a = g->active;
    if (!dst && a && a->borrowed && (st = dmsg_chan_own(c, a, (size_t)a->h.len)))
        return st;
    if ((st = dmsg_chan_own(c, m, 0)))
        return st;
    if (m->h.type == POSTAL_T_STREAM)
        st = stream_fetch(m, dst ? dst : g->win, skip, n);
    else if (n)
        st = dmsg_fetch(dst ? dst : g->win, g->owin + CHAN_HDR + at + skip, n, m->src);
    if (st)
        return st;
    char hbuf[CHAN_HDR];
    chan_hdr h = {.type = POSTAL_T_DONE};
    h.aux[POSTAL_AUX_BULK_ID] = dmsg_postal_ann_id(m->h.aux[POSTAL_AUX_ANN_ID]);
    if ((st = dmsg_chan_send(c, m->src, &h, hbuf, 0)))
        return st;
    if (!dst) {
        free(m->data);
        m->data = g->win;
        m->borrowed = 1;
    }
    m->h.type = POSTAL_T_MSG;
    m->h.len = total;
    return DMSG_OK;
}

dmsg_status dmsg_postal_fetch(chan_msg *m, void *dst, size_t skip, size_t n, int *into)
{
    *into = 0;
    if (m->h.type == POSTAL_T_RTS)
        return bulk_fetch(m);
    if (m->h.type != POSTAL_T_PULL && m->h.type != POSTAL_T_STREAM)
        return DMSG_OK;
    dmsg_status st = pull_fetch(m, dst, skip, n);
    if (!st && dst)
        *into = 1;
    return st;
}

/* The DONE of a large message fetched from m's sender's out-window: its
 * region there is free again once every receiver has sent one. */
static dmsg_status send_done(int src, uint64_t id)
{
    char hbuf[CHAN_HDR];
    chan_hdr h = {.type = POSTAL_T_DONE};
    h.aux[POSTAL_AUX_BULK_ID] = id;
    return dmsg_chan_send(&dmsg_postal_g.ch, src, &h, hbuf, 0);
}

dmsg_status dmsg_postal_drop_active(void)
{
    postal_state *g = &dmsg_postal_g;
    if (!g->active)
        return DMSG_OK;
    dmsg_status st = DMSG_OK;
    if (g->lazy)
        st = send_done(g->active->src, g->lazy_id);
    g->lazy = 0;
    dmsg_chan_release(&g->ch, g->active);
    g->active = NULL;
    g->ch.held = NULL;
    return st;
}

dmsg_status dmsg_postal_materialize(void)
{
    postal_state *g = &dmsg_postal_g;
    chan_msg *m = g->active;
    if (!g->lazy || !m)
        return DMSG_OK;
    /* Nothing else borrows the window while the active buffer is lazy
     * (only the active buffer keeps it beyond a call). */
    dmsg_status st = m->h.len ? dmsg_fetch(g->win, g->owin + CHAN_HDR + g->lazy_at,
                                           (size_t)m->h.len, m->src)
                              : DMSG_OK;
    if (st || (st = send_done(m->src, g->lazy_id)))
        return st;
    g->lazy = 0;
    free(m->data);
    m->data = g->win;
    m->borrowed = 1;
    return DMSG_OK;
}

/* m (taken, unlinked) announces a large message in its sender's
 * out-window (PULL): it becomes the active buffer without its bytes, which
 * the unpacks fetch from there (lazy above). Not on sim, whose figures
 * stay those of the fetch at the receive. */
static dmsg_status take_lazy(chan_msg *m)
{
    postal_state *g = &dmsg_postal_g;
    size_t total = (size_t)m->h.aux[POSTAL_AUX_TOTAL];
    size_t at = dmsg_postal_ann_off(m->h.aux[POSTAL_AUX_ANN_ID]);
    if (total > g->winsize || at > g->winsize - total)
        return DMSG_FAIL(DMSG_ERR_STATE,
                         "large message of %zu bytes at %zu from PE %d, window %zu", total, at,
                         m->src, g->winsize);
    dmsg_status st = dmsg_chan_own(&g->ch, m, 0); /* its header's ring room is freed */
    if (st)
        return st;
    g->lazy = 1;
    g->lazy_at = at;
    g->lazy_id = dmsg_postal_ann_id(m->h.aux[POSTAL_AUX_ANN_ID]);
    m->h.type = POSTAL_T_MSG;
    m->h.len = total;
    return DMSG_OK;
}

static dmsg_status take(int src, int tag, int block, int *found, dmsg_postal_info *info)
{
    postal_state *g = &dmsg_postal_g;
    dmsg_status st = check_match(src, tag);
    if (st)
        return st;
    double t0 = dmsg_wtime();
    chan_msg *m;
    /* as PVM: a receive frees the previous receive buffer */
    if ((st = dmsg_postal_drop_active()) || (st = match(src, tag, block, &m)))
        goto out;
    *found = m != NULL;
    if (m && (st = dmsg_chan_take(&g->ch, m)))
        goto out;
    if (m) {
        dmsg_chan_unlink(&g->ch, m);
        int into;
        st = m->h.type == POSTAL_T_PULL && !dmsg_order_on() ? take_lazy(m)
                                                            : dmsg_postal_fetch(m, NULL, 0, 0, &into);
        if (st) {
            dmsg_chan_release(&g->ch, m);
            goto out;
        }
        g->active = m;
        g->ch.held = m; /* its room goes back to a stuck sender whenever this PE waits or polls */
        g->upos = 0;
        g->st.received++;
        describe(m, info);
    }
out:
    g->st.recv_time += dmsg_wtime() - t0;
    return st;
}

int dmsg_postal_recv(int src, int tag, dmsg_postal_info *info)
{
    POSTAL_REQUIRE();
    int found;
    return take(src, tag, 1, &found, info);
}

int dmsg_postal_nrecv(int src, int tag, int *found, dmsg_postal_info *info)
{
    POSTAL_REQUIRE();
    if (!found)
        return DMSG_FAIL(DMSG_ERR_NULL, "found is NULL");
    int f;
    dmsg_status st = take(src, tag, 0, &f, info);
    if (!st)
        *found = f;
    return st;
}

int dmsg_postal_probe(int src, int tag, int *found, dmsg_postal_info *info)
{
    postal_state *g = &dmsg_postal_g;
    POSTAL_REQUIRE();
    if (!found)
        return DMSG_FAIL(DMSG_ERR_NULL, "found is NULL");
    dmsg_status st = check_match(src, tag);
    if (st)
        return st;
    double t0 = dmsg_wtime();
    chan_msg *m;
    st = match(src, tag, 0, &m);
    if (!st) {
        *found = m != NULL;
        if (m)
            describe(m, info);
    }
    g->st.recv_time += dmsg_wtime() - t0;
    return st;
}

/* Copies the packed bytes at offset `pos` of message m into n elements
 * every `stride` at data. Mailbox data have landed (a counter said so). */
static dmsg_status unpack(const chan_msg *m, size_t pos, void *data, long n, long stride,
                          size_t elem_size)
{
    return dmsg_postal_copy(data, (ptrdiff_t)((size_t)stride * elem_size), m->data + pos,
                       (ptrdiff_t)elem_size, (size_t)n, elem_size);
}

int dmsg_postal_upk(void *data, long n, long stride, size_t elem_size)
{
    postal_state *g = &dmsg_postal_g;
    POSTAL_REQUIRE();
    if (!g->active)
        return DMSG_FAIL(DMSG_ERR_STATE, "no active receive buffer");
    size_t bytes, span;
    dmsg_status st = dmsg_postal_check_strided(data, n, stride, elem_size, &bytes, &span);
    if (st)
        return st;
    if (bytes > g->active->h.len - g->upos)
        return DMSG_FAIL(DMSG_ERR_SIZE, "unpacking %zu bytes, %zu left in the message", bytes,
                         (size_t)(g->active->h.len - g->upos));
    if (n == 0)
        return DMSG_OK;
    double t0 = dmsg_postal_clock();
    if (g->lazy && stride == 1) { /* one copy: from the sender's out-window into place */
        st = dmsg_fetch(data, g->owin + CHAN_HDR + g->lazy_at + g->upos, bytes, g->active->src);
        g->st.direct_bytes += st ? 0 : bytes;
    } else if (!(st = dmsg_postal_materialize()))
        st = unpack(g->active, g->upos, data, n, stride, elem_size);
    if (st)
        return st;
    g->upos += bytes;
    g->st.unpack_bytes += bytes;
    g->st.unpack_time += dmsg_postal_clock() - t0;
    return DMSG_OK;
}

#define UPK(name, type, size)                                                                      \
    int dmsg_postal_upk_##name(type *data, long n, long stride)                                    \
    {                                                                                              \
        return dmsg_postal_upk(data, n, stride, size);                                             \
    }
UPK(byte, int8_t, 1)
UPK(short, int16_t, 2)
UPK(int, int32_t, 4)
UPK(long, int64_t, 8)
UPK(float, float, 4)
UPK(double, double, 8)
UPK(cplx, float, 8)
UPK(dcplx, double, 16)

int dmsg_postal_bufinfo(dmsg_postal_info *info)
{
    POSTAL_REQUIRE();
    if (!info)
        return DMSG_FAIL(DMSG_ERR_NULL, "info is NULL");
    if (!dmsg_postal_g.active)
        return DMSG_FAIL(DMSG_ERR_STATE, "no active receive buffer");
    describe(dmsg_postal_g.active, info);
    return DMSG_OK;
}

int dmsg_postal_release(void)
{
    POSTAL_REQUIRE();
    return dmsg_postal_drop_active();
}

int dmsg_postal_recv_bytes(int src, int tag, void *buf, size_t cap, dmsg_postal_info *info)
{
    postal_state *g = &dmsg_postal_g;
    POSTAL_REQUIRE();
    dmsg_status st = check_match(src, tag);
    if (st)
        return st;
    if (!buf && cap)
        return DMSG_FAIL(DMSG_ERR_NULL, "buf is NULL");
    double t0 = dmsg_wtime();
    chan_msg *m;
    if ((st = match(src, tag, 1, &m)))
        goto out;
    if (dmsg_postal_len(m) > cap) {
        st = DMSG_FAIL(DMSG_ERR_SIZE, "message of %zu bytes, buffer of %zu", dmsg_postal_len(m),
                       cap);
        goto out;
    }
    if ((st = dmsg_chan_take(&g->ch, m)))
        goto out;
    dmsg_chan_unlink(&g->ch, m);
    int fetched; /* straight into buf: nothing to unpack */
    if ((st = dmsg_postal_fetch(m, buf, 0, dmsg_postal_len(m), &fetched))) {
        dmsg_chan_release(&g->ch, m);
        goto out;
    }
    g->st.recv_time += dmsg_wtime() - t0;
    t0 = dmsg_postal_clock();
    if (m->h.len && !fetched)
        st = unpack(m, 0, buf, (long)m->h.len, 1, 1);
    else if (fetched)
        g->st.direct_bytes += m->h.len;
    if (!st) {
        g->st.received++;
        g->st.unpack_bytes += m->h.len;
        describe(m, info);
    }
    dmsg_chan_release(&g->ch, m);
    g->st.unpack_time += dmsg_postal_clock() - t0;
    return st;
out:
    g->st.recv_time += dmsg_wtime() - t0;
    return st;
}
