/* The postal and RRMSG baselines (tests/pe/postal.c, tests/pe/rr.c) under
 * dmsgrun: on 1 to 4 PEs and on 8, on the transport the suite runs over
 * (shm, or ofi when tests/ofi/integ.sh runs it), on the simulated T3D, and
 * with a mailbox so small that rings wrap and senders queue. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

static int pe_counts[] = {1, 2, 3, 4};

/* Over ofi each message costs a network round trip: the late receiver then
 * gets 300 messages instead of 10,000 and the exchanges run fewer
 * iterations (the same code paths, fewer times). */
static const char *const *late_env(void)
{
    static const char *const fewer[] = {"PE_POSTAL_MESSAGES=300", "PE_BASELINE_ITERS=10", NULL};
    return job_over_ofi() ? fewer : NULL;
}

/* As expect_case_ok, with a longer watchdog: 8 PEs on 2 cores over a
 * network provider take a while to start and to exchange. */
static void expect_long(const char *case_name, int npes, const char *const *env, double limit)
{
    if (!job_pes_wanted(npes))
        cr_skip_test("INTEG_PES=%s leaves out jobs of %d PEs", getenv("INTEG_PES"), npes);
    char n[16];
    snprintf(n, sizeof n, "%d", npes);
    const char *argv[] = {job_path("bin/dmsgrun"), "-n", n, job_path("tests/pe_prog"), case_name,
                          NULL};
    const char *merged[8] = {JOB_DMSG_TIMEOUT};
    size_t k = 1;
    for (size_t i = 0; env && env[i] && k < 7; i++)
        merged[k++] = env[i];
    merged[k] = NULL;
    job_result r;
    cr_assert(job_run(argv, merged, limit, &r) == 0, "could not start %s", case_name);
    cr_expect(job_exited_ok(&r), "%s on %d PEs: %s\n--- stderr (tail):\n%s", case_name, npes,
              job_how(&r), job_tail(r.err, 3000));
    cr_expect(r.leftover[0] == '\0', "%s on %d PEs: processes left: %s", case_name, npes,
              r.leftover);
    job_free(&r);
}

/* One job per case and PE count on shm; over ofi, where a job takes seconds
 * to start, one job per library and PE count runs every case (postal_all,
 * rr_all). */
#define BASE_CASE_IF(name, env, when)                                                              \
    ParameterizedTestParameters(baselines, name)                                                   \
    {                                                                                              \
        return cr_make_param_array(int, pe_counts, sizeof pe_counts / sizeof pe_counts[0]);       \
    }                                                                                              \
    ParameterizedTest(int *npes, baselines, name, .timeout = 3 * JOB_WATCHDOG)                     \
    {                                                                                              \
        if (!(when))                                                                               \
            cr_skip_test("runs %s", job_over_ofi() ? "in postal_all / rr_all" : "over ofi only");    \
        expect_long(#name, *npes, env, job_over_ofi() ? 2 * JOB_WATCHDOG : JOB_WATCHDOG);              \
    }
#define BASE_CASE(name, env) BASE_CASE_IF(name, env, !job_over_ofi())

BASE_CASE_IF(postal_all, late_env(), job_over_ofi())
BASE_CASE_IF(rr_all, late_env(), job_over_ofi())

BASE_CASE(postal_alltoall, NULL)
BASE_CASE(postal_neighbour, late_env())
BASE_CASE(postal_wildcard_order, NULL)
BASE_CASE(postal_late_receiver, late_env())
BASE_CASE(postal_out_of_order, NULL)
BASE_CASE(postal_pingpong, late_env())
BASE_CASE(postal_large, NULL)
BASE_CASE(postal_active_pins, NULL)
BASE_CASE(postal_active_pingpong, late_env())
BASE_CASE(postal_poll_full, NULL)
BASE_CASE(postal_random, NULL)
BASE_CASE(postal_window, NULL)
BASE_CASE(postal_stream, NULL)
BASE_CASE(postal_pull_all, NULL)
BASE_CASE(postal_pull_reuse, NULL)
BASE_CASE(postal_ctx_word, NULL)
BASE_CASE(postal_lean, NULL)
BASE_CASE(rr_alltoall, NULL)
BASE_CASE(rr_neighbour, late_env())
BASE_CASE(rr_indexed_errors, NULL)
BASE_CASE(rr_random_test, NULL)
BASE_CASE(rr_batch, NULL)
BASE_CASE(rr_ahead, NULL)
BASE_CASE(rr_lean, NULL)
BASE_CASE(rr_ride, NULL)
BASE_CASE(rr_flood, NULL)

/* The all-to-all and neighbour exchanges of both libraries on 8 PEs. Over
 * ofi (8 PEs on 2 cores over a network provider take about half a minute a
 * job) the dense all-to-alls; the neighbour exchanges run on 8 PEs over shm
 * and sim. */
Test(baselines, pes8, .timeout = 8 * JOB_WATCHDOG)
{
    if (job_over_ofi()) {
        expect_long("postal_alltoall", 8, NULL, 2 * JOB_WATCHDOG);
        expect_long("rr_alltoall", 8, NULL, 2 * JOB_WATCHDOG);
        return;
    }
    expect_long("postal_alltoall", 8, NULL, JOB_WATCHDOG);
    expect_long("postal_neighbour", 8, NULL, JOB_WATCHDOG);
    expect_long("postal_late_receiver", 8, NULL, JOB_WATCHDOG);
    expect_long("postal_large", 8, NULL, JOB_WATCHDOG);
    expect_long("rr_alltoall", 8, NULL, JOB_WATCHDOG);
    expect_long("rr_neighbour", 8, NULL, JOB_WATCHDOG);
}

/* 1 KiB per sender: 448-byte messages at most, rings wrap every few
 * messages, senders queue and send STUCK notices, receivers spill. */
Test(baselines, tiny_mailbox, .timeout = 14 * JOB_WATCHDOG)
{
    static const char *const tiny[] = {"DMSG_POSTAL_MAILBOX=1K", "PE_POSTAL_MESSAGES=10000",
                                       NULL};
    static const char *const tiny_ofi[] = {"DMSG_POSTAL_MAILBOX=1K", "PE_POSTAL_MESSAGES=300",
                                           NULL};
    if (job_over_ofi()) { /* wrapping rings over unordered one-sided writes */
        expect_long("postal_late_receiver", 2, tiny_ofi, 2 * JOB_WATCHDOG);
        expect_long("postal_out_of_order", 2, tiny, 2 * JOB_WATCHDOG);
        return;
    }
    expect_case_ok("postal_late_receiver", 2, tiny);
    expect_case_ok("postal_alltoall", 3, tiny);
    expect_case_ok("postal_out_of_order", 2, tiny);
    expect_case_ok("postal_wildcard_order", 4, tiny);
    expect_case_ok("postal_neighbour", 4, tiny);
    expect_case_ok("postal_large", 2, tiny);
    expect_case_ok("postal_large", 4, tiny);
    expect_case_ok("postal_active_pins", 2, tiny);
    expect_case_ok("postal_poll_full", 3, tiny);
    expect_case_ok("postal_random", 2, tiny);
    expect_case_ok("postal_random", 4, tiny);
    /* 64 KiB round trips in 448-byte fragments: a few are enough. */
    static const char *const tiny_few[] = {"DMSG_POSTAL_MAILBOX=1K", "PE_BASELINE_ITERS=10",
                                           NULL};
    expect_case_ok("postal_active_pingpong", 2, tiny_few);
}

/* Large messages through landing windows smaller than they are (granted
 * piece by piece), and without a window (DMSG_POSTAL_WINDOW=0: fragments
 * through the mailbox, as before windows existed). */
Test(baselines, windows, .timeout = 10 * JOB_WATCHDOG)
{
    if (job_over_ofi())
        cr_skip_test("runs in the suite over shm");
    static const char *const small[] = {"DMSG_POSTAL_WINDOW=4K", "DMSG_POSTAL_MAILBOX=1K", NULL};
    static const char *const pieces[] = {"DMSG_POSTAL_WINDOW=1K", "DMSG_POSTAL_MAILBOX=1K",
                                         NULL};
    static const char *const none[] = {"DMSG_POSTAL_WINDOW=0", NULL};
    static const char *const none_tiny[] = {"DMSG_POSTAL_WINDOW=0", "DMSG_POSTAL_MAILBOX=1K",
                                            NULL};
    expect_case_ok("postal_window", 2, small);
    expect_case_ok("postal_window", 3, small);
    expect_case_ok("postal_window", 2, none);
    expect_case_ok("postal_window", 3, none_tiny);
    expect_case_ok("postal_large", 3, pieces);
    expect_case_ok("postal_random", 3, pieces);
    expect_case_ok("postal_large", 2, none_tiny);
    expect_case_ok("postal_random", 3, none_tiny);
    expect_case_ok("postal_active_pins", 2, none);
}

/* Randomized sequences of postal calls under other seeds (PE_POSTAL_SEED),
 * with a tiny and with the default mailbox: every one is correct with
 * unbounded buffering, so none may hang; and of RRMSG requests completed
 * by polling (PE_RR_SEED). */
Test(baselines, random_seeds, .timeout = 12 * JOB_WATCHDOG)
{
    if (job_over_ofi())
        cr_skip_test("runs in the suite over shm");
    static const char *const seeds[] = {"PE_POSTAL_SEED=2", "PE_POSTAL_SEED=3",
                                        "PE_POSTAL_SEED=4", "PE_POSTAL_SEED=5"};
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
        const char *tiny[] = {"DMSG_POSTAL_MAILBOX=1K", seeds[i], NULL};
        const char *dflt[] = {seeds[i], NULL};
        const char *sim[] = {"DMSG_TRANSPORT=sim", "DMSG_POSTAL_MAILBOX=1K", seeds[i], NULL};
        expect_case_ok("postal_random", 2 + (int)i % 3, tiny);
        expect_case_ok("postal_random", 3, dflt);
        expect_case_ok("postal_random", 2, sim);
    }
    /* RRMSG requests completed by polling dmsg_rr_test, on sim (where the
     * polls must let virtual time pass) and on shm. */
    static const char *const rr_seeds[] = {"PE_RR_SEED=2", "PE_RR_SEED=3", "PE_RR_SEED=4"};
    for (size_t i = 0; i < sizeof rr_seeds / sizeof rr_seeds[0]; i++) {
        const char *rsim[] = {"DMSG_TRANSPORT=sim", rr_seeds[i], NULL};
        const char *rshm[] = {rr_seeds[i], NULL};
        expect_case_ok("rr_random_test", 3 + (int)i % 2, rsim);
        expect_case_ok("rr_random_test", 3, rshm);
    }
}

/* The same programs on the simulated T3D (virtual time; data moves as on
 * shm). Once per suite: the ofi runs of the suite would repeat it unchanged. */
Test(baselines, sim_t3d, .timeout = 6 * JOB_WATCHDOG)
{
    if (job_over_ofi())
        cr_skip_test("runs in the suite over shm");
    static const char *const sim[] = {"DMSG_TRANSPORT=sim", "DMSG_MACHINE=t3d",
                                      "PE_POSTAL_MESSAGES=10000", NULL};
    static const char *const sim_tiny[] = {"DMSG_TRANSPORT=sim", "DMSG_POSTAL_MAILBOX=1K", NULL};
    static const char *const names[] = {"postal_alltoall", "postal_neighbour",
                                        "postal_wildcard_order", "postal_late_receiver",
                                        "postal_out_of_order", "postal_pingpong", "postal_large",
                                        "rr_alltoall", "rr_neighbour", "rr_indexed_errors",
                                        "postal_active_pins", "postal_active_pingpong",
                                        "postal_poll_full", "postal_random", "rr_random_test"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        expect_case_ok(names[i], 3, sim);
    expect_case_ok("postal_alltoall", 8, sim);
    expect_case_ok("postal_neighbour", 8, sim);
    expect_case_ok("rr_alltoall", 8, sim);
    expect_case_ok("rr_neighbour", 8, sim);
    /* Floods both ways: senders stuck on each other make room in their
     * order waits, and requests are matched in the order sent. */
    expect_case_ok("rr_flood", 2, sim);
    expect_case_ok("rr_flood", 4, sim);
    expect_case_ok("postal_lean", 2, sim);
    expect_case_ok("postal_late_receiver", 2, sim_tiny);
    expect_case_ok("postal_random", 3, sim_tiny);
    expect_case_ok("postal_poll_full", 2, sim_tiny);
}
