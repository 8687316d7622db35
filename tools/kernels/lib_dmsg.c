/*
 * lib_dmsg.c - the kernels' communication written with dmsg deposits.
 *
 * Variants (docs/kernels.md):
 *   dmsg-chained  transpose, fft: one section deposit per partner, the copy
 *                 engine transposes on the way (no pack, no unpack)
 *   dmsg-fetch    transpose, fft: the receiver pulls: one section fetch per
 *                 partner out of the partner's mapped source, transposed on
 *                 the way, so every PE's copies write only its own memory
 *                 (the same single sync a step: the source is final before
 *                 it and is not written again before the next transpose's
 *                 sync, in both kernels)
 *   dmsg-packed   transpose, fft, fem: buffer packing. On shm the kernel packs
 *                 into a contiguous buffer, deposits it into a staging area
 *                 and the receiver unpacks; on sim and ofi the same calls as
 *                 the chained form, with the transport's mechanism set to
 *                 packed (DMSG_SIM_MECH, DMSG_OFI_MECH), since a pack loop in
 *                 the kernel would cost no virtual time on sim
 *   dmsg-adp      transpose, fft, fem: address-data pair records
 *   dmsg-indexed  fem: gather, then an indexed scatter deposit
 *   dmsg          sor: contiguous deposits of the halo rows
 * Every step starts with the clearance the pattern needs (a dmsg_sync for the
 * transposes; for halo and fem the neighbour's previous deposit, with one
 * counter and one buffer per parity, as examples/halo.c explains) and ends
 * with an await of the deposits this PE expects.
 */
#include "kern.h"
#include "lib_dmsg.h"
#include "dmsg/core/caps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum mode { M_CHAINED, M_FETCH, M_PACKED, M_ADP, M_INDEXED, M_CONTIG };

static enum mode g_mode;
static int g_kernel_packs; /* packing variant on shm: the kernel packs */

static int variant_mode(const char *kernel, const char *v, enum mode *m)
{
    int fft = !strcmp(kernel, "transpose") || !strcmp(kernel, "fft");
    if (!strcmp(kernel, "sor")) {
        *m = M_CONTIG;
        return !strcmp(v, "dmsg");
    }
    if (!strcmp(v, "dmsg-packed")) *m = M_PACKED;
    else if (!strcmp(v, "dmsg-adp")) *m = M_ADP;
    else if (fft && !strcmp(v, "dmsg-chained")) *m = M_CHAINED;
    else if (fft && !strcmp(v, "dmsg-fetch")) *m = M_FETCH;
    else if (!fft && !strcmp(v, "dmsg-indexed")) *m = M_INDEXED;
    else return 0;
    return fft || !strcmp(kernel, "fem");
}

int kl_variant_ok(const char *kernel, const char *variant)
{
    return variant_mode(kernel, variant, &g_mode);
}

void kl_lib_start(const char *variant)
{
    /* A transport without a packing mechanism of its own (shm): the kernel
     * packs. */
    g_kernel_packs = strstr(variant, "packed") && !dmsg_tp_has(DMSG_TP_CAP_PACK_MECH);
}

void kl_lib_stop(void)
{
}

/* ------------------------------------------------------------ transpose */

struct kl_xpose {
    char *dst;
    const char *src;
    size_t n, b, elem;
    dmsg_ctr ctr;
    char *stage; /* packed: symmetric, one b x b slot per source PE */
    char *buf;   /* packed: one packed block */
    void *recs;  /* adp: records for every partner, offsets filled once */
};

kl_xpose *kl_xpose_plan(void *dst, const void *src, size_t n, size_t elem)
{
    int me = dmsg_pe(), np = dmsg_npes();
    kl_xpose *p = kern_malloc(sizeof *p);
    *p = (kl_xpose){.dst = dst, .src = src, .n = n, .b = kern_rows(n, np), .elem = elem};
    size_t b = p->b, blk = b * b * elem;
    CK(dmsg_ctr_create(&p->ctr));
    if (g_mode == M_PACKED && g_kernel_packs) {
        p->stage = kl_alloc(blk * (size_t)np);
        p->buf = kern_malloc(blk);
    } else if (g_mode == M_ADP) {
        /* The destination offsets never change: a code generator computes
         * them once; each step only fills in the values. */
        size_t rs = dmsg_adp_record_size(elem);
        p->recs = kern_malloc(rs * b * n);
        for (int q = 0; q < np; q++)
            for (size_t r = 0; r < b; r++)
                for (size_t c = 0; c < b; c++) {
                    uint64_t off = (c * n + (size_t)me * b + r) * elem;
                    memcpy((char *)p->recs + (((size_t)q * b + r) * b + c) * rs, &off, 8);
                }
    }
    return p;
}

static void xpose_adp(kl_xpose *p, int q)
{
    size_t b = p->b, n = p->n, rs = dmsg_adp_record_size(p->elem);
    char *recs = (char *)p->recs + (size_t)q * b * b * rs;
    KERN_TIC(t0);
    for (size_t r = 0; r < b; r++) {
        const char *row = p->src + (r * n + (size_t)q * b) * p->elem;
        char *rec = recs + r * b * rs + 8;
        for (size_t c = 0; c < b; c++, rec += rs, row += p->elem)
            memcpy(rec, row, p->elem);
    }
    KERN_TOC(t0, pack);
    KERN_TIC(t1);
    CK(dmsg_deposit_adp(p->dst, recs, b * b, p->elem, q, p->ctr));
    KERN_TOC(t1, xfer);
}

void kl_xpose_run(kl_xpose *p)
{
    int me = dmsg_pe(), np = dmsg_npes();
    size_t b = p->b, n = p->n, elem = p->elem, blk = b * b * elem;
    const ptrdiff_t e = (ptrdiff_t)elem, row = (ptrdiff_t)(n * elem);
    KERN_TIC(t0);
    CK(dmsg_sync()); /* clearance: every PE is done with its dst */
    KERN_TOC(t0, sync);
    /* Staggered partners, so that not everybody writes to PE 0 first. */
    for (int k = 0; k < np; k++) {
        int q = (me + k) % np;
        if (g_mode == M_ADP) {
            xpose_adp(p, q);
        } else if (g_mode == M_PACKED && g_kernel_packs && q == me) {
            KERN_TIC(t1); /* my own block: transposed in place, no message */
            kern_local_block(p->dst, p->src, n, b, (size_t)me, elem);
            KERN_TOC(t1, pack);
        } else if (g_mode == M_PACKED && g_kernel_packs) {
            KERN_TIC(t1);
            kern_pack_block(p->buf, p->src, n, b, (size_t)q, elem);
            KERN_TOC(t1, pack);
            KERN_TIC(t2);
            CK(dmsg_deposit(p->stage + (size_t)me * blk, p->buf, blk, q, p->ctr));
            KERN_TOC(t2, xfer);
        } else if (g_mode == M_FETCH) {
            /* Block me of q's rows, transposed into my columns of q. */
            dmsg_layout sl = {.ndims = 2, .count = {b, b}, .stride = {e, row}};
            dmsg_layout dl = {.ndims = 2, .count = {b, b}, .stride = {row, e}};
            KERN_TIC(t1);
            CK(dmsg_fetch_section(p->dst + (size_t)q * b * elem, &dl,
                                  p->src + (size_t)me * b * elem, &sl, elem, q));
            KERN_TOC(t1, xfer);
        } else {
            dmsg_layout sl = {.ndims = 2, .count = {b, b}, .stride = {e, row}};
            dmsg_layout dl = {.ndims = 2, .count = {b, b}, .stride = {row, e}};
            KERN_TIC(t1);
            CK(dmsg_deposit_section(p->dst + (size_t)me * b * elem, &dl,
                                    p->src + (size_t)q * b * elem, &sl, elem, q, p->ctr));
            KERN_TOC(t1, xfer);
        }
    }
    if (g_mode == M_FETCH)
        return; /* every fetch returned with its data */
    KERN_TIC(t3);
    CK(dmsg_await(p->ctr, (uint64_t)(g_mode == M_PACKED && g_kernel_packs ? np - 1 : np)));
    KERN_TOC(t3, xfer);
    if (g_mode == M_PACKED && g_kernel_packs) {
        KERN_TIC(t4);
        for (int s = 0; s < np; s++)
            if (s != me)
                kern_unpack_block(p->dst, p->stage + (size_t)s * blk, n, b, (size_t)s, elem);
        KERN_TOC(t4, pack);
    }
}

/* ----------------------------------------------------------------- halo */

struct kl_halo {
    double *grid[2];
    size_t n, b, w;
    dmsg_ctr landed[2];
};

kl_halo *kl_halo_plan(double *grid[2], size_t n, size_t b, size_t w)
{
    kl_halo *h = kern_malloc(sizeof *h);
    *h = (kl_halo){.grid = {grid[0], grid[1]}, .n = n, .b = b, .w = w};
    CK(dmsg_ctr_create(&h->landed[0]));
    CK(dmsg_ctr_create(&h->landed[1]));
    return h;
}

void kl_halo_run(kl_halo *h, int par)
{
    int me = dmsg_pe(), np = dmsg_npes();
    size_t n = h->n, w = h->w, bytes = w * n * sizeof(double);
    double *g = h->grid[par];
    uint64_t expect = 0;
    KERN_TIC(t0);
    if (me > 0) { /* my first rows into the lower ghost rows of the PE above */
        CK(dmsg_deposit(g + (w + h->b) * n, g + w * n, bytes, me - 1, h->landed[par]));
        expect++;
    }
    if (me < np - 1) { /* my last rows into the upper ghost rows of the PE below */
        CK(dmsg_deposit(g, g + h->b * n, bytes, me + 1, h->landed[par]));
        expect++;
    }
    CK(dmsg_await(h->landed[par], expect));
    KERN_TOC(t0, xfer);
}

/* ------------------------------------------------------------------ fem */

struct kl_fem {
    double *x[2];
    const kern_nbr *nbr;
    int nnbr;
    dmsg_ctr landed[2];
    double *sbuf;      /* gathered values of one neighbour */
    dmsg_adp8 *recs;   /* adp: records of one neighbour */
    double *stage[2];  /* packed: symmetric receive buffers, per parity */
};

kl_fem *kl_fem_plan(double *x[2], size_t len, size_t stage_len, const kern_nbr *nbr, int nnbr)
{
    kl_fem *f = kern_malloc(sizeof *f);
    *f = (kl_fem){.x = {x[0], x[1]}, .nbr = nbr, .nnbr = nnbr};
    size_t most = 1;
    for (int i = 0; i < nnbr; i++)
        most = nbr[i].count > most ? nbr[i].count : most;
    f->sbuf = kern_malloc(most * sizeof(double));
    f->recs = kern_malloc(most * sizeof(dmsg_adp8));
    /* Collective calls are made by every PE, whatever its variant's needs. */
    for (int k = 0; k < 2; k++)
        CK(dmsg_ctr_create(&f->landed[k]));
    if (g_mode == M_PACKED && g_kernel_packs)
        for (int k = 0; k < 2; k++)
            f->stage[k] = kl_alloc(stage_len * sizeof(double));
    (void)len;
    return f;
}

void kl_fem_run(kl_fem *f, int par)
{
    double *x = f->x[par];
    for (int i = 0; i < f->nnbr; i++) {
        const kern_nbr *nb = &f->nbr[i];
        KERN_TIC(t0);
        if (g_mode == M_ADP) {
            for (size_t k = 0; k < nb->count; k++) {
                f->recs[k].off = nb->dst[k] * sizeof(double);
                memcpy(&f->recs[k].val, &x[nb->send[k]], 8);
            }
        } else {
            for (size_t k = 0; k < nb->count; k++)
                f->sbuf[k] = x[nb->send[k]];
        }
        KERN_TOC(t0, pack);
        KERN_TIC(t1);
        if (g_mode == M_ADP)
            CK(dmsg_deposit_adp(x, f->recs, nb->count, 8, nb->pe, f->landed[par]));
        else if (g_mode == M_PACKED && g_kernel_packs)
            CK(dmsg_deposit(f->stage[par] + nb->stage_off, f->sbuf, nb->count * sizeof(double),
                            nb->pe, f->landed[par]));
        else
            CK(dmsg_deposit_indexed(x, nb->dst, f->sbuf, nb->count, sizeof(double), nb->pe,
                                    f->landed[par]));
        KERN_TOC(t1, xfer);
    }
    KERN_TIC(t2);
    CK(dmsg_await(f->landed[par], (uint64_t)f->nnbr));
    KERN_TOC(t2, xfer);
    if (g_mode == M_PACKED && g_kernel_packs) {
        KERN_TIC(t3);
        for (int i = 0; i < f->nnbr; i++) {
            const kern_nbr *nb = &f->nbr[i];
            const double *s = f->stage[par] + nb->recv_off;
            for (size_t k = 0; k < nb->rcount; k++)
                x[nb->recv[k]] = s[k];
        }
        KERN_TOC(t3, pack);
    }
}
