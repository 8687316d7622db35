/* The mechanism choice of a plan: per partner, direct section deposits or
 * packing, as the plan's setting and the copy-transfer model say. */
#ifndef DMSG_PLAN_CHOOSE_H
#define DMSG_PLAN_CHOOSE_H

#include "dmsg/plan/plan_impl.h"

/* A machine's copy-transfer model (dmsg/model). */
typedef struct plan_model plan_model;

/* Sets packable, model_pack and the model predictions of every send
 * partner of pl, and pl->machine, by the model pm (NULL: no model; the
 * model mechanism then keeps every partner direct). */
void dmsg_plan_choose(plan_t *pl, const plan_model *pm);

/* Loads a machine by built-in name or description file. Errors:
 * DMSG_ERR_ENV (unknown or malformed), DMSG_ERR_NOMEM. */
dmsg_status dmsg_plan_model_open(const char *machine, plan_model **pm);
/* Parses a description held in memory (fname names it in messages).
 * Errors: DMSG_ERR_ENV (malformed), DMSG_ERR_NOMEM. */
dmsg_status dmsg_plan_model_parse(const char *text, const char *fname, plan_model **pm);
void dmsg_plan_model_close(plan_model *pm); /* NULL is fine */
/* Marks pm as this host's description: packing then also costs a local
 * copy call per piece at each end (its msg.overhead_us, measured as a
 * deposit to oneself), which a simulated machine does not charge. */
void dmsg_plan_model_host(plan_model *pm);
const char *dmsg_plan_model_name(const plan_model *pm);
const struct dmsg_machine *dmsg_plan_model_machine(const plan_model *pm);

/* 1 if packing the n pieces of a pair can differ from depositing them
 * directly (not to oneself, not one piece contiguous at both ends). */
int dmsg_plan_pack_candidate(const dmsg_piece *pcs, size_t n, size_t elem, int self);

/* The model patterns of a piece's source (*x) and destination (*y): 1
 * (contiguous) or a stride in 64-bit words, of the innermost dimension the
 * core reports to the transport. */
void dmsg_plan_piece_pats(const dmsg_piece *pc, size_t elem, long *x, long *y);

/* The model patterns of a periodic group (group.c) as the core reports
 * them: its mean run at its mean spacing on each side. */
void dmsg_plan_group_pats(const plan_group *g, long *x, long *y);

/* Predicted throughput (MB/s of payload) of moving a pair's pieces
 * directly and packed (pack 0 for a pair with oneself), one by one (as
 * dmsg-gen's programs do; dmsg_plan_choose prices a partner's group as one). */
void dmsg_plan_model_predict(const plan_model *pm, const dmsg_piece *pcs, size_t n, size_t elem,
                        int self, double *direct_mbs, double *pack_mbs);

#endif
