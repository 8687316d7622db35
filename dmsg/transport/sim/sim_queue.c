/* The scheduler's ready queue (sim.h, dmsg_sim_queue_*): a binary heap of
 * the ready PEs in the job area, least (clock when it stopped, rank) first.
 *
 * Why. The scheduler hands the run token to the ready PE with the least
 * clock, ties to the lower rank. It found that PE by scanning every PE's
 * state, and at 128 PEs that scan was 16% of RRMSG's host time; a heap
 * takes log2(PEs) steps for a push or a pop. Every PE's key (sclock) is
 * fixed while it is in the queue (it is written when the PE stops, before
 * it can be readied), and ranks are unique, so the order is total and the
 * pick is exactly the scan's: the interleaving, and every virtual time
 * that depends on it, stay the same.
 *
 * Only the token's holder calls these (sim_sched.c), so plain words do. */
#include "dmsg/transport/sim/sim.h"

static int before(const sim_job_words *j, int32_t a, int32_t b)
{
    uint64_t ka = atomic_load_explicit(&j->sclock[a], memory_order_relaxed);
    uint64_t kb = atomic_load_explicit(&j->sclock[b], memory_order_relaxed);
    return ka < kb || (ka == kb && a < b);
}

static void put(sim_job_words *j, uint32_t i, int32_t pe)
{
    j->heap[i] = pe;
    j->qpos[pe] = (int32_t)i + 1;
}

static void up(sim_job_words *j, uint32_t i)
{
    int32_t pe = j->heap[i];
    while (i > 0) {
        uint32_t parent = (i - 1) / 2;
        if (!before(j, pe, j->heap[parent]))
            break;
        put(j, i, j->heap[parent]);
        i = parent;
    }
    put(j, i, pe);
}

static void down(sim_job_words *j, uint32_t i)
{
    int32_t pe = j->heap[i];
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= j->nready)
            break;
        if (c + 1 < j->nready && before(j, j->heap[c + 1], j->heap[c]))
            c++;
        if (!before(j, j->heap[c], pe))
            break;
        put(j, i, j->heap[c]);
        i = c;
    }
    put(j, i, pe);
}

void dmsg_sim_queue_push(sim_job_words *j, int pe)
{
    if (j->qpos[pe])
        return; /* already in: its key has not changed */
    put(j, j->nready++, pe);
    up(j, j->nready - 1);
}

void dmsg_sim_queue_remove(sim_job_words *j, int pe)
{
    int32_t at = j->qpos[pe];
    if (!at)
        return;
    uint32_t i = (uint32_t)at - 1;
    j->qpos[pe] = 0;
    int32_t last = j->heap[--j->nready];
    if (i == j->nready)
        return;
    /* The last PE fills the hole and moves whichever way its key says. */
    put(j, i, last);
    if (i > 0 && before(j, last, j->heap[(i - 1) / 2]))
        up(j, i);
    else
        down(j, i);
}

int dmsg_sim_queue_pop(sim_job_words *j)
{
    if (!j->nready)
        return -1;
    int pe = j->heap[0];
    dmsg_sim_queue_remove(j, pe);
    return pe;
}

int dmsg_sim_queue_peek(const sim_job_words *j)
{
    return j->nready ? j->heap[0] : -1;
}
