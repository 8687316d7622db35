/* The simulator's scheduler (sim.h, sim_sched_*): every simulated PE stays a
 * process (a PE program's globals stay its own), but only one of them runs
 * at a time.
 *
 * Why. With hundreds of PE processes on a few cores, free-running PEs spend
 * the host's time spinning, yielding and waking each other (a barrier of
 * 512 processes is 512 wake-ups on a futex, each PE's wait a spin first),
 * and whatever a layer does in host order (postal's progress: which queued
 * messages a PE finds before it waits) differs from run to run. Under the
 * scheduler a PE runs until it blocks (an await whose count is not there,
 * a collective, an order wait, a point-to-point wait, a poll that found
 * nothing); it then hands the run token to the PE with the least virtual
 * clock among those that can go on (ties: the lower rank) and sleeps on its
 * own futex word. The run is a deterministic function of the program: the
 * same interleaving on every run, whatever the host's load.
 *
 * Who can go on. A PE that blocks re-checks its condition and, when it does
 * not hold, parks (SIM_S_PARKED, with what it waits for). Whatever may make
 * it hold makes it ready again: an update to its words (every deposit,
 * atomic and signal stamps its target: dmsg_sim_word_stamp), the last
 * arrival at a collective, and, for an order wait, another PE's bound rising
 * across its threshold (sim_order.c). A ready PE re-checks when it runs; so
 * a spurious poke costs a hand-off, never a wrong result. If no PE is ready
 * while some are parked, every parked PE is made ready once (a sweep: what
 * a lost poke would cost); a third sweep without a PE going on in
 * between (a blocked PE whose condition holds, or one that polls) is a
 * deadlock of the program, and the job waits for DMSG_TIMEOUT as it would
 * without the scheduler.
 *
 * Only one process touches the scheduler's words at a time (the holder of
 * the token), except at the start and at the end, so plain atomics suffice;
 * the hand-off (a seq_cst store and a futex wake) orders everything the
 * previous holder wrote before everything the next one reads.
 *
 * What a program must not do under it: wait for another PE by spinning on
 * memory (a flag in the symmetric heap) without a dmsg call that can block:
 * the other PE never runs. dmsg_wait_until, dmsg_await, dmsg_test and
 * counter reads in a loop (a poll that finds nothing hands over:
 * sim_ctr_read) are fine. */
#include <limits.h>
#include <linux/futex.h>
#include <linux/magic.h>
#include <math.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>
#include "dmsg/base/clock.h"
#include "dmsg/transport/sim/sim.h"

/* A sleeper is woken when it is handed the token, when its DMSG_TIMEOUT
 * deadline comes (it wakes by itself then), and when the job is aborted
 * (wake_all). Besides, a sleeper looks at the abort flag and the launcher's
 * life pipe by itself now and then (a PE that left dmsgrun's process group
 * learns of the launcher's death only so). One sleeper at a time, the
 * watch (sim_job_words.watch: the first PE to fall asleep while nobody
 * watches), looks every SIM_SCHED_WATCH_S; when it finds the launcher dead
 * it wakes every sleeper before it ends (dmsg_boot's on_launcher_death),
 * and each of them then finds the same. The others look only every
 * SIM_SCHED_SLICE_S, should the watch itself be gone. Every sleeper looking
 * by itself once a slice cost a wake-up each time: with the wait policy's
 * slice (1 ms per PE, at least 1 s here, at most 4 s) a job of 1024 PEs or
 * more woke about 1000 times a second on the host's 2 cores, two context
 * switches, a futex call and a poll each: a 1024-PE transpose 1024^2 took
 * 55.5 and 58.9 s, 49.3 and 48.0 s without them (slice 30 s; November 28,
 * 2026, this project's 2-core host). */
#define SIM_SCHED_WATCH_S 0.5
#define SIM_SCHED_SLICE_S 30.0

/* A PE whose deposits go through the file drops the others' pages only
 * after a run that touched them through the mapping, and at every
 * SIM_DROP_ANYWAY-th hand-off besides (drop_others). */
#define SIM_DROP_ANYWAY 256u

/* PE pe's futex word (in the job area: a hand-off maps no page of pe). */
static _Atomic uint32_t *go_of(sim_state *s, int pe)
{
    return &sim_job(s)->go[pe];
}

/* PE p's state becomes st; the ready queue follows (the token's holder
 * calls it, or a PE that takes the token nobody holds). The queue first,
 * the state last: a PE handed the token runs as soon as it sees its state
 * RUN (a sleeper also looks when its futex wait's slice ends, without a
 * wake-up), and then it uses the queue itself. With the state first, a PE
 * that looked between the two began to run while its hand-off was still
 * taking it out of the queue: the heap kept it, it picked itself for ever
 * (a 512-PE RRMSG run spun so after 1.68 million hand-offs). */
static void set_state(sim_state *s, int p, uint32_t st)
{
    sim_job_words *j = sim_job(s);
    uint32_t old = atomic_load(&j->state[p]);
    if (old == SIM_S_READY && st != SIM_S_READY)
        dmsg_sim_queue_remove(j, p);
    else if (old != SIM_S_READY && st == SIM_S_READY)
        dmsg_sim_queue_push(j, p);
    atomic_store(&j->state[p], st);
}

/* Hands the token to PE p (another PE). */
static void hand_to(sim_state *s, int p)
{
    _Atomic uint32_t *go = go_of(s, p);
    atomic_store(&sim_job(s)->owner, p);
    sim_job(s)->handoffs++;
    set_state(s, p, SIM_S_RUN);
    atomic_fetch_add(go, 1);
    syscall(SYS_futex, (uint32_t *)go, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/* The ready PE with the least clock (ties: the lower rank), or -1. */
static int pick(sim_state *s)
{
    return dmsg_sim_queue_peek(sim_job(s));
}

static int ready_if_parked(sim_state *s, int pe)
{
    if (atomic_load(&sim_job(s)->state[pe]) != SIM_S_PARKED)
        return 0;
    set_state(s, pe, SIM_S_READY);
    return 1;
}

/* Makes every parked PE ready (a sweep); returns how many. */
static int sweep(sim_state *s)
{
    int n = 0;
    for (int p = 0; p < s->tp->npes; p++)
        n += ready_if_parked(s, p);
    sim_job(s)->sweeps += n > 0;
    return n;
}

/* A wait ran past DMSG_TIMEOUT; this PE holds the token and goes on (the
 * program sees the error: that is progress, not a deadlock). */
static dmsg_status timed_out(sim_state *s)
{
    atomic_store(&sim_job(s)->idle, 0);
    return DMSG_FAIL(DMSG_ERR_TIMEOUT, "waited longer than DMSG_TIMEOUT=%g s", s->shm.wait->timeout);
}

/* The job is being torn down: the first PE to see it wakes every sleeper,
 * once, so that each returns DMSG_ERR_ABORTED now rather than at the end of
 * its slice (the launcher's SIGTERM usually ends them first; a program that
 * catches it is woken here). */
static void wake_all(sim_state *s)
{
    uint32_t no = 0;
    if (!atomic_compare_exchange_strong(&sim_job(s)->abort_woken, &no, 1))
        return;
    for (int p = 0; p < s->tp->npes; p++) {
        _Atomic uint32_t *go = go_of(s, p);
        atomic_fetch_add(go, 1);
        syscall(SYS_futex, (uint32_t *)go, FUTEX_WAKE, 1, NULL, NULL, 0);
    }
}

/* Whether this sleeper is the watch (see SIM_SCHED_WATCH_S): it stays
 * the watch until it runs again (unwatch), or becomes it if nobody is. */
static int watching(sim_state *s)
{
    uint32_t me = (uint32_t)s->tp->rank + 1, none = 0;
    _Atomic uint32_t *w = &sim_job(s)->watch;
    return atomic_load(w) == me || atomic_compare_exchange_strong(w, &none, me);
}

static void unwatch(sim_state *s)
{
    uint32_t me = (uint32_t)s->tp->rank + 1;
    (void)atomic_compare_exchange_strong(&sim_job(s)->watch, &me, 0);
}

/* dmsg_boot's on_launcher_death: the PE that finds the launcher dead wakes
 * the others, which sleep long (SIM_SCHED_SLICE_S), so that each finds it
 * too now. */
static void wake_all_at_death(void *arg)
{
    wake_all(arg);
}

/* How long a sleeper waits before it looks by itself: the watch's span or
 * the others' slice (SIM_SCHED_*), or less where its deadline comes first.
 * Past the deadline, a slice again: another PE held the token then (the
 * job is busy), and this one gets it when that PE blocks, or looks again a
 * slice later. */
static struct timespec sleep_span(sim_state *s, double deadline)
{
    double span = watching(s) ? SIM_SCHED_WATCH_S : SIM_SCHED_SLICE_S;
    if (deadline) {
        double left = deadline - dmsg_clock_now();
        if (left > 0 && left + 1e-3 < span)
            span = left + 1e-3;
    }
    return dmsg_clock_span(span);
}

/* Sleeps until this PE holds the token again (or, past the deadline, takes
 * it where nobody holds it). */
static dmsg_status sleep_for_token(sim_state *s, double deadline)
{
    _Atomic uint32_t *go = go_of(s, s->tp->rank);
    _Atomic uint32_t *state = &sim_job(s)->state[s->tp->rank];
    for (;;) {
        uint32_t v = atomic_load(go);
        if (atomic_load(state) == SIM_S_RUN && atomic_load(&sim_job(s)->owner) == s->tp->rank) {
            unwatch(s);
            return DMSG_OK;
        }
        if (dmsg_boot_aborted(s->shm.boot)) {
            unwatch(s);
            wake_all(s);
            return DMSG_FAIL(DMSG_ERR_ABORTED, "the launcher is tearing the job down");
        }
        /* A wait times out only where nobody runs (a deadlock): it takes
         * the token first, so that the program goes on as the one PE that
         * runs. Where another PE holds it, the job is busy, not stuck: it
         * gets the token when that PE blocks, and sched_block looks at the
         * deadline then. */
        int32_t none = -1;
        if (deadline && dmsg_clock_now() > deadline &&
            atomic_compare_exchange_strong(&sim_job(s)->owner, &none, s->tp->rank)) {
            set_state(s, s->tp->rank, SIM_S_RUN);
            unwatch(s);
            return timed_out(s);
        }
        struct timespec ts = sleep_span(s, deadline);
        syscall(SYS_futex, (uint32_t *)go, FUTEX_WAIT, v, &ts, NULL, 0);
    }
}

/* Drops this PE's page-table entries for the other PEs' parts of the job
 * region (DMSG_SIM_DROP_PES). Every PE process maps the whole region, and
 * each 2 MiB of it that a process touches costs a page-table page: an
 * all-to-all at 4096 PEs would need about 24 MB of them per process, 100 GB
 * in all. Under the scheduler one PE runs at a time, so a PE that hands the
 * token on can let them go: the region is a MAP_SHARED memfd mapping
 * (checked in drop_setup), so the data stays in the file and a later touch
 * costs a minor fault. Never this PE's own control area and segment, never
 * the job header (the scheduler's words). Called after the token is handed
 * on: the next PE runs meanwhile, and this process touches no other PE's
 * part until it holds the token again. */
static void drop_others(sim_state *s)
{
    /* The deposit engine's process keeps the mapping it writes through. */
    if ((!s->drop_len[0] && !s->drop_len[1]) || s->engine_host)
        return;
    /* Deposits through the file (sim_file.c) map nothing of the others: a
     * run that touched no other PE's part through the mapping has nothing
     * to drop, and a call over the whole region costs about 0.4 ms at
     * 4096 PEs even then. Every SIM_DROP_ANYWAY-th hand-off drops all the
     * same, should a touch have gone unmarked. */
    if (s->file && !s->mapped && ++s->clean_yields < SIM_DROP_ANYWAY)
        return;
    for (int i = 0; i < 2; i++)
        if (s->drop_len[i])
            (void)madvise(s->drop_at[i], s->drop_len[i], MADV_DONTNEED);
    s->mapped = 0;
    s->clean_yields = 0;
    /* The next PE runs meanwhile: an atomic add. */
    atomic_fetch_add_explicit(&sim_job(s)->drops, 1, memory_order_relaxed);
}

/* Whether the mapping at addr is shared ('s' in /proc/self/maps): on a
 * private mapping MADV_DONTNEED would throw away this PE's copies of the
 * pages it wrote. */
static int mapping_is_shared(const void *addr)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return 0;
    char line[512];
    int shared = 0;
    unsigned long lo, hi;
    char perms[8];
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 && (uintptr_t)addr >= lo &&
            (uintptr_t)addr < hi) {
            shared = perms[3] == 's';
            break;
        }
    fclose(f);
    return shared;
}

/* Sets the ranges drop_others drops: only in a job of more PEs than
 * DMSG_SIM_DROP_PES, whose region has normal pages (a hugetlb region maps
 * 2 MiB pages without page-table pages, and MADV_DONTNEED there would need
 * huge-page alignment). */
static dmsg_status drop_setup(dmsg_tp *tp, sim_state *s)
{
    dmsg_job_hdr *h = s->shm.hdr;
    struct statfs fs;
    long page = sysconf(_SC_PAGESIZE);
    if ((uint32_t)tp->npes <= s->set.drop_pes)
        return DMSG_OK;
    if (fstatfs(s->shm.boot->fd, &fs) == 0 && fs.f_type == HUGETLBFS_MAGIC)
        return DMSG_OK;
    if (page <= 0 || h->pe_stride % (uint64_t)page != 0 || DMSG_JOB_HDR_BYTES % page != 0)
        return DMSG_OK; /* cannot happen: the region's parts start on pages */
    if (!mapping_is_shared(h))
        return DMSG_FAIL(DMSG_ERR_TRANSPORT,
                         "DMSG_SIM_DROP_PES=%u: the job region is not a shared mapping, dropping "
                         "its pages would lose data",
                         s->set.drop_pes);
    char *first = dmsg_job_ctl(h, 0), *mine = dmsg_job_ctl(h, tp->rank);
    s->drop_at[0] = first;
    s->drop_len[0] = (size_t)(mine - first);
    s->drop_at[1] = mine + h->pe_stride;
    s->drop_len[1] = (size_t)(tp->npes - 1 - tp->rank) * h->pe_stride;
    s->file = s->set.pwrite;
    return DMSG_OK;
}

/* This PE stops (its state already says why: ready, parked or off); the
 * token goes to the next PE, perhaps this one. Returns once this PE holds
 * it again (at once for a PE that is off). */
static dmsg_status yield_token(sim_state *s, double deadline)
{
    sim_job_words *j = sim_job(s);
    int rank = s->tp->rank;
    /* The next PE may read what the engine's ring still holds. */
    if (dmsg_sim_engine_drain(s))
        return DMSG_FAIL(DMSG_ERR_ABORTED, "the launcher is tearing the job down");
    /* Its key before it can be readied (a sweep below may ready it). */
    atomic_store(&j->sclock[rank], dbits(s->clock));
    int next = pick(s);
    if (next < 0 && sweep(s) > 0) {
        if (atomic_fetch_add(&j->idle, 1) < 2)
            next = pick(s);
    }
    if (next == rank) {
        set_state(s, rank, SIM_S_RUN);
        return DMSG_OK;
    }
    if (next >= 0)
        hand_to(s, next);
    else
        atomic_store(&j->owner, -1); /* nobody can go on: a deadlock, or everyone is off */
    /* From here until the token comes back this process touches only its
     * own part and the job header: the drop cannot be undone by us. */
    if (atomic_load(&j->state[rank]) == SIM_S_OFF)
        return DMSG_OK;
    drop_others(s);
    return sleep_for_token(s, deadline);
}

static double deadline_of(sim_state *s)
{
    return s->shm.wait->timeout > 0 ? dmsg_clock_now() + s->shm.wait->timeout : 0;
}

dmsg_status dmsg_sim_sched_block(sim_state *s, int why, int (*ready)(const void *),
                                 const void *arg)
{
    double deadline = 0;
    for (;;) {
        if (ready(arg)) {
            atomic_store(&sim_job(s)->idle, 0);
            return DMSG_OK;
        }
        if (!deadline)
            deadline = deadline_of(s);
        atomic_store(&sim_job(s)->why[s->tp->rank], (uint32_t)why);
        set_state(s, s->tp->rank, SIM_S_PARKED);
        dmsg_status st = yield_token(s, deadline);
        if (st)
            return st;
        if (deadline && dmsg_clock_now() > deadline && !ready(arg))
            return timed_out(s);
    }
}

dmsg_status dmsg_sim_sched_pause(sim_state *s, int why)
{
    atomic_store(&sim_job(s)->why[s->tp->rank], (uint32_t)why);
    set_state(s, s->tp->rank, SIM_S_PARKED);
    dmsg_status st = yield_token(s, deadline_of(s));
    /* It goes on, whatever it finds: not a deadlock (a program that polls
     * for ever spins here as it would without the scheduler). */
    if (!st)
        atomic_store(&sim_job(s)->idle, 0);
    return st;
}

/* An update cannot end a collective: a PE parked in one stays parked
 * (a transpose's deposits to PEs already in the next barrier would each
 * cost a hand-off for nothing). Nor an order wait, unless it is a counted
 * deposit that lowers the waiter's bound (dmsg_sim_log_add pokes it then):
 * at 128 PEs every deposit to a PE in an order wait woke it to look at
 * every PE's bound and park again. */
void dmsg_sim_sched_poke(sim_state *s, int pe)
{
    uint32_t why;
    if (s->sched && pe != s->tp->rank &&
        (why = atomic_load(&sim_job(s)->why[pe])) != SIM_PARK_COLL && why != SIM_PARK_ORDER)
        ready_if_parked(s, pe);
}

void dmsg_sim_sched_poke_why(sim_state *s, int pe, int why)
{
    if (s->sched && pe != s->tp->rank && atomic_load(&sim_job(s)->why[pe]) == (uint32_t)why)
        ready_if_parked(s, pe);
}

dmsg_status dmsg_sim_sched_start(dmsg_tp *tp, sim_state *s)
{
    sim_job_words *j = sim_job(s);
    dmsg_status st0 = drop_setup(tp, s);
    if (st0)
        return st0;
    s->shm.boot->on_launcher_death = wake_all_at_death;
    s->shm.boot->on_launcher_death_arg = s;
    dmsg_sim_engine_start(s);
    atomic_store(&j->sclock[s->tp->rank], dbits(s->clock));
    atomic_store(&j->state[s->tp->rank], s->tp->rank == 0 ? SIM_S_RUN : SIM_S_READY);
    /* Every PE's state is set before PE 0 may pick one; PE 0, which holds
     * the token, queues the others (the queue has one writer at a time). */
    dmsg_status st = dmsg_shm_barrier(tp);
    if (!st)
        dmsg_sim_engine_joined(s);
    if (!st && s->tp->rank == 0) {
        for (int p = 1; p < tp->npes; p++)
            dmsg_sim_queue_push(j, p);
        return DMSG_OK;
    }
    if (!st)
        st = sleep_for_token(s, 0);
    if (st) { /* the caller frees s */
        s->shm.boot->on_launcher_death = NULL;
        dmsg_sim_engine_stop(s, 0);
    }
    return st;
}

void dmsg_sim_sched_stop(sim_state *s)
{
    if (!s->sched)
        return;
    set_state(s, s->tp->rank, SIM_S_OFF);
    yield_token(s, 0); /* drains the engine's ring first */
    atomic_fetch_add(&sim_job(s)->off, 1);
    s->sched = 0;
    dmsg_sim_engine_stop(s, 1);
    s->shm.boot->on_launcher_death = NULL;
}

typedef struct coll_past {
    sim_job_words *j;
    uint32_t gen;
} coll_past;

static int coll_done(const void *arg)
{
    const coll_past *c = arg;
    return atomic_load(&c->j->gen) != c->gen;
}

/* The scheduler's barrier: the last arrival completes it and readies the
 * PEs parked in it. */
dmsg_status dmsg_sim_coll_barrier(dmsg_tp *tp)
{
    sim_state *s = tp->priv;
    if (!s->sched)
        return dmsg_shm_barrier(tp);
    sim_job_words *j = sim_job(s);
    coll_past c = {j, atomic_load(&j->gen)};
    if (atomic_fetch_add(&j->arrived, 1) + 1 == (uint32_t)tp->npes) {
        atomic_store(&j->arrived, 0);
        atomic_fetch_add(&j->gen, 1);
        for (int p = 0; p < tp->npes; p++)
            dmsg_sim_sched_poke_why(s, p, SIM_PARK_COLL);
        atomic_store(&j->idle, 0);
        return DMSG_OK;
    }
    return dmsg_sim_sched_block(s, SIM_PARK_COLL, coll_done, &c);
}

dmsg_status dmsg_sim_coll_allgather(dmsg_tp *tp, const void *mine, size_t len, void *all)
{
    sim_state *s = tp->priv;
    if (!s->sched)
        return dmsg_shm_allgather(tp, mine, len, all);
    shm_job_area *a = s->shm.area;
    if (len > sizeof a->gather[0])
        return DMSG_FAIL(DMSG_ERR_ARG, "allgather of %zu bytes", len);
    memcpy(a->gather[tp->rank], mine, len);
    dmsg_status st = dmsg_sim_coll_barrier(tp);
    if (st)
        return st;
    for (int p = 0; p < tp->npes; p++)
        memcpy((char *)all + (size_t)p * len, a->gather[p], len);
    return dmsg_sim_coll_barrier(tp);
}
