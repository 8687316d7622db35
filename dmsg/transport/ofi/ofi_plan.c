/* What the ofi transport does over a provider, decided in one place from
 * what the start-up probe found: ofi_init follows it, dmsg-info prints it. */
#include <stdio.h>
#include "dmsg/transport/ofi/ofi.h"

void dmsg_ofi_caps_merge(ofi_caps *c, const ofi_caps *pc)
{
    c->rcntr_write = pc->rcntr_write;
    c->rcntr_writemsg = pc->rcntr_writemsg;
    c->rcntr_inject = pc->rcntr_inject;
    c->rcntr_writedata = pc->rcntr_writedata;
    c->rcntr_mr = pc->rcntr_mr;
    c->cqdata_works = pc->cqdata_works;
    c->delivery_complete = pc->delivery_complete;
    c->writemsg_chain = pc->writemsg_chain;
    c->t_write8_us = pc->t_write8_us;
    c->t_write8_dc_us = pc->t_write8_dc_us;
    c->tx_delivers = pc->tx_delivers;
    /* Atomics were tried on the probe endpoint; the data endpoint must
     * have been granted them as well. */
    for (int t = 0; t < 2; t++) {
        c->amo_plain[t] = c->atomic_cap ? pc->amo_plain[t] : 0;
        c->amo_fetch[t] = c->atomic_cap ? pc->amo_fetch[t] : 0;
        c->amo_cswap[t] = c->atomic_cap ? pc->amo_cswap[t] : 0;
    }
    c->amo_works = c->atomic_cap ? pc->amo_works : -1;
    /* The engine relies on delivery completion: a message's receive
     * completion is in the target's CQ before anything sent after it. */
    c->engine = pc->delivery_complete == 1 || (c->order_raw && c->order_ras);
    if (c->rma_iov_limit > 1 && pc->writemsg_chain != 1)
        c->rma_iov_limit = 1; /* chained lists misbehave: one piece per operation */
}

/* How deposits are counted: remote CQ data where it works (one operation
 * per deposit: the count travels with the data), remote counters bound to
 * memory regions where it does not (two operations: the data, then a
 * signal write). */
static dmsg_status plan_count(const ofi_caps *c, ofi_count want, ofi_plan *p)
{
    int cq_ok = c->cqdata_works == 1;
    p->counter_ok = dmsg_ofi_rcount_usable(c, p->counter_why, sizeof p->counter_why);
    if (want == OFI_COUNT_CQDATA && !cq_ok)
        return DMSG_FAIL(DMSG_ERR_UNSUPPORTED,
                         "DMSG_OFI_COUNT=cqdata: provider \"%s\" lacks working remote CQ data "
                         "(fi_writedata), which counts deposits",
                         c->prov);
    if (want == OFI_COUNT_COUNTER && !p->counter_ok)
        return DMSG_FAIL(DMSG_ERR_UNSUPPORTED, "DMSG_OFI_COUNT=counter: provider \"%s\" %s",
                         c->prov, p->counter_why);
    if (!cq_ok && !p->counter_ok)
        return DMSG_FAIL(DMSG_ERR_UNSUPPORTED,
                         "provider \"%s\" lacks working remote CQ data (fi_writedata), and it "
                         "%s: dmsg needs one of the two to count deposits",
                         c->prov, p->counter_why);
    p->by_counter = want == OFI_COUNT_COUNTER || (want == OFI_COUNT_AUTO && !cq_ok);
    p->msg_tokens = !cq_ok;
    return DMSG_OK;
}

/* Visibility: delivery completion per operation, unless the probe found it
 * to cost much more than a plain write (tcp;ofi_rxm: an extra round trip
 * each) and the provider orders reads after writes and sends; then one
 * flushing read per written peer at quiet time instead. */
static dmsg_status plan_visibility(const ofi_caps *c, ofi_plan *p)
{
    p->flush = c->order_raw && c->order_ras &&
               (c->delivery_complete != 1 || c->t_write8_dc_us > c->t_write8_us + 0.5);
    if (p->flush || c->delivery_complete == 1)
        return DMSG_OK;
    return DMSG_FAIL(DMSG_ERR_UNSUPPORTED,
                     "provider \"%s\" lacks both delivery completion (FI_DELIVERY_COMPLETE) and "
                     "read-after-write order (FI_ORDER_RAW, FI_ORDER_RAS): deposits could not be "
                     "completed at their targets",
                     c->prov);
}

const char *dmsg_ofi_amo_path_name(ofi_amo_path p)
{
    switch (p) {
    case OFI_AMO_NATIVE: return "native";
    case OFI_AMO_EMULATED: return "emulated";
    case OFI_AMO_SOFTWARE: return "software";
    default: return "auto";
    }
}

/* Atomics: one path for every word, because provider atomics are atomic
 * only with respect to each other, not to CPU atomics on the same word.
 * Native where every op's fetch form is valid for both word sizes and
 * worked in the probe; emulated where compare-swap alone did; else
 * software, which needs nothing but messages. */
dmsg_status dmsg_ofi_plan_atomics(const ofi_caps *c, ofi_amo_path want, ofi_plan *p)
{
    uint32_t fetch = c->amo_fetch[0] & c->amo_fetch[1];
    int cswap = (c->amo_cswap[0] & c->amo_cswap[1]) != 0;
    int works = c->amo_works == 1 && !c->amo_broken;
    int native = works && cswap && (fetch & OFI_AMO_NEED_FETCH) == OFI_AMO_NEED_FETCH;
    int emulated = works && cswap;
    const char *no = !c->atomic_cap ? "the provider grants no atomics (FI_ATOMIC)"
                     : !cswap       ? "no compare-swap (fi_compare_atomicvalid, FI_CSWAP)"
                     : c->amo_broken ? c->amo_broken
                     : !works       ? "the probe's fetch-add or compare-swap went wrong"
                     : !native      ? "some fetching op is missing (fi_fetch_atomicvalid)"
                                    : "";
    snprintf(p->amo_why, sizeof p->amo_why, "%s", no);
    if ((want == OFI_AMO_NATIVE && !native) || (want == OFI_AMO_EMULATED && !emulated))
        return DMSG_FAIL(DMSG_ERR_UNSUPPORTED, "DMSG_OFI_ATOMICS=%s: provider \"%s\": %s",
                         dmsg_ofi_amo_path_name(want), c->prov, no);
    p->amo = want != OFI_AMO_AUTO ? want
             : native             ? OFI_AMO_NATIVE
             : emulated           ? OFI_AMO_EMULATED
                                  : OFI_AMO_SOFTWARE;
    return DMSG_OK;
}

dmsg_status dmsg_ofi_plan_make(const ofi_caps *c, ofi_count count, dmsg_mech mech, ofi_plan *p)
{
    ofi_plan q = {.mech = mech};
    dmsg_status st;
    if ((st = plan_count(c, count, &q)) || (st = plan_visibility(c, &q)))
        return st;
    if (!c->engine && mech == DMSG_MECH_PACKED)
        return DMSG_FAIL(DMSG_ERR_UNSUPPORTED,
                         "DMSG_OFI_MECH=packed: provider \"%s\" lacks delivery completion "
                         "(FI_DELIVERY_COMPLETE), which the deposit engine needs",
                         c->prov);
    if (!c->engine)
        q.mech = DMSG_MECH_CHAINED;
    q.chain = c->iov_limit < c->rma_iov_limit ? c->iov_limit : c->rma_iov_limit;
    q.chain = q.chain < OFI_GROUP_MAX ? q.chain : OFI_GROUP_MAX;
    /* Receive buffers serve packed deposits, signal messages (tx_delivers)
     * and barrier tokens without remote CQ data. */
    q.receives = q.mech != DMSG_MECH_CHAINED || c->tx_delivers || q.msg_tokens;
    *p = q;
    return DMSG_OK;
}
