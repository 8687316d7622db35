/* Moving a whole op with the copy engine, for transports that address the
 * target's memory directly: each kind's copy (its row in kinds.c). */
#include <string.h>
#include "dmsg/xfer/kinds.h"

void dmsg_copy_op_contig(const dmsg_op *op, char *r, const dmsg_xfer_params *xp)
{
    char *l = op->local;
    int put = op->dir == DMSG_DIR_PUT;
    /* memmove: source and destination must not overlap (docs/model.md), but
     * a deposit to oneself that breaks this still gets a defined copy. */
    memmove(put ? r : l, put ? l : r, op->n);
}

void dmsg_copy_op_section(const dmsg_op *op, char *r, const dmsg_xfer_params *xp)
{
    char *l = op->local;
    if (op->n == 0)
        return;
    if (op->dir == DMSG_DIR_PUT)
        dmsg_copy_section(r, op->rl, l, op->ll, op->elem, xp);
    else
        dmsg_copy_section(l, op->ll, r, op->rl, op->elem, xp);
}

void dmsg_copy_op_remote_indexed(const dmsg_op *op, char *r, const dmsg_xfer_params *xp)
{
    char *l = op->local;
    if (op->dir == DMSG_DIR_PUT)
        dmsg_copy_scatter(r, op->idx, l, op->n, op->elem);
    else
        dmsg_copy_gather(l, r, op->idx, op->n, op->elem);
}

void dmsg_copy_op_local_indexed(const dmsg_op *op, char *r, const dmsg_xfer_params *xp)
{
    char *l = op->local;
    if (op->dir == DMSG_DIR_PUT)
        dmsg_copy_gather(r, l, op->idx, op->n, op->elem);
    else
        dmsg_copy_scatter(l, op->idx, r, op->n, op->elem);
}

void dmsg_copy_op_adp(const dmsg_op *op, char *r, const dmsg_xfer_params *xp)
{
    dmsg_copy_adp(r, op->local, op->n, op->elem);
}

void dmsg_copy_op_periodic(const dmsg_op *op, char *r, const dmsg_xfer_params *xp)
{
    dmsg_copy_periodic(r, op->local, op->per);
}

void dmsg_copy_op(const dmsg_op *op, char *r, const dmsg_xfer_params *xp)
{
    dmsg_xfer_kinds[op->kind].copy(op, r, xp);
}
