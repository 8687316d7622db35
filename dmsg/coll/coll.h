/* Teams and collectives, built from deposits and deposit counters only, so
 * that they run on every transport and a simulated machine prices them.
 *
 * Each team has a slot (0: the world) and, per slot, counter lanes and a
 * region of the collectives' scratch area (the top of every segment, at
 * the same offset everywhere). A collective is a sequence of *steps*; step
 * s uses generation s % DMSG_COLL_GENS of the team's lanes and region.
 * A message is one deposit into a port of the receiver's region, counted
 * on a lane that only that message uses in that step, and every message is
 * awaited exactly once by its receiver, so every lane is back at zero
 * when its step ends on the receiver.
 *
 * Why that is enough (no acknowledgements): generation s % 3 may be written
 * on a member when it is free there, that is when the member has left step
 * s - 3 (it has awaited its lanes and read its region of that step). Each
 * team tracks `known`: a step that every member has left, as every member
 * knows after the last step (the same value on every member: it follows
 * from the kinds of the steps alone). A step is *full* when no member
 * leaves it before every member entered it (each member's result depends
 * on every member: barrier, allreduce, allgather, alltoall); leaving full
 * step s, a member knows every member has left s - 1: known = s - 1. A
 * step that is not full (a gather: the root leaves last, the others early)
 * teaches nothing. The rule (dmsg_coll_nonfull): no step starts unless known >=
 * s - 3, and a step that is not full starts only if known >= s - 2, so that
 * the one after it may start too; else a barrier (full) goes first. Two
 * steps that are not full may so follow a full one before a barrier.
 *
 * Acked broadcast steps (dmsg_coll_bcast_step) are the exception that makes a
 * stream of short broadcasts cheap: every member but the root deposits an
 * empty acknowledgement to the root on entering the step (safe: known >=
 * s - 3 holds for everyone), and the root awaits them when it begins its
 * next step, whatever it is: beginning step s, it knows every member
 * entered s - 1, so left s - 2. The data travels down a tree
 * from the root, and whoever receives it learns what the root knew when it
 * sent: known becomes the root's knowledge. A broadcast by the root of the
 * step just before may therefore start with known = s - 3 (its root knows
 * s - 2, more than its writes need), and after it known >= s - 2 again. */
#ifndef DMSG_COLL_COLL_H
#define DMSG_COLL_COLL_H

#include <stddef.h>
#include <stdint.h>
#include "dmsg/core/state.h"

typedef struct coll_team {
    int used;
    uint32_t gen;     /* bumped at every create and free; handle = gen << 16 | slot + 1 */
    int size, me;     /* members, and this PE's number */
    int *members;     /* world ranks by team number (NULL: the world itself) */
    uint64_t seq;     /* steps so far */
    int64_t known;    /* every member has left this step (see above; -2 at start) */
    int last_root;    /* root of the previous step if an acked broadcast, else -1 */
    uint64_t acks;    /* acknowledgements of the previous step this PE awaits as its root */
    /* The ring of short broadcasts (dmsg_coll_ring_bcast), after the generations */
    size_t ring_off;  /* segment offset of slot 0 */
    size_t ring_slot; /* bytes of a slot (0: no ring) */
    uint64_t bseq;    /* ring broadcasts so far */
    int ring_root;    /* root of the ring's broadcasts since its last barrier (-1: none) */
    /* per group of slots: acknowledgements this PE awaits as root */
    uint64_t ring_acks[DMSG_COLL_RING / DMSG_COLL_RING_GROUP];
    int ring_pend;    /* group + 1 whose acknowledgement this PE owes the root (0: none) */
    uint32_t lane0;   /* first counter slot */
    size_t reg_off;   /* segment offset of the team's scratch region */
    size_t gen_bytes; /* bytes of one generation's part of it */
    unsigned char *tmp;
    size_t tmp_cap;
} coll_team;

typedef struct coll_state {
    coll_team t[DMSG_MAX_TEAMS];
    /* bit k: slot k's counter lanes are set up on this PE (the world's at
     * dmsg_init; the others when a team first takes the slot) */
    uint64_t lanes_ready;
    uint64_t direct; /* collectives that took the direct path (direct.c), for the tests */
} coll_state;

/* The team of a handle, or DMSG_ERR_TEAM (invalid, freed, or this PE is not
 * a member); sets up the world team on first use. */
dmsg_status dmsg_coll_team_get(dmsg_team h, coll_team **out);
dmsg_team dmsg_coll_team_handle(const coll_team *t);
int dmsg_coll_world(const coll_team *t, int r);

/* A private buffer of the team (grown on demand; kept until the team goes). */
dmsg_status dmsg_coll_tmp(coll_team *t, size_t bytes, unsigned char **out);

/* ---- messages of a step */

typedef struct coll_step {
    coll_team *t;
    unsigned gen;
    char *base; /* this generation's part of this PE's region */
} coll_step;

/* Kinds of steps for dmsg_coll_step_begin: full, not full, or (>= 0) an acked
 * broadcast with this root. */
enum { COLL_STEP_FULL = -1, COLL_STEP_PART = -2 };
/* Starts the team's next step (first awaiting the acknowledgements of the
 * previous one where this PE was its root) and records what every member
 * will know after it. */
dmsg_status dmsg_coll_step_begin(coll_team *t, coll_step *s, int kind);
/* Before a step that is not full (root: an acked broadcast's, else -1):
 * a barrier first where the knowledge does not allow the step (above). */
dmsg_status dmsg_coll_nonfull(coll_team *t, int root);
/* Initial knowledge of a team (fresh lanes and regions). */
void dmsg_coll_team_fresh(coll_team *t);
/* Deposits bytes from src to port offset `off` of team member r's region, counted on lane. */
dmsg_status dmsg_coll_send(const coll_step *s, int r, size_t off, const void *src, size_t bytes,
                      unsigned lane);
/* Waits for n messages on lane (they are then visible in this PE's region). */
dmsg_status dmsg_coll_recv(const coll_step *s, unsigned lane, uint64_t n);

/* ---- engines (each one or more steps) */

/* Dissemination barrier over the team (a full step). */
dmsg_status dmsg_coll_barrier(coll_team *t);

/* Recursive doubling over the team, with the members above the largest
 * power of two folded into pairs first. Every member's value is `bytes` at
 * val (local), at most dmsg_coll_rd_max(t); combine(acc, in, in_lower, ctx)
 * merges a partner's value into acc, in_lower saying whether the partner's
 * members precede this PE's, so that both partners compute one value
 * bitwise. Afterwards every member holds the combination of all (a full step). */
typedef void (*coll_combine_fn)(void *acc, const void *in, int in_lower, void *ctx);
size_t dmsg_coll_rd_max(const coll_team *t);
/* dmsg_coll_rd_max(t) >= 128, without a division. */
int dmsg_coll_rd_room(const coll_team *t);
dmsg_status dmsg_coll_rd(coll_team *t, void *val, size_t bytes, coll_combine_fn combine, void *ctx);

/* One acked broadcast step (dmsg_coll_nonfull first): `bytes` (at most
 * dmsg_coll_bcast_max(t)) from src on the root to dst on the others, down a
 * tree of fan-out `fan` (t->size - 1: flat). Not full. */
size_t dmsg_coll_bcast_max(const coll_team *t);
dmsg_status dmsg_coll_bcast_step(coll_team *t, void *dst, const void *src, size_t bytes, int root,
                            int fan);

/* The ring of short broadcasts: broadcast n of the team goes to slot
 * n % DMSG_COLL_RING of every member's ring, counted on that slot's data
 * lane, down the same trees as dmsg_coll_bcast_step. The slots form groups of
 * DMSG_COLL_RING_GROUP; a member acknowledges a group to the root (one
 * empty deposit on the group's lane) once it has forwarded and copied out
 * the group's last broadcast, and the root, before the first broadcast it
 * puts into a group, awaits the acknowledgements of the group's previous
 * use: it runs up to DMSG_COLL_RING - DMSG_COLL_RING_GROUP broadcasts ahead
 * of the slowest member, and the members acknowledge a quarter as often.
 * Only the root learns that its slots are free: when the root changes, the
 * members acknowledge the group they are in (flush), the old root awaits
 * all its acknowledgements, and a barrier tells everyone (it follows every
 * member's earlier broadcasts); the new root's first group may then start
 * in its middle. No steps: the generations are untouched. At most
 * t->ring_slot bytes. */
#define COLL_RING_SLOT_MAX 2048
dmsg_status dmsg_coll_ring_bcast(coll_team *t, void *dst, const void *src, size_t bytes, int root,
                            int fan);
/* The members' owed acknowledgements, then the root's wait for all of
 * them (at a root change, and before a team goes). */
dmsg_status dmsg_coll_ring_drain(coll_team *t);

/* Direct exchange: each member sends sbytes[j] bytes from src[j] to member j,
 * which finds them at recv[i]; one step (full when everyone receives from
 * everyone: rfrom == NULL means every member sends to every member).
 * Sizes at most dmsg_coll_direct_max(t) per message. */
size_t dmsg_coll_direct_max(const coll_team *t);

/* Chunked all-to-all style mover, see dmsg_coll_move in xchg.c. */
typedef struct coll_plan {
    /* block of member j to send (NULL: send nothing to j); its size */
    const unsigned char *(*sblock)(void *ctx, int j, size_t *bytes);
    /* where member i's block lands here (NULL: nothing expected from i) */
    unsigned char *(*rblock)(void *ctx, int i, size_t *bytes);
    void *ctx;
    int full; /* every member sends to and receives from every member */
} coll_plan;
dmsg_status dmsg_coll_move(coll_team *t, const coll_plan *p, size_t maxblock);

/* Agreement on a small vector over the team: the first n_or words are
 * OR-ed, the rest MAX-ed (callers put v and ~v to detect disagreement). */
dmsg_status dmsg_coll_agree(coll_team *t, uint64_t *w, size_t n, size_t n_or);
/* A status as a word for dmsg_coll_agree's MAX (errors are negative: the most
 * negative, the lowest code, wins), and back. */
static inline uint64_t coll_err_word(dmsg_status st)
{
    return (uint64_t)(-(int64_t)st);
}
static inline dmsg_status coll_err_status(uint64_t w)
{
    return (dmsg_status)(-(int64_t)w);
}

/* Member j's part of n units split over P members: [*lo, *lo + *len)
 * (ceil(n / P) each, the last ones short or empty). */
static inline void coll_part(size_t n, int P, int j, size_t *lo, size_t *len)
{
    size_t b = (n + (size_t)P - 1) / (size_t)P, a = b * (size_t)j;
    *lo = a < n ? a : n;
    *len = a < n ? (n - a < b ? n - a : b) : 0;
}

/* ---- reductions (reduce_ops.c) */

/* The kernel dst[i] = x[i] op y[i] for n elements, or NULL when the type
 * does not take the op (or either is unknown). dst may be x or y. */
typedef void (*coll_red_fn)(void *dst, const void *x, const void *y, size_t n);
coll_red_fn dmsg_coll_red_kernel(dmsg_type type, dmsg_redop op);

/* ---- the direct path (direct.c)
 *
 * With every member's segment mapped in this process (transport capability
 * DMSG_TP_CAP_PEER_MAP: shm) and the buffers symmetric, a collective
 * loads and stores the members' buffers where they are instead of moving
 * them through the scratch area twice. dmsg_coll_direct_enter is one full
 * step (an agreement): after it every member is in the call and its
 * sources are ready; the collective then copies or combines, and ends with
 * dmsg_coll_barrier (nobody reads a member's source or writes its
 * destination after it). */

/* The team may take the direct path: the same answer on every member, so
 * that the others skip the agreement. */
int dmsg_coll_direct_may(const coll_team *t);

/* Who must have a buffer symmetric, in dmsg_coll_direct_enter: every member
 * (at one offset), nobody, or (>= 0) that member alone. */
enum { COLL_ALL = -1, COLL_NOBODY = -2 };
typedef struct coll_direct {
    size_t soff, doff; /* segment offsets of src and dst as agreed */
} coll_direct;
/* The agreement: *go = 1 on every member when every member is mapped, the
 * buffers are symmetric where swho / dwho ask (bytes from src / dst) and
 * a private buffer of tmp bytes (dmsg_coll_tmp, 0: none) was had, else 0
 * on every member (take the scratch path). Errors: the agreement's. */
dmsg_status dmsg_coll_direct_enter(coll_team *t, int swho, const void *src, size_t sbytes,
                                   int dwho, const void *dst, size_t dbytes, size_t tmp,
                                   coll_direct *d, int *go);
/* Bytes of one combine pass of dmsg_coll_direct_reduce: its accumulator
 * (a private buffer of this size) and the P source pieces stay in the
 * first levels of cache. */
#define COLL_DIRECT_CHUNK ((size_t)16 << 10)
/* (All)reduce after the agreement: member j combines part j (coll_part)
 * of every member's source, in member order, and writes it into every
 * member's destination (root >= 0: the root's only); then the barrier.
 * dst == src is allowed. */
dmsg_status dmsg_coll_direct_reduce(coll_team *t, const coll_direct *d, size_t count, size_t es,
                                    coll_red_fn k, int root);
/* The movers after the agreement, each member copying into its own dst:
 * a broadcast (from the root's source, soff), an allgather (member j's
 * source to block j) or an all-to-all (block me of member j's source to
 * block j), `bytes` a block; then the barrier. */
enum { COLL_DIRECT_BCAST, COLL_DIRECT_ALLGATHER, COLL_DIRECT_ALLTOALL };
dmsg_status dmsg_coll_direct_move(coll_team *t, const coll_direct *d, int kind, void *dst,
                                  const void *src, size_t bytes, int root);

/* Two PEs (the world of two, where the transport carries values in its
 * barrier): an allreduce in two barriers. The first carries the offsets,
 * after it *done = 1 on both when both buffers are symmetric, and each
 * PE combines its partner's source, read in place, with its own into its
 * destination (PE order); the second ends it. *done = 0 (on both): only
 * the first barrier was passed, take another path. dst == src allowed. */
int dmsg_coll_direct_pair_may(const coll_team *t);
dmsg_status dmsg_coll_direct_pair(coll_team *t, void *dst, const void *src, size_t count,
                                  size_t es, coll_red_fn k, int *done);

#endif
