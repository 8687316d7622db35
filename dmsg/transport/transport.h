/* The transport ops table. The core drives every transport through it and
 * knows nothing else about them but the capability flags. Counter "slots"
 * are indices into a per-PE table of max_counters deposit counters. */
#ifndef DMSG_TRANSPORT_H
#define DMSG_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>
#include "dmsg/core/env.h"
#include "dmsg/boot/job.h"
#include "dmsg/core/status.h"
#include "dmsg.h"

/* Every PE's segment is mapped into this process (seg[pe] is valid): the
 * copy engine moves data with loads and stores, one copy, any pattern. */
#define DMSG_TP_CAP_DIRECT_MAP 0x1u

typedef struct dmsg_tp dmsg_tp;

/* One described transfer, built and fully checked by the core (every remote
 * byte lies inside the target's segment) before a transport sees it. */
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

/* Moves the data of a checked op between its local buffer and `remote`, the
 * op's remote address as this process sees it (another PE's mapped segment,
 * or this PE's own for a transfer with itself), with the copy engine. Counts
 * nothing. Provided by the core (op.c) for every transport. */
void dmsg_op_move(const dmsg_op *op, char *remote);

/* Access pattern of one end of a transfer, as the copy-transfer model names
 * it: contiguous (1), constant stride (n), indexed (w). */
typedef enum { DMSG_TP_PAT_CONTIG, DMSG_TP_PAT_STRIDED, DMSG_TP_PAT_INDEXED } dmsg_tp_pat;

/* What a cost model needs to know about one transfer (see ops->account). */
typedef struct dmsg_tp_xfer {
    int get;              /* 0: deposit, 1: fetch */
    int pe;               /* the remote PE */
    uint64_t bytes;       /* payload bytes */
    size_t elem;          /* element size (the run length when contiguous) */
    dmsg_tp_pat src, dst;    /* read and write patterns */
    ptrdiff_t src_stride; /* bytes between elements when STRIDED */
    ptrdiff_t dst_stride;
    int adp;              /* destination addresses travel with the data */
    int nonblocking;      /* a fetch whose completion is awaited later */
} dmsg_tp_xfer;

typedef struct dmsg_tp_ops {
    const char *name;
    unsigned caps;
    /* Joins the job described by tp->cfg and the boot info; sets rank, npes,
     * seg_size, max_counters, seg (for DIRECT_MAP) and priv. Ends with every
     * PE joined. */
    dmsg_status (*init)(dmsg_tp *tp, const dmsg_boot *boot);
    /* Marks this PE finished and releases everything init acquired. */
    void (*finalize)(dmsg_tp *tp);
    /* Barrier; with DIRECT_MAP all data moved before it is visible after it. */
    dmsg_status (*barrier)(dmsg_tp *tp);
    /* Completes this PE's outstanding operations. */
    dmsg_status (*quiet)(dmsg_tp *tp);
    /* Small all-gather (len <= 32 bytes) for checking collective arguments. */
    dmsg_status (*allgather)(dmsg_tp *tp, const void *mine, size_t len, void *all);
    /* Zeroes this PE's instance of a counter slot. */
    void (*ctr_reset)(dmsg_tp *tp, uint32_t slot);
    /* Counts one message of `bytes` payload bytes at PE pe, after every byte
     * of it is visible there (release). Called by the core only for
     * DIRECT_MAP transports (after it moved the data); others count inside
     * xfer and leave this NULL. */
    void (*ctr_signal)(dmsg_tp *tp, int pe, uint32_t slot, uint64_t bytes);
    /* Waits until this PE's instance holds >= n messages (or bytes), then
     * consumes n of them (acquire). */
    dmsg_status (*ctr_wait)(dmsg_tp *tp, uint32_t slot, int bytes_mode, uint64_t n);
    void (*ctr_read)(dmsg_tp *tp, uint32_t slot, uint64_t *msgs, uint64_t *bytes);
    /* Clock (virtual on simulated machines); NULL = wall clock. */
    double (*wtime)(dmsg_tp *tp);
    /* Optional cost accounting, called before a transfer is moved; returns
     * the time at which it completes (for non-blocking fetches). */
    double (*account)(dmsg_tp *tp, const dmsg_tp_xfer *x);
    /* Optional: a non-blocking operation that completes at time t is waited for. */
    void (*complete)(dmsg_tp *tp, double t);
    /* Optional: this PE's time breakdown (dmsg_times_get). */
    void (*times)(dmsg_tp *tp, dmsg_times *t);
    /* Transports without DMSG_TP_CAP_DIRECT_MAP move data themselves. xfer:
     * a deposit is locally complete on return (source reusable) and counted
     * at the target on slot (UINT32_MAX = none) once all its bytes are
     * visible there; a fetch returns with the data in place. xfer_nb starts a
     * fetch and fills req->priv; req_test reports (and finishes) it. */
    dmsg_status (*xfer)(dmsg_tp *tp, const dmsg_op *op, uint32_t slot);
    dmsg_status (*xfer_nb)(dmsg_tp *tp, const dmsg_op *op, dmsg_req *req);
    dmsg_status (*req_test)(dmsg_tp *tp, dmsg_req *req, int *done);
} dmsg_tp_ops;

struct dmsg_tp {
    const dmsg_tp_ops *ops;
    const dmsg_config *cfg;
    int rank;
    int npes;
    size_t seg_size;
    uint32_t max_counters;
    char **seg; /* DIRECT_MAP: base of every PE's segment in this process */
    void *priv;
};

extern const dmsg_tp_ops dmsg_tp_shm_ops;
extern const dmsg_tp_ops dmsg_tp_sim_ops;
extern const dmsg_tp_ops dmsg_tp_ofi_ops;

#endif
