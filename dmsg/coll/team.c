/* Teams: handles, creation by split (collective over the parent only),
 * free, queries, team barrier, and counters created over a team. */
#include <stdlib.h>
#include <string.h>
#include "dmsg/coll/coll.h"
#include "dmsg/core/checker.h"

static void coll_fini(void *p)
{
    coll_state *c = p;
    if (!c)
        return;
    for (int i = 0; i < DMSG_MAX_TEAMS; i++) {
        free(c->t[i].members);
        free(c->t[i].tmp);
    }
    free(c);
}

static dmsg_status team_ctr_destroy(dmsg_ctr ctr, uint32_t slot);

/* Slot k's lanes and scratch region: the world (slot 0) has half of the
 * scratch, the other slots share the other half. */
static void place(coll_team *t, int k)
{
    dmsg_state *g = &dmsg_g;
    size_t half = g->coll_bytes / 2, bytes;
    if (k == 0) {
        t->reg_off = g->coll_off;
        bytes = half;
    } else {
        bytes = (half / (DMSG_MAX_TEAMS - 1)) & ~(size_t)63; /* regions stay 64-byte aligned */
        t->reg_off = g->coll_off + half + (size_t)(k - 1) * bytes;
    }
    /* The ring of short broadcasts takes an eighth (slots of 64 bytes to
     * COLL_RING_SLOT_MAX; none when that leaves under 64), the
     * generations the rest. */
    size_t slot = (bytes / 8 / DMSG_COLL_RING) & ~(size_t)63;
    t->ring_slot = slot > COLL_RING_SLOT_MAX ? COLL_RING_SLOT_MAX : slot;
    t->gen_bytes = ((bytes - t->ring_slot * DMSG_COLL_RING) / DMSG_COLL_GENS) & ~(size_t)63;
    t->ring_off = t->reg_off + DMSG_COLL_GENS * t->gen_bytes;
    t->lane0 = g->coll_ctr0 + (uint32_t)k * DMSG_COLL_TEAM_CTRS;
}

static coll_state *state(void)
{
    dmsg_state *g = &dmsg_g;
    if (g->coll)
        return g->coll;
    coll_state *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    coll_team *w = &c->t[0];
    c->lanes_ready = 1;
    w->used = 1;
    w->size = g->tp.npes;
    w->me = g->tp.rank;
    place(w, 0);
    dmsg_coll_team_fresh(w);
    g->coll = c;
    g->coll_fini = coll_fini;
    g->coll_ctr_destroy = team_ctr_destroy;
    return c;
}

int dmsg_coll_world(const coll_team *t, int r)
{
    return t->members ? t->members[r] : r;
}

dmsg_team dmsg_coll_team_handle(const coll_team *t)
{
    const coll_state *c = dmsg_g.coll;
    int k = (int)(t - c->t);
    return k == 0 ? DMSG_TEAM_WORLD : ((dmsg_team)t->gen << 16) | (dmsg_team)(k + 1);
}

dmsg_status dmsg_coll_team_get(dmsg_team h, coll_team **out)
{
    if (!dmsg_g.initialized)
        return DMSG_FAIL(DMSG_ERR_NOT_INIT, "team call before dmsg_init");
    coll_state *c = state();
    if (!c)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "team table");
    uint64_t k = (h & 0xffff) - 1;
    if (h == DMSG_TEAM_INVALID || k >= DMSG_MAX_TEAMS || !c->t[k].used ||
        (k > 0 && c->t[k].gen != (uint32_t)(h >> 16)) || (k == 0 && h != DMSG_TEAM_WORLD))
        return DMSG_FAIL(DMSG_ERR_TEAM, "team handle %#llx is not a live team of this PE",
                         (unsigned long long)h);
    *out = &c->t[k];
    return DMSG_OK;
}

dmsg_status dmsg_coll_tmp(coll_team *t, size_t bytes, unsigned char **out)
{
    if (bytes > t->tmp_cap) {
        unsigned char *n = realloc(t->tmp, bytes);
        if (!n)
            return DMSG_FAIL(DMSG_ERR_NOMEM, "%zu bytes of collective buffer", bytes);
        t->tmp = n;
        t->tmp_cap = bytes;
    }
    *out = t->tmp;
    return DMSG_OK;
}

/* Bitmap of the team slots this PE uses (bit k: slot k). */
static uint64_t used_slots(void)
{
    coll_state *c = dmsg_g.coll;
    uint64_t m = 0;
    for (int k = 0; k < DMSG_MAX_TEAMS; k++)
        if (c->t[k].used)
            m |= (uint64_t)1 << k;
    return m;
}

/* The slot a new team takes: the lowest that no parent member uses. */
static int pick_slot(uint64_t used)
{
    int k = 1;
    while (k < DMSG_MAX_TEAMS && (used >> k & 1))
        k++;
    return k;
}

/* Some transports set a counter up only when it is reset: the first time a
 * slot is taken (notready: the OR over the parent of the slots whose lanes
 * are not set up), the new members set its lanes up, and a barrier over
 * the parent keeps everyone from writing them before. */
static dmsg_status prepare_lanes(coll_team *p, uint64_t used, uint64_t notready, int member)
{
    dmsg_state *g = &dmsg_g;
    coll_state *c = g->coll;
    int k = pick_slot(used);
    if (k == DMSG_MAX_TEAMS || !(notready >> k & 1))
        return DMSG_OK;
    dmsg_status st = DMSG_OK;
    if (member && !(c->lanes_ready >> k & 1)) {
        coll_team tmp;
        place(&tmp, k);
        for (uint32_t s = 0; !st && s < DMSG_COLL_TEAM_CTRS; s++)
            st = g->tp.ops->ctr_reset(&g->tp, tmp.lane0 + s);
        if (!st)
            c->lanes_ready |= (uint64_t)1 << k;
    }
    dmsg_status bst = dmsg_coll_barrier(p);
    return st ? st : bst;
}

/* Whether a new team of up to n PEs fits, from what every parent member
 * knows alike (the slots in use anywhere in the parent), so that members
 * and non-members of the new team fail alike (dmsg.h's split contract). */
static dmsg_status team_fits(uint64_t used, int n)
{
    int k = pick_slot(used);
    if (k == DMSG_MAX_TEAMS)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "all %d team slots in use (DMSG_MAX_TEAMS)",
                         DMSG_MAX_TEAMS);
    coll_team tmp;
    memset(&tmp, 0, sizeof tmp);
    place(&tmp, k);
    tmp.size = n;
    if (n > 1 && dmsg_coll_rd_max(&tmp) < 128)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "collectives' scratch too small for a team of %d "
                                         "(DMSG_COLL_SCRATCH)", n);
    return DMSG_OK;
}

/* Sets up slot k for the members (world ranks, n of them, this PE's number
 * me); team_fits(used, n) has said it fits. */
static dmsg_status make_team(uint64_t used, int *members, int n, int me, dmsg_team *team)
{
    coll_state *c = dmsg_g.coll;
    int k = pick_slot(used);
    coll_team *t = &c->t[k];
    uint32_t gen = t->gen + 1;
    free(t->tmp);
    memset(t, 0, sizeof *t);
    t->used = 1;
    t->gen = gen;
    t->size = n;
    t->me = me;
    t->members = members;
    place(t, k);
    dmsg_coll_team_fresh(t);
    *team = dmsg_coll_team_handle(t);
    return DMSG_OK;
}

int dmsg_team_split_strided(dmsg_team parent, int start, int stride, int size, dmsg_team *team)
{
    coll_team *p;
    dmsg_status st = dmsg_coll_team_get(parent, &p);
    if (st)
        return st;
    dmsg_status bad = DMSG_OK;
    if (!team)
        bad = DMSG_FAIL(DMSG_ERR_NULL, "dmsg_team_split_strided: team is NULL");
    else if (size < 1 || (stride == 0 && size > 1) || start < 0 || start >= p->size ||
             (int64_t)start + (int64_t)stride * (size - 1) < 0 ||
             (int64_t)start + (int64_t)stride * (size - 1) >= p->size)
        bad = DMSG_FAIL(DMSG_ERR_ARG, "team of %d from %d by %d leaves the parent of %d", size,
                        start, stride, p->size);
    /* One agreement over the parent: the slots in use anywhere, the
     * arguments (as v and ~v, to see a disagreement) and the worst error. */
    coll_state *c = dmsg_g.coll;
    uint64_t w[9] = {used_slots(),
                     ~c->lanes_ready,
                     (uint64_t)(int64_t)start,
                     ~(uint64_t)(int64_t)start,
                     (uint64_t)(int64_t)stride,
                     ~(uint64_t)(int64_t)stride,
                     (uint64_t)(int64_t)size,
                     ~(uint64_t)(int64_t)size,
                     coll_err_word(bad)};
    dmsg_wait_enter(DMSG_WAIT_COLL);
    st = dmsg_coll_agree(p, w, 9, 2);
    dmsg_wait_leave();
    if (st)
        return st;
    if (w[2] != ~w[3] || w[4] != ~w[5] || w[6] != ~w[7])
        return DMSG_FAIL(DMSG_ERR_COLLECTIVE, "members of the parent split it differently");
    if ((st = coll_err_status(w[8])) || (st = team_fits(w[0], size)))
        return st;
    int me = -1;
    for (int i = 0; i < size; i++)
        if (start + i * stride == p->me)
            me = i;
    dmsg_wait_enter(DMSG_WAIT_COLL);
    st = prepare_lanes(p, w[0], w[1], me >= 0);
    dmsg_wait_leave();
    if (st)
        return st;
    if (me < 0) {
        *team = DMSG_TEAM_INVALID;
        return DMSG_OK;
    }
    int *members = malloc((size_t)size * sizeof *members);
    if (!members)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "team members");
    for (int i = 0; i < size; i++)
        members[i] = dmsg_coll_world(p, start + i * stride);
    return make_team(w[0], members, size, me, team);
}

typedef struct color_rec {
    int64_t color, key;
    uint64_t used, notready;
    int64_t bad;
} color_rec;

typedef struct gather_ctx {
    const unsigned char *src;
    unsigned char *dst;
    size_t bytes;
    int root; /* -1: everyone receives */
    int me;
} gather_ctx;

static const unsigned char *g_sblock(void *c, int j, size_t *n)
{
    gather_ctx *g = c;
    *n = g->bytes;
    return (g->root < 0 || j == g->root) ? g->src : NULL;
}

static unsigned char *g_rblock(void *c, int i, size_t *n)
{
    gather_ctx *g = c;
    *n = g->bytes;
    return (g->root < 0 || g->me == g->root) ? g->dst + (size_t)i * g->bytes : NULL;
}

int dmsg_team_split_color(dmsg_team parent, int color, int key, dmsg_team *team)
{
    coll_team *p;
    dmsg_status st = dmsg_coll_team_get(parent, &p);
    if (st)
        return st;
    color_rec mine = {color, key, used_slots(), ~((coll_state *)dmsg_g.coll)->lanes_ready,
                      team ? DMSG_OK : DMSG_FAIL(DMSG_ERR_NULL, "dmsg_team_split_color: team is NULL")};
    color_rec *all = malloc((size_t)p->size * sizeof *all);
    if (!all)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "split records");
    gather_ctx g = {(const unsigned char *)&mine, (unsigned char *)all, sizeof mine, -1, p->me};
    coll_plan plan = {g_sblock, g_rblock, &g, 1};
    dmsg_wait_enter(DMSG_WAIT_COLL);
    st = dmsg_coll_move(p, &plan, sizeof mine);
    dmsg_wait_leave();
    uint64_t used = 0, notready = 0;
    int n = 0, me = -1, most = 0;
    for (int i = 0; !st && i < p->size; i++) {
        used |= all[i].used;
        notready |= all[i].notready;
        if (all[i].bad && !st)
            st = (dmsg_status)all[i].bad;
    }
    /* The largest new team decides whether they all fit (a team's scratch
     * share shrinks with its size), on every parent member alike. */
    for (int i = 0; !st && i < p->size; i++) {
        int same = 0;
        for (int j = 0; all[i].color >= 0 && j < p->size; j++)
            same += all[j].color == all[i].color;
        if (same > most)
            most = same;
    }
    if (!st && most > 0)
        st = team_fits(used, most);
    int *members = NULL;
    if (!st && color >= 0) {
        members = malloc((size_t)p->size * sizeof *members);
        if (!members)
            st = DMSG_FAIL(DMSG_ERR_NOMEM, "team members");
        /* numbered by (key, parent number): an insertion sort of parent numbers */
        for (int i = 0; !st && i < p->size; i++) {
            if (all[i].color != color)
                continue;
            int j = n++;
            while (j > 0 && all[members[j - 1]].key > all[i].key) {
                members[j] = members[j - 1];
                j--;
            }
            members[j] = i;
        }
        for (int j = 0; !st && j < n; j++) {
            if (members[j] == p->me)
                me = j;
            members[j] = dmsg_coll_world(p, members[j]);
        }
    }
    free(all);
    if (!st) {
        dmsg_wait_enter(DMSG_WAIT_COLL);
        st = prepare_lanes(p, used, notready, color >= 0);
        dmsg_wait_leave();
    }
    if (st) {
        free(members);
        return st;
    }
    if (color < 0) {
        *team = DMSG_TEAM_INVALID;
        return DMSG_OK;
    }
    return make_team(used, members, n, me, team);
}

int dmsg_team_free(dmsg_team team)
{
    coll_team *t;
    dmsg_status st = dmsg_coll_team_get(team, &t);
    if (st)
        return st;
    if (team == DMSG_TEAM_WORLD)
        return DMSG_FAIL(DMSG_ERR_TEAM, "DMSG_TEAM_WORLD cannot be freed");
    /* The ring's lanes back at zero for the slot's next team. */
    dmsg_wait_enter(DMSG_WAIT_COLL);
    st = dmsg_coll_ring_drain(t);
    dmsg_wait_leave();
    if (st || (st = dmsg_team_sync(team)))
        return st;
    free(t->members);
    free(t->tmp);
    uint32_t gen = t->gen + 1;
    memset(t, 0, sizeof *t);
    t->gen = gen;
    return DMSG_OK;
}

int dmsg_team_pe(dmsg_team team)
{
    coll_team *t;
    dmsg_status st = dmsg_coll_team_get(team, &t);
    return st ? st : t->me;
}

int dmsg_team_npes(dmsg_team team)
{
    coll_team *t;
    dmsg_status st = dmsg_coll_team_get(team, &t);
    return st ? st : t->size;
}

int dmsg_team_translate(dmsg_team from, int pe, dmsg_team to)
{
    coll_team *f = NULL, *t = NULL;
    dmsg_status st = dmsg_coll_team_get(from, &f);
    if (!st)
        st = dmsg_coll_team_get(to, &t);
    if (st)
        return st;
    if (pe < 0 || pe >= f->size)
        return DMSG_FAIL(DMSG_ERR_PE, "PE %d is not in [0, %d) of the team", pe, f->size);
    int w = dmsg_coll_world(f, pe);
    if (!t->members)
        return w;
    for (int i = 0; i < t->size; i++)
        if (t->members[i] == w)
            return i;
    return -1;
}

int dmsg_team_sync(dmsg_team team)
{
    coll_team *t;
    dmsg_status st = dmsg_coll_team_get(team, &t);
    if (st)
        return st;
    dmsg_wait_enter(DMSG_WAIT_SYNC);
    st = dmsg_g.tp.ops->quiet(&dmsg_g.tp);
    if (!st)
        st = dmsg_coll_barrier(t);
    dmsg_wait_leave();
    return st;
}

int dmsg_ctr_create_team(dmsg_team team, dmsg_ctr *ctr)
{
    dmsg_state *g = &dmsg_g;
    if (team == DMSG_TEAM_WORLD && g->initialized)
        return dmsg_ctr_create(ctr);
    coll_team *t;
    dmsg_status st = dmsg_coll_team_get(team, &t);
    if (st)
        return st;
    /* The slots in use on any member (OR), then the highest free one, so
     * that world counters (taken from the bottom) rarely meet it. */
    size_t nw = (g->ctr_user + 63) / 64;
    uint64_t *w = calloc(nw + 1, sizeof *w);
    if (!w)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "counter bitmap");
    for (uint32_t s = 0; s < g->ctr_user; s++)
        if (g->ctr_gen[s] & 1)
            w[s / 64] |= (uint64_t)1 << (s % 64);
    w[nw] = coll_err_word(ctr ? DMSG_OK : DMSG_FAIL(DMSG_ERR_NULL, "ctr is NULL"));
    dmsg_wait_enter(DMSG_WAIT_COLL);
    if (nw + 1 <= dmsg_coll_rd_max(t) / 8) {
        st = dmsg_coll_agree(t, w, nw + 1, nw);
    } else {
        st = DMSG_FAIL(DMSG_ERR_NOMEM, "DMSG_MAX_COUNTERS too large for a team's scratch");
    }
    uint32_t slot = g->ctr_user;
    if (!st && (st = coll_err_status(w[nw])) == DMSG_OK) {
        while (slot > 0 && (w[(slot - 1) / 64] >> ((slot - 1) % 64) & 1))
            slot--;
        if (slot == 0)
            st = DMSG_FAIL(DMSG_ERR_NOMEM, "no counter free on every member (DMSG_MAX_COUNTERS)");
        else
            slot--;
    }
    free(w);
    /* Zeroed, then a barrier: nobody deposits to it before every member has. */
    if (!st)
        st = g->tp.ops->ctr_reset(&g->tp, slot);
    if (!st)
        st = dmsg_coll_barrier(t);
    dmsg_wait_leave();
    if (st)
        return st;
    g->ctr_gen[slot]++;
    g->ctr_team[slot] = team;
    dmsg_chk_ctr_reset(slot);
    *ctr = ((dmsg_ctr)g->ctr_gen[slot] << 32) | (slot + 1);
    return DMSG_OK;
}

static dmsg_status team_ctr_destroy(dmsg_ctr ctr, uint32_t slot)
{
    (void)ctr;
    dmsg_state *g = &dmsg_g;
    dmsg_status st = dmsg_team_sync(g->ctr_team[slot]);
    if (st)
        return st;
    g->ctr_gen[slot]++;
    g->ctr_team[slot] = 0;
    return DMSG_OK;
}
