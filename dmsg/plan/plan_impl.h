/* Internals of the plan layer (include/dmsg_plan.h). The layer sits above
 * the core: it moves data only through the public API of include/dmsg.h.
 * Everything here is pure (no communication) unless it says otherwise. */
#ifndef DMSG_PLAN_IMPL_H
#define DMSG_PLAN_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include "dmsg_plan.h"
#include "dmsg/base/status.h"

/* ---------------------------------------------------------- darray.c */

/* PE pe's coordinate along array dimension d of a, or -1 when pe owns
 * nothing of a (outside the grid, or off coordinate 0 of a grid dimension
 * the array does not use). A non-distributed dimension reports 0. */
int plan_coord(const dmsg_darray *a, int pe, int d);
/* Elements coordinate c owns along dimension d. */
size_t plan_local_count(const dmsg_darray *a, int d, size_t c);
/* Local index of global index i along dimension d (on its owner). */
size_t plan_local_index(const dmsg_darray *a, int d, size_t i);
/* Owner coordinate of global index i along dimension d. */
size_t plan_owner_coord(const dmsg_darray *a, int d, size_t i);

/* ----------------------------------------------------------- pieces.c */

/* Elements of one section dimension: lo + t*step, t in [0, count). */
size_t plan_sec_count(size_t lo, size_t hi, ptrdiff_t step);

/* A growable array of pieces (dmsg_assign_pieces' workhorse). */
typedef struct plan_pieces {
    dmsg_piece *v;
    size_t n, cap;
} plan_pieces;

/* Appends the pieces p sends to q (as dmsg_assign_pieces) to *out. The
 * assignment must have passed dmsg_assign_check. */
dmsg_status plan_pair_pieces(const dmsg_assign *as, int p, int q, plan_pieces *out);
void plan_pieces_free(plan_pieces *ps);

/* ------------------------------------------------------------ hash.c */

/* A fingerprint of everything the PEs must agree on for a plan. */
uint64_t plan_hash_assign(const dmsg_assign *as, int mech, const char *machine);

/* ------------------------------------------------------------ plan.c */

/* One partner of a plan. On the send side pieces are what this PE deposits
 * to pe; on the receive side what pe deposits here (kept for unpacking). */
typedef struct plan_peer {
    int pe;
    size_t first, npieces;       /* range in the plan's send or recv pieces */
    uint64_t bytes;              /* payload */
    int packable;                /* 1: this pair packs when packing is on */
    int model_pack;              /* 1: the model predicts packing is faster */
    size_t stage_off;            /* send: my chunk in pe's staging; recv: pe's chunk in mine */
    double mbs_direct, mbs_pack; /* model predictions (send side; 0 without a model) */
} plan_peer;

/* Trial executions of DMSG_PLAN_MEASURE: direct, packed, direct, packed. */
#define PLAN_TRIALS 4

struct dmsg_plan {
    dmsg_darray src, dst; /* copies of the caller's arrays */
    size_t elem;
    int mech, me, npes;
    int pack_on; /* packable pairs pack in the next execution */
    int async;   /* deposits may complete after their call returns (not shm, sim) */
    dmsg_ctr ctr;
    char *xch; /* symmetric: one row per PE for the create and measure exchanges */
    size_t rowsz;
    char *stage;     /* symmetric: incoming packed chunks, then the send buffer */
    size_t stage_in; /* bytes of incoming chunks (offset of the send buffer) */
    plan_pieces sendp, recvp;
    plan_peer *to, *from; /* partners with pieces, staggered order */
    int nto, nfrom;
    int started;
    uint64_t execs;
    double t0, best[2]; /* MEASURE: this PE's best trial, direct and packed */
    double measured[2]; /* MEASURE: slowest PE's best, direct and packed */
    char machine[32];
    int model_source; /* enum dmsg_plan_model_source */
    double cal_s;     /* seconds PE 0 spent calibrating for this plan */
};

/* Deposits this PE sends and the messages it awaits with packing on/off. */
uint64_t plan_recv_msgs(const dmsg_plan *pl, int pack_on);
uint64_t plan_send_msgs(const dmsg_plan *pl, int pack_on);

/* 1 if both sides of the only piece are one contiguous run (packing them
 * would only add copies). */
int plan_piece_contiguous(const dmsg_piece *pc, size_t elem);

#endif
