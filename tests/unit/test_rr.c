/* The RRMSG baseline on one PE, transferring to itself: every source and
 * destination form, matching, handles, and bad input (clear status, nothing
 * started, nothing written). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "dmsg_rr.h"

static void start(void)
{
    cr_assert_eq(dmsg_init(), DMSG_OK);
    cr_assert_eq(dmsg_rr_init(), DMSG_OK);
}

static void stop(void)
{
    cr_assert_eq(dmsg_rr_finalize(), DMSG_OK);
    cr_assert_eq(dmsg_finalize(), DMSG_OK);
}

TestSuite(rr, .init = start, .fini = stop);

static double *sym(size_t n)
{
    void *p;
    cr_assert_eq(dmsg_alloc(n * sizeof(double), &p), DMSG_OK);
    return p;
}

Test(rr, every_form)
{
    double src[64], *dst = sym(64);
    size_t idx[16];
    for (int i = 0; i < 64; i++)
        src[i] = i + 0.5;
    for (int i = 0; i < 16; i++)
        idx[i] = (size_t)(63 - 4 * i);
    dmsg_rr_req r[2];
    dmsg_rr_info info;
    /* contiguous into contiguous, receive posted first */
    memset(dst, 0, 64 * 8);
    cr_assert_eq(dmsg_rr_irecv(0, 1, dst, 64 * 8, &r[0]), DMSG_OK);
    cr_assert_eq(dmsg_rr_isend(0, 1, src, 10 * 8, &r[1]), DMSG_OK);
    cr_assert_eq(dmsg_rr_wait(&r[1], NULL), DMSG_OK);
    cr_assert_eq(dmsg_rr_wait(&r[0], &info), DMSG_OK);
    cr_assert(info.src == 0 && info.tag == 1 && info.bytes == 80);
    cr_assert_eq(memcmp(dst, src, 80), 0);
    cr_assert_eq(dst[10], 0.0, "past the data");
    /* section (every 2nd) into a section (every 3rd), send started first */
    memset(dst, 0, 64 * 8);
    dmsg_layout sl = {.ndims = 1, .count = {20}, .stride = {16}};
    dmsg_layout dl = {.ndims = 1, .count = {20}, .stride = {24}};
    cr_assert_eq(dmsg_rr_isend_section(0, 2, src, &sl, 8, &r[1]), DMSG_OK);
    cr_assert_eq(dmsg_rr_irecv_section(DMSG_RR_ANY, 2, dst, &dl, 8, &r[0]), DMSG_OK);
    cr_assert_eq(dmsg_rr_waitall(2, r, NULL), DMSG_OK);
    for (int i = 0; i < 60; i++)
        cr_assert_eq(dst[i], i % 3 ? 0.0 : src[2 * (i / 3)], "element %d", i);
    /* indexed source into contiguous, then into a section */
    memset(dst, 0, 64 * 8);
    cr_assert_eq(dmsg_rr_isend_gathered(0, 3, src, idx, 16, 8, &r[1]), DMSG_OK);
    cr_assert_eq(dmsg_rr_recv(0, DMSG_RR_ANY, dst, 16 * 8, &info), DMSG_OK);
    cr_assert_eq(dmsg_rr_wait(&r[1], NULL), DMSG_OK);
    for (int i = 0; i < 16; i++)
        cr_assert_eq(dst[i], src[idx[i]]);
    dmsg_layout d2 = {.ndims = 2, .count = {4, 4}, .stride = {8 * 8, 8}}; /* transposed 4x4 */
    cr_assert_eq(dmsg_rr_isend_gathered(0, 4, src, idx, 16, 8, &r[1]), DMSG_OK);
    cr_assert_eq(dmsg_rr_recv_section(0, 4, dst + 32, &d2, 8, NULL), DMSG_OK);
    cr_assert_eq(dmsg_rr_wait(&r[1], NULL), DMSG_OK);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            cr_assert_eq(dst[32 + j * 8 + i], src[idx[i * 4 + j]]);
    /* contiguous bytes into a section of the same size */
    cr_assert_eq(dmsg_rr_isend(0, 5, src, 20 * 8, &r[1]), DMSG_OK);
    cr_assert_eq(dmsg_rr_recv_section(0, 5, dst, &dl, 8, NULL), DMSG_OK);
    cr_assert_eq(dmsg_rr_wait(&r[1], NULL), DMSG_OK);
    for (int i = 0; i < 20; i++)
        cr_assert_eq(dst[3 * i], src[i]);
    dmsg_rr_stats st;
    cr_assert_eq(dmsg_rr_stats_get(&st), DMSG_OK);
    cr_assert_eq(st.sends, 5u);
    cr_assert_eq(st.recvs, 5u);
    /* Three a transfer (request, response, ack); the first, whose receive
     * answered ahead with the PE's one READYC, two: its data's count stands
     * for the request (DONE). */
    cr_assert_eq(st.control, 14u, "request, response, ack per transfer; READY, ack for the first");
    cr_assert_eq(st.pack_bytes, 128u, "only indexed into a section is packed");
    cr_assert_eq(dmsg_free(dst), DMSG_OK);
}

/* Requests match receives in posting order; a request waits for its receive. */
Test(rr, matching_order)
{
    double a = 1, b = 2, c = 3, *dst = sym(3);
    dmsg_rr_req s[3], r[3];
    cr_assert_eq(dmsg_rr_isend(0, 7, &a, 8, &s[0]), DMSG_OK);
    cr_assert_eq(dmsg_rr_isend(0, 8, &b, 8, &s[1]), DMSG_OK);
    cr_assert_eq(dmsg_rr_isend(0, 7, &c, 8, &s[2]), DMSG_OK);
    int done;
    cr_assert_eq(dmsg_rr_test(&s[0], &done, NULL), DMSG_OK);
    cr_assert_eq(done, 0, "complete without a receive");
    cr_assert_eq(dmsg_rr_irecv(0, 8, dst, 8, &r[0]), DMSG_OK);
    cr_assert_eq(dmsg_rr_irecv(DMSG_RR_ANY, DMSG_RR_ANY, dst + 1, 8, &r[1]), DMSG_OK);
    cr_assert_eq(dmsg_rr_irecv(0, 7, dst + 2, 8, &r[2]), DMSG_OK);
    dmsg_rr_info info[3];
    cr_assert_eq(dmsg_rr_waitall(3, r, info), DMSG_OK);
    cr_assert_eq(dmsg_rr_waitall(3, s, NULL), DMSG_OK);
    cr_assert(dst[0] == 2 && dst[1] == 1 && dst[2] == 3, "%g %g %g", dst[0], dst[1], dst[2]);
    cr_assert(info[1].tag == 7 && info[2].tag == 7 && info[0].tag == 8);
    cr_assert_eq(dmsg_free(dst), DMSG_OK);
}

Test(rr, refused_and_handles)
{
    double src[8] = {1, 2, 3, 4, 5, 6, 7, 8}, *dst = sym(8);
    for (int i = 0; i < 8; i++)
        dst[i] = -1;
    dmsg_rr_req r[2];
    /* more bytes than the receive holds */
    cr_assert_eq(dmsg_rr_irecv(0, 1, dst, 16, &r[0]), DMSG_OK);
    cr_assert_eq(dmsg_rr_isend(0, 1, src, 24, &r[1]), DMSG_OK);
    cr_assert_eq(dmsg_rr_waitall(2, r, NULL), DMSG_ERR_SIZE);
    /* a section of other elements or another size */
    dmsg_layout dl = {.ndims = 1, .count = {4}, .stride = {16}};
    dmsg_layout sl = {.ndims = 1, .count = {8}, .stride = {4}};
    cr_assert_eq(dmsg_rr_irecv_section(0, 2, dst, &dl, 8, &r[0]), DMSG_OK);
    cr_assert_eq(dmsg_rr_isend_section(0, 2, src, &sl, 4, &r[1]), DMSG_OK);
    cr_assert_eq(dmsg_rr_wait(&r[1], NULL), DMSG_ERR_SIZE);
    cr_assert_eq(dmsg_rr_wait(&r[0], NULL), DMSG_ERR_SIZE);
    for (int i = 0; i < 8; i++)
        cr_assert_eq(dst[i], -1.0, "refused data written at %d", i);
    cr_assert_eq(dmsg_rr_wait(&r[0], NULL), DMSG_ERR_HANDLE, "retired");
    dmsg_rr_req never;
    memset(&never, 0, sizeof never);
    int done;
    cr_assert_eq(dmsg_rr_test(&never, &done, NULL), DMSG_ERR_HANDLE);
    cr_assert_eq(dmsg_rr_wait(NULL, NULL), DMSG_ERR_NULL);
    cr_assert_eq(dmsg_free(dst), DMSG_OK);
}

Test(rr, bad_input)
{
    double src[4] = {0}, local[4];
    double *dst = sym(4);
    dmsg_rr_req r;
    memset(&r, 0x3C, sizeof r);
    dmsg_rr_req before = r;
    dmsg_layout bad = {.ndims = 0};
    dmsg_layout overlap = {.ndims = 2, .count = {4, 2}, .stride = {8, 8}};
    dmsg_layout ok = {.ndims = 1, .count = {4}, .stride = {8}};
    cr_assert_eq(dmsg_rr_isend(1, 0, src, 8, &r), DMSG_ERR_PE);
    cr_assert_eq(dmsg_rr_isend(-1, 0, src, 8, &r), DMSG_ERR_PE);
    cr_assert_eq(dmsg_rr_isend(0, -1, src, 8, &r), DMSG_ERR_ARG);
    cr_assert_eq(dmsg_rr_isend(0, 0, NULL, 8, &r), DMSG_ERR_NULL);
    cr_assert_eq(dmsg_rr_isend(0, 0, src, 8, NULL), DMSG_ERR_NULL);
    cr_assert_eq(dmsg_rr_isend_section(0, 0, src, &bad, 8, &r), DMSG_ERR_ARG);
    cr_assert_eq(dmsg_rr_isend_section(0, 0, src, &ok, 0, &r), DMSG_ERR_ARG);
    cr_assert_eq(dmsg_rr_isend_section(0, 0, src, NULL, 8, &r), DMSG_ERR_NULL);
    cr_assert_eq(dmsg_rr_isend_gathered(0, 0, src, NULL, 1, 8, &r), DMSG_ERR_NULL);
    cr_assert_eq(dmsg_rr_isend_gathered(0, 0, src, (size_t[]){0}, SIZE_MAX, 8, &r),
                 DMSG_ERR_OVERFLOW);
    cr_assert_eq(dmsg_rr_irecv(0, 0, local, 32, &r), DMSG_ERR_RANGE, "not symmetric");
    cr_assert_eq(dmsg_rr_irecv(0, 0, dst, dmsg_segment_size(), &r), DMSG_ERR_RANGE);
    cr_assert_eq(dmsg_rr_irecv(3, 0, dst, 8, &r), DMSG_ERR_PE);
    cr_assert_eq(dmsg_rr_irecv(0, -2, dst, 8, &r), DMSG_ERR_ARG);
    cr_assert_eq(dmsg_rr_irecv(0, 0, NULL, 8, &r), DMSG_ERR_NULL);
    cr_assert_eq(dmsg_rr_irecv_section(0, 0, dst, &overlap, 8, &r), DMSG_ERR_ARG);
    cr_assert_eq(dmsg_rr_irecv_section(0, 0, dst, &bad, 8, &r), DMSG_ERR_ARG);
    cr_assert_eq(dmsg_rr_waitall(-1, &r, NULL), DMSG_ERR_ARG);
    cr_assert_eq(dmsg_rr_waitall(1, NULL, NULL), DMSG_ERR_NULL);
    cr_assert_eq(memcmp(&r, &before, sizeof r), 0, "a failed start touched the request");
    dmsg_rr_stats st;
    cr_assert_eq(dmsg_rr_stats_get(&st), DMSG_OK);
    cr_assert_eq(st.control, 0u, "a failed start sent something");
    cr_assert_eq(dmsg_free(dst), DMSG_OK);
}

Test(rr, finalize_with_transfers)
{
    double a = 1;
    dmsg_rr_req r;
    cr_assert_eq(dmsg_rr_isend(0, 0, &a, 8, &r), DMSG_OK);
    cr_assert_eq(dmsg_rr_finalize(), DMSG_ERR_STATE);
    cr_assert_eq(dmsg_rr_init(), DMSG_ERR_STATE);
    double *dst = sym(1);
    cr_assert_eq(dmsg_rr_recv(0, 0, dst, 8, NULL), DMSG_OK);
    cr_assert_eq(dmsg_rr_wait(&r, NULL), DMSG_OK);
    cr_assert_eq(*dst, 1.0);
    cr_assert_eq(dmsg_free(dst), DMSG_OK);
}

/* A byte copy of a request is not the request: the engine completes the one
 * it started, so waiting for or testing a copy, made while the request was
 * active or after it was retired, is DMSG_ERR_HANDLE at once (as for
 * dmsg_req copies), never a wait without end. DMSG_TIMEOUT turns a hang
 * into a wrong status here. */
static void start_bounded(void)
{
    setenv("DMSG_TIMEOUT", "10", 1);
    start();
}

static void stop_bounded(void)
{
    stop();
    unsetenv("DMSG_TIMEOUT");
}

Test(rr_copy, not_requests, .init = start_bounded, .fini = stop_bounded, .timeout = 120)
{
    double src[2] = {3.5, -1}, *dst = sym(2);
    dst[0] = dst[1] = 0;
    dmsg_rr_req r, s;
    int done = 7;
    cr_assert_eq(dmsg_rr_irecv(0, 9, dst, 16, &r), DMSG_OK);
    dmsg_rr_req rc = r; /* an active receive's copy */
    cr_assert_eq(dmsg_rr_wait(&rc, NULL), DMSG_ERR_HANDLE, "active receive's copy");
    cr_assert_eq(dmsg_rr_test(&rc, &done, NULL), DMSG_ERR_HANDLE);
    cr_assert_eq(done, 7, "a refused test set done");
    cr_assert_eq(dmsg_rr_waitall(1, &rc, NULL), DMSG_ERR_HANDLE);
    /* starting a transfer in a request still in progress changes nothing */
    dmsg_rr_req keep = r;
    cr_assert_eq(dmsg_rr_irecv(0, 9, dst, 16, &r), DMSG_ERR_HANDLE);
    cr_assert_eq(dmsg_rr_isend(0, 9, src, 8, &r), DMSG_ERR_HANDLE);
    cr_assert_eq(memcmp(&r, &keep, sizeof r), 0, "a refused start touched the request");
    cr_assert_eq(dmsg_rr_isend(0, 9, src, 16, &s), DMSG_OK);
    dmsg_rr_req sc = s; /* an active send's copy (waiting for its response) */
    cr_assert_eq(dmsg_rr_wait(&sc, NULL), DMSG_ERR_HANDLE, "active send's copy");
    cr_assert_eq(dmsg_rr_test(&sc, &done, NULL), DMSG_ERR_HANDLE);
    /* the originals complete */
    cr_assert_eq(dmsg_rr_wait(&s, NULL), DMSG_OK);
    dmsg_rr_info info;
    cr_assert_eq(dmsg_rr_wait(&r, &info), DMSG_OK);
    cr_assert(dst[0] == 3.5 && dst[1] == -1 && info.bytes == 16);
    /* copies made while active, and copies of retired requests */
    dmsg_rr_req rc2 = r, sc2 = s;
    dmsg_rr_req *all[] = {&rc, &sc, &rc2, &sc2, &r, &s};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        cr_assert_eq(dmsg_rr_wait(all[i], NULL), DMSG_ERR_HANDLE, "retired copy %zu", i);
        cr_assert_eq(dmsg_rr_test(all[i], &done, NULL), DMSG_ERR_HANDLE, "retired copy %zu", i);
    }
    /* the storage of a retired request takes a new transfer */
    cr_assert_eq(dmsg_rr_irecv(0, 10, dst, 16, &r), DMSG_OK);
    cr_assert_eq(dmsg_rr_send(0, 10, src, 8), DMSG_OK);
    cr_assert_eq(dmsg_rr_wait(&r, NULL), DMSG_OK);
    cr_assert_eq(dmsg_free(dst), DMSG_OK);
}
