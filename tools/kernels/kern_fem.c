/*
 * kern_fem.c - the FEM kernel: Jacobi iterations of a graph Laplacian on the
 * partitioned tetrahedral mesh of kern_mesh.c,
 *
 *     x_i <- (b_i + sum_j w_ij x_j) / d_i,   w_ij = 1 / |p_i - p_j|,
 *     d_i = 1 + sum_j w_ij,
 *
 * and before every iteration the values of the points shared with
 * neighbouring partitions are exchanged, indexed at both ends (gathered from
 * my owned values, stored among the neighbour's ghosts). The serial
 * reference runs the same iterations on the whole mesh, summing in the same
 * order, so the results agree exactly.
 */
#include "kern_mesh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    kern_mesh g;
    kern_local l;
    double *x[2], *rhs;
    kl_fem *plan;
    long iter;
} M;

static double rhs_of(size_t p)
{
    uint64_t k = (p + 1) * 0x9E3779B97F4A7C15u;
    k ^= k >> 31;
    k *= 0xBF58476D1CE4E5B9u;
    k ^= k >> 29;
    return (double)(k >> 11) * 0x1.0p-53;
}

static void setup(const kern_prob *pr)
{
    int me = kl_me(), np = kl_np();
    if (pr->n < 2) kern_die("fem: at least 2 points per axis");
    kern_mesh_build(&M.g, &M.l, pr->n, me, np);
    /* Symmetric arrays have one size on every PE: the largest part's. */
    double most[2] = {(double)M.l.len, (double)M.l.nghost};
    kl_allreduce(most, 2, KL_MAX);
    for (int k = 0; k < 2; k++)
        M.x[k] = kl_alloc((size_t)most[0] * sizeof(double));
    M.rhs = kern_malloc((M.l.nown + 1) * sizeof(double));
    for (size_t i = 0; i < M.l.nown; i++)
        M.rhs[i] = rhs_of(M.l.own[i]);
    M.plan = kl_fem_plan(M.x, (size_t)most[0], (size_t)most[1], M.l.nbr, M.l.nnbr);
    double nb[3] = {(double)M.l.nnbr, (double)M.l.nnbr, 0};
    for (int i = 0; i < M.l.nnbr; i++)
        nb[2] += (double)M.l.nbr[i].count;
    kl_allreduce(nb, 1, KL_SUM);
    kl_allreduce(nb + 1, 1, KL_MAX);
    double words = nb[2];
    kl_allreduce(&words, 1, KL_SUM);
    if (me == 0)
        fprintf(stderr, "fem: %zu points, %zu tetrahedra, METIS edge cut %zu; neighbours per PE "
                        "%.1f on average, at most %.0f; %.0f words per message on average\n",
                M.g.npts, M.g.ntets, M.g.edgecut, nb[0] / np, nb[1], nb[0] > 0 ? words / nb[0] : 0);
}

static void iterate(int steps, int compute)
{
    const kern_local *l = &M.l;
    for (int s = 0; s < steps; s++, M.iter++) {
        int par = (int)(M.iter % 2);
        kern_align();
        kl_fem_run(M.plan, par);
        if (!compute) continue;
        KERN_CTIC(t0);
        const double *x = M.x[par];
        double *y = M.x[!par];
        for (size_t i = 0; i < l->nown; i++) {
            double sum = M.rhs[i];
            for (size_t e = l->xadj[i]; e < l->xadj[i + 1]; e++)
                sum += l->w[e] * x[l->col[e]];
            y[i] = sum / l->diag[i];
        }
        KERN_CTOC(t0, comp);
    }
}

/* The whole mesh on one PE, the same sums in the same order. */
static double *serial(int steps)
{
    const kern_mesh *g = &M.g;
    size_t n = g->npts;
    double *x = kern_malloc(n * sizeof(double)), *y = kern_malloc(n * sizeof(double));
    for (int s = 0; s < steps; s++) {
        for (size_t p = 0; p < n; p++) {
            double sum = rhs_of(p), d = 1.0;
            for (size_t e = g->xadj[p]; e < g->xadj[p + 1]; e++) {
                double w = kern_mesh_weight(g, p, g->adj[e]);
                sum += w * x[g->adj[e]];
                d += w;
            }
            y[p] = sum / d;
        }
        double *t = x;
        x = y;
        y = t;
    }
    free(y);
    return x;
}

static void verify(const kern_prob *pr, kern_stats *st)
{
    for (int k = 0; k < 2; k++)
        memset(M.x[k], 0, M.l.len * sizeof(double));
    M.iter = 0;
    kl_barrier();
    iterate(pr->steps, 1);
    kl_barrier();
    double *ref = serial(pr->steps);
    const double *mine = M.x[M.iter % 2];
    size_t wrong = 0;
    for (size_t i = 0; i < M.l.nown; i++)
        wrong += mine[i] != ref[M.l.own[i]]; /* NaN counts too */
    free(ref);
    st->ok = wrong == 0;
    st->maxerr = (double)wrong;
    st->bytes = 0;
    for (int i = 0; i < M.l.nnbr; i++)
        st->bytes += (double)M.l.nbr[i].count * sizeof(double);
    st->flops = 2.0 * (double)M.l.nnz + 2.0 * (double)M.l.nown;
    kern_mesh_free_global(&M.g); /* only the reference needed it */
}

static void run(const kern_prob *pr)
{
    iterate(pr->steps, !pr->nocompute);
}

const kern_kernel kern_fem_kernel = {"fem", setup, verify, run};
