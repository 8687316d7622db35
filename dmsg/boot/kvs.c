/* One interface over the PMI-1 and PMIx clients (see kvs.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dmsg/boot/kvs.h"
#include "dmsg/boot/pmi.h"
#include "dmsg/boot/pmix.h"

struct dmsg_kvs {
    dmsg_pmi *pmi; /* exactly one of the two is set */
    dmsg_pmix *pmix;
};

dmsg_status dmsg_kvs_open(dmsg_kvs_proto proto, const char *pmix_library, dmsg_kvs **out,
                          int *rank, int *size, double timeout)
{
    dmsg_kvs *k = calloc(1, sizeof *k);
    if (!k)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "out of memory (process manager connection)");
    dmsg_status st;
    if (proto == DMSG_KVS_PMIX) {
        st = dmsg_pmix_init(&k->pmix, pmix_library, rank, size, timeout);
    } else {
        st = dmsg_pmi_init(&k->pmi, rank, size, timeout);
        if (st)
            st = DMSG_FAIL(st, "PMI start-up failed: %s (DMSG_DEBUG=1 says where)",
                           dmsg_strerror(st));
    }
    if (st) {
        free(k);
        return st;
    }
    *out = k;
    return DMSG_OK;
}

dmsg_status dmsg_kvs_put(dmsg_kvs *k, const char *key, const char *val)
{
    return k->pmix ? dmsg_pmix_put(k->pmix, key, val) : dmsg_pmi_put(k->pmi, key, val);
}

dmsg_status dmsg_kvs_commit(dmsg_kvs *k)
{
    return k->pmix ? dmsg_pmix_commit(k->pmix) : dmsg_pmi_commit(k->pmi);
}

dmsg_status dmsg_kvs_barrier(dmsg_kvs *k)
{
    return k->pmix ? dmsg_pmix_barrier(k->pmix) : dmsg_pmi_barrier(k->pmi);
}

dmsg_status dmsg_kvs_get(dmsg_kvs *k, int rank, const char *key, char *val, size_t len)
{
    /* PMI-1 keys are global to the job (the caller puts the rank in the key). */
    return k->pmix ? dmsg_pmix_get(k->pmix, rank, key, val, len)
                   : dmsg_pmi_get(k->pmi, key, val, len);
}

void dmsg_kvs_close(dmsg_kvs *k)
{
    if (!k)
        return;
    if (k->pmix)
        dmsg_pmix_finalize(k->pmix);
    else
        dmsg_pmi_finalize(k->pmi);
    free(k);
}

/* Binary values travel as hex text: PMI values are words without spaces or '='. */
static void hex(char *dst, const unsigned char *src, size_t n)
{
    static const char d[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        dst[2 * i] = d[src[i] >> 4];
        dst[2 * i + 1] = d[src[i] & 15];
    }
    dst[2 * n] = '\0';
}

static int unhex(unsigned char *dst, const char *src, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned v = 0;
        for (int k = 0; k < 2; k++) {
            char c = src[2 * i + k];
            v <<= 4;
            if (c >= '0' && c <= '9')
                v |= (unsigned)(c - '0');
            else if (c >= 'a' && c <= 'f')
                v |= (unsigned)(c - 'a' + 10);
            else
                return -1;
        }
        dst[i] = (unsigned char)v;
    }
    return 0;
}

dmsg_status dmsg_kvs_put_bytes(dmsg_kvs *k, const char *key, const void *val, size_t len)
{
    char text[2 * DMSG_KVS_BYTES_MAX + 1];
    if (len > DMSG_KVS_BYTES_MAX)
        return DMSG_FAIL(DMSG_ERR_ARG, "process manager value of %zu bytes", len);
    hex(text, val, len);
    return dmsg_kvs_put(k, key, text);
}

dmsg_status dmsg_kvs_get_bytes(dmsg_kvs *k, int rank, const char *key, void *val, size_t len)
{
    char text[2 * DMSG_KVS_BYTES_MAX + 2];
    dmsg_status st = dmsg_kvs_get(k, rank, key, text, sizeof text);
    if (st)
        return st;
    if (strlen(text) != 2 * len || unhex(val, text, len))
        return DMSG_FAIL(DMSG_ERR_ARG, "process manager: value of %s is not %zu bytes", key, len);
    return DMSG_OK;
}
