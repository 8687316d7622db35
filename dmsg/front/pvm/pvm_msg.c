/* PVM sending and receiving over postal: every message carries its context
 * in its postal header; receives choose by tid, tag and context (or by the
 * program's own pvm_recvf function) through dmsg_postal_match. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "dmsg/front/pvm/pvm_impl.h"

#define ENROLL()                                                                                   \
    do {                                                                                           \
        int rc_ = dmsg_pvm_enroll();                                                               \
        if (rc_)                                                                                   \
            return rc_;                                                                            \
    } while (0)

typedef struct want {
    int pe, tag, ctx;     /* pe, tag: -1 any */
    int tid;              /* the caller's tid argument (for pvm_recvf) */
    int (*fn)(int, int, int);
    int tmp;              /* the buffer id shown to fn */
    int killed;           /* a kill notice was chosen */
} want;

static int matcher(void *arg, const dmsg_postal_info *info, const void *data)
{
    want *w = arg;
    int ctx = info->ctx; /* data may be NULL: a large message only announced */
    if (ctx == PVM_CTX_KILL) {
        w->killed = 1;
        return 1;
    }
    if (ctx != w->ctx)
        return 0;
    if (!w->fn)
        return (w->pe < 0 || info->src == w->pe) && (w->tag < 0 || info->tag == w->tag);
    pvm_buf *b = dmsg_pvm_buf(w->tmp);
    b->recvd = 1;
    b->src = info->src;
    b->tag = info->tag;
    b->ctx = ctx;
    b->len = info->bytes;
    b->wid = info->word;
    b->dst = dmsg_pvm_tid(dmsg_pvm_g.me);
    return w->fn(w->tmp, w->tid, w->tag);
}

/* dmsg_postal_match and _copy with this file's matcher; a kill notice
 * they chose ends the task (pvm_kill). */
static int pmatch(want *w, int mode, int *found, dmsg_postal_info *info)
{
    int st = dmsg_postal_match(matcher, w, mode, found, info);
    if (w->killed)
        dmsg_pvm_die();
    return st;
}

static int pcopy(want *w, int mode, size_t skip, void *buf, size_t cap, size_t *copied,
                 int *found, dmsg_postal_info *info)
{
    int st = dmsg_postal_match_copy(matcher, w, mode, skip, buf, cap, copied, found, info);
    if (w->killed)
        dmsg_pvm_die();
    return st;
}

static int check_src(int tid, int tag, want *w)
{
    pvm_state *g = &dmsg_pvm_g;
    if (tag < -1 || (tid != -1 && dmsg_pvm_pe(tid) < 0))
        return PvmBadParam;
    *w = (want){.pe = tid == -1 ? -1 : dmsg_pvm_pe(tid), .tag = tag, .ctx = g->ctx, .tid = tid,
                .fn = g->recvf};
    if (w->fn) {
        int id = dmsg_pvm_newbuf(PvmDataDefault);
        if (id < 0)
            return id;
        w->tmp = id;
    }
    return PvmOk;
}

static void done_want(want *w)
{
    if (w->tmp)
        dmsg_pvm_dropbuf(w->tmp);
}

/* Before postal's active buffer takes another message: the buffer
 * attached to it is freed when it is the active receive buffer (as PVM's
 * receives clear it), else it moves into its own memory. */
static int make_way(int free_rbuf)
{
    pvm_state *g = &dmsg_pvm_g;
    if (free_rbuf && g->rbuf) {
        dmsg_pvm_dropbuf(g->rbuf);
        g->rbuf = 0;
    }
    for (int i = 1; i < g->nbufs; i++)
        if (g->bufs[i].used && g->bufs[i].attached) {
            int rc = dmsg_pvm_detach(&g->bufs[i]);
            if (rc)
                return rc;
        }
    return PvmOk;
}

/* Receives (mode POLL or WAIT) into a new active receive buffer: its id,
 * 0 when POLL found nothing, or an error. */
static int receive(want *w, int mode)
{
    pvm_state *g = &dmsg_pvm_g;
    int found, st;
    dmsg_postal_info info;
    if (mode == DMSG_POSTAL_POLL) {
        /* nothing there: the current receive buffer stays */
        if ((st = pmatch(w, DMSG_POSTAL_PROBE, &found, &info)))
            return dmsg_pvm_from_status(st);
        if (!found)
            return 0;
    }
    int id = dmsg_pvm_newbuf(PvmDataDefault);
    if (id < 0)
        return id;
    int rc = make_way(1);
    if (rc) {
        dmsg_pvm_dropbuf(id);
        return rc;
    }
    st = pmatch(w, mode, &found, &info);
    if (st || !found) {
        dmsg_pvm_dropbuf(id);
        return st ? dmsg_pvm_from_status(st) : 0;
    }
    pvm_buf *b = &g->bufs[id];
    b->recvd = 1;
    b->attached = 1;
    b->src = info.src;
    b->tag = info.tag;
    b->ctx = info.ctx;
    b->len = info.bytes;
    b->wid = info.word;
    b->dst = dmsg_pvm_tid(g->me);
    g->rbuf = id;
    return id;
}

int pvm_recv(int tid, int msgtag)
{
    ENROLL();
    want w;
    int rc = check_src(tid, msgtag, &w);
    if (rc)
        return dmsg_pvm_err(rc);
    rc = receive(&w, DMSG_POSTAL_WAIT);
    done_want(&w);
    return rc < 0 ? dmsg_pvm_err(rc) : rc;
}

int pvm_nrecv(int tid, int msgtag)
{
    ENROLL();
    want w;
    int rc = check_src(tid, msgtag, &w);
    if (rc)
        return dmsg_pvm_err(rc);
    rc = receive(&w, DMSG_POSTAL_POLL);
    done_want(&w);
    return rc < 0 ? dmsg_pvm_err(rc) : rc;
}

int pvm_trecv(int tid, int msgtag, struct timeval *tmout)
{
    ENROLL();
    if (!tmout)
        return pvm_recv(tid, msgtag);
    if (tmout->tv_sec < 0 || tmout->tv_usec < 0)
        return dmsg_pvm_err(PvmBadParam);
    want w;
    int rc = check_src(tid, msgtag, &w);
    if (rc)
        return dmsg_pvm_err(rc);
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    double limit = (double)tmout->tv_sec + 1e-6 * (double)tmout->tv_usec;
    unsigned spins = 0;
    for (;;) {
        rc = receive(&w, DMSG_POSTAL_POLL);
        if (rc)
            break;
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec) >= limit)
            break;
        dmsg_pvm_nap(&spins);
    }
    done_want(&w);
    return rc < 0 ? dmsg_pvm_err(rc) : rc;
}

static int probe_buf; /* the one descriptor pvm_probe hands out, reused */

int pvm_probe(int tid, int msgtag)
{
    pvm_state *g = &dmsg_pvm_g;
    ENROLL();
    want w;
    int rc = check_src(tid, msgtag, &w);
    if (rc)
        return dmsg_pvm_err(rc);
    int found;
    dmsg_postal_info info;
    int st = pmatch(&w, DMSG_POSTAL_PROBE, &found, &info);
    done_want(&w);
    if (st)
        return dmsg_pvm_err(dmsg_pvm_from_status(st));
    if (!found)
        return 0;
    if (!dmsg_pvm_buf(probe_buf) || g->bufs[probe_buf].attached || probe_buf == g->rbuf ||
        probe_buf == g->sbuf) {
        probe_buf = dmsg_pvm_newbuf(PvmDataDefault);
        if (probe_buf < 0)
            return dmsg_pvm_err(probe_buf);
    }
    pvm_buf *b = &g->bufs[probe_buf];
    free(b->data);
    *b = (pvm_buf){.used = 1, .recvd = 1, .src = info.src, .tag = info.tag, .ctx = info.ctx,
                   .len = info.bytes, .wid = info.word, .dst = dmsg_pvm_tid(g->me)};
    return probe_buf;
}

int pvm_precv(int tid, int msgtag, void *p, int n, int type, int *rtid, int *rtag, int *rcnt)
{
    ENROLL();
    size_t size = dmsg_pvm_type_size(type), cap;
    if (!size || n < 0 || (n > 0 && !p))
        return dmsg_pvm_err(PvmBadParam);
    if (__builtin_mul_overflow((size_t)n, size, &cap))
        return dmsg_pvm_err(PvmOverflow);
    want w;
    int rc = check_src(tid, msgtag, &w);
    if (rc)
        return dmsg_pvm_err(rc);
    int found;
    size_t got = 0;
    dmsg_postal_info info;
    int st = pcopy(&w, DMSG_POSTAL_WAIT, 0, p, cap, &got, &found, &info);
    done_want(&w);
    if (st)
        return dmsg_pvm_err(dmsg_pvm_from_status(st));
    if (rtid)
        *rtid = dmsg_pvm_tid(info.src);
    if (rtag)
        *rtag = info.tag;
    if (rcnt)
        *rcnt = (int)(got / size);
    return PvmOk;
}

int (*pvm_recvf(int (*fn)(int bufid, int tid, int tag)))(int, int, int)
{
    int (*old)(int, int, int) = dmsg_pvm_g.recvf;
    dmsg_pvm_g.recvf = fn;
    return old;
}

static int send_check(int tid, int tag, int *pe)
{
    ENROLL();
    *pe = dmsg_pvm_pe(tid);
    if (*pe < 0 || tag < 0)
        return dmsg_pvm_err(PvmBadParam);
    return PvmOk;
}

/* A sent buffer's header (pvm_getminfo) names its last send, as PVM's. */
static void sent(pvm_buf *b, int tid, int msgtag)
{
    b->tag = msgtag;
    b->ctx = dmsg_pvm_g.ctx;
    b->dst = tid;
}

int pvm_send(int tid, int msgtag)
{
    pvm_state *g = &dmsg_pvm_g;
    int pe, rc = send_check(tid, msgtag, &pe);
    if (rc)
        return rc;
    pvm_buf *b = dmsg_pvm_buf(g->sbuf);
    if (!b)
        return dmsg_pvm_err(PvmNoBuf);
    rc = dmsg_pvm_send_buf(b, pe, msgtag, g->ctx);
    if (rc)
        return dmsg_pvm_err(rc);
    sent(b, tid, msgtag);
    return PvmOk;
}

int pvm_mcast(int *tids, int n, int msgtag)
{
    pvm_state *g = &dmsg_pvm_g;
    ENROLL();
    if (n < 0 || (n > 0 && !tids) || msgtag < 0)
        return dmsg_pvm_err(PvmBadParam);
    for (int i = 0; i < n; i++)
        if (dmsg_pvm_pe(tids[i]) < 0)
            return dmsg_pvm_err(PvmBadParam);
    pvm_buf *b = dmsg_pvm_buf(g->sbuf);
    if (!b)
        return dmsg_pvm_err(PvmNoBuf);
    for (int i = 0; i < n; i++) {
        int pe = dmsg_pvm_pe(tids[i]);
        if (pe == g->me)
            continue; /* as PVM: never to the caller */
        int rc = dmsg_pvm_send_buf(b, pe, msgtag, g->ctx);
        if (rc)
            return dmsg_pvm_err(rc);
        sent(b, tids[i], msgtag);
    }
    return PvmOk;
}

int dmsg_pvm_send_bytes(int pe, int tag, int ctx, const void *p, size_t bytes)
{
    /* postal copies the bytes into its own send buffer (lent to a large
     * message until its data have left): p may be reused on return */
    return dmsg_pvm_from_status(dmsg_postal_send_bytes_ctx(pe, tag, ctx, p, bytes));
}

int dmsg_pvm_recv_bytes(int pe, int tag, int ctx, void *p, size_t cap, size_t *got,
                        dmsg_postal_info *info)
{
    want w = {.pe = pe, .tag = tag, .ctx = ctx};
    int found;
    int st = pcopy(&w, DMSG_POSTAL_WAIT, 0, p, cap, got, &found, info);
    return dmsg_pvm_from_status(st);
}

int pvm_psend(int tid, int msgtag, void *p, int n, int type)
{
    int pe, rc = send_check(tid, msgtag, &pe);
    if (rc)
        return rc;
    size_t size = dmsg_pvm_type_size(type), bytes;
    if (!size || n < 0 || (n > 0 && !p))
        return dmsg_pvm_err(PvmBadParam);
    if (__builtin_mul_overflow((size_t)n, size, &bytes))
        return dmsg_pvm_err(PvmOverflow);
    rc = dmsg_pvm_send_bytes(pe, msgtag, dmsg_pvm_g.ctx, p, bytes);
    return rc ? dmsg_pvm_err(rc) : PvmOk;
}

/* ----------------------------------------------------------- contexts */

int pvm_newcontext(void)
{
    pvm_state *g = &dmsg_pvm_g;
    ENROLL();
    if (g->nextctx >= 0xFFFF)
        return dmsg_pvm_err(PvmOutOfRes);
    /* unique in the job without asking anyone: this task's number above */
    return ((g->me + 1) << 16) | ++g->nextctx;
}

int pvm_setcontext(int ctx)
{
    ENROLL();
    if (ctx < 0)
        return dmsg_pvm_err(PvmBadParam);
    int old = dmsg_pvm_g.ctx;
    dmsg_pvm_g.ctx = ctx;
    return old;
}

int pvm_getcontext(void)
{
    ENROLL();
    return dmsg_pvm_g.ctx;
}

int pvm_freecontext(int ctx)
{
    ENROLL();
    return ctx <= 0 ? dmsg_pvm_err(PvmBadParam) : PvmOk;
}
