/* The collective and atomic rows of dmsg-bench ("coll" test), shared by its
 * three workers: dmsg (tools/dmsg-bench.c), MPICH (tools/mpi/dmsg-bench-mpi.c)
 * and Open MPI's OSHMEM (tools/oshmem/dmsg-bench-shmem.c). One table of
 * rows, and one fill and check of the buffers, so that the three sides
 * always measure the same operations on the same data and each verifies
 * its last result the same way. Plain C: no library calls. */
#ifndef DMSG_TOOLS_BENCH_COLL_H
#define DMSG_TOOLS_BENCH_COLL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum coll_kind {
    COLL_ALLREDUCE, /* sum of doubles; bytes = 8 * count */
    COLL_BCAST,     /* bytes from PE 0 */
    COLL_ALLTOALL   /* bytes per pair of PEs */
};

struct coll_row {
    const char *test;
    enum coll_kind kind;
    size_t bytes;
};

#define COLL_NROWS 6
static const struct coll_row coll_rows[COLL_NROWS] = {
    {"allreduce", COLL_ALLREDUCE, 8}, {"allreduce", COLL_ALLREDUCE, 64 << 10},
    {"bcast", COLL_BCAST, 8},         {"bcast", COLL_BCAST, 1 << 20},
    {"alltoall", COLL_ALLTOALL, 64},  {"alltoall", COLL_ALLTOALL, 64 << 10},
};

/* The atomic rows, all on a 64-bit integer word of PE 0, param 8:
 *   fadd-all   every PE fetch_adds 1 to one word of PE 0
 *   fadd-one   PE 1 alone fetch_adds 1 (the others wait in the next barrier)
 *   cswap-one  PE 1 alone: compare_swap(expected -> expected + 1), succeeds
 *   cswap-all  every PE compare_swaps one word as cswap-one (most fail)
 * Each has its own word: AMO_WORD_* is its index in a block of 4. */
#define AMO_NROWS 4
enum { AMO_FADD_ALL, AMO_FADD_ONE, AMO_CSWAP_ONE, AMO_CSWAP_ALL };
static const char *const amo_rows[AMO_NROWS] = {"fadd-all", "fadd-one", "cswap-one", "cswap-all"};

/* Whether this PE performs row r's operation (the "one" rows: PE 1 only). */
static inline int amo_active(int row, int me)
{
    return (row == AMO_FADD_ONE || row == AMO_CSWAP_ONE) ? me == 1 : 1;
}

/* Bytes of one PE's source and destination buffers of a row. */
static inline size_t coll_buf_bytes(const struct coll_row *r, int np)
{
    return r->kind == COLL_ALLTOALL ? r->bytes * (size_t)np : r->bytes;
}

static inline unsigned char coll_a2a_byte(int from, int to, size_t k)
{
    return (unsigned char)((unsigned)from * 31u + (unsigned)to * 7u + (unsigned)k * 3u);
}

/* Fills src with this PE's contribution and clears dst. Allreduce: element
 * i of PE p is (p + 1) * (i % 5 + 1), so that every partial sum is an exact
 * double and the result does not depend on the order of the additions. */
static inline void coll_fill(const struct coll_row *r, int me, int np, void *src, void *dst)
{
    size_t n = coll_buf_bytes(r, np);
    unsigned char *s = src;
    memset(dst, 0, n);
    switch (r->kind) {
    case COLL_ALLREDUCE:
        for (size_t i = 0; i < r->bytes / 8; i++) {
            double v = (double)(me + 1) * (double)(i % 5 + 1);
            memcpy(s + 8 * i, &v, 8);
        }
        break;
    case COLL_BCAST:
        for (size_t k = 0; k < n; k++)
            s[k] = me == 0 ? (unsigned char)(k * 13 + 5) : 0xee;
        break;
    case COLL_ALLTOALL:
        for (int j = 0; j < np; j++)
            for (size_t k = 0; k < r->bytes; k++)
                s[(size_t)j * r->bytes + k] = coll_a2a_byte(me, j, k);
        break;
    }
}

/* Counts the wrong elements (allreduce) or bytes of this PE's dst. */
static inline size_t coll_check(const struct coll_row *r, int me, int np, const void *dst)
{
    const unsigned char *d = dst;
    size_t bad = 0;
    switch (r->kind) {
    case COLL_ALLREDUCE:
        for (size_t i = 0; i < r->bytes / 8; i++) {
            double v, want = (double)np * (np + 1) / 2 * (double)(i % 5 + 1);
            memcpy(&v, d + 8 * i, 8);
            bad += v != want;
        }
        break;
    case COLL_BCAST:
        for (size_t k = 0; k < r->bytes; k++)
            bad += d[k] != (unsigned char)(k * 13 + 5);
        break;
    case COLL_ALLTOALL:
        for (int i = 0; i < np; i++)
            for (size_t k = 0; k < r->bytes; k++)
                bad += d[(size_t)i * r->bytes + k] != coll_a2a_byte(i, me, k);
        break;
    }
    return bad;
}

#endif
