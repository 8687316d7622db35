/* Joining and leaving the job; rank, size, clock. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dmsg/base/clock.h"
#include "dmsg/boot/exchange.h"
#include "dmsg/boot/job.h"
#include "dmsg/boot/launcher.h"
#include "dmsg/core/at_fini.h"
#include "dmsg/core/caps.h"
#include "dmsg/core/checker.h"
#include "dmsg/core/sigkeep.h"
#include "dmsg/core/state.h"

dmsg_state dmsg_g;

/* Before main, the launcher's variables leave the environment (see
 * launcher.h): a dmsg program that this one starts before its own dmsg_init
 * (system("./hello")) would otherwise join this job as this PE's rank, and
 * the job would hang. It lives in this file because every dmsg program
 * links the object that holds dmsg_init, also from the static library. */
__attribute__((constructor)) static void take_launcher_env(void)
{
    dmsg_boot_env_take();
}

int dmsg_init(void)
{
    dmsg_state *g = &dmsg_g;
    dmsg_status st;

    if (g->initialized)
        return DMSG_FAIL(DMSG_ERR_STATE, "dmsg_init called twice");
    memset(g, 0, sizeof *g);
    /* Misconfiguration is a detail (dmsg_last_error) for the application
     * to print; dmsgrun refuses bad settings before it starts the job. */
    if (dmsg_config_load(&g->cfg)) return DMSG_ERR_ENV; /* the detail names the setting */
    dmsg_debug_level = g->cfg.debug;
    unsigned long before = dmsg_error_count();
    const dmsg_tp_ops *ops = dmsg_tp_find(g->cfg.transport);
    if (!ops && dmsg_error_count() != before)
        return DMSG_ERR_UNSUPPORTED; /* an incomplete transport record: the detail says why */
    if (!ops)
        return DMSG_FAIL(DMSG_ERR_ENV, "DMSG_TRANSPORT=%s is not a transport of this build (%s)",
                         g->cfg.transport, dmsg_transport_list());
    /* About 10 KB, and dmsg_init runs once per process at a time. */
    static dmsg_sigkeep sigs;
    dmsg_sigkeep_save(&sigs);
    unsigned long errors = dmsg_error_count(); /* a detail after this is this init's */
    st = dmsg_boot_start(&g->boot, g->cfg.seg_size, DMSG_CTR_TABLE(&g->cfg),
                         g->cfg.pmix_library);
    if (st) {
        dmsg_sigkeep_restore(&sigs);
        dmsg_boot_note_failure(&g->boot, dmsg_last_error()); /* a launcher dmsg cannot join */
        return st;
    }
    g->boot.timeout = &g->tp.conf.timeout; /* the one home of the wait limit */
    g->tp.ops = ops;
    g->vtime = dmsg_tp_vtime(ops); /* by name once: dmsg_wtime asks for it on every call */
    g->tp.boot = &g->boot;
    g->tp.conf = (dmsg_tp_conf){.seg_size = g->cfg.seg_size,
                                .max_counters = DMSG_CTR_TABLE(&g->cfg),
                                .timeout = g->cfg.timeout,
                                .spin = g->cfg.spin,
                                .yield_us = g->cfg.yield_us,
                                .barrier = g->cfg.barrier_kind,
                                .xp = {.tile_bytes = (size_t)g->cfg.tile_bytes}};
    char tune_why[1400]; /* the copy engine's blocking from this host's profile (dmsg-ctm tune) */
    dmsg_xfer_params_tune(&g->tp.conf.xp, tune_why, sizeof tune_why);
    if (dmsg_debug_level && g->boot.rank == 0) {
        char pages[512];
        dmsg_job_huge_report(g->boot.fd, g->boot.hdr, pages, sizeof pages);
        dmsg_log_line("copy engine: %s; job segment pages: %s", tune_why, pages);
    }
    st = ops->init(&g->tp, &g->boot);
    dmsg_sigkeep_restore(&sigs);
    if (st)
        goto err_boot;
    g->seg = g->tp.seg;
    g->wait_word = g->boot.hdr ? &g->boot.hdr->pe_wait[g->boot.rank] : NULL;
    uint64_t heap_size = g->tp.seg_size, chk_bytes = 0;
    if (g->cfg.check) {
        /* The checker's log takes the top of the segment; every PE reads
         * the others' logs through the transport. */
        chk_bytes = dmsg_chk_bytes(g->tp.seg_size, g->cfg.check_log);
        if (chk_bytes == 0) {
            /* The detail reaches dmsgrun (err_boot), which prints it once. */
            st = DMSG_FAIL(DMSG_ERR_UNSUPPORTED,
                           "DMSG_CHECK=1 needs a segment of at least 8K and DMSG_CHECK_LOG at most "
                           "half of it (DMSG_SEGMENT_SIZE)");
            goto err_tp;
        }
        heap_size -= chk_bytes;
    }
    /* The collectives' scratch sits below the checker's window; counters
     * past the user's belong to the teams. */
    g->coll_bytes = dmsg_coll_scratch_bytes(&g->cfg);
    if (g->coll_bytes > heap_size / 2 || g->tp.max_counters < DMSG_CTR_TABLE(&g->cfg)) {
        st = DMSG_FAIL(DMSG_ERR_UNSUPPORTED,
                       "the segment (DMSG_SEGMENT_SIZE) is too small for the collectives' scratch "
                       "(DMSG_COLL_SCRATCH), or the counter table for DMSG_MAX_COUNTERS and the "
                       "teams' counters");
        goto err_tp;
    }
    uint64_t chk_off = heap_size; /* the checker's window starts above the scratch */
    heap_size -= g->coll_bytes;
    g->coll_off = heap_size;
    g->ctr_user = g->cfg.max_counters;
    g->coll_ctr0 = g->tp.max_counters - DMSG_COLL_CTRS;
    st = dmsg_heap_init(&g->heap, heap_size);
    if (st)
        goto err_tp;
    g->heap.fresh_first = g->cfg.check;
    g->ctr_gen = calloc(g->tp.max_counters, sizeof *g->ctr_gen);
    g->coll_buf = calloc((size_t)g->tp.npes, sizeof *g->coll_buf);
    g->ctr_team = calloc(g->tp.max_counters, sizeof *g->ctr_team);
    if (!g->ctr_gen || !g->coll_buf || !g->ctr_team) {
        st = DMSG_FAIL(DMSG_ERR_NOMEM, "counter table");
        goto err_tables;
    }
    if (g->cfg.check) {
        st = dmsg_chk_init(chk_off, chk_bytes);
        if (st)
            goto err_tables;
        g->check = 1;
    }
    /* The world team's counter lanes (dmsg/coll/) are set up here, then a
     * barrier, so that no lane is written before every PE has: some
     * transports register a counter only when it is reset. */
    for (uint32_t s = 0; s < DMSG_COLL_TEAM_CTRS; s++)
        if ((st = g->tp.ops->ctr_reset(&g->tp, g->coll_ctr0 + s)))
            goto err_chk;
    /* Marked as a wait, so that dmsgrun's report of a job that makes no
     * progress names the PEs still here (under the simulator's scheduler
     * every PE but the one that runs waits here until it is handed the
     * run token). */
    dmsg_wait_enter(DMSG_WAIT_INIT);
    st = g->tp.ops->barrier(&g->tp);
    dmsg_wait_leave();
    if (st)
        goto err_chk;
    g->initialized = 1;
    return DMSG_OK;

err_chk:
    g->check = 0;

err_tables:
    free(g->ctr_team);
    free(g->coll_buf);
    free(g->ctr_gen);
    dmsg_heap_fini(&g->heap);
err_tp:
    ops->finalize(&g->tp);
err_boot:
    /* Said once for the job (dmsg_boot_note_failure: dmsgrun prints it). */
    if (dmsg_error_count() != errors)
        dmsg_boot_note_failure(&g->boot, dmsg_last_error());
    dmsg_boot_end(&g->boot);
    return st;
}

int dmsg_finalize(void)
{
    dmsg_state *g = &dmsg_g;
    DMSG_REQUIRE_INIT();
    /* Complete everything in flight everywhere before anyone unmaps. */
    dmsg_wait_enter(DMSG_WAIT_FINALIZE);
    dmsg_chk_arrive();
    dmsg_status st = g->tp.ops->barrier(&g->tp);
    if (!st && g->check) {
        dmsg_chk_epoch_end();
        dmsg_chk_finalize();
        /* The others read this PE's log until they have checked. */
        st = g->tp.ops->barrier(&g->tp);
    }
    dmsg_wait_leave();
    dmsg_at_finalize_run(); /* the upper layers' per-job state ends here */
    g->wait_word = NULL;
    if (g->coll_fini)
        g->coll_fini(g->coll);
    g->tp.ops->finalize(&g->tp);
    dmsg_wait_policy_end();
    dmsg_boot_end(&g->boot);
    free(g->ctr_team);
    free(g->coll_buf);
    free(g->ctr_gen);
    dmsg_heap_fini(&g->heap);
    dmsg_reqset_fini(&g->reqs);
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
    const dmsg_tp_vtime_ops *v = dmsg_vtime();
    if (v)
        return v->wtime(&dmsg_g.tp);
    return dmsg_clock_now();
}

int dmsg_times_get(dmsg_times *t)
{
    DMSG_REQUIRE_INIT();
    if (!t)
        return DMSG_FAIL(DMSG_ERR_NULL, "dmsg_times_get: t is NULL");
    const dmsg_tp_vtime_ops *v = dmsg_vtime();
    if (!v)
        return DMSG_FAIL(DMSG_ERR_UNSUPPORTED, "transport %s keeps no time breakdown",
                         dmsg_g.tp.ops->name);
    v->times(&dmsg_g.tp, t);
    return DMSG_OK;
}

size_t dmsg_segment_size(void)
{
    return dmsg_g.initialized ? dmsg_g.tp.seg_size : 0;
}
