/* Shared declarations of the multi-PE test program (build/tests/pe_prog).
 *
 * Every test case is an SPMD body: all PEs run it, it checks everything
 * itself and returns 0, or prints "PE r: what failed, expected X got Y" on
 * stderr and returns non-zero. Cases must work for any number of PEs >= 1.
 * The integration suite (tests/integ) runs each case under dmsgrun. */
#ifndef DMSG_TEST_PE_H
#define DMSG_TEST_PE_H

#include <stddef.h>
#include <stdint.h>
#include "dmsg.h"

typedef int (*pe_case_fn)(void);

/* The case calls dmsg_init / dmsg_finalize itself (lifecycle tests). */
#define PE_MANUAL_INIT 1

typedef struct pe_case {
    const char *name;
    pe_case_fn fn;
    int flags;
} pe_case;

/* One table per topic file, each ended by an entry with name == NULL. */
extern const pe_case pe_deposit_cases[];
extern const pe_case pe_section_cases[];
extern const pe_case pe_indexed_cases[];
extern const pe_case pe_adp_cases[];
extern const pe_case pe_fetch_cases[];
extern const pe_case pe_counter_cases[];
extern const pe_case pe_sync_cases[];
extern const pe_case pe_alloc_cases[];
extern const pe_case pe_error_cases[];
extern const pe_case pe_crash_cases[];
extern const pe_case pe_plan_cases[];
extern const pe_case pe_iplan_cases[];
extern const pe_case pe_calib_cases[];
extern const pe_case pe_iscatter_cases[];
extern const pe_case pe_corpus_cases[];
extern const pe_case pe_postal_cases[];
extern const pe_case pe_rr_cases[];
extern const pe_case pe_launch_cases[];
extern const pe_case pe_hang_cases[];
extern const pe_case pe_check_cases[];
extern const pe_case pe_amo_cases[];
extern const pe_case pe_coll_cases[];

/* ------------------------------------------------------------ reporting */

/* Prints "PE r: file:line: <message>" on stderr and returns 1. */
int pe_fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* "DMSG_ERR_RANGE" etc., for messages (not dmsg_strerror, which is under test). */
const char *pe_status_name(int st);

#define PE_CHECK(cond, ...)                                                                        \
    do {                                                                                           \
        if (!(cond))                                                                               \
            return pe_fail(__FILE__, __LINE__, __VA_ARGS__);                                       \
    } while (0)

/* Checks that a dmsg call returns exactly `want`. */
#define PE_EXPECT(call, want)                                                                      \
    do {                                                                                           \
        int pe_st_ = (call);                                                                       \
        int pe_want_ = (want);                                                                     \
        if (pe_st_ != pe_want_)                                                                    \
            return pe_fail(__FILE__, __LINE__, "%s: expected %s got %s (%d)", #call,               \
                           pe_status_name(pe_want_), pe_status_name(pe_st_), pe_st_);              \
    } while (0)

#define PE_OK(call) PE_EXPECT(call, DMSG_OK)

/* Propagates a failing helper's non-zero result (the helper already printed). */
#define PE_TRY(call)                                                                               \
    do {                                                                                           \
        if ((call) != 0)                                                                           \
            return pe_fail(__FILE__, __LINE__, "in %s", #call);                                    \
    } while (0)

/* ------------------------------------------------------------- helpers */

int pe_me(void);
int pe_n(void);
/* The PE k steps up / down the ring from this one. */
int pe_up(int k);
int pe_down(int k);

/* Deterministic test data: byte i of the buffer that PE `pe` sends under
 * `salt`. Any PE can recompute what any other PE sent. */
unsigned char pe_pattern(int pe, uint32_t salt, size_t i);
void pe_fill(void *buf, size_t n, int pe, uint32_t salt);
/* Returns 0 if buf holds the pattern, else prints the first mismatch. */
int pe_check_pattern(const void *buf, size_t n, int pe, uint32_t salt, const char *what);
/* Returns 0 if all n bytes equal v, else prints the first mismatch. */
int pe_check_bytes(const void *buf, size_t n, unsigned char v, const char *what);
/* Returns 0 if the buffers are equal, else prints the first mismatch. */
int pe_check_equal(const void *got, const void *want, size_t n, const char *what);

/* Guard value written around targets to prove nothing outside was touched. */
/* Plans (plan.c): refills the plan's arrays, executes it once and compares
 * this PE's part of the destination with a serial evaluation. */
struct dmsg_plan;
struct dmsg_assign;
int pe_plan_verify(struct dmsg_plan *plan, const struct dmsg_assign *as);
/* n x n arrays A and B of elem-byte elements, rows by blocks, allocated;
 * *as = the transpose B = A^T. */
struct dmsg_darray;
int pe_plan_transpose(struct dmsg_darray *A, struct dmsg_darray *B, struct dmsg_assign *as,
                      size_t n, size_t elem);
/* Irregular plans (iplan.c): a 2-D array (cyclic(3), block) over all PEs
 * with halo and padding, allocated; and writing the elements this PE owns
 * from salt (prand_byte of the linear index). */
int pe_iplan_array(struct dmsg_darray *a, size_t elem);
int pe_iplan_fill(const struct dmsg_darray *a, uint32_t salt);

#define PE_GUARD 0xA5

/* Byte offset of element k (row-major, dimension 0 fastest) of a layout. */
ptrdiff_t pe_layout_offset(const dmsg_layout *l, size_t k);
size_t pe_layout_total(const dmsg_layout *l);
/* Reference section copy, element by element (the oracle for the library). */
void pe_ref_section(char *dst, const dmsg_layout *dl, const char *src, const dmsg_layout *sl,
                    size_t elem_size);
/* Bytes spanned by a layout of elem_size elements, and the offset of
 * element 0 from the lowest byte (non-zero with negative strides). */
void pe_layout_extent(const dmsg_layout *l, size_t elem_size, size_t *origin, size_t *bytes);
/* Shorthands to build 1-, 2- and 3-D layouts (count, stride in bytes per dim). */
dmsg_layout pe_l1(size_t c0, ptrdiff_t s0);
dmsg_layout pe_l2(size_t c0, ptrdiff_t s0, size_t c1, ptrdiff_t s1);
dmsg_layout pe_l3(size_t c0, ptrdiff_t s0, size_t c1, ptrdiff_t s1, size_t c2, ptrdiff_t s2);

/* Start and end (one past) of this PE's symmetric segment, found through
 * dmsg_addr_is_symmetric starting from a known symmetric address. */
char *pe_segment_base(void *sym);
char *pe_segment_end(void *sym);

/* Allocates a symmetric block or fails the case (returns NULL after printing). */
void *pe_alloc(size_t bytes);

/* Elapsed-time guard for polling loops (seconds). */
double pe_now(void);

/* A reproducible random stream for the randomized cases (splitmix64):
 * seed *s once, then each call advances it. */
static inline uint64_t pe_rnd_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Uniform enough in [0, n) for tests, n > 0. */
static inline int pe_rnd_below(uint64_t *s, int n)
{
    return (int)(pe_rnd_next(s) % (uint64_t)n);
}

#endif
