/*
 * lib_mpi.c - the kernels' communication written with MPI, as an MPI user
 * would write each variant (built with MPICH's mpicc, started with its
 * mpiexec).
 *
 *   mpi-p2p    pack into a buffer, MPI_Isend / MPI_Irecv, unpack (the transposes
 *              send each block as soon as it is packed and transpose their
 *              own block locally)
 *   mpi-ddt    derived datatypes (vector, indexed) at both ends, no packing
 *              (transpose, fft, fem; a halo of contiguous rows needs none)
 *   mpi-a2a    pack, MPI_Alltoall (transpose, fft) or MPI_Alltoallv (fem), unpack
 *   mpi-rsend  the deposit style: pre-posted MPI_Irecv, MPI_Barrier, MPI_Rsend,
 *              MPI_Waitall (datatypes, no packing)
 *   mpi-fence  MPI-3 RMA: MPI_Put with datatypes into a window, MPI_Win_fence
 *   mpi-pscw   the same puts in a MPI_Win_post / start / complete / wait epoch
 *
 * Time split: packing and unpacking copies are "pack"; calls that move data
 * or wait for specific data (sends, receives, waits, puts, the epoch's
 * closing call) are "xfer"; barriers and the calls that open an epoch are "sync".
 */
#include "kern.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum mode { M_P2P, M_DDT, M_A2A, M_RSEND, M_FENCE, M_PSCW };

static enum mode g_mode;
static int g_me, g_np;

#define MCK(call)                                                                                  \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != MPI_SUCCESS) kern_die("%s failed (%d)", #call, rc_);                            \
    } while (0)

int kl_variant_ok(const char *kernel, const char *v)
{
    static const char *names[] = {"mpi-p2p",   "mpi-ddt",   "mpi-a2a",
                                  "mpi-rsend", "mpi-fence", "mpi-pscw"};
    for (int m = 0; m < 6; m++)
        if (!strcmp(v, names[m])) {
            g_mode = (enum mode)m;
            /* A halo of contiguous rows has nothing for datatypes to do, and
             * a neighbour exchange is no all-to-all. */
            if (!strcmp(kernel, "sor") && (m == M_DDT || m == M_A2A)) return 0;
            return 1;
        }
    return 0;
}

void kl_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_me);
    MPI_Comm_size(MPI_COMM_WORLD, &g_np);
}

/* Windows and datatypes of the plans, freed before MPI_Finalize (MPICH's
 * UCX layer asserts on windows still registered at exit). */
static MPI_Win g_wins[16];
static int g_nwins;
static MPI_Datatype *g_types;
static int g_ntypes, g_captypes;

static void keep_type(MPI_Datatype t)
{
    if (g_ntypes == g_captypes) {
        g_captypes = g_captypes ? 2 * g_captypes : 64;
        g_types = realloc(g_types, (size_t)g_captypes * sizeof(MPI_Datatype));
        if (g_types == NULL) kern_die("out of memory");
    }
    g_types[g_ntypes++] = t;
}

void kl_finalize(void)
{
    for (int i = 0; i < g_nwins; i++)
        MPI_Win_free(&g_wins[i]);
    for (int i = 0; i < g_ntypes; i++)
        MPI_Type_free(&g_types[i]);
    MPI_Finalize();
}

int kl_me(void)
{
    return g_me;
}

int kl_np(void)
{
    return g_np;
}

const char *kl_transport(void)
{
    return "mpich";
}

double kl_wtime(void)
{
    return MPI_Wtime();
}

void *kl_alloc(size_t bytes)
{
    void *p;
    if (posix_memalign(&p, 64, bytes ? bytes : 64)) kern_die("out of memory (%zu bytes)", bytes);
    memset(p, 0, bytes);
    return p;
}

void kl_barrier(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
}

void kl_allreduce(double *v, int n, int op)
{
    MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, op == KL_SUM ? MPI_SUM : MPI_MAX,
                  MPI_COMM_WORLD);
}

void kl_bcast(void *buf, size_t bytes)
{
    MCK(MPI_Bcast(buf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD));
}

int kl_times(kern_times *t)
{
    (void)t;
    return 0;
}

/* A window over a buffer, element-addressed; only the RMA variants have one. */
static MPI_Win window(void *base, size_t bytes, int unit)
{
    MPI_Win w = MPI_WIN_NULL;
    if (g_mode == M_FENCE || g_mode == M_PSCW)
        MCK(MPI_Win_create(base, (MPI_Aint)bytes, unit, MPI_INFO_NULL, MPI_COMM_WORLD, &w));
    if (w != MPI_WIN_NULL) {
        if (g_nwins == 16) kern_die("too many windows");
        g_wins[g_nwins++] = w;
    }
    return w;
}

/* The group of the given ranks, for post/start epochs. */
static MPI_Group group_of(const int *ranks, int n)
{
    MPI_Group world, g;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, n, ranks, &g);
    MPI_Group_free(&world);
    return g;
}

static void open_epoch(MPI_Win w, MPI_Group g)
{
    KERN_TIC(t0);
    if (g_mode == M_FENCE) {
        MCK(MPI_Win_fence(0, w));
    } else {
        MCK(MPI_Win_post(g, 0, w));
        MCK(MPI_Win_start(g, 0, w));
    }
    KERN_TOC(t0, sync);
}

static void close_epoch(MPI_Win w)
{
    KERN_TIC(t0);
    if (g_mode == M_FENCE) {
        MCK(MPI_Win_fence(0, w));
    } else {
        MCK(MPI_Win_complete(w));
        MCK(MPI_Win_wait(w));
    }
    KERN_TOC(t0, xfer);
}

static void wait_all(int n, MPI_Request *req)
{
    /* A status array rather than MPI_STATUSES_IGNORE, which GCC 12 takes for
     * a zero-length array (-Wstringop-overflow). */
    static MPI_Status *st;
    static int have;
    if (n > have) {
        free(st);
        st = kern_malloc((size_t)n * sizeof(MPI_Status));
        have = n;
    }
    KERN_TIC(t0);
    MCK(MPI_Waitall(n, req, st));
    KERN_TOC(t0, xfer);
}

static void barrier_timed(void)
{
    KERN_TIC(t0);
    MCK(MPI_Barrier(MPI_COMM_WORLD));
    KERN_TOC(t0, sync);
}

/* ------------------------------------------------------------ transpose */

struct kl_xpose {
    char *dst;
    const char *src;
    size_t n, b, elem;
    MPI_Datatype block, tblock; /* a b x b block of rows; the same stored transposed */
    char *sbuf, *rbuf;          /* packing variants: np packed blocks each */
    MPI_Request *req;
    MPI_Win win;
    MPI_Group all;
};

kl_xpose *kl_xpose_plan(void *dst, const void *src, size_t n, size_t elem)
{
    kl_xpose *p = kern_malloc(sizeof *p);
    *p = (kl_xpose){.dst = dst, .src = src, .n = n, .b = kern_rows(n, g_np), .elem = elem};
    size_t b = p->b, blk = b * b * elem;
    MPI_Datatype t = elem == 16 ? MPI_C_DOUBLE_COMPLEX : MPI_C_FLOAT_COMPLEX, col, col1;
    MCK(MPI_Type_vector((int)b, (int)b, (int)n, t, &p->block));
    /* Element (r, c) of the stream lands at c * n + r: a column of stride n,
     * shrunk to one element's extent, repeated b times. */
    MCK(MPI_Type_vector((int)b, 1, (int)n, t, &col));
    MCK(MPI_Type_create_resized(col, 0, (MPI_Aint)elem, &col1));
    MCK(MPI_Type_contiguous((int)b, col1, &p->tblock));
    MCK(MPI_Type_commit(&p->block));
    MCK(MPI_Type_commit(&p->tblock));
    keep_type(p->block);
    keep_type(p->tblock);
    MPI_Type_free(&col);
    MPI_Type_free(&col1);
    p->req = kern_malloc(2 * (size_t)g_np * sizeof(MPI_Request));
    if (g_mode == M_P2P || g_mode == M_A2A) {
        p->sbuf = kern_malloc(blk * (size_t)g_np);
        p->rbuf = kern_malloc(blk * (size_t)g_np);
    }
    p->win = window(dst, b * n * elem, (int)elem);
    if (g_mode == M_PSCW) {
        int *all = kern_malloc((size_t)g_np * sizeof(int));
        for (int q = 0; q < g_np; q++)
            all[q] = q;
        p->all = group_of(all, g_np);
        free(all);
    }
    return p;
}

void kl_xpose_run(kl_xpose *p)
{
    int me = g_me, np = g_np, nreq = 0;
    size_t b = p->b, n = p->n, elem = p->elem, blk = b * b * elem;
    int cnt = (int)(b * b * elem);
    if (g_mode == M_P2P || g_mode == M_A2A) {
        /* p2p: receives first; my own block never enters MPI, it is
         * transposed locally while the messages are in flight. Alltoall
         * takes every block, its own included. */
        int a2a = g_mode == M_A2A, k0 = a2a ? 0 : 1;
        KERN_TIC(t1);
        for (int k = k0; !a2a && k < np; k++) {
            int q = (me + np - k) % np; /* receive from the PEs that send to me first */
            MCK(MPI_Irecv(p->rbuf + (size_t)q * blk, cnt, MPI_BYTE, q, 0, MPI_COMM_WORLD,
                          &p->req[nreq++]));
        }
        KERN_TOC(t1, xfer);
        for (int k = k0; k < np; k++) {
            int q = (me + k) % np;
            KERN_TIC(t0);
            kern_pack_block(p->sbuf + (size_t)q * blk, p->src, n, b, (size_t)q, elem);
            KERN_TOC(t0, pack);
            KERN_TIC(t2);
            if (!a2a)
                MCK(MPI_Isend(p->sbuf + (size_t)q * blk, cnt, MPI_BYTE, q, 0, MPI_COMM_WORLD,
                              &p->req[nreq++]));
            KERN_TOC(t2, xfer);
        }
        KERN_TIC(t3);
        if (a2a) {
            MCK(MPI_Alltoall(p->sbuf, cnt, MPI_BYTE, p->rbuf, cnt, MPI_BYTE, MPI_COMM_WORLD));
            KERN_TOC(t3, xfer);
        } else {
            kern_local_block(p->dst, p->src, n, b, (size_t)me, elem);
            KERN_TOC(t3, pack);
        }
        if (nreq) wait_all(nreq, p->req);
        KERN_TIC(t4);
        for (int s = 0; s < np; s++)
            if (a2a || s != me)
                kern_unpack_block(p->dst, p->rbuf + (size_t)s * blk, n, b, (size_t)s, elem);
        KERN_TOC(t4, pack);
        return;
    }
    if (g_mode == M_FENCE || g_mode == M_PSCW) {
        open_epoch(p->win, p->all);
        KERN_TIC(t0);
        for (int k = 0; k < np; k++) {
            int q = (me + k) % np;
            MCK(MPI_Put(p->src + (size_t)q * b * elem, 1, p->block, q,
                        (MPI_Aint)((size_t)me * b), 1, p->tblock, p->win));
        }
        KERN_TOC(t0, xfer);
        close_epoch(p->win);
        return;
    }
    /* ddt and rsend: receives first, straight into the final place. */
    KERN_TIC(t1);
    for (int k = 0; k < np; k++) {
        int q = (me + np - k) % np;
        MCK(MPI_Irecv(p->dst + (size_t)q * b * elem, 1, p->tblock, q, 0, MPI_COMM_WORLD,
                      &p->req[nreq++]));
    }
    KERN_TOC(t1, xfer);
    if (g_mode == M_RSEND) barrier_timed(); /* every receive is posted */
    KERN_TIC(t2);
    for (int k = 0; k < np; k++) {
        int q = (me + k) % np;
        const char *s = p->src + (size_t)q * b * elem;
        if (g_mode == M_RSEND)
            MCK(MPI_Rsend(s, 1, p->block, q, 0, MPI_COMM_WORLD));
        else
            MCK(MPI_Isend(s, 1, p->block, q, 0, MPI_COMM_WORLD, &p->req[nreq++]));
    }
    KERN_TOC(t2, xfer);
    wait_all(nreq, p->req);
}

/* ----------------------------------------------------------------- halo */

struct kl_halo {
    double *grid[2];
    size_t n, b, w;
    MPI_Win win[2];
    MPI_Group nbrs;
};

kl_halo *kl_halo_plan(double *grid[2], size_t n, size_t b, size_t w)
{
    kl_halo *h = kern_malloc(sizeof *h);
    *h = (kl_halo){.grid = {grid[0], grid[1]}, .n = n, .b = b, .w = w};
    for (int k = 0; k < 2; k++)
        h->win[k] = window(grid[k], (b + 2 * w) * n * sizeof(double), sizeof(double));
    int r[2], nr = 0;
    if (g_me > 0) r[nr++] = g_me - 1;
    if (g_me < g_np - 1) r[nr++] = g_me + 1;
    if (g_mode == M_PSCW) h->nbrs = group_of(r, nr);
    return h;
}

void kl_halo_run(kl_halo *h, int par)
{
    size_t n = h->n, w = h->w, b = h->b;
    int cnt = (int)(w * n), up = g_me - 1, down = g_me + 1, nreq = 0;
    double *g = h->grid[par];
    MPI_Request req[4];
    if (g_mode == M_FENCE || g_mode == M_PSCW) {
        open_epoch(h->win[par], h->nbrs);
        KERN_TIC(t0);
        if (up >= 0)
            MCK(MPI_Put(g + w * n, cnt, MPI_DOUBLE, up, (MPI_Aint)((w + b) * n), cnt, MPI_DOUBLE,
                        h->win[par]));
        if (down < g_np)
            MCK(MPI_Put(g + b * n, cnt, MPI_DOUBLE, down, 0, cnt, MPI_DOUBLE, h->win[par]));
        KERN_TOC(t0, xfer);
        close_epoch(h->win[par]);
        return;
    }
    KERN_TIC(t1);
    if (up >= 0) MCK(MPI_Irecv(g, cnt, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, &req[nreq++]));
    if (down < g_np)
        MCK(MPI_Irecv(g + (w + b) * n, cnt, MPI_DOUBLE, down, 1, MPI_COMM_WORLD, &req[nreq++]));
    KERN_TOC(t1, xfer);
    if (g_mode == M_RSEND) barrier_timed();
    KERN_TIC(t2);
    if (g_mode == M_RSEND) {
        if (up >= 0) MCK(MPI_Rsend(g + w * n, cnt, MPI_DOUBLE, up, 1, MPI_COMM_WORLD));
        if (down < g_np) MCK(MPI_Rsend(g + b * n, cnt, MPI_DOUBLE, down, 1, MPI_COMM_WORLD));
    } else {
        if (up >= 0)
            MCK(MPI_Isend(g + w * n, cnt, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, &req[nreq++]));
        if (down < g_np)
            MCK(MPI_Isend(g + b * n, cnt, MPI_DOUBLE, down, 1, MPI_COMM_WORLD, &req[nreq++]));
    }
    KERN_TOC(t2, xfer);
    wait_all(nreq, req);
}

/* ------------------------------------------------------------------ fem */

struct kl_fem {
    double *x[2];
    const kern_nbr *nbr;
    int nnbr;
    MPI_Datatype *stype, *rtype, *ttype; /* indexed at my end, at the target's */
    double *sbuf, *rbuf;                 /* packing variants */
    size_t *soff;                        /* start of each neighbour's part of sbuf */
    int *scnt, *sdsp, *rcnt, *rdsp;      /* alltoallv, per PE */
    MPI_Request *req;
    MPI_Win win[2];
    MPI_Group nbrs;
};

static MPI_Datatype indexed(const size_t *pos, size_t count)
{
    int *d = kern_malloc(count * sizeof(int));
    for (size_t k = 0; k < count; k++)
        d[k] = (int)pos[k];
    MPI_Datatype t;
    MCK(MPI_Type_create_indexed_block((int)count, 1, d, MPI_DOUBLE, &t));
    MCK(MPI_Type_commit(&t));
    keep_type(t);
    free(d);
    return t;
}

kl_fem *kl_fem_plan(double *x[2], size_t len, size_t stage_len, const kern_nbr *nbr, int nnbr)
{
    kl_fem *f = kern_malloc(sizeof *f);
    *f = (kl_fem){.x = {x[0], x[1]}, .nbr = nbr, .nnbr = nnbr};
    size_t m = (size_t)nnbr + 1, total = 0;
    f->stype = kern_malloc(m * sizeof(MPI_Datatype));
    f->rtype = kern_malloc(m * sizeof(MPI_Datatype));
    f->ttype = kern_malloc(m * sizeof(MPI_Datatype));
    f->soff = kern_malloc(m * sizeof(size_t));
    f->req = kern_malloc(2 * m * sizeof(MPI_Request));
    int *ranks = kern_malloc(m * sizeof(int));
    for (int i = 0; i < nnbr; i++) {
        f->soff[i] = total;
        total += nbr[i].count;
        ranks[i] = nbr[i].pe;
        if (g_mode != M_P2P && g_mode != M_A2A) {
            f->stype[i] = indexed(nbr[i].send, nbr[i].count);
            f->rtype[i] = indexed(nbr[i].recv, nbr[i].rcount);
            f->ttype[i] = indexed(nbr[i].dst, nbr[i].count);
        }
    }
    f->sbuf = kern_malloc((total + 1) * sizeof(double));
    f->rbuf = kern_malloc((stage_len + 1) * sizeof(double));
    f->scnt = kern_malloc((size_t)g_np * 4 * sizeof(int));
    f->sdsp = f->scnt + g_np;
    f->rcnt = f->sdsp + g_np;
    f->rdsp = f->rcnt + g_np;
    for (int i = 0; i < nnbr; i++) {
        f->scnt[nbr[i].pe] = (int)nbr[i].count;
        f->sdsp[nbr[i].pe] = (int)f->soff[i];
        f->rcnt[nbr[i].pe] = (int)nbr[i].rcount;
        f->rdsp[nbr[i].pe] = (int)nbr[i].recv_off;
    }
    for (int k = 0; k < 2; k++)
        f->win[k] = window(x[k], len * sizeof(double), sizeof(double));
    if (g_mode == M_PSCW) f->nbrs = group_of(ranks, nnbr);
    free(ranks);
    return f;
}

void kl_fem_run(kl_fem *f, int par)
{
    double *x = f->x[par];
    int nreq = 0;
    if (g_mode == M_P2P || g_mode == M_A2A) {
        KERN_TIC(t0);
        for (int i = 0; i < f->nnbr; i++) {
            double *s = f->sbuf + f->soff[i];
            for (size_t k = 0; k < f->nbr[i].count; k++)
                s[k] = x[f->nbr[i].send[k]];
        }
        KERN_TOC(t0, pack);
        KERN_TIC(t1);
        if (g_mode == M_A2A) {
            MCK(MPI_Alltoallv(f->sbuf, f->scnt, f->sdsp, MPI_DOUBLE, f->rbuf, f->rcnt, f->rdsp,
                              MPI_DOUBLE, MPI_COMM_WORLD));
        } else {
            for (int i = 0; i < f->nnbr; i++)
                MCK(MPI_Irecv(f->rbuf + f->nbr[i].recv_off, (int)f->nbr[i].rcount, MPI_DOUBLE,
                              f->nbr[i].pe, 2, MPI_COMM_WORLD, &f->req[nreq++]));
            for (int i = 0; i < f->nnbr; i++)
                MCK(MPI_Isend(f->sbuf + f->soff[i], (int)f->nbr[i].count, MPI_DOUBLE,
                              f->nbr[i].pe, 2, MPI_COMM_WORLD, &f->req[nreq++]));
        }
        KERN_TOC(t1, xfer);
        if (nreq) wait_all(nreq, f->req);
        KERN_TIC(t2);
        for (int i = 0; i < f->nnbr; i++) {
            const double *r = f->rbuf + f->nbr[i].recv_off;
            for (size_t k = 0; k < f->nbr[i].rcount; k++)
                x[f->nbr[i].recv[k]] = r[k];
        }
        KERN_TOC(t2, pack);
        return;
    }
    if (g_mode == M_FENCE || g_mode == M_PSCW) {
        open_epoch(f->win[par], f->nbrs);
        KERN_TIC(t0);
        for (int i = 0; i < f->nnbr; i++)
            MCK(MPI_Put(x, 1, f->stype[i], f->nbr[i].pe, 0, 1, f->ttype[i], f->win[par]));
        KERN_TOC(t0, xfer);
        close_epoch(f->win[par]);
        return;
    }
    KERN_TIC(t1);
    for (int i = 0; i < f->nnbr; i++)
        MCK(MPI_Irecv(x, 1, f->rtype[i], f->nbr[i].pe, 2, MPI_COMM_WORLD, &f->req[nreq++]));
    KERN_TOC(t1, xfer);
    if (g_mode == M_RSEND) barrier_timed();
    KERN_TIC(t2);
    for (int i = 0; i < f->nnbr; i++) {
        if (g_mode == M_RSEND)
            MCK(MPI_Rsend(x, 1, f->stype[i], f->nbr[i].pe, 2, MPI_COMM_WORLD));
        else
            MCK(MPI_Isend(x, 1, f->stype[i], f->nbr[i].pe, 2, MPI_COMM_WORLD, &f->req[nreq++]));
    }
    KERN_TOC(t2, xfer);
    wait_all(nreq, f->req);
}
