/* pe_prog: runs one named SPMD test case on every PE.
 *
 *   dmsgrun -n 4 pe_prog CASE      run CASE on 4 PEs
 *   pe_prog --list                 print the case names
 *
 * Exit status 0 only if every check of the case passed on this PE. A failing
 * PE exits at once without dmsg_finalize: the other PEs may be waiting for it
 * in a collective, and dmsgrun tears the job down when a PE fails, so a
 * failure can never turn into a hang. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "pe.h"
#include "tests/launcher_rank.h"

static const pe_case *const tables[] = {
    pe_deposit_cases, pe_section_cases, pe_indexed_cases, pe_adp_cases,   pe_fetch_cases,
    pe_counter_cases, pe_sync_cases,    pe_alloc_cases,   pe_error_cases, pe_crash_cases,
    pe_plan_cases, pe_iplan_cases, pe_calib_cases, pe_iscatter_cases,
    pe_corpus_cases,
    pe_postal_cases,  pe_rr_cases,
    pe_launch_cases,  pe_hang_cases,    pe_check_cases,
    pe_amo_cases,
    pe_coll_cases,
};

static const pe_case *find_case(const char *name)
{
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
        for (const pe_case *c = tables[t]; c->name != NULL; c++)
            if (strcmp(c->name, name) == 0)
                return c;
    return NULL;
}

static void list_cases(void)
{
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
        for (const pe_case *c = tables[t]; c->name != NULL; c++)
            printf("%s\n", c->name);
}

/* Fault injection for the suite: PE_KILL_RANK=r PE_KILL_US=t makes the PE
 * of rank r (as dmsgrun announces it) die by SIGKILL t microseconds after it
 * starts, wherever it is then (typically inside dmsg_init); PE_KILL_US=shm
 * as soon as a file named after it ("<pid>:...", libfabric's shm provider)
 * appears in /dev/shm (given up after 60 s). */
static int has_shm_file(pid_t pe)
{
    char prefix[24];
    int n = snprintf(prefix, sizeof prefix, "%d:", (int)pe), found = 0;
    DIR *d = opendir("/dev/shm");
    struct dirent *e;
    while (d && !found && (e = readdir(d)))
        found = !strncmp(e->d_name, prefix, (size_t)n);
    if (d)
        closedir(d);
    return found;
}

static void arm_kill(void)
{
    const char *r = getenv("PE_KILL_RANK"), *us = getenv("PE_KILL_US");
    if (!r || !us || atol(r) != launcher_rank())
        return;
    pid_t pe = getpid();
    if (fork() == 0) {
        int at_file = !strcmp(us, "shm");
        long t = at_file ? 200 : atol(us);
        struct timespec ts = {t / 1000000, (t % 1000000) * 1000};
        for (long waited = 0; at_file && !has_shm_file(pe) && waited < 60000000; waited += t)
            nanosleep(&ts, NULL);
        if (!at_file)
            nanosleep(&ts, NULL);
        if (getppid() == pe) /* else the PE is gone and the pid may be another's */
            kill(pe, SIGKILL);
        _exit(0);
    }
}

static int run_case(const pe_case *c)
{
    int manual = (c->flags & PE_MANUAL_INIT) != 0;
    if (!manual) {
        int st = dmsg_init();
        if (st != DMSG_OK) {
            fprintf(stderr, "PE ?: %s: dmsg_init: expected DMSG_OK got %s (%d)\n", c->name,
                    pe_status_name(st), st);
            return 1;
        }
    }
    if (c->fn() != 0) {
        fprintf(stderr, "PE %d: case %s FAILED\n", dmsg_pe(), c->name);
        return 1;
    }
    if (!manual) {
        int st = dmsg_finalize();
        if (st != DMSG_OK) {
            fprintf(stderr, "PE %d: %s: dmsg_finalize: expected DMSG_OK got %s (%d)\n", dmsg_pe(),
                    c->name, pe_status_name(st), st);
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        list_cases();
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: %s CASE | --list\n", argv[0]);
        return 2;
    }
    const pe_case *c = find_case(argv[1]);
    if (c == NULL) {
        fprintf(stderr, "%s: unknown case '%s' (see --list)\n", argv[0], argv[1]);
        return 2;
    }
    arm_kill();
    return run_case(c) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
