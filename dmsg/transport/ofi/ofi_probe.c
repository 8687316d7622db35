/* The start-up probe: what the provider really does, found by trying it on
 * an endpoint that writes to itself. Documented attributes and behaviour
 * differ between providers (fi_shm(7) says no counters, yet they count; net
 * advertises FI_RMA_EVENT, yet only fi_writedata moves the counter), so
 * every mechanism dmsg may rely on is tested, not read from fi_info. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dmsg/transport/ofi/ofi.h"

#define PROBE_BUF 65536
#define PROBE_WAIT 2.0 /* seconds any single probe step may take */

typedef struct probe_cq {
    unsigned local;       /* local completions seen */
    unsigned errors;
    int have_data;
    uint64_t data;
    char why[160];
} probe_cq;

static void drain(ofi_fab *f, probe_cq *q)
{
    struct fi_cq_data_entry e[8];
    for (;;) {
        ssize_t n = fi_cq_read(f->cq, e, 8);
        if (n == -FI_EAVAIL) {
            struct fi_cq_err_entry err = {0};
            char buf[128];
            fi_cq_readerr(f->cq, &err, 0);
            const char *pe = fi_cq_strerror(f->cq, err.prov_errno, err.err_data, buf, sizeof buf);
            snprintf(q->why, sizeof q->why, "%s (%s)", fi_strerror(err.err), pe ? pe : "");
            q->errors++;
            q->local++;
            continue;
        }
        if (n <= 0) {
            /* With automatic progress the provider's thread does the work
             * (sockets): a poller that never lets go of the core slowed
             * each of its 8-byte writes to milliseconds on a busy host. */
            if (f->info->domain_attr->data_progress != FI_PROGRESS_MANUAL)
                sched_yield();
            return;
        }
        for (ssize_t i = 0; i < n; i++) {
            if (e[i].flags & FI_REMOTE_CQ_DATA) {
                q->have_data = 1;
                q->data = e[i].data;
            } else {
                q->local++;
            }
        }
    }
}

/* Polls until local completions reach `local` (and remote data arrived when
 * want_data); 0 on success, -1 on timeout or error. */
static int wait_cq(ofi_fab *f, probe_cq *q, unsigned local, int want_data)
{
    double end = dmsg_clock_now() + PROBE_WAIT;
    while (dmsg_clock_now() < end) {
        drain(f, q);
        if (f->rcntr)
            fi_cntr_read(f->rcntr); /* drives progress on some providers */
        if (q->local >= local && (!want_data || q->have_data))
            return q->errors ? -1 : 0;
    }
    return -1;
}

/* Issues an operation, retrying while the provider asks to (connection-based
 * providers answer -FI_EAGAIN until their connection to the target is up). */
#define PROBE_POST(rc, f, q, call)                                                              \
    do {                                                                                        \
        double end_ = dmsg_clock_now() + PROBE_WAIT;                                                   \
        while (((rc) = (call)) == -FI_EAGAIN && dmsg_clock_now() < end_)                               \
            drain((f), (q));                                                                    \
    } while (0)

static uint64_t cntr(ofi_fab *f)
{
    return f->rcntr ? fi_cntr_read(f->rcntr) : 0;
}

/* Remote counter moved by exactly one after an operation? Waits briefly,
 * because the counter may trail the completion. */
static int counted(ofi_fab *f, uint64_t before)
{
    if (!f->rcntr)
        return 0;
    double end = dmsg_clock_now() + 0.2;
    probe_cq q = {0};
    while (dmsg_clock_now() < end) {
        drain(f, &q);
        if (fi_cntr_read(f->rcntr) == before + 1)
            return 1;
    }
    return 0;
}

/* Waits until the 8 bytes at p equal v; 0 when they do. */
static int landed(ofi_fab *f, probe_cq *q, const char *p, uint64_t v)
{
    double end = dmsg_clock_now() + PROBE_WAIT;
    uint64_t have;
    do {
        drain(f, q);
        memcpy(&have, p, sizeof have);
        if (have == v)
            return 0;
    } while (dmsg_clock_now() < end);
    return -1;
}

/* Waits briefly for a counter to reach v (it may trail the data); 1 when it
 * does and does not pass it. */
static int reaches(ofi_fab *f, probe_cq *q, struct fid_cntr *ct, uint64_t v)
{
    double end = dmsg_clock_now() + 0.2;
    uint64_t n;
    do {
        drain(f, q);
        n = fi_cntr_read(ct);
    } while (n < v && dmsg_clock_now() < end);
    return n == v;
}

/* The cells MR is registered with the key after the region's (requested
 * keys, as dmsg's slot keys are), over `cell` (64 bytes inside the probe
 * buffer, so addresses are formed as for the region). Says in c->rcntr_mr_why
 * what failed. */
static int probe_mr_counter(ofi_fab *f, ofi_caps *c, char *cell, char *src, fi_addr_t self,
                            uint64_t base, uint64_t key)
{
    probe_cq qq = {0}, *q = &qq; /* its own completions: a failure here spoils no later step */
    struct fid_mr *mr = NULL;
    struct fid_cntr *ct = NULL;
    struct fi_cntr_attr ca = {.events = FI_CNTR_EVENTS_COMP, .wait_obj = FI_WAIT_NONE};
    int ok = 0, rc;
    ssize_t wrc;
    uint64_t v, caddr = c->virt_addr ? (uint64_t)(uintptr_t)cell : 0;
    uint64_t coff = (uint64_t)(cell - f->base);
    char *why = c->rcntr_mr_why;
    size_t wl = sizeof c->rcntr_mr_why;
    if ((rc = fi_cntr_open(f->domain, &ca, &ct, NULL))) {
        snprintf(why, wl, "fi_cntr_open: %s", fi_strerror(-rc));
        return 0;
    }
    if ((rc = fi_mr_reg(f->domain, cell, 64, FI_REMOTE_WRITE, 0, key + 1, 0, &mr, NULL))) {
        snprintf(why, wl, "fi_mr_reg: %s", fi_strerror(-rc));
        goto out;
    }
    if ((rc = fi_mr_bind(mr, &ct->fid, FI_REMOTE_WRITE))) {
        snprintf(why, wl, "fi_mr_bind of a counter: %s", fi_strerror(-rc));
        goto out;
    }
    if (c->mr_endpoint && ((rc = fi_mr_bind(mr, &f->ep->fid, 0)) || (rc = fi_mr_enable(mr)))) {
        snprintf(why, wl, "enabling the MR: %s", fi_strerror(-rc));
        goto out;
    }
    if (fi_mr_key(mr) != key + 1) {
        snprintf(why, wl, "the MR got another key than requested");
        goto out;
    }
    /* A write to the other MR, at the same place, is not counted. */
    v = 0x1111;
    memcpy(src, &v, 8);
    PROBE_POST(wrc, f, q, fi_inject_write(f->ep, src, 8, self, base + coff, key));
    if (wrc || landed(f, q, cell, v) || !reaches(f, q, ct, 0)) {
        snprintf(why, wl, "a write to another MR %s",
                 wrc || fi_cntr_read(ct) == 0 ? "failed" : "was counted");
        goto out;
    }
    /* Injected, then as dmsg posts a signal (fi_writemsg, FI_INJECT, with
     * delivery completion where it works). */
    v = 0x2222;
    memcpy(src, &v, 8);
    PROBE_POST(wrc, f, q, fi_inject_write(f->ep, src, 8, self, caddr, key + 1));
    if (wrc || landed(f, q, cell, v) || !reaches(f, q, ct, 1)) {
        snprintf(why, wl, "fi_inject_write to the MR %s", wrc ? "failed" : "was not counted");
        goto out;
    }
    v = 0x3333;
    memcpy(src, &v, 8);
    struct iovec iov = {src, 8};
    struct fi_rma_iov r = {caddr, 8, key + 1};
    struct fi_msg_rma m = {.msg_iov = &iov, .iov_count = 1, .addr = self, .rma_iov = &r,
                           .rma_iov_count = 1};
    uint64_t fl = FI_COMPLETION | FI_INJECT;
    if (c->delivery_complete == 1)
        fl |= FI_DELIVERY_COMPLETE;
    PROBE_POST(wrc, f, q, fi_writemsg(f->ep, &m, fl));
    if (wrc || wait_cq(f, q, 1, 0) || landed(f, q, cell, v) || !reaches(f, q, ct, 2)) {
        snprintf(why, wl, "fi_writemsg to the MR %s", wrc ? "failed" : "was not counted");
        goto out;
    }
    ok = 1;
out:
    if (mr)
        fi_close(&mr->fid);
    fi_close(&ct->fid);
    return ok;
}

static void fill(char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (char)(seed + i * 7);
}

/* What every probe step uses: the endpoint writing to itself, the two
 * buffers, and the completions expected so far. */
typedef struct probe_ctx {
    ofi_fab *f;
    ofi_caps *c;
    fi_addr_t self;
    char *dst, *src;
    uint64_t base, key;
    probe_cq q;
    unsigned want;
} probe_ctx;

/* A step whose completion may never come forgets what it expected, so
 * that the steps after it do not wait for it. */
static void forget(probe_ctx *p)
{
    p->q = (probe_cq){0};
    p->want = 0;
}

/* Delivery completion requested per operation. */
static void probe_delivery(probe_ctx *p)
{
    struct iovec iov = {p->src, 8};
    struct fi_rma_iov r = {p->base, 8, p->key};
    struct fi_msg_rma m = {.msg_iov = &iov, .iov_count = 1, .addr = p->self, .rma_iov = &r,
                           .rma_iov_count = 1};
    fill(p->src, 8, 1);
    ssize_t rc;
    PROBE_POST(rc, p->f, &p->q, fi_writemsg(p->f->ep, &m, FI_COMPLETION | FI_DELIVERY_COMPLETE));
    p->c->delivery_complete =
        rc == 0 && wait_cq(p->f, &p->q, ++p->want, 0) == 0 && !memcmp(p->dst, p->src, 8);
    if (!p->c->delivery_complete)
        forget(p);
}

/* fi_write above the inject size: RMA must work at all. */
static dmsg_status probe_write(probe_ctx *p)
{
    ofi_caps *c = p->c;
    size_t n = c->inject + 4096 < PROBE_BUF ? c->inject + 4096 : PROBE_BUF;
    fill(p->src, n, 2);
    uint64_t before = cntr(p->f);
    ssize_t rc;
    PROBE_POST(rc, p->f, &p->q, fi_write(p->f->ep, p->src, n, NULL, p->self, p->base, p->key, NULL));
    int w = rc ? -2 : wait_cq(p->f, &p->q, ++p->want, 0);
    if (rc || w || memcmp(p->dst, p->src, n))
        return DMSG_FAIL(DMSG_ERR_UNSUPPORTED,
                         "provider \"%s\" lacks working RMA writes (fi_write of %zu bytes to "
                         "itself: %s)",
                         c->prov, n,
                         rc  ? fi_strerror((int)-rc)
                         : w ? (p->q.why[0] ? p->q.why : "no completion in 2 s")
                             : "data wrong");
    c->rcntr_write = counted(p->f, before);
    /* fi_shm(7): above the inject size, "tx completions are not generated
     * until the receiving side has processed the message" (with CMA the
     * sender itself copies into the target before it completes). The
     * write above was checked at its completion, without waiting more.
     * Signal messages are flushed behind it in send order (FI_ORDER_SAS). */
    c->tx_delivers = !strcmp(c->prov, "shm") && n > c->inject && c->order_sas;
    return DMSG_OK;
}

/* fi_writemsg with two remote pieces (a chained deposit). */
static void probe_chain(probe_ctx *p)
{
    ofi_caps *c = p->c;
    c->writemsg_chain = 0;
    if (c->rma_iov_limit < 2 || c->iov_limit < 2)
        return;
    char *src = p->src, *dst = p->dst;
    struct iovec iov[2] = {{src, 100}, {src + 200, 100}};
    struct fi_rma_iov r[2] = {{p->base + 1000, 100, p->key}, {p->base + 3000, 100, p->key}};
    struct fi_msg_rma m = {.msg_iov = iov, .iov_count = 2, .addr = p->self, .rma_iov = r,
                           .rma_iov_count = 2};
    fill(src, 300, 3);
    uint64_t before = cntr(p->f);
    ssize_t rc;
    PROBE_POST(rc, p->f, &p->q, fi_writemsg(p->f->ep, &m, FI_COMPLETION));
    c->writemsg_chain = rc == 0 && wait_cq(p->f, &p->q, ++p->want, 0) == 0 &&
                        !memcmp(dst + 1000, src, 100) && !memcmp(dst + 3000, src + 200, 100);
    c->rcntr_writemsg = c->writemsg_chain ? counted(p->f, before) : -1;
}

/* fi_inject_write: no completion; the data must show up on its own. */
static void probe_inject(probe_ctx *p)
{
    if (p->c->inject < 8)
        return;
    fill(p->src, 8, 4);
    uint64_t before = cntr(p->f);
    ssize_t rc;
    PROBE_POST(rc, p->f, &p->q,
               fi_inject_write(p->f->ep, p->src, 8, p->self, p->base + 8192, p->key));
    if (rc)
        return;
    double end = dmsg_clock_now() + PROBE_WAIT;
    while (memcmp(p->dst + 8192, p->src, 8) && dmsg_clock_now() < end)
        drain(p->f, &p->q);
    p->c->rcntr_inject = counted(p->f, before);
}

/* fi_writedata: remote CQ data, the signal dmsg counts deposits with. */
static void probe_cqdata(probe_ctx *p)
{
    ofi_caps *c = p->c;
    fill(p->src, 64, 5);
    uint64_t before = cntr(p->f);
    uint64_t tag = UINT64_C(0x1234567890abcdef);
    p->q.have_data = 0;
    ssize_t rc;
    PROBE_POST(rc, p->f, &p->q,
               fi_writedata(p->f->ep, p->src, 64, NULL, tag, p->self, p->base + 16384, p->key,
                            NULL));
    c->cqdata_works = rc == 0 && wait_cq(p->f, &p->q, ++p->want, 1) == 0 && p->q.data == tag &&
                      !memcmp(p->dst + 16384, p->src, 64);
    c->rcntr_writedata = c->cqdata_works ? counted(p->f, before) : -1;
    if (!c->cqdata_works)
        forget(p); /* its completion may never come (sockets) */
}

/* Round trip of one 8-byte write to itself, with delivery completion (dc)
 * or without: what a per-operation acknowledgement costs. 200 writes, or
 * as many as fit in 0.25 s where a write takes milliseconds (sockets on a
 * busy host): start-up stays short. -1 when a write failed. */
static double probe_time(probe_ctx *p, int dc)
{
    ofi_caps *c = p->c;
    uint64_t fl = FI_COMPLETION | FI_INJECT | (dc ? FI_DELIVERY_COMPLETE : 0);
    struct iovec iov = {p->src, 8};
    struct fi_rma_iov r = {p->base + 32768, 8, p->key};
    struct fi_msg_rma m = {.msg_iov = &iov, .iov_count = 1, .addr = p->self, .rma_iov = &r,
                           .rma_iov_count = 1};
    int reps = 200, ok = 1;
    double t0 = dmsg_clock_now();
    for (int i = 0; i < reps && ok; i++) {
        if (i >= 10 && dmsg_clock_now() - t0 > 0.25) {
            reps = i;
            break;
        }
        ssize_t rc;
        PROBE_POST(rc, p->f, &p->q,
                   fi_writemsg(p->f->ep, &m, c->inject >= 8 ? fl : fl & ~(uint64_t)FI_INJECT));
        ok = rc == 0 && wait_cq(p->f, &p->q, ++p->want, 0) == 0;
    }
    return ok ? (dmsg_clock_now() - t0) / reps * 1e6 : -1;
}

/* Which atomics the provider takes on one element of each word size
 * (fi_atomicvalid and its fetch and compare forms), then whether a
 * fetch-add and a compare-swap on words of the probe's region really give
 * the old values and the new words: dmsg's native path relies on both,
 * the emulated one on compare-swap. */
static void probe_atomics(probe_ctx *p)
{
    static const enum fi_op ops[] = {FI_SUM, FI_BAND, FI_BOR, FI_BXOR, FI_ATOMIC_READ,
                                     FI_ATOMIC_WRITE};
    static const enum fi_datatype types[2] = {FI_UINT32, FI_UINT64};
    ofi_caps *c = p->c;
    if (!c->atomic_cap)
        return;
    for (int t = 0; t < 2; t++) {
        size_t n;
        for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
            if (fi_atomicvalid(p->f->ep, types[t], ops[k], &n) == 0 && n >= 1)
                c->amo_plain[t] |= OFI_AMO_BIT(ops[k]);
            if (fi_fetch_atomicvalid(p->f->ep, types[t], ops[k], &n) == 0 && n >= 1)
                c->amo_fetch[t] |= OFI_AMO_BIT(ops[k]);
        }
        if (fi_compare_atomicvalid(p->f->ep, types[t], FI_CSWAP, &n) == 0 && n >= 1)
            c->amo_cswap[t] |= OFI_AMO_BIT(FI_CSWAP);
    }
    int fetch_add = (c->amo_fetch[0] & c->amo_fetch[1] & OFI_AMO_BIT(FI_SUM)) != 0;
    if (!(c->amo_cswap[0] & c->amo_cswap[1]))
        return;
    c->amo_works = 0;
    /* Words in the probe region, past what the other steps write. */
    size_t off = 40960;
    for (int t = 0; t < 2; t++, off += 64) {
        int size = t ? 8 : 4;
        uint64_t word = UINT64_C(0x0000000500000005) & (t ? ~UINT64_C(0) : 0xffffffffu);
        uint64_t opnd = 3, res = 0, cmp, want;
        memcpy(p->dst + off, &word, (size_t)size);
        ssize_t rc;
        if (fetch_add) {
            PROBE_POST(rc, p->f, &p->q,
                       fi_fetch_atomic(p->f->ep, &opnd, 1, NULL, &res, NULL, p->self,
                                       p->base + off, p->key, types[t], FI_SUM, NULL));
            want = word + 3;
            if (rc || wait_cq(p->f, &p->q, ++p->want, 0) || memcmp(&res, &word, (size_t)size) ||
                memcmp(p->dst + off, &want, (size_t)size)) {
                forget(p);
                return;
            }
            word = want;
        }
        cmp = word;
        opnd = 11;
        res = 0;
        PROBE_POST(rc, p->f, &p->q,
                   fi_compare_atomic(p->f->ep, &opnd, 1, NULL, &cmp, NULL, &res, NULL, p->self,
                                     p->base + off, p->key, types[t], FI_CSWAP, NULL));
        if (rc || wait_cq(p->f, &p->q, ++p->want, 0) || memcmp(&res, &word, (size_t)size) ||
            memcmp(p->dst + off, &opnd, (size_t)size)) {
            forget(p);
            return;
        }
    }
    c->amo_works = 1;
}

dmsg_status dmsg_ofi_probe(ofi_fab *f, ofi_caps *c)
{
    dmsg_status st;
    char *mem = aligned_alloc(4096, 2 * PROBE_BUF);
    if (!mem)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "probe buffer");
    memset(mem, 0, 2 * PROBE_BUF);
    probe_ctx p = {.f = f, .c = c, .dst = mem, .src = mem + PROBE_BUF, .key = 0};
    if ((st = dmsg_ofi_fab_register(f, p.dst, PROBE_BUF))) {
        st = DMSG_FAIL(st, "provider \"%s\" cannot register memory for RMA (%s)", c->prov,
                       dmsg_last_error());
        goto out_mem;
    }
    if (fi_av_insert(f->av, f->name, 1, &p.self, 0, NULL) != 1) {
        st = DMSG_FAIL(DMSG_ERR_TRANSPORT, "provider \"%s\" cannot address its own endpoint",
                       c->prov);
        goto out_mr;
    }
    p.base = c->virt_addr ? (uint64_t)(uintptr_t)p.dst : 0;
    p.key = f->key;
    probe_delivery(&p);
    if ((st = probe_write(&p)))
        goto out_mr;
    probe_chain(&p);
    probe_inject(&p);
    probe_cqdata(&p);
    /* A counter bound to one MR of its own (counting by remote counters,
     * ofi_rcount.c): it must count writes to that MR, injected and posted
     * the way dmsg posts its signal writes, and no writes to other MRs. */
    if (f->rma_event && !c->prov_key && c->inject >= 8)
        c->rcntr_mr = probe_mr_counter(f, c, p.dst + 49152, p.src, p.self, p.base, p.key);
    else if (!f->rma_event)
        snprintf(c->rcntr_mr_why, sizeof c->rcntr_mr_why, "no FI_RMA_EVENT");
    probe_atomics(&p);
    c->t_write8_us = probe_time(&p, 0);
    if (c->delivery_complete == 1)
        c->t_write8_dc_us = probe_time(&p, 1);
out_mr:
    if (f->mr) {
        fi_close(&f->mr->fid);
        f->mr = NULL;
    }
out_mem:
    free(mem);
    return st;
}
