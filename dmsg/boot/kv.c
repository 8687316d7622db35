/* Key-value exchange of the start-up service (exchange.h). Over PMI each
 * put is a PMI put and a get a PMI get. Over the job region a PE's puts
 * collect in a private record list ([key length][key][value length, 2
 * bytes][value] ...) that the exchange all-gathers, so that a get is a
 * lookup in the gathered lists. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dmsg/boot/exchange.h"
#include "dmsg/boot/kvs.h"

#define KEY_MAX 32

static dmsg_status check_key(const char *key)
{
    size_t n = key ? strlen(key) : 0;
    if (n == 0 || n > KEY_MAX || strpbrk(key, " =\n"))
        return DMSG_FAIL(DMSG_ERR_ARG, "start-up key \"%s\"", key ? key : "(null)");
    return DMSG_OK;
}

static void pmi_key(char *out, size_t len, const char *key, int pe)
{
    snprintf(out, len, "dmsg-kv-%s-%d", key, pe);
}

dmsg_status dmsg_boot_put(dmsg_boot *b, const char *key, const void *val, size_t len)
{
    dmsg_status st = check_key(key);
    if (st)
        return st;
    if (len > DMSG_BOOT_VAL_MAX)
        return DMSG_FAIL(DMSG_ERR_ARG, "start-up value of %zu bytes", len);
    if (b->kind == DMSG_BOOT_PMI) {
        char k[64];
        pmi_key(k, sizeof k, key, b->rank);
        return dmsg_kvs_put_bytes(b->priv, k, val, len);
    }
    size_t klen = strlen(key), need = b->kv_len + 1 + klen + 2 + len;
    if (need > DMSG_BOOT_KV_MAX)
        return DMSG_FAIL(DMSG_ERR_ARG, "start-up puts exceed %d bytes", DMSG_BOOT_KV_MAX);
    if (!b->kv_mine && !(b->kv_mine = malloc(DMSG_BOOT_KV_MAX)))
        return DMSG_FAIL(DMSG_ERR_NOMEM, "start-up puts");
    unsigned char *p = b->kv_mine + b->kv_len;
    p[0] = (unsigned char)klen;
    memcpy(p + 1, key, klen);
    p[1 + klen] = (unsigned char)(len & 0xff);
    p[2 + klen] = (unsigned char)(len >> 8);
    memcpy(p + 3 + klen, val, len);
    b->kv_len = need;
    return DMSG_OK;
}

/* Region: every PE's list, padded to the longest, through the all-gather. */
static dmsg_status region_exchange(dmsg_boot *b)
{
    uint32_t mine = (uint32_t)b->kv_len, *lens = calloc((size_t)b->npes, sizeof *lens);
    unsigned char *pad = NULL, *all = NULL;
    dmsg_status st = DMSG_OK;
    if (!lens) {
        st = DMSG_FAIL(DMSG_ERR_NOMEM, "start-up exchange");
        goto out;
    }
    if ((st = dmsg_boot_allgather(b, &mine, sizeof mine, lens)))
        goto out_lens;
    size_t stride = 0;
    for (int p = 0; p < b->npes; p++)
        stride = lens[p] > stride ? lens[p] : stride;
    pad = calloc(1, stride + 1);
    all = calloc((size_t)b->npes, stride + 1);
    if (!pad || !all) {
        st = DMSG_FAIL(DMSG_ERR_NOMEM, "start-up exchange");
        goto out_bufs;
    }
    if (b->kv_len)
        memcpy(pad, b->kv_mine, b->kv_len);
    if (stride && (st = dmsg_boot_allgather(b, pad, stride, all)))
        goto out_bufs;
    free(b->kv_all);
    b->kv_all = all;
    b->kv_stride = stride;
    b->kv_len = 0;
    all = NULL;
out_bufs:
    free(all);
    free(pad);
out_lens:
    free(lens);
out:
    return st;
}

dmsg_status dmsg_boot_exchange(dmsg_boot *b)
{
    if (b->kind == DMSG_BOOT_PMI) {
        dmsg_status st = dmsg_kvs_commit(b->priv);
        return st ? st : dmsg_kvs_barrier(b->priv);
    }
    return region_exchange(b);
}

dmsg_status dmsg_boot_get(dmsg_boot *b, int pe, const char *key, void *val, size_t len)
{
    dmsg_status st = check_key(key);
    if (st)
        return st;
    if (pe < 0 || pe >= b->npes)
        return DMSG_FAIL(DMSG_ERR_PE, "start-up get from PE %d of %d", pe, b->npes);
    if (b->kind == DMSG_BOOT_PMI) {
        char k[64];
        pmi_key(k, sizeof k, key, pe);
        return dmsg_kvs_get_bytes(b->priv, pe, k, val, len);
    }
    size_t klen = strlen(key), at = 0;
    const unsigned char *list = b->kv_all ? b->kv_all + (size_t)pe * b->kv_stride : NULL;
    while (list && at + 3 <= b->kv_stride && list[at]) {
        size_t kl = list[at], vl = list[at + 1 + kl] | (size_t)list[at + 2 + kl] << 8;
        if (kl == klen && !memcmp(list + at + 1, key, klen)) {
            if (vl != len)
                return DMSG_FAIL(DMSG_ERR_ARG, "start-up value %s of PE %d has %zu bytes, not %zu",
                                 key, pe, vl, len);
            memcpy(val, list + at + 3 + kl, len);
            return DMSG_OK;
        }
        at += 3 + kl + vl;
    }
    return DMSG_FAIL(DMSG_ERR_ARG, "PE %d put no start-up value %s", pe, key);
}
