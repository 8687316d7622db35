/* The deposit engine (sim.h, dmsg_sim_engine_*).
 *
 * Why. Under the scheduler a PE of a big job writes other PEs' memory
 * through the job region's file (sim_file.c): every deposit is a pwrite of
 * the data and one of its arrival record, two system calls of 2 to 3 us on
 * this project's 2-core host, about 60% of a PE's time in a 4096-PE
 * all-to-all, while the host's second core idles (one PE runs at a time).
 * Through the mapping the same stores would cost nanoseconds, but a PE
 * process that touched every other PE's pages would need a page-table page
 * per partner, PEs^2 of them in all (sim_sched.c, drop_others). One process
 * can afford them: PE 0 runs a thread, the engine, that keeps its mapping
 * of the whole region (PE 0 never drops while it hosts it) and copies the
 * bytes the token's holder puts in a ring in the job area (SIM_RING_N
 * entries of up to SIM_RING_DATA bytes and their offset in the region).
 * The holder goes on with its next deposit meanwhile, on the other core.
 *
 * Order. The ring is applied in order, so a later write to the same bytes
 * wins as it did with pwrite. Only the token's holder writes entries, and
 * it waits for the ring to empty (dmsg_sim_engine_drain) before anything
 * can read what the entries write: before it hands the token on (the next
 * PE may read its memory), before a read through the file, before any
 * touch of another PE through the mapping (sim_touch: fetches, atomics,
 * signals, deposits the file path leaves to the mapping) and before a
 * write of its own that bypasses the ring (a large one). The engine
 * publishes `tail` with a release store after its copies, the holder reads
 * it with an acquire load, and the hand-off orders the rest.
 *
 * Where the engine cannot run (no thread) the file path writes itself, as
 * before. When PE 0 dies the job is torn down: a drain looks at the abort
 * flag while it waits. */
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "dmsg/base/clock.h"
#include "dmsg/base/relax.h"
#include "dmsg/transport/sim/sim.h"

/* Writes up to this many bytes go through the ring (a few entries); larger
 * ones are a pwrite of the holder's own, after a drain: a system call is
 * then small beside the copy. */
#define SIM_ENGINE_MAX_BYTES 512u
/* The engine polls the ring this many times after its last entry before it
 * sleeps (tens of microseconds: the next deposit of a run is sooner), and
 * sleeps at most SIM_ENGINE_NAP_S at a time (it looks at `stop`). A writer
 * that waits for the engine polls SIM_DRAIN_POLLS times, then sleeps until
 * the engine has applied more (at most SIM_ENGINE_NAP_S at a time: it looks
 * at the abort flag). Neither spins long: on a loaded host the other may
 * need the core. */
#define SIM_ENGINE_POLLS 2000u
#define SIM_ENGINE_NAP_S 0.05
#define SIM_DRAIN_POLLS 2000u
/* A writer rings a sleeping engine only once this many entries wait (or
 * when it drains): a ring a write cost a system call of the writer's each
 * time the engine had dozed off between two deposits (4% of the PEs' time
 * in a 4096-PE FFT), and the engine copies a batch as fast as one. */
#define SIM_ENGINE_BATCH (SIM_RING_N / 8)

static sim_ring *ring_of(sim_state *s)
{
    return &sim_job(s)->ring;
}

static void ring_word(_Atomic uint32_t *w)
{
    atomic_fetch_add(w, 1);
    syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE, 1, NULL, NULL, 0);
}

static void bell(sim_ring *r)
{
    ring_word(&r->bell);
}

/* Sleeps on *w while it holds v, at most SIM_ENGINE_NAP_S. */
static void nap(_Atomic uint32_t *w, uint32_t v)
{
    struct timespec ts = dmsg_clock_span(SIM_ENGINE_NAP_S);
    syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT, v, &ts, NULL, 0);
}

static void *engine_main(void *arg)
{
    sim_state *s = arg;
    sim_ring *r = ring_of(s);
    char *base = (char *)s->shm.hdr;
    uint64_t tail = atomic_load(&r->tail);
    unsigned idle = 0;
    for (;;) {
        uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
        if (tail != head) {
            do {
                const sim_ring_ent *e = &r->ent[tail % SIM_RING_N];
                memcpy(base + e->off, e->data, e->len);
                tail++;
            } while (tail != head);
            atomic_store(&r->tail, tail);
            if (atomic_load(&r->waiting))
                ring_word(&r->done);
            idle = 0;
            continue;
        }
        if (atomic_load(&r->stop))
            break;
        if (idle < SIM_ENGINE_POLLS) {
            idle++;
            dmsg_cpu_relax();
            continue;
        }
        /* Asleep: a writer that sees `sleeping` after its entry rings. */
        uint32_t v = atomic_load(&r->bell);
        atomic_store(&r->sleeping, 1);
        if (atomic_load(&r->head) == tail && !atomic_load(&r->stop))
            nap(&r->bell, v);
        atomic_store(&r->sleeping, 0);
        /* Woken by a writer: poll again; a nap that ran out sleeps again. */
        if (atomic_load(&r->bell) != v)
            idle = 0;
    }
    return NULL;
}

void dmsg_sim_engine_start(sim_state *s)
{
    /* On one core the engine would only take turns with the PE that waits
     * for it. */
    if (!s->file || !s->set.engine || s->tp->rank != 0 || sysconf(_SC_NPROCESSORS_ONLN) < 2)
        return;
    /* The thread takes no signal of the program's: they go to its own. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&s->engine_thr, NULL, engine_main, s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc == 0) {
        s->engine_host = 1;
        atomic_store(&ring_of(s)->on, 1);
    }
}

void dmsg_sim_engine_joined(sim_state *s)
{
    s->engine = s->file && atomic_load(&ring_of(s)->on);
}

/* Waits until the engine has applied the entries below `upto`. */
static int wait_tail(sim_state *s, uint64_t upto)
{
    sim_ring *r = ring_of(s);
    if (atomic_load(&r->tail) < upto && atomic_load(&r->sleeping))
        bell(r); /* entries left below SIM_ENGINE_BATCH */
    for (unsigned i = 0; atomic_load_explicit(&r->tail, memory_order_acquire) < upto; i++) {
        if (i < SIM_DRAIN_POLLS) {
            dmsg_cpu_relax();
            continue;
        }
        if (dmsg_boot_aborted(s->shm.boot))
            return -1;
        if (atomic_load(&r->sleeping))
            bell(r); /* cannot be needed (the writer rang): a safety net */
        /* Asleep: the engine that sees `waiting` after its store of tail
         * rings (seq_cst on both sides). */
        uint32_t v = atomic_load(&r->done);
        atomic_store(&r->waiting, 1);
        if (atomic_load(&r->tail) < upto)
            nap(&r->done, v);
        atomic_store(&r->waiting, 0);
    }
    return 0;
}

int dmsg_sim_engine_drain(sim_state *s)
{
    if (!s->engine)
        return 0;
    return wait_tail(s, atomic_load_explicit(&ring_of(s)->head, memory_order_relaxed));
}

int dmsg_sim_engine_takes(const sim_state *s, size_t len)
{
    return s->engine && s->sched && len <= SIM_ENGINE_MAX_BYTES;
}

int dmsg_sim_engine_write(sim_state *s, uint64_t off, const void *buf, size_t len)
{
    sim_ring *r = ring_of(s);
    const unsigned char *b = buf;
    uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    while (len > 0) {
        size_t n = len < SIM_RING_DATA ? len : SIM_RING_DATA;
        if (head - atomic_load_explicit(&r->tail, memory_order_acquire) >= SIM_RING_N &&
            wait_tail(s, head - SIM_RING_N + 1))
            return -1;
        sim_ring_ent *e = &r->ent[head % SIM_RING_N];
        e->off = off;
        e->len = (uint32_t)n;
        memcpy(e->data, b, n);
        atomic_store_explicit(&r->head, ++head, memory_order_release);
        off += n, b += n, len -= n;
    }
    /* Pairs with the engine's store of `sleeping` and load of `head`; a
     * drain rings for what is left below the batch. */
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load(&r->sleeping) &&
        head - atomic_load_explicit(&r->tail, memory_order_relaxed) >= SIM_ENGINE_BATCH)
        bell(r);
    return 0;
}

void dmsg_sim_engine_stop(sim_state *s, int wait_for_all)
{
    if (!s->engine_host)
        return;
    sim_job_words *j = sim_job(s);
    /* Every other PE writes until it leaves the scheduler (and drains
     * then): this thread's process must keep the engine until the last. */
    while (wait_for_all && atomic_load(&j->off) < (uint32_t)s->tp->npes &&
           !dmsg_boot_aborted(s->shm.boot)) {
        struct timespec ts = dmsg_clock_span(1e-3);
        nanosleep(&ts, NULL);
    }
    atomic_store(&ring_of(s)->stop, 1);
    bell(ring_of(s));
    pthread_join(s->engine_thr, NULL);
    s->engine_host = 0;
    s->engine = 0;
}
