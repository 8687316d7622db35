/* One described transfer: what every deposit and fetch entry point builds,
 * checks and then moves. Keeping deposits and fetches on one descriptor means
 * one set of checks and one dispatch to the transport for all patterns. */
#ifndef DMSG_CORE_OP_H
#define DMSG_CORE_OP_H

#include "dmsg/core/state.h"

typedef enum {
    DMSG_OP_CONTIG,         /* bytes, contiguous at both ends */
    DMSG_OP_SECTION,        /* n-D layouts at both ends */
    DMSG_OP_REMOTE_INDEXED, /* element idx[i] of the remote array <-> element i locally */
    DMSG_OP_LOCAL_INDEXED,  /* element idx[i] of the local array <-> element i remotely */
    DMSG_OP_ADP,            /* address-data records to the remote side (deposit only) */
} dmsg_op_kind;

typedef enum { DMSG_DIR_PUT, DMSG_DIR_GET } dmsg_dir;

typedef struct dmsg_op {
    dmsg_op_kind kind;
    dmsg_dir dir;
    int pe;
    void *remote;            /* symmetric address (base for indexed and adp) */
    void *local;             /* local buffer (const for puts) */
    size_t elem;             /* element size; 1 for CONTIG */
    size_t n;                /* elements (bytes for CONTIG, records for ADP) */
    const dmsg_layout *rl;   /* SECTION: remote layout */
    const dmsg_layout *ll;   /* SECTION: local layout */
    const size_t *idx;       /* *_INDEXED */
    /* Filled by dmsg_op_check: */
    size_t roff;             /* offset of `remote` in the segment */
    uint64_t payload;        /* bytes counted at the target */
} dmsg_op;

/* Validates everything (PE, NULLs, shapes, overflow, every remote byte inside
 * the segment) without side effects. */
dmsg_status dmsg_op_check(dmsg_op *op);

/* Moves the data of a checked op and, for puts with a counter slot other than
 * UINT32_MAX, counts it at the target after the data is visible. A transport
 * with a cost model is told first; *done_at (may be NULL) receives the time
 * the transfer completes by that model, for non-blocking fetches. */
dmsg_status dmsg_op_run(const dmsg_op *op, uint32_t slot, int nonblocking, double *done_at);

#endif
