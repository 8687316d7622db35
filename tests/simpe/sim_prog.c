/* PE programs for the simulated-machine tests (tests/sim/): each case prints
 * virtual times from PE 0 in a form the tests parse, and checks what it can
 * check itself (exit status 1 on a violation). Run under dmsgrun with
 * DMSG_TRANSPORT=sim. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "dmsg.h"
#include "dmsg_postal.h"
#include "dmsg_rr.h"
#include "dmsg/core/order.h"
#include "dmsg/core/work.h"
#include "dmsg/boot/job.h"
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#define CHECK(call)                                                                             \
    do {                                                                                        \
        int st_ = (call);                                                                       \
        if (st_ != DMSG_OK) {                                                                   \
            fprintf(stderr, "PE %d: %s: %s\n", dmsg_pe(), #call, dmsg_strerror(st_));          \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

static int me, np;
static int g_argc;
static char **g_argv;

/* Numeric argument i of the case (after the case name), or dflt. */
static long arg(int i, long dflt)
{
    return g_argc > 2 + i ? strtol(g_argv[2 + i], NULL, 10) : dflt;
}

/* Virtual time may only move forward. */
static double last_t;
static void tick(const char *what)
{
    double t = dmsg_wtime();
    if (t < last_t) {
        fprintf(stderr, "PE %d: clock went back at %s: %a -> %a\n", me, what, last_t, t);
        exit(1);
    }
    last_t = t;
}

/* PE 0 prints one line per PE: "clock PE %a" (exact hex floats). */
static void print_clocks(const char *tag)
{
    double *all;
    dmsg_ctr c;
    CHECK(dmsg_alloc((size_t)np * sizeof *all, (void **)&all));
    CHECK(dmsg_ctr_create(&c));
    double t = dmsg_wtime();
    CHECK(dmsg_deposit(&all[me], &t, sizeof t, 0, c));
    if (me == 0) {
        CHECK(dmsg_await(c, (uint64_t)np));
        for (int p = 0; p < np; p++)
            printf("%s %d %a\n", tag, p, all[p]);
    }
    CHECK(dmsg_sync());
    CHECK(dmsg_ctr_destroy(c));
    CHECK(dmsg_free(all));
}

/* A mix of every kind of step: sections, indexed and adp deposits with
 * counters, fetches of each kind, barriers. Well-synchronized: each phase
 * has its own counter, so every await consumes exactly the deposits of its
 * phase (one counter for both phases would let a fast neighbour's second-phase
 * deposit satisfy a first-phase await -- a race on any machine). */
static int case_clocks(void)
{
    enum { N = 64 };
    double *a, *b;
    dmsg_ctr c, c2;
    CHECK(dmsg_alloc(N * N * sizeof *a, (void **)&a));
    CHECK(dmsg_alloc(N * N * sizeof *b, (void **)&b));
    CHECK(dmsg_ctr_create(&c));
    CHECK(dmsg_ctr_create(&c2));
    for (int i = 0; i < N * N; i++)
        a[i] = me * 1e6 + i;
    int rounds = (int)arg(0, 3);
    for (int round = 0; round < rounds; round++) {
        CHECK(dmsg_sync());
        tick("sync");
        for (int k = 1; k <= np; k++) { /* every partner, self last */
            int q = (me + k) % np;
            dmsg_layout sl = {2, {N / 4, N / 4}, {N * 8, 8}};
            dmsg_layout dl = {2, {N / 4, N / 4}, {8, N * 8}};
            CHECK(dmsg_deposit_section(&b[me % 4 * (N / 4)], &dl, &a[q % 4], &sl, 8, q, c));
            tick("deposit_section");
        }
        CHECK(dmsg_await(c, (uint64_t)np));
        tick("await");
        size_t idx[16];
        for (int i = 0; i < 16; i++)
            idx[i] = (size_t)(i * 37 + me) % (N * N);
        dmsg_adp8 rec[16];
        for (int i = 0; i < 16; i++)
            rec[i] = (dmsg_adp8){(uint64_t)(i * 8), (uint64_t)me};
        int right = (me + 1) % np;
        CHECK(dmsg_deposit_adp(b + N * N / 2 + me % 4 * 16, rec, 16, 8, right, c2));
        CHECK(dmsg_deposit_indexed(b, idx, a, 16, 8, right, c2));
        tick("deposit_adp/indexed");
        CHECK(dmsg_await(c2, 2));
        tick("await 2");
        CHECK(dmsg_sync());
        double tmp[N];
        dmsg_req r;
        CHECK(dmsg_fetch(tmp, a, N * 8, right));
        tick("fetch");
        CHECK(dmsg_fetch_indexed(tmp, a, idx, 16, 8, right));
        tick("fetch_indexed");
        CHECK(dmsg_fetch_nb(tmp, a + N, N * 8, right, &r));
        tick("fetch_nb");
        CHECK(dmsg_wait(&r));
        tick("wait");
    }
    CHECK(dmsg_sync());
    tick("final sync");
    CHECK(dmsg_ctr_destroy(c2));
    CHECK(dmsg_ctr_destroy(c));
    print_clocks("clock");
    return 0;
}

/* A deposit never lands before the sender finished issuing it, and a
 * barrier leaves every clock equal and no earlier than any clock before it. */
static int case_causality(void)
{
    double *stamp, *all;
    dmsg_ctr c;
    CHECK(dmsg_alloc((size_t)np * sizeof *stamp, (void **)&stamp));
    CHECK(dmsg_alloc((size_t)np * sizeof *all, (void **)&all));
    CHECK(dmsg_ctr_create(&c));
    for (int round = 0; round < 20; round++) {
        int to = (me + 1 + round) % np;
        /* Uneven work so that PEs' clocks differ before the barrier. */
        char big[4096 * 4];
        memset(big, me, sizeof big);
        for (int k = 0; k <= (me + round) % 3; k++)
            CHECK(dmsg_deposit(all, big, (size_t)np * sizeof *all, me, DMSG_CTR_NONE));
        double t = dmsg_wtime();
        CHECK(dmsg_deposit(&stamp[me], &t, sizeof t, to, c));
        double after = dmsg_wtime();
        if (after < t) {
            fprintf(stderr, "PE %d: deposit moved the clock back\n", me);
            return 1;
        }
        CHECK(dmsg_await(c, 1));
        int from = ((me - 1 - round) % np + np) % np;
        if (dmsg_wtime() < stamp[from]) {
            fprintf(stderr, "PE %d: read data stamped %a at %a, before it was sent\n", me,
                    stamp[from], dmsg_wtime());
            return 1;
        }
        double before = dmsg_wtime();
        CHECK(dmsg_sync());
        double t1 = dmsg_wtime();
        if (t1 < before) {
            fprintf(stderr, "PE %d: barrier moved the clock back\n", me);
            return 1;
        }
        CHECK(dmsg_deposit(&all[me], &t1, sizeof t1, 0, c));
        if (me == 0) {
            CHECK(dmsg_await(c, (uint64_t)np));
            for (int p = 0; p < np; p++)
                if (all[p] != t1) {
                    fprintf(stderr, "after barrier PE %d at %a, PE 0 at %a\n", p, all[p], t1);
                    return 1;
                }
        }
        CHECK(dmsg_sync());
    }
    printf("causality OK\n");
    return 0;
}

/* One strided section deposit PE 0 -> PE 1 (4096 doubles read at a stride of
 * 64 words, stored contiguously): prints the sender's and the receiver's
 * virtual times, for comparison with the copy-transfer model. */
static int case_cost(void)
{
    enum { K = 4096, S = 64 };
    double *src = calloc((size_t)K * S, sizeof *src), *dst;
    dmsg_ctr c;
    if (!src)
        return 1;
    CHECK(dmsg_alloc(K * sizeof *dst, (void **)&dst));
    CHECK(dmsg_ctr_create(&c));
    CHECK(dmsg_sync());
    double t0 = dmsg_wtime();
    if (me == 0 && np > 1) {
        dmsg_layout sl = {1, {K}, {S * 8}}, dl = {1, {K}, {8}};
        CHECK(dmsg_deposit_section(dst, &dl, src, &sl, 8, 1, c));
        printf("send %a\n", dmsg_wtime() - t0);
    } else if (me == 1) {
        CHECK(dmsg_await(c, 1));
        printf("recv %a\n", dmsg_wtime() - t0);
    }
    fflush(stdout);
    CHECK(dmsg_sync());
    free(src);
    return 0;
}

/* PE 0 fetches K words from PE 1 read at a stride of S words (default 8192
 * and 4; S = 0: by index, a scattered permutation): prints the virtual time
 * it took (the strategy comes from DMSG_SIM_FETCH). */
static int case_fetch(void)
{
    size_t k = (size_t)arg(0, 8192), stride = (size_t)arg(1, 4), span = k * (stride ? stride : 1);
    double *src, *dst = malloc(k * sizeof *dst);
    size_t *idx = malloc(k * sizeof *idx);
    if (!dst || !idx)
        return 1;
    CHECK(dmsg_alloc(span * sizeof *src, (void **)&src));
    for (size_t i = 0; i < span; i++)
        src[i] = me * 1e6 + (double)i;
    for (size_t i = 0; i < k; i++)
        idx[i] = stride ? i * stride : (i * 7919) % k;
    CHECK(dmsg_sync());
    if (me == 0 && np > 1) {
        dmsg_layout rl = {1, {k}, {(ptrdiff_t)(stride * 8)}}, ll = {1, {k}, {8}};
        double t0 = dmsg_wtime();
        if (stride)
            CHECK(dmsg_fetch_section(dst, &ll, src, &rl, 8, 1));
        else
            CHECK(dmsg_fetch_indexed(dst, src, idx, k, 8, 1));
        printf("fetch %a\n", dmsg_wtime() - t0);
        for (size_t i = 0; i < k; i++)
            if (dst[i] != 1e6 + (double)idx[i]) {
                fprintf(stderr, "fetched element %zu wrong\n", i);
                return 1;
            }
    }
    CHECK(dmsg_sync());
    free(idx);
    free(dst);
    return 0;
}

/* One deposit PE 0 -> PE 1 of W words read at a stride of X words and
 * stored at a stride of Y words (the copy-transfer model's xQy): PE 0
 * prints its busy time, the payload throughput over it, and the part of it
 * booked as packing copies. */
static int case_xfer(void)
{
    size_t x = (size_t)arg(0, 1), y = (size_t)arg(1, 1), w = (size_t)arg(2, 1);
    double *src = calloc(w * x, sizeof *src), *dst;
    dmsg_ctr c;
    if (!src)
        return 1;
    for (size_t i = 0; i < w; i++)
        src[i * x] = (double)i;
    CHECK(dmsg_alloc(w * y * sizeof *dst, (void **)&dst));
    CHECK(dmsg_ctr_create(&c));
    CHECK(dmsg_sync());
    if (me == 0 && np > 1) {
        dmsg_layout sl = {1, {w}, {(ptrdiff_t)(x * 8)}}, dl = {1, {w}, {(ptrdiff_t)(y * 8)}};
        dmsg_times t0, t1;
        CHECK(dmsg_times_get(&t0));
        CHECK(dmsg_deposit_section(dst, &dl, src, &sl, 8, 1, c));
        CHECK(dmsg_times_get(&t1));
        double busy = t1.total - t0.total;
        printf("send %a\nmbs %a\ncopy %a\n", busy, (double)(w * 8) / busy / 1e6,
               t1.copy - t0.copy);
    } else if (me == 1) {
        CHECK(dmsg_await(c, 1));
        for (size_t i = 0; i < w; i++)
            if (dst[i * y] != (double)i) {
                fprintf(stderr, "deposited element %zu wrong\n", i);
                return 1;
            }
    }
    CHECK(dmsg_sync());
    CHECK(dmsg_ctr_destroy(c));
    CHECK(dmsg_free(dst));
    free(src);
    return 0;
}

/* A barrier's virtual cost: the clocks are equal after the first one, so
 * the second costs exactly one barrier. */
static int case_barrier(void)
{
    CHECK(dmsg_sync());
    double t0 = dmsg_wtime();
    CHECK(dmsg_sync());
    if (me == 0)
        printf("barrier %a\n", dmsg_wtime() - t0);
    return 0;
}

/* The breakdown adds up to the clock. */
static int case_times(void)
{
    dmsg_times t;
    int st = dmsg_times_get(&t);
    if (strcmp(dmsg_transport_name(), "sim") != 0) {
        if (st != DMSG_ERR_UNSUPPORTED) {
            fprintf(stderr, "dmsg_times_get on %s: %d\n", dmsg_transport_name(), st);
            return 1;
        }
        printf("times unsupported OK\n");
        return 0;
    }
    case_clocks();
    CHECK(dmsg_times_get(&t));
    double sum = t.transfer + t.copy + t.sync + t.ctr_wait + t.fetch_wait;
    if (t.total <= 0 || sum < t.total * (1 - 1e-9) || sum > t.total * (1 + 1e-9) ||
        t.total != dmsg_wtime()) {
        fprintf(stderr, "PE %d: parts add to %a, total %a\n", me, sum, t.total);
        return 1;
    }
    if (dmsg_times_get(NULL) != DMSG_ERR_NULL)
        return 1;
    printf("times OK\n");
    return 0;
}

/* Modelled local work (dmsg/core/work.h): a strided pack copy of 4096
 * doubles (stride 64 words into a contiguous buffer), then 10 messages'
 * software overhead, 10 message buffers and 10 headers matched; prints the
 * virtual time each took and checks that the breakdown counts them as copy,
 * transfer and sync (protocol) time. On other transports the booking
 * succeeds and does nothing to model. */
static int case_work(void)
{
    dmsg_work copy = {.kind = DMSG_WORK_COPY, .n = 4096, .elem = 8, .src_stride = 64 * 8,
                      .dst_stride = 8};
    dmsg_work msgs = {.kind = DMSG_WORK_MESSAGE, .n = 10};
    dmsg_work bufs = {.kind = DMSG_WORK_BUFFER, .n = 10};
    dmsg_work match = {.kind = DMSG_WORK_MATCH, .n = 10};
    dmsg_work bad = {.kind = (dmsg_work_kind)42};
    if (dmsg_work_book(NULL) != DMSG_ERR_NULL || dmsg_work_book(&bad) != DMSG_ERR_ARG)
        return 1;
    if (strcmp(dmsg_transport_name(), "sim") != 0) {
        CHECK(dmsg_work_book(&copy));
        CHECK(dmsg_work_book(&msgs));
        CHECK(dmsg_work_book(&bufs));
        CHECK(dmsg_work_book(&match));
        printf("work ignored OK\n");
        return 0;
    }
    dmsg_times a, b, c, d, e;
    CHECK(dmsg_times_get(&a));
    CHECK(dmsg_work_book(&copy));
    CHECK(dmsg_times_get(&b));
    CHECK(dmsg_work_book(&msgs));
    CHECK(dmsg_times_get(&c));
    CHECK(dmsg_work_book(&bufs));
    CHECK(dmsg_times_get(&d));
    CHECK(dmsg_work_book(&match));
    CHECK(dmsg_times_get(&e));
    double dcopy = b.total - a.total, dmsgs = c.total - b.total, dbufs = d.total - c.total,
           dmatch = e.total - d.total;
    if (dcopy <= 0 || dmsgs <= 0 || dbufs <= 0 || dmatch <= 0 ||
        fabs(b.copy - a.copy - dcopy) > 1e-9 * e.total ||
        fabs(c.transfer - b.transfer - dmsgs) > 1e-9 * e.total ||
        fabs(e.sync - c.sync - dbufs - dmatch) > 1e-9 * e.total) {
        fprintf(stderr, "PE %d: work booked in the wrong category\n", me);
        return 1;
    }
    if (me == 0)
        printf("copy %a\nmsgs %a\nbufs %a\nmatch %a\n", dcopy, dmsgs, dbufs, dmatch);
    return 0;
}

/* A partner that runs ahead (2 PEs): PE 1 deposits messages A and B, then
 * 1000 us of modelled work later C, on one counter of PE 0. PE 0 lets all
 * three land in host time (reading the counter moves no clock), then awaits
 * the first 64 bytes (A's) and the messages one at a time: each await must
 * end at the arrival of the message it takes, not at C's. Prints the clock
 * after each await. */
static int case_drift(void)
{
    char *buf;
    dmsg_ctr c;
    CHECK(dmsg_alloc(4096, (void **)&buf));
    CHECK(dmsg_ctr_create(&c));
    CHECK(dmsg_sync());
    if (me == 1) {
        dmsg_work w = {.kind = DMSG_WORK_MESSAGE, .n = 1000}; /* 1000 us on the T3D */
        CHECK(dmsg_deposit(buf, buf + 1024, 64, 0, c));
        CHECK(dmsg_deposit(buf + 64, buf + 1024, 64, 0, c));
        CHECK(dmsg_work_book(&w));
        CHECK(dmsg_deposit(buf + 128, buf + 1024, 64, 0, c));
        printf("sent %a\n", dmsg_wtime());
    } else if (me == 0) {
        uint64_t n = 0;
        while (n < 3)
            CHECK(dmsg_ctr_read(c, &n, NULL));
        CHECK(dmsg_await_bytes(c, 64));
        printf("bytes %a\n", dmsg_wtime());
        CHECK(dmsg_await(c, 1));
        printf("first %a\n", dmsg_wtime());
        CHECK(dmsg_await(c, 1));
        printf("second %a\n", dmsg_wtime());
        CHECK(dmsg_await(c, 1));
        printf("third %a\n", dmsg_wtime());
    }
    CHECK(dmsg_sync());
    CHECK(dmsg_ctr_destroy(c));
    CHECK(dmsg_free(buf));
    return 0;
}

/* Many senders (tests/sim: await_takes_early_arrivals_of_many_senders):
 * every PE but 0 deposits two messages into PE 0, works 1000 us and
 * deposits two more, all counted by one counter; PE 0 looks until all
 * have landed, then awaits the early half ("early %a") and the rest
 * ("late %a"). With four arrivals per sender the arrival log must hold
 * 4 x (np - 1) records, or the overflow's floor drags the early await to a
 * late arrival. */
static int case_fanin(void)
{
    char *buf;
    dmsg_ctr c;
    uint64_t senders = (uint64_t)np - 1;
    CHECK(dmsg_alloc(64, (void **)&buf));
    CHECK(dmsg_ctr_create(&c));
    CHECK(dmsg_sync());
    if (me != 0) {
        dmsg_work w = {.kind = DMSG_WORK_MESSAGE, .n = 1000}; /* 1000 us on the T3D */
        CHECK(dmsg_deposit(buf, buf + 8, 8, 0, c));
        CHECK(dmsg_deposit(buf, buf + 16, 8, 0, c));
        CHECK(dmsg_work_book(&w));
        CHECK(dmsg_deposit(buf, buf + 24, 8, 0, c));
        CHECK(dmsg_deposit(buf, buf + 32, 8, 0, c));
    } else {
        uint64_t n = 0;
        while (n < 4 * senders)
            CHECK(dmsg_ctr_read(c, &n, NULL));
        CHECK(dmsg_await(c, 2 * senders));
        printf("early %a\n", dmsg_wtime());
        CHECK(dmsg_await(c, 2 * senders));
        printf("late %a\n", dmsg_wtime());
    }
    CHECK(dmsg_sync());
    CHECK(dmsg_ctr_destroy(c));
    CHECK(dmsg_free(buf));
    return 0;
}

/* Ordered delivery (3 PEs, RRMSG): PE 0 posts two receives from any PE.
 * PE 1's request leaves at once in host time but 1000 us late in virtual
 * time (modelled work first); PE 2's leaves 300 ms later in host time but
 * at virtual time 0. PE 0 must serve PE 2's first: its first receive gets
 * PE 2's data. Prints "first SRC second SRC" and PE 0's clock. On a
 * transport without virtual time, checks that the order calls refuse. */
static int case_order(void)
{
    double h;
    if (!dmsg_order_on()) {
        if (dmsg_order_horizon(&h) != DMSG_ERR_UNSUPPORTED ||
            dmsg_order_wait(1.0) != DMSG_ERR_UNSUPPORTED)
            return 1;
        if (me == 0)
            printf("order refused OK\n");
        return 0;
    }
    if (dmsg_order_horizon(NULL) != DMSG_ERR_NULL || dmsg_order_due(0, 0, 1, &h) !=
        DMSG_ERR_COUNTER)
        return 1;
    char *buf;
    dmsg_rr_req r[2];
    dmsg_rr_info info[2];
    CHECK(dmsg_alloc(256, (void **)&buf));
    CHECK(dmsg_rr_init());
    CHECK(dmsg_sync());
    if (me == 0) {
        CHECK(dmsg_rr_irecv(DMSG_RR_ANY, 1, buf, 64, &r[0]));
        CHECK(dmsg_rr_irecv(DMSG_RR_ANY, 1, buf + 64, 64, &r[1]));
        CHECK(dmsg_rr_waitall(2, r, info));
        printf("first %d second %d clock %a\n", info[0].src, info[1].src, dmsg_wtime());
    } else if (me == 1) {
        dmsg_work w = {.kind = DMSG_WORK_MESSAGE, .n = 1000}; /* 1000 us on the T3D */
        CHECK(dmsg_work_book(&w));
        CHECK(dmsg_rr_send(0, 1, buf + 128, 64));
    } else if (me == 2) {
        struct timespec ts = {0, 300000000L};
        nanosleep(&ts, NULL);
        CHECK(dmsg_rr_send(0, 1, buf + 128, 64));
    }
    CHECK(dmsg_rr_finalize());
    CHECK(dmsg_sync());
    CHECK(dmsg_free(buf));
    return 0;
}

/* Wildcard all-to-all over RRMSG: each PE books work that differs by PE,
 * posts a receive from any PE per partner, sends to every partner, waits;
 * three rounds. Which request meets which receive depends on the order in
 * which PEs serve them, so PE 0 prints every PE's sources in match order
 * and its clock ("pe P SRC... clock T"): the same in every run only if the
 * service order is the virtual one. */
static int case_rrall(void)
{
    char *buf;
    dmsg_rr_req *r = calloc(2 * (size_t)np, sizeof *r);
    dmsg_rr_info *info = calloc(2 * (size_t)np, sizeof *info);
    int *srcs = calloc(3 * (size_t)np, sizeof *srcs);
    double *all;
    dmsg_ctr c;
    if (!r || !info || !srcs)
        return 1;
    CHECK(dmsg_alloc((size_t)np * 256, (void **)&buf));
    CHECK(dmsg_alloc((size_t)np * (3 * (size_t)np + 1) * sizeof(double), (void **)&all));
    CHECK(dmsg_ctr_create(&c));
    CHECK(dmsg_rr_init());
    CHECK(dmsg_sync());
    int rounds = (int)arg(0, 3);
    for (int round = 0; round < rounds; round++) {
        dmsg_work w = {.kind = DMSG_WORK_MESSAGE, .n = (size_t)((me * 7 + round * 3) % 5) * 40};
        CHECK(dmsg_work_book(&w));
        for (int k = 0; k < np - 1; k++)
            CHECK(dmsg_rr_irecv(DMSG_RR_ANY, round, buf + (size_t)k * 256, 256, &r[k]));
        for (int k = 1; k < np; k++) {
            int q = (me + k) % np;
            CHECK(dmsg_rr_isend(q, round, buf + (size_t)(np - 1) * 256, (size_t)(32 * k),
                                &r[np - 1 + k - 1]));
        }
        CHECK(dmsg_rr_waitall(2 * (np - 1), r, info));
        for (int k = 0; k < np - 1; k++)
            srcs[round * np + k] = info[k].src;
    }
    double mine[3 * 64 + 1];
    for (int i = 0; i < 3 * np; i++)
        mine[i] = srcs[i];
    mine[3 * np] = dmsg_wtime();
    CHECK(dmsg_deposit(all + (size_t)me * (3 * np + 1), mine, (3 * (size_t)np + 1) * sizeof(double),
                       0, c));
    if (me == 0) {
        CHECK(dmsg_await(c, (uint64_t)np));
        for (int p = 0; p < np; p++) {
            printf("pe %d", p);
            for (int i = 0; i < 3 * np; i++)
                if (i % np != np - 1)
                    printf(" %d", (int)all[p * (3 * np + 1) + i]);
            printf(" clock %a\n", all[p * (3 * np + 1) + 3 * np]);
        }
    }
    CHECK(dmsg_rr_finalize());
    CHECK(dmsg_sync());
    CHECK(dmsg_ctr_destroy(c));
    CHECK(dmsg_free(all));
    CHECK(dmsg_free(buf));
    free(r);
    free(info);
    free(srcs);
    return 0;
}

/* One transfer of the same data three ways between 2 PEs (tests/sim:
 * baselines_cost_what_the_model_says): N doubles read every S words at PE 0,
 * written every D words at PE 1 (default 1024, 8, 1), first as a dmsg
 * deposit, then as a postal message (pack, send; receive, unpack), then as an
 * RRMSG transfer (section send; section receive). Each starts after a
 * barrier, from which both clocks are equal; PE 0 prints the virtual time
 * each PE took ("dmsg send T", "dmsg recv T", "postal send T", ...: exact hex
 * floats), each with its breakdown (copy, transfer, sync and counter-wait
 * time). A zero-byte deposit each way before the first barrier
 * sets each PE's remote partner, so no transfer timed here pays the partner
 * switch. The postal sender waits 300 ms of host time before it packs, so
 * that the receiver is already waiting for its wake-up, as it is in virtual
 * time (the postal channel serves messages in host order: a receiver that
 * arrives after the message, in host time, would find it without waiting). */
static int case_baselines(void)
{
    size_t n = (size_t)arg(0, 1024), s = (size_t)arg(1, 8), d = (size_t)arg(2, 1);
    double *src = malloc(n * s * sizeof *src), *dst, *all;
    dmsg_ctr c, call;
    if (!src || n == 0 || s == 0 || d == 0 || np != 2) {
        fprintf(stderr, "baselines: needs 2 PEs (not %d), N, X and Y > 0, and memory\n", np);
        free(src);
        return 1;
    }
    for (size_t i = 0; i < n * s; i++)
        src[i] = (double)i;
    /* per way and PE: total, copy, transfer, sync, ctrwait, data right */
    enum { W_DMSG, W_POSTAL, W_RR, NWAYS, NVALS = 6 };
    static const char *name[NWAYS] = {"dmsg", "postal", "rr"};
    double mine[NWAYS * NVALS] = {0};
    CHECK(dmsg_alloc(n * d * sizeof *dst, (void **)&dst));
    CHECK(dmsg_alloc(2 * sizeof mine, (void **)&all));
    CHECK(dmsg_ctr_create(&c));
    CHECK(dmsg_ctr_create(&call));
    CHECK(dmsg_postal_init());
    CHECK(dmsg_rr_init());
    CHECK(dmsg_deposit(all, all, 0, 1 - me, DMSG_CTR_NONE)); /* the remote partner */
    dmsg_layout sl = {1, {n}, {(ptrdiff_t)(s * 8)}}, dl = {1, {n}, {(ptrdiff_t)(d * 8)}};
    for (int way = 0; way < NWAYS; way++) {
        memset(dst, 0, n * d * sizeof *dst);
        CHECK(dmsg_sync());
        dmsg_times t0, t1;
        CHECK(dmsg_times_get(&t0));
        if (me == 0) {
            switch (way) {
            case W_DMSG: CHECK(dmsg_deposit_section(dst, &dl, src, &sl, 8, 1, c)); break;
            case W_POSTAL: {
                struct timespec ts = {0, 300000000L};
                nanosleep(&ts, NULL);
                CHECK(dmsg_postal_initsend());
                CHECK(dmsg_postal_pk_double(src, (long)n, (long)s));
                CHECK(dmsg_postal_send(1, 7));
                break;
            }
            case W_RR: CHECK(dmsg_rr_send_section(1, 7, src, &sl, 8)); break;
            }
        } else {
            switch (way) {
            case W_DMSG: CHECK(dmsg_await(c, 1)); break;
            case W_POSTAL:
                CHECK(dmsg_postal_recv(0, 7, NULL));
                CHECK(dmsg_postal_upk_double(dst, (long)n, (long)d));
                break;
            case W_RR: CHECK(dmsg_rr_recv_section(0, 7, dst, &dl, 8, NULL)); break;
            }
        }
        CHECK(dmsg_times_get(&t1));
        double *v = &mine[way * NVALS];
        v[0] = t1.total - t0.total;
        v[1] = t1.copy - t0.copy;
        v[2] = t1.transfer - t0.transfer;
        v[3] = t1.sync - t0.sync;
        v[4] = t1.ctr_wait - t0.ctr_wait;
        v[5] = 1;
        for (size_t i = 0; me == 1 && i < n; i++)
            if (dst[i * d] != (double)(i * s))
                v[5] = 0;
        if (way == W_POSTAL)
            CHECK(dmsg_postal_release());
    }
    CHECK(dmsg_sync());
    CHECK(dmsg_deposit(all + me * NWAYS * NVALS, mine, sizeof mine, 0, call));
    if (me == 0) {
        CHECK(dmsg_await(call, 2));
        for (int way = 0; way < NWAYS; way++)
            for (int p = 0; p < 2; p++) {
                const double *v = &all[(p * NWAYS + way) * NVALS];
                printf("%s %s %a copy %a transfer %a sync %a ctrwait %a%s\n", name[way],
                       p ? "recv" : "send", v[0], v[1], v[2], v[3], v[4],
                       v[5] ? "" : " WRONG DATA");
            }
    }
    CHECK(dmsg_sync());
    CHECK(dmsg_rr_finalize());
    CHECK(dmsg_postal_finalize());
    CHECK(dmsg_ctr_destroy(call));
    CHECK(dmsg_ctr_destroy(c));
    CHECK(dmsg_free(all));
    CHECK(dmsg_free(dst));
    free(src);
    return 0;
}

/* Atomics and signals on 2 PEs (PE 0 prints): "amo" the virtual time of
 * one blocking remote fetch-add (after a first one that pays the partner
 * switch); "pingpong" the time of one round of a signal ping-pong (PE 0
 * signals, PE 1 waits and signals back), "end" PE 0's final clock. */
static int case_amo(void)
{
    enum { ROUNDS = 50 };
    uint64_t *w;
    CHECK(dmsg_alloc(2 * sizeof *w, (void **)&w));
    CHECK(dmsg_sync());
    if (np < 2)
        return 1;
    uint64_t one = 1, old;
    if (me == 0) {
        CHECK(dmsg_atomic(&w[0], DMSG_AMO_FETCH_ADD, DMSG_TYPE_UINT64, &one, NULL, &old, 1));
        double t0 = dmsg_wtime();
        CHECK(dmsg_atomic(&w[0], DMSG_AMO_FETCH_ADD, DMSG_TYPE_UINT64, &one, NULL, &old, 1));
        printf("amo %a\n", dmsg_wtime() - t0);
    }
    CHECK(dmsg_sync());
    double t0 = 0;
    for (uint64_t r = 1; r <= ROUNDS + 1; r++) {
        if (r == 2)
            t0 = dmsg_wtime(); /* the first round pays the partner switches */
        if (me == 0) {
            CHECK(dmsg_signal(&w[1], r, DMSG_SIG_SET, 1));
            CHECK(dmsg_wait_until(&w[1], DMSG_TYPE_UINT64, DMSG_CMP_EQ, &r));
        } else if (me == 1) {
            CHECK(dmsg_wait_until(&w[1], DMSG_TYPE_UINT64, DMSG_CMP_EQ, &r));
            CHECK(dmsg_signal(&w[1], r, DMSG_SIG_SET, 0));
        }
        tick("ping-pong");
    }
    if (me == 0)
        printf("pingpong %a\nend %a\n", (dmsg_wtime() - t0) / ROUNDS, dmsg_wtime());
    fflush(stdout);
    CHECK(dmsg_sync());
    CHECK(dmsg_free(w));
    return 0;
}

/* Pairs SRC DST after the word count N (default 4096): each SRC deposits N
 * contiguous words to its DST at the same virtual time (after a barrier);
 * PE 0 prints every PE's time from the barrier to the end of its deposit
 * ("sent PE %a"; 0 for a PE that sent nothing). For the topology model's
 * contention tests (tests/sim/test_topo.c). */
static int case_topo(void)
{
    long n = arg(0, 4096);
    int pairs = (g_argc - 3) / 2, to = -1;
    uint64_t expect = 0;
    for (int i = 0; i < pairs; i++) {
        int a = (int)arg(1 + 2 * i, 0), b = (int)arg(2 + 2 * i, 0);
        if (a < 0 || a >= np || b < 0 || b >= np)
            return 1;
        if (a == me)
            to = b;
        expect += b == me;
    }
    double *src = calloc((size_t)n, sizeof *src), *dst, *all, sent = 0;
    dmsg_ctr c, g;
    if (!src)
        return 1;
    CHECK(dmsg_alloc((size_t)np * (size_t)n * sizeof *dst, (void **)&dst));
    CHECK(dmsg_alloc((size_t)np * sizeof *all, (void **)&all));
    CHECK(dmsg_ctr_create(&c));
    CHECK(dmsg_ctr_create(&g));
    CHECK(dmsg_sync());
    double t0 = dmsg_wtime();
    if (to >= 0) {
        CHECK(dmsg_deposit(dst + (size_t)me * (size_t)n, src, (size_t)n * sizeof *src, to, c));
        sent = dmsg_wtime() - t0;
    }
    if (expect)
        CHECK(dmsg_await(c, expect));
    CHECK(dmsg_sync());
    CHECK(dmsg_deposit(&all[me], &sent, sizeof sent, 0, g));
    if (me == 0) {
        CHECK(dmsg_await(g, (uint64_t)np));
        for (int p = 0; p < np; p++)
            printf("sent %d %a\n", p, all[p]);
    }
    fflush(stdout);
    CHECK(dmsg_sync());
    free(src);
    return 0;
}

/* Whether this process has a page-table entry for addr (/proc/self/pagemap,
 * bit 63 "present"; readable without privileges): 1, 0, or -1. */
static int page_present(const void *addr)
{
    int fd = open("/proc/self/pagemap", O_RDONLY);
    uint64_t e = 0;
    long page = sysconf(_SC_PAGESIZE);
    if (fd < 0)
        return -1;
    ssize_t n = pread(fd, &e, sizeof e, (off_t)((uintptr_t)addr / (uintptr_t)page * sizeof e));
    close(fd);
    return n == (ssize_t)sizeof e ? (int)(e >> 63) : -1;
}

/* The start of the mapping that holds addr: the job region (one mapping). */
static char *mapping_start(const void *addr)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    unsigned long lo, hi;
    char *at = NULL;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && (uintptr_t)addr >= lo && (uintptr_t)addr < hi)
            at = (char *)lo;
    if (f)
        fclose(f);
    return at;
}

/* DMSG_SIM_DROP_PES (sim_sched.c), two PEs: PE 0 touches PE 1's segment
 * (through the job region, where the simulator's transfers go), deposits to
 * PE 1 and blocks in an await, handing the token to PE 1, which deposits to
 * PE 0. PE 0 then says whether its page-table entries for PE 1's segment and
 * for its own are still there, and whether the data are (the region is a
 * shared memfd: a dropped entry loses nothing). */
static int case_drop(void)
{
    enum { N = 8192 };
    uint64_t *a, *in;
    dmsg_ctr c;
    CHECK(dmsg_alloc(N * sizeof *a, (void **)&a));
    CHECK(dmsg_alloc(N * sizeof *in, (void **)&in));
    CHECK(dmsg_ctr_create(&c));
    for (int i = 0; i < N; i++)
        a[i] = (uint64_t)me << 32 | (uint64_t)i;
    CHECK(dmsg_sync());
    int bad = 0;
    if (me == 1) {
        CHECK(dmsg_await(c, 1)); /* PE 0 runs until its own await */
        CHECK(dmsg_deposit(in, a, N * sizeof *a, 0, c));
    } else if (me == 0) {
        dmsg_job_hdr *h = (dmsg_job_hdr *)mapping_start(a);
        if (!h || h->magic != DMSG_JOB_MAGIC) {
            fprintf(stderr, "drop: no job region around %p\n", (void *)a);
            return 1;
        }
        const volatile uint64_t *peer = (const uint64_t *)((char *)a + h->pe_stride);
        for (int i = 0; i < N; i++)
            bad += peer[i] != ((uint64_t)1 << 32 | (uint64_t)i);
        printf("before peer %d own %d\n", page_present((const void *)peer), page_present(a));
        CHECK(dmsg_deposit(in, a, N * sizeof *a, 1, c));
        CHECK(dmsg_await(c, 1)); /* blocks: PE 1 has not deposited yet */
        printf("after peer %d own %d\n", page_present((const void *)peer), page_present(a));
        for (int i = 0; i < N; i++)
            bad += peer[i] != ((uint64_t)1 << 32 | (uint64_t)i) ||
                   in[i] != ((uint64_t)1 << 32 | (uint64_t)i) ||
                   a[i] != (uint64_t)i;
    }
    CHECK(dmsg_sync());
    if (me == 1)
        for (int i = 0; i < N; i++)
            bad += in[i] != (uint64_t)i;
    printf("pe %d bad %d\n", me, bad);
    fflush(stdout);
    CHECK(dmsg_sync());
    CHECK(dmsg_ctr_destroy(c));
    CHECK(dmsg_free(in));
    CHECK(dmsg_free(a));
    return 0;
}

/* What a deposit touches of its target's control area under the scheduler
 * (with DMSG_SIM_DROP_PES each touched page is a fault after every drop):
 * its counter slot and the record it adds to the target's arrival log,
 * not the log's header (in the job area) nor shm's doorbell at the end of
 * the area. PE 0 takes all access to the area's last page (the doorbell's)
 * away (mprotect) and deposits to PE 1; then it makes PE 1 log FILL more
 * deposits, so that the first free record is past the page where the log
 * starts, takes that page away and deposits once more. A touch of a page
 * taken away kills PE 0 (SIGSEGV). PE 1 waits in a barrier meanwhile (an
 * await of its would let the deposits read its log). */
static int guard_page(char *at, long page, int prot)
{
    if (mprotect(at, (size_t)page, prot)) {
        perror("guard: mprotect");
        return 1;
    }
    return 0;
}

static int case_guard(void)
{
    enum { FILL = 180, N = FILL + 2 };
    uint64_t *in, v[N];
    dmsg_ctr c;
    CHECK(dmsg_alloc(N * sizeof *in, (void **)&in));
    CHECK(dmsg_ctr_create(&c));
    for (int i = 0; i < N; i++)
        v[i] = 1000 + (uint64_t)i;
    CHECK(dmsg_sync());
    int bad = 0;
    if (me == 0) {
        dmsg_job_hdr *h = (dmsg_job_hdr *)mapping_start(in);
        long page = sysconf(_SC_PAGESIZE);
        if (!h || h->magic != DMSG_JOB_MAGIC || page <= 0) {
            fprintf(stderr, "guard: no job region around %p\n", (void *)in);
            return 1;
        }
        char *ctl = dmsg_job_ctl(h, 1);
        uintptr_t logp = ((uintptr_t)ctl + (size_t)h->max_counters * DMSG_CTR_SLOT_BYTES) &
                         ~(uintptr_t)(page - 1);
        char *log_page = (char *)logp, *last = ctl + h->ctl_size - (size_t)page;
        if (log_page == last) {
            fprintf(stderr, "guard: the log starts on the area's last page\n");
            return 1;
        }
        if (guard_page(last, page, PROT_NONE))
            return 1;
        CHECK(dmsg_deposit(&in[0], &v[0], sizeof v[0], 1, c));
        if (guard_page(last, page, PROT_READ | PROT_WRITE))
            return 1;
        printf("deposit without the doorbell's page done\n");
        for (int i = 1; i <= FILL; i++)
            CHECK(dmsg_deposit(&in[i], &v[i], sizeof v[i], 1, c));
        if (guard_page(log_page, page, PROT_NONE))
            return 1;
        CHECK(dmsg_deposit(&in[N - 1], &v[N - 1], sizeof v[N - 1], 1, c));
        if (guard_page(log_page, page, PROT_READ | PROT_WRITE))
            return 1;
        printf("deposit without the log's first page done\n");
    }
    CHECK(dmsg_sync());
    if (me == 1) {
        CHECK(dmsg_await(c, N));
        for (int i = 0; i < N; i++)
            bad += in[i] != v[i];
    }
    printf("pe %d bad %d\n", me, bad);
    fflush(stdout);
    CHECK(dmsg_sync());
    CHECK(dmsg_ctr_destroy(c));
    CHECK(dmsg_free(in));
    return 0;
}

/* Deposits through the job region's file (sim_file.c, DMSG_SIM_DROP_PES=0
 * DMSG_SIM_PWRITE=1, two PEs): PE 1 awaits first, so PE 0's deposits meet
 * it blocked (the bound of its await is read through the file too). PE 0
 * takes all access to PE 1's part of the region (control area and
 * segment) away from itself (mprotect) and deposits: a contiguous run over
 * a page boundary, the last bytes of an allocated block, a strided column, an
 * indexed scatter in descending order. A touch of PE 1's part through the
 * mapping kills PE 0 (SIGSEGV). Then, with access back, an indexed deposit
 * whose indices repeat (the mapping keeps the copy's order: the later
 * element stays). PE 1 checks every byte, the messages and bytes counted
 * (dmsg_ctr_read after the await: no message left, every payload byte) and the virtual time. */
static int case_file(void)
{
    enum { ROWS = 16, COLS = 8, NIDX = 12 };
    long page = sysconf(_SC_PAGESIZE);
    char *base;
    dmsg_ctr c;
    CHECK(dmsg_alloc(3 * (size_t)page, (void **)&base));
    CHECK(dmsg_ctr_create(&c));
    dmsg_job_hdr *h = (dmsg_job_hdr *)mapping_start(base);
    if (!h || h->magic != DMSG_JOB_MAGIC || page <= 0) {
        fprintf(stderr, "file: no job region around %p\n", (void *)base);
        return 1;
    }
    /* The block's last 24 bytes (the core refuses bytes outside allocated
     * blocks, so the segment's own last bytes are not reachable here). */
    char *tail = base + 3 * page - 24;
    double *grid = (double *)(void *)(base + page + 512); /* ROWS x COLS */
    char src[200];
    double col[ROWS], vals[NIDX], dup[3] = {7.5, 8.5, 9.5};
    size_t idx[NIDX], didx[3] = {3, 5, 3};
    for (int i = 0; i < (int)sizeof src; i++)
        src[i] = (char)(i * 7 + 1);
    for (int i = 0; i < ROWS; i++)
        col[i] = 100 + i;
    for (int i = 0; i < NIDX; i++) {
        idx[i] = (size_t)(ROWS * COLS - 1 - 9 * i); /* descending, apart */
        vals[i] = -1.0 - i;
    }
    memset(base, 0, 3 * (size_t)page);
    memset(tail, 0, 24);
    CHECK(dmsg_sync());
    int bad = 0, msgs = 6;
    if (me == 1) {
        CHECK(dmsg_await(c, (uint64_t)msgs)); /* blocks: PE 0 runs */
        for (int i = 0; i < (int)sizeof src; i++)
            bad += base[page - 100 + i] != src[i];
        for (int i = 0; i < 24; i++)
            bad += tail[i] != src[i];
        for (int i = 0; i < ROWS; i++)
            for (int j = 0; j < COLS; j++) {
                double want = j == 2 ? 100 + i : 0;
                for (int k = 0; k < NIDX; k++)
                    if (idx[k] == (size_t)(i * COLS + j))
                        want = vals[k];
                if (i * COLS + j == 3)
                    want = 9.5; /* the later of the two */
                if (i * COLS + j == 5)
                    want = 8.5;
                bad += grid[i * COLS + j] != want;
            }
        uint64_t m = 0, b = 0;
        CHECK(dmsg_ctr_read(c, &m, &b));
        /* A message await leaves the bytes count: every payload byte. */
        uint64_t want_b = sizeof src + 24 + ROWS * sizeof(double) + NIDX * sizeof(double) +
                          3 * sizeof(double) + 1;
        if (m != 0 || b != want_b)
            fprintf(stderr, "file: %llu messages, %llu bytes left\n", (unsigned long long)m,
                    (unsigned long long)b);
        bad += m != 0 || b != want_b;
        printf("pe 1 at %a\n", dmsg_wtime());
    } else if (me == 0) {
        char *part = dmsg_job_ctl(h, 1);
        if (mprotect(part, h->pe_stride, PROT_NONE)) {
            perror("file: mprotect");
            return 1;
        }
        dmsg_layout sl = {.ndims = 1, .count = {ROWS}, .stride = {sizeof(double)}};
        dmsg_layout dl = {.ndims = 1, .count = {ROWS}, .stride = {COLS * sizeof(double)}};
        CHECK(dmsg_deposit(base + page - 100, src, sizeof src, 1, c));
        CHECK(dmsg_deposit(tail, src, 24, 1, c));
        if (mprotect(part, h->pe_stride, PROT_READ | PROT_WRITE)) {
            perror("file: mprotect");
            return 1;
        }
        printf("deposits with PE 1's part taken away done\n");
        CHECK(dmsg_deposit_section(grid + 2, &dl, col, &sl, sizeof(double), 1, c));
        CHECK(dmsg_deposit_indexed(grid, idx, vals, NIDX, sizeof(double), 1, c));
        CHECK(dmsg_deposit_indexed(grid, didx, dup, 3, sizeof(double), 1, c));
        CHECK(dmsg_deposit(&tail[23], &src[23], 1, 1, c));
        printf("pe 0 at %a\n", dmsg_wtime());
    }
    printf("pe %d bad %d\n", me, bad);
    fflush(stdout);
    CHECK(dmsg_sync());
    CHECK(dmsg_ctr_destroy(c));
    CHECK(dmsg_free(base));
    return 0;
}

/* Sleepers under the scheduler (sim_sched.c): PE 0 holds the run token for
 * SECONDS (default 3) of host time without a dmsg call, while every other PE
 * sleeps in a barrier; each sleeper prints how often it went to sleep
 * meanwhile (voluntary context switches): a sleeper should wake when it is
 * handed the token, not every 100 ms to look around. */
static int case_sleep(void)
{
    double secs = (double)arg(2, 3);
    struct rusage r0, r1;
    /* Before the first barrier: PE 0 cannot leave it before every sleeper
     * has looked, and it spins before the second one, which no sleeper can
     * leave before it. */
    getrusage(RUSAGE_SELF, &r0);
    CHECK(dmsg_sync());
    if (me == 0) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        do
            clock_gettime(CLOCK_MONOTONIC, &b);
        while ((double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec) < secs);
    }
    CHECK(dmsg_sync());
    getrusage(RUSAGE_SELF, &r1);
    if (me != 0)
        printf("sleeper %d slept %ld times\n", me, r1.ru_nvcsw - r0.ru_nvcsw);
    fflush(stdout);
    CHECK(dmsg_sync());
    return 0;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*fn)(void);
    } cases[] = {{"clocks", case_clocks}, {"causality", case_causality}, {"cost", case_cost},
                 {"fetch", case_fetch},   {"times", case_times},         {"xfer", case_xfer},
                 {"barrier", case_barrier}, {"work", case_work}, {"drift", case_drift}, {"fanin", case_fanin},
                 {"order", case_order},   {"rrall", case_rrall}, {"baselines", case_baselines},
                 {"amo", case_amo},
                 {"topo", case_topo}, {"drop", case_drop}, {"guard", case_guard}, {"file", case_file},
                 {"sleep", case_sleep}};
    if (argc < 2) {
        fprintf(stderr, "usage: sim_prog CASE [NUMBERS]\n");
        return 2;
    }
    int st = dmsg_init();
    if (st) {
        fprintf(stderr, "dmsg_init: %s\n", dmsg_strerror(st));
        return 1;
    }
    me = dmsg_pe();
    np = dmsg_npes();
    g_argc = argc;
    g_argv = argv;
    int rc = 2;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (!strcmp(argv[1], cases[i].name))
            rc = cases[i].fn();
    if (rc == 2)
        fprintf(stderr, "sim_prog: unknown case %s\n", argv[1]);
    CHECK(dmsg_finalize());
    return rc;
}
