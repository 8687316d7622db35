#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
/* The one wait policy (dmsg/transport/wait_policy.h): what a wait does after
 * each empty poll, under fixed and automatic settings, its deadline, and
 * the core's dmsg_wait that now follows it. */
#include <criterion/criterion.h>
#include <time.h>
#include "dmsg/base/clock.h"
#include "dmsg/transport/transport.h"

static const dmsg_wait_auto autov = {.spin_polls = 1000, .loaded_polls = 4, .busy_polls = 2,
                                     .yield_after = 0, .yield_s = 0.0};

static dmsg_wait_policy policy(long spin, long yield_us, double timeout, int npes)
{
    dmsg_tp_conf conf = {.timeout = timeout, .spin = spin, .yield_us = yield_us};
    dmsg_wait_policy p;
    dmsg_wait_policy_init(&p, &conf, npes, &autov, NULL);
    return p;
}

/* Polls before the first non-POLL answer. */
static long polls_until_other(dmsg_waiter *w, dmsg_wait_act *act)
{
    long n = 0;
    while ((*act = dmsg_waiter_next(w)) == DMSG_WAIT_POLL && n < 10000000)
        n++;
    return n;
}

Test(wait, fixed_spin_polls_then_sleeps)
{
    dmsg_wait_policy p = policy(300, -1, 0, 1);
    dmsg_waiter w;
    dmsg_wait_act act;
    dmsg_waiter_start(&w, &p);
    /* 300 polls: the first made before the first call, 299 answered POLL. */
    cr_assert_eq(polls_until_other(&w, &act), 299);
    cr_assert_eq(act, DMSG_WAIT_SLEEP);
    cr_assert_eq(dmsg_waiter_next(&w), DMSG_WAIT_SLEEP, "a sleeping wait keeps sleeping");
}

Test(wait, spin_zero_sleeps_at_once)
{
    dmsg_wait_policy p = policy(0, -1, 0, 1);
    dmsg_waiter w;
    dmsg_waiter_start(&w, &p);
    cr_assert_eq(dmsg_waiter_next(&w), DMSG_WAIT_SLEEP);
}

Test(wait, oversubscribed_yields_before_sleeping)
{
    /* More PEs than any host has cores: oversubscribed, so the automatic
     * wait polls loaded_polls times, then yields for DMSG_YIELD_US. */
    dmsg_wait_policy p = policy(-1, 20000, 0, 1 << 20);
    cr_assert(p.oversub);
    cr_assert_float_eq(p.yield_s, 0.02, 1e-9);
    dmsg_waiter w;
    dmsg_wait_act act;
    dmsg_waiter_start(&w, &p);
    cr_assert_eq(polls_until_other(&w, &act), autov.loaded_polls - 1);
    cr_assert_eq(act, DMSG_WAIT_YIELD);
    double t0 = dmsg_clock_now();
    while ((act = dmsg_waiter_next(&w)) == DMSG_WAIT_YIELD)
        ;
    cr_assert_eq(act, DMSG_WAIT_SLEEP);
    cr_assert_geq(dmsg_clock_now() - t0, 0.015, "yielded for DMSG_YIELD_US");
}

Test(wait, oversubscribed_yields_at_once_where_the_transport_says)
{
    /* shm's automatic values (oversub_yield): no polls before the yields
     * while PEs outnumber cores; the loaded_polls stay for the other case. */
    dmsg_wait_auto a = autov;
    a.oversub_yield = 1;
    dmsg_tp_conf conf = {.timeout = 0, .spin = -1, .yield_us = 20000};
    dmsg_wait_policy p;
    dmsg_wait_policy_init(&p, &conf, 1 << 20, &a, NULL);
    cr_assert(p.oversub);
    dmsg_waiter w;
    dmsg_wait_act act;
    dmsg_waiter_start(&w, &p);
    cr_assert_eq(polls_until_other(&w, &act), 0);
    cr_assert_eq(act, DMSG_WAIT_YIELD);
    dmsg_wait_policy_init(&p, &conf, 1, &a, NULL);
    cr_assert_eq(p.oversub, 0);
}

Test(wait, not_oversubscribed_never_yields)
{
    dmsg_wait_policy p = policy(10, 20000, 0, 1);
    cr_assert_eq(p.oversub, 0);
    cr_assert_eq(p.yield_s, 0.0);
}

Test(wait, deadline_ends_a_wait)
{
    dmsg_wait_policy p = policy(0, -1, 0.05, 1);
    dmsg_waiter w;
    dmsg_wait_act act;
    dmsg_waiter_start(&w, &p);
    double t0 = dmsg_clock_now();
    while ((act = dmsg_waiter_next(&w)) == DMSG_WAIT_SLEEP) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    cr_assert_eq(act, DMSG_WAIT_TIMEOUT);
    cr_assert_geq(dmsg_clock_now() - t0, 0.05);
    cr_assert_eq(dmsg_waiter_fail(&w, act, "a test"), DMSG_ERR_TIMEOUT);
}

Test(wait, slice_grows_with_the_job_within_bounds)
{
    cr_assert_float_eq(dmsg_wait_slice_s(2), DMSG_WAIT_SLICE_S, 1e-12);
    cr_assert_float_eq(dmsg_wait_slice_s(100), DMSG_WAIT_SLICE_S, 1e-12);
    cr_assert_float_eq(dmsg_wait_slice_s(1024), 1.024, 1e-9);
    cr_assert_float_eq(dmsg_wait_slice_s(4096), DMSG_WAIT_SLICE_MAX_S, 1e-12);
    cr_assert_float_eq(dmsg_wait_slice_s(1 << 20), DMSG_WAIT_SLICE_MAX_S, 1e-12);
    dmsg_wait_policy p = policy(0, -1, 0, 2048);
    cr_assert_float_eq(p.slice_s, 2.048, 1e-9);
    dmsg_waiter w;
    dmsg_waiter_start(&w, &p);
    cr_assert_eq(dmsg_waiter_next(&w), DMSG_WAIT_SLEEP);
    cr_assert_float_eq(dmsg_waiter_sleep_s(&w), 2.048, 1e-9); /* no deadline */
}

Test(wait, deadline_cuts_a_sleep_short)
{
    dmsg_wait_policy p = policy(0, -1, 0.5, 4096);
    dmsg_waiter w;
    dmsg_waiter_start(&w, &p);
    cr_assert_eq(dmsg_waiter_next(&w), DMSG_WAIT_SLEEP);
    double s = dmsg_waiter_sleep_s(&w);
    /* The deadline (0.5 s from the first step) and a millisecond past it,
     * not the job's 4 s slice. */
    cr_assert(s > 0.3 && s <= 0.502, "sleep %g s", s);
    w.deadline = dmsg_clock_now() - 1.0; /* already past: a minimal sleep */
    cr_assert_float_eq(dmsg_waiter_sleep_s(&w), 1e-3, 1e-12);
}

Test(wait, spinning_waits_tell_the_next_ones)
{
    /* Full spins that run out make later automatic waits spin briefly, but
     * for a probe now and then; a probe answered while it spins brings full
     * spins back. Only where the host is not loaded now (the load's verdict
     * wins). */
    dmsg_wait_policy p = policy(-1, -1, 0, 1);
    dmsg_waiter w;
    dmsg_wait_act act;
    if (dmsg_tp_host_loaded())
        cr_skip_test("the host is loaded now: every automatic wait spins briefly");
    for (int i = 0; i < 8; i++) {
        dmsg_waiter_start(&w, &p);
        cr_assert_eq(w.limit, autov.spin_polls, "a full spin while spins pay");
        polls_until_other(&w, &act);
        cr_assert_eq(act, DMSG_WAIT_SLEEP);
        dmsg_waiter_done(&w); /* answered after the spin ran out */
    }
    int brief = 0, probe = 0;
    for (int i = 0; i < 64 && !probe; i++) {
        dmsg_waiter_start(&w, &p);
        if (w.limit == autov.loaded_polls)
            brief++;
        else
            probe = 1;
    }
    cr_assert_geq(brief, 8, "brief spins after wasted ones (%d)", brief);
    cr_assert(probe, "a probe spins fully now and then");
    dmsg_waiter_next(&w);
    dmsg_waiter_done(&w); /* the probe is answered while it spins */
    dmsg_waiter_start(&w, &p);
    if (!dmsg_tp_host_loaded())
        cr_assert_eq(w.limit, autov.spin_polls, "full spins again");
}

/* The load's smoothing: a first sample taken while a job starts (many
 * runnable tasks) does not make the host loaded by itself; a host that
 * stays loaded does within a few samples; a host whose only runnable
 * tasks are the job's own PEs on its cores never does. */
Test(wait, load_first_sample_does_not_make_the_host_loaded)
{
    const long cores = 2;
    const double loaded = (double)cores + 0.5; /* the verdict's threshold */
    double run = dmsg_tp_load_smooth(0, 1, 7, cores);
    cr_assert_leq(run, (double)cores, "first sample of 7 on 2 cores: %g", run);
    cr_assert_eq(dmsg_tp_load_smooth(0, 1, 1, cores), 1.0);
    for (int i = 0; i < 50; i++)
        run = dmsg_tp_load_smooth(run, 0, 2, cores);
    cr_assert_lt(run, loaded, "two PEs on two cores read as loaded: %g", run);
    int samples = 0;
    for (run = dmsg_tp_load_smooth(0, 1, 4, cores); run <= loaded && samples < 10; samples++)
        run = dmsg_tp_load_smooth(run, 0, 4, cores);
    cr_assert_leq(samples, 3, "four runnable tasks on 2 cores took %d samples to count", samples);
}

/* Descriptors of this process open on /proc/loadavg. */
static int loadavg_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    cr_assert(d != NULL);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        char path[300], target[256];
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t k = readlink(path, target, sizeof target - 1);
        if (k > 0) {
            target[k] = '\0';
            n += strcmp(target, "/proc/loadavg") == 0;
        }
    }
    closedir(d);
    return n;
}

/* What the waits learnt ends with the job (dmsg_finalize calls
 * dmsg_wait_policy_end): the load sampler's descriptor is closed, and a
 * later job samples afresh. */
Test(wait, policy_state_ends)
{
    (void)dmsg_tp_host_loaded(); /* opens the sampler */
    cr_assert_eq(loadavg_fds(), 1, "the sampler holds one descriptor");
    dmsg_wait_policy_end();
    cr_assert_eq(loadavg_fds(), 0, "the sampler's descriptor outlived the job");
    (void)dmsg_tp_host_loaded();
    cr_assert_eq(loadavg_fds(), 1, "a later job samples again");
    dmsg_wait_policy_end();
}
