/* Simulated machines: the real program runs and its data moves through the
 * shared-memory transport, but each PE keeps a virtual clock that every
 * operation advances by the cost model of a historical machine (machine.h,
 * ctm.h). Only communication, and the local work that upper layers book as
 * modelled (packing, matching: the vtime work op), advances the clock: other local
 * computation is free, so the virtual time of a run is the time its
 * communication steps would have taken on that machine. The clock and the
 * ordered delivery reach the core as the transport's virtual-time
 * extension (dmsg_tp_vtime_ops, sim.c). */
#ifndef DMSG_SIM_H
#define DMSG_SIM_H

#include <pthread.h>
#include <string.h>
#include "dmsg/base/mech.h"
#include "dmsg/transport/shm/shm.h"
#include "dmsg/model/machine.h"
#include "dmsg/transport/sim/sim_topo.h"

/* Where a PE's virtual time went. */
enum { SIM_T_TRANSFER, SIM_T_COPY, SIM_T_SYNC, SIM_T_CTRWAIT, SIM_T_FETCH, SIM_T_N };

typedef enum { SIM_FETCH_AUTO, SIM_FETCH_BLOCKING, SIM_FETCH_PIPELINED, SIM_FETCH_VECTOR } sim_fetch;

/* The sim settings (sim_env.c). */
typedef struct sim_settings {
    char machine[256]; /* DMSG_MACHINE: built-in name or description file */
    char mech[16];     /* DMSG_SIM_MECH: auto, packed, chained */
    double congestion; /* DMSG_SIM_CONGESTION: 0 = the machine's typical value */
    char fetch[16];    /* DMSG_SIM_FETCH: auto, blocking, pipelined, vector */
    int report;        /* DMSG_SIM_REPORT: print the time breakdown at finalize */
    int sched;         /* DMSG_SIM_SCHED: one PE runs at a time (the scheduler) */
    int topology;      /* DMSG_SIM_TOPOLOGY: the topology-aware network model */
    uint32_t drop_pes; /* DMSG_SIM_DROP_PES: jobs of more PEs drop others' mappings (sim_sched.c) */
    int pwrite;        /* DMSG_SIM_PWRITE: a PE that drops deposits through the job's file
                        * (sim_file.c) */
    int engine;        /* DMSG_SIM_ENGINE: the file path's small writes go through the
                        * deposit engine (sim_engine.c) */
} sim_settings;
extern const dmsg_env_table dmsg_sim_env_table;

/* Access pattern of one end of a transfer, as the copy-transfer model names
 * it: contiguous (1), constant stride (n), indexed (w). */
typedef enum { SIM_PAT_CONTIG, SIM_PAT_STRIDED, SIM_PAT_INDEXED } sim_pat;

/* What the cost model needs to know about one transfer (sim_describe.c). */
typedef struct sim_transfer {
    int get;               /* 0: deposit, 1: fetch */
    int pe;                /* the remote PE */
    uint64_t bytes;        /* payload bytes */
    size_t elem;           /* element size (the run length when contiguous) */
    sim_pat src, dst;      /* read and write patterns */
    ptrdiff_t src_stride;  /* bytes between elements when STRIDED */
    ptrdiff_t dst_stride;
    int adp;               /* destination addresses travel with the data */
    int nonblocking;       /* a fetch whose completion is awaited later */
} sim_transfer;

void dmsg_sim_describe(const dmsg_op *op, sim_transfer *x);

/* A rate the copy-transfer model gave (sim_cost.c): kind 0 is a free
 * entry, else a local copy or a remote copy by a mechanism. */
typedef struct sim_rate {
    int kind;
    int used;     /* the mechanism it chose (a remote copy) */
    long src, dst;
    double cong;
    double mbs;
} sim_rate;
#define SIM_RATES 64

typedef struct sim_state {
    shm_state shm; /* first: the shm functions see tp->priv as their state */
    dmsg_machine m;
    sim_settings set;
    dmsg_mech mech;
    sim_fetch fetch;
    double congestion;
    double clock;        /* virtual seconds */
    double pending;      /* latest arrival of this PE's deposits so far */
    double last_arrival; /* arrival of the deposit being counted */
    const dmsg_tp *tp;   /* the rank and job size: tp->rank, tp->npes (their one home) */
    int partner;         /* last remote partner, for the switch cost */
    uint64_t barriers;   /* parity of the barrier clock rows */
    uint64_t colls;      /* collectives (barriers, all-gathers) completed */
    double coll_time;    /* the clock every PE left the last of them with */
    uint32_t mark;       /* own log's `adds` when the caller last looked (horizon) */
    int sched;           /* runs under the scheduler (sim_sched.c) */
    uint32_t polls;      /* counter reads that found nothing new since this PE last
                          * communicated (sim_ctr_read) */
    uint32_t seen_news;  /* own log's `news` at the last counter read */
    double t[SIM_T_N];
    /* DMSG_SIM_TOPOLOGY=1 (sim_topo.c); topo NULL: off. */
    struct sim_topo_run *topo;
    sim_topo net;  /* the network shaped for this job */
    double topo_c; /* the congestion the deposit being costed meets on its route; 0: none */
    dmsg_status topo_st; /* a turn's wait that failed (DMSG_TIMEOUT) */
    sim_rate rates[SIM_RATES]; /* the rates this PE used so far (sim_cost.c) */
    /* The other PEs' parts of the job region, below and above this PE's own
     * (sim_sched.c, DMSG_SIM_DROP_PES): their page-table entries are dropped
     * at each hand-off of the token. drop_len[i] 0: nothing to drop. */
    char *drop_at[2];
    size_t drop_len[2];
    /* Deposits to other PEs go through the job region's file (sim_file.c):
     * a PE that drops (above) and DMSG_SIM_PWRITE. */
    int file;
    /* This PE touched another PE's part through the mapping since its last
     * drop (a fetch, an atomic, a deposit the file path left to the
     * mapping): its next hand-off drops; else the drop is skipped (a call
     * over the whole region costs about 0.4 ms at 4096 PEs even when
     * nothing is mapped). */
    int mapped;
    uint32_t clean_yields; /* hand-offs without a drop since the last one */
    /* The deposit engine (sim_engine.c): the file path's small writes go to
     * its ring (engine); this process runs it (engine_host: PE 0). */
    int engine, engine_host;
    pthread_t engine_thr;
    /* Scratch of the file path (sim_file.c): a deposit's runs. */
    struct sim_run *runs;
    size_t runs_n, runs_cap;
    /* Scratch of the arrival log's takes (sim_arrive.c): the records a take
     * uses, sorted; grown as needed, freed at finalize. */
    struct sim_pick *picks;
    uint32_t picks_cap;
    /* Every counter slot's tally of this PE's own log for one take mode
     * (sim_arrive.c), valid while the log's `adds` is tal_adds and this PE
     * took nothing since (tal_gen == log_gen): one pass for the many dues
     * of one look of RRMSG's engine instead of a pass each. */
    struct sim_tal *tal;
    int tal_mode, tal_ok;
    uint32_t tal_adds;
    uint64_t tal_gen, log_gen;
} sim_state;

/* This PE communicates or waits (a deposit, fetch, atomic, signal, counter
 * wait or order wait): it is not in a poll that finds nothing (sim_ctr_read). */
static inline void sim_acted(sim_state *s)
{
    s->polls = 0;
}

/* Advances the clock to t (if later), charging the difference to category k. */
static inline void sim_advance_to(sim_state *s, double t, int k)
{
    if (t > s->clock) {
        s->t[k] += t - s->clock;
        s->clock = t;
    }
}

static inline void sim_charge(sim_state *s, double dt, int k)
{
    s->t[k] += dt;
    s->clock += dt;
}

/* Virtual times in 64-bit shared words: positive doubles order like their
 * bit patterns, so a word can be raised with an integer compare-and-swap. */
static inline uint64_t dbits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static inline double bitsd(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* The simulator's own shared words, in room shm leaves to a layered
 * transport (shm.h): the barrier clocks and every PE's hot words in the job
 * area, and a floor per counter in the counter's slot (sim_arrive.c).
 *
 * Why the hot words are job-wide arrays: the horizon (sim_order.c) reads
 * every PE's bound and the scheduler every PE's state; kept in each PE's
 * control area, a page apart, each such word cost a cache and a TLB miss
 * per PE, and at 128 PEs those scans were 38% of RRMSG's host time. Dense,
 * one cache line holds 4 to 16 PEs. */
typedef struct sim_pe_bound {
    _Atomic uint64_t lb;    /* bits of a lower bound of the clock at this PE's next deposit */
    _Atomic uint64_t colls; /* 2 x collectives left, + 1 while inside one */
} sim_pe_bound;

/* Arrival times of counted deposits (sim_arrive.c), and in the same shared
 * header each PE's part of the ordered delivery (sim_order.c). */
typedef struct sim_rec {
    uint32_t slot;
    uint32_t used;   /* 0: free, else the record's number (sim_log.adds) */
    double t;        /* arrival, virtual seconds */
    uint64_t bytes;  /* bytes not yet taken by bytes awaits */
} sim_rec;

/* Takes (the bytes_mode of the ctr ops): messages, bytes, and zero-byte
 * deposits alone (the vtime extension's ctr_wait_empty). */
enum { SIM_TAKE_MSGS, SIM_TAKE_BYTES, SIM_TAKE_EMPTY };
/* A record's slot field flags a zero-byte deposit in its top bit. */
#define SIM_REC_EMPTY 0x80000000u

/* What a PE is blocked on (sim_log.wait): nothing, a counter slot (slot + 1),
 * or any counted deposit (an order wait). */
#define SIM_WAIT_NONE 0u
#define SIM_WAIT_ANY UINT32_MAX

/* A PE's log: its header in the job area (sim_job_words.log, never dropped:
 * every deposit locks and stamps its target's header, and in the target's
 * control area that was a page fault per deposit after each of the
 * scheduler's drops of the others' pages, sim_sched.c), its records in its
 * control area after the counter table (dmsg_sim_log_recs). */
typedef struct sim_log {
    _Alignas(64) _Atomic uint32_t lock; /* each header on lines of its own */
    _Atomic uint32_t wait;     /* SIM_WAIT_*, written under the lock; the bound, the
                                * collective word and the threshold are the job's
                                * (sim_job_words) */
    _Atomic uint32_t inbox;    /* futex word of an order wait: bumped by deposits, wakes */
    _Atomic uint32_t sleepers;
    _Atomic uint32_t adds;     /* number of the last record added (wraps, skipping 0) */
    _Atomic uint64_t wstamp;   /* bits of the latest arrival of any update to this PE's
                                * words (deposit, atomic, signal): point-to-point waits */
    _Atomic uint32_t news;     /* updates to this PE's words so far (wraps): a poll that
                                * sees it unchanged found nothing new (sim_ctr_read) */
    uint32_t blk_bytes;        /* a blocked await (under the lock): bytes mode, */
    uint64_t blk_n;            /* its count, */
    double blk_clock;          /* and the clock it waits from */
    uint32_t hi;               /* under the lock: records from here on are free, so the
                                * scans stop here (the log grows with the PE count) */
    uint32_t lo;               /* under the lock: records below it are all in use, so
                                * an add looks for the first free one from here */
    /* PE 0's only, for the whole job: */
    _Atomic uint64_t epoch;    /* lowerings of any PE's bound by a deposit */
    _Atomic uint64_t want;     /* ~bits of the lowest threshold of any order wait; 0: none */
    /* Counts of deposits through the file (sim_file.c) not yet in the
     * counter (shm's, in this PE's control area): for one slot at a time,
     * under the lock; the owner adds them to its counter before it reads,
     * waits on or resets one (dmsg_sim_count_fold). */
    _Atomic uint32_t pslot;    /* the slot + 1; 0: none pending */
    uint64_t pmsgs, pbytes;
} sim_log;
_Static_assert(sizeof(sim_log) == 128, "a log header is two lines");
/* Where the records start in a PE's control area, after the counter table:
 * where they were while the header lay before them, so that a log holds as
 * many records as it did (an overflow moves virtual times). */
#define SIM_LOG_REC_OFF 80u

/* The deposit engine's ring (sim_engine.c): the token's holder writes
 * entries, the engine (a thread of PE 0) applies them in order. */
#define SIM_RING_N 2048u
#define SIM_RING_DATA 48u
typedef struct sim_ring_ent {
    uint64_t off; /* where the bytes go: an offset in the job region (its file) */
    uint32_t len; /* how many, at most SIM_RING_DATA */
    uint32_t pad;
    unsigned char data[SIM_RING_DATA];
} sim_ring_ent;
typedef struct sim_ring {
    _Alignas(64) _Atomic uint64_t head; /* entries written so far (the token's holder) */
    _Alignas(64) _Atomic uint64_t tail; /* entries applied so far (the engine) */
    _Alignas(64) _Atomic uint32_t bell; /* the engine's futex word */
    _Atomic uint32_t sleeping;          /* 1 while the engine sleeps on bell */
    _Atomic uint32_t stop;              /* 1: the engine ends (PE 0's finalize) */
    _Atomic uint32_t on;                /* 1: the engine runs (set before the scheduler starts) */
    _Alignas(64) _Atomic uint32_t done; /* the writer's futex word: the engine bumps it after
                                         * it applied entries while `waiting` */
    _Atomic uint32_t waiting;           /* 1 while the writer sleeps on done */
    _Alignas(64) sim_ring_ent ent[SIM_RING_N];
} sim_ring;

typedef struct sim_job_words {
    uint64_t clock[2][DMSG_MAX_PES]; /* bits of each PE's clock at a barrier; two rows
                                      * used alternately by consecutive barriers */
    /* The scheduler (sim_sched.c): */
    _Atomic int32_t owner;     /* the PE that holds the run token; -1: none (a deadlock) */
    _Atomic uint32_t arrived;  /* PEs in the current collective */
    _Atomic uint32_t gen;      /* collectives completed */
    _Atomic uint32_t idle;     /* sweeps since a blocked PE last went on */
    _Atomic uint32_t off;      /* PEs that have left the scheduler (finalize) */
    _Atomic uint32_t abort_woken; /* 1 once a PE has woken every sleeper at an abort */
    _Atomic uint32_t watch;    /* 1 + the rank of the sleeper that looks at the abort flag
                                * and the launcher's life pipe often (sim_sched.c); 0: none */
    uint32_t nready;           /* PEs in the ready queue */
    uint64_t handoffs;         /* hand-offs of the token to another PE so far */
    uint64_t sweeps;           /* sweeps that readied a parked PE so far */
    /* Under the scheduler, for DMSG_SIM_REPORT (the token's holder counts): */
    _Atomic uint64_t drops;    /* hand-offs that dropped the others' pages (an atomic: the
                                * next PE runs while one drops) */
    uint64_t file_puts;        /* deposits to another PE through the file (sim_file.c) */
    uint64_t map_puts;         /* deposits to another PE through the mapping */
    /* Each PE's part of the ordered delivery (sim_order.c), read by the
     * horizon's scan (the log's header has the rest: sim_log): */
    _Alignas(64) sim_pe_bound bound[DMSG_MAX_PES];
    _Atomic uint64_t thr[DMSG_MAX_PES];    /* an order wait's threshold (bits) */
    _Atomic uint32_t ordwait[DMSG_MAX_PES]; /* 1 while in an order wait (its log's wait is
                                             * SIM_WAIT_ANY) */
    /* Each PE's place in the scheduler (sim_sched.c): */
    _Atomic uint64_t sclock[DMSG_MAX_PES]; /* bits of its clock when it stopped */
    _Atomic uint32_t state[DMSG_MAX_PES];  /* SIM_S_* */
    /* SIM_PARK_*: what it is parked on. Here, not beside its futex word in
     * its own control area: every deposit, atomic and signal reads its
     * target's (dmsg_sim_sched_poke), and with DMSG_SIM_DROP_PES each such
     * read of another PE's part is a page fault after a hand-off. */
    _Atomic uint32_t why[DMSG_MAX_PES];
    /* The ready queue: a binary heap of the PEs whose state is SIM_S_READY,
     * least (sclock, rank) first; qpos[p] is p's index in it plus one, 0
     * while p is not in it (the region starts zeroed). Only the token's
     * holder touches it (PE 0 fills it at the start). */
    int32_t heap[DMSG_MAX_PES];
    int32_t qpos[DMSG_MAX_PES];
    /* Each PE blocked in an await (its log's wait is slot + 1; under that
     * log's lock): what its log holds for the await, kept by every add, so
     * that a deposit to it finds its bound without a pass over the log
     * (sim_arrive.c): the messages (bytes) counted and the latest arrival. */
    uint64_t blk_have[DMSG_MAX_PES];
    double blk_latest[DMSG_MAX_PES];
    /* Each PE's arrival log's header (its records are in its control area). */
    sim_log log[DMSG_MAX_PES];
    /* Each PE's futex word in the scheduler: bumped when it is handed the
     * token. Here, not in its control area, so that a hand-off maps no page
     * of another PE (DMSG_SIM_DROP_PES: a fault, and a drop to undo it). */
    _Atomic uint32_t go[DMSG_MAX_PES];
    sim_ring ring; /* the deposit engine's (sim_engine.c) */
} sim_job_words;
_Static_assert(sizeof(sim_job_words) <= SHM_JOB_SPARE_BYTES, "the simulator's words fit the job area");

typedef struct sim_ctr_words {
    _Atomic uint64_t floor; /* bits of the latest arrival that overflowed the log */
} sim_ctr_words;
_Static_assert(sizeof(sim_ctr_words) <= SHM_CTR_SPARE_BYTES, "counter floor fits its slot");

static inline sim_job_words *sim_job(sim_state *s)
{
    return (sim_job_words *)shm_job_spare(&s->shm);
}

/* PE pe's bound and collective word (sim_order.c). */
static inline sim_pe_bound *sim_bound(sim_state *s, int pe)
{
    return &sim_job(s)->bound[pe];
}

static inline sim_ctr_words *sim_ctr(sim_state *s, int pe, uint32_t slot)
{
    return (sim_ctr_words *)shm_ctr_spare(&s->shm, pe, slot);
}


sim_log *dmsg_sim_log_of(sim_state *s, int pe);
/* PE pe's log records (in its control area). */
sim_rec *dmsg_sim_log_recs(sim_state *s, int pe);
void dmsg_sim_log_lock(sim_log *l);
void dmsg_sim_log_unlock(sim_log *l);
/* Records that a deposit on slot at PE pe arrives at t (virtual), and
 * counts it there (with `bytes` payload bytes). */
void dmsg_sim_log_add(dmsg_tp *tp, int pe, uint32_t slot, double t, uint64_t bytes);
/* Where an order wait for t starts its bound: the earliest of t and the
 * arrivals of records added after `mark` (perhaps not seen by the caller)
 * or still to come after clock; never below clock. Call with this PE's log
 * locked. */
double dmsg_sim_log_next(sim_state *s, double clock, double t, uint32_t mark);
/* Takes n messages (or, bytes_mode, n bytes) of this PE's counter slot,
 * earliest arrivals first; returns the latest arrival taken (at least the
 * counter's floor). Call after the counts are there. */
double dmsg_sim_log_take(sim_state *s, uint32_t slot, int bytes_mode, uint64_t n);
/* Forgets the arrivals of this PE's counter slot (a reset). */
void dmsg_sim_log_reset(sim_state *s, uint32_t slot);
/* The time a take of n (bytes_mode: bytes) from PE pe's slot would return,
 * without taking; *covered: whether the logged records hold n (else the
 * time is that of all of them). Call with pe's log locked. */
double dmsg_sim_log_due(sim_state *s, int pe, uint32_t slot, int bytes_mode, uint64_t n,
                   int *covered);
/* The bound of PE pe blocked in an await on slot (its blk_* fields): the
 * time the await can end at, infinite while too few arrivals are logged.
 * Call with pe's log locked, once the blk_* fields are set: it also sets
 * the tally (blk_have, blk_latest) that later adds keep. */
double dmsg_sim_log_bound(sim_state *s, int pe, uint32_t slot);

/* Deposits through the job region's file (sim_file.c). Under the
 * scheduler with DMSG_SIM_DROP_PES a PE drops its page-table entries for
 * the other PEs' parts at each hand-off, and each page of another PE it
 * touches after that costs a fault and a page-table page, undone at its
 * next drop. The file path writes the destination with pwrite on the job
 * region's memfd (every PE holds it), the arrival record too, and counts
 * the deposit in the target's log header (the job area, never dropped),
 * so that a deposit maps nothing of its target. */
/* Moves a deposit's data to PE op->pe through the file; 0 where it did
 * not (the caller copies through the mapping): runs that overlap, or far
 * more runs than pages (a fault a page is then cheaper than a write a run). */
int dmsg_sim_file_put(sim_state *s, const dmsg_op *op);
/* len bytes at `at`, an address of the job region in this process, read or
 * written through the file; 0 on success. */
int dmsg_sim_file_read(sim_state *s, const void *at, void *buf, size_t len);
int dmsg_sim_file_write(sim_state *s, void *at, const void *buf, size_t len);
/* Counts a deposit of `bytes` on PE pe's counter slot through the file
 * (a second slot while the log header holds counts of another); 0 on
 * success, else the caller counts through the mapping. */
int dmsg_sim_file_count(sim_state *s, int pe, uint32_t slot, uint64_t bytes);
/* Adds the counts the file path left in this PE's log header to its
 * counter (call before a read, wait or reset of a counter). */
void dmsg_sim_count_fold(sim_state *s);

/* The deposit engine (sim_engine.c): a thread of PE 0, which keeps its
 * mapping of the whole job region, applies the file path's small writes
 * that the token's holder puts in a ring in the job area; the holder waits
 * for the ring to empty (drain) before anything another PE or it could
 * read them by: a hand-off of the token, a read through the file or any
 * touch of another PE through the mapping. */
/* PE 0 starts the engine where the file path is on and DMSG_SIM_ENGINE
 * allows (before the scheduler's first barrier; the others learn it after
 * it: dmsg_sim_engine_joined). Without a thread the file path writes
 * itself, as without the engine. */
void dmsg_sim_engine_start(sim_state *s);
void dmsg_sim_engine_joined(sim_state *s);
/* Whether a write of len bytes goes through the ring (the engine runs, this
 * PE holds the token, len is small); else the caller drains and writes it
 * itself (sim_file.c). */
int dmsg_sim_engine_takes(const sim_state *s, size_t len);
/* Puts a write of len bytes to offset off of the job region in the ring
 * (dmsg_sim_engine_takes said so); 0, or -1 when the job is being torn down
 * while it waits for room. */
int dmsg_sim_engine_write(sim_state *s, uint64_t off, const void *buf, size_t len);
/* Waits until the engine applied every entry; 0, or -1 when the job is
 * being torn down. Returns at once where the engine does not run. */
int dmsg_sim_engine_drain(sim_state *s);
/* Before a touch of PE pe's part through the mapping: where pe is another
 * PE, marks this PE for a drop at its next hand-off (s->mapped) and drains
 * the engine's ring (a failed drain: the job is being torn down, and the
 * caller's wait finds that). */
static inline void sim_touch(sim_state *s, int pe)
{
    if (pe == s->tp->rank)
        return;
    s->mapped = 1;
    if (s->engine)
        (void)dmsg_sim_engine_drain(s);
}
/* PE 0: ends the engine, once every PE has left the scheduler (or the job
 * is torn down) where wait_for_all, else at once (a start that failed).
 * Others: nothing. */
void dmsg_sim_engine_stop(sim_state *s, int wait_for_all);

/* Ordered delivery (sim_order.c): every PE publishes a lower bound of the
 * virtual time of its next deposit; a PE may act on an arrival at t once no
 * other PE's bound plus the latency is below t (the horizon). */
/* Publishes the clock as this PE's bound (it runs; call after each op). */
void dmsg_sim_order_publish(sim_state *s);
/* Marks this PE blocked in an await of n on slot until dmsg_sim_order_unblock;
 * its bound is the time that await can end at. */
void dmsg_sim_order_block(sim_state *s, uint32_t slot, int bytes_mode, uint64_t n);
void dmsg_sim_order_unblock(sim_state *s);
/* Around a collective: a PE inside one issues nothing before every PE has
 * entered it and leaves it at the same time. */
void dmsg_sim_order_coll_enter(sim_state *s);
void dmsg_sim_order_coll_leave(sim_state *s);
/* No deposit that is not yet counted here can arrive before the result. */
double dmsg_sim_order_horizon(sim_state *s);
/* Waits until the horizon reaches t or a deposit arriving earlier than t
 * is counted here and the horizon reaches it; the clock moves there. */
dmsg_status dmsg_sim_order_wait(dmsg_tp *tp, double t);
/* Wakes an order wait of the log's PE (after a deposit bumped its inbox). */
void dmsg_sim_order_wake(sim_log *l);

/* The scheduler (sim_sched.c): one PE process runs at a time, the one with
 * the least virtual clock among those that can go on; the others sleep on
 * a futex. A PE gives the run token away only where it blocks. */
enum { SIM_S_READY, SIM_S_RUN, SIM_S_PARKED, SIM_S_OFF };
enum { SIM_PARK_DATA, SIM_PARK_COLL, SIM_PARK_ORDER, SIM_PARK_POLL };
/* Fruitless counter reads beyond two per PE before a poll hands over. */
#define SIM_POLL_SLACK 8u
/* The scheduler's ready queue (sim_queue.c): PE pe's key is sclock[pe],
 * which must not change while it is queued; the least (key, rank) first.
 * Push of a queued PE and removal of one that is not are no-ops. */
void dmsg_sim_queue_push(sim_job_words *j, int pe);
void dmsg_sim_queue_remove(sim_job_words *j, int pe);
/* Takes (pop) or names (peek) the first PE; -1 when the queue is empty. */
int dmsg_sim_queue_pop(sim_job_words *j);
int dmsg_sim_queue_peek(const sim_job_words *j);
/* Whether this job runs under the scheduler (DMSG_SIM_SCHED). */
static inline int sim_sched_on(const sim_state *s)
{
    return s->sched;
}
/* After the join: enters the scheduler (PE 0 runs first). */
dmsg_status dmsg_sim_sched_start(dmsg_tp *tp, sim_state *s);
/* Before the leave: hands the token on for good. */
void dmsg_sim_sched_stop(sim_state *s);
/* Blocks until ready(arg) holds, running other PEs meanwhile; a PE parked
 * for `why` runs again when something it may wait for happens
 * (dmsg_sim_sched_poke). */
dmsg_status dmsg_sim_sched_block(sim_state *s, int why, int (*ready)(const void *),
                                 const void *arg);
/* Parks this PE on `why` once, letting the others run: it goes on after a
 * poke or when nobody else can (a poll that found nothing, an order wait). */
dmsg_status dmsg_sim_sched_pause(sim_state *s, int why);
/* Something PE pe may wait for happened (an update to its words): it goes
 * on if it is parked on anything but a collective. */
void dmsg_sim_sched_poke(sim_state *s, int pe);
/* The same, only where PE pe is parked on `why`. */
void dmsg_sim_sched_poke_why(sim_state *s, int pe, int why);
/* The collectives the transport does itself: under the scheduler its own
 * barrier, else shm's. */
dmsg_status dmsg_sim_coll_barrier(dmsg_tp *tp);
dmsg_status dmsg_sim_coll_allgather(dmsg_tp *tp, const void *mine, size_t len, void *all);

/* Atomics, signals and point-to-point waits (sim_amo.c). */
dmsg_status dmsg_sim_amo(dmsg_tp *tp, const dmsg_amo *a, int mode, void *result, dmsg_req *req);
dmsg_status dmsg_sim_signal(dmsg_tp *tp, int pe, size_t roff, uint64_t value, int add);
dmsg_status dmsg_sim_word_wait(dmsg_tp *tp, dmsg_tp_ready_fn ready, const void *arg, int once);
/* Raises PE pe's update stamp to arrival t: call before the update's data
 * is visible there, so that a wait that sees the data sees the stamp. */
void dmsg_sim_word_stamp(sim_state *s, int pe, double t);

/* Costs in virtual seconds (sim_cost.c). */

/* Sender's busy time for a deposit (per-message overhead included);
 * *copy_part receives the share spent in local packing copies. */
double dmsg_sim_cost_deposit(sim_state *s, const sim_transfer *x, double *copy_part);

/* Time until a fetch's data is in place; *issue_part receives the time the
 * issuing processor is busy (the rest overlaps with other work). */
double dmsg_sim_cost_fetch(sim_state *s, const sim_transfer *x, double *issue_part);

/* Time of modelled local work (sim_work.c); negative when it cannot be
 * costed (an unknown kind). *k receives the time category. */
double dmsg_sim_cost_work(const sim_state *s, const dmsg_work *w, int *k);

/* One-way latency of a remote store (arrival after the sender is done). */
double dmsg_sim_cost_latency(const sim_state *s);

double dmsg_sim_cost_barrier(const sim_state *s, int npes);

/* A blocking remote atomic's round trip (remote.amo_us, else read_us). */
double dmsg_sim_cost_amo(const sim_state *s);

/* Prints every PE's breakdown (collective; rank 0 prints). */
dmsg_status dmsg_sim_report(dmsg_tp *tp);

#endif
