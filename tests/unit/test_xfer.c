/* Copy engine: layout checks, normalization, and section copies compared with
 * a naive element-by-element reference walk. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "dmsg/xfer/xfer.h"
#include "dmsg/xfer/xfer_impl.h" /* the register-block kernels */
#include "tests/unit/detail.h"

/* ------------------------------------------------------------- helpers */

static dmsg_layout lay(int nd, const size_t *count, const ptrdiff_t *stride)
{
    dmsg_layout l = {.ndims = nd};
    for (int d = 0; d < nd; d++) {
        l.count[d] = count[d];
        l.stride[d] = stride[d];
    }
    return l;
}

#define LAY(nd, ...) lay_helper(nd, (const long long[]){__VA_ARGS__})
/* LAY(2, c0, c1, s0, s1): counts then strides. */
static dmsg_layout lay_helper(int nd, const long long *v)
{
    dmsg_layout l = {.ndims = nd};
    for (int d = 0; d < nd; d++) {
        l.count[d] = (size_t)v[d];
        l.stride[d] = (ptrdiff_t)v[nd + d];
    }
    return l;
}

/* Byte offsets of a layout's elements in row-major order (dim 0 fastest). */
static size_t element_offsets(const dmsg_layout *l, ptrdiff_t *out)
{
    size_t idx[DMSG_MAX_DIMS] = {0}, n = 0;
    for (int d = 0; d < l->ndims; d++)
        if (l->count[d] == 0)
            return 0;
    for (;;) {
        ptrdiff_t off = 0;
        for (int d = 0; d < l->ndims; d++)
            off += (ptrdiff_t)idx[d] * l->stride[d];
        out[n++] = off;
        int d = 0;
        while (d < l->ndims && ++idx[d] == l->count[d])
            idx[d++] = 0;
        if (d == l->ndims)
            return n;
    }
}

static uint32_t rng_state = 12345;
static uint32_t rnd(void)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return rng_state >> 8;
}

/* Copies with the engine and with the reference walk into two destination
 * buffers prefilled alike; they must match byte for byte (also outside the
 * section, so stray writes are caught). */
static void check_copy_p(const dmsg_layout *dl, const dmsg_layout *sl, size_t elem,
                         const dmsg_xfer_params *p);

static void check_copy(const dmsg_layout *dl, const dmsg_layout *sl, size_t elem,
                       size_t tile_bytes)
{
    dmsg_xfer_params p = {.tile_bytes = tile_bytes};
    check_copy_p(dl, sl, elem, &p);
}

static void check_copy_p(const dmsg_layout *dl, const dmsg_layout *sl, size_t elem,
                         const dmsg_xfer_params *p)
{
    size_t tile_bytes = p->tile_bytes;
    size_t dn, sn;
    dmsg_extent de, se;
    cr_assert_eq(dmsg_layout_check(dl, elem, &dn, &de), DMSG_OK);
    cr_assert_eq(dmsg_layout_check(sl, elem, &sn, &se), DMSG_OK);
    cr_assert_eq(dn, sn, "test bug: totals differ");
    cr_assert_eq(dmsg_layout_check_disjoint(dl, elem), DMSG_OK, "test bug: overlapping dst");
    size_t dbytes = (size_t)(de.hi - de.lo), sbytes = (size_t)(se.hi - se.lo);
    char *sbuf = malloc(sbytes + 1), *got = malloc(dbytes + 1), *want = malloc(dbytes + 1);
    ptrdiff_t *doff = malloc((dn + 1) * sizeof *doff), *soff = malloc((sn + 1) * sizeof *soff);
    cr_assert(sbuf && got && want && doff && soff);
    for (size_t i = 0; i < sbytes; i++)
        sbuf[i] = (char)rnd();
    memset(got, 0xEE, dbytes);
    memset(want, 0xEE, dbytes);
    char *sb = sbuf - se.lo, *gb = got - de.lo, *wb = want - de.lo;

    element_offsets(dl, doff);
    element_offsets(sl, soff);
    for (size_t k = 0; k < dn; k++)
        memcpy(wb + doff[k], sb + soff[k], elem);
    if (dn > 0)
        dmsg_copy_section(gb, dl, sb, sl, elem, p);

    size_t bad = dbytes;
    for (size_t i = 0; i < dbytes && bad == dbytes; i++)
        if (got[i] != want[i])
            bad = i;
    cr_assert_eq(bad, dbytes, "mismatch at dst byte %zu of %zu (elem %zu, nd %d/%d, tile %zu)",
                 bad, dbytes, elem, dl->ndims, sl->ndims, tile_bytes);
    free(sbuf);
    free(got);
    free(want);
    free(doff);
    free(soff);
}

/* Row-major contiguous layout of the given shape (dim 0 fastest). */
static dmsg_layout contiguous(int nd, const size_t *count, size_t elem)
{
    ptrdiff_t stride[DMSG_MAX_DIMS];
    ptrdiff_t s = (ptrdiff_t)elem;
    for (int d = 0; d < nd; d++) {
        stride[d] = s;
        s *= (ptrdiff_t)count[d];
    }
    return lay(nd, count, stride);
}

/* The view of a contiguous array of shape `count` with its dimensions
 * visited in order perm (perm[0] fastest): a generalized transpose. */
static dmsg_layout permuted(int nd, const size_t *count, const int *perm, size_t elem)
{
    dmsg_layout c = contiguous(nd, count, elem), l = {.ndims = nd};
    for (int d = 0; d < nd; d++) {
        l.count[d] = c.count[perm[d]];
        l.stride[d] = c.stride[perm[d]];
    }
    return l;
}

/* -------------------------------------------------------- layout_check */

Test(layout_check, rejects_bad_ndims_and_elem)
{
    size_t n = 77;
    dmsg_extent e = {1, 2};
    dmsg_layout l = LAY(1, 4, 8);
    l.ndims = 0;
    cr_expect_eq(dmsg_layout_check(&l, 4, &n, &e), DMSG_ERR_ARG);
    l.ndims = DMSG_MAX_DIMS + 1;
    cr_expect_eq(dmsg_layout_check(&l, 4, &n, &e), DMSG_ERR_ARG);
    l.ndims = 1;
    cr_expect_eq(dmsg_layout_check(&l, 0, &n, &e), DMSG_ERR_ARG);
    cr_expect_eq(dmsg_layout_check(NULL, 4, &n, &e), DMSG_ERR_NULL);
    cr_expect_eq(dmsg_layout_check(&l, 4, NULL, &e), DMSG_ERR_NULL);
    cr_expect_eq(dmsg_layout_check(&l, 4, &n, NULL), DMSG_ERR_NULL);
    /* outputs untouched on error */
    cr_expect_eq(n, 77);
    cr_expect(e.lo == 1 && e.hi == 2);
}

Test(layout_check, overflow)
{
    size_t n;
    dmsg_extent e;
    dmsg_layout l = LAY(2, (long long)(SIZE_MAX / 2), 3, 1, 1);
    cr_expect_eq(dmsg_layout_check(&l, 1, &n, &e), DMSG_ERR_OVERFLOW, "element count");
    l = LAY(1, (long long)(SIZE_MAX / 4), 8);
    cr_expect_eq(dmsg_layout_check(&l, 8, &n, &e), DMSG_ERR_OVERFLOW, "total bytes");
    l = LAY(2, 2, 2, PTRDIFF_MAX, 1);
    cr_expect_eq(dmsg_layout_check(&l, 4, &n, &e), DMSG_ERR_OVERFLOW, "extent hi");
    l = LAY(1, 3, PTRDIFF_MAX / 2 + 1);
    cr_expect_eq(dmsg_layout_check(&l, 4, &n, &e), DMSG_ERR_OVERFLOW, "span of one dim");
    l = LAY(2, 2, 2, PTRDIFF_MIN / 2, PTRDIFF_MIN / 2);
    cr_expect_eq(dmsg_layout_check(&l, 4, &n, &e), DMSG_ERR_OVERFLOW, "extent lo");
    l = LAY(2, 2, 2, PTRDIFF_MAX - 8, PTRDIFF_MIN + 8);
    cr_expect_eq(dmsg_layout_check(&l, 4, &n, &e), DMSG_ERR_OVERFLOW, "width hi - lo");
}

Test(layout_check, extents)
{
    size_t n;
    dmsg_extent e;
    dmsg_layout l = LAY(2, 3, 2, 8, 100);
    cr_assert_eq(dmsg_layout_check(&l, 4, &n, &e), DMSG_OK);
    cr_expect_eq(n, 6);
    cr_expect_eq(e.lo, 0);
    cr_expect_eq(e.hi, 2 * 8 + 100 + 4);

    l = LAY(2, 3, 2, -8, 100);
    cr_assert_eq(dmsg_layout_check(&l, 4, &n, &e), DMSG_OK);
    cr_expect_eq(e.lo, -16);
    cr_expect_eq(e.hi, 104);

    l = LAY(3, 5, 2, 4, -4, -1000, 0);
    cr_assert_eq(dmsg_layout_check(&l, 4, &n, &e), DMSG_OK);
    cr_expect_eq(n, 40);
    cr_expect_eq(e.lo, -16 - 1000);
    cr_expect_eq(e.hi, 4);
}

Test(layout_check, zero_count_is_empty)
{
    size_t n = 5;
    dmsg_extent e = {3, 9};
    dmsg_layout l = LAY(3, 4, 0, 7, 4, 16, -99);
    cr_assert_eq(dmsg_layout_check(&l, 4, &n, &e), DMSG_OK);
    cr_expect_eq(n, 0);
    cr_expect(e.lo == 0 && e.hi == 0);
}

/* ------------------------------------------------------------ disjoint */

Test(disjoint, accepts_non_overlapping)
{
    dmsg_layout l = LAY(2, 4, 3, 4, 16);
    cr_expect_eq(dmsg_layout_check_disjoint(&l, 4), DMSG_OK, "contiguous");
    l = LAY(2, 4, 3, 48, 16);
    cr_expect_eq(dmsg_layout_check_disjoint(&l, 16), DMSG_OK, "transposed");
    l = LAY(2, 4, 3, -4, -16);
    cr_expect_eq(dmsg_layout_check_disjoint(&l, 4), DMSG_OK, "negative");
    l = LAY(2, 1, 5, 0, 8);
    cr_expect_eq(dmsg_layout_check_disjoint(&l, 8), DMSG_OK, "zero stride, count 1");
    l = LAY(2, 0, 5, 0, 0);
    cr_expect_eq(dmsg_layout_check_disjoint(&l, 8), DMSG_OK, "empty");
    l = LAY(2, 2, 2, 8, 4);
    cr_expect_eq(dmsg_layout_check_disjoint(&l, 4), DMSG_OK, "interleaved steps");
}

Test(disjoint, rejects_overlap)
{
    dmsg_layout l = LAY(1, 2, 0);
    cr_expect_eq(dmsg_layout_check_disjoint(&l, 4), DMSG_ERR_ARG, "zero stride");
    l = LAY(1, 3, 2);
    cr_expect_eq(dmsg_layout_check_disjoint(&l, 4), DMSG_ERR_ARG, "stride < elem");
    l = LAY(2, 2, 2, 8, 8);
    cr_expect_eq(dmsg_layout_check_disjoint(&l, 4), DMSG_ERR_ARG, "same stride twice");
    l = LAY(2, 4, 2, 4, 8);
    cr_expect_eq(dmsg_layout_check_disjoint(&l, 4), DMSG_ERR_ARG, "outer inside inner span");
    l = LAY(2, 4, 2, -4, 12);
    cr_expect_eq(dmsg_layout_check_disjoint(&l, 4), DMSG_ERR_ARG, "negative inner overlaps");
    l.ndims = 0;
    cr_expect_eq(dmsg_layout_check_disjoint(&l, 4), DMSG_ERR_ARG);
    l.ndims = 1;
    cr_expect_eq(dmsg_layout_check_disjoint(&l, 0), DMSG_ERR_ARG);
    cr_expect_eq(dmsg_layout_check_disjoint(NULL, 4), DMSG_ERR_NULL);
}

/* ----------------------------------------------------------- normalize */

Test(normalize, contiguous_folds_to_one_block)
{
    dmsg_sect s;
    dmsg_layout l = LAY(3, 2, 3, 4, 4, 8, 24);
    cr_assert_eq(dmsg_sect_normalize(&s, &l, &l, 4), 1);
    cr_expect_eq(s.nd, 0);
    cr_expect_eq(s.elem, 96);
}

Test(normalize, unit_counts_dropped)
{
    dmsg_sect s;
    dmsg_layout dl = LAY(3, 1, 5, 1, 999, 4, 7);
    dmsg_layout sl = LAY(1, 5, 8);
    cr_assert_eq(dmsg_sect_normalize(&s, &dl, &sl, 4), 1);
    cr_expect_eq(s.nd, 1);
    cr_expect_eq(s.elem, 4);
    cr_expect_eq(s.count[0], 5);
    cr_expect_eq(s.dstride[0], 4);
    cr_expect_eq(s.sstride[0], 8);
}

Test(normalize, partial_folds)
{
    dmsg_sect s;
    /* rows contiguous on both sides, padded row pitch on the source */
    dmsg_layout dl = LAY(2, 4, 3, 4, 16), sl = LAY(2, 4, 3, 4, 32);
    cr_assert_eq(dmsg_sect_normalize(&s, &dl, &sl, 4), 1);
    cr_expect_eq(s.nd, 1);
    cr_expect_eq(s.elem, 16);
    cr_expect_eq(s.count[0], 3);
    cr_expect_eq(s.dstride[0], 16);
    cr_expect_eq(s.sstride[0], 32);

    /* dims 0 and 1 continue each other on both sides, dim 2 does not */
    dl = LAY(3, 4, 3, 2, 8, 32, 96);
    sl = LAY(3, 4, 3, 2, 8, 32, 200);
    cr_assert_eq(dmsg_sect_normalize(&s, &dl, &sl, 4), 1);
    cr_expect_eq(s.nd, 2);
    cr_expect_eq(s.elem, 4);
    cr_expect_eq(s.count[0], 12);
    cr_expect_eq(s.count[1], 2);
    cr_expect_eq(s.dstride[0], 8);
    cr_expect_eq(s.sstride[0], 8);
    cr_expect_eq(s.dstride[1], 96);
    cr_expect_eq(s.sstride[1], 200);

    /* contiguous on one side only: nothing folds */
    dl = LAY(2, 4, 3, 4, 16);
    sl = LAY(2, 4, 3, 12, 4);
    cr_assert_eq(dmsg_sect_normalize(&s, &dl, &sl, 4), 1);
    cr_expect_eq(s.nd, 2);
    cr_expect_eq(s.elem, 4);
}

Test(normalize, negative_strides)
{
    dmsg_sect s;
    dmsg_layout l = LAY(1, 5, -4);
    cr_assert_eq(dmsg_sect_normalize(&s, &l, &l, 4), 1);
    cr_expect_eq(s.nd, 1, "a reversed run is not one forward block");
    cr_expect_eq(s.count[0], 5);
    cr_expect_eq(s.dstride[0], -4);
    cr_expect_eq(s.sstride[0], -4);

    l = LAY(2, 4, 3, -4, -16);
    cr_assert_eq(dmsg_sect_normalize(&s, &l, &l, 4), 1);
    cr_expect_eq(s.nd, 1);
    cr_expect_eq(s.count[0], 12);
    cr_expect_eq(s.dstride[0], -4);

    /* rows forward, row order reversed: rows fold into elem */
    dmsg_layout dl = LAY(2, 4, 3, 4, -16), sl = LAY(2, 4, 3, 4, 16);
    cr_assert_eq(dmsg_sect_normalize(&s, &dl, &sl, 4), 1);
    cr_expect_eq(s.nd, 1);
    cr_expect_eq(s.elem, 16);
    cr_expect_eq(s.dstride[0], -16);
    cr_expect_eq(s.sstride[0], 16);
}

Test(normalize, mismatched_shapes)
{
    dmsg_sect s;
    dmsg_layout dl = LAY(2, 4, 3, 4, 16), sl = LAY(2, 3, 4, 4, 12);
    cr_expect_eq(dmsg_sect_normalize(&s, &dl, &sl, 4), 0);
    dl = LAY(1, 12, 4);
    cr_expect_eq(dmsg_sect_normalize(&s, &dl, &sl, 4), 0);
    dl = LAY(2, 0, 3, 4, 16);
    cr_expect_eq(dmsg_sect_normalize(&s, &dl, &dl, 4), 0, "empty");
}

/* -------------------------------------------------------- section copy */

static const size_t elems[] = {4, 8, 16, 3, 1, 2};
#define NELEMS (sizeof elems / sizeof elems[0])

Test(copy, one_d)
{
    for (size_t e = 0; e < NELEMS; e++) {
        size_t z = elems[e];
        ptrdiff_t sz = (ptrdiff_t)z;
        dmsg_layout c = LAY(1, 37, sz), st = LAY(1, 37, 3 * sz), rev = LAY(1, 37, -sz);
        dmsg_layout rst = LAY(1, 37, -5 * sz), bc = LAY(1, 37, 0);
        check_copy(&c, &c, z, 0);
        check_copy(&c, &st, z, 0);
        check_copy(&st, &c, z, 0);
        check_copy(&rev, &c, z, 0);
        check_copy(&c, &rev, z, 0);
        check_copy(&rev, &rev, z, 0);
        check_copy(&rst, &st, z, 0);
        check_copy(&c, &bc, z, 0);
    }
}

Test(copy, transposes)
{
    static const size_t sizes[][2] = {{1, 1},   {1, 7},   {3, 5},   {16, 16}, {17, 33},
                                      {64, 64}, {100, 37}, {129, 65}, {255, 257}};
    static const size_t tiles[] = {0, 256, 1000, 4096, 65536};
    const int perm[] = {1, 0};
    for (size_t e = 0; e < NELEMS; e++) {
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            dmsg_layout dl = contiguous(2, sizes[k], elems[e]);
            size_t swapped[2] = {sizes[k][1], sizes[k][0]};
            dmsg_layout sl = permuted(2, swapped, perm, elems[e]);
            for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++) {
                check_copy(&dl, &sl, elems[e], tiles[t]);
                check_copy(&sl, &dl, elems[e], tiles[t]); /* strided destination */
            }
        }
    }
}

/* The automatic tile follows the element size of the folded section: small
 * tiles where they were measured faster (16 bytes and wider), large ones for
 * narrower elements. */
Test(copy, tile_auto_by_element_size)
{
    cr_assert_eq(dmsg_xfer_tile_auto(1), DMSG_XFER_TILE_SMALL_ELEM);
    cr_assert_eq(dmsg_xfer_tile_auto(4), DMSG_XFER_TILE_SMALL_ELEM);
    cr_assert_eq(dmsg_xfer_tile_auto(8), DMSG_XFER_TILE_SMALL_ELEM);
    cr_assert_eq(dmsg_xfer_tile_auto(16), DMSG_XFER_TILE_WIDE_ELEM);
    cr_assert_eq(dmsg_xfer_tile_auto(48), DMSG_XFER_TILE_WIDE_ELEM);
    cr_assert_lt(DMSG_XFER_TILE_WIDE_ELEM, DMSG_XFER_TILE_SMALL_ELEM);
}

/* Every blocking a host profile can choose (tile working set, line blocks
 * on or off, per element class; 16-byte line blocks exist only for
 * profiles) copies transposes exactly, ragged edges included. */
Test(copy, transposes_with_profile_choices)
{
    static const size_t sizes[][2] = {{17, 33}, {64, 64}, {129, 65}, {255, 257}};
    static const uint32_t tiles[] = {0, 256, 2048, 65536};
    const int perm[] = {1, 0};
    for (size_t e = 0; e < NELEMS; e++)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
            for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++)
                for (uint8_t b = DMSG_XFER_BLOCKS_AUTO; b <= DMSG_XFER_BLOCKS_OFF; b++) {
                    dmsg_xfer_params p = {0};
                    for (int z = 0; z < DMSG_XFER_SIZES; z++)
                        p.tune[dmsg_xfer_class(elems[e])][z] = (dmsg_xfer_choice){tiles[t], b};
                    dmsg_layout dl = contiguous(2, sizes[k], elems[e]);
                    size_t swapped[2] = {sizes[k][1], sizes[k][0]};
                    dmsg_layout sl = permuted(2, swapped, perm, elems[e]);
                    check_copy_p(&dl, &sl, elems[e], &p);
                    check_copy_p(&sl, &dl, elems[e], &p);
                }
}

/* Planes up to DMSG_XFER_SMALL_PLANE bytes per side take the profile's
 * small-plane choice, larger ones its large-plane choice; the calibrated
 * sizes (2-8 MiB and 16-32 MiB) fall on their own sides. */
Test(tune, plane_size_classes)
{
    cr_assert_eq(dmsg_xfer_size_class(0), 0);
    cr_assert_eq(dmsg_xfer_size_class((size_t)8 << 20), 0);
    cr_assert_eq(dmsg_xfer_size_class(DMSG_XFER_SMALL_PLANE), 0);
    cr_assert_eq(dmsg_xfer_size_class(DMSG_XFER_SMALL_PLANE + 1), 1);
    cr_assert_eq(dmsg_xfer_size_class((size_t)16 << 20), 1);
    cr_assert_eq(dmsg_xfer_class(4), 0);
    cr_assert_eq(dmsg_xfer_class(8), 1);
    cr_assert_eq(dmsg_xfer_class(12), 1);
    cr_assert_eq(dmsg_xfer_class(16), 2);
}

/* A profile reads back as written; a file that is not a profile is an
 * error with a reason and leaves the caller's profile as it was. */
/* Each text in bad, written to path, is refused by dmsg_xfer_profile_read
 * with a reason, and leaves *r as it was. */
static void expect_refused(const char *path, const char *const *bad, size_t n, dmsg_xfer_profile *r)
{
    char err[256];
    for (size_t i = 0; i < n; i++) {
        FILE *f = fopen(path, "w");
        cr_assert(f);
        fputs(bad[i], f);
        fclose(f);
        dmsg_xfer_profile keep = *r;
        err[0] = 0;
        cr_assert_eq(detail(dmsg_xfer_profile_read(path, r), err, sizeof err), DMSG_ERR_ARG,
                     "case %zu", i);
        cr_assert_gt(strlen(err), 0, "case %zu: no reason given", i);
        cr_assert_eq(memcmp(&keep, r, sizeof *r), 0, "case %zu changed the profile", i);
    }
}

Test(tune, profile_round_trip_and_bad_files)
{
    char path[] = "/tmp/dmsg-test-profile-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    dmsg_xfer_profile w = {0}, r = {0};
    dmsg_xfer_host_key(w.key, sizeof w.key);
    cr_assert_gt(strlen(w.key), 0);
    w.tune[0][0] = (dmsg_xfer_choice){16384, DMSG_XFER_BLOCKS_ON};
    w.tune[2][1] = (dmsg_xfer_choice){2048, DMSG_XFER_BLOCKS_OFF};
    cr_assert_eq(dmsg_xfer_profile_write(path, &w), DMSG_OK);
    char err[256] = "";
    cr_assert_eq(detail(dmsg_xfer_profile_read(path, &r), err, sizeof err), DMSG_OK, "%s", err);
    cr_assert_str_eq(r.key, w.key);
    cr_assert_eq(memcmp(r.tune, w.tune, sizeof r.tune), 0);

#define ALL6(E4S)                                                                                  \
    E4S "elem 4 plane large tile 0 blocks 0\nelem 8 plane small tile 0 blocks 0\n"              \
        "elem 8 plane large tile 0 blocks 0\nelem 16 plane small tile 0 blocks 0\n"             \
        "elem 16 plane large tile 0 blocks 0\n"
    static const char *const bad[] = {
        "key = x\n" ALL6(""),                                              /* a class missing */
        ALL6("elem 4 plane small tile 0 blocks 0\n"),                      /* no key */
        "key = x\n" ALL6("elem 4 plane small tile 100 blocks 0\n"),       /* tile too small */
        "key = x\n" ALL6("elem 4 plane huge tile 0 blocks 0\n"),          /* no such plane */
        "key = x\n" ALL6("elem 5 plane small tile 0 blocks 0\n"),
        "key = x\n" ALL6("elem 4 plane small tile 4096 blocks 7\n"),
        "key = x\n" ALL6("elem 4 plane small tile 4096 blocks 1 junk\n"),
        "key = x\n" ALL6("elem 4 tile 4096 blocks 1\n"),                  /* no plane */
    };
    /* The good case of the same text reads. */
    {
        FILE *f = fopen(path, "w");
        cr_assert(f);
        fputs("key = x\n" ALL6("elem 4 plane small tile 4096 blocks 1   # a comment\n"), f);
        fclose(f);
        dmsg_xfer_profile g;
        cr_assert_eq(detail(dmsg_xfer_profile_read(path, &g), err, sizeof err), DMSG_OK, "%s", err);
        cr_assert_eq(g.tune[0][0].tile_bytes, 4096);
        cr_assert_eq(g.tune[0][0].blocks, DMSG_XFER_BLOCKS_ON);
    }
    expect_refused(path, bad, sizeof bad / sizeof bad[0], &r);
    unlink(path);
    cr_assert_eq(detail(dmsg_xfer_profile_read(path, &r), err, sizeof err), DMSG_ERR_ARG);
}

/* The library applies a profile only when it was measured on this kind of
 * host (same CPU model and caches). */
Test(tune, profile_applies_only_to_its_host)
{
    char path[] = "/tmp/dmsg-test-profile-XXXXXX", why[1400];
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    dmsg_xfer_profile w = {0};
    snprintf(w.key, sizeof w.key, "Some Other CPU | L1d 32K L2 512K L3 32768K");
    w.tune[1][1] = (dmsg_xfer_choice){4096, DMSG_XFER_BLOCKS_OFF};
    cr_assert_eq(dmsg_xfer_profile_write(path, &w), DMSG_OK);
    setenv("DMSG_HOST_PROFILE", path, 1);
    dmsg_xfer_params xp = {0}, zero = {0};
    cr_assert_eq(dmsg_xfer_params_tune(&xp, why, sizeof why), 0);
    cr_assert_eq(memcmp(&xp, &zero, sizeof xp), 0);
    cr_assert(strstr(why, "another host"), "%s", why);

    dmsg_xfer_host_key(w.key, sizeof w.key);
    cr_assert_eq(dmsg_xfer_profile_write(path, &w), DMSG_OK);
    cr_assert_eq(dmsg_xfer_params_tune(&xp, why, sizeof why), 1, "%s", why);
    cr_assert_eq(xp.tune[1][1].tile_bytes, 4096);
    cr_assert_eq(xp.tune[1][1].blocks, DMSG_XFER_BLOCKS_OFF);
    cr_assert_eq(xp.tune[1][0].tile_bytes, 0);
    unsetenv("DMSG_HOST_PROFILE");
    unlink(path);
}

Test(copy, transpose_with_padding_and_reversal)
{
    for (size_t e = 0; e < NELEMS; e++) {
        ptrdiff_t z = (ptrdiff_t)elems[e];
        /* 70x45 block out of an 80-wide source array, into a 75-wide destination */
        dmsg_layout dl = LAY(2, 70, 45, z, 75 * z), sl = LAY(2, 70, 45, 80 * z, z);
        check_copy(&dl, &sl, elems[e], 512);
        dmsg_layout dr = LAY(2, 70, 45, -z, -75 * z), sr = LAY(2, 70, 45, -80 * z, z);
        check_copy(&dr, &sl, elems[e], 512);
        check_copy(&dl, &sr, elems[e], 512);
        check_copy(&dr, &sr, elems[e], 0);
    }
}

Test(copy, three_and_four_d)
{
    static const int perms3[][3] = {{0, 1, 2}, {1, 0, 2}, {2, 1, 0}, {1, 2, 0}, {2, 0, 1}};
    static const int perms4[][4] = {{0, 1, 2, 3}, {3, 2, 1, 0}, {1, 0, 3, 2}, {2, 3, 0, 1},
                                    {0, 3, 1, 2}};
    const size_t c3[3] = {9, 70, 13}, c4[4] = {5, 6, 7, 33};
    for (size_t e = 0; e < NELEMS; e++) {
        size_t z = elems[e];
        for (size_t p = 0; p < sizeof perms3 / sizeof perms3[0]; p++) {
            dmsg_layout sl = permuted(3, c3, perms3[p], z);
            size_t dc[3] = {sl.count[0], sl.count[1], sl.count[2]};
            dmsg_layout dl = contiguous(3, dc, z);
            check_copy(&dl, &sl, z, 0);
            check_copy(&sl, &dl, z, 300);
        }
        for (size_t p = 0; p < sizeof perms4 / sizeof perms4[0]; p++) {
            dmsg_layout sl = permuted(4, c4, perms4[p], z);
            size_t dc[4] = {sl.count[0], sl.count[1], sl.count[2], sl.count[3]};
            dmsg_layout dl = contiguous(4, dc, z);
            check_copy(&dl, &sl, z, 0);
            check_copy(&sl, &dl, z, 700);
        }
    }
}

Test(copy, different_shapes)
{
    for (size_t e = 0; e < NELEMS; e++) {
        ptrdiff_t z = (ptrdiff_t)elems[e];
        dmsg_layout flat = LAY(1, 12, z), m34 = LAY(2, 3, 4, z, 3 * z);
        dmsg_layout m26 = LAY(2, 2, 6, 2 * z, 5 * z), m43t = LAY(2, 4, 3, 3 * z, z);
        dmsg_layout m62p = LAY(3, 6, 1, 2, 2 * z, 1000, 20 * z);
        check_copy(&flat, &m34, z, 0);
        check_copy(&m34, &flat, z, 0);
        check_copy(&m34, &m26, z, 0); /* 3 does not divide 2: generic walker */
        check_copy(&m26, &m43t, z, 0);
        check_copy(&m43t, &m62p, z, 0);
        check_copy(&flat, &m43t, z, 0);
        /* a reshape that refines into a transpose: 60x40 into 2400 contiguous */
        dmsg_layout big = LAY(1, 2400, z), bigt = LAY(2, 60, 40, 40 * z, z);
        check_copy(&big, &bigt, z, 512);
        dmsg_layout d3 = LAY(3, 30, 2, 40, z, 30 * z, 60 * z);
        check_copy(&d3, &bigt, z, 512);
        /* 8-D into 1-D and back */
        dmsg_layout d8 = LAY(8, 2, 3, 2, 1, 2, 3, 1, 2, z, 2 * z, 6 * z, 12 * z, 12 * z,
                             24 * z, 72 * z, 72 * z);
        dmsg_layout d1 = LAY(1, 144, 2 * z);
        check_copy(&d8, &d1, z, 0);
        check_copy(&d1, &d8, z, 0);
    }
}

/* Random shapes: a random contiguous array viewed through a random
 * permutation with random reversals, copied into a random factorization of
 * the same total with padding. Deterministic seed. */
static dmsg_layout random_view(size_t total_out[1], size_t z)
{
    int nd = 1 + (int)(rnd() % 4);
    size_t c[4];
    int perm[4] = {0, 1, 2, 3};
    for (int d = 0; d < nd; d++)
        c[d] = 1 + rnd() % 9;
    for (int d = nd - 1; d > 0; d--) {
        int j = (int)(rnd() % (unsigned)(d + 1)), t = perm[d];
        perm[d] = perm[j];
        perm[j] = t;
    }
    dmsg_layout l = permuted(nd, c, perm, z);
    size_t total = 1;
    for (int d = 0; d < nd; d++) {
        total *= c[d];
        if (rnd() % 3 == 0)
            l.stride[d] = -l.stride[d];
    }
    total_out[0] = total;
    return l;
}

static dmsg_layout random_factorization(size_t total, size_t z)
{
    dmsg_layout l = {.ndims = 0};
    ptrdiff_t s = (ptrdiff_t)z * (ptrdiff_t)(1 + rnd() % 2);
    while (l.ndims < DMSG_MAX_DIMS - 1 && total > 1) {
        size_t f = 1 + rnd() % 6;
        if (total % f)
            continue;
        l.count[l.ndims] = f;
        l.stride[l.ndims++] = s;
        s *= (ptrdiff_t)(f + rnd() % 2);
        total /= f;
    }
    l.count[l.ndims] = total;
    l.stride[l.ndims++] = s;
    return l;
}

Test(copy, random_shapes)
{
    rng_state = 777;
    for (int it = 0; it < 400; it++) {
        size_t z = elems[rnd() % NELEMS], total;
        dmsg_layout sl = random_view(&total, z);
        dmsg_layout dl = random_factorization(total, z);
        check_copy(&dl, &sl, z, 64 + rnd() % 1024);
        if (it % 2) /* also with the permuted view as the destination */
            check_copy(&sl, &dl, z, 0);
    }
}

Test(copy, copy_sect_directly)
{
    /* a normalized transpose with a folded element: 8-byte pairs of 4 */
    dmsg_layout dl = LAY(3, 2, 40, 30, 4, 8, 320), sl = LAY(3, 2, 40, 30, 4, 240, 8);
    dmsg_sect s;
    cr_assert_eq(dmsg_sect_normalize(&s, &dl, &sl, 4), 1);
    cr_expect_eq(s.nd, 2);
    cr_expect_eq(s.elem, 8);
    check_copy(&dl, &sl, 4, 256);
}

/* Large transposed planes of 8- and 16-byte elements take the
 * streaming-store kernels where every destination row starts on a cache
 * line (the built-in thresholds: 8-byte elements from
 * DMSG_XFER_STREAM_FROM_8 a side, in register blocks, 16-byte ones from
 * DMSG_XFER_STREAM_FROM_16): the kernels' pattern, block q of R x 2R row-major halves into
 * the other half's columns, at power-of-two and ragged sizes (R not a
 * multiple of the 16-element tile, rows still whole lines), with the
 * destination on a line and off it (8 bytes: plain stores), a tile size
 * given or not. Every element is checked against the index rule, and the
 * bytes around the block must stay as they were. */
static void check_transpose_p(size_t R, size_t elem, size_t q, size_t dshift,
                              const dmsg_xfer_params *pp)
{
    size_t tile_bytes = pp->tile_bytes;
    size_t n = 2 * R, bytes = R * n * elem;
    uint64_t *src = malloc(bytes);
    char *raw = aligned_alloc(64, (bytes + 127) / 64 * 64); /* C11: a multiple of 64 */
    cr_assert(src && raw);
    char *dst = raw + dshift;
    size_t words = bytes / 8;
    for (size_t i = 0; i < words; i++)
        src[i] = i * 0x9E3779B97F4A7C15ull + 1;
    memset(dst, 0xEE, bytes);
    const ptrdiff_t e = (ptrdiff_t)elem, row = (ptrdiff_t)(n * elem);
    dmsg_layout sl = {.ndims = 2, .count = {R, R}, .stride = {e, row}};
    dmsg_layout dl = {.ndims = 2, .count = {R, R}, .stride = {row, e}};
    dmsg_copy_section(dst + q * R * elem, &dl, (const char *)src + q * R * elem, &sl, elem, pp);
    size_t bad = 0, first = (size_t)-1;
    const char *s = (const char *)src;
    for (size_t r = 0; r < R; r++)     /* dst row r */
        for (size_t c = 0; c < n; c++) { /* dst column c */
            const char *d = dst + (r * n + c) * elem;
            int ok;
            if (c / R == q) {
                ok = !memcmp(d, s + ((c % R) * n + q * R + r) * elem, elem);
            } else {
                ok = 1;
                for (size_t k = 0; k < elem; k++)
                    ok &= (unsigned char)d[k] == 0xEE;
            }
            if (!ok && bad++ == 0)
                first = r * n + c;
        }
    cr_assert_eq(bad, 0, "R %zu elem %zu q %zu shift %zu tile %zu kernel %d: %zu wrong, first at %zu",
                 R, elem, q, dshift, tile_bytes, pp->kernel, bad, first);
    free(src);
    free(raw);
}

static void check_large_transpose(size_t R, size_t elem, size_t q, size_t dshift,
                                  size_t tile_bytes)
{
    dmsg_xfer_params p = {.tile_bytes = tile_bytes};
    check_transpose_p(R, elem, q, dshift, &p);
}

Test(copy, large_transposes_stream)
{
    check_large_transpose(1024, 16, 1, 0, 0);
    check_large_transpose(512, 16, 1, 64, 0);    /* 4 MiB planes */
    check_large_transpose(1024, 16, 0, 8, 0);    /* off the line: plain stores */
    check_large_transpose(1004, 16, 1, 0, 0);    /* ragged tiles, whole-line rows */
    check_large_transpose(1001, 16, 0, 0, 3000); /* rows off the line, a tile size given */
    check_large_transpose(1280, 8, 1, 0, 0);
    check_large_transpose(1304, 8, 1, 64, 0);    /* ragged */
    check_large_transpose(1299, 8, 0, 8, 65536);
}

/* The streamed register-block kernels of 8-byte elements (copy_regblk.c),
 * each one this CPU has (SSE2 2x2 on every x86-64, AVX2 4x4 where the CPU
 * has it; a kernel the CPU lacks falls back to the best it has), with
 * streaming from the smallest plane on so that small planes take them
 * too: the index rule for every element and the bytes around the block
 * untouched, at sizes where the blocks cover the plane, where they leave
 * ragged rows and columns (R % 8 == 4: element rows finish the block's
 * edges), with the block at a line-aligned column offset (q = 1) and with
 * the destination off the line (no streaming: plain stores). */
Test(copy, streamed_register_blocks_8)
{
    static const size_t cases[][3] = {
        /* R, q, dshift */
        {64, 0, 0}, {64, 1, 0}, {72, 1, 0}, {100, 0, 0}, {1004, 0, 0},
        {1000, 1, 0}, {1024, 1, 0}, {96, 1, 8}, {100, 0, 24},
    };
    static const int kernels[] = {DMSG_XFER_KERNEL_AUTO, DMSG_XFER_KERNEL_SSE2,
                                  DMSG_XFER_KERNEL_AVX2};
    for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
        int got = -1;
        xfer_blk8_fn f = dmsg_xfer_regblk8(kernels[k], &got);
#if defined(__x86_64__)
        cr_assert(f != NULL, "x86-64 always has a streaming kernel");
        cr_assert(got == DMSG_XFER_KERNEL_SSE2 || got == DMSG_XFER_KERNEL_AVX2, "got %d", got);
        if (kernels[k] == DMSG_XFER_KERNEL_SSE2)
            cr_assert_eq(got, DMSG_XFER_KERNEL_SSE2);
        if (kernels[k] != DMSG_XFER_KERNEL_AUTO && got != kernels[k])
            cr_log_info("kernel %s not on this CPU: %s tested instead",
                        dmsg_xfer_kernel_name(kernels[k]), dmsg_xfer_kernel_name(got));
#endif
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            dmsg_xfer_params p = {.kernel = (uint8_t)kernels[k]};
            p.stream[dmsg_xfer_class(8)] = (dmsg_xfer_stream){DMSG_XFER_STREAM_ON, 0};
            check_transpose_p(cases[c][0], 8, cases[c][1], cases[c][2], &p);
            p.tile_bytes = 8192; /* a tile size given: 32 x 32 */
            check_transpose_p(cases[c][0], 8, cases[c][1], cases[c][2], &p);
        }
    }
}

/* Which planes stream: the built-in thresholds per element size, a
 * profile's choice (on from a size, or off) for its class only, never 4-byte
 * elements (no streaming kernel) or sizes other than 8 and 16. */
Test(tune, stream_rule)
{
#if defined(__x86_64__)
    dmsg_xfer_params p = {0};
    cr_assert_eq(dmsg_xfer_streams(NULL, 8, DMSG_XFER_STREAM_FROM_8), 1);
    cr_assert_eq(dmsg_xfer_streams(NULL, 8, DMSG_XFER_STREAM_FROM_8 - 1), 0);
    cr_assert_eq(dmsg_xfer_streams(&p, 16, DMSG_XFER_STREAM_FROM_16), 1);
    cr_assert_eq(dmsg_xfer_streams(&p, 16, DMSG_XFER_STREAM_FROM_16 - 1), 0);
    cr_assert_eq(dmsg_xfer_streams(&p, 4, (size_t)1 << 30), 0);
    cr_assert_eq(dmsg_xfer_streams(&p, 12, (size_t)1 << 30), 0);
    cr_assert_eq(dmsg_xfer_streams(&p, 32, (size_t)1 << 30), 0);
    p.stream[dmsg_xfer_class(8)] = (dmsg_xfer_stream){DMSG_XFER_STREAM_ON, 4096};
    p.stream[dmsg_xfer_class(16)] = (dmsg_xfer_stream){DMSG_XFER_STREAM_OFF, 0};
    cr_assert_eq(dmsg_xfer_streams(&p, 8, 4096), 1);
    cr_assert_eq(dmsg_xfer_streams(&p, 8, 4095), 0);
    cr_assert_eq(dmsg_xfer_streams(&p, 16, (size_t)1 << 30), 0);
#else
    cr_assert_eq(dmsg_xfer_streams(NULL, 8, (size_t)1 << 30), 0);
#endif
}

/* Stream lines of a profile: written only for the classes the profile
 * decides, read back as written; an older profile without them leaves the
 * built-in rule (AUTO); bad stream lines are errors that change nothing;
 * the library applies them and says so. */
Test(tune, profile_stream_lines)
{
    char path[] = "/tmp/dmsg-test-profile-XXXXXX", why[1400], err[256] = "";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    dmsg_xfer_profile w = {0}, r = {0};
    dmsg_xfer_host_key(w.key, sizeof w.key);
    w.stream[1] = (dmsg_xfer_stream){DMSG_XFER_STREAM_ON, 524288};
    w.stream[2] = (dmsg_xfer_stream){DMSG_XFER_STREAM_OFF, 0};
    w.stream_mbs[1][0] = 100, w.plain_mbs[1][0] = 50;
    cr_assert_eq(dmsg_xfer_profile_write(path, &w), DMSG_OK);
    cr_assert_eq(detail(dmsg_xfer_profile_read(path, &r), err, sizeof err), DMSG_OK, "%s", err);
    cr_assert_eq(r.stream[0].mode, DMSG_XFER_STREAM_AUTO);
    cr_assert_eq(r.stream[1].mode, DMSG_XFER_STREAM_ON);
    cr_assert_eq(r.stream[1].from, 524288);
    cr_assert_eq(r.stream[2].mode, DMSG_XFER_STREAM_OFF);

    setenv("DMSG_HOST_PROFILE", path, 1);
    dmsg_xfer_params xp = {0};
    cr_assert_eq(dmsg_xfer_params_tune(&xp, why, sizeof why), 1, "%s", why);
    cr_assert_eq(xp.stream[1].mode, DMSG_XFER_STREAM_ON);
    cr_assert_eq(xp.stream[1].from, 524288);
    cr_assert_eq(xp.stream[2].mode, DMSG_XFER_STREAM_OFF);
#if defined(__x86_64__)
    cr_assert(strstr(why, "8-byte from 512 KiB (profile)"), "%s", why);
    cr_assert(strstr(why, "16-byte never (profile)"), "%s", why);
#endif
    /* Without a profile the built-in rule is named, and nothing is set. */
    char none[sizeof path + 8];
    snprintf(none, sizeof none, "%s.none", path);
    setenv("DMSG_HOST_PROFILE", none, 1);
    dmsg_xfer_params bi = {0}, zero = {0};
    cr_assert_eq(dmsg_xfer_params_tune(&bi, why, sizeof why), 0, "%s", why);
    cr_assert_eq(memcmp(&bi, &zero, sizeof bi), 0);
#if defined(__x86_64__)
    cr_assert(strstr(why, "8-byte from 1024 KiB (built-in)"), "%s", why);
    cr_assert(strstr(why, "16-byte from 4096 KiB (built-in)"), "%s", why);
    cr_assert(strstr(why, "4-byte never (no kernel)"), "%s", why);
#endif
    unsetenv("DMSG_HOST_PROFILE");

#define SIX                                                                                        \
    "key = x\nelem 4 plane small tile 0 blocks 0\nelem 4 plane large tile 0 blocks 0\n"           \
    "elem 8 plane small tile 0 blocks 0\nelem 8 plane large tile 0 blocks 0\n"                    \
    "elem 16 plane small tile 0 blocks 0\nelem 16 plane large tile 0 blocks 0\n"
    {
        FILE *f = fopen(path, "w");
        cr_assert(f);
        fputs(SIX, f); /* an older profile: no stream lines */
        fclose(f);
        dmsg_xfer_profile g = {0};
        g.stream[1].mode = DMSG_XFER_STREAM_OFF;
        cr_assert_eq(detail(dmsg_xfer_profile_read(path, &g), err, sizeof err), DMSG_OK, "%s", err);
        for (int c = 0; c < DMSG_XFER_CLASSES; c++)
            cr_assert_eq(g.stream[c].mode, DMSG_XFER_STREAM_AUTO);
    }
    static const char *const bad[] = {
        SIX "elem 4 stream off\n",                           /* no streaming kernel */
        SIX "elem 8 stream on\n",                            /* no threshold */
        SIX "elem 8 stream on from\n",
        SIX "elem 8 stream maybe\n",
        SIX "elem 8 stream on from 1024 junk\n",
        SIX "elem 8 stream off now\n",
        SIX "elem 8 stream on after 1024\n",
        SIX "elem 16 stream on from 99999999999999999\n",     /* beyond any plane */
        SIX "elem 8 stream off\nelem 8 stream on from 64\n", /* twice */
    };
    expect_refused(path, bad, sizeof bad / sizeof bad[0], &r);
#undef SIX
    unlink(path);
}

/* The calibration's streaming decision: on from where streaming starts to
 * win for good (by 5% at that size), the threshold half that plane; off
 * when it never wins, wins only in between, or wins at the largest size by
 * less than 5%. */
Test(tune, stream_choice_from_timings)
{
    static const struct {
        double st[DMSG_XFER_STREAM_SIZES], pl[DMSG_XFER_STREAM_SIZES];
        int mode, at; /* at: the size index whose half is the threshold */
    } cases[] = {
        {{1, 1, 1, 1}, {2, 2, 2, 2}, DMSG_XFER_STREAM_ON, 0},       /* wins everywhere */
        {{3, 3, 1, 1}, {2, 2, 2, 2}, DMSG_XFER_STREAM_ON, 2},       /* from the third size */
        {{1, 3, 1, 1}, {2, 2, 2, 2}, DMSG_XFER_STREAM_ON, 2},       /* a loss in between */
        {{2, 1.97, 1, 1}, {2, 2, 2, 2}, DMSG_XFER_STREAM_ON, 2},    /* by less than 5% first */
        {{1, 1, 1, 3}, {2, 2, 2, 2}, DMSG_XFER_STREAM_OFF, 0},      /* loses the largest */
        {{3, 3, 3, 1.98}, {2, 2, 2, 2}, DMSG_XFER_STREAM_OFF, 0},   /* wins by 1% only */
        {{2, 2, 2, 2}, {2, 2, 2, 2}, DMSG_XFER_STREAM_OFF, 0},      /* even */
        {{3, 3, 3, 3}, {2, 2, 2, 2}, DMSG_XFER_STREAM_OFF, 0},      /* never */
    };
    for (int c = 1; c < DMSG_XFER_CLASSES; c++)
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            dmsg_xfer_stream got = dmsg_xfer_stream_choose(c, cases[i].st, cases[i].pl);
            cr_assert_eq(got.mode, cases[i].mode, "class %d case %zu", c, i);
            if (got.mode == DMSG_XFER_STREAM_ON)
                cr_assert_eq(got.from, dmsg_xfer_stream_plane(c, cases[i].at) / 2,
                             "class %d case %zu", c, i);
        }
    cr_assert_eq(dmsg_xfer_stream_plane(1, 0), (size_t)256 << 10); /* 256 x 128 x 8 */
    cr_assert_eq(dmsg_xfer_stream_plane(2, 3), (size_t)32 << 20);  /* 2048 x 1024 x 16 */
}
