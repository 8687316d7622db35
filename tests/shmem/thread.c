/* SHMEM_THREAD_MULTIPLE: several threads of every PE call OpenSHMEM at once.
 * - mix: 4 threads per PE put, get, add atomically, quiet and wait, two of
 *   them on private contexts, while one of them also reduces on the world;
 *   every word lands where it should and no atomic add is lost;
 * - wait: one thread of each PE waits (wait_until) for a word that the
 *   previous PE sets only after this PE's other thread has put to it (a
 *   ring): it ends only if a waiting thread lets its PE's puts through;
 * - barrier: PE 0's first thread enters shmem_barrier_all while its second
 *   thread, later, puts the words that let the other PEs reach the barrier;
 *   then threads allocate, split teams and synchronize them while others
 *   put and add.
 * On one PE the previous and the next PE are the PE itself.
 * With the argument "mixed", only the PE that dmsgrun started first asks for
 * MULTIPLE and runs two threads (barriers in one, atomics to every other PE
 * in the other); the others call shmem_init and run one thread. */
#include <pthread.h>
#include <string.h>
#include <time.h>
#include "shtest.h"
#include "../launcher_rank.h"

#define T 4       /* threads per PE in mix */
#define ITERS 200 /* rounds per thread */

static int me, npes;
static long slots[T][ITERS]; /* mix: thread t's round i, put by the previous PE */
static long back[T][ITERS];  /* mix: what each thread got back */
static long adds;            /* mix: atomic adds from the previous PE's threads */
static long done_mix[T];     /* mix: thread t of the previous PE is done */
static long red_src, red_dst;

static void pause_ms(int ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

static void *mix_thread(void *arg)
{
    int t = (int)(intptr_t)arg;
    int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    if (t >= 2 && shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) != 0) {
        CHECK(!"shmem_ctx_create");
        ctx = SHMEM_CTX_DEFAULT;
    }
    for (int i = 0; i < ITERS; i++) {
        long v = (long)me * 1000000 + t * 10000 + i + 1; /* never 0 */
        if (ctx != SHMEM_CTX_DEFAULT) {
            shmem_ctx_long_put(ctx, &slots[t][i], &v, 1, next);
            shmem_ctx_long_atomic_add(ctx, &adds, 1, next);
            shmem_ctx_quiet(ctx);
        } else {
            shmem_long_p(&slots[t][i], v, next);
            shmem_long_atomic_fetch_add(&adds, 1, next);
            shmem_quiet();
        }
        /* The previous PE's thread t has put round i: read it from there. */
        shmem_long_wait_until(&slots[t][i], SHMEM_CMP_NE, 0);
        back[t][i] = shmem_long_g(&slots[t][i], me);
        long got;
        shmem_long_get(&got, &slots[t][i], 1, next);
        (void)got; /* next's thread may not have put it yet: only the call */
        if (t == 0 && i % 50 == 0) {
            /* A collective from one thread while the others go on. */
            red_src = me + 1;
            shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &red_dst, &red_src, 1);
            CHECK(red_dst == (long)npes * (npes + 1) / 2);
        }
    }
    shmem_long_atomic_set(&done_mix[t], 1, next);
    shmem_long_wait_until(&done_mix[t], SHMEM_CMP_EQ, 1);
    for (int i = 0; i < ITERS; i++)
        CHECK(back[t][i] == (long)prev * 1000000 + t * 10000 + i + 1);
    if (ctx != SHMEM_CTX_DEFAULT)
        shmem_ctx_destroy(ctx);
    return NULL;
}

static long token, flag;

/* wait: the waiting thread. Its flag comes from the previous PE, which
 * sets it once its token came from this PE's putter. */
static void *waiter(void *arg)
{
    (void)arg;
    shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 1);
    return NULL;
}

static void *putter(void *arg)
{
    (void)arg;
    int next = (me + 1) % npes;
    pause_ms(50); /* the waiter is waiting by now, most likely */
    shmem_long_p(&token, 1, next);
    shmem_quiet();
    shmem_long_wait_until(&token, SHMEM_CMP_EQ, 1);
    shmem_long_atomic_set(&flag, 1, next);
    return NULL;
}

static long go, bdata[16];

static void *barrier_thread(void *arg)
{
    (void)arg;
    if (me != 0 || npes == 1) /* PE 0 alone has no one else to wait for */
        shmem_long_wait_until(&go, SHMEM_CMP_EQ, 1);
    shmem_barrier_all();
    /* Every PE is past PE 0's puts: they are complete and visible. */
    for (int i = 0; i < 16; i++)
        CHECK(bdata[i] == 100 + i);
    /* Collectives of the heap and of teams while the other thread puts. */
    long *blk = shmem_malloc(64 * sizeof(long));
    CHECK(blk != NULL);
    shmem_team_t even;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even) == 0);
    if (even != SHMEM_TEAM_INVALID) {
        CHECK(shmem_team_sync(even) == 0);
        shmem_team_destroy(even);
    }
    shmem_free(blk);
    return NULL;
}

static long rma_words[64];
static long rma_count;

static void *rma_thread(void *arg)
{
    (void)arg;
    if (me == 0) {
        pause_ms(50); /* the other thread is in the barrier by now, most likely */
        long v[16];
        for (int i = 0; i < 16; i++)
            v[i] = 100 + i;
        for (int p = 0; p < npes; p++) { /* itself first: before the others pass */
            shmem_long_put(bdata, v, 16, p);
            shmem_fence();
            shmem_long_p(&go, 1, p);
        }
    }
    int next = (me + 1) % npes;
    for (int i = 0; i < 64; i++) {
        shmem_long_p(&rma_words[i], i + 1, next);
        shmem_long_atomic_inc(&rma_count, next);
    }
    shmem_quiet();
    return NULL;
}

static void run2(void *(*a)(void *), void *(*b)(void *))
{
    pthread_t ta, tb;
    CHECK(pthread_create(&ta, NULL, a, NULL) == 0);
    CHECK(pthread_create(&tb, NULL, b, NULL) == 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
}

static long mixed_count;

static void *mixed_barriers(void *arg)
{
    (void)arg;
    for (int i = 0; i < 50; i++)
        shmem_barrier_all();
    return NULL;
}

static void *mixed_atomics(void *arg)
{
    (void)arg;
    for (int p = 1; p < npes; p++)
        for (int i = 0; i < 100; i++)
            shmem_long_atomic_inc(&mixed_count, p);
    shmem_quiet();
    return NULL;
}

static int mixed(void)
{
    int first = launcher_rank() == 0, provided = -1;
    if (first)
        shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    else
        shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    shmem_query_thread(&provided);
    CHECK(provided == (first ? SHMEM_THREAD_MULTIPLE : SHMEM_THREAD_SINGLE));
    if (first)
        run2(mixed_barriers, mixed_atomics);
    else
        mixed_barriers(NULL);
    shmem_barrier_all();
    CHECK(first || mixed_count == 100);
    return sht_end("thread mixed");
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "mixed"))
        return mixed();
    int provided = -1;
    CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (provided != SHMEM_THREAD_MULTIPLE) {
        printf("thread: SHMEM_THREAD_MULTIPLE not provided (%d)\n", provided);
        shmem_global_exit(1);
    }
    int q = -1;
    shmem_query_thread(&q);
    CHECK(q == SHMEM_THREAD_MULTIPLE);

    pthread_t th[T];
    for (int t = 0; t < T; t++)
        CHECK(pthread_create(&th[t], NULL, mix_thread, (void *)(intptr_t)t) == 0);
    for (int t = 0; t < T; t++)
        pthread_join(th[t], NULL);
    shmem_barrier_all();
    CHECK(adds == (long)T * ITERS);

    run2(waiter, putter);
    shmem_barrier_all();
    CHECK(flag == 1 && token == 1);

    run2(barrier_thread, rma_thread);
    shmem_barrier_all();
    CHECK(rma_count == 64);
    for (int i = 0; i < 64; i++)
        CHECK(rma_words[i] == i + 1);
    return sht_end("thread");
}
