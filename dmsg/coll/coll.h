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
 * Why that is enough (no acknowledgements): a step is *full* when no member
 * leaves it before every member entered it (each member's result depends on
 * every member: barrier, allreduce, allgather, alltoall; a gather is not,
 * its root leaves last and the others early). Generation s % 3 is free on
 * every member when a member enters step s if every member has left step
 * s - 3, and that holds when one of the steps s - 2 and s - 1 is full: a
 * member that left a full step knows every member entered it, so left the
 * step before. So two steps in a row are never both not full: a barrier
 * (full) goes between them. */
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
    int nonfull;      /* the last step was not full */
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
} coll_state;

/* The team of a handle, or DMSG_ERR_TEAM (invalid, freed, or this PE is not
 * a member); sets up the world team on first use. */
dmsg_status coll_team_get(dmsg_team h, coll_team **out);
dmsg_team coll_team_handle(const coll_team *t);
int coll_world(const coll_team *t, int r);

/* A private buffer of the team (grown on demand; kept until the team goes). */
dmsg_status coll_tmp(coll_team *t, size_t bytes, unsigned char **out);

/* ---- messages of a step */

typedef struct coll_step {
    coll_team *t;
    unsigned gen;
    char *base; /* this generation's part of this PE's region */
} coll_step;

void coll_step_begin(coll_team *t, coll_step *s);
/* Deposits bytes from src to port offset `off` of team member r's region, counted on lane. */
dmsg_status coll_send(const coll_step *s, int r, size_t off, const void *src, size_t bytes,
                      unsigned lane);
/* Waits for n messages on lane (they are then visible in this PE's region). */
dmsg_status coll_recv(const coll_step *s, unsigned lane, uint64_t n);

/* ---- engines (each one or more steps) */

/* Dissemination barrier over the team (a full step). */
dmsg_status coll_barrier(coll_team *t);

/* Recursive doubling over the team, with the members above the largest
 * power of two folded into pairs first. Every member's value is `bytes` at
 * val (local), at most coll_rd_max(t); combine(acc, in, in_lower, ctx)
 * merges a partner's value into acc, in_lower saying whether the partner's
 * members precede this PE's, so that both partners compute one value
 * bitwise. Afterwards every member holds the combination of all (a full step). */
typedef void (*coll_combine_fn)(void *acc, const void *in, int in_lower, void *ctx);
size_t coll_rd_max(const coll_team *t);
dmsg_status coll_rd(coll_team *t, void *val, size_t bytes, coll_combine_fn combine, void *ctx);

/* Direct exchange: each member sends sbytes[j] bytes from src[j] to member j,
 * which finds them at recv[i]; one step (full when everyone receives from
 * everyone: rfrom == NULL means every member sends to every member).
 * Sizes at most coll_direct_max(t) per message. */
size_t coll_direct_max(const coll_team *t);

/* Chunked all-to-all style mover, see coll_move in xchg.c. */
typedef struct coll_plan {
    /* block of member j to send (NULL: send nothing to j); its size */
    const unsigned char *(*sblock)(void *ctx, int j, size_t *bytes);
    /* where member i's block lands here (NULL: nothing expected from i) */
    unsigned char *(*rblock)(void *ctx, int i, size_t *bytes);
    void *ctx;
    int full; /* every member sends to and receives from every member */
} coll_plan;
dmsg_status coll_move(coll_team *t, const coll_plan *p, size_t maxblock);

/* Agreement on a small vector over the team: the first n_or words are
 * OR-ed, the rest MAX-ed (callers put v and ~v to detect disagreement). */
dmsg_status coll_agree(coll_team *t, uint64_t *w, size_t n, size_t n_or);
/* A status as a word for coll_agree's MAX (errors are negative: the most
 * negative, the lowest code, wins), and back. */
static inline uint64_t coll_err_word(dmsg_status st)
{
    return (uint64_t)(-(int64_t)st);
}
static inline dmsg_status coll_err_status(uint64_t w)
{
    return (dmsg_status)(-(int64_t)w);
}

/* ---- reductions (reduce_ops.c) */

/* The kernel dst[i] = x[i] op y[i] for n elements, or NULL when the type
 * does not take the op (or either is unknown). dst may be x or y. */
typedef void (*coll_red_fn)(void *dst, const void *x, const void *y, size_t n);
coll_red_fn coll_red_kernel(dmsg_type type, dmsg_redop op);

#endif
