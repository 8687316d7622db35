/* The simulator scheduler's ready queue (dmsg/transport/sim/sim_queue.c):
 * least (clock, rank) first, ties to the lower rank, removal from the
 * middle, and the same picks as the scan it replaced. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include "dmsg/transport/sim/sim.h"

static sim_job_words *words(void)
{
    sim_job_words *j = calloc(1, sizeof *j); /* zeroed, as the job region starts */
    cr_assert_not_null(j);
    return j;
}

static void key(sim_job_words *j, int pe, double clock)
{
    atomic_store(&j->sclock[pe], dbits(clock));
}

Test(sim_queue, least_clock_first_ties_to_the_lower_rank)
{
    sim_job_words *j = words();
    double clocks[] = {3e-6, 1e-6, 2e-6, 1e-6, 0, 2e-6};
    int want[] = {4, 1, 3, 2, 5, 0};
    /* Pushed in an order unlike the result, the tied ranks the higher first. */
    int order[] = {5, 3, 0, 2, 1, 4};
    for (int i = 0; i < 6; i++)
        key(j, i, clocks[i]);
    for (int i = 0; i < 6; i++)
        dmsg_sim_queue_push(j, order[i]);
    cr_assert_eq(j->nready, 6);
    for (int i = 0; i < 6; i++) {
        cr_assert_eq(dmsg_sim_queue_peek(j), want[i]);
        cr_assert_eq(dmsg_sim_queue_pop(j), want[i], "pop %d", i);
    }
    cr_assert_eq(dmsg_sim_queue_pop(j), -1, "an empty queue names nobody");
    cr_assert_eq(dmsg_sim_queue_peek(j), -1);
    free(j);
}

Test(sim_queue, push_twice_and_remove_absent_change_nothing)
{
    sim_job_words *j = words();
    key(j, 0, 1.0);
    key(j, 1, 0.5);
    dmsg_sim_queue_push(j, 0);
    dmsg_sim_queue_push(j, 0);
    dmsg_sim_queue_remove(j, 1);
    cr_assert_eq(j->nready, 1);
    dmsg_sim_queue_push(j, 1);
    dmsg_sim_queue_remove(j, 1);
    cr_assert_eq(j->qpos[1], 0, "a removed PE is out");
    cr_assert_eq(dmsg_sim_queue_pop(j), 0);
    cr_assert_eq(j->nready, 0);
    free(j);
}

/* The scan the queue replaced: the ready PE with the least clock, the
 * lower rank on a tie. */
static int scan(const sim_job_words *j, const int *in, int n)
{
    int best = -1;
    uint64_t bc = UINT64_MAX;
    for (int p = 0; p < n; p++)
        if (in[p] && atomic_load(&j->sclock[p]) < bc)
            best = p, bc = atomic_load(&j->sclock[p]);
    return best;
}

Test(sim_queue, random_pushes_removals_and_pops_pick_as_the_scan)
{
    enum { N = 300 };
    sim_job_words *j = words();
    int in[N] = {0};
    srand(7);
    for (int step = 0; step < 20000; step++) {
        int pe = rand() % N, what = rand() % 4;
        if (what == 0 && !in[pe]) {
            /* Few distinct clocks: many ties. The key is set while out. */
            key(j, pe, (rand() % 8) * 1e-6);
            dmsg_sim_queue_push(j, pe);
            in[pe] = 1;
        } else if (what == 1) {
            dmsg_sim_queue_remove(j, pe);
            in[pe] = 0;
        } else if (what == 2) {
            int want = scan(j, in, N), got = dmsg_sim_queue_pop(j);
            cr_assert_eq(got, want, "step %d", step);
            if (got >= 0)
                in[got] = 0;
        } else {
            cr_assert_eq(dmsg_sim_queue_peek(j), scan(j, in, N), "step %d", step);
        }
        int count = 0;
        for (int p = 0; p < N; p++)
            count += in[p];
        cr_assert_eq(j->nready, (uint32_t)count);
    }
    free(j);
}
