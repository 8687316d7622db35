/* Fetch entry points and request handles (of fetches and atomics). The core keeps the handle's
 * protocol (start, test/wait, retire); the transport its progress (shm
 * completes a fetch inside the call, ofi pipelines it). */
#include <sched.h>
#include <time.h>
#include "dmsg/core/checker.h"
#include "dmsg/core/op.h"

#define REQ_MAGIC 0x64526571u /* "dReq" */
/* A started request's state is its id (> 0) while that id is in the PE's
 * set of live requests; a retired one's is REQ_RETIRED. A copy of a handle
 * keeps the id, which leaves the set when the original or any copy is
 * retired: every later use of any copy gets DMSG_ERR_HANDLE. */
enum { REQ_RETIRED = -1 };

/* ra: the caller's address, for the checker's reports. */
static int fetch(dmsg_op *op, dmsg_req *req, const void *ra)
{
    DMSG_REQUIRE_INIT();
    dmsg_tp *tp = &dmsg_g.tp;
    dmsg_status st = dmsg_op_check(op);
    if (st)
        return st;
    if (dmsg_g.check)
        dmsg_chk_op(op, UINT32_MAX, req != NULL, ra);
    if (!req) {
        dmsg_wait_enter(DMSG_WAIT_FETCH);
        st = tp->ops->get(tp, op);
        dmsg_wait_leave();
        return st;
    }
    uint32_t id;
    if ((st = dmsg_req_open(req, &id)))
        return st;
    if ((st = tp->ops->get_nb(tp, op, req))) {
        dmsg_reqset_remove(&dmsg_g.reqs, id);
        return st; /* not started: the handle stays unused */
    }
    dmsg_req_started(req, id, op->pe);
    return DMSG_OK;
}

/* The request protocol is the same for every kind of request (a fetch, an
 * atomic): the transport's req_test tells its kinds apart by what its start
 * left in seq and priv. */
dmsg_status dmsg_req_open(dmsg_req *req, uint32_t *id)
{
    dmsg_status st = dmsg_reqset_add(&dmsg_g.reqs, id);
    if (st)
        return st;
    req->seq = 0;
    req->priv[0] = req->priv[1] = NULL;
    return DMSG_OK;
}

void dmsg_req_started(dmsg_req *req, uint32_t id, int pe)
{
    req->magic = REQ_MAGIC;
    req->state = (int32_t)id;
    req->status = DMSG_OK;
    req->pe = pe;
}

static int nb_check(dmsg_req *req)
{
    return req ? DMSG_OK : DMSG_FAIL(DMSG_ERR_NULL, "request handle is NULL");
}

int dmsg_fetch(void *dst, const void *src, size_t bytes, int pe)
{
    dmsg_op op = {.kind = DMSG_OP_CONTIG, .dir = DMSG_DIR_GET, .pe = pe, .remote = (void *)src,
                  .local = dst, .elem = 1, .n = bytes};
    return fetch(&op, NULL, __builtin_return_address(0));
}

int dmsg_fetch_nb(void *dst, const void *src, size_t bytes, int pe, dmsg_req *req)
{
    dmsg_op op = {.kind = DMSG_OP_CONTIG, .dir = DMSG_DIR_GET, .pe = pe, .remote = (void *)src,
                  .local = dst, .elem = 1, .n = bytes};
    return nb_check(req) ? DMSG_ERR_NULL : fetch(&op, req, __builtin_return_address(0));
}

int dmsg_fetch_section(void *dst, const dmsg_layout *dl, const void *src, const dmsg_layout *sl,
                       size_t elem_size, int pe)
{
    dmsg_op op = {.kind = DMSG_OP_SECTION, .dir = DMSG_DIR_GET, .pe = pe, .remote = (void *)src,
                  .local = dst, .elem = elem_size, .rl = sl, .ll = dl};
    return fetch(&op, NULL, __builtin_return_address(0));
}

int dmsg_fetch_section_nb(void *dst, const dmsg_layout *dl, const void *src,
                          const dmsg_layout *sl, size_t elem_size, int pe, dmsg_req *req)
{
    dmsg_op op = {.kind = DMSG_OP_SECTION, .dir = DMSG_DIR_GET, .pe = pe, .remote = (void *)src,
                  .local = dst, .elem = elem_size, .rl = sl, .ll = dl};
    return nb_check(req) ? DMSG_ERR_NULL : fetch(&op, req, __builtin_return_address(0));
}

int dmsg_fetch_indexed(void *dst, const void *src_base, const size_t *src_idx, size_t n,
                       size_t elem_size, int pe)
{
    dmsg_op op = {.kind = DMSG_OP_REMOTE_INDEXED, .dir = DMSG_DIR_GET, .pe = pe,
                  .remote = (void *)src_base, .local = dst, .elem = elem_size, .n = n,
                  .idx = src_idx};
    return fetch(&op, NULL, __builtin_return_address(0));
}

int dmsg_fetch_indexed_nb(void *dst, const void *src_base, const size_t *src_idx, size_t n,
                          size_t elem_size, int pe, dmsg_req *req)
{
    dmsg_op op = {.kind = DMSG_OP_REMOTE_INDEXED, .dir = DMSG_DIR_GET, .pe = pe,
                  .remote = (void *)src_base, .local = dst, .elem = elem_size, .n = n,
                  .idx = src_idx};
    return nb_check(req) ? DMSG_ERR_NULL : fetch(&op, req, __builtin_return_address(0));
}

int dmsg_test(dmsg_req *req, int *done)
{
    DMSG_REQUIRE_INIT();
    if (!req || !done)
        return DMSG_FAIL(DMSG_ERR_NULL, "dmsg_test: NULL argument");
    if (req->magic != REQ_MAGIC || req->state <= 0 ||
        !dmsg_reqset_has(&dmsg_g.reqs, (uint32_t)req->state))
        return DMSG_FAIL(DMSG_ERR_HANDLE, "request was never started or is already retired "
                                          "(or is a copy of a retired one)");
    dmsg_tp *tp = &dmsg_g.tp;
    int fin = 0;
    req->status = tp->ops->req_test(tp, req, &fin);
    if (!fin) {
        *done = 0;
        return DMSG_OK;
    }
    dmsg_reqset_remove(&dmsg_g.reqs, (uint32_t)req->state);
    req->state = REQ_RETIRED;
    *done = 1;
    return req->status;
}

/* Waits by the transport's wait policy (dmsg/transport/wait_policy.h): a
 * poll is a test (progress on ofi), a sleep is short, since no transport
 * wakes a sleeper when a request completes, and doubles while nothing
 * comes, up to REQ_SLEEP_MAX_NS. */
#define REQ_SLEEP_MAX_NS 256000L

int dmsg_wait(dmsg_req *req)
{
    int done = 0;
    dmsg_status st;
    dmsg_waiter w;
    long ns = 1000;
    dmsg_wait_enter(DMSG_WAIT_REQ);
    dmsg_waiter_start(&w, &dmsg_g.tp.wait);
    while ((st = dmsg_test(req, &done)) == DMSG_OK && !done) {
        dmsg_wait_act act = dmsg_waiter_next(&w);
        if (act == DMSG_WAIT_YIELD) {
            sched_yield();
        } else if (act == DMSG_WAIT_SLEEP) {
            struct timespec ts = {0, ns};
            nanosleep(&ts, NULL);
            if (ns < REQ_SLEEP_MAX_NS)
                ns *= 2;
        } else if (act != DMSG_WAIT_POLL) {
            st = dmsg_waiter_fail(&w, act, "a request to complete");
            break; /* the request stays live: a later test or wait may still finish it */
        }
    }
    if (!st && done)
        dmsg_waiter_done(&w);
    dmsg_wait_leave();
    return st;
}
