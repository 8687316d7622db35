/* RRMSG transfers: starting sends and receives, waiting for them. */
#include <string.h>
#include "dmsg/postal/rr.h"

static dmsg_status check_send(int pe, int tag, dmsg_rr_req *req)
{
    if (!req)
        return DMSG_FAIL(DMSG_ERR_NULL, "req is NULL");
    if (pe < 0 || pe >= dmsg_npes())
        return DMSG_FAIL(DMSG_ERR_PE, "PE %d of %d", pe, dmsg_npes());
    if (tag < 0)
        return DMSG_FAIL(DMSG_ERR_ARG, "tag %d (a send needs a tag >= 0)", tag);
    return DMSG_OK;
}

static dmsg_status check_recv(int src, int tag, dmsg_rr_req *req)
{
    if (!req)
        return DMSG_FAIL(DMSG_ERR_NULL, "req is NULL");
    if (src != DMSG_RR_ANY && (src < 0 || src >= dmsg_npes()))
        return DMSG_FAIL(DMSG_ERR_PE, "source PE %d of %d", src, dmsg_npes());
    if (tag < DMSG_RR_ANY)
        return DMSG_FAIL(DMSG_ERR_ARG, "tag %d (>= 0, or DMSG_RR_ANY)", tag);
    return DMSG_OK;
}

/* Starts a send described by r (a copy on the stack) into the caller's req. */
static dmsg_status start_send(const dmsg_rr_req *r, dmsg_rr_req *req)
{
    rr_state *g = &dmsg_rr_g;
    /* Timed on a simulated machine only, where its time is the modelled
     * machine's: in real time starting a send never waits, and two clock
     * reads cost a tenth of the call (dmsg_rr.h, send_time). */
    double t0 = g->ch.ordered ? dmsg_wtime() : 0;
    dmsg_status st = dmsg_rr_live_check(req);
    if (st)
        return st;
    dmsg_rr_ride_disarm();
    *req = *r;
    req->magic = RR_MAGIC;
    req->state = RR_S_WAIT_RESP;
    dmsg_rr_live_mark(req);
    dmsg_rr_fifo_push(&g->sends[req->pe], req);
    /* A receive that answered ahead (READY) takes the data now: no request,
     * no round trip (not on an ordered channel: there the receiver answers
     * requests, as the simulated machine's did). A READY found by an earlier
     * look answers this send (one left unused has no earlier send of its
     * tag waiting), so the ring is looked at only when none was. Else the
     * request goes. */
    if (!g->ch.ordered)
        st = dmsg_rr_serve_from(req->pe, 0);
    if (!g->ch.ordered && !st && req->state == RR_S_WAIT_RESP)
        st = dmsg_rr_serve_from(req->pe, 1);
    if (!st && req->state == RR_S_WAIT_RESP)
        st = dmsg_rr_send_request(req);
    if (st) {
        dmsg_rr_fifo_remove(&g->sends[req->pe], req);
        memset(req, 0, sizeof *req);
    } else {
        g->active++;
        /* The acknowledgements owed go after this send's data or request.
         * The send has started whatever they meet: one that fails stays
         * owed, and the next progress pass sends it or reports why. */
        (void)dmsg_rr_flush_acks();
    }
    if (g->ch.ordered)
        g->st.send_time += dmsg_wtime() - t0;
    dmsg_rr_ride_arm(); /* a READY still held (this send went elsewhere) */
    return st;
}

int dmsg_rr_isend(int pe, int tag, const void *src, size_t bytes, dmsg_rr_req *req)
{
    RR_REQUIRE();
    dmsg_status st = check_send(pe, tag, req);
    if (st)
        return st;
    if (!src && bytes)
        return DMSG_FAIL(DMSG_ERR_NULL, "src is NULL");
    dmsg_rr_req r = {.kind = RR_K_CONTIG, .pe = pe, .tag = tag, .src = src, .bytes = bytes,
                     .n = bytes, .elem = 1};
    return start_send(&r, req);
}

int dmsg_rr_isend_section(int pe, int tag, const void *src, const dmsg_layout *sl,
                          size_t elem_size, dmsg_rr_req *req)
{
    RR_REQUIRE();
    dmsg_status st = check_send(pe, tag, req);
    if (st)
        return st;
    if (!src || !sl)
        return DMSG_FAIL(DMSG_ERR_NULL, "%s is NULL", src ? "sl" : "src");
    if (elem_size == 0)
        return DMSG_FAIL(DMSG_ERR_ARG, "element size 0");
    size_t n;
    ptrdiff_t lo, hi;
    if ((st = dmsg_rr_layout_span(sl, elem_size, 0, &n, &lo, &hi)))
        return st;
    dmsg_rr_req r = {.kind = RR_K_SECTION, .pe = pe, .tag = tag, .src = src, .n = n,
                     .elem = elem_size, .lay = *sl};
    if (__builtin_mul_overflow(n, elem_size, &r.bytes))
        return DMSG_FAIL(DMSG_ERR_OVERFLOW, "%zu elements of %zu bytes", n, elem_size);
    return start_send(&r, req);
}

int dmsg_rr_isend_gathered(int pe, int tag, const void *src_base, const size_t *src_idx,
                           size_t n, size_t elem_size, dmsg_rr_req *req)
{
    RR_REQUIRE();
    dmsg_status st = check_send(pe, tag, req);
    if (st)
        return st;
    if (!src_base || !src_idx)
        return DMSG_FAIL(DMSG_ERR_NULL, "%s is NULL", src_base ? "src_idx" : "src_base");
    if (elem_size == 0)
        return DMSG_FAIL(DMSG_ERR_ARG, "element size 0");
    dmsg_rr_req r = {.kind = RR_K_GATHERED, .pe = pe, .tag = tag, .src = src_base,
                     .idx = src_idx, .n = n, .elem = elem_size};
    if (__builtin_mul_overflow(n, elem_size, &r.bytes))
        return DMSG_FAIL(DMSG_ERR_OVERFLOW, "%zu elements of %zu bytes", n, elem_size);
    return start_send(&r, req);
}

static dmsg_status post(const dmsg_rr_req *r, dmsg_rr_req *req)
{
    rr_state *g = &dmsg_rr_g;
    dmsg_status st = dmsg_rr_live_check(req);
    if (st)
        return st;
    dmsg_rr_ride_disarm();
    *req = *r;
    req->magic = RR_MAGIC;
    req->state = RR_S_POSTED;
    dmsg_rr_live_mark(req);
    /* Its response goes ahead when it surely takes the next request of its
     * source and tag (dmsg_rr_answer_ahead), first of all: the partner of
     * a ping-pong may be about to start that send. Such a receive never
     * enters the posted index (nothing there can match it). */
    int answered = 0;
    if (!g->ch.ordered && (st = dmsg_rr_answer_ahead(req, &answered)))
        goto fail;
    if (!answered && (st = dmsg_rr_posted_add(&g->posted, req)))
        goto fail;
    g->active++;
    /* Requests that arrived first find their receive at once (in
     * virtual-time order: at the next wait or test, which serve arrivals
     * at the clock they reach, not at whatever host moment this is). A
     * receive answered ahead has nothing here to match (no request of its
     * source and tag has landed). */
    if (g->ch.ordered || answered) {
        dmsg_rr_ride_arm(); /* its READY may be held: it leaves before any wait */
        return DMSG_OK;
    }
    /* Never waits: untimed, as starting a send (dmsg_rr.h, recv_time). */
    st = dmsg_rr_progress();
    dmsg_rr_ride_arm(); /* held only if the pass failed */
    return st;

fail:
    dmsg_rr_ride_arm();
    memset(req, 0, sizeof *req);
    return st;
}

int dmsg_rr_irecv(int src, int tag, void *dst, size_t cap, dmsg_rr_req *req)
{
    RR_REQUIRE();
    dmsg_status st = check_recv(src, tag, req);
    if (st)
        return st;
    if (!dst)
        return DMSG_FAIL(DMSG_ERR_NULL, "dst is NULL");
    if (!dmsg_addr_is_symmetric(dst, cap))
        return DMSG_FAIL(DMSG_ERR_RANGE, "[dst, dst + %zu) is not symmetric memory", cap);
    dmsg_rr_req r = {.kind = RR_K_CONTIG, .pe = src, .tag = tag, .dst = dst, .bytes = cap,
                     .n = cap, .elem = 1};
    return post(&r, req);
}

int dmsg_rr_irecv_section(int src, int tag, void *dst, const dmsg_layout *dl, size_t elem_size,
                          dmsg_rr_req *req)
{
    RR_REQUIRE();
    dmsg_status st = check_recv(src, tag, req);
    if (st)
        return st;
    if (!dst || !dl)
        return DMSG_FAIL(DMSG_ERR_NULL, "%s is NULL", dst ? "dl" : "dst");
    if (elem_size == 0)
        return DMSG_FAIL(DMSG_ERR_ARG, "element size 0");
    size_t n;
    ptrdiff_t lo, hi;
    if ((st = dmsg_rr_layout_span(dl, elem_size, 1, &n, &lo, &hi)))
        return st;
    if (!dmsg_addr_is_symmetric((char *)dst + lo, (size_t)(hi - lo)))
        return DMSG_FAIL(DMSG_ERR_RANGE, "section is not all in symmetric memory");
    dmsg_rr_req r = {.kind = RR_K_SECTION, .pe = src, .tag = tag, .dst = dst, .n = n,
                     .elem = elem_size, .lay = *dl};
    if (__builtin_mul_overflow(n, elem_size, &r.bytes))
        return DMSG_FAIL(DMSG_ERR_OVERFLOW, "%zu elements of %zu bytes", n, elem_size);
    return post(&r, req);
}

static dmsg_status check_active(const dmsg_rr_req *req)
{
    if (!req)
        return DMSG_FAIL(DMSG_ERR_NULL, "req is NULL");
    if (req->magic != RR_MAGIC || req->state == RR_S_IDLE)
        return DMSG_FAIL(DMSG_ERR_HANDLE, "request not active");
    /* The engine completes the request at the address it was started
     * with: a copy (of an active or a retired request) would never be. */
    if (!dmsg_rr_live_has(req))
        return DMSG_FAIL(DMSG_ERR_HANDLE, "not a started request (a copy, or retired)");
    return DMSG_OK;
}

static int is_recv(const dmsg_rr_req *r)
{
    return r->dst != NULL;
}

/* Retires a completed request; returns its status. */
static dmsg_status retire(dmsg_rr_req *req, dmsg_rr_info *info)
{
    rr_state *g = &dmsg_rr_g;
    dmsg_status st = req->status;
    if (is_recv(req)) {
        if (info && !st)
            *info = (dmsg_rr_info){.src = req->peer, .tag = req->peer_tag, .bytes = req->bytes};
        if (!st)
            g->st.recvs++;
    } else if (!st) {
        g->st.sends++;
    }
    req->magic = 0;
    req->state = RR_S_IDLE;
    dmsg_rr_live_remove(req);
    g->active--;
    return st;
}

static void account(const dmsg_rr_req *req, double t0)
{
    double dt = dmsg_wtime() - t0;
    if (is_recv(req))
        dmsg_rr_g.st.recv_time += dt;
    else
        dmsg_rr_g.st.send_time += dt;
}

int dmsg_rr_test(dmsg_rr_req *req, int *done, dmsg_rr_info *info)
{
    RR_REQUIRE();
    dmsg_status st = check_active(req);
    if (st)
        return st;
    if (!done)
        return DMSG_FAIL(DMSG_ERR_NULL, "done is NULL");
    dmsg_rr_ride_disarm(); /* the pass below sends a held READY */
    double t0 = dmsg_wtime();
    st = req->state == RR_S_DONE ? DMSG_OK : dmsg_rr_progress_test();
    dmsg_rr_ride_arm(); /* still held: no pass ran, or it failed */
    account(req, t0);
    if (st)
        return st;
    *done = req->state == RR_S_DONE;
    return *done ? retire(req, info) : DMSG_OK;
}

int dmsg_rr_waitall(int n, dmsg_rr_req *reqs, dmsg_rr_info *infos)
{
    RR_REQUIRE();
    if (n < 0)
        return DMSG_FAIL(DMSG_ERR_ARG, "%d requests", n);
    if (n > 0 && !reqs)
        return DMSG_FAIL(DMSG_ERR_NULL, "reqs is NULL");
    dmsg_status st;
    for (int i = 0; i < n; i++)
        if ((st = check_active(&reqs[i])))
            return st;
    int all = 1;
    for (int i = 0; i < n && all; i++)
        all = reqs[i].state == RR_S_DONE;
    /* A held READY leaves at the first progress pass; with nothing to wait
     * for it stays held, the hook armed. */
    if (!all)
        dmsg_rr_ride_disarm();
    /* The time waited goes to the first request's side (send or receive);
     * requests complete already (a send that found its response sent
     * ahead) waited for nothing, and no clock is read for them: a read
     * costs as much as the rest of such a wait. */
    int timed = !all;
    double t0 = timed ? dmsg_wtime() : 0;
    while (!all) {
        if ((st = dmsg_rr_progress()))
            goto out;
        all = 1;
        for (int i = 0; i < n && all; i++)
            all = reqs[i].state == RR_S_DONE;
        if (all)
            break;
        if ((st = dmsg_rr_progress_wait()))
            goto out;
        all = 1;
        for (int i = 0; i < n && all; i++)
            all = reqs[i].state == RR_S_DONE;
    }
    dmsg_rr_ride_arm(); /* still held only if nothing was waited for */
    if (timed)
        account(&reqs[0], t0);
    st = DMSG_OK;
    for (int i = 0; i < n; i++) {
        dmsg_status s2 = retire(&reqs[i], infos ? &infos[i] : NULL);
        st = st ? st : s2;
    }
    return st;
out:
    dmsg_rr_ride_arm();
    if (n)
        account(&reqs[0], t0);
    return st;
}

int dmsg_rr_wait(dmsg_rr_req *req, dmsg_rr_info *info)
{
    RR_REQUIRE();
    dmsg_status st = check_active(req);
    if (st)
        return st;
    dmsg_rr_info one;
    st = dmsg_rr_waitall(1, req, &one);
    if (!st && info && is_recv(req))
        *info = one;
    return st;
}

int dmsg_rr_send(int pe, int tag, const void *src, size_t bytes)
{
    dmsg_rr_req r;
    dmsg_status st = dmsg_rr_isend(pe, tag, src, bytes, &r);
    return st ? st : dmsg_rr_wait(&r, NULL);
}

int dmsg_rr_send_section(int pe, int tag, const void *src, const dmsg_layout *sl,
                         size_t elem_size)
{
    dmsg_rr_req r;
    dmsg_status st = dmsg_rr_isend_section(pe, tag, src, sl, elem_size, &r);
    return st ? st : dmsg_rr_wait(&r, NULL);
}

int dmsg_rr_send_gathered(int pe, int tag, const void *src_base, const size_t *src_idx, size_t n,
                          size_t elem_size)
{
    dmsg_rr_req r;
    dmsg_status st = dmsg_rr_isend_gathered(pe, tag, src_base, src_idx, n, elem_size, &r);
    return st ? st : dmsg_rr_wait(&r, NULL);
}

int dmsg_rr_recv(int src, int tag, void *dst, size_t cap, dmsg_rr_info *info)
{
    dmsg_rr_req r;
    dmsg_status st = dmsg_rr_irecv(src, tag, dst, cap, &r);
    return st ? st : dmsg_rr_wait(&r, info);
}

int dmsg_rr_recv_section(int src, int tag, void *dst, const dmsg_layout *dl, size_t elem_size,
                         dmsg_rr_info *info)
{
    dmsg_rr_req r;
    dmsg_status st = dmsg_rr_irecv_section(src, tag, dst, dl, elem_size, &r);
    return st ? st : dmsg_rr_wait(&r, info);
}
