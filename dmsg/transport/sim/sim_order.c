/* Ordered delivery on the simulated machines (sim.h, sim_order_*).
 *
 * The PEs run in host time, so a message can land in host time after one
 * that arrives later in virtual time. A layer that serves whatever messages
 * it finds (RRMSG's protocol engine) then serves them in host order, and
 * a long piece of work done for a message that arrived late (a response:
 * a whole data transfer) delays the messages that arrived earlier. To serve
 * in virtual-time order a PE must know when no earlier message can still
 * come: conservative parallel discrete-event simulation.
 *
 * The bound. Every PE keeps in its log's header (shared memory) `lb`, a
 * lower bound of its clock at its next deposit:
 * - running: its clock (published after each op, so never above a deposit
 *   whose arrival is not yet logged at its target);
 * - blocked in an await: the time that await can end at (the n-th earliest
 *   logged arrival on the counter, infinite if fewer are logged), which
 *   every deposit on that counter recomputes (it can only fall), under the
 *   target's log lock and before the count releases it;
 * - in an order wait: the time it waits for, lowered by any deposit;
 * - in a collective: infinite, since it issues nothing before every PE has
 *   entered it, and all leave it with the same clock: a reader that has
 *   left it already takes that clock instead (the collective word says
 *   which collective a PE is in, if any).
 * No deposit not yet counted at a PE can then arrive there before the
 * horizon: the least bound of the other PEs plus the latency.
 *
 * Consistency. The bounds are read one after the other, not at one instant.
 * A bound only rises, except when a deposit lowers it; each lowering is
 * followed by an increment of a job-wide epoch, before the depositing PE's
 * own bound may rise past the deposit's issue time. A reader that sees the
 * same epoch before and after its pass therefore has a minimum no higher
 * than the true one at the end of the pass (a lowering it missed finished
 * after that, and the depositor's bound it read was still at most the
 * deposit's issue time).
 *
 * Progress. The PE with the least bound can always go on: if it waits for
 * time t, its bound is t and the horizon it sees is at least t plus the
 * latency. Horizons rise without a message, so an order wait registers the
 * bound it needs the others to reach (`thr`, and the job-wide least of
 * them, `want`); a PE whose bound rises across `want` wakes the waits it
 * may have released. Every wait also re-checks after a slice, so a lost
 * wake-up costs time, not a hang. */
#include <limits.h>
#include <linux/futex.h>
#include <math.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "dmsg/base/clock.h"
#include "dmsg/transport/sim/sim.h"

/* Longest sleep of an order wait between two looks at the horizon. */
#define SIM_ORDER_SLICE_NS 20000000L

/* Lowers the job-wide least threshold to thr (stored complemented, so that
 * the zeroed region means none and a lower threshold is a larger word). */
static void want_min(sim_log *l0, uint64_t thr)
{
    uint64_t want = ~thr, have = atomic_load(&l0->want);
    while (have < want && !atomic_compare_exchange_weak(&l0->want, &have, want))
        ;
}

void dmsg_sim_order_wake(sim_log *l)
{
    if (atomic_load(&l->sleepers))
        syscall(SYS_futex, (uint32_t *)&l->inbox, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* Wakes the order waits (of PEs other than this one) that can go on now,
 * of those whose threshold is at most nb, and registers the others' in
 * `want` afresh. A wait can go on only once every other PE's bound is at
 * its threshold, so only those are woken: the least and the second least
 * bound of all PEs give each waiter the least of the others'. That plain
 * least is never below what the waiter's own look (bound_of, which can
 * only lower a bound) will find, so a waiter left asleep could not have
 * gone on; it stays registered in `want`, and the next rise across it
 * looks again. Before, every waiter whose threshold the rising PE had
 * passed was woken, to find mostly that another PE was still below it. */
static void look(sim_state *s, uint64_t nb)
{
    sim_log *l0 = dmsg_sim_log_of(s, 0);
    sim_job_words *j = sim_job(s);
    atomic_store(&l0->want, 0);
    uint64_t lo = UINT64_MAX, lo2 = UINT64_MAX;
    int lo_pe = -1;
    for (int p = 0; p < s->tp->npes; p++) {
        uint64_t b = atomic_load(&j->bound[p].lb);
        if (b < lo)
            lo2 = lo, lo = b, lo_pe = p;
        else if (b < lo2)
            lo2 = b;
    }
    for (int p = 0; p < s->tp->npes; p++) {
        if (p == s->tp->rank || !atomic_load(&j->ordwait[p]))
            continue;
        uint64_t thr = atomic_load(&j->thr[p]);
        if (thr <= nb && thr <= (p == lo_pe ? lo2 : lo)) {
            sim_log *l = dmsg_sim_log_of(s, p);
            atomic_fetch_add(&l->inbox, 1);
            dmsg_sim_order_wake(l);
            dmsg_sim_sched_poke_why(s, p, SIM_PARK_ORDER);
        } else {
            want_min(l0, thr);
        }
    }
}

/* This PE's bound rose from ob to nb (bits): it may have been the last to
 * reach the least registered threshold. */
static void raised(sim_state *s, uint64_t ob, uint64_t nb)
{
    uint64_t w = atomic_load(&dmsg_sim_log_of(s, 0)->want);
    if (w && ob < ~w && nb >= ~w)
        look(s, nb);
}

/* This PE's order wait ends, with threshold `mine`. Where that was the
 * least registered one, `want` must rise to the least of the waits left,
 * and those waits may already be able to go on: a bound that rose across
 * their thresholds while this lower one was registered did not cross
 * `want`, so it woke nobody. Without this look `want` kept the threshold
 * of a wait long gone, no rise crossed it again, and the order waits went
 * on only when the scheduler found nobody ready and readied every parked
 * PE (a sweep): at 128 PEs RRMSG's FFT 512^2 parked 653,073 times in order
 * waits, and 694,784 wake-ups came from sweeps, one from a rise. */
static void want_leave(sim_state *s, uint64_t mine)
{
    uint64_t w = atomic_load(&dmsg_sim_log_of(s, 0)->want);
    if (w && ~w >= mine)
        look(s, UINT64_MAX);
}

/* Sets this PE's bound; returns nothing, wakes what a rise may release. */
static void set_bound(sim_state *s, double b)
{
    uint64_t nb = dbits(b), ob = atomic_exchange(&sim_bound(s, s->tp->rank)->lb, nb);
    if (ob < nb)
        raised(s, ob, nb);
}

void dmsg_sim_order_publish(sim_state *s)
{
    set_bound(s, s->clock);
}

void dmsg_sim_order_block(sim_state *s, uint32_t slot, int bytes_mode, uint64_t n)
{
    sim_log *l = dmsg_sim_log_of(s, s->tp->rank);
    dmsg_sim_log_lock(l);
    l->blk_bytes = (uint32_t)bytes_mode;
    l->blk_n = n;
    l->blk_clock = s->clock;
    atomic_store(&l->wait, slot + 1);
    uint64_t nb = dbits(dmsg_sim_log_bound(s, s->tp->rank, slot));
    uint64_t ob = atomic_exchange(&sim_bound(s, s->tp->rank)->lb, nb);
    dmsg_sim_log_unlock(l);
    if (ob < nb)
        raised(s, ob, nb);
}

void dmsg_sim_order_unblock(sim_state *s)
{
    sim_log *l = dmsg_sim_log_of(s, s->tp->rank);
    dmsg_sim_log_lock(l);
    atomic_store(&l->wait, SIM_WAIT_NONE);
    dmsg_sim_log_unlock(l);
}

/* The collective word: twice the collectives left, plus one while inside
 * one. It changes only around the bound's change to and from infinity. */
void dmsg_sim_order_coll_enter(sim_state *s)
{
    atomic_store(&sim_bound(s, s->tp->rank)->colls, 2 * s->colls + 1);
    set_bound(s, INFINITY);
}

void dmsg_sim_order_coll_leave(sim_state *s)
{
    sim_pe_bound *l = sim_bound(s, s->tp->rank);
    s->colls++;
    s->coll_time = s->clock;
    atomic_store(&l->lb, dbits(s->clock));
    atomic_store(&l->colls, 2 * s->colls);
}

/* PE p's bound as this PE may use it: a PE inside a collective that this
 * PE has left leaves it with the clock this PE left it with. */
static double bound_of(sim_state *s, sim_pe_bound *l)
{
    for (;;) {
        uint64_t c = atomic_load(&l->colls);
        double v = bitsd(atomic_load(&l->lb));
        if (atomic_load(&l->colls) != c)
            continue; /* it entered or left meanwhile */
        if ((c & 1) && (c + 1) / 2 <= s->colls)
            v = v < s->coll_time ? v : s->coll_time;
        return v;
    }
}

double dmsg_sim_order_horizon(sim_state *s)
{
    sim_log *l0 = dmsg_sim_log_of(s, 0);
    /* What the caller looks at after this it has seen (dmsg_sim_log_next). */
    s->mark = atomic_load(&dmsg_sim_log_of(s, s->tp->rank)->adds);
    for (;;) {
        uint64_t e = atomic_load(&l0->epoch);
        double m = INFINITY;
        for (int p = 0; p < s->tp->npes; p++)
            if (p != s->tp->rank) {
                double v = bound_of(s, sim_bound(s, p));
                m = v < m ? v : m;
            }
        if (atomic_load(&l0->epoch) == e)
            return m + dmsg_sim_cost_latency(s);
    }
}

dmsg_status dmsg_sim_order_wait(dmsg_tp *tp, double t)
{
    sim_state *s = tp->priv;
    sim_log *l = dmsg_sim_log_of(s, s->tp->rank), *l0 = dmsg_sim_log_of(s, 0);
    sim_pe_bound *mine = sim_bound(s, s->tp->rank);
    sim_job_words *j = sim_job(s);
    double lat = dmsg_sim_cost_latency(s);
    dmsg_status st = DMSG_OK;
    sim_acted(s); /* a PE that waits is not polling (sim_ctr_read) */
    dmsg_sim_log_lock(l);
    atomic_store(&l->wait, SIM_WAIT_ANY);
    /* No threshold until it registers one (a wait whose bound is infinite
     * never does: only a deposit, which pokes it, can end it). */
    atomic_store(&j->thr[s->tp->rank], UINT64_MAX);
    atomic_store(&j->ordwait[s->tp->rank], 1);
    uint64_t nb = dbits(dmsg_sim_log_next(s, s->clock, t, s->mark));
    uint64_t ob = atomic_exchange(&mine->lb, nb);
    dmsg_sim_log_unlock(l);
    if (ob < nb)
        raised(s, ob, nb);
    /* The wait policy's deadline and abort flag; it sleeps at once (a look
     * writes its bound to shared words, so it is no cheap poll to spin on). */
    dmsg_wait_policy pol = *s->shm.wait;
    pol.spin = 0;
    pol.yield_s = 0;
    dmsg_waiter w;
    dmsg_waiter_start(&w, &pol);
    for (;;) {
        uint32_t v = atomic_load(&l->inbox);
        double b = bitsd(atomic_load(&mine->lb));
        if (!isinf(b)) {
            /* Register before the look: a PE that rises after it wakes us. */
            uint64_t thr = dbits(fmax(0, b - lat));
            atomic_store(&j->thr[s->tp->rank], thr);
            want_min(l0, thr);
            if (dmsg_sim_order_horizon(s) >= b) {
                if (s->sched)
                    atomic_store(&sim_job(s)->idle, 0); /* a blocked PE went on */
                break;
            }
        }
        dmsg_wait_act act = dmsg_waiter_next(&w);
        if (act == DMSG_WAIT_TIMEOUT || act == DMSG_WAIT_ABORTED) {
            st = dmsg_waiter_fail(&w, act, "the simulated order's horizon");
            break;
        }
        if (s->sched) {
            /* Others run until a deposit or a rising bound pokes this PE. */
            if ((st = dmsg_sim_sched_pause(s, SIM_PARK_ORDER)))
                break;
            continue;
        }
        atomic_fetch_add(&l->sleepers, 1);
        struct timespec ts = {0, SIM_ORDER_SLICE_NS};
        if (atomic_load(&l->inbox) == v)
            syscall(SYS_futex, (uint32_t *)&l->inbox, FUTEX_WAIT, v, &ts, NULL, 0);
        atomic_fetch_sub(&l->sleepers, 1);
    }
    dmsg_sim_log_lock(l);
    atomic_store(&l->wait, SIM_WAIT_NONE);
    atomic_store(&j->ordwait[s->tp->rank], 0);
    double b = bitsd(atomic_load(&mine->lb));
    s->mark = atomic_load(&l->adds); /* the bound took every record so far */
    dmsg_sim_log_unlock(l);
    want_leave(s, atomic_load(&j->thr[s->tp->rank]));
    /* The PE wakes at its bound: the earliest of t and the arrivals counted
     * meanwhile, none of which the horizon leaves open. */
    if (!st && b > s->clock) {
        s->t[SIM_T_SYNC] += b - s->clock;
        s->clock = b;
    }
    dmsg_sim_order_publish(s);
    return st;
}
