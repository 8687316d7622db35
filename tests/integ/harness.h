/* Runs dmsg jobs for the integration suite: dmsgrun (or a program alone)
 * with captured stdout/stderr, a watchdog that kills the whole job after a
 * deadline, and checks that the job left no process and none of its
 * processes left a /dev/shm entry.
 *
 * Paths come from $DMSG_BUILD (default "build"): $DMSG_BUILD/bin/dmsgrun
 * and $DMSG_BUILD/tests/pe_prog. */
#ifndef DMSG_TEST_HARNESS_H
#define DMSG_TEST_HARNESS_H

#include <stddef.h>

/* Time bounds catch hangs only; they never judge speed. Each holds with a
 * wide margin on a 2-core host at a load of 20 (every job then gets a small
 * share of a core), because a job that hangs is stopped by the watchdog
 * whatever its value.
 * JOB_WATCHDOG: seconds before the watchdog kills a job and the test fails.
 * JOB_PROMPT: "ends within seconds" (a crashed PE's job, a bad command line):
 *   without the mechanism under test such a job would never end.
 * JOB_DMSG_TIMEOUT: the DMSG_TIMEOUT jobs get unless a test sets it, so that
 *   a wait that never ends inside dmsg is reported by the PE that waits. */
#define JOB_WATCHDOG 180.0
#define JOB_PROMPT 60.0
#define JOB_DMSG_TIMEOUT "DMSG_TIMEOUT=100"

typedef struct job_result {
    int status;        /* raw wait status of dmsgrun (or of the program) */
    int timed_out;     /* the watchdog killed the job */
    double seconds;    /* wall time until the job ended */
    double lingered;   /* wall time after that until no process of the job was left
                        * (at most 30 s: then leftover names the rest) */
    char *out;         /* captured stdout, NUL-terminated */
    char *err;         /* captured stderr, NUL-terminated */
    char leftover[512];/* processes of the job still alive after it ended ("" if none) */
    char new_shm[512]; /* /dev/shm entries the job's processes left ("" if none) */
    char cmd[512];     /* the command line, for messages */
} job_result;

/* Runs argv (argv[0] is a path) with the current environment plus `env`
 * ("NAME=value" sets, "NAME" alone unsets; NULL-terminated, may be NULL).
 * Returns 0, or -1 if the job could not be started (message in r->err). */
int job_run(const char *const *argv, const char *const *env, double timeout, job_result *r);
void job_free(job_result *r);

/* As job_run, but sends sig to the job's first process alone (dmsgrun, not
 * its PEs) after signal_after seconds, as a user or a batch system would. */
int job_run_signaled(const char *const *argv, const char *const *env, double timeout,
                     double signal_after, int sig, job_result *r);

/* As job_run_signaled, but sends sig as soon as the job's stderr holds
 * `until`, or after signal_after seconds at the latest. */
int job_run_until(const char *const *argv, const char *const *env, double timeout,
                  const char *until, double signal_after, int sig, job_result *r);

/* $DMSG_BUILD/<rel> in a static buffer (one of a few rotating buffers). */
const char *job_path(const char *rel);

/* "exit 0", "exit 3", "signal 9", "timed out after 30 s". */
const char *job_how(const job_result *r);
int job_exited_ok(const job_result *r);

/* The tail of a captured stream, at most `max` bytes, for messages. */
const char *job_tail(const char *s, size_t max);

/* Case-insensitive substring search. */
int job_contains(const char *haystack, const char *needle);

/* Non-zero if text names PE `pe` ("PE 3", "pe3", "rank 3", "PE=3", ...). */
int job_names_pe(const char *text, int pe);

/* 1 when the suite runs over ofi (tests/ofi/integ.sh sets DMSG_TRANSPORT=ofi):
 * tests that choose their own transport run once, in the suite over shm. */
int job_over_ofi(void);

/* 1 when the suite runs over sim (DMSG_TRANSPORT=sim, by hand: no step of
 * tests/run.sh does): tests of real-time behaviour pin shm then. */
int job_over_sim(void);

/* 1 if jobs of npes PEs run: INTEG_PES (a comma-separated list of PE counts,
 * e.g. "2,3") limits the jobs of job_run_case and the tests built on it to
 * those counts, the others are skipped; unset, every count runs. */
int job_pes_wanted(int npes);

/* fn runs before job_run_case skips a test (INTEG_PES): a skipped test
 * never reaches its suite's .fini, so a suite whose .init makes something
 * (a directory) registers its cleanup here. */
void job_on_skip(void (*fn)(void));

/* Runs `dmsgrun -n npes pe_prog case_name` with env (default DMSG_TIMEOUT=20
 * unless env sets or unsets DMSG_TIMEOUT). */
int job_run_case(const char *case_name, int npes, const char *const *env, job_result *r);

/* Asserts (criterion) that the case passed on npes PEs and left nothing behind. */
void expect_case_ok(const char *case_name, int npes, const char *const *env);

/* As job_run_case and expect_case_ok, for cases run with a short
 * DMSG_TIMEOUT that are not about the start-up: a run whose job failed in
 * dmsg_init's start-up barrier (a PE started later than the limit allows:
 * a loaded host) is tried again, up to 5 times. */
int job_run_case_started(const char *case_name, int npes, const char *const *env, job_result *r);
void expect_started_case_ok(const char *case_name, int npes, const char *const *env);

#endif
