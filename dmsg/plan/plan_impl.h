/* Internals of the plan layer (include/dmsg_plan.h). The layer sits above
 * the core: it moves data only through the public API of include/dmsg.h.
 * Everything here is pure (no communication) unless it says otherwise. */
#ifndef DMSG_PLAN_IMPL_H
#define DMSG_PLAN_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include "dmsg_plan.h"
#include "dmsg/base/status.h"
#include "dmsg/xfer/xfer.h"

typedef struct plan_s plan_t;
typedef struct iplan_s iplan_t;

/* ---------------------------------------------------------- handle.c */

/* A plan's handle (what dmsg_plan_create gives the caller): a cell that
 * points at the plan and is never freed nor given to another plan, so that
 * a destroyed plan's handle is recognised (body NULL: DMSG_ERR_HANDLE)
 * instead of being used after free. It costs a pointer per plan ever
 * created. */
struct dmsg_plan {
    plan_t *body;
};
struct dmsg_iplan {
    iplan_t *body;
};

/* A cell for a new plan (NULL: out of memory). One that was never handed
 * out goes back with dmsg_plan_cell_unused. */
void *dmsg_plan_cell_new(void);
void dmsg_plan_cell_unused(void *cell);

/* The deposit counter all plans share, so that the number of plans alive is
 * not bounded by DMSG_MAX_COUNTERS. Collective: the first dmsg_plan_ctr_get
 * creates it, the matching last dmsg_plan_ctr_put destroys it (every PE creates
 * and destroys plans in the same order, so the counts agree). */
dmsg_status dmsg_plan_ctr_get(dmsg_ctr *ctr);
dmsg_status dmsg_plan_ctr_put(void);
/* Executions on the shared counter may overlap (dmsg_plan_start of several
 * plans before their finishes). dmsg_plan_ctr_begin registers that msgs deposits
 * to this PE are coming for an execution (after its clearance barrier) and
 * returns its ticket; dmsg_plan_ctr_land(ticket) returns once they have landed,
 * awaiting every deposit of every execution begun and not yet landed (the
 * counter cannot tell them apart; they all come, since each began after a
 * barrier every PE passed and its senders issue them without waiting). */
uint64_t dmsg_plan_ctr_begin(uint64_t msgs);
dmsg_status dmsg_plan_ctr_land(uint64_t ticket);

/* ---------------------------------------------------------- darray.c */

/* PE pe's coordinate along array dimension d of a, or -1 when pe owns
 * nothing of a (outside the grid, or off coordinate 0 of a grid dimension
 * the array does not use). A non-distributed dimension reports 0. */
int dmsg_plan_coord(const dmsg_darray *a, int pe, int d);
/* Elements coordinate c owns along dimension d. */
size_t dmsg_plan_local_count(const dmsg_darray *a, int d, size_t c);
/* Local index of global index i along dimension d (on its owner). */
size_t dmsg_plan_local_index(const dmsg_darray *a, int d, size_t i);
/* Owner coordinate of global index i along dimension d. */
size_t dmsg_plan_owner_coord(const dmsg_darray *a, int d, size_t i);

/* ----------------------------------------------------------- pieces.c */

/* Elements of one section dimension: lo + t*step, t in [0, count). */
size_t dmsg_plan_sec_count(size_t lo, size_t hi, ptrdiff_t step);

/* A growable array of pieces (dmsg_assign_pieces' workhorse). */
typedef struct plan_pieces {
    dmsg_piece *v;
    size_t n, cap;
} plan_pieces;

/* Appends the pieces p sends to q (as dmsg_assign_pieces) to *out. The
 * assignment must have passed dmsg_assign_check. */
dmsg_status dmsg_plan_pair_pieces(const dmsg_assign *as, int p, int q, plan_pieces *out);
void dmsg_plan_pieces_free(plan_pieces *ps);
/* The period (values of t) after which the pattern of matched destination
 * dimension d repeats, where dmsg_plan_pair_pieces walks one period instead of
 * the section (a periodic CYCLIC(a) -> CYCLIC(b) pattern spanning at least
 * three periods); 0 where it walks every block. */
size_t dmsg_plan_dim_period(const dmsg_assign *as, int d);

/* ------------------------------------------------------------ hash.c */

/* A fingerprint of everything the PEs must agree on for a plan. */
uint64_t dmsg_plan_hash_assign(const dmsg_assign *as, int mech, const char *machine);

/* ------------------------------------------------------------ group.c */

/* A partner's pieces that share their outermost dimension (a periodic
 * pattern's), as one period's runs moved in one pass (group.c). */
typedef struct plan_group {
    dmsg_prun *run; /* one period, sorted by source offset */
    size_t nruns;
    ptrdiff_t sstride, dstride; /* bytes between periods */
    size_t *rest;               /* the partner's other pieces (index from its first) */
    size_t nrest;
    uint64_t bytes; /* payload of the grouped pieces: first in a packed chunk */
    /* Slices (dmsg_plan_group_slice): the whole periods in slices of
     * slice_periods, each moved by its own deposit of mid's runs (reps =
     * slice_periods), the last from period (slices - 1) * slice_periods on
     * by last's runs; slices 1: the group moves whole. */
    size_t slices, slice_periods;
    dmsg_prun *mid, *last;
} plan_group;

/* The group of a partner's n pieces, or *g NULL where fewer than two
 * pieces share an outermost dimension or one period would take too many
 * runs. Deterministic: sender and receiver build the same. Errors:
 * DMSG_ERR_NOMEM. */
dmsg_status dmsg_plan_group_build(const dmsg_piece *v, size_t n, size_t elem, plan_group **g);
void dmsg_plan_group_free(plan_group *g);
/* The same for a partner's only piece pc: a group of its runs (one
 * deposit, as the piece was) where they are shorter than a cache line and
 * repeat at least twice, so that it can move in slices; else *g NULL.
 * Errors: DMSG_ERR_NOMEM. */
dmsg_status dmsg_plan_group_single(const dmsg_piece *pc, size_t elem, plan_group **g);
/* The group as a periodic pattern to deposit (stream: DMSG_PER_*). */
dmsg_periodic dmsg_plan_group_pattern(const plan_group *g, int stream);
/* Cuts g's periods into slices of about window bytes of the source, so
 * that the deposits of all partners can take turns slice by slice and read
 * each part of the source while it is in the cache (exec.c). Only groups
 * with both strides positive are cut. Errors: DMSG_ERR_NOMEM (g unchanged,
 * one slice). */
dmsg_status dmsg_plan_group_slice(plan_group *g, size_t window);
/* Slice s of g as a direct deposit's pattern (no stream); *r0 is its first
 * period (the bases move by r0 strides). */
dmsg_periodic dmsg_plan_group_slice_pattern(const plan_group *g, size_t s, size_t *r0);

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
    plan_group *grp;             /* periodic pieces moved in one pass, or NULL */
    size_t last_w;               /* send_sliced's turn that counts the group (exec.c) */
} plan_peer;

/* Direct deposits of a partner: one for its group, one per other piece. */
size_t dmsg_plan_peer_deposits(const plan_peer *pr);

/* One pair's periods that this PE moves in a shared execution (share.c). */
typedef struct plan_share {
    int s, q;          /* the pair: source PE, destination PE */
    size_t r0;         /* the first of this PE's periods of the pair */
    const char *src;   /* s's source array, where this process maps it */
    plan_group *g;     /* the pair's runs cut to this PE's periods, in slices */
} plan_share;

/* Trial executions of DMSG_PLAN_MEASURE: direct, packed, direct, packed. */
#define PLAN_TRIALS 4

struct plan_s {
    dmsg_darray src, dst; /* copies of the caller's arrays */
    size_t elem;
    int mech, me, npes;
    int pack_on; /* packable pairs pack in the next execution */
    int async;   /* deposits may complete after their call returns (not shm, sim) */
    size_t slices; /* most slices of a send group (plan.c: PLAN_SLICE_WINDOW); 0: none */
    int gather_remote; /* a packed group gathers straight into the receiver's staging */
    dmsg_ctr ctr;
    char *xch; /* symmetric: one row per PE for the create and measure exchanges */
    size_t rowsz;
    char *stage;     /* symmetric: incoming packed chunks, then the send buffer */
    size_t stage_in; /* bytes of incoming chunks (offset of the send buffer) */
    plan_pieces sendp, recvp;
    plan_peer *to, *from; /* partners with pieces, staggered order */
    int nto, nfrom;
    int started;
    uint64_t ticket; /* of the started execution on the shared counter */
    uint64_t execs;
    double t0, best[2]; /* MEASURE: this PE's best trial, direct and packed */
    double measured[2]; /* MEASURE: slowest PE's best, direct and packed */
    char machine[32];
    int model_source; /* enum dmsg_plan_model_source */
    double cal_s;     /* seconds PE 0 spent calibrating for this plan */
    /* Shares (share.c): shared is the same on every PE (the create exchange
     * ANDs share_ok); any_packed: some PE packs for some partner. */
    plan_share *share;
    size_t nshare, share_turns;
    int share_ok, shared, any_packed;
    /* The shares copied together through the mapped peers (share.c), or
     * NULL: deposited pair by pair. share_src / share_dst: each share's
     * first period, where this process maps it. */
    struct dmsg_periodic_set *share_set;
    const char **share_src;
    char **share_dst;
};

/* The plan behind handle h, or NULL with *st DMSG_ERR_NULL (h NULL) or
 * DMSG_ERR_HANDLE (destroyed); fn names the call in the message. */
plan_t *dmsg_plan_body(const dmsg_plan *h, const char *fn, int *st);
/* Collective: frees a plan's counter share, memory and itself. */
int dmsg_plan_destroy_body(plan_t *pl);

/* Deposits this PE sends and the messages it awaits with packing on/off. */
uint64_t dmsg_plan_recv_msgs(const plan_t *pl, int pack_on);
uint64_t dmsg_plan_send_msgs(const plan_t *pl, int pack_on);

/* ------------------------------------------------------------ share.c */

/* Where able (the transport's deposits are copies done by the call, in
 * order, on a real clock), every PE maps every PE's segment, the plan is
 * cut in slices and every pair of PEs is one whole periodic group: this
 * PE's shares of all pairs, and share_ok 1; else share_ok 0 and nothing.
 * Errors: DMSG_ERR_NOMEM and those of dmsg_plan_pair_pieces. */
dmsg_status dmsg_plan_share_build(plan_t *pl, const dmsg_assign *as, int able);
void dmsg_plan_share_free(plan_t *pl);
/* 1 if an execution with packing pack_on moves by shares: the sends are
 * this PE's shares and a note to every PE, the receipts a note from every
 * PE. The same on every PE. */
int dmsg_plan_share_on(const plan_t *pl, int pack_on);
/* This PE's shares, then its notes (dmsg_plan_start). */
int dmsg_plan_share_run(plan_t *pl);

/* 1 if both sides of the only piece are one contiguous run (packing them
 * would only add copies). */
int dmsg_plan_piece_contiguous(const dmsg_piece *pc, size_t elem);

#endif
