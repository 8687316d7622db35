/* Local launcher protocol: dmsgrun passes the job region fd, the rank and the
 * job size in the environment. Without them the process is a 1-PE job. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "dmsg/boot/job.h"
#include "dmsg/boot/launcher.h"

static int env_int(const char *name, long lo, long hi, long *out)
{
    const char *s = dmsg_boot_env(name);
    if (!s || !*s)
        return 0;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 1;
}

dmsg_status dmsg_boot_local(dmsg_boot *b, uint64_t seg_size, uint32_t max_counters)
{
    long fd, rank, npes;
    int have_fd = env_int(DMSG_BOOT_ENV_FD, 0, 1 << 20, &fd);
    if (have_fd == 0) {
        int nfd;
        dmsg_status st = dmsg_job_create(1, seg_size, max_counters, &nfd);
        if (st)
            return st;
        *b = (dmsg_boot){
            .kind = DMSG_BOOT_SINGLETON, .rank = 0, .npes = 1, .fd = nfd, .life_fd = -1};
        return DMSG_OK;
    }
    if (have_fd < 0 || env_int(DMSG_BOOT_ENV_NPES, 1, DMSG_MAX_PES, &npes) != 1 ||
        env_int(DMSG_BOOT_ENV_RANK, 0, npes - 1, &rank) != 1)
        return DMSG_FAIL(DMSG_ERR_TRANSPORT, "launcher environment (%s, %s, %s) is invalid",
                         DMSG_BOOT_ENV_FD, DMSG_BOOT_ENV_RANK, DMSG_BOOT_ENV_NPES);
    /* The launcher's variables and descriptor are this process's alone: a
     * dmsg program it starts (system("./other")) must not join this job. */
    if (fcntl((int)fd, F_SETFD, FD_CLOEXEC) != 0)
        return DMSG_FAIL(DMSG_ERR_TRANSPORT, "%s=%ld is not an open descriptor", DMSG_BOOT_ENV_FD,
                         fd);
    /* dmsgrun's life pipe: a launcher without it (an older dmsgrun) only
     * loses the PEs' own watch on its death. */
    long life = -1;
    if (env_int(DMSG_BOOT_ENV_LIFE, 0, 1 << 20, &life) == 1) {
        struct stat sb;
        if (fstat((int)life, &sb) != 0 || !S_ISFIFO(sb.st_mode) ||
            fcntl((int)life, F_SETFD, FD_CLOEXEC) != 0)
            return DMSG_FAIL(DMSG_ERR_TRANSPORT, "%s=%ld is not dmsgrun's pipe",
                             DMSG_BOOT_ENV_LIFE, life);
    }
    unsetenv(DMSG_BOOT_ENV_FD);
    unsetenv(DMSG_BOOT_ENV_RANK);
    unsetenv(DMSG_BOOT_ENV_NPES);
    unsetenv(DMSG_BOOT_ENV_LIFE);
    *b = (dmsg_boot){.kind = DMSG_BOOT_LOCAL,
                     .rank = (int)rank,
                     .npes = (int)npes,
                     .fd = (int)fd,
                     .life_fd = (int)life};
    return DMSG_OK;
}
