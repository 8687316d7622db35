/* Deposit entry points: describe, check, hand to the transport. */
#include "dmsg/core/checker.h"
#include "dmsg/core/op.h"
#include "dmsg/core/periodic.h"

/* ra: the caller's address, for the checker's reports. */
static int deposit(dmsg_op *op, dmsg_ctr ctr, const void *ra)
{
    DMSG_REQUIRE_INIT();
    uint32_t slot;
    dmsg_status st = dmsg_op_check(op);
    if (!st)
        st = dmsg_ctr_slot(ctr, 1, &slot);
    if (st)
        return st;
    if (dmsg_g.check)
        dmsg_chk_op(op, slot, 0, ra);
    return dmsg_g.tp.ops->put(&dmsg_g.tp, op, slot);
}

int dmsg_deposit(void *dst, const void *src, size_t bytes, int pe, dmsg_ctr ctr)
{
    dmsg_op op = {.kind = DMSG_OP_CONTIG, .dir = DMSG_DIR_PUT, .pe = pe, .remote = dst,
                  .local = (void *)src, .elem = 1, .n = bytes};
    return deposit(&op, ctr, __builtin_return_address(0));
}

int dmsg_deposit_section(void *dst, const dmsg_layout *dl, const void *src,
                         const dmsg_layout *sl, size_t elem_size, int pe, dmsg_ctr ctr)
{
    dmsg_op op = {.kind = DMSG_OP_SECTION, .dir = DMSG_DIR_PUT, .pe = pe, .remote = dst,
                  .local = (void *)src, .elem = elem_size, .rl = dl, .ll = sl};
    return deposit(&op, ctr, __builtin_return_address(0));
}

int dmsg_deposit_indexed(void *dst_base, const size_t *dst_idx, const void *src, size_t n,
                         size_t elem_size, int pe, dmsg_ctr ctr)
{
    dmsg_op op = {.kind = DMSG_OP_REMOTE_INDEXED, .dir = DMSG_DIR_PUT, .pe = pe,
                  .remote = dst_base, .local = (void *)src, .elem = elem_size, .n = n,
                  .idx = dst_idx};
    return deposit(&op, ctr, __builtin_return_address(0));
}

int dmsg_deposit_gathered(void *dst, const void *src_base, const size_t *src_idx, size_t n,
                          size_t elem_size, int pe, dmsg_ctr ctr)
{
    dmsg_op op = {.kind = DMSG_OP_LOCAL_INDEXED, .dir = DMSG_DIR_PUT, .pe = pe, .remote = dst,
                  .local = (void *)src_base, .elem = elem_size, .n = n, .idx = src_idx};
    return deposit(&op, ctr, __builtin_return_address(0));
}

int dmsg_deposit_periodic(void *dst, const void *src, dmsg_periodic *per, int pe, dmsg_ctr ctr)
{
    dmsg_op op = {.kind = DMSG_OP_PERIODIC, .dir = DMSG_DIR_PUT, .pe = pe, .remote = dst,
                  .local = (void *)src, .elem = 1, .per = per};
    return deposit(&op, ctr, __builtin_return_address(0));
}

int dmsg_deposit_adp(void *dst_base, const void *records, size_t n, size_t elem_size, int pe,
                     dmsg_ctr ctr)
{
    dmsg_op op = {.kind = DMSG_OP_ADP, .dir = DMSG_DIR_PUT, .pe = pe, .remote = dst_base,
                  .local = (void *)records, .elem = elem_size, .n = n};
    return deposit(&op, ctr, __builtin_return_address(0));
}

int dmsg_deposits_checked(void)
{
    return dmsg_g.check;
}
