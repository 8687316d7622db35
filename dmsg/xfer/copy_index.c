/* Indexed (scatter, gather) and address-data pair copies. Indices and offsets
 * are checked by the caller (index_max, adp_check) before anything is
 * written; these loops only move data. */
#include <string.h>
#include "dmsg/xfer/xfer_impl.h"

size_t dmsg_index_max(const size_t *idx, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (idx[i] > m)
            m = idx[i];
    return m;
}

/* Fixed-size element moves for the common sizes; the index multiply and the
 * memcpy of a constant size compile to an address computation and a move. */
#define XFER_SCATTER(K)                                                                        \
    static void scatter_##K(char *dst, const size_t *idx, const char *src, size_t n)          \
    {                                                                                          \
        for (size_t i = 0; i < n; i++)                                                         \
            memcpy(dst + idx[i] * K, src + i * K, K);                                          \
    }
#define XFER_GATHER(K)                                                                         \
    static void gather_##K(char *dst, const char *src, const size_t *idx, size_t n)           \
    {                                                                                          \
        for (size_t i = 0; i < n; i++)                                                         \
            memcpy(dst + i * K, src + idx[i] * K, K);                                          \
    }
XFER_SCATTER(4)
XFER_SCATTER(8)
XFER_SCATTER(16)
XFER_GATHER(4)
XFER_GATHER(8)
XFER_GATHER(16)

void dmsg_copy_scatter(char *dst_base, const size_t *idx, const char *src, size_t n, size_t elem)
{
    switch (elem) {
    case 4: scatter_4(dst_base, idx, src, n); return;
    case 8: scatter_8(dst_base, idx, src, n); return;
    case 16: scatter_16(dst_base, idx, src, n); return;
    default:
        for (size_t i = 0; i < n; i++)
            memcpy(dst_base + idx[i] * elem, src + i * elem, elem);
    }
}

void dmsg_copy_gather(char *dst, const char *src_base, const size_t *idx, size_t n, size_t elem)
{
    switch (elem) {
    case 4: gather_4(dst, src_base, idx, n); return;
    case 8: gather_8(dst, src_base, idx, n); return;
    case 16: gather_16(dst, src_base, idx, n); return;
    default:
        for (size_t i = 0; i < n; i++)
            memcpy(dst + i * elem, src_base + idx[i] * elem, elem);
    }
}

/* Offset of record i; the record types differ only in the value's size. */
static uint64_t adp_off(const void *recs, size_t i, size_t elem)
{
    switch (elem) {
    case 4: return ((const dmsg_adp4 *)recs)[i].off;
    case 8: return ((const dmsg_adp8 *)recs)[i].off;
    default: return ((const dmsg_adp16 *)recs)[i].off;
    }
}

dmsg_status dmsg_adp_check(const void *recs, size_t n, size_t elem, size_t limit)
{
    if (elem != 4 && elem != 8 && elem != 16)
        return DMSG_FAIL(DMSG_ERR_ARG, "address-data element size %zu not 4, 8 or 16", elem);
    if (n > 0 && !recs)
        return DMSG_FAIL(DMSG_ERR_NULL, "address-data records are NULL");
    for (size_t i = 0; i < n; i++) {
        uint64_t off = adp_off(recs, i, elem);
        if (off % elem)
            return DMSG_FAIL(DMSG_ERR_ALIGN, "record %zu: offset %llu not a multiple of %zu", i,
                             (unsigned long long)off, elem);
        /* off + elem <= limit, written so that it cannot overflow. */
        if (limit < elem || off > limit - elem)
            return DMSG_FAIL(DMSG_ERR_RANGE, "record %zu: offset %llu + %zu beyond %zu", i,
                             (unsigned long long)off, elem, limit);
    }
    return DMSG_OK;
}

void dmsg_copy_adp(char *dst_base, const void *recs, size_t n, size_t elem)
{
    /* In array order, so a later record for the same offset wins. */
    switch (elem) {
    case 4: {
        const dmsg_adp4 *r = recs;
        for (size_t i = 0; i < n; i++)
            memcpy(dst_base + r[i].off, &r[i].val, 4);
        return;
    }
    case 8: {
        const dmsg_adp8 *r = recs;
        for (size_t i = 0; i < n; i++)
            memcpy(dst_base + r[i].off, &r[i].val, 8);
        return;
    }
    case 16: {
        const dmsg_adp16 *r = recs;
        for (size_t i = 0; i < n; i++)
            memcpy(dst_base + r[i].off, r[i].val, 16);
        return;
    }
    default: return;
    }
}

size_t dmsg_adp_record_size(size_t elem_size)
{
    switch (elem_size) {
    case 4: return sizeof(dmsg_adp4);
    case 8: return sizeof(dmsg_adp8);
    case 16: return sizeof(dmsg_adp16);
    default: return 0;
    }
}
