/* Receives chosen by the caller's own match function, and a look at the
 * active receive buffer's bytes: what a PVM front end needs beyond source
 * and tag (message contexts, pvm_recvf, several receive buffers, pvm_precv's
 * truncation). The waits, room making and the active buffer work as in
 * postal_recv.c, whose dmsg_postal_recv this generalizes. */
#include <string.h>
#include "dmsg/core/work.h"
#include "dmsg/postal/postal.h"

static void describe(const chan_msg *m, dmsg_postal_info *info)
{
    if (info)
        *info = (dmsg_postal_info){.src = m->src, .tag = m->h.tag, .bytes = dmsg_postal_len(m),
                                   .ctx = dmsg_postal_ctx(m),
                                   .word = dmsg_postal_word(m)};
}

/* Scans the receivable messages in arrival order: the first one scored 1,
 * else the first of the highest score above 1. A negative score stops the
 * scan and is the caller's error (*err). */
static chan_msg *scan(dmsg_postal_match_fn fn, void *arg, int *err)
{
    double t0 = dmsg_postal_clock();
    chan_msg *best = NULL;
    int best_score = 0;
    dmsg_work w = {.kind = DMSG_WORK_MATCH, .n = 0};
    *err = 0;
    for (chan_msg *m = dmsg_postal_g.ch.head; m; m = m->next) {
        if (m->user != POSTAL_READY)
            continue;
        w.n++;
        dmsg_postal_info info;
        describe(m, &info);
        /* an announced large message has no bytes here yet: info says it all */
        int s = fn(arg, &info, dmsg_postal_announced(m) ? NULL : m->data);
        if (s < 0) {
            *err = s;
            best = NULL;
            break;
        }
        if (s == 1) {
            best = m;
            break;
        }
        if (s > best_score) {
            best_score = s;
            best = m;
        }
    }
    if (w.n)
        dmsg_work_book(&w);
    dmsg_postal_g.st.match_time += dmsg_postal_clock() - t0;
    return best;
}

/* Finds a match, driving progress, waiting only in DMSG_POSTAL_WAIT; a
 * fruitless search makes room for stuck senders either way (as
 * postal_recv.c's match does, so that polling gets what waiting gets). */
static dmsg_status find(dmsg_postal_match_fn fn, void *arg, int mode, chan_msg **out)
{
    chan *c = &dmsg_postal_g.ch;
    dmsg_status st;
    int did, err;
    chan_msg *m = scan(fn, arg, &err);
    while (!m && !err) {
        if ((st = dmsg_postal_progress()))
            return st;
        if ((m = scan(fn, arg, &err)) || err)
            break;
        if (mode != DMSG_POSTAL_WAIT) {
            if ((st = dmsg_chan_make_room(c, &did)))
                return st;
            break;
        }
        if ((st = dmsg_chan_wait(c)))
            return st;
    }
    if (err)
        return DMSG_FAIL(DMSG_ERR_ARG, "the match function returned %d", err);
    *out = m;
    return DMSG_OK;
}

static dmsg_status check_args(dmsg_postal_match_fn fn, int mode, int *found)
{
    if (!fn || !found)
        return DMSG_FAIL(DMSG_ERR_NULL, "%s is NULL", fn ? "found" : "the match function");
    if (mode != DMSG_POSTAL_PROBE && mode != DMSG_POSTAL_POLL && mode != DMSG_POSTAL_WAIT)
        return DMSG_FAIL(DMSG_ERR_ARG, "mode %d", mode);
    return DMSG_OK;
}

int dmsg_postal_match(dmsg_postal_match_fn fn, void *arg, int mode, int *found,
                      dmsg_postal_info *info)
{
    postal_state *g = &dmsg_postal_g;
    POSTAL_REQUIRE();
    dmsg_status st = check_args(fn, mode, found);
    if (st)
        return st;
    double t0 = dmsg_wtime();
    chan_msg *m = NULL;
    /* as dmsg_postal_recv: a receive frees the previous receive buffer */
    if (mode != DMSG_POSTAL_PROBE && (st = dmsg_postal_drop_active()))
        goto out;
    if ((st = find(fn, arg, mode, &m)))
        goto out;
    if (m && mode != DMSG_POSTAL_PROBE) {
        if ((st = dmsg_chan_take(&g->ch, m)))
            goto out;
        dmsg_chan_unlink(&g->ch, m);
        int into;
        if ((st = dmsg_postal_fetch(m, NULL, 0, 0, &into))) {
            dmsg_chan_release(&g->ch, m);
            goto out;
        }
        g->active = m;
        g->ch.held = m;
        g->upos = 0;
        g->st.received++;
    }
    *found = m != NULL;
    if (m)
        describe(m, info);
out:
    g->st.recv_time += dmsg_wtime() - t0;
    return st;
}

int dmsg_postal_match_copy(dmsg_postal_match_fn fn, void *arg, int mode, size_t skip, void *buf,
                           size_t cap, size_t *copied, int *found, dmsg_postal_info *info)
{
    postal_state *g = &dmsg_postal_g;
    POSTAL_REQUIRE();
    dmsg_status st = check_args(fn, mode, found);
    if (st)
        return st;
    if (mode == DMSG_POSTAL_PROBE)
        return DMSG_FAIL(DMSG_ERR_ARG, "a copying receive cannot only probe");
    if (!buf && cap)
        return DMSG_FAIL(DMSG_ERR_NULL, "buf is NULL");
    double t0 = dmsg_wtime();
    chan_msg *m = NULL;
    if ((st = find(fn, arg, mode, &m)) || !m) {
        if (!st)
            *found = 0;
        g->st.recv_time += dmsg_wtime() - t0;
        return st;
    }
    if ((st = dmsg_chan_take(&g->ch, m))) {
        g->st.recv_time += dmsg_wtime() - t0;
        return st;
    }
    dmsg_chan_unlink(&g->ch, m);
    size_t len = dmsg_postal_len(m), n = len > skip ? len - skip : 0;
    if (n > cap)
        n = cap; /* truncated, as pvm_precv */
    dmsg_postal_info whole;
    describe(m, &whole); /* before a fetch makes m an ordinary message */
    int into; /* a large message fetched straight into buf */
    st = dmsg_postal_fetch(m, buf, len > skip ? skip : len, n, &into);
    g->st.recv_time += dmsg_wtime() - t0;
    t0 = dmsg_postal_clock();
    if (!st && !into)
        st = dmsg_postal_copy(buf, 1, m->data + (len > skip ? skip : len), 1, n, 1);
    if (!st) {
        g->st.received++;
        g->st.unpack_bytes += n;
        *found = 1;
        if (copied)
            *copied = n;
        if (info)
            *info = whole;
    }
    dmsg_chan_release(&g->ch, m); /* consumed even when the copy or fetch failed */
    g->st.unpack_time += dmsg_postal_clock() - t0;
    return st;
}

int dmsg_postal_active(const void **data, size_t *bytes)
{
    postal_state *g = &dmsg_postal_g;
    POSTAL_REQUIRE();
    if (!data || !bytes)
        return DMSG_FAIL(DMSG_ERR_NULL, "%s is NULL", data ? "bytes" : "data");
    if (!g->active)
        return DMSG_FAIL(DMSG_ERR_STATE, "no active receive buffer");
    dmsg_status st = dmsg_postal_materialize();
    if (st)
        return st;
    *data = g->active->data;
    *bytes = (size_t)g->active->h.len;
    return DMSG_OK;
}
