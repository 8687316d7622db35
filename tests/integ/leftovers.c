/* The harness's own leftover check: a file a job's process leaves in
 * /dev/shm is caught, also from a grandchild below a wrapper, and a file
 * that a process outside the job creates meanwhile (another job on this
 * shared host) is not the job's. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

/* Removes /dev/shm/<pid>:<tag> files the test made (by name, not a glob). */
static void remove_named(const char *list)
{
    char copy[512];
    snprintf(copy, sizeof copy, "%s", list);
    for (char *save, *p = strtok_r(copy, ", ", &save); p; p = strtok_r(NULL, ", ", &save))
        if (strncmp(p, "/dev/shm/", 9) == 0 && strstr(p, ":dmsg-integ-leftover"))
            unlink(p);
}

Test(leftovers, file_of_a_grandchild_is_caught)
{
    if (job_over_ofi())
        cr_skip_test("no dmsg job: runs in the suite over shm");
    /* sh starts a second sh (a grandchild of the job's first process) that
     * leaves a file named as libfabric's shm provider names its own. */
    const char *argv[] = {"/bin/sh", "-c",
                          "sh -c ': > /dev/shm/$$:dmsg-integ-leftover; sleep 0.1'; true", NULL};
    job_result r;
    cr_assert(job_run(argv, NULL, JOB_WATCHDOG, &r) == 0);
    cr_expect(job_exited_ok(&r), "%s: %s", r.cmd, job_how(&r));
    cr_expect(strstr(r.new_shm, ":dmsg-integ-leftover") != NULL,
              "the file the job left is not reported (new_shm: \"%s\")", r.new_shm);
    remove_named(r.new_shm);
    job_free(&r);
}

/* 1 if pid runs (exists and is no zombie). */
static int running(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int ok = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    const char *paren = ok ? strrchr(line, ')') : NULL;
    return paren && paren[1] == ' ' && paren[2] != 'Z';
}

Test(leftovers, file_of_another_process_is_not_the_jobs)
{
    if (job_over_ofi())
        cr_skip_test("no dmsg job: runs in the suite over shm");
    /* Outside the job: a process that is no part of it (an orphan of this
     * test, as another job's PE would be) makes a file named after itself
     * while the job runs and dies before the job ends, leaving the file. */
    int fds[2];
    cr_assert(pipe(fds) == 0);
    pid_t child = fork();
    cr_assert(child >= 0);
    if (child == 0) {
        pid_t other = fork();
        if (other == 0) {
            char path[64];
            snprintf(path, sizeof path, "/dev/shm/%d:dmsg-integ-leftover", (int)getpid());
            usleep(100 * 1000);
            FILE *f = fopen(path, "w");
            if (f)
                fclose(f);
            _exit(0);
        }
        (void)!write(fds[1], &other, sizeof other);
        _exit(0);
    }
    pid_t other = 0;
    cr_assert(read(fds[0], &other, sizeof other) == (ssize_t)sizeof other);
    waitpid(child, NULL, 0);
    close(fds[0]);
    close(fds[1]);
    const char *argv[] = {"/bin/sh", "-c", "sleep 0.5", NULL};
    job_result r;
    cr_assert(job_run(argv, NULL, JOB_WATCHDOG, &r) == 0);
    char path[64];
    snprintf(path, sizeof path, "/dev/shm/%d:dmsg-integ-leftover", (int)other);
    int there = access(path, F_OK) == 0, alive = running(other);
    unlink(path);
    cr_expect(there && !alive,
              "the other process's file was not left by a dead process during the check (test is "
              "void: file %d, process alive %d)",
              there, alive);
    cr_expect(r.new_shm[0] == '\0', "another process's file counted as the job's: %s", r.new_shm);
    job_free(&r);
}
