/* The message-size plan of the bw test, shared by dmsg-bench and its MPI
 * reference (tools/mpi/dmsg-bench-mpi.c) so that both sides always measure
 * the same sizes with the same windows. */
#ifndef DMSG_TOOLS_BENCH_SIZES_H
#define DMSG_TOOLS_BENCH_SIZES_H

#include <stddef.h>

/* Messages in flight per window: many small ones, few large ones, so that
 * one window moves a comparable amount of data at every size. */
static inline int bw_window_len(size_t bytes)
{
    return bytes >= (1u << 20) ? 4 : bytes >= (64u << 10) ? 16 : 64;
}

/* Sizes: 8 B times powers of 4, then max_bytes; past max_bytes ends the loop. */
static inline size_t next_size(size_t bytes, size_t max_bytes)
{
    if (bytes >= max_bytes)
        return max_bytes + 1;
    return bytes * 4 > max_bytes ? max_bytes : bytes * 4;
}

#endif
