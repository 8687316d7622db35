/* Section deposits: strided n-D sections at both ends, transposes, negative
 * and zero source strides, and different shapes on the two sides. Each
 * deposit goes to the next PE on the ring and is checked against an
 * element-by-element reference copy, right after the counter says it landed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pe.h"

#define PAD 64

/* Element sizes every shape is tried with (3 is the odd one). */
static const size_t elem_sizes[] = {1, 3, 4, 8, 16};
#define N_ELEM_SIZES (sizeof elem_sizes / sizeof elem_sizes[0])

/* What the receiver expects: guard everywhere except the section elements. */
static char *expected_image(const dmsg_layout *dl, size_t dorg, size_t area, const dmsg_layout *sl,
                            size_t sorg, size_t sbytes, size_t es, int from, uint32_t salt)
{
    char *img = malloc(area);
    char *src = malloc(sbytes);
    if (img == NULL || src == NULL) {
        free(img);
        free(src);
        return NULL;
    }
    memset(img, PE_GUARD, area);
    pe_fill(src, sbytes, from, salt);
    pe_ref_section(img + PAD + dorg, dl, src + sorg, sl, es);
    free(src);
    return img;
}

/* One section deposit to the next PE, checked at the receiver. */
static int section_case(const dmsg_layout *dl, const dmsg_layout *sl, size_t es, uint32_t salt,
                        const char *shape)
{
    size_t dorg, dbytes, sorg, sbytes;
    pe_layout_extent(dl, es, &dorg, &dbytes);
    pe_layout_extent(sl, es, &sorg, &sbytes);
    size_t area = dbytes + 2 * PAD;
    size_t payload = pe_layout_total(dl) * es;

    char *recv = pe_alloc(area);
    PE_CHECK(recv != NULL, "alloc failed");
    dmsg_ctr ctr = DMSG_CTR_NONE;
    PE_OK(dmsg_ctr_create(&ctr));
    char *src = malloc(sbytes);
    PE_CHECK(src != NULL, "malloc failed");
    pe_fill(src, sbytes, pe_me(), salt);
    memset(recv, PE_GUARD, area);
    PE_OK(dmsg_sync());

    PE_OK(dmsg_deposit_section(recv + PAD + dorg, dl, src + sorg, sl, es, pe_up(1), ctr));
    PE_OK(dmsg_await(ctr, 1));
    uint64_t msgs = 99, bytes = 99;
    PE_OK(dmsg_ctr_read(ctr, &msgs, &bytes));
    PE_CHECK(msgs == 0 && bytes == payload,
             "%s elem %zu: counter after await: expected 0 msgs %zu bytes got %llu msgs %llu bytes",
             shape, es, payload, (unsigned long long)msgs, (unsigned long long)bytes);

    char *img = expected_image(dl, dorg, area, sl, sorg, sbytes, es, pe_down(1), salt);
    PE_CHECK(img != NULL, "malloc failed");
    char what[128];
    snprintf(what, sizeof what, "%s section, elem size %zu, from PE %d", shape, es, pe_down(1));
    PE_TRY(pe_check_equal(recv, img, area, what));

    PE_OK(dmsg_ctr_destroy(ctr));
    PE_OK(dmsg_free(recv));
    free(img);
    free(src);
    return 0;
}

/* Layout builders take the element size; strides are in elements times es. */
typedef struct shape {
    const char *name;
    void (*make)(size_t es, dmsg_layout *dl, dmsg_layout *sl);
} shape;

static int run_shapes(const shape *shapes, size_t n, uint32_t salt)
{
    for (size_t i = 0; i < n; i++) {
        for (size_t e = 0; e < N_ELEM_SIZES; e++) {
            dmsg_layout dl, sl;
            shapes[i].make(elem_sizes[e], &dl, &sl);
            PE_TRY(section_case(&dl, &sl, elem_sizes[e], salt++, shapes[i].name));
        }
    }
    return 0;
}

#define ES(k) ((ptrdiff_t)(k) * (ptrdiff_t)es)

static void s1d_both(size_t es, dmsg_layout *dl, dmsg_layout *sl)
{
    *dl = pe_l1(100, ES(2));
    *sl = pe_l1(100, ES(3));
}
static void s1d_dst(size_t es, dmsg_layout *dl, dmsg_layout *sl)
{
    *dl = pe_l1(77, ES(5));
    *sl = pe_l1(77, ES(1));
}
static void s1d_src(size_t es, dmsg_layout *dl, dmsg_layout *sl)
{
    *dl = pe_l1(77, ES(1));
    *sl = pe_l1(77, ES(4));
}

static int section_1d(void)
{
    static const shape shapes[] = {
        {"1-D strided both", s1d_both},
        {"1-D strided dst", s1d_dst},
        {"1-D strided src", s1d_src},
    };
    return run_shapes(shapes, sizeof shapes / sizeof shapes[0], 1000);
}

/* A 9 x 7 block inside a 25-wide array, from a strided 2-D source. */
static void s2d_block(size_t es, dmsg_layout *dl, dmsg_layout *sl)
{
    *dl = pe_l2(9, ES(1), 7, ES(25));
    *sl = pe_l2(9, ES(2), 7, ES(31));
}
/* Whole contiguous rows on both sides (foldable into one block). */
static void s2d_rows(size_t es, dmsg_layout *dl, dmsg_layout *sl)
{
    *dl = pe_l2(16, ES(1), 10, ES(16));
    *sl = pe_l2(16, ES(1), 10, ES(16));
}
/* Outer dimension innermost in memory on the destination. */
static void s2d_swapped(size_t es, dmsg_layout *dl, dmsg_layout *sl)
{
    *dl = pe_l2(6, ES(8), 8, ES(1));
    *sl = pe_l2(6, ES(1), 8, ES(6));
}

static int section_2d(void)
{
    static const shape shapes[] = {
        {"2-D block", s2d_block},
        {"2-D rows", s2d_rows},
        {"2-D swapped", s2d_swapped},
    };
    return run_shapes(shapes, sizeof shapes / sizeof shapes[0], 2000);
}

static void s3d_box(size_t es, dmsg_layout *dl, dmsg_layout *sl)
{
    *dl = pe_l3(5, ES(1), 4, ES(11), 3, ES(11 * 13));
    *sl = pe_l3(5, ES(3), 4, ES(17), 3, ES(70));
}
/* Unit counts with arbitrary strides must be ignored. */
static void s3d_units(size_t es, dmsg_layout *dl, dmsg_layout *sl)
{
    *dl = pe_l3(1, ES(1000), 24, ES(2), 1, ES(7));
    *sl = pe_l3(24, ES(1), 1, ES(3), 1, ES(-5));
}

static int section_3d(void)
{
    static const shape shapes[] = {
        {"3-D box", s3d_box},
        {"3-D with unit counts", s3d_units},
    };
    return run_shapes(shapes, sizeof shapes / sizeof shapes[0], 3000);
}

/* Block transpose: same counts, swapped strides. */
static void t_small(size_t es, dmsg_layout *dl, dmsg_layout *sl)
{
    *sl = pe_l2(12, ES(1), 16, ES(12));
    *dl = pe_l2(12, ES(16), 16, ES(1));
}
/* Large enough to need cache tiling in the copy engine (~ 0.5 MB at 8 bytes). */
static void t_large(size_t es, dmsg_layout *dl, dmsg_layout *sl)
{
    *sl = pe_l2(300, ES(1), 200, ES(300));
    *dl = pe_l2(300, ES(200), 200, ES(1));
}
/* Transposing a sub-block of larger row-major arrays on both sides. */
static void t_sub(size_t es, dmsg_layout *dl, dmsg_layout *sl)
{
    *sl = pe_l2(33, ES(1), 45, ES(40));
    *dl = pe_l2(33, ES(50), 45, ES(1));
}

static int section_transpose(void)
{
    static const shape shapes[] = {
        {"transpose 12x16", t_small},
        {"transpose 300x200", t_large},
        {"transpose sub-block", t_sub},
    };
    return run_shapes(shapes, sizeof shapes / sizeof shapes[0], 4000);
}

/* Negative and zero strides are allowed on the source side. */
static void n_reverse(size_t es, dmsg_layout *dl, dmsg_layout *sl)
{
    *dl = pe_l1(100, ES(1));
    *sl = pe_l1(100, ES(-1));
}
static void n_rows_flipped(size_t es, dmsg_layout *dl, dmsg_layout *sl)
{
    *dl = pe_l2(9, ES(1), 7, ES(9));
    *sl = pe_l2(9, ES(1), 7, ES(-20));
}
static void n_both_negative(size_t es, dmsg_layout *dl, dmsg_layout *sl)
{
    *dl = pe_l2(9, ES(2), 7, ES(19));
    *sl = pe_l2(9, ES(-2), 7, ES(-30));
}
static void n_zero(size_t es, dmsg_layout *dl, dmsg_layout *sl)
{
    *dl = pe_l2(5, ES(1), 10, ES(6));
    *sl = pe_l2(5, ES(1), 10, 0); /* one source row broadcast to 10 rows */
}

static int section_negative(void)
{
    static const shape shapes[] = {
        {"reversed 1-D source", n_reverse},
        {"rows flipped", n_rows_flipped},
        {"both source strides negative", n_both_negative},
        {"zero source stride", n_zero},
    };
    return run_shapes(shapes, sizeof shapes / sizeof shapes[0], 5000);
}

/* Different shapes on the two sides, equal element totals (row-major match). */
static void r_1d_to_3d(size_t es, dmsg_layout *dl, dmsg_layout *sl)
{
    *sl = pe_l1(60, ES(1));
    *dl = pe_l3(3, ES(2), 4, ES(7), 5, ES(30));
}
static void r_2d_to_1d(size_t es, dmsg_layout *dl, dmsg_layout *sl)
{
    *sl = pe_l2(6, ES(1), 10, ES(8));
    *dl = pe_l1(60, ES(3));
}
static void r_3d_to_2d(size_t es, dmsg_layout *dl, dmsg_layout *sl)
{
    *sl = pe_l3(2, ES(1), 3, ES(2), 10, ES(6));
    *dl = pe_l2(4, ES(1), 15, ES(5));
}
static void r_2d_to_2d(size_t es, dmsg_layout *dl, dmsg_layout *sl)
{
    *sl = pe_l2(12, ES(1), 5, ES(13));
    *dl = pe_l2(10, ES(2), 6, ES(21));
}

static int section_reshape(void)
{
    static const shape shapes[] = {
        {"1-D to 3-D", r_1d_to_3d},
        {"2-D to 1-D", r_2d_to_1d},
        {"3-D to 2-D", r_3d_to_2d},
        {"12x5 to 10x6", r_2d_to_2d},
    };
    return run_shapes(shapes, sizeof shapes / sizeof shapes[0], 6000);
}

const pe_case pe_section_cases[] = {
    {"section_1d", section_1d, 0},
    {"section_2d", section_2d, 0},
    {"section_3d", section_3d, 0},
    {"section_transpose", section_transpose, 0},
    {"section_negative", section_negative, 0},
    {"section_reshape", section_reshape, 0},
    {NULL, NULL, 0},
};
