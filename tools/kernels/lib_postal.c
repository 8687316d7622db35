/*
 * lib_postal.c - the kernels' communication written with the two baselines
 * of the deposit model (include/dmsg_postal.h, include/dmsg_rr.h;
 * docs/baselines.md), as a user of PVM or of NX would write it.
 *
 *   postal  PVM style: pack (strided: the transposition is done by the pack),
 *           send, receive (from each partner in turn), unpack; one message
 *           per partner (the layer fragments what exceeds half a mailbox).
 *           FEM: gather into a buffer, pack it, send; receive, unpack,
 *           scatter. The collectives' barrier is dmsg_postal_barrier, as a
 *           PVM program synchronizes with pvm_barrier.
 *   rr      request / response / acknowledge: every receive posted first
 *           (sections straight into place: the transpose is done by the
 *           receive's layout), sends of sections (or gathered values), wait
 *           for all. FEM: gathered sends, receives into a buffer, scatter.
 * Time split on shm: pack and unpack calls are "pack", sends "xfer",
 * receives and waits (matching, waiting for data and control messages)
 * "sync"; on sim dmsg_times_get books every deposit and copy the layers make.
 */
#include "kern.h"
#include "lib_dmsg.h"

#include <dmsg_postal.h>
#include <dmsg_rr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum mode { M_POSTAL, M_RR };
static enum mode g_mode;

#define PCK(call) CK(call)

int kl_variant_ok(const char *kernel, const char *v)
{
    if (!strcmp(v, "postal")) g_mode = M_POSTAL;
    else if (!strcmp(v, "rr")) g_mode = M_RR;
    else return 0;
    return !strcmp(kernel, "transpose") || !strcmp(kernel, "fft") || !strcmp(kernel, "sor") ||
           !strcmp(kernel, "fem");
}

void kl_lib_start(const char *variant)
{
    if (strcmp(variant, "rr") == 0) {
        CK(dmsg_rr_init());
        return;
    }
    CK(dmsg_postal_init());
    kl_lib_sync = dmsg_postal_barrier;
}

void kl_lib_stop(void)
{
    kl_lib_sync = dmsg_sync;
    if (g_mode == M_RR)
        CK(dmsg_rr_finalize());
    else
        CK(dmsg_postal_finalize());
}

/* ------------------------------------------------------------ transpose */

struct kl_xpose {
    char *dst;
    const char *src;
    size_t n, b, elem;
    dmsg_rr_req *req;
};

kl_xpose *kl_xpose_plan(void *dst, const void *src, size_t n, size_t elem)
{
    int np = dmsg_npes();
    kl_xpose *p = kern_malloc(sizeof *p);
    *p = (kl_xpose){.dst = dst, .src = src, .n = n, .b = kern_rows(n, np), .elem = elem};
    p->req = kern_malloc(2 * (size_t)np * sizeof(dmsg_rr_req));
    return p;
}

static void xpose_postal(kl_xpose *p)
{
    int me = dmsg_pe(), np = dmsg_npes();
    size_t b = p->b, n = p->n, elem = p->elem;
    for (int k = 0; k < np; k++) {
        int q = (me + k) % np;
        KERN_TIC(t0);
        PCK(dmsg_postal_initsend());
        /* Row c of the message is column q*b + c of my rows: a strided pack. */
        for (size_t c = 0; c < b; c++)
            PCK(dmsg_postal_pk(p->src + ((size_t)q * b + c) * elem, (long)b, (long)n, elem));
        KERN_TOC(t0, pack);
        KERN_TIC(t1);
        PCK(dmsg_postal_send(q, 1));
        KERN_TOC(t1, xfer);
    }
    /* Receives name their source: a fast PE's messages of the next step stay
     * queued behind this step's (messages of one sender arrive in order). */
    for (int k = 0; k < np; k++) {
        int s = (me + np - k) % np;
        KERN_TIC(t0);
        PCK(dmsg_postal_recv(s, 1, NULL));
        KERN_TOC(t0, sync);
        KERN_TIC(t1);
        for (size_t c = 0; c < b; c++)
            PCK(dmsg_postal_upk(p->dst + (c * n + (size_t)s * b) * elem, (long)b, 1, elem));
        KERN_TOC(t1, pack);
    }
}

static void xpose_rr(kl_xpose *p)
{
    int me = dmsg_pe(), np = dmsg_npes();
    size_t b = p->b, n = p->n, elem = p->elem;
    const ptrdiff_t e = (ptrdiff_t)elem, row = (ptrdiff_t)(n * elem);
    dmsg_layout sl = {.ndims = 2, .count = {b, b}, .stride = {e, row}};
    dmsg_layout dl = {.ndims = 2, .count = {b, b}, .stride = {row, e}};
    int nreq = 0;
    KERN_TIC(t0);
    for (int k = 0; k < np; k++) {
        int q = (me + np - k) % np;
        PCK(dmsg_rr_irecv_section(q, 1, p->dst + (size_t)q * b * elem, &dl, elem, &p->req[nreq++]));
    }
    for (int k = 0; k < np; k++) {
        int q = (me + k) % np;
        PCK(dmsg_rr_isend_section(q, 1, p->src + (size_t)q * b * elem, &sl, elem, &p->req[nreq++]));
    }
    KERN_TOC(t0, xfer);
    KERN_TIC(t1);
    PCK(dmsg_rr_waitall(nreq, p->req, NULL));
    KERN_TOC(t1, sync);
}

void kl_xpose_run(kl_xpose *p)
{
    if (g_mode == M_RR)
        xpose_rr(p);
    else
        xpose_postal(p);
}

/* ----------------------------------------------------------------- halo */

struct kl_halo {
    double *grid[2];
    size_t n, b, w;
};

kl_halo *kl_halo_plan(double *grid[2], size_t n, size_t b, size_t w)
{
    kl_halo *h = kern_malloc(sizeof *h);
    *h = (kl_halo){.grid = {grid[0], grid[1]}, .n = n, .b = b, .w = w};
    return h;
}

void kl_halo_run(kl_halo *h, int par)
{
    int me = dmsg_pe(), np = dmsg_npes(), up = me - 1, down = me + 1;
    size_t n = h->n, w = h->w, b = h->b, bytes = w * n * sizeof(double);
    double *g = h->grid[par];
    if (g_mode == M_RR) {
        dmsg_rr_req req[4];
        int nreq = 0;
        KERN_TIC(t0);
        if (up >= 0) PCK(dmsg_rr_irecv(up, 2, g, bytes, &req[nreq++]));
        if (down < np) PCK(dmsg_rr_irecv(down, 2, g + (w + b) * n, bytes, &req[nreq++]));
        if (up >= 0) PCK(dmsg_rr_isend(up, 2, g + w * n, bytes, &req[nreq++]));
        if (down < np) PCK(dmsg_rr_isend(down, 2, g + b * n, bytes, &req[nreq++]));
        KERN_TOC(t0, xfer);
        KERN_TIC(t1);
        PCK(dmsg_rr_waitall(nreq, req, NULL));
        KERN_TOC(t1, sync);
        return;
    }
    const double *rows[2] = {g + w * n, g + b * n};
    int to[2] = {up, down};
    for (int s = 0; s < 2; s++) {
        if (to[s] < 0 || to[s] >= np) continue;
        KERN_TIC(t0);
        PCK(dmsg_postal_initsend());
        PCK(dmsg_postal_pk_double(rows[s], (long)(w * n), 1));
        KERN_TOC(t0, pack);
        KERN_TIC(t1);
        PCK(dmsg_postal_send(to[s], 2));
        KERN_TOC(t1, xfer);
    }
    double *into[2] = {g, g + (w + b) * n};
    for (int s = 0; s < 2; s++) {
        if (to[s] < 0 || to[s] >= np) continue;
        KERN_TIC(t0);
        PCK(dmsg_postal_recv(to[s], 2, NULL));
        KERN_TOC(t0, sync);
        KERN_TIC(t1);
        PCK(dmsg_postal_upk_double(into[s], (long)(w * n), 1));
        KERN_TOC(t1, pack);
    }
}

/* ------------------------------------------------------------------ fem */

struct kl_fem {
    double *x[2];
    const kern_nbr *nbr;
    int nnbr;
    double *sbuf, *rbuf; /* gathered values of one neighbour; received values of all */
    dmsg_rr_req *req;
};

kl_fem *kl_fem_plan(double *x[2], size_t len, size_t stage_len, const kern_nbr *nbr, int nnbr)
{
    kl_fem *f = kern_malloc(sizeof *f);
    *f = (kl_fem){.x = {x[0], x[1]}, .nbr = nbr, .nnbr = nnbr};
    size_t most = 1;
    for (int i = 0; i < nnbr; i++) {
        most = nbr[i].count > most ? nbr[i].count : most;
    }
    f->sbuf = kern_malloc(most * sizeof(double));
    /* An RRMSG receive stores straight into the receiver's memory: symmetric. */
    f->rbuf = kl_alloc((stage_len + 1) * sizeof(double));
    f->req = kern_malloc(2 * ((size_t)nnbr + 1) * sizeof(dmsg_rr_req));
    (void)len;
    return f;
}

static void scatter(kl_fem *f, double *x, int i)
{
    const kern_nbr *nb = &f->nbr[i];
    const double *r = f->rbuf + nb->recv_off;
    for (size_t k = 0; k < nb->rcount; k++)
        x[nb->recv[k]] = r[k];
}

void kl_fem_run(kl_fem *f, int par)
{
    double *x = f->x[par];
    if (g_mode == M_RR) {
        int nreq = 0;
        KERN_TIC(t0);
        for (int i = 0; i < f->nnbr; i++)
            PCK(dmsg_rr_irecv(f->nbr[i].pe, 3, f->rbuf + f->nbr[i].recv_off,
                              f->nbr[i].rcount * sizeof(double), &f->req[nreq++]));
        for (int i = 0; i < f->nnbr; i++)
            PCK(dmsg_rr_isend_gathered(f->nbr[i].pe, 3, x, f->nbr[i].send, f->nbr[i].count,
                                       sizeof(double), &f->req[nreq++]));
        KERN_TOC(t0, xfer);
        KERN_TIC(t1);
        PCK(dmsg_rr_waitall(nreq, f->req, NULL));
        KERN_TOC(t1, sync);
        KERN_TIC(t2);
        for (int i = 0; i < f->nnbr; i++)
            scatter(f, x, i);
        KERN_TOC(t2, pack);
        return;
    }
    for (int i = 0; i < f->nnbr; i++) {
        const kern_nbr *nb = &f->nbr[i];
        KERN_TIC(t0);
        for (size_t k = 0; k < nb->count; k++)
            f->sbuf[k] = x[nb->send[k]];
        PCK(dmsg_postal_initsend());
        PCK(dmsg_postal_pk_double(f->sbuf, (long)nb->count, 1));
        KERN_TOC(t0, pack);
        KERN_TIC(t1);
        PCK(dmsg_postal_send(nb->pe, 3));
        KERN_TOC(t1, xfer);
    }
    for (int i = 0; i < f->nnbr; i++) {
        const kern_nbr *nb = &f->nbr[i];
        KERN_TIC(t0);
        PCK(dmsg_postal_recv(nb->pe, 3, NULL));
        KERN_TOC(t0, sync);
        KERN_TIC(t1);
        PCK(dmsg_postal_upk_double(f->rbuf + nb->recv_off, (long)nb->rcount, 1));
        scatter(f, x, i);
        KERN_TOC(t1, pack);
    }
}
