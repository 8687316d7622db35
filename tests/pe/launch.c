/* What a PE passes on to programs it starts: nothing of its job. A dmsg
 * program started by a PE (system("./other")) is a job of its own, here a
 * singleton, instead of joining its parent's job. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "pe.h"

/* Started by nested_job: must be a 1-PE job of its own. */
static int nested_child(void)
{
    PE_OK(dmsg_init());
    PE_CHECK(dmsg_npes() == 1 && dmsg_pe() == 0, "nested program joined a job of %d PEs as PE %d",
             dmsg_npes(), dmsg_pe());
    PE_OK(dmsg_sync());
    PE_OK(dmsg_finalize());
    return 0;
}

static int nested_job(void)
{
    static const char *const vars[] = {"DMSG_BOOT_FD", "DMSG_BOOT_RANK", "DMSG_BOOT_NPES"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        PE_CHECK(getenv(vars[i]) == NULL, "%s is still set after dmsg_init: %s", vars[i],
                 getenv(vars[i]));
    char self[512], cmd[600];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    PE_CHECK(n > 0, "cannot find this program (/proc/self/exe)");
    self[n] = '\0';
    PE_OK(dmsg_sync());
    snprintf(cmd, sizeof cmd, "'%s' nested_child", self);
    int st = system(cmd);
    PE_CHECK(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
             "the nested dmsg program failed (wait status %d)", st);
    PE_OK(dmsg_sync());
    return 0;
}

/* A PE runs a dmsg program before its own dmsg_init: the launcher's
 * variables are already gone (taken before main), so the child runs as a
 * singleton instead of joining this job as this PE's rank (which hung the
 * job), and this PE then joins its job as usual. */
static int nested_before_init(void)
{
    extern char **environ;
    for (char **e = environ; *e; e++)
        PE_CHECK(strncmp(*e, "DMSG_BOOT_", 10) != 0, "%s is in the environment before dmsg_init",
                 *e);
    char self[512], cmd[600];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    PE_CHECK(n > 0, "cannot find this program (/proc/self/exe)");
    self[n] = '\0';
    snprintf(cmd, sizeof cmd, "'%s' nested_child", self);
    int st = system(cmd);
    PE_CHECK(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
             "the dmsg program started before dmsg_init failed (wait status %d)", st);
    PE_OK(dmsg_init());
    PE_OK(dmsg_sync());
    PE_OK(dmsg_finalize());
    return 0;
}

static void app_handler(int sig)
{
    (void)sig;
}

/* dmsg_init leaves the program's signal dispositions and mask as they were,
 * on every transport (libraries a transport loads may install their own). */
static int signals_kept(void)
{
    static const int mine[] = {SIGSEGV, SIGBUS, SIGABRT, SIGINT, SIGUSR1};
    struct sigaction sa = {.sa_handler = app_handler}, before[NSIG], after[NSIG];
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof mine / sizeof mine[0]; i++)
        PE_CHECK(sigaction(mine[i], &sa, NULL) == 0, "sigaction(%d)", mine[i]);
    sigset_t mask_before, mask_after;
    sigprocmask(SIG_SETMASK, NULL, &mask_before);
    int have[NSIG];
    for (int s = 1; s < NSIG; s++)
        have[s] = sigaction(s, NULL, &before[s]) == 0;
    PE_OK(dmsg_init());
    for (int s = 1; s < NSIG; s++) {
        if (!have[s])
            continue;
        PE_CHECK(sigaction(s, NULL, &after[s]) == 0, "sigaction(%d) after dmsg_init", s);
        /* 0x04000000: the kernel's restorer flag, which the C library adds
         * itself to any handler it installs (not the program's choice). */
        PE_CHECK(after[s].sa_handler == before[s].sa_handler &&
                     (after[s].sa_flags & ~0x04000000) == (before[s].sa_flags & ~0x04000000),
                 "dmsg_init (%s) changed the disposition of signal %d (%s)",
                 dmsg_transport_name(), s, strsignal(s));
    }
    sigprocmask(SIG_SETMASK, NULL, &mask_after);
    for (int s = 1; s < NSIG; s++)
        PE_CHECK(sigismember(&mask_before, s) == sigismember(&mask_after, s),
                 "dmsg_init (%s) changed the mask of signal %d", dmsg_transport_name(), s);
    PE_OK(dmsg_sync());
    PE_OK(dmsg_finalize());
    return 0;
}

const pe_case pe_launch_cases[] = {
    {"signals_kept", signals_kept, PE_MANUAL_INIT},
    {"nested_job", nested_job, 0},
    {"nested_child", nested_child, PE_MANUAL_INIT},
    {"nested_before_init", nested_before_init, PE_MANUAL_INIT},
    {NULL, NULL, 0},
};
