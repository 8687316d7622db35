/* dmsgrun itself: help texts, bad command lines and bad settings fail with
 * a message (and never hang), and PE programs also run without dmsgrun. */
#include <criterion/criterion.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

static void require_built(void)
{
    cr_assert(access(job_path("bin/dmsgrun"), X_OK) == 0 &&
                  access(job_path("tests/pe_prog"), X_OK) == 0,
              "%s or %s missing: build first (make all tests) and set DMSG_BUILD",
              job_path("bin/dmsgrun"), job_path("tests/pe_prog"));
}

/* Runs dmsgrun with the given arguments (NULL-terminated, up to 8) and env. */
static void run_dmsgrun(const char *const *args, const char *const *env, job_result *r)
{
    const char *argv[10] = {job_path("bin/dmsgrun")};
    for (int i = 0; i < 8 && args[i]; i++)
        argv[i + 1] = args[i];
    cr_assert(job_run(argv, env, JOB_WATCHDOG, r) == 0, "could not start dmsgrun");
}

/* The job must fail quickly with a message on stderr and leave nothing. */
static void expect_fails_with_message(const char *const *args, const char *const *env,
                                      const char *must_mention)
{
    require_built();
    job_result r;
    run_dmsgrun(args, env, &r);
    cr_expect(!r.timed_out && !job_exited_ok(&r), "%s: expected failure, got %s", r.cmd,
              job_how(&r));
    cr_expect(r.seconds < JOB_PROMPT, "%s: took %.1f s to fail", r.cmd, r.seconds);
    cr_expect(r.err != NULL && r.err[0] != '\0', "%s: failed without a message on stderr", r.cmd);
    if (must_mention)
        cr_expect(job_contains(r.err, must_mention),
                  "%s: the message does not mention \"%s\":\n%s", r.cmd, must_mention,
                  job_tail(r.err, 2000));
    cr_expect(r.leftover[0] == '\0', "%s: processes left: %s", r.cmd, r.leftover);
    cr_expect(r.new_shm[0] == '\0', "%s: new /dev/shm entries: %s", r.cmd, r.new_shm);
    job_free(&r);
}

Test(dmsgrun, help)
{
    require_built();
    job_result r;
    run_dmsgrun((const char *const[]){"--help", NULL}, NULL, &r);
    cr_expect(job_exited_ok(&r), "dmsgrun --help: %s\n%s", job_how(&r), job_tail(r.err, 2000));
    cr_expect(job_contains(r.out, "usage"), "dmsgrun --help prints no usage on stdout:\n%s",
              job_tail(r.out, 2000));
    cr_expect(job_contains(r.out, "-n"), "dmsgrun --help does not mention -n:\n%s",
              job_tail(r.out, 2000));
    /* every transport of the build, ofi too */
    cr_expect(job_contains(r.out, "shm, sim, ofi"),
              "dmsgrun --help does not list the transports shm, sim, ofi:\n%s",
              job_tail(r.out, 2000));
    job_free(&r);
}

Test(dmsgrun, help_env)
{
    static const char *const names[] = {
        "DMSG_SEGMENT_SIZE", "DMSG_MAX_COUNTERS", "DMSG_TIMEOUT",    "DMSG_DEBUG",
        "DMSG_TRANSPORT",    "DMSG_SPIN",         "DMSG_TILE_BYTES",   "DMSG_COLL_SCRATCH",
    };
    require_built();
    job_result r;
    run_dmsgrun((const char *const[]){"--help-env", NULL}, NULL, &r);
    cr_expect(job_exited_ok(&r), "dmsgrun --help-env: %s\n%s", job_how(&r),
              job_tail(r.err, 2000));
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        cr_expect(r.out != NULL && strstr(r.out, names[i]) != NULL,
                  "dmsgrun --help-env does not list %s:\n%s", names[i], job_tail(r.out, 3000));
    /* Columns never run together: in every row the default starts in the
     * same column, after at least two blanks, and the help text likewise. */
    int rows = 0, def_col = -1, help_col = -1;
    for (const char *line = r.out; line && *line;
         line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "") {
        if (strncmp(line, "  DMSG_", 7) != 0)
            continue;
        const char *d = strstr(line, "default ");
        cr_assert(d && d - line > 2 && d[-1] == ' ' && d[-2] == ' ', "row without its gap: %.80s",
                  line);
        const char *v = d + 8, *h = v + strcspn(v, " ");
        cr_assert(h[0] == ' ' && h[1] == ' ', "default runs into the help text: %.80s", line);
        while (*h == ' ')
            h++;
        if (def_col < 0) {
            def_col = (int)(d - line);
            help_col = (int)(h - line);
        }
        cr_expect(d - line == def_col && h - line == help_col, "row out of its columns: %.80s",
                  line);
        rows++;
    }
    cr_expect(rows >= (int)(sizeof names / sizeof names[0]), "only %d rows in --help-env", rows);
    job_free(&r);
}

Test(dmsgrun, zero_pes)
{
    expect_fails_with_message((const char *const[]){"-n", "0", job_path("tests/pe_prog"),
                                                    "sync_empty", NULL},
                              NULL, NULL);
}

Test(dmsgrun, negative_pes)
{
    expect_fails_with_message((const char *const[]){"-n", "-2", job_path("tests/pe_prog"),
                                                    "sync_empty", NULL},
                              NULL, NULL);
}

Test(dmsgrun, garbage_pes)
{
    expect_fails_with_message((const char *const[]){"-n", "two", job_path("tests/pe_prog"),
                                                    "sync_empty", NULL},
                              NULL, NULL);
}

/* The PE limit (DMSG_MAX_PES, 4096): one more is refused naming the range;
 * 4096 passes the count and fails only at the next check (a bad segment
 * size, read before any PE is started), so no 4096-process job runs here. */
Test(dmsgrun, pe_limit)
{
    expect_fails_with_message((const char *const[]){"-n", "4097", job_path("tests/pe_prog"),
                                                    "sync_empty", NULL},
                              NULL, "the number of PEs must be 1..4096");
    static const char *const env[] = {"DMSG_SEGMENT_SIZE=garbage", NULL};
    job_result r;
    run_dmsgrun((const char *const[]){"-n", "4096", job_path("tests/pe_prog"), "sync_empty", NULL},
                env, &r);
    cr_expect(!job_exited_ok(&r) && job_contains(r.err, "DMSG_SEGMENT_SIZE") &&
                  !job_contains(r.err, "number of PEs"),
              "%s: 4096 PEs must pass the count:\n%s", r.cmd, job_tail(r.err, 2000));
    job_free(&r);
}

Test(dmsgrun, no_program)
{
    expect_fails_with_message((const char *const[]){"-n", "2", NULL}, NULL, NULL);
}

Test(dmsgrun, missing_program)
{
    expect_fails_with_message((const char *const[]){"-n", "2", "./no-such-dmsg-program", NULL},
                              NULL, "no-such-dmsg-program");
}

Test(dmsgrun, bad_transport)
{
    expect_fails_with_message((const char *const[]){"-n", "2", "-t", "carrier-pigeon",
                                                    job_path("tests/pe_prog"), "sync_empty", NULL},
                              NULL, "carrier-pigeon");
    /* and lists the transports there are, ofi too */
    expect_fails_with_message((const char *const[]){"-n", "2", "-t", "carrier-pigeon",
                                                    job_path("tests/pe_prog"), "sync_empty", NULL},
                              NULL, "shm, sim, ofi");
}

Test(dmsgrun, segment_size_garbage)
{
    static const char *const env[] = {"DMSG_SEGMENT_SIZE=garbage", NULL};
    expect_fails_with_message((const char *const[]){"-n", "2", job_path("tests/pe_prog"),
                                                    "sync_empty", NULL},
                              env, "DMSG_SEGMENT_SIZE");
}

Test(dmsgrun, max_counters_garbage)
{
    static const char *const env[] = {"DMSG_MAX_COUNTERS=lots", NULL};
    expect_fails_with_message((const char *const[]){"-n", "2", job_path("tests/pe_prog"),
                                                    "sync_empty", NULL},
                              env, "DMSG_MAX_COUNTERS");
}

Test(dmsgrun, explicit_shm_and_separator, .timeout = 2 * JOB_WATCHDOG)
{
    require_built();
    job_result r;
    run_dmsgrun((const char *const[]){"-n", "2", "-t", "shm", "--", job_path("tests/pe_prog"),
                                      NULL},
                NULL, &r);
    /* pe_prog without a case name exits 2 on every PE: the status must be non-zero */
    cr_expect(!r.timed_out && !job_exited_ok(&r), "%s: expected failure, got %s", r.cmd,
              job_how(&r));
    job_free(&r);
    run_dmsgrun((const char *const[]){"-n", "2", "-t", "shm", "--", job_path("tests/pe_prog"),
                                      "sync_empty", NULL},
                NULL, &r);
    cr_expect(job_exited_ok(&r), "%s: %s\n%s", r.cmd, job_how(&r), job_tail(r.err, 2000));
    cr_expect(r.leftover[0] == '\0', "%s: processes left: %s", r.cmd, r.leftover);
    job_free(&r);
}

/* dmsg never prints on a user error unless DMSG_DEBUG asks for it. */
Test(dmsgrun, quiet_errors_unless_debug, .timeout = 3 * JOB_WATCHDOG)
{
    require_built();
    static const char *const quiet[] = {"DMSG_DEBUG", NULL};
    static const char *const debug[] = {"DMSG_DEBUG=1", NULL};
    job_result r;
    job_run_case("err_range", 2, quiet, &r);
    cr_expect(job_exited_ok(&r), "%s: %s\n%s", r.cmd, job_how(&r), job_tail(r.err, 2000));
    cr_expect(r.err != NULL && r.err[0] == '\0',
              "%s: something was printed on stderr without DMSG_DEBUG:\n%s", r.cmd,
              job_tail(r.err, 2000));
    job_free(&r);
    job_run_case("err_range", 2, debug, &r);
    cr_expect(job_exited_ok(&r), "%s: %s\n%s", r.cmd, job_how(&r), job_tail(r.err, 2000));
    cr_expect(r.err != NULL && r.err[0] != '\0',
              "%s: DMSG_DEBUG=1 printed no diagnostics for the range errors", r.cmd);
    job_free(&r);
}

/* A program started without dmsgrun is a 1-PE job. */
static void expect_direct_ok(const char *case_name, const char *const *env)
{
    require_built();
    const char *argv[] = {job_path("tests/pe_prog"), case_name, NULL};
    job_result r;
    cr_assert(job_run(argv, env, JOB_WATCHDOG, &r) == 0, "could not start pe_prog");
    cr_expect(job_exited_ok(&r), "%s: %s\n%s", r.cmd, job_how(&r), job_tail(r.err, 3000));
    cr_expect(r.leftover[0] == '\0', "%s: processes left: %s", r.cmd, r.leftover);
    cr_expect(r.new_shm[0] == '\0', "%s: new /dev/shm entries: %s", r.cmd, r.new_shm);
    job_free(&r);
}

static const char *const direct_env[] = {JOB_DMSG_TIMEOUT, NULL};

Test(singleton, deposit_sizes, .timeout = 2 * JOB_WATCHDOG)
{
    expect_direct_ok("deposit_sizes", direct_env);
}
Test(singleton, section_transpose, .timeout = 2 * JOB_WATCHDOG)
{
    expect_direct_ok("section_transpose", direct_env);
}
Test(singleton, err_lifecycle, .timeout = 2 * JOB_WATCHDOG)
{
    expect_direct_ok("err_lifecycle", direct_env);
}
Test(singleton, env_bad_settings, .timeout = 2 * JOB_WATCHDOG)
{
    expect_direct_ok("env_bad_settings", direct_env);
}
/* Two jobs in one process: the first one's plan, postal and RRMSG state,
 * never ended by the program, ends with its dmsg_finalize. */
Test(singleton, job_state_ends_at_finalize, .timeout = 2 * JOB_WATCHDOG)
{
    expect_direct_ok("job_state_ends_at_finalize", direct_env);
}
Test(singleton, crash_is_plain_failure, .timeout = 2 * JOB_WATCHDOG)
{
    require_built();
    const char *argv[] = {job_path("tests/pe_prog"), "crash_exit", NULL};
    job_result r;
    cr_assert(job_run(argv, direct_env, JOB_WATCHDOG, &r) == 0, "could not start pe_prog");
    cr_expect(!r.timed_out && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 3,
              "%s: expected exit 3, got %s", r.cmd, job_how(&r));
    job_free(&r);
}
