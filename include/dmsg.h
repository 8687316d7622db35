/*
 * dmsg.h - direct deposit message passing, SPMD API.
 *
 * The model in one paragraph: a barrier (dmsg_sync) gives clearance, then
 * senders deposit data straight into its final place in a receiver's
 * symmetric memory (or receivers fetch it), and deposit counters tell a
 * receiver when its data has landed. There is no receive call, no system
 * buffer and no matching. docs/model.md states the semantics in full.
 *
 * Addresses. Every "symmetric address" argument is an address inside the
 * calling PE's own symmetric segment (obtained from dmsg_alloc); it names
 * "the same object on PE pe". Local (non-symmetric) buffers may be any
 * memory of the calling process.
 *
 * Threads. One thread per PE calls dmsg. Calls from several threads of one
 * PE must be serialized by the caller; dmsg keeps no thread-local state.
 *
 * Errors. Every call returns DMSG_OK (0) or a negative dmsg status code;
 * dmsg_strerror() names it. A call that fails has no effect: nothing is
 * written on either side and output arguments are left untouched. dmsg never
 * prints or aborts on a user error unless DMSG_DEBUG is set; the one exception
 * is a bad environment setting, which dmsg_init also prints (nothing can run).
 *
 * Waits. Every call that waits for other PEs (dmsg_init, dmsg_sync, awaits,
 * point-to-point waits, the collectives, dmsg_finalize) may also return
 * DMSG_ERR_TIMEOUT (DMSG_TIMEOUT was exceeded) or DMSG_ERR_ABORTED (the launcher is stopping the job). After
 * either, the PEs are out of step: the PE should report and exit. The rule is
 * the same on every transport: a single wait that lasts longer than
 * DMSG_TIMEOUT seconds returns DMSG_ERR_TIMEOUT, and with DMSG_TIMEOUT=0 (the
 * default) no wait has a limit, because a correct program may keep its peers
 * waiting for as long as one PE computes or does I/O. Under dmsgrun a wait
 * that makes no progress is reported (DMSG_STALL_REPORT), and a PE waiting
 * when dmsgrun dies ends itself.
 *
 * SPDX-License-Identifier: BSD-3-Clause (the LICENSE file of dmsg)
 */
#ifndef DMSG_H
#define DMSG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DMSG_VERSION_MAJOR 0
#define DMSG_VERSION_MINOR 1
#define DMSG_VERSION_PATCH 0

/* ---------------------------------------------------------------- status */

/** Status codes. DMSG_OK is zero; every error is negative. */
enum dmsg_status_code {
    DMSG_OK = 0,
    DMSG_ERR_ARG = -1,          /**< invalid argument (bad count, elem size, ndims, ...) */
    DMSG_ERR_NULL = -2,         /**< a required pointer argument is NULL */
    DMSG_ERR_PE = -3,           /**< PE number out of range [0, npes) */
    DMSG_ERR_RANGE = -4,        /**< address outside the symmetric segment or straddling its end, or remote
                                     bytes past the highest allocated block (freed or never allocated);
                                     plan layer: also an index or section outside its array */
    DMSG_ERR_OVERFLOW = -5,     /**< a size or extent computation overflows */
    DMSG_ERR_NOMEM = -6,        /**< symmetric segment or counter table exhausted */
    DMSG_ERR_COLLECTIVE = -7,   /**< PEs disagree on the arguments of a collective call */
    DMSG_ERR_COUNTER = -8,      /**< invalid or destroyed counter */
    DMSG_ERR_NOT_INIT = -9,     /**< dmsg_init has not been called (or finalize was) */
    DMSG_ERR_STATE = -10,       /**< call not allowed in this state (e.g. init twice) */
    DMSG_ERR_TIMEOUT = -11,     /**< a wait exceeded DMSG_TIMEOUT */
    DMSG_ERR_TRANSPORT = -12,   /**< the transport failed (details with DMSG_DEBUG=1) */
    DMSG_ERR_ABORTED = -13,     /**< the job is being torn down (a PE failed) */
    DMSG_ERR_ALIGN = -14,       /**< misaligned address for the element size */
    DMSG_ERR_UNSUPPORTED = -15, /**< the selected transport cannot do this */
    DMSG_ERR_HANDLE = -16,      /**< invalid or unused request handle, or a destroyed plan */
    DMSG_ERR_ENV = -17,         /**< invalid value in an environment setting */
    DMSG_ERR_SIZE = -18,        /**< message larger than the receive buffer, or unpack past its end */
    DMSG_ERR_TEAM = -19,        /**< invalid or freed team, or this PE is not a member */
};

/** Returns a static, human-readable string for a status code (never NULL). */
const char *dmsg_strerror(int status);

/**
 * The detail of the most recent error a dmsg call of this thread detected:
 * one line saying what was wrong, e.g. "PE 9 is not in [0, 4)" or which
 * setting had a bad value, or "" when no call has failed yet. It stays until
 * the next error, so read it right after the failing call; the text is the
 * same one DMSG_DEBUG=1 prints. Local, never NULL; valid until this
 * thread's next dmsg call. dmsg itself prints nothing on a user error:
 * reporting is the application's (and dmsgrun's).
 */
const char *dmsg_last_error(void);

/* ------------------------------------------------------------ lifecycle */

/**
 * Joins the job. Collective: returns after every PE has joined (a barrier).
 * Reads the environment settings (dmsgrun --help-env lists them). A program
 * started without dmsgrun (or mpiexec, whose PMI it finds) runs as a single
 * PE. Under dmsgrun a process joins its job once: dmsg_init after
 * dmsg_finalize returns DMSG_ERR_TRANSPORT.
 * Errors: DMSG_ERR_STATE (already initialized), DMSG_ERR_ENV (bad setting),
 * DMSG_ERR_TRANSPORT (launcher protocol, PMI or mapping failed),
 * DMSG_ERR_UNSUPPORTED (the transport cannot run here, e.g. shm under
 * mpiexec, a launcher's job of more than 4096 processes, or a libfabric
 * provider that is missing or lacks what dmsg needs: one line names it),
 * DMSG_ERR_TIMEOUT (a PE did not join within the
 * timeout), DMSG_ERR_NOMEM.
 */
int dmsg_init(void);

/**
 * Leaves the job. Collective: completes every outstanding operation of every
 * PE (as dmsg_sync) and then unmaps all segments; symmetric pointers become
 * invalid. The PE has left even when the final barrier reports an error.
 * The job's state in the layers above ends here too (plans' shared counter,
 * the postal and RRMSG layers a program did not finalize): a later job in
 * the same process starts from nothing.
 * Errors: DMSG_ERR_NOT_INIT, and the waits' errors.
 */
int dmsg_finalize(void);

#if defined(__cplusplus)
#define DMSG_NORETURN [[noreturn]]
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define DMSG_NORETURN _Noreturn
#elif defined(__GNUC__)
#define DMSG_NORETURN __attribute__((noreturn))
#else
#define DMSG_NORETURN
#endif

/**
 * Ends the whole job from this PE: flushes stdio, marks the PE as ending
 * the job and exits the process with status (its low 8 bits, as _exit),
 * without atexit handlers and without a barrier. Not collective: the other
 * PEs need not call anything. Under dmsgrun (every transport) the launcher
 * then stops the other PEs wherever they are and exits with exactly that
 * status, 0 included; deposits not yet complete may be lost. Without
 * dmsgrun (mpiexec) only this process exits, and the launcher decides what
 * happens to the others. Before dmsg_init it is _exit(status). Never returns.
 */
DMSG_NORETURN void dmsg_global_exit(int status);

/** This PE's rank in [0, npes), or -1 before dmsg_init. Local, no synchronization. */
int dmsg_pe(void);

/** Number of PEs in the job, or 0 before dmsg_init. Local, no synchronization. */
int dmsg_npes(void);

/**
 * Wall-clock seconds since an arbitrary fixed point (monotonic). On the
 * simulated transport this is the PE's virtual clock. Local.
 */
double dmsg_wtime(void);

/** Name of the active transport ("shm", "sim", ...), or NULL before dmsg_init. */
const char *dmsg_transport_name(void);

/** Where a PE's time went, in seconds of the transport's clock. */
typedef struct dmsg_times {
    double total;      /**< the clock now (dmsg_wtime) */
    double transfer;   /**< sending deposits: software overhead and transfer */
    double copy;       /**< local copies: buffer packing, deposits to oneself */
    double sync;       /**< barriers and quiet */
    double ctr_wait;   /**< awaits, beyond the PE's own progress */
    double fetch_wait; /**< fetches and waits on non-blocking fetches */
} dmsg_times;

/**
 * This PE's time breakdown so far. Only transports that keep a cost model
 * have one (sim: virtual time; the parts add up to total, since local
 * computation is free there). Local, no synchronization.
 * Errors: DMSG_ERR_NULL, DMSG_ERR_NOT_INIT, DMSG_ERR_UNSUPPORTED (shm, ofi).
 */
int dmsg_times_get(dmsg_times *t);

/* ---------------------------------------------------- symmetric memory */

/**
 * Collective symmetric allocation: every PE must call it with the same size,
 * in the same order relative to other collectives. Returns in *ptr the
 * address of a block of at least `bytes` bytes (64-byte aligned) at the same
 * offset in every PE's segment. Contents are zero on first use of the memory.
 * Ends with a barrier, so the block is usable as a target on every PE on return.
 * bytes == 0 yields a valid unique pointer to a zero-sized block.
 * Errors (reported on every PE alike; when several PEs fail, the lowest
 * ranked PE's error): DMSG_ERR_NULL (on any PE), DMSG_ERR_COLLECTIVE (PEs
 * passed different sizes, or one is in another checked collective: alloc,
 * free, ctr_create, ctr_destroy), DMSG_ERR_NOMEM (segment exhausted; see
 * DMSG_SEGMENT_SIZE), and the waits' errors. A PE in dmsg_sync while others
 * are in a collective is not detected: keep collectives in the same order.
 */
int dmsg_alloc(size_t bytes, void **ptr);

/**
 * Collective free of a block from dmsg_alloc. Starts with a barrier, so every
 * operation targeting the block issued before the call is complete.
 * Errors: DMSG_ERR_ARG (not a live block), DMSG_ERR_COLLECTIVE (PEs freed
 * different blocks). free(NULL) is a collective no-op.
 */
int dmsg_free(void *ptr);

/** Size in bytes of each PE's symmetric segment. Local. 0 before init. */
size_t dmsg_segment_size(void);

/**
 * Returns 1 if [addr, addr+bytes) lies inside this PE's symmetric segment,
 * else 0. Local; a convenience for code generators.
 */
int dmsg_addr_is_symmetric(const void *addr, size_t bytes);

/**
 * Returns 1 if this process can load and store PE pe's symmetric memory
 * directly (dmsg_peer_ptr gives addresses there), else 0; always 1 for this
 * PE itself; 0 for a PE out of range and before dmsg_init. Which peers are
 * mapped depends on the transport: shm maps every PE of the job, ofi and
 * sim none but the PE itself. Local, no synchronization.
 */
int dmsg_pe_mapped(int pe);

/**
 * The address in this process at which PE pe's instance of the symmetric
 * object at addr (an address of this PE's segment) can be loaded and stored,
 * or NULL: addr is not in the segment, pe is out of range or not mapped
 * (dmsg_pe_mapped), or dmsg is not initialized. Local.
 * Loads and stores through it are plain memory accesses to the peer's
 * segment: they are not deposits (no counter counts them, DMSG_CHECK does
 * not see them) and they are ordered with the peer's accesses only by
 * synchronization: a store is visible at pe after dmsg_sync (or a release
 * such as dmsg_quiet followed by a signal or atomic the peer waits for);
 * a peer's deposit is visible to a load after the same. Valid until
 * dmsg_finalize.
 */
void *dmsg_peer_ptr(const void *addr, int pe);

/* ------------------------------------------------------------- counters */

/**
 * Deposit counter handle. A counter exists on every PE (created
 * collectively); a deposit names the counter, and it is incremented at the
 * *target* PE by one message and by the deposit's payload bytes, once, after
 * all of the deposit's bytes are visible there (release/acquire: a reader
 * that observes the count also observes the data).
 * DMSG_CTR_NONE means "count nothing".
 */
typedef uint64_t dmsg_ctr;
#define DMSG_CTR_NONE ((dmsg_ctr)0)

/**
 * Collective: creates a counter with zero counts on every PE. Ends with a
 * barrier, so it may be named by deposits as soon as the call returns.
 * Errors, on every PE alike: DMSG_ERR_NULL (on any PE), DMSG_ERR_NOMEM
 * (DMSG_MAX_COUNTERS reached), DMSG_ERR_COLLECTIVE, DMSG_ERR_TRANSPORT (a PE's
 * transport could not set the counter up), and the waits' errors.
 */
int dmsg_ctr_create(dmsg_ctr *ctr);

/**
 * Collective: destroys a counter. Starts with a barrier, so deposits issued
 * before it are complete. Later use of the handle returns DMSG_ERR_COUNTER.
 * Errors: DMSG_ERR_COUNTER, DMSG_ERR_COLLECTIVE.
 */
int dmsg_ctr_destroy(dmsg_ctr ctr);

/**
 * Waits until at least `msgs` deposits have been counted on this PE's
 * instance of the counter, then consumes exactly `msgs` of them (the byte
 * count is left alone). After it returns, the data of the awaited deposits is
 * visible to this PE. Blocks (spin, then sleep) without a limit unless
 * DMSG_TIMEOUT is set, on every transport: a wait longer than DMSG_TIMEOUT
 * seconds returns DMSG_ERR_TIMEOUT and consumes nothing (the counter and the
 * job stay usable). msgs == 0 returns at once.
 * Errors: DMSG_ERR_COUNTER (invalid/destroyed/NONE), DMSG_ERR_TIMEOUT,
 * DMSG_ERR_ABORTED.
 */
int dmsg_await(dmsg_ctr ctr, uint64_t msgs);

/**
 * As dmsg_await, but waits for and consumes `bytes` payload bytes (the
 * message count is left alone). Deposits are counted whole, so it returns
 * once the deposits that carry those bytes have completely landed.
 */
int dmsg_await_bytes(dmsg_ctr ctr, uint64_t bytes);

/**
 * Reads this PE's current (unconsumed) message and byte counts. Either
 * output may be NULL. Acquire: data of counted deposits is visible.
 * Errors: DMSG_ERR_COUNTER, DMSG_ERR_TRANSPORT (the transport cannot read it).
 */
int dmsg_ctr_read(dmsg_ctr ctr, uint64_t *msgs, uint64_t *bytes);

/* --------------------------------------------------------- sync / quiet */

/**
 * Barrier over all PEs that also completes every deposit, fetch, atomic
 * and signal issued before it by any PE: on return each PE may read what was deposited to it
 * and reuse or overwrite what it deposited or exposed. This is the
 * "clearance" of the deposit model. Waits without a limit unless
 * DMSG_TIMEOUT is set, on every transport: a PE that has waited longer than
 * DMSG_TIMEOUT seconds for the others returns DMSG_ERR_TIMEOUT. Errors:
 * DMSG_ERR_NOT_INIT, DMSG_ERR_TIMEOUT, DMSG_ERR_ABORTED (after either the PEs
 * are out of step).
 */
int dmsg_sync(void);

/** The most bytes of all PEs together in one dmsg_sync_xchg. */
#define DMSG_SYNC_XCHG_MAX 32768

/**
 * dmsg_sync that also hands every PE each PE's `bytes` at `mine`, in PE
 * order into `all` (npes * bytes): the values ride in the barrier's own
 * shared words, one pass, where the transport carries values in its
 * barrier (shm). A barrier exactly as dmsg_sync (it completes every
 * deposit, fetch, atomic and signal issued before it), and it meets
 * dmsg_sync: PEs that call dmsg_sync instead take part in the same barrier
 * without a value (their parts of `all` then hold anything). `bytes` must be
 * the same on every PE that calls it, npes * bytes at most
 * DMSG_SYNC_XCHG_MAX. Errors: DMSG_ERR_UNSUPPORTED where the transport
 * carries no values in its barrier (ofi, sim: returned at once on every PE,
 * nothing synchronized; use a collective or dmsg_sync there),
 * DMSG_ERR_NULL, DMSG_ERR_ARG (too many bytes), both local and at once (the
 * others then wait for this PE as in any collective), and dmsg_sync's.
 */
int dmsg_sync_xchg(const void *mine, size_t bytes, void *all);

/**
 * Completes this PE's own outstanding deposits, fetches, non-blocking
 * atomics and signals at their targets
 * (no barrier, other PEs are not involved). Errors: DMSG_ERR_NOT_INIT.
 */
int dmsg_quiet(void);

/* ------------------------------------------------------------- deposits */

/**
 * Contiguous deposit: copies `bytes` bytes from the local buffer src to the
 * symmetric address dst on PE pe, and counts one message of `bytes` bytes on
 * ctr at pe (unless DMSG_CTR_NONE). Returns when src may be reused; the data
 * is visible at the target no later than the target's await on ctr or the
 * next dmsg_sync. Source and destination must not overlap.
 * bytes == 0 is valid: nothing is copied but the message is counted.
 * Errors: DMSG_ERR_NULL, DMSG_ERR_PE, DMSG_ERR_RANGE, DMSG_ERR_OVERFLOW,
 * DMSG_ERR_COUNTER.
 */
int dmsg_deposit(void *dst, const void *src, size_t bytes, int pe, dmsg_ctr ctr);

/** Maximum number of dimensions of a section. */
#define DMSG_MAX_DIMS 8

/**
 * One side of a regular n-D section: dimension 0 is the innermost; count[d]
 * elements along dimension d, stride[d] bytes between consecutive elements
 * along it. Strides may be negative; zero strides, and any layout in which two
 * elements overlap, are allowed on the source side only. The two sides
 * of a section copy may have different shapes, but must hold the same total
 * number of elements; elements are matched in row-major order of each side
 * (dimension 0 fastest).
 */
typedef struct dmsg_layout {
    int ndims;                       /**< 1 .. DMSG_MAX_DIMS */
    size_t count[DMSG_MAX_DIMS];     /**< elements per dimension */
    ptrdiff_t stride[DMSG_MAX_DIMS]; /**< bytes between elements per dimension */
} dmsg_layout;

/**
 * Section deposit: copies the elements of the source section (local memory
 * at src, shape sl) into the destination section (symmetric address dst on
 * PE pe, shape dl), elements of elem_size bytes. Counted as one message of
 * (elements * elem_size) bytes. A block transpose is one call: same counts,
 * swapped strides. Destination elements must not overlap each other.
 * Synchronization as dmsg_deposit.
 * Errors: DMSG_ERR_NULL, DMSG_ERR_PE, DMSG_ERR_ARG (ndims, elem_size 0,
 * element totals differ, overlapping destination stride), DMSG_ERR_RANGE
 * (any destination element outside the segment), DMSG_ERR_OVERFLOW,
 * DMSG_ERR_COUNTER.
 */
int dmsg_deposit_section(void *dst, const dmsg_layout *dl, const void *src,
                         const dmsg_layout *sl, size_t elem_size, int pe, dmsg_ctr ctr);

/**
 * Indexed scatter deposit: for i in [0,n): element i of the contiguous local
 * buffer src is stored at element dst_idx[i] of the symmetric array dst_base
 * on PE pe (byte address dst_base + dst_idx[i] * elem_size). Counted as one
 * message of n * elem_size bytes. Every index is checked before anything is
 * written; when an index repeats, the later element wins.
 * Errors: as dmsg_deposit_section.
 */
int dmsg_deposit_indexed(void *dst_base, const size_t *dst_idx, const void *src, size_t n,
                         size_t elem_size, int pe, dmsg_ctr ctr);

/**
 * Indexed gather deposit (the reverse): element src_idx[i] of the local
 * array src_base is stored at element i of the contiguous symmetric range
 * dst on PE pe. Counted as one message of n * elem_size bytes.
 * Errors: as dmsg_deposit_section.
 */
int dmsg_deposit_gathered(void *dst, const void *src_base, const size_t *src_idx, size_t n,
                          size_t elem_size, int pe, dmsg_ctr ctr);

/**
 * Address-data pair records: a byte offset (from the dst_base argument of
 * dmsg_deposit_adp) and the value stored there. One record type per element
 * size; arrays of them are passed as-is, interleaved offset/value.
 */
typedef struct dmsg_adp4 {
    uint64_t off;
    uint32_t val;
    uint32_t pad; /**< ignored */
} dmsg_adp4;
typedef struct dmsg_adp8 {
    uint64_t off;
    uint64_t val;
} dmsg_adp8;
typedef struct dmsg_adp16 {
    uint64_t off;
    unsigned char val[16];
} dmsg_adp16;

/** Size in bytes of one address-data record for elem_size 4, 8 or 16; 0 otherwise. */
size_t dmsg_adp_record_size(size_t elem_size);

/**
 * Address-data pair deposit: for each of the n records (an array of
 * dmsg_adp4, dmsg_adp8 or dmsg_adp16 as elem_size is 4, 8 or 16), stores the
 * record's value at byte offset off from the symmetric address dst_base on
 * PE pe. Counted as one message of n * elem_size bytes. Every offset is
 * checked before anything is written; offsets must be multiples of elem_size.
 * Records later in the array win when offsets repeat.
 * Errors: as dmsg_deposit_section, and DMSG_ERR_ALIGN.
 */
int dmsg_deposit_adp(void *dst_base, const void *records, size_t n, size_t elem_size, int pe,
                     dmsg_ctr ctr);

/* -------------------------------------------------------------- fetches */

/**
 * Request handle of a non-blocking fetch. Plain storage owned by the caller;
 * valid from the *_nb call until dmsg_wait or a dmsg_test that reports
 * completion. On shm and sim nothing is allocated for it; over ofi a fetch
 * in flight holds a small record that dmsg frees when it completes.
 */
typedef struct dmsg_req {
    uint32_t magic;  /**< set by dmsg */
    int32_t state;   /**< internal */
    int32_t status;  /**< final status */
    int32_t pe;      /**< target PE */
    uint64_t seq;    /**< internal */
    void *priv[2];   /**< internal */
} dmsg_req;

/**
 * Blocking contiguous fetch: copies `bytes` bytes from the symmetric address
 * src on PE pe into the local buffer dst; returns when dst holds the data.
 * The caller must have clearance (the data must be final at the source,
 * usually after a dmsg_sync). Errors: DMSG_ERR_NULL, DMSG_ERR_PE,
 * DMSG_ERR_RANGE, DMSG_ERR_OVERFLOW. The section and indexed forms also return
 * DMSG_ERR_ARG as dmsg_deposit_section does (here the local side is written,
 * so it must not overlap itself).
 */
int dmsg_fetch(void *dst, const void *src, size_t bytes, int pe);

/** Blocking section fetch: remote section (src, sl) on PE pe into local (dst, dl).
 *  Errors: as dmsg_fetch. */
int dmsg_fetch_section(void *dst, const dmsg_layout *dl, const void *src, const dmsg_layout *sl,
                       size_t elem_size, int pe);

/**
 * Blocking indexed gather fetch: dst[i] = element src_idx[i] of the symmetric
 * array src_base on PE pe, for i in [0,n). Every index is checked first.
 */
int dmsg_fetch_indexed(void *dst, const void *src_base, const size_t *src_idx, size_t n,
                       size_t elem_size, int pe);

/**
 * Non-blocking forms: start the fetch and return; dst must not be read or
 * written until dmsg_wait returns or dmsg_test reports completion. A fetch
 * is also complete after dmsg_quiet or dmsg_sync, but the handle must still
 * be waited or tested to completion. Argument errors are returned at once
 * and leave *req unused.
 */
int dmsg_fetch_nb(void *dst, const void *src, size_t bytes, int pe, dmsg_req *req);
int dmsg_fetch_section_nb(void *dst, const dmsg_layout *dl, const void *src,
                          const dmsg_layout *sl, size_t elem_size, int pe, dmsg_req *req);
int dmsg_fetch_indexed_nb(void *dst, const void *src_base, const size_t *src_idx, size_t n,
                          size_t elem_size, int pe, dmsg_req *req);

/**
 * Tests a request: *done = 1 and returns its final status once complete
 * (the handle is then retired), else *done = 0 and DMSG_OK. Local progress.
 * Errors: DMSG_ERR_NULL, DMSG_ERR_HANDLE (never started or already retired).
 */
int dmsg_test(dmsg_req *req, int *done);

/**
 * Waits for a request to complete and retires it; returns its final status.
 * Waits like every other dmsg wait (DMSG_SPIN, DMSG_YIELD_US: polls, then
 * yields or sleeps). Errors: DMSG_ERR_NULL, DMSG_ERR_HANDLE (never started
 * or already retired); DMSG_ERR_TIMEOUT where DMSG_TIMEOUT is set and has
 * passed, and DMSG_ERR_ABORTED when the launcher tears the job down: then a
 * request that the transport has not retired itself stays active (a later
 * dmsg_test or dmsg_wait may still complete it).
 */
int dmsg_wait(dmsg_req *req);

/* ---------------------------------------------------------------- types */

/**
 * Element types of atomics, waits and reductions (the C type named, of the
 * size named). Zero is no type, so an unset field is caught.
 */
typedef enum dmsg_type {
    DMSG_TYPE_INT8 = 1,
    DMSG_TYPE_INT16,
    DMSG_TYPE_INT32,
    DMSG_TYPE_INT64,
    DMSG_TYPE_UINT8,
    DMSG_TYPE_UINT16,
    DMSG_TYPE_UINT32,
    DMSG_TYPE_UINT64,
    DMSG_TYPE_FLOAT,          /**< float */
    DMSG_TYPE_DOUBLE,         /**< double */
    DMSG_TYPE_LONG_DOUBLE,    /**< long double (reductions only) */
    DMSG_TYPE_FLOAT_COMPLEX,  /**< float _Complex (sum and prod reductions only) */
    DMSG_TYPE_DOUBLE_COMPLEX, /**< double _Complex (sum and prod reductions only) */
} dmsg_type;

/** Size in bytes of one element of type t; 0 for a value that is no dmsg_type. Local. */
size_t dmsg_type_size(dmsg_type t);

/* -------------------------------------------------------------- atomics */

/**
 * Atomic memory operations on one word of symmetric memory. `old` is the
 * word's value before the operation; fetching operations return it.
 */
typedef enum dmsg_amo_op {
    DMSG_AMO_FETCH = 1,  /**< result = old (an atomic read) */
    DMSG_AMO_SET,        /**< word = operand (an atomic write) */
    DMSG_AMO_SWAP,       /**< result = old; word = operand */
    DMSG_AMO_CSWAP,      /**< result = old; if old == compare: word = operand */
    DMSG_AMO_ADD,        /**< word = old + operand */
    DMSG_AMO_FETCH_ADD,  /**< result = old; word = old + operand */
    DMSG_AMO_AND,        /**< word = old & operand */
    DMSG_AMO_FETCH_AND,  /**< result = old; word = old & operand */
    DMSG_AMO_OR,         /**< word = old | operand */
    DMSG_AMO_FETCH_OR,   /**< result = old; word = old | operand */
    DMSG_AMO_XOR,        /**< word = old ^ operand */
    DMSG_AMO_FETCH_XOR,  /**< result = old; word = old ^ operand */
} dmsg_amo_op;

/**
 * Atomic operation `op` on the word at symmetric address dst on PE pe (pe
 * may be this PE). Types: DMSG_TYPE_INT32, UINT32, INT64 and UINT64 for
 * every op (integer overflow wraps); DMSG_TYPE_FLOAT and DOUBLE for FETCH,
 * SET and SWAP only. operand (and compare, for CSWAP) point to one value of
 * the type in local memory; result receives old for the fetching ops
 * (FETCH, SWAP, CSWAP, FETCH_*) and is not used by the others.
 * Atomicity: with respect to every other dmsg atomic and signal on the same
 * word, from any PE, on every transport; not with respect to deposits,
 * fetches or plain stores to it. A PE may read a word of its own while
 * others update it atomically (dmsg_wait_until, dmsg_test_until, or an
 * atomic FETCH); it should not store to it except through dmsg_atomic.
 * Completion: returns when the operation is complete at the target (result
 * holds old). Errors, with nothing done: DMSG_ERR_NULL (dst, operand where
 * the op reads one, compare for CSWAP, result for a fetching op),
 * DMSG_ERR_ARG (unknown op or type, or a type the op does not take),
 * DMSG_ERR_PE, DMSG_ERR_RANGE (dst outside the symmetric segment or past the
 * highest allocated block), DMSG_ERR_ALIGN (dst not a multiple of the
 * type's size), DMSG_ERR_UNSUPPORTED (the transport has no atomics on
 * words of the type's size), DMSG_ERR_NOT_INIT.
 */
int dmsg_atomic(void *dst, dmsg_amo_op op, dmsg_type type, const void *operand,
                const void *compare, void *result, int pe);

/**
 * Non-blocking dmsg_atomic: starts the operation and returns. With a
 * request, it is complete (and, for a fetching op, result written) when
 * dmsg_wait returns or dmsg_test reports completion; operand and compare
 * are read before the call returns. req may be NULL for the non-fetching
 * ops only: such an operation is complete at the target after this PE's
 * next dmsg_quiet or dmsg_sync. Any operation is complete after those, but
 * a request must still be waited or tested to completion. Errors: as
 * dmsg_atomic, and DMSG_ERR_NULL for a fetching op without a request.
 */
int dmsg_atomic_nb(void *dst, dmsg_amo_op op, dmsg_type type, const void *operand,
                   const void *compare, void *result, int pe, dmsg_req *req);

/* -------------------------------------------------------------- signals */

/** How a signal changes its word. */
typedef enum dmsg_sig_op {
    DMSG_SIG_SET = 1, /**< word = value */
    DMSG_SIG_ADD,     /**< word = word + value */
} dmsg_sig_op;

/**
 * Updates the 64-bit signal word at symmetric address sig on PE pe (set to
 * or add value), atomically as dmsg_atomic on a DMSG_TYPE_UINT64 word, and
 * only after every deposit this PE issued to pe before the call is visible
 * there: a PE that sees the signal sees those deposits' data. Returns at
 * once; the update is visible at pe no later than pe's next dmsg_sync.
 * Signals sit beside deposit counters, they do not count anything.
 * Errors, with nothing done: DMSG_ERR_NULL, DMSG_ERR_ARG (unknown op),
 * DMSG_ERR_PE, DMSG_ERR_RANGE, DMSG_ERR_ALIGN (sig not 8-byte aligned),
 * DMSG_ERR_NOT_INIT.
 */
int dmsg_signal(uint64_t *sig, uint64_t value, dmsg_sig_op op, int pe);

/**
 * dmsg_deposit followed by dmsg_signal to the same PE in one call (put with
 * signal): the signal word changes only after the data is visible. For the
 * other deposit kinds, call them and then dmsg_signal. Errors: those of
 * both calls; when any argument is bad nothing is deposited or signalled.
 */
int dmsg_deposit_signal(void *dst, const void *src, size_t bytes, int pe, dmsg_ctr ctr,
                        uint64_t *sig, uint64_t value, dmsg_sig_op op);

/* ---------------------------------------------------------------- waits */

/** Comparisons of point-to-point waits: ivar CMP value. */
typedef enum dmsg_cmp {
    DMSG_CMP_EQ = 1,
    DMSG_CMP_NE,
    DMSG_CMP_GT,
    DMSG_CMP_GE,
    DMSG_CMP_LT,
    DMSG_CMP_LE,
} dmsg_cmp;

/**
 * Waits until the word at symmetric address ivar on this PE satisfies
 * `*ivar cmp *value`, as changed by other PEs' signals, atomics or
 * deposits (acquire: data deposited before the change that satisfied it,
 * and signalled with it, is visible on return). Types: DMSG_TYPE_INT16,
 * UINT16, INT32, UINT32, INT64, UINT64. Blocks (spin, then sleep) without a
 * limit unless DMSG_TIMEOUT is set. Errors: DMSG_ERR_NULL, DMSG_ERR_ARG
 * (type or cmp), DMSG_ERR_RANGE (ivar not in the symmetric segment),
 * DMSG_ERR_ALIGN, DMSG_ERR_NOT_INIT, DMSG_ERR_TIMEOUT, DMSG_ERR_ABORTED.
 */
int dmsg_wait_until(const void *ivar, dmsg_type type, dmsg_cmp cmp, const void *value);

/**
 * As dmsg_wait_until without waiting: *met = 1 when the comparison holds,
 * else 0 (after one step of the transport's progress). Errors: as
 * dmsg_wait_until, less the waits' errors.
 */
int dmsg_test_until(const void *ivar, dmsg_type type, dmsg_cmp cmp, const void *value, int *met);

/** How a wait on a set of words ends. */
typedef enum dmsg_wait_mode {
    DMSG_WAIT_ALL = 1, /**< when every included word satisfies its comparison */
    DMSG_WAIT_ANY,     /**< when one does: its index is reported */
    DMSG_WAIT_SOME,    /**< when at least one does: the indices of all that do */
} dmsg_wait_mode;

/**
 * A set of words for dmsg_wait_until_set: the n elements of the contiguous
 * symmetric array ivars of `type`, each compared with cmp against values[0]
 * (vector 0) or values[i] (vector 1); words with status[i] != 0 are left
 * out (status may be NULL: none is).
 */
typedef struct dmsg_wait_set {
    const void *ivars;
    size_t n;
    dmsg_type type;
    dmsg_cmp cmp;
    const void *values;
    int vector;
    const int *status;
} dmsg_wait_set;

/**
 * Waits on a set of words (see dmsg_wait_mode). On return *nfound is the
 * number of indices written to indices (may be NULL for DMSG_WAIT_ALL):
 * ALL: the number of included words; ANY: 1 and its index (the lowest
 * satisfied one); SOME: every satisfied included index, ascending (indices
 * must hold n). When every word is left out, returns at once with *nfound = 0.
 * Synchronization and errors: as dmsg_wait_until, and DMSG_ERR_NULL for a
 * missing indices or nfound.
 */
int dmsg_wait_until_set(const dmsg_wait_set *ws, dmsg_wait_mode mode, size_t *indices,
                        size_t *nfound);

/** As dmsg_wait_until_set without waiting: *nfound = 0 when the mode's condition does not hold yet. */
int dmsg_test_until_set(const dmsg_wait_set *ws, dmsg_wait_mode mode, size_t *indices,
                        size_t *nfound);

/* ---------------------------------------------------------------- teams */

/**
 * Team handle: an ordered subset of the job's PEs, numbered 0 .. size-1 in
 * the team. DMSG_TEAM_WORLD is every PE in job order, valid from dmsg_init
 * to dmsg_finalize. A handle of a freed team is detected (DMSG_ERR_TEAM).
 */
typedef uint64_t dmsg_team;
#define DMSG_TEAM_INVALID ((dmsg_team)0)
#define DMSG_TEAM_WORLD ((dmsg_team)1)

/**
 * Collective over the parent team: makes the team of the parent's PEs
 * start, start + stride, ..., start + (size - 1) * stride (parent numbers;
 * stride may be negative, and 0 only with size 1). Every parent member
 * calls it with the same arguments; members of the new team get its handle,
 * the others DMSG_TEAM_INVALID. Only the parent's members take part (no
 * job-wide barrier). Errors, on every parent member alike (also those
 * outside the new team, which then keep *team unchanged): DMSG_ERR_TEAM
 * (invalid parent, or this PE not in it), DMSG_ERR_ARG (size < 1, a PE
 * outside the parent), DMSG_ERR_NULL, DMSG_ERR_COLLECTIVE (members passed
 * different arguments), DMSG_ERR_NOMEM (DMSG_MAX_TEAMS live teams), and the
 * waits' errors.
 */
int dmsg_team_split_strided(dmsg_team parent, int start, int stride, int size, dmsg_team *team);

/**
 * Collective over the parent team: PEs passing the same color >= 0 form one
 * new team, numbered by (key, parent number) ascending; a negative color
 * gives DMSG_TEAM_INVALID. Errors: as dmsg_team_split_strided.
 */
int dmsg_team_split_color(dmsg_team parent, int color, int key, dmsg_team *team);

/**
 * Collective over the team: frees it (starts with dmsg_team_sync on it);
 * later use of the handle returns DMSG_ERR_TEAM. DMSG_TEAM_WORLD cannot be
 * freed. Errors: DMSG_ERR_TEAM, and the waits' errors.
 */
int dmsg_team_free(dmsg_team team);

/** This PE's number in the team, or DMSG_ERR_TEAM (not a member, invalid or freed). Local. */
int dmsg_team_pe(dmsg_team team);

/** Number of PEs in the team, or DMSG_ERR_TEAM. Local. */
int dmsg_team_npes(dmsg_team team);

/**
 * The number in team `to` of the PE numbered pe in team `from`; -1 when it
 * is not in `to`. Local. Errors: DMSG_ERR_TEAM (either team invalid, or
 * this PE not in `from`), DMSG_ERR_PE (pe outside `from`).
 */
int dmsg_team_translate(dmsg_team from, int pe, dmsg_team to);

/**
 * dmsg_sync over the team's PEs: a barrier among them that also completes
 * every deposit, fetch and atomic each of them issued before it (to any
 * PE). Errors: DMSG_ERR_TEAM, and the waits' errors.
 */
int dmsg_team_sync(dmsg_team team);

/**
 * dmsg_ctr_create over a team: collective over its members only; the
 * counter exists on the members, and only deposits from members to members
 * may name it. dmsg_ctr_destroy of it is collective over the same team.
 * Errors: as dmsg_ctr_create, and DMSG_ERR_TEAM.
 */
int dmsg_ctr_create_team(dmsg_team team, dmsg_ctr *ctr);

/* ---------------------------------------------------------- collectives */

/** Reduction operators. */
typedef enum dmsg_redop {
    DMSG_OP_SUM = 1, /**< every type */
    DMSG_OP_PROD,    /**< every type */
    DMSG_OP_MIN,     /**< integer and real types */
    DMSG_OP_MAX,     /**< integer and real types */
    DMSG_OP_AND,     /**< bitwise, integer types */
    DMSG_OP_OR,      /**< bitwise, integer types */
    DMSG_OP_XOR,     /**< bitwise, integer types */
} dmsg_redop;

/*
 * Collectives, common rules. Every member of the team calls the same
 * collectives on it in the same order, with matching arguments (the same
 * count, type, op and root; sizes that fit). Buffers are local memory of
 * any kind (symmetric or not); dst and src must not overlap, except where a
 * call allows them to be the same pointer (in place). A collective returns
 * on a PE when that PE's part is done: its dst holds the result and its src
 * may be reused. It is not a barrier (others may still be inside), except
 * dmsg_team_sync. It does not complete the PE's earlier deposits. Roots are
 * numbers in the team. Floating-point results are combined in one fixed
 * order, so every PE gets bitwise the same result, and so does every run.
 * Errors, with dst untouched: DMSG_ERR_TEAM, DMSG_ERR_NULL (a NULL buffer
 * with a non-zero size), DMSG_ERR_PE (root outside the team), DMSG_ERR_ARG
 * (unknown type or op, or an op the type does not take), DMSG_ERR_OVERFLOW,
 * DMSG_ERR_COLLECTIVE (members disagree; detected with DMSG_CHECK=1), and
 * the waits' errors. docs/api.md names the algorithm each call uses.
 * Where every member's segment is mapped (shm) and the buffers are
 * symmetric at one offset everywhere, long reductions, broadcasts,
 * allgathers and all-to-alls read and write the members' buffers in place
 * (DMSG_COLL_DIRECT): the same results and rules, with members' loads and
 * stores that DMSG_CHECK does not see.
 */

/** Broadcast: the root's src (bytes) is copied to dst on every member, the root included. In place: dst == src. */
int dmsg_bcast(dmsg_team team, void *dst, const void *src, size_t bytes, int root);

/** Reduction of count elements to the root's dst (dst unused elsewhere; may be NULL there). In place: dst == src. */
int dmsg_reduce(dmsg_team team, void *dst, const void *src, size_t count, dmsg_type type,
                dmsg_redop op, int root);

/** Reduction of count elements to every member's dst. In place: dst == src. */
int dmsg_allreduce(dmsg_team team, void *dst, const void *src, size_t count, dmsg_type type,
                   dmsg_redop op);

/** Inclusive prefix reduction: member i's dst = src of members 0..i combined. In place: dst == src. */
int dmsg_scan(dmsg_team team, void *dst, const void *src, size_t count, dmsg_type type,
              dmsg_redop op);

/** Exclusive prefix reduction: member i's dst = src of members 0..i-1 combined; member 0's dst is left untouched. */
int dmsg_exscan(dmsg_team team, void *dst, const void *src, size_t count, dmsg_type type,
                dmsg_redop op);

/** Gather: member i's src (bytes) lands at dst + i * bytes on the root (dst unused elsewhere). */
int dmsg_gather(dmsg_team team, void *dst, const void *src, size_t bytes, int root);

/**
 * Gather of different sizes: member i sends bytes (its own), which lands at
 * dst + displs[i] on the root, where counts[i] must equal member i's bytes
 * (counts, displs and dst are read on the root only).
 */
int dmsg_gatherv(dmsg_team team, void *dst, const size_t *counts, const size_t *displs,
                 const void *src, size_t bytes, int root);

/** Allgather: member i's src (bytes) lands at dst + i * bytes on every member. */
int dmsg_allgather(dmsg_team team, void *dst, const void *src, size_t bytes);

/** Allgather of different sizes: as dmsg_gatherv, counts and displs given on every member. */
int dmsg_allgatherv(dmsg_team team, void *dst, const size_t *counts, const size_t *displs,
                    const void *src, size_t bytes);

/** All-to-all: block j of src (bytes each) lands at dst + i * bytes on member j, for member i. */
int dmsg_alltoall(dmsg_team team, void *dst, const void *src, size_t bytes);

/**
 * All-to-all of different sizes (bytes): member i sends scounts[j] bytes from
 * src + sdispls[j] to member j, where they land at dst + rdispls[i]; j's
 * rcounts[i] must equal i's scounts[j].
 */
int dmsg_alltoallv(dmsg_team team, void *dst, const size_t *rcounts, const size_t *rdispls,
                   const void *src, const size_t *scounts, const size_t *sdispls);

#ifdef __cplusplus
}
#endif
#endif /* DMSG_H */
