/* Atomics, signals and point-to-point waits on the simulated machines: shm
 * moves the data (the same CPU atomics), this file prices them on the
 * virtual clock (docs/simulator.md, "Atomics, signals and waits").
 *
 * - A blocking atomic costs the machine's remote atomic round trip
 *   (remote.amo_us, else remote.read_us; nothing on this PE's own words,
 *   which is local work); its update lands at the target half way.
 * - A non-blocking one keeps the issuing processor busy for the per-message
 *   overhead (at most the round trip); its result is there one round trip
 *   after the issue (a request's wait moves the clock there), and without a
 *   request it completes by the next quiet or barrier (pending).
 * - A signal is priced like a zero-byte deposit: the sender's per-message
 *   overhead, arrival one latency later, so after every deposit this PE
 *   issued to that PE before it.
 * - Every update (deposit, atomic, signal) raises the target's stamp to its
 *   arrival before its data is visible; a point-to-point wait that is
 *   satisfied moves the clock to the stamp: at least the arrival of the
 *   update that satisfied it, later when other updates to the PE arrived
 *   later still (see the page for what that cannot model). */
#include <stdatomic.h>
#include "dmsg/base/fence.h"
#include "dmsg/transport/sim/sim.h"

void dmsg_sim_word_stamp(sim_state *s, int pe, double t)
{
    sim_log *l = dmsg_sim_log_of(s, pe);
    uint64_t want = dbits(t), have = atomic_load(&l->wstamp);
    while (have < want && !atomic_compare_exchange_weak(&l->wstamp, &have, want))
        ;
    atomic_fetch_add_explicit(&l->news, 1, memory_order_relaxed);
    /* The update's own stores (plain copies too) come after the stamp. */
    dmsg_fence_seq_cst(); /* a release (a full fence: see fence.h) */
    dmsg_sim_sched_poke(s, pe); /* a PE parked on its words may go on */
}

static void switch_partner(sim_state *s, int pe)
{
    sim_acted(s);
    if (pe != s->partner && pe != s->tp->rank) {
        sim_charge(s, s->m.partner_us * 1e-6, SIM_T_TRANSFER);
        s->partner = pe;
    }
}

dmsg_status dmsg_sim_amo(dmsg_tp *tp, const dmsg_amo *a, int mode, void *result, dmsg_req *req)
{
    sim_state *s = tp->priv;
    int remote = a->pe != s->tp->rank;
    switch_partner(s, a->pe);
    double rt = remote ? dmsg_sim_cost_amo(s) : 0, start = s->clock;
    double landed = start + rt / 2, done = start + rt;
    if (mode == DMSG_AMO_BLOCKING) {
        sim_advance_to(s, done, SIM_T_FETCH);
    } else {
        double issue = remote ? s->m.overhead_us * 1e-6 : 0;
        sim_charge(s, issue < rt ? issue : rt, SIM_T_TRANSFER);
        if (mode == DMSG_AMO_NB_REQ)
            req->seq = dbits(done); /* sim_req_test moves the clock there */
        else if (landed > s->pending)
            s->pending = landed;
    }
    dmsg_sim_word_stamp(s, a->pe, landed);
    sim_touch(s, a->pe); /* the atomic is the CPU's, on the mapped word */
    dmsg_status st = dmsg_shm_amo(tp, a, mode, result, req);
    dmsg_sim_order_publish(s);
    return st;
}

dmsg_status dmsg_sim_signal(dmsg_tp *tp, int pe, size_t roff, uint64_t value, int add)
{
    sim_state *s = tp->priv;
    switch_partner(s, pe);
    sim_transfer x = {.get = 0, .pe = pe, .bytes = 0, .elem = 8, .src = SIM_PAT_CONTIG,
                      .dst = SIM_PAT_CONTIG};
    double copy, busy = dmsg_sim_cost_deposit(s, &x, &copy);
    sim_charge(s, busy, SIM_T_TRANSFER);
    double arrival = s->clock + (pe == s->tp->rank ? 0 : dmsg_sim_cost_latency(s));
    if (arrival > s->pending)
        s->pending = arrival;
    dmsg_sim_word_stamp(s, pe, arrival);
    sim_touch(s, pe);
    dmsg_status st = dmsg_shm_signal(tp, pe, roff, value, add);
    dmsg_sim_order_publish(s);
    return st;
}

dmsg_status dmsg_sim_word_wait(dmsg_tp *tp, dmsg_tp_ready_fn ready, const void *arg, int once)
{
    sim_state *s = tp->priv;
    dmsg_status st;
    if (!s->sched)
        st = once ? DMSG_OK : dmsg_shm_word_wait(tp, ready, arg, 0);
    else if (!once)
        st = dmsg_sim_sched_block(s, SIM_PARK_DATA, ready, arg);
    else
        st = ready(arg) ? DMSG_OK : dmsg_sim_sched_pause(s, SIM_PARK_DATA); /* a test that failed */
    /* A test that finds the condition met takes the clock along too. */
    if (!st && (!once || ready(arg)))
        sim_advance_to(s, bitsd(atomic_load(&dmsg_sim_log_of(s, s->tp->rank)->wstamp)), SIM_T_CTRWAIT);
    dmsg_sim_order_publish(s);
    return st;
}
