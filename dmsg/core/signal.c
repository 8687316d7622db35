/* Signals: an atomic update of a 64-bit word that a PE sees only after the
 * deposits issued before it to that PE (put with signal). */
#include "dmsg/core/amo.h"
#include "dmsg/core/checker.h"
#include "dmsg/core/op.h"

static dmsg_status signal_check(const uint64_t *sig, dmsg_sig_op op, int pe, size_t *off)
{
    if (op != DMSG_SIG_SET && op != DMSG_SIG_ADD)
        return DMSG_FAIL(DMSG_ERR_ARG, "signal op %d (DMSG_SIG_SET or DMSG_SIG_ADD)", (int)op);
    if (!sig)
        return DMSG_FAIL(DMSG_ERR_NULL, "signal word is NULL");
    dmsg_status st = dmsg_check_pe(pe);
    return st ? st : dmsg_word_check(sig, sizeof *sig, off);
}

static dmsg_status signal_send(int pe, size_t off, uint64_t value, dmsg_sig_op op)
{
    dmsg_tp *tp = &dmsg_g.tp;
    return tp->ops->signal(tp, pe, off, value, op == DMSG_SIG_ADD);
}

static dmsg_status signal_unsupported(void)
{
    return DMSG_FAIL(DMSG_ERR_UNSUPPORTED, "transport %s has no signals", dmsg_g.tp.ops->name);
}

int dmsg_signal(uint64_t *sig, uint64_t value, dmsg_sig_op op, int pe)
{
    DMSG_REQUIRE_INIT();
    size_t off;
    dmsg_status st = signal_check(sig, op, pe, &off);
    if (st)
        return st;
    if (!dmsg_g.tp.ops->signal)
        return signal_unsupported();
    return signal_send(pe, off, value, op);
}

int dmsg_deposit_signal(void *dst, const void *src, size_t bytes, int pe, dmsg_ctr ctr,
                        uint64_t *sig, uint64_t value, dmsg_sig_op op)
{
    DMSG_REQUIRE_INIT();
    dmsg_op dop = {.kind = DMSG_OP_CONTIG, .dir = DMSG_DIR_PUT, .pe = pe, .remote = dst,
                   .local = (void *)src, .elem = 1, .n = bytes};
    uint32_t slot;
    size_t off;
    /* Both calls' arguments first: a bad signal must not leave a deposit
     * behind that nobody is told of. */
    dmsg_status st = dmsg_op_check(&dop);
    if (!st)
        st = dmsg_ctr_slot(ctr, 1, &slot);
    if (!st)
        st = signal_check(sig, op, pe, &off);
    if (st)
        return st;
    dmsg_tp *tp = &dmsg_g.tp;
    if (!tp->ops->signal)
        return signal_unsupported();
    if (dmsg_g.check)
        dmsg_chk_op(&dop, slot, 0, __builtin_return_address(0));
    if ((st = tp->ops->put(tp, &dop, slot)))
        return st;
    return signal_send(pe, off, value, op);
}
