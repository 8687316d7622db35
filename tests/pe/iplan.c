/* Irregular plans (dmsg_iplan_*): gathers dst[i] = src(idx[i]) with random
 * index lists of different lengths per PE, by every mechanism, executed
 * twice with the source changed in between; and their errors. */
#include <stdlib.h>
#include <string.h>
#include "dmsg_plan.h"
#include "pe.h"
#include "tests/plan_rand.h"

/* Writes the elements this PE owns of src from salt. */
int pe_iplan_fill(const dmsg_darray *a, uint32_t salt)
{
    size_t n = 1, g[DMSG_MAX_DIMS], e = a->desc.elem_size;
    for (int d = 0; d < a->desc.ndims; d++)
        n *= a->desc.extent[d];
    for (size_t lin = 0; lin < n; lin++) {
        int pe;
        size_t off;
        prand_unlinear(a, lin, g);
        PE_OK(dmsg_darray_locate(a, g, &pe, &off));
        if (pe == pe_me())
            for (size_t j = 0; j < e; j++)
                ((unsigned char *)a->base)[off + j] = prand_byte(salt, lin, j);
    }
    return 0;
}

static int check_dst(const unsigned char *dst, const size_t *idx, size_t n, size_t e, uint32_t salt,
                     int mech)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < e; j++)
            PE_CHECK(dst[i * e + j] == prand_byte(salt, idx[i], j),
                     "mech %d: dst[%zu] (src %zu) byte %zu wrong", mech, i, idx[i], j);
    return 0;
}

/* A 2-D source: (cyclic(3), block) on a grid of all PEs (2 x np/2 when even). */
int pe_iplan_array(dmsg_darray *a, size_t elem)
{
    int np = pe_n(), g0 = np % 2 == 0 ? 2 : 1;
    dmsg_darray_desc d = {.ndims = 2,
                          .extent = {23, 17},
                          .elem_size = elem,
                          .grid_ndims = 2,
                          .grid = {g0, np / g0},
                          .dist = {DMSG_DIST_CYCLIC, DMSG_DIST_BLOCK},
                          .block = {3, 0},
                          .onto = {0, 1},
                          .halo_lo = {1, 0},
                          .pad = {0, 1}};
    PE_OK(dmsg_darray_init(a, &d));
    PE_OK(dmsg_darray_alloc(a));
    return 0;
}

static int iplan_gather(void)
{
    static const size_t elems[] = {8, 4, 16};
    static const int mechs[] = {DMSG_IPLAN_INDEXED, DMSG_IPLAN_ADP, DMSG_IPLAN_FETCH};
    size_t total = 23 * 17, most = 200;
    for (int m = 0; m < 3; m++) {
        size_t e = elems[m];
        dmsg_darray src;
        PE_TRY(pe_iplan_array(&src, e));
        unsigned char *dst;
        PE_OK(dmsg_alloc(most * e, (void **)&dst));
        /* Lengths differ per PE; indices repeat and cover every owner. */
        size_t n = 50 + 37 * (size_t)pe_me() % 150;
        size_t *idx = malloc(n * sizeof *idx);
        PE_CHECK(idx != NULL, "out of memory");
        prand r = {(uint64_t)pe_me() * 977 + (uint64_t)m};
        for (size_t i = 0; i < n; i++)
            idx[i] = (size_t)prand_range(&r, 0, (long)total - 1);
        PE_TRY(pe_iplan_fill(&src, 1));
        dmsg_iplan *ip;
        PE_OK(dmsg_iplan_create(&src, idx, n, dst, mechs[m], &ip));
        PE_OK(dmsg_iplan_execute(ip));
        PE_TRY(check_dst(dst, idx, n, e, 1, mechs[m]));
        /* Reuse: new source values, the same plan. The owners write src
         * only after a barrier (every PE has read its dst above). */
        PE_OK(dmsg_sync());
        PE_TRY(pe_iplan_fill(&src, 7));
        PE_OK(dmsg_iplan_execute(ip));
        PE_TRY(check_dst(dst, idx, n, e, 7, mechs[m]));
        dmsg_iplan_info info;
        PE_OK(dmsg_iplan_get_info(ip, &info));
        PE_CHECK(info.executions == 2 && info.mech == mechs[m], "info");
        if (mechs[m] == DMSG_IPLAN_FETCH)
            PE_CHECK(info.elements == n, "fetched %llu of %zu", (unsigned long long)info.elements,
                     n);
        PE_OK(dmsg_iplan_destroy(ip));
        free(idx);
        PE_OK(dmsg_free(dst));
        PE_OK(dmsg_darray_free(&src));
    }
    PE_OK(dmsg_iplan_destroy(NULL));
    return 0;
}

static int iplan_errors(void)
{
    dmsg_darray src;
    PE_TRY(pe_iplan_array(&src, 2));
    unsigned char *dst;
    PE_OK(dmsg_alloc(64, (void **)&dst));
    memset(dst, 0x5a, 64);
    size_t idx[4] = {0, 5, 390, 7};
    dmsg_iplan *ip = NULL;
    /* An index outside src on one PE: every PE gets the error. */
    size_t bad[4] = {0, 5, pe_me() == pe_n() - 1 ? 23 * 17 : 9, 7};
    PE_EXPECT(dmsg_iplan_create(&src, bad, 4, dst, DMSG_IPLAN_INDEXED, &ip), DMSG_ERR_RANGE);
    PE_EXPECT(dmsg_iplan_create(&src, idx, 4, dst, 5, &ip), DMSG_ERR_ARG);
    PE_EXPECT(dmsg_iplan_create(&src, idx, 4, dst, DMSG_IPLAN_ADP, &ip), DMSG_ERR_ARG); /* 2-byte */
    unsigned char local[64];
    PE_EXPECT(dmsg_iplan_create(&src, idx, 4, local, DMSG_IPLAN_FETCH, &ip), DMSG_ERR_RANGE);
    PE_EXPECT(dmsg_iplan_create(&src, NULL, 4, dst, DMSG_IPLAN_FETCH, &ip), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_iplan_create(&src, idx, 4, dst, DMSG_IPLAN_FETCH, NULL), DMSG_ERR_NULL);
    PE_CHECK(ip == NULL, "a failed create wrote its output");
    PE_OK(dmsg_sync());
    for (int i = 0; i < 64; i++)
        PE_CHECK(dst[i] == 0x5a, "a failed create wrote dst");
    PE_EXPECT(dmsg_iplan_execute(NULL), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_iplan_get_info(NULL, NULL), DMSG_ERR_NULL);
    /* An empty list is fine. */
    PE_OK(dmsg_iplan_create(&src, idx, pe_me() % 2 ? 0 : 4, dst, DMSG_IPLAN_INDEXED, &ip));
    PE_OK(dmsg_iplan_execute(ip));
    PE_OK(dmsg_iplan_destroy(ip));
    PE_OK(dmsg_free(dst));
    PE_OK(dmsg_darray_free(&src));
    return 0;
}

/* PEs without elements pass NULL for the list and the buffer: gathers by
 * every mechanism and scatters by deposits and fetches still work for the
 * others (the odd PEs are empty; with one PE, PE 0 runs empty plans). */
static int iplan_empty(void)
{
    static const int mechs[] = {DMSG_IPLAN_INDEXED, DMSG_IPLAN_ADP, DMSG_IPLAN_FETCH};
    size_t total = 23 * 17, n = pe_n() == 1 || pe_me() % 2 ? 0 : 40, idx[40];
    for (size_t i = 0; i < 40; i++)
        idx[i] = (7 * i + 3 * (size_t)pe_me()) % total;
    for (int m = 0; m < 3; m++) {
        dmsg_darray src;
        PE_TRY(pe_iplan_array(&src, 8));
        PE_TRY(pe_iplan_fill(&src, 5));
        unsigned char *buf;
        PE_OK(dmsg_alloc(40 * 8, (void **)&buf));
        dmsg_iplan *ip;
        PE_OK(dmsg_iplan_create(&src, n ? idx : NULL, n, n ? buf : NULL, mechs[m], &ip));
        PE_OK(dmsg_iplan_execute(ip));
        PE_TRY(check_dst(buf, idx, n, 8, 5, mechs[m]));
        PE_OK(dmsg_iplan_destroy(ip));
        /* The scatter back (deposits or fetches): the values land where they came from. */
        if (mechs[m] != DMSG_IPLAN_ADP) {
            PE_OK(dmsg_sync());
            memset(src.base, 0, src.bytes);
            PE_OK(dmsg_iplan_create_scatter(&src, n ? idx : NULL, n, n ? buf : NULL, mechs[m],
                                            &ip));
            PE_OK(dmsg_iplan_execute(ip));
            PE_OK(dmsg_iplan_destroy(ip)); /* a barrier: every deposit has landed */
            /* My elements: the gathered value where an even PE names it, else 0. */
            for (size_t lin = 0; lin < total; lin++) {
                size_t g[2], off;
                int owner, named = 0;
                prand_unlinear(&src, lin, g);
                PE_OK(dmsg_darray_locate(&src, g, &owner, &off));
                if (owner != pe_me()) continue;
                for (int p = 0; p < pe_n() && pe_n() > 1; p += 2)
                    for (size_t i = 0; i < 40; i++)
                        named |= (7 * i + 3 * (size_t)p) % total == lin;
                const unsigned char *got = (const unsigned char *)src.base + off;
                for (size_t j = 0; j < 8; j++)
                    PE_CHECK(got[j] == (named ? prand_byte(5, lin, j) : 0),
                             "mech %d: element %zu byte %zu after the scatter back", mechs[m],
                             lin, j);
            }
        }
        PE_OK(dmsg_free(buf));
        PE_OK(dmsg_darray_free(&src));
    }
    return 0;
}

/* A destroyed plan's handle: every use returns DMSG_ERR_HANDLE (no use
 * after free), a second destroy too, on every PE alike. */
static int iplan_stale(void)
{
    static const int mechs[] = {DMSG_IPLAN_INDEXED, DMSG_IPLAN_FETCH};
    dmsg_darray src;
    PE_TRY(pe_iplan_array(&src, 8));
    unsigned char *buf;
    PE_OK(dmsg_alloc(4 * 8, (void **)&buf));
    size_t idx[4] = {0, 5, 390, 7};
    for (int m = 0; m < 2; m++) {
        dmsg_iplan *ip, *sc;
        PE_OK(dmsg_iplan_create(&src, idx, 4, buf, mechs[m], &ip));
        PE_OK(dmsg_iplan_create_scatter(&src, idx, 4, buf, mechs[m], &sc));
        PE_OK(dmsg_iplan_execute(ip));
        PE_OK(dmsg_iplan_destroy(ip));
        PE_OK(dmsg_iplan_destroy(sc));
        dmsg_iplan_info info;
        PE_EXPECT(dmsg_iplan_execute(ip), DMSG_ERR_HANDLE);
        PE_EXPECT(dmsg_iplan_get_info(ip, &info), DMSG_ERR_HANDLE);
        PE_EXPECT(dmsg_iplan_destroy(ip), DMSG_ERR_HANDLE);
        PE_EXPECT(dmsg_iplan_execute(sc), DMSG_ERR_HANDLE);
        PE_EXPECT(dmsg_iplan_destroy(sc), DMSG_ERR_HANDLE);
        /* A new plan does not revive the old handle. */
        dmsg_iplan *again;
        PE_OK(dmsg_iplan_create(&src, idx, 4, buf, mechs[m], &again));
        PE_CHECK(again != ip && again != sc, "a new plan got a destroyed plan's handle");
        PE_EXPECT(dmsg_iplan_execute(ip), DMSG_ERR_HANDLE);
        PE_OK(dmsg_iplan_execute(again));
        PE_OK(dmsg_iplan_destroy(again));
    }
    PE_OK(dmsg_free(buf));
    PE_OK(dmsg_darray_free(&src));
    return 0;
}

/* More plans alive at once than DMSG_MAX_COUNTERS (256 by default): they
 * share one counter. Every one executes correctly, in any order. */
static int iplan_many(void)
{
    enum { PLANS = 300 };
    dmsg_darray src;
    PE_TRY(pe_iplan_array(&src, 8));
    PE_TRY(pe_iplan_fill(&src, 9));
    unsigned char *buf;
    PE_OK(dmsg_alloc(PLANS * 8, (void **)&buf));
    dmsg_iplan **ip = malloc(PLANS * sizeof *ip);
    size_t *idx = malloc(PLANS * sizeof *idx);
    PE_CHECK(ip != NULL && idx != NULL, "out of memory");
    for (size_t k = 0; k < PLANS; k++) {
        idx[k] = (k * 13 + (size_t)pe_me() * 5) % (23 * 17);
        PE_OK(dmsg_iplan_create(&src, &idx[k], 1, buf + 8 * k, DMSG_IPLAN_INDEXED, &ip[k]));
    }
    for (size_t k = PLANS; k-- > 0;)
        PE_OK(dmsg_iplan_execute(ip[k]));
    PE_TRY(check_dst(buf, idx, PLANS, 8, 9, DMSG_IPLAN_INDEXED));
    for (size_t k = 0; k < PLANS; k++)
        PE_OK(dmsg_iplan_destroy(ip[k]));
    /* All gone: counters are free again for the user. */
    dmsg_ctr c;
    PE_OK(dmsg_ctr_create(&c));
    PE_OK(dmsg_ctr_destroy(c));
    free(idx);
    free(ip);
    PE_OK(dmsg_free(buf));
    PE_OK(dmsg_darray_free(&src));
    return 0;
}

const pe_case pe_iplan_cases[] = {
    {"iplan_empty", iplan_empty, 0},
    {"iplan_stale", iplan_stale, 0},
    {"iplan_many", iplan_many, 0},
    {"iplan_gather", iplan_gather, 0},
    {"iplan_errors", iplan_errors, 0},
    {NULL, NULL, 0},
};
