/* What a PE passes on to programs it starts: nothing of its job. A dmsg
 * program started by a PE (system("./other")) is a job of its own, here a
 * singleton, instead of joining its parent's job. */
#include <fcntl.h>
#include <stdio.h>
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

const pe_case pe_launch_cases[] = {
    {"nested_job", nested_job, 0},
    {"nested_child", nested_child, PE_MANUAL_INIT},
    {NULL, NULL, 0},
};
