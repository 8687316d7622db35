/* libfabric RMA transport: private definitions.
 *
 * Each PE opens one RDM endpoint, registers its control area and symmetric
 * segment as one memory region, and addresses peers through an FI_AV_TABLE
 * indexed by rank. Data moves only through libfabric; the job region (under
 * dmsgrun) or PMI (under mpiexec) is used once, to exchange addresses, and
 * the job region then only for doorbells that wake a waiting PE (ofi_bell.c).
 *
 * Signals travel as remote CQ data (fi_writedata): the target's CQ entry is
 * written after the data of its operation is placed, and the 64-bit word says
 * what the operation was (a counted deposit of a slot, a barrier token).
 * Where remote CQ data does not work (sockets) or DMSG_OFI_COUNT=counter,
 * deposits are counted by remote write counters bound to one MR per counter
 * slot instead (ofi_rcount.c), and without remote CQ data barrier tokens are
 * empty deposit engine messages.
 * Remote completion is chosen per provider from the start-up probe: delivery
 * completion per operation, a flushing read per peer at quiet time
 * (tcp;ofi_rxm), or, where the provider documents that the local completion
 * of an operation above the inject size comes after the target processed it
 * (tx_delivers: shm), plain large writes, each counted deposit among them
 * counted by an injected signal message that quiet flushes. A barrier is
 * quiet followed by one token to every peer. */
#ifndef DMSG_OFI_H
#define DMSG_OFI_H

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <stdatomic.h>
#include <stdint.h>
#include "dmsg/base/clock.h"
#include "dmsg/base/mech.h"
#include "dmsg/boot/exchange.h"
#include "dmsg/transport/transport.h"

/* libfabric's exported functions, called through pointers that
 * dmsg_ofi_lib_load fills (ofi_lib.c): libfabric is opened when the transport
 * starts, so programs that never use ofi do not load it. */
typedef int (*ofi_getinfo_fn)(uint32_t, const char *, const char *, uint64_t,
                              const struct fi_info *, struct fi_info **);
typedef void (*ofi_freeinfo_fn)(struct fi_info *);
typedef struct fi_info *(*ofi_dupinfo_fn)(const struct fi_info *);
typedef int (*ofi_fabric_fn)(struct fi_fabric_attr *, struct fid_fabric **, void *);
typedef const char *(*ofi_strerror_fn)(int);
typedef uint32_t (*ofi_version_fn)(void);
typedef struct ofi_lib {
    ofi_getinfo_fn getinfo;
    ofi_freeinfo_fn freeinfo;
    ofi_dupinfo_fn dupinfo;
    ofi_fabric_fn fabric;
    ofi_strerror_fn strerror;
    ofi_version_fn version;
} ofi_lib;
extern ofi_lib dmsg_ofi_fn;
/* Loads libfabric once from name (DMSG_OFI_LIBRARY); later calls do
 * nothing. DMSG_ERR_UNSUPPORTED with the reason as the detail
 * (dmsg_last_error), as every failure below. */
dmsg_status dmsg_ofi_lib_load(const char *name);
#define fi_getinfo dmsg_ofi_fn.getinfo
#define fi_freeinfo dmsg_ofi_fn.freeinfo
#define fi_dupinfo dmsg_ofi_fn.dupinfo
#define fi_fabric dmsg_ofi_fn.fabric
#define fi_strerror dmsg_ofi_fn.strerror
#define fi_version dmsg_ofi_fn.version
/* The header's fi_allocinfo calls the real fi_dupinfo: not this one. */
#define ofi_allocinfo() fi_dupinfo(NULL)

#define OFI_ADDR_MAX 64      /* bytes of an endpoint name we accept */
/* The registered region's control area, before the segment: a gather row
 * per PE of the largest job (ofi_ctr.c's all-gather), then a page of
 * scratch (the signal writes' and flushing reads' word). Sized by
 * DMSG_MAX_PES: 136 KiB at 4096 PEs, of which a job touches its own rows. */
#define OFI_GATHER_LEN 32
#define OFI_SCRATCH_OFF (DMSG_MAX_PES * OFI_GATHER_LEN)
#define OFI_SCRATCH_BYTES 8192u
#define OFI_CTL_BYTES (OFI_SCRATCH_OFF + OFI_SCRATCH_BYTES)
#define OFI_CQ_BATCH 32
#define OFI_OPEN_TRIES 3     /* tries of one provider before "auto" takes the next */
#define OFI_WINDOW 64        /* operations of one transfer in flight at once */
#define OFI_LINGER 0.05      /* seconds a finishing PE keeps serving its peers */
#define OFI_ABORT_GRACE 2.0  /* seconds a failed wait lets dmsgrun name a dead PE */
#define OFI_SPIN_S 50e-6     /* seconds a wait polls before it sleeps (automatic) */
#define OFI_SPIN_OVERSUB 1   /* polls before it sleeps when PEs outnumber cores: one (an
                              * empty poll is a system call on most providers, as costly
                              * as going to sleep; 16 PEs on 2 cores, 16 -> 1: rounds over
                              * tcp;ofi_rxm 3.2-3.6 -> 2.8 ms, udp;ofi_rxd 3.3-3.5 -> 2.0-2.1,
                              * sockets 4.9-5.7 -> 2.6-3.2) */
#define OFI_SLEEP_MS 10      /* longest sleep on the CQ's descriptor: abort and deadline checks */
#define OFI_BACKOFF_MAX_NS 256000L /* longest sleep of a wait without a descriptor */
#define OFI_YIELD_S 5e-3     /* DMSG_YIELD_US=-1: seconds a wait yields the core between polls before it
                              * sleeps, when PEs outnumber cores (16 PEs on 2 cores over
                              * sockets: a round of deposit, await and sync took 4.2-5.4
                              * ms with 1 ms, 2.3-2.5 ms with 3 or 10 ms: a PE asleep in
                              * its backoff makes no progress for the others) */

/* Remote CQ data: top 4 bits say what it is. */
#define OFI_SIG_SHIFT 60
enum { OFI_SIG_DEPOSIT = 1, OFI_SIG_TOKEN = 2 };
/* DEPOSIT: slot in bits 44..59, payload bytes in bits 0..43 (segments are <= 1 TiB).
 * TOKEN: barrier parity in bit 0, round in bit 1, "engine messages were sent" in bit 2,
 * step in bits 3..6, "PEs outnumber the cores of some host" in bit 7 (ofi_bar.c). */
#define OFI_BAR_STEPS 12 /* dissemination steps for DMSG_MAX_PES PEs: ceil(log2 4096) */
#define OFI_BAR_STEP_BITS 4 /* a token's step field (bits 3..6) */
_Static_assert((1L << OFI_BAR_STEPS) >= DMSG_MAX_PES, "a barrier has a step for every doubling");
_Static_assert(OFI_BAR_STEPS <= (1 << OFI_BAR_STEP_BITS), "a token's step field holds every step");
_Static_assert(OFI_CTL_BYTES % 4096u == 0, "the segment starts on a page (seg_alias maps it)");
#define OFI_BAR_FAN 4    /* fan-out of the barrier's tree (ofi_bar.c) */

/* Deposit engine messages (ofi_engine.c): header, records, packed data. */
#define OFI_ENG_MAGIC 0x47454d44u /* "DMEG" */
#define OFI_ENG_MSG (64u * 1024u) /* bytes of one message and of one receive buffer */
#define OFI_ENG_BUFS 16           /* receive buffers posted per PE */
#define OFI_ENG_SLOTS 4           /* send staging buffers per PE */
#define OFI_AMO_WINDOW 64         /* software atomics of one PE awaiting their reply */
#define OFI_AMO_INFLIGHT 256      /* provider atomics of one PE in flight at once */

typedef struct ofi_eng_hdr {
    uint32_t magic;
    uint32_t nrec;
    uint64_t sig;        /* remote-CQ-data style signal applied after the data; 0 = none */
    uint64_t data_bytes;
} ofi_eng_hdr;

typedef struct ofi_eng_rec {
    uint64_t off;        /* segment offset of the first block */
    uint32_t len;        /* bytes per block */
    uint32_t count;      /* blocks */
    int64_t stride;      /* bytes from one block's start to the next's */
} ofi_eng_rec;


/* How deposits are counted at the target (DMSG_OFI_COUNT). */
typedef enum { OFI_COUNT_AUTO, OFI_COUNT_CQDATA, OFI_COUNT_COUNTER } ofi_count;

/* The ofi settings (ofi_env.c). */
typedef struct ofi_settings {
    char provider[64]; /* DMSG_OFI_PROVIDER: auto or a provider name, e.g. "udp;ofi_rxd" */
    char iface[32];    /* DMSG_OFI_IFACE: auto or a network interface name */
    char mech[16];     /* DMSG_OFI_MECH: auto, chained, packed */
    char count[16];    /* DMSG_OFI_COUNT: auto, cqdata, counter */
    char library[256]; /* DMSG_OFI_LIBRARY: libfabric shared library to open */
    char atomics[16];  /* DMSG_OFI_ATOMICS: auto, native, emulated, software */
} ofi_settings;
extern const dmsg_env_table dmsg_ofi_env_table;

/* What the start-up probe found out about a provider (ofi_probe.c). */
typedef struct ofi_caps {
    char prov[64];            /* provider name as fi_getinfo reports it, e.g. "udp;ofi_rxd" */
    char domain[64];
    size_t inject;            /* inject_size */
    size_t iov_limit;         /* local iovs per operation */
    size_t rma_iov_limit;     /* remote iovs per operation */
    size_t max_msg;
    int virt_addr;            /* FI_MR_VIRT_ADDR: remote addresses are virtual */
    int prov_key;             /* FI_MR_PROV_KEY */
    int mr_endpoint;          /* FI_MR_ENDPOINT: bind the MR to the endpoint */
    int manual;               /* data progress is manual: dmsg drives it */
    int rma_event_adv;        /* FI_RMA_EVENT advertised */
    int cq_data_size;
    /* Measured by the loopback probe (-1: not measured, 0: no, 1: yes). */
    int rcntr_write, rcntr_writemsg, rcntr_inject, rcntr_writedata;
    int cqdata_works;
    int delivery_complete;    /* FI_DELIVERY_COMPLETE accepted */
    int writemsg_chain;       /* fi_writemsg with several rma_iovs placed correctly */
    double t_write8_us;       /* measured round trip of one 8-byte write to self */
    double t_write8_dc_us;    /* the same with FI_DELIVERY_COMPLETE (-1: not measured) */
    int order_sas, order_was; /* tx_attr msg_order: send after send, write after send */
    int order_raw, order_ras; /* read after write, read after send: a read flushes */
    int order_waw;            /* write after write (tx_attr msg_order) ... */
    size_t max_order_waw;     /* ... for writes up to this size (ep_attr max_order_waw_size) */
    int rcntr_mr;             /* a counter bound to one MR (fi_mr_bind, FI_REMOTE_WRITE) counts
                               * writes to that MR, injected and posted, and no others */
    char rcntr_mr_why[64];    /* why not, when the probe tried */
    int engine;               /* deposit engine usable (delivery completion works) */
    int tx_delivers;          /* the local completion of an operation above the inject size
                               * comes after the target processed it (fi_shm(7)) */
    /* Atomics (ofi_probe.c): FI_ATOMIC granted by fi_getinfo; per word size
     * (index 0: FI_UINT32, 1: FI_UINT64), bit OFI_AMO_BIT(FI_op) set where
     * fi_atomicvalid (plain), fi_fetch_atomicvalid (fetch) or
     * fi_compare_atomicvalid (FI_CSWAP) accepts one element; amo_works:
     * fetch-add and compare-swap on a word of the probe's own region gave
     * the right old values and results (-1: not tried). */
    int atomic_cap;
    uint32_t amo_plain[2], amo_fetch[2], amo_cswap[2];
    int amo_works;
    const char *amo_broken;   /* why the provider's atomics must not be used though they
                               * pass the probe (a known crash), else NULL */
} ofi_caps;

/* Bits of the atomic masks (libfabric's enum fi_op values stay below 32). */
#define OFI_AMO_BIT(fiop) (UINT32_C(1) << (fiop))
/* What every dmsg atomic needs natively: the fetch forms of these ops. */
#define OFI_AMO_NEED_FETCH                                                                   \
    (OFI_AMO_BIT(FI_SUM) | OFI_AMO_BIT(FI_BAND) | OFI_AMO_BIT(FI_BOR) | OFI_AMO_BIT(FI_BXOR) | \
     OFI_AMO_BIT(FI_ATOMIC_READ) | OFI_AMO_BIT(FI_ATOMIC_WRITE))

/* How atomics and signals travel (DMSG_OFI_ATOMICS; one path for every
 * word of the job, decided at start-up): the provider's fetching atomics
 * for every op (native); the provider's compare-swap alone, every other op
 * a fetch and compare-swap loop (emulated); or messages that the target's
 * CPU executes in its progress (software). */
typedef enum { OFI_AMO_AUTO, OFI_AMO_NATIVE, OFI_AMO_EMULATED, OFI_AMO_SOFTWARE } ofi_amo_path;
const char *dmsg_ofi_amo_path_name(ofi_amo_path p);

/* What dmsg does over a provider (ofi_plan.c), decided from its probed
 * capabilities and the settings; ofi_init follows it, dmsg-info prints it. */
typedef struct ofi_plan {
    int by_counter;         /* deposits counted by remote counters, not remote CQ data */
    int msg_tokens;         /* barrier tokens as messages: remote CQ data does not arrive */
    int flush;              /* visibility by a flushing read per peer, not per-operation
                             * delivery completion */
    dmsg_mech mech;         /* non-contiguous deposits: chained, packed or auto per deposit */
    size_t chain;           /* pieces per chained operation */
    int receives;           /* engine receive buffers are needed */
    int counter_ok;         /* counting by remote counters would work ... */
    char counter_why[200];  /* ... or why not */
    ofi_amo_path amo;       /* how atomics and signals travel ... */
    char amo_why[160];      /* ... and why not natively (empty: native) */
} ofi_plan;

/* The probe's findings (pc, from the probe endpoint) into the caps of the
 * endpoint that carries data (c); sets c->engine, limits rma_iov_limit
 * where chained lists misbehave. c and pc may be the same. */
void dmsg_ofi_caps_merge(ofi_caps *c, const ofi_caps *pc);

/* Decides from merged caps, DMSG_OFI_COUNT and DMSG_OFI_MECH. Errors
 * (DMSG_ERR_UNSUPPORTED): the provider cannot serve dmsg as asked; the
 * detail says so for the user. */
dmsg_status dmsg_ofi_plan_make(const ofi_caps *c, ofi_count count, dmsg_mech mech, ofi_plan *p);
/* The atomics path (want: DMSG_OFI_ATOMICS) into p->amo and p->amo_why;
 * DMSG_ERR_UNSUPPORTED where a forced path is not available (the detail
 * says so). */
dmsg_status dmsg_ofi_plan_atomics(const ofi_caps *c, ofi_amo_path want, ofi_plan *p);

/* The fabric objects of one open endpoint. */
typedef struct ofi_fab {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    int wait_fd;              /* the CQ's wait object (FI_WAIT_FD), -1 without */
    struct fid_ep *ep;
    struct fid_mr *mr;
    struct fid_cntr *rcntr;   /* remote write counter, only for the probe */
    int rma_event;            /* opened with FI_RMA_EVENT: MRs may have remote counters */
    char name[OFI_ADDR_MAX];
    size_t namelen;
    uint64_t key;
    char *base;               /* registered region: control area, then segment */
    size_t len;
} ofi_fab;

/* One group of operations whose completion somebody waits for. */
typedef struct ofi_batch {
    uint32_t pending;
    dmsg_status status;
    int heap;                 /* allocated for an operation nobody waits for: freed (and a
                               * failure kept for the next quiet) when its last completes */
    int amo;                  /* the batch of an atomic (ofi_amo_ctx): its result is copied
                               * out when a request on it completes */
    double deadline;          /* a request on it: when dmsg_ofi_req_test gives up
                               * (DMSG_TIMEOUT); 0: not yet tested */
} ofi_batch;

/* One atomic in flight (ofi_amo.c): its completion batch first, so that a
 * completion context or a request's priv[0] is both. */
typedef struct ofi_amo_ctx {
    ofi_batch b;
    uint64_t operand, compare; /* sources of the provider's operation */
    uint64_t result;           /* old value, written by the provider or the reply */
    void *out;                 /* where the caller wants old (NULL: nowhere) */
    int size;
} ofi_amo_ctx;
/* Copies a completed atomic's old value out (req_test). */
void dmsg_ofi_amo_finish(ofi_amo_ctx *x);

typedef struct ofi_peer {
    uint64_t addr;            /* remote address of its region base (0 with offsets) */
    uint64_t key;
    uint64_t cells;           /* remote address of its cells table (0 with offsets) */
} ofi_peer;

typedef struct ofi_slot {
    uint64_t msgs, bytes;     /* counted here: from remote CQ data, deposit engine messages,
                               * transfers with oneself */
    uint64_t taken_msgs, taken_bytes;
} ofi_slot;

/* Counting by remote counters (ofi_rcount.c): per counter slot, a row of
 * npes cells in the cells table, registered as its own MR (key: region key
 * + 1 + slot) with a remote write counter bound to it. Cell p holds the
 * bytes PE p deposited to this slot here since the slot was reset (written
 * by p's signal writes); the counter counts those writes, one per deposit. */
typedef struct ofi_cslot {
    struct fid_mr *mr;        /* NULL until the slot is first reset */
    struct fid_cntr *cntr;
    uint64_t base;            /* counter value at the last reset */
    uint64_t seen;            /* largest sum of the cells read since then */
    uint64_t *sent;           /* per target PE: bytes this PE deposited to its slot (cumulative) */
    dmsg_status failed;       /* setting the slot up failed: its next wait says so */
} ofi_cslot;

typedef struct ofi_state {
    ofi_settings set;
    dmsg_boot *boot;          /* the start-up exchange; the job region's abort flag */
    ofi_fab fab;
    ofi_caps caps;
    ofi_peer *peer;
    ofi_slot *slot;
    char *seg;                /* this PE's segment (inside fab.base) */
    char *mapped;             /* PMI: our own mapping of control area + segment */
    size_t mapped_len;
    int seg_fd;               /* the file behind mapped (memfd); -1: none */
    uint64_t sigsrc;          /* source word of signal writes (content unused) */
    uint32_t nslots;
    dmsg_mech mech;           /* how non-contiguous deposits move (DMSG_OFI_MECH) */
    int by_counter;           /* deposits counted by remote counters, not remote CQ data */
    int msg_tokens;           /* barrier tokens as messages: remote CQ data does not arrive */
    struct {
        uint64_t *cells;      /* cells table: nslots rows of npes words */
        size_t cells_len;
        ofi_cslot *cs;        /* per slot */
        ofi_batch *sigb;      /* per PE: signal writes not yet known to be placed (no WAW) */
    } rc;                     /* counting by remote counters (by_counter, ofi_rcount.c) */
    struct {
        char *rxbuf;          /* receive buffers */
        struct {
            char *buf;
            ofi_batch b;
        } tx[OFI_ENG_SLOTS];  /* send staging */
        uint64_t next;        /* staging buffer to use next */
        int used;             /* this PE sent engine messages since the last barrier */
        uint64_t refused;     /* engine messages refused */
    } eng;                    /* the deposit engine (ofi_engine.c) */
    struct {
        ofi_amo_path path;    /* how atomics travel (dmsg_ofi_plan_atomics) */
        uint64_t window;      /* provider atomics start only while fewer operations than this
                               * are in flight (OFI_AMO_INFLIGHT) */
        /* software: requests awaiting their reply, by id (ofi_amo.c) */
        struct {
            ofi_amo_ctx *x;
            uint32_t gen;
        } slot[OFI_AMO_WINDOW];
        uint32_t inflight, gen;
        /* replies the provider refused for now (-FI_EAGAIN), sent by the next progress */
        struct ofi_amo_msg *outq;
        size_t outn, outcap;
    } amo;
    int flush;                /* visibility by a flushing read per peer, not per-operation
                               * delivery completion (dmsg_ofi_flush) */
    unsigned char *dirty;     /* per PE: written to since its last flush */
    unsigned char *sigpend;   /* per PE: signal messages injected since the last
                               * dmsg_ofi_flush_signals (tx_delivers) */
    uint64_t flushbuf;        /* destination of flushing reads */
    size_t inject_max;        /* deposits up to this size are injected (copied by the provider) */
    uint64_t tx_pending;      /* operations issued and not yet completed locally */
    struct {
        uint32_t tokens[2][2][OFI_BAR_STEPS]; /* tokens received, per parity, round, step */
        int any_engine[2];     /* per parity: a round-1 token said "engine messages sent" */
        int any_oversub;       /* a token said "PEs outnumber the cores of some host" */
        int tree;              /* rounds by gather/release tree, else dissemination */
        uint64_t count;        /* barriers so far (parity) */
    } bar;                     /* the barrier (ofi_bar.c) */
    dmsg_status failed;       /* first asynchronous error */
    int oversubscribed;       /* more PEs than cores: waits sleep almost at once */
    struct {
        dmsg_job_hdr *hdr;    /* the job region; NULL: no bells (dmsg_ofi_bell_start) */
        unsigned char *owed;  /* per PE: rung at a post, to ring again after the next progress */
        int *list;            /* the PEs owed a ring, in the order rung */
        int n;
        unsigned char *asked; /* per PE: operations were posted to it since tx_pending was 0 */
        int *alist;           /* those PEs */
        int an;
        uint64_t events;      /* CQ entries read so far (a sleeper's re-check) */
    } bell;                   /* doorbells (ofi_bell.c) */
    dmsg_tp *tp; /* its rank, npes and conf (DMSG_TIMEOUT ...) are this PE's: read there */
} ofi_state;

/* The remote iov of len bytes at offset roff of pe's symmetric segment. */
static inline struct fi_rma_iov ofi_seg_riov(const ofi_state *s, int pe, size_t roff, size_t len)
{
    return (struct fi_rma_iov){.addr = s->peer[pe].addr + OFI_CTL_BYTES + roff, .len = len,
                               .key = s->peer[pe].key};
}

/* The state of the ofi transport running in this process (one PE per
 * process), NULL when none: for tools that measure libfabric next to dmsg
 * on the same endpoint (dmsg-ofi-bench), which include this header for it. */
extern ofi_state *dmsg_ofi_active;

/* ofi_join.c: joining the job, exchanging addresses, the address table. */
dmsg_status dmsg_ofi_join_job(dmsg_tp *tp, dmsg_boot *boot);
dmsg_status dmsg_ofi_connect_peers(dmsg_tp *tp, ofi_state *s, dmsg_boot *boot);
void dmsg_ofi_unlink_shm_names(void);

/* ofi_fab.c. How an endpoint is opened: PLAIN for data; PROBE asks for
 * FI_RMA_EVENT where advertised and binds a remote write counter to the
 * endpoint (the probe's); RMA_EVENT requires FI_RMA_EVENT, so that counters
 * can be bound to MRs (counting by remote counters), without an endpoint
 * counter. Call dmsg_ofi_lib_load first (ofi_init and dmsg-info do). */
enum { OFI_OPEN_PLAIN, OFI_OPEN_PROBE, OFI_OPEN_RMA_EVENT };
dmsg_status dmsg_ofi_fab_open(const char *prov, const char *iface, int how, ofi_fab *f,
                              ofi_caps *c);
dmsg_status dmsg_ofi_fab_register(ofi_fab *f, char *base, size_t len);
void dmsg_ofi_fab_close(ofi_fab *f);
dmsg_status dmsg_ofi_choose(const char *want, const char *iface, int local, ofi_fab *f,
                            ofi_caps *c);

/* ofi_probe.c */
dmsg_status dmsg_ofi_probe(ofi_fab *f, ofi_caps *c);

/* ofi_progress.c */
dmsg_status dmsg_ofi_progress(ofi_state *s);
/* One operation issued on ctx (an ofi_batch, or NULL) completed with st:
 * counts it off, and frees a heap batch whose last operation it was. */
void dmsg_ofi_complete(ofi_state *s, void *ctx, dmsg_status st);
dmsg_status dmsg_ofi_wait_batch(ofi_state *s, ofi_batch *b, const char *what);
dmsg_status dmsg_ofi_wait_pred(ofi_state *s, int (*ready)(ofi_state *, const void *), const void *arg,
                          const char *what);
dmsg_status dmsg_ofi_quiet(dmsg_tp *tp);
/* Sleeping when a wait has nothing to do (dmsg_ofi_idle): state of the fallback
 * backoff for providers without a wait descriptor; start at {0}. */
typedef struct ofi_backoff {
    long ns;
} ofi_backoff;
/* The wait policy's automatic values on ofi (dmsg/transport/wait_policy.h). */
#define OFI_WAIT_AUTO                                                                          \
    ((dmsg_wait_auto){.spin_s = OFI_SPIN_S, .loaded_polls = OFI_SPIN_OVERSUB,                \
                      .busy_polls = OFI_SPIN_OVERSUB,                                          \
                      .yield_s = OFI_YIELD_S})
/* Sleeps a little (the policy's DMSG_WAIT_SLEEP); on a bell
 * (dmsg_ofi_bell_sleep) the re-check asks ready(s, arg) where it is set.
 * Returns 1 when a peer's ring woke it. */
int dmsg_ofi_idle(ofi_state *s, ofi_backoff *b, int (*ready)(ofi_state *, const void *),
              const void *arg);
/* One step of a wait after an empty poll, by the wait policy: yields,
 * sleeps (dmsg_ofi_idle) or polls on; returns the policy's answer, whose
 * DMSG_WAIT_TIMEOUT and DMSG_WAIT_ABORTED the caller ends the wait with. */
dmsg_wait_act dmsg_ofi_wait_step(ofi_state *s, dmsg_waiter *w, ofi_backoff *b,
                                 int (*ready)(ofi_state *, const void *), const void *arg);
/* Whether waits sleep on the CQ's file descriptor. */
int dmsg_ofi_sleeps_on_fd(const ofi_state *s);
dmsg_status dmsg_ofi_peer_failed(ofi_state *s, dmsg_status st);
dmsg_status dmsg_ofi_flush(ofi_state *s, int pe);
dmsg_status dmsg_ofi_retry(ofi_state *s, int pe, double *deadline);
uint64_t dmsg_ofi_write_flags(const ofi_state *s, size_t bytes);

/* ofi_bell.c: doorbells in the job region, for waits without a
 * descriptor to sleep on. One line per PE in its control area. */
typedef struct ofi_bell {
    _Alignas(64) _Atomic uint32_t seq; /* futex word: bumped by a ring that sees a sleeper */
    _Atomic uint32_t sleepers;         /* the owner, while it sleeps on seq */
    /* PEs asleep while they wait for an answer from the owner (an atomic's
     * old value, a delivery acknowledgement) that the owner's provider
     * sends without dmsg seeing it: the owner rings them after its next
     * progress call. A bit per PE, and a flag that some bit is set. */
    _Alignas(64) _Atomic uint32_t want_any;
    _Alignas(64) _Atomic uint64_t want[DMSG_MAX_PES / 64];
} ofi_bell;
/* Bells where there is a job region (dmsgrun) and waits cannot sleep on
 * the CQ's descriptor (sleeps_on_fd); else none, and every call below does
 * nothing. */
dmsg_status dmsg_ofi_bell_start(ofi_state *s, int sleeps_on_fd);
void dmsg_ofi_bell_stop(ofi_state *s);
/* After posting an operation to pe that pe's progress serves: wakes pe if
 * it sleeps, and owes it another ring after this PE's next progress call
 * (where the provider moves the operation only then). */
void dmsg_ofi_bell_ring(ofi_state *s, int pe);
/* Wakes pe if it sleeps, now only (pe's queue is full: its progress drains it). */
void dmsg_ofi_bell_ring_now(ofi_state *s, int pe);
/* Rings the first k PEs owed a ring (those owed before a progress call
 * began) and forgets them; then rings the PEs that sleep until this PE
 * answers them (ofi_bell.want). At the end of every progress call. */
void dmsg_ofi_bell_after_progress(ofi_state *s, int k);
/* Sleeps on this PE's bell for at most ns unless a re-check (a progress
 * call, then ready(s, arg) where ready is set) finds something; returns 0
 * when it did not sleep, 1 after a sleep that nobody ended, 2 when a ring
 * ended it. Only where s->bell.hdr. */
int dmsg_ofi_bell_sleep(ofi_state *s, long ns, int (*ready)(ofi_state *, const void *),
                   const void *arg);

/* ofi_put.c / ofi_get.c */
dmsg_status dmsg_ofi_move(dmsg_tp *tp, const dmsg_op *op, uint32_t slot);
dmsg_status dmsg_ofi_post_rma(ofi_state *s, int read, int pe, const struct iovec *iov, size_t n,
                         const struct fi_rma_iov *riov, size_t rn, uint64_t flags, uint64_t data,
                         ofi_batch *b);
dmsg_status dmsg_ofi_get(ofi_state *s, const dmsg_op *op, ofi_batch *b);
/* A blocking fetch of short pieces as one read of their remote span
 * (*done = 1), where the span is compact; else does nothing (*done = 0). */
#define OFI_SPAN_MAX (256u * 1024u) /* bytes of the largest span read */
#define OFI_SPAN_RATIO 4            /* span bytes per payload byte, at most */
dmsg_status dmsg_ofi_get_span(ofi_state *s, const dmsg_op *op, int *done);
dmsg_status dmsg_ofi_get_nb(dmsg_tp *tp, const dmsg_op *op, dmsg_req *req);
dmsg_status dmsg_ofi_req_test(dmsg_tp *tp, dmsg_req *req, int *done);

/* Pieces (runs of the copy engine's walker, dmsg_op_runs) chained into
 * operations of up to min(iov_limit, rma_iov_limit) pieces, at most
 * OFI_WINDOW of them in flight (ofi_group.c): deposits and fetches.
 * dmsg_ofi_group_add is a dmsg_run_fn; it posts full groups into g->b,
 * and the caller posts the last one (g->k pieces) itself. */
#define OFI_GROUP_MAX 16
typedef struct ofi_group {
    ofi_state *s;
    int pe;
    int read;                 /* fi_readmsg, else fi_writemsg */
    size_t lim;
    struct iovec iov[OFI_GROUP_MAX];
    struct fi_rma_iov riov[OFI_GROUP_MAX];
    size_t k;                 /* pieces gathered, not yet posted */
    size_t ops;               /* operations posted */
    ofi_batch *b;
} ofi_group;
void dmsg_ofi_group_init(ofi_group *g, ofi_state *s, int pe, int read, ofi_batch *b);
dmsg_status dmsg_ofi_group_add(void *g, size_t roff, char *local, size_t len);
dmsg_status dmsg_ofi_group_post(ofi_group *g, uint64_t flags, uint64_t data, ofi_batch *b);

/* ofi_engine.c */
dmsg_status dmsg_ofi_engine_check(const void *msg, size_t len, uint64_t seg_size, uint64_t *sig);
void dmsg_ofi_engine_apply(char *seg, const void *msg);
void dmsg_ofi_engine_recv(ofi_state *s, void *buf, size_t len);
void dmsg_ofi_engine_repost(ofi_state *s, void *buf);
dmsg_status dmsg_ofi_engine_start(ofi_state *s);
void dmsg_ofi_engine_stop(ofi_state *s);
/* The ofi transport's row of each transfer kind (DMSG_OP_KIND_LIST;
 * ofi_engine.c): the pieces, contiguous at both ends, a transfer of that
 * kind falls into, estimated without walking it (*run: their length),
 * which decides chained writes or the deposit engine (ofi_put.c). */
typedef struct ofi_kind {
    size_t (*pieces)(const dmsg_op *op, size_t *run);
} ofi_kind;
extern const ofi_kind dmsg_ofi_kinds[DMSG_OP_KINDS];
dmsg_status dmsg_ofi_engine_put(ofi_state *s, const dmsg_op *op, uint32_t slot);

/* ofi_amo.c: atomics, signals and point-to-point waits (the ops), and
 * the software path's messages: a request names the op, word and operands;
 * the target applies it with a CPU atomic in its progress and replies with
 * the old value. Both are received into the deposit engine's buffers. */
#define OFI_AMO_REQ 0x51414d44u /* "DMAQ" */
#define OFI_AMO_REP 0x50414d44u /* "DMAP" */
typedef struct ofi_amo_msg {
    uint32_t magic;
    uint8_t op, size;         /* dmsg_amo_op; 4 or 8 */
    uint16_t status;          /* reply: 0, or the DMSG_ERR_ code of a refused request */
    uint32_t src;             /* request: the requesting rank */
    uint32_t id;              /* request slot (bits 0-7) and generation */
    uint64_t roff;
    uint64_t operand;         /* reply: the old value */
    uint64_t compare;
} ofi_amo_msg;
dmsg_status dmsg_ofi_amo(dmsg_tp *tp, const dmsg_amo *a, int mode, void *result, dmsg_req *req);
dmsg_status dmsg_ofi_signal(dmsg_tp *tp, int pe, size_t roff, uint64_t value, int add);
dmsg_status dmsg_ofi_word_wait(dmsg_tp *tp, dmsg_tp_ready_fn ready, const void *arg, int once);
/* A received atomic message (magic OFI_AMO_REQ or OFI_AMO_REP). */
void dmsg_ofi_amo_recv(ofi_state *s, const void *buf, size_t len);
/* Sends the replies the provider refused before (dmsg_ofi_progress). */
void dmsg_ofi_amo_send_queued(ofi_state *s);
void dmsg_ofi_amo_stop(ofi_state *s);
uint64_t dmsg_ofi_amo_apply(char *word, int op, int size, uint64_t operand, uint64_t compare);

/* ofi_ctr.c */
dmsg_status dmsg_ofi_ctr_reset(dmsg_tp *tp, uint32_t slot);
dmsg_status dmsg_ofi_ctr_wait(dmsg_tp *tp, uint32_t slot, int bytes_mode, uint64_t n);
dmsg_status dmsg_ofi_ctr_read(dmsg_tp *tp, uint32_t slot, uint64_t *msgs, uint64_t *bytes);
dmsg_status dmsg_ofi_barrier(dmsg_tp *tp);
dmsg_status dmsg_ofi_allgather(dmsg_tp *tp, const void *mine, size_t len, void *all);
void dmsg_ofi_on_signal(ofi_state *s, uint64_t data);
dmsg_status dmsg_ofi_send_signal(ofi_state *s, int pe, uint64_t data);
/* Posts an 8-byte signal write into pe's scratch word (completion on b). */
dmsg_status dmsg_ofi_post_signal(ofi_state *s, int pe, uint64_t data, ofi_batch *b);
/* Counts a barrier token that arrived (ofi_bar.c). */
void dmsg_ofi_bar_on_token(ofi_state *s, uint64_t data);
dmsg_status dmsg_ofi_inject_signal(ofi_state *s, int pe, uint64_t data);
dmsg_status dmsg_ofi_flush_signals(ofi_state *s, int pe);
uint64_t dmsg_ofi_sig_deposit(uint32_t slot, uint64_t bytes);

/* ofi_rcount.c: counting by remote counters. */
/* 1 if counting by remote counters works with these caps; else 0 with
 * why (whylen bytes) saying what is missing: a reason shown next to a
 * choice that stands (dmsg-info, a plan's counter_why), not an error. */
int dmsg_ofi_rcount_usable(const ofi_caps *c, char *why, size_t whylen);
dmsg_status dmsg_ofi_rcount_start(ofi_state *s);
void dmsg_ofi_rcount_stop(ofi_state *s);
dmsg_status dmsg_ofi_rcount_reset(ofi_state *s, uint32_t slot);
int dmsg_ofi_rcount_ordered(const ofi_state *s, uint64_t data_bytes);
dmsg_status dmsg_ofi_rcount_signal(ofi_state *s, int pe, uint32_t slot, uint64_t bytes,
                              ofi_batch *data, uint64_t data_bytes);
dmsg_status dmsg_ofi_rcount_read(ofi_state *s, uint32_t slot, uint64_t *msgs, uint64_t *bytes);

#endif
