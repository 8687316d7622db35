/* The transport ops table. The core drives every transport through it, the
 * same way for all, and knows nothing else about them. A transport is a
 * folder under dmsg/transport/ that defines `const dmsg_tp_ops
 * dmsg_tp_NAME_ops` and registers it with one line in registry.c
 * (docs/running.md, "Adding a transport"). The record says what the
 * transport can do (caps) and offers optional extensions by name (ext, in
 * the spirit of libfabric's fi_open_ops); registry.c refuses a record that
 * is incomplete (dmsg_tp_incomplete), so the core may call every slot that
 * the record's capabilities promise.
 *
 * Counter "slots" are indices into a per-PE table of max_counters deposit
 * counters; slot UINT32_MAX means "no counter". Every op runs on the PE's
 * one thread. Ops that can fail return a dmsg_status and log where the
 * failure is detected (DMSG_FAIL). */
#ifndef DMSG_TRANSPORT_H
#define DMSG_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>
#include "dmsg.h"
#include "dmsg/base/env.h"
#include "dmsg/base/status.h"
#include "dmsg/boot/job.h"
#include "dmsg/transport/wait_policy.h"
#include "dmsg/xfer/op.h"

typedef struct dmsg_tp dmsg_tp;

/* Modelled local work: work an upper layer (the postal and RRMSG baselines,
 * compiled plans) does outside deposits, which a simulated machine books on
 * the PE's virtual clock and a real transport ignores (its time is real). */
typedef enum {
    DMSG_WORK_COPY,    /* a local copy: pack into or unpack out of a buffer */
    DMSG_WORK_MESSAGE, /* per-message software of a message passing layer's call */
    DMSG_WORK_BUFFER,  /* buffer management: n message buffers taken and released */
    DMSG_WORK_MATCH,   /* matching: n message headers compared with a receive */
} dmsg_work_kind;

typedef struct dmsg_work {
    dmsg_work_kind kind;
    size_t n;             /* COPY: elements; MESSAGE, BUFFER: messages; MATCH: headers */
    size_t elem;          /* COPY: bytes per element */
    ptrdiff_t src_stride; /* COPY: bytes from one element read to the next */
    ptrdiff_t dst_stride; /* COPY: bytes from one element written to the next */
    int src_indexed;      /* COPY: elements read through an index array (no stride) */
    int dst_indexed;      /* COPY: elements written through an index array */
} dmsg_work;

/* One atomic operation on a word of 4 or 8 bytes at (pe, roff). Floats and
 * signedness do not reach the transport: FETCH, SET and SWAP move bits, and
 * two's complement ADD is the same for signed and unsigned words. */
typedef struct dmsg_amo {
    int op;           /* dmsg_amo_op */
    int size;         /* 4 or 8 */
    int pe;
    size_t roff;      /* offset in pe's segment, a multiple of size */
    uint64_t operand; /* in the low `size` bytes */
    uint64_t compare; /* CSWAP only */
} dmsg_amo;

/* How a transport's amo op is called. */
enum {
    DMSG_AMO_BLOCKING, /* returns complete at the target, *result written (fetching ops) */
    DMSG_AMO_NB_REQ,   /* started; complete through req_test (which writes *result then) */
    DMSG_AMO_NB_QUIET, /* started, non-fetching, no request: complete by the next quiet or barrier */
};

/* A predicate over this PE's own memory, polled by word_wait. */
typedef int (*dmsg_tp_ready_fn)(const void *arg);

/* Capabilities (dmsg_tp_ops.caps): what upper layers may rely on. */
enum {
    /* A deposit is complete at its target when put returns (no quiet
     * needed before the data counts as there). */
    DMSG_TP_CAP_PUT_DONE = 1u << 0,
    /* Deposits from one PE to another become visible in the order issued. */
    DMSG_TP_CAP_ORDERED = 1u << 1,
    /* Deposits, fetches and counts complete without the target's CPU
     * (no progress call needed there). */
    DMSG_TP_CAP_ASYNC = 1u << 2,
    /* Deposit counters are kept at the target by the writer's own
     * operations (shared atomics or remote counters), not by a receive. */
    DMSG_TP_CAP_REMOTE_CTR = 1u << 3,
    /* Atomics (the amo op) on 4-byte and on 8-byte words: integers and,
     * moved as bits or added above, floats of that size. */
    DMSG_TP_CAP_AMO4 = 1u << 4,
    DMSG_TP_CAP_AMO8 = 1u << 5,
    /* Signals (the signal op). */
    DMSG_TP_CAP_SIGNAL = 1u << 6,
    /* Point-to-point waits on words (the word_wait op). */
    DMSG_TP_CAP_WORD_WAIT = 1u << 7,
    /* The transport packs a non-contiguous deposit itself where its own
     * mechanism setting asks for it (DMSG_SIM_MECH, DMSG_OFI_MECH=packed):
     * a caller that wants buffer packing leaves it to the transport. */
    DMSG_TP_CAP_PACK_MECH = 1u << 8,
    /* The clock is virtual: the transport offers the DMSG_TP_EXT_VTIME
     * extension (dmsg_tp_vtime_ops), and dmsg_wtime reads it. */
    DMSG_TP_CAP_VTIME = 1u << 9,
    /* Peers' segments are mapped in this process (the peer_seg op): a
     * load or store there is a load or store of the peer's memory. */
    DMSG_TP_CAP_PEER_MAP = 1u << 10,
    /* The barrier op itself completes and orders this PE's deposits,
     * fetches and atomics issued before it (what a quiet before it would):
     * dmsg_sync calls no quiet first. */
    DMSG_TP_CAP_BARRIER_QUIET = 1u << 11,
};

typedef struct dmsg_tp_ops {
    const char *name;
    /* The transport's own settings rows (NULL: none). init reads them itself
     * (dmsg_env_load); the core checks them at dmsg_init whichever
     * transport runs and prints them for --help-env. */
    const dmsg_env_table *settings;

    /* Joins the job: reads its settings, uses tp->conf and the boot (its
     * start-up exchange service, dmsg/boot/exchange.h); sets rank, npes,
     * seg_size, max_counters, seg (this PE's segment) and priv. Ends with
     * every PE joined. On failure releases what it acquired (the core ends
     * the boot). */
    dmsg_status (*init)(dmsg_tp *tp, dmsg_boot *boot);
    /* Marks this PE finished and releases everything init acquired. Called
     * after a barrier; never fails (nothing is left to report to). */
    void (*finalize)(dmsg_tp *tp);

    /* Barrier; every deposit and fetch issued before it, on any PE, is
     * complete and visible everywhere after it. */
    dmsg_status (*barrier)(dmsg_tp *tp);
    /* Completes this PE's outstanding deposits and fetches at their targets. */
    dmsg_status (*quiet)(dmsg_tp *tp);
    /* Small all-gather (len <= 32 bytes) for checking collective arguments. */
    dmsg_status (*allgather)(dmsg_tp *tp, const void *mine, size_t len, void *all);

    /* Zeroes this PE's instance of a counter slot (at dmsg_ctr_create,
     * before the collective check: nobody deposits to it yet). */
    dmsg_status (*ctr_reset)(dmsg_tp *tp, uint32_t slot);
    /* Waits until this PE's instance holds >= n messages (bytes_mode 1:
     * bytes), then consumes n of them (acquire: the data counted is
     * visible). */
    dmsg_status (*ctr_wait)(dmsg_tp *tp, uint32_t slot, int bytes_mode, uint64_t n);
    /* Reads this PE's instance without consuming: messages and bytes not yet
     * consumed. */
    dmsg_status (*ctr_read)(dmsg_tp *tp, uint32_t slot, uint64_t *msgs, uint64_t *bytes);

    /* A deposit (op->dir PUT): returns when the source may be reused; the
     * data is then counted at the target on slot (none: UINT32_MAX) once
     * every byte of it is visible there (release). */
    dmsg_status (*put)(dmsg_tp *tp, const dmsg_op *op, uint32_t slot);
    /* A blocking fetch (op->dir GET): returns with the data in place. */
    dmsg_status (*get)(dmsg_tp *tp, const dmsg_op *op);
    /* Starts a fetch; req->seq and req->priv are the transport's until the
     * req_test that reports it finished (*done = 1), which returns the
     * fetch's final status. A start that fails leaves nothing to test. */
    dmsg_status (*get_nb)(dmsg_tp *tp, const dmsg_op *op, dmsg_req *req);
    dmsg_status (*req_test)(dmsg_tp *tp, dmsg_req *req, int *done);

    /* Atomics (the amo op) and signals, each optional with its capability
     * (DMSG_TP_CAP_AMO4/AMO8, DMSG_TP_CAP_SIGNAL): NULL exactly where the
     * capability is absent, and the core then answers DMSG_ERR_UNSUPPORTED.
     * A transport's atomics are atomic
     * with respect to each other and to its signals on the same word, from
     * every PE, this one included (a transport that uses provider atomics
     * uses them for every word, never mixing them with CPU atomics).
     * amo: mode is DMSG_AMO_*; result (size bytes) for the fetching ops,
     * written on return (BLOCKING) or when req_test reports completion
     * (NB_REQ: the caller keeps result valid until then).
     * signal: adds value to (add) or sets the 64-bit word at (pe, roff),
     * atomically as an 8-byte amo, visible at pe only after every put this
     * PE issued to pe before it. */
    dmsg_status (*amo)(dmsg_tp *tp, const dmsg_amo *a, int mode, void *result, dmsg_req *req);
    dmsg_status (*signal)(dmsg_tp *tp, int pe, size_t roff, uint64_t value, int add);
    /* Optional with DMSG_TP_CAP_WORD_WAIT (as amo).
     * Waits until ready(arg), a predicate over words of this PE's segment
     * that other PEs change by signals, atomics or puts, driving whatever
     * progress those need here, by the wait policy (spin, yield, sleep),
     * within conf.timeout. once: one step of progress, then returns DMSG_OK
     * whatever ready says (the caller tests it). On return with ready true
     * what was visible with the change is visible (acquire); a simulated
     * machine moves the clock to the change's arrival. */
    dmsg_status (*word_wait)(dmsg_tp *tp, dmsg_tp_ready_fn ready, const void *arg, int once);

    /* What the transport can do (DMSG_TP_CAP_*): upper layers ask these
     * through the core (dmsg/core/caps.h), never the name. */
    unsigned caps;
    /* Optional (NULL: none): the extension of that name (DMSG_TP_EXT_*), a
     * const table of its ops, or NULL where the transport has none. Every
     * call returns the same table. */
    const void *(*ext)(const char *name);

    /* Optional (NULL: DMSG_ERR_UNSUPPORTED), for the OpenSHMEM front end's
     * static data: copies the len bytes at `at` into this PE's segment at
     * off, then maps those segment pages at `at` (MAP_FIXED), so that both
     * addresses name the same memory, which peers reach through off. off,
     * len and at are page-aligned. Writes no global of the process between
     * the copy and the mapping (`at` may hold them). */
    dmsg_status (*seg_alias)(dmsg_tp *tp, size_t off, size_t len, void *at);

    /* Optional with DMSG_TP_CAP_PEER_MAP (as amo): where pe's segment is
     * mapped in this process, or NULL where this process cannot load and
     * store it (pe is in [0, npes)). The same address for the whole job. */
    void *(*peer_seg)(dmsg_tp *tp, int pe);

    /* Optional (NULL: none): the barrier (as the barrier op) that also
     * hands every PE each PE's len bytes at mine (len the same on every PE,
     * npes * len <= DMSG_TP_XCHG_BYTES): rows[p] (npes pointers) is where
     * PE p's bytes lie (this PE's own: mine itself), to be read in place
     * until this PE enters its next barrier of any kind. The values
     * ride in the barrier's own shared words, one pass, no copy out, for
     * the collectives of a few bytes (dmsg/coll/coll.c, dmsg_sync_xchg).
     * It meets the barrier op on PEs that call that instead (their rows
     * then hold anything). */
    dmsg_status (*barrier_xchg)(dmsg_tp *tp, const void *mine, size_t len, const void **rows);
} dmsg_tp_ops;

/* The most bytes of all PEs together in one barrier_xchg. */
#define DMSG_TP_XCHG_BYTES 32768

/* The extension of a transport that keeps virtual time (a simulated
 * machine; docs/simulator.md), offered as ext(DMSG_TP_EXT_VTIME) with
 * DMSG_TP_CAP_VTIME. Every slot is set (the registration check). */
#define DMSG_TP_EXT_VTIME "vtime"
typedef struct dmsg_tp_vtime_ops {
    /* This PE's clock in virtual seconds (dmsg_wtime). */
    double (*wtime)(dmsg_tp *tp);
    /* This PE's time breakdown (dmsg_times_get). */
    void (*times)(dmsg_tp *tp, dmsg_times *t);
    /* Books modelled local work on this PE's clock. DMSG_ERR_ARG for a
     * description it cannot cost. */
    dmsg_status (*work)(dmsg_tp *tp, const dmsg_work *w);
    /* The machine the clock models: the name or file the transport loaded
     * (and checked) at init, for a layer that costs with the same model. */
    const char *(*machine)(dmsg_tp *tp);
    /* Delivery in virtual-time order (docs/simulator.md).
     * ctr_due: the time an await of n (bytes_mode 1: bytes; 2: zero-byte
     * deposits, as ctr_wait_empty takes them) on this PE's slot would move
     * the clock to, without consuming; call when the counts are there.
     * ctr_wait_empty: ctr_wait for n messages which the caller knows
     * to be zero-byte deposits, whose arrivals the clock takes rather than
     * those of the earliest deposits. horizon: no deposit not yet counted
     * at this PE can arrive before it. order_wait: waits until the horizon
     * reaches t, or reaches the arrival of an earlier deposit counted here
     * meanwhile; the clock moves there (t = INFINITY: until a deposit is
     * counted). */
    dmsg_status (*ctr_due)(dmsg_tp *tp, uint32_t slot, int bytes_mode, uint64_t n, double *t);
    dmsg_status (*ctr_wait_empty)(dmsg_tp *tp, uint32_t slot, uint64_t n);
    double (*horizon)(dmsg_tp *tp);
    dmsg_status (*order_wait)(dmsg_tp *tp, double t);
} dmsg_tp_vtime_ops;

/* The virtual-time extension of ops, or NULL where it has none. */
static inline const dmsg_tp_vtime_ops *dmsg_tp_vtime(const dmsg_tp_ops *ops)
{
    return ops->ext ? (const dmsg_tp_vtime_ops *)ops->ext(DMSG_TP_EXT_VTIME) : NULL;
}

/* DMSG_BARRIER: how a shared-memory barrier of 3 or more PEs waits. */
enum { DMSG_TP_BARRIER_CENTRAL, DMSG_TP_BARRIER_DISSEMINATION };

/* What the core's settings ask of every transport. */
typedef struct dmsg_tp_conf {
    uint64_t seg_size;     /* without a job region (PMI): the segment size */
    uint32_t max_counters; /* without a job region: the counter table size */
    double timeout;        /* seconds any wait may last; 0 = no limit */
    long spin;             /* polls before a wait sleeps; -1 = automatic */
    long yield_us;         /* PEs outnumber cores: us a wait yields before it sleeps; -1 = automatic */
    int barrier;           /* DMSG_BARRIER: DMSG_TP_BARRIER_* */
    dmsg_xfer_params xp;   /* the copy engine's tunables */
} dmsg_tp_conf;

struct dmsg_tp {
    const dmsg_tp_ops *ops;
    dmsg_tp_conf conf;
    dmsg_wait_policy wait; /* every wait's policy (wait_policy.h), set by the transport at join */
    /* How this PE started, and the start-up exchange service
     * (dmsg/boot/exchange.h); the core owns it and ends it after finalize. */
    dmsg_boot *boot;
    int rank;
    int npes;
    size_t seg_size;
    uint32_t max_counters;
    char *seg; /* this PE's segment: symmetric addresses live here */
    void *priv;
};

/* The transports of this build, in registration order (registry.c). */
extern const dmsg_tp_ops *const dmsg_tp_all[];
extern const size_t dmsg_tp_count;

/* The registration check: NULL where ops is complete, else what is
 * missing (a static string): a required slot NULL, a capability without
 * its slot or a slot without its capability, an extension half filled. */
const char *dmsg_tp_incomplete(const dmsg_tp_ops *ops);

/* The transport of that name, or NULL: none of that name (no detail), or
 * one that fails the registration check (DMSG_ERR_UNSUPPORTED's detail,
 * dmsg_last_error, names what it lacks). */
const dmsg_tp_ops *dmsg_tp_find(const char *name);

#endif
