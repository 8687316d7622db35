/* Jobs that hang without any error: the ones dmsgrun must describe (which
 * PE waits where) when nothing has changed for DMSG_STALL_REPORT seconds.
 * They never end by themselves; the suite stops dmsgrun. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "pe.h"

/* PE 0 waits in a barrier; the others compute forever outside dmsg. */
static int hang_spin(void)
{
    if (dmsg_pe() == 0) {
        dmsg_sync();
        exit(2);
    }
    for (volatile unsigned long i = 0;; i++)
        ;
    return 1;
}

/* PE 0 leaves through dmsg_finalize while the others await a deposit that
 * never comes. */
static int hang_early_finalize(void)
{
    dmsg_ctr c;
    PE_OK(dmsg_ctr_create(&c));
    if (dmsg_pe() == 0) {
        dmsg_finalize();
        exit(2);
    }
    dmsg_await(c, 1);
    exit(2);
}

/* Barriers back to back for PE_BUSY_S seconds (default 3): every PE is in
 * dmsg_sync most of the time, but the job progresses and must not be
 * reported. */
static int busy_syncs(void)
{
    int *stop;
    PE_OK(dmsg_alloc(sizeof *stop, (void **)&stop));
    const char *e = getenv("PE_BUSY_S");
    double busy = e ? atof(e) : 3.0, t0 = dmsg_wtime();
    for (;;) {
        /* The flag is read between two barriers and deposited after the
         * second, so that no PE reads it while PE 0 deposits it. */
        PE_OK(dmsg_sync());
        int done = *stop;
        PE_OK(dmsg_sync());
        if (done)
            break;
        if (dmsg_pe() == 0 && dmsg_wtime() - t0 > busy) {
            int one = 1;
            for (int p = 0; p < dmsg_npes(); p++)
                PE_OK(dmsg_deposit(stop, &one, sizeof one, p, DMSG_CTR_NONE));
        }
    }
    PE_OK(dmsg_free(stop));
    return 0;
}

/* Every PE awaits a deposit that never comes (the job is ended from
 * outside: dmsgrun's death, DMSG_TIMEOUT). */
static int await_forever(void)
{
    dmsg_ctr c;
    PE_OK(dmsg_ctr_create(&c));
    int st = dmsg_await(c, 1);
    PE_CHECK(0, "dmsg_await of a deposit that never comes returned %d (%s)", st,
             dmsg_strerror(st));
    return 1;
}

/* A counter and a zeroed int in the segment, then a barrier. */
static int counter_and_slot(dmsg_ctr *c, int **slot)
{
    PE_OK(dmsg_ctr_create(c));
    PE_OK(dmsg_alloc(sizeof **slot, (void **)slot));
    **slot = 0;
    PE_OK(dmsg_sync());
    return 0;
}

/* Seconds spent outside dmsg. */
static void sleep_outside(time_t s)
{
    struct timespec ts = {s, 0};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* PE 0 computes for 3 s before it deposits to every other PE: a long wait
 * that only DMSG_TIMEOUT may bound (no transport has a limit of its own). */
static int late_deposit(void)
{
    dmsg_ctr c;
    int *slot;
    if (counter_and_slot(&c, &slot))
        return 1;
    if (dmsg_pe() == 0) {
        sleep_outside(3);
        int v = 77;
        for (int p = 1; p < dmsg_npes(); p++)
            PE_OK(dmsg_deposit(slot, &v, sizeof v, p, c));
    } else {
        PE_OK(dmsg_await(c, 1));
        PE_CHECK(*slot == 77, "expected 77 got %d", *slot);
    }
    PE_OK(dmsg_sync());
    PE_OK(dmsg_free(slot));
    PE_OK(dmsg_ctr_destroy(c));
    return 0;
}

/* After a barrier PE 0 says "late_write: ready" on stderr, sleeps 2 s
 * outside dmsg, then deposits to every other PE and awaits a deposit that
 * never comes; the others await it at once. The suite kills dmsgrun at
 * "ready" (tests/integ/orphans.c): the others notice and end while PE 0
 * sleeps, and PE 0 must notice too, in its deposits to dead PEs or in its
 * wait. */
static int late_write(void)
{
    dmsg_ctr c;
    int *slot;
    if (counter_and_slot(&c, &slot))
        return 1;
    if (dmsg_pe() == 0) {
        fprintf(stderr, "late_write: ready\n");
        sleep_outside(2);
        int v = 1;
        for (int p = 1; p < dmsg_npes(); p++) {
            int st = dmsg_deposit(slot, &v, sizeof v, p, c);
            PE_CHECK(st == DMSG_OK, "dmsg_deposit to dead PE %d returned %d (%s)", p, st,
                     dmsg_strerror(st));
            if (st != DMSG_OK)
                return 1;
        }
    }
    int st = dmsg_await(c, 1);
    PE_CHECK(0, "dmsg_await of a deposit that never comes returned %d (%s)", st,
             dmsg_strerror(st));
    return 1;
}

const pe_case pe_hang_cases[] = {
    {"await_forever", await_forever, 0},
    {"late_write", late_write, 0},
    {"late_deposit", late_deposit, 0},
    {"busy_syncs", busy_syncs, 0},
    {"hang_spin", hang_spin, 0},
    {"hang_early_finalize", hang_early_finalize, 0},
    {NULL, NULL, 0},
};
