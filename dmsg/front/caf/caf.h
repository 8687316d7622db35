/*
 * caf.h - internals of libcaf_dmsg, gfortran's coarray runtime (-fcoarray=lib)
 * on the public dmsg API. docs/coarrays.md maps every construct onto dmsg.
 *
 * The declarations of the _gfortran_caf_* interface below are written from
 * the calls gfortran 12 emits (-fdump-tree-original of probe programs) and
 * the documented layout of its array descriptor; nothing here includes a
 * gcc header. Everything that is not a _gfortran_caf_* entry point is
 * static or carries the dmsg_caf_ prefix.
 *
 * SPDX-License-Identifier: BSD-3-Clause (the LICENSE file of dmsg)
 */
#ifndef DMSG_FRONT_CAF_H
#define DMSG_FRONT_CAF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dmsg.h>

/* gfortran allows up to 15 dimensions (coranks included). */
#define CAF_MAX_DIMS 15

/* gfortran's basic types, as in the descriptor's dtype.type. */
enum { CAF_BT_INTEGER = 1, CAF_BT_LOGICAL, CAF_BT_REAL, CAF_BT_COMPLEX, CAF_BT_DERIVED,
       CAF_BT_CHARACTER };

/* The array descriptor of gfortran 8 and later. */
typedef struct caf_dim {
    ptrdiff_t stride; /* in elements of span bytes */
    ptrdiff_t lbound;
    ptrdiff_t ubound;
} caf_dim;

typedef struct caf_dtype {
    size_t elem_len;
    int version;
    signed char rank;
    signed char type;
    signed short attribute;
} caf_dtype;

typedef struct caf_desc {
    void *base;
    size_t offset;
    caf_dtype dtype;
    ptrdiff_t span;
    caf_dim dim[CAF_MAX_DIMS];
} caf_desc;

/* One subscript of a coindexed reference with a vector subscript. */
typedef struct caf_vec {
    size_t nvec; /* 0: the triplet is used */
    union {
        struct {
            void *vector;
            int kind;
        } v;
        struct {
            ptrdiff_t lower, upper, stride;
        } t;
    } u;
} caf_vec;

/* What gfortran registers (its caf_register_t, in order). */
enum { CAF_REG_STATIC, CAF_REG_ALLOC, CAF_REG_LOCK_STATIC, CAF_REG_LOCK_ALLOC, CAF_REG_CRITICAL,
       CAF_REG_EVENT_STATIC, CAF_REG_EVENT_ALLOC, CAF_REG_ALLOC_REGISTER_ONLY,
       CAF_REG_ALLOC_ALLOCATE_ONLY };

/* Fortran's STAT values (ISO_FORTRAN_ENV as gfortran defines them). */
enum { CAF_STAT_UNLOCKED = 0, CAF_STAT_LOCKED = 1, CAF_STAT_LOCKED_OTHER_IMAGE = 2,
       CAF_STAT_DUP_SYNC_IMAGES = 3, /* OpenCoarrays' value (its libcaf.h) */
       CAF_STAT_STOPPED_IMAGE = 6000, CAF_STAT_FAILED_IMAGE = 6001 };

/* A coarray's token: where its data lives in the symmetric heap. */
typedef struct dmsg_caf_token {
    char *mem;    /* symmetric address (same offset on every image); an
                   * allocatable component's lies in this image's own part
                   * of the component heap (caf_heap.c), at an offset the
                   * other images learn from its descriptor */
    size_t bytes; /* bytes allocated */
    /* an allocatable coarray's descriptor as registered (gfortran keeps it
     * while the coarray is allocated): the bounds of a _by_ref reference
     * that starts with an array ref of the coarray itself */
    const caf_desc *desc;
    /* a component's token (REGISTER_ONLY): where gfortran keeps it, and
     * its place in caf_reg.c's list, so that DEALLOCATE of the coarray
     * frees the tokens of components that were never allocated (gfortran
     * deregisters only the allocated ones) */
    void **home;
    struct dmsg_caf_token *lprev, *lnext;
    int listed;
} dmsg_caf_token;

/* A team as gfortran's team_type variable holds it. */
typedef struct dmsg_caf_team {
    dmsg_team team;
    int number;                   /* TEAM_NUMBER of FORM TEAM; -1 for the initial team */
    struct dmsg_caf_team *parent; /* set while the team is active (CHANGE TEAM) */
    struct dmsg_caf_team *formed; /* the team formed before this one (freed at the end) */
    uint64_t big_uses;            /* reductions through dmsg_caf_big in this team (caf_coll.c) */
} dmsg_caf_team;

/* State of this image (caf_init.c). */
extern dmsg_caf_team *dmsg_caf_cur;   /* the current team */
/* symmetric: per image, 0 running, else the image stopped (STOP or the end
 * of the program) and this is the number of the first world barrier it
 * entered stopped (dmsg_caf_barriers + 1 then); word [npes] counts the
 * stopped images; word [npes + 1] is this image's bell: EVENT POST to this
 * image and every image that stops add 1 to it, so an EVENT WAIT sleeps on
 * it and wakes for either (DMSG_CAF_BELL) */
extern uint64_t *dmsg_caf_status;
#define DMSG_CAF_BELL (dmsg_caf_status + dmsg_npes() + 1)
/* word [npes + 2] of image 1: the job's seed, 0 until image 1 has drawn it */
#define DMSG_CAF_JOB_SEED (dmsg_caf_status + dmsg_npes() + 2)
/* word [npes + 3]: where dmsg_caf_status lies in this image's process, so
 * that another image can turn a pointer it read here (an allocatable
 * component's address) into its own symmetric address (caf_ref.c) */
#define DMSG_CAF_ANCHOR (dmsg_caf_status + dmsg_npes() + 3)
#define DMSG_CAF_STATUS_WORDS(n) ((size_t)(n) + 4)
extern uint64_t *dmsg_caf_sync_cnt;   /* symmetric: SYNC IMAGES arrivals, one per image */
extern uint64_t *dmsg_caf_sync_seen;  /* local: SYNC IMAGES waits done, one per image */
/* The same pair for the gate in front of every collective (dmsg_caf_gate):
 * symmetric arrivals, and local waits done, one word per image each. */
extern uint64_t *dmsg_caf_gate_cnt;
extern uint64_t *dmsg_caf_gate_seen;
/* World barriers (dmsg_sync) this image has passed. Every image passes the
 * same ones in the same order, so at a matched barrier the counts agree:
 * a stopped image's status word names the barrier from which on it only
 * waits for the others to stop, and SYNC ALL tells who had stopped. */
extern uint64_t dmsg_caf_barriers;
/* Added to a stopping image's SYNC IMAGES word on every image, so that a
 * wait for it ends; the count stays in the bits below. */
#define DMSG_CAF_STOP_WAKE (UINT64_C(1) << 62)

/* dmsg_sync, counted in dmsg_caf_barriers. */
int dmsg_caf_world_sync(void);
/* The lowest image (1-based, world) whose status word says it had stopped
 * by world barrier `epoch`, or 0. */
int dmsg_caf_stopped_by(uint64_t epoch);
/* Whether the image on job PE `pe` has stopped. */
int dmsg_caf_has_stopped(int pe);
/* How many images of the job have stopped. */
int dmsg_caf_nstopped(void);
/* A number image 1 drew at start-up, the same on every image (RANDOM_INIT). */
uint64_t dmsg_caf_job_seed(void);

/* The gate in front of a collective of `team` (caf_sync.c): every member
 * tells every other one that it has arrived, then waits until each has
 * arrived or has stopped. A stopped image never arrives at a collective (it
 * only takes part in world barriers, caf_init.c), so a collective that
 * follows a gate through which every member came cannot wait for one. With
 * quiet, this image's accesses complete first (the gate is then a barrier).
 * Returns 0 when every member came; else reports through dmsg_caf_fail
 * (STAT_STOPPED_IMAGE naming the lowest stopped image in the team, or 1 for
 * a dmsg error; without stat the job ends) and returns -1. Every member
 * gets the same answer: each waits for the same arrivals. */
int dmsg_caf_gate(dmsg_team team, int quiet, const char *what, int *stat, char *errmsg,
                  size_t errmsg_len);
/* The gate carrying up to DMSG_CAF_SLOT bytes from every member to every
 * other one (dmsg_deposit_signal: the data lands with the arrival). After a
 * gate that returned 0, dmsg_caf_gate_slot(pe) is where member pe's bytes
 * are (this image's own are where `data` was). Two slots per pair
 * alternate: a member can be one gate ahead of another, not two, since
 * the next gate waits for the slower one. */
#define DMSG_CAF_SLOT 256
int dmsg_caf_gate_data(dmsg_team team, const void *data, size_t bytes, const char *what, int *stat,
                       char *errmsg, size_t errmsg_len);
const void *dmsg_caf_gate_slot(int pe);
extern char *dmsg_caf_slots; /* symmetric: 2 x npes slots of DMSG_CAF_SLOT bytes */
/* A reduction of more than DMSG_CAF_SLOT and at most DMSG_CAF_BIG bytes
 * (caf_coll.c): each member copies its values into one of its two
 * symmetric buffers (dmsg_caf_big, then DMSG_CAF_BIG bytes further; they
 * alternate by the team's big_uses), passes a gate, and the others read
 * them from there; each reader adds 1 to the owner's dmsg_caf_big_acks[buffer]
 * (symmetric) when it has read, and the owner waits for every reader of
 * the buffer's previous use (dmsg_caf_big_want[buffer], local) before it
 * writes the buffer again. */
#define DMSG_CAF_BIG ((size_t)64 << 10)
extern char *dmsg_caf_big;
extern uint64_t *dmsg_caf_big_acks;
extern uint64_t dmsg_caf_big_want[2];
/* Set when a coarray ALLOCATE reported STAT_STOPPED_IMAGE: gfortran follows
 * every coarray ALLOCATE with a SYNC ALL without STAT= (even a failed one),
 * which must not turn the reported stopped image into an error termination. */
extern int dmsg_caf_alloc_stopped;

/* Starts the job (once; later calls return at once). */
void _gfortran_caf_init(int *argc, char ***argv);

/* The job PE of image number `image` (1-based) of the current team, or -1. */
int dmsg_caf_pe(int image);
/* Reports a failing dmsg call: sets *stat (and errmsg) when given, else ends the job. */
void dmsg_caf_fail(int *stat, char *errmsg, size_t errmsg_len, int code, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* The end of a collective step: reports STAT_STOPPED_IMAGE naming image
 * `gone` (1-based, 0: none stopped), else a failing dmsg status rc, through
 * dmsg_caf_fail; returns -1 when it reported, else 0 (nothing touched). */
int dmsg_caf_step_end(int *stat, char *errmsg, size_t errmsg_len, const char *what, int rc,
                      int gone);
/* Ends the job at once with a message naming the unsupported construct. */
void dmsg_caf_unsupported(const char *what) __attribute__((noreturn));
/* Clears stat and errmsg when present. */
void dmsg_caf_ok(int *stat, char *errmsg, size_t errmsg_len);

/* Elements in a descriptor (1 for rank 0), and its element size in bytes. */
size_t dmsg_caf_desc_count(const caf_desc *d);
size_t dmsg_caf_desc_esize(const caf_desc *d);
/* Fills a dmsg layout for the descriptor's elements (strides in bytes);
 * dimensions of extent 1 are dropped and contiguous ones merged.
 * Returns 0, or -1 when more than DMSG_MAX_DIMS dimensions remain. */
int dmsg_caf_desc_layout(const caf_desc *d, dmsg_layout *l);
/* Copies the descriptor's elements into / out of a contiguous buffer. */
void dmsg_caf_pack(const caf_desc *d, const char *base, void *buf);
void dmsg_caf_unpack(const caf_desc *d, char *base, const void *buf);

/* The remote side of a transfer (caf_xfer.c). */
typedef struct dmsg_caf_rside {
    char *base;  /* symmetric address of the first element (or of offset 0 of idx) */
    int pe;      /* job PE */
    size_t n;    /* elements */
    size_t es;   /* bytes per element */
    int mode;    /* 0: section l; 1: indexed idx (elements); 2: byte offsets */
    dmsg_layout l;
    size_t *idx; /* mode 1: element indices, mode 2: byte offsets, from base (malloc) */
} dmsg_caf_rside;
/* A put of the local src into rs (whose type is that of rdesc, rank
 * ignored), a get of rs into the local dest, and a remote-to-remote copy:
 * kind conversion, a scalar for many elements, overlap with this image
 * through a buffer. They return a dmsg status; the caller quiets and reports. */
int dmsg_caf_rside_put(dmsg_caf_rside *rs, const caf_desc *rdesc, int dst_kind,
                       const caf_desc *src, int src_kind);
int dmsg_caf_rside_get(dmsg_caf_rside *rs, const caf_desc *rdesc, int src_kind, caf_desc *dest,
                       int dst_kind, bool may_require_tmp);
int dmsg_caf_rside_copy(dmsg_caf_rside *ds, const caf_desc *ddesc, int dst_kind,
                        dmsg_caf_rside *ss, const caf_desc *sdesc, int src_kind);
const char *dmsg_caf_tname(int type);

/* The component heap (caf_heap.c): a symmetric block, made collectively at
 * the first registration of an allocatable component, in which each image
 * allocates its own components alone (ALLOCATE of x%a on one image). */
int dmsg_caf_heap_make(void);
void *dmsg_caf_heap_alloc(size_t bytes);
int dmsg_caf_heap_owns(const void *p);
void dmsg_caf_heap_free(void *p);
size_t dmsg_caf_heap_size(void);

/* Converts n elements between Fortran types and kinds (caf_conv.c); dst and
 * src contiguous. Returns 0, or -1 for a pair it cannot convert. */
int dmsg_caf_convert(void *dst, int dtype, int dkind, size_t dlen, const void *src, int stype,
                     int skind, size_t slen, size_t n);

#endif
