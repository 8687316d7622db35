/* Irregular scatters (dmsg_iplan_create_scatter): dst(idx[i]) = src[i] with
 * random index lists of different lengths per PE, repeated indices within
 * and across PEs, by every mechanism, executed twice with new values in
 * between and compared with a serial evaluation of every PE's list; the
 * model's choice on the simulated T3D and Paragon against the faster
 * mechanism measured there; and the errors, which change nothing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dmsg_plan.h"
#include "pe.h"
#include "tests/plan_rand.h"

#define BEFORE 3 /* salt of dst's values before the scatter */

/* PE p's index list (any PE can compute any PE's): lengths differ, about a
 * third of the entries repeat an earlier one. */
static size_t index_list(int p, int salt, size_t total, size_t *idx)
{
    size_t n = 30 + (37 * (size_t)p + 11 * (size_t)salt) % 90;
    prand r = {(uint64_t)p * 7919 + (uint64_t)salt * 31 + 1};
    for (size_t i = 0; i < n; i++)
        idx[i] = i > 2 && prand_range(&r, 0, 2) == 0 ? idx[prand_range(&r, 0, (long)i - 1)]
                                                     : (size_t)prand_range(&r, 0, (long)total - 1);
    return n;
}

/* The value PE p scatters from position i: unique per (p, i, salt). */
static unsigned char value(int p, size_t i, size_t j, uint32_t salt)
{
    return prand_byte(salt, (size_t)p * 4096 + i, j);
}

/* Every element this PE owns against the serial evaluation: untouched if
 * no PE names it; else the value of the last entry naming it in the list of
 * the highest ranked PE that names it. salt_list < 0: no lists (all
 * untouched). */
static int check_owned(const dmsg_darray *a, int salt_list, uint32_t salt_val, int mech)
{
    size_t total = a->desc.extent[0] * a->desc.extent[1], e = a->desc.elem_size;
    size_t g[DMSG_MAX_DIMS], *idx = malloc(256 * sizeof *idx);
    long *last = malloc((size_t)pe_n() * total * sizeof *last); /* [p][lin]: last i, or -1 */
    PE_CHECK(idx != NULL && last != NULL, "out of memory");
    for (size_t k = 0; k < (size_t)pe_n() * total; k++)
        last[k] = -1;
    for (int p = 0; salt_list >= 0 && p < pe_n(); p++) {
        size_t n = index_list(p, salt_list, total, idx);
        for (size_t i = 0; i < n; i++)
            last[(size_t)p * total + idx[i]] = (long)i;
    }
    for (size_t lin = 0; lin < total; lin++) {
        int pe;
        size_t off;
        prand_unlinear(a, lin, g);
        PE_OK(dmsg_darray_locate(a, g, &pe, &off));
        if (pe != pe_me()) continue;
        const unsigned char *got = (const unsigned char *)a->base + off;
        int named = 0, match = 0;
        for (int p = pe_n() - 1; p >= 0 && !named; p--) {
            long i = last[(size_t)p * total + lin];
            if (i < 0) continue;
            named = 1;
            match = 1;
            for (size_t j = 0; j < e; j++)
                match &= got[j] == value(p, (size_t)i, j, salt_val);
        }
        if (!named) {
            match = 1;
            for (size_t j = 0; j < e; j++)
                match &= got[j] == prand_byte(BEFORE, lin, j);
        }
        PE_CHECK(match, "mech %d: element %zu (%s) is not the highest ranked PE's value", mech,
                 lin, named ? "named" : "not named, must be untouched");
    }
    free(last);
    free(idx);
    return 0;
}

static int fill_src(unsigned char *src, size_t n, size_t e, uint32_t salt)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < e; j++)
            src[i * e + j] = value(pe_me(), i, j, salt);
    return 0;
}

static int iplan_scatter(void)
{
    static const int mechs[] = {DMSG_IPLAN_INDEXED, DMSG_IPLAN_ADP, DMSG_IPLAN_FETCH,
                                DMSG_IPLAN_MODEL};
    static const size_t elems[] = {8, 4, 16, 8};
    for (int m = 0; m < 4; m++) {
        size_t e = elems[m], total = 23 * 17, idx[256];
        dmsg_darray dst;
        PE_TRY(pe_iplan_array(&dst, e));
        unsigned char *src;
        PE_OK(dmsg_alloc(256 * e, (void **)&src));
        int salt_list = m + 1;
        size_t n = index_list(pe_me(), salt_list, total, idx);
        PE_TRY(pe_iplan_fill(&dst, BEFORE));
        PE_TRY(fill_src(src, n, e, 10));
        dmsg_iplan *ip;
        PE_OK(dmsg_iplan_create_scatter(&dst, idx, n, src, mechs[m], &ip));
        PE_OK(dmsg_iplan_execute(ip));
        PE_OK(dmsg_sync()); /* every PE's deposits have landed */
        PE_TRY(check_owned(&dst, salt_list, 10, mechs[m]));
        /* Reuse with new values (src may change between executions). */
        PE_TRY(pe_iplan_fill(&dst, BEFORE));
        PE_TRY(fill_src(src, n, e, 20));
        PE_OK(dmsg_iplan_execute(ip));
        PE_OK(dmsg_sync());
        PE_TRY(check_owned(&dst, salt_list, 20, mechs[m]));
        dmsg_iplan_info info;
        PE_OK(dmsg_iplan_get_info(ip, &info));
        PE_CHECK(info.executions == 2 && info.mech == mechs[m], "info");
        PE_CHECK(info.fetches == (mechs[m] == DMSG_IPLAN_FETCH) ||
                     (mechs[m] == DMSG_IPLAN_MODEL && strcmp(dmsg_transport_name(), "sim") == 0),
                 "mech %d fetches %d", mechs[m], info.fetches);
        PE_OK(dmsg_iplan_destroy(ip));
        PE_OK(dmsg_free(src));
        PE_OK(dmsg_darray_free(&dst));
    }
    return 0;
}

/* On sim: the model's choice is the faster of deposit and fetch by the
 * simulator's clock, for a few list shapes; and somewhere they differ. */
static int iplan_scatter_model_sim(void)
{
    PE_CHECK(strcmp(dmsg_transport_name(), "sim") == 0, "run on the sim transport");
    static const size_t lens[] = {4, 64, 2000};
    size_t total = 23 * 17 * 16;
    dmsg_darray dst;
    dmsg_darray_desc d = {.ndims = 1,
                          .extent = {total},
                          .elem_size = 8,
                          .grid_ndims = 1,
                          .grid = {pe_n()},
                          .dist = {DMSG_DIST_CYCLIC},
                          .block = {5}};
    PE_OK(dmsg_darray_init(&dst, &d));
    PE_OK(dmsg_darray_alloc(&dst));
    size_t *idx = malloc(2000 * sizeof *idx);
    unsigned char *src;
    PE_OK(dmsg_alloc(2000 * 8, (void **)&src));
    PE_CHECK(idx != NULL, "out of memory");
    int differ = 0;
    for (size_t c = 0; c < sizeof lens / sizeof lens[0]; c++) {
        prand r = {(uint64_t)pe_me() * 13 + c};
        for (size_t i = 0; i < lens[c]; i++)
            idx[i] = (size_t)prand_range(&r, 0, (long)total - 1);
        double t[3], te[3];
        static const int mech[3] = {DMSG_IPLAN_INDEXED, DMSG_IPLAN_FETCH, DMSG_IPLAN_MODEL};
        dmsg_iplan_info info;
        for (int k = 0; k < 3; k++) {
            dmsg_iplan *ip;
            PE_OK(dmsg_iplan_create_scatter(&dst, idx, lens[c], src, mech[k], &ip));
            PE_OK(dmsg_sync());
            double t0 = dmsg_wtime();
            PE_OK(dmsg_iplan_execute(ip));
            double t1 = dmsg_wtime() - t0, slowest;
            PE_OK(dmsg_sync());
            t[k] = dmsg_wtime() - t0;
            /* One execution on the slowest PE: what the model predicts. */
            PE_OK(dmsg_allreduce(DMSG_TEAM_WORLD, &slowest, &t1, 1, DMSG_TYPE_DOUBLE, DMSG_OP_MAX));
            te[k] = slowest;
            if (k == 2) PE_OK(dmsg_iplan_get_info(ip, &info));
            PE_OK(dmsg_iplan_destroy(ip));
        }
        double best = t[0] < t[1] ? t[0] : t[1];
        PE_CHECK(info.model_deposit_s > 0 && info.model_fetch_s > 0, "no prediction");
        if (getenv("PLAN_MODEL_VERBOSE") && pe_me() == 0)
            printf("%5zu elements: deposit %.3g s, fetch %.3g s; one execution %.3g, %.3g; "
                   "predicted %.3g, %.3g: %s\n",
                   lens[c], t[0], t[1], te[0], te[1], info.model_deposit_s, info.model_fetch_s,
                   info.fetches ? "fetch" : "deposit");
        /* The predictions are of one execution on the slowest PE, and the
         * simulator's clock is the model's machine: they must agree (they
         * were one barrier short, 1 us on the T3D at 4 PEs, 120 us on the
         * Paragon, before the model counted execute's opening barrier). */
        for (int k = 0; k < 2; k++) {
            double pred = k ? info.model_fetch_s : info.model_deposit_s;
            PE_CHECK(fabs(pred - te[k]) <= 0.1 * te[k],
                     "%zu elements: predicted %s %.3g s, one execution took %.3g s", lens[c],
                     k ? "fetch" : "deposit", pred, te[k]);
        }
        /* Within 5% the two are a tie the model may call either way (it
         * leaves out the barriers both pay); beyond, it must pick the faster. */
        differ += t[0] > 1.05 * t[1] || t[1] > 1.05 * t[0];
        PE_CHECK(t[2] <= best * 1.05,
                 "%zu elements per PE: the model's choice (%s; predicted deposit %.3g s, fetch "
                 "%.3g s) took %.3g s; deposit %.3g s, fetch %.3g s",
                 lens[c], info.fetches ? "fetch" : "deposit", info.model_deposit_s,
                 info.model_fetch_s, t[2], t[0], t[1]);
    }
    PE_CHECK(differ > 0, "no list where deposit and fetch differ: the check is void");
    free(idx);
    PE_OK(dmsg_free(src));
    PE_OK(dmsg_darray_free(&dst));
    return 0;
}

/* Wide elements (512 bytes, wider than any store) that several PEs name:
 * each must hold the whole value of the highest ranked PE naming it (the
 * plan resolves the duplicates when it is made), for every mechanism that
 * takes them, with nothing torn and, under DMSG_CHECK=1, nothing reported
 * as a race. PE p names target 10 k (k < 400) unless (k + p) % 4 == 0. */
static int iplan_scatter_wide(void)
{
    enum { TOTAL = 4096, K = 400, E = 512 };
    static const int mechs[] = {DMSG_IPLAN_INDEXED, DMSG_IPLAN_FETCH, DMSG_IPLAN_MODEL};
    dmsg_darray dst;
    dmsg_darray_desc d = {.ndims = 1,
                          .extent = {TOTAL},
                          .elem_size = E,
                          .grid_ndims = 1,
                          .grid = {pe_n()},
                          .dist = {DMSG_DIST_BLOCK}};
    PE_OK(dmsg_darray_init(&dst, &d));
    PE_OK(dmsg_darray_alloc(&dst));
    unsigned char *src;
    size_t idx[K], n = 0;
    PE_OK(dmsg_alloc(K * E, (void **)&src));
    for (size_t k = 0; k < K; k++)
        if ((k + (size_t)pe_me()) % 4 != 0) idx[n++] = 10 * k;
    for (int m = 0; m < 3; m++) {
        dmsg_iplan *ip;
        PE_OK(dmsg_iplan_create_scatter(&dst, idx, n, src, mechs[m], &ip));
        for (uint32_t salt = 30; salt < 33; salt++) {
            memset(dst.base, 0, dst.bytes);
            for (size_t i = 0; i < n; i++)
                for (size_t j = 0; j < E; j++)
                    src[i * E + j] = value(pe_me(), idx[i], j, salt);
            PE_OK(dmsg_iplan_execute(ip));
            PE_OK(dmsg_sync());
            for (size_t k = 0; k < K; k++) {
                size_t g = 10 * k, off;
                int owner, top = pe_n() - 1;
                PE_OK(dmsg_darray_locate(&dst, &g, &owner, &off));
                if (owner != pe_me()) continue;
                while (top >= 0 && (k + (size_t)top) % 4 == 0)
                    top--;
                const unsigned char *got = (const unsigned char *)dst.base + off;
                for (size_t j = 0; j < E; j++) {
                    unsigned char want = top < 0 ? 0 : value(top, g, j, salt);
                    PE_CHECK(got[j] == want,
                             "mech %d: element %zu byte %zu is %u, not %u (PE %d's value)",
                             mechs[m], g, j, got[j], want, top);
                }
            }
            PE_OK(dmsg_sync()); /* every PE has checked before dst is cleared */
        }
        PE_OK(dmsg_iplan_destroy(ip));
    }
    PE_OK(dmsg_free(src));
    PE_OK(dmsg_darray_free(&dst));
    return 0;
}

static int iplan_scatter_errors(void)
{
    dmsg_darray dst;
    PE_TRY(pe_iplan_array(&dst, 2));
    PE_TRY(pe_iplan_fill(&dst, BEFORE));
    unsigned char *src, local[64];
    PE_OK(dmsg_alloc(64, (void **)&src));
    size_t idx[4] = {0, 5, 390, 7};
    dmsg_iplan *ip = NULL;
    size_t bad[4] = {0, 5, pe_me() == pe_n() - 1 ? 23 * 17 : 9, 7};
    PE_EXPECT(dmsg_iplan_create_scatter(&dst, bad, 4, src, DMSG_IPLAN_INDEXED, &ip),
              DMSG_ERR_RANGE);
    PE_EXPECT(dmsg_iplan_create_scatter(&dst, idx, 4, local, DMSG_IPLAN_FETCH, &ip),
              DMSG_ERR_RANGE); /* fetch needs a symmetric src */
    PE_EXPECT(dmsg_iplan_create_scatter(&dst, idx, 4, src, 9, &ip), DMSG_ERR_ARG);
    PE_EXPECT(dmsg_iplan_create_scatter(&dst, idx, 4, src, DMSG_IPLAN_ADP, &ip), DMSG_ERR_ARG);
    PE_EXPECT(dmsg_iplan_create_scatter(NULL, idx, 4, src, DMSG_IPLAN_INDEXED, &ip), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_iplan_create_scatter(&dst, NULL, 4, src, DMSG_IPLAN_INDEXED, &ip),
              DMSG_ERR_NULL);
    PE_EXPECT(dmsg_iplan_create_scatter(&dst, idx, 4, NULL, DMSG_IPLAN_INDEXED, &ip),
              DMSG_ERR_NULL);
    dmsg_darray bare = dst;
    bare.base = NULL;
    PE_EXPECT(dmsg_iplan_create_scatter(&bare, idx, 4, src, DMSG_IPLAN_INDEXED, &ip), DMSG_ERR_ARG);
    setenv("DMSG_PLAN_MACHINE", "no-such-machine", 1);
    PE_EXPECT(dmsg_iplan_create_scatter(&dst, idx, 4, src, DMSG_IPLAN_MODEL, &ip), DMSG_ERR_ENV);
    unsetenv("DMSG_PLAN_MACHINE");
    /* The model mechanism is a scatter's: a gather refuses it. */
    PE_EXPECT(dmsg_iplan_create(&dst, idx, 4, src, DMSG_IPLAN_MODEL, &ip), DMSG_ERR_ARG);
    PE_CHECK(ip == NULL, "a failed create wrote its output");
    PE_OK(dmsg_sync());
    PE_TRY(check_owned(&dst, -1, 0, -1));
    /* A local src: the deposit mechanisms and the model (which then deposits) take it. */
    memset(local, 1, sizeof local);
    PE_OK(dmsg_iplan_create_scatter(&dst, idx, pe_me() % 2 ? 0 : 4, local, DMSG_IPLAN_MODEL, &ip));
    dmsg_iplan_info info;
    PE_OK(dmsg_iplan_get_info(ip, &info));
    PE_CHECK(!info.fetches, "fetches from a local src");
    PE_OK(dmsg_iplan_execute(ip));
    PE_OK(dmsg_iplan_destroy(ip));
    PE_OK(dmsg_free(src));
    PE_OK(dmsg_darray_free(&dst));
    return 0;
}

const pe_case pe_iscatter_cases[] = {
    {"iplan_scatter", iplan_scatter, 0},
    {"iplan_scatter_model_sim", iplan_scatter_model_sim, 0},
    {"iplan_scatter_errors", iplan_scatter_errors, 0},
    {"iplan_scatter_wide", iplan_scatter_wide, 0},
    {NULL, NULL, 0},
};
