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

const pe_case pe_iplan_cases[] = {
    {"iplan_gather", iplan_gather, 0},
    {"iplan_errors", iplan_errors, 0},
    {NULL, NULL, 0},
};
