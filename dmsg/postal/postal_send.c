/* The postal send side: the send buffer, packing, sending. The send buffer
 * is private memory that grows as it is packed, so a message may have any
 * size; packing copies the user's strided elements into it and books the
 * copy as modelled work (a local copy of that pattern on a simulated
 * machine). A message longer than a channel message goes as fragments. */
#include <stdlib.h>
#include <string.h>
#include "dmsg/core/work.h"
#include "dmsg/postal/postal.h"

/* Makes room for `more` packed bytes after the used ones. A message may
 * not exceed the queue limit (it may all have to wait in the queue). */
static dmsg_status buf_room(postal_buf *b, size_t more)
{
    size_t need, most = (size_t)dmsg_postal_g.ch.qlimit;
    if (__builtin_add_overflow(b->used, more, &need) || need > most)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "message of %zu + %zu bytes exceeds %zu (DMSG_POSTAL_QUEUE)",
                         b->used, more, most);
    if (need <= b->cap && b->p)
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

int dmsg_postal_initsend(void)
{
    POSTAL_REQUIRE();
    dmsg_postal_g.sbuf.used = 0;
    return DMSG_OK;
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
    double t0 = dmsg_wtime();
    st = dmsg_postal_copy(g->sbuf.p + CHAN_HDR + g->sbuf.used, (ptrdiff_t)elem_size, data,
                     (ptrdiff_t)((size_t)stride * elem_size), (size_t)n, elem_size);
    if (st)
        return st;
    g->sbuf.used += bytes;
    g->st.pack_bytes += bytes;
    g->st.pack_time += dmsg_wtime() - t0;
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

/* Sends the packed bytes of b as one message: one channel message, or
 * fragments in order. A fragment's header goes in the CHAN_HDR bytes before
 * its payload, which belong to the previous fragment: they are kept aside
 * and put back (dmsg_chan_send has copied or deposited them by then). The whole
 * message is checked against the queue limit first, so a refused message
 * sends no fragment. */
static dmsg_status send_buf(postal_buf *b, int pe, int tag)
{
    postal_state *g = &dmsg_postal_g;
    double t0 = dmsg_wtime();
    size_t len = b->used, frag = dmsg_chan_max_len(&g->ch);
    dmsg_status st = DMSG_OK;
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
    g->st.send_time += dmsg_wtime() - t0;
    return st;
}

int dmsg_postal_send(int pe, int tag)
{
    POSTAL_REQUIRE();
    dmsg_status st = check_dest(pe, tag);
    return st ? st : send_buf(&dmsg_postal_g.sbuf, pe, tag);
}

int dmsg_postal_send_bytes(int pe, int tag, const void *buf, size_t bytes)
{
    postal_state *g = &dmsg_postal_g;
    POSTAL_REQUIRE();
    dmsg_status st = check_dest(pe, tag);
    if (st)
        return st;
    if (!buf && bytes)
        return DMSG_FAIL(DMSG_ERR_NULL, "buf is NULL");
    g->pbuf.used = 0;
    if ((st = buf_room(&g->pbuf, bytes)))
        return st;
    if (bytes) {
        double t0 = dmsg_wtime();
        if ((st = dmsg_postal_copy(g->pbuf.p + CHAN_HDR, 1, buf, 1, bytes, 1)))
            return st;
        g->pbuf.used = bytes;
        g->st.pack_bytes += bytes;
        g->st.pack_time += dmsg_wtime() - t0;
    }
    return send_buf(&g->pbuf, pe, tag);
}
