/* Deposit counter handles: (generation << 32) | (slot + 1). The generation
 * is odd while the counter lives, so a destroyed or never-created handle is
 * recognised locally, and because counters are created and destroyed
 * collectively every PE holds the same table. */
#include "dmsg/core/checker.h"
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
