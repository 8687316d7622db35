/* Start-up exchange of endpoint names, region addresses and keys: through
 * the job region under dmsgrun (its all-gather; no data ever moves through
 * the mapping), through the process manager's key-value pairs (PMI under
 * MPICH's mpiexec, PMIx under Open MPI's mpirun or srun). */
#include <stdio.h>
#include <string.h>
#include "dmsg/boot/kvs.h"
#include "dmsg/transport/ofi/ofi.h"

static dmsg_status via_region(dmsg_tp *tp, const void *mine, size_t len, void *all)
{
    char in[OFI_GATHER_LEN], *out = all;
    char row[DMSG_MAX_PES][OFI_GATHER_LEN];
    int npes = tp->npes;
    for (size_t at = 0; at < len; at += OFI_GATHER_LEN) {
        size_t n = len - at < OFI_GATHER_LEN ? len - at : OFI_GATHER_LEN;
        memset(in, 0, sizeof in);
        memcpy(in, (const char *)mine + at, n);
        dmsg_status st = shm_allgather(tp, in, OFI_GATHER_LEN, row);
        if (st)
            return st;
        for (int p = 0; p < npes; p++)
            memcpy(out + (size_t)p * len + at, row[p], n);
    }
    return DMSG_OK;
}

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

static dmsg_status via_pmi(dmsg_kvs *pmi, int rank, int npes, const void *mine, size_t len,
                           void *all)
{
    char key[64], val[2 * 256 + 1];
    if (len > 256)
        return DMSG_FAIL(DMSG_ERR_ARG, "PMI exchange of %zu bytes", len);
    snprintf(key, sizeof key, "dmsg-ofi-%d", rank);
    hex(val, mine, len);
    dmsg_status st;
    if ((st = dmsg_kvs_put(pmi, key, val)) || (st = dmsg_kvs_commit(pmi)) ||
        (st = dmsg_kvs_barrier(pmi)))
        return st;
    for (int p = 0; p < npes; p++) {
        snprintf(key, sizeof key, "dmsg-ofi-%d", p);
        if ((st = dmsg_kvs_get(pmi, p, key, val, sizeof val)))
            return st;
        if (strlen(val) != 2 * len || unhex((unsigned char *)all + (size_t)p * len, val, len))
            return DMSG_FAIL(DMSG_ERR_TRANSPORT, "PMI: bad address record of PE %d", p);
    }
    return DMSG_OK;
}

dmsg_status ofi_boot_exchange(ofi_state *s, const dmsg_boot *boot, const void *mine, size_t len,
                              void *all)
{
    if (boot->kind == DMSG_BOOT_PMI)
        return via_pmi(boot->priv, s->rank, s->npes, mine, len, all);
    return via_region(s->tp, mine, len, all);
}
