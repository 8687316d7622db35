/* The topology-aware network model of the simulated machines
 * (DMSG_SIM_TOPOLOGY=1; docs/simulator.md, "The topology model").
 *
 * Instead of one average congestion factor for the whole run, every
 * deposit between two PEs takes a route through the machine's network (a
 * torus or a mesh of nodes, dimension-order routing: x first, then y, then
 * z; on a torus the shorter way round, + on a tie) and is charged the
 * congestion it meets there: 1 + the number of earlier deposits still
 * occupying the most loaded link of its route at its start. A route is the
 * source node's injection link, the router-to-router links, and the
 * destination node's ejection link, so PEs that share a node (the T3D's
 * two PEs per network port) share both ports.
 *
 * Occupancy lives in virtual time: a deposit occupies every link of its
 * route from its start to the end of its busy time. Deposits are booked in
 * the order of their start (ties: the lower rank first), so a deposit sees
 * every deposit that started before it and is still on its links, and no
 * later one: one that starts while another is on a link is slowed, the
 * earlier one keeps the rate it started with. That order is a function of
 * the program, not of host timing: a deposit waits (in host time) until
 * every other PE's lower bound of its next deposit (the ordered delivery's
 * bound, sim_order.c) is past its start. */
#ifndef DMSG_SIM_TOPO_H
#define DMSG_SIM_TOPO_H

#include <stdatomic.h>
#include <stdint.h>
#include "dmsg/base/status.h"
#include "dmsg/model/machine.h"

#define SIM_TOPO_MAX_DIMS 3
/* Links a node has: + and - in each dimension, injection and ejection. */
#define SIM_TOPO_MAX_LINKS_PER_NODE (2 * SIM_TOPO_MAX_DIMS + 2)
/* Deposits a link remembers at once; a link crossed by more at one time
 * counts as SIM_TOPO_FLOWS + 1 (never reached by the patterns measured:
 * docs/simulator.md). */
#define SIM_TOPO_FLOWS 14

/* The network of one job: the machine's kind and dimensions, shaped for the
 * job's node count. */
typedef struct sim_topo {
    int kind;                   /* DMSG_TOPO_TORUS or DMSG_TOPO_MESH (machine.h) */
    int ndims;                  /* 1 to SIM_TOPO_MAX_DIMS */
    int dim[SIM_TOPO_MAX_DIMS]; /* nodes along each dimension (x first) */
    int ppn;                    /* PEs per node (network port) */
    int nodes;                  /* product of dim[] */
} sim_topo;

/* Shapes a network of `kind` with `ndims` dimensions for npes PEs, ppn per
 * node: ceil(npes / ppn) nodes, factored into ndims sizes as even as
 * possible, the largest first (32 nodes in 3-D: 4 x 4 x 2). DMSG_ERR_ARG for
 * a kind, dimension count or size outside the model. */
dmsg_status dmsg_sim_topo_shape(sim_topo *t, int kind, int ndims, int ppn, int npes);

/* Link ids: node * SIM_TOPO_MAX_LINKS_PER_NODE + 2 d (+ direction) or + 2 d +
 * 1 (- direction) for the link leaving the node in dimension d,
 * SIM_TOPO_INJECT / SIM_TOPO_EJECT for its ports. */
#define SIM_TOPO_INJECT (2 * SIM_TOPO_MAX_DIMS)
#define SIM_TOPO_EJECT (2 * SIM_TOPO_MAX_DIMS + 1)

/* The links of the route from PE a to PE b, in order, into links[max];
 * returns their number (0 for a == b: a deposit to oneself is a local
 * copy), or -1 if max is too small. */
int dmsg_sim_topo_route(const sim_topo *t, int a, int b, int *links, int max);

/* Router-to-router hops between the nodes of PEs a and b. */
int dmsg_sim_topo_hops(const sim_topo *t, int a, int b);

/* One link's occupancy: the ends (bits of virtual seconds; 0: free) of the
 * deposits on it. Shared between the PEs (in the control area of the
 * link's node's first PE); written only by the one PE whose turn it is. */
typedef struct sim_link {
    _Atomic uint64_t end[SIM_TOPO_FLOWS];
} sim_link;

/* The congestion a deposit starting at t meets on these links: 1 + the
 * largest number of deposits still on one of them at t. */
double dmsg_sim_topo_load(sim_link *const *links, int n, double t);

/* Books a deposit on these links from t (the time it was loaded at) to
 * end: each link takes a free or finished entry, else the one that
 * finishes first. */
void dmsg_sim_topo_book(sim_link *const *links, int n, double t, double end);

/* The glue to the sim transport (sim.c's account). */
struct sim_state;

/* Bytes of each PE's control area the link table takes (DMSG_SIM_TOPOLOGY=1
 * only: the arrival log gives them up, sim_arrive.c). */
#define SIM_TOPO_CTL_BYTES (SIM_TOPO_MAX_LINKS_PER_NODE * sizeof(sim_link))

/* At dmsg_init with DMSG_SIM_TOPOLOGY=1: shapes the machine's network for
 * the job (s->topo); DMSG_ERR_ENV naming the setting where the machine has
 * no topology keys. */
dmsg_status dmsg_sim_topo_init(struct sim_state *s);
void dmsg_sim_topo_fini(struct sim_state *s);

/* Before a deposit to PE pe that starts at this PE's clock: waits until
 * every deposit that starts earlier (or at the same time from a lower
 * rank) is booked, then sets s->topo_c to the congestion on the route. */
dmsg_status dmsg_sim_topo_enter(struct sim_state *s, int pe);

/* After it: books the route entered from t to end (the deposit's busy
 * time) for a deposit of `bytes`. */
void dmsg_sim_topo_leave(struct sim_state *s, double t, double end, uint64_t bytes);

/* DMSG_SIM_REPORT's topology line (collective; PE 0 prints): the shape and
 * the congestion the job's deposits met, on average by bytes and at most. */
struct dmsg_tp;
dmsg_status dmsg_sim_topo_report(struct dmsg_tp *tp);

#endif
