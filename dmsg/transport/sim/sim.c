/* The sim transport's ops: shm moves the data, this file keeps the clocks.
 *
 * Rules that keep virtual time causal and deterministic:
 * - a deposit's arrival time is fixed by the sender's clock when it is issued;
 *   the target keeps the arrival of every counted deposit (sim_arrive.c), and
 *   an await for k messages moves the waiting PE's clock to the k-th earliest
 *   arrival not yet taken (never backwards);
 * - a barrier moves every clock to the latest clock or pending arrival of any
 *   PE plus the barrier's cost, so nothing issued before it completes after it;
 * - no clock ever depends on host timing, provided each await consumes all the
 *   deposits that can have arrived on its counter by then (true of
 *   well-synchronized programs: see docs/simulator.md);
 * - every op ends by publishing the PE's clock as the bound of its next
 *   deposit, and waits publish what they wait for (sim_order.c), so that a
 *   layer can act on arrivals in virtual-time order (vtime: horizon, order_wait). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dmsg/transport/sim/sim.h"


static const dmsg_env_choice mechs[] = {
    {"auto", DMSG_MECH_AUTO}, {"packed", DMSG_MECH_PACKED}, {"chained", DMSG_MECH_CHAINED}};
static const dmsg_env_choice fetches[] = {{"auto", SIM_FETCH_AUTO},
                                          {"blocking", SIM_FETCH_BLOCKING},
                                          {"pipelined", SIM_FETCH_PIPELINED},
                                          {"vector", SIM_FETCH_VECTOR}};

/* Settings the machine cannot honour stop the job at dmsg_init, naming the
 * setting: a forced mechanism or fetch strategy the hardware lacks, or a
 * congestion factor outside the model (below 1 a network would move more
 * than its links carry; 0.5 used to make transfers free). */
static dmsg_status sim_check_settings(const sim_settings *cfg, const dmsg_machine *m)
{
    const char *why = NULL, *var = NULL, *val = NULL;
    char num[32];
    if (!strcmp(cfg->mech, "chained") && !(m->mechanisms & DMSG_MECH_CHAINED))
        var = "DMSG_SIM_MECH", val = cfg->mech, why = "moves contiguous blocks only";
    else if (!strcmp(cfg->mech, "packed") && !(m->mechanisms & DMSG_MECH_PACKED))
        var = "DMSG_SIM_MECH", val = cfg->mech, why = "has no buffer packing";
    else if (!strcmp(cfg->fetch, "pipelined") && !(m->pf_window > 0))
        var = "DMSG_SIM_FETCH", val = cfg->fetch, why = "has no prefetch (prefetch.* keys)";
    else if (!strcmp(cfg->fetch, "vector") && !(m->vec_len > 1))
        var = "DMSG_SIM_FETCH", val = cfg->fetch, why = "has no vector commands (vector.*)";
    else if (cfg->congestion != 0 &&
             !(cfg->congestion >= 1 && cfg->congestion <= DMSG_MACH_MAX_CONGESTION)) {
        snprintf(num, sizeof num, "%g", cfg->congestion);
        var = "DMSG_SIM_CONGESTION", val = num;
        why = "needs an average congestion factor from 1 to 1024 (0: the machine's typical "
              "value)";
    }
    if (!why)
        return DMSG_OK;
    /* The detail says it (dmsgrun prints it once for the job). */
    return DMSG_FAIL(DMSG_ERR_ENV, "%s=%s: machine %s %s", var, val, m->name, why);
}

static dmsg_status sim_init(dmsg_tp *tp, dmsg_boot *boot)
{
    int mech, fetch;
    dmsg_status st;
    sim_state *s = calloc(1, sizeof *s);
    if (!s)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "sim state");
    if ((st = dmsg_env_load(&dmsg_sim_env_table, &s->set)) ||
        (st = dmsg_env_choose("DMSG_SIM_MECH", s->set.mech, mechs, 3, &mech)) ||
        (st = dmsg_env_choose("DMSG_SIM_FETCH", s->set.fetch, fetches, 4, &fetch)))
        goto err_free;
    if (dmsg_machine_load(s->set.machine, &s->m)) {
        /* A bad machine file stops the job: the detail names it. */
        st = DMSG_FAIL(DMSG_ERR_ENV, "DMSG_MACHINE=%s: %s", s->set.machine, dmsg_last_error());
        goto err_free;
    }
    s->mech = (dmsg_mech)mech;
    s->fetch = (sim_fetch)fetch;
    if ((st = sim_check_settings(&s->set, &s->m)))
        goto err_free;
    s->congestion = s->set.congestion > 0 ? s->set.congestion : s->m.congestion;
    s->partner = -1;
    s->tp = tp;
    st = dmsg_shm_join(tp, &s->shm, boot);
    if (st)
        goto err_free;
    s->sched = s->set.sched;
    if (s->set.topology && (st = dmsg_sim_topo_init(s))) {
        dmsg_shm_leave(tp, &s->shm);
        goto err_free;
    }
    if (s->sched && (st = dmsg_sim_sched_start(tp, s))) {
        dmsg_sim_topo_fini(s);
        dmsg_shm_leave(tp, &s->shm);
        goto err_free;
    }
    return DMSG_OK;

err_free:
    free(s);
    return st;
}

static void sim_finalize(dmsg_tp *tp)
{
    sim_state *s = tp->priv;
    dmsg_sim_sched_stop(s);
    dmsg_sim_topo_fini(s);
    dmsg_shm_leave(tp, &s->shm);
    free(s->picks);
    free(s->tal);
    free(s->runs);
    free(s);
}

/* Every clock moves to the latest of the values the PEs bring (plus cost);
 * between the two, the PE is in a collective for the ordered delivery. */
static dmsg_status clock_collective(dmsg_tp *tp, double mine, double cost, const void *in,
                                    size_t len, void *all)
{
    sim_state *s = tp->priv;
    sim_job_words *a = sim_job(s);
    int row = (int)(s->barriers++ & 1);
    a->clock[row][tp->rank] = dbits(mine);
    dmsg_sim_order_coll_enter(s);
    dmsg_status st = in ? dmsg_sim_coll_allgather(tp, in, len, all) : dmsg_sim_coll_barrier(tp);
    double t = 0;
    for (int p = 0; !st && p < tp->npes; p++)
        t = fmax(t, bitsd(a->clock[row][p]));
    if (!st)
        sim_advance_to(s, t + cost, SIM_T_SYNC);
    dmsg_sim_order_coll_leave(s);
    return st;
}

static dmsg_status sim_barrier(dmsg_tp *tp)
{
    sim_state *s = tp->priv;
    return clock_collective(tp, fmax(s->clock, s->pending), dmsg_sim_cost_barrier(s, tp->npes), NULL,
                            0, NULL);
}

/* The collective checks (counter creation, allocation) cost no virtual time
 * but synchronize: every clock leaves them at the latest one. */
static dmsg_status sim_allgather(dmsg_tp *tp, const void *mine, size_t len, void *all)
{
    sim_state *s = tp->priv;
    return clock_collective(tp, s->clock, 0, mine, len, all);
}

static dmsg_status sim_quiet(dmsg_tp *tp)
{
    sim_state *s = tp->priv;
    sim_advance_to(s, s->pending, SIM_T_SYNC);
    dmsg_sim_order_publish(s);
    if (dmsg_sim_engine_drain(s)) /* complete: nothing left in the engine's ring */
        return DMSG_FAIL(DMSG_ERR_ABORTED, "the launcher is tearing the job down");
    return dmsg_shm_quiet(tp);
}

/* Books a transfer on the clock before its data moves; returns the time
 * at which it completes (the arrival of a deposit, the data of a fetch). */
static double account(dmsg_tp *tp, const dmsg_op *op, int nonblocking)
{
    sim_state *s = tp->priv;
    sim_transfer tx, *x = &tx;
    sim_acted(s);
    dmsg_sim_describe(op, x);
    x->nonblocking = nonblocking;
    if (x->pe != s->partner && x->pe != tp->rank) {
        sim_charge(s, s->m.partner_us * 1e-6, SIM_T_TRANSFER);
        s->partner = x->pe;
    }
    if (!x->get) {
        int routed = s->topo && x->pe != tp->rank;
        double t0 = s->clock;
        if (routed && (s->topo_st = dmsg_sim_topo_enter(s, x->pe)))
            routed = 0;
        double copy, busy = dmsg_sim_cost_deposit(s, x, &copy);
        sim_charge(s, copy, SIM_T_COPY);
        sim_charge(s, busy - copy, SIM_T_TRANSFER);
        if (routed)
            dmsg_sim_topo_leave(s, t0, s->clock, x->bytes);
        s->last_arrival = s->clock + (x->pe == tp->rank ? 0 : dmsg_sim_cost_latency(s));
        s->pending = fmax(s->pending, s->last_arrival);
        return s->last_arrival;
    }
    double issue, total = dmsg_sim_cost_fetch(s, x, &issue);
    double done = s->clock + total;
    if (x->nonblocking) {
        sim_charge(s, issue, SIM_T_FETCH);
        return done;
    }
    sim_advance_to(s, done, SIM_T_FETCH);
    return done;
}

static dmsg_status sim_put(dmsg_tp *tp, const dmsg_op *op, uint32_t slot)
{
    sim_state *s = tp->priv;
    account(tp, op, 0);
    if (s->topo_st) /* its turn never came: DMSG_TIMEOUT (detail set) */
        return s->topo_st;
    dmsg_sim_word_stamp(s, op->pe, s->last_arrival);
    int remote = op->pe != tp->rank;
    if (remote && s->file && dmsg_sim_file_put(s, op)) {
        sim_job(s)->file_puts++;
    } else {
        sim_touch(s, op->pe);
        dmsg_copy_op(op, shm_remote(&s->shm, op), &s->shm.xp);
        if (remote)
            sim_job(s)->map_puts++;
    }
    if (slot != UINT32_MAX) {
        /* The arrival is recorded with the count (which releases it). */
        dmsg_sim_log_add(tp, op->pe, slot, s->last_arrival, op->payload);
    }
    /* A point-to-point wait may watch the words: free-running, it sleeps on
     * shm's doorbell; under the scheduler it is parked (dmsg_sim_word_wait),
     * never on the bell, and the stamp above poked it. The bell is at the
     * end of the target's control area: a page of its own, a fault per
     * deposit after each of the scheduler's drops (sim_sched.c). */
    if (!sim_sched_on(s))
        shm_ring(&s->shm, op->pe);
    /* Only now may this PE's bound pass the deposit's issue time. */
    dmsg_sim_order_publish(s);
    return DMSG_OK;
}

static dmsg_status sim_get(dmsg_tp *tp, const dmsg_op *op)
{
    sim_state *s = tp->priv;
    account(tp, op, 0);
    sim_touch(s, op->pe); /* fetches read through the mapping */
    dmsg_copy_op(op, shm_remote(&s->shm, op), &s->shm.xp);
    dmsg_sim_order_publish(s);
    return DMSG_OK;
}

/* The data is in place at once; the clock learns when it would have been,
 * kept in the request (req->seq is the transport's) until it is tested. */
static dmsg_status sim_get_nb(dmsg_tp *tp, const dmsg_op *op, dmsg_req *req)
{
    sim_state *s = tp->priv;
    req->seq = dbits(account(tp, op, 1));
    sim_touch(s, op->pe);
    dmsg_copy_op(op, shm_remote(&s->shm, op), &s->shm.xp);
    dmsg_sim_order_publish(s);
    return DMSG_OK;
}

static dmsg_status sim_req_test(dmsg_tp *tp, dmsg_req *req, int *done)
{
    sim_advance_to(tp->priv, bitsd(req->seq), SIM_T_FETCH);
    dmsg_sim_order_publish(tp->priv);
    *done = 1;
    return DMSG_OK;
}

static dmsg_status sim_work(dmsg_tp *tp, const dmsg_work *w)
{
    int k;
    double dt = dmsg_sim_cost_work(tp->priv, w, &k);
    if (dt < 0)
        return DMSG_FAIL(DMSG_ERR_ARG, "modelled work of kind %d", (int)w->kind);
    sim_charge(tp->priv, dt, k);
    dmsg_sim_order_publish(tp->priv);
    return DMSG_OK;
}

/* An await's condition, for the scheduler. */
typedef struct ctr_need {
    dmsg_tp *tp;
    uint32_t slot;
    int on_bytes;
    uint64_t n;
} ctr_need;

static int ctr_there(const void *arg)
{
    const ctr_need *w = arg;
    uint64_t msgs, bytes;
    dmsg_sim_count_fold(w->tp->priv);
    dmsg_shm_ctr_read(w->tp, w->slot, &msgs, &bytes);
    return (w->on_bytes ? bytes : msgs) >= w->n;
}

static dmsg_status sim_ctr_wait(dmsg_tp *tp, uint32_t slot, int bytes_mode, uint64_t n)
{
    sim_state *s = tp->priv;
    int on_bytes = bytes_mode == SIM_TAKE_BYTES;
    ctr_need need = {tp, slot, on_bytes, n};
    int blocks = !ctr_there(&need);
    sim_acted(s); /* a PE that awaits is not polling (sim_ctr_read) */
    if (blocks)
        dmsg_sim_order_block(s, slot, bytes_mode, n);
    /* Under the scheduler the others run until the count is there; shm's
     * wait then only takes it. */
    dmsg_status st = blocks && s->sched ? dmsg_sim_sched_block(s, SIM_PARK_DATA, ctr_there, &need)
                                        : DMSG_OK;
    if (!st)
        st = dmsg_shm_ctr_wait(tp, slot, on_bytes, n);
    if (blocks)
        dmsg_sim_order_unblock(s);
    if (!st)
        sim_advance_to(s, dmsg_sim_log_take(s, slot, bytes_mode, n), SIM_T_CTRWAIT);
    dmsg_sim_order_publish(s);
    return st;
}

/* A counter read is how every poll looks for news (postal's nrecv and probe
 * walk every partner's counter; a program may read one in a loop): under
 * the scheduler a read that finds nothing new is a hand-over point, else a
 * PE that polls for something another PE has still to send would never let
 * that PE run. "Nothing new": no update (deposit, atomic, signal) has
 * reached this PE since its last read (its log's `news`; not the arrival
 * log's record number, which stops while the log is full), and this PE has not
 * communicated since (a deposit, fetch, atomic or signal: a PE that sends
 * is not polling). Modelled work between the reads (the matching every
 * fruitless nrecv books) does not count: before, it reset the count, and a
 * polling PE never handed over. Nor does an await (a PE that blocks is
 * not polling). The PE pauses once its fruitless reads outnumber two looks
 * at every partner's counter (postal's progress reads one per partner:
 * a blocking receive makes one fruitless pass and then awaits its bell,
 * so only a program's poll loop gets there) plus a few. */
static dmsg_status sim_ctr_read(dmsg_tp *tp, uint32_t slot, uint64_t *msgs, uint64_t *bytes)
{
    sim_state *s = tp->priv;
    if (s->sched) {
        uint32_t news = atomic_load(&dmsg_sim_log_of(s, s->tp->rank)->news);
        if (news != s->seen_news) {
            s->seen_news = news;
            s->polls = 0;
        } else if (++s->polls > 2 * (uint32_t)s->tp->npes + SIM_POLL_SLACK) {
            s->polls = 0;
            dmsg_status st = dmsg_sim_sched_pause(s, SIM_PARK_POLL);
            if (st)
                return st;
        }
    }
    dmsg_sim_count_fold(s);
    return dmsg_shm_ctr_read(tp, slot, msgs, bytes);
}

static dmsg_status sim_ctr_reset(dmsg_tp *tp, uint32_t slot)
{
    dmsg_sim_count_fold(tp->priv); /* counts before the reset are reset too */
    dmsg_sim_log_reset(tp->priv, slot);
    return dmsg_shm_ctr_reset(tp, slot);
}

static void sim_times(dmsg_tp *tp, dmsg_times *t)
{
    sim_state *s = tp->priv;
    *t = (dmsg_times){.total = s->clock, .transfer = s->t[SIM_T_TRANSFER],
                      .copy = s->t[SIM_T_COPY], .sync = s->t[SIM_T_SYNC],
                      .ctr_wait = s->t[SIM_T_CTRWAIT], .fetch_wait = s->t[SIM_T_FETCH]};
}

static dmsg_status sim_ctr_due(dmsg_tp *tp, uint32_t slot, int bytes_mode, uint64_t n,
                               double *t)
{
    sim_state *s = tp->priv;
    sim_log *l = dmsg_sim_log_of(s, s->tp->rank);
    int covered;
    dmsg_sim_log_lock(l);
    *t = dmsg_sim_log_due(s, s->tp->rank, slot, bytes_mode, n, &covered);
    dmsg_sim_log_unlock(l);
    return DMSG_OK;
}

/* A layer that looks at the horizon serves its arrivals in virtual-time
 * order and, when nothing is due, ends in an order wait (RRMSG's engine):
 * it is not polling, so its counter reads start a new count (sim_ctr_read).
 * Each of its looks reads every partner's channel and data counter, two
 * reads a partner, and two looks without news got past the poll threshold:
 * the PE then parked as a poll, with its bound at its clock, where it held
 * back every order wait and went on only once nobody was ready and every
 * parked PE was readied (at 128 PEs, RRMSG's FFT 512^2: 6,530 such sweeps). */
static double sim_horizon(dmsg_tp *tp)
{
    sim_acted(tp->priv);
    return dmsg_sim_order_horizon(tp->priv);
}

static double sim_wtime(dmsg_tp *tp)
{
    return ((sim_state *)tp->priv)->clock;
}

static const char *sim_machine(dmsg_tp *tp)
{
    return ((sim_state *)tp->priv)->set.machine;
}

static dmsg_status sim_ctr_wait_empty(dmsg_tp *tp, uint32_t slot, uint64_t n)
{
    return sim_ctr_wait(tp, slot, SIM_TAKE_EMPTY, n);
}

/* Virtual time, the extension only the simulator offers (transport.h). */
static const dmsg_tp_vtime_ops sim_vtime = {
    .wtime = sim_wtime,
    .times = sim_times,
    .work = sim_work,
    .machine = sim_machine,
    .ctr_due = sim_ctr_due,
    .ctr_wait_empty = sim_ctr_wait_empty,
    .horizon = sim_horizon,
    .order_wait = dmsg_sim_order_wait,
};

static const void *sim_ext(const char *name)
{
    return strcmp(name, DMSG_TP_EXT_VTIME) == 0 ? &sim_vtime : NULL;
}

/* Every PE reads the same setting, so the report's collective steps match. */
static void sim_finalize_report(dmsg_tp *tp)
{
    if (((sim_state *)tp->priv)->set.report)
        dmsg_sim_report(tp);
    sim_finalize(tp);
}

const dmsg_tp_ops dmsg_tp_sim_ops = {
    .name = "sim",
    .settings = &dmsg_sim_env_table,
    .init = sim_init,
    .finalize = sim_finalize_report,
    .barrier = sim_barrier,
    .quiet = sim_quiet,
    .allgather = sim_allgather,
    .ctr_reset = sim_ctr_reset,
    .ctr_wait = sim_ctr_wait,
    .ctr_read = sim_ctr_read,
    .put = sim_put,
    .get = sim_get,
    .get_nb = sim_get_nb,
    .req_test = sim_req_test,
    .amo = dmsg_sim_amo,
    .signal = dmsg_sim_signal,
    .word_wait = dmsg_sim_word_wait,
    /* shm's, and virtual time; the data moves as on shm, the cost by the
     * mechanism DMSG_SIM_MECH asks for. */
    .caps = DMSG_TP_CAP_PUT_DONE | DMSG_TP_CAP_ORDERED | DMSG_TP_CAP_ASYNC |
            DMSG_TP_CAP_REMOTE_CTR | DMSG_TP_CAP_AMO4 | DMSG_TP_CAP_AMO8 | DMSG_TP_CAP_SIGNAL |
            DMSG_TP_CAP_WORD_WAIT | DMSG_TP_CAP_PACK_MECH | DMSG_TP_CAP_VTIME,
    .ext = sim_ext,
    .seg_alias = dmsg_shm_seg_alias,
};
