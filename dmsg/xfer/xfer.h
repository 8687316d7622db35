/* The copy engine: moves element patterns between two directly addressable
 * buffers (local memory, or another PE's segment mapped into this process).
 * It validates shapes and computes extents (so the core can check them against
 * the segment before anything is written), normalizes n-D sections (folds
 * dimensions that are contiguous together, drops unit counts), orders loops and
 * tiles strided 2-D copies for the cache, and implements indexed and
 * address-data-pair copies. It knows nothing about PEs or transports. */
#ifndef DMSG_XFER_H
#define DMSG_XFER_H

#include <stddef.h>
#include <stdint.h>
#include "dmsg.h"
#include "dmsg/base/status.h"

/* Byte extent touched by a layout, relative to its base address: every byte
 * touched lies in [lo, hi). For an empty layout (some count == 0) lo == hi == 0. */
typedef struct dmsg_extent {
    ptrdiff_t lo;
    ptrdiff_t hi;
} dmsg_extent;

/* Checks one side of a section: 1 <= ndims <= DMSG_MAX_DIMS, elem_size > 0,
 * no overflow of element count or byte extent. On success sets *nelems (total
 * elements) and *ext. Errors: DMSG_ERR_ARG, DMSG_ERR_OVERFLOW, DMSG_ERR_NULL. */
dmsg_status dmsg_layout_check(const dmsg_layout *l, size_t elem_size, size_t *nelems,
                              dmsg_extent *ext);

/* Returns DMSG_OK if no two elements of the layout overlap in memory (needed on
 * a destination), DMSG_ERR_ARG otherwise. Checks after normalization: sorted by
 * |stride|, each |stride| must be >= the extent spanned by the inner dimensions. */
dmsg_status dmsg_layout_check_disjoint(const dmsg_layout *l, size_t elem_size);

/* Normalized two-sided section: both sides have the same counts per dimension.
 * Produced by dmsg_sect_normalize from two layouts of the same shape; after
 * normalization, unit-count dimensions are gone, dimensions that are contiguous
 * on both sides are folded into a larger element (elem grows), and nd may be 0
 * (a single block of elem bytes). */
typedef struct dmsg_sect {
    int nd;
    size_t elem;
    size_t count[DMSG_MAX_DIMS];
    ptrdiff_t sstride[DMSG_MAX_DIMS];
    ptrdiff_t dstride[DMSG_MAX_DIMS];
} dmsg_sect;

/* Builds a normalized section when both layouts have the same shape after
 * dropping unit counts; returns 1 then, 0 when the shapes differ (then the
 * generic element walker must be used). Total elements must be > 0. */
int dmsg_sect_normalize(dmsg_sect *out, const dmsg_layout *dl, const dmsg_layout *sl,
                        size_t elem_size);

/* How a transposing section copy is blocked for one class of (folded)
 * element sizes: the tile's working set per side, and whether the tile is
 * copied in line blocks (a square of one 64-byte cache line of elements per
 * side) or row by row. Chosen per host by a calibration (copy_tune.c);
 * zeros mean the built-in choice (dmsg_xfer_tile_auto; line blocks for
 * 4-byte elements and for 8-byte ones on small planes). */
typedef struct dmsg_xfer_choice {
    uint32_t tile_bytes; /* 0 = built-in */
    uint8_t blocks;      /* DMSG_XFER_BLOCKS_* */
} dmsg_xfer_choice;

enum { DMSG_XFER_BLOCKS_AUTO, DMSG_XFER_BLOCKS_ON, DMSG_XFER_BLOCKS_OFF };

/* Element classes of the tuning table: below 8 bytes, 8-15, 16 and more
 * (calibrated at 4, 8 and 16 bytes). */
enum { DMSG_XFER_CLASSES = 3 };
int dmsg_xfer_class(size_t elem);

/* Plane sizes of the tuning table: a transposed plane of at most
 * DMSG_XFER_SMALL_PLANE bytes per side (calibrated at 2-8 MiB) or a larger
 * one (calibrated at 16-32 MiB). The best blocking differs between them:
 * on the Intel Xeon host of docs/performance.md line blocks made 8-byte
 * transposes 1.5x faster at 1024 x 512 and 1.2-1.35x slower from 2048 x
 * 1024 on. The table is for plain stores: planes that are streamed
 * (dmsg_xfer_streams) use their own blocking (copy_sect.c). */
enum { DMSG_XFER_SIZES = 2 };
#define DMSG_XFER_SMALL_PLANE ((size_t)12 << 20)
int dmsg_xfer_size_class(size_t plane_bytes);

/* Streaming (non-temporal) stores for transposed planes of one element
 * class: AUTO = the built-in rule (8-byte planes from
 * DMSG_XFER_STREAM_FROM_8, 16-byte ones from DMSG_XFER_STREAM_FROM_16 bytes
 * per side; never below 8 bytes, which have no streaming kernel), ON = from
 * `from` bytes per side, OFF = never. Streamed planes use 16 x 16 element
 * tiles (unless DMSG_TILE_BYTES is set) and, for 8-byte elements, the
 * register blocks of copy_regblk.c; only planes whose destination rows all
 * start on a cache line are streamed. A host profile chooses per class
 * (dmsg-ctm tune). */
enum { DMSG_XFER_STREAM_AUTO, DMSG_XFER_STREAM_ON, DMSG_XFER_STREAM_OFF };
typedef struct dmsg_xfer_stream {
    uint8_t mode;  /* DMSG_XFER_STREAM_* */
    uint64_t from; /* mode ON: plane bytes per side from which planes are streamed */
} dmsg_xfer_stream;
/* Plane sizes the calibration tries streaming at (copy_tune.c): plane k
 * of class c has dmsg_xfer_stream_plane(c, k) bytes per side (n/2 x n
 * half-matrices, n = 256, 512, 1024, 2048). */
enum { DMSG_XFER_STREAM_SIZES = 4 };
size_t dmsg_xfer_stream_plane(int c, int k);
/* 8-byte: see copy_sect.c's notes on streaming. 16-byte: planes of 4 MiB
 * per side ran 1.15-1.45x faster streamed (1024 x 512 and 2048 x 512, best
 * of 11-21, the Intel Xeon host of docs/performance.md); 1 MiB planes won
 * four of five tries, by less. */
#define DMSG_XFER_STREAM_FROM_8 ((uint64_t)1 << 20)
#define DMSG_XFER_STREAM_FROM_16 ((uint64_t)4 << 20)

/* Which kernel streamed line blocks of 8-byte elements use: AUTO = the
 * best this CPU has (AVX2 4x4 register blocks, else SSE2 2x2); the others
 * ask for one (a CPU without it gets the best it has), for tests and
 * measurements. */
enum { DMSG_XFER_KERNEL_AUTO, DMSG_XFER_KERNEL_SSE2, DMSG_XFER_KERNEL_AVX2 };

/* The kernel AUTO gives on this CPU (AUTO itself where there is no
 * streaming kernel: not x86-64), and a name for dmsg-info. */
int dmsg_xfer_regblk_best(void);
const char *dmsg_xfer_kernel_name(int kernel);

/* Tunables of the engine (from the environment table and the host profile). */
typedef struct dmsg_xfer_params {
    size_t tile_bytes; /* bytes of one side of a square tile working set; 0 = automatic */
    dmsg_xfer_choice tune[DMSG_XFER_CLASSES][DMSG_XFER_SIZES]; /* where tile_bytes is 0 */
    dmsg_xfer_stream stream[DMSG_XFER_CLASSES];
    uint8_t kernel; /* DMSG_XFER_KERNEL_* */
} dmsg_xfer_params;

/* Whether a transposed plane of plane_bytes per side of elem-byte elements
 * is streamed under these parameters (rows on a line assumed). */
int dmsg_xfer_streams(const dmsg_xfer_params *p, size_t elem, size_t plane_bytes);

/* ------------------------------------------------- host tuning (copy_tune.c) */

/* This host's identity for a profile: the CPU model and its cache sizes, as
 * one line ("Intel(R) Xeon(R) ... | L1d 48K L2 2048K L3 307200K"). A profile
 * measured on another kind of host does not apply here. */
void dmsg_xfer_host_key(char *buf, size_t len);

/* A host profile: the key it was measured under and the tuning table. */
typedef struct dmsg_xfer_profile {
    char key[256];
    dmsg_xfer_choice tune[DMSG_XFER_CLASSES][DMSG_XFER_SIZES];
    double mbs[DMSG_XFER_CLASSES][DMSG_XFER_SIZES];         /* the choice's median MB/s */
    double default_mbs[DMSG_XFER_CLASSES][DMSG_XFER_SIZES]; /* the built-in one's */
    /* Streaming stores per class (AUTO: the profile has no line for the
     * class, an older profile), and the calibration's figures behind the
     * choice: MB/s streamed and not at each of DMSG_XFER_STREAM_SIZES plane
     * sizes (zeros when not measured). */
    dmsg_xfer_stream stream[DMSG_XFER_CLASSES];
    double stream_mbs[DMSG_XFER_CLASSES][DMSG_XFER_STREAM_SIZES];
    double plain_mbs[DMSG_XFER_CLASSES][DMSG_XFER_STREAM_SIZES];
} dmsg_xfer_profile;

/* Times every candidate (tile working sets 2K..256K per side, line blocks
 * on and off) and the built-in choice on a transpose of an n/2 x n
 * half-matrix of 4-, 8- and 16-byte elements, for each plane size (small:
 * n = 1024; large: n = 2048, 4096 for 4-byte elements), the candidates
 * taking turns in each of 5 rounds (quick: 3), and fills, per class and
 * size, the candidate of the smallest median time if that is at least 10%
 * below the built-in choice's (else the built-in one stays: tile 0).
 * Times are the thread's CPU time, so a busy host's scheduling does not
 * decide; each sample is a candidate's second copy in a row. Then, for 8-
 * and 16-byte elements (where x86-64 has streaming kernels), streaming
 * stores against plain ones at the DMSG_XFER_STREAM_SIZES plane sizes, two
 * threads at once each copying a plane and then reading the other's (as
 * the two PEs of a transpose step and their receivers):
 * p->stream[c] on from the size where streaming starts winning for good
 * (by 5% there), else off; the MB/s of both in stream_mbs / plain_mbs.
 * Starts one thread for the streaming step (none else; if it cannot, that
 * step runs in the caller's thread alone); allocates 4 x 32 MiB. Not
 * thread-safe with itself. Errors: DMSG_ERR_NOMEM. */
dmsg_status dmsg_xfer_calibrate(dmsg_xfer_profile *p, int quick);

/* Writes/reads a profile as text ("key = ...", one "elem E plane
 * small|large tile T blocks B" line per class and size, and at most one
 * "elem E stream on from BYTES" or "elem E stream off" line for E = 8 and
 * 16; a class without one keeps the built-in rule). Write errors: DMSG_ERR_ARG (the file
 * cannot be written). Read errors: DMSG_ERR_ARG when the file cannot be opened or is not a profile,
 * with the reason as the detail (dmsg_last_error); *p is then unchanged. The caller compares the
 * key with dmsg_xfer_host_key's. */
dmsg_status dmsg_xfer_profile_write(const char *path, const dmsg_xfer_profile *p);
dmsg_status dmsg_xfer_profile_read(const char *path, dmsg_xfer_profile *p);

/* Where the library looks for this host's profile: $DMSG_HOST_PROFILE if
 * set, else $XDG_CACHE_HOME/dmsg/host.profile, else
 * $HOME/.cache/dmsg/host.profile. Returns 0 when no path can be formed. */
int dmsg_xfer_profile_path(char *buf, size_t len);

/* Fills the tuning table of *xp from the host profile when one exists and
 * its key is this host's; leaves the built-in choices otherwise. Writes
 * what it did into why (one line, for dmsg-info and DMSG_DEBUG). Returns 1
 * when a profile was applied. */
int dmsg_xfer_params_tune(dmsg_xfer_params *xp, char *why, size_t whylen);

/* The tile used when params is NULL or its tile_bytes is 0: chosen by the
 * element size of the folded section (measured: see the notes at the top of
 * dmsg/xfer/copy_sect.c): DMSG_XFER_TILE_SMALL_ELEM for elements below 16
 * bytes, DMSG_XFER_TILE_WIDE_ELEM from 16 bytes on. */
#define DMSG_XFER_TILE_SMALL_ELEM ((size_t)64 * 1024)
#define DMSG_XFER_TILE_WIDE_ELEM ((size_t)4 * 1024)
size_t dmsg_xfer_tile_auto(size_t elem);

/* Copies a validated section (shapes may differ; totals are equal and > 0). */
void dmsg_copy_section(char *dst, const dmsg_layout *dl, const char *src, const dmsg_layout *sl,
                       size_t elem_size, const dmsg_xfer_params *p);

/* Copies a normalized section (fast path used by dmsg_copy_section). */
void dmsg_copy_sect(char *dst, const char *src, const dmsg_sect *s, const dmsg_xfer_params *p);

/* Largest index in idx[0..n) (0 when n == 0), for extent checks. */
size_t dmsg_index_max(const size_t *idx, size_t n);

/* dst_base[idx[i]] = src[i] (elements of elem bytes), i in [0,n). */
void dmsg_copy_scatter(char *dst_base, const size_t *idx, const char *src, size_t n, size_t elem);

/* dst[i] = src_base[idx[i]], i in [0,n). */
void dmsg_copy_gather(char *dst, const char *src_base, const size_t *idx, size_t n, size_t elem);

/* Checks n address-data records (dmsg_adp4/8/16 as elem is 4/8/16): every
 * offset is a multiple of elem and off + elem <= limit. Errors: DMSG_ERR_ARG
 * (elem not 4/8/16), DMSG_ERR_ALIGN, DMSG_ERR_RANGE. */
dmsg_status dmsg_adp_check(const void *recs, size_t n, size_t elem, size_t limit);

/* Applies n checked records: stores each value at dst_base + off, in order. */
void dmsg_copy_adp(char *dst_base, const void *recs, size_t n, size_t elem);

/* A section of sections (a periodic pattern, as a plan folds CYCLIC(a) ->
 * CYCLIC(b)): one period's list of runs, each contiguous at both ends, and
 * the whole list repeated per period at a fixed byte stride on each side.
 * Run k takes part in periods 0 .. reps-1 (a pattern cut at the section's
 * end leaves some runs one period short). Copied period by period, runs in
 * list order, so a list sorted by source offset reads the source once, in
 * order, however many runs a period holds. One side may instead be a dense
 * stream (the runs' bytes back to back in (period, run) order: a packing
 * buffer); its offsets and stride are then unused. */
typedef struct dmsg_prun {
    ptrdiff_t soff, doff; /* bytes from the source and destination bases, period 0 */
    size_t bytes;         /* > 0 */
    size_t reps;          /* periods, >= 1 */
} dmsg_prun;

enum { DMSG_PER_NO_STREAM, DMSG_PER_SRC_STREAM, DMSG_PER_DST_STREAM };

typedef struct dmsg_periodic {
    const dmsg_prun *run;
    size_t nruns;
    ptrdiff_t sstride, dstride; /* bytes between periods */
    int stream;                 /* DMSG_PER_*: which side, if any, is a stream */
    /* Derived by dmsg_periodic_check: */
    size_t periods;  /* largest reps */
    size_t full;     /* smallest reps: periods in which every run takes part */
    uint64_t bytes;  /* payload */
    uint64_t pieces; /* runs moved: sum of reps */
} dmsg_periodic;

/* Checks a periodic pattern (runs not NULL when nruns > 0, bytes and reps
 * >= 1, no overflow) and fills its derived fields and the byte extents of
 * both sides relative to their bases (a stream: [0, bytes)). Does not check
 * that destination bytes are distinct: its builder (the plan layer) makes
 * them from disjoint pieces. Errors: DMSG_ERR_NULL, DMSG_ERR_ARG,
 * DMSG_ERR_OVERFLOW. */
dmsg_status dmsg_periodic_check(dmsg_periodic *p, dmsg_extent *sext, dmsg_extent *dext);

/* Copies a checked periodic pattern from src to dst (the bases). */
void dmsg_copy_periodic(char *dst, const char *src, const dmsg_periodic *p);

/* Several checked periodic patterns without a stream side (a plan's
 * shares: one per pair of PEs), copied together: their periods are walked
 * in step, u at a time, every member's moves of those u periods in turn,
 * u chosen so that u periods of all members span about budget bytes at
 * both ends. Where the members' runs interleave in the same cache lines
 * (CYCLIC(a) -> CYCLIC(b): the runs of all pairs fill each line of every
 * source and destination), each line is then fetched once for all of them
 * instead of once per member. dmsg_periodic_set_build copies the members'
 * runs and builds their move tables; *out is NULL (nothing built, not an
 * error) where the tables do not apply: a stream side, a run shorter than
 * 4 or longer than 128 bytes, a period of too many moves, offsets past the
 * tables' 32 bits. Errors: DMSG_ERR_NOMEM. dmsg_copy_periodic_set copies
 * member i from src[i] to dst[i] (the bases, as dmsg_copy_periodic's) and
 * writes the same bytes as dmsg_copy_periodic of each member. */
typedef struct dmsg_periodic_set dmsg_periodic_set;
dmsg_status dmsg_periodic_set_build(const dmsg_periodic *p, size_t n, size_t budget,
                                    dmsg_periodic_set **out);
void dmsg_copy_periodic_set(const dmsg_periodic_set *set, char *const *dst,
                            const char *const *src);
void dmsg_periodic_set_free(dmsg_periodic_set *set);

/* One side's access pattern for a cost model: the mean run in bytes and the
 * mean distance between the starts of successive runs in one period (equal
 * to the run: contiguous). side 0: source, 1: destination. */
void dmsg_periodic_pattern(const dmsg_periodic *p, int side, size_t *run, ptrdiff_t *spacing);

#endif
