/* The postal receive side: matching by source and tag, the active receive
 * buffer, unpacking. Unpacking is a fetch from this PE's own mailbox into the
 * user's strided elements (a local copy the copy engine makes); a message that
 * was moved out of a full mailbox is unpacked from its spill copy. */
#include <string.h>
#include "dmsg/postal/postal.h"

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
    double t0 = dmsg_wtime();
    chan_msg *m = dmsg_postal_g.ch.head;
    while (m && !((src == DMSG_POSTAL_ANY || m->src == src) &&
                  (tag == DMSG_POSTAL_ANY || m->h.tag == tag)))
        m = m->next;
    dmsg_postal_g.st.match_time += dmsg_wtime() - t0;
    return m;
}

static void describe(const chan_msg *m, dmsg_postal_info *info)
{
    if (info)
        *info = (dmsg_postal_info){.src = m->src, .tag = m->h.tag, .bytes = (size_t)m->h.len};
}

/* Finds a match, driving progress; waits for one only when `block`. */
static dmsg_status match(int src, int tag, int block, chan_msg **out)
{
    chan *c = &dmsg_postal_g.ch;
    dmsg_status st;
    chan_msg *m = find(src, tag);
    while (!m) {
        if ((st = chan_progress(c)))
            return st;
        if ((m = find(src, tag)) || !block)
            break;
        if (dmsg_postal_g.active && (st = chan_spill(c, dmsg_postal_g.active)))
            return st;
        if ((st = chan_wait(c)))
            return st;
    }
    *out = m;
    return DMSG_OK;
}

static void release_active(void)
{
    postal_state *g = &dmsg_postal_g;
    if (g->active) {
        chan_release(&g->ch, g->active);
        g->active = NULL;
    }
}

static dmsg_status take(int src, int tag, int block, int *found, dmsg_postal_info *info)
{
    postal_state *g = &dmsg_postal_g;
    dmsg_status st = check_match(src, tag);
    if (st)
        return st;
    double t0 = dmsg_wtime();
    chan_msg *m;
    release_active(); /* as PVM: a receive frees the previous receive buffer */
    if ((st = match(src, tag, block, &m)))
        goto out;
    *found = m != NULL;
    if (m) {
        chan_unlink(&g->ch, m);
        g->active = m;
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

/* Copies `bytes` packed bytes at offset `pos` of message m into n elements
 * every `stride` at data. */
static dmsg_status unpack(const chan_msg *m, size_t pos, void *data, long n, long stride,
                          size_t elem_size)
{
    dmsg_layout packed, user;
    postal_layouts(n, stride, elem_size, &packed, &user);
    if (!m->spilled)
        return dmsg_fetch_section(data, &user, m->data + pos, &packed, elem_size, dmsg_pe());
    /* Spill copies are private memory, out of the copy engine's reach. */
    const char *s = m->data + pos;
    char *d = data;
    for (long i = 0; i < n; i++)
        memcpy(d + (size_t)i * (size_t)stride * elem_size, s + (size_t)i * elem_size, elem_size);
    return DMSG_OK;
}

int dmsg_postal_upk(void *data, long n, long stride, size_t elem_size)
{
    postal_state *g = &dmsg_postal_g;
    POSTAL_REQUIRE();
    if (!g->active)
        return DMSG_FAIL(DMSG_ERR_STATE, "no active receive buffer");
    size_t bytes, span;
    dmsg_status st = postal_check_strided(data, n, stride, elem_size, &bytes, &span);
    if (st)
        return st;
    if (bytes > g->active->h.len - g->upos)
        return DMSG_FAIL(DMSG_ERR_SIZE, "unpacking %zu bytes, %zu left in the message", bytes,
                         (size_t)(g->active->h.len - g->upos));
    if (n == 0)
        return DMSG_OK;
    double t0 = dmsg_wtime();
    if ((st = unpack(g->active, g->upos, data, n, stride, elem_size)))
        return st;
    g->upos += bytes;
    g->st.unpack_bytes += bytes;
    g->st.unpack_time += dmsg_wtime() - t0;
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
    release_active();
    return DMSG_OK;
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
    if (m->h.len > cap) {
        st = DMSG_FAIL(DMSG_ERR_SIZE, "message of %llu bytes, buffer of %zu",
                       (unsigned long long)m->h.len, cap);
        goto out;
    }
    chan_unlink(&g->ch, m);
    g->st.recv_time += dmsg_wtime() - t0;
    t0 = dmsg_wtime();
    if (m->h.len)
        st = unpack(m, 0, buf, (long)m->h.len, 1, 1);
    if (!st) {
        g->st.received++;
        g->st.unpack_bytes += m->h.len;
        describe(m, info);
    }
    chan_release(&g->ch, m);
    g->st.unpack_time += dmsg_wtime() - t0;
    return st;
out:
    g->st.recv_time += dmsg_wtime() - t0;
    return st;
}
