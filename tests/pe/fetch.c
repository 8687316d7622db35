/* Fetches (remote loads): contiguous, section and indexed, blocking and
 * non-blocking (test loop, wait, several requests in flight), and the request
 * handle rules (a retired or never started handle is DMSG_ERR_HANDLE).
 * Every PE exposes its own pattern in symmetric memory, syncs, then reads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pe.h"

#define PAD 64
#define EXPOSED (((size_t)1 << 20) + 64) /* bytes each PE exposes */

/* Allocates the exposed buffer and fills it with this PE's pattern. */
static char *expose(size_t bytes, uint32_t salt)
{
    char *p = pe_alloc(bytes);
    if (p != NULL)
        pe_fill(p, bytes, pe_me(), salt);
    return p;
}

/* A local buffer of `bytes` between two guards; returns the data start. */
static char *guarded(size_t bytes)
{
    char *b = malloc(bytes + 2 * PAD);
    if (b == NULL)
        return NULL;
    memset(b, PE_GUARD, bytes + 2 * PAD);
    return b + PAD;
}

static int check_guards(const char *data, size_t bytes, const char *what)
{
    char msg[128];
    snprintf(msg, sizeof msg, "%s: guard before", what);
    PE_TRY(pe_check_bytes(data - PAD, PAD, PE_GUARD, msg));
    snprintf(msg, sizeof msg, "%s: guard after", what);
    PE_TRY(pe_check_bytes(data + bytes, PAD, PE_GUARD, msg));
    return 0;
}

static int fetch_contig(void)
{
    static const size_t sizes[] = {0, 1, 7, 4101, (size_t)1 << 20};
    static const size_t offs[] = {0, 5, 64};
    const uint32_t salt = 11000;
    char *exp = expose(EXPOSED, salt);
    PE_CHECK(exp != NULL, "alloc failed");
    char *want = malloc(EXPOSED);
    char *dst = guarded((size_t)1 << 20);
    PE_CHECK(want != NULL && dst != NULL, "malloc failed");
    PE_OK(dmsg_sync()); /* clearance: every PE's data is in place */

    for (int k = 0; k < pe_n(); k++) {
        int from = pe_up(k);
        pe_fill(want, EXPOSED, from, salt);
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            for (size_t o = 0; o < sizeof offs / sizeof offs[0]; o++) {
                memset(dst - PAD, PE_GUARD, sizes[s] + 2 * PAD);
                PE_OK(dmsg_fetch(dst, exp + offs[o], sizes[s], from));
                char what[96];
                snprintf(what, sizeof what, "fetch of %zu bytes at offset %zu from PE %d",
                         sizes[s], offs[o], from);
                PE_TRY(pe_check_equal(dst, want + offs[o], sizes[s], what));
                PE_TRY(check_guards(dst, sizes[s], what));
            }
        }
    }
    PE_OK(dmsg_free(exp)); /* starts with a barrier: nobody is still reading */
    free(want);
    free(dst - PAD);
    return 0;
}

/* Remote section sl (symmetric, at the next PE) into local section dl. */
static int fetch_section_one(const dmsg_layout *dl, const dmsg_layout *sl, size_t es,
                             uint32_t salt, const char *shape)
{
    size_t dorg, dbytes, sorg, sbytes;
    pe_layout_extent(dl, es, &dorg, &dbytes);
    pe_layout_extent(sl, es, &sorg, &sbytes);
    char *exp = expose(sbytes, salt);
    PE_CHECK(exp != NULL, "alloc failed");
    char *dst = guarded(dbytes);
    char *img = guarded(dbytes);
    char *src = malloc(sbytes);
    PE_CHECK(dst != NULL && img != NULL && src != NULL, "malloc failed");
    PE_OK(dmsg_sync());

    int from = pe_up(1);
    PE_OK(dmsg_fetch_section(dst + dorg, dl, exp + sorg, sl, es, from));
    pe_fill(src, sbytes, from, salt);
    pe_ref_section(img + dorg, dl, src + sorg, sl, es);
    char what[96];
    snprintf(what, sizeof what, "%s fetch, elem size %zu, from PE %d", shape, es, from);
    PE_TRY(pe_check_equal(dst - PAD, img - PAD, dbytes + 2 * PAD, what));

    PE_OK(dmsg_free(exp));
    free(dst - PAD);
    free(img - PAD);
    free(src);
    return 0;
}

static int fetch_section(void)
{
    static const size_t es_list[] = {1, 3, 8, 16};
    uint32_t salt = 12000;
    for (size_t i = 0; i < sizeof es_list / sizeof es_list[0]; i++) {
        size_t es = es_list[i];
        ptrdiff_t e = (ptrdiff_t)es;
        dmsg_layout dl, sl;

        sl = pe_l2(13, e, 9, 20 * e); /* remote 2-D block into a contiguous buffer */
        dl = pe_l1(13 * 9, e);
        PE_TRY(fetch_section_one(&dl, &sl, es, salt++, "2-D block"));

        sl = pe_l2(24, e, 17, 24 * e); /* transpose on the way in */
        dl = pe_l2(24, 17 * e, 17, e);
        PE_TRY(fetch_section_one(&dl, &sl, es, salt++, "transpose"));

        sl = pe_l1(50, -3 * e); /* remote reversed and strided */
        dl = pe_l1(50, 2 * e);
        PE_TRY(fetch_section_one(&dl, &sl, es, salt++, "negative remote stride"));

        sl = pe_l3(4, e, 5, 6 * e, 3, 40 * e); /* 3-D remote into a 2-D local shape */
        dl = pe_l2(10, e, 6, 11 * e);
        PE_TRY(fetch_section_one(&dl, &sl, es, salt++, "3-D to 2-D"));

        /* Short rows far apart: over ofi read piece by piece, not as one
         * read of their span, which is mostly gaps (the others above are
         * compact: one read of the span, copied out locally). */
        sl = pe_l2(3, e, 7, 90 * e);
        dl = pe_l1(21, e);
        PE_TRY(fetch_section_one(&dl, &sl, es, salt++, "sparse rows"));
    }
    return 0;
}

static int fetch_indexed(void)
{
    enum { ELEMS = 1000, N = 333 };
    static const size_t es_list[] = {1, 3, 8, 16};
    uint32_t salt = 13000;
    for (size_t i = 0; i < sizeof es_list / sizeof es_list[0]; i++, salt++) {
        size_t es = es_list[i];
        char *exp = expose(ELEMS * es, salt);
        PE_CHECK(exp != NULL, "alloc failed");
        char *dst = guarded(N * es);
        char *want = guarded(N * es);
        char *src = malloc(ELEMS * es);
        size_t idx[N];
        PE_CHECK(dst != NULL && want != NULL && src != NULL, "malloc failed");
        for (size_t k = 0; k < N; k++)
            idx[k] = (k * 7 + k * k) % ELEMS; /* any order, repeats allowed */
        PE_OK(dmsg_sync());

        int from = pe_up(1);
        PE_OK(dmsg_fetch_indexed(dst, exp, idx, N, es, from));
        pe_fill(src, ELEMS * es, from, salt);
        for (size_t k = 0; k < N; k++)
            memcpy(want + k * es, src + idx[k] * es, es);
        char what[96];
        snprintf(what, sizeof what, "indexed fetch, elem size %zu, from PE %d", es, from);
        PE_TRY(pe_check_equal(dst - PAD, want - PAD, N * es + 2 * PAD, what));
        PE_OK(dmsg_free(exp));
        free(dst - PAD);
        free(want - PAD);
        free(src);
    }
    return 0;
}

/* Polls dmsg_test until the request completes (bounded, never hangs). */
static int test_until_done(dmsg_req *req, const char *what)
{
    double t0 = pe_now();
    long polls = 0;
    for (;;) {
        int done = -1;
        int st = dmsg_test(req, &done);
        polls++;
        if (done == 1) {
            PE_CHECK(st == DMSG_OK, "%s: completed with %s", what, pe_status_name(st));
            return 0;
        }
        PE_CHECK(st == DMSG_OK && done == 0,
                 "%s: dmsg_test: expected DMSG_OK and done 0/1 got %s, done %d", what,
                 pe_status_name(st), done);
        PE_CHECK(pe_now() - t0 < 20.0, "%s: not complete after %ld dmsg_test calls (20 s)", what,
                 polls);
    }
}

enum { NB_BYTES = 64 * 1024, NB_REQS = 8 };

static int nb_basic(const char *exp, char *want, char *dst, int from)
{
    dmsg_req req;
    memset(&req, 0, sizeof req);
    /* nb + test loop */
    memset(dst, 0, NB_BYTES);
    PE_OK(dmsg_fetch_nb(dst, exp, NB_BYTES, from, &req));
    PE_TRY(test_until_done(&req, "fetch_nb + test"));
    PE_TRY(pe_check_equal(dst, want, NB_BYTES, "fetch_nb + test data"));
    int done = 7;
    PE_EXPECT(dmsg_test(&req, &done), DMSG_ERR_HANDLE);
    PE_CHECK(done == 7, "dmsg_test on a retired handle changed *done to %d", done);
    PE_EXPECT(dmsg_wait(&req), DMSG_ERR_HANDLE);

    /* nb + wait */
    memset(dst, 0, NB_BYTES);
    PE_OK(dmsg_fetch_nb(dst, exp + 1, NB_BYTES - 1, from, &req));
    PE_OK(dmsg_wait(&req));
    PE_TRY(pe_check_equal(dst, want + 1, NB_BYTES - 1, "fetch_nb + wait data"));
    PE_EXPECT(dmsg_wait(&req), DMSG_ERR_HANDLE);
    PE_EXPECT(dmsg_test(&req, &done), DMSG_ERR_HANDLE);

    /* NULL arguments to test: the request stays live and is waited after. */
    PE_OK(dmsg_fetch_nb(dst, exp, 64, from, &req));
    PE_EXPECT(dmsg_test(&req, NULL), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_test(NULL, &done), DMSG_ERR_NULL);
    PE_OK(dmsg_wait(&req));
    PE_TRY(pe_check_equal(dst, want, 64, "fetch_nb after dmsg_test(NULL) data"));
    return 0;
}

/* Several requests in flight at once, completed in reverse order. */
static int nb_many(const char *exp, char *want_buf, char *dst, uint32_t salt)
{
    dmsg_req reqs[NB_REQS];
    const size_t chunk = NB_BYTES / NB_REQS;
    memset(reqs, 0, sizeof reqs);
    memset(dst, 0, NB_BYTES);
    for (int r = 0; r < NB_REQS; r++)
        PE_OK(dmsg_fetch_nb(dst + (size_t)r * chunk, exp + (size_t)r * chunk, chunk, pe_up(r),
                            &reqs[r]));
    for (int r = NB_REQS - 1; r >= 0; r--) {
        if (r % 2)
            PE_OK(dmsg_wait(&reqs[r]));
        else
            PE_TRY(test_until_done(&reqs[r], "one of several fetch_nb"));
    }
    for (int r = 0; r < NB_REQS; r++) {
        char what[64];
        snprintf(what, sizeof what, "request %d of %d (from PE %d)", r, NB_REQS, pe_up(r));
        pe_fill(want_buf, NB_BYTES, pe_up(r), salt);
        PE_TRY(pe_check_equal(dst + (size_t)r * chunk, want_buf + (size_t)r * chunk, chunk, what));
    }
    return 0;
}

/* Section and indexed nb forms; complete after dmsg_quiet, then waited. */
static int nb_quiet(const char *exp, char *want, char *dst, int from)
{
    dmsg_req rs, ri;
    memset(&rs, 0, sizeof rs);
    memset(&ri, 0, sizeof ri);
    dmsg_layout sl = pe_l2(16, 1, 32, 64); /* 16 of every 64 bytes */
    dmsg_layout dl = pe_l1(16 * 32, 1);
    size_t idx[100];
    for (size_t i = 0; i < 100; i++)
        idx[i] = (i * 31) % 1000;
    char *dsec = dst, *didx = dst + 4096;
    memset(dst, 0, 8192);
    PE_OK(dmsg_fetch_section_nb(dsec, &dl, exp, &sl, 1, from, &rs));
    PE_OK(dmsg_fetch_indexed_nb(didx, exp, idx, 100, 8, from, &ri));
    PE_OK(dmsg_quiet());
    char sec_want[16 * 32], idx_want[800];
    pe_ref_section(sec_want, &dl, want, &sl, 1);
    for (size_t i = 0; i < 100; i++)
        memcpy(idx_want + i * 8, want + idx[i] * 8, 8);
    PE_TRY(pe_check_equal(dsec, sec_want, sizeof sec_want, "fetch_section_nb after quiet"));
    PE_TRY(pe_check_equal(didx, idx_want, sizeof idx_want, "fetch_indexed_nb after quiet"));
    PE_OK(dmsg_wait(&ri));
    PE_OK(dmsg_wait(&rs));
    return 0;
}

static int fetch_nb(void)
{
    const uint32_t salt = 14000;
    char *exp = expose(NB_BYTES, salt);
    PE_CHECK(exp != NULL, "alloc failed");
    char *want = malloc(NB_BYTES);
    char *dst = malloc(NB_BYTES);
    PE_CHECK(want != NULL && dst != NULL, "malloc failed");
    PE_OK(dmsg_sync());
    int from = pe_up(1);
    pe_fill(want, NB_BYTES, from, salt);

    PE_TRY(nb_basic(exp, want, dst, from));
    PE_TRY(nb_many(exp, want, dst, salt));
    pe_fill(want, NB_BYTES, from, salt);
    PE_TRY(nb_quiet(exp, want, dst, from));

    /* A handle that was never started, and one whose start failed. */
    dmsg_req req;
    memset(&req, 0, sizeof req);
    PE_EXPECT(dmsg_wait(&req), DMSG_ERR_HANDLE);
    PE_EXPECT(dmsg_fetch_nb(dst, exp, 8, -1, &req), DMSG_ERR_PE);
    PE_EXPECT(dmsg_wait(&req), DMSG_ERR_HANDLE);
    int done = 7;
    PE_EXPECT(dmsg_test(&req, &done), DMSG_ERR_HANDLE);
    PE_EXPECT(dmsg_fetch_nb(dst, exp, 8, from, NULL), DMSG_ERR_NULL);

    PE_OK(dmsg_free(exp));
    free(want);
    free(dst);
    return 0;
}

/* dmsg_req is the caller's storage, so programs copy it. Once the original
 * or any copy has been waited or tested to completion, every copy is
 * retired: DMSG_ERR_HANDLE on every transport, never a second completion
 * (over ofi a copy used to read the freed request and stall 60 s). */
static int fetch_req_copies(void)
{
    int64_t *src, got[4];
    PE_OK(dmsg_alloc(4 * sizeof *src, (void **)&src));
    for (int i = 0; i < 4; i++)
        src[i] = 1000 * pe_me() + i;
    PE_OK(dmsg_sync());
    int from = pe_up(1), done = 5;
    dmsg_req req, copy, copy2;
    memset(&req, 0, sizeof req);
    /* The original is waited; the copy made before that is retired too. */
    PE_OK(dmsg_fetch_nb(got, src, sizeof got, from, &req));
    copy = req;
    PE_OK(dmsg_wait(&req));
    PE_CHECK(got[3] == 1000 * from + 3, "fetched %lld", (long long)got[3]);
    PE_EXPECT(dmsg_wait(&copy), DMSG_ERR_HANDLE);
    PE_EXPECT(dmsg_test(&copy, &done), DMSG_ERR_HANDLE);
    PE_CHECK(done == 5, "dmsg_test on a retired copy changed *done to %d", done);
    /* A copy made after the wait (the usual slip) is retired as well. */
    copy2 = req;
    PE_EXPECT(dmsg_wait(&copy2), DMSG_ERR_HANDLE);
    /* The copy is waited first; then the original is the stale one. */
    PE_OK(dmsg_fetch_nb(got, src, sizeof got, from, &req));
    copy = req;
    PE_OK(dmsg_wait(&copy));
    PE_EXPECT(dmsg_wait(&req), DMSG_ERR_HANDLE);
    /* Many live requests at once, each retired exactly once. */
    enum { MANY = 100 };
    static dmsg_req reqs[MANY], copies[MANY];
    int64_t buf[MANY];
    for (int i = 0; i < MANY; i++) {
        PE_OK(dmsg_fetch_nb(&buf[i], &src[i % 4], sizeof buf[i], from, &reqs[i]));
        copies[i] = reqs[i];
    }
    for (int i = MANY - 1; i >= 0; i--)
        PE_OK(dmsg_wait(i % 2 ? &reqs[i] : &copies[i]));
    for (int i = 0; i < MANY; i++) {
        PE_EXPECT(dmsg_wait(&reqs[i]), DMSG_ERR_HANDLE);
        PE_EXPECT(dmsg_wait(&copies[i]), DMSG_ERR_HANDLE);
        PE_CHECK(buf[i] == 1000 * from + i % 4, "request %d fetched %lld", i, (long long)buf[i]);
    }
    PE_OK(dmsg_sync());
    PE_OK(dmsg_free(src));
    return 0;
}

const pe_case pe_fetch_cases[] = {
    {"fetch_req_copies", fetch_req_copies, 0},
    {"fetch_contig", fetch_contig, 0},
    {"fetch_section", fetch_section, 0},
    {"fetch_indexed", fetch_indexed, 0},
    {"fetch_nb", fetch_nb, 0},
    {NULL, NULL, 0},
};
