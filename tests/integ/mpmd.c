/* dmsgrun's MPMD form (`PROG ARGS : -n M PROG2 ARGS`, as mpiexec has):
 * the blocks run their own programs as one job, each PE learns its block
 * (DMSG_APPNUM, DMSG_APP_SIZES), and a malformed block fails with a
 * message before anything starts. */
#include <criterion/criterion.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

static void run(const char *const *args, job_result *r)
{
    const char *argv[16] = {job_path("bin/dmsgrun")};
    for (int i = 0; i < 14 && args[i]; i++)
        argv[i + 1] = args[i];
    cr_assert(access(argv[0], X_OK) == 0, "%s missing: build first", argv[0]);
    cr_assert(job_run(argv, NULL, JOB_WATCHDOG, r) == 0, "could not start dmsgrun");
}

static void fails(const char *const *args, const char *must_mention)
{
    job_result r;
    run(args, &r);
    cr_expect(!r.timed_out && !job_exited_ok(&r), "%s: expected failure, got %s", r.cmd,
              job_how(&r));
    cr_expect(job_contains(r.err, must_mention), "%s: the message does not mention \"%s\":\n%s",
              r.cmd, must_mention, job_tail(r.err, 2000));
    cr_expect(r.leftover[0] == '\0', "%s: processes left: %s", r.cmd, r.leftover);
    job_free(&r);
}

Test(mpmd, blocks_form_one_job, .timeout = 2 * JOB_WATCHDOG)
{
    job_result r;
    const char *prog = job_path("tests/pe_prog");
    run((const char *const[]){"-n", "2", prog, "sync_empty", ":", "-n", "1", prog, "sync_empty",
                              ":", "--npes=1", prog, "sync_empty", NULL},
        &r);
    cr_expect(job_exited_ok(&r), "%s: %s\n%s", r.cmd, job_how(&r), job_tail(r.err, 2000));
    job_free(&r);
}

Test(mpmd, each_pe_knows_its_block, .timeout = 2 * JOB_WATCHDOG)
{
    job_result r;
    run((const char *const[]){"-n", "1", "sh", "-c", "echo first $DMSG_APPNUM $DMSG_APP_SIZES",
                              ":", "-n2", "sh", "-c", "echo second $DMSG_APPNUM $DMSG_APP_SIZES",
                              NULL},
        &r);
    cr_expect(job_exited_ok(&r), "%s: %s", r.cmd, job_how(&r));
    cr_expect(job_contains(r.out, "first 0 1,2"), "%s:\n%s", r.cmd, r.out);
    /* the PEs' lines interleave in any order: count them */
    int seconds = 0;
    for (const char *q = r.out; q && (q = strstr(q, "second 1 1,2")) != NULL; q++)
        seconds++;
    cr_expect_eq(seconds, 2, "%s:\n%s", r.cmd, r.out);
    job_free(&r);
    /* one block: no block variables at all */
    run((const char *const[]){"-n", "2", "sh", "-c", "echo one ${DMSG_APPNUM-unset}", NULL}, &r);
    int ones = 0;
    for (const char *q = r.out; q && (q = strstr(q, "one unset")) != NULL; q++)
        ones++;
    cr_expect_eq(ones, 2, "%s:\n%s", r.cmd, r.out);
    job_free(&r);
}

Test(mpmd, malformed_blocks_fail)
{
    const char *prog = job_path("tests/pe_prog");
    fails((const char *const[]){prog, "sync_empty", ":", NULL}, "no program");
    fails((const char *const[]){prog, "sync_empty", ":", "-n", "3", NULL}, "no program");
    fails((const char *const[]){prog, "sync_empty", ":", ":", prog, NULL}, "no program");
    fails((const char *const[]){prog, "sync_empty", ":", "-n", "0", prog, NULL}, "-n 0");
    fails((const char *const[]){prog, "sync_empty", ":", "-n", "many", prog, NULL}, "-n many");
    /* more than DMSG_MAX_PES (4096) in all, each block within it */
    fails((const char *const[]){"-n", "4000", prog, ":", "-n", "100", prog, NULL}, "PEs in all");
    fails((const char *const[]){"-n", "4000", prog, ":", "-n", "97", prog, NULL}, "at most 4096");
}
