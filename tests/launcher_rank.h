/* The rank dmsgrun gave this process (DMSG_BOOT_RANK), or -1, for test
 * programs that must know it before dmsg_init / shmem_init. The library
 * takes the launcher's variables out of the environment before main (so
 * that programs a PE starts never join its job); the block the process
 * started with, /proc/self/environ, still holds them. */
#ifndef DMSG_TESTS_LAUNCHER_RANK_H
#define DMSG_TESTS_LAUNCHER_RANK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline long launcher_rank(void)
{
    static char env[65536];
    FILE *f = fopen("/proc/self/environ", "r");
    if (!f)
        return -1;
    size_t n = fread(env, 1, sizeof env - 1, f);
    fclose(f);
    env[n] = '\0';
    for (size_t i = 0; i < n; i += strlen(env + i) + 1)
        if (!strncmp(env + i, "DMSG_BOOT_RANK=", 15))
            return atol(env + i + 15);
    return -1;
}

#endif
