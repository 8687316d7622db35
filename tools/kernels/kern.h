/*
 * kern.h - the application kernels of the A/B harness (docs/kernels.md).
 *
 * Every kernel (transpose, 2D-FFT, SOR, FEM) is written once, in the
 * kern_*.c files, against the small communication interface below
 * (kl_*). Each library under comparison supplies that interface in one
 * file: lib_dmsg.c (dmsg), mpi/lib_mpi.c (MPICH), shmem/lib_shmem.c
 * (OpenSHMEM). So every variant of a kernel computes on the same data with
 * the same arithmetic and is checked against the same serial reference;
 * only the communication differs.
 *
 * The interface is plan-based, as a user of a persistent communication
 * pattern would write it: a plan is made once for a pair of buffers, then
 * run every step. Plans record where their time went in kern_t.
 */
#ifndef DMSG_KERN_H
#define DMSG_KERN_H

#include <stddef.h>
#include <stdint.h>

/* Where a PE's time went during the timed steps, in seconds. */
typedef struct kern_times {
    double comp; /* arithmetic of the kernel */
    double xfer; /* data transfer: deposits, sends, puts, waits for data */
    double sync; /* synchronization and protocol: barriers, fences, matching */
    double pack; /* packing, unpacking and buffering copies */
    double wait; /* the alignment barrier before each exchange (kern_align) */
} kern_times;

/* The running total, advanced by the kernels (comp) and the plans. */
extern kern_times kern_t;

/* CPU time (user + system, all threads of this PE's process) spent in comp
 * and in wait, advanced with kern_t by KERN_CTOC. The rest of a timed
 * repetition's CPU time is the communication's: the work a library does to
 * exchange (copies, protocol, polling), without the time a PE sleeps or
 * waits for a core. Where PEs outnumber cores the wall-clock split measures
 * the scheduler (who runs while a partner waits); the CPU time does not
 * (docs/kernels.md, "CPU time of communication"). */
extern kern_times kern_cpu_t;

/* CPU time of this process so far, in seconds. */
double kern_cpu(void);

/* The selected variant ("dmsg-chained", "mpi-p2p", ...), from the command line. */
extern const char *kern_variant;

/* Called by a kernel right before each exchange (kl_*_run). Where times are
 * wall-clock (every transport but sim) it is a barrier of the library under
 * test, booked as "wait": every PE then starts the exchange together, so
 * the exchange's time is the communication's own, not the time a PE waits
 * for a partner still computing (load imbalance, a preempted PE). The
 * driver also calls it at the end of each timed repetition, so that every
 * PE's time ends at the same moment. Off on
 * sim (virtual time has no noise, and the split must sum to the step) and
 * with --noalign. */
void kern_align(void);

/* Reports a fatal error on this PE and exits non-zero (the launcher then
 * stops the job, so a failure never hangs). */
void kern_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void *kern_malloc(size_t bytes);

/* ------------------------------------------------ library interface (kl_) */

/* Joins the job; returns 0, or non-zero if the variant is unknown to this library. */
void kl_init(int *argc, char ***argv);
void kl_finalize(void);
int kl_me(void);
int kl_np(void);
const char *kl_transport(void);
double kl_wtime(void);
/* Whether this library knows the variant for this kernel. */
int kl_variant_ok(const char *kernel, const char *variant);
/* Collective: a symmetric (remotely accessible) zeroed block. */
void *kl_alloc(size_t bytes);
void kl_barrier(void);
enum { KL_SUM, KL_MAX };
/* Collective element-wise reduction of v[0..n) over all PEs, result everywhere. */
void kl_allreduce(double *v, int n, int op);
/* Collective: PE 0's bytes at buf are copied to buf on every PE. */
void kl_bcast(void *buf, size_t bytes);
/* The library's own accounting of this PE so far (sim's virtual time split),
 * or 0 when it has none; then the kernels' wall-clock split is used. */
int kl_times(kern_times *t);

/* All-to-all transpose of an n x n matrix of elem-byte elements, both
 * distributed by blocks of n / np rows: dst = transpose(src). dst is
 * symmetric (from kl_alloc); src is symmetric too (a transpose back writes
 * it). */
typedef struct kl_xpose kl_xpose;
kl_xpose *kl_xpose_plan(void *dst, const void *src, size_t n, size_t elem);
void kl_xpose_run(kl_xpose *p);

/* Halo exchange of a row-block grid: grid[k] (k = parity of the step) holds
 * w ghost rows, b owned rows, w ghost rows, each of n doubles. Run(parity)
 * sends my first and last w owned rows into the ghost rows of the PEs above
 * and below in grid[parity] and returns when my ghost rows there are current. */
typedef struct kl_halo kl_halo;
kl_halo *kl_halo_plan(double *grid[2], size_t n, size_t b, size_t w);
void kl_halo_run(kl_halo *h, int parity);

/* Exchange of shared mesh node values (FEM): x[k] holds my owned values then
 * my ghost values. For each neighbour, send[] lists owned positions it needs
 * and dst[] their positions in the neighbour's x; recv[] lists the positions
 * in my x where that neighbour's values land. Indexed at both ends. */
typedef struct kern_nbr {
    int pe;
    size_t count;  /* values I send to the neighbour */
    size_t rcount; /* values it sends to me (a point of mine may touch two of its) */
    size_t *send;  /* positions in my x of the values I send, in the agreed order */
    size_t *dst;   /* where they land in the neighbour's x */
    size_t *recv;  /* where the neighbour's values land in my x */
    /* For packing variants with a receive buffer of the ghost count: where my
     * values start in the neighbour's buffer, where its values start in mine. */
    size_t stage_off, recv_off;
} kern_nbr;
typedef struct kl_fem kl_fem;
kl_fem *kl_fem_plan(double *x[2], size_t len, size_t stage_len, const kern_nbr *nbr, int nnbr);
void kl_fem_run(kl_fem *f, int parity);

/* --------------------------------------------------------------- kernels */

/* Problem of one run. */
typedef struct kern_prob {
    const char *kernel; /* transpose, fft, sor, fem */
    size_t n;           /* N (matrix, grid) or mesh points per axis (fem) */
    int steps;          /* steps per repetition (iterations, FFTs, transposes) */
    int reps;           /* timed repetitions */
    int nocompute;      /* skip the arithmetic in timed steps (large simulated runs) */
} kern_prob;

/* What a kernel reports after its timed steps. */
typedef struct kern_stats {
    double bytes;  /* bytes this PE sent to other PEs per step */
    double flops;  /* floating-point operations of this PE per step */
    double maxerr; /* largest difference from the serial reference */
    int ok;        /* 1 when the verification passed on this PE */
} kern_stats;

/* One kernel: set up, verify (run once against the serial reference), then
 * run `steps` steps per call of run. */
typedef struct kern_kernel {
    const char *name;
    void (*setup)(const kern_prob *pr);
    void (*verify)(const kern_prob *pr, kern_stats *st); /* untimed, checks */
    void (*run)(const kern_prob *pr);                    /* timed */
} kern_kernel;

extern const kern_kernel kern_xpose_kernel, kern_sor_kernel, kern_fft_kernel, kern_fem_kernel;

/* Block of rows of PE p when n rows are split over np PEs (n % np == 0). */
static inline size_t kern_rows(size_t n, int np)
{
    return n / (size_t)np;
}

/* Transposed pack of the b x b block at column block q of rows `src`
 * (row length n elements): buf[c][r] = src[r][q*b + c]. Cache-tiled. */
void kern_pack_block(void *buf, const void *src, size_t n, size_t b, size_t q, size_t elem);
/* Tiled transposed copy of a b x b block: dst[c * ldd + r] = src[r * lds + c]. */
void kern_xpose_block(void *dst, size_t ldd, const void *src, size_t lds, size_t b, size_t elem);
/* The block a PE keeps (column block me of its own rows), transposed straight
 * into dst without a message: what the packing variants do with their own
 * block, as a user of any library would. */
void kern_local_block(void *dst, const void *src, size_t n, size_t b, size_t me, size_t elem);
/* Unpacks a packed block from PE p into dst rows: dst[c][p*b + r] = buf[c][r]. */
void kern_unpack_block(void *dst, const void *buf, size_t n, size_t b, size_t p, size_t elem);

#define KERN_TIC(var) double var = kl_wtime()
#define KERN_TOC(var, field) (kern_t.field += kl_wtime() - (var))
/* For comp and wait: wall-clock and CPU time (kern_cpu_t). */
#define KERN_CTIC(var) double var = kl_wtime(), var##_cpu = kern_cpu()
#define KERN_CTOC(var, field)                                                                      \
    (kern_t.field += kl_wtime() - (var), kern_cpu_t.field += kern_cpu() - (var##_cpu))

#endif
