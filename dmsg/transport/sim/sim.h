/* Simulated machines: the real program runs and its data moves through the
 * shared-memory transport, but each PE keeps a virtual clock that every
 * operation advances by the cost model of a historical machine (machine.h,
 * ctm.h). Only communication advances the clock: local computation is free,
 * so the virtual time of a run is the time its communication steps would have
 * taken on that machine. */
#ifndef DMSG_SIM_H
#define DMSG_SIM_H

#include "dmsg/base/mech.h"
#include "dmsg/transport/shm/shm.h"
#include "dmsg/model/machine.h"

/* Where a PE's virtual time went. */
enum { SIM_T_TRANSFER, SIM_T_COPY, SIM_T_SYNC, SIM_T_CTRWAIT, SIM_T_FETCH, SIM_T_N };

typedef enum { SIM_FETCH_AUTO, SIM_FETCH_BLOCKING, SIM_FETCH_PIPELINED, SIM_FETCH_VECTOR } sim_fetch;

typedef struct sim_state {
    shm_state shm; /* first: the shm functions see tp->priv as their state */
    dmsg_machine m;
    dmsg_mech mech;
    sim_fetch fetch;
    double congestion;
    double clock;        /* virtual seconds */
    double pending;      /* latest arrival of this PE's deposits so far */
    double last_arrival; /* arrival of the deposit being counted */
    int self;            /* this PE's rank */
    int partner;         /* last remote partner, for the switch cost */
    uint64_t barriers;   /* parity of the barrier clock rows */
    double t[SIM_T_N];
} sim_state;

/* Costs in virtual seconds (sim_cost.c). */

/* Sender's busy time for a deposit (per-message overhead included);
 * *copy_part receives the share spent in local packing copies. */
double sim_cost_deposit(const sim_state *s, const dmsg_tp_xfer *x, double *copy_part);

/* Time until a fetch's data is in place; *issue_part receives the time the
 * issuing processor is busy (the rest overlaps with other work). */
double sim_cost_fetch(const sim_state *s, const dmsg_tp_xfer *x, double *issue_part);

/* One-way latency of a remote store (arrival after the sender is done). */
double sim_cost_latency(const sim_state *s);

double sim_cost_barrier(const sim_state *s, int npes);

/* Prints every PE's breakdown (collective; rank 0 prints). */
dmsg_status sim_report(dmsg_tp *tp);

#endif
