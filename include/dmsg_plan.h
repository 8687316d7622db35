/*
 * dmsg_plan.h - distributed arrays and communication plans, the layer a
 * compiler or code generator targets (docs/compiler.md).
 *
 * A distributed array (dmsg_darray) spreads each dimension over one
 * dimension of a processor grid as BLOCK, CYCLIC(k) or not at all, and keeps
 * every PE's part in symmetric memory with the same layout on every PE. A
 * plan (dmsg_plan) is one array assignment B(sections) = A(sections),
 * optionally with permuted dimensions (a transpose): every PE computes, in
 * closed form from the two descriptors, which sections it deposits to which
 * partner and how many deposits it will receive. Executing a plan is one
 * clearance barrier, the deposits in staggered partner order and one await
 * of the precomputed count.
 *
 * Conventions. Global indices start at 0. Dimension 0 is the fastest varying
 * in memory (as in dmsg_layout). Every call returns DMSG_OK or a negative
 * dmsg status; a failed call changes nothing and sends nothing. The calls
 * marked "pure" need no dmsg_init and no communication: a code generator can
 * call them at generation time.
 *
 * SPDX-License-Identifier: BSD-3-Clause (the LICENSE file of dmsg)
 */
#ifndef DMSG_PLAN_H
#define DMSG_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include "dmsg.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------- distributed arrays */

/** How one array dimension is spread over its grid dimension. */
enum dmsg_dist_kind {
    DMSG_DIST_NONE = 0,   /**< not distributed: every owner holds the whole extent */
    DMSG_DIST_BLOCK = 1,  /**< BLOCK: contiguous blocks of ceil(n / P) (or `block`) */
    DMSG_DIST_CYCLIC = 2, /**< CYCLIC(k): blocks of k = `block` (0 means 1) dealt round robin */
};

/**
 * What the caller says about a distributed array. Plain data: fill it, then
 * dmsg_darray_init. The processor grid has grid_ndims dimensions of grid[g]
 * PEs (grid dimension 0 fastest in the rank: rank = c0 + grid[0] * (c1 +
 * grid[1] * ...)); its size may be smaller than the job, and PEs outside it
 * own nothing. Each distributed array dimension d is spread over grid
 * dimension onto[d]; two array dimensions may not share a grid dimension.
 * Grid dimensions that no array dimension uses hold the array at coordinate
 * 0 only (not replicated). halo_lo/halo_hi add ghost elements before and
 * after each PE's part along a dimension, pad adds unused elements at its end
 * (to break cache conflicts); neither is ever written by a plan.
 */
typedef struct dmsg_darray_desc {
    int ndims;                     /**< 1 .. DMSG_MAX_DIMS */
    size_t extent[DMSG_MAX_DIMS];  /**< global extent per dimension (>= 1) */
    size_t elem_size;              /**< bytes per element (>= 1) */
    int grid_ndims;                /**< 1 .. DMSG_MAX_DIMS */
    int grid[DMSG_MAX_DIMS];       /**< PEs along each grid dimension (>= 1) */
    int dist[DMSG_MAX_DIMS];       /**< enum dmsg_dist_kind per array dimension */
    size_t block[DMSG_MAX_DIMS];   /**< CYCLIC: k; BLOCK: 0 or an explicit block >= ceil(n/P) */
    int onto[DMSG_MAX_DIMS];       /**< grid dimension of a distributed dimension */
    size_t halo_lo[DMSG_MAX_DIMS]; /**< ghost elements before each PE's part */
    size_t halo_hi[DMSG_MAX_DIMS]; /**< ghost elements after it */
    size_t pad[DMSG_MAX_DIMS];     /**< extra unused elements per dimension */
} dmsg_darray_desc;

/**
 * A distributed array: the description plus its derived local layout, the
 * same on every PE (each PE's storage is sized for the largest part, so that
 * a sender can compute any receiver's addresses). All fields are read-only
 * for the caller once dmsg_darray_init has filled them.
 */
typedef struct dmsg_darray {
    dmsg_darray_desc desc;
    int procs[DMSG_MAX_DIMS];        /**< PEs along each array dimension (1: not distributed) */
    size_t blk[DMSG_MAX_DIMS];       /**< effective block size per dimension */
    size_t lmax[DMSG_MAX_DIMS];      /**< largest local extent per dimension */
    ptrdiff_t stride[DMSG_MAX_DIMS]; /**< bytes between local neighbours per dimension */
    size_t origin;                   /**< byte offset of local element (0, ..., 0) in the storage */
    size_t bytes;                    /**< storage bytes per PE (halos and padding included) */
    int grid_pes;                    /**< PEs in the grid (product of grid[]) */
    void *base;                      /**< symmetric storage; NULL until alloc or attach */
} dmsg_darray;

/**
 * Pure: checks a description and computes the local layout into *a (base is
 * set to NULL). Errors: DMSG_ERR_NULL, DMSG_ERR_ARG (ndims, grid, a zero
 * extent or element size, an unknown dist, a BLOCK block smaller than
 * ceil(n/P), two dimensions onto one grid dimension, onto out of range),
 * DMSG_ERR_OVERFLOW (the storage size does not fit in size_t).
 */
int dmsg_darray_init(dmsg_darray *a, const dmsg_darray_desc *d);

/**
 * Collective: allocates the array's storage with dmsg_alloc (zeroed on first
 * use; every PE passes the same description). Ends with a barrier, so the
 * array may be a plan's destination on return. Errors, on every PE alike
 * (the lowest ranked PE's error when several fail; a failed call allocates
 * nothing): DMSG_ERR_NULL, DMSG_ERR_ARG (already allocated or attached),
 * DMSG_ERR_PE (the grid is larger than the job), and dmsg_alloc's errors
 * (DMSG_ERR_COLLECTIVE: PEs passed arrays of different sizes).
 */
int dmsg_darray_alloc(dmsg_darray *a);

/**
 * Local: uses `bytes` >= a->bytes of symmetric memory at sym (the same
 * symmetric address on every PE) as the array's storage, e.g. a block the
 * caller allocated for several arrays. Errors: DMSG_ERR_NULL, DMSG_ERR_ARG
 * (already has storage), DMSG_ERR_RANGE (not symmetric or too small).
 */
int dmsg_darray_attach(dmsg_darray *a, void *sym, size_t bytes);

/**
 * Collective: frees storage obtained by dmsg_darray_alloc (dmsg_free, which
 * starts with a barrier) and sets base to NULL. Attached storage is only
 * forgotten (local). Errors: DMSG_ERR_NULL, and dmsg_free's errors.
 */
int dmsg_darray_free(dmsg_darray *a);

/** Pure: the PE (grid rank) that owns global index gidx[0..ndims).
 *  Errors: DMSG_ERR_NULL, DMSG_ERR_RANGE (an index outside the extent). */
int dmsg_darray_owner(const dmsg_darray *a, const size_t *gidx, int *pe);

/**
 * Pure: where global element gidx lives: its owner and the byte offset of it
 * from the owner's storage start (add it to base). Errors: as
 * dmsg_darray_owner.
 */
int dmsg_darray_locate(const dmsg_darray *a, const size_t *gidx, int *pe, size_t *byte_off);

/**
 * Pure: how many elements PE pe owns along each dimension (extent[0..ndims);
 * all zero for a PE outside the grid or off coordinate 0 of an unused grid
 * dimension). Local index i along d is global index dmsg_darray_global
 * gives. Errors: DMSG_ERR_NULL, DMSG_ERR_PE (pe < 0).
 */
int dmsg_darray_local_extent(const dmsg_darray *a, int pe, size_t *extent);

/**
 * Pure: the global index of local index lidx on PE pe (the inverse of
 * dmsg_darray_locate). Errors: DMSG_ERR_NULL, DMSG_ERR_PE, DMSG_ERR_RANGE
 * (lidx beyond what pe owns).
 */
int dmsg_darray_global(const dmsg_darray *a, int pe, const size_t *lidx, size_t *gidx);

/* ------------------------------------------------------------ statements */

/**
 * A regular section, one Fortran triplet lo:hi:step per array dimension
 * (inclusive bounds). step > 0 runs up (empty if hi < lo); step < 0 runs
 * down from lo to hi (empty if lo < hi); step 0 is invalid. A dimension
 * with lo == hi is a single index.
 */
typedef struct dmsg_section {
    size_t lo[DMSG_MAX_DIMS];
    size_t hi[DMSG_MAX_DIMS];
    ptrdiff_t step[DMSG_MAX_DIMS];
} dmsg_section;

/**
 * One array assignment dst(dsec) = src(ssec). perm[d] names the source
 * dimension matched with destination dimension d (their section lengths must
 * agree), or is -1 when destination dimension d is a single index; source
 * dimensions that no perm entry names must be single indices. Identity
 * perm with equal ranks is a copy, shift or section; perm {1, 0} a transpose.
 * The two arrays must not share storage (use a temporary: Fortran semantics
 * read the whole right-hand side first).
 */
typedef struct dmsg_assign {
    const dmsg_darray *dst;
    dmsg_section dsec;
    const dmsg_darray *src;
    dmsg_section ssec;
    int perm[DMSG_MAX_DIMS];
} dmsg_assign;

/** Pure: fills *s with the whole array a (0 : extent-1 : 1 per dimension). */
void dmsg_section_whole(const dmsg_darray *a, dmsg_section *s);

/**
 * Pure: *as = dst(whole) = src(whole) with the identity permutation, the
 * starting point a caller edits. Errors: DMSG_ERR_NULL.
 */
int dmsg_assign_init(dmsg_assign *as, const dmsg_darray *dst, const dmsg_darray *src);

/**
 * Pure: checks an assignment for a job of npes PEs (storage is not needed).
 * Errors: DMSG_ERR_NULL; DMSG_ERR_ARG (step 0, a bad or repeated perm entry,
 * section lengths that do not match, an unmatched dimension with more than
 * one index, different element sizes); DMSG_ERR_RANGE (a section outside
 * its array); DMSG_ERR_PE (a grid larger than npes).
 */
int dmsg_assign_check(const dmsg_assign *as, int npes);

/** One deposit of a plan: a section of src on the sender to a section of
 *  dst on the receiver, offsets in bytes from each array's storage start. */
typedef struct dmsg_piece {
    size_t src_off;
    dmsg_layout src;
    size_t dst_off;
    dmsg_layout dst;
    size_t elems; /**< elements in the section (> 0) */
} dmsg_piece;

/**
 * Pure: the section pairs PE p deposits to PE q for the assignment, in the
 * order a plan sends them; p's elements of src that q owns in dst, mapped
 * through the sections and perm. Writes min(cap, count) pieces to out (out
 * may be NULL when cap is 0) and the count to *n: call once with cap 0 to
 * size the array. Computed per dimension from block boundaries (no
 * enumeration of elements), runs of equal blocks folded into one more
 * dimension. Errors: as dmsg_assign_check, DMSG_ERR_PE (p or q outside
 * [0, npes)), DMSG_ERR_NOMEM.
 */
int dmsg_assign_pieces(const dmsg_assign *as, int npes, int p, int q, dmsg_piece *out, size_t cap,
                       size_t *n);

/* ----------------------------------------------------------------- plans */

/** How a plan moves a partner's data. */
enum dmsg_plan_mech {
    DMSG_PLAN_MODEL = 0,  /**< per partner, as the copy-transfer model predicts is faster */
    DMSG_PLAN_DIRECT = 1, /**< one section deposit per piece, chained (no copies) */
    DMSG_PLAN_PACK = 2,   /**< pack into a buffer, one contiguous deposit, receiver unpacks */
    DMSG_PLAN_MEASURE = 3 /**< time DIRECT and PACK on the first two executions, keep the faster */
};

/**
 * Options of dmsg_plan_create. NULL options take the mechanism of the
 * setting DMSG_PLAN_MECH (default model); a NULL machine takes
 * DMSG_PLAN_MACHINE (default auto: on sim the simulated machine, on shm and
 * ofi this host's description, cached or calibrated; docs/compiler.md 5).
 */
typedef struct dmsg_plan_opts {
    int mech;            /**< enum dmsg_plan_mech */
    const char *machine; /**< machine of the model (built-in name or file); NULL: as above */
} dmsg_plan_opts;

/** Where a plan's model came from (dmsg_plan_info.model_source). */
enum dmsg_plan_model_source {
    DMSG_PLAN_SRC_NONE = 0,      /**< no model (calibration off, nothing cached): direct */
    DMSG_PLAN_SRC_NAMED = 1,     /**< the machine the options or DMSG_PLAN_MACHINE named */
    DMSG_PLAN_SRC_SIM = 2,       /**< the machine the sim transport simulates */
    DMSG_PLAN_SRC_CACHED = 3,    /**< this host's description from the cache */
    DMSG_PLAN_SRC_CALIBRATED = 4 /**< this host, measured by this job's calibration */
};

/**
 * A plan's handle. It outlives the plan: after dmsg_plan_destroy every call
 * given the handle (execute, start, finish, get_info, partner, destroy
 * again) returns DMSG_ERR_HANDLE and touches nothing, on every PE alike (the
 * library keeps one pointer per plan ever created for this). All plans, and
 * the irregular ones, share one deposit counter (created with the first
 * plan, freed with the last), so any number of plans may be alive at once.
 */
typedef struct dmsg_plan dmsg_plan;

/**
 * Collective: builds the plan of an assignment. Every PE passes the same
 * assignment (descriptions, sections, perm, options) and arrays with
 * storage. Each PE computes its own pieces in closed form; on shm and ofi
 * one small exchange gathers the strides the model needs and PE 0 provides
 * the host description (cached, or a calibration of a few milliseconds the
 * first time: docs/compiler.md 5); then one small exchange checks that all
 * PEs agree and tells each receiver which partners pack, and the plan
 * takes its share of the plans' counter (dmsg_ctr_create for the first
 * plan alive) and, if a partner packs, symmetric staging memory. Moves no
 * array data.
 * Errors, on every PE alike (the lowest ranked PE's error when several
 * fail): DMSG_ERR_NULL, DMSG_ERR_ARG, DMSG_ERR_RANGE, DMSG_ERR_PE (as
 * dmsg_assign_check; also arrays without storage or sharing it),
 * DMSG_ERR_COLLECTIVE (PEs passed different assignments), DMSG_ERR_ENV (an
 * unknown machine, a DMSG_PLAN_* setting that is not valid, a cached host
 * description that does not parse), DMSG_ERR_NOMEM, and the errors of
 * dmsg_alloc, dmsg_ctr_create and the exchanges' deposits and barriers.
 */
int dmsg_plan_create(const dmsg_assign *as, const dmsg_plan_opts *opts, dmsg_plan **plan);

/**
 * Collective: runs the plan once: dmsg_plan_start then dmsg_plan_finish.
 * On return this PE's part of dst holds the assignment's result; the next
 * collective barrier makes every PE's part final. Errors: DMSG_ERR_NULL,
 * DMSG_ERR_HANDLE (destroyed), DMSG_ERR_STATE (started and not finished),
 * and the deposit and wait errors.
 */
int dmsg_plan_execute(dmsg_plan *plan);

/**
 * Collective: the first half of an execution: dmsg_sync (clearance: every PE
 * is done reading its part of dst and done writing src), then this PE's
 * deposits in staggered partner order ((me + i) mod npes); where a periodic
 * plan moves by shares on shm (docs/compiler.md, section 3), this PE's share
 * of every pair of PEs instead, read from the sources of other PEs, then a
 * note to every PE. Between start and finish, the caller may compute on
 * anything but the destination section of dst and the source section of
 * src on this PE (other PEs may still read it).
 * Several plans may be started before their finishes.
 * Errors: DMSG_ERR_NULL, DMSG_ERR_HANDLE (destroyed), DMSG_ERR_STATE (already
 * started), sync and deposit errors.
 */
int dmsg_plan_start(dmsg_plan *plan);

/**
 * The second half: awaits the precomputed number of deposits to this PE
 * (with shares: every PE's note), unpacks the packed ones, and returns with
 * this PE's part of dst complete and its source section no longer read by
 * any PE.
 * Where other plans were started and are not finished, it also awaits
 * their deposits to this PE (they share the counter; all of them come), so
 * started plans may be finished in any order. Local (no barrier). Errors:
 * DMSG_ERR_NULL, DMSG_ERR_HANDLE (destroyed), DMSG_ERR_STATE (not
 * started), the wait's errors.
 */
int dmsg_plan_finish(dmsg_plan *plan);

/**
 * Collective: frees the plan (its staging memory, its share of the counter;
 * starts with a barrier). A NULL plan is a collective no-op; a destroyed one
 * gives DMSG_ERR_HANDLE (no communication). Errors: DMSG_ERR_HANDLE, those
 * of dmsg_ctr_destroy and dmsg_free.
 */
int dmsg_plan_destroy(dmsg_plan *plan);

/** What a plan does on this PE. */
typedef struct dmsg_plan_info {
    int mech;                 /**< the requested enum dmsg_plan_mech */
    int partners_send;        /**< partners this PE deposits to (itself included) */
    int partners_packed;      /**< of those, partners that currently pack */
    uint64_t send_msgs;       /**< deposits per execution, as currently chosen (with shares: one note per PE) */
    uint64_t send_bytes;      /**< payload bytes sent per execution */
    uint64_t recv_msgs;       /**< deposits this PE awaits per execution (with shares: one note per PE) */
    uint64_t recv_bytes;      /**< payload bytes it receives */
    uint64_t pieces;          /**< section pairs sent (direct deposits if nothing packs, except that a partner's periodic pieces go as one deposit: send_msgs <= pieces, and shares send one note per PE instead) */
    double model_direct_mbs;  /**< model: throughput of this PE's sends, direct (0: no model) */
    double model_pack_mbs;    /**< the same, packed (a partner that cannot pack, such as this PE itself, at its direct rate) */
    double measured_direct_s; /**< MEASURE: slowest PE's time of the direct execution (0 before) */
    double measured_pack_s;   /**< the same, packed */
    double measured_direct_mbs; /**< MEASURE: send_bytes over measured_direct_s (0 before) */
    double measured_pack_mbs;   /**< the same, packed */
    uint64_t executions;        /**< completed executions */
    char machine[32];           /**< the model's machine name ("" without one) */
    int model_source;           /**< enum dmsg_plan_model_source */
    int model_packed;           /**< partners the model would pack (whatever mech says) */
    double calibration_s;       /**< seconds PE 0 measured for this plan (0: nothing measured) */
} dmsg_plan_info;

/** Local: fills *info. Errors: DMSG_ERR_NULL, DMSG_ERR_HANDLE (destroyed). */
int dmsg_plan_get_info(const dmsg_plan *plan, dmsg_plan_info *info);

/** One partner of a plan, as dmsg_plan_partner reports it. */
typedef struct dmsg_plan_partner_info {
    int pe;                  /**< the partner */
    int packed;              /**< 1 if this PE currently packs for it */
    uint64_t pieces;         /**< section pairs */
    uint64_t bytes;          /**< payload bytes */
    double model_direct_mbs; /**< model prediction, direct (0: none) */
    double model_pack_mbs;   /**< model prediction, packed */
} dmsg_plan_partner_info;

/**
 * Local: the i-th partner this PE sends to, in sending order (staggered),
 * i in [0, partners_send). Errors: DMSG_ERR_NULL, DMSG_ERR_HANDLE (destroyed),
 * DMSG_ERR_ARG (i out of range).
 */
int dmsg_plan_partner(const dmsg_plan *plan, int i, dmsg_plan_partner_info *info);

/* -------------------------------------------------------- irregular plans */

/** How an irregular plan moves its elements. In a gather the owners of the
 *  array's elements hold the values; in a scatter the PEs that name them do. */
enum dmsg_iplan_mech {
    DMSG_IPLAN_INDEXED = 0, /**< the holders gather the values, one indexed deposit per partner */
    DMSG_IPLAN_ADP = 1,     /**< the holders send address-data records (4, 8, 16-byte elements) */
    DMSG_IPLAN_FETCH = 2,   /**< the others fetch by index, every partner's fetch in flight */
    DMSG_IPLAN_MODEL = 3    /**< scatter only: INDEXED or FETCH, as the model predicts faster */
};

/** An irregular plan's handle: it outlives the plan as dmsg_plan's does
 *  (DMSG_ERR_HANDLE after dmsg_iplan_destroy). */
typedef struct dmsg_iplan dmsg_iplan;

/**
 * Collective: the inspector of the gather dst[i] = src(idx[i]), i < n, for
 * index lists known only at run time (ghost exchanges, A = B(idx)). idx[i]
 * are linear global indices of src (dimension 0 fastest); dst is n elements
 * of symmetric memory at the same symmetric address on every PE (n may
 * differ between PEs; the deposits write there; a PE with n = 0 may pass
 * NULL for idx and dst). Groups the indices by
 * owner; for the deposit mechanisms each PE then sends every owner the list
 * of what it must deposit where (one exchange). src must have storage.
 * Errors, on every PE alike: DMSG_ERR_NULL, DMSG_ERR_ARG (mechanism; ADP with
 * another element size; src without storage), DMSG_ERR_RANGE (an index
 * outside src; dst not symmetric for n elements), DMSG_ERR_PE (src's grid
 * larger than the job), DMSG_ERR_NOMEM, and those of dmsg_alloc and
 * dmsg_ctr_create.
 */
int dmsg_iplan_create(const dmsg_darray *src, const size_t *idx, size_t n, void *dst, int mech,
                      dmsg_iplan **plan);

/**
 * Collective: the inspector of the scatter dst(idx[i]) = src[i], i < n: each
 * PE writes its n elements of src (n may differ between PEs) to the linear
 * global indices idx[i] of the distributed array dst (dimension 0 fastest).
 * A PE with n = 0 may pass NULL for idx and src.
 * Repeated indices: within one PE's list the last one (the largest i) wins;
 * an element several PEs name receives the whole value of the highest
 * ranked of them, with every mechanism and element size (the inspector
 * resolves this once, in two more small exchanges where some element may
 * be named by several PEs, so no two deposits write one element).
 * Mechanisms: DMSG_IPLAN_INDEXED and DMSG_IPLAN_ADP deposit from the
 * holders into the owners (src may be any memory; no list exchange: every
 * holder computes the owners' addresses); DMSG_IPLAN_FETCH has every owner
 * fetch from the holders (src must be n elements of symmetric memory at
 * the same address on every PE; the lists are handed to the owners in one
 * exchange); DMSG_IPLAN_MODEL fetches where every PE's src is symmetric and
 * the copy-transfer model of the machine (on sim the simulated one, else
 * the setting DMSG_PLAN_MACHINE; without one: deposits) predicts the
 * slowest PE finishes sooner, else deposits; every PE decides alike from
 * the exchanged counts. src is read by every execution (it may change
 * between them). Errors, on every PE alike: DMSG_ERR_NULL, DMSG_ERR_ARG
 * (mechanism; ADP with another element size; dst without storage),
 * DMSG_ERR_RANGE (an index outside dst; src not symmetric for FETCH),
 * DMSG_ERR_PE (dst's grid larger than the job), DMSG_ERR_ENV (a bad
 * DMSG_PLAN_MACHINE for MODEL), DMSG_ERR_NOMEM, and those of dmsg_alloc
 * and dmsg_ctr_create.
 */
int dmsg_iplan_create_scatter(dmsg_darray *dst, const size_t *idx, size_t n, const void *src,
                              int mech, dmsg_iplan **plan);

/**
 * Collective: runs the gather or scatter once: dmsg_sync (clearance: the
 * targets are free everywhere, the values final), then the holders'
 * deposits and an await of one deposit per partner that sends here
 * (deposit mechanisms), or the fetches, the local placement and a closing
 * dmsg_sync (fetch: the holders may change the values only after every PE
 * has fetched). On return this PE's targets hold their elements (a
 * gather's dst, its part of a scatter's array) and its values may change.
 * Errors: DMSG_ERR_NULL, DMSG_ERR_HANDLE (destroyed), and the transfers'
 * and waits' errors.
 */
int dmsg_iplan_execute(dmsg_iplan *plan);

/** Collective: frees the plan (a barrier). NULL is a collective no-op; a
 *  destroyed plan gives DMSG_ERR_HANDLE (no communication). */
int dmsg_iplan_destroy(dmsg_iplan *plan);

/** What an irregular plan does on this PE. */
typedef struct dmsg_iplan_info {
    int mech;               /**< enum dmsg_iplan_mech, as requested */
    int partners;           /**< partners this PE deposits to, or fetches from */
    uint64_t elements;      /**< elements this PE deposits or fetches per execution */
    uint64_t recv_msgs;     /**< deposits awaited per execution (0 for fetch) */
    uint64_t executions;    /**< completed executions */
    int fetches;            /**< 1 if the executor fetches (FETCH, or MODEL's choice) */
    double model_deposit_s; /**< MODEL: predicted seconds of the slowest PE, depositing (0: none) */
    double model_fetch_s;   /**< MODEL: the same, fetching */
} dmsg_iplan_info;

/** Local: fills *info. Errors: DMSG_ERR_NULL, DMSG_ERR_HANDLE (destroyed). */
int dmsg_iplan_get_info(const dmsg_iplan *plan, dmsg_iplan_info *info);

#ifdef __cplusplus
}
#endif
#endif /* DMSG_PLAN_H */
