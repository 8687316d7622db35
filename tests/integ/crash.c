/* Failing jobs: dmsgrun must exit non-zero within 10 s, name the failing PE
 * and how it failed on stderr, and leave no process and no /dev/shm entry.
 * DMSG_TIMEOUT is unset so that only the teardown can end the survivors'
 * waits. */
#include <criterion/criterion.h>
#include <unistd.h>

#include "harness.h"

typedef struct crash_case {
    const char *name;
    int npes;
    int victim;
    const char *how[3]; /* stderr must contain one of these (case-insensitive) */
} crash_case;

static void expect_crash(const crash_case *c)
{
    static const char *const env[] = {"DMSG_TIMEOUT", NULL};
    cr_assert(access(job_path("bin/dmsgrun"), X_OK) == 0, "%s missing: build first",
              job_path("bin/dmsgrun"));
    job_result r;
    cr_assert(job_run_case(c->name, c->npes, env, &r) == 0, "could not start the job");
    const char *err = job_tail(r.err, 3000);
    cr_expect(!r.timed_out && !job_exited_ok(&r),
              "%s on %d PEs: expected a non-zero exit, got %s\n--- stderr:\n%s", c->name, c->npes,
              job_how(&r), err);
    cr_expect(r.seconds < JOB_PROMPT, "%s on %d PEs: the job took %.1f s to end (limit %.0f s)",
              c->name, c->npes, r.seconds, JOB_PROMPT);
    cr_expect(job_names_pe(r.err, c->victim),
              "%s on %d PEs: stderr does not name the failing PE %d\n--- stderr:\n%s", c->name,
              c->npes, c->victim, err);
    int how = 0;
    for (int i = 0; i < 3 && c->how[i]; i++)
        how |= job_contains(r.err, c->how[i]);
    cr_expect(how, "%s on %d PEs: stderr does not say how PE %d failed (looked for \"%s\")\n"
                   "--- stderr:\n%s",
              c->name, c->npes, c->victim, c->how[0], err);
    cr_expect(r.leftover[0] == '\0', "%s on %d PEs: processes left after the job: %s", c->name,
              c->npes, r.leftover);
    cr_expect(r.new_shm[0] == '\0', "%s on %d PEs: new /dev/shm entries: %s", c->name, c->npes,
              r.new_shm);
    cr_expect(!job_contains(r.out, "BUG"), "%s on %d PEs: a survivor reported:\n%s", c->name,
              c->npes, job_tail(r.out, 2000));
    job_free(&r);
}

#define SEGV_HOW {"SIGSEGV", "signal 11", "segmentation"}
#define EXIT_HOW {"status 3", "code 3", "exit 3"}
#define FINALIZE_HOW {"finaliz", NULL, NULL}

Test(crash, segv_1pe, .timeout = 2 * JOB_WATCHDOG)
{
    expect_crash(&(crash_case){"crash_segv", 1, 0, SEGV_HOW});
}
Test(crash, segv_2pe, .timeout = 2 * JOB_WATCHDOG)
{
    expect_crash(&(crash_case){"crash_segv", 2, 1, SEGV_HOW});
}
Test(crash, segv_4pe, .timeout = 2 * JOB_WATCHDOG)
{
    expect_crash(&(crash_case){"crash_segv", 4, 3, SEGV_HOW});
}
/* Exactly as the kernel says: no library's handler may turn a crash into
 * an exit (over ofi, libfabric's psm dependency installed such handlers). */
Test(crash, segv_is_a_signal, .timeout = 2 * JOB_WATCHDOG)
{
    expect_crash(&(crash_case){"crash_segv_plain", 2, 1, {"killed by signal 11", NULL, NULL}});
}
Test(crash, exit3_2pe, .timeout = 2 * JOB_WATCHDOG)
{
    expect_crash(&(crash_case){"crash_exit", 2, 1, EXIT_HOW});
}
Test(crash, exit3_4pe, .timeout = 2 * JOB_WATCHDOG)
{
    expect_crash(&(crash_case){"crash_exit", 4, 1, EXIT_HOW});
}
Test(crash, no_finalize_1pe, .timeout = 2 * JOB_WATCHDOG)
{
    expect_crash(&(crash_case){"no_finalize", 1, 0, FINALIZE_HOW});
}
Test(crash, no_finalize_3pe, .timeout = 2 * JOB_WATCHDOG)
{
    expect_crash(&(crash_case){"no_finalize", 3, 0, FINALIZE_HOW});
}
Test(crash, no_finalize_4pe, .timeout = 2 * JOB_WATCHDOG)
{
    expect_crash(&(crash_case){"no_finalize", 4, 0, FINALIZE_HOW});
}
