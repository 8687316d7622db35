/* Atomics, signals and point-to-point waits over libfabric. Every word of
 * the job travels one path, chosen at start-up (dmsg_ofi_plan_atomics): provider
 * atomics are atomic only with respect to each other, so they are never
 * mixed with CPU atomics on a word, not even on this PE's own words (those
 * go through the provider to itself).
 *
 * native: each op is the provider's fetching atomic (the fetch form even
 * where nothing is fetched: its completion means "done at the target", which
 * a plain atomic's does not on every provider).
 * emulated: compare-swap is all the provider needs; every other op is a
 * compare-swap loop that starts from a guess and learns the word's value
 * from each failed try. Each try is a round trip, so its non-blocking
 * forms complete before they return.
 * software: a request message (ofi_amo_msg) that the target applies with a
 * CPU atomic when its progress reads it, answered by a reply with the old
 * value; the target's own words are changed by its own CPU, so every change
 * of a word is made by the one PE that owns it. */
#include <stdlib.h>
#include <string.h>
#include "dmsg/base/fence.h"
#include "dmsg/transport/ofi/ofi.h"

/* Words are held in a uint64_t, the value in its first `size` bytes (the
 * provider reads and writes size bytes at the buffer's address). */
static void put_word(uint64_t *dst, int size, uint64_t v)
{
    if (size == 4) {
        uint32_t w = (uint32_t)v;
        memcpy(dst, &w, 4);
    } else {
        memcpy(dst, &v, 8);
    }
}

static uint64_t get_word(const uint64_t *src, int size)
{
    if (size == 4) {
        uint32_t w;
        memcpy(&w, src, 4);
        return w;
    }
    return *src;
}

static int fetching(int op)
{
    return op == DMSG_AMO_FETCH || op == DMSG_AMO_SWAP || op == DMSG_AMO_CSWAP ||
           op == DMSG_AMO_FETCH_ADD || op == DMSG_AMO_FETCH_AND || op == DMSG_AMO_FETCH_OR ||
           op == DMSG_AMO_FETCH_XOR;
}

/* The provider op that does op (its fetch form; FI_CSWAP: the compare form). */
static enum fi_op fi_op_of(int op)
{
    switch (op) {
    case DMSG_AMO_FETCH: return FI_ATOMIC_READ;
    case DMSG_AMO_SET:
    case DMSG_AMO_SWAP: return FI_ATOMIC_WRITE;
    case DMSG_AMO_CSWAP: return FI_CSWAP;
    case DMSG_AMO_ADD:
    case DMSG_AMO_FETCH_ADD: return FI_SUM;
    case DMSG_AMO_AND:
    case DMSG_AMO_FETCH_AND: return FI_BAND;
    case DMSG_AMO_OR:
    case DMSG_AMO_FETCH_OR: return FI_BOR;
    default: return FI_BXOR;
    }
}

/* The word after op, from its old value (not for CSWAP). */
static uint64_t combine(int op, int size, uint64_t old, uint64_t v)
{
    uint64_t r;
    switch (op) {
    case DMSG_AMO_FETCH: r = old; break;
    case DMSG_AMO_SET:
    case DMSG_AMO_SWAP: r = v; break;
    case DMSG_AMO_ADD:
    case DMSG_AMO_FETCH_ADD: r = old + v; break;
    case DMSG_AMO_AND:
    case DMSG_AMO_FETCH_AND: r = old & v; break;
    case DMSG_AMO_OR:
    case DMSG_AMO_FETCH_OR: r = old | v; break;
    default: r = old ^ v; break;
    }
    return size == 4 ? (uint32_t)r : r;
}

#define APPLY(T)                                                                                 \
    do {                                                                                         \
        T *w = (T *)(void *)word, v = (T)operand, old = (T)compare;                             \
        switch (op) {                                                                            \
        case DMSG_AMO_FETCH: old = __atomic_load_n(w, __ATOMIC_SEQ_CST); break;                 \
        case DMSG_AMO_SET:                                                                       \
        case DMSG_AMO_SWAP: old = __atomic_exchange_n(w, v, __ATOMIC_SEQ_CST); break;           \
        case DMSG_AMO_CSWAP:                                                                     \
            __atomic_compare_exchange_n(w, &old, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);     \
            break;                                                                               \
        case DMSG_AMO_ADD:                                                                       \
        case DMSG_AMO_FETCH_ADD: old = __atomic_fetch_add(w, v, __ATOMIC_SEQ_CST); break;       \
        case DMSG_AMO_AND:                                                                       \
        case DMSG_AMO_FETCH_AND: old = __atomic_fetch_and(w, v, __ATOMIC_SEQ_CST); break;       \
        case DMSG_AMO_OR:                                                                        \
        case DMSG_AMO_FETCH_OR: old = __atomic_fetch_or(w, v, __ATOMIC_SEQ_CST); break;         \
        default: old = __atomic_fetch_xor(w, v, __ATOMIC_SEQ_CST); break;                       \
        }                                                                                        \
        return old;                                                                              \
    } while (0)

uint64_t dmsg_ofi_amo_apply(char *word, int op, int size, uint64_t operand, uint64_t compare)
{
    if (size == 4)
        APPLY(uint32_t);
    APPLY(uint64_t);
}

void dmsg_ofi_amo_finish(ofi_amo_ctx *x)
{
    if (x->out)
        put_word(x->out, x->size, get_word(&x->result, x->size));
}

static int below_window(ofi_state *s, const void *arg)
{
    return s->tx_pending < s->amo.window;
}

static int all_done(ofi_state *s, const void *arg)
{
    return s->tx_pending == 0;
}

/* ---- native and emulated: provider atomics ---- */

/* One provider atomic on x's operands into x->result: the fetch form of
 * fiop, or compare-swap. */
static dmsg_status post(ofi_state *s, int pe, size_t roff, int size, enum fi_op fiop,
                        ofi_amo_ctx *x)
{
    enum fi_datatype t = size == 4 ? FI_UINT32 : FI_UINT64;
    struct fi_rma_iov r = ofi_seg_riov(s, pe, roff, (size_t)size);
    double deadline = 0;
    ssize_t rc;
    dmsg_status st;
    if (s->tx_pending >= s->amo.window &&
        (st = dmsg_ofi_wait_pred(s, below_window, NULL, "atomics in flight")))
        return st;
    for (;;) {
        if (fiop == FI_CSWAP)
            rc = fi_compare_atomic(s->fab.ep, &x->operand, 1, NULL, &x->compare, NULL,
                                   &x->result, NULL, (fi_addr_t)pe, r.addr, r.key, t, FI_CSWAP,
                                   &x->b);
        else
            rc = fi_fetch_atomic(s->fab.ep, &x->operand, 1, NULL, &x->result, NULL, (fi_addr_t)pe,
                                 r.addr, r.key, t, fiop, &x->b);
        if (rc != -FI_EAGAIN)
            break;
        if ((st = dmsg_ofi_retry(s, pe, &deadline)))
            return st;
    }
    if (rc)
        return DMSG_FAIL(DMSG_ERR_TRANSPORT, "%s: atomic %d on %d bytes at PE %d: %s",
                         s->caps.prov, (int)fiop, size, pe, fi_strerror((int)-rc));
    s->tx_pending++;
    x->b.pending++;
    dmsg_ofi_bell_ring(s, pe); /* most providers apply it in pe's progress */
    return DMSG_OK;
}

/* A blocking compare-swap loop: the word becomes combine(old), atomically,
 * through the provider's compare-swap alone. The first try guesses 0 (a
 * fresh word), every failed one returns the value to try next. */
static dmsg_status emulate(ofi_state *s, const dmsg_amo *a, uint64_t *old)
{
    ofi_amo_ctx x = {.size = a->size};
    uint64_t guess = a->op == DMSG_AMO_CSWAP ? a->compare : 0;
    for (;;) {
        uint64_t want = a->op == DMSG_AMO_CSWAP ? a->operand : combine(a->op, a->size, guess,
                                                                       a->operand);
        put_word(&x.compare, a->size, guess);
        put_word(&x.operand, a->size, want);
        x.b = (ofi_batch){0};
        dmsg_status st = post(s, a->pe, a->roff, a->size, FI_CSWAP, &x);
        if (!st)
            st = dmsg_ofi_wait_batch(s, &x.b, "an atomic compare-swap");
        if (st)
            return st;
        uint64_t got = get_word(&x.result, a->size);
        /* Any compare-swap reads the word atomically: FETCH (which writes
         * the guess back where it matched: no change) is done at once. */
        if (got == guess || a->op == DMSG_AMO_CSWAP || a->op == DMSG_AMO_FETCH) {
            *old = got;
            return DMSG_OK;
        }
        guess = got;
    }
}

/* ---- software: messages the target executes ---- */

static dmsg_status send_msg(ofi_state *s, int pe, const ofi_amo_msg *m)
{
    double deadline = 0;
    ssize_t rc;
    dmsg_status st;
    while ((rc = fi_inject(s->fab.ep, m, sizeof *m, (fi_addr_t)pe)) == -FI_EAGAIN)
        if ((st = dmsg_ofi_retry(s, pe, &deadline)))
            return st;
    if (rc)
        return DMSG_FAIL(DMSG_ERR_TRANSPORT, "%s: atomic request to PE %d: %s", s->caps.prov, pe,
                         fi_strerror((int)-rc));
    dmsg_ofi_bell_ring(s, pe);
    return DMSG_OK;
}

static int slot_open(ofi_state *s, const void *arg)
{
    return s->amo.inflight < OFI_AMO_WINDOW;
}

static dmsg_status software(ofi_state *s, const dmsg_amo *a, ofi_amo_ctx *x)
{
    dmsg_status st;
    if (s->caps.inject < sizeof(ofi_amo_msg))
        return DMSG_FAIL(DMSG_ERR_UNSUPPORTED,
                         "%s: inject size %zu is below an atomic request's %zu bytes",
                         s->caps.prov, s->caps.inject, sizeof(ofi_amo_msg));
    if (s->amo.inflight >= OFI_AMO_WINDOW &&
        (st = dmsg_ofi_wait_pred(s, slot_open, NULL, "an atomic's reply")))
        return st;
    uint32_t i = 0;
    while (s->amo.slot[i].x)
        i++;
    uint32_t gen = ++s->amo.gen & 0xffffff;
    ofi_amo_msg m = {.magic = OFI_AMO_REQ, .op = (uint8_t)a->op, .size = (uint8_t)a->size,
                     .src = (uint32_t)s->tp->rank, .id = i | gen << 8, .roff = a->roff,
                     .operand = a->operand, .compare = a->compare};
    if ((st = send_msg(s, a->pe, &m)))
        return st;
    s->amo.slot[i].x = x;
    s->amo.slot[i].gen = gen;
    s->amo.inflight++;
    s->tx_pending++; /* the reply: quiet and barriers wait for it */
    x->b.pending++;
    return DMSG_OK;
}

static void send_reply(ofi_state *s, int pe, const ofi_amo_msg *m)
{
    if (s->amo.outn == 0) {
        ssize_t rc = fi_inject(s->fab.ep, m, sizeof *m, (fi_addr_t)pe);
        if (rc == 0) {
            dmsg_ofi_bell_ring(s, pe); /* the requester may sleep in its wait */
            return;
        }
        if (rc != -FI_EAGAIN) {
            if (!s->failed)
                s->failed = DMSG_FAIL(DMSG_ERR_TRANSPORT, "%s: atomic reply to PE %d: %s",
                                      s->caps.prov, pe, fi_strerror((int)-rc));
            return;
        }
    }
    /* Refused for now, or replies are queued already (they keep their
     * order): the next progress sends it. Called inside progress, so it
     * cannot wait here. */
    if (s->amo.outn == s->amo.outcap) {
        size_t cap = s->amo.outcap ? 2 * s->amo.outcap : 64;
        ofi_amo_msg *q = realloc(s->amo.outq, cap * sizeof *q);
        if (!q) {
            if (!s->failed)
                s->failed = DMSG_FAIL(DMSG_ERR_NOMEM, "queueing an atomic reply");
            return;
        }
        s->amo.outq = q;
        s->amo.outcap = cap;
    }
    s->amo.outq[s->amo.outn] = *m;
    s->amo.outq[s->amo.outn].src = (uint32_t)pe; /* the destination, while queued */
    s->amo.outn++;
}

void dmsg_ofi_amo_send_queued(ofi_state *s)
{
    size_t k = 0;
    for (; k < s->amo.outn; k++) {
        ofi_amo_msg m = s->amo.outq[k];
        int pe = (int)m.src;
        m.src = (uint32_t)s->tp->rank;
        ssize_t rc = fi_inject(s->fab.ep, &m, sizeof m, (fi_addr_t)pe);
        if (rc == -FI_EAGAIN) {
            dmsg_ofi_bell_ring_now(s, pe); /* its progress frees the queue */
            break;
        }
        if (rc == 0)
            dmsg_ofi_bell_ring(s, pe);
        if (rc && !s->failed)
            s->failed = DMSG_FAIL(DMSG_ERR_TRANSPORT, "%s: atomic reply to PE %d: %s",
                                  s->caps.prov, pe, fi_strerror((int)-rc));
    }
    memmove(s->amo.outq, s->amo.outq + k, (s->amo.outn - k) * sizeof *s->amo.outq);
    s->amo.outn -= k;
}

/* A request from a peer: checked whole before the word is touched (a bad
 * one is answered with an error and changes nothing), applied, answered. */
static void on_request(ofi_state *s, const ofi_amo_msg *m)
{
    if (m->src >= (uint32_t)s->tp->npes) {
        if (!s->failed)
            s->failed = DMSG_FAIL(DMSG_ERR_TRANSPORT, "atomic request from unknown PE %u", m->src);
        return;
    }
    ofi_amo_msg r = {.magic = OFI_AMO_REP, .op = m->op, .size = m->size,
                     .src = (uint32_t)s->tp->rank, .id = m->id};
    if ((m->size != 4 && m->size != 8) || m->op < DMSG_AMO_FETCH || m->op > DMSG_AMO_FETCH_XOR)
        r.status = DMSG_ERR_ARG;
    else if (m->roff % m->size || m->roff > s->tp->seg_size - m->size)
        r.status = DMSG_ERR_RANGE;
    else
        r.operand = dmsg_ofi_amo_apply(s->seg + m->roff, m->op, m->size, m->operand, m->compare);
    if (r.status)
        (void)DMSG_FAIL(r.status, "refused an atomic request of PE %u (op %u, %u bytes, offset "
                        "%llu)", m->src, m->op, m->size, (unsigned long long)m->roff);
    send_reply(s, (int)m->src, &r);
}

static void on_reply(ofi_state *s, const ofi_amo_msg *m)
{
    uint32_t i = m->id & 0xff;
    if (i >= OFI_AMO_WINDOW || !s->amo.slot[i].x || s->amo.slot[i].gen != m->id >> 8) {
        if (!s->failed)
            s->failed = DMSG_FAIL(DMSG_ERR_TRANSPORT, "atomic reply %u matches no request", m->id);
        return;
    }
    ofi_amo_ctx *x = s->amo.slot[i].x;
    s->amo.slot[i].x = NULL;
    s->amo.inflight--;
    put_word(&x->result, x->size, m->operand);
    dmsg_ofi_complete(s, &x->b,
                 m->status ? DMSG_FAIL(DMSG_ERR_TRANSPORT, "PE %u refused an atomic (%s)", m->src,
                                       dmsg_strerror(m->status))
                           : DMSG_OK);
}

void dmsg_ofi_amo_recv(ofi_state *s, const void *buf, size_t len)
{
    ofi_amo_msg m;
    if (len != sizeof m) {
        if (!s->failed)
            s->failed = DMSG_FAIL(DMSG_ERR_TRANSPORT, "atomic message of %zu bytes", len);
        return;
    }
    memcpy(&m, buf, sizeof m);
    if (m.magic == OFI_AMO_REQ)
        on_request(s, &m);
    else
        on_reply(s, &m);
}

void dmsg_ofi_amo_stop(ofi_state *s)
{
    free(s->amo.outq);
    s->amo.outq = NULL;
    s->amo.outn = s->amo.outcap = 0;
}

/* ---- the ops ---- */

/* Starts a on x (native or software); done when x->b has no pending. */
static dmsg_status start(ofi_state *s, const dmsg_amo *a, ofi_amo_ctx *x)
{
    if (s->amo.path == OFI_AMO_SOFTWARE)
        return software(s, a, x);
    put_word(&x->operand, a->size, a->operand);
    put_word(&x->compare, a->size, a->compare);
    return post(s, a->pe, a->roff, a->size, fi_op_of(a->op), x);
}

dmsg_status dmsg_ofi_amo(dmsg_tp *tp, const dmsg_amo *a, int mode, void *result, dmsg_req *req)
{
    ofi_state *s = tp->priv;
    dmsg_status st;
    uint64_t old = 0;
    if (mode == DMSG_AMO_NB_REQ)
        req->priv[0] = req->priv[1] = NULL;
    if (!fetching(a->op))
        result = NULL;
    /* Done before returning: emulated ops (a loop of round trips), and
     * software ops on this PE's own words (its CPU is the target's). */
    if (s->amo.path == OFI_AMO_EMULATED ||
        (s->amo.path == OFI_AMO_SOFTWARE && a->pe == s->tp->rank)) {
        if (s->amo.path == OFI_AMO_EMULATED)
            st = emulate(s, a, &old);
        else
            old = dmsg_ofi_amo_apply(s->seg + a->roff, a->op, a->size, a->operand, a->compare),
            st = DMSG_OK;
        if (!st && result)
            put_word(result, a->size, old);
        return st;
    }
    if (mode == DMSG_AMO_BLOCKING) {
        ofi_amo_ctx x = {.size = a->size, .out = result};
        st = start(s, a, &x);
        dmsg_status w = dmsg_ofi_wait_batch(s, &x.b, "an atomic");
        if (!st && !(st = w))
            dmsg_ofi_amo_finish(&x);
        return st;
    }
    /* Non-blocking: a bounded number in flight (post, or the software
     * path's window), so that the 100k atomics of a loop do not queue up all
     * at once in the provider. */
    ofi_amo_ctx *x = calloc(1, sizeof *x);
    if (!x)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "an atomic's context");
    x->size = a->size;
    x->out = result;
    x->b.amo = 1;
    x->b.heap = mode == DMSG_AMO_NB_QUIET;
    if ((st = start(s, a, x))) {
        /* Nothing was started on x (start posts one operation, last). */
        free(x);
        return st;
    }
    if (mode == DMSG_AMO_NB_REQ)
        req->priv[0] = &x->b;
    return DMSG_OK;
}

/* Every put this PE issued before the signal is complete at the target
 * before the signal is sent: every operation completed here (deposits ask
 * for delivery completion, engine messages too, counted writes are
 * operations), then, where visibility comes by a flushing read, the read. */
dmsg_status dmsg_ofi_signal(dmsg_tp *tp, int pe, size_t roff, uint64_t value, int add)
{
    ofi_state *s = tp->priv;
    dmsg_status st;
    if (pe != s->tp->rank) {
        if (s->tx_pending && (st = dmsg_ofi_wait_pred(s, all_done, NULL, "deposits before a signal")))
            return st;
        if (s->flush && s->dirty[pe] && (st = dmsg_ofi_flush(s, pe)))
            return st;
    }
    dmsg_amo a = {.op = add ? DMSG_AMO_ADD : DMSG_AMO_SET, .size = 8, .pe = pe, .roff = roff,
                  .operand = value};
    return dmsg_ofi_amo(tp, &a, DMSG_AMO_NB_QUIET, NULL, NULL);
}

typedef struct wait_arg {
    dmsg_tp_ready_fn ready;
    const void *arg;
} wait_arg;

static int word_ready(ofi_state *s, const void *p)
{
    const wait_arg *w = p;
    return w->ready(w->arg);
}

/* Progress serves the words' changes here: provider atomics of other PEs
 * (executed in this PE's progress on most providers), software requests,
 * and the deposits signals follow. */
dmsg_status dmsg_ofi_word_wait(dmsg_tp *tp, dmsg_tp_ready_fn ready, const void *arg, int once)
{
    ofi_state *s = tp->priv;
    dmsg_status st = DMSG_OK;
    if (once)
        dmsg_ofi_progress(s); /* a failed peer is reported by the next wait, not by a test */
    else
        st = dmsg_ofi_wait_pred(s, word_ready, &(wait_arg){ready, arg}, "a word to change");
    dmsg_fence_seq_cst(); /* acquire what the change made visible (a full fence: see fence.h) */
    return st;
}
