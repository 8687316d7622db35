/* Moving a whole op with the copy engine, for transports that address the
 * target's memory directly. */
#include <string.h>
#include "dmsg/xfer/op.h"

void dmsg_copy_op(const dmsg_op *op, char *r, const dmsg_xfer_params *xp)
{
    char *l = op->local;
    int put = op->dir == DMSG_DIR_PUT;
    switch (op->kind) {
    case DMSG_OP_CONTIG:
        /* memmove: source and destination must not overlap (docs/model.md), but
         * a deposit to oneself that breaks this still gets a defined copy. */
        memmove(put ? r : l, put ? l : r, op->n);
        break;
    case DMSG_OP_SECTION:
        if (op->n == 0)
            break;
        if (put)
            dmsg_copy_section(r, op->rl, l, op->ll, op->elem, xp);
        else
            dmsg_copy_section(l, op->ll, r, op->rl, op->elem, xp);
        break;
    case DMSG_OP_REMOTE_INDEXED:
        if (put)
            dmsg_copy_scatter(r, op->idx, l, op->n, op->elem);
        else
            dmsg_copy_gather(l, r, op->idx, op->n, op->elem);
        break;
    case DMSG_OP_LOCAL_INDEXED:
        if (put)
            dmsg_copy_gather(r, l, op->idx, op->n, op->elem);
        else
            dmsg_copy_scatter(l, op->idx, r, op->n, op->elem);
        break;
    case DMSG_OP_ADP: dmsg_copy_adp(r, l, op->n, op->elem); break;
    case DMSG_OP_PERIODIC: dmsg_copy_periodic(r, l, op->per); break;
    }
}
