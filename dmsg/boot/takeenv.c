/* The launcher's variables, taken out of the environment before main (see
 * launcher.h): a program that a PE starts, before or after its own
 * dmsg_init, inherits none of them and runs as a job of its own. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include "dmsg/boot/job.h"
#include "dmsg/boot/launcher.h"

/* Every variable that makes a process join a job: dmsgrun's protocol, PMI-1
 * (MPICH's mpiexec), PMIx (the namespace and rank; the server's address
 * alone joins nothing), and the job sizes that launcher.c reads to refuse a
 * launcher it cannot join. Other launcher variables (SLURM_PROCID, ...) only
 * say something together with one of these. */
static const char *const names[] = {
    DMSG_BOOT_ENV_FD, DMSG_BOOT_ENV_RANK, DMSG_BOOT_ENV_NPES, DMSG_BOOT_ENV_LIFE,
    "PMI_FD", "PMI_RANK", "PMI_SIZE",
    "PMIX_NAMESPACE", "PMIX_RANK",
    "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "SLURM_STEP_NUM_TASKS",
};
#define NNAMES (sizeof names / sizeof names[0])
static char *taken[NNAMES];

/* The descriptors those variables name are this process's too. */
static void keep_fd(const char *value)
{
    char *end;
    errno = 0;
    long fd = strtol(value, &end, 10);
    if (!errno && !*end && end != value && fd >= 0 && fd <= (1 << 20))
        (void)fcntl((int)fd, F_SETFD, FD_CLOEXEC);
}

void dmsg_boot_env_take(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    for (size_t i = 0; i < NNAMES; i++) {
        const char *v = getenv(names[i]);
        if (!v)
            continue;
        taken[i] = strdup(v);
        if (!taken[i])
            continue; /* no memory: the variable stays where it is */
        unsetenv(names[i]);
        if (!strcmp(names[i], DMSG_BOOT_ENV_FD) || !strcmp(names[i], DMSG_BOOT_ENV_LIFE) ||
            !strcmp(names[i], "PMI_FD"))
            keep_fd(taken[i]);
    }
}

const char *dmsg_boot_env(const char *name)
{
    for (size_t i = 0; i < NNAMES; i++)
        if (taken[i] && !strcmp(name, names[i]))
            return taken[i];
    return getenv(name);
}

void dmsg_boot_env_put_back(const char *const *which)
{
    for (; *which; which++)
        for (size_t i = 0; i < NNAMES; i++)
            if (taken[i] && !strcmp(*which, names[i]))
                setenv(names[i], taken[i], 1);
}

void dmsg_boot_env_forget(void)
{
    for (size_t i = 0; i < NNAMES; i++) {
        free(taken[i]);
        taken[i] = NULL;
    }
}
