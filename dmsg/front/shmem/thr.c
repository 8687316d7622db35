/* SHMEM_THREAD_MULTIPLE: any thread of a PE may call any routine at any
 * time, on a core that serves one thread of a PE at a time (include/dmsg.h,
 * "Threads").
 *
 * One lock per PE (big) is held by every call that reaches dmsg's core:
 * the core's state (the transport's queues and progress, the simulated
 * clock, the wait policy's load sample, team tables, the last error's
 * counters) has no lock of its own. It is taken only when a PE asked for
 * MULTIPLE at shmem_init_thread (dmsg_shmem_mt, tested once per call), so
 * SINGLE, FUNNELED and SERIALIZED programs pay one predictable branch.
 *
 * Nothing waits for another PE while holding it, except inside a
 * collective whose every member has arrived (below):
 * - point-to-point waits poll: one test (dmsg_test_until and friends,
 *   which also drives the transport's progress) under the lock, then the
 *   lock is let go and the thread backs off (pause, yield, then short
 *   sleeps), so a waiting thread never blocks its PE's other threads;
 * - collectives (barriers, team and active-set collectives, splits,
 *   shmem_malloc and friends) first pass a gate: the PE tells every other
 *   member it has arrived (an atomic add to the word of its own number in
 *   the member's gate array) and waits, polling as above, until every
 *   member has told it as often as it has told them. Past the gate every
 *   member is inside the same collective, so the core's collective may run
 *   under the lock: its waits end without any other thread's help.
 *   Collectives are also serialized per PE (coll_mx): the specification
 *   forbids concurrent collectives on one team, and those on different
 *   teams that share PEs must then be entered in one order on every PE.
 * The gate array is symmetric (shmem_init allocates it on every PE, at
 * any thread level, so that heaps stay alike). Whether the PEs take the
 * lock is agreed at shmem_init (any PE at MULTIPLE: all of them), since a
 * gate waits for every member.
 *
 * Not covered by the lock: the program's own loads and stores to symmetric
 * memory (as in every OpenSHMEM) and shmem_ptr's pointers; the core's
 * waits' DMSG_TIMEOUT and stall reports do not watch the polling waits. */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "dmsg/base/relax.h"
#include "dmsg/front/shmem/shmem_impl.h"

int dmsg_shmem_mt;

static pthread_mutex_t big = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t coll_mx = PTHREAD_MUTEX_INITIALIZER;

/* gate[s] on this PE: how many collectives PE s has entered with it.
 * passed[s]: how many of those this PE has waited for (coll_mx). */
static uint64_t *gate;
static uint64_t *passed;

void dmsg_shmem_mt_lock(void)
{
    pthread_mutex_lock(&big);
}

void dmsg_shmem_mt_unlock(void)
{
    pthread_mutex_unlock(&big);
}

/* The i-th back-off between two polls: a few pauses for an answer that is
 * on its way, then yields (PEs and threads may outnumber cores), then
 * sleeps of up to 200 us, which bound how late a long wait notices. */
static void backoff(unsigned i)
{
    if (i < 32) {
        dmsg_cpu_relax();
    } else if (i < 512) {
        sched_yield();
    } else {
        unsigned us = i - 512 < 200 ? i - 512 + 1 : 200;
        struct timespec ts = {0, (long)us * 1000};
        nanosleep(&ts, NULL);
    }
}

int dmsg_shmem_mt_poll(int (*test)(void *arg, int *met), void *arg)
{
    for (unsigned i = 0;; i += i < 4096) {
        int met = 0;
        pthread_mutex_lock(&big);
        int st = test(arg, &met);
        pthread_mutex_unlock(&big);
        if (st || met)
            return st;
        backoff(i);
    }
}

/* --------------------------------------------------------------- gate */

typedef struct gate_wait {
    const uint64_t *word;
    uint64_t value;
} gate_wait;

static int gate_test(void *arg, int *met)
{
    gate_wait *g = arg;
    return dmsg_test_until(g->word, DMSG_TYPE_UINT64, DMSG_CMP_GE, &g->value, met);
}

/* The job's number of the i-th member: of team t, or of active set a. */
static int member(dmsg_team t, const dmsg_shmem_aset *a, int i)
{
    if (a)
        return a->start + i * a->stride;
    return dmsg_team_translate(t, i, DMSG_TEAM_WORLD);
}

static void gate_pass(const char *call, dmsg_team t, const dmsg_shmem_aset *a)
{
    int me = dmsg_pe();
    pthread_mutex_lock(&big);
    int n = a ? a->size : dmsg_team_npes(t);
    if (n < 0)
        dmsg_shmem_die(call, n, NULL);
    uint64_t one = 1;
    for (int i = 0; i < n; i++) {
        int w = member(t, a, i);
        if (w < 0)
            dmsg_shmem_die(call, w, NULL);
        if (w == me)
            continue;
        int st = dmsg_atomic(&gate[me], DMSG_AMO_ADD, DMSG_TYPE_UINT64, &one, NULL, NULL, w);
        if (st)
            dmsg_shmem_die(call, st, NULL);
    }
    pthread_mutex_unlock(&big);
    for (int i = 0; i < n; i++) {
        pthread_mutex_lock(&big);
        int w = member(t, a, i);
        pthread_mutex_unlock(&big);
        if (w == me)
            continue;
        gate_wait g = {&gate[w], ++passed[w]};
        int st = dmsg_shmem_mt_poll(gate_test, &g);
        if (st)
            dmsg_shmem_die(call, st, NULL);
    }
}

void dmsg_shmem_mt_coll_enter(const char *call, dmsg_team t, const dmsg_shmem_aset *a)
{
    pthread_mutex_lock(&coll_mx);
    gate_pass(call, t, a);
    pthread_mutex_lock(&big);
}

void dmsg_shmem_mt_coll_leave(void)
{
    pthread_mutex_unlock(&big);
    pthread_mutex_unlock(&coll_mx);
}

/* ----------------------------------------------------- setup, teardown */

/* level: what this PE asked for. The job takes the lock when any PE asked
 * for MULTIPLE: the gate needs every member's arrival, also from PEs whose
 * program runs one thread (they then pay for the lock too). */
void dmsg_shmem_thr_init(int level)
{
    int n = dmsg_npes();
    void *g = NULL;
    /* Every PE, at any level: the heap stays alike on all of them. */
    int st = dmsg_alloc((size_t)n * sizeof(uint64_t), &g);
    if (st)
        dmsg_shmem_die("shmem_init", st, "symmetric heap for the threads' gate");
    passed = calloc((size_t)n, sizeof *passed);
    if (!passed)
        dmsg_shmem_die("shmem_init", DMSG_ERR_NOMEM, NULL);
    /* Cleared before shmem_init's last barrier (static.c), so before any
     * peer can enter a collective and add to it. */
    memset(g, 0, (size_t)n * sizeof(uint64_t));
    gate = g;
    int32_t mine = level, any = 0;
    st = dmsg_allreduce(DMSG_TEAM_WORLD, &any, &mine, 1, DMSG_TYPE_INT32, DMSG_OP_MAX);
    if (st)
        dmsg_shmem_die("shmem_init", st, "agreeing on the thread level");
    dmsg_shmem_mt = any == SHMEM_THREAD_MULTIPLE;
}

void dmsg_shmem_thr_fini(void)
{
    free(passed);
    passed = NULL;
    gate = NULL; /* dmsg_finalize frees the heap */
    dmsg_shmem_mt = 0;
}
