/* One wait policy for every wait of every layer (wait_policy.c): how long a
 * waiting PE polls, when it gives its core away, when it sleeps, and when
 * it gives up (DMSG_TIMEOUT) or stops (the launcher's abort flag). The
 * transports keep only their own ways to poll and to sleep (shm: a futex;
 * ofi: the CQ's descriptor, a bell or a backoff; the core's dmsg_wait: a
 * short nanosleep); what to do next is always this policy's answer.
 *
 * A wait is a loop over a waiter:
 *
 *     dmsg_waiter w;
 *     dmsg_waiter_start(&w, pol);
 *     while (!ready()) {
 *         switch (dmsg_waiter_next(&w)) {
 *         case DMSG_WAIT_POLL: pause; break;
 *         case DMSG_WAIT_YIELD: sched_yield(); break;
 *         case DMSG_WAIT_SLEEP: sleep by the transport's means; break;
 *         default: return dmsg_waiter_fail(&w, what);
 *         }
 *     }
 *     dmsg_waiter_done(&w);
 */
#ifndef DMSG_TRANSPORT_WAIT_POLICY_H
#define DMSG_TRANSPORT_WAIT_POLICY_H

#include "dmsg/base/status.h"

struct dmsg_boot;
struct dmsg_tp_conf;

/* What a wait does after a poll that found nothing. */
typedef enum dmsg_wait_act {
    DMSG_WAIT_POLL,    /* poll again (a pause first where a poll is a load) */
    DMSG_WAIT_YIELD,   /* hand the core over (sched_yield), then poll */
    DMSG_WAIT_SLEEP,   /* sleep by the transport's means, at most dmsg_waiter_sleep_s */
    DMSG_WAIT_TIMEOUT, /* DMSG_TIMEOUT has passed: dmsg_waiter_fail */
    DMSG_WAIT_ABORTED, /* the launcher is tearing the job down: dmsg_waiter_fail */
} dmsg_wait_act;

/* Longest single sleep: a sleeper looks at the abort flag and its deadline
 * this often (its deadline also cuts a sleep short). A slice grows with the
 * job: 1 ms per PE, at least DMSG_WAIT_SLICE_S and at most
 * DMSG_WAIT_SLICE_MAX_S, so that the job's sleepers wake about 1000 times a
 * second for this however many they are. With a fixed 0.1 s, 1024 PEs
 * waiting in the start's barrier for the last ones to be started woke
 * 10,000 times a second on the host's cores, and the start grew with the
 * square of the job's size. A PE behind setsid learns of the launcher's
 * death within a slice (1 s at 1024 PEs, 4 s at 4096). */
#define DMSG_WAIT_SLICE_S 0.1
#define DMSG_WAIT_SLICE_PER_PE_S 1e-3
#define DMSG_WAIT_SLICE_MAX_S 4.0

/* The slice of a job of npes PEs. */
double dmsg_wait_slice_s(int npes);

/* A transport's automatic values (DMSG_SPIN=-1, DMSG_YIELD_US=-1). */
typedef struct dmsg_wait_auto {
    long spin_polls;   /* host not loaded: polls before sleeping (0: poll by time, spin_s) */
    double spin_s;     /* host not loaded, spin_polls 0: seconds of polling before sleeping */
    long loaded_polls; /* PEs outnumber cores, or full spins do not pay: polls before sleeping */
    long busy_polls;   /* other work loads the host now: polls before sleeping */
    long yield_after;  /* a spin this long (polls) yields every 128 polls; 0: never */
    double yield_s;    /* PEs outnumber cores: seconds of yielding before sleeping */
    int oversub_yield; /* 1: PEs outnumber cores: yield at once, no polls (0: loaded_polls) */
} dmsg_wait_auto;

/* A PE's policy, set once at join from the settings and the transport's
 * automatic values; kept in dmsg_tp (tp->wait) so the core's waits use it
 * too. */
typedef struct dmsg_wait_policy {
    long spin;       /* DMSG_SPIN: polls before a wait yields or sleeps; -1: automatic */
    dmsg_wait_auto a;
    double yield_s;  /* seconds of yielding before sleeping (0: none); only when oversubscribed */
    int oversub;     /* this job's PEs outnumber the host's online cores */
    double timeout;  /* DMSG_TIMEOUT: seconds a wait may last; 0: no limit */
    double slice_s;  /* longest single sleep (dmsg_wait_slice_s of the job's size) */
    struct dmsg_boot *boot; /* whose abort flag a wait watches; NULL: none */
} dmsg_wait_policy;

/* One wait in progress (the caller's stack). */
typedef struct dmsg_waiter {
    const dmsg_wait_policy *pol;
    long polls;       /* polls so far */
    long limit;       /* polls of the spin phase, decided at the start */
    double spin_until; /* automatic spin by time: its end; 0: by count */
    double yield_until;
    double deadline;  /* 0: none, or not yet computed */
    int phase;        /* 0 spin, 1 yield, 2 sleep */
    int full;         /* automatic: a full spin (the host looked idle) */
} dmsg_waiter;

/* Fills *p from the settings (DMSG_SPIN, DMSG_YIELD_US, DMSG_TIMEOUT), the
 * job's size on this host's cores and the transport's automatic values. */
void dmsg_wait_policy_init(dmsg_wait_policy *p, const struct dmsg_tp_conf *conf, int npes,
                           const dmsg_wait_auto *a, struct dmsg_boot *boot);

/* Starts a wait: decides how long it polls from what the host does now
 * (dmsg_tp_host_loaded) and how recent waits were answered. Cheap: a
 * coarse clock read; a wait that is answered within its first 128 polls
 * reads no precise clock at all. */
void dmsg_waiter_start(dmsg_waiter *w, const dmsg_wait_policy *p);

/* The slow part of dmsg_waiter_next: phase changes, clock, deadline. */
dmsg_wait_act dmsg_waiter_step(dmsg_waiter *w);

/* What to do after a poll that found nothing. Inline: while a wait spins
 * by count it costs an increment and a compare per poll. */
static inline dmsg_wait_act dmsg_waiter_next(dmsg_waiter *w)
{
    long i = ++w->polls;
    if (w->phase == 0 && i < w->limit && !w->spin_until && (i & 127) != 0)
        return DMSG_WAIT_POLL;
    return dmsg_waiter_step(w);
}

/* How long a DMSG_WAIT_SLEEP may sleep: the job's slice, cut short by the
 * wait's DMSG_TIMEOUT deadline (just past it, so that the next step sees
 * the time out). */
double dmsg_waiter_sleep_s(const dmsg_waiter *w);

/* A wake-up that says more comes soon (a peer rang this PE's bell): a wait
 * that started with a full spin by time polls for a spin's time again. */
void dmsg_waiter_respin(dmsg_waiter *w);

/* Ends a wait whose condition holds: how it was answered feeds the next
 * waits' choice (a full spin that was answered says spinning pays). */
void dmsg_waiter_done(dmsg_waiter *w);

/* The status of a wait that ended by DMSG_WAIT_TIMEOUT or DMSG_WAIT_ABORTED;
 * what: what it waited for, for the message. */
dmsg_status dmsg_waiter_fail(const dmsg_waiter *w, dmsg_wait_act act, const char *what);

/* Whether npes PEs outnumber this host's online cores: then a waiting PE
 * gives its core up early, since the PE it waits for is likely waiting for
 * that core. */
int dmsg_tp_oversubscribed(int npes);
/* Seconds an oversubscribed wait yields its core before it sleeps:
 * DMSG_YIELD_US where set, else the transport's own auto_s. */
double dmsg_tp_yield_s(const struct dmsg_tp_conf *conf, double auto_s);
/* Whether other work loads the host now: more runnable tasks than online
 * cores, sampled from the kernel every 10 ms at most (by the kernel's
 * coarse clock) and smoothed. An
 * automatic wait then sleeps after a few polls, since a spinning PE keeps
 * a core from the PE it waits for, and yields only when its own job's PEs
 * outnumber the cores (a yield would hand the core to another job for a
 * whole time slice). Cheap: a coarse clock read per call. */
int dmsg_tp_host_loaded(void);

/* The smoothed count of runnable tasks after a sample of r (the host is
 * loaded above cores + 0.5): running smoothed over about four samples, the
 * first sample (first != 0) capped at cores, so that start-up alone never
 * makes the host loaded. */
double dmsg_tp_load_smooth(double running, int first, double r, long cores);

/* Forgets what the waits learnt (the load sample, the spin history) and
 * closes the load sampler's descriptor: called by dmsg_finalize, so that no
 * state of a job outlives it. */
void dmsg_wait_policy_end(void);

#endif
