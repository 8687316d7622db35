/* Deposit counters, barrier and small all-gather over libfabric. A counted
 * deposit ends with an operation that carries remote CQ data naming the slot
 * and the payload; the target adds it to its slot when it reads the CQ entry,
 * which the provider writes only after the data is placed. Where deposits
 * are counted by remote counters instead (ofi_rcount.c), a slot's counts are
 * its counter and cells plus what this PE counted itself. */
#include <string.h>
#include "dmsg/transport/ofi/ofi.h"

uint64_t ofi_sig_deposit(uint32_t slot, uint64_t bytes)
{
    return ((uint64_t)OFI_SIG_DEPOSIT << OFI_SIG_SHIFT) | ((uint64_t)slot << 44) |
           (bytes & ((UINT64_C(1) << 44) - 1));
}

void ofi_on_signal(ofi_state *s, uint64_t data)
{
    switch (data >> OFI_SIG_SHIFT) {
    case OFI_SIG_DEPOSIT: {
        uint32_t slot = (uint32_t)((data >> 44) & 0xffff);
        if (slot < s->nslots) {
            s->slot[slot].msgs++;
            s->slot[slot].bytes += data & ((UINT64_C(1) << 44) - 1);
        }
        break;
    }
    case OFI_SIG_TOKEN: {
        unsigned step = (unsigned)(data >> 3) & 0xf;
        if (step < OFI_BAR_STEPS)
            s->bar.tokens[data & 1][(data >> 1) & 1][step]++;
        if ((data & 6) == 4)
            s->bar.any_engine[data & 1] = 1;
        break;
    }
    default: break;
    }
}

dmsg_status ofi_ctr_reset(dmsg_tp *tp, uint32_t slot)
{
    ofi_state *s = tp->priv;
    memset(&s->slot[slot], 0, sizeof s->slot[slot]);
    return s->by_counter ? ofi_rcount_reset(s, slot) : DMSG_OK;
}

/* An 8-byte write into the peer's scratch word, carrying a signal. */
static dmsg_status post_signal(ofi_state *s, int pe, uint64_t data, ofi_batch *b)
{
    struct iovec iov = {.iov_base = &s->sigsrc, .iov_len = sizeof s->sigsrc};
    struct fi_rma_iov r = {.addr = s->peer[pe].addr + OFI_SCRATCH_OFF, .len = sizeof s->sigsrc,
                           .key = s->peer[pe].key};
    return ofi_post_rma(s, 0, pe, &iov, 1, &r, 1, FI_REMOTE_CQ_DATA, data, b);
}

dmsg_status ofi_send_signal(ofi_state *s, int pe, uint64_t data)
{
    ofi_batch b = {0};
    dmsg_status st = post_signal(s, pe, data, &b);
    return st ? st : ofi_wait_batch(s, &b, "a counter signal");
}

/* Where the completion of a large write already says that the target has
 * its data (tx_delivers), the count behind it goes as an 8-byte message with
 * remote CQ data, injected: no local completion, no acknowledgement, so it
 * costs about a third of a microsecond instead of a delivery-completed
 * write's round trip. The target counts it when its progress reads the
 * receive completion and reposts the buffer. Messages to one peer are
 * processed in the order sent (FI_ORDER_SAS), so one delivery-completed
 * message behind them (quiet: ofi_flush_signals) means every signal before
 * it has been counted. */
dmsg_status ofi_inject_signal(ofi_state *s, int pe, uint64_t data)
{
    double deadline = 0;
    ssize_t rc;
    dmsg_status st;
    while ((rc = fi_injectdata(s->fab.ep, &s->sigsrc, sizeof s->sigsrc, data,
                               (fi_addr_t)pe)) == -FI_EAGAIN)
        if ((st = ofi_retry(s, pe, &deadline)))
            return st;
    if (rc)
        return DMSG_FAIL(DMSG_ERR_TRANSPORT, "%s: signal message to PE %d: %s", s->caps.prov, pe,
                         fi_strerror((int)-rc));
    s->sigpend[pe] = 1;
    return DMSG_OK;
}

/* A delivery-completed message (remote CQ data 0: nothing to count) behind
 * the signal messages sent to pe since the last flush. It carries 8 bytes:
 * libfabric 1.17's shm never completed an empty one with delivery
 * completion. */
dmsg_status ofi_flush_signals(ofi_state *s, int pe)
{
    ofi_batch b = {0};
    struct iovec iov = {.iov_base = &s->sigsrc, .iov_len = sizeof s->sigsrc};
    struct fi_msg m = {.msg_iov = &iov, .iov_count = 1, .addr = (fi_addr_t)pe, .context = &b,
                       .data = 0};
    double deadline = 0;
    ssize_t rc;
    dmsg_status st;
    while ((rc = fi_sendmsg(s->fab.ep, &m,
                            FI_COMPLETION | FI_DELIVERY_COMPLETE | FI_REMOTE_CQ_DATA)) ==
           -FI_EAGAIN)
        if ((st = ofi_retry(s, pe, &deadline)))
            return st;
    if (rc)
        return DMSG_FAIL(DMSG_ERR_TRANSPORT, "%s: flushing message to PE %d: %s", s->caps.prov,
                         pe, fi_strerror((int)-rc));
    s->tx_pending++;
    b.pending++;
    if ((st = ofi_wait_batch(s, &b, "a flushing message")))
        return st;
    s->sigpend[pe] = 0;
    return DMSG_OK;
}

/* A slot's counts: what this PE counted itself (remote CQ data, engine
 * messages, transfers with itself) plus, counting by remote counters, the
 * slot's counter and cells. */
static dmsg_status counts(ofi_state *s, uint32_t slot, uint64_t *msgs, uint64_t *bytes)
{
    const ofi_slot *c = &s->slot[slot];
    uint64_t m = 0, b = 0;
    dmsg_status st = s->by_counter ? ofi_rcount_read(s, slot, &m, &b) : DMSG_OK;
    *msgs = m + c->msgs - c->taken_msgs;
    *bytes = b + c->bytes - c->taken_bytes;
    return st;
}

typedef struct need {
    uint32_t slot;
    int bytes_mode;
    uint64_t n;
    dmsg_status st;
} need;

static int enough(ofi_state *s, const void *arg)
{
    need *w = (need *)arg;
    uint64_t m, b;
    w->st = counts(s, w->slot, &m, &b);
    return w->st || (w->bytes_mode ? b : m) >= w->n;
}

dmsg_status ofi_ctr_wait(dmsg_tp *tp, uint32_t slot, int bytes_mode, uint64_t n)
{
    ofi_state *s = tp->priv;
    ofi_slot *c = &s->slot[slot];
    need w = {slot, bytes_mode, n, DMSG_OK};
    dmsg_status st = ofi_wait_pred(s, enough, &w, "deposits on a counter");
    if (st || (st = w.st))
        return st;
    if (bytes_mode)
        c->taken_bytes += n;
    else
        c->taken_msgs += n;
    return DMSG_OK;
}

dmsg_status ofi_ctr_read(dmsg_tp *tp, uint32_t slot, uint64_t *msgs, uint64_t *bytes)
{
    ofi_state *s = tp->priv;
    ofi_progress(s); /* a failed peer is reported by the next wait, not by a read */
    return counts(s, slot, msgs, bytes);
}

typedef struct tok_need {
    ofi_batch *b;
    int parity, round, step, last;
} tok_need;

/* The token of this step is in; at the last step also every token this PE
 * sent has completed (the message header they send from lives until then). */
static int tokens_in(ofi_state *s, const void *arg)
{
    const tok_need *t = arg;
    return (!t->last || t->b->pending == 0) && s->bar.tokens[t->parity][t->round][t->step] > 0;
}

/* Where remote CQ data does not arrive (sockets), a token is a deposit
 * engine message without records whose signal is the token: the target's
 * engine counts it like a deposit's signal. */
static dmsg_status post_token_msg(ofi_state *s, int pe, const ofi_eng_hdr *h, ofi_batch *b)
{
    struct iovec iov = {.iov_base = (void *)h, .iov_len = sizeof *h};
    struct fi_msg m = {.msg_iov = &iov, .iov_count = 1, .addr = (fi_addr_t)pe, .context = b};
    double deadline = 0;
    ssize_t rc;
    dmsg_status st;
    while ((rc = fi_sendmsg(s->fab.ep, &m, FI_COMPLETION)) == -FI_EAGAIN)
        if ((st = ofi_retry(s, pe, &deadline)))
            return st;
    if (rc)
        return DMSG_FAIL(DMSG_ERR_TRANSPORT, "%s: barrier token to PE %d: %s", s->caps.prov, pe,
                         fi_strerror((int)-rc));
    s->tx_pending++;
    b->pending++;
    return DMSG_OK;
}

/* One dissemination round: at step k this PE sends a token to the PE 2^k
 * above it and waits for the one from the PE 2^k below, so after
 * ceil(log2 npes) steps every PE has heard, directly or through others, from
 * every PE that entered: npes log npes tokens instead of npes^2, which
 * matters most when PEs share cores. In round 0 a token's flag says that
 * the sender or a PE it heard from sent engine messages; after the last
 * step every PE knows whether any did. */
static dmsg_status token_round(ofi_state *s, int parity, int round, int mine)
{
    ofi_batch b = {0};
    dmsg_status st = DMSG_OK;
    ofi_eng_hdr h[OFI_BAR_STEPS]; /* live until b is done */
    for (int k = 0; (1 << k) < s->npes && !st; k++) {
        int flag = round == 0 && (mine || s->bar.any_engine[parity]);
        uint64_t tok = ((uint64_t)OFI_SIG_TOKEN << OFI_SIG_SHIFT) | (uint64_t)parity |
                       ((uint64_t)round << 1) | ((uint64_t)flag << 2) | ((uint64_t)k << 3);
        int pe = (s->rank + (1 << k)) % s->npes;
        h[k] = (ofi_eng_hdr){.magic = OFI_ENG_MAGIC, .sig = tok};
        st = s->msg_tokens ? post_token_msg(s, pe, &h[k], &b) : post_signal(s, pe, tok, &b);
        tok_need t = {&b, parity, round, k, (2 << k) >= s->npes};
        /* After a failed post, wait for what was posted before leaving. */
        dmsg_status w = st ? ofi_wait_batch(s, &b, "barrier tokens")
                           : ofi_wait_pred(s, tokens_in, &t, "the other PEs at a barrier");
        if (st || (st = w))
            return st;
        s->bar.tokens[parity][round][k]--;
    }
    if (b.status)
        return ofi_peer_failed(s, b.status);
    return DMSG_OK;
}

/* Quiet (every operation of this PE is delivered), then a dissemination
 * round of tokens; when it ends, every PE has entered, so everything issued
 * before the barrier anywhere is visible. Tokens of a faster PE's next barrier count on the
 * other parity. Deposit engine messages are delivered into a receive buffer
 * but stored only when the target reads them; the target does so before it
 * sees the sender's token (tokens travel behind messages), yet a third PE
 * could pass the barrier before that. So when any PE sent engine messages
 * (round-0 tokens carry it to every PE), a second round of
 * tokens follows, sent only after each PE has stored what it received. */
dmsg_status ofi_barrier(dmsg_tp *tp)
{
    ofi_state *s = tp->priv;
    dmsg_status st = ofi_quiet(tp);
    if (st)
        return st;
    int parity = (int)(s->bar.count & 1);
    int mine = s->eng.used;
    s->eng.used = 0;
    if ((st = token_round(s, parity, 0, mine)))
        return st;
    if ((s->bar.any_engine[parity] || mine) && (st = token_round(s, parity, 1, 0)))
        return st;
    /* The next tokens of this parity come only after everyone has passed
     * the next barrier, which needs our token: resetting now is safe. */
    s->bar.any_engine[parity] = 0;
    s->bar.count++;
    return DMSG_OK;
}

dmsg_status ofi_allgather(dmsg_tp *tp, const void *mine, size_t len, void *all)
{
    ofi_state *s = tp->priv;
    if (len > OFI_GATHER_LEN)
        return DMSG_FAIL(DMSG_ERR_ARG, "allgather of %zu bytes", len);
    char *rows = s->fab.base; /* gather rows start the control area */
    memcpy(rows + (size_t)s->rank * OFI_GATHER_LEN, mine, len);
    ofi_batch b = {0};
    dmsg_status st;
    for (int i = 1; i < s->npes; i++) {
        int pe = (s->rank + i) % s->npes;
        struct iovec iov = {.iov_base = rows + (size_t)s->rank * OFI_GATHER_LEN, .iov_len = len};
        struct fi_rma_iov r = {.addr = s->peer[pe].addr + (uint64_t)s->rank * OFI_GATHER_LEN,
                               .len = len, .key = s->peer[pe].key};
        if ((st = ofi_post_rma(s, 0, pe, &iov, 1, &r, 1, 0, 0, &b)))
            return st;
    }
    if ((st = ofi_wait_batch(s, &b, "all-gather writes")) || (st = ofi_barrier(tp)))
        return st;
    for (int p = 0; p < s->npes; p++)
        memcpy((char *)all + (size_t)p * len, rows + (size_t)p * OFI_GATHER_LEN, len);
    /* Nobody may overwrite its row before everyone has read it. */
    return ofi_barrier(tp);
}
