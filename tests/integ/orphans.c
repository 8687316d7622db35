/* Every PE's whole process tree ends with the job, also when the PE is
 * started through a wrapper that forks (sh -c, /usr/bin/time), when the
 * wrapper leaves a background process behind, and when dmsgrun itself is
 * stopped or killed, at any moment of start-up. The harness finds a job's
 * processes wherever they were reparented (by a marker in their
 * environment) and checks /dev/shm. DMSG_TIMEOUT is unset: only the
 * launcher's signals may end the PEs. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

static const char *const no_timeout[] = {"DMSG_TIMEOUT", NULL};

static void require_built(void)
{
    cr_assert(access(job_path("bin/dmsgrun"), X_OK) == 0 &&
                  access(job_path("tests/pe_prog"), X_OK) == 0,
              "%s or %s missing: build first (make all tests) and set DMSG_BUILD",
              job_path("bin/dmsgrun"), job_path("tests/pe_prog"));
}

static void expect_nothing_left(const job_result *r)
{
    cr_expect(!r->timed_out, "%s: %s\n--- stderr:\n%s", r->cmd, job_how(r), job_tail(r->err, 2000));
    cr_expect(r->leftover[0] == '\0', "%s: processes left after the job: %s", r->cmd, r->leftover);
    cr_expect(r->new_shm[0] == '\0', "%s: new /dev/shm entries: %s", r->cmd, r->new_shm);
}

/* dmsgrun -n 2 <wrapper...> pe_prog crash_spinners: PE 0 fails, PE 1 spins
 * outside dmsg below its wrapper. */
static void expect_wrapped_crash_cleaned(const char *const *wrapper)
{
    require_built();
    const char *argv[16] = {job_path("bin/dmsgrun"), "-n", "2"};
    int k = 3;
    for (int i = 0; wrapper[i]; i++)
        argv[k++] = wrapper[i];
    argv[k] = NULL;
    job_result r;
    cr_assert(job_run(argv, no_timeout, JOB_WATCHDOG, &r) == 0, "could not start dmsgrun");
    cr_expect(!r.timed_out && !job_exited_ok(&r), "%s: expected a failure, got %s", r.cmd,
              job_how(&r));
    cr_expect(r.seconds < 10.0, "%s: the job took %.1f s to end", r.cmd, r.seconds);
    cr_expect(job_names_pe(r.err, 0), "%s: stderr does not name PE 0:\n%s", r.cmd,
              job_tail(r.err, 2000));
    expect_nothing_left(&r);
    job_free(&r);
}

Test(orphans, sh_wrapper_after_crash, .timeout = 2 * JOB_WATCHDOG)
{
    expect_wrapped_crash_cleaned(
        (const char *const[]){"sh", "-c", "\"$0\" crash_spinners; true", job_path("tests/pe_prog"),
                              NULL});
}

Test(orphans, time_wrapper_after_crash, .timeout = 2 * JOB_WATCHDOG)
{
    cr_assert(access("/usr/bin/time", X_OK) == 0, "/usr/bin/time missing (tools/install-deps.sh)");
    expect_wrapped_crash_cleaned(
        (const char *const[]){"/usr/bin/time", job_path("tests/pe_prog"), "crash_spinners", NULL});
}

/* Two wrappers deep: the PE's parent is a shell whose parent is a shell. */
Test(orphans, nested_wrappers_after_crash, .timeout = 2 * JOB_WATCHDOG)
{
    expect_wrapped_crash_cleaned((const char *const[]){
        "sh", "-c", "sh -c '\"$0\" crash_spinners; true' \"$0\"; true", job_path("tests/pe_prog"),
        NULL});
}

/* A successful job whose wrapper started a background process: it must not
 * outlive the job. */
Test(orphans, background_child_of_wrapper, .timeout = 2 * JOB_WATCHDOG)
{
    require_built();
    const char *argv[] = {job_path("bin/dmsgrun"), "-n", "2", "sh", "-c",
                          "sleep 1000 & \"$0\" sync_empty", job_path("tests/pe_prog"), NULL};
    job_result r;
    cr_assert(job_run(argv, no_timeout, JOB_WATCHDOG, &r) == 0, "could not start dmsgrun");
    cr_expect(job_exited_ok(&r), "%s: %s\n%s", r.cmd, job_how(&r), job_tail(r.err, 2000));
    cr_expect(r.seconds < 10.0, "%s: the job took %.1f s to end", r.cmd, r.seconds);
    expect_nothing_left(&r);
    job_free(&r);
}

/* dmsgrun is stopped (sig) or killed after `after` seconds while its PEs run
 * below a wrapper. */
static void expect_launcher_death_cleaned(int sig, double after, const char *pe_case)
{
    require_built();
    char script[64];
    snprintf(script, sizeof script, "\"$0\" %s; true", pe_case);
    const char *argv[] = {job_path("bin/dmsgrun"), "-n", "3", "sh", "-c", script,
                          job_path("tests/pe_prog"), NULL};
    job_result r;
    cr_assert(job_run_signaled(argv, no_timeout, JOB_WATCHDOG, after, sig, &r) == 0,
              "could not start dmsgrun");
    cr_expect(r.seconds < after + 10.0, "%s: the job took %.1f s to end after signal %d", r.cmd,
              r.seconds, sig);
    expect_nothing_left(&r);
    job_free(&r);
}

Test(orphans, launcher_sigterm, .timeout = 2 * JOB_WATCHDOG)
{
    expect_launcher_death_cleaned(SIGTERM, 1.0, "spin_all");
}

Test(orphans, launcher_sigkill, .timeout = 2 * JOB_WATCHDOG)
{
    expect_launcher_death_cleaned(SIGKILL, 1.0, "spin_all");
}

/* dmsgrun -n npes runs pe_prog await_forever behind setsid (with env) and
 * is killed by SIGKILL after `after` seconds: every PE must end within
 * seconds by itself. */
static void expect_setsid_await_ends(const char *npes, const char *const *env, double after)
{
    require_built();
    cr_assert(access("/usr/bin/setsid", X_OK) == 0, "/usr/bin/setsid missing (util-linux)");
    const char *argv[] = {job_path("bin/dmsgrun"), "-n", npes, "sh", "-c",
                          "/usr/bin/setsid \"$0\" await_forever; true",
                          job_path("tests/pe_prog"), NULL};
    job_result r;
    cr_assert(job_run_signaled(argv, env, JOB_WATCHDOG, after, SIGKILL, &r) == 0,
              "could not start dmsgrun");
    cr_expect(r.seconds < after + 10.0, "%s: the job took %.1f s to end", r.cmd, r.seconds);
    cr_expect(r.lingered < 10.0, "%s: its PEs took %.1f s to end after dmsgrun's death", r.cmd,
              r.lingered);
    expect_nothing_left(&r);
    job_free(&r);
}

/* A PE whose wrapper calls setsid leaves dmsgrun's process group and
 * session: neither the guardian's kill of the groups nor PR_SET_PDEATHSIG
 * (set on the wrapper, not inherited by its children) reaches it. Blocked
 * in dmsg_await, it must learn of dmsgrun's death itself (the life pipe)
 * and end within seconds. */
Test(orphans, launcher_sigkill_setsid_pe, .timeout = 2 * JOB_WATCHDOG)
{
    expect_setsid_await_ends("3", no_timeout, 2.0);
}

/* The same under the simulator's scheduler: only one sleeper, the watch,
 * looks at the life pipe often (the others every 30 s); when it finds the
 * launcher dead it must wake the others, which then end within seconds
 * too. */
Test(orphans, launcher_sigkill_setsid_sim_sleepers, .timeout = 2 * JOB_WATCHDOG)
{
    static const char *const sim[] = {"DMSG_TIMEOUT", "DMSG_TRANSPORT=sim", "DMSG_SIM_SCHED=1",
                                       NULL};
    expect_setsid_await_ends("12", sim, 3.0);
}

/* The launcher dies at random moments of start-up (fork, exec, dmsg_init,
 * the first barrier). */
Test(orphans, launcher_killed_during_init, .timeout = 8 * JOB_WATCHDOG)
{
    srand((unsigned)time(NULL) ^ (unsigned)getpid());
    for (int i = 0; i < 10; i++) {
        double after = (double)(rand() % 300) / 1000.0;
        int sig = (i % 2) ? SIGKILL : SIGTERM;
        cr_log_info("round %d: signal %d after %.3f s", i, sig, after);
        expect_launcher_death_cleaned(sig, after, "spin_all");
    }
}

/* A PE dies by SIGKILL at a random moment of start-up (over ofi with the
 * shm provider, libfabric has then created its /dev/shm files but not yet
 * removed them): the job ends and nothing is left, in /dev/shm either. */
Test(orphans, pe_killed_during_init, .timeout = 12 * JOB_WATCHDOG)
{
    require_built();
    srand((unsigned)time(NULL) ^ (unsigned)getpid() * 7u);
    for (int i = 0; i < 10; i++) {
        char rank[16], us[32];
        snprintf(rank, sizeof rank, "PE_KILL_RANK=%d", rand() % 3);
        snprintf(us, sizeof us, "PE_KILL_US=%d", 1000 * (rand() % 400));
        const char *env[] = {"DMSG_TIMEOUT", rank, us, NULL};
        const char *argv[] = {job_path("bin/dmsgrun"), "-n", "3", job_path("tests/pe_prog"),
                              "spin_all", NULL};
        job_result r;
        cr_log_info("round %d: %s %s", i, rank, us);
        cr_assert(job_run(argv, env, JOB_WATCHDOG, &r) == 0, "could not start dmsgrun");
        cr_expect(!job_exited_ok(&r), "%s: expected the job to fail, got %s", r.cmd, job_how(&r));
        cr_expect(r.seconds < 10.0, "%s: the job took %.1f s to end", r.cmd, r.seconds);
        expect_nothing_left(&r);
        job_free(&r);
    }
}

/* dmsgrun -n npes runs `prog mode` behind setsid and is killed by SIGKILL
 * once the job's stderr says "<mode>: ready": every PE must end by itself. */
static void expect_setsid_job_ends(const char *prog, const char *mode, const char *npes)
{
    char script[96], ready[64];
    snprintf(script, sizeof script, "/usr/bin/setsid \"$0\" %s; true", mode);
    snprintf(ready, sizeof ready, "%s: ready", mode);
    cr_assert(access("/usr/bin/setsid", X_OK) == 0, "/usr/bin/setsid missing (util-linux)");
    const char *argv[] = {job_path("bin/dmsgrun"), "-n", npes, "sh", "-c", script, prog, NULL};
    job_result r;
    cr_assert(job_run_until(argv, no_timeout, JOB_WATCHDOG, ready, 60.0, SIGKILL, &r) == 0,
              "could not start dmsgrun");
    cr_expect(job_contains(r.err, ready), "%s: PE 0 never got ready:\n%s", r.cmd,
              job_tail(r.err, 2000));
    expect_nothing_left(&r);
    job_free(&r);
}

/* dmsgrun dies by SIGKILL while every PE has left its process group (a
 * wrapper calls setsid): only the PEs' own watch of the life pipe ends
 * them. Three PEs await and end; PE 0 is asleep outside dmsg then and
 * afterwards deposits to each of them (pe_prog late_write): it must end
 * too. */
Test(orphans, launcher_sigkill_before_late_write, .timeout = 2 * JOB_WATCHDOG)
{
    require_built();
    expect_setsid_job_ends(job_path("tests/pe_prog"), "late_write", "4");
}

/* The same with OpenSHMEM's lock (tests/shmem/errors lock_held): PE 0
 * holds it and waits in dmsg, the others spin for it in shmem_set_lock,
 * whose compare-and-swap is a CPU instruction on shm: the loop itself must
 * look at the end of the job (dmsg_job_check). */
Test(orphans, launcher_sigkill_setsid_shmem_lock, .timeout = 2 * JOB_WATCHDOG)
{
    require_built();
    if (access(job_path("tests/shmem/errors"), X_OK) != 0)
        cr_skip_test("%s not built (make tests)", job_path("tests/shmem/errors"));
    expect_setsid_job_ends(job_path("tests/shmem/errors"), "lock_held", "3");
}

/* The same with the coarray LOCK (tests/caf/faults/lock_held.f90): image
 * 1 holds the lock and waits in SYNC IMAGES, the others spin in LOCK. */
Test(orphans, launcher_sigkill_setsid_caf_lock, .timeout = 2 * JOB_WATCHDOG)
{
    require_built();
    if (access(job_path("tests/caf/lock_held"), X_OK) != 0)
        cr_skip_test("%s not built (make tests, with gfortran)", job_path("tests/caf/lock_held"));
    expect_setsid_job_ends(job_path("tests/caf/lock_held"), "lock_held", "3");
}

/* Over libfabric's shm provider: a PE killed while its provider files
 * exist (the moment they appear, inside dmsg_init) leaves nothing behind
 * (the provider would have; dmsgrun removes them). Only where the suite
 * runs over that provider (tests/ofi/integ.sh). */
Test(orphans, pe_killed_with_provider_files, .timeout = 4 * JOB_WATCHDOG)
{
    const char *tp = getenv("DMSG_TRANSPORT"), *prov = getenv("DMSG_OFI_PROVIDER");
    if (!tp || strcmp(tp, "ofi") || !prov || strcmp(prov, "shm"))
        cr_skip_test("needs the suite over ofi with DMSG_OFI_PROVIDER=shm");
    require_built();
    for (int victim = 0; victim < 3; victim++) {
        char rank[16];
        snprintf(rank, sizeof rank, "PE_KILL_RANK=%d", victim);
        const char *env[] = {"DMSG_TIMEOUT", rank, "PE_KILL_US=shm", NULL};
        const char *argv[] = {job_path("bin/dmsgrun"), "-n", "3", job_path("tests/pe_prog"),
                              "spin_all", NULL};
        job_result r;
        cr_assert(job_run(argv, env, JOB_WATCHDOG, &r) == 0, "could not start dmsgrun");
        cr_expect(job_contains(r.err, "killed by signal 9"),
                  "%s: PE %d was not killed (%s):\n%s", r.cmd, victim, job_how(&r),
                  job_tail(r.err, 2000));
        expect_nothing_left(&r);
        job_free(&r);
    }
}
