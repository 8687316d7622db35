/* Address-data pair deposits of 4, 8 and 16-byte values, including repeated
 * offsets (the later record wins) and the ignored pad of dmsg_adp4. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pe.h"

#define PAD 64
#define SLOTS 256  /* elements in the target array */
#define N_REC 300  /* records: every slot once, then 44 overwrites */

static uint64_t rec_offset(size_t i, size_t es)
{
    /* 97 is coprime with 256: the first SLOTS records hit distinct slots. */
    return (uint64_t)((i * 97 + 5) % SLOTS) * es;
}

/* Builds the records PE `pe` sends for element size es (values from its pattern). */
static void *make_records(size_t es, int pe, uint32_t salt)
{
    size_t rs = dmsg_adp_record_size(es);
    unsigned char *recs = calloc(N_REC, rs);
    if (recs == NULL)
        return NULL;
    for (size_t i = 0; i < N_REC; i++) {
        unsigned char val[16];
        for (size_t b = 0; b < es; b++)
            val[b] = pe_pattern(pe, salt, i * es + b);
        unsigned char *r = recs + i * rs;
        uint64_t off = rec_offset(i, es);
        if (es == 4) {
            dmsg_adp4 a = {.off = off, .pad = 0xDEADBEEFu};
            memcpy(&a.val, val, 4);
            memcpy(r, &a, sizeof a);
        } else if (es == 8) {
            dmsg_adp8 a = {.off = off};
            memcpy(&a.val, val, 8);
            memcpy(r, &a, sizeof a);
        } else {
            dmsg_adp16 a = {.off = off};
            memcpy(a.val, val, 16);
            memcpy(r, &a, sizeof a);
        }
    }
    return recs;
}

/* Value bytes of record i, wherever the record type keeps them. */
static const unsigned char *rec_value(const unsigned char *recs, size_t i, size_t es)
{
    size_t rs = dmsg_adp_record_size(es);
    size_t voff = es == 4 ? offsetof(dmsg_adp4, val)
                          : es == 8 ? offsetof(dmsg_adp8, val) : offsetof(dmsg_adp16, val);
    return recs + i * rs + voff;
}

static int adp_one(size_t es, uint32_t salt, dmsg_ctr ctr)
{
    size_t area = SLOTS * es + 2 * PAD;
    char *recv = pe_alloc(area);
    PE_CHECK(recv != NULL, "alloc failed");
    unsigned char *recs = make_records(es, pe_me(), salt);
    char *img = malloc(area);
    PE_CHECK(recs != NULL && img != NULL, "malloc failed");
    memset(recv, PE_GUARD, area);
    PE_OK(dmsg_sync());

    PE_OK(dmsg_deposit_adp(recv + PAD, recs, N_REC, es, pe_up(1), ctr));
    PE_OK(dmsg_await(ctr, 1));
    uint64_t bytes = 0;
    PE_OK(dmsg_ctr_read(ctr, NULL, &bytes));
    PE_CHECK(bytes == N_REC * es, "adp elem %zu: counted bytes: expected %zu got %llu", es,
             (size_t)N_REC * es, (unsigned long long)bytes);
    PE_OK(dmsg_await_bytes(ctr, bytes));

    /* Apply the sender's records in order: later records win. */
    free(recs);
    recs = make_records(es, pe_down(1), salt);
    PE_CHECK(recs != NULL, "malloc failed");
    memset(img, PE_GUARD, area);
    for (size_t i = 0; i < N_REC; i++)
        memcpy(img + PAD + rec_offset(i, es), rec_value(recs, i, es), es);
    char what[96];
    snprintf(what, sizeof what, "adp deposit, elem size %zu, from PE %d", es, pe_down(1));
    PE_TRY(pe_check_equal(recv, img, area, what));
    PE_OK(dmsg_free(recv));
    free(recs);
    free(img);
    return 0;
}

static int adp_records(void)
{
    PE_CHECK(dmsg_adp_record_size(4) == sizeof(dmsg_adp4),
             "dmsg_adp_record_size(4): expected %zu got %zu", sizeof(dmsg_adp4),
             dmsg_adp_record_size(4));
    PE_CHECK(dmsg_adp_record_size(8) == sizeof(dmsg_adp8),
             "dmsg_adp_record_size(8): expected %zu got %zu", sizeof(dmsg_adp8),
             dmsg_adp_record_size(8));
    PE_CHECK(dmsg_adp_record_size(16) == sizeof(dmsg_adp16),
             "dmsg_adp_record_size(16): expected %zu got %zu", sizeof(dmsg_adp16),
             dmsg_adp_record_size(16));
    static const size_t bad[] = {0, 1, 2, 3, 12, 32};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        PE_CHECK(dmsg_adp_record_size(bad[i]) == 0,
                 "dmsg_adp_record_size(%zu): expected 0 got %zu", bad[i],
                 dmsg_adp_record_size(bad[i]));

    dmsg_ctr ctr;
    PE_OK(dmsg_ctr_create(&ctr));
    static const size_t es[] = {4, 8, 16};
    for (size_t i = 0; i < 3; i++)
        PE_TRY(adp_one(es[i], 9000 + (uint32_t)i, ctr));
    PE_OK(dmsg_ctr_destroy(ctr));
    return 0;
}

const pe_case pe_adp_cases[] = {
    {"adp_records", adp_records, 0},
    {NULL, NULL, 0},
};
