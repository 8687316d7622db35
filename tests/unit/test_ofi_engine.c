/* The ofi deposit engine's message check: a peer's message is applied only
 * when every record lies inside the symmetric segment and the sizes add up.
 * Pure functions: no job, no provider. */
#include <criterion/criterion.h>
#include <string.h>
#include "dmsg/transport/ofi/ofi.h"

#define SEG 4096u

typedef struct msg {
    ofi_eng_hdr h;
    ofi_eng_rec r[4];
    char data[256];
} msg;

/* Builds a message of the given records followed by their data (0x5a bytes). */
static size_t build(msg *m, const ofi_eng_rec *r, uint32_t n, uint64_t sig)
{
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < n; i++)
        bytes += (uint64_t)r[i].len * r[i].count;
    m->h = (ofi_eng_hdr){.magic = OFI_ENG_MAGIC, .nrec = n, .sig = sig, .data_bytes = bytes};
    memcpy((char *)m + sizeof m->h, r, n * sizeof *r);
    memset((char *)m + sizeof m->h + n * sizeof *r, 0x5a, bytes);
    return sizeof m->h + n * sizeof *r + bytes;
}

Test(ofi_engine, applies_strided_records)
{
    static char seg[SEG];
    msg m;
    ofi_eng_rec r[2] = {{.off = 100, .len = 8, .count = 4, .stride = 64},
                        {.off = 1000, .len = 3, .count = 2, .stride = -10}};
    size_t len = build(&m, r, 2, 42);
    uint64_t sig = 0;
    cr_assert_eq(dmsg_ofi_engine_check(&m, len, SEG, &sig), DMSG_OK);
    cr_assert_eq(sig, 42);
    memset(seg, 0, sizeof seg);
    dmsg_ofi_engine_apply(seg, &m);
    for (int k = 0; k < 4; k++)
        cr_assert_eq(seg[100 + 64 * k + 7], 0x5a);
    cr_assert_eq(seg[100 + 8], 0);
    cr_assert_eq(seg[990], 0x5a);
    cr_assert_eq(seg[1002], 0x5a);
    cr_assert_eq(seg[993], 0);
}

Test(ofi_engine, refuses_records_outside_the_segment)
{
    msg m;
    uint64_t sig;
    const ofi_eng_rec bad[] = {
        {.off = SEG - 4, .len = 8, .count = 1, .stride = 0},     /* passes the end */
        {.off = 0, .len = 8, .count = 2, .stride = SEG},         /* second block outside */
        {.off = 8, .len = 8, .count = 2, .stride = -16},         /* below the start */
        {.off = UINT64_MAX - 2, .len = 8, .count = 1, .stride = 0}, /* wraps around */
        {.off = 0, .len = 0, .count = 1, .stride = 0},           /* empty block */
        {.off = 0, .len = 1, .count = 3, .stride = INT64_MAX},   /* stride overflow */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t len = build(&m, &bad[i], 1, 0);
        cr_assert_neq(dmsg_ofi_engine_check(&m, len, SEG, &sig), DMSG_OK, "record %zu accepted", i);
    }
}

Test(ofi_engine, refuses_inconsistent_sizes)
{
    msg m;
    uint64_t sig;
    ofi_eng_rec r = {.off = 0, .len = 8, .count = 2, .stride = 8};
    size_t len = build(&m, &r, 1, 0);
    cr_assert_neq(dmsg_ofi_engine_check(&m, len - 1, SEG, &sig), DMSG_OK);  /* data cut short */
    cr_assert_neq(dmsg_ofi_engine_check(&m, 8, SEG, &sig), DMSG_OK);        /* header cut */
    m.h.nrec = 1000000;
    cr_assert_neq(dmsg_ofi_engine_check(&m, len, SEG, &sig), DMSG_OK);      /* more records than bytes */
    build(&m, &r, 1, 0);
    m.h.magic = 0;
    cr_assert_neq(dmsg_ofi_engine_check(&m, len, SEG, &sig), DMSG_OK);
}
