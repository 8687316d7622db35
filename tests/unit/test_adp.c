/* Copy engine: indexed scatter/gather and address-data pair records. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>
#include "dmsg/xfer/xfer.h"

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(seed + i * 31u);
}

Test(indexed, index_max)
{
    const size_t idx[] = {3, 9, 0, 9, 2};
    cr_expect_eq(dmsg_index_max(idx, 5), 9);
    cr_expect_eq(dmsg_index_max(idx, 1), 3);
    cr_expect_eq(dmsg_index_max(idx, 0), 0);
}

Test(indexed, scatter_and_gather)
{
    static const size_t sizes[] = {4, 8, 16, 3, 1, 24};
    enum { N = 23, SLOTS = 50 };
    size_t idx[N];
    for (size_t i = 0; i < N; i++)
        idx[i] = (i * 7 + 3) % SLOTS; /* distinct, unordered */
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t e = sizes[k];
        unsigned char src[N * 24], dst[SLOTS * 24], want[SLOTS * 24], back[N * 24];
        fill(src, N * e, (unsigned)k);
        memset(dst, 0xAB, sizeof dst);
        memset(want, 0xAB, sizeof want);
        for (size_t i = 0; i < N; i++)
            memcpy(want + idx[i] * e, src + i * e, e);
        dmsg_copy_scatter((char *)dst, idx, (const char *)src, N, e);
        cr_expect_arr_eq(dst, want, sizeof dst, "scatter, elem %zu", e);

        memset(back, 0, sizeof back);
        dmsg_copy_gather((char *)back, (const char *)dst, idx, N, e);
        cr_expect_arr_eq(back, src, N * e, "gather, elem %zu", e);
    }
}

Test(indexed, gather_repeats_and_empty)
{
    const uint64_t src[4] = {10, 11, 12, 13};
    const size_t idx[5] = {3, 3, 0, 2, 3};
    uint64_t dst[5] = {0}, want[5] = {13, 13, 10, 12, 13};
    dmsg_copy_gather((char *)dst, (const char *)src, idx, 5, 8);
    cr_expect_arr_eq(dst, want, sizeof dst);
    dmsg_copy_gather((char *)dst, (const char *)src, idx, 0, 8); /* no-op */
    cr_expect_arr_eq(dst, want, sizeof dst);
}

Test(adp, records_4)
{
    uint32_t buf[8] = {0};
    dmsg_adp4 r[4] = {
        {.off = 0, .val = 0x11111111u, .pad = 0xFFFFFFFFu},
        {.off = 28, .val = 0x22222222u, .pad = 0xFFFFFFFFu},
        {.off = 8, .val = 0x33333333u, .pad = 0xFFFFFFFFu},
        {.off = 0, .val = 0x44444444u, .pad = 0xFFFFFFFFu}, /* repeated: last wins */
    };
    cr_assert_eq(dmsg_adp_check(r, 4, 4, sizeof buf), DMSG_OK);
    dmsg_copy_adp((char *)buf, r, 4, 4);
    uint32_t want[8] = {0x44444444u, 0, 0x33333333u, 0, 0, 0, 0, 0x22222222u};
    cr_expect_arr_eq(buf, want, sizeof buf, "pad must not be stored");
}

Test(adp, records_8)
{
    uint64_t buf[6] = {0};
    dmsg_adp8 r[5] = {{40, 1}, {16, 2}, {40, 3}, {0, 4}, {16, 5}};
    cr_assert_eq(dmsg_adp_check(r, 5, 8, sizeof buf), DMSG_OK);
    dmsg_copy_adp((char *)buf, r, 5, 8);
    uint64_t want[6] = {4, 0, 5, 0, 0, 3};
    cr_expect_arr_eq(buf, want, sizeof buf);
}

Test(adp, records_16)
{
    unsigned char buf[64], want[64];
    memset(buf, 0x5A, sizeof buf);
    memset(want, 0x5A, sizeof want);
    dmsg_adp16 r[3];
    r[0].off = 48;
    r[1].off = 16;
    r[2].off = 48;
    for (int i = 0; i < 3; i++)
        fill(r[i].val, 16, (unsigned)(i + 1) * 40u);
    memcpy(want + 16, r[1].val, 16);
    memcpy(want + 48, r[2].val, 16);
    cr_assert_eq(dmsg_adp_check(r, 3, 16, sizeof buf), DMSG_OK);
    dmsg_copy_adp((char *)buf, r, 3, 16);
    cr_expect_arr_eq(buf, want, sizeof buf);
}

Test(adp, check_errors)
{
    dmsg_adp8 r8[2] = {{0, 1}, {8, 2}};
    cr_expect_eq(dmsg_adp_check(r8, 2, 3, 64), DMSG_ERR_ARG, "elem 3");
    cr_expect_eq(dmsg_adp_check(r8, 2, 32, 64), DMSG_ERR_ARG, "elem 32");
    cr_expect_eq(dmsg_adp_check(r8, 2, 0, 64), DMSG_ERR_ARG, "elem 0");
    cr_expect_eq(dmsg_adp_check(r8, 0, 8, 0), DMSG_OK, "no records");
    cr_expect_eq(dmsg_adp_check(NULL, 0, 8, 64), DMSG_OK, "no records, NULL");

    r8[1].off = 12;
    cr_expect_eq(dmsg_adp_check(r8, 2, 8, 64), DMSG_ERR_ALIGN);
    r8[1].off = 56;
    cr_expect_eq(dmsg_adp_check(r8, 2, 8, 64), DMSG_OK, "last element exactly at the end");
    r8[1].off = 64;
    cr_expect_eq(dmsg_adp_check(r8, 2, 8, 64), DMSG_ERR_RANGE);
    r8[1].off = UINT64_MAX - 7; /* off + elem wraps around */
    cr_expect_eq(dmsg_adp_check(r8, 2, 8, 64), DMSG_ERR_RANGE);
    r8[1].off = 0;
    cr_expect_eq(dmsg_adp_check(r8, 2, 8, 4), DMSG_ERR_RANGE, "limit below one element");

    dmsg_adp4 r4[1] = {{.off = 2, .val = 1}};
    cr_expect_eq(dmsg_adp_check(r4, 1, 4, 64), DMSG_ERR_ALIGN);
    r4[0].off = 60;
    cr_expect_eq(dmsg_adp_check(r4, 1, 4, 64), DMSG_OK);

    dmsg_adp16 r16[1] = {{.off = 8}};
    cr_expect_eq(dmsg_adp_check(r16, 1, 16, 64), DMSG_ERR_ALIGN);
    r16[0].off = 48;
    cr_expect_eq(dmsg_adp_check(r16, 1, 16, 64), DMSG_OK);
    r16[0].off = 64;
    cr_expect_eq(dmsg_adp_check(r16, 1, 16, 64), DMSG_ERR_RANGE);
}
