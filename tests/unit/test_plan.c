/* The plan layer's pure parts: distributed array descriptors and queries,
 * assignment checks, and the closed-form pieces, compared element by element
 * with a serial evaluation for random statements on 1 to 64 PEs. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dmsg_plan.h"
#include "tests/plan_rand.h"
#include "dmsg/plan/choose.h"

static dmsg_darray_desc desc1(size_t n, int dist, size_t block, int p)
{
    dmsg_darray_desc d = {.ndims = 1,
                          .extent = {n},
                          .elem_size = 8,
                          .grid_ndims = 1,
                          .grid = {p},
                          .dist = {dist},
                          .block = {block}};
    return d;
}

Test(darray, block_owner_and_extent)
{
    dmsg_darray a;
    dmsg_darray_desc d = desc1(10, DMSG_DIST_BLOCK, 0, 4);
    cr_assert_eq(dmsg_darray_init(&a, &d), DMSG_OK);
    cr_assert_eq(a.blk[0], 3);
    cr_assert_eq(a.lmax[0], 3);
    cr_assert_eq(a.bytes, 24);
    size_t want_owner[10] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3};
    for (size_t i = 0; i < 10; i++) {
        int pe;
        size_t off, back;
        cr_assert_eq(dmsg_darray_locate(&a, &i, &pe, &off), DMSG_OK);
        cr_assert_eq(pe, want_owner[i]);
        cr_assert_eq(off, (i % 3) * 8);
        size_t l = i % 3;
        cr_assert_eq(dmsg_darray_global(&a, pe, &l, &back), DMSG_OK);
        cr_assert_eq(back, i);
    }
    size_t ext;
    cr_assert_eq(dmsg_darray_local_extent(&a, 3, &ext), DMSG_OK);
    cr_assert_eq(ext, 1);
    cr_assert_eq(dmsg_darray_local_extent(&a, 4, &ext), DMSG_OK); /* outside the grid */
    cr_assert_eq(ext, 0);
}

Test(darray, cyclic_k_owner_local_index)
{
    dmsg_darray a;
    dmsg_darray_desc d = desc1(11, DMSG_DIST_CYCLIC, 2, 3);
    cr_assert_eq(dmsg_darray_init(&a, &d), DMSG_OK);
    /* blocks of 2 dealt to 0,1,2,0,1,2: 0-1 p0, 2-3 p1, 4-5 p2, 6-7 p0, 8-9 p1, 10 p2 */
    size_t want_pe[11] = {0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2};
    size_t want_l[11] = {0, 1, 0, 1, 0, 1, 2, 3, 2, 3, 2};
    for (size_t i = 0; i < 11; i++) {
        int pe;
        size_t off;
        cr_assert_eq(dmsg_darray_locate(&a, &i, &pe, &off), DMSG_OK);
        cr_assert_eq(pe, want_pe[i], "index %zu", i);
        cr_assert_eq(off, want_l[i] * 8, "index %zu", i);
    }
    size_t ext[3];
    for (int p = 0; p < 3; p++)
        cr_assert_eq(dmsg_darray_local_extent(&a, p, &ext[p]), DMSG_OK);
    cr_assert_eq(ext[0], 4);
    cr_assert_eq(ext[1], 4);
    cr_assert_eq(ext[2], 3);
}

Test(darray, grid_halo_layout)
{
    /* 2-D: dim 0 CYCLIC onto grid dim 1, dim 1 BLOCK onto grid dim 0, halos. */
    dmsg_darray_desc d = {.ndims = 2,
                          .extent = {5, 8},
                          .elem_size = 4,
                          .grid_ndims = 2,
                          .grid = {2, 3},
                          .dist = {DMSG_DIST_CYCLIC, DMSG_DIST_BLOCK},
                          .onto = {1, 0},
                          .halo_lo = {1, 2},
                          .halo_hi = {1, 0},
                          .pad = {1, 0}};
    dmsg_darray a;
    cr_assert_eq(dmsg_darray_init(&a, &d), DMSG_OK);
    cr_assert_eq(a.lmax[0], 2); /* 5 over 3: 2 2 1 */
    cr_assert_eq(a.lmax[1], 4); /* 8 over 2 */
    cr_assert_eq(a.stride[0], 4);
    cr_assert_eq(a.stride[1], 4 * (1 + 2 + 1 + 1));
    cr_assert_eq(a.origin, 4 * 1 + 20 * 2);
    cr_assert_eq(a.bytes, 20 * (2 + 4));
    size_t g[2] = {4, 5};
    int pe;
    size_t off;
    cr_assert_eq(dmsg_darray_locate(&a, g, &pe, &off), DMSG_OK);
    /* dim 0: index 4 -> coordinate 1 (grid dim 1), local 1; dim 1: index 5 ->
     * coordinate 1 (grid dim 0), local 1. Rank = c0 + 2*c1 = 1 + 2*1. */
    cr_assert_eq(pe, 3);
    cr_assert_eq(off, a.origin + 1 * 4 + 1 * 20);
}

Test(darray, unused_grid_dim_holds_at_zero)
{
    dmsg_darray_desc d = {.ndims = 1,
                          .extent = {6},
                          .elem_size = 8,
                          .grid_ndims = 2,
                          .grid = {2, 2},
                          .dist = {DMSG_DIST_BLOCK},
                          .onto = {1}};
    dmsg_darray a;
    cr_assert_eq(dmsg_darray_init(&a, &d), DMSG_OK);
    size_t ext;
    int want[4] = {3, 0, 3, 0}; /* grid dim 0 unused: only coordinate 0 (ranks 0, 2) */
    for (int p = 0; p < 4; p++) {
        cr_assert_eq(dmsg_darray_local_extent(&a, p, &ext), DMSG_OK);
        cr_assert_eq(ext, (size_t)want[p], "pe %d", p);
    }
}

Test(darray, errors)
{
    dmsg_darray a;
    memset(&a, 0x5a, sizeof a);
    dmsg_darray_desc ok = desc1(10, DMSG_DIST_BLOCK, 0, 4), d;
    cr_assert_eq(dmsg_darray_init(NULL, &ok), DMSG_ERR_NULL);
    cr_assert_eq(dmsg_darray_init(&a, NULL), DMSG_ERR_NULL);
    d = ok, d.ndims = 0;
    cr_assert_eq(dmsg_darray_init(&a, &d), DMSG_ERR_ARG);
    d = ok, d.ndims = DMSG_MAX_DIMS + 1;
    cr_assert_eq(dmsg_darray_init(&a, &d), DMSG_ERR_ARG);
    d = ok, d.elem_size = 0;
    cr_assert_eq(dmsg_darray_init(&a, &d), DMSG_ERR_ARG);
    d = ok, d.extent[0] = 0;
    cr_assert_eq(dmsg_darray_init(&a, &d), DMSG_ERR_ARG);
    d = ok, d.grid[0] = 0;
    cr_assert_eq(dmsg_darray_init(&a, &d), DMSG_ERR_ARG);
    d = ok, d.grid_ndims = 0;
    cr_assert_eq(dmsg_darray_init(&a, &d), DMSG_ERR_ARG);
    d = ok, d.dist[0] = 7;
    cr_assert_eq(dmsg_darray_init(&a, &d), DMSG_ERR_ARG);
    d = ok, d.block[0] = 2; /* BLOCK(2) cannot hold 10 on 4 */
    cr_assert_eq(dmsg_darray_init(&a, &d), DMSG_ERR_ARG);
    d = ok, d.onto[0] = 1;
    cr_assert_eq(dmsg_darray_init(&a, &d), DMSG_ERR_ARG);
    d = (dmsg_darray_desc){.ndims = 2,
                           .extent = {4, 4},
                           .elem_size = 8,
                           .grid_ndims = 1,
                           .grid = {2},
                           .dist = {DMSG_DIST_BLOCK, DMSG_DIST_CYCLIC}};
    cr_assert_eq(dmsg_darray_init(&a, &d), DMSG_ERR_ARG); /* both onto grid dim 0 */
    d = ok, d.extent[0] = SIZE_MAX / 2, d.grid[0] = 1;
    cr_assert_eq(dmsg_darray_init(&a, &d), DMSG_ERR_OVERFLOW);
    /* Nothing was written by the failures. */
    unsigned char pat[sizeof a];
    memset(pat, 0x5a, sizeof pat);
    cr_assert_eq(memcmp(&a, pat, sizeof a), 0);
    cr_assert_eq(dmsg_darray_init(&a, &ok), DMSG_OK);
    size_t i = 10, l = 3, g = 99;
    int pe = -5;
    cr_assert_eq(dmsg_darray_owner(&a, &i, &pe), DMSG_ERR_RANGE);
    cr_assert_eq(pe, -5);
    cr_assert_eq(dmsg_darray_global(&a, 3, &l, &g), DMSG_ERR_RANGE); /* PE 3 owns 1 */
    cr_assert_eq(g, 99);
    cr_assert_eq(dmsg_darray_global(&a, -1, &l, &g), DMSG_ERR_PE);
    cr_assert_eq(dmsg_darray_local_extent(&a, -1, &g), DMSG_ERR_PE);
    cr_assert_eq(dmsg_darray_owner(&a, NULL, &pe), DMSG_ERR_NULL);
}

/* Two 1-D BLOCK arrays of n on p PEs: B = A. */
static void setup_copy(dmsg_darray *a, dmsg_darray *b, dmsg_assign *as, size_t n, int p)
{
    dmsg_darray_desc d = desc1(n, DMSG_DIST_BLOCK, 0, p);
    cr_assert_eq(dmsg_darray_init(a, &d), DMSG_OK);
    cr_assert_eq(dmsg_darray_init(b, &d), DMSG_OK);
    cr_assert_eq(dmsg_assign_init(as, b, a), DMSG_OK);
}

Test(assign, check_errors)
{
    dmsg_darray a, b;
    dmsg_assign as, t;
    setup_copy(&a, &b, &as, 16, 4);
    cr_assert_eq(dmsg_assign_check(&as, 4), DMSG_OK);
    cr_assert_eq(dmsg_assign_check(NULL, 4), DMSG_ERR_NULL);
    cr_assert_eq(dmsg_assign_check(&as, 3), DMSG_ERR_PE);
    t = as, t.ssec.step[0] = 0;
    cr_assert_eq(dmsg_assign_check(&t, 4), DMSG_ERR_ARG);
    t = as, t.ssec.hi[0] = 16; /* one past the end: last index 16 */
    cr_assert_eq(dmsg_assign_check(&t, 4), DMSG_ERR_RANGE);
    t = as, t.ssec.lo[0] = 1; /* 15 elements against 16 */
    cr_assert_eq(dmsg_assign_check(&t, 4), DMSG_ERR_ARG);
    t = as, t.ssec.lo[0] = 15, t.ssec.hi[0] = 0, t.ssec.step[0] = -1; /* reversed: fine */
    cr_assert_eq(dmsg_assign_check(&t, 4), DMSG_OK);
    t = as, t.dsec.hi[0] = 18, t.dsec.step[0] = 2, t.ssec.hi[0] = 9; /* 0,2,..,18: 18 outside */
    cr_assert_eq(dmsg_assign_check(&t, 4), DMSG_ERR_RANGE);
    t = as, t.perm[0] = 1;
    cr_assert_eq(dmsg_assign_check(&t, 4), DMSG_ERR_ARG);
    t = as, t.perm[0] = -1; /* unmatched, but 16 elements */
    cr_assert_eq(dmsg_assign_check(&t, 4), DMSG_ERR_ARG);
    dmsg_darray c;
    dmsg_darray_desc d4 = desc1(16, DMSG_DIST_BLOCK, 0, 4);
    d4.elem_size = 4;
    cr_assert_eq(dmsg_darray_init(&c, &d4), DMSG_OK);
    t = as, t.src = &c;
    cr_assert_eq(dmsg_assign_check(&t, 4), DMSG_ERR_ARG);
    size_t n = 77;
    cr_assert_eq(dmsg_assign_pieces(&as, 4, 0, 4, NULL, 0, &n), DMSG_ERR_PE);
    cr_assert_eq(n, 77);
    cr_assert_eq(dmsg_assign_pieces(&as, 4, 0, 0, NULL, 0, NULL), DMSG_ERR_NULL);
}

Test(assign, block_copy_is_one_piece_to_self)
{
    dmsg_darray a, b;
    dmsg_assign as;
    setup_copy(&a, &b, &as, 16, 4);
    for (int p = 0; p < 4; p++)
        for (int q = 0; q < 4; q++) {
            dmsg_piece pc[2];
            size_t n;
            cr_assert_eq(dmsg_assign_pieces(&as, 4, p, q, pc, 2, &n), DMSG_OK);
            cr_assert_eq(n, p == q ? 1u : 0u);
            if (n) {
                cr_assert_eq(pc[0].elems, 4);
                cr_assert_eq(pc[0].src_off, 0);
                cr_assert_eq(pc[0].dst_off, 0);
            }
        }
}

Test(assign, block_to_cyclic_folds)
{
    /* BLOCK -> CYCLIC(2) of 64 on 4: p owns 16 contiguous, q gets blocks of 2
     * every 8: one piece of 2 x 2 (two runs of 2) per pair, not 2 pieces. */
    dmsg_darray a, b;
    dmsg_darray_desc da = desc1(64, DMSG_DIST_BLOCK, 0, 4), db = desc1(64, DMSG_DIST_CYCLIC, 2, 4);
    cr_assert_eq(dmsg_darray_init(&a, &da), DMSG_OK);
    cr_assert_eq(dmsg_darray_init(&b, &db), DMSG_OK);
    dmsg_assign as;
    cr_assert_eq(dmsg_assign_init(&as, &b, &a), DMSG_OK);
    for (int p = 0; p < 4; p++)
        for (int q = 0; q < 4; q++) {
            dmsg_piece pc[4];
            size_t n;
            cr_assert_eq(dmsg_assign_pieces(&as, 4, p, q, pc, 4, &n), DMSG_OK);
            cr_assert_eq(n, 1);
            cr_assert_eq(pc[0].elems, 4);
            cr_assert_eq(pc[0].src.ndims, 2);
            cr_assert_eq(pc[0].src.stride[1], 8 * 8); /* next run 8 elements on in A */
            cr_assert_eq(pc[0].dst.stride[1], 2 * 8); /* next local block in B */
        }
}

/* Walks a layout's element offsets in row-major order into out. */
static size_t offsets(const dmsg_layout *l, ptrdiff_t *out)
{
    size_t idx[DMSG_MAX_DIMS] = {0}, n = 0;
    for (;;) {
        ptrdiff_t o = 0;
        for (int d = 0; d < l->ndims; d++)
            o += (ptrdiff_t)idx[d] * l->stride[d];
        out[n++] = o;
        int d = 0;
        while (d < l->ndims && ++idx[d] == l->count[d])
            idx[d++] = 0;
        if (d == l->ndims) return n;
    }
}

/* Every element of dst's section is written exactly once, by the owner of
 * the right source element, from the right local offset, to the right
 * local offset; nothing else is written. seed names the statement in
 * messages. */
static void check_assign(const dmsg_assign *asp, int npes, uint64_t seed)
{
    dmsg_assign as = *asp;
    const dmsg_darray A = *as.src, B = *as.dst;
    const dmsg_darray_desc da = A.desc, db = B.desc;
    cr_assert_eq(dmsg_assign_check(&as, npes), DMSG_OK, "seed %llu", (unsigned long long)seed);
    size_t na = 1, nb = 1, elem = da.elem_size;
    for (int d = 0; d < da.ndims; d++)
        na *= da.extent[d];
    for (int d = 0; d < db.ndims; d++)
        nb *= db.extent[d];
    /* (pe, local element slot) -> linear global index + 1, for both arrays. */
    size_t sa = A.bytes / elem, sb = B.bytes / elem;
    size_t *amap = calloc((size_t)npes * sa, sizeof *amap);
    size_t *bmap = calloc((size_t)npes * sb, sizeof *bmap);
    size_t *got = calloc(nb, sizeof *got);
    int *writes = calloc(nb, sizeof *writes);
    cr_assert(amap && bmap && got && writes);
    size_t g[DMSG_MAX_DIMS], ga[DMSG_MAX_DIMS];
    for (size_t lin = 0; lin < na; lin++) {
        int pe;
        size_t off;
        prand_unlinear(&A, lin, g);
        cr_assert_eq(dmsg_darray_locate(&A, g, &pe, &off), DMSG_OK);
        cr_assert_eq(off % elem, 0);
        amap[(size_t)pe * sa + off / elem] = lin + 1;
    }
    for (size_t lin = 0; lin < nb; lin++) {
        int pe;
        size_t off;
        prand_unlinear(&B, lin, g);
        cr_assert_eq(dmsg_darray_locate(&B, g, &pe, &off), DMSG_OK);
        bmap[(size_t)pe * sb + off / elem] = lin + 1;
    }
    ptrdiff_t *oa = malloc(nb * sizeof *oa), *ob = malloc(nb * sizeof *ob);
    cr_assert(oa && ob);
    for (int p = 0; p < npes; p++)
        for (int q = 0; q < npes; q++) {
            size_t n;
            cr_assert_eq(dmsg_assign_pieces(&as, npes, p, q, NULL, 0, &n), DMSG_OK);
            dmsg_piece *pc = malloc((n ? n : 1) * sizeof *pc);
            cr_assert_eq(dmsg_assign_pieces(&as, npes, p, q, pc, n, &n), DMSG_OK);
            for (size_t k = 0; k < n; k++) {
                cr_assert(pc[k].src.ndims >= 1 && pc[k].src.ndims <= DMSG_MAX_DIMS);
                size_t ea = offsets(&pc[k].src, oa), eb = offsets(&pc[k].dst, ob);
                cr_assert_eq(ea, eb);
                cr_assert_eq(ea, pc[k].elems);
                for (size_t e = 0; e < ea; e++) {
                    ptrdiff_t xa = (ptrdiff_t)pc[k].src_off + oa[e];
                    ptrdiff_t xb = (ptrdiff_t)pc[k].dst_off + ob[e];
                    cr_assert(xa >= 0 && (size_t)xa < A.bytes && xa % (ptrdiff_t)elem == 0,
                              "seed %llu: source offset %td", (unsigned long long)seed, xa);
                    cr_assert(xb >= 0 && (size_t)xb < B.bytes && xb % (ptrdiff_t)elem == 0);
                    size_t la = amap[(size_t)p * sa + (size_t)xa / elem];
                    size_t lb = bmap[(size_t)q * sb + (size_t)xb / elem];
                    cr_assert(la && lb, "seed %llu: piece touches a halo or padding",
                              (unsigned long long)seed);
                    got[lb - 1] = la;
                    writes[lb - 1]++;
                }
            }
            free(pc);
        }
    for (size_t lin = 0; lin < nb; lin++) {
        prand_unlinear(&B, lin, g);
        if (prand_source_of(&as, g, ga)) {
            cr_assert_eq(writes[lin], 1, "seed %llu npes %d: B[%zu] written %d times",
                         (unsigned long long)seed, npes, lin, writes[lin]);
            cr_assert_eq(got[lin], prand_linear(&A, ga) + 1, "seed %llu npes %d: B[%zu]",
                         (unsigned long long)seed, npes, lin);
        } else {
            cr_assert_eq(writes[lin], 0, "seed %llu: B[%zu] outside the section written",
                         (unsigned long long)seed, lin);
        }
    }
    free(oa);
    free(ob);
    free(amap);
    free(bmap);
    free(got);
    free(writes);
}

static void check_statement(uint64_t seed, int npes, long max_len)
{
    dmsg_darray_desc da, db;
    dmsg_assign as;
    prand_statement(seed, npes, max_len, &da, &db, &as);
    dmsg_darray A, B;
    cr_assert_eq(dmsg_darray_init(&A, &da), DMSG_OK, "seed %llu", (unsigned long long)seed);
    cr_assert_eq(dmsg_darray_init(&B, &db), DMSG_OK, "seed %llu", (unsigned long long)seed);
    as.src = &A;
    as.dst = &B;
    check_assign(&as, npes, seed);
}

Test(assign, random_statements_1_to_8_pes)
{
    for (uint64_t seed = 1; seed <= 1500; seed++)
        check_statement(seed, (int)(seed % 8) + 1, 12);
}

Test(assign, random_statements_64_pes)
{
    for (uint64_t seed = 5001; seed <= 5040; seed++)
        check_statement(seed, 64, 40);
}

Test(assign, long_cyclic_sections_fold)
{
    /* CYCLIC(3) -> BLOCK over 1000 elements on 8 PEs: the pieces of a pair
     * stay few (folded runs), far fewer than the 42 blocks involved. */
    dmsg_darray a, b;
    dmsg_darray_desc da = desc1(1000, DMSG_DIST_CYCLIC, 3, 8),
                     db = desc1(1000, DMSG_DIST_BLOCK, 0, 8);
    cr_assert_eq(dmsg_darray_init(&a, &da), DMSG_OK);
    cr_assert_eq(dmsg_darray_init(&b, &db), DMSG_OK);
    dmsg_assign as;
    cr_assert_eq(dmsg_assign_init(&as, &b, &a), DMSG_OK);
    for (int p = 0; p < 8; p++)
        for (int q = 0; q < 8; q++) {
            size_t n;
            cr_assert_eq(dmsg_assign_pieces(&as, 8, p, q, NULL, 0, &n), DMSG_OK);
            cr_assert_leq(n, 3, "p %d q %d: %zu pieces", p, q, n);
        }
}

/* The distributions of the periodic tests: BLOCK and CYCLIC(k). */
static const size_t pblocks[] = {0, 1, 2, 3, 5, 16};
#define NPBLOCKS (sizeof pblocks / sizeof pblocks[0])

static dmsg_darray_desc pdesc(size_t n, size_t k, int npes)
{
    return desc1(n, k == 0 ? DMSG_DIST_BLOCK : DMSG_DIST_CYCLIC, k, npes);
}

/* B = A over sections of n elements, the source section one of: the whole
 * array, shifted by one, every second element, reversed with step -3. */
static int psections(dmsg_assign *as, size_t n, int variant)
{
    size_t m;
    switch (variant) {
    case 0:
        return 1;
    case 1:
        if (n < 2) return 0;
        as->ssec.lo[0] = 1;
        as->dsec.hi[0] = n - 2;
        return 1;
    case 2:
        m = (n + 1) / 2;
        as->ssec.step[0] = 2;
        as->ssec.hi[0] = 2 * (m - 1);
        as->dsec.lo[0] = n - m;
        return 1;
    default:
        m = (n + 2) / 3;
        as->ssec.lo[0] = n - 1;
        as->ssec.hi[0] = n - 1 - 3 * (m - 1);
        as->ssec.step[0] = -3;
        as->dsec.hi[0] = m - 1;
        return 1;
    }
}

/* The source and target arrays of one case of the periodic-pair sweeps,
 * BLOCK/CYCLIC(ka) -> BLOCK/CYCLIC(kb) of n elements on np PEs, and the
 * assignment with section variant v; 0 where the variant does not apply. */
static int ppair(size_t n, size_t ka, size_t kb, int np, int v, dmsg_darray *a, dmsg_darray *b,
                 dmsg_assign *as)
{
    dmsg_darray_desc da = pdesc(n, ka, np), db = pdesc(n, kb, np);
    cr_assert_eq(dmsg_darray_init(a, &da), DMSG_OK);
    cr_assert_eq(dmsg_darray_init(b, &db), DMSG_OK);
    cr_assert_eq(dmsg_assign_init(as, b, a), DMSG_OK);
    return psections(as, n, v);
}

Test(assign, periodic_pairs_exact)
{
    /* Every BLOCK/CYCLIC(a) -> BLOCK/CYCLIC(b) pair, sizes below, at and far
     * above the periods (also not multiples of them), on 1, 2, 3, 4 and 8
     * PEs, with whole, shifted, strided and reversed sections: the folded
     * pieces put every element where the serial assignment does. */
    static const size_t sizes[] = {1, 5, 36, 97, 360, 1001, 1920};
    static const int pes[] = {1, 2, 3, 4, 8};
    uint64_t tag = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (size_t pi = 0; pi < sizeof pes / sizeof pes[0]; pi++)
            for (size_t x = 0; x < NPBLOCKS; x++)
                for (size_t y = 0; y < NPBLOCKS; y++)
                    for (int v = 0; v < 4; v++) {
                        size_t n = sizes[si];
                        int np = pes[pi];
                        dmsg_darray a, b;
                        dmsg_assign as;
                        tag++;
                        if (!ppair(n, pblocks[x], pblocks[y], np, v, &a, &b, &as)) continue;
                        /* tag = n * 1e6 + PEs * 1e4 + blocks * 100 + variant */
                        check_assign(&as, np,
                                     n * 1000000 + (size_t)np * 10000 + x * 1000 + y * 10 + (size_t)v);
                    }
}

/* The pieces all pairs of an npes-PE job exchange for B = A, n elements,
 * CYCLIC(ka) -> CYCLIC(kb). */
static size_t total_pieces(size_t n, size_t ka, size_t kb, int npes)
{
    dmsg_darray a, b;
    dmsg_darray_desc da = pdesc(n, ka, npes), db = pdesc(n, kb, npes);
    cr_assert_eq(dmsg_darray_init(&a, &da), DMSG_OK);
    cr_assert_eq(dmsg_darray_init(&b, &db), DMSG_OK);
    dmsg_assign as;
    cr_assert_eq(dmsg_assign_init(&as, &b, &a), DMSG_OK);
    size_t sum = 0;
    for (int p = 0; p < npes; p++)
        for (int q = 0; q < npes; q++) {
            size_t k;
            cr_assert_eq(dmsg_assign_pieces(&as, npes, p, q, NULL, 0, &k), DMSG_OK);
            sum += k;
        }
    return sum;
}

Test(assign, periodic_pieces_do_not_grow)
{
    /* CYCLIC(2) -> CYCLIC(3) and CYCLIC(16) -> CYCLIC(5): the overlap repeats
     * every lcm(a*P, b*P) elements. The pieces of an array of any size are at
     * most those of the sizes between 3 and 4 periods (before the fold,
     * CYCLIC(2) -> CYCLIC(3) of 1M on 2 PEs made 699,051 pieces). */
    static const size_t pairs[][2] = {{2, 3}, {16, 5}, {3, 5}, {1, 2}};
    static const int pes[] = {2, 3, 4, 8};
    static const size_t big[] = {100003, 1u << 20, (4u << 20) + 7};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        for (size_t j = 0; j < sizeof pes / sizeof pes[0]; j++) {
            size_t ka = pairs[i][0], kb = pairs[i][1], P = (size_t)pes[j];
            size_t g = ka * P, h = kb * P;
            while (h != 0) {
                size_t t = g % h;
                g = h;
                h = t;
            }
            size_t T = ka * P / g * kb * P, most = 0;
            for (size_t n = 3 * T; n < 4 * T; n++) {
                size_t k = total_pieces(n, ka, kb, pes[j]);
                most = k > most ? k : most;
            }
            for (size_t b = 0; b < sizeof big / sizeof big[0]; b++) {
                size_t k = total_pieces(big[b], ka, kb, pes[j]);
                cr_assert_leq(k, most, "CYCLIC(%zu) -> CYCLIC(%zu) of %zu on %d PEs: %zu pieces",
                              ka, kb, big[b], pes[j], k);
            }
        }
}

/* Moves a pair's pieces as a plan does with its group (dmsg_plan_group_build):
 * the group as one periodic pattern (direct, or packed into a stream and
 * unpacked), the other pieces one by one; returns 1 if there was a group. */
static int group_move(const dmsg_piece *pc, size_t n, size_t elem, char *dst, const char *src,
                      int packed, char *stream)
{
    plan_group *g = NULL;
    cr_assert_eq(dmsg_plan_group_build(pc, n, elem, &g), DMSG_OK);
    size_t one = g != NULL ? g->nrest : n;
    if (g != NULL) {
        dmsg_periodic p = dmsg_plan_group_pattern(g, packed ? DMSG_PER_DST_STREAM : DMSG_PER_NO_STREAM);
        cr_assert_eq(dmsg_periodic_check(&p, NULL, NULL), DMSG_OK);
        cr_assert_eq(p.bytes, g->bytes);
        if (!packed) {
            dmsg_copy_periodic(dst, src, &p);
        } else {
            dmsg_copy_periodic(stream, src, &p);
            p.stream = DMSG_PER_SRC_STREAM;
            cr_assert_eq(dmsg_periodic_check(&p, NULL, NULL), DMSG_OK);
            dmsg_copy_periodic(dst, stream, &p);
        }
    }
    for (size_t i = 0; i < one; i++) {
        const dmsg_piece *x = &pc[g != NULL ? g->rest[i] : i];
        dmsg_copy_section(dst + x->dst_off, &x->dst, src + x->src_off, &x->src, elem, NULL);
    }
    int had = g != NULL;
    dmsg_plan_group_free(g);
    return had;
}

/* One pair's case of the group tests: PE p's pieces for PE q under a
 * redistribution, the source, what the pieces write moved one by one
 * (want), and a buffer of the destination's size to move them into. */
typedef struct pair_case {
    const dmsg_piece *pc;
    size_t k;
    const char *src;
    const char *want;
    char *got;
    size_t bytes; /* of want and got */
    char label[96];
} pair_case;

typedef void (*pair_fn)(const pair_case *c, void *ctx);

/* Every BLOCK/CYCLIC pair (pblocks x pblocks, four section variants) at
 * each size and PE count, every (p, q) of it, handed to fn. */
static void each_pair(const size_t *sizes, size_t nsizes, const int *pes, size_t npes, pair_fn fn,
                      void *ctx)
{
    for (size_t si = 0; si < nsizes; si++)
        for (size_t pi = 0; pi < npes; pi++)
            for (size_t x = 0; x < NPBLOCKS; x++)
                for (size_t y = 0; y < NPBLOCKS; y++)
                    for (int v = 0; v < 4; v++) {
                        size_t n = sizes[si];
                        int np = pes[pi];
                        dmsg_darray a, b;
                        dmsg_assign as;
                        if (!ppair(n, pblocks[x], pblocks[y], np, v, &a, &b, &as)) continue;
                        char *src = malloc(a.bytes), *want = malloc(b.bytes);
                        char *got = malloc(b.bytes);
                        cr_assert(src && want && got);
                        for (size_t i = 0; i < a.bytes; i++)
                            src[i] = (char)(i * 13 + 7);
                        for (int p = 0; p < np; p++)
                            for (int q = 0; q < np; q++) {
                                pair_case c = {.src = src, .want = want, .got = got,
                                               .bytes = b.bytes};
                                cr_assert_eq(dmsg_assign_pieces(&as, np, p, q, NULL, 0, &c.k),
                                             DMSG_OK);
                                dmsg_piece *pc = malloc((c.k ? c.k : 1) * sizeof *pc);
                                cr_assert(pc != NULL);
                                cr_assert_eq(dmsg_assign_pieces(&as, np, p, q, pc, c.k, &c.k),
                                             DMSG_OK);
                                memset(want, 0, b.bytes);
                                for (size_t i = 0; i < c.k; i++)
                                    dmsg_copy_section(want + pc[i].dst_off, &pc[i].dst,
                                                      src + pc[i].src_off, &pc[i].src, 8, NULL);
                                c.pc = pc;
                                snprintf(c.label, sizeof c.label,
                                         "n %zu PEs %d blocks %zu -> %zu variant %d pair %d -> %d",
                                         n, np, pblocks[x], pblocks[y], v, p, q);
                                fn(&c, ctx);
                                free(pc);
                            }
                        free(src);
                        free(want);
                        free(got);
                    }
}

/* Moved as a group (direct and packed), the pieces write what they do one
 * by one; counts the groups formed. */
static void group_moves(const pair_case *c, void *ctx)
{
    size_t *groups = ctx;
    char *stream = malloc(c->bytes ? c->bytes : 1);
    cr_assert(stream != NULL);
    for (int packed = 0; packed < 2; packed++) {
        memset(c->got, 0, c->bytes);
        *groups += (size_t)group_move(c->pc, c->k, 8, c->got, c->src, packed, stream);
        cr_assert(memcmp(c->got, c->want, c->bytes) == 0, "%s packed %d", c->label, packed);
    }
    free(stream);
}

Test(group, periodic_groups_move_what_the_pieces_do)
{
    /* Every BLOCK/CYCLIC pair at odd sizes (below, near and far above the
     * periods), whole, shifted, strided and reversed sections, 1-8 PEs:
     * each pair's pieces moved as a group (direct and packed) write the
     * same bytes as the pieces moved one by one, and CYCLIC(a) -> CYCLIC(b)
     * pairs with pieces that repeat per period do form groups. */
    static const size_t sizes[] = {5, 97, 1001, 4099};
    static const int pes[] = {1, 2, 3, 4, 5, 8};
    size_t groups = 0;
    each_pair(sizes, sizeof sizes / sizeof sizes[0], pes, sizeof pes / sizeof pes[0], group_moves,
              &groups);
    cr_assert_gt(groups, 0);
}

typedef struct slice_count {
    size_t sliced, singles;
} slice_count;

/* Cut into slices of 1 byte to a few periods, each slice moved as its own
 * periodic pattern, the group writes what the pieces do one by one. */
static void slices_move(const pair_case *c, void *ctx)
{
    static const size_t windows[] = {1, 100, 1000};
    slice_count *n = ctx;
    for (size_t w = 0; w < sizeof windows / sizeof windows[0]; w++) {
        plan_group *g = NULL;
        cr_assert_eq(dmsg_plan_group_build(c->pc, c->k, 8, &g), DMSG_OK);
        if (g == NULL && c->k == 1) {
            cr_assert_eq(dmsg_plan_group_single(c->pc, 8, &g), DMSG_OK);
            n->singles += g != NULL;
        }
        if (g == NULL) continue;
        cr_assert_eq(dmsg_plan_group_slice(g, windows[w]), DMSG_OK);
        cr_assert_geq(g->slices, 1);
        n->sliced += g->slices > 1;
        memset(c->got, 0, c->bytes);
        for (size_t i = 0; i < g->nrest; i++) {
            const dmsg_piece *r = &c->pc[g->rest[i]];
            dmsg_copy_section(c->got + r->dst_off, &r->dst, c->src + r->src_off, &r->src, 8, NULL);
        }
        uint64_t bytes = 0;
        for (size_t s = 0; s < g->slices; s++) {
            size_t r0;
            dmsg_periodic per = dmsg_plan_group_slice_pattern(g, s, &r0);
            cr_assert_eq(dmsg_periodic_check(&per, NULL, NULL), DMSG_OK);
            bytes += per.bytes;
            dmsg_copy_periodic(c->got + (ptrdiff_t)r0 * g->dstride,
                               c->src + (ptrdiff_t)r0 * g->sstride, &per);
        }
        cr_assert_eq(bytes, g->bytes);
        cr_assert(memcmp(c->got, c->want, c->bytes) == 0, "%s window %zu: %zu slices", c->label,
                  windows[w], g->slices);
        dmsg_plan_group_free(g);
    }
}

Test(group, slices_move_what_the_pieces_do)
{
    /* A group cut into slices (dmsg_plan_group_slice; the direct deposits
     * of a plan on shm take turns slice by slice), each slice moved as its
     * own periodic pattern from its first period on, writes the same bytes
     * as the pieces one by one: every BLOCK/CYCLIC pair, whole, shifted,
     * strided and reversed sections, windows of 1 byte to a few periods, and
     * lone pieces of short runs as groups (dmsg_plan_group_single). */
    static const size_t sizes[] = {97, 4099};
    static const int pes[] = {1, 2, 3, 4, 8};
    slice_count n = {0, 0};
    each_pair(sizes, sizeof sizes / sizeof sizes[0], pes, sizeof pes / sizeof pes[0], slices_move,
              &n);
    cr_assert_gt(n.sliced, 0);
    cr_assert_gt(n.singles, 0);
}

Test(group, cyclic_2_to_3_is_one_group_per_partner)
{
    /* 4M doubles on 2, 4 and 8 PEs: every partner's pieces form one group
     * with nothing left over, of a few runs (one period's), whose bytes are
     * the partner's. */
    static const int pes[] = {2, 4, 8};
    static const size_t pairs[][2] = {{2, 3}, {16, 5}};
    for (size_t j = 0; j < 2; j++)
        for (size_t i = 0; i < 3; i++) {
            int np = pes[i];
            dmsg_darray a, b;
            dmsg_darray_desc da = pdesc(4u << 20, pairs[j][0], np), db = pdesc(4u << 20, pairs[j][1], np);
            cr_assert_eq(dmsg_darray_init(&a, &da), DMSG_OK);
            cr_assert_eq(dmsg_darray_init(&b, &db), DMSG_OK);
            dmsg_assign as;
            cr_assert_eq(dmsg_assign_init(&as, &b, &a), DMSG_OK);
            for (int q = 0; q < np; q++) {
                size_t k, elems = 0;
                cr_assert_eq(dmsg_assign_pieces(&as, np, 0, q, NULL, 0, &k), DMSG_OK);
                if (k < 2) continue;
                dmsg_piece *pc = malloc(k * sizeof *pc);
                cr_assert_eq(dmsg_assign_pieces(&as, np, 0, q, pc, k, &k), DMSG_OK);
                for (size_t x = 0; x < k; x++)
                    elems += pc[x].elems;
                plan_group *g = NULL;
                cr_assert_eq(dmsg_plan_group_build(pc, k, 8, &g), DMSG_OK);
                cr_assert_not_null(g, "CYCLIC(%zu) -> CYCLIC(%zu), %d PEs, 0 -> %d", pairs[j][0],
                                   pairs[j][1], np, q);
                cr_assert_eq(g->nrest, 0);
                cr_assert_eq(g->bytes, elems * 8);
                cr_assert_leq(g->nruns, 64);
                dmsg_plan_group_free(g);
                free(pc);
            }
        }
}

Test(group, bounded_and_only_like_repeats)
{
    /* Two pieces sharing their outer dimension, inner runs of one element
     * that do not merge: 2 x 1000 runs per period form a group, 2 x 3000
     * do not (past the bound, one by one as before); nor does a piece
     * repeated far fewer times than the other join it. */
    dmsg_piece pc[3];
    memset(pc, 0, sizeof pc);
    for (int i = 0; i < 2; i++) {
        pc[i].src_off = (size_t)i * 8;
        pc[i].dst_off = (size_t)i * 16;
        pc[i].src = pc[i].dst = (dmsg_layout){2, {1000, 10}, {16, 16 * 3000}};
        pc[i].dst.stride[0] = 32;
        pc[i].dst.stride[1] = 32 * 3000;
        pc[i].elems = 10000;
    }
    plan_group *g = NULL;
    cr_assert_eq(dmsg_plan_group_build(pc, 2, 8, &g), DMSG_OK);
    cr_assert_not_null(g);
    cr_assert_eq(g->nruns, 2000);
    cr_assert_eq(g->nrest, 0);
    dmsg_plan_group_free(g);
    for (int i = 0; i < 2; i++) {
        pc[i].src.count[0] = pc[i].dst.count[0] = 3000;
        pc[i].elems = 30000;
    }
    cr_assert_eq(dmsg_plan_group_build(pc, 2, 8, &g), DMSG_OK);
    cr_assert_null(g);
    pc[2] = pc[1];
    pc[2].src_off = pc[2].dst_off = 4;
    pc[2].src.count[0] = pc[2].dst.count[0] = 1;
    pc[2].src.count[1] = pc[2].dst.count[1] = 3;
    pc[2].elems = 3;
    pc[0].src.count[0] = pc[0].dst.count[0] = pc[1].src.count[0] = pc[1].dst.count[0] = 10;
    cr_assert_eq(dmsg_plan_group_build(pc, 3, 8, &g), DMSG_OK);
    cr_assert_not_null(g);
    cr_assert_eq(g->nrest, 1);
    cr_assert_eq(g->rest[0], 2);
    dmsg_plan_group_free(g);
}

/* A host-like description: 5 GB/s copies, 1 us per deposit call. */
static const char host_text[] = "name = host\ndescription = test host\nclock_mhz = 0\nnodes = 1\n"
                                "copy.1C1 = 5000\nsend.1S0 = 5000\nsend.1F0 = none\n"
                                "recv.0D1 = none\nrecv.0R1 = 5000\n"
                                "net.Nd = 5000 2500 1250\nnet.Nadp = 5000 2500 1250\n"
                                "congestion = 1\nmechanisms = chained packed\n"
                                "msg.overhead_us = 1\nmsg.partner_us = 0\n"
                                "barrier.kind = tree\nbarrier.us = 0\nbarrier.hop_us = 0.1\n"
                                "remote.read_us = 0.1\n";

Test(model, host_pack_counts_calls_per_piece)
{
    /* 2000 one-element pieces: direct pays a deposit call per piece; packing
     * on a host pays a gather and a scatter call per piece as well, so it is
     * slower there (before, it counted copy rates only and predicted packing
     * hundreds of times faster). A simulated machine charges local copies
     * their copy time only: there packing stays the faster. */
    enum { N = 2000 };
    dmsg_piece *pc = calloc(N, sizeof *pc);
    cr_assert(pc != NULL);
    for (size_t k = 0; k < N; k++) {
        pc[k].src_off = 16 * k;
        pc[k].dst_off = 24 * k;
        pc[k].elems = 1;
        pc[k].src.ndims = pc[k].dst.ndims = 1;
        pc[k].src.count[0] = pc[k].dst.count[0] = 1;
        pc[k].src.stride[0] = pc[k].dst.stride[0] = 8;
    }
    plan_model *pm;
    cr_assert_eq(dmsg_plan_model_parse(host_text, "test", &pm), DMSG_OK);
    double d, p;
    dmsg_plan_model_predict(pm, pc, N, 8, 0, &d, &p);
    cr_assert_gt(p, 0);
    cr_assert_gt(p, 10 * d, "unmarked: direct %g, pack %g MB/s", d, p);
    dmsg_plan_model_host(pm);
    double d2, p2;
    dmsg_plan_model_predict(pm, pc, N, 8, 0, &d2, &p2);
    cr_assert_float_eq(d2, d, 1e-9 * d);
    cr_assert_lt(p2, d2, "host: direct %g, pack %g MB/s", d2, p2);
    dmsg_plan_model_close(pm);
    free(pc);
}
