/* The postal layer's lifetime: init, flush, finalize, statistics. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "dmsg/core/at_fini.h"
#include "dmsg/core/work.h"
#include "dmsg/postal/postal.h"
#include "dmsg/postal/settings.h"

postal_state dmsg_postal_g;

/* The layer is the job's: a program that ends the job without
 * dmsg_postal_finalize can start the layer again in its next job. */
static void postal_forget(void)
{
    postal_state *g = &dmsg_postal_g;
    if (!g->started)
        return;
    if (g->active) {
        dmsg_chan_release(&g->ch, g->active);
        g->ch.held = NULL;
    }
    dmsg_chan_forget(&g->ch);
    free(g->sbuf.p);
    free(g->pbuf.p);
    memset(g, 0, sizeof *g);
}

int dmsg_postal_init(void)
{
    postal_state *g = &dmsg_postal_g;
    if (dmsg_pe() < 0)
        return DMSG_FAIL(DMSG_ERR_NOT_INIT, "dmsg_postal_init before dmsg_init");
    if (g->started)
        return DMSG_FAIL(DMSG_ERR_STATE, "dmsg_postal_init twice");
    dmsg_postal_config cfg;
    /* The detail names the setting (dmsgrun refuses it before the job starts). */
    dmsg_status st = dmsg_postal_config_load(&cfg);
    if (st) return st;
    if ((st = dmsg_at_finalize(postal_forget)))
        return st;
    postal_state n;
    memset(&n, 0, sizeof n);
    st = dmsg_chan_open(&n.ch, cfg.mailbox, cfg.queue);
    if (st)
        return st;
    /* The landing window of large messages and its counter (collective). */
    if (cfg.window) {
        /* A segment without room for it (the same verdict on every PE):
         * large messages travel as fragments. */
        st = dmsg_alloc((size_t)cfg.window, (void **)&n.win);
        if (!st && (st = dmsg_alloc(CHAN_HDR + (size_t)cfg.window, (void **)&n.owin)))
            dmsg_free(n.win);
        if (st == DMSG_ERR_NOMEM) {
            n.win = n.owin = NULL;
            cfg.window = 0;
        } else if (st) {
            dmsg_chan_close(&n.ch);
            return st;
        }
    }
    if (cfg.window && (st = dmsg_ctr_create(&n.bulk))) {
        /* No counter left for it (DMSG_MAX_COUNTERS, the same verdict on
         * every PE): fragments too, as before windows existed. */
        dmsg_free(n.owin);
        dmsg_free(n.win);
        n.win = n.owin = NULL;
        if (st != DMSG_ERR_NOMEM) {
            dmsg_chan_close(&n.ch);
            return st;
        }
        cfg.window = 0;
    }
    if (cfg.window) {
        n.winsize = (size_t)cfg.window;
        n.ch.serve = dmsg_postal_serve;
    }
    n.started = 1;
    *g = n;
    return DMSG_OK;
}

int dmsg_postal_finalize(void)
{
    postal_state *g = &dmsg_postal_g;
    POSTAL_REQUIRE();
    /* a lazy active buffer's sender needs no DONE: every out-window goes now */
    if (g->active) {
        dmsg_chan_release(&g->ch, g->active);
        g->active = NULL;
        g->ch.held = NULL;
    }
    dmsg_status st = dmsg_chan_close(&g->ch); /* frees messages being reassembled too */
    if (g->win) {
        dmsg_status s2 = dmsg_ctr_destroy(g->bulk);
        st = st ? st : s2;
        s2 = dmsg_free(g->win);
        st = st ? st : s2;
        s2 = dmsg_free(g->owin);
        st = st ? st : s2;
    }
    dmsg_postal_bulk_free();
    memset(g, 0, sizeof *g);
    return st;
}

int dmsg_postal_barrier(void)
{
    postal_state *g = &dmsg_postal_g;
    POSTAL_REQUIRE();
    double t0 = dmsg_wtime();
    /* The active buffer does not hold room a stuck sender needs: the
     * drain's waits move it out (dmsg_chan_make_room). */
    dmsg_status st = dmsg_chan_drain(&g->ch, 0);
    if (!st)
        st = dmsg_postal_progress();
    if (!st)
        st = dmsg_sync();
    g->st.recv_time += dmsg_wtime() - t0;
    return st;
}

int dmsg_postal_flush(void)
{
    postal_state *g = &dmsg_postal_g;
    POSTAL_REQUIRE();
    double t0 = dmsg_wtime();
    dmsg_status st;
    while (!(st = dmsg_chan_progress(&g->ch)) && dmsg_chan_queued(&g->ch))
        if ((st = dmsg_chan_wait(&g->ch)))
            break;
    g->st.send_time += dmsg_wtime() - t0;
    return st;
}

int dmsg_postal_stats_get(dmsg_postal_stats *stats)
{
    postal_state *g = &dmsg_postal_g;
    POSTAL_REQUIRE();
    if (!stats)
        return DMSG_FAIL(DMSG_ERR_NULL, "stats is NULL");
    dmsg_postal_stats s = g->st;
    const chan_stats *c = &g->ch.st;
    s.queued = c->queued;
    s.spilled = c->spilled;
    s.control = c->control;
    s.transfer_bytes = c->transfer_bytes;
    s.queue_bytes = c->queue_bytes;
    s.spill_bytes = c->spill_bytes;
    s.unreceived = g->ch.nmsgs;
    s.match_time += c->t_scan;
    s.manage_time = c->t_manage;
    *stats = s;
    return DMSG_OK;
}

dmsg_status dmsg_postal_check_strided(const void *data, long n, long stride, size_t elem_size,
                                 size_t *bytes, size_t *span)
{
    if (elem_size != 1 && elem_size != 2 && elem_size != 4 && elem_size != 8 && elem_size != 16)
        return DMSG_FAIL(DMSG_ERR_ARG, "element size %zu (1, 2, 4, 8 or 16)", elem_size);
    if (n < 0)
        return DMSG_FAIL(DMSG_ERR_ARG, "negative count %ld", n);
    if (stride < 1)
        return DMSG_FAIL(DMSG_ERR_ARG, "stride %ld (at least 1)", stride);
    if (n > 0 && !data)
        return DMSG_FAIL(DMSG_ERR_NULL, "data is NULL");
    size_t b, s, step;
    if (__builtin_mul_overflow((size_t)n, elem_size, &b) ||
        __builtin_mul_overflow((size_t)stride, elem_size, &step) || step > PTRDIFF_MAX ||
        __builtin_mul_overflow((size_t)(n ? n - 1 : 0), (size_t)stride, &s) ||
        __builtin_mul_overflow(s, elem_size, &s) || __builtin_add_overflow(s, elem_size, &s) ||
        s > PTRDIFF_MAX)
        return DMSG_FAIL(DMSG_ERR_OVERFLOW, "%ld elements every %ld of %zu bytes", n, stride,
                         elem_size);
    *bytes = b;
    *span = n ? s : 0;
    return DMSG_OK;
}

dmsg_status dmsg_postal_copy(void *dst, ptrdiff_t dstride, const void *src, ptrdiff_t sstride,
                        size_t n, size_t elem_size)
{
    if (n == 0)
        return DMSG_OK;
    char *d = dst;
    const char *s = src;
    if (dstride == (ptrdiff_t)elem_size && sstride == (ptrdiff_t)elem_size)
        memcpy(d, s, n * elem_size);
    else
        for (size_t i = 0; i < n; i++, d += dstride, s += sstride)
            memcpy(d, s, elem_size);
    dmsg_work w = {.kind = DMSG_WORK_COPY, .n = n, .elem = elem_size, .src_stride = sstride,
                   .dst_stride = dstride};
    return dmsg_work_book(&w);
}
