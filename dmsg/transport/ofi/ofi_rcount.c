/* Counting deposits by remote write counters, for providers whose remote CQ
 * data does not work (sockets) or when DMSG_OFI_COUNT=counter asks for it.
 *
 * A remote counter counts operations, not bytes, and one counter serves one
 * MR, so each deposit counter slot has its own small MR: a row of npes
 * 8-byte cells, one per sender, with a counter bound to it. A counted
 * deposit moves its data through the segment MR as usual and then writes,
 * in one 8-byte signal write through the slot's key, the sender's new total
 * of bytes deposited to this slot on this target into its own cell. The
 * target's counter then counts the deposits and the cells sum up the bytes.
 * The signal write is placed after the deposit's data (write-after-write
 * order where the provider has it, else the data is made visible first), so
 * neither count runs ahead of the data.
 *
 * An endpoint-wide counter would count every write to the PE, data included,
 * and could not tell slots apart: only counters bound to an MR will do.
 * libfabric 1.17 binds them on sockets only (fi_mr_bind of a counter returns
 * -FI_ENOSYS on shm, udp;ofi_rxd and net); the start-up probe finds out. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "dmsg/transport/ofi/ofi.h"

int dmsg_ofi_rcount_usable(const ofi_caps *c, char *why, size_t whylen)
{
    if (!c->rma_event_adv)
        snprintf(why, whylen, "lacks remote write counters (FI_RMA_EVENT)");
    else if (c->prov_key)
        snprintf(why, whylen,
                 "chooses its own MR keys (FI_MR_PROV_KEY), so a sender cannot know the key of "
                 "a counter's memory region");
    else if (c->inject < 8)
        snprintf(why, whylen, "cannot inject an 8-byte write (inject size %zu)", c->inject);
    else if (c->rcntr_mr != 1)
        snprintf(why, whylen,
                 "lacks remote write counters bound to one memory region (%s); its counters "
                 "count per endpoint and cannot tell deposit counters apart",
                 c->rcntr_mr_why[0] ? c->rcntr_mr_why : "not probed");
    else
        return 1;
    return 0;
}

/* The cells table is mapped once (only the rows of slots in use are ever
 * touched); rows are registered lazily, by dmsg_ofi_rcount_reset, so that 256
 * possible counters do not mean 256 MRs at start-up. */
dmsg_status dmsg_ofi_rcount_start(ofi_state *s)
{
    s->rc.cells_len = (size_t)s->nslots * (size_t)s->tp->npes * sizeof(uint64_t);
    s->rc.cells = mmap(NULL, s->rc.cells_len, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (s->rc.cells == MAP_FAILED) {
        s->rc.cells = NULL;
        return DMSG_FAIL(DMSG_ERR_NOMEM, "mapping %zu bytes of counter cells", s->rc.cells_len);
    }
    s->rc.cs = calloc(s->nslots, sizeof *s->rc.cs);
    s->rc.sigb = calloc((size_t)s->tp->npes, sizeof *s->rc.sigb);
    if (!s->rc.cs || !s->rc.sigb) {
        dmsg_ofi_rcount_stop(s);
        return DMSG_FAIL(DMSG_ERR_NOMEM, "counter slot table");
    }
    return DMSG_OK;
}

/* Before the endpoint's domain is closed: MRs and counters belong to it. */
void dmsg_ofi_rcount_stop(ofi_state *s)
{
    for (uint32_t i = 0; s->rc.cs && i < s->nslots; i++) {
        if (s->rc.cs[i].mr)
            fi_close(&s->rc.cs[i].mr->fid);
        if (s->rc.cs[i].cntr)
            fi_close(&s->rc.cs[i].cntr->fid);
        free(s->rc.cs[i].sent);
    }
    free(s->rc.cs);
    s->rc.cs = NULL;
    free(s->rc.sigb);
    s->rc.sigb = NULL;
    if (s->rc.cells)
        munmap(s->rc.cells, s->rc.cells_len);
    s->rc.cells = NULL;
}

static uint64_t *row(ofi_state *s, uint32_t slot)
{
    return s->rc.cells + (size_t)slot * (size_t)s->tp->npes;
}

static dmsg_status slot_open(ofi_state *s, uint32_t slot)
{
    ofi_cslot *c = &s->rc.cs[slot];
    struct fi_cntr_attr ca = {.events = FI_CNTR_EVENTS_COMP, .wait_obj = FI_WAIT_NONE};
    uint64_t key = s->fab.key + 1 + slot;
    const char *call = "fi_cntr_open";
    int rc;
    if (!c->sent && !(c->sent = calloc((size_t)s->tp->npes, sizeof *c->sent)))
        return DMSG_FAIL(DMSG_ERR_NOMEM, "counter %u: sender totals", slot);
    if ((rc = fi_cntr_open(s->fab.domain, &ca, &c->cntr, NULL)))
        goto fail;
    call = "fi_mr_reg";
    if ((rc = fi_mr_reg(s->fab.domain, row(s, slot), (size_t)s->tp->npes * sizeof(uint64_t),
                        FI_REMOTE_WRITE, 0, key, 0, &c->mr, NULL)))
        goto fail;
    call = "fi_mr_bind (counter)";
    if ((rc = fi_mr_bind(c->mr, &c->cntr->fid, FI_REMOTE_WRITE)))
        goto fail;
    call = "fi_mr_bind (endpoint)";
    if (s->caps.mr_endpoint &&
        ((rc = fi_mr_bind(c->mr, &s->fab.ep->fid, 0)) || (rc = fi_mr_enable(c->mr))))
        goto fail;
    if (fi_mr_key(c->mr) != key) {
        call = "fi_mr_key (another key than requested)";
        rc = -FI_EINVAL;
        goto fail;
    }
    return DMSG_OK;
fail:
    if (c->mr)
        fi_close(&c->mr->fid);
    if (c->cntr)
        fi_close(&c->cntr->fid);
    c->mr = NULL;
    c->cntr = NULL;
    return DMSG_FAIL(DMSG_ERR_TRANSPORT, "%s: counter %u: %s failed: %s", s->caps.prov, slot,
                     call, fi_strerror(-rc));
}

/* Called on every PE by dmsg_ctr_create before its collective check, whose
 * barriers keep every deposit to the slot behind this. A failure to set the
 * slot up is returned (dmsg_ctr_create fails on every PE) and also kept
 * for the slot's waits and reads. Deposits of the slot's previous life are all
 * counted (dmsg_ctr_destroy is collective, with a barrier), so the counter
 * is not reset but its value remembered. */
dmsg_status dmsg_ofi_rcount_reset(ofi_state *s, uint32_t slot)
{
    ofi_cslot *c = &s->rc.cs[slot];
    c->failed = c->mr ? DMSG_OK : slot_open(s, slot);
    if (c->sent)
        memset(c->sent, 0, (size_t)s->tp->npes * sizeof *c->sent);
    memset(row(s, slot), 0, (size_t)s->tp->npes * sizeof(uint64_t));
    c->base = c->cntr ? fi_cntr_read(c->cntr) : 0;
    c->seen = 0;
    return c->failed;
}

static dmsg_status post(ofi_state *s, int pe, uint32_t slot, uint64_t total, ofi_batch *b)
{
    /* 8 bytes are always injected (dmsg_ofi_rcount_usable): total may go away. */
    struct iovec iov = {.iov_base = &total, .iov_len = sizeof total};
    uint64_t off = ((uint64_t)slot * (uint64_t)s->tp->npes + (uint64_t)s->tp->rank) * sizeof total;
    struct fi_rma_iov r = {.addr = s->caps.virt_addr ? s->peer[pe].cells + off
                                                     : (uint64_t)s->tp->rank * sizeof total,
                           .len = sizeof total,
                           .key = s->peer[pe].key + 1 + slot};
    return dmsg_ofi_post_rma(s, 0, pe, &iov, 1, &r, 1, 0, 0, b);
}

/* The provider places a signal write behind data_bytes of data written
 * before it (and behind earlier signals): FI_ORDER_WAW in msg_order, and
 * max_order_waw_size for the data ordering of that many bytes. */
int dmsg_ofi_rcount_ordered(const ofi_state *s, uint64_t data_bytes)
{
    return s->caps.order_waw && data_bytes <= s->caps.max_order_waw;
}

/* Counts a deposit of `bytes` payload bytes at pe on slot, after its data
 * operations (in flight in `data`, data_bytes of them; the caller still
 * waits for them). Two signal writes to one cell must land in order too,
 * or the cell could be left with an older total. */
dmsg_status dmsg_ofi_rcount_signal(ofi_state *s, int pe, uint32_t slot, uint64_t bytes,
                              ofi_batch *data, uint64_t data_bytes)
{
    ofi_cslot *c = &s->rc.cs[slot];
    if (!c->sent)
        return c->failed ? c->failed : DMSG_FAIL(DMSG_ERR_TRANSPORT, "counter %u unset", slot);
    uint64_t total = c->sent[pe] + bytes;
    dmsg_status st;
    if (dmsg_ofi_rcount_ordered(s, data_bytes)) {
        /* Placed behind the data and behind earlier signals by the provider. */
        if ((st = post(s, pe, slot, total, NULL)))
            return st;
    } else {
        /* Make the data and the previous signal to pe visible first: by
         * delivery completion (or on shm by the completion of large plain
         * writes, tx_delivers) of every operation, or a flushing read. */
        if (data && (st = dmsg_ofi_wait_batch(s, data, "deposit completions")))
            return st;
        if ((st = dmsg_ofi_wait_batch(s, &s->rc.sigb[pe], "a counter signal")))
            return st;
        if (s->flush && s->dirty[pe] && (st = dmsg_ofi_flush(s, pe)))
            return st;
        if ((st = post(s, pe, slot, total, &s->rc.sigb[pe])))
            return st;
    }
    c->sent[pe] = total;
    return DMSG_OK;
}

/* Messages first, then bytes: a signal write is counted after its cell is
 * written, so the cells then hold at least the bytes of every deposit the
 * counter has counted. A cell that the provider is writing may be read half
 * old, half new; such a value never exceeds the new total when the bytes go
 * in ascending address order, as every provider here copies, but it may be
 * below the old one, so the sum never goes below the largest seen. */
dmsg_status dmsg_ofi_rcount_read(ofi_state *s, uint32_t slot, uint64_t *msgs, uint64_t *bytes)
{
    ofi_cslot *c = &s->rc.cs[slot];
    *msgs = *bytes = 0;
    if (!c->cntr)
        return c->failed;
    *msgs = fi_cntr_read(c->cntr) - c->base;
    atomic_thread_fence(memory_order_acquire);
    const volatile uint64_t *r = row(s, slot);
    uint64_t sum = 0;
    for (int p = 0; p < s->tp->npes; p++)
        sum += r[p];
    if (sum > c->seen)
        c->seen = sum;
    *bytes = c->seen;
    return c->failed;
}
