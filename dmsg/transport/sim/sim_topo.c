/* The topology-aware network model (sim_topo.h): routes, link occupancy in
 * virtual time, and the turn a deposit waits for so that deposits are
 * booked in the order of their start whatever the host does. */
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "dmsg/transport/sim/sim.h"
#include "dmsg/transport/sim/sim_topo.h"

/* ------------------------------------------------------------ the shape */

/* Splits n into k factors as even as possible, the largest first: the prime
 * factors, largest first, each to the dimension with the least product. */
static void factor(int n, int k, int *dim)
{
    int primes[32], np = 0;
    for (int i = 0; i < k; i++)
        dim[i] = 1;
    for (int f = 2; n > 1 && np < 32;) {
        if ((long)f * f > n) {
            primes[np++] = n;
            break;
        }
        if (n % f == 0) {
            primes[np++] = f;
            n /= f;
        } else {
            f++;
        }
    }
    for (int i = np - 1; i >= 0; i--) {
        int least = 0;
        for (int d = 1; d < k; d++)
            if (dim[d] < dim[least])
                least = d;
        dim[least] *= primes[i];
    }
    /* The largest first (x), so that the shape reads like 4 x 4 x 2. */
    for (int i = 0; i < k; i++)
        for (int j = i + 1; j < k; j++)
            if (dim[j] > dim[i]) {
                int x = dim[i];
                dim[i] = dim[j];
                dim[j] = x;
            }
}

dmsg_status dmsg_sim_topo_shape(sim_topo *t, int kind, int ndims, int ppn, int npes)
{
    if (kind != DMSG_TOPO_TORUS && kind != DMSG_TOPO_MESH)
        return DMSG_FAIL(DMSG_ERR_ARG, "topology kind %d (torus or mesh)", kind);
    if (ndims < 1 || ndims > SIM_TOPO_MAX_DIMS)
        return DMSG_FAIL(DMSG_ERR_ARG, "topology of %d dimensions (1 to %d)", ndims,
                         SIM_TOPO_MAX_DIMS);
    if (ppn < 1 || npes < 1)
        return DMSG_FAIL(DMSG_ERR_ARG, "topology for %d PEs, %d per node", npes, ppn);
    sim_topo n = {.kind = kind, .ndims = ndims, .ppn = ppn, .nodes = (npes + ppn - 1) / ppn};
    factor(n.nodes, ndims, n.dim);
    *t = n;
    return DMSG_OK;
}

static void coords(const sim_topo *t, int node, int *c)
{
    for (int d = 0; d < t->ndims; d++) {
        c[d] = node % t->dim[d];
        node /= t->dim[d];
    }
}

static int node_at(const sim_topo *t, const int *c)
{
    int node = 0;
    for (int d = t->ndims - 1; d >= 0; d--)
        node = node * t->dim[d] + c[d];
    return node;
}

/* Steps and direction (+1, -1) from a to b along a dimension of k nodes:
 * on a torus the shorter way round, + on a tie. */
static int steps(const sim_topo *t, int k, int a, int b, int *dir)
{
    if (t->kind == DMSG_TOPO_MESH) {
        *dir = b >= a ? 1 : -1;
        return abs(b - a);
    }
    int fwd = ((b - a) % k + k) % k;
    *dir = fwd <= k - fwd ? 1 : -1;
    return fwd <= k - fwd ? fwd : k - fwd;
}

int dmsg_sim_topo_route(const sim_topo *t, int a, int b, int *links, int max)
{
    if (a == b)
        return 0;
    int na = a / t->ppn, nb = b / t->ppn, n = 0;
    int c[SIM_TOPO_MAX_DIMS], to[SIM_TOPO_MAX_DIMS];
    coords(t, na, c);
    coords(t, nb, to);
    if (n >= max)
        return -1;
    links[n++] = na * SIM_TOPO_MAX_LINKS_PER_NODE + SIM_TOPO_INJECT;
    for (int d = 0; d < t->ndims; d++) {
        int dir, k = steps(t, t->dim[d], c[d], to[d], &dir);
        for (int i = 0; i < k; i++) {
            if (n >= max)
                return -1;
            links[n++] = node_at(t, c) * SIM_TOPO_MAX_LINKS_PER_NODE + 2 * d + (dir < 0);
            c[d] = ((c[d] + dir) % t->dim[d] + t->dim[d]) % t->dim[d];
        }
    }
    if (n >= max)
        return -1;
    links[n++] = nb * SIM_TOPO_MAX_LINKS_PER_NODE + SIM_TOPO_EJECT;
    return n;
}

int dmsg_sim_topo_hops(const sim_topo *t, int a, int b)
{
    int c[SIM_TOPO_MAX_DIMS], to[SIM_TOPO_MAX_DIMS], hops = 0, dir;
    coords(t, a / t->ppn, c);
    coords(t, b / t->ppn, to);
    for (int d = 0; d < t->ndims; d++)
        hops += steps(t, t->dim[d], c[d], to[d], &dir);
    return hops;
}

/* ------------------------------------------------------- link occupancy */

double dmsg_sim_topo_load(sim_link *const *links, int n, double t)
{
    int most = 0;
    for (int i = 0; i < n; i++) {
        int on = 0;
        for (int j = 0; j < SIM_TOPO_FLOWS; j++)
            on += bitsd(atomic_load_explicit(&links[i]->end[j], memory_order_relaxed)) > t;
        most = on > most ? on : most;
    }
    return 1 + most;
}

void dmsg_sim_topo_book(sim_link *const *links, int n, double t, double end)
{
    for (int i = 0; i < n; i++) {
        /* Deposits are booked in the order of their start, so an entry that
         * has finished by t is finished for every later deposit too. */
        int pick = 0;
        double first = INFINITY;
        for (int j = 0; j < SIM_TOPO_FLOWS; j++) {
            double e = bitsd(atomic_load_explicit(&links[i]->end[j], memory_order_relaxed));
            if (e <= t) {
                pick = j;
                break;
            }
            if (e < first) {
                first = e;
                pick = j;
            }
        }
        atomic_store_explicit(&links[i]->end[pick], dbits(end), memory_order_relaxed);
    }
}

/* ------------------------------------------------- the sim transport's glue */

struct sim_topo_run {
    double c_bytes;  /* sum of congestion x bytes over this PE's routed deposits */
    double bytes;    /* their bytes */
    double c_max;    /* the most congestion one met */
    double deposits; /* their number */
    int max;         /* room of route[] and link[] */
    int n;           /* links of the route entered */
    int *route;
    sim_link **link;
};

/* PE pe's link table: the end of its control area's room for layered
 * transports (the arrival log stops before it, sim_arrive.c). */
static sim_link *table_of(sim_state *s, int pe)
{
    sim_touch(s, pe); /* read and written through the mapping */
    char *ctl = (char *)shm_ctr_at(&s->shm, pe, 0);
    return (sim_link *)(ctl + s->shm.hdr->ctl_size - SHM_CTL_TAIL_BYTES - SIM_TOPO_CTL_BYTES);
}

static sim_link *link_at(sim_state *s, int id)
{
    int node = id / SIM_TOPO_MAX_LINKS_PER_NODE;
    return &table_of(s, node * s->net.ppn)[id % SIM_TOPO_MAX_LINKS_PER_NODE];
}

dmsg_status dmsg_sim_topo_init(sim_state *s)
{
    const dmsg_machine *m = &s->m;
    if (!m->topo_kind || !m->topo_dims)
        return DMSG_FAIL(DMSG_ERR_ENV,
                         "DMSG_SIM_TOPOLOGY=1: machine %s has no network topology (keys "
                         "topo.kind and topo.dims)",
                         m->name);
    dmsg_status st = dmsg_sim_topo_shape(&s->net, m->topo_kind, m->topo_dims,
                                         m->topo_ppn > 0 ? m->topo_ppn : 1, s->tp->npes);
    if (st)
        return st;
    struct sim_topo_run *r = calloc(1, sizeof *r);
    if (!r)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "sim topology");
    r->max = 2;
    for (int d = 0; d < s->net.ndims; d++)
        r->max += s->net.dim[d];
    r->route = calloc((size_t)r->max, sizeof *r->route);
    r->link = calloc((size_t)r->max, sizeof *r->link);
    if (!r->route || !r->link) {
        free(r->route);
        free(r->link);
        free(r);
        return DMSG_FAIL(DMSG_ERR_NOMEM, "sim topology routes");
    }
    s->topo = r;
    return DMSG_OK;
}

void dmsg_sim_topo_fini(sim_state *s)
{
    if (!s->topo)
        return;
    free(s->topo->route);
    free(s->topo->link);
    free(s->topo);
    s->topo = NULL;
}

/* PE q's bound as this PE may use it (as sim_order.c reads it): a PE inside
 * a collective this PE has left leaves it with this PE's clock then. */
static double bound_seen(sim_state *s, sim_pe_bound *l)
{
    for (;;) {
        uint64_t c = atomic_load(&l->colls);
        double v = bitsd(atomic_load(&l->lb));
        if (atomic_load(&l->colls) != c)
            continue;
        if ((c & 1) && (c + 1) / 2 <= s->colls)
            v = v < s->coll_time ? v : s->coll_time;
        return v;
    }
}

/* Whether every deposit that starts before t, or at t from a lower rank,
 * is booked: every other PE's next deposit starts later (a lower rank's
 * strictly later). One consistent pass (the ordered delivery's epoch: a
 * bound a deposit lowered during the pass shows as a new epoch). */
static int my_turn(sim_state *s, double t)
{
    sim_log *l0 = dmsg_sim_log_of(s, 0);
    int me = s->tp->rank;
    for (;;) {
        uint64_t e = atomic_load(&l0->epoch);
        for (int q = 0; q < s->tp->npes; q++) {
            if (q == me)
                continue;
            double b = bound_seen(s, sim_bound(s, q));
            if (b < t || (b == t && q < me))
                return 0;
        }
        if (atomic_load(&l0->epoch) == e)
            return 1;
    }
}

dmsg_status dmsg_sim_topo_enter(sim_state *s, int pe)
{
    struct sim_topo_run *r = s->topo;
    double t = s->clock;
    /* This PE's next deposit starts at t: say so, or two PEs whose bounds
     * are still below their starts would wait for each other. */
    dmsg_sim_order_publish(s);
    dmsg_status st = DMSG_OK;
    if (!my_turn(s, t)) {
        dmsg_wait_policy pol = *s->shm.wait;
        pol.spin = 0;
        dmsg_waiter w;
        dmsg_waiter_start(&w, &pol);
        while (!my_turn(s, t)) {
            dmsg_wait_act act = dmsg_waiter_next(&w);
            if (act == DMSG_WAIT_TIMEOUT || act == DMSG_WAIT_ABORTED)
                return dmsg_waiter_fail(&w, act,
                                        "the simulated network's turn (DMSG_SIM_TOPOLOGY)");
            if (s->sched) {
                /* The PE that holds this one back runs (least clock first). */
                if ((st = dmsg_sim_sched_pause(s, SIM_PARK_POLL)))
                    return st;
            } else if (act == DMSG_WAIT_YIELD) {
                sched_yield();
            } else if (act == DMSG_WAIT_SLEEP) {
                struct timespec ts = {0, 50000};
                nanosleep(&ts, NULL);
            }
        }
        dmsg_waiter_done(&w);
    }
    /* r->max holds the longest route of this shape: -1 cannot happen, but
     * would book nothing rather than overrun. */
    r->n = dmsg_sim_topo_route(&s->net, s->tp->rank, pe, r->route, r->max);
    if (r->n < 0)
        r->n = 0;
    for (int i = 0; i < r->n; i++)
        r->link[i] = link_at(s, r->route[i]);
    s->topo_c = dmsg_sim_topo_load(r->link, r->n, t);
    return DMSG_OK;
}

void dmsg_sim_topo_leave(sim_state *s, double t, double end, uint64_t bytes)
{
    struct sim_topo_run *r = s->topo;
    dmsg_sim_topo_book(r->link, r->n, t, end);
    r->n = 0;
    r->c_bytes += s->topo_c * (double)bytes;
    r->bytes += (double)bytes;
    r->c_max = s->topo_c > r->c_max ? s->topo_c : r->c_max;
    r->deposits++;
    s->topo_c = 0; /* what is not routed (signals) pays the average factor */
}

dmsg_status dmsg_sim_topo_report(dmsg_tp *tp)
{
    sim_state *s = tp->priv;
    struct sim_topo_run *r = s->topo;
    double mine[4] = {r->c_bytes, r->bytes, r->c_max, r->deposits};
    double(*all)[4] = calloc((size_t)tp->npes, sizeof *all);
    if (!all)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "sim topology report");
    dmsg_status st = dmsg_sim_coll_allgather(tp, mine, sizeof mine, all);
    if (!st && tp->rank == 0) {
        double cb = 0, b = 0, cmax = 0, n = 0;
        for (int p = 0; p < tp->npes; p++) {
            cb += all[p][0];
            b += all[p][1];
            cmax = all[p][2] > cmax ? all[p][2] : cmax;
            n += all[p][3];
        }
        const sim_topo *t = &s->net;
        fprintf(stderr, "dmsg sim: topology %s", t->kind == DMSG_TOPO_TORUS ? "torus" : "mesh");
        for (int d = 0; d < t->ndims; d++)
            fprintf(stderr, "%s%d", d ? " x " : " ", t->dim[d]);
        /* A link remembers SIM_TOPO_FLOWS deposits: the most is a floor. */
        fprintf(stderr,
                " nodes, %d PE%s per node; %.0f routed deposits met congestion %.3f on "
                "average (by bytes), %.0f%s at most\n",
                t->ppn, t->ppn > 1 ? "s" : "", n, b > 0 ? cb / b : 1, n > 0 ? cmax : 1,
                cmax > SIM_TOPO_FLOWS ? " or more" : "");
    }
    free(all);
    return st;
}
