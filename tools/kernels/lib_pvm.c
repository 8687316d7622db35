/*
 * lib_pvm.c - the kernels' postal variant written with PVM 3's own API
 * (pvm3.h), as a PVM user writes it; built against the real PVM 3.4.6
 * (libpvm3) as the program pvm-kern, variant "pvm-real" (docs/kernels.md).
 * It uses nothing but PVM 3 calls, so it also builds against another
 * pvm3.h.
 *
 * Tasks. The harness (tools/dmsg-ab) starts a pvmd and then the first task
 * with `--np N` before the kernel's arguments; that task is PE 0: it
 * spawns the other N - 1 (pvm_spawn of its own executable, same
 * arguments), sends every task the table of task ids (pvm_mcast), and a
 * task's PE number is its place in that table. Every task asks for direct
 * task-to-task routes (PvmRouteDirect) before it sends anything. Output of
 * the spawned tasks reaches PE 0's stderr (pvm_catchout), so their error
 * messages are seen.
 *
 * Packing, the best each exchange allows: contiguous data (halo rows, the
 * FEM's gathered values) go in place (PvmDataInPlace: no copy at pack, the
 * data are read when pvm_send sends); the transposes' strided columns are
 * packed raw with a stride (PvmDataRaw), as the postal variant packs them.
 * Receives name their source; messages of one sender arrive in order.
 *
 * Collectives, from point-to-point messages (a PVM program without the
 * group server): a dissemination barrier, reductions summed on PE 0 in PE
 * order and multicast back (bitwise the same everywhere), broadcast by
 * pvm_mcast. Time split: pack and unpack calls are "pack", sends "xfer",
 * receives "sync", as for the postal variant.
 */
#include "kern.h"

#include <stdio.h> /* before pvm3.h, which declares pvm_catchout only after it */
#include <pvm3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { TAG_TIDS = 900, TAG_BAR, TAG_RED, TAG_BC, TAG_EXIT };
enum { TAG_XPOSE = 1, TAG_HALO = 2, TAG_FEM = 3 };

static int g_me, g_np, *g_tid;

/* PE 0 learns of a spawned task that exits early (kern_die, a crash): pvmd
 * sends a TAG_EXIT message (pvm_notify), which PE 0's receives accept
 * besides the one they wait for (pvm_recvf), so PE 0 stops at once and the
 * harness halts the pvmd, instead of waiting for its time limit. Off for
 * the final barrier, after which the tasks exit normally. */
static int g_watch;

static int match_or_exit(int bufid, int tid, int tag)
{
    int bytes, mtag, mtid;
    if (pvm_bufinfo(bufid, &bytes, &mtag, &mtid) < 0) return 0;
    if (g_watch && mtag == TAG_EXIT) return 1;
    return (tid == -1 || tid == mtid) && (tag == -1 || tag == mtag);
}

#define PVK(call)                                                                                  \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ < 0) kern_die("%s: PVM error %d", #call, rc_);                                     \
    } while (0)

int kl_variant_ok(const char *kernel, const char *v)
{
    if (strcmp(v, "pvm-real") != 0) return 0;
    return !strcmp(kernel, "transpose") || !strcmp(kernel, "fft") || !strcmp(kernel, "sor") ||
           !strcmp(kernel, "fem");
}

/* Removes "--np N" from the arguments; returns N, or 0 when absent. */
static int take_np(int *argc, char **argv)
{
    for (int i = 1; i + 1 < *argc; i++)
        if (strcmp(argv[i], "--np") == 0) {
            int n = atoi(argv[i + 1]);
            for (int j = i; j + 2 <= *argc; j++)
                argv[j] = argv[j + 2];
            *argc -= 2;
            return n;
        }
    return 0;
}

static void recv(int tid, int tag)
{
    int rc = pvm_recv(tid, tag), bytes, mtag, mtid;
    if (rc < 0) kern_die("pvm_recv(t%x, %d): PVM error %d", tid, tag, rc);
    if (g_watch && pvm_bufinfo(rc, &bytes, &mtag, &mtid) >= 0 && mtag == TAG_EXIT) {
        int who = 0;
        pvm_upkint(&who, 1, 1);
        kern_die("task t%x exited before the end", who);
    }
}

void kl_init(int *argc, char ***argv)
{
    int me = pvm_mytid();
    if (me < 0) kern_die("pvm_mytid: PVM error %d (is a pvmd running?)", me);
    PVK(pvm_setopt(PvmRoute, PvmRouteDirect));
    int parent = pvm_parent();
    if (parent == PvmNoParent) {
        g_np = take_np(argc, *argv);
        if (g_np < 1) kern_die("the first task needs --np N (N >= 1)");
        g_tid = kern_malloc((size_t)g_np * sizeof(int));
        g_tid[0] = me;
        /* The spawned tasks' output comes to this task's stderr. */
        PVK(pvm_catchout(stderr));
        if (g_np > 1) {
            char *self = realpath((*argv)[0], NULL);
            if (!self) kern_die("cannot resolve %s", (*argv)[0]);
            int got = pvm_spawn(self, *argv + 1, PvmTaskDefault, "", g_np - 1, g_tid + 1);
            free(self);
            if (got != g_np - 1) {
                for (int i = 1; i <= got && got > 0; i++)
                    pvm_kill(g_tid[i]);
                kern_die("pvm_spawn started %d of %d tasks (first code %d)", got, g_np - 1,
                         g_tid[1]);
            }
            PVK(pvm_initsend(PvmDataDefault));
            PVK(pvm_pkint(&g_np, 1, 1));
            PVK(pvm_pkint(g_tid, g_np, 1));
            PVK(pvm_mcast(g_tid + 1, g_np - 1, TAG_TIDS));
            /* Where the PVM offers no notification, failures wait for the
             * harness's time limit instead. */
            if (pvm_notify(PvmTaskExit, TAG_EXIT, g_np - 1, g_tid + 1) >= 0) {
                pvm_recvf(match_or_exit);
                g_watch = 1;
            }
        }
        g_me = 0;
        return;
    }
    if (parent < 0) kern_die("pvm_parent: PVM error %d", parent);
    recv(parent, TAG_TIDS);
    PVK(pvm_upkint(&g_np, 1, 1));
    g_tid = kern_malloc((size_t)g_np * sizeof(int));
    PVK(pvm_upkint(g_tid, g_np, 1));
    g_me = -1;
    for (int i = 0; i < g_np; i++)
        if (g_tid[i] == me) g_me = i;
    if (g_me < 0) kern_die("task t%x is not in its parent's table", me);
}

void kl_finalize(void)
{
    g_watch = 0;
    kl_barrier();
    /* PE 0 collects its children's output: pvm_exit waits for them. */
    pvm_exit();
    free(g_tid);
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
    return "pvm";
}

double kl_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void *kl_alloc(size_t bytes)
{
    void *p = calloc(1, bytes ? bytes : 1);
    if (!p) kern_die("out of memory (%zu bytes)", bytes);
    return p;
}

/* Round k: an empty message to PE me + 2^k, one awaited from me - 2^k. */
void kl_barrier(void)
{
    for (int d = 1; d < g_np; d *= 2) {
        PVK(pvm_initsend(PvmDataRaw));
        PVK(pvm_send(g_tid[(g_me + d) % g_np], TAG_BAR));
        recv(g_tid[(g_me + g_np - d) % g_np], TAG_BAR);
    }
}

void kl_allreduce(double *v, int n, int op)
{
    if (g_np == 1) return;
    if (g_me != 0) {
        PVK(pvm_initsend(PvmDataRaw));
        PVK(pvm_pkdouble(v, n, 1));
        PVK(pvm_send(g_tid[0], TAG_RED));
        recv(g_tid[0], TAG_RED);
        PVK(pvm_upkdouble(v, n, 1));
        return;
    }
    double *w = kern_malloc((size_t)n * sizeof(double));
    for (int p = 1; p < g_np; p++) {
        recv(g_tid[p], TAG_RED);
        PVK(pvm_upkdouble(w, n, 1));
        for (int i = 0; i < n; i++)
            v[i] = op == KL_SUM ? v[i] + w[i] : (w[i] > v[i] ? w[i] : v[i]);
    }
    free(w);
    PVK(pvm_initsend(PvmDataRaw));
    PVK(pvm_pkdouble(v, n, 1));
    PVK(pvm_mcast(g_tid + 1, g_np - 1, TAG_RED));
}

void kl_bcast(void *buf, size_t bytes)
{
    if (g_np == 1) return;
    if (g_me == 0) {
        PVK(pvm_initsend(PvmDataRaw));
        PVK(pvm_pkbyte(buf, (int)bytes, 1));
        PVK(pvm_mcast(g_tid + 1, g_np - 1, TAG_BC));
    } else {
        recv(g_tid[0], TAG_BC);
        PVK(pvm_upkbyte(buf, (int)bytes, 1));
    }
}

int kl_times(kern_times *t)
{
    (void)t;
    return 0;
}

/* n elements of elem bytes every `stride` elements, packed / unpacked with
 * the PVM type of that size (the kernels move doubles and complex values). */
static void pk(const void *p, int n, int stride, size_t elem)
{
    switch (elem) {
    case 16: PVK(pvm_pkdcplx((double *)p, n, stride)); break;
    case 8: PVK(pvm_pkdouble((double *)p, n, stride)); break;
    case 4: PVK(pvm_pkfloat((float *)p, n, stride)); break;
    default: PVK(pvm_pkbyte((char *)p, n * (int)elem, 1)); if (stride != 1) kern_die("stride"); break;
    }
}

static void upk(void *p, int n, int stride, size_t elem)
{
    switch (elem) {
    case 16: PVK(pvm_upkdcplx(p, n, stride)); break;
    case 8: PVK(pvm_upkdouble(p, n, stride)); break;
    case 4: PVK(pvm_upkfloat(p, n, stride)); break;
    default: PVK(pvm_upkbyte(p, n * (int)elem, 1)); if (stride != 1) kern_die("stride"); break;
    }
}

/* ------------------------------------------------------------ transpose */

struct kl_xpose {
    char *dst;
    const char *src;
    size_t n, b, elem;
};

kl_xpose *kl_xpose_plan(void *dst, const void *src, size_t n, size_t elem)
{
    kl_xpose *p = kern_malloc(sizeof *p);
    *p = (kl_xpose){.dst = dst, .src = src, .n = n, .b = kern_rows(n, g_np), .elem = elem};
    return p;
}

void kl_xpose_run(kl_xpose *p)
{
    int me = g_me, np = g_np;
    size_t b = p->b, n = p->n, elem = p->elem;
    for (int k = 0; k < np; k++) {
        int q = (me + k) % np;
        KERN_TIC(t0);
        PVK(pvm_initsend(PvmDataRaw));
        /* Row c of the message is column q*b + c of my rows: a strided pack. */
        for (size_t c = 0; c < b; c++)
            pk(p->src + ((size_t)q * b + c) * elem, (int)b, (int)n, elem);
        KERN_TOC(t0, pack);
        KERN_TIC(t1);
        PVK(pvm_send(g_tid[q], TAG_XPOSE));
        KERN_TOC(t1, xfer);
    }
    for (int k = 0; k < np; k++) {
        int s = (me + np - k) % np;
        KERN_TIC(t0);
        recv(g_tid[s], TAG_XPOSE);
        KERN_TOC(t0, sync);
        KERN_TIC(t1);
        for (size_t c = 0; c < b; c++)
            upk(p->dst + (c * n + (size_t)s * b) * elem, (int)b, 1, elem);
        KERN_TOC(t1, pack);
    }
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
    int up = g_me - 1, down = g_me + 1;
    size_t n = h->n, w = h->w, b = h->b;
    double *g = h->grid[par];
    double *rows[2] = {g + w * n, g + b * n};
    int to[2] = {up, down};
    for (int s = 0; s < 2; s++) {
        if (to[s] < 0 || to[s] >= g_np) continue;
        KERN_TIC(t0);
        PVK(pvm_initsend(PvmDataInPlace));
        PVK(pvm_pkdouble(rows[s], (int)(w * n), 1));
        KERN_TOC(t0, pack);
        KERN_TIC(t1);
        PVK(pvm_send(g_tid[to[s]], TAG_HALO));
        KERN_TOC(t1, xfer);
    }
    double *into[2] = {g, g + (w + b) * n};
    for (int s = 0; s < 2; s++) {
        if (to[s] < 0 || to[s] >= g_np) continue;
        KERN_TIC(t0);
        recv(g_tid[to[s]], TAG_HALO);
        KERN_TOC(t0, sync);
        KERN_TIC(t1);
        PVK(pvm_upkdouble(into[s], (int)(w * n), 1));
        KERN_TOC(t1, pack);
    }
}

/* ------------------------------------------------------------------ fem */

struct kl_fem {
    double *x[2];
    const kern_nbr *nbr;
    int nnbr;
    double *sbuf, *rbuf; /* gathered values of one neighbour; received values of all */
};

kl_fem *kl_fem_plan(double *x[2], size_t len, size_t stage_len, const kern_nbr *nbr, int nnbr)
{
    kl_fem *f = kern_malloc(sizeof *f);
    *f = (kl_fem){.x = {x[0], x[1]}, .nbr = nbr, .nnbr = nnbr};
    size_t most = 1;
    for (int i = 0; i < nnbr; i++)
        most = nbr[i].count > most ? nbr[i].count : most;
    f->sbuf = kern_malloc(most * sizeof(double));
    f->rbuf = kern_malloc((stage_len + 1) * sizeof(double));
    (void)len;
    return f;
}

void kl_fem_run(kl_fem *f, int par)
{
    double *x = f->x[par];
    for (int i = 0; i < f->nnbr; i++) {
        const kern_nbr *nb = &f->nbr[i];
        KERN_TIC(t0);
        for (size_t k = 0; k < nb->count; k++)
            f->sbuf[k] = x[nb->send[k]];
        /* In place: pvm_send reads sbuf, which is refilled only after it returns. */
        PVK(pvm_initsend(PvmDataInPlace));
        PVK(pvm_pkdouble(f->sbuf, (int)nb->count, 1));
        KERN_TOC(t0, pack);
        KERN_TIC(t1);
        PVK(pvm_send(g_tid[nb->pe], TAG_FEM));
        KERN_TOC(t1, xfer);
    }
    for (int i = 0; i < f->nnbr; i++) {
        const kern_nbr *nb = &f->nbr[i];
        KERN_TIC(t0);
        recv(g_tid[nb->pe], TAG_FEM);
        KERN_TOC(t0, sync);
        KERN_TIC(t1);
        double *r = f->rbuf + nb->recv_off;
        PVK(pvm_upkdouble(r, (int)nb->rcount, 1));
        for (size_t k = 0; k < nb->rcount; k++)
            x[nb->recv[k]] = r[k];
        KERN_TOC(t1, pack);
    }
}
