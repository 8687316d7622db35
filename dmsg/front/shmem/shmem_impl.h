/* Internals of the OpenSHMEM front end (dmsg/front/shmem/): what its files
 * share. Everything here is static inline or dmsg_shmem_-prefixed. */
#ifndef DMSG_FRONT_SHMEM_IMPL_H
#define DMSG_FRONT_SHMEM_IMPL_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include "dmsg.h"
#include "shmem.h"

/* A team record. Handles point at these; a destroyed team's record stays
 * (live = 0) so that a later use is diagnosed rather than undefined. */
struct dmsg_shmem_team {
    dmsg_team t;
    int live;
    shmem_team_config_t cfg;
};

/* The executable's data and BSS moved into the symmetric heap (static.c):
 * [lo, hi) is that range at its own addresses, alias its copy's address in
 * the symmetric segment (the same pages). lo == hi: none. */
typedef struct dmsg_shmem_static {
    char *lo, *hi, *alias;
} dmsg_shmem_static;
extern dmsg_shmem_static dmsg_shmem_sd;

extern int dmsg_shmem_inited;
extern int dmsg_shmem_thread_level;

/* Prints "call: what" (with dmsg's detail of the last error when st is a
 * dmsg status) and ends the job with status 1: the specification leaves
 * such input undefined, and a clear stop beats a wrong result. */
_Noreturn void dmsg_shmem_die(const char *call, int st, const char *what);

/* Checks the library is initialized (else dies naming call). */
void dmsg_shmem_need_init(const char *call);

/* A symmetric address as dmsg knows it: static data becomes its alias in
 * the segment; other addresses pass unchanged (dmsg checks them). */
static inline void *dmsg_shmem_sym(const void *p)
{
    const char *c = p;
    if (c >= dmsg_shmem_sd.lo && c < dmsg_shmem_sd.hi)
        return dmsg_shmem_sd.alias + (c - dmsg_shmem_sd.lo);
    return (void *)(uintptr_t)p;
}

/* The job's PE number of pe as a context numbers it (its team's numbers);
 * dies naming call on a bad context or PE. */
int dmsg_shmem_ctx_pe(shmem_ctx_t ctx, int pe, const char *call);

/* The dmsg team of a live handle, or DMSG_TEAM_INVALID (with a message
 * naming call when the handle was destroyed). */
dmsg_team dmsg_shmem_team_of(shmem_team_t team, const char *call);

/* Maps SHMEM_CMP_* to dmsg_cmp; 0 for an unknown one. */
static inline dmsg_cmp dmsg_shmem_cmp(int cmp)
{
    static const dmsg_cmp m[] = {DMSG_CMP_EQ, DMSG_CMP_NE, DMSG_CMP_GT,
                                 DMSG_CMP_GE, DMSG_CMP_LT, DMSG_CMP_LE};
    return cmp >= 0 && cmp < 6 ? m[cmp] : (dmsg_cmp)0;
}

/* dmsg's type of an integer of n bytes, signed or not. */
static inline dmsg_type dmsg_shmem_itype(size_t n, int is_signed)
{
    switch (n) {
    case 1: return is_signed ? DMSG_TYPE_INT8 : DMSG_TYPE_UINT8;
    case 2: return is_signed ? DMSG_TYPE_INT16 : DMSG_TYPE_UINT16;
    case 4: return is_signed ? DMSG_TYPE_INT32 : DMSG_TYPE_UINT32;
    default: return is_signed ? DMSG_TYPE_INT64 : DMSG_TYPE_UINT64;
    }
}

/* dmsg's type of each TYPENAME of the specification's tables. */
#define DMSG_SHMEM_IT(T) dmsg_shmem_itype(sizeof(T), 1)
#define DMSG_SHMEM_UT(T) dmsg_shmem_itype(sizeof(T), 0)
#define DMSG_SHMEM_DT_float DMSG_TYPE_FLOAT
#define DMSG_SHMEM_DT_double DMSG_TYPE_DOUBLE
#define DMSG_SHMEM_DT_longdouble DMSG_TYPE_LONG_DOUBLE
#define DMSG_SHMEM_DT_complexf DMSG_TYPE_FLOAT_COMPLEX
#define DMSG_SHMEM_DT_complexd DMSG_TYPE_DOUBLE_COMPLEX
#define DMSG_SHMEM_DT_char dmsg_shmem_itype(1, CHAR_MIN < 0)
#define DMSG_SHMEM_DT_schar DMSG_SHMEM_IT(signed char)
#define DMSG_SHMEM_DT_short DMSG_SHMEM_IT(short)
#define DMSG_SHMEM_DT_int DMSG_SHMEM_IT(int)
#define DMSG_SHMEM_DT_long DMSG_SHMEM_IT(long)
#define DMSG_SHMEM_DT_longlong DMSG_SHMEM_IT(long long)
#define DMSG_SHMEM_DT_uchar DMSG_SHMEM_UT(unsigned char)
#define DMSG_SHMEM_DT_ushort DMSG_SHMEM_UT(unsigned short)
#define DMSG_SHMEM_DT_uint DMSG_SHMEM_UT(unsigned int)
#define DMSG_SHMEM_DT_ulong DMSG_SHMEM_UT(unsigned long)
#define DMSG_SHMEM_DT_ulonglong DMSG_SHMEM_UT(unsigned long long)
#define DMSG_SHMEM_DT_int8 DMSG_TYPE_INT8
#define DMSG_SHMEM_DT_int16 DMSG_TYPE_INT16
#define DMSG_SHMEM_DT_int32 DMSG_TYPE_INT32
#define DMSG_SHMEM_DT_int64 DMSG_TYPE_INT64
#define DMSG_SHMEM_DT_uint8 DMSG_TYPE_UINT8
#define DMSG_SHMEM_DT_uint16 DMSG_TYPE_UINT16
#define DMSG_SHMEM_DT_uint32 DMSG_TYPE_UINT32
#define DMSG_SHMEM_DT_uint64 DMSG_TYPE_UINT64
#define DMSG_SHMEM_DT_size DMSG_SHMEM_UT(size_t)
#define DMSG_SHMEM_DT_ptrdiff DMSG_SHMEM_IT(ptrdiff_t)

/* Active sets of the deprecated collectives (aset.c). */
typedef struct dmsg_shmem_aset {
    int start, stride, size, me; /* me: this PE's index in the set, -1 if absent */
} dmsg_shmem_aset;

/* Threads (thr.c). dmsg_shmem_mt: SHMEM_THREAD_MULTIPLE was granted, so
 * every call that reaches dmsg's core holds the PE's lock (the core serves
 * one thread at a time); below MULTIPLE the lock calls are one test of the
 * flag. Calls that wait for other PEs never hold it while they wait:
 * point-to-point waits poll (dmsg_shmem_mt_poll), collectives pass a gate
 * first (dmsg_shmem_coll_enter). */
extern int dmsg_shmem_mt;
void dmsg_shmem_mt_lock(void);
void dmsg_shmem_mt_unlock(void);
void dmsg_shmem_mt_coll_enter(const char *call, dmsg_team t, const dmsg_shmem_aset *a);
void dmsg_shmem_mt_coll_leave(void);

static inline void dmsg_shmem_lock(void)
{
    if (__builtin_expect(dmsg_shmem_mt, 0))
        dmsg_shmem_mt_lock();
}

static inline void dmsg_shmem_unlock(void)
{
    if (__builtin_expect(dmsg_shmem_mt, 0))
        dmsg_shmem_mt_unlock();
}

/* Under MULTIPLE: runs test(arg, &met) under the lock until it sets met or
 * fails (its status is returned), letting the lock go and backing off
 * between tries, so that other threads of the PE go on meanwhile. */
int dmsg_shmem_mt_poll(int (*test)(void *arg, int *met), void *arg);

/* Around a collective on team t, or on the active set a when a is not
 * NULL: under MULTIPLE, waits (without the lock) until every member has
 * entered a collective, then holds the lock and this PE's collective lock
 * until dmsg_shmem_coll_leave. Else nothing. */
static inline void dmsg_shmem_coll_enter(const char *call, dmsg_team t, const dmsg_shmem_aset *a)
{
    if (__builtin_expect(dmsg_shmem_mt, 0))
        dmsg_shmem_mt_coll_enter(call, t, a);
}

static inline void dmsg_shmem_coll_leave(void)
{
    if (__builtin_expect(dmsg_shmem_mt, 0))
        dmsg_shmem_mt_coll_leave();
}

#endif
