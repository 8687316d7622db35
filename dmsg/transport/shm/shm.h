/* Native shared-memory transport: private definitions. Every PE maps the
 * whole job region (dmsg/boot/job.h), so a deposit is one copy by the
 * sender's processor into the target's segment, and counters and the barrier
 * are atomics in shared memory. Waits spin briefly and then sleep on a futex,
 * because PEs may outnumber cores. */
#ifndef DMSG_SHM_H
#define DMSG_SHM_H

#include <stdatomic.h>
#include <stdint.h>
#include "dmsg/base/fence.h"
#include "dmsg/boot/exchange.h"
#include "dmsg/transport/transport.h"

#define SHM_LINE 64

/* When PEs outnumber cores, a wait whose short spin found nothing yields its
 * core between polls for up to SHM_YIELD_S before it sleeps on the futex:
 * the PE it waits for is then most likely runnable without a core, and
 * sched_yield hands one over at once, while a sleeper also costs the PE that
 * completes its wait a wake-up call and itself a context switch more.
 * Measured on this project's 2-core host (interleaved runs, means of 3):
 * 16 PEs, a round of deposit, await and sync 309 us sleeping at once, 179
 * yielding up to 200 us, 187 up to 1 ms, 184 up to 5 ms; SOR 4096^2 at 4
 * PEs, the exchange alone (--nocompute) 34.9, 24.6, -, 23.7 us a step
 * (docs/kernels.md). The limit is short because a yielding PE looks busy:
 * where nothing else is runnable on its core it burns that core, and the
 * scheduler does not move a computing PE onto it as it would onto an idle
 * one (with up to 5 ms, the CPU time of SOR's exchange with computation
 * varied from 33 to 123 us a step between runs). The ofi transport yields
 * alike where it has no descriptor to sleep on (OFI_YIELD_S). The PEs of
 * the simulator, layered on shm, wait the same way. */
#define SHM_YIELD_S 200e-6 /* DMSG_YIELD_US=-1 */

/* Polls of an automatic wait while full spins do not pay (wait_policy.c):
 * sleep almost at once. */
#define SHM_SPIN_LOADED 64
/* While PEs outnumber cores an automatic wait yields at once, without
 * SHM_SPIN_LOADED polls first: the PE we wait for most likely needs our
 * core, and 64 polls (PAUSE is about 16 ns on this project's Intel host)
 * held it about 1 us a wait. 4 PEs on 2 cores, other sessions' load 5-7,
 * alternating runs: a round of deposit, await and sync 8.3-17.0 us
 * yielding at once against 16.2-26.6 with 64 polls (3 PEs: 7.2-9.2 against
 * 10.6-12.6), a ping-pong beside two PEs in dmsg_sync 1.63-1.65 us a half
 * round trip against 2.99-3.68, shmem_barrier_all 4.7 against 7.4-9.7 us
 * (8 PEs: 39-62 against 53-64 us a round, within the noise). */
#define SHM_OVERSUB_YIELD 1
/* Polls of an automatic wait while other work loads the host
 * (dmsg_tp_host_loaded): none, sleep at once. With other processes on the
 * cores even 64 polls before the futex made an 8-byte ping-pong slower
 * than sleeping at once (median half round trips on this project's 2-core
 * virtual host, other sessions' load 10-200 runnable tasks, interleaved
 * runs: dmsg 3.2-4.2 us with 64 polls against 1.7-2.2 us sleeping at once,
 * postal 4.3-6.3 against 2.7-4.0; tools/dmsg-wait-ab). With none, two busy
 * processes beside the job: automatic 1.71 us against 2.02 sleeping at once
 * (dmsg), 2.56 against 2.52 (postal); the build before: 3.82 against 1.97,
 * 6.26 against 3.86 (tools/dmsg-wait-ab -r 4 -b 2, one run). */
#define SHM_SPIN_BUSY 0
/* Polls of an automatic wait on a host that is not loaded: a poll is one
 * PAUSE (about 22 ns on this project's AMD EPYC host), so about 0.45 ms. */
#define SHM_SPIN_POLLS 20000

/* A PE that has spun SHM_YIELD_AFTER polls yields its core every 128 polls
 * (wait_policy.c). When other processes load the host, the PE we wait for
 * may be runnable but without a core, and spinning out the whole budget
 * kept it off ours: a 128 KiB halo exchange then took 0.2-0.75 ms instead
 * of 2-50 us (docs/kernels.md). Short waits never yield: a yield on a
 * loaded host can hand the core to another process for a whole time slice,
 * and yielding from the 128th poll on made an 8-byte ping-pong 10 times
 * slower there (0.4-0.9 us a half round trip without, 7.4-7.8 us with).
 * 2,048 polls are about 45 us, longer than any transfer between two running
 * PEs of the sizes a spinning wait serves. */
#define SHM_YIELD_AFTER 2048

/* The wait policy's automatic values on shm (and on the simulator, layered on it). */
#define SHM_WAIT_AUTO                                                                          \
    ((dmsg_wait_auto){.spin_polls = SHM_SPIN_POLLS, .loaded_polls = SHM_SPIN_LOADED,          \
                      .busy_polls = SHM_SPIN_BUSY,                                             \
                      .yield_after = SHM_YIELD_AFTER, .yield_s = SHM_YIELD_S,                  \
                      .oversub_yield = SHM_OVERSUB_YIELD})

/* A PE's line of the two-PE barrier (shm.c), one per parity of the
 * barrier's count: the barriers the PE has entered, written by the PE
 * alone and polled (or slept on) by its partner; whether the PE sleeps on
 * its partner's word; and barrier_xchg's value of the barrier (up to
 * SHM_PAIR_VAL bytes, 16-byte aligned), on the line the partner loads
 * anyway. */
typedef struct shm_pair {
    _Alignas(SHM_LINE) _Atomic uint32_t entered;
    _Atomic uint32_t sleepers;
    /* 16-byte aligned: the collectives read a long double in place */
    _Alignas(16) uint64_t val[6];
} shm_pair;

#define SHM_PAIR_VAL sizeof(((shm_pair *)0)->val)
_Static_assert(sizeof(shm_pair) == SHM_LINE, "a PE's pair words fill one line");

/* Jobs of 3 to SHM_DIS_MAX PEs where every PE has a core of the host
 * (shm.c, dis_barrier): a PE's line per round of the dissemination
 * barrier: the barriers the PE has entered, stored by the PE alone as it
 * passes the round, polled by the PE 2^round places on; and whether that
 * reader sleeps on the word. Two lines apart (adjacent-line prefetch pairs
 * lines), so that no reader drags another round's line. */
#define SHM_DIS_MAX 64
#define SHM_DIS_ROUNDS 6 /* log2(SHM_DIS_MAX) */
typedef struct shm_dis {
    _Alignas(2 * SHM_LINE) _Atomic uint32_t entered;
    _Atomic uint32_t sleepers;
    char pad[2 * SHM_LINE - 2 * sizeof(uint32_t)];
} shm_dis;

/* Barrier and gather slots, in the transport job area of the region. */
typedef struct shm_job_area {
    _Alignas(SHM_LINE) _Atomic uint32_t arrived;
    _Alignas(SHM_LINE) _Atomic uint32_t gen;
    _Atomic uint32_t sleepers;
    _Alignas(SHM_LINE) uint64_t gather[DMSG_MAX_PES][4];
    shm_pair pair[2][2]; /* jobs of two PEs: a line per PE and parity */
    /* barrier_xchg's rows, by the parity of the barrier's count (shm.c,
     * xchg_rows): jobs of three PEs or more, and of two where the values
     * do not fit the pair lines. */
    _Alignas(SHM_LINE) unsigned char xrow[2][DMSG_TP_XCHG_BYTES];
    shm_dis dis[SHM_DIS_MAX][SHM_DIS_ROUNDS];
} shm_job_area;
/* The rest of the transport job area, after shm's, is free for a transport
 * layered on shm (shm_job_spare): it starts zeroed with the region. */
#define SHM_JOB_SPARE_BYTES (DMSG_JOB_BOOT_OFF - DMSG_JOB_AREA_OFF - sizeof(shm_job_area))

/* One deposit counter instance, at the start of its DMSG_CTR_SLOT_BYTES
 * slot of the counter table at the start of each PE's control area (slots
 * start on a page plus a multiple of 256 bytes). */
typedef struct shm_ctr {
    /* An await on messages polls this line; a sender's count is one atomic
     * add to it, so the line moves once per deposit. */
    _Alignas(SHM_LINE) _Atomic uint64_t msgs;
    _Atomic uint32_t seq;      /* futex word: bumped when a sleeper must wake */
    _Atomic uint32_t sleepers;
    /* What the owner sleeps for (absolute counts; the other one is
     * UINT64_MAX): a sender wakes it only with the deposit that reaches it,
     * not with every deposit before (shm_ctr.c). */
    _Atomic uint64_t want_msgs, want_bytes;
    _Alignas(SHM_LINE) char gap[SHM_LINE];
    /* Bytes on a line of their own, two lines away (adjacent-line prefetch
     * pairs lines): with both counts on one line, a polling reader took the
     * line between the sender's two adds, and a ping-pong paid ~40 ns more. */
    _Alignas(SHM_LINE) _Atomic uint64_t bytes;
    char pad[SHM_LINE - sizeof(uint64_t)];
} shm_ctr;
/* The rest of each counter slot, one line after shm's three, is free for a
 * transport layered on shm (shm_ctr_spare): zeroed with the region,
 * never written by shm (its resets included). */
#define SHM_CTR_SPARE_BYTES (DMSG_CTR_SLOT_BYTES - sizeof(shm_ctr))

/* A PE's doorbell for point-to-point waits (dmsg_wait_until): the words a
 * wait watches change by atomics, signals and plain deposits alike, so
 * every one of those to a PE rings its bell (shm_ring), which costs a
 * fence and one load of a line that only changes when the owner sleeps.
 * One line at the end of each control area, before the boot layer's PE
 * info (layered transports keep their own use of the area below it). */
typedef struct shm_bell {
    _Alignas(SHM_LINE) _Atomic uint32_t seq; /* futex word: bumped by a ring with a sleeper */
    _Atomic uint32_t sleepers;               /* the owner, while it sleeps */
    char pad[SHM_LINE - 2 * sizeof(uint32_t)];
} shm_bell;
/* Bytes at the end of each control area that are not free for layered
 * transports: the bell and the boot layer's PE info. */
#define SHM_CTL_TAIL_BYTES (sizeof(shm_bell) + DMSG_JOB_PE_INFO_BYTES)

typedef struct shm_state {
    dmsg_job_hdr *hdr; /* the job region, mapped by the boot (dmsg_boot_join) */
    dmsg_boot *boot;   /* for dmsg_boot_aborted in the waits' sleeping paths */
    shm_job_area *area;
    const dmsg_wait_policy *wait; /* the transport's (tp->wait): every wait here follows it */
    uint64_t *taken;   /* per slot, 2 words: messages and bytes consumed by awaits.
                        * Private, so an await never writes the shared counter line
                        * (a write would cost the next sender a cache-line transfer). */
    char **seg;        /* every PE's segment, mapped in this process */
    uint32_t bar_seen;  /* barriers this PE has entered (every PE counts alike) */
    int dis;            /* barriers by dissemination (dis_barrier): the same on every PE */
    dmsg_xfer_params xp;
} shm_state;

static inline shm_ctr *shm_ctr_at(shm_state *s, int pe, uint32_t slot)
{
    return (shm_ctr *)(dmsg_job_ctl(s->hdr, pe) + (size_t)slot * DMSG_CTR_SLOT_BYTES);
}

/* Room that shm leaves to a transport layered on it, for its own shared
 * words: SHM_CTR_SPARE_BYTES in PE pe's counter slot, SHM_JOB_SPARE_BYTES
 * in the job area (and, as before, the control area after the counter
 * table up to SHM_CTL_TAIL_BYTES from its end). */
static inline void *shm_ctr_spare(shm_state *s, int pe, uint32_t slot)
{
    return (char *)shm_ctr_at(s, pe, slot) + sizeof(shm_ctr);
}

static inline void *shm_job_spare(shm_state *s)
{
    return (char *)s->area + sizeof(shm_job_area);
}

static inline shm_bell *shm_bell_at(shm_state *s, int pe)
{
    return (shm_bell *)(dmsg_job_ctl(s->hdr, pe) + s->hdr->ctl_size - SHM_CTL_TAIL_BYTES);
}

/* Predicate polled by dmsg_shm_wait. */
typedef int (*shm_ready_fn)(const void *arg);

/* Waits until ready(arg) by the wait policy: polls, yields for a while when PEs
 * outnumber cores, then sleeps on the futex word
 * `seq` (advertising itself in `sleepers`); wakers bump seq and wake when
 * sleepers != 0. Returns DMSG_ERR_TIMEOUT or DMSG_ERR_ABORTED when those apply. */
dmsg_status dmsg_shm_wait(shm_state *s, shm_ready_fn ready, const void *arg, _Atomic uint32_t *seq,
                     _Atomic uint32_t *sleepers);

/* Wakes every sleeper on seq if there is one; bump: first change seq so that
 * a sleeper about to sleep on the old value returns at once (for words that
 * the caller has not changed itself). */
void dmsg_shm_wake(_Atomic uint32_t *seq, _Atomic uint32_t *sleepers, int bump);

/* The shm ops, for transports layered on it. dmsg_shm_join fills a caller-owned
 * state (tp->priv must point to a struct that starts with it); it needs a
 * job region (boot kind LOCAL or SINGLETON), which the boot keeps mapped
 * until the core ends it after the transport's finalize. */
dmsg_status dmsg_shm_join(dmsg_tp *tp, shm_state *s, dmsg_boot *boot);
void dmsg_shm_leave(dmsg_tp *tp, shm_state *s);
dmsg_status dmsg_shm_barrier(dmsg_tp *tp);
dmsg_status dmsg_shm_barrier_xchg(dmsg_tp *tp, const void *mine, size_t len, const void **rows);
dmsg_status dmsg_shm_quiet(dmsg_tp *tp);
dmsg_status dmsg_shm_allgather(dmsg_tp *tp, const void *mine, size_t len, void *all);
dmsg_status dmsg_shm_ctr_reset(dmsg_tp *tp, uint32_t slot);
dmsg_status dmsg_shm_ctr_wait(dmsg_tp *tp, uint32_t slot, int bytes_mode, uint64_t n);
dmsg_status dmsg_shm_ctr_read(dmsg_tp *tp, uint32_t slot, uint64_t *msgs, uint64_t *bytes);

/* Counts one message of `bytes` payload bytes at PE pe (release: after the
 * data of the deposit is visible there). */
void dmsg_shm_ctr_signal(dmsg_tp *tp, int pe, uint32_t slot, uint64_t bytes);

/* Data movement (shm_move.c): one copy by this PE's processor through the
 * mapping (the copy engine, dmsg_copy_op). A fetch is complete inside the
 * call, so a non-blocking one is born finished. */
dmsg_status dmsg_shm_put(dmsg_tp *tp, const dmsg_op *op, uint32_t slot);
dmsg_status dmsg_shm_get(dmsg_tp *tp, const dmsg_op *op);
dmsg_status dmsg_shm_get_nb(dmsg_tp *tp, const dmsg_op *op, dmsg_req *req);
dmsg_status dmsg_shm_req_test(dmsg_tp *tp, dmsg_req *req, int *done);

/* Rings PE pe's doorbell after this PE changed words there (a deposit, an
 * atomic, a signal): wakes its point-to-point wait if it sleeps. The fence
 * orders the change before the look at the sleeper count, as the sleeper's
 * count is ordered before its last look at the words (dmsg_shm_wait), so one of
 * the two sees the other. */
static inline void shm_ring(shm_state *s, int pe)
{
    shm_bell *b = shm_bell_at(s, pe);
    dmsg_fence_seq_cst();
    if (atomic_load_explicit(&b->sleepers, memory_order_relaxed))
        dmsg_shm_wake(&b->seq, &b->sleepers, 1);
}

/* shm_ring after a seq_cst read-modify-write of the word (an atomic, an
 * added signal): that operation already orders the change before the
 * seq_cst look at the sleeper count, so no separate fence. */
static inline void shm_ring_after_rmw(shm_state *s, int pe)
{
    shm_bell *b = shm_bell_at(s, pe);
    if (atomic_load_explicit(&b->sleepers, memory_order_seq_cst))
        dmsg_shm_wake(&b->seq, &b->sleepers, 1);
}

/* Atomics and signals (shm_amo.c): CPU atomics on the word in the target's
 * mapped segment, complete inside the call; word_wait polls with the wait
 * policy and sleeps on this PE's doorbell. */
dmsg_status dmsg_shm_amo(dmsg_tp *tp, const dmsg_amo *a, int mode, void *result, dmsg_req *req);
dmsg_status dmsg_shm_signal(dmsg_tp *tp, int pe, size_t roff, uint64_t value, int add);
dmsg_status dmsg_shm_word_wait(dmsg_tp *tp, dmsg_tp_ready_fn ready, const void *arg, int once);
dmsg_status dmsg_shm_seg_alias(dmsg_tp *tp, size_t off, size_t len, void *at);
/* The atomic itself, without ringing: returns the old value. */
uint64_t dmsg_shm_amo_apply(shm_state *s, const dmsg_amo *a);

/* Where the op's remote side is, in this process. */
static inline char *shm_remote(shm_state *s, const dmsg_op *op)
{
    return s->seg[op->pe] + op->roff;
}

#endif
