/* The postal baseline on one PE (a program started without dmsgrun), which
 * sends to itself: pack and unpack of strided data of every element size,
 * matching by source and tag with wildcards, order, flow control with a tiny
 * mailbox, and bad input (clear status, nothing changed or written). */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "dmsg_postal.h"

static void start(void)
{
    cr_assert_eq(dmsg_init(), DMSG_OK);
    cr_assert_eq(dmsg_postal_init(), DMSG_OK);
}

static void stop(void)
{
    cr_assert_eq(dmsg_postal_finalize(), DMSG_OK);
    cr_assert_eq(dmsg_finalize(), DMSG_OK);
}

static void tiny(void)
{
    setenv("DMSG_POSTAL_MAILBOX", "1K", 1);
    start();
}

TestSuite(postal, .init = start, .fini = stop);
TestSuite(postal_tiny, .init = tiny, .fini = stop);

/* Every element size: pack every 3rd of n elements, unpack every 2nd, check
 * every element and every gap. */
Test(postal, strided_every_size)
{
    static const size_t sizes[] = {1, 2, 4, 8, 16};
    const long n = 37;
    for (size_t s = 0; s < 5; s++) {
        size_t es = sizes[s];
        unsigned char src[37 * 3 * 16], dst[37 * 2 * 16 + 16];
        for (size_t i = 0; i < sizeof src; i++)
            src[i] = (unsigned char)(i * 7 + s);
        memset(dst, 0xEE, sizeof dst);
        cr_assert_eq(dmsg_postal_initsend(), DMSG_OK);
        cr_assert_eq(dmsg_postal_pk(src, n, 3, es), DMSG_OK);
        cr_assert_eq(dmsg_postal_send(0, (int)es), DMSG_OK);
        dmsg_postal_info info;
        cr_assert_eq(dmsg_postal_recv(0, (int)es, &info), DMSG_OK);
        cr_assert_eq(info.src, 0);
        cr_assert_eq(info.tag, (int)es);
        cr_assert_eq(info.bytes, (size_t)n * es);
        cr_assert_eq(dmsg_postal_upk(dst, n, 2, es), DMSG_OK);
        for (long i = 0; i < n; i++) {
            cr_assert_eq(memcmp(dst + (size_t)i * 2 * es, src + (size_t)i * 3 * es, es), 0,
                         "size %zu element %ld", es, i);
            for (size_t b = 0; b < es; b++)
                cr_assert_eq(dst[(size_t)(2 * i + 1) * es + b], 0xEE, "size %zu gap %ld", es, i);
        }
        cr_assert_eq(dst[(size_t)2 * n * es], 0xEE, "size %zu: written past the end", es);
    }
}

Test(postal, typed_forms)
{
    int8_t b[4] = {1, -2, 3, -4}, b2[2];
    int16_t h[2] = {300, -300}, h2[2];
    int32_t i[2] = {70000, -70000}, i2[2];
    int64_t l[2] = {1ll << 40, -(1ll << 40)}, l2[2];
    float f[4] = {1.5f, 2.5f, 3.5f, 4.5f}, f2[4];
    double d[4] = {0.25, 0.5, 0.75, 1.0}, d2[4];
    cr_assert_eq(dmsg_postal_initsend(), DMSG_OK);
    cr_assert_eq(dmsg_postal_pk_byte(b, 2, 2), DMSG_OK);
    cr_assert_eq(dmsg_postal_pk_short(h, 2, 1), DMSG_OK);
    cr_assert_eq(dmsg_postal_pk_int(i, 2, 1), DMSG_OK);
    cr_assert_eq(dmsg_postal_pk_long(l, 2, 1), DMSG_OK);
    cr_assert_eq(dmsg_postal_pk_float(f, 2, 2), DMSG_OK);
    cr_assert_eq(dmsg_postal_pk_double(d, 1, 1), DMSG_OK);
    cr_assert_eq(dmsg_postal_pk_cplx(f, 2, 1), DMSG_OK);  /* (1.5, 2.5), (3.5, 4.5) */
    cr_assert_eq(dmsg_postal_pk_dcplx(d, 2, 1), DMSG_OK); /* (0.25, 0.5), (0.75, 1.0) */
    cr_assert_eq(dmsg_postal_send(0, 1), DMSG_OK);
    cr_assert_eq(dmsg_postal_recv(DMSG_POSTAL_ANY, DMSG_POSTAL_ANY, NULL), DMSG_OK);
    cr_assert_eq(dmsg_postal_upk_byte(b2, 2, 1), DMSG_OK);
    cr_assert(b2[0] == 1 && b2[1] == 3);
    cr_assert_eq(dmsg_postal_upk_short(h2, 2, 1), DMSG_OK);
    cr_assert(h2[0] == 300 && h2[1] == -300);
    cr_assert_eq(dmsg_postal_upk_int(i2, 2, 1), DMSG_OK);
    cr_assert(i2[0] == 70000 && i2[1] == -70000);
    cr_assert_eq(dmsg_postal_upk_long(l2, 2, 1), DMSG_OK);
    cr_assert(l2[0] == l[0] && l2[1] == l[1]);
    cr_assert_eq(dmsg_postal_upk_float(f2, 2, 1), DMSG_OK);
    cr_assert(f2[0] == 1.5f && f2[1] == 3.5f);
    cr_assert_eq(dmsg_postal_upk_double(d2, 1, 1), DMSG_OK);
    cr_assert(d2[0] == 0.25);
    cr_assert_eq(dmsg_postal_upk_cplx(f2, 2, 1), DMSG_OK);
    cr_assert(f2[0] == 1.5f && f2[1] == 2.5f && f2[2] == 3.5f && f2[3] == 4.5f);
    cr_assert_eq(dmsg_postal_upk_dcplx(d2, 2, 1), DMSG_OK);
    cr_assert(d2[0] == 0.25 && d2[1] == 0.5 && d2[2] == 0.75 && d2[3] == 1.0);
    dmsg_postal_info info;
    cr_assert_eq(dmsg_postal_bufinfo(&info), DMSG_OK);
    cr_assert_eq(info.bytes, 2u + 4 + 8 + 16 + 8 + 8 + 16 + 32);
    cr_assert_eq(dmsg_postal_upk_byte(b2, 1, 1), DMSG_ERR_SIZE, "past the end");
}

static void send_int(int tag, int32_t v)
{
    cr_assert_eq(dmsg_postal_initsend(), DMSG_OK);
    cr_assert_eq(dmsg_postal_pk_int(&v, 1, 1), DMSG_OK);
    cr_assert_eq(dmsg_postal_send(0, tag), DMSG_OK);
}

static int32_t recv_int(int src, int tag, int *got_tag)
{
    dmsg_postal_info info;
    int32_t v;
    cr_assert_eq(dmsg_postal_recv(src, tag, &info), DMSG_OK);
    cr_assert_eq(dmsg_postal_upk_int(&v, 1, 1), DMSG_OK);
    if (got_tag)
        *got_tag = info.tag;
    return v;
}

Test(postal, matching_and_order)
{
    for (int32_t k = 0; k < 30; k++)
        send_int(k % 3, k);
    /* by tag: the order sent among that tag */
    for (int32_t k = 2; k < 30; k += 3)
        cr_assert_eq(recv_int(0, 2, NULL), k);
    int found;
    cr_assert_eq(dmsg_postal_probe(0, 2, &found, NULL), DMSG_OK);
    cr_assert_eq(found, 0);
    /* probe leaves the message in place and tells what it is */
    dmsg_postal_info info = {0};
    cr_assert_eq(dmsg_postal_probe(DMSG_POSTAL_ANY, 1, &found, &info), DMSG_OK);
    cr_assert(found && info.tag == 1 && info.bytes == 4 && info.src == 0);
    cr_assert_eq(recv_int(DMSG_POSTAL_ANY, 1, NULL), 1);
    /* wildcards: everything else in the order sent */
    for (int32_t k = 0; k < 30; k++) {
        if (k % 3 == 2 || k == 1)
            continue;
        int tag;
        cr_assert_eq(recv_int(DMSG_POSTAL_ANY, DMSG_POSTAL_ANY, &tag), k);
        cr_assert_eq(tag, k % 3);
    }
    cr_assert_eq(dmsg_postal_nrecv(DMSG_POSTAL_ANY, DMSG_POSTAL_ANY, &found, NULL), DMSG_OK);
    cr_assert_eq(found, 0);
}

Test(postal, unknown_tag_nonblocking)
{
    send_int(5, 55);
    int found = -1;
    dmsg_postal_info info = {.src = 77, .tag = 77, .bytes = 77};
    cr_assert_eq(dmsg_postal_probe(0, 6, &found, &info), DMSG_OK);
    cr_assert_eq(found, 0);
    cr_assert(info.src == 77 && info.tag == 77 && info.bytes == 77, "info changed");
    cr_assert_eq(dmsg_postal_nrecv(DMSG_POSTAL_ANY, 6, &found, &info), DMSG_OK);
    cr_assert_eq(found, 0);
    cr_assert_eq(dmsg_postal_bufinfo(&info), DMSG_ERR_STATE, "no active buffer");
    cr_assert_eq(dmsg_postal_nrecv(0, 5, &found, &info), DMSG_OK);
    cr_assert(found && info.tag == 5);
}

Test(postal, contiguous_pair)
{
    char msg[1000], got[1001];
    for (int i = 0; i < 1000; i++)
        msg[i] = (char)(i * 13);
    cr_assert_eq(dmsg_postal_send_bytes(0, 3, msg, sizeof msg), DMSG_OK);
    cr_assert_eq(dmsg_postal_send_bytes(0, 4, NULL, 0), DMSG_OK);
    /* too small: clear status, nothing written, the message stays */
    memset(got, 0x5A, sizeof got);
    dmsg_postal_info info = {.bytes = 1};
    cr_assert_eq(dmsg_postal_recv_bytes(0, 3, got, 999, &info), DMSG_ERR_SIZE);
    cr_assert_eq(info.bytes, 1u, "info set on failure");
    for (int i = 0; i < 1001; i++)
        cr_assert_eq((unsigned char)got[i], 0x5A, "byte %d written", i);
    cr_assert_eq(dmsg_postal_recv_bytes(0, 3, got, 1000, &info), DMSG_OK);
    cr_assert_eq(memcmp(got, msg, 1000), 0);
    cr_assert_eq((unsigned char)got[1000], 0x5A);
    cr_assert_eq(info.bytes, 1000u);
    cr_assert_eq(dmsg_postal_recv_bytes(0, 4, NULL, 0, &info), DMSG_OK);
    cr_assert_eq(info.bytes, 0u);
    /* the send buffer is untouched by the contiguous pair */
    int32_t v = 9, w;
    cr_assert_eq(dmsg_postal_initsend(), DMSG_OK);
    cr_assert_eq(dmsg_postal_pk_int(&v, 1, 1), DMSG_OK);
    cr_assert_eq(dmsg_postal_send_bytes(0, 8, msg, 10), DMSG_OK);
    cr_assert_eq(dmsg_postal_send(0, 9), DMSG_OK);
    cr_assert_eq(dmsg_postal_send(0, 9), DMSG_OK); /* the same message twice */
    for (int k = 0; k < 2; k++) {
        cr_assert_eq(dmsg_postal_recv(0, 9, NULL), DMSG_OK);
        cr_assert_eq(dmsg_postal_upk_int(&w, 1, 1), DMSG_OK);
        cr_assert_eq(w, 9);
    }
}

Test(postal, bad_input)
{
    int32_t v[4] = {1, 2, 3, 4};
    int found;
    cr_assert_eq(dmsg_postal_initsend(), DMSG_OK);
    cr_assert_eq(dmsg_postal_pk_int(NULL, 1, 1), DMSG_ERR_NULL);
    cr_assert_eq(dmsg_postal_pk_int(NULL, 0, 1), DMSG_OK, "nothing to pack");
    cr_assert_eq(dmsg_postal_pk_int(v, -1, 1), DMSG_ERR_ARG);
    cr_assert_eq(dmsg_postal_pk_int(v, 1, 0), DMSG_ERR_ARG);
    cr_assert_eq(dmsg_postal_pk_int(v, 1, -2), DMSG_ERR_ARG);
    cr_assert_eq(dmsg_postal_pk(v, 1, 1, 3), DMSG_ERR_ARG);
    cr_assert_eq(dmsg_postal_pk(v, 1, 1, 0), DMSG_ERR_ARG);
    cr_assert_eq(dmsg_postal_pk(v, LONG_MAX, 1, 16), DMSG_ERR_OVERFLOW);
    cr_assert_eq(dmsg_postal_pk(v, 2, LONG_MAX, 8), DMSG_ERR_OVERFLOW);
    cr_assert_eq(dmsg_postal_pk(v, 1L << 40, 1, 1), DMSG_ERR_NOMEM, "larger than DMSG_POSTAL_QUEUE");
    cr_assert_eq(dmsg_postal_send(-1, 0), DMSG_ERR_PE);
    cr_assert_eq(dmsg_postal_send(1, 0), DMSG_ERR_PE);
    cr_assert_eq(dmsg_postal_send(0, -1), DMSG_ERR_ARG);
    cr_assert_eq(dmsg_postal_send_bytes(0, 0, NULL, 4), DMSG_ERR_NULL);
    cr_assert_eq(dmsg_postal_send_bytes(0, 0, v, (size_t)1 << 40), DMSG_ERR_NOMEM);
    cr_assert_eq(dmsg_postal_recv(1, 0, NULL), DMSG_ERR_PE);
    cr_assert_eq(dmsg_postal_recv(-2, 0, NULL), DMSG_ERR_PE);
    cr_assert_eq(dmsg_postal_recv(0, -2, NULL), DMSG_ERR_ARG);
    cr_assert_eq(dmsg_postal_nrecv(0, 0, NULL, NULL), DMSG_ERR_NULL);
    cr_assert_eq(dmsg_postal_probe(0, 0, NULL, NULL), DMSG_ERR_NULL);
    cr_assert_eq(dmsg_postal_probe(5, 0, &found, NULL), DMSG_ERR_PE);
    cr_assert_eq(dmsg_postal_recv_bytes(0, 0, NULL, 4, NULL), DMSG_ERR_NULL);
    cr_assert_eq(dmsg_postal_upk_int(v, 1, 1), DMSG_ERR_STATE, "no active buffer");
    cr_assert_eq(dmsg_postal_bufinfo(NULL), DMSG_ERR_NULL);
    cr_assert_eq(dmsg_postal_stats_get(NULL), DMSG_ERR_NULL);
    /* none of it sent anything, and the send buffer still holds nothing */
    dmsg_postal_stats st;
    cr_assert_eq(dmsg_postal_stats_get(&st), DMSG_OK);
    cr_assert_eq(st.sent, 0u);
    cr_assert_eq(st.pack_bytes, 0u);
    cr_assert_eq(dmsg_postal_send(0, 0), DMSG_OK);
    dmsg_postal_info info;
    cr_assert_eq(dmsg_postal_recv(0, 0, &info), DMSG_OK);
    cr_assert_eq(info.bytes, 0u);
    /* unpack errors leave the position and the destination alone */
    cr_assert_eq(dmsg_postal_upk_int(v, 1, 1), DMSG_ERR_SIZE);
    cr_assert_eq(v[0], 1);
    cr_assert_eq(dmsg_postal_upk_int(v, -1, 1), DMSG_ERR_ARG);
    cr_assert_eq(dmsg_postal_upk_int(NULL, 1, 1), DMSG_ERR_NULL);
}

Test(postal, states)
{
    cr_assert_eq(dmsg_postal_init(), DMSG_ERR_STATE, "twice");
    cr_assert_eq(dmsg_postal_finalize(), DMSG_OK);
    cr_assert_eq(dmsg_postal_send(0, 0), DMSG_ERR_STATE);
    cr_assert_eq(dmsg_postal_initsend(), DMSG_ERR_STATE);
    cr_assert_eq(dmsg_postal_flush(), DMSG_ERR_STATE);
    cr_assert_eq(dmsg_postal_release(), DMSG_ERR_STATE);
    cr_assert_eq(dmsg_postal_finalize(), DMSG_ERR_STATE);
    cr_assert_eq(dmsg_postal_init(), DMSG_OK, "again after finalize");
}

Test(postal_states, before_dmsg_init)
{
    cr_assert_eq(dmsg_postal_init(), DMSG_ERR_NOT_INIT);
    cr_assert_eq(dmsg_postal_send(0, 0), DMSG_ERR_STATE);
}

/* 10,000 messages to oneself with a 1 KiB mailbox: at most 7 fit at once, the
 * rest wait in the sender queue, and receiving makes room for them. */
Test(postal_tiny, flow_control_10000)
{
    for (int32_t k = 0; k < 10000; k++)
        send_int(k % 5, k);
    dmsg_postal_stats st;
    cr_assert_eq(dmsg_postal_stats_get(&st), DMSG_OK);
    cr_assert_eq(st.sent, 10000u);
    cr_assert_gt(st.queued, 9900u, "the tiny mailbox did not make the sender queue");
    for (int32_t k = 0; k < 10000; k++)
        cr_assert_eq(recv_int(0, DMSG_POSTAL_ANY, NULL), k);
    /* every copy stage is counted */
    cr_assert_eq(dmsg_postal_stats_get(&st), DMSG_OK);
    cr_assert_eq(st.received, 10000u);
    cr_assert_eq(st.pack_bytes, 40000u);
    cr_assert_eq(st.unpack_bytes, 40000u);
    cr_assert_eq(st.queue_bytes, 4u * st.queued);
    /* a header and 4 data bytes per message, plus 64-byte stuck notices */
    cr_assert_geq(st.transfer_bytes, 10000u * (64 + 4));
    cr_assert_eq((st.transfer_bytes - 10000u * (64 + 4)) % 64, 0u);
    cr_assert_eq(st.unreceived, 0u);
    cr_assert_geq(st.manage_time, 0.0);
    cr_assert_geq(st.match_time, 0.0);
    int found;
    cr_assert_eq(dmsg_postal_probe(DMSG_POSTAL_ANY, DMSG_POSTAL_ANY, &found, NULL), DMSG_OK);
    cr_assert_eq(found, 0);
}

/* Receiving by tag out of send order with a full mailbox: the waiting
 * receiver moves unmatched messages out (spills) so the one it wants comes. */
Test(postal_tiny, out_of_order_spills)
{
    for (int32_t k = 0; k < 50; k++)
        send_int(1, k);
    send_int(2, -1);
    cr_assert_eq(recv_int(0, 2, NULL), -1);
    dmsg_postal_stats st;
    cr_assert_eq(dmsg_postal_stats_get(&st), DMSG_OK);
    cr_assert_gt(st.spilled, 0u);
    cr_assert_eq(st.spill_bytes, 4u * st.spilled);
    for (int32_t k = 0; k < 50; k++)
        cr_assert_eq(recv_int(0, 1, NULL), k);
}

/* Messages longer than half the 1 KiB mailbox are large: one fragment (448
 * bytes), one byte more, and many mailboxes' worth, strided across fragment
 * boundaries, all sent before the first is received. Without windows they
 * go as fragments, reassembled in private memory; with them (the default)
 * they are pulled or pushed whole, and nothing is queued or reassembled. */
static void large_messages(int windows)
{
    if (!windows) {
        dmsg_postal_finalize();
        dmsg_finalize();
        setenv("DMSG_POSTAL_WINDOW", "0", 1);
        start();
    }
    static const long lens[] = {0, 447, 448, 449, 896, 897, 5000, 100000};
    enum { N = sizeof lens / sizeof lens[0] };
    int32_t *src = malloc(100000 * 3 * 4), *dst = malloc(100000 * 2 * 4 + 4);
    cr_assert(src && dst);
    for (long i = 0; i < 100000 * 3; i++)
        src[i] = (int32_t)(i * 7 + 1);
    for (int k = 0; k < N; k++) {
        cr_assert_eq(dmsg_postal_initsend(), DMSG_OK);
        cr_assert_eq(dmsg_postal_pk_int(src + k, lens[k] / 4, 3), DMSG_OK);
        cr_assert_eq(dmsg_postal_pk_byte((int8_t *)src, lens[k] % 4, 1), DMSG_OK);
        cr_assert_eq(dmsg_postal_send(0, k), DMSG_OK, "message of %ld bytes", lens[k]);
    }
    for (int k = 0; k < N; k++) {
        dmsg_postal_info info;
        cr_assert_eq(dmsg_postal_recv(0, DMSG_POSTAL_ANY, &info), DMSG_OK);
        cr_assert_eq(info.tag, k, "in the order sent");
        cr_assert_eq(info.bytes, (size_t)lens[k]);
        long n = lens[k] / 4;
        memset(dst, 0xEE, (size_t)n * 8 + 4);
        cr_assert_eq(dmsg_postal_upk_int(dst, n, 2), DMSG_OK);
        for (long i = 0; i < n; i++) {
            cr_assert_eq(dst[2 * i], src[k + 3 * i], "message %d element %ld", k, i);
            cr_assert_eq(dst[2 * i + 1], (int32_t)0xEEEEEEEE, "message %d gap %ld", k, i);
        }
        int8_t tail[3];
        cr_assert_eq(dmsg_postal_upk_byte(tail, lens[k] % 4, 1), DMSG_OK);
        cr_assert_eq(memcmp(tail, src, (size_t)(lens[k] % 4)), 0);
        cr_assert_eq(dmsg_postal_upk_byte(tail, 1, 1), DMSG_ERR_SIZE, "nothing left");
    }
    dmsg_postal_stats st;
    cr_assert_eq(dmsg_postal_stats_get(&st), DMSG_OK);
    cr_assert_eq(st.sent, (uint64_t)N);
    cr_assert_eq(st.received, (uint64_t)N);
    if (windows) {
        /* Only the 448-byte message (one fragment) may wait behind the full
         * mailbox; the announcements of large ones carry no payload. */
        cr_assert_leq(st.queue_bytes, 448u, "large messages are not queued");
        cr_assert_eq(st.spill_bytes, 0u, "large messages are not reassembled");
    } else {
        cr_assert_gt(st.spill_bytes, 100000u, "fragments are reassembled in private memory");
    }
    /* contiguous pair, one fragment boundary exactly */
    cr_assert_eq(dmsg_postal_send_bytes(0, 9, src, 896), DMSG_OK);
    cr_assert_eq(dmsg_postal_recv_bytes(0, 9, dst, 895, NULL), DMSG_ERR_SIZE, "too small");
    cr_assert_eq(dmsg_postal_recv_bytes(0, 9, dst, 896, NULL), DMSG_OK);
    cr_assert_eq(memcmp(dst, src, 896), 0);
    free(src);
    free(dst);
}

Test(postal_tiny, fragments)
{
    large_messages(0);
}

Test(postal_tiny, windows)
{
    large_messages(1);
}

Test(postal_tiny, queue_limit)
{
    dmsg_postal_finalize();
    dmsg_finalize();
    setenv("DMSG_POSTAL_QUEUE", "1K", 1);
    start();
    char buf[300] = {0};
    int k = 0, st;
    while ((st = dmsg_postal_send_bytes(0, 0, buf, sizeof buf)) == DMSG_OK && k < 100)
        k++;
    cr_assert_eq(st, DMSG_ERR_NOMEM, "the queue limit never hit");
    cr_assert_geq(k, 3);
    dmsg_postal_stats s;
    cr_assert_eq(dmsg_postal_stats_get(&s), DMSG_OK);
    cr_assert_eq(s.sent, (uint64_t)k, "the refused send counted");
    for (int i = 0; i < k; i++)
        cr_assert_eq(dmsg_postal_recv_bytes(0, 0, buf, sizeof buf, NULL), DMSG_OK);
    cr_assert_eq(dmsg_postal_send_bytes(0, 0, buf, sizeof buf), DMSG_OK, "room again");
    /* a message longer than the queue limit is refused whole: nothing sent */
    static char big[2048];
    cr_assert_eq(dmsg_postal_send_bytes(0, 1, big, sizeof big), DMSG_ERR_NOMEM);
    cr_assert_eq(dmsg_postal_initsend(), DMSG_OK);
    cr_assert_eq(dmsg_postal_pk_byte((int8_t *)big, 1025, 1), DMSG_ERR_NOMEM);
    cr_assert_eq(dmsg_postal_stats_get(&s), DMSG_OK);
    cr_assert_eq(s.sent, (uint64_t)k + 1);
    int found;
    cr_assert_eq(dmsg_postal_probe(0, 1, &found, NULL), DMSG_OK);
    cr_assert_eq(found, 0, "no fragment of the refused message arrived");
}

/* The refusals print one line each (captured here, and checked: a user must
 * learn which setting is wrong). */
/* A bad postal setting is refused with a detail naming it
 * (dmsg_last_error), and the library prints nothing: dmsgrun refuses it
 * before the job starts, an application prints the detail itself. */
static void refused(const char *want)
{
    cr_assert_eq(dmsg_postal_init(), DMSG_ERR_ENV, "%s accepted", want);
    cr_assert(strstr(dmsg_last_error(), want) != NULL, "detail '%s' lacks '%s'", dmsg_last_error(),
              want);
}

Test(postal_states, bad_settings, .init = cr_redirect_stderr)
{
    cr_assert_eq(dmsg_init(), DMSG_OK);
    setenv("DMSG_POSTAL_MAILBOX", "512", 1);
    refused("DMSG_POSTAL_MAILBOX must be between");
    setenv("DMSG_POSTAL_MAILBOX", "lots", 1);
    refused("DMSG_POSTAL_MAILBOX=\"lots\" is not valid");
    setenv("DMSG_POSTAL_MAILBOX", "2K", 1);
    setenv("DMSG_POSTAL_QUEUE", "-1", 1);
    refused("DMSG_POSTAL_QUEUE=\"-1\" is not valid");
    unsetenv("DMSG_POSTAL_QUEUE");
    setenv("DMSG_POSTAL_WINDOW", "100", 1);
    refused("DMSG_POSTAL_WINDOW must be 0 or between");
    unsetenv("DMSG_POSTAL_WINDOW");
    cr_assert_eq(dmsg_postal_init(), DMSG_OK, "a corrected retry");
    cr_assert_eq(dmsg_postal_finalize(), DMSG_OK);
    cr_assert_eq(dmsg_finalize(), DMSG_OK);
    fflush(stderr);
    char said[4096];
    FILE *f = cr_get_redirected_stderr();
    size_t n = fread(said, 1, sizeof said - 1, f);
    said[n] = '\0';
    cr_assert(n == 0, "the library printed:\n%s", said);
}
