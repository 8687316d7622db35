/* The ofi transport's atomics paths (DMSG_OFI_ATOMICS), each forced in
 * turn over tcp;ofi_rxm, whose provider atomics serve native and emulated:
 * every path gives the exact results of the atomics, signals and waits
 * cases (tests/pe/amo.c), 100k contending atomics included. The suite over
 * ofi runs the cases themselves on the path its provider picks. And over
 * the providers without a wait descriptor (shm, sockets), whose targets
 * serve atomics in their own progress, the contending atomics to a PE that
 * waits in dmsg_sync: before waiting PEs slept on their doorbell
 * (ofi_bell.c) each cost up to a backoff sleep and the case ran past
 * DMSG_TIMEOUT over sockets. */
#include <criterion/criterion.h>
#include <stdio.h>
#include "harness.h"

static void run_path(const char *path)
{
    if (job_over_ofi())
        cr_skip_test("chooses its transport: runs in the suite over shm");
    char amo[64];
    snprintf(amo, sizeof amo, "DMSG_OFI_ATOMICS=%s", path);
    const char *const env[] = {"DMSG_TRANSPORT=ofi", "DMSG_OFI_PROVIDER=tcp;ofi_rxm", amo, NULL};
    job_result j;
    cr_assert(job_run_case("amo_ops", 3, env, &j) == 0, "could not start the job");
    int absent = job_contains(j.err, "is not a transport of this build");
    job_free(&j);
    if (absent)
        cr_skip_test("built without the ofi transport");
    static const char *const names[] = {"amo_ops", "amo_contend", "amo_nb", "signal_order",
                                        "wait_set"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        expect_case_ok(names[i], 3, env);
}

Test(ofi_amo, native, .timeout = 6 * JOB_WATCHDOG)
{
    run_path("native");
}

Test(ofi_amo, emulated, .timeout = 6 * JOB_WATCHDOG)
{
    run_path("emulated");
}

Test(ofi_amo, software, .timeout = 6 * JOB_WATCHDOG)
{
    run_path("software");
}

/* A waiting target woken by the operations to it: the native path (shm's
 * and sockets' atomics run in the target's progress) and the software path
 * (requests and replies are messages) over each provider without a
 * descriptor. */
static void run_bells(const char *prov, const char *path)
{
    if (job_over_ofi())
        cr_skip_test("chooses its transport: runs in the suite over shm");
    char p[64], amo[64];
    snprintf(p, sizeof p, "DMSG_OFI_PROVIDER=%s", prov);
    snprintf(amo, sizeof amo, "DMSG_OFI_ATOMICS=%s", path);
    const char *const env[] = {"DMSG_TRANSPORT=ofi", p, amo, NULL};
    job_result j;
    cr_assert(job_run_case("amo_ops", 2, env, &j) == 0, "could not start the job");
    int absent = job_contains(j.err, "is not a transport of this build");
    job_free(&j);
    if (absent)
        cr_skip_test("built without the ofi transport");
    static const char *const names[] = {"amo_contend", "amo_latency", "wait_set"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        expect_case_ok(names[i], 3, env);
}

Test(ofi_amo, bells_sockets, .timeout = 6 * JOB_WATCHDOG)
{
    run_bells("sockets", "auto");
}

Test(ofi_amo, bells_shm, .timeout = 6 * JOB_WATCHDOG)
{
    run_bells("shm", "auto");
}

Test(ofi_amo, bells_shm_software, .timeout = 6 * JOB_WATCHDOG)
{
    run_bells("shm", "software");
}
