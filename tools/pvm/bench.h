/* bench.h - what the two programs of tools/bench-pvm.sh share: the sizes,
 * repetitions and the strided exchange's shape (tools/pvm/pvm-bench.c on the
 * real PVM 3, tools/pvm/postal-bench.c on dmsg's postal, RRMSG and deposits),
 * so both measure exactly the same traffic. */
#ifndef DMSG_TOOLS_PVM_BENCH_H
#define DMSG_TOOLS_PVM_BENCH_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* malloc that ends the program with a message where memory runs out (a
 * benchmark has nothing better to do then). */
static inline void *pb_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "bench: out of memory\n");
        exit(1);
    }
    return p;
}

/* Ping-pong message sizes: 8 B to 4 MiB, times 8. */
#define PB_MIN 8
#define PB_MAX (4u << 20)
static inline size_t pb_next(size_t b)
{
    return b * 8 > PB_MAX && b < PB_MAX ? PB_MAX : b * 8;
}

/* Round trips per batch: about 32 MiB each way per batch, 20 .. 1000. */
static inline int pb_reps(size_t bytes)
{
    size_t r = ((size_t)32 << 20) / bytes;
    return r > 1000 ? 1000 : r < 20 ? 20 : (int)r;
}
/* Batches per size; the fastest counts (load hits some of them). */
#define PB_BATCHES 3

/* The strided exchange: an N x N matrix of doubles, distributed by blocks of
 * rows, redistributed by blocks of columns. PE p holds rows [p*b, p*b+b) x N
 * (row-major) and receives columns [p*b, p*b+b) of every row, as an N x b
 * array: from PE q the b x b block of q's rows, rows b*q .. of the result.
 * The source block is strided (b rows of b doubles, N apart), the result
 * contiguous. */
#define SX_N 2048
#define SX_WARM 2
#define SX_ITERS 10

static inline double pb_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Source element (row r, column c) of the global matrix, and a check of the
 * result on PE p: element (row r, local column c) is global (r, p*b + c). */
static inline double sx_val(size_t r, size_t c)
{
    return (double)(r * SX_N + c);
}

static inline int sx_check(const double *res, size_t b, int p)
{
    for (size_t r = 0; r < SX_N; r++)
        for (size_t c = 0; c < b; c++)
            if (res[r * b + c] != sx_val(r, (size_t)p * b + c)) {
                fprintf(stderr, "strided exchange: PE %d wrong at (%zu, %zu)\n", p, r, c);
                return 0;
            }
    return 1;
}

#endif
