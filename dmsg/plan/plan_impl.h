/* Internals of the plan layer (include/dmsg_plan.h). The layer sits above
 * the core: it moves data only through the public API of include/dmsg.h.
 * Everything here is pure (no communication) unless it says otherwise. */
#ifndef DMSG_PLAN_IMPL_H
#define DMSG_PLAN_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include "dmsg_plan.h"
#include "dmsg/core/status.h"

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

#endif
