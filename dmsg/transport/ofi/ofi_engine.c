/* The receiver-side deposit engine. A non-contiguous deposit of many small
 * pieces is cheaper as one message than as many RMA operations: the sender
 * packs the pieces' data behind a list of destination records, the target
 * stores them when it reads the message's completion (inside any dmsg call:
 * its progress), and the last message of a deposit counts it.
 *
 * A record is a strided run: `count` blocks of `len` bytes, `stride` bytes
 * apart, from segment offset `off`; a transpose column is one record. Every
 * record of a message is checked against the symmetric segment before any
 * byte of it is stored: a peer can never write outside the segment, and a
 * bad message is reported (DMSG_ERR_TRANSPORT at the next quiet or sync on
 * the target), never applied in part. */
#include <stdlib.h>
#include <string.h>
#include "dmsg/transport/ofi/ofi.h"

dmsg_status dmsg_ofi_engine_check(const void *msg, size_t len, uint64_t seg_size, uint64_t *sig)
{
    ofi_eng_hdr h;
    if (len < sizeof h)
        return DMSG_FAIL(DMSG_ERR_TRANSPORT, "deposit message of %zu bytes: no header", len);
    memcpy(&h, msg, sizeof h);
    if (h.magic != OFI_ENG_MAGIC)
        return DMSG_FAIL(DMSG_ERR_TRANSPORT, "deposit message with a bad magic word");
    uint64_t rec_bytes;
    if (__builtin_mul_overflow((uint64_t)h.nrec, sizeof(ofi_eng_rec), &rec_bytes) ||
        rec_bytes > len - sizeof h || h.data_bytes != len - sizeof h - rec_bytes)
        return DMSG_FAIL(DMSG_ERR_TRANSPORT, "deposit message: %u records and %llu data bytes "
                         "do not fill its %zu bytes",
                         h.nrec, (unsigned long long)h.data_bytes, len);
    const char *p = (const char *)msg + sizeof h;
    uint64_t total = 0;
    for (uint32_t i = 0; i < h.nrec; i++) {
        ofi_eng_rec r;
        memcpy(&r, p + (size_t)i * sizeof r, sizeof r);
        uint64_t bytes, span, lo, hi;
        if (r.len == 0 || r.count == 0 || r.stride < -(int64_t)(UINT64_C(1) << 50) ||
            r.stride > (int64_t)(UINT64_C(1) << 50))
            goto bad;
        if (__builtin_mul_overflow((uint64_t)r.len, (uint64_t)r.count, &bytes) ||
            __builtin_add_overflow(total, bytes, &total))
            goto bad;
        /* Blocks reach from the lowest start to the highest start + len. */
        uint64_t as = (uint64_t)(r.stride < 0 ? -r.stride : r.stride);
        if (__builtin_mul_overflow(as, (uint64_t)(r.count - 1), &span))
            goto bad;
        if (r.stride < 0) {
            if (span > r.off)
                goto bad;
            lo = r.off - span;
            hi = r.off;
        } else {
            lo = r.off;
            if (__builtin_add_overflow(r.off, span, &hi))
                goto bad;
        }
        if (lo > seg_size || hi > seg_size || r.len > seg_size - hi)
            goto bad;
        continue;
    bad:
        return DMSG_FAIL(DMSG_ERR_RANGE,
                         "deposit message record %u (offset %llu, %u blocks of %u bytes, stride "
                         "%lld) leaves the %llu-byte segment: not applied",
                         i, (unsigned long long)r.off, r.count, r.len, (long long)r.stride,
                         (unsigned long long)seg_size);
    }
    if (total != h.data_bytes)
        return DMSG_FAIL(DMSG_ERR_TRANSPORT, "deposit message: records hold %llu bytes, data %llu",
                         (unsigned long long)total, (unsigned long long)h.data_bytes);
    *sig = h.sig;
    return DMSG_OK;
}

void dmsg_ofi_engine_apply(char *seg, const void *msg)
{
    ofi_eng_hdr h;
    memcpy(&h, msg, sizeof h);
    const char *recs = (const char *)msg + sizeof h;
    const char *data = recs + (size_t)h.nrec * sizeof(ofi_eng_rec);
    for (uint32_t i = 0; i < h.nrec; i++) {
        ofi_eng_rec r;
        memcpy(&r, recs + (size_t)i * sizeof r, sizeof r);
        char *d = seg + r.off;
        for (uint32_t c = 0; c < r.count; c++, d += r.stride, data += r.len)
            memcpy(d, data, r.len);
    }
}

/* A received message: check, apply, count, and give the buffer back. */
void dmsg_ofi_engine_recv(ofi_state *s, void *buf, size_t len)
{
    uint64_t sig = 0;
    uint32_t magic = 0;
    memcpy(&magic, buf, len < sizeof magic ? len : sizeof magic);
    if (magic == OFI_AMO_REQ || magic == OFI_AMO_REP) {
        dmsg_ofi_amo_recv(s, buf, len); /* software atomics share the receive buffers */
        dmsg_ofi_engine_repost(s, buf);
        return;
    }
    dmsg_status st = dmsg_ofi_engine_check(buf, len, s->tp->seg_size, &sig);
    if (st) {
        s->eng.refused++;
        if (!s->failed)
            s->failed = DMSG_ERR_TRANSPORT;
    } else if (((ofi_eng_hdr *)buf)->nrec || ((ofi_eng_hdr *)buf)->sig) {
        dmsg_ofi_engine_apply(s->seg, buf);
        if (sig)
            dmsg_ofi_on_signal(s, sig);
    }
    dmsg_ofi_engine_repost(s, buf);
}

void dmsg_ofi_engine_repost(ofi_state *s, void *buf)
{
    ssize_t rc = fi_recv(s->fab.ep, buf, OFI_ENG_MSG, NULL, FI_ADDR_UNSPEC, buf);
    if (rc && !s->failed) /* one buffer fewer; the others keep serving */
        s->failed = DMSG_FAIL(DMSG_ERR_TRANSPORT, "%s: reposting a receive buffer: %s",
                              s->caps.prov, fi_strerror((int)-rc));
}

dmsg_status dmsg_ofi_engine_start(ofi_state *s)
{
    s->eng.rxbuf = malloc((size_t)OFI_ENG_BUFS * OFI_ENG_MSG);
    for (int i = 0; i < OFI_ENG_SLOTS; i++)
        s->eng.tx[i].buf = malloc(OFI_ENG_MSG);
    for (int i = 0; i < OFI_ENG_SLOTS; i++)
        if (!s->eng.tx[i].buf)
            return DMSG_FAIL(DMSG_ERR_NOMEM, "deposit engine buffers");
    if (!s->eng.rxbuf)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "deposit engine buffers");
    for (int i = 0; i < OFI_ENG_BUFS; i++) {
        char *b = s->eng.rxbuf + (size_t)i * OFI_ENG_MSG;
        ssize_t rc = fi_recv(s->fab.ep, b, OFI_ENG_MSG, NULL, FI_ADDR_UNSPEC, b);
        if (rc)
            return DMSG_FAIL(DMSG_ERR_TRANSPORT, "%s: fi_recv: %s", s->caps.prov,
                             fi_strerror((int)-rc));
    }
    return DMSG_OK;
}

void dmsg_ofi_engine_stop(ofi_state *s)
{
    free(s->eng.rxbuf);
    s->eng.rxbuf = NULL;
    for (int i = 0; i < OFI_ENG_SLOTS; i++) {
        free(s->eng.tx[i].buf);
        s->eng.tx[i].buf = NULL;
    }
}

/* ---- sender side ---- */

typedef struct packer {
    ofi_state *s;
    int pe;
    int slot;           /* staging slot in use, -1 none */
    uint32_t nrec;
    size_t data;        /* data bytes staged */
    ofi_eng_rec cur;    /* record being extended */
    int have;
    char *recs, *dat;   /* inside the slot's buffer: records grow up, data is separate */
    uint32_t sent;      /* messages of this deposit sent so far */
} packer;

static int slot_free(ofi_state *s, const void *arg)
{
    const ofi_batch *b = arg;
    return b->pending == 0;
}

/* Staging layout in one OFI_ENG_MSG buffer: the first half for header and
 * records, the second for data; sent as two iovs, so records and data never
 * need moving. */
#define HALF (OFI_ENG_MSG / 2)

static dmsg_status open_slot(packer *k)
{
    ofi_state *s = k->s;
    int i = (int)(s->eng.next++ % OFI_ENG_SLOTS);
    dmsg_status st = dmsg_ofi_wait_pred(s, slot_free, &s->eng.tx[i].b, "a deposit engine buffer");
    if (st)
        return st;
    if (s->eng.tx[i].b.status) {
        st = s->eng.tx[i].b.status;
        s->eng.tx[i].b.status = DMSG_OK;
        return st;
    }
    k->slot = i;
    k->nrec = 0;
    k->data = 0;
    k->have = 0;
    k->recs = s->eng.tx[i].buf + sizeof(ofi_eng_hdr);
    k->dat = s->eng.tx[i].buf + HALF;
    return DMSG_OK;
}

static void close_rec(packer *k)
{
    if (k->have)
        memcpy(k->recs + (size_t)k->nrec++ * sizeof k->cur, &k->cur, sizeof k->cur);
    k->have = 0;
}

static dmsg_status send_slot(packer *k, uint64_t sig)
{
    ofi_state *s = k->s;
    close_rec(k);
    ofi_eng_hdr h = {.magic = OFI_ENG_MAGIC, .nrec = k->nrec, .sig = sig, .data_bytes = k->data};
    char *buf = s->eng.tx[k->slot].buf;
    memcpy(buf, &h, sizeof h);
    struct iovec iov[2] = {{buf, sizeof h + (size_t)k->nrec * sizeof(ofi_eng_rec)},
                           {k->dat, k->data}};
    struct fi_msg m = {.msg_iov = iov, .iov_count = k->data ? 2 : 1, .addr = (fi_addr_t)k->pe,
                       .context = &s->eng.tx[k->slot].b};
    uint64_t flags = FI_COMPLETION | dmsg_ofi_write_flags(s, iov[0].iov_len + k->data);
    s->dirty[k->pe] = 1;
    double deadline = 0;
    ssize_t rc;
    dmsg_status st;
    while ((rc = fi_sendmsg(s->fab.ep, &m, flags)) == -FI_EAGAIN)
        if ((st = dmsg_ofi_retry(s, k->pe, &deadline)))
            return st;
    if (rc)
        return DMSG_FAIL(DMSG_ERR_TRANSPORT, "%s: fi_sendmsg to PE %d: %s", s->caps.prov, k->pe,
                         fi_strerror((int)-rc));
    s->tx_pending++;
    s->eng.tx[k->slot].b.pending++;
    s->eng.used = 1;
    dmsg_ofi_bell_ring(s, k->pe); /* applied in pe's progress */
    k->sent++;
    k->slot = -1;
    return DMSG_OK;
}

static dmsg_status on_piece(void *arg, size_t roff, char *local, size_t len)
{
    packer *k = arg;
    dmsg_status st;
    while (len) {
        size_t room_d = HALF - k->data;
        size_t room_r = HALF - sizeof(ofi_eng_hdr) - (size_t)k->nrec * sizeof(ofi_eng_rec);
        /* A new record may be needed: keep one record of room spare. */
        if (room_d == 0 || room_r < 2 * sizeof(ofi_eng_rec)) {
            if ((st = send_slot(k, 0)) || (st = open_slot(k)))
                return st;
            continue;
        }
        size_t n = len < room_d ? len : room_d;
        if (n > UINT32_MAX)
            n = UINT32_MAX;
        ofi_eng_rec *c = &k->cur;
        int64_t next = c->count == 1 ? (int64_t)roff - (int64_t)c->off : c->stride;
        if (k->have && c->len == n && c->count < UINT32_MAX && next != 0 &&
            (int64_t)roff == (int64_t)c->off + next * (int64_t)c->count) {
            c->stride = next;
            c->count++;
        } else {
            close_rec(k);
            *c = (ofi_eng_rec){.off = roff, .len = (uint32_t)n, .count = 1, .stride = 0};
            k->have = 1;
        }
        memcpy(k->dat + k->data, local, n);
        k->data += n;
        roff += n;
        local += n;
        len -= n;
    }
    return DMSG_OK;
}

dmsg_status dmsg_ofi_engine_put(ofi_state *s, const dmsg_op *op, uint32_t slot)
{
    packer k = {.s = s, .pe = op->pe, .slot = -1};
    dmsg_status st = open_slot(&k);
    if (st)
        return st;
    st = dmsg_op_runs(op, on_piece, &k);
    if (st)
        return st; /* nothing half-built is sent: the open slot is simply reused */
    /* The last message counts the deposit, so the earlier ones must be
     * stored first. Send-after-send order is not enough (tcp;ofi_rxm lets a
     * small eager message overtake a large rendezvous one), so wait until the
     * earlier messages are delivered (delivery completion, or a flushing
     * read): their receive completions are then ahead of the last one's in
     * the target's CQ, which is read in order. */
    if (slot != UINT32_MAX && k.sent) {
        for (int i = 0; i < OFI_ENG_SLOTS; i++)
            if ((st = dmsg_ofi_wait_batch(s, &s->eng.tx[i].b, "deposit engine messages")))
                return st;
        if (s->flush && (st = dmsg_ofi_flush(s, k.pe)))
            return st;
    }
    return send_slot(&k, slot != UINT32_MAX ? dmsg_ofi_sig_deposit(slot, op->payload) : 0);
}

/* ------------------------------------------------ the ofi row of each kind */

/* Pieces (contiguous at both ends) a transfer falls into, estimated
 * without walking it: one for a contiguous block, sections by their folded
 * run length, every other kind an element (or record, or periodic piece)
 * at a time. */
static size_t pieces_contig(const dmsg_op *op, size_t *run)
{
    *run = op->n;
    return 1;
}

static size_t pieces_each(const dmsg_op *op, size_t *run)
{
    *run = op->elem;
    return op->n;
}

static size_t pieces_section(const dmsg_op *op, size_t *run)
{
    dmsg_sect sc;
    if (op->n && dmsg_sect_normalize(&sc, op->rl, op->ll, op->elem)) {
        *run = sc.elem;
        return sc.elem ? (size_t)(op->payload / sc.elem) : 1;
    }
    return pieces_each(op, run);
}

#define pieces_remote_indexed pieces_each
#define pieces_local_indexed pieces_each
#define pieces_adp pieces_each
#define pieces_periodic pieces_each

const ofi_kind dmsg_ofi_kinds[] = {
#define OFI_ROW_(K, k) [DMSG_OP_##K] = {pieces_##k},
    DMSG_OP_KIND_LIST(OFI_ROW_)
#undef OFI_ROW_
};
DMSG_OP_TABLE_CHECK(dmsg_ofi_kinds);
