/* Jobs that must fail: a PE dies of a signal, exits with an error, or exits
 * 0 without dmsg_finalize, while the others wait in a collective. dmsgrun
 * must tear the job down, name the failing PE, and leave nothing behind.
 *
 * These cases print nothing on stderr themselves (the suite checks that
 * dmsgrun's own message names the failing PE). A collective that returns
 * DMSG_OK although a PE is gone is a library bug: it is reported on stdout
 * with the word BUG, which the suite looks for. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include "pe.h"

/* A survivor waits in a collective that can never complete. */
static void survivor_waits(int victim)
{
    int st = dmsg_sync();
    if (st == DMSG_OK) {
        printf("BUG: PE %d: dmsg_sync returned DMSG_OK although PE %d failed\n", dmsg_pe(),
               victim);
        fflush(stdout);
    }
    exit(2); /* killed before this, or the sync reported the failure */
}

static int crash_segv(void)
{
    int victim = dmsg_npes() - 1;
    if (dmsg_pe() == victim) {
        struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core); /* no core files in the test tree */
        signal(SIGSEGV, SIG_DFL);
        raise(SIGSEGV);
        return 1;
    }
    survivor_waits(victim);
    return 1;
}

/* As crash_segv, but with whatever handler dmsg_init left in place: the
 * program's own (the default), never a library's. */
static int crash_segv_plain(void)
{
    int victim = dmsg_npes() - 1;
    if (dmsg_pe() == victim) {
        struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core);
        raise(SIGSEGV);
        return 1;
    }
    survivor_waits(victim);
    return 1;
}

static int crash_exit(void)
{
    int victim = dmsg_npes() > 1 ? 1 : 0;
    if (dmsg_pe() == victim)
        exit(3);
    survivor_waits(victim);
    return 1;
}

/* PE 0 leaves with status 0 but never calls dmsg_finalize; the others try to. */
static int no_finalize(void)
{
    if (dmsg_init() != DMSG_OK)
        return 1;
    if (dmsg_pe() == 0)
        exit(0);
    int st = dmsg_finalize();
    if (st == DMSG_OK) {
        printf("BUG: PE %d: dmsg_finalize returned DMSG_OK although PE 0 left without it\n",
               dmsg_pe());
        fflush(stdout);
    }
    exit(2);
}

/* Computes forever outside dmsg: only a signal ends it. */
static void spin_forever(void)
{
    for (volatile unsigned long i = 0;; i++)
        ;
}

/* PE 0 fails after a barrier; the others are busy outside dmsg and never
 * notice the job's abort flag: only dmsgrun's signals can end them. */
static int crash_spinners(void)
{
    if (dmsg_sync() != DMSG_OK)
        exit(2);
    if (dmsg_pe() == 0)
        exit(3);
    spin_forever();
    return 1;
}

/* Every PE joins and then computes forever (the launcher is killed). */
static int spin_all(void)
{
    if (dmsg_sync() != DMSG_OK)
        exit(2);
    spin_forever();
    return 1;
}

const pe_case pe_crash_cases[] = {
    {"crash_segv", crash_segv, 0},
    {"crash_exit", crash_exit, 0},
    {"crash_segv_plain", crash_segv_plain, 0},
    {"no_finalize", no_finalize, PE_MANUAL_INIT},
    {"crash_spinners", crash_spinners, 0},
    {"spin_all", spin_all, 0},
    {NULL, NULL, 0},
};
