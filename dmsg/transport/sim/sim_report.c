/* The virtual time breakdown: every PE's clock and where its time went,
 * gathered to PE 0 and printed as one table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dmsg/transport/sim/sim.h"

dmsg_status dmsg_sim_report(dmsg_tp *tp)
{
    sim_state *s = tp->priv;
    /* The gather slot holds four doubles: two rounds carry clock + five parts. */
    double a[4] = {s->clock, s->t[SIM_T_TRANSFER], s->t[SIM_T_COPY], s->t[SIM_T_SYNC]};
    double b[4] = {s->t[SIM_T_CTRWAIT], s->t[SIM_T_FETCH], 0, 0};
    double(*ra)[4] = calloc((size_t)tp->npes, sizeof *ra);
    double(*rb)[4] = calloc((size_t)tp->npes, sizeof *rb);
    dmsg_status st = DMSG_ERR_NOMEM;
    if (!ra || !rb)
        goto out;
    if ((st = dmsg_sim_coll_allgather(tp, a, sizeof a, ra)) ||
        (st = dmsg_sim_coll_allgather(tp, b, sizeof b, rb)))
        goto out;
    if (tp->rank == 0) {
        fprintf(stderr,
                "dmsg sim: machine %s, congestion %g, mechanism %s; virtual microseconds\n"
                "  %4s %12s %12s %12s %12s %12s %12s\n",
                s->m.name, s->congestion,
                s->mech == DMSG_MECH_AUTO ? "auto" : s->mech == DMSG_MECH_PACKED ? "packed" : "chained",
                "PE", "total", "transfer", "copies", "sync", "ctr-wait", "fetch-wait");
        for (int p = 0; p < tp->npes; p++)
            fprintf(stderr, "  %4d %12.3f %12.3f %12.3f %12.3f %12.3f %12.3f\n", p, ra[p][0] * 1e6,
                    ra[p][1] * 1e6, ra[p][2] * 1e6, ra[p][3] * 1e6, rb[p][0] * 1e6,
                    rb[p][1] * 1e6);
    }
    /* How the host ran it: every hand-off is a futex wake-up and a context
     * switch, and a sweep (nobody ready: every parked PE readied) means
     * some wake-up was not given where it was due (sim_sched.c). */
    if (!st && tp->rank == 0 && s->sched)
        fprintf(stderr,
                "dmsg sim: scheduler: %llu hand-offs, %llu sweeps, %llu drops; deposits to "
                "other PEs: %llu through the file, %llu through the mapping; deposit engine: "
                "%s, %llu writes\n",
                (unsigned long long)sim_job(s)->handoffs, (unsigned long long)sim_job(s)->sweeps,
                (unsigned long long)atomic_load(&sim_job(s)->drops),
                (unsigned long long)sim_job(s)->file_puts,
                (unsigned long long)sim_job(s)->map_puts, s->engine ? "on" : "off",
                (unsigned long long)atomic_load(&sim_job(s)->ring.head));
    if (!st && s->topo)
        st = dmsg_sim_topo_report(tp);
out:
    free(ra);
    free(rb);
    return st;
}
