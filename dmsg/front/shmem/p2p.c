/* OpenSHMEM point-to-point synchronization, signals, ordering and locks on
 * dmsg's waits, atomics and dmsg_quiet. Under SHMEM_THREAD_MULTIPLE each
 * call holds the PE's lock, and waits poll instead (thr.c). */
#include <sched.h>
#include <stdlib.h>
#include "dmsg/core/state.h"
#include "dmsg/front/shmem/shmem_impl.h"

static dmsg_cmp cmp_of(const char *call, int cmp)
{
    dmsg_cmp c = dmsg_shmem_cmp(cmp);
    if (!c)
        dmsg_shmem_die(call, 0, "cmp is not one of SHMEM_CMP_EQ .. SHMEM_CMP_LE");
    return c;
}

/* A wait under SHMEM_THREAD_MULTIPLE: tests, each under the lock. */
typedef struct one_wait {
    const void *ivar, *value;
    dmsg_type t;
    dmsg_cmp c;
} one_wait;

static int one_test(void *arg, int *met)
{
    const one_wait *w = arg;
    return dmsg_test_until(w->ivar, w->t, w->c, w->value, met);
}

static void wait1(const char *call, const void *ivar, dmsg_type t, int cmp, const void *value)
{
    one_wait w = {dmsg_shmem_sym(ivar), value, t, cmp_of(call, cmp)};
    int st = dmsg_shmem_mt ? dmsg_shmem_mt_poll(one_test, &w)
                           : dmsg_wait_until(w.ivar, t, w.c, value);
    if (st)
        dmsg_shmem_die(call, st, NULL);
}

static int test1(const char *call, const void *ivar, dmsg_type t, int cmp, const void *value)
{
    int met = 0;
    dmsg_cmp c = cmp_of(call, cmp);
    dmsg_shmem_lock();
    int st = dmsg_test_until(dmsg_shmem_sym(ivar), t, c, value, &met);
    dmsg_shmem_unlock();
    if (st)
        dmsg_shmem_die(call, st, NULL);
    return met;
}

typedef struct set_wait {
    const dmsg_wait_set *ws;
    dmsg_wait_mode mode;
    size_t *indices, nfound;
} set_wait;

static int set_test(void *arg, int *met)
{
    set_wait *w = arg;
    int st = dmsg_test_until_set(w->ws, w->mode, w->indices, &w->nfound);
    *met = w->nfound > 0;
    return st;
}

/* The set forms. Returns what dmsg found; *all_out: every word is skipped. */
static size_t set(const char *call, int wait, dmsg_wait_mode mode, const void *ivars, size_t n,
                  dmsg_type t, const int *status, int cmp, const void *values, int vector,
                  size_t *indices, int *none_included)
{
    size_t idx = 0, nfound = 0, inc = 0;
    dmsg_cmp c = cmp_of(call, cmp);
    for (size_t i = 0; i < n && !inc; i++)
        inc += !status || !status[i];
    *none_included = inc == 0;
    if (!inc)
        return 0;
    dmsg_wait_set ws = {.ivars = dmsg_shmem_sym(ivars), .n = n, .type = t, .cmp = c,
                        .values = values, .vector = vector, .status = status};
    /* _any is fair, as the specification's examples expect: of the words
     * that hold, the first at or after the one after the last returned. */
    size_t small[64], *all = indices;
    if (mode == DMSG_WAIT_ANY) {
        all = n <= 64 ? small : malloc(n * sizeof *all);
        if (!all)
            dmsg_shmem_die(call, DMSG_ERR_NOMEM, NULL);
    }
    dmsg_wait_mode m = mode == DMSG_WAIT_ANY ? DMSG_WAIT_SOME : mode;
    set_wait w = {&ws, m, all, 0};
    int st;
    if (wait && dmsg_shmem_mt) {
        st = dmsg_shmem_mt_poll(set_test, &w);
        nfound = w.nfound;
    } else {
        dmsg_shmem_lock();
        st = wait ? dmsg_wait_until_set(&ws, m, all, &nfound)
                  : dmsg_test_until_set(&ws, m, all, &nfound);
        dmsg_shmem_unlock();
    }
    dmsg_shmem_lock(); /* the rotor is the PE's */
    if (!st && mode == DMSG_WAIT_ANY && nfound) {
        static size_t rotor;
        idx = all[0];
        for (size_t i = 0; i < nfound; i++)
            if (all[i] >= rotor % n) {
                idx = all[i];
                break;
            }
        rotor = idx + 1;
    }
    dmsg_shmem_unlock();
    if (mode == DMSG_WAIT_ANY && all != small)
        free(all);
    if (st)
        dmsg_shmem_die(call, st, NULL);
    if (mode == DMSG_WAIT_ANY)
        return nfound ? idx : SIZE_MAX;
    return nfound;
}

#define DEF_P2P(T, N)                                                                              \
    void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value)                                     \
    {                                                                                              \
        wait1(__func__, ivar, DMSG_SHMEM_DT_##N, cmp, &cmp_value);                                 \
    }                                                                                              \
    void shmem_##N##_wait(T *ivar, T cmp_value)                                                    \
    {                                                                                              \
        wait1(__func__, ivar, DMSG_SHMEM_DT_##N, SHMEM_CMP_NE, &cmp_value);                        \
    }                                                                                              \
    int shmem_##N##_test(T *ivar, int cmp, T cmp_value)                                            \
    {                                                                                              \
        return test1(__func__, ivar, DMSG_SHMEM_DT_##N, cmp, &cmp_value);                          \
    }                                                                                              \
    void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,           \
                                    T cmp_value)                                                   \
    {                                                                                              \
        int none;                                                                                  \
        set(__func__, 1, DMSG_WAIT_ALL, ivars, nelems, DMSG_SHMEM_DT_##N, status, cmp, &cmp_value, \
            0, NULL, &none);                                                                       \
    }                                                                                              \
    size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,         \
                                      T cmp_value)                                                 \
    {                                                                                              \
        int none;                                                                                  \
        size_t r = set(__func__, 1, DMSG_WAIT_ANY, ivars, nelems, DMSG_SHMEM_DT_##N, status, cmp,  \
                       &cmp_value, 0, NULL, &none);                                                \
        return none ? SIZE_MAX : r;                                                                \
    }                                                                                              \
    size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,                   \
                                       const int *status, int cmp, T cmp_value)                    \
    {                                                                                              \
        int none;                                                                                  \
        return set(__func__, 1, DMSG_WAIT_SOME, ivars, nelems, DMSG_SHMEM_DT_##N, status, cmp,     \
                   &cmp_value, 0, indices, &none);                                                 \
    }                                                                                              \
    void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp,    \
                                           T *cmp_values)                                          \
    {                                                                                              \
        int none;                                                                                  \
        set(__func__, 1, DMSG_WAIT_ALL, ivars, nelems, DMSG_SHMEM_DT_##N, status, cmp, cmp_values, \
            1, NULL, &none);                                                                       \
    }                                                                                              \
    size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp,  \
                                             T *cmp_values)                                        \
    {                                                                                              \
        int none;                                                                                  \
        size_t r = set(__func__, 1, DMSG_WAIT_ANY, ivars, nelems, DMSG_SHMEM_DT_##N, status, cmp,  \
                       cmp_values, 1, NULL, &none);                                                \
        return none ? SIZE_MAX : r;                                                                \
    }                                                                                              \
    size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,            \
                                              const int *status, int cmp, T *cmp_values)           \
    {                                                                                              \
        int none;                                                                                  \
        return set(__func__, 1, DMSG_WAIT_SOME, ivars, nelems, DMSG_SHMEM_DT_##N, status, cmp,     \
                   cmp_values, 1, indices, &none);                                                 \
    }                                                                                              \
    int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value)     \
    {                                                                                              \
        int none;                                                                                  \
        size_t r = set(__func__, 0, DMSG_WAIT_ALL, ivars, nelems, DMSG_SHMEM_DT_##N, status, cmp,  \
                       &cmp_value, 0, NULL, &none);                                                \
        return none || r > 0;                                                                      \
    }                                                                                              \
    size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value)  \
    {                                                                                              \
        int none;                                                                                  \
        size_t r = set(__func__, 0, DMSG_WAIT_ANY, ivars, nelems, DMSG_SHMEM_DT_##N, status, cmp,  \
                       &cmp_value, 0, NULL, &none);                                                \
        return none ? SIZE_MAX : r;                                                                \
    }                                                                                              \
    size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status,      \
                                 int cmp, T cmp_value)                                             \
    {                                                                                              \
        int none;                                                                                  \
        return set(__func__, 0, DMSG_WAIT_SOME, ivars, nelems, DMSG_SHMEM_DT_##N, status, cmp,     \
                   &cmp_value, 0, indices, &none);                                                 \
    }                                                                                              \
    int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,           \
                                    T *cmp_values)                                                 \
    {                                                                                              \
        int none;                                                                                  \
        size_t r = set(__func__, 0, DMSG_WAIT_ALL, ivars, nelems, DMSG_SHMEM_DT_##N, status, cmp,  \
                       cmp_values, 1, NULL, &none);                                                \
        return none || r > 0;                                                                      \
    }                                                                                              \
    size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp,        \
                                       T *cmp_values)                                              \
    {                                                                                              \
        int none;                                                                                  \
        size_t r = set(__func__, 0, DMSG_WAIT_ANY, ivars, nelems, DMSG_SHMEM_DT_##N, status, cmp,  \
                       cmp_values, 1, NULL, &none);                                                \
        return none ? SIZE_MAX : r;                                                                \
    }                                                                                              \
    size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,                  \
                                        const int *status, int cmp, T *cmp_values)                 \
    {                                                                                              \
        int none;                                                                                  \
        return set(__func__, 0, DMSG_WAIT_SOME, ivars, nelems, DMSG_SHMEM_DT_##N, status, cmp,     \
                   cmp_values, 1, indices, &none);                                                 \
    }
DMSG_SHMEM_P2P_TYPES(DEF_P2P)

void shmem_wait(long *ivar, long cmp_value)
{
    wait1(__func__, ivar, DMSG_SHMEM_DT_long, SHMEM_CMP_NE, &cmp_value);
}

void(shmem_wait_until)(long *ivar, int cmp, long cmp_value)
{
    wait1("shmem_wait_until", ivar, DMSG_SHMEM_DT_long, cmp, &cmp_value);
}

/* ------------------------------------------------------------- signals */

uint64_t shmem_signal_fetch(const uint64_t *sig_addr)
{
    uint64_t v;
    dmsg_shmem_lock();
    int st = dmsg_atomic(dmsg_shmem_sym(sig_addr), DMSG_AMO_FETCH, DMSG_TYPE_UINT64, NULL, NULL, &v,
                         dmsg_pe());
    dmsg_shmem_unlock();
    if (st)
        dmsg_shmem_die(__func__, st, NULL);
    return v;
}

uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    wait1(__func__, sig_addr, DMSG_TYPE_UINT64, cmp, &cmp_value);
    return shmem_signal_fetch(sig_addr);
}

/* ------------------------------------------------------------ ordering */

void shmem_quiet(void)
{
    dmsg_shmem_need_init(__func__);
    dmsg_shmem_lock();
    int st = dmsg_quiet();
    dmsg_shmem_unlock();
    if (st)
        dmsg_shmem_die(__func__, st, NULL);
}

void shmem_ctx_quiet(shmem_ctx_t ctx)
{
    if (!ctx)
        return; /* SHMEM_CTX_INVALID: nothing to do (1.5) */
    if (!ctx->live)
        dmsg_shmem_die(__func__, 0, "context used after shmem_ctx_destroy");
    shmem_quiet();
}

/* dmsg keeps no per-target order between deposits, so a fence completes
 * them: what it orders before is then visible before anything after. */
void shmem_fence(void)
{
    dmsg_shmem_need_init(__func__);
    dmsg_shmem_lock();
    int st = dmsg_quiet();
    dmsg_shmem_unlock();
    if (st)
        dmsg_shmem_die(__func__, st, NULL);
}

void shmem_ctx_fence(shmem_ctx_t ctx)
{
    if (!ctx)
        return; /* SHMEM_CTX_INVALID: nothing to do (1.5) */
    if (!ctx->live)
        dmsg_shmem_die(__func__, 0, "context used after shmem_ctx_destroy");
    shmem_fence();
}

/* --------------------------------------------------------------- locks */
/* The lock is the word on PE 0: 0 free, else 1 + the holder's PE. */

int shmem_test_lock(long *lock)
{
    long want = 1 + dmsg_pe(), free0 = 0, old;
    dmsg_shmem_lock();
    int st = dmsg_atomic(dmsg_shmem_sym(lock), DMSG_AMO_CSWAP, DMSG_SHMEM_DT_long, &want, &free0,
                         &old, 0);
    dmsg_shmem_unlock();
    if (st)
        dmsg_shmem_die(__func__, st, NULL);
    return old != 0;
}

void shmem_set_lock(long *lock)
{
    long want = 1 + dmsg_pe(), free0 = 0, old;
    for (;;) {
        dmsg_shmem_lock();
        int st = dmsg_atomic(dmsg_shmem_sym(lock), DMSG_AMO_CSWAP, DMSG_SHMEM_DT_long, &want,
                             &free0, &old, 0);
        dmsg_shmem_unlock();
        if (st)
            dmsg_shmem_die(__func__, st, NULL);
        if (old == 0)
            return;
        if ((st = dmsg_job_check()))
            dmsg_shmem_die(__func__, st, NULL);
        /* The holder may need this core to get to its clear. */
        sched_yield();
    }
}

void shmem_clear_lock(long *lock)
{
    long zero = 0;
    /* What was written under the lock is complete before it is released. */
    dmsg_shmem_lock();
    int st = dmsg_quiet();
    if (!st)
        st = dmsg_atomic(dmsg_shmem_sym(lock), DMSG_AMO_SET, DMSG_SHMEM_DT_long, &zero, NULL, NULL,
                         0);
    dmsg_shmem_unlock();
    if (st)
        dmsg_shmem_die(__func__, st, NULL);
}
