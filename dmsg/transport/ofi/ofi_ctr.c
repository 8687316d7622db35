/* Deposit counters, signals and the small all-gather over libfabric (the
 * barrier is ofi_bar.c). A counted deposit ends with an operation that
 * carries remote CQ data naming the slot and the payload; the target adds it
 * to its slot when it reads the CQ entry, which the provider writes only
 * after the data is placed. Where deposits are counted by remote counters
 * instead (ofi_rcount.c), a slot's counts are its counter and cells plus
 * what this PE counted itself. */
#include <string.h>
#include "dmsg/transport/ofi/ofi.h"

uint64_t dmsg_ofi_sig_deposit(uint32_t slot, uint64_t bytes)
{
    return ((uint64_t)OFI_SIG_DEPOSIT << OFI_SIG_SHIFT) | ((uint64_t)slot << 44) |
           (bytes & ((UINT64_C(1) << 44) - 1));
}

void dmsg_ofi_on_signal(ofi_state *s, uint64_t data)
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
    case OFI_SIG_TOKEN: dmsg_ofi_bar_on_token(s, data); break;
    default: break;
    }
}

dmsg_status dmsg_ofi_ctr_reset(dmsg_tp *tp, uint32_t slot)
{
    ofi_state *s = tp->priv;
    memset(&s->slot[slot], 0, sizeof s->slot[slot]);
    return s->by_counter ? dmsg_ofi_rcount_reset(s, slot) : DMSG_OK;
}

/* An 8-byte write into the peer's scratch word, carrying a signal. */
dmsg_status dmsg_ofi_post_signal(ofi_state *s, int pe, uint64_t data, ofi_batch *b)
{
    struct iovec iov = {.iov_base = &s->sigsrc, .iov_len = sizeof s->sigsrc};
    struct fi_rma_iov r = {.addr = s->peer[pe].addr + OFI_SCRATCH_OFF, .len = sizeof s->sigsrc,
                           .key = s->peer[pe].key};
    return dmsg_ofi_post_rma(s, 0, pe, &iov, 1, &r, 1, FI_REMOTE_CQ_DATA, data, b);
}

dmsg_status dmsg_ofi_send_signal(ofi_state *s, int pe, uint64_t data)
{
    ofi_batch b = {0};
    dmsg_status st = dmsg_ofi_post_signal(s, pe, data, &b);
    return st ? st : dmsg_ofi_wait_batch(s, &b, "a counter signal");
}

/* Where the completion of a large write already says that the target has
 * its data (tx_delivers), the count behind it goes as an 8-byte message with
 * remote CQ data, injected: no local completion, no acknowledgement, so it
 * costs about a third of a microsecond instead of a delivery-completed
 * write's round trip. The target counts it when its progress reads the
 * receive completion and reposts the buffer. Messages to one peer are
 * processed in the order sent (FI_ORDER_SAS), so one delivery-completed
 * message behind them (quiet: dmsg_ofi_flush_signals) means every signal before
 * it has been counted. */
dmsg_status dmsg_ofi_inject_signal(ofi_state *s, int pe, uint64_t data)
{
    double deadline = 0;
    ssize_t rc;
    dmsg_status st;
    while ((rc = fi_injectdata(s->fab.ep, &s->sigsrc, sizeof s->sigsrc, data,
                               (fi_addr_t)pe)) == -FI_EAGAIN)
        if ((st = dmsg_ofi_retry(s, pe, &deadline)))
            return st;
    if (rc)
        return DMSG_FAIL(DMSG_ERR_TRANSPORT, "%s: signal message to PE %d: %s", s->caps.prov, pe,
                         fi_strerror((int)-rc));
    s->sigpend[pe] = 1;
    dmsg_ofi_bell_ring(s, pe); /* counted when pe's progress reads it */
    return DMSG_OK;
}

/* A delivery-completed message (remote CQ data 0: nothing to count) behind
 * the signal messages sent to pe since the last flush. It carries 8 bytes:
 * libfabric 1.17's shm never completed an empty one with delivery
 * completion. */
dmsg_status dmsg_ofi_flush_signals(ofi_state *s, int pe)
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
        if ((st = dmsg_ofi_retry(s, pe, &deadline)))
            return st;
    if (rc)
        return DMSG_FAIL(DMSG_ERR_TRANSPORT, "%s: flushing message to PE %d: %s", s->caps.prov,
                         pe, fi_strerror((int)-rc));
    s->tx_pending++;
    b.pending++;
    dmsg_ofi_bell_ring(s, pe);
    if ((st = dmsg_ofi_wait_batch(s, &b, "a flushing message")))
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
    dmsg_status st = s->by_counter ? dmsg_ofi_rcount_read(s, slot, &m, &b) : DMSG_OK;
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

dmsg_status dmsg_ofi_ctr_wait(dmsg_tp *tp, uint32_t slot, int bytes_mode, uint64_t n)
{
    ofi_state *s = tp->priv;
    ofi_slot *c = &s->slot[slot];
    need w = {slot, bytes_mode, n, DMSG_OK};
    dmsg_status st = dmsg_ofi_wait_pred(s, enough, &w, "deposits on a counter");
    if (st || (st = w.st))
        return st;
    if (bytes_mode)
        c->taken_bytes += n;
    else
        c->taken_msgs += n;
    return DMSG_OK;
}

dmsg_status dmsg_ofi_ctr_read(dmsg_tp *tp, uint32_t slot, uint64_t *msgs, uint64_t *bytes)
{
    ofi_state *s = tp->priv;
    dmsg_ofi_progress(s); /* a failed peer is reported by the next wait, not by a read */
    return counts(s, slot, msgs, bytes);
}

dmsg_status dmsg_ofi_allgather(dmsg_tp *tp, const void *mine, size_t len, void *all)
{
    ofi_state *s = tp->priv;
    if (len > OFI_GATHER_LEN)
        return DMSG_FAIL(DMSG_ERR_ARG, "allgather of %zu bytes", len);
    char *rows = s->fab.base; /* gather rows start the control area */
    memcpy(rows + (size_t)s->tp->rank * OFI_GATHER_LEN, mine, len);
    ofi_batch b = {0};
    dmsg_status st;
    for (int i = 1; i < s->tp->npes; i++) {
        int pe = (s->tp->rank + i) % s->tp->npes;
        struct iovec iov = {.iov_base = rows + (size_t)s->tp->rank * OFI_GATHER_LEN, .iov_len = len};
        struct fi_rma_iov r = {.addr = s->peer[pe].addr + (uint64_t)s->tp->rank * OFI_GATHER_LEN,
                               .len = len, .key = s->peer[pe].key};
        if ((st = dmsg_ofi_post_rma(s, 0, pe, &iov, 1, &r, 1, 0, 0, &b)))
            return st;
    }
    if ((st = dmsg_ofi_wait_batch(s, &b, "all-gather writes")) || (st = dmsg_ofi_barrier(tp)))
        return st;
    for (int p = 0; p < s->tp->npes; p++)
        memcpy((char *)all + (size_t)p * len, rows + (size_t)p * OFI_GATHER_LEN, len);
    /* Nobody may overwrite its row before everyone has read it. */
    return dmsg_ofi_barrier(tp);
}
