/* How every wait behaves (wait_policy.h): one rule for every transport and
 * for the core's own waits, so that shm, sim, ofi and dmsg_wait agree on
 * when to poll, yield and sleep, on when a job counts as oversubscribed, on
 * when the host is loaded, and on what DMSG_SPIN, DMSG_YIELD_US and
 * DMSG_TIMEOUT mean. */
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "dmsg/base/clock.h"
#include "dmsg/boot/exchange.h"
#include "dmsg/transport/transport.h"

static long online_cores(void)
{
    /* Asked once: sysconf reads /sys, too slow for a wait's start. */
    static long cores;
    if (cores == 0)
        cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores;
}

int dmsg_tp_oversubscribed(int npes)
{
    long cores = online_cores();
    return cores > 0 && npes > cores;
}

double dmsg_tp_yield_s(const dmsg_tp_conf *conf, double auto_s)
{
    return conf->yield_us >= 0 ? 1e-6 * (double)conf->yield_us : auto_s;
}

/* The host's load, sampled from the kernel's count of runnable tasks (the
 * fourth field of /proc/loadavg, "running/threads": tasks on a core or
 * queued for one, the reader included) at most every LOAD_PERIOD_S, and
 * smoothed over about four samples so that one PE's own sleeping and
 * waking does not flip the verdict each time. One reading is a pread of
 * an open descriptor (about 1-2 us), so a wait pays a clock read and,
 * every 10 ms at most, that. Per process (a PE waits on one thread). */
#define LOAD_PERIOD_S 0.01

static struct {
    int fd;         /* /proc/loadavg, opened on first use; -1: none (then never loaded) */
    double next;    /* clock of the next sample */
    double running; /* smoothed runnable tasks */
    long cores;
} load = {.fd = -2};

static int sample_running(double *running)
{
    char buf[128];
    ssize_t n = pread(load.fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    /* "0.52 0.58 0.59 3/95 25788": the fourth field's numerator. */
    char *p = buf;
    for (int field = 0; field < 3; field++) {
        while (*p && *p != ' ')
            p++;
        while (*p == ' ')
            p++;
    }
    char *end;
    long r = strtol(p, &end, 10);
    if (end == p || *end != '/' || r < 0)
        return -1;
    *running = (double)r;
    return 0;
}

static double coarse_now(void);

double dmsg_tp_load_smooth(double running, int first, double r, long cores)
{
    /* The first sample is capped at the cores: it is often taken while the
     * job starts (the launcher, the other PEs, the loader all runnable),
     * and taken whole it made the first tens of ms of a job "loaded", so
     * that a 2-PE barrier loop on an idle 2-core host slept instead of
     * spinning (4-6 us a barrier against 0.3 in half the runs). */
    if (first)
        return r < (double)cores ? r : (double)cores;
    return 0.75 * running + 0.25 * r;
}

static int host_loaded_at(double now)
{
    if (load.fd == -1)
        return 0;
    if (load.fd == -2) {
        load.fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
        load.cores = online_cores();
        if (load.fd < 0 || load.cores <= 0) {
            load.fd = -1;
            return 0;
        }
        load.running = 0;
        load.next = 0;
    }
    if (now >= load.next) {
        double r;
        if (sample_running(&r) == 0)
            load.running = dmsg_tp_load_smooth(load.running, load.next == 0, r, load.cores);
        load.next = now + LOAD_PERIOD_S;
    }
    return load.running > (double)load.cores + 0.5;
}

int dmsg_tp_host_loaded(void)
{
    return host_loaded_at(coarse_now());
}


/* ------------------------------------------------------------ the policy */

double dmsg_wait_slice_s(int npes)
{
    double s = DMSG_WAIT_SLICE_PER_PE_S * (double)npes;
    return s < DMSG_WAIT_SLICE_S ? DMSG_WAIT_SLICE_S : s > DMSG_WAIT_SLICE_MAX_S ? DMSG_WAIT_SLICE_MAX_S : s;
}

void dmsg_wait_policy_init(dmsg_wait_policy *p, const dmsg_tp_conf *conf, int npes,
                           const dmsg_wait_auto *a, struct dmsg_boot *boot)
{
    p->spin = conf->spin;
    p->a = *a;
    p->oversub = dmsg_tp_oversubscribed(npes);
    p->yield_s = p->oversub ? dmsg_tp_yield_s(conf, a->yield_s) : 0.0;
    p->timeout = conf->timeout;
    p->slice_s = dmsg_wait_slice_s(npes);
    p->boot = boot;
}

/* What recent automatic waits said about spinning (per process: a PE waits
 * on one thread). A full spin that ran out without an answer was wasted
 * CPU, and on a host whose load the sampled count misses (work that
 * started since the last sample, short bursts between samples, a peer that
 * computes) it kept a core from the PE it waited for. After WASTE_LIMIT
 * such spins in a row an automatic wait polls as briefly as on a loaded
 * host; one wait in probe_every still spins fully, and full spins come back
 * when such a probe is answered while it spins. A probe that runs out
 * doubles the interval (up to PROBE_MAX), so that probing costs at most a
 * full spin per PROBE_MAX waits while spinning does not pay. Only an answer
 * during a full spin counts: a wait that slept is answered sooner on a
 * loaded host just because it gave its core away. */
#define WASTE_LIMIT 8
#define PROBE_MIN 16
#define PROBE_MAX 4096

static struct {
    int wasted;       /* full spins in a row that ran out */
    long probe_every; /* while wasted >= WASTE_LIMIT: one wait in this many spins fully */
    long since_probe;
} recent = {0, PROBE_MIN, 0};

/* A clock for the load's sampling period: the kernel's tick, without the
 * precise clock's cost (about 16 ns against 120 ns a read on this
 * project's virtual host, where a precise read at the start of every wait
 * made an 8-byte ping-pong half round trip of 0.23 us half as slow again). */
static double coarse_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void dmsg_waiter_start(dmsg_waiter *w, const dmsg_wait_policy *p)
{
    w->pol = p;
    w->polls = 0;
    w->phase = 0;
    w->spin_until = 0;
    w->yield_until = 0;
    w->deadline = 0;
    w->full = 0;
    if (p->spin >= 0) {
        w->limit = p->spin;
        return;
    }
    /* The job's own PEs outnumbering the cores load the host too: that
     * case keeps its own (measured) spin and yield. */
    if (!p->oversub && host_loaded_at(coarse_now())) {
        w->limit = p->a.busy_polls;
        return;
    }
    if (p->oversub && p->a.oversub_yield) {
        w->limit = 0;
        return;
    }
    if (p->oversub ||
        (recent.wasted >= WASTE_LIMIT && ++recent.since_probe < recent.probe_every)) {
        w->limit = p->a.loaded_polls;
        return;
    }
    recent.since_probe = 0;
    w->full = 1;
    if (p->a.spin_polls > 0) {
        w->limit = p->a.spin_polls;
        return;
    }
    w->limit = LONG_MAX;
    w->spin_until = dmsg_clock_now() + p->a.spin_s;
}

dmsg_wait_act dmsg_waiter_step(dmsg_waiter *w)
{
    const dmsg_wait_policy *p = w->pol;
    double now = dmsg_clock_now();
    if (p->timeout > 0) {
        if (w->deadline == 0)
            w->deadline = now + p->timeout;
        else if (now > w->deadline)
            return DMSG_WAIT_TIMEOUT;
    }
    if (w->phase == 0) {
        int spun = w->spin_until ? now >= w->spin_until : w->polls >= w->limit;
        if (!spun) {
            /* A PE that has spun yield_after polls yields every 128 polls
             * (the caller comes here every 128th poll): the PE it waits for
             * may be runnable without a core. */
            if (p->a.yield_after && w->polls >= p->a.yield_after && !w->spin_until)
                return DMSG_WAIT_YIELD;
            return DMSG_WAIT_POLL;
        }
        w->phase = 1;
        if (w->full) {
            if (recent.wasted < WASTE_LIMIT)
                recent.wasted++;
            else if (recent.probe_every < PROBE_MAX)
                recent.probe_every *= 2; /* a probe that ran out */
        }
        w->yield_until = now + p->yield_s;
    }
    if (p->boot && dmsg_boot_aborted(p->boot))
        return DMSG_WAIT_ABORTED;
    if (w->phase == 1) {
        if (now < w->yield_until)
            return DMSG_WAIT_YIELD;
        w->phase = 2;
    }
    return DMSG_WAIT_SLEEP;
}

double dmsg_waiter_sleep_s(const dmsg_waiter *w)
{
    double slice = w->pol->slice_s;
    if (w->deadline > 0) {
        double left = w->deadline - dmsg_clock_now() + 1e-3;
        if (left < slice)
            slice = left > 1e-3 ? left : 1e-3;
    }
    return slice;
}

void dmsg_waiter_respin(dmsg_waiter *w)
{
    if (w->full && w->spin_until) {
        w->phase = 0;
        w->spin_until = dmsg_clock_now() + w->pol->a.spin_s;
    }
}

void dmsg_waiter_done(dmsg_waiter *w)
{
    if (w->full && w->phase == 0) { /* a full spin was answered: spinning pays */
        recent.wasted = 0;
        recent.probe_every = PROBE_MIN;
        recent.since_probe = 0;
    }
}

dmsg_status dmsg_waiter_fail(const dmsg_waiter *w, dmsg_wait_act act, const char *what)
{
    if (act == DMSG_WAIT_ABORTED)
        return DMSG_FAIL(DMSG_ERR_ABORTED, "the launcher is tearing the job down");
    return DMSG_FAIL(DMSG_ERR_TIMEOUT, "waited %g s for %s (DMSG_TIMEOUT); a peer may have died",
                     w->pol->timeout, what);
}

void dmsg_wait_policy_end(void)
{
    /* What the waits learnt about this host ends with the job, and the
     * load sampler's descriptor with it. */
    if (load.fd >= 0)
        close(load.fd);
    load.fd = -2;
    load.running = 0;
    load.next = 0;
    recent.wasted = 0;
    recent.probe_every = PROBE_MIN;
    recent.since_probe = 0;
}
