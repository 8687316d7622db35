/*
 * kern_mesh.c - the FEM kernel's mesh, its METIS partition and the exchange
 * lists that follow from it.
 *
 * Mesh: m^3 points of a graded grid (denser towards one corner, as a mesh
 * refined towards a source would be), every point moved by a seeded random
 * jitter, every cell cut into 6 tetrahedra along its main diagonal
 * (Freudenthal-Kuhn), and the point numbers randomly permuted, so that the
 * numbering carries no geometry, as with a mesh generator's output. A point
 * is coupled to the points it shares a tetrahedron edge with (up to 14).
 * Every PE builds the same mesh; PE 0 partitions it (METIS, fixed seed)
 * and broadcasts the owner of every point; the exchange lists follow.
 */
#include "kern_mesh.h"

#include <math.h>
#include <metis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdu;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53u;
    k ^= k >> 33;
    return k;
}

static double unit(uint64_t k)
{
    return (double)(mix(k) >> 11) * 0x1.0p-53;
}

/* The 7 edge directions of the Freudenthal-Kuhn cut with a positive
 * component order; with their negatives, the 14 neighbours of a point. */
static const int dirs[7][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 0},
                               {1, 0, 1}, {0, 1, 1}, {1, 1, 1}};

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* Builds the global mesh: coordinates, CSR adjacency sorted by point number. */
static void build_mesh(kern_mesh *g, size_t m)
{
    size_t np3 = m * m * m;
    g->npts = np3;
    g->ntets = m > 1 ? 6 * (m - 1) * (m - 1) * (m - 1) : 0;
    size_t *perm = kern_malloc(np3 * sizeof(size_t));
    for (size_t i = 0; i < np3; i++)
        perm[i] = i;
    for (size_t i = np3; i > 1; i--) { /* seeded Fisher-Yates */
        size_t j = mix(0x5eedu + i) % i;
        size_t t = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = t;
    }
    g->xyz = kern_malloc(3 * np3 * sizeof(double));
    double h = 1.0 / (double)(m > 1 ? m - 1 : 1);
    for (size_t k = 0; k < m; k++)
        for (size_t j = 0; j < m; j++)
            for (size_t i = 0; i < m; i++) {
                size_t grid = (k * m + j) * m + i, p = perm[grid];
                size_t idx[3] = {i, j, k};
                for (int d = 0; d < 3; d++) {
                    double s = (double)idx[d] * h;
                    double jit = (unit(3 * grid + (size_t)d) - 0.5) * 0.3 * h;
                    g->xyz[3 * p + (size_t)d] = s * s * (0.5 + 0.5 * s) + jit * s;
                }
            }
    g->xadj = kern_malloc((np3 + 1) * sizeof(size_t));
    g->adj = kern_malloc(14 * np3 * sizeof(size_t));
    size_t nnz = 0;
    /* Row by point number: find each point's grid position first. */
    size_t *where = kern_malloc(np3 * sizeof(size_t));
    for (size_t grid = 0; grid < np3; grid++)
        where[perm[grid]] = grid;
    for (size_t p = 0; p < np3; p++) {
        g->xadj[p] = nnz;
        size_t grid = where[p];
        long c[3] = {(long)(grid % m), (long)(grid / m % m), (long)(grid / (m * m))};
        for (int s = -1; s <= 1; s += 2)
            for (int e = 0; e < 7; e++) {
                long q[3];
                int in = 1;
                for (int d = 0; d < 3; d++) {
                    q[d] = c[d] + s * dirs[e][d];
                    in &= q[d] >= 0 && q[d] < (long)m;
                }
                if (in) g->adj[nnz++] = perm[((size_t)q[2] * m + (size_t)q[1]) * m + (size_t)q[0]];
            }
        qsort(g->adj + g->xadj[p], nnz - g->xadj[p], sizeof(size_t), cmp_size);
    }
    g->xadj[np3] = nnz;
    free(where);
    free(perm);
}

/* The coupling of two points: the inverse of their distance. */
double kern_mesh_weight(const kern_mesh *g, size_t p, size_t q)
{
    double d2 = 0.0;
    for (int d = 0; d < 3; d++) {
        double t = g->xyz[3 * p + (size_t)d] - g->xyz[3 * q + (size_t)d];
        d2 += t * t;
    }
    return 1.0 / sqrt(d2);
}

/* PE 0 partitions and sends the result to the others: METIS on each of 512
 * simulated PEs would cost minutes on a 2-core host for the same answer. */
static void partition(kern_mesh *g, int me, int np)
{
    size_t n = g->npts;
    g->part = kern_malloc(n * sizeof(int));
    if (np == 1) return;
    if (me != 0) {
        kl_bcast(g->part, n * sizeof(int));
        kl_bcast(&g->edgecut, sizeof g->edgecut);
        return;
    }
    idx_t nv = (idx_t)n, ncon = 1, nparts = np, objval = 0;
    idx_t *xadj = kern_malloc((n + 1) * sizeof(idx_t));
    idx_t *adj = kern_malloc(g->xadj[n] * sizeof(idx_t) + 1);
    idx_t *part = kern_malloc(n * sizeof(idx_t));
    for (size_t i = 0; i <= n; i++)
        xadj[i] = (idx_t)g->xadj[i];
    for (size_t i = 0; i < g->xadj[n]; i++)
        adj[i] = (idx_t)g->adj[i];
    idx_t opt[METIS_NOPTIONS];
    METIS_SetDefaultOptions(opt);
    opt[METIS_OPTION_SEED] = 7;
    int rc = METIS_PartGraphKway(&nv, &ncon, xadj, adj, NULL, NULL, NULL, &nparts, NULL, NULL, opt,
                                 &objval, part);
    if (rc != METIS_OK) kern_die("METIS_PartGraphKway failed (%d)", rc);
    for (size_t i = 0; i < n; i++)
        g->part[i] = (int)part[i];
    g->edgecut = (size_t)objval;
    free(part);
    free(adj);
    free(xadj);
    kl_bcast(g->part, n * sizeof(int));
    kl_bcast(&g->edgecut, sizeof g->edgecut);
}

/* Sorted global numbers of the ghost points of PE q (points of other PEs
 * coupled to q's points). */
static size_t *ghosts_of(const kern_mesh *g, int q, size_t *count)
{
    size_t n = g->npts, cnt = 0, cap = 1024;
    size_t *gh = kern_malloc(cap * sizeof(size_t));
    unsigned char *mark = kern_malloc(n);
    for (size_t p = 0; p < n; p++) {
        if (g->part[p] != q) continue;
        for (size_t e = g->xadj[p]; e < g->xadj[p + 1]; e++) {
            size_t r = g->adj[e];
            if (g->part[r] == q || mark[r]) continue;
            mark[r] = 1;
            if (cnt == cap) {
                cap *= 2;
                gh = realloc(gh, cap * sizeof(size_t));
                if (gh == NULL) kern_die("out of memory");
            }
            gh[cnt++] = r;
        }
    }
    free(mark);
    qsort(gh, cnt, sizeof(size_t), cmp_size);
    *count = cnt;
    return gh;
}

static size_t find(const size_t *v, size_t n, size_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (v[mid] < key) lo = mid + 1;
        else hi = mid;
    }
    if (lo == n || v[lo] != key) kern_die("mesh: point %zu missing from a list", key);
    return lo;
}

void kern_mesh_build(kern_mesh *g, kern_local *l, size_t m, int me, int np)
{
    memset(g, 0, sizeof *g);
    memset(l, 0, sizeof *l);
    build_mesh(g, m);
    partition(g, me, np);
    size_t n = g->npts;

    /* My points in global order, then my ghosts in global order: the ghosts
     * of one neighbour are spread among the others' (indexed at both ends). */
    size_t *own_count = kern_malloc((size_t)np * sizeof(size_t));
    for (size_t p = 0; p < n; p++)
        own_count[g->part[p]]++;
    l->nown = own_count[me];
    l->own = kern_malloc((l->nown + 1) * sizeof(size_t));
    for (size_t p = 0, k = 0; p < n; p++)
        if (g->part[p] == me) l->own[k++] = p;
    l->ghost = ghosts_of(g, me, &l->nghost);
    l->len = l->nown + l->nghost;

    /* Local matrix rows, columns as local positions in global column order,
     * so that the sums round exactly as the serial reference's. */
    l->xadj = kern_malloc((l->nown + 1) * sizeof(size_t));
    size_t nnz = 0;
    for (size_t i = 0; i < l->nown; i++)
        nnz += g->xadj[l->own[i] + 1] - g->xadj[l->own[i]];
    l->col = kern_malloc((nnz + 1) * sizeof(size_t));
    l->w = kern_malloc((nnz + 1) * sizeof(double));
    l->diag = kern_malloc((l->nown + 1) * sizeof(double));
    nnz = 0;
    for (size_t i = 0; i < l->nown; i++) {
        size_t p = l->own[i];
        l->xadj[i] = nnz;
        double d = 1.0;
        for (size_t e = g->xadj[p]; e < g->xadj[p + 1]; e++) {
            size_t r = g->adj[e];
            l->col[nnz] = g->part[r] == me ? find(l->own, l->nown, r)
                                           : l->nown + find(l->ghost, l->nghost, r);
            l->w[nnz] = kern_mesh_weight(g, p, r);
            d += l->w[nnz++];
        }
        l->diag[i] = d;
    }
    l->xadj[l->nown] = nnz;
    l->nnz = nnz;

    /* Neighbours in PE order; a message carries its points in global order. */
    int *is_nbr = kern_malloc((size_t)np * sizeof(int));
    for (size_t k = 0; k < l->nghost; k++)
        is_nbr[g->part[l->ghost[k]]] = 1;
    for (int q = 0; q < np; q++)
        l->nnbr += is_nbr[q];
    l->nbr = kern_malloc(((size_t)l->nnbr + 1) * sizeof(kern_nbr));
    size_t recv_off = 0;
    for (int q = 0, i = 0; q < np; q++) {
        if (!is_nbr[q]) continue;
        kern_nbr *nb = &l->nbr[i++];
        nb->pe = q;
        size_t qn;
        size_t *qg = ghosts_of(g, q, &qn);
        /* What q receives from me: its ghosts that I own. My slot in q's
         * staging buffer follows those of the PEs before me. */
        for (size_t k = 0; k < qn; k++) {
            int o = g->part[qg[k]];
            nb->count += o == me;
            nb->stage_off += o < me;
        }
        nb->send = kern_malloc((nb->count + 1) * sizeof(size_t));
        nb->dst = kern_malloc((nb->count + 1) * sizeof(size_t));

        for (size_t k = 0, c = 0; k < qn; k++)
            if (g->part[qg[k]] == me) {
                nb->send[c] = find(l->own, l->nown, qg[k]);
                nb->dst[c++] = own_count[q] + k;
            }
        /* What I receive from q: my ghosts that q owns. */
        for (size_t k = 0; k < l->nghost; k++)
            nb->rcount += g->part[l->ghost[k]] == q;
        nb->recv = kern_malloc((nb->rcount + 1) * sizeof(size_t));
        for (size_t k = 0, c = 0; k < l->nghost; k++)
            if (g->part[l->ghost[k]] == q) nb->recv[c++] = l->nown + k;
        nb->recv_off = recv_off;
        recv_off += nb->rcount;
        free(qg);
    }
    free(is_nbr);
    free(own_count);
}

void kern_mesh_free_global(kern_mesh *g)
{
    free(g->xyz);
    free(g->xadj);
    free(g->adj);
    free(g->part);
    g->xyz = NULL;
    g->xadj = g->adj = NULL;
    g->part = NULL;
}
