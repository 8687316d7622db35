/* The copy engine's row of each transfer kind (DMSG_OP_KIND_LIST in op.h):
 * how a checked op of that kind is copied between directly addressable
 * memories (dmsg_copy_op) and how it is walked as contiguous runs
 * (dmsg_op_runs). Internal to dmsg/xfer. */
#ifndef DMSG_XFER_KINDS_H
#define DMSG_XFER_KINDS_H

#include "dmsg/xfer/op.h"

/* Merges runs that continue each other (runs.c). */
typedef struct dmsg_merger dmsg_merger;

typedef struct dmsg_xfer_kind {
    /* Moves the op's data; r: the op's remote address in this process. */
    void (*copy)(const dmsg_op *op, char *r, const dmsg_xfer_params *xp);
    /* Hands the op's runs to m, in element order. */
    dmsg_status (*runs)(dmsg_merger *m, const dmsg_op *op);
} dmsg_xfer_kind;

extern const dmsg_xfer_kind dmsg_xfer_kinds[DMSG_OP_KINDS];

/* The rows' functions: dmsg_copy_op_<name> (copy_op.c), dmsg_runs_<name> (runs.c). */
#define DMSG_XFER_DECL_(K, k)                                                                  \
    void dmsg_copy_op_##k(const dmsg_op *op, char *r, const dmsg_xfer_params *xp);                \
    dmsg_status dmsg_runs_##k(dmsg_merger *m, const dmsg_op *op);
DMSG_OP_KIND_LIST(DMSG_XFER_DECL_)
#undef DMSG_XFER_DECL_

#endif
