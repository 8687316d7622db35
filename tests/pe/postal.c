/* The postal baseline on several PEs: all-to-all and neighbour exchanges of
 * strided data checked element by element, wildcards and per-pair order,
 * flow control with a late receiver, and receives out of send order that
 * force a full mailbox to make room. Run with small DMSG_POSTAL_MAILBOX
 * settings too (tests/integ), so that rings wrap and senders queue. */
#include <limits.h>
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

/* Byte i of message k with tag `tag` from `from` to `to` (the cases below). */
static unsigned char byte_of(int from, int to, int tag, long k, size_t i)
{
    return (unsigned char)(from * 131 + to * 71 + tag * 29 + k * 17 + (long)i * 7 + (long)(i >> 8));
}

static void fill_msg(unsigned char *b, size_t n, int from, int to, int tag, long k)
{
    for (size_t i = 0; i < n; i++)
        b[i] = byte_of(from, to, tag, k, i);
}

/* Index of the first byte of b that is not message k's, or n. */
static size_t bad_byte(const unsigned char *b, size_t n, int from, int to, int tag, long k)
{
    size_t i = 0;
    while (i < n && b[i] == byte_of(from, to, tag, k, i))
        i++;
    return i;
}

/* Seconds a polling loop may go without finding its message: the bound the
 * library puts on its own waits (DMSG_TIMEOUT, which polls do not obey),
 * else none (the integration suite's watchdog). */
static double poll_limit(void)
{
    const char *v = getenv("DMSG_TIMEOUT");
    double t = v ? atof(v) : 0;
    return t > 0 ? t : 1e30;
}

/* The active receive buffer holds the sender's mailbox room while a blocking
 * recv_bytes waits for the next message. Pairs (0, 1), (2, 3), ..., the
 * roles swapped every round: the sender sends a packed message of nearly
 * half a mailbox (131,000 bytes with the default 256 KiB), which the
 * receiver takes with recv and keeps active; once the receiver says it goes
 * on to recv_bytes (a deposit on a counter) and a moment later, the sender
 * sends a second one, which fits only once the first's room is reported.
 * So the receiver is asleep in recv_bytes when the sender gets stuck: its
 * wait must move the active buffer out of the mailbox and tell the sender. */
static int active_pins(void)
{
    int me = pe_me(), partner = me ^ 1;
    size_t len = (size_t)fit(131000, 1);
    unsigned char *buf = malloc(len), *got = malloc(len);
    char *flag = pe_alloc(8);
    PE_CHECK(buf && got && flag, "malloc");
    dmsg_ctr ready;
    PE_OK(dmsg_ctr_create(&ready));
    PE_OK(dmsg_postal_init());
    for (int r = 0; r < 4 && partner < pe_n(); r++) {
        if ((me & 1) == (r & 1)) { /* the sender */
            fill_msg(buf, len, me, partner, 1, r);
            PE_OK(dmsg_postal_initsend());
            PE_OK(dmsg_postal_pk_byte((int8_t *)buf, (long)len, 1));
            PE_OK(dmsg_postal_send(partner, 1));
            PE_OK(dmsg_await(ready, 1));
            nanosleep(&(struct timespec){0, 50000000}, NULL);
            fill_msg(buf, len, me, partner, 2, r);
            PE_OK(dmsg_postal_send_bytes(partner, 2, buf, len));
            continue;
        }
        dmsg_postal_info info;
        PE_OK(dmsg_postal_recv(partner, 1, &info));
        PE_CHECK(info.bytes == len, "round %d: %zu bytes", r, info.bytes);
        PE_OK(dmsg_deposit(flag, flag, 0, partner, ready));
        PE_OK(dmsg_postal_recv_bytes(partner, 2, got, len, &info));
        size_t i = bad_byte(got, len, partner, me, 2, r);
        PE_CHECK(i == len && info.bytes == len, "round %d: recv_bytes byte %zu of %zu", r, i,
                 info.bytes);
        /* The active buffer still holds the first message, wherever it went. */
        PE_OK(dmsg_postal_upk_byte((int8_t *)got, (long)len, 1));
        i = bad_byte(got, len, partner, me, 1, r);
        PE_CHECK(i == len, "round %d: active buffer byte %zu", r, i);
    }
    PE_OK(dmsg_postal_finalize());
    PE_OK(dmsg_ctr_destroy(ready));
    PE_OK(dmsg_free(flag));
    free(buf);
    free(got);
    return 0;
}

/* Pairs (0, 1), (2, 3), ...: the even PE sends one packed 8-byte message that
 * the odd one receives with recv and keeps active; then 300 round trips of
 * 64 KiB with send_bytes / recv_bytes. The active buffer pins the start of
 * the odd PE's mailbox, so the even PE gets stuck at the third message and
 * only the waiting recv_bytes can free its room. */
static int active_pingpong(void)
{
    int me = pe_me(), partner = me ^ 1;
    const size_t len = 65536;
    unsigned char *buf = malloc(len), *got = malloc(len);
    PE_CHECK(buf && got, "malloc");
    PE_OK(dmsg_postal_init());
    if (partner < pe_n()) {
        int64_t first = 0x1234567890LL + me;
        if (!(me & 1)) {
            PE_OK(dmsg_postal_initsend());
            PE_OK(dmsg_postal_pk_long(&first, 1, 1));
            PE_OK(dmsg_postal_send(partner, 3));
        } else {
            PE_OK(dmsg_postal_recv(partner, 3, NULL));
        }
        for (int k = 0; k < iters(300); k++) {
            int tag = 4 + (k & 1);
            if (!(me & 1)) {
                fill_msg(buf, len, me, partner, tag, k);
                PE_OK(dmsg_postal_send_bytes(partner, tag, buf, len));
                PE_OK(dmsg_postal_recv_bytes(partner, tag, got, len, NULL));
                size_t i = bad_byte(got, len, partner, me, tag, k);
                PE_CHECK(i == len, "pong %d: byte %zu", k, i);
            } else {
                PE_OK(dmsg_postal_recv_bytes(partner, tag, got, len, NULL));
                size_t i = bad_byte(got, len, partner, me, tag, k);
                PE_CHECK(i == len, "ping %d: byte %zu", k, i);
                fill_msg(buf, len, me, partner, tag, k);
                PE_OK(dmsg_postal_send_bytes(partner, tag, buf, len));
            }
        }
        if (me & 1) {
            int64_t v = 0;
            PE_OK(dmsg_postal_upk_long(&v, 1, 1));
            PE_CHECK(v == 0x1234567890LL + partner, "active buffer after the round trips: %lld",
                     (long long)v);
        }
    }
    PE_OK(dmsg_postal_finalize());
    free(buf);
    free(got);
    return 0;
}

/* Polling (the PVM habit) for a message queued behind a full mailbox: every
 * PE sends its up-neighbour six messages of nearly half a mailbox (three
 * mailboxes), then one small tag-2 message, which the neighbour polls for:
 * first with nrecv, then, holding the first tag-1 message as its active
 * buffer, with probe. Polling must make room as a waiting receive does. */
static int poll_full(void)
{
    int me = pe_me(), to = pe_up(1), from = pe_down(1);
    size_t len = (size_t)fit(131000, 1);
    unsigned char *buf = malloc(len), *got = malloc(len);
    PE_CHECK(buf && got, "malloc");
    double lim = poll_limit();
    PE_OK(dmsg_postal_init());
    for (int phase = 0; phase < 2; phase++) {
        for (int k = 0; k < 6; k++) {
            fill_msg(buf, len, me, to, 1, k);
            PE_OK(dmsg_postal_send_bytes(to, 1, buf, len));
        }
        fill_msg(buf, 8, me, to, 2, phase);
        PE_OK(dmsg_postal_send_bytes(to, 2, buf, 8));
        int found = 0, k0 = 0;
        dmsg_postal_info info;
        double t0 = pe_now();
        if (phase == 0) {
            while (!found) {
                PE_OK(dmsg_postal_nrecv(from, 2, &found, &info));
                PE_CHECK(found || pe_now() - t0 < lim, "nrecv polled %.0f s in vain", lim);
            }
            PE_OK(dmsg_postal_upk_byte((int8_t *)got, 8, 1));
        } else {
            PE_OK(dmsg_postal_recv(from, 1, &info)); /* active: pins the mailbox's start */
            k0 = 1;
            while (!found) {
                PE_OK(dmsg_postal_probe(from, 2, &found, &info));
                PE_CHECK(found || pe_now() - t0 < lim, "probe polled %.0f s in vain", lim);
            }
            PE_CHECK(info.bytes == 8 && info.src == from && info.tag == 2, "probe info");
            PE_OK(dmsg_postal_recv_bytes(from, 2, got + 8, 8, NULL));
            memcpy(got, got + 8, 8);
        }
        PE_CHECK(bad_byte(got, 8, from, me, 2, phase) == 8, "phase %d: tag-2 message", phase);
        if (k0) {
            PE_OK(dmsg_postal_upk_byte((int8_t *)got, (long)len, 1));
            PE_CHECK(bad_byte(got, len, from, me, 1, 0) == len, "phase %d: active message", phase);
        }
        for (int k = k0; k < 6; k++) {
            PE_OK(dmsg_postal_recv_bytes(from, 1, got, len, NULL));
            size_t i = bad_byte(got, len, from, me, 1, k);
            PE_CHECK(i == len, "phase %d: message %d byte %zu", phase, k, i);
        }
        PE_OK(dmsg_postal_barrier());
    }
    PE_OK(dmsg_postal_finalize());
    free(buf);
    free(got);
    return 0;
}

/* ------------------------------------------------ randomized sequences */

enum { RND_TAGS = 4 };

/* One message of the schedule, as its receiver sees it. */
typedef struct rnd_in {
    int src, tag, round, got;
    long k;     /* its number among the messages src sends this PE with this tag */
    size_t len;
} rnd_in;

typedef struct rnd_job {
    int me, n, rounds;
    uint64_t seed;
    rnd_in *in;        /* every message to this PE, by round */
    size_t nin, *first;/* first[r]: index in `in` of round r's first */
    unsigned char *buf, *got;
    size_t most;
    double lim;
    /* an active buffer whose unpacking was put off */
    int held;
    rnd_in held_msg;
} rnd_job;

/* Message lengths: empty, small, up to several mailboxes (fragments). */
static size_t rnd_len(uint64_t *s, long box)
{
    size_t half = (size_t)(box / 2 - 64);
    switch (pe_rnd_below(s, 10)) {
    case 0: return 0;
    case 1: return 8;
    case 2: case 3: return 1 + (size_t)pe_rnd_below(s, 200);
    case 4: case 5: return (size_t)box / 8;
    case 6: return half;
    case 7: return half + 8;
    case 8: return (size_t)box + (size_t)box / 4;
    default: return 2 * (size_t)box + 100;
    }
}

/* Generates the schedule every PE agrees on (the same seed): rounds of
 * 0 to 2 messages per ordered pair, with a random tag of the round and a
 * random length. Calls `out` for each message this PE sends, in order. */
static int rnd_schedule(rnd_job *j, int r, int (*out)(rnd_job *, int, int, long, size_t))
{
    uint64_t s = j->seed * 1000003ULL + (uint64_t)r;
    long box = mailbox();
    long (*cnt)[RND_TAGS] = calloc((size_t)j->n * (size_t)j->n, sizeof *cnt);
    PE_CHECK(cnt != NULL, "calloc");
    for (int src = 0; src < j->n; src++)
        for (int dst = 0; dst < j->n; dst++) {
            int m = pe_rnd_below(&s, 3);
            for (int i = 0; i < m; i++) {
                int slot = pe_rnd_below(&s, RND_TAGS), tag = r * RND_TAGS + slot;
                size_t len = rnd_len(&s, box);
                long k = cnt[src * j->n + dst][slot]++;
                if (dst == j->me && out == NULL) {
                    rnd_in *e = &j->in[j->nin++];
                    *e = (rnd_in){.src = src, .tag = tag, .round = r, .k = k, .len = len};
                }
                if (src == j->me && out && out(j, dst, tag, k, len)) {
                    free(cnt);
                    return 1;
                }
            }
        }
    free(cnt);
    return 0;
}

static int rnd_send(rnd_job *j, int dst, int tag, long k, size_t len)
{
    fill_msg(j->buf, len, j->me, dst, tag, k);
    if (k % 2) { /* packed or contiguous */
        PE_OK(dmsg_postal_send_bytes(dst, tag, j->buf, len));
        return 0;
    }
    PE_OK(dmsg_postal_initsend());
    PE_OK(dmsg_postal_pk_byte((int8_t *)j->buf, (long)len, 1));
    PE_OK(dmsg_postal_send(dst, tag));
    return 0;
}

/* The message a receive from src (or any) with tag must get: of those not
 * yet received, the first src sent; with any source, the one from info.src. */
static rnd_in *rnd_expect(rnd_job *j, int src, int tag)
{
    rnd_in *best = NULL;
    for (size_t i = 0; i < j->nin; i++) {
        rnd_in *e = &j->in[i];
        if (!e->got && e->tag == tag && e->src == src && (!best || e->k < best->k))
            best = e;
    }
    return best;
}

static int rnd_check(rnd_job *j, const rnd_in *e, const unsigned char *b, const char *how)
{
    size_t i = bad_byte(b, e->len, e->src, j->me, e->tag, e->k);
    PE_CHECK(i == e->len, "seed %llu: %s: message %ld from %d tag %d (%zu bytes): byte %zu",
             (unsigned long long)j->seed, how, e->k, e->src, e->tag, e->len, i);
    return 0;
}

/* Unpacks the active buffer whose unpacking was put off. */
static int rnd_unheld(rnd_job *j)
{
    if (!j->held)
        return 0;
    j->held = 0;
    PE_OK(dmsg_postal_upk_byte((int8_t *)j->got, (long)j->held_msg.len, 1));
    PE_EXPECT(dmsg_postal_upk_byte((int8_t *)j->got, 1, 1), DMSG_ERR_SIZE);
    return rnd_check(j, &j->held_msg, j->got, "active buffer");
}

/* Receives e (or, with a wildcard source, another message of its tag) in
 * one of the ways a PVM program does. */
static int rnd_receive(rnd_job *j, rnd_in *e, uint64_t *s)
{
    int any = pe_rnd_below(s, 3) == 0, src = any ? DMSG_POSTAL_ANY : e->src, how = pe_rnd_below(s, 6);
    int found = 0, releases = how == 0 || how == 1 || how == 4;
    static const char *const names[] = {"recv", "recv, kept active", "recv_bytes",
                                        "recv_bytes, larger buffer", "nrecv loop", "probe loop"};
    dmsg_postal_info info = {0};
    if (releases && rnd_unheld(j))
        return 1;
    double t0 = pe_now();
    if (how == 5) {
        while (!found) {
            PE_OK(dmsg_postal_probe(src, e->tag, &found, &info));
            PE_CHECK(found || pe_now() - t0 < j->lim, "seed %llu: probe polled in vain",
                     (unsigned long long)j->seed);
        }
        src = info.src; /* the probed message is the one received next */
        how = pe_rnd_below(s, 2) ? 2 : 0;
        if (how == 0 && rnd_unheld(j))
            return 1;
    }
    if (how == 4) {
        while (!found) {
            PE_OK(dmsg_postal_nrecv(src, e->tag, &found, &info));
            PE_CHECK(found || pe_now() - t0 < j->lim, "seed %llu: nrecv polled in vain",
                     (unsigned long long)j->seed);
        }
    } else if (how <= 1) {
        PE_OK(dmsg_postal_recv(src, e->tag, &info));
    } else {
        /* From one source: its first message of the tag not yet received
         * (exactly its size, or larger); any source: any size. */
        size_t cap = src == DMSG_POSTAL_ANY ? j->most : rnd_expect(j, src, e->tag)->len;
        if (how == 3 && src != DMSG_POSTAL_ANY)
            cap += (size_t)pe_rnd_below(s, 100);
        PE_OK(dmsg_postal_recv_bytes(src, e->tag, j->got, cap, &info));
    }
    rnd_in *m = rnd_expect(j, info.src, e->tag);
    PE_CHECK(m && info.tag == e->tag && info.bytes == m->len,
             "seed %llu: %s from %d tag %d: got source %d tag %d %zu bytes",
             (unsigned long long)j->seed, names[how], src, e->tag, info.src, info.tag, info.bytes);
    m->got = 1;
    if (how == 2 || how == 3)
        return rnd_check(j, m, j->got, names[how]);
    if (how == 1 || pe_rnd_below(s, 2)) { /* unpacked later, across other calls */
        j->held = 1;
        j->held_msg = *m;
        return 0;
    }
    PE_OK(dmsg_postal_upk_byte((int8_t *)j->got, (long)m->len, 1));
    return rnd_check(j, m, j->got, names[how]);
}

/* Random sequences of sends and of receives of every kind (recv, kept
 * active across later calls or released, recv_bytes, nrecv and probe
 * polling loops, wildcard sources), with receives of a round put off into
 * the next one: a program correct with unbounded buffering, which must
 * therefore run with any mailbox. PE_POSTAL_SEED picks the sequence
 * (default 1); a failure names the seed. */
static int random_mix(void)
{
    rnd_job j = {.me = pe_me(), .n = pe_n(), .rounds = iters(30), .lim = poll_limit()};
    const char *v = getenv("PE_POSTAL_SEED");
    j.seed = v ? strtoull(v, NULL, 10) : 1;
    long box = mailbox();
    j.most = 2 * (size_t)box + 100;
    size_t cap_in = (size_t)j.rounds * (size_t)j.n * 2;
    j.in = calloc(cap_in, sizeof *j.in);
    j.first = calloc((size_t)j.rounds + 1, sizeof *j.first);
    j.buf = malloc(j.most);
    j.got = malloc(j.most);
    PE_CHECK(j.in && j.first && j.buf && j.got, "malloc");
    for (int r = 0; r < j.rounds; r++) {
        j.first[r] = j.nin;
        PE_TRY(rnd_schedule(&j, r, NULL));
    }
    j.first[j.rounds] = j.nin;
    uint64_t s = j.seed * 7919ULL + (uint64_t)j.me * 104729ULL + 1;
    PE_OK(dmsg_postal_init());
    for (int r = 0; r <= j.rounds; r++) {
        /* Receives of the previous round, some before this round's sends. */
        size_t lo = r ? j.first[r - 1] : 0, hi = r ? j.first[r] : 0, left = 0;
        for (size_t i = lo; i < hi; i++)
            left += !j.in[i].got;
        size_t early = left ? (size_t)pe_rnd_below(&s, (int)left + 1) : 0;
        for (int pass = 0; pass < 2; pass++) {
            if (pass == 1 && r < j.rounds)
                PE_TRY(rnd_schedule(&j, r, rnd_send));
            for (size_t done = 0; pass == 1 || done < early; done++) {
                size_t pick = 0, cnt = 0;
                for (size_t i = lo; i < hi; i++)
                    if (!j.in[i].got && pe_rnd_below(&s, (int)++cnt) == 0)
                        pick = i;
                if (!cnt)
                    break;
                PE_TRY(rnd_receive(&j, &j.in[pick], &s));
                if (pe_rnd_below(&s, 8) == 0 && j.held) {
                    PE_TRY(rnd_unheld(&j));
                } else if (pe_rnd_below(&s, 16) == 0 && j.held) {
                    j.held = 0;
                    PE_OK(dmsg_postal_release());
                }
            }
        }
    }
    PE_TRY(rnd_unheld(&j));
    dmsg_postal_stats st;
    PE_OK(dmsg_postal_stats_get(&st));
    PE_CHECK(st.unreceived == 0 && st.received == j.nin, "seed %llu: %llu received of %zu, %llu left",
             (unsigned long long)j.seed, (unsigned long long)st.received, j.nin,
             (unsigned long long)st.unreceived);
    PE_OK(dmsg_postal_finalize());
    free(j.in);
    free(j.first);
    free(j.buf);
    free(j.got);
    return 0;
}

/* DMSG_POSTAL_WINDOW in bytes (default 8M; 0: no window). */
static long window(void)
{
    const char *v = getenv("DMSG_POSTAL_WINDOW");
    if (!v)
        return 8L << 20;
    long w = atol(v);
    return w * (strchr(v, 'M') ? 1048576 : strchr(v, 'K') ? 1024 : 1);
}

/* Receives the packed message k from `from` with tag and checks it. */
static int window_check(unsigned char *got, size_t len, int from, int tag, long k)
{
    size_t i = bad_byte(got, len, from, pe_me(), tag, k);
    PE_CHECK(i == len, "tag %d from %d (%zu bytes): byte %zu wrong", tag, from, len, i);
    return 0;
}

/* Large messages through the receivers' landing windows (docs/baselines.md,
 * "Large messages"):
 * 1. A message of four mailboxes to a late receiver: with a window that
 *    holds it, the sender queues nothing and the receiver copies nothing
 *    out of its mailbox (before the window, it went as fragments through
 *    the sender's queue and the receiver's reassembly).
 * 2. Every PE sends every PE (itself too) before receiving anything: one
 *    packed message sent to all from the same send buffer (lent to every
 *    announcement), the buffer packed further and sent again (the append
 *    must not disturb the pending ones), and a send_bytes message longer
 *    than two windows (granted piece by piece). Receivers take them in
 *    staggered order: recv kept active while recv_bytes fetches the long
 *    one into the window (the active one must move out first).
 * 3. A large message never received: finalize drops it (and frees it). */
static int window_case(void)
{
    int n = pe_n(), me = pe_me();
    long win = window(), box = mailbox();
    size_t len1 = (size_t)(4 * box), lenm = (size_t)(win ? win / 2 : box) + 8 * (size_t)me + 3,
           lenb = (size_t)(win ? 2 * win : 3 * box) + 100 + (size_t)me, most;
    most = len1 > lenm + 100 ? len1 : lenm + 100;
    most = (most > lenb ? most : lenb) + 200;
    unsigned char *buf = malloc(most), *got = malloc(most);
    PE_CHECK(buf && got, "malloc");
    PE_OK(dmsg_postal_init());

    /* 1. */
    dmsg_postal_stats s0, s1;
    PE_OK(dmsg_postal_stats_get(&s0));
    int to = (me + 1) % n, from = (me - 1 + n) % n;
    fill_msg(buf, len1, me, to, 7, 0);
    PE_OK(dmsg_postal_initsend());
    PE_OK(dmsg_postal_pk_byte((int8_t *)buf, (long)len1, 1));
    PE_OK(dmsg_postal_send(to, 7));
    PE_OK(dmsg_postal_barrier()); /* the receiver comes late: the message waits */
    dmsg_postal_info info;
    PE_OK(dmsg_postal_recv(from, 7, &info));
    PE_CHECK(info.bytes == len1, "%zu bytes, expected %zu", info.bytes, len1);
    PE_OK(dmsg_postal_upk_byte((int8_t *)got, (long)len1, 1));
    if (window_check(got, len1, from, 7, 0))
        return 1;
    PE_OK(dmsg_postal_stats_get(&s1));
    if (win >= (long)len1) {
        PE_CHECK(s1.queued == s0.queued && s1.queue_bytes == s0.queue_bytes,
                 "a message of %zu bytes was queued (%llu bytes) with a window of %ld", len1,
                 (unsigned long long)(s1.queue_bytes - s0.queue_bytes), win);
        PE_CHECK(s1.spill_bytes == s0.spill_bytes,
                 "a message of %zu bytes was copied out of the mailbox (%llu bytes) with a "
                 "window of %ld", len1, (unsigned long long)(s1.spill_bytes - s0.spill_bytes), win);
    }
    PE_OK(dmsg_postal_barrier());

    /* 2. The packed message's bytes depend on the sender only (to = -1). */
    fill_msg(buf, lenm + 100, me, -1, 1, 0);
    PE_OK(dmsg_postal_initsend());
    PE_OK(dmsg_postal_pk_byte((int8_t *)buf, (long)lenm, 1));
    for (int k = 0; k < n; k++)
        PE_OK(dmsg_postal_send((me + k) % n, 1));
    PE_OK(dmsg_postal_pk_byte((int8_t *)buf + lenm, 100, 1));
    PE_OK(dmsg_postal_send(to, 2));
    for (int k = 0; k < n; k++) {
        int dst = (me + k) % n;
        fill_msg(buf, lenb, me, dst, 3, 0);
        PE_OK(dmsg_postal_send_bytes(dst, 3, buf, lenb));
    }
    for (int k = 0; k < n; k++) {
        int src = (me - k + n) % n;
        size_t lm = (size_t)(win ? win / 2 : box) + 8 * (size_t)src + 3,
               lb = (size_t)(win ? 2 * win : 3 * box) + 100 + (size_t)src;
        PE_OK(dmsg_postal_recv(src, 1, &info));
        PE_CHECK(info.bytes == lm, "tag 1 from %d: %zu bytes, expected %zu", src, info.bytes, lm);
        PE_OK(dmsg_postal_recv_bytes(src, 3, got, lb, &info));
        PE_CHECK(info.bytes == lb, "tag 3 from %d: %zu bytes, expected %zu", src, info.bytes, lb);
        if (window_check(got, lb, src, 3, 0))
            return 1;
        memset(got, 0, lm);
        PE_OK(dmsg_postal_upk_byte((int8_t *)got, (long)lm, 1));
        size_t i = bad_byte(got, lm, src, -1, 1, 0);
        PE_CHECK(i == lm, "tag 1 from %d, unpacked after a recv_bytes: byte %zu wrong", src, i);
    }
    size_t lf = (size_t)(win ? win / 2 : box) + 8 * (size_t)from + 3 + 100;
    PE_OK(dmsg_postal_recv(from, 2, &info));
    PE_CHECK(info.bytes == lf, "tag 2: %zu bytes, expected %zu", info.bytes, lf);
    PE_OK(dmsg_postal_upk_byte((int8_t *)got, (long)lf, 1));
    size_t i = bad_byte(got, lf, from, -1, 1, 0);
    PE_CHECK(i == lf, "tag 2 (packed further after a send): byte %zu wrong", i);

    /* 3. */
    PE_OK(dmsg_postal_initsend());
    PE_OK(dmsg_postal_pk_byte((int8_t *)buf, (long)len1, 1));
    PE_OK(dmsg_postal_send(to, 9));
    PE_OK(dmsg_postal_barrier());
    PE_OK(dmsg_postal_stats_get(&s1));
    PE_CHECK(s1.unreceived == 1, "%llu unreceived, expected 1", (unsigned long long)s1.unreceived);
    PE_OK(dmsg_postal_finalize());
    free(buf);
    free(got);
    return 0;
}

/* How many of k large messages of `len` bytes, sent one after the other
 * while none is fetched, find room in the out-window (regions of a 64-byte
 * header and the bytes rounded to 64; docs/baselines.md, "Large
 * messages"); the simulator keeps one at a time. */
static int regions_fit(int k, size_t len)
{
    const char *t = getenv("DMSG_TRANSPORT");
    size_t win = (size_t)window(), top = 0, frag = (size_t)mailbox() / 2 - 64;
    if (t && !strcmp(t, "sim"))
        return win >= len && len > frag && k > 0 ? 1 : 0;
    int fit = 0;
    while (fit < k && fit < 8 && len > frag && top < win && len <= win - top) {
        top += 64 + ((len + 63) & ~(size_t)63);
        fit++;
    }
    return fit;
}

/* Whether send_bytes of `len` bytes streams here (docs/baselines.md,
 * "Large messages"): the default mailbox and a window that holds it, on a
 * transport in real time (the simulator books the protocol without
 * streams). */
static int streams(size_t len)
{
    const char *t = getenv("DMSG_TRANSPORT");
    return !getenv("DMSG_POSTAL_MAILBOX") && window() >= (long)len && !(t && !strcmp(t, "sim"));
}

typedef struct {
    int src, tag;
} stream_sel;

static int stream_match(void *arg, const dmsg_postal_info *info, const void *data)
{
    const stream_sel *w = arg;
    (void)data;
    return info->src == w->src && info->tag == w->tag;
}

/* Large send_bytes messages streamed (announced first, copied into the
 * out-window piece by piece, each piece fetched as soon as it is there):
 * 1. Every PE sends its successor three (each streamed from a region of
 *    the out-window of its own, as many as fit): received with recv_bytes (a
 *    buffer larger than the message), with recv and two unpacks, and with
 *    dmsg_postal_match_copy from an offset into a smaller buffer
 *    (truncated, as pvm_precv).
 * 2. A packed large message keeps the send buffer in the out-window after
 *    it is received; a large send_bytes still streams (the send buffer
 *    moves out with its bytes), and the send buffer, sent again, still
 *    holds them.
 * 3. After a large send_bytes has been received, a large packed message
 *    is fetched by its receiver from the out-window (send_bytes' buffer let
 *    go of it): its data are not pushed (transfer_bytes has only headers).
 * 4. Pairs play ping-pong with 1 MiB messages (the receiver waits while
 *    the sender streams). */
static int stream_case(void)
{
    int n = pe_n(), me = pe_me(), to = (me + 1) % n, from = (me - 1 + n) % n;
    size_t len = ((size_t)1 << 20) + 8 * (size_t)me + 5, lf = ((size_t)1 << 20) + 8 * (size_t)from + 5;
    size_t big = len > lf ? len : lf, most = big + 4096;
    unsigned char *buf = malloc(most), *got = malloc(most);
    PE_CHECK(buf && got, "malloc");
    PE_OK(dmsg_postal_init());
    dmsg_postal_stats s0, s1;
    dmsg_postal_info info;

    /* 1. */
    PE_OK(dmsg_postal_stats_get(&s0));
    for (int tag = 1; tag <= 3; tag++) {
        fill_msg(buf, len, me, to, tag, 0);
        PE_OK(dmsg_postal_send_bytes(to, tag, buf, len));
    }
    PE_OK(dmsg_postal_stats_get(&s1));
    if (streams(len)) /* those that find no region of the out-window are pushed */
        PE_CHECK(s1.streamed - s0.streamed == (uint64_t)regions_fit(3, len) &&
                     s1.large - s0.large == 3,
                 "%llu of %llu large messages streamed, expected %d of 3",
                 (unsigned long long)(s1.streamed - s0.streamed),
                 (unsigned long long)(s1.large - s0.large), regions_fit(3, len));
    memset(got, 0, most);
    PE_OK(dmsg_postal_recv_bytes(from, 1, got, most, &info));
    PE_CHECK(info.bytes == lf, "tag 1: %zu bytes, expected %zu", info.bytes, lf);
    if (window_check(got, lf, from, 1, 0))
        return 1;
    PE_CHECK(got[lf] == 0, "recv_bytes wrote past the message");
    memset(got, 0, most);
    PE_OK(dmsg_postal_recv(from, 2, &info));
    PE_CHECK(info.bytes == lf, "tag 2: %zu bytes, expected %zu", info.bytes, lf);
    PE_OK(dmsg_postal_upk_byte((int8_t *)got, 1000, 1));
    PE_OK(dmsg_postal_upk_byte((int8_t *)got + 1000, (long)(lf - 1000), 1));
    if (window_check(got, lf, from, 2, 0))
        return 1;
    stream_sel w = {from, 3};
    size_t copied = 0, skip = 4099, cap = lf / 2;
    int found = 0;
    memset(got, 0, most);
    PE_OK(dmsg_postal_match_copy(stream_match, &w, DMSG_POSTAL_WAIT, skip, got, cap, &copied,
                                 &found, &info));
    PE_CHECK(found && info.bytes == lf && copied == cap, "tag 3: found %d, %zu bytes, %zu copied",
             found, info.bytes, copied);
    fill_msg(buf, lf, from, me, 3, 0);
    PE_CHECK(!memcmp(got, buf + skip, cap) && got[cap] == 0,
             "tag 3: bytes %zu .. %zu of the message wrong, or more written", skip, skip + cap);
    PE_OK(dmsg_postal_barrier());

    /* 2. */
    fill_msg(buf, len, me, to, 5, 0);
    PE_OK(dmsg_postal_initsend());
    PE_OK(dmsg_postal_pk_byte((int8_t *)buf, (long)len, 1));
    PE_OK(dmsg_postal_send(to, 5));
    PE_OK(dmsg_postal_recv(from, 5, &info));
    PE_OK(dmsg_postal_upk_byte((int8_t *)got, (long)lf, 1));
    if (window_check(got, lf, from, 5, 0))
        return 1;
    PE_OK(dmsg_postal_barrier()); /* every receiver has reported its fetch */
    PE_OK(dmsg_postal_stats_get(&s0));
    fill_msg(buf, len, me, to, 6, 0);
    PE_OK(dmsg_postal_send_bytes(to, 6, buf, len));
    PE_OK(dmsg_postal_stats_get(&s1));
    if (streams(len))
        PE_CHECK(s1.streamed - s0.streamed == 1,
                 "send_bytes after a packed message in the out-window did not stream");
    PE_OK(dmsg_postal_send(to, 7)); /* the send buffer of tag 5, sent again */
    PE_OK(dmsg_postal_recv_bytes(from, 6, got, lf, &info));
    if (window_check(got, lf, from, 6, 0))
        return 1;
    PE_OK(dmsg_postal_recv(from, 7, &info));
    PE_CHECK(info.bytes == lf, "tag 7: %zu bytes, expected %zu", info.bytes, lf);
    PE_OK(dmsg_postal_upk_byte((int8_t *)got, (long)lf, 1));
    if (window_check(got, lf, from, 5, 0))
        return 1;
    PE_OK(dmsg_postal_barrier());

    /* 3. */
    fill_msg(buf, len, me, to, 8, 0);
    PE_OK(dmsg_postal_send_bytes(to, 8, buf, len));
    PE_OK(dmsg_postal_recv_bytes(from, 8, got, lf, &info));
    if (window_check(got, lf, from, 8, 0))
        return 1;
    PE_OK(dmsg_postal_barrier()); /* its receiver has reported the fetch */
    PE_OK(dmsg_postal_stats_get(&s0));
    fill_msg(buf, len, me, to, 9, 0);
    PE_OK(dmsg_postal_initsend());
    PE_OK(dmsg_postal_pk_byte((int8_t *)buf, (long)len, 1));
    PE_OK(dmsg_postal_send(to, 9));
    PE_OK(dmsg_postal_recv(from, 9, &info));
    PE_OK(dmsg_postal_upk_byte((int8_t *)got, (long)lf, 1));
    if (window_check(got, lf, from, 9, 0))
        return 1;
    PE_OK(dmsg_postal_barrier());
    PE_OK(dmsg_postal_stats_get(&s1));
    if (window() >= (long)len)
        PE_CHECK(s1.transfer_bytes - s0.transfer_bytes < len,
                 "a packed message after a send_bytes was pushed (%llu bytes deposited)",
                 (unsigned long long)(s1.transfer_bytes - s0.transfer_bytes));

    /* 4. */
    int partner = me ^ 1;
    if (partner < n) {
        size_t lp = ((size_t)1 << 20) + 11;
        for (long k = 0; k < 6; k++) {
            int first = (me & 1) == (int)(k & 1);
            for (int step = 0; step < 2; step++) {
                if (step == !first) {
                    fill_msg(buf, lp, me, partner, 10, k);
                    PE_OK(dmsg_postal_send_bytes(partner, 10, buf, lp));
                } else {
                    PE_OK(dmsg_postal_recv_bytes(partner, 10, got, lp, &info));
                    size_t i = bad_byte(got, lp, partner, me, 10, k);
                    PE_CHECK(i == lp, "ping-pong %ld: byte %zu wrong", k, i);
                }
            }
        }
    }
    PE_OK(dmsg_postal_stats_get(&s1));
    PE_CHECK(s1.unreceived == 0, "%llu unreceived", (unsigned long long)s1.unreceived);
    PE_OK(dmsg_postal_finalize());
    free(buf);
    free(got);
    return 0;
}

typedef struct {
    int src, tag;
    dmsg_postal_info seen;
} word_sel;

static int word_match(void *arg, const dmsg_postal_info *info, const void *data)
{
    word_sel *w = arg;
    (void)data; /* NULL for a large message only announced */
    if (info->src != w->src || info->tag != w->tag)
        return 0;
    w->seen = *info;
    return 1;
}

/* The context and the word a message carries (dmsg_postal_send_ctx_word,
 * _send_bytes_ctx_word: PVM's context and wait id) arrive as sent, both
 * negative and both extreme, on a small packed message, a large packed
 * one and a large send_bytes (windows, or fragments without them), and
 * the matcher sees them before the bytes; a plain send carries 0 and 0. */
static int ctx_word(void)
{
    int n = pe_n(), me = pe_me(), to = (me + 1) % n, from = (me - 1 + n) % n;
    size_t big = ((size_t)1 << 20) + 3;
    unsigned char *buf = calloc(big, 1), *got = malloc(big);
    PE_CHECK(buf && got, "malloc");
    PE_OK(dmsg_postal_init());
    static const int want[][2] = {{-2, -5}, {INT_MAX, INT_MIN}, {7, -1}, {0, 0}};
    int8_t one = (int8_t)me;
    PE_OK(dmsg_postal_initsend());
    PE_OK(dmsg_postal_pk_byte(&one, 1, 1));
    PE_OK(dmsg_postal_send_ctx_word(to, 1, want[0][0], want[0][1]));
    PE_OK(dmsg_postal_initsend());
    PE_OK(dmsg_postal_pk_byte((int8_t *)buf, (long)big, 1));
    PE_OK(dmsg_postal_send_ctx_word(to, 2, want[1][0], want[1][1]));
    PE_OK(dmsg_postal_send_bytes_ctx_word(to, 3, want[2][0], want[2][1], buf, big));
    PE_OK(dmsg_postal_send(to, 4));
    for (int tag = 1; tag <= 4; tag++) {
        word_sel w = {.src = from, .tag = tag};
        dmsg_postal_info info;
        size_t copied;
        int found;
        PE_OK(dmsg_postal_match_copy(word_match, &w, DMSG_POSTAL_WAIT, 0, got, big, &copied,
                                     &found, &info));
        PE_CHECK(found && info.ctx == want[tag - 1][0] && info.word == want[tag - 1][1] &&
                     w.seen.ctx == info.ctx && w.seen.word == info.word,
                 "tag %d: ctx %d word %d (matcher saw %d %d), expected %d %d", tag, info.ctx,
                 info.word, w.seen.ctx, w.seen.word, want[tag - 1][0], want[tag - 1][1]);
    }
    PE_OK(dmsg_postal_finalize());
    free(buf);
    free(got);
    return 0;
}

/* An all-to-all step of large packed messages (the strided exchange of
 * tools/bench-pvm.sh): every PE packs a block for every PE (itself too),
 * row by row (the buffer outgrows a fragment, then moves into the
 * out-window), sends them all, then receives in staggered order. Every
 * message fits the out-window beside the others, so each is pulled by its
 * receiver: none is pushed (transfer_bytes has headers only), none waits
 * for a grant and its sender's next postal call. (Before regions, every
 * message after the first found the out-window in use and was pushed.)
 * Then the last send buffer, its messages fetched, is packed further (it
 * outgrows its region and moves out) and sent again. */
static int pull_all(void)
{
    int n = pe_n(), me = pe_me(), to = (me + 1) % n, from = (me - 1 + n) % n;
    size_t win = (size_t)window(), share = (win ? win : 8u << 20) / (size_t)(n + 1);
    size_t most = 2 * share + 4096;
    unsigned char *buf = malloc(most), *got = malloc(most);
    PE_CHECK(buf && got, "malloc");
    PE_OK(dmsg_postal_init());
    dmsg_postal_stats s0, s1;
    dmsg_postal_info info;
    for (int round = 0; round < 2; round++) {
        PE_OK(dmsg_postal_barrier());
        PE_OK(dmsg_postal_stats_get(&s0));
        size_t sent = 0, rcvd = 0;
        for (int k = 0; k < n; k++) {
            int dst = (me + k) % n;
            size_t len = share - 64 * (size_t)dst - 8 * (size_t)me - 5, row = 4093;
            fill_msg(buf, len, me, dst, 4, round);
            PE_OK(dmsg_postal_initsend());
            for (size_t off = 0; off < len; off += row)
                PE_OK(dmsg_postal_pk_byte((int8_t *)buf + off,
                                          (long)(len - off < row ? len - off : row), 1));
            PE_OK(dmsg_postal_send(dst, 4));
            sent += len;
        }
        for (int k = 0; k < n; k++) {
            int src = (me - k + n) % n;
            size_t len = share - 64 * (size_t)me - 8 * (size_t)src - 5;
            memset(got, 0, 2 * len + 1);
            PE_OK(dmsg_postal_recv(src, 4, &info));
            PE_CHECK(info.bytes == len, "from %d: %zu bytes, expected %zu", src, info.bytes, len);
            if (round == 0) {
                PE_OK(dmsg_postal_upk_byte((int8_t *)got, (long)len, 1));
            } else {
                /* in three parts: straight from the sender, strided (the
                 * bytes come into this PE's window first), then the rest;
                 * between them a send_bytes of a large message to self
                 * received (through the window and out-window) */
                size_t a = 1000, b = 2000;
                PE_OK(dmsg_postal_upk_byte((int8_t *)got, (long)a, 1));
                fill_msg(got + len, len, me, me, 6, round);
                PE_OK(dmsg_postal_send_bytes(me, 6, got + len, len));
                memset(got + len, 0, len);
                PE_OK(dmsg_postal_recv_bytes(me, 6, got + len, len, NULL));
                PE_CHECK(bad_byte(got + len, len, me, me, 6, round) == len,
                         "send_bytes to self beside a lazy active buffer: wrong bytes");
                unsigned char *tmp = malloc(2 * b);
                PE_CHECK(tmp, "malloc");
                PE_OK(dmsg_postal_upk_byte((int8_t *)tmp, (long)b, 2));
                for (size_t i = 0; i < b; i++)
                    got[a + i] = tmp[2 * i];
                free(tmp);
                PE_OK(dmsg_postal_upk_byte((int8_t *)got + a + b, (long)(len - a - b), 1));
            }
            size_t i = bad_byte(got, len, src, me, 4, round);
            PE_CHECK(i == len, "round %d from %d: byte %zu of %zu wrong", round, src, i, len);
            rcvd += len;
        }
        PE_OK(dmsg_postal_barrier());
        PE_OK(dmsg_postal_stats_get(&s1));
        size_t lmin = share - 64 * (size_t)(n - 1) - 8 * (size_t)me - 5;
        if (round == 0 && regions_fit(n, lmin) == n && n > 1) {
            uint64_t moved = s1.transfer_bytes - s0.transfer_bytes,
                     direct = s1.direct_bytes - s0.direct_bytes;
            PE_CHECK(s1.large - s0.large == (uint64_t)n, "%llu large messages, expected %d",
                     (unsigned long long)(s1.large - s0.large), n);
            PE_CHECK(moved < lmin,
                     "%llu bytes deposited for %d large messages of %zu bytes in all: their "
                     "data were pushed, not pulled", (unsigned long long)moved, n, sent);
            PE_CHECK(direct == rcvd,
                     "%llu of %zu bytes received fetched straight into place (the rest "
                     "through the landing window)", (unsigned long long)direct, rcvd);
        }
    }

    /* The last buffer (for me - 1), packed further, goes to me + 1. */
    size_t last = share - 64 * (size_t)from - 8 * (size_t)me - 5, more = 300;
    fill_msg(buf, last + more, me, from, 4, 1);
    PE_OK(dmsg_postal_pk_byte((int8_t *)buf + last, (long)more, 1));
    PE_OK(dmsg_postal_send(to, 5));
    size_t lf = share - 64 * (size_t)((from - 1 + n) % n) - 8 * (size_t)from - 5 + more;
    PE_OK(dmsg_postal_recv(from, 5, &info));
    PE_CHECK(info.bytes == lf, "tag 5: %zu bytes, expected %zu", info.bytes, lf);
    PE_OK(dmsg_postal_upk_byte((int8_t *)got, (long)lf, 1));
    size_t i = bad_byte(got, lf, from, (from - 1 + n) % n, 4, 1);
    PE_CHECK(i == lf, "tag 5 (packed further after its messages were fetched): byte %zu wrong", i);
    PE_OK(dmsg_postal_release()); /* a lazy one: its sender learns that it is done */
    PE_OK(dmsg_postal_finalize());
    free(buf);
    free(got);
    return 0;
}

/* A receiver reports a large message it kept active (recv, then unpack)
 * when it releases it, often after the sender has started packing its
 * next one. A send buffer that finds no room in the out-window takes
 * those reports first (one progress pass) instead of being pushed: every
 * PE sends its successor three quarters of a window, receives its
 * predecessor's, releases it, and after a dmsg_sync (not a postal call:
 * nothing has read the reports yet) packs the next one; it must find its
 * region free again and be pulled (transfer_bytes: headers only). */
static int pull_reuse(void)
{
    int n = pe_n(), me = pe_me(), to = (me + 1) % n, from = (me - 1 + n) % n;
    size_t win = (size_t)window(), len = (win ? win : 8u << 20) / 4 * 3;
    unsigned char *buf = malloc(len), *got = malloc(len);
    PE_CHECK(buf && got, "malloc");
    PE_OK(dmsg_postal_init());
    dmsg_postal_stats s0, s1;
    dmsg_postal_info info;
    for (int k = 0; k < 2; k++) {
        if (k == 1) {
            PE_OK(dmsg_sync()); /* every report has landed, none is read */
            PE_OK(dmsg_postal_stats_get(&s0));
        }
        fill_msg(buf, len, me, to, 7, k);
        PE_OK(dmsg_postal_initsend());
        PE_OK(dmsg_postal_pk_byte((int8_t *)buf, (long)len, 1));
        PE_OK(dmsg_postal_send(to, 7));
        PE_OK(dmsg_postal_recv(from, 7, &info));
        PE_CHECK(info.bytes == len, "%zu bytes, expected %zu", info.bytes, len);
        PE_OK(dmsg_postal_upk_byte((int8_t *)got, (long)len, 1));
        size_t i = bad_byte(got, len, from, me, 7, k);
        PE_CHECK(i == len, "message %d: byte %zu wrong", k, i);
        PE_OK(dmsg_postal_release());
    }
    PE_OK(dmsg_postal_barrier());
    PE_OK(dmsg_postal_stats_get(&s1));
    if (regions_fit(1, len) == 1) {
        const char *t = getenv("DMSG_TRANSPORT");
        uint64_t moved = s1.transfer_bytes - s0.transfer_bytes;
        if (!(t && !strcmp(t, "sim")))
            PE_CHECK(moved < len, "%llu bytes deposited for a message of %zu: pushed, not pulled",
                     (unsigned long long)moved, len);
    }
    PE_OK(dmsg_postal_finalize());
    free(buf);
    free(got);
    return 0;
}

/* The starting calls read no clock in real time, as RRMSG's: packing,
 * unpacking, sending and matching never wait, so over shm and ofi a ping-pong
 * of packed messages and of send_bytes/recv_bytes leaves pack_time,
 * unpack_time, send_time (no flush), match_time and manage_time at 0 and
 * times the receives (waits) only; on sim every call is timed (virtual time,
 * the machine's cost of each copy). */
static int lean(void)
{
    int me = pe_me(), peer = me ^ 1;
    const char *t = getenv("DMSG_TRANSPORT");
    int sim = t && !strcmp(t, "sim");
    PE_OK(dmsg_postal_init());
    for (int k = 0; peer < pe_n() && k < iters(100); k++) {
        int64_t v[4] = {k, me, -k, 7}, got[4] = {0};
        for (int leg = 0; leg < 2; leg++) {
            if (leg == (me & 1)) {
                PE_OK(dmsg_postal_initsend());
                PE_OK(dmsg_postal_pk_long(v, 4, 1));
                PE_OK(dmsg_postal_send(peer, 5));
                PE_OK(dmsg_postal_send_bytes(peer, 6, v, sizeof v));
            } else {
                PE_OK(dmsg_postal_recv(peer, 5, NULL));
                PE_OK(dmsg_postal_upk_long(got, 4, 1));
                PE_CHECK(got[0] == k && got[1] == peer, "packed round %d: %lld %lld", k,
                         (long long)got[0], (long long)got[1]);
                PE_OK(dmsg_postal_recv_bytes(peer, 6, got, sizeof got, NULL));
                PE_CHECK(got[2] == -k && got[3] == 7, "bytes round %d: %lld %lld", k,
                         (long long)got[2], (long long)got[3]);
            }
        }
    }
    dmsg_postal_stats st;
    PE_OK(dmsg_postal_stats_get(&st));
    if (peer < pe_n()) {
        PE_CHECK(st.recv_time > 0, "recv_time %g", st.recv_time);
        if (sim)
            PE_CHECK(st.pack_time > 0 && st.unpack_time > 0 && st.send_time > 0,
                     "on sim: pack_time %g, unpack_time %g, send_time %g", st.pack_time,
                     st.unpack_time, st.send_time);
    }
    if (!sim)
        PE_CHECK(st.pack_time == 0 && st.unpack_time == 0 && st.send_time == 0 &&
                     st.match_time == 0 && st.manage_time == 0,
                 "timed in real time: pack %g, unpack %g, send %g, match %g, manage %g",
                 st.pack_time, st.unpack_time, st.send_time, st.match_time, st.manage_time);
    PE_OK(dmsg_postal_finalize());
    return 0;
}

/* Every case above in one job (the integration suite over ofi, where
 * starting a job costs seconds). */
static int all(void)
{
    int (*const fns[])(void) = {alltoall,    neighbour,       wildcard_order, late_receiver,
                                out_of_order, pingpong,       large,          active_pins,
                                active_pingpong, poll_full,   random_mix};
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
    {"postal_active_pins", active_pins, 0},
    {"postal_active_pingpong", active_pingpong, 0},
    {"postal_poll_full", poll_full, 0},
    {"postal_random", random_mix, 0},
    {"postal_window", window_case, 0},
    {"postal_stream", stream_case, 0},
    {"postal_pull_all", pull_all, 0},
    {"postal_pull_reuse", pull_reuse, 0},
    {"postal_ctx_word", ctx_word, 0},
    {"postal_lean", lean, 0},
    {NULL, NULL, 0},
};
