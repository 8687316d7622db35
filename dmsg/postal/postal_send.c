/* The postal send side: the send buffer, packing, sending. Packing is a
 * deposit of the user's strided elements to this PE's own send buffer, so the
 * copy engine makes the copy and a simulated machine books it as a local
 * copy of that pattern. */
#include "dmsg/postal/postal.h"

int dmsg_postal_initsend(void)
{
    POSTAL_REQUIRE();
    dmsg_postal_g.sused = 0;
    return DMSG_OK;
}

int dmsg_postal_pk(const void *data, long n, long stride, size_t elem_size)
{
    postal_state *g = &dmsg_postal_g;
    POSTAL_REQUIRE();
    size_t bytes, span;
    dmsg_status st = postal_check_strided(data, n, stride, elem_size, &bytes, &span);
    if (st)
        return st;
    if (bytes > chan_max_len(&g->ch) - g->sused)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "message would exceed %zu bytes (DMSG_POSTAL_MAILBOX / 2 - 64)",
                         chan_max_len(&g->ch));
    if (n == 0)
        return DMSG_OK;
    double t0 = dmsg_wtime();
    dmsg_layout packed, user;
    postal_layouts(n, stride, elem_size, &packed, &user);
    st = dmsg_deposit_section(g->sbuf + CHAN_HDR + g->sused, &packed, data, &user, elem_size,
                              dmsg_pe(), DMSG_CTR_NONE);
    if (st)
        return st;
    g->sused += bytes;
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

static dmsg_status send_buf(char *buf, size_t len, int pe, int tag)
{
    postal_state *g = &dmsg_postal_g;
    double t0 = dmsg_wtime();
    chan_hdr h = {.type = POSTAL_T_MSG, .tag = tag};
    dmsg_status st = chan_send(&g->ch, pe, &h, buf, len);
    if (!st)
        g->st.sent++;
    g->st.send_time += dmsg_wtime() - t0;
    return st;
}

int dmsg_postal_send(int pe, int tag)
{
    POSTAL_REQUIRE();
    dmsg_status st = check_dest(pe, tag);
    return st ? st : send_buf(dmsg_postal_g.sbuf, dmsg_postal_g.sused, pe, tag);
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
    if (bytes > chan_max_len(&g->ch))
        return DMSG_FAIL(DMSG_ERR_NOMEM, "message of %zu bytes exceeds %zu (DMSG_POSTAL_MAILBOX / 2 - 64)",
                         bytes, chan_max_len(&g->ch));
    if (bytes) {
        double t0 = dmsg_wtime();
        if ((st = dmsg_deposit(g->pbuf + CHAN_HDR, buf, bytes, dmsg_pe(), DMSG_CTR_NONE)))
            return st;
        g->st.pack_bytes += bytes;
        g->st.pack_time += dmsg_wtime() - t0;
    }
    return send_buf(g->pbuf, bytes, pe, tag);
}
