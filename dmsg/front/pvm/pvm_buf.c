/* PVM message buffers: the table of buffer ids, the active send and
 * receive buffers, packing (a copy into the buffer, or with PvmDataInPlace
 * only a note of where the data is) and unpacking with PVM's end-of-buffer
 * rule. A received message stays in postal's active receive buffer
 * ("attached") and is unpacked straight out of the mailbox; it moves into
 * the buffer's own memory only when postal's active buffer must serve
 * another message while this one is kept (pvm_setrbuf, pvm_precv). */
#include <stdlib.h>
#include <string.h>
#include "dmsg/front/pvm/pvm_impl.h"

#define ENROLL()                                                                                   \
    do {                                                                                           \
        int rc_ = dmsg_pvm_enroll();                                                               \
        if (rc_)                                                                                   \
            return rc_;                                                                            \
    } while (0)

pvm_buf *dmsg_pvm_buf(int bufid)
{
    pvm_state *g = &dmsg_pvm_g;
    if (bufid <= 0 || bufid >= g->nbufs || !g->bufs[bufid].used)
        return NULL;
    return &g->bufs[bufid];
}

int dmsg_pvm_newbuf(int encoding)
{
    pvm_state *g = &dmsg_pvm_g;
    int id = 1;
    while (id < g->nbufs && g->bufs[id].used)
        id++;
    if (id >= g->nbufs) {
        int n = g->nbufs ? 2 * g->nbufs : 16;
        pvm_buf *b = realloc(g->bufs, (size_t)n * sizeof *b);
        if (!b)
            return PvmNoMem;
        memset(b + g->nbufs, 0, (size_t)(n - g->nbufs) * sizeof *b);
        g->bufs = b;
        g->nbufs = n;
    }
    g->bufs[id] = (pvm_buf){.used = 1, .encoding = encoding};
    return id;
}

void dmsg_pvm_dropbuf(int bufid)
{
    pvm_state *g = &dmsg_pvm_g;
    pvm_buf *b = dmsg_pvm_buf(bufid);
    if (!b)
        return;
    if (b->attached)
        dmsg_postal_release(); /* its mailbox room goes back now */
    free(b->data);
    free(b->pc);
    memset(b, 0, sizeof *b);
    if (g->sbuf == bufid)
        g->sbuf = 0;
    if (g->rbuf == bufid)
        g->rbuf = 0;
}

int dmsg_pvm_detach(pvm_buf *b)
{
    if (!b || !b->attached)
        return PvmOk;
    const void *p;
    size_t n;
    if (dmsg_postal_active(&p, &n))
        return PvmSysErr;
    char *d = malloc(n ? n : 1);
    if (!d)
        return PvmNoMem;
    memcpy(d, p, n);
    free(b->data);
    b->data = d;
    b->len = b->cap = n;
    b->attached = 0;
    dmsg_postal_release();
    return PvmOk;
}

/* The payload bytes of a received buffer (valid until the next postal call). */
static const char *payload(pvm_buf *b)
{
    if (!b->attached)
        return b->data;
    const void *p;
    size_t n;
    if (dmsg_postal_active(&p, &n))
        return NULL;
    return p;
}

int pvm_mkbuf(int encoding)
{
    ENROLL();
    if (encoding != PvmDataDefault && encoding != PvmDataRaw && encoding != PvmDataInPlace &&
        encoding != PvmDataTrace)
        return dmsg_pvm_err(PvmBadParam);
    int id = dmsg_pvm_newbuf(encoding);
    return id < 0 ? dmsg_pvm_err(id) : id;
}

int pvm_freebuf(int bufid)
{
    ENROLL();
    if (bufid < 0)
        return dmsg_pvm_err(PvmBadParam);
    if (!dmsg_pvm_buf(bufid))
        return dmsg_pvm_err(PvmNoSuchBuf);
    dmsg_pvm_dropbuf(bufid);
    return PvmOk;
}

int pvm_initsend(int encoding)
{
    pvm_state *g = &dmsg_pvm_g;
    ENROLL();
    int id = pvm_mkbuf(encoding);
    if (id < 0)
        return id;
    if (g->sbuf)
        dmsg_pvm_dropbuf(g->sbuf);
    g->sbuf = id;
    return id;
}

int pvm_setsbuf(int bufid)
{
    pvm_state *g = &dmsg_pvm_g;
    ENROLL();
    if (bufid < 0)
        return dmsg_pvm_err(PvmBadParam);
    pvm_buf *b = bufid ? dmsg_pvm_buf(bufid) : NULL;
    if (bufid && !b)
        return dmsg_pvm_err(PvmNoSuchBuf);
    if (b && b->attached) {
        int rc = dmsg_pvm_detach(b);
        if (rc)
            return dmsg_pvm_err(rc);
    }
    int old = g->sbuf;
    g->sbuf = bufid;
    if (g->rbuf == bufid && bufid)
        g->rbuf = 0;
    return old;
}

int pvm_setrbuf(int bufid)
{
    pvm_state *g = &dmsg_pvm_g;
    ENROLL();
    if (bufid < 0)
        return dmsg_pvm_err(PvmBadParam);
    if (bufid && !dmsg_pvm_buf(bufid))
        return dmsg_pvm_err(PvmNoSuchBuf);
    int old = g->rbuf;
    g->rbuf = bufid;
    if (g->sbuf == bufid && bufid)
        g->sbuf = 0;
    return old;
}

int pvm_getsbuf(void)
{
    ENROLL();
    return dmsg_pvm_g.sbuf;
}

int pvm_getrbuf(void)
{
    ENROLL();
    return dmsg_pvm_g.rbuf;
}

/* The source tid a buffer's header names: pvm_setminfo's, the sender's,
 * or (a buffer packed here) this task's. */
static int src_tid(const pvm_buf *b)
{
    if (b->srctid)
        return b->srctid;
    return dmsg_pvm_tid(b->recvd ? b->src : dmsg_pvm_g.me);
}

int pvm_bufinfo(int bufid, int *bytes, int *msgtag, int *tid)
{
    ENROLL();
    if (bufid <= 0)
        return dmsg_pvm_err(bufid == 0 ? PvmNoBuf : PvmBadParam);
    pvm_buf *b = dmsg_pvm_buf(bufid);
    if (!b)
        return dmsg_pvm_err(PvmNoSuchBuf);
    if (bytes)
        *bytes = (int)b->len;
    if (msgtag)
        *msgtag = b->recvd ? b->tag : -1;
    if (tid)
        *tid = src_tid(b);
    return PvmOk;
}

/* The buffer of pvm_getminfo and pvm_setminfo: bufid 0 or less is
 * PvmBadParam there (not PvmNoBuf), as PVM's. */
static int minfo_buf(int bufid, struct pvmminfo *mi, pvm_buf **b)
{
    ENROLL();
    if (bufid <= 0 || !mi)
        return dmsg_pvm_err(PvmBadParam);
    if (!(*b = dmsg_pvm_buf(bufid)))
        return dmsg_pvm_err(PvmNoSuchBuf);
    return PvmOk;
}

int pvm_getminfo(int bufid, struct pvmminfo *mi)
{
    pvm_buf *b;
    int rc = minfo_buf(bufid, mi, &b);
    if (rc)
        return rc;
    *mi = (struct pvmminfo){.len = (int)b->len, .ctx = b->ctx, .tag = b->tag, .wid = b->wid,
                            .enc = PVM_DSIG, .crc = 0, .src = src_tid(b),
                            .dst = b->dst};
    return PvmOk;
}

int pvm_setminfo(int bufid, struct pvmminfo *mi)
{
    pvm_buf *b;
    int rc = minfo_buf(bufid, mi, &b);
    if (rc)
        return rc;
    /* len, enc and crc describe the data and are not set (PVM's rule) */
    b->ctx = mi->ctx;
    b->tag = mi->tag;
    b->wid = mi->wid;
    b->srctid = mi->src;
    b->dst = mi->dst;
    return PvmOk;
}

int pvm_getmwid(int bufid)
{
    ENROLL();
    if (bufid <= 0)
        return dmsg_pvm_err(PvmBadParam);
    pvm_buf *b = dmsg_pvm_buf(bufid);
    return b ? b->wid : dmsg_pvm_err(PvmNoSuchBuf);
}

int pvm_setmwid(int bufid, int waitid)
{
    ENROLL();
    if (bufid <= 0)
        return dmsg_pvm_err(PvmBadParam);
    pvm_buf *b = dmsg_pvm_buf(bufid);
    if (!b)
        return dmsg_pvm_err(PvmNoSuchBuf);
    b->wid = waitid;
    return PvmOk;
}

/* ------------------------------------------------------------ packing */

static int room(pvm_buf *b, size_t more)
{
    size_t need;
    if (__builtin_add_overflow(b->len, more, &need))
        return PvmNoMem;
    if (need <= b->cap)
        return PvmOk;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : 2 * cap;
    char *d = realloc(b->data, cap);
    if (!d)
        return PvmNoMem;
    b->data = d;
    b->cap = cap;
    return PvmOk;
}

static int add_piece(pvm_buf *b, pvm_piece p)
{
    /* a copied piece right after another copied piece extends it */
    if (!p.ref && b->npc && !b->pc[b->npc - 1].ref) {
        b->pc[b->npc - 1].len += p.len;
        return PvmOk;
    }
    if (b->npc == b->pccap) {
        size_t n = b->pccap ? 2 * b->pccap : 8;
        pvm_piece *q = realloc(b->pc, n * sizeof *q);
        if (!q)
            return PvmNoMem;
        b->pc = q;
        b->pccap = n;
    }
    b->pc[b->npc++] = p;
    return PvmOk;
}

void dmsg_pvm_mark_get(const pvm_buf *b, pvm_mark *m)
{
    *m = (pvm_mark){.len = b->len, .npc = b->npc, .last = b->npc ? b->pc[b->npc - 1].len : 0};
}

void dmsg_pvm_mark_undo(pvm_buf *b, const pvm_mark *m)
{
    b->len = m->len;
    b->npc = m->npc;
    if (b->npc)
        b->pc[b->npc - 1].len = m->last; /* a copied piece may have grown */
}

/* Appends n items of `size` bytes, every `stride` items from p. */
static int pack(const void *p, int n, int stride, size_t size, int in_place_ok)
{
    pvm_state *g = &dmsg_pvm_g;
    ENROLL();
    pvm_buf *b = dmsg_pvm_buf(g->sbuf);
    if (!b)
        return dmsg_pvm_err(PvmNoBuf);
    if (n < 0 || stride < 1 || (n > 0 && !p))
        return dmsg_pvm_err(PvmBadParam);
    size_t bytes;
    if (__builtin_mul_overflow((size_t)n, size, &bytes) || bytes > (size_t)INT32_MAX)
        return dmsg_pvm_err(PvmOverflow);
    if (n == 0)
        return PvmOk;
    if (b->encoding == PvmDataInPlace && in_place_ok) {
        int rc = add_piece(b, (pvm_piece){.ref = p, .n = (size_t)n, .size = size,
                                          .stride = (size_t)stride, .len = bytes});
        if (rc)
            return dmsg_pvm_err(rc);
        b->len += bytes; /* the message's size, though the data stay where they are */
        return PvmOk;
    }
    int rc = room(b, bytes);
    if (rc)
        return dmsg_pvm_err(rc);
    size_t at = b->encoding == PvmDataInPlace ? b->cap - bytes : b->len;
    if (b->encoding == PvmDataInPlace) {
        /* in-place buffers keep copied bytes (string lengths) in data too:
         * data holds them packed from 0, len counts the whole message */
        size_t used = 0;
        for (size_t i = 0; i < b->npc; i++)
            used += b->pc[i].ref ? 0 : b->pc[i].len;
        at = used;
        rc = add_piece(b, (pvm_piece){.off = used, .len = bytes});
        if (rc)
            return dmsg_pvm_err(rc);
    }
    char *d = b->data + at;
    const char *s = p;
    if (stride == 1)
        memcpy(d, s, bytes);
    else
        for (int i = 0; i < n; i++)
            memcpy(d + (size_t)i * size, s + (size_t)i * (size_t)stride * size, size);
    b->len += bytes;
    return PvmOk;
}

int dmsg_pvm_pack(const void *p, int n, int stride, size_t size, int in_place_ok)
{
    return pack(p, n, stride, size, in_place_ok);
}

/* Every type of the pvm_pk and pvm_upk families: name, C type, PVM's code. */
#define PVM_TYPES(X)                                                                               \
    X(byte, char, PVM_BYTE)                                                                        \
    X(short, short, PVM_SHORT)                                                                     \
    X(int, int, PVM_INT)                                                                           \
    X(long, long, PVM_LONG)                                                                        \
    X(float, float, PVM_FLOAT)                                                                     \
    X(double, double, PVM_DOUBLE)                                                                  \
    X(cplx, float, PVM_CPLX)                                                                       \
    X(dcplx, double, PVM_DCPLX)                                                                    \
    X(ushort, unsigned short, PVM_USHORT)                                                          \
    X(uint, unsigned int, PVM_UINT)                                                                \
    X(ulong, unsigned long, PVM_ULONG)

#define PK(name, type, code)                                                                       \
    int pvm_pk##name(type *p, int n, int stride)                                                   \
    {                                                                                              \
        return pack(p, n, stride, dmsg_pvm_type_size(code), 1);                                    \
    }
PVM_TYPES(PK)

int pvm_pkstr(char *s)
{
    ENROLL();
    if (!s)
        return dmsg_pvm_err(PvmBadParam);
    size_t len = strlen(s) + 1;
    if (len > (size_t)INT32_MAX)
        return dmsg_pvm_err(PvmOverflow);
    int n = (int)len;
    /* the length is always copied (it is not the caller's memory) */
    int rc = pack(&n, 1, 1, sizeof n, 0);
    return rc ? rc : pack(s, n, 1, 1, 1);
}

int pvm_pack(void *p, int n, int stride, int type)
{
    ENROLL();
    if (type == PVM_STR)
        return pvm_pkstr(p);
    size_t size = dmsg_pvm_type_size(type);
    return size ? pack(p, n, stride, size, 1) : dmsg_pvm_err(PvmBadParam);
}

/* Packs b into postal's send buffer and sends it with the context in the
 * postal header. An in-place buffer's pieces are gathered from the user's
 * memory now, so the program may change that memory once pvm_send
 * returns: a large message's data leave later, from postal's send buffer,
 * which postal lends to the message and leaves alone (the next
 * dmsg_postal_initsend takes other memory) until they have. */
int dmsg_pvm_send_buf(pvm_buf *b, int pe, int tag, int ctx)
{
    int st = dmsg_postal_initsend();
    if (b->encoding != PvmDataInPlace || b->recvd) {
        const char *p = b->recvd ? payload(b) : b->data;
        if (!st && b->len)
            st = p ? dmsg_postal_pk(p, (long)b->len, 1, 1) : DMSG_ERR_STATE;
    } else {
        for (size_t i = 0; !st && i < b->npc; i++) {
            const pvm_piece *pc = &b->pc[i];
            if (!pc->ref)
                st = dmsg_postal_pk(b->data + pc->off, (long)pc->len, 1, 1);
            else if (pc->size == 1 || pc->size == 2 || pc->size == 4 || pc->size == 8 ||
                     pc->size == 16)
                st = dmsg_postal_pk(pc->ref, (long)pc->n, (long)pc->stride, pc->size);
            else
                for (size_t k = 0; !st && k < pc->n; k++)
                    st = dmsg_postal_pk(pc->ref + k * pc->stride * pc->size, (long)pc->size, 1, 1);
        }
    }
    if (!st)
        st = dmsg_postal_send_ctx_word(pe, tag, ctx, b->wid);
    return st ? dmsg_pvm_from_status(st) : PvmOk;
}

/* ---------------------------------------------------------- unpacking */

/* Takes n items of `size` bytes into every `stride`th place at p. Fewer
 * bytes left than asked: what is left is written, in item order (the last
 * item possibly in part), and PvmNoData returned. */
static int unpack(void *p, int n, int stride, size_t size)
{
    pvm_state *g = &dmsg_pvm_g;
    ENROLL();
    pvm_buf *b = dmsg_pvm_buf(g->rbuf);
    if (!b)
        return dmsg_pvm_err(PvmNoBuf);
    if (n < 0 || stride < 1 || (n > 0 && !p))
        return dmsg_pvm_err(PvmBadParam);
    size_t bytes;
    if (__builtin_mul_overflow((size_t)n, size, &bytes))
        return dmsg_pvm_err(PvmOverflow);
    const char *s = payload(b);
    if (!s && b->len)
        return dmsg_pvm_err(PvmSysErr);
    size_t left = b->len - b->pos, take = bytes < left ? bytes : left;
    char *d = p;
    s += b->pos;
    if (stride == 1)
        memcpy(d, s, take);
    else
        for (size_t done = 0, i = 0; done < take; i++) {
            size_t k = take - done < size ? take - done : size;
            memcpy(d + i * (size_t)stride * size, s + done, k);
            done += k;
        }
    b->pos += take;
    return take < bytes ? dmsg_pvm_err(PvmNoData) : PvmOk;
}

int dmsg_pvm_unpack(void *p, int n, int stride, size_t size)
{
    return unpack(p, n, stride, size);
}

#define UPK(name, type, code)                                                                      \
    int pvm_upk##name(type *p, int n, int stride)                                                  \
    {                                                                                              \
        return unpack(p, n, stride, dmsg_pvm_type_size(code));                                     \
    }
PVM_TYPES(UPK)

int pvm_upkstr(char *s)
{
    ENROLL();
    if (!s)
        return dmsg_pvm_err(PvmBadParam);
    int n;
    int rc = unpack(&n, 1, 1, sizeof n);
    if (rc)
        return rc;
    if (n < 1)
        return dmsg_pvm_err(PvmBadMsg);
    pvm_buf *b = dmsg_pvm_buf(dmsg_pvm_g.rbuf);
    size_t left = b->len - b->pos;
    rc = unpack(s, n, 1, 1);
    if (rc && left < (size_t)n)
        s[left] = 0; /* a cut string still ends where it was cut */
    return rc;
}

int pvm_unpack(void *p, int n, int stride, int type)
{
    ENROLL();
    if (type == PVM_STR)
        return pvm_upkstr(p);
    size_t size = dmsg_pvm_type_size(type);
    return size ? unpack(p, n, stride, size) : dmsg_pvm_err(PvmBadParam);
}

/* ------------------------------------------ messages inside messages */

/* A message packed by pvm_pkmesg: its header, then its body. */
enum { MESG_LEN, MESG_CTX, MESG_TAG, MESG_WID, MESG_SRC, MESG_DST, MESG_WORDS };

/* Packs buffer m's body (copied, even into an in-place send buffer: m may
 * change or go before the send). */
static int pack_body(pvm_buf *m)
{
    if (m->recvd || m->encoding != PvmDataInPlace) {
        const char *p = m->recvd ? payload(m) : m->data;
        if (!p && m->len)
            return PvmSysErr;
        return m->len ? pack(p, (int)m->len, 1, 1, 0) : PvmOk;
    }
    for (size_t i = 0; i < m->npc; i++) {
        const pvm_piece *pc = &m->pc[i];
        int rc = pc->ref ? pack(pc->ref, (int)pc->n, (int)pc->stride, pc->size, 0)
                         : pack(m->data + pc->off, (int)pc->len, 1, 1, 0);
        if (rc)
            return rc;
    }
    return PvmOk;
}

/* pvm_pkmesg (with its header) and pvm_pkmesgbody (without). */
static int pkmesg(int bufid, int header)
{
    pvm_state *g = &dmsg_pvm_g;
    ENROLL();
    if (bufid <= 0)
        return dmsg_pvm_err(PvmBadParam);
    pvm_buf *m = dmsg_pvm_buf(bufid), *b = dmsg_pvm_buf(g->sbuf);
    if (!m)
        return dmsg_pvm_err(PvmNoSuchBuf);
    if (!b)
        return dmsg_pvm_err(PvmNoBuf);
    if (m == b || m->len > (size_t)INT32_MAX)
        return dmsg_pvm_err(PvmBadParam); /* not into itself (as PVM) */
    struct pvmminfo mi;
    pvm_getminfo(bufid, &mi);
    int hdr[MESG_WORDS] = {[MESG_LEN] = mi.len, [MESG_CTX] = mi.ctx, [MESG_TAG] = mi.tag,
                           [MESG_WID] = mi.wid, [MESG_SRC] = mi.src, [MESG_DST] = mi.dst};
    pvm_mark k;
    dmsg_pvm_mark_get(b, &k);
    int rc = header ? pack(hdr, MESG_WORDS, 1, sizeof(int), 0) : PvmOk;
    if (!rc)
        rc = pack_body(m);
    if (rc)
        dmsg_pvm_mark_undo(b, &k);
    return rc ? dmsg_pvm_err(rc) : PvmOk;
}

int pvm_pkmesg(int bufid) { return pkmesg(bufid, 1); }
int pvm_pkmesgbody(int bufid) { return pkmesg(bufid, 0); }

int pvm_upkmesg(void)
{
    pvm_state *g = &dmsg_pvm_g;
    ENROLL();
    pvm_buf *b = dmsg_pvm_buf(g->rbuf);
    if (!b)
        return dmsg_pvm_err(PvmNoBuf);
    const char *s = payload(b);
    int hdr[MESG_WORDS];
    size_t left = b->len - b->pos;
    if (left < sizeof hdr)
        return dmsg_pvm_err(PvmNoData);
    if (!s)
        return dmsg_pvm_err(PvmSysErr);
    memcpy(hdr, s + b->pos, sizeof hdr);
    if (hdr[MESG_LEN] < 0)
        return dmsg_pvm_err(PvmBadMsg);
    size_t len = (size_t)hdr[MESG_LEN];
    if (left - sizeof hdr < len)
        return dmsg_pvm_err(PvmNoData); /* nothing taken */
    char *d = malloc(len ? len : 1);
    if (!d)
        return dmsg_pvm_err(PvmNoMem);
    int id = dmsg_pvm_newbuf(PvmDataRaw); /* may move the table: b is stale after it */
    if (id < 0) {
        free(d);
        return dmsg_pvm_err(id);
    }
    b = dmsg_pvm_buf(g->rbuf);
    if (!(s = payload(b))) {
        free(d);
        dmsg_pvm_dropbuf(id);
        return dmsg_pvm_err(PvmSysErr);
    }
    memcpy(d, s + b->pos + sizeof hdr, len);
    b->pos += sizeof hdr + len;
    int src = dmsg_pvm_pe(hdr[MESG_SRC]);
    g->bufs[id] = (pvm_buf){.used = 1, .encoding = PvmDataRaw, .recvd = 1, .data = d, .len = len,
                            .cap = len, .src = src < 0 ? g->me : src, .tag = hdr[MESG_TAG],
                            .ctx = hdr[MESG_CTX], .wid = hdr[MESG_WID],
                            .srctid = src < 0 ? hdr[MESG_SRC] : 0, .dst = hdr[MESG_DST]};
    return id;
}

int dmsg_pvm_body(int bufid, void **body, size_t *len)
{
    pvm_buf *m = dmsg_pvm_buf(bufid);
    if (!m)
        return PvmNoSuchBuf;
    char *d = malloc(m->len ? m->len : 1);
    if (!d)
        return PvmNoMem;
    if (m->recvd || m->encoding != PvmDataInPlace) {
        const char *p = m->recvd ? payload(m) : m->data;
        if (!p && m->len) {
            free(d);
            return PvmSysErr;
        }
        memcpy(d, p, m->len);
    } else {
        size_t at = 0;
        for (size_t i = 0; i < m->npc; i++) {
            const pvm_piece *pc = &m->pc[i];
            if (!pc->ref) {
                memcpy(d + at, m->data + pc->off, pc->len);
                at += pc->len;
            } else {
                for (size_t k = 0; k < pc->n; k++, at += pc->size)
                    memcpy(d + at, pc->ref + k * pc->stride * pc->size, pc->size);
            }
        }
    }
    *body = d;
    *len = m->len;
    return PvmOk;
}
