/* The postal baseline on several PEs: all-to-all and neighbour exchanges of
 * strided data checked element by element, wildcards and per-pair order,
 * flow control with a late receiver, and receives out of send order that
 * force a full mailbox to make room. Run with small DMSG_POSTAL_MAILBOX
 * settings too (tests/integ), so that rings wrap and senders queue. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "dmsg_postal.h"
#include "pe.h"

/* The value of element i of what `from` sends to `to` in round r. */
static double val(int from, int to, int r, long i)
{
    return (double)from * 1e6 + (double)to * 1e4 + (double)r * 1e2 + (double)i * 1e-3;
}

/* Iterations of the exchanges: PE_BASELINE_ITERS caps them (the integration
 * suite over ofi's network providers, where every message costs a round trip). */
static int iters(int want)
{
    const char *v = getenv("PE_BASELINE_ITERS");
    int cap = v ? atoi(v) : want;
    return cap > 0 && cap < want ? cap : want;
}

/* Largest message the mailbox setting allows, capped at `want`. */
static long fit(long want, size_t elem)
{
    const char *v = getenv("DMSG_POSTAL_MAILBOX");
    long box = v ? atol(v) * (strchr(v, 'K') ? 1024 : 1) : 256 * 1024;
    long most = (box / 2 - 64) / (long)elem;
    return want < most ? want : most;
}

/* Every PE sends every PE (itself too) n doubles taken every 3rd element,
 * in staggered order; receives name their source and unpack every 2nd. */
static int alltoall(void)
{
    int n = pe_n(), me = pe_me();
    long cnt = fit(700, 8);
    double *src = malloc((size_t)cnt * 3 * sizeof *src), *dst = malloc((size_t)cnt * 2 * sizeof *dst);
    PE_CHECK(src && dst, "malloc");
    PE_OK(dmsg_postal_init());
    for (int r = 0; r < 4; r++) {
        long len = 1 + (cnt - 1) * (r + 1) / 4;
        for (int k = 0; k < n; k++) {
            int to = (me + k) % n;
            for (long i = 0; i < len; i++)
                src[i * 3] = val(me, to, r, i);
            PE_OK(dmsg_postal_initsend());
            PE_OK(dmsg_postal_pk_double(src, len, 3));
            PE_OK(dmsg_postal_send(to, 100 + r));
        }
        for (int k = 0; k < n; k++) {
            int from = (me - k + n) % n;
            dmsg_postal_info info;
            PE_OK(dmsg_postal_recv(from, 100 + r, &info));
            PE_CHECK(info.src == from && info.tag == 100 + r && info.bytes == (size_t)len * 8,
                     "round %d from %d: info src %d tag %d bytes %zu", r, from, info.src,
                     info.tag, info.bytes);
            for (long i = 0; i < 2 * len; i++)
                dst[i] = -1;
            PE_OK(dmsg_postal_upk_double(dst, len, 2));
            for (long i = 0; i < len; i++) {
                PE_CHECK(dst[2 * i] == val(from, me, r, i), "round %d from %d element %ld: %g", r,
                         from, i, dst[2 * i]);
                PE_CHECK(dst[2 * i + 1] == -1, "round %d: gap element %ld written", r, i);
            }
            PE_EXPECT(dmsg_postal_upk_double(dst, 1, 1), DMSG_ERR_SIZE);
        }
    }
    PE_OK(dmsg_postal_finalize());
    free(src);
    free(dst);
    return 0;
}

/* Ring neighbours exchange rows many times with plain contiguous messages,
 * received from any source and told apart by their info. */
static int neighbour(void)
{
    int me = pe_me();
    long cnt = fit(512, 4);
    int32_t *row = malloc((size_t)cnt * 4), *got = malloc((size_t)cnt * 4 + 4);
    PE_CHECK(row && got, "malloc");
    PE_OK(dmsg_postal_init());
    for (int it = 0; it < iters(50); it++) {
        for (long i = 0; i < cnt; i++)
            row[i] = me * 100000 + it * 1000 + (int32_t)(i % 1000);
        PE_OK(dmsg_postal_send_bytes(pe_up(1), it, row, (size_t)cnt * 4));
        PE_OK(dmsg_postal_send_bytes(pe_down(1), it, row, (size_t)cnt * 4));
        for (int j = 0; j < 2; j++) {
            dmsg_postal_info info;
            got[cnt] = 12345;
            PE_OK(dmsg_postal_recv_bytes(DMSG_POSTAL_ANY, it, got, (size_t)cnt * 4, &info));
            PE_CHECK(info.src == pe_up(1) || info.src == pe_down(1), "it %d: source %d", it,
                     info.src);
            PE_CHECK(info.bytes == (size_t)cnt * 4, "it %d: %zu bytes", it, info.bytes);
            for (long i = 0; i < cnt; i++)
                PE_CHECK(got[i] == info.src * 100000 + it * 1000 + (int32_t)(i % 1000),
                         "it %d from %d element %ld: %d", it, info.src, i, got[i]);
            PE_CHECK(got[cnt] == 12345, "written past the buffer");
        }
    }
    PE_OK(dmsg_postal_finalize());
    free(row);
    free(got);
    return 0;
}

/* Every PE sends 40 messages to PE 0 with tags 0..3; PE 0 takes the tag-3
 * ones first, then everything with wildcards, and checks that each sender's
 * messages come in the order sent. */
static int wildcard_order(void)
{
    int n = pe_n(), me = pe_me();
    PE_OK(dmsg_postal_init());
    for (int32_t k = 0; k < 40; k++) {
        int32_t rec[2] = {me, k};
        PE_OK(dmsg_postal_initsend());
        PE_OK(dmsg_postal_pk_int(rec, 2, 1));
        PE_OK(dmsg_postal_send(0, k % 4));
    }
    if (me == 0) {
        int32_t *next = calloc((size_t)n, sizeof *next), rec[2];
        PE_CHECK(next != NULL, "calloc");
        for (int i = 0; i < 10 * n; i++) {
            dmsg_postal_info info;
            PE_OK(dmsg_postal_recv(DMSG_POSTAL_ANY, 3, &info));
            PE_OK(dmsg_postal_upk_int(rec, 2, 1));
            PE_CHECK(info.tag == 3 && rec[0] == info.src && rec[1] % 4 == 3,
                     "tag-3 receive got tag %d record %d/%d", info.tag, rec[0], rec[1]);
            PE_CHECK(rec[1] == 4 * next[rec[0]] + 3, "from %d: message %d out of order", rec[0],
                     rec[1]);
            next[rec[0]]++;
        }
        int found;
        PE_OK(dmsg_postal_probe(DMSG_POSTAL_ANY, 3, &found, NULL));
        PE_CHECK(!found, "a fourth tag-3 message per sender");
        memset(next, 0, (size_t)n * sizeof *next);
        for (int i = 0; i < 30 * n; i++) {
            dmsg_postal_info info;
            PE_OK(dmsg_postal_recv(DMSG_POSTAL_ANY, DMSG_POSTAL_ANY, &info));
            PE_OK(dmsg_postal_upk_int(rec, 2, 1));
            PE_CHECK(rec[0] == info.src && rec[1] % 4 == info.tag, "record %d/%d, info %d/%d",
                     rec[0], rec[1], info.src, info.tag);
            int want = next[rec[0]] + next[rec[0]] / 3; /* skips every 4th: the tag-3 ones */
            PE_CHECK(rec[1] == want, "from %d: got message %d, expected %d", rec[0], rec[1], want);
            next[rec[0]]++;
        }
        PE_OK(dmsg_postal_nrecv(DMSG_POSTAL_ANY, DMSG_POSTAL_ANY, &found, NULL));
        PE_CHECK(!found, "more messages than sent");
        free(next);
    }
    PE_OK(dmsg_postal_finalize());
    return 0;
}

/* PE 0 sends 10,000 numbered messages to the last PE, which starts
 * receiving only after PE 0 is done sending: with a small mailbox most of
 * them wait in PE 0's queue. All arrive, in order. PE_POSTAL_MESSAGES sets
 * another number (the integration suite over ofi's network providers, where
 * each message costs a network round trip). */
static int late_receiver(void)
{
    int n = pe_n(), me = pe_me(), last = n - 1;
    const char *v = getenv("PE_POSTAL_MESSAGES");
    const int total = v ? atoi(v) : 10000;
    PE_OK(dmsg_postal_init());
    dmsg_ctr done;
    PE_OK(dmsg_ctr_create(&done));
    char *flag = pe_alloc(8);
    PE_CHECK(flag != NULL, "alloc");
    if (me == 0) {
        for (int32_t k = 0; k < total; k++) {
            int32_t rec[3] = {k, k * 7, -k};
            PE_OK(dmsg_postal_initsend());
            PE_OK(dmsg_postal_pk_int(rec, 3, 1));
            PE_OK(dmsg_postal_send(last, 7));
        }
        dmsg_postal_stats st;
        PE_OK(dmsg_postal_stats_get(&st));
        PE_CHECK(st.sent == (uint64_t)total, "sent %llu", (unsigned long long)st.sent);
        /* Only now may the receiver start. */
        PE_OK(dmsg_deposit(flag, flag, 0, last, done));
        /* The queue drains only while this PE is in a postal call. */
        PE_OK(dmsg_postal_flush());
    }
    if (me == last) {
        PE_OK(dmsg_await(done, 1));
        for (int32_t k = 0; k < total; k++) {
            int32_t rec[3];
            dmsg_postal_info info;
            PE_OK(dmsg_postal_recv(0, DMSG_POSTAL_ANY, &info));
            PE_OK(dmsg_postal_upk_int(rec, 3, 1));
            PE_CHECK(rec[0] == k && rec[1] == k * 7 && rec[2] == -k,
                     "message %d: got %d %d %d", k, rec[0], rec[1], rec[2]);
        }
        int found;
        PE_OK(dmsg_postal_probe(DMSG_POSTAL_ANY, DMSG_POSTAL_ANY, &found, NULL));
        PE_CHECK(!found, "a message beyond the %d sent", total);
    }
    PE_OK(dmsg_ctr_destroy(done));
    PE_OK(dmsg_free(flag));
    PE_OK(dmsg_postal_finalize());
    return 0;
}

/* Every PE sends its up-neighbour a run of big tag-1 messages that fills the
 * mailbox, then one tag-2 message; the neighbour receives tag 2 first. The
 * tag-2 message can only arrive if the receiver makes room while it waits. */
static int out_of_order(void)
{
    int me = pe_me(), to = pe_up(1), from = pe_down(1);
    long cnt = fit(4000, 8);
    double *buf = malloc((size_t)cnt * 8);
    PE_CHECK(buf != NULL, "malloc");
    PE_OK(dmsg_postal_init());
    for (int k = 0; k < 6; k++) {
        for (long i = 0; i < cnt; i++)
            buf[i] = val(me, to, k, i);
        PE_OK(dmsg_postal_send_bytes(to, 1, buf, (size_t)cnt * 8));
    }
    double last = val(me, to, 99, 0);
    PE_OK(dmsg_postal_send_bytes(to, 2, &last, sizeof last));
    double got;
    PE_OK(dmsg_postal_recv_bytes(from, 2, &got, sizeof got, NULL));
    PE_CHECK(got == val(from, me, 99, 0), "tag-2 message: %g", got);
    for (int k = 0; k < 6; k++) {
        dmsg_postal_info info;
        PE_OK(dmsg_postal_recv(from, 1, &info));
        PE_CHECK(info.bytes == (size_t)cnt * 8, "message %d: %zu bytes", k, info.bytes);
        PE_OK(dmsg_postal_upk_double(buf, cnt, 1));
        for (long i = 0; i < cnt; i++)
            PE_CHECK(buf[i] == val(from, me, k, i), "message %d element %ld: %g", k, i, buf[i]);
    }
    PE_OK(dmsg_postal_finalize());
    free(buf);
    return 0;
}

/* Ping-pong between pairs, then everything is flushed and a message left
 * unreceived is dropped by finalize without harm. */
static int pingpong(void)
{
    int n = pe_n(), me = pe_me();
    int partner = me ^ 1;
    PE_OK(dmsg_postal_init());
    if (partner < n) {
        for (int64_t k = 0; k < iters(300); k++) {
            int64_t v = k, got = -1;
            if (me & 1) {
                PE_OK(dmsg_postal_recv_bytes(partner, 0, &got, sizeof got, NULL));
                PE_CHECK(got == k, "ping %lld: %lld", (long long)k, (long long)got);
                v = -k;
                PE_OK(dmsg_postal_send_bytes(partner, 0, &v, sizeof v));
            } else {
                PE_OK(dmsg_postal_send_bytes(partner, 0, &v, sizeof v));
                PE_OK(dmsg_postal_recv_bytes(partner, 0, &got, sizeof got, NULL));
                PE_CHECK(got == -k, "pong %lld: %lld", (long long)k, (long long)got);
            }
        }
    }
    PE_OK(dmsg_postal_send_bytes(pe_up(1), 9, &me, sizeof me));
    PE_OK(dmsg_postal_flush());
    dmsg_postal_stats st;
    PE_OK(dmsg_sync()); /* every left-over message has been delivered */
    PE_OK(dmsg_postal_probe(DMSG_POSTAL_ANY, 9, &(int){0}, NULL));
    PE_OK(dmsg_postal_stats_get(&st));
    PE_CHECK(st.unreceived == 1, "%llu unreceived messages, expected 1",
             (unsigned long long)st.unreceived);
    PE_OK(dmsg_postal_finalize());
    return 0;
}

/* Mailbox bytes per sender (DMSG_POSTAL_MAILBOX, K or M suffix). */
static long mailbox(void)
{
    const char *v = getenv("DMSG_POSTAL_MAILBOX");
    long box = v ? atol(v) : 256;
    return box * (v && strchr(v, 'M') ? 1048576 : 1024);
}

/* Messages of one to three mailboxes (fragments, queues and spills on both
 * sides at once): every PE sends every PE, itself too, strided 16-byte
 * elements, then receives from each in staggered order and ends the round
 * with dmsg_postal_barrier (the kernels' pattern: a PE whose queue still
 * holds messages for a partner must not block that partner). The last
 * round's messages are received only after the barrier. */
static int large(void)
{
    int n = pe_n(), me = pe_me();
    /* the longest message: three mailboxes plus 7 me + 3 to + r elements */
    long most = 3 * mailbox() / 16 + 10L * n;
    double *src = malloc((size_t)most * 2 * 16), *dst = malloc((size_t)most * 16 + 16);
    PE_CHECK(src && dst, "malloc");
    PE_OK(dmsg_postal_init());
    for (int r = 0; r < 4; r++) {
        for (int k = 0; k < n; k++) {
            int to = (me + k) % n;
            long len = mailbox() * (1 + r % 3) / 16 + 7 * me + 3 * to + r;
            for (long i = 0; i < len; i++)
                src[4 * i] = val(me, to, r, i), src[4 * i + 1] = -val(me, to, r, i);
            PE_OK(dmsg_postal_initsend());
            PE_OK(dmsg_postal_pk_dcplx(src, len, 2));
            PE_OK(dmsg_postal_send(to, r));
        }
        if (r == 3)
            PE_OK(dmsg_postal_barrier()); /* messages cross the barrier unreceived */
        for (int k = 0; k < n; k++) {
            int from = (me - k + n) % n;
            long len = mailbox() * (1 + r % 3) / 16 + 7 * from + 3 * me + r;
            dmsg_postal_info info;
            PE_OK(dmsg_postal_recv(from, r, &info));
            PE_CHECK(info.bytes == (size_t)len * 16, "round %d from %d: %zu bytes, expected %ld",
                     r, from, info.bytes, len * 16);
            dst[2 * len] = 12345;
            PE_OK(dmsg_postal_upk_dcplx(dst, len, 1));
            for (long i = 0; i < len; i++)
                PE_CHECK(dst[2 * i] == val(from, me, r, i) && dst[2 * i + 1] == -val(from, me, r, i),
                         "round %d from %d element %ld: %g %g", r, from, i, dst[2 * i],
                         dst[2 * i + 1]);
            PE_CHECK(dst[2 * len] == 12345, "written past the message");
        }
        if (r < 3)
            PE_OK(dmsg_postal_barrier());
    }
    dmsg_postal_stats st;
    PE_OK(dmsg_postal_stats_get(&st));
    PE_CHECK(st.unreceived == 0, "%llu unreceived", (unsigned long long)st.unreceived);
    PE_OK(dmsg_postal_finalize());
    free(src);
    free(dst);
    return 0;
}

/* Every case above in one job (the integration suite over ofi, where
 * starting a job costs seconds). */
static int all(void)
{
    int (*const fns[])(void) = {alltoall,     neighbour, wildcard_order, late_receiver,
                                out_of_order, pingpong,  large};
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
        if (fns[i]())
            return 1;
    return 0;
}

const pe_case pe_postal_cases[] = {
    {"postal_all", all, 0},
    {"postal_alltoall", alltoall, 0},
    {"postal_neighbour", neighbour, 0},
    {"postal_wildcard_order", wildcard_order, 0},
    {"postal_late_receiver", late_receiver, 0},
    {"postal_out_of_order", out_of_order, 0},
    {"postal_pingpong", pingpong, 0},
    {"postal_large", large, 0},
    {NULL, NULL, 0},
};
