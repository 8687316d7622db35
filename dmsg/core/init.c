/* Joining and leaving the job; rank, size, clock. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "dmsg/boot/job.h"
#include "dmsg/core/state.h"

dmsg_state dmsg_g;

static const dmsg_tp_ops *const transports[] = {&dmsg_tp_shm_ops, &dmsg_tp_sim_ops,
                                                &dmsg_tp_ofi_ops};

static const dmsg_tp_ops *find_transport(const char *name)
{
    for (size_t i = 0; i < sizeof transports / sizeof transports[0]; i++)
        if (!strcmp(transports[i]->name, name))
            return transports[i];
    return NULL;
}

int dmsg_transport_known(const char *name)
{
    return find_transport(name) != NULL;
}

const char *dmsg_transport_list(void)
{
    /* Built from the table, so a new transport is never missing from a message. */
    static char list[128];
    if (!list[0])
        for (size_t i = 0; i < sizeof transports / sizeof transports[0]; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                     transports[i]->name);
    return list;
}

int dmsg_init(void)
{
    dmsg_state *g = &dmsg_g;
    char err[256];
    dmsg_status st;
    dmsg_boot boot;

    if (g->initialized)
        return DMSG_FAIL(DMSG_ERR_STATE, "dmsg_init called twice");
    memset(g, 0, sizeof *g);
    if (dmsg_env_load(&g->cfg, err, sizeof err)) {
        /* Misconfiguration is reported even without DMSG_DEBUG: nothing runs. */
        if (dmsg_boot_env_rank() == 0)
            fprintf(stderr, "dmsg: %s\n", err);
        return DMSG_ERR_ENV;
    }
    dmsg_debug_level = g->cfg.debug;
    const dmsg_tp_ops *ops = find_transport(g->cfg.transport);
    if (!ops) {
        if (dmsg_boot_env_rank() == 0)
            fprintf(stderr,
                    "dmsg: DMSG_TRANSPORT=%s is not a transport of this build (%s)\n",
                    g->cfg.transport, dmsg_transport_list());
        return DMSG_ERR_ENV;
    }
    st = dmsg_boot_start(&boot, g->cfg.seg_size, g->cfg.max_counters);
    if (st)
        return st;
    g->tp.ops = ops;
    g->tp.cfg = &g->cfg;
    st = ops->init(&g->tp, &boot);
    if (st)
        goto err_boot;
    g->seg = g->tp.seg ? g->tp.seg[g->tp.rank] : NULL;
    st = dmsg_heap_init(&g->heap, g->tp.seg_size);
    if (st)
        goto err_tp;
    g->ctr_gen = calloc(g->tp.max_counters, sizeof *g->ctr_gen);
    g->coll_buf = calloc((size_t)g->tp.npes, sizeof *g->coll_buf);
    if (!g->ctr_gen || !g->coll_buf) {
        st = DMSG_FAIL(DMSG_ERR_NOMEM, "counter table");
        goto err_tables;
    }
    g->xp.tile_bytes = (size_t)g->cfg.tile_bytes;
    g->initialized = 1;
    return DMSG_OK;

err_tables:
    free(g->coll_buf);
    free(g->ctr_gen);
    dmsg_heap_fini(&g->heap);
err_tp:
    ops->finalize(&g->tp);
    return st; /* the transport owns what the boot acquired */
err_boot:
    dmsg_boot_end(&boot);
    return st;
}

int dmsg_finalize(void)
{
    dmsg_state *g = &dmsg_g;
    DMSG_REQUIRE_INIT();
    /* Complete everything in flight everywhere before anyone unmaps. */
    dmsg_status st = g->tp.ops->barrier(&g->tp);
    g->tp.ops->finalize(&g->tp);
    free(g->coll_buf);
    free(g->ctr_gen);
    dmsg_heap_fini(&g->heap);
    memset(g, 0, sizeof *g);
    return st;
}

int dmsg_pe(void)
{
    return dmsg_g.initialized ? dmsg_g.tp.rank : -1;
}

int dmsg_npes(void)
{
    return dmsg_g.initialized ? dmsg_g.tp.npes : 0;
}

const char *dmsg_transport_name(void)
{
    return dmsg_g.initialized ? dmsg_g.tp.ops->name : NULL;
}

double dmsg_wtime(void)
{
    if (dmsg_g.initialized && dmsg_g.tp.ops->wtime)
        return dmsg_g.tp.ops->wtime(&dmsg_g.tp);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int dmsg_times_get(dmsg_times *t)
{
    DMSG_REQUIRE_INIT();
    if (!t)
        return DMSG_FAIL(DMSG_ERR_NULL, "dmsg_times_get: t is NULL");
    if (!dmsg_g.tp.ops->times)
        return DMSG_FAIL(DMSG_ERR_UNSUPPORTED, "transport %s keeps no time breakdown",
                         dmsg_g.tp.ops->name);
    dmsg_g.tp.ops->times(&dmsg_g.tp, t);
    return DMSG_OK;
}

size_t dmsg_segment_size(void)
{
    return dmsg_g.initialized ? dmsg_g.tp.seg_size : 0;
}
