/* Bad input ends the job with one line naming the call (run.sh checks the
 * line and the exit status). Usage: errors MODE, MODE one of pe, nonsym,
 * team, ctx, cmp, exit [STATUS] (shmem_global_exit(STATUS, default 7) on
 * PE 0 while the others wait in a barrier), lock_held (PE 0 holds a lock
 * and waits in shmem_long_wait_until, the others spin in shmem_set_lock;
 * tests/integ/orphans.c kills dmsgrun at "lock_held: ready" and wants
 * every PE to end, also behind setsid). */
#include "shtest.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long s_x, s_lock;

int main(int argc, char **argv)
{
    const char *m = argc > 1 ? argv[1] : "";
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long local = 1;
    if (!strcmp(m, "pe") && me == 0)
        shmem_long_p(&s_x, 1, n); /* PE n is out of range */
    if (!strcmp(m, "nonsym") && me == 0)
        shmem_long_put(&local, &local, 1, 0); /* a stack address */
    if (!strcmp(m, "team")) {
        shmem_team_t t;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &t);
        shmem_team_destroy(t);
        shmem_team_sync(t);
    }
    if (!strcmp(m, "ctx") && me == 0) {
        shmem_ctx_t c;
        shmem_ctx_create(0, &c);
        shmem_ctx_destroy(c);
        shmem_ctx_long_p(c, &s_x, 1, 0);
    }
    if (!strcmp(m, "cmp") && me == 0)
        shmem_long_wait_until(&s_x, 42, 0);
    if (!strcmp(m, "lock_held")) {
        if (me == 0)
            shmem_set_lock(&s_lock);
        shmem_barrier_all();
        if (me == 0) {
            fprintf(stderr, "lock_held: ready\n");
            shmem_long_wait_until(&s_x, SHMEM_CMP_EQ, 1);
        } else {
            shmem_set_lock(&s_lock);
        }
        return 3; /* only the end of the job ends the waits */
    }
    if (!strcmp(m, "exit")) {
        if (me == 0) {
            /* Output before the exit must reach the launcher's stdout. */
            printf("global exit %s\n", argc > 2 ? argv[2] : "7");
            shmem_global_exit(argc > 2 ? atoi(argv[2]) : 7);
        }
        /* The others are stopped by dmsgrun in the barrier (which PE 0
         * never joins) or in the sleep, whichever they reach. */
        shmem_barrier_all();
        for (;;)
            sleep(1);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
