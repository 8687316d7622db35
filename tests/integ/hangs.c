/* A job that hangs without an error is described, not silent: with nothing
 * changing for DMSG_STALL_REPORT seconds while a PE waits in dmsg, dmsgrun
 * says which PE waits in which call and which runs outside dmsg. The jobs
 * never end by themselves (DMSG_TIMEOUT unset); the test stops dmsgrun. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

static const char *const env[] = {"DMSG_TIMEOUT", "DMSG_STALL_REPORT=1", NULL};

/* Runs the case until a report is complete (its last line says when the
 * next comes), or 90 s at most (start-up over ofi on a loaded host takes
 * seconds), or, without until, for 4 s; then stops dmsgrun. */
static job_result run_hang(const char *pe_case, const char *const *with_env, const char *until)
{
    cr_assert(access(job_path("bin/dmsgrun"), X_OK) == 0 &&
                  access(job_path("tests/pe_prog"), X_OK) == 0,
              "build first (make all tests) and set DMSG_BUILD");
    const char *argv[] = {job_path("bin/dmsgrun"), "-n", "3", job_path("tests/pe_prog"), pe_case,
                          NULL};
    job_result r;
    cr_assert(job_run_until(argv, with_env, JOB_WATCHDOG, until, until ? 90.0 : 4.0, SIGTERM,
                            &r) == 0,
              "could not start dmsgrun");
    cr_expect(!r.timed_out, "%s: %s", r.cmd, job_how(&r));
    cr_expect(r.leftover[0] == '\0', "%s: processes left: %s", r.cmd, r.leftover);
    return r;
}

/* The line of the report that describes PE pe, or NULL. */
static const char *report_line(const char *err, int pe, char *line, size_t len)
{
    char key[32];
    snprintf(key, sizeof key, "  PE %d (pid", pe);
    const char *p = err ? strstr(err, key) : NULL;
    if (!p)
        return NULL;
    size_t n = strcspn(p, "\n");
    snprintf(line, len, "%.*s", (int)n, p);
    return line;
}

static void expect_line(const job_result *r, int pe, const char *what)
{
    char line[256];
    const char *l = report_line(r->err, pe, line, sizeof line);
    cr_expect(l != NULL && strstr(l, what) != NULL,
              "%s: the report does not say that PE %d %s:\n%s", r->cmd, pe, what,
              job_tail(r->err, 3000));
}

/* Over the simulator only the PE that holds the run token runs: PE 2,
 * the last to reach dmsg_init's closing barrier, completes it and spins
 * with the token; PEs 0 and 1 wait in that barrier for ever (a program must
 * not spin outside dmsg there, docs/simulator.md). Before dmsg_init's
 * barrier was marked as a wait, no PE waited in a marked call and the job
 * was never reported. */
/* Runs pe_case until its report is complete and wants PE p's line to say
 * what[p] (3 PEs). */
static void expect_report(const char *pe_case, const char *const *tenv, const char *const what[3])
{
    job_result r = run_hang(pe_case, tenv, "Next report");
    cr_expect(job_contains(r.err, "no progress"), "%s: no report of the hang:\n%s", r.cmd,
              job_tail(r.err, 3000));
    for (int pe = 0; pe < 3; pe++)
        expect_line(&r, pe, what[pe]);
    job_free(&r);
}

static void expect_spin_report_sim(const char *const *tenv)
{
    static const char *const what[3] = {"waits in dmsg_init", "waits in dmsg_init",
                                        "runs outside dmsg"};
    expect_report("hang_spin", tenv, what);
}

Test(hangs, spinning_pe_is_reported_on_sim, .timeout = 2 * JOB_WATCHDOG)
{
    if (job_over_ofi())
        cr_skip_test("chooses its transport: runs in the suite over shm");
    static const char *const sim[] = {"DMSG_TIMEOUT", "DMSG_STALL_REPORT=1", "DMSG_TRANSPORT=sim",
                                      "DMSG_MACHINE=t3d", NULL};
    expect_spin_report_sim(sim);
}

Test(hangs, spinning_pe_is_reported, .timeout = 2 * JOB_WATCHDOG)
{
    if (job_over_sim()) {
        expect_spin_report_sim(env);
        return;
    }
    static const char *const what[3] = {"waits in dmsg_sync", "runs outside dmsg",
                                        "runs outside dmsg"};
    expect_report("hang_spin", env, what);
}

Test(hangs, early_finalize_is_reported, .timeout = 2 * JOB_WATCHDOG)
{
    static const char *const what[3] = {"waits in dmsg_finalize", "waits in dmsg_await",
                                        "waits in dmsg_await"};
    expect_report("hang_early_finalize", env, what);
}

/* DMSG_STALL_REPORT=0 turns the reports off. */
Test(hangs, report_can_be_turned_off, .timeout = 2 * JOB_WATCHDOG)
{
    static const char *const off[] = {"DMSG_TIMEOUT", "DMSG_STALL_REPORT=0", NULL};
    job_result r = run_hang("hang_spin", off, NULL);
    cr_expect(!job_contains(r.err, "no progress"), "%s: reported although turned off:\n%s", r.cmd,
              job_tail(r.err, 3000));
    job_free(&r);
}

/* A job whose PEs are in dmsg_sync most of the time for 12 s, barrier after
 * barrier, progresses: no report, although each sample of the wait words
 * is likely to find them in dmsg_sync. The limit is 4 s, so a detector
 * that mistook waiting for a stall would report three times in the run;
 * over ofi's tcp provider on a loaded host one barrier alone has taken more
 * than 0.3 s, and at a load of 20 a PE may wait a second for a core. */
Test(hangs, progressing_job_is_not_reported, .timeout = 2 * JOB_WATCHDOG)
{
    static const char *const quick[] = {JOB_DMSG_TIMEOUT, "DMSG_STALL_REPORT=4", "PE_BUSY_S=12",
                                        NULL};
    job_result r;
    cr_assert(job_run_case("busy_syncs", 3, quick, &r) == 0, "could not start the job");
    cr_expect(job_exited_ok(&r), "%s: %s\n%s", r.cmd, job_how(&r), job_tail(r.err, 2000));
    cr_expect(!job_contains(r.err, "no progress"), "%s: a progressing job was reported:\n%s",
              r.cmd, job_tail(r.err, 3000));
    job_free(&r);
}

/* One rule for every transport: a wait that lasts longer than DMSG_TIMEOUT
 * returns DMSG_ERR_TIMEOUT (err_timeout: dmsg_await and dmsg_await_bytes of
 * a counter that never fills, after about 2 s, and the job goes on), and no
 * transport has a limit of its own. Each transport is chosen here, so
 * these run once, in the suite over shm. */
static void expect_timeout_on(const char *transport)
{
    if (job_over_ofi())
        cr_skip_test("chooses its transport: runs in the suite over shm");
    char tp[64], prov[128];
    snprintf(tp, sizeof tp, "DMSG_TRANSPORT=%s", transport);
    const char *p = getenv("DMSG_OFI_PROVIDER");
    snprintf(prov, sizeof prov, "DMSG_OFI_PROVIDER=%s", p ? p : "tcp;ofi_rxm");
    const char *const tenv[] = {tp, prov, "DMSG_TIMEOUT=2", NULL};
    job_result r;
    /* The limit bounds dmsg_init's start-up barrier too: on a loaded host
     * (a 1024-PE job beside the suite) a PE of this job has started more
     * than 2 s after the other, which is not what this test is about. */
    cr_assert(job_run_case_started("err_timeout", 2, tenv, &r) == 0, "could not start the job");
    if (job_contains(r.err, "is not a transport of this build"))
        cr_skip_test("built without the %s transport", transport);
    cr_expect(job_exited_ok(&r), "%s (%s): %s\n%s", r.cmd, transport, job_how(&r),
              job_tail(r.err, 3000));
    cr_expect(r.leftover[0] == '\0', "%s: processes left: %s", r.cmd, r.leftover);
    job_free(&r);
}

Test(hangs, timeout_ends_a_wait_on_shm, .timeout = 2 * JOB_WATCHDOG)
{
    expect_timeout_on("shm");
}

Test(hangs, timeout_ends_a_wait_on_sim, .timeout = 2 * JOB_WATCHDOG)
{
    expect_timeout_on("sim");
}

Test(hangs, timeout_ends_a_wait_on_ofi, .timeout = 2 * JOB_WATCHDOG)
{
    expect_timeout_on("ofi");
}

/* Without DMSG_TIMEOUT no wait is bounded, over ofi too: a PE that awaits
 * a deposit which PE 0 makes after 3 s of work gets it. ofi used to end
 * such waits after DMSG_OFI_TIMEOUT (default 60 s; 1 s here), which no
 * longer exists: a variable of that name changes nothing. */
Test(hangs, ofi_waits_have_no_limit_of_their_own, .timeout = 2 * JOB_WATCHDOG)
{
    if (job_over_ofi())
        cr_skip_test("chooses its transport: runs in the suite over shm");
    const char *p = getenv("DMSG_OFI_PROVIDER");
    char prov[128];
    snprintf(prov, sizeof prov, "DMSG_OFI_PROVIDER=%s", p ? p : "tcp;ofi_rxm");
    const char *const oenv[] = {"DMSG_TRANSPORT=ofi", prov, "DMSG_TIMEOUT", "DMSG_OFI_TIMEOUT=1",
                               NULL};
    job_result r;
    cr_assert(job_run_case("late_deposit", 2, oenv, &r) == 0, "could not start the job");
    if (job_contains(r.err, "is not a transport of this build"))
        cr_skip_test("built without the ofi transport");
    cr_expect(job_exited_ok(&r), "%s: %s\n%s", r.cmd, job_how(&r), job_tail(r.err, 3000));
    cr_expect(!job_contains(r.err, "timed out") && !job_contains(r.err, "TIMEOUT"),
              "%s: a wait was bounded:\n%s", r.cmd, job_tail(r.err, 3000));
    job_free(&r);
}
