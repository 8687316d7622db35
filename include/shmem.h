/*
 * shmem.h - OpenSHMEM 1.5 on dmsg (the C interface; docs/openshmem.md).
 *
 * Written for dmsg from the OpenSHMEM 1.5 specification. Programs include
 * it, are compiled with dmsg-oshcc and started with dmsg-oshrun (dmsgrun).
 * Each routine maps onto dmsg's public calls: puts are deposits, gets are
 * fetches, shmem_barrier_all is dmsg_sync, atomics, signals, waits, teams
 * and collectives are dmsg's own (include/dmsg.h).
 *
 * Symmetric objects are the blocks of shmem_malloc and friends (dmsg's
 * symmetric heap) and the program's global and static variables: at
 * shmem_init the executable's writable data and BSS are moved into the
 * symmetric heap at their own addresses, so remote accesses to them work
 * on every transport (docs/openshmem.md, "Static data").
 *
 * Ordering and completion: a put returns when its source may be reused; it
 * is complete at its target after shmem_quiet, shmem_barrier_all or
 * shmem_sync_all. shmem_fence orders puts to the same PE (dmsg implements
 * it as a quiet). Non-blocking (_nbi) calls are complete after shmem_quiet.
 *
 * Errors. The specification leaves bad input undefined; here a routine
 * given a PE out of range, an address that is not symmetric, a destroyed
 * team or context prints one line naming itself and the fault
 * ("shmem_int_put: PE 9 is not in [0, 4)") and ends the job with status 1,
 * as shmem_global_exit(1) does. Routines that return a status (teams,
 * collectives on teams) return non-zero instead where the specification
 * says so.
 *
 * Threads: shmem_init_thread provides the level asked for, up to
 * SHMEM_THREAD_MULTIPLE. Under MULTIPLE any thread may call any routine at
 * any time: one lock per PE serializes the calls that reach dmsg (which
 * serves one thread of a PE at a time), a waiting thread (wait_until,
 * signal_wait_until, a barrier or collective waiting for other PEs) does
 * not hold it, and collectives first wait, without it, until every member
 * has entered a collective. Collectives are serialized per PE: those of
 * different teams called at once by different threads must be entered in
 * the same order on every PE they share. The lower levels take no lock
 * (docs/openshmem.md, "Threads").
 *
 * SPDX-License-Identifier: BSD-3-Clause (the LICENSE file of dmsg)
 */
#ifndef DMSG_SHMEM_H
#define DMSG_SHMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ constants */

#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define SHMEM_MAX_NAME_LEN 256
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define SHMEM_VENDOR_STRING "dmsg OpenSHMEM front end"
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING

#define SHMEM_THREAD_SINGLE 0
#define SHMEM_THREAD_FUNNELED 1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE 3

/* Comparisons of the wait and test routines. */
#define SHMEM_CMP_EQ 0
#define SHMEM_CMP_NE 1
#define SHMEM_CMP_GT 2
#define SHMEM_CMP_GE 3
#define SHMEM_CMP_LT 4
#define SHMEM_CMP_LE 5
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE

/* Signal operations of the put-with-signal routines. */
#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

/* Work arrays of the deprecated active-set collectives (long elements).
 * pSync holds a dissemination barrier's counters and a size word here. */
#define SHMEM_SYNC_VALUE 0L
#define SHMEM_SYNC_SIZE 72
#define SHMEM_BARRIER_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_BCAST_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_COLLECT_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALL_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 1
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_ALLTOALL_SYNC_SIZE SHMEM_ALLTOALL_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

/* Hints of shmem_malloc_with_hints (accepted; dmsg's heap has one kind). */
#define SHMEM_MALLOC_ATOMICS_REMOTE 1L
#define SHMEM_MALLOC_SIGNAL_REMOTE 2L

/* Context options (accepted; every context orders and completes alike). */
#define SHMEM_CTX_SERIALIZED 1L
#define SHMEM_CTX_PRIVATE 2L
#define SHMEM_CTX_NOSTORE 4L

#define SHMEM_TEAM_NUM_CONTEXTS 1L

/* ------------------------------------------------------ teams, contexts */

/** A team: handles are pointers to dmsg's records, which stay allocated
 *  after shmem_team_destroy so that a later use is diagnosed. */
typedef struct dmsg_shmem_team *shmem_team_t;
/** A context: its team and its options. */
typedef struct dmsg_shmem_ctx {
    shmem_team_t team;
    long options;
    int live;
} *shmem_ctx_t;

typedef struct {
    int num_contexts;
} shmem_team_config_t;

extern struct dmsg_shmem_team dmsg_shmem_team_world, dmsg_shmem_team_shared;
extern struct dmsg_shmem_ctx dmsg_shmem_ctx_default;
#define SHMEM_TEAM_WORLD (&dmsg_shmem_team_world)
#define SHMEM_TEAM_SHARED (&dmsg_shmem_team_shared)
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)
#define SHMEM_CTX_DEFAULT (&dmsg_shmem_ctx_default)
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)

/* --------------------------------------------------------- type lists */
/* X(TYPE, TYPENAME) lists of the specification's type tables; the
 * declarations below and the library are generated from them. */

/* Standard RMA types (table "Standard RMA Types and Names"). */
#define DMSG_SHMEM_RMA_TYPES(X)                                                                    \
    X(float, float) X(double, double) X(long double, longdouble) X(char, char)                       \
    X(signed char, schar) X(short, short) X(int, int) X(long, long) X(long long, longlong)           \
    X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)  \
    X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) X(int32_t, int32)            \
    X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) \
    X(size_t, size) X(ptrdiff_t, ptrdiff)

/* Standard AMO types; the extended ones add float and double. */
#define DMSG_SHMEM_AMO_STD_TYPES(X)                                                                \
    X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint) X(unsigned long, ulong)  \
    X(unsigned long long, ulonglong) X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32)        \
    X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)
#define DMSG_SHMEM_AMO_EXT_TYPES(X) DMSG_SHMEM_AMO_STD_TYPES(X) X(float, float) X(double, double)
/* Bitwise AMO types. */
#define DMSG_SHMEM_AMO_BIT_TYPES(X)                                                                \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32) \
    X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64)

/* Point-to-point synchronization types. */
#define DMSG_SHMEM_P2P_TYPES(X)                                                                    \
    X(short, short) X(int, int) X(long, long) X(long long, longlong) X(unsigned short, ushort)      \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)                 \
    X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)     \
    X(ptrdiff_t, ptrdiff)

/* Reduction types: bitwise (and, or, xor), ordered (max, min), arithmetic (sum, prod). */
#define DMSG_SHMEM_RED_BIT_TYPES(X)                                                                \
    X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong) \
    X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) X(int32_t, int32)            \
    X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) \
    X(size_t, size)
#define DMSG_SHMEM_RED_CMP_TYPES(X)                                                                \
    X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long)                   \
    X(long long, longlong) X(ptrdiff_t, ptrdiff) DMSG_SHMEM_RED_BIT_TYPES(X) X(float, float)        \
    X(double, double) X(long double, longdouble)
#define DMSG_SHMEM_RED_ARITH_TYPES(X)                                                              \
    DMSG_SHMEM_RED_CMP_TYPES(X) X(double _Complex, complexd) X(float _Complex, complexf)

/* The deprecated active-set reductions (shmem_TYPENAME_OP_to_all). */
#define DMSG_SHMEM_TOALL_BIT_TYPES(X) X(short, short) X(int, int) X(long, long) X(long long, longlong)
#define DMSG_SHMEM_TOALL_CMP_TYPES(X)                                                              \
    DMSG_SHMEM_TOALL_BIT_TYPES(X) X(float, float) X(double, double) X(long double, longdouble)
#define DMSG_SHMEM_TOALL_ARITH_TYPES(X)                                                            \
    DMSG_SHMEM_TOALL_CMP_TYPES(X) X(double _Complex, complexd) X(float _Complex, complexf)

/* The sized RMA routines (shmem_putSIZE and friends): bits. */
#define DMSG_SHMEM_SIZES(X) X(8) X(16) X(32) X(64) X(128)

/* -------------------------------------------------- setup and query */

/** Joins the job (dmsg_init) and makes static data symmetric. Collective:
 *  returns after every PE joined. A failure prints why and exits(1). */
void shmem_init(void);
/** shmem_init; provided = requested (SINGLE for a level below it, MULTIPLE
 *  above it). Collective like shmem_init: when any PE asks for MULTIPLE,
 *  every PE takes the lock (see "Threads" above), whatever it reports. Call
 *  it before the program starts other threads; called again after
 *  shmem_init, it provides at most SERIALIZED unless the lock was agreed on
 *  then. Returns 0. */
int shmem_init_thread(int requested, int *provided);
/** The thread level shmem_init_thread provided (SINGLE after shmem_init). */
void shmem_query_thread(int *provided);
/** Completes every PE's outstanding operations, then leaves the job
 *  (dmsg_finalize). Collective. Later calls other than shmem_init are errors. */
void shmem_finalize(void);
/** Ends every PE of the job (dmsg_global_exit): no finalize, no barrier;
 *  under dmsgrun the other PEs are stopped and dmsgrun exits with exactly
 *  this status (low 8 bits), 0 included. Never returns. */
void shmem_global_exit(int status);
/** This PE's number in SHMEM_TEAM_WORLD. Local. */
int shmem_my_pe(void);
/** Number of PEs. Local. */
int shmem_n_pes(void);
/** 1 when pe is a PE of this job, else 0. Local. */
int shmem_pe_accessible(int pe);
/** 1 when addr is symmetric (heap or static data) and pe a PE of the job. */
int shmem_addr_accessible(const void *addr, int pe);
/** A local pointer to dest on pe (dmsg_peer_ptr), for plain loads and
 *  stores: dest itself for this PE; on shm every PE's (each process maps
 *  every segment); NULL on ofi and sim for the others, for a PE out of
 *  range and for an address that is not symmetric. Stores through it are
 *  visible at pe after a barrier (or shmem_quiet and a signal). Local. */
void *shmem_ptr(const void *dest, int pe);
/** Profiling control: accepted and ignored (dmsg has no profiling levels). */
void shmem_pcontrol(const int level, ...);
/** Version and name of this implementation. */
void shmem_info_get_version(int *major, int *minor);
void shmem_info_get_name(char *name);

/* Deprecated 1.x names (inline here, so that the library exports only shmem_ names). */
static inline void start_pes(int npes)
{
    (void)npes;
    shmem_init();
}
static inline int _my_pe(void)
{
    return shmem_my_pe();
}
static inline int _num_pes(void)
{
    return shmem_n_pes();
}

/* ---------------------------------------------------- memory management */

/** Collective symmetric allocations from dmsg's heap (dmsg_alloc): every PE
 *  calls them with the same arguments in the same order; each ends with a
 *  barrier. NULL when the heap is exhausted (DMSG_SEGMENT_SIZE) or size 0. */
void *shmem_malloc(size_t size);
void *shmem_calloc(size_t count, size_t size);
void *shmem_align(size_t alignment, size_t size);
void *shmem_malloc_with_hints(size_t size, long hints);
void *shmem_realloc(void *ptr, size_t size);
/** Collective free; starts with a barrier. NULL is a collective no-op. */
void shmem_free(void *ptr);
static inline void *shmalloc(size_t size)
{
    return shmem_malloc(size);
}
static inline void *shmemalign(size_t alignment, size_t size)
{
    return shmem_align(alignment, size);
}
static inline void *shrealloc(void *ptr, size_t size)
{
    return shmem_realloc(ptr, size);
}
static inline void shfree(void *ptr)
{
    shmem_free(ptr);
}

/* --------------------------------------------------- teams and contexts */

/** Local queries; -1 for an invalid team (and a diagnosed destroyed one). */
int shmem_team_my_pe(shmem_team_t team);
int shmem_team_n_pes(shmem_team_t team);
/** 0 and the team's configuration; non-zero for an invalid team. */
int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config);
/** src_pe of src_team numbered in dest_team, or -1 when it is not a member. */
int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
/** Collective over parent (dmsg_team_split_strided): 0 on success, with
 *  *new_team SHMEM_TEAM_INVALID on PEs outside the new team; non-zero when
 *  the arguments are bad (on every parent member alike). */
int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team);
/** Collective over parent: rows (x axis, xrange PEs each) and columns (y axis). */
int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team);
/** Collective over the team: frees it; a later use is diagnosed. */
void shmem_team_destroy(shmem_team_t team);
/** Barrier over the team's PEs that also completes their puts (dmsg_team_sync).
 *  shmem_sync(team) names it too (C11). */
int shmem_team_sync(shmem_team_t team);
/** shmem_ptr on a team: pe numbered in team; NULL when pe is not in it. */
void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe);
/** Contexts: one per thread is enough (any options, SHMEM_CTX_PRIVATE too,
 *  under SHMEM_THREAD_MULTIPLE); all complete and order alike (quiet on any
 *  context quiets the PE, every thread's puts included). Operations on a
 *  team's context number PEs in that team. */
int shmem_ctx_create(long options, shmem_ctx_t *ctx);
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);
void shmem_ctx_destroy(shmem_ctx_t ctx);
int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);

/* ------------------------------------------------------------------ RMA */
/* put: returns when source may be reused; complete after quiet/barrier.
 * get: returns with dest filled. p/g: one element. iput/iget: strided
 * (dst, sst in elements). _nbi: complete after shmem_quiet. */

#define DMSG_SHMEM_DECL_RMA(T, N)                                                                  \
    void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe);                         \
    void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe);    \
    void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe);                     \
    void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe);\
    void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe);                         \
    void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe);    \
    void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe);                     \
    void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe);\
    void shmem_##N##_p(T *dest, T value, int pe);                                                  \
    void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe);                             \
    T shmem_##N##_g(const T *source, int pe);                                                      \
    T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe);                                 \
    void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,   \
                          int pe);                                                                 \
    void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,            \
                              ptrdiff_t sst, size_t nelems, int pe);                               \
    void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,   \
                          int pe);                                                                 \
    void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,            \
                              ptrdiff_t sst, size_t nelems, int pe);                               \
    void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,       \
                                uint64_t signal, int sig_op, int pe);                              \
    void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,      \
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);      \
    void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,   \
                                    uint64_t signal, int sig_op, int pe);                          \
    void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,  \
                                        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
DMSG_SHMEM_RMA_TYPES(DMSG_SHMEM_DECL_RMA)

#define DMSG_SHMEM_DECL_SIZED(B)                                                                   \
    void shmem_put##B(void *dest, const void *source, size_t nelems, int pe);                      \
    void shmem_ctx_put##B(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe); \
    void shmem_put##B##_nbi(void *dest, const void *source, size_t nelems, int pe);                \
    void shmem_ctx_put##B##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,    \
                                int pe);                                                           \
    void shmem_get##B(void *dest, const void *source, size_t nelems, int pe);                      \
    void shmem_ctx_get##B(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe); \
    void shmem_get##B##_nbi(void *dest, const void *source, size_t nelems, int pe);                \
    void shmem_ctx_get##B##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,    \
                                int pe);                                                           \
    void shmem_iput##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,               \
                       size_t nelems, int pe);                                                     \
    void shmem_ctx_iput##B(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,         \
                           ptrdiff_t sst, size_t nelems, int pe);                                  \
    void shmem_iget##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,               \
                       size_t nelems, int pe);                                                     \
    void shmem_ctx_iget##B(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,         \
                           ptrdiff_t sst, size_t nelems, int pe);                                  \
    void shmem_put##B##_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,  \
                               uint64_t signal, int sig_op, int pe);                               \
    void shmem_ctx_put##B##_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                                   uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);       \
    void shmem_put##B##_signal_nbi(void *dest, const void *source, size_t nelems,                  \
                                   uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);       \
    void shmem_ctx_put##B##_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source,            \
                                       size_t nelems, uint64_t *sig_addr, uint64_t signal,         \
                                       int sig_op, int pe);
DMSG_SHMEM_SIZES(DMSG_SHMEM_DECL_SIZED)
DMSG_SHMEM_DECL_SIZED(mem)

/* ----------------------------------------------------- ordering, signals */

/** Orders this PE's puts, AMOs and signals to each PE: dmsg completes them
 *  (a quiet), which is stronger than the specification asks. */
void shmem_fence(void);
void shmem_ctx_fence(shmem_ctx_t ctx);
/** Completes this PE's outstanding puts, gets, AMOs and signals (dmsg_quiet). */
void shmem_quiet(void);
void shmem_ctx_quiet(shmem_ctx_t ctx);
/** Reads a signal word of this PE atomically. */
uint64_t shmem_signal_fetch(const uint64_t *sig_addr);
/** Waits until *sig_addr cmp cmp_value (dmsg_wait_until); returns the value seen. */
uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* -------------------------------------------------------------- atomics */
/* Complete at the target on return (blocking forms); _nbi forms are
 * complete (fetch written) after shmem_quiet. Atomic with respect to
 * every other shmem atomic on the same word (dmsg_atomic). */

#define DMSG_SHMEM_DECL_AMO_EXT(T, N)                                                              \
    T shmem_##N##_atomic_fetch(const T *source, int pe);                                           \
    T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe);                      \
    void shmem_##N##_atomic_set(T *dest, T value, int pe);                                         \
    void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T *dest, T value, int pe);                    \
    T shmem_##N##_atomic_swap(T *dest, T value, int pe);                                           \
    T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T *dest, T value, int pe);                      \
    void shmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe);                          \
    void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch, const T *source, int pe);     \
    void shmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe);                          \
    void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe);
#define DMSG_SHMEM_DECL_AMO_STD(T, N)                                                              \
    T shmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe);                           \
    T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T *dest, T cond, T value, int pe);      \
    T shmem_##N##_atomic_fetch_inc(T *dest, int pe);                                               \
    T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T *dest, int pe);                          \
    void shmem_##N##_atomic_inc(T *dest, int pe);                                                  \
    void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T *dest, int pe);                             \
    T shmem_##N##_atomic_fetch_add(T *dest, T value, int pe);                                      \
    T shmem_ctx_##N##_atomic_fetch_add(shmem_ctx_t ctx, T *dest, T value, int pe);                 \
    void shmem_##N##_atomic_add(T *dest, T value, int pe);                                         \
    void shmem_ctx_##N##_atomic_add(shmem_ctx_t ctx, T *dest, T value, int pe);                    \
    void shmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe);          \
    void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T cond,       \
                                                 T value, int pe);                                 \
    void shmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe);                              \
    void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T *fetch, T *dest, int pe);         \
    void shmem_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe);                     \
    void shmem_ctx_##N##_atomic_fetch_add_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe);
#define DMSG_SHMEM_DECL_AMO_BIT1(T, N, OP)                                                         \
    T shmem_##N##_atomic_fetch_##OP(T *dest, T value, int pe);                                     \
    T shmem_ctx_##N##_atomic_fetch_##OP(shmem_ctx_t ctx, T *dest, T value, int pe);                \
    void shmem_##N##_atomic_##OP(T *dest, T value, int pe);                                        \
    void shmem_ctx_##N##_atomic_##OP(shmem_ctx_t ctx, T *dest, T value, int pe);                   \
    void shmem_##N##_atomic_fetch_##OP##_nbi(T *fetch, T *dest, T value, int pe);                  \
    void shmem_ctx_##N##_atomic_fetch_##OP##_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value,      \
                                                 int pe);
#define DMSG_SHMEM_DECL_AMO_BIT(T, N)                                                              \
    DMSG_SHMEM_DECL_AMO_BIT1(T, N, and) DMSG_SHMEM_DECL_AMO_BIT1(T, N, or)                         \
    DMSG_SHMEM_DECL_AMO_BIT1(T, N, xor)
DMSG_SHMEM_AMO_EXT_TYPES(DMSG_SHMEM_DECL_AMO_EXT)
DMSG_SHMEM_AMO_STD_TYPES(DMSG_SHMEM_DECL_AMO_STD)
DMSG_SHMEM_AMO_BIT_TYPES(DMSG_SHMEM_DECL_AMO_BIT)

/* Deprecated 1.3 atomic names. */
#define DMSG_SHMEM_OLD_AMO_TYPES(X) X(int, int) X(long, long) X(long long, longlong)
#define DMSG_SHMEM_DECL_OLD_AMO(T, N)                                                              \
    T shmem_##N##_cswap(T *dest, T cond, T value, int pe);                                         \
    T shmem_##N##_finc(T *dest, int pe);                                                           \
    void shmem_##N##_inc(T *dest, int pe);                                                         \
    T shmem_##N##_fadd(T *dest, T value, int pe);                                                  \
    void shmem_##N##_add(T *dest, T value, int pe);
#define DMSG_SHMEM_DECL_OLD_AMO_EXT(T, N)                                                          \
    T shmem_##N##_fetch(const T *source, int pe);                                                  \
    void shmem_##N##_set(T *dest, T value, int pe);                                                \
    T shmem_##N##_swap(T *dest, T value, int pe);
DMSG_SHMEM_OLD_AMO_TYPES(DMSG_SHMEM_DECL_OLD_AMO)
DMSG_SHMEM_OLD_AMO_TYPES(DMSG_SHMEM_DECL_OLD_AMO_EXT)
DMSG_SHMEM_DECL_OLD_AMO_EXT(float, float)
DMSG_SHMEM_DECL_OLD_AMO_EXT(double, double)
long shmem_swap(long *dest, long value, int pe);

/* ------------------------------------------- point-to-point synchronization */
/* Wait on this PE's symmetric words until other PEs' puts, AMOs or signals
 * make the comparison hold (acquire: what was put before is visible). The
 * _all/_any/_some forms skip words whose status is non-zero (status may be
 * NULL); _any returns the index (SIZE_MAX when every word is skipped, or
 * for test_any when none holds), _some the number of indices written. */

#define DMSG_SHMEM_DECL_P2P(T, N)                                                                  \
    void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value);                                    \
    void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,           \
                                    T cmp_value);                                                  \
    size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,         \
                                      T cmp_value);                                                \
    size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,                   \
                                       const int *status, int cmp, T cmp_value);                   \
    void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp,    \
                                           T *cmp_values);                                         \
    size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp,  \
                                             T *cmp_values);                                       \
    size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,            \
                                              const int *status, int cmp, T *cmp_values);          \
    int shmem_##N##_test(T *ivar, int cmp, T cmp_value);                                           \
    int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value);    \
    size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value); \
    size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status,      \
                                 int cmp, T cmp_value);                                            \
    int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,           \
                                    T *cmp_values);                                                \
    size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp,        \
                                       T *cmp_values);                                             \
    size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,                  \
                                        const int *status, int cmp, T *cmp_values);                \
    void shmem_##N##_wait(T *ivar, T cmp_value);
DMSG_SHMEM_P2P_TYPES(DMSG_SHMEM_DECL_P2P)
/** Deprecated: waits until *ivar != cmp_value, and the long form of wait_until. */
void shmem_wait(long *ivar, long cmp_value);
void shmem_wait_until(long *ivar, int cmp, long cmp_value);

/* ---------------------------------------------------------------- locks */
/** Distributed lock on the symmetric long *lock (initially 0 on every PE):
 *  set waits until this PE holds it, test takes it when free (0) or
 *  returns 1, clear completes this PE's puts (quiet) and releases it. */
void shmem_set_lock(long *lock);
void shmem_clear_lock(long *lock);
int shmem_test_lock(long *lock);

/* ---------------------------------------------------------- collectives */
/* On teams: every member calls them in the same order with the same
 * arguments; they return 0, or non-zero for a bad team or arguments (with
 * nothing done). A PE returns when its dest holds the result; they are not
 * barriers (shmem_team_sync is). Buffers should be symmetric (any memory
 * works here). broadcast updates dest on the root too (1.5). */

void shmem_barrier_all(void);
void shmem_sync_all(void);

#define DMSG_SHMEM_DECL_COLL(T, N)                                                                 \
    int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems,          \
                              int PE_root);                                                        \
    int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems);           \
    int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems);          \
    int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems);          \
    int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst,          \
                              ptrdiff_t sst, size_t nelems);
DMSG_SHMEM_RMA_TYPES(DMSG_SHMEM_DECL_COLL)
int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                       int PE_root);
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems);

#define DMSG_SHMEM_DECL_RED(T, N, OP)                                                              \
    int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce);
#define DMSG_SHMEM_DECL_RED_BIT(T, N)                                                              \
    DMSG_SHMEM_DECL_RED(T, N, and) DMSG_SHMEM_DECL_RED(T, N, or) DMSG_SHMEM_DECL_RED(T, N, xor)
#define DMSG_SHMEM_DECL_RED_CMP(T, N) DMSG_SHMEM_DECL_RED(T, N, max) DMSG_SHMEM_DECL_RED(T, N, min)
#define DMSG_SHMEM_DECL_RED_ARITH(T, N)                                                            \
    DMSG_SHMEM_DECL_RED(T, N, sum) DMSG_SHMEM_DECL_RED(T, N, prod)
DMSG_SHMEM_RED_BIT_TYPES(DMSG_SHMEM_DECL_RED_BIT)
DMSG_SHMEM_RED_CMP_TYPES(DMSG_SHMEM_DECL_RED_CMP)
DMSG_SHMEM_RED_ARITH_TYPES(DMSG_SHMEM_DECL_RED_ARITH)

/* Deprecated active-set collectives: the PEs PE_start + i * 2^logPE_stride,
 * i < PE_size, with the symmetric work array pSync (SHMEM_SYNC_VALUE on
 * every PE before the first use, restored on return). The root's dest is
 * not written by broadcast. On the whole job they run dmsg's collectives. */
void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync);
void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync);
#define DMSG_SHMEM_DECL_ASET(B)                                                                    \
    void shmem_broadcast##B(void *dest, const void *source, size_t nelems, int PE_root,            \
                            int PE_start, int logPE_stride, int PE_size, long *pSync);             \
    void shmem_collect##B(void *dest, const void *source, size_t nelems, int PE_start,             \
                          int logPE_stride, int PE_size, long *pSync);                             \
    void shmem_fcollect##B(void *dest, const void *source, size_t nelems, int PE_start,            \
                           int logPE_stride, int PE_size, long *pSync);                            \
    void shmem_alltoall##B(void *dest, const void *source, size_t nelems, int PE_start,            \
                           int logPE_stride, int PE_size, long *pSync);                            \
    void shmem_alltoalls##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,          \
                            size_t nelems, int PE_start, int logPE_stride, int PE_size,            \
                            long *pSync);
DMSG_SHMEM_DECL_ASET(32)
DMSG_SHMEM_DECL_ASET(64)

#define DMSG_SHMEM_DECL_TOALL(T, N, OP)                                                            \
    void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start,            \
                                   int logPE_stride, int PE_size, T *pWrk, long *pSync);
#define DMSG_SHMEM_DECL_TOALL_BIT(T, N)                                                            \
    DMSG_SHMEM_DECL_TOALL(T, N, and) DMSG_SHMEM_DECL_TOALL(T, N, or)                               \
    DMSG_SHMEM_DECL_TOALL(T, N, xor)
#define DMSG_SHMEM_DECL_TOALL_CMP(T, N)                                                            \
    DMSG_SHMEM_DECL_TOALL(T, N, max) DMSG_SHMEM_DECL_TOALL(T, N, min)
#define DMSG_SHMEM_DECL_TOALL_ARITH(T, N)                                                          \
    DMSG_SHMEM_DECL_TOALL(T, N, sum) DMSG_SHMEM_DECL_TOALL(T, N, prod)
DMSG_SHMEM_TOALL_BIT_TYPES(DMSG_SHMEM_DECL_TOALL_BIT)
DMSG_SHMEM_TOALL_CMP_TYPES(DMSG_SHMEM_DECL_TOALL_CMP)
DMSG_SHMEM_TOALL_ARITH_TYPES(DMSG_SHMEM_DECL_TOALL_ARITH)


/* ------------------------------------------------- C11 generic forms */
/* shmem_put(dest, source, nelems, pe), shmem_put(ctx, dest, ...), and so
 * on: chosen by the type of the first pointer argument. A type no routine
 * takes fails to compile (dmsg_shmem_generic_bad takes no arguments). */
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
void dmsg_shmem_generic_bad(void);
#define DMSG_SHMEM_A1(a, ...) a
#define DMSG_SHMEM_A2(a, b, ...) b
#define DMSG_SHMEM_P(T, pre, n, suf) T *: pre##n##suf, const T *: pre##n##suf
#define DMSG_SHMEM_SEL_RMA(e, pre, suf)                                                            \
    _Generic((e), DMSG_SHMEM_P(float, pre, float, suf), DMSG_SHMEM_P(double, pre, double, suf),    \
             DMSG_SHMEM_P(long double, pre, longdouble, suf), DMSG_SHMEM_P(char, pre, char, suf),  \
             DMSG_SHMEM_P(signed char, pre, schar, suf), DMSG_SHMEM_P(short, pre, short, suf),     \
             DMSG_SHMEM_P(int, pre, int, suf), DMSG_SHMEM_P(long, pre, long, suf),                 \
             DMSG_SHMEM_P(long long, pre, longlong, suf),                                          \
             DMSG_SHMEM_P(unsigned char, pre, uchar, suf),                                         \
             DMSG_SHMEM_P(unsigned short, pre, ushort, suf),                                       \
             DMSG_SHMEM_P(unsigned int, pre, uint, suf), DMSG_SHMEM_P(unsigned long, pre, ulong, suf), \
             DMSG_SHMEM_P(unsigned long long, pre, ulonglong, suf),                                \
             default: dmsg_shmem_generic_bad)
#define DMSG_SHMEM_SEL_AMO(e, pre, suf)                                                            \
    _Generic((e), DMSG_SHMEM_P(int, pre, int, suf), DMSG_SHMEM_P(long, pre, long, suf),            \
             DMSG_SHMEM_P(long long, pre, longlong, suf), DMSG_SHMEM_P(unsigned int, pre, uint, suf), \
             DMSG_SHMEM_P(unsigned long, pre, ulong, suf),                                         \
             DMSG_SHMEM_P(unsigned long long, pre, ulonglong, suf),                                \
             default: dmsg_shmem_generic_bad)
#define DMSG_SHMEM_SEL_AMOX(e, pre, suf)                                                           \
    _Generic((e), DMSG_SHMEM_P(int, pre, int, suf), DMSG_SHMEM_P(long, pre, long, suf),            \
             DMSG_SHMEM_P(long long, pre, longlong, suf), DMSG_SHMEM_P(unsigned int, pre, uint, suf), \
             DMSG_SHMEM_P(unsigned long, pre, ulong, suf),                                         \
             DMSG_SHMEM_P(unsigned long long, pre, ulonglong, suf),                                \
             DMSG_SHMEM_P(float, pre, float, suf), DMSG_SHMEM_P(double, pre, double, suf),         \
             default: dmsg_shmem_generic_bad)
#define DMSG_SHMEM_SEL_AMOB(e, pre, suf)                                                           \
    _Generic((e), DMSG_SHMEM_P(unsigned int, pre, uint, suf),                                      \
             DMSG_SHMEM_P(unsigned long, pre, ulong, suf),                                         \
             DMSG_SHMEM_P(unsigned long long, pre, ulonglong, suf),                                \
             DMSG_SHMEM_P(int, pre, int32, suf), DMSG_SHMEM_P(long, pre, int64, suf),              \
             default: dmsg_shmem_generic_bad)
#define DMSG_SHMEM_SEL_P2P(e, pre, suf)                                                            \
    _Generic((e), DMSG_SHMEM_P(short, pre, short, suf), DMSG_SHMEM_P(int, pre, int, suf),          \
             DMSG_SHMEM_P(long, pre, long, suf), DMSG_SHMEM_P(long long, pre, longlong, suf),      \
             DMSG_SHMEM_P(unsigned short, pre, ushort, suf),                                       \
             DMSG_SHMEM_P(unsigned int, pre, uint, suf), DMSG_SHMEM_P(unsigned long, pre, ulong, suf), \
             DMSG_SHMEM_P(unsigned long long, pre, ulonglong, suf),                                \
             default: dmsg_shmem_generic_bad)
#define DMSG_SHMEM_SEL_RBIT(e, pre, suf)                                                           \
    _Generic((e), DMSG_SHMEM_P(unsigned char, pre, uchar, suf),                                    \
             DMSG_SHMEM_P(unsigned short, pre, ushort, suf),                                       \
             DMSG_SHMEM_P(unsigned int, pre, uint, suf), DMSG_SHMEM_P(unsigned long, pre, ulong, suf), \
             DMSG_SHMEM_P(unsigned long long, pre, ulonglong, suf),                                \
             DMSG_SHMEM_P(signed char, pre, int8, suf), DMSG_SHMEM_P(short, pre, int16, suf),      \
             DMSG_SHMEM_P(int, pre, int32, suf), DMSG_SHMEM_P(long, pre, int64, suf),              \
             default: dmsg_shmem_generic_bad)
#define DMSG_SHMEM_SEL_RCMP(e, pre, suf)                                                           \
    _Generic((e), DMSG_SHMEM_P(char, pre, char, suf), DMSG_SHMEM_P(signed char, pre, schar, suf),  \
             DMSG_SHMEM_P(short, pre, short, suf), DMSG_SHMEM_P(int, pre, int, suf),               \
             DMSG_SHMEM_P(long, pre, long, suf), DMSG_SHMEM_P(long long, pre, longlong, suf),      \
             DMSG_SHMEM_P(unsigned char, pre, uchar, suf),                                         \
             DMSG_SHMEM_P(unsigned short, pre, ushort, suf),                                       \
             DMSG_SHMEM_P(unsigned int, pre, uint, suf), DMSG_SHMEM_P(unsigned long, pre, ulong, suf), \
             DMSG_SHMEM_P(unsigned long long, pre, ulonglong, suf),                                \
             DMSG_SHMEM_P(float, pre, float, suf), DMSG_SHMEM_P(double, pre, double, suf),         \
             DMSG_SHMEM_P(long double, pre, longdouble, suf), default: dmsg_shmem_generic_bad)
#define DMSG_SHMEM_SEL_RARI(e, pre, suf)                                                           \
    _Generic((e), DMSG_SHMEM_P(char, pre, char, suf), DMSG_SHMEM_P(signed char, pre, schar, suf),  \
             DMSG_SHMEM_P(short, pre, short, suf), DMSG_SHMEM_P(int, pre, int, suf),               \
             DMSG_SHMEM_P(long, pre, long, suf), DMSG_SHMEM_P(long long, pre, longlong, suf),      \
             DMSG_SHMEM_P(unsigned char, pre, uchar, suf),                                         \
             DMSG_SHMEM_P(unsigned short, pre, ushort, suf),                                       \
             DMSG_SHMEM_P(unsigned int, pre, uint, suf), DMSG_SHMEM_P(unsigned long, pre, ulong, suf), \
             DMSG_SHMEM_P(unsigned long long, pre, ulonglong, suf),                                \
             DMSG_SHMEM_P(float, pre, float, suf), DMSG_SHMEM_P(double, pre, double, suf),         \
             DMSG_SHMEM_P(long double, pre, longdouble, suf),                                      \
             DMSG_SHMEM_P(double _Complex, pre, complexd, suf),                                    \
             DMSG_SHMEM_P(float _Complex, pre, complexf, suf), default: dmsg_shmem_generic_bad)
/* With an optional context first. */
#define DMSG_SHMEM_GEN(SEL, suf, ...)                                                              \
    _Generic(DMSG_SHMEM_A1(__VA_ARGS__, 0),                                                        \
             shmem_ctx_t: SEL(DMSG_SHMEM_A2(__VA_ARGS__, 0), shmem_ctx_, suf),                     \
             default: SEL(DMSG_SHMEM_A1(__VA_ARGS__, 0), shmem_, suf))(__VA_ARGS__)
/* Without contexts: by the first argument (waits) or the second (collectives: team first). */
#define DMSG_SHMEM_GEN1(SEL, suf, ...) SEL(DMSG_SHMEM_A1(__VA_ARGS__, 0), shmem_, suf)(__VA_ARGS__)
#define DMSG_SHMEM_GEN2(SEL, suf, ...) SEL(DMSG_SHMEM_A2(__VA_ARGS__, 0), shmem_, suf)(__VA_ARGS__)

#define shmem_put(...) DMSG_SHMEM_GEN(DMSG_SHMEM_SEL_RMA, _put, __VA_ARGS__)
#define shmem_put_nbi(...) DMSG_SHMEM_GEN(DMSG_SHMEM_SEL_RMA, _put_nbi, __VA_ARGS__)
#define shmem_get(...) DMSG_SHMEM_GEN(DMSG_SHMEM_SEL_RMA, _get, __VA_ARGS__)
#define shmem_get_nbi(...) DMSG_SHMEM_GEN(DMSG_SHMEM_SEL_RMA, _get_nbi, __VA_ARGS__)
#define shmem_p(...) DMSG_SHMEM_GEN(DMSG_SHMEM_SEL_RMA, _p, __VA_ARGS__)
#define shmem_g(...) DMSG_SHMEM_GEN(DMSG_SHMEM_SEL_RMA, _g, __VA_ARGS__)
#define shmem_iput(...) DMSG_SHMEM_GEN(DMSG_SHMEM_SEL_RMA, _iput, __VA_ARGS__)
#define shmem_iget(...) DMSG_SHMEM_GEN(DMSG_SHMEM_SEL_RMA, _iget, __VA_ARGS__)
#define shmem_put_signal(...) DMSG_SHMEM_GEN(DMSG_SHMEM_SEL_RMA, _put_signal, __VA_ARGS__)
#define shmem_put_signal_nbi(...) DMSG_SHMEM_GEN(DMSG_SHMEM_SEL_RMA, _put_signal_nbi, __VA_ARGS__)

#define shmem_atomic_fetch(...) DMSG_SHMEM_GEN(DMSG_SHMEM_SEL_AMOX, _atomic_fetch, __VA_ARGS__)
#define shmem_atomic_set(...) DMSG_SHMEM_GEN(DMSG_SHMEM_SEL_AMOX, _atomic_set, __VA_ARGS__)
#define shmem_atomic_swap(...) DMSG_SHMEM_GEN(DMSG_SHMEM_SEL_AMOX, _atomic_swap, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(...) DMSG_SHMEM_GEN(DMSG_SHMEM_SEL_AMOX, _atomic_fetch_nbi, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...) DMSG_SHMEM_GEN(DMSG_SHMEM_SEL_AMOX, _atomic_swap_nbi, __VA_ARGS__)
#define shmem_atomic_compare_swap(...)                                                             \
    DMSG_SHMEM_GEN(DMSG_SHMEM_SEL_AMO, _atomic_compare_swap, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...)                                                         \
    DMSG_SHMEM_GEN(DMSG_SHMEM_SEL_AMO, _atomic_compare_swap_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...) DMSG_SHMEM_GEN(DMSG_SHMEM_SEL_AMO, _atomic_fetch_inc, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...)                                                            \
    DMSG_SHMEM_GEN(DMSG_SHMEM_SEL_AMO, _atomic_fetch_inc_nbi, __VA_ARGS__)
#define shmem_atomic_inc(...) DMSG_SHMEM_GEN(DMSG_SHMEM_SEL_AMO, _atomic_inc, __VA_ARGS__)
#define shmem_atomic_fetch_add(...) DMSG_SHMEM_GEN(DMSG_SHMEM_SEL_AMO, _atomic_fetch_add, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...)                                                            \
    DMSG_SHMEM_GEN(DMSG_SHMEM_SEL_AMO, _atomic_fetch_add_nbi, __VA_ARGS__)
#define shmem_atomic_add(...) DMSG_SHMEM_GEN(DMSG_SHMEM_SEL_AMO, _atomic_add, __VA_ARGS__)
#define shmem_atomic_fetch_and(...) DMSG_SHMEM_GEN(DMSG_SHMEM_SEL_AMOB, _atomic_fetch_and, __VA_ARGS__)
#define shmem_atomic_fetch_or(...) DMSG_SHMEM_GEN(DMSG_SHMEM_SEL_AMOB, _atomic_fetch_or, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...) DMSG_SHMEM_GEN(DMSG_SHMEM_SEL_AMOB, _atomic_fetch_xor, __VA_ARGS__)
#define shmem_atomic_and(...) DMSG_SHMEM_GEN(DMSG_SHMEM_SEL_AMOB, _atomic_and, __VA_ARGS__)
#define shmem_atomic_or(...) DMSG_SHMEM_GEN(DMSG_SHMEM_SEL_AMOB, _atomic_or, __VA_ARGS__)
#define shmem_atomic_xor(...) DMSG_SHMEM_GEN(DMSG_SHMEM_SEL_AMOB, _atomic_xor, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...)                                                            \
    DMSG_SHMEM_GEN(DMSG_SHMEM_SEL_AMOB, _atomic_fetch_and_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...)                                                             \
    DMSG_SHMEM_GEN(DMSG_SHMEM_SEL_AMOB, _atomic_fetch_or_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...)                                                            \
    DMSG_SHMEM_GEN(DMSG_SHMEM_SEL_AMOB, _atomic_fetch_xor_nbi, __VA_ARGS__)

/* The function shmem_wait_until (long) stays callable as (shmem_wait_until)(...). */
#define shmem_wait_until(...) DMSG_SHMEM_GEN1(DMSG_SHMEM_SEL_P2P, _wait_until, __VA_ARGS__)
#define shmem_wait_until_all(...) DMSG_SHMEM_GEN1(DMSG_SHMEM_SEL_P2P, _wait_until_all, __VA_ARGS__)
#define shmem_wait_until_any(...) DMSG_SHMEM_GEN1(DMSG_SHMEM_SEL_P2P, _wait_until_any, __VA_ARGS__)
#define shmem_wait_until_some(...) DMSG_SHMEM_GEN1(DMSG_SHMEM_SEL_P2P, _wait_until_some, __VA_ARGS__)
#define shmem_wait_until_all_vector(...)                                                           \
    DMSG_SHMEM_GEN1(DMSG_SHMEM_SEL_P2P, _wait_until_all_vector, __VA_ARGS__)
#define shmem_wait_until_any_vector(...)                                                           \
    DMSG_SHMEM_GEN1(DMSG_SHMEM_SEL_P2P, _wait_until_any_vector, __VA_ARGS__)
#define shmem_wait_until_some_vector(...)                                                          \
    DMSG_SHMEM_GEN1(DMSG_SHMEM_SEL_P2P, _wait_until_some_vector, __VA_ARGS__)
#define shmem_test(...) DMSG_SHMEM_GEN1(DMSG_SHMEM_SEL_P2P, _test, __VA_ARGS__)
#define shmem_test_all(...) DMSG_SHMEM_GEN1(DMSG_SHMEM_SEL_P2P, _test_all, __VA_ARGS__)
#define shmem_test_any(...) DMSG_SHMEM_GEN1(DMSG_SHMEM_SEL_P2P, _test_any, __VA_ARGS__)
#define shmem_test_some(...) DMSG_SHMEM_GEN1(DMSG_SHMEM_SEL_P2P, _test_some, __VA_ARGS__)
#define shmem_test_all_vector(...) DMSG_SHMEM_GEN1(DMSG_SHMEM_SEL_P2P, _test_all_vector, __VA_ARGS__)
#define shmem_test_any_vector(...) DMSG_SHMEM_GEN1(DMSG_SHMEM_SEL_P2P, _test_any_vector, __VA_ARGS__)
#define shmem_test_some_vector(...)                                                                \
    DMSG_SHMEM_GEN1(DMSG_SHMEM_SEL_P2P, _test_some_vector, __VA_ARGS__)

/* shmem_sync(team) (1.5) or shmem_sync(PE_start, logPE_stride, PE_size, pSync) (1.4). */
#define DMSG_SHMEM_NARG(...) DMSG_SHMEM_NARG_(__VA_ARGS__, 4, 3, 2, 1, 0)
#define DMSG_SHMEM_NARG_(a, b, c, d, n, ...) n
#define DMSG_SHMEM_CAT(a, b) DMSG_SHMEM_CAT_(a, b)
#define DMSG_SHMEM_CAT_(a, b) a##b
#define DMSG_SHMEM_SYNC1(team) shmem_team_sync(team)
#define DMSG_SHMEM_SYNC4(a, b, c, d) (shmem_sync)(a, b, c, d)
#define shmem_sync(...) DMSG_SHMEM_CAT(DMSG_SHMEM_SYNC, DMSG_SHMEM_NARG(__VA_ARGS__))(__VA_ARGS__)

#define shmem_broadcast(...) DMSG_SHMEM_GEN2(DMSG_SHMEM_SEL_RMA, _broadcast, __VA_ARGS__)
#define shmem_collect(...) DMSG_SHMEM_GEN2(DMSG_SHMEM_SEL_RMA, _collect, __VA_ARGS__)
#define shmem_fcollect(...) DMSG_SHMEM_GEN2(DMSG_SHMEM_SEL_RMA, _fcollect, __VA_ARGS__)
#define shmem_alltoall(...) DMSG_SHMEM_GEN2(DMSG_SHMEM_SEL_RMA, _alltoall, __VA_ARGS__)
#define shmem_alltoalls(...) DMSG_SHMEM_GEN2(DMSG_SHMEM_SEL_RMA, _alltoalls, __VA_ARGS__)
#define shmem_and_reduce(...) DMSG_SHMEM_GEN2(DMSG_SHMEM_SEL_RBIT, _and_reduce, __VA_ARGS__)
#define shmem_or_reduce(...) DMSG_SHMEM_GEN2(DMSG_SHMEM_SEL_RBIT, _or_reduce, __VA_ARGS__)
#define shmem_xor_reduce(...) DMSG_SHMEM_GEN2(DMSG_SHMEM_SEL_RBIT, _xor_reduce, __VA_ARGS__)
#define shmem_max_reduce(...) DMSG_SHMEM_GEN2(DMSG_SHMEM_SEL_RCMP, _max_reduce, __VA_ARGS__)
#define shmem_min_reduce(...) DMSG_SHMEM_GEN2(DMSG_SHMEM_SEL_RCMP, _min_reduce, __VA_ARGS__)
#define shmem_sum_reduce(...) DMSG_SHMEM_GEN2(DMSG_SHMEM_SEL_RARI, _sum_reduce, __VA_ARGS__)
#define shmem_prod_reduce(...) DMSG_SHMEM_GEN2(DMSG_SHMEM_SEL_RARI, _prod_reduce, __VA_ARGS__)
#endif /* C11 */

#ifdef __cplusplus
}
#endif
#endif /* DMSG_SHMEM_H */
