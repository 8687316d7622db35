/* An op: one described transfer between a local buffer and a PE's symmetric
 * memory, as every deposit and fetch entry point builds it. The core checks
 * it completely (every remote byte inside the target's segment) before a
 * transport sees it; the copy engine then moves it between directly
 * addressable memory (dmsg_copy_op: shm, sim, and any transport's transfer
 * with itself), or walks it as contiguous runs for transports that move
 * pieces themselves (dmsg_op_runs: ofi). */
#ifndef DMSG_XFER_OP_H
#define DMSG_XFER_OP_H

#include <stddef.h>
#include <stdint.h>
#include "dmsg/xfer/xfer.h"

/* Every transfer kind, once: X(NAME, name) per kind. Each layer that
 * treats kinds differently keeps one table of rows indexed by the kind
 * (core/op.c: checks, the checker's footprint and call names; xfer/kinds.c:
 * copy and run walker; sim_describe.c: the cost model's description;
 * ofi_engine.c: the ofi transport's choices), built from this list with
 * functions named after `name`: a kind added here without its function in
 * some layer fails to compile there, and DMSG_OP_TABLE_CHECK asserts each
 * table's size. docs/running.md, "Adding a transfer kind". */
#define DMSG_OP_KIND_LIST(X)                                                                   \
    X(CONTIG, contig)                 /* bytes, contiguous at both ends */                    \
    X(SECTION, section)               /* n-D layouts at both ends */                           \
    X(REMOTE_INDEXED, remote_indexed) /* element idx[i] of the remote array <-> element i */  \
    X(LOCAL_INDEXED, local_indexed)   /* element idx[i] of the local array <-> element i */   \
    X(ADP, adp)                       /* address-data records to the remote side (deposit) */ \
    X(PERIODIC, periodic)             /* a periodic pattern, local source to remote          \
                                       * destination (deposit; internal to the plan layer) */

typedef enum {
#define DMSG_OP_ENUM_(K, k) DMSG_OP_##K,
    DMSG_OP_KIND_LIST(DMSG_OP_ENUM_)
#undef DMSG_OP_ENUM_
        DMSG_OP_KINDS /* how many kinds there are */
} dmsg_op_kind;

/* A layer's table of kinds has exactly one row per kind. */
#define DMSG_OP_TABLE_CHECK(table)                                                             \
    _Static_assert(sizeof(table) / sizeof((table)[0]) == DMSG_OP_KINDS,                         \
                   #table " needs one row per transfer kind (DMSG_OP_KIND_LIST)")

typedef enum { DMSG_DIR_PUT, DMSG_DIR_GET } dmsg_dir;

typedef struct dmsg_op {
    dmsg_op_kind kind;
    dmsg_dir dir;
    int pe;
    void *remote;          /* symmetric address (base for indexed and adp) */
    void *local;           /* local buffer (const for puts) */
    size_t elem;           /* element size; 1 for CONTIG */
    size_t n;              /* elements (bytes for CONTIG, records for ADP) */
    const dmsg_layout *rl; /* SECTION: remote layout */
    const dmsg_layout *ll; /* SECTION: local layout */
    const size_t *idx;     /* *_INDEXED */
    const dmsg_periodic *per; /* PERIODIC: checked by the core (derived fields set) */
    /* Filled by the core's check: */
    size_t roff;           /* offset of `remote` in the segment */
    uint64_t payload;      /* bytes counted at the target */
} dmsg_op;

/* Moves the data of a checked op between its local buffer and remote, the
 * op's remote address as this process sees it (another PE's mapped segment,
 * or this PE's own for a transfer with itself). Counts nothing. */
void dmsg_copy_op(const dmsg_op *op, char *remote, const dmsg_xfer_params *p);

/* Called for each run of an op: remote segment offset, local address, bytes;
 * a non-zero status stops the walk and is returned. */
typedef dmsg_status (*dmsg_run_fn)(void *arg, size_t roff, char *local, size_t len);

/* Walks a checked op as runs contiguous at both ends, in element order,
 * merging neighbours that continue each other at both ends. */
dmsg_status dmsg_op_runs(const dmsg_op *op, dmsg_run_fn fn, void *arg);

#endif
