/* Point-to-point waits on words of this PE's symmetric memory. The core
 * owns the predicate (types, comparisons, sets); the transport polls it
 * with its wait policy and drives whatever progress remote updates need
 * (word_wait). Every word is read with an acquire load, so data released
 * with the update that satisfied the wait is visible on return. */
#include <string.h>
#include "dmsg/core/amo.h"
#include "dmsg/core/op.h"

typedef struct word_kind {
    int size;
    int sgn;
} word_kind;

/* The integer types a wait can watch; 0 for any other. */
static int wait_kind(dmsg_type t, word_kind *k)
{
    switch (t) {
    case DMSG_TYPE_INT16: *k = (word_kind){2, 1}; return 1;
    case DMSG_TYPE_UINT16: *k = (word_kind){2, 0}; return 1;
    case DMSG_TYPE_INT32: *k = (word_kind){4, 1}; return 1;
    case DMSG_TYPE_UINT32: *k = (word_kind){4, 0}; return 1;
    case DMSG_TYPE_INT64: *k = (word_kind){8, 1}; return 1;
    case DMSG_TYPE_UINT64: *k = (word_kind){8, 0}; return 1;
    default: return 0;
    }
}

/* A word widened to 64 bits (sign-extended for signed types), by an acquire
 * load of the shared word or a plain read of a local value. */
static uint64_t widen(uint64_t raw, word_kind k)
{
    switch (k.size) {
    case 2: return k.sgn ? (uint64_t)(int64_t)(int16_t)raw : (uint16_t)raw;
    case 4: return k.sgn ? (uint64_t)(int64_t)(int32_t)raw : (uint32_t)raw;
    default: return raw;
    }
}

static uint64_t load_shared(const void *p, word_kind k)
{
    switch (k.size) {
    case 2: return widen(__atomic_load_n((const uint16_t *)p, __ATOMIC_ACQUIRE), k);
    case 4: return widen(__atomic_load_n((const uint32_t *)p, __ATOMIC_ACQUIRE), k);
    default: return __atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE);
    }
}

static uint64_t load_local(const void *p, word_kind k)
{
    uint16_t h;
    uint32_t w;
    uint64_t d;
    switch (k.size) {
    case 2: memcpy(&h, p, 2); return widen(h, k);
    case 4: memcpy(&w, p, 4); return widen(w, k);
    default: memcpy(&d, p, 8); return d;
    }
}

static int compare(uint64_t a, uint64_t b, word_kind k, dmsg_cmp cmp)
{
    int c = k.sgn ? ((int64_t)a > (int64_t)b) - ((int64_t)a < (int64_t)b) : (a > b) - (a < b);
    switch (cmp) {
    case DMSG_CMP_EQ: return c == 0;
    case DMSG_CMP_NE: return c != 0;
    case DMSG_CMP_GT: return c > 0;
    case DMSG_CMP_GE: return c >= 0;
    case DMSG_CMP_LT: return c < 0;
    case DMSG_CMP_LE: return c <= 0;
    }
    return 0;
}

static int cmp_ok(dmsg_cmp cmp)
{
    return cmp >= DMSG_CMP_EQ && cmp <= DMSG_CMP_LE;
}

static dmsg_status word_wait_missing(void)
{
    return DMSG_FAIL(DMSG_ERR_UNSUPPORTED, "transport %s has no point-to-point waits",
                     dmsg_g.tp.ops->name);
}

/* ---------------------------------------------------------- single word */

typedef struct one_pred {
    const void *p;
    word_kind k;
    dmsg_cmp cmp;
    uint64_t v;
} one_pred;

static int one_ready(const void *arg)
{
    const one_pred *w = arg;
    return compare(load_shared(w->p, w->k), w->v, w->k, w->cmp);
}

static dmsg_status one_check(const void *ivar, dmsg_type type, dmsg_cmp cmp, const void *value,
                             one_pred *w)
{
    if (!ivar || !value)
        return DMSG_FAIL(DMSG_ERR_NULL, "wait: %s is NULL", ivar ? "value" : "ivar");
    if (!wait_kind(type, &w->k))
        return DMSG_FAIL(DMSG_ERR_ARG, "wait on type %d (16-, 32- or 64-bit integers)", (int)type);
    if (!cmp_ok(cmp))
        return DMSG_FAIL(DMSG_ERR_ARG, "wait comparison %d", (int)cmp);
    size_t off;
    dmsg_status st = dmsg_word_check(ivar, (size_t)w->k.size, &off);
    if (st)
        return st;
    if (!dmsg_g.tp.ops->word_wait)
        return word_wait_missing();
    w->p = ivar;
    w->cmp = cmp;
    w->v = load_local(value, w->k);
    return DMSG_OK;
}

int dmsg_wait_until(const void *ivar, dmsg_type type, dmsg_cmp cmp, const void *value)
{
    DMSG_REQUIRE_INIT();
    one_pred w;
    dmsg_status st = one_check(ivar, type, cmp, value, &w);
    if (st)
        return st;
    /* Also when it holds already: a simulated clock must still move to the
     * arrival of the update. */
    dmsg_wait_enter(DMSG_WAIT_UNTIL);
    st = dmsg_g.tp.ops->word_wait(&dmsg_g.tp, one_ready, &w, 0);
    dmsg_wait_leave();
    return st;
}

int dmsg_test_until(const void *ivar, dmsg_type type, dmsg_cmp cmp, const void *value, int *met)
{
    DMSG_REQUIRE_INIT();
    if (!met)
        return DMSG_FAIL(DMSG_ERR_NULL, "dmsg_test_until: met is NULL");
    one_pred w;
    dmsg_status st = one_check(ivar, type, cmp, value, &w);
    if (!st)
        st = dmsg_g.tp.ops->word_wait(&dmsg_g.tp, one_ready, &w, 1);
    if (!st)
        *met = one_ready(&w);
    return st;
}

/* --------------------------------------------------------- sets of words */

typedef struct set_pred {
    const dmsg_wait_set *ws;
    word_kind k;
    dmsg_wait_mode mode;
    size_t *indices; /* written only when the mode's condition holds */
    size_t nfound;
} set_pred;

static int included(const dmsg_wait_set *ws, size_t i)
{
    return !ws->status || ws->status[i] == 0;
}

static int set_holds(const set_pred *sp, size_t i)
{
    const dmsg_wait_set *ws = sp->ws;
    size_t sz = (size_t)sp->k.size;
    uint64_t v = load_local((const char *)ws->values + (ws->vector ? i * sz : 0), sp->k);
    return compare(load_shared((const char *)ws->ivars + i * sz, sp->k), v, sp->k, ws->cmp);
}

static int set_ready(const void *arg)
{
    set_pred *sp = (set_pred *)arg; /* our own: the outputs are kept in it */
    const dmsg_wait_set *ws = sp->ws;
    size_t k = 0;
    switch (sp->mode) {
    case DMSG_WAIT_ALL:
        for (size_t i = 0; i < ws->n; i++)
            if (included(ws, i) && !set_holds(sp, i))
                return 0;
        for (size_t i = 0; i < ws->n; i++)
            if (included(ws, i)) {
                if (sp->indices)
                    sp->indices[k] = i;
                k++;
            }
        break;
    case DMSG_WAIT_ANY:
        for (size_t i = 0; i < ws->n && !k; i++)
            if (included(ws, i) && set_holds(sp, i))
                sp->indices[k++] = i;
        break;
    case DMSG_WAIT_SOME:
        /* Any index written here is final: one found makes the condition hold. */
        for (size_t i = 0; i < ws->n; i++)
            if (included(ws, i) && set_holds(sp, i))
                sp->indices[k++] = i;
        break;
    }
    sp->nfound = k;
    return k > 0;
}

/* Checks everything; *none: every word is left out (nothing to wait for). */
static dmsg_status set_check(const dmsg_wait_set *ws, dmsg_wait_mode mode, size_t *indices,
                             size_t *nfound, set_pred *sp, int *none)
{
    if (!ws || !nfound)
        return DMSG_FAIL(DMSG_ERR_NULL, "wait set: %s is NULL", ws ? "nfound" : "the set");
    if (mode < DMSG_WAIT_ALL || mode > DMSG_WAIT_SOME)
        return DMSG_FAIL(DMSG_ERR_ARG, "wait mode %d", (int)mode);
    if (!indices && mode != DMSG_WAIT_ALL)
        return DMSG_FAIL(DMSG_ERR_NULL, "wait set: indices is NULL");
    if (!wait_kind(ws->type, &sp->k))
        return DMSG_FAIL(DMSG_ERR_ARG, "wait on type %d (16-, 32- or 64-bit integers)",
                         (int)ws->type);
    if (!cmp_ok(ws->cmp))
        return DMSG_FAIL(DMSG_ERR_ARG, "wait comparison %d", (int)ws->cmp);
    *none = 1;
    for (size_t i = 0; i < ws->n && *none; i++)
        *none = !included(ws, i);
    if (ws->n > 0) {
        size_t bytes, off;
        if (!ws->ivars || !ws->values)
            return DMSG_FAIL(DMSG_ERR_NULL, "wait set: %s is NULL", ws->ivars ? "values" : "ivars");
        if (__builtin_mul_overflow(ws->n, (size_t)sp->k.size, &bytes))
            return DMSG_FAIL(DMSG_ERR_OVERFLOW, "wait set of %zu words", ws->n);
        dmsg_status st = dmsg_sym_range(ws->ivars, bytes, &off);
        if (!st)
            st = dmsg_heap_bound(off, off + bytes);
        if (st)
            return st;
        if (off % (size_t)sp->k.size)
            return DMSG_FAIL(DMSG_ERR_ALIGN, "wait set at segment offset %zu is not %d-byte aligned",
                             off, sp->k.size);
    }
    if (!dmsg_g.tp.ops->word_wait)
        return word_wait_missing();
    sp->ws = ws;
    sp->mode = mode;
    sp->indices = indices;
    sp->nfound = 0;
    return DMSG_OK;
}

static int wait_set(const dmsg_wait_set *ws, dmsg_wait_mode mode, size_t *indices,
                    size_t *nfound, int once)
{
    DMSG_REQUIRE_INIT();
    set_pred sp;
    int none;
    dmsg_status st = set_check(ws, mode, indices, nfound, &sp, &none);
    if (st)
        return st;
    if (none) {
        *nfound = 0;
        return DMSG_OK;
    }
    if (!once)
        dmsg_wait_enter(DMSG_WAIT_UNTIL);
    st = dmsg_g.tp.ops->word_wait(&dmsg_g.tp, set_ready, &sp, once);
    if (!once)
        dmsg_wait_leave();
    if (st)
        return st;
    /* A wait returns right after the poll that found the condition (its
     * outputs are in sp); a test looks once more after the progress step. */
    *nfound = !once || set_ready(&sp) ? sp.nfound : 0;
    return DMSG_OK;
}

int dmsg_wait_until_set(const dmsg_wait_set *ws, dmsg_wait_mode mode, size_t *indices,
                        size_t *nfound)
{
    return wait_set(ws, mode, indices, nfound, 0);
}

int dmsg_test_until_set(const dmsg_wait_set *ws, dmsg_wait_mode mode, size_t *indices,
                        size_t *nfound)
{
    return wait_set(ws, mode, indices, nfound, 1);
}
