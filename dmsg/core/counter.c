/* Deposit counter handles: (generation << 32) | (slot + 1). The generation
 * is odd while the counter lives, so a destroyed or never-created handle is
 * recognised locally, and because counters are created and destroyed
 * collectively every PE holds the same table. */
#include <stdlib.h>
#include "dmsg/core/checker.h"
#include "dmsg/core/ctr_many.h"
#include "dmsg/core/state.h"

int dmsg_ctr_create(dmsg_ctr *ctr)
{
    dmsg_state *g = &dmsg_g;
    DMSG_REQUIRE_INIT();
    dmsg_status bad = ctr ? DMSG_OK : DMSG_FAIL(DMSG_ERR_NULL, "dmsg_ctr_create: ctr is NULL");
    uint32_t slot = 0;
    while (slot < g->ctr_user && (g->ctr_gen[slot] & 1))
        slot++;
    /* Zero our instance before the check's barriers: nobody can deposit to
     * it before the call returns everywhere. A failure is this PE's verdict
     * in the check, so every PE returns it. */
    if (slot < g->ctr_user) {
        dmsg_status rst = g->tp.ops->ctr_reset(&g->tp, slot);
        bad = bad ? bad : rst;
    }
    if (!bad && slot == g->ctr_user)
        bad = DMSG_FAIL(DMSG_ERR_NOMEM, "all %u counters in use (DMSG_MAX_COUNTERS)",
                        g->ctr_user);
    dmsg_status st = dmsg_coll_check(DMSG_COLL_CTR_CREATE, slot, bad);
    if (st)
        return st;
    g->ctr_gen[slot]++;
    dmsg_chk_ctr_reset(slot);
    *ctr = ((dmsg_ctr)g->ctr_gen[slot] << 32) | (slot + 1);
    return DMSG_OK;
}

int dmsg_ctr_destroy(dmsg_ctr ctr)
{
    dmsg_state *g = &dmsg_g;
    DMSG_REQUIRE_INIT();
    uint32_t slot;
    dmsg_status bad = dmsg_ctr_slot(ctr, 0, &slot);
    /* A team's counter is destroyed over that team only (dmsg/coll/). */
    if (!bad && g->ctr_team[slot] && g->coll_ctr_destroy)
        return g->coll_ctr_destroy(ctr, slot);
    /* Agree first (also the barrier that completes deposits to it). */
    dmsg_status st = dmsg_coll_check(DMSG_COLL_CTR_DESTROY, ctr, bad);
    if (st)
        return st;
    g->ctr_gen[slot]++;
    return DMSG_OK;
}

/* One word for the agreement: n and the slots (or handles), FNV-1a. */
static uint64_t mix(uint64_t h, uint64_t v)
{
    for (int i = 0; i < 8; i++, v >>= 8)
        h = (h ^ (v & 0xff)) * 0x100000001b3ull;
    return h;
}

dmsg_status dmsg_ctr_create_many(dmsg_ctr *ctrs, size_t n)
{
    dmsg_state *g = &dmsg_g;
    DMSG_REQUIRE_INIT();
    dmsg_status bad =
        ctrs || !n ? DMSG_OK : DMSG_FAIL(DMSG_ERR_NULL, "dmsg_ctr_create_many: ctrs is NULL");
    /* The slots n calls of dmsg_ctr_create would take, lowest free first;
     * agreed as a hash, computed alike whatever this PE's own verdict, so
     * that a local failure is reported as itself, not as a disagreement. */
    size_t found = 0;
    uint64_t h = mix(0xcbf29ce484222325ull, n);
    for (uint32_t slot = 0; found < n && slot < g->ctr_user; slot++)
        if (!(g->ctr_gen[slot] & 1)) {
            found++;
            h = mix(h, slot);
        }
    if (!bad && found < n)
        bad = DMSG_FAIL(DMSG_ERR_NOMEM, "%zu counters asked for, %zu of %u free (DMSG_MAX_COUNTERS)",
                        n, found, g->ctr_user);
    uint32_t *slots = NULL;
    if (!bad && n && !(slots = malloc(n * sizeof *slots)))
        bad = DMSG_FAIL(DMSG_ERR_NOMEM, "%zu counter slots", n);
    found = 0;
    for (uint32_t slot = 0; slots && found < n; slot++)
        if (!(g->ctr_gen[slot] & 1))
            slots[found++] = slot;
    /* Zeroed before the check's barriers: nobody deposits to them before
     * the call returns everywhere. */
    for (size_t i = 0; !bad && i < n; i++)
        bad = g->tp.ops->ctr_reset(&g->tp, slots[i]);
    dmsg_status st = dmsg_coll_check(DMSG_COLL_CTR_CREATE_MANY, h, bad);
    for (size_t i = 0; !st && i < n; i++) {
        g->ctr_gen[slots[i]]++;
        dmsg_chk_ctr_reset(slots[i]);
        ctrs[i] = ((dmsg_ctr)g->ctr_gen[slots[i]] << 32) | (slots[i] + 1);
    }
    free(slots);
    return st;
}

dmsg_status dmsg_ctr_destroy_many(const dmsg_ctr *ctrs, size_t n)
{
    dmsg_state *g = &dmsg_g;
    DMSG_REQUIRE_INIT();
    dmsg_status bad =
        ctrs || !n ? DMSG_OK : DMSG_FAIL(DMSG_ERR_NULL, "dmsg_ctr_destroy_many: ctrs is NULL");
    /* A handle twice would end its slot's life twice: its generation would
     * come out odd, alive again. */
    unsigned char *seen = n && !bad ? calloc(g->ctr_user ? g->ctr_user : 1, 1) : NULL;
    if (n && !bad && !seen)
        bad = DMSG_FAIL(DMSG_ERR_NOMEM, "%u counter marks", g->ctr_user);
    uint64_t h = mix(0xcbf29ce484222325ull, n);
    for (size_t i = 0; ctrs && i < n; i++)
        h = mix(h, ctrs[i]);
    for (size_t i = 0; !bad && i < n; i++) {
        uint32_t slot;
        bad = dmsg_ctr_slot(ctrs[i], 0, &slot);
        if (!bad && g->ctr_team[slot])
            bad = DMSG_FAIL(DMSG_ERR_ARG, "counter %zu of %zu belongs to a team", i, n);
        if (!bad && seen[slot]++)
            bad = DMSG_FAIL(DMSG_ERR_ARG, "counter %zu of %zu is given twice", i, n);
    }
    free(seen);
    /* Agree first (also the barrier that completes deposits to them). */
    dmsg_status st = dmsg_coll_check(DMSG_COLL_CTR_DESTROY_MANY, h, bad);
    for (size_t i = 0; !st && i < n; i++)
        g->ctr_gen[(uint32_t)(ctrs[i] & 0xffffffffu) - 1]++;
    return st;
}

static int await(dmsg_ctr ctr, int bytes_mode, uint64_t n, const void *ra)
{
    dmsg_state *g = &dmsg_g;
    DMSG_REQUIRE_INIT();
    uint32_t slot;
    dmsg_status st = dmsg_ctr_slot(ctr, 0, &slot);
    if (st || n == 0)
        return st;
    dmsg_wait_enter(DMSG_WAIT_AWAIT);
    if (g->check)
        st = dmsg_chk_await(slot, bytes_mode, n, ra);
    else
        st = g->tp.ops->ctr_wait(&g->tp, slot, bytes_mode, n);
    dmsg_wait_leave();
    return st;
}

int dmsg_await(dmsg_ctr ctr, uint64_t msgs)
{
    return await(ctr, 0, msgs, __builtin_return_address(0));
}

int dmsg_await_bytes(dmsg_ctr ctr, uint64_t bytes)
{
    return await(ctr, 1, bytes, __builtin_return_address(0));
}

int dmsg_ctr_read(dmsg_ctr ctr, uint64_t *msgs, uint64_t *bytes)
{
    dmsg_state *g = &dmsg_g;
    DMSG_REQUIRE_INIT();
    uint32_t slot;
    dmsg_status st = dmsg_ctr_slot(ctr, 0, &slot);
    if (st)
        return st;
    uint64_t m, b;
    if ((st = g->tp.ops->ctr_read(&g->tp, slot, &m, &b)))
        return st;
    if (msgs)
        *msgs = m;
    if (bytes)
        *bytes = b;
    return DMSG_OK;
}
