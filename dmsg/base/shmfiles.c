/* Removal of the /dev/shm entries named after a process. */
#include "dmsg/base/shmfiles.h"
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void dmsg_shm_unlink_pid(long pid)
{
    if (pid <= 0)
        return;
    char prefix[32];
    int n = snprintf(prefix, sizeof prefix, "%ld:", pid);
    DIR *d = opendir("/dev/shm");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, prefix, (size_t)n)) {
            char path[300];
            snprintf(path, sizeof path, "/dev/shm/%s", e->d_name);
            unlink(path);
        }
    closedir(d);
}
