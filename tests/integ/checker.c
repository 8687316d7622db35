/* The checker for well-synchronized programs (DMSG_CHECK=1) against its
 * corpus (tests/pe/checks.c), over shm and sim, on 2 and 3 PEs: every
 * incorrect program is reported (with both PEs and the epoch), no correct
 * one is, and nothing is reported with the checker off. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

typedef struct chk_run {
    const char *transport;
    int npes;
} chk_run;

static const chk_run runs[] = {{"shm", 2}, {"shm", 3}, {"sim", 2}, {"sim", 3}};
/* Criterion passes parameters by copy: indexes into runs[]. */
static int run_ids[] = {0, 1, 2, 3};

static job_result run_checked(const char *pe_case, const chk_run *r, int check)
{
    if (job_over_ofi())
        cr_skip_test("chooses its transports: runs in the suite over shm");
    char tp[32];
    snprintf(tp, sizeof tp, "DMSG_TRANSPORT=%s", r->transport);
    const char *env[] = {tp, check ? "DMSG_CHECK=1" : "DMSG_CHECK=0", NULL};
    job_result j;
    cr_assert(job_run_case(pe_case, r->npes, env, &j) == 0, "could not start %s", pe_case);
    cr_expect(job_exited_ok(&j), "%s: %s\n%s", j.cmd, job_how(&j), job_tail(j.err, 3000));
    return j;
}

/* A bad case must be reported, naming the PEs involved and the kind. */
static void expect_reported(const char *pe_case, const chk_run *r, const char *what, int pe_a,
                            int pe_b)
{
    job_result j = run_checked(pe_case, r, 1);
    cr_expect(job_contains(j.err, "dmsg check:"), "%s: not reported:\n%s", j.cmd,
              job_tail(j.err, 3000));
    cr_expect(job_contains(j.err, what), "%s: the report does not say \"%s\":\n%s", j.cmd, what,
              job_tail(j.err, 3000));
    cr_expect(job_contains(j.err, "epoch"), "%s: the report names no epoch:\n%s", j.cmd,
              job_tail(j.err, 3000));
    cr_expect(job_names_pe(j.err, pe_a) && job_names_pe(j.err, pe_b),
              "%s: the report does not name PEs %d and %d:\n%s", j.cmd, pe_a, pe_b,
              job_tail(j.err, 3000));
    cr_expect(job_contains(j.err, "called from"), "%s: the report has no call site:\n%s", j.cmd,
              job_tail(j.err, 3000));
    job_free(&j);
    /* With the checker off, the same program runs silently. */
    if (strcmp(pe_case, "chk_bad_await") != 0) {
        j = run_checked(pe_case, r, 0);
        cr_expect(!job_contains(j.err, "dmsg check:"), "%s: reported with DMSG_CHECK=0:\n%s",
                  j.cmd, job_tail(j.err, 3000));
        job_free(&j);
    }
}

static void expect_clean(const char *pe_case, const chk_run *r)
{
    job_result j = run_checked(pe_case, r, 1);
    cr_expect(!job_contains(j.err, "dmsg check:"), "%s: a correct program was reported:\n%s",
              j.cmd, job_tail(j.err, 3000));
    cr_expect(j.leftover[0] == '\0', "%s: processes left: %s", j.cmd, j.leftover);
    job_free(&j);
}

#define BAD(name, what, a, b)                                                                      \
    ParameterizedTestParameters(checker, name)                                                     \
    {                                                                                              \
        return cr_make_param_array(int, run_ids, sizeof run_ids / sizeof run_ids[0]);             \
    }                                                                                              \
    ParameterizedTest(int *id, checker, name, .timeout = 4 * JOB_WATCHDOG)                         \
    {                                                                                              \
        const chk_run *r = &runs[*id];                                                             \
        expect_reported(#name, r, what, a, (b) < 0 ? (r->npes > 2 ? 2 : 0) : (b));                \
    }

#define OK(name)                                                                                   \
    ParameterizedTestParameters(checker, name)                                                     \
    {                                                                                              \
        return cr_make_param_array(int, run_ids, sizeof run_ids / sizeof run_ids[0]);             \
    }                                                                                              \
    ParameterizedTest(int *id, checker, name, .timeout = 2 * JOB_WATCHDOG)                         \
    {                                                                                              \
        expect_clean(#name, &runs[*id]);                                                           \
    }

#define WW "two deposits write the same bytes"
#define WR "a fetch or read of bytes that another PE deposits"

BAD(chk_bad_ww, WW, 0, 1)
BAD(chk_bad_fetch, WR, 1, -1)
BAD(chk_bad_local_read, WR, 0, 1)
BAD(chk_bad_self_deposit, WW, 0, 1)
BAD(chk_bad_section, WW, 0, 1)
BAD(chk_bad_indexed, WW, 0, 1)
BAD(chk_bad_adp, WW, 0, 1)
BAD(chk_bad_await, "can never complete", 0, 0)
BAD(chk_bad_await_fewer, WR, 0, 1)
BAD(chk_bad_freed, "not in an allocated block", 1, 0)
BAD(chk_bad_late, WW, 0, 1)

OK(chk_ok_transpose)
OK(chk_ok_epochs)
OK(chk_ok_fetch_after_sync)
OK(chk_ok_counters)
OK(chk_ok_reads)
OK(chk_ok_collective_epoch)
OK(chk_ok_halo)
OK(chk_ok_pipeline)
OK(chk_ok_random_scatter)
OK(chk_ok_await_all)
/* The collectives' scratch lies below the checker's window, not over it. */
OK(chk_ok_coll_mixed)

/* A log far larger than the window (a 64K segment leaves 16K for it) is
 * passed on in rounds: the conflict at its end is still found, and nothing
 * is said to be unchecked. */
Test(checker, log_larger_than_window, .timeout = 4 * JOB_WATCHDOG)
{
    if (job_over_ofi())
        cr_skip_test("chooses its transports: runs in the suite over shm");
    static const char *const env[] = {"DMSG_TRANSPORT=shm", "DMSG_CHECK=1",
                                      "DMSG_SEGMENT_SIZE=64K", NULL};
    job_result j;
    cr_assert(job_run_case("chk_bad_late", 2, env, &j) == 0, "could not start the job");
    cr_expect(job_exited_ok(&j), "%s: %s\n%s", j.cmd, job_how(&j), job_tail(j.err, 3000));
    cr_expect(job_contains(j.err, WW) && job_names_pe(j.err, 0) && job_names_pe(j.err, 1),
              "%s: the conflict after the first window was missed:\n%s", j.cmd,
              job_tail(j.err, 3000));
    cr_expect(!job_contains(j.err, "not checked"), "%s: part of the run went unchecked:\n%s",
              j.cmd, job_tail(j.err, 3000));
    job_free(&j);
    /* The same with a window set by DMSG_CHECK_LOG, on 3 PEs (more rounds). */
    static const char *const env8k[] = {"DMSG_TRANSPORT=shm", "DMSG_CHECK=1",
                                        "DMSG_CHECK_LOG=8K", NULL};
    cr_assert(job_run_case("chk_bad_late", 3, env8k, &j) == 0, "could not start the job");
    cr_expect(job_exited_ok(&j), "%s: %s\n%s", j.cmd, job_how(&j), job_tail(j.err, 3000));
    cr_expect(job_contains(j.err, WW) && !job_contains(j.err, "not checked"),
              "%s: the conflict after the first window was missed:\n%s", j.cmd,
              job_tail(j.err, 3000));
    job_free(&j);
    /* A window too small, or larger than half the segment, is refused. */
    static const char *const bad[] = {"DMSG_TRANSPORT=shm", "DMSG_CHECK=1", "DMSG_CHECK_LOG=1K",
                                      NULL};
    cr_assert(job_run_case("chk_ok_epochs", 2, bad, &j) == 0, "could not start the job");
    cr_expect(!job_exited_ok(&j) && job_contains(j.err, "DMSG_CHECK_LOG"),
              "%s: DMSG_CHECK_LOG=1K was not refused: %s\n%s", j.cmd, job_how(&j),
              job_tail(j.err, 3000));
    job_free(&j);
}

/* Over ofi the checker reads the other PEs' logs with RMA reads: a bad case
 * is reported and a correct one is not (the corpus itself runs over shm and
 * sim; ofi jobs start slowly). */
Test(checker, works_over_ofi, .timeout = 4 * JOB_WATCHDOG)
{
    if (job_over_ofi())
        cr_skip_test("chooses its transport: runs in the suite over shm");
    static const char *const env[] = {"DMSG_TRANSPORT=ofi", "DMSG_OFI_PROVIDER=shm",
                                      "DMSG_CHECK=1", NULL};
    job_result j;
    cr_assert(job_run_case("chk_bad_ww", 2, env, &j) == 0, "could not start the job");
    if (job_contains(j.err, "is not a transport of this build"))
        cr_skip_test("built without the ofi transport");
    cr_expect(job_exited_ok(&j), "%s: %s\n%s", j.cmd, job_how(&j), job_tail(j.err, 3000));
    cr_expect(job_contains(j.err, "two deposits write the same bytes") && job_names_pe(j.err, 0) &&
                  job_names_pe(j.err, 1),
              "%s: not reported with both PEs:\n%s", j.cmd, job_tail(j.err, 3000));
    job_free(&j);
    cr_assert(job_run_case("chk_ok_halo", 2, env, &j) == 0, "could not start the job");
    cr_expect(job_exited_ok(&j) && !job_contains(j.err, "dmsg check:"), "%s: %s\n%s", j.cmd,
              job_how(&j), job_tail(j.err, 3000));
    job_free(&j);
}

/* The examples are well-synchronized programs of real size. */
Test(checker, examples_are_clean, .timeout = 8 * JOB_WATCHDOG)
{
    if (job_over_ofi())
        cr_skip_test("chooses its transport: runs in the suite over shm");
    static const char *const ex[][3] = {
        {"examples/hello", NULL, NULL},
        {"examples/transpose", "96", "3"},
        {"examples/halo", "60", "200"},
        {"examples/gather", "600", "500"},
    };
    static const char *const env[] = {"DMSG_TRANSPORT=shm", "DMSG_CHECK=1", NULL};
    for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
        const char *argv[] = {job_path("bin/dmsgrun"), "-n", "4", job_path(ex[i][0]), ex[i][1],
                              ex[i][2], NULL};
        job_result j;
        cr_assert(job_run(argv, env, JOB_WATCHDOG, &j) == 0, "could not start %s", ex[i][0]);
        cr_expect(job_exited_ok(&j), "%s: %s\n%s", j.cmd, job_how(&j), job_tail(j.err, 2000));
        cr_expect(!job_contains(j.err, "dmsg check:"), "%s: reported:\n%s", j.cmd,
                  job_tail(j.err, 3000));
        job_free(&j);
    }
}
