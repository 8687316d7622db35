/* OpenSHMEM teams and contexts on dmsg's teams (dmsg_team_*). Splits,
 * destroy and sync are collectives (dmsg_shmem_coll_enter); the rest holds
 * the PE's lock under SHMEM_THREAD_MULTIPLE. */
#include <stdlib.h>
#include "dmsg/front/shmem/shmem_impl.h"

struct dmsg_shmem_team dmsg_shmem_team_world = {.t = DMSG_TEAM_WORLD, .live = 1};
struct dmsg_shmem_team dmsg_shmem_team_shared;
struct dmsg_shmem_ctx dmsg_shmem_ctx_default = {.team = &dmsg_shmem_team_world, .live = 1};

/* Every team and context record made: a destroyed one stays (so that a
 * later use is diagnosed) until shmem_finalize frees them all. */
static void **g_recs;
static size_t g_nrecs, g_caprecs;

/* Under the PE's lock (several threads may make contexts at once). */
static void *new_rec(size_t bytes)
{
    if (g_nrecs == g_caprecs) {
        size_t cap = g_caprecs ? 2 * g_caprecs : 16;
        void **r = realloc(g_recs, cap * sizeof *r);
        if (!r)
            return NULL;
        g_recs = r;
        g_caprecs = cap;
    }
    void *p = calloc(1, bytes);
    if (p)
        g_recs[g_nrecs++] = p;
    return p;
}

void dmsg_shmem_teams_fini(void)
{
    for (size_t i = 0; i < g_nrecs; i++)
        free(g_recs[i]);
    free(g_recs);
    g_recs = NULL;
    g_nrecs = g_caprecs = 0;
}

/* SHMEM_TEAM_SHARED is the PEs that shmem_ptr reaches (dmsg_pe_mapped):
 * on shm every PE of the job, on ofi and sim the PE alone. Reachability
 * groups PEs into classes (a host), each named by its lowest PE. */
int dmsg_shmem_teams_init(void)
{
    dmsg_team t;
    int color = 0;
    while (!dmsg_pe_mapped(color))
        color++; /* ends at this PE at the latest */
    if (dmsg_team_split_color(DMSG_TEAM_WORLD, color, dmsg_pe(), &t))
        return -1;
    dmsg_shmem_team_shared.t = t;
    dmsg_shmem_team_shared.live = 1;
    return 0;
}

dmsg_team dmsg_shmem_team_of(shmem_team_t team, const char *call)
{
    if (!team)
        return DMSG_TEAM_INVALID;
    if (!team->live)
        dmsg_shmem_die(call, 0, "team used after shmem_team_destroy");
    return team->t;
}

int dmsg_shmem_ctx_pe(shmem_ctx_t ctx, int pe, const char *call)
{
    if (!ctx || !ctx->live)
        dmsg_shmem_die(call, 0, ctx ? "context used after shmem_ctx_destroy" : "SHMEM_CTX_INVALID");
    if (ctx->team == SHMEM_TEAM_WORLD)
        return pe;
    dmsg_team t = dmsg_shmem_team_of(ctx->team, call);
    int w = dmsg_team_translate(t, pe, DMSG_TEAM_WORLD);
    if (w < 0)
        dmsg_shmem_die(call, w == -1 ? DMSG_ERR_PE : w, "PE not in the context's team");
    return w;
}

static shmem_team_t make_team(dmsg_team t, const shmem_team_config_t *config, long mask)
{
    if (t == DMSG_TEAM_INVALID)
        return SHMEM_TEAM_INVALID;
    struct dmsg_shmem_team *r = new_rec(sizeof *r);
    if (!r)
        dmsg_shmem_die("shmem_team_split", DMSG_ERR_NOMEM, NULL);
    r->t = t;
    r->live = 1;
    if (config && (mask & SHMEM_TEAM_NUM_CONTEXTS))
        r->cfg = *config;
    return r;
}

int shmem_team_my_pe(shmem_team_t team)
{
    dmsg_team t = dmsg_shmem_team_of(team, __func__);
    dmsg_shmem_lock(); /* another thread may split or free a team */
    int r = t ? dmsg_team_pe(t) : -1;
    dmsg_shmem_unlock();
    return r < 0 ? -1 : r;
}

int shmem_team_n_pes(shmem_team_t team)
{
    dmsg_team t = dmsg_shmem_team_of(team, __func__);
    dmsg_shmem_lock();
    int r = t ? dmsg_team_npes(t) : -1;
    dmsg_shmem_unlock();
    return r < 0 ? -1 : r;
}

int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config)
{
    if (!dmsg_shmem_team_of(team, __func__) || !config)
        return -1;
    if (config_mask & SHMEM_TEAM_NUM_CONTEXTS)
        config->num_contexts = team->cfg.num_contexts;
    return 0;
}

int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)
{
    dmsg_team a = dmsg_shmem_team_of(src_team, __func__);
    dmsg_team b = dmsg_shmem_team_of(dest_team, __func__);
    if (!a || !b)
        return -1;
    dmsg_shmem_lock();
    int r = dmsg_team_translate(a, src_pe, b);
    dmsg_shmem_unlock();
    return r < 0 ? -1 : r;
}

int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team)
{
    dmsg_team p = dmsg_shmem_team_of(parent_team, __func__), t;
    if (new_team)
        *new_team = SHMEM_TEAM_INVALID;
    if (!p || !new_team)
        return -1;
    if (size == 1 && stride == 0)
        stride = 1;
    /* dmsg fails a split on every parent member alike (a full team table
     * too), as OpenSHMEM programs expect. */
    dmsg_shmem_coll_enter(__func__, p, NULL);
    int st = dmsg_team_split_strided(p, start, stride, size, &t);
    if (!st)
        *new_team = make_team(t, config, config_mask);
    dmsg_shmem_coll_leave();
    return st ? -1 : 0;
}

int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team)
{
    dmsg_team p = dmsg_shmem_team_of(parent_team, __func__), x, y;
    if (xaxis_team)
        *xaxis_team = SHMEM_TEAM_INVALID;
    if (yaxis_team)
        *yaxis_team = SHMEM_TEAM_INVALID;
    if (!p || !xaxis_team || !yaxis_team || xrange < 1)
        return -1;
    dmsg_shmem_coll_enter(__func__, p, NULL);
    int me = dmsg_team_pe(p), n = dmsg_team_npes(p), r = -1;
    if (me < 0 || n < 0)
        goto out;
    if (xrange > n)
        xrange = n;
    /* Rows hold xrange consecutive PEs; columns the PEs of equal x. */
    if (dmsg_team_split_color(p, me / xrange, me, &x))
        goto out;
    if (dmsg_team_split_color(p, me % xrange, me, &y)) {
        dmsg_team_free(x);
        goto out;
    }
    *xaxis_team = make_team(x, xaxis_config, xaxis_mask);
    *yaxis_team = make_team(y, yaxis_config, yaxis_mask);
    r = 0;
out:
    dmsg_shmem_coll_leave();
    return r;
}

void shmem_team_destroy(shmem_team_t team)
{
    dmsg_team t = dmsg_shmem_team_of(team, __func__);
    if (!t)
        return;
    if (team == SHMEM_TEAM_WORLD || team == SHMEM_TEAM_SHARED)
        dmsg_shmem_die(__func__, 0, "a predefined team cannot be destroyed");
    dmsg_shmem_coll_enter(__func__, t, NULL);
    int st = dmsg_team_free(t);
    dmsg_shmem_coll_leave();
    if (st)
        dmsg_shmem_die(__func__, st, NULL);
    /* Kept, marked dead, so that a later use is diagnosed. */
    team->live = 0;
}

int shmem_team_sync(shmem_team_t team)
{
    dmsg_team t = dmsg_shmem_team_of(team, __func__);
    if (!t)
        return -1;
    dmsg_shmem_coll_enter(__func__, t, NULL);
    int st = dmsg_team_sync(t);
    dmsg_shmem_coll_leave();
    if (st)
        dmsg_shmem_die(__func__, st, NULL);
    return 0;
}

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    if (ctx)
        *ctx = SHMEM_CTX_INVALID;
    if (!ctx || !dmsg_shmem_team_of(team, __func__))
        return -1;
    dmsg_shmem_lock();
    struct dmsg_shmem_ctx *c = new_rec(sizeof *c);
    dmsg_shmem_unlock();
    if (!c)
        return -1;
    c->team = team;
    c->options = options;
    c->live = 1;
    *ctx = c;
    return 0;
}

int shmem_ctx_create(long options, shmem_ctx_t *ctx)
{
    return shmem_team_create_ctx(SHMEM_TEAM_WORLD, options, ctx);
}

void shmem_ctx_destroy(shmem_ctx_t ctx)
{
    if (!ctx || ctx == SHMEM_CTX_DEFAULT)
        return;
    if (!ctx->live)
        dmsg_shmem_die(__func__, 0, "context destroyed twice");
    /* Destroying completes the context's operations. */
    dmsg_shmem_lock();
    dmsg_quiet();
    dmsg_shmem_unlock();
    ctx->live = 0;
}

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
    if (!ctx || !ctx->live || !team) {
        if (team)
            *team = SHMEM_TEAM_INVALID;
        return -1;
    }
    *team = ctx->team;
    return 0;
}

void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe)
{
    dmsg_team t = dmsg_shmem_team_of(team, __func__);
    dmsg_shmem_lock();
    int w = t ? dmsg_team_translate(t, pe, DMSG_TEAM_WORLD) : -1;
    dmsg_shmem_unlock();
    return w < 0 ? NULL : shmem_ptr(dest, w);
}
