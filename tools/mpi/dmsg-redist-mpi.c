/* dmsg-redist-mpi: the MPICH reference for tools/dmsg-redist.c. The same
 * CYCLIC(a) -> CYCLIC(b) redistributions of a 1-D array of doubles (0:
 * BLOCK, of ceil(M/P) elements, as dmsg_darray's), in MPICH's usual ways:
 *
 *   pack-idx  pack by precomputed index lists (an inspector/executor), one
 *             MPI_Alltoallv, unpack by index lists;
 *   pack-fly  the same, owners and local indices computed per element while
 *             packing and unpacking (no index memory);
 *   a2aw      MPI_Alltoallw with an indexed datatype per partner at each
 *             end (runs of the source, positions of the destination).
 *
 *   mpiexec -n P dmsg-redist-mpi [-r ROUNDS] [-e EXECS] M A:B [A:B ...]
 *
 * Rounds interleave patterns and variants. Prints per pattern and variant
 * the MB/s per rank (source bytes of a rank over the slowest rank's time of
 * one execution; best and median of the rounds), and each pattern's best
 * variant. Every result is checked element by element. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXR 64
#define NV 3

static int g_np, g_me;

typedef struct dist {
    size_t m, k, P; /* k 0: BLOCK */
} dist;

static size_t blk(const dist *d)
{
    return (d->m + d->P - 1) / d->P;
}

static size_t owner(const dist *d, size_t i)
{
    return d->k ? (i / d->k) % d->P : i / blk(d);
}

static size_t local_count(const dist *d, size_t p)
{
    if (!d->k) {
        size_t b = blk(d), lo = p * b;
        return lo >= d->m ? 0 : (d->m - lo < b ? d->m - lo : b);
    }
    size_t full = d->m / (d->k * d->P), rest = d->m % (d->k * d->P), c = full * d->k;
    size_t start = p * d->k;
    if (rest > start) c += rest - start < d->k ? rest - start : d->k;
    return c;
}

static size_t global_of(const dist *d, size_t p, size_t l)
{
    return d->k ? ((l / d->k) * d->P + p) * d->k + l % d->k : p * blk(d) + l;
}

typedef struct pat {
    dist a, b;
    size_t na, nb;
    double *src, *dst, *sbuf, *rbuf;
    int *scount, *sdispl, *rcount, *rdispl;
    size_t *sidx, *ridx; /* pack-idx: source local indices by destination, dst ones by source */
    int *wsc, *wsd, *wrc, *wrd;
    MPI_Datatype *stype, *rtype;
    double t[NV][MAXR];
} pat;

static void die(const char *what)
{
    fprintf(stderr, "dmsg-redist-mpi: %s\n", what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) die("out of memory");
    return p;
}

static void pack_idx(pat *x)
{
    for (size_t j = 0; j < x->na; j++)
        x->sbuf[j] = x->src[x->sidx[j]];
    MPI_Alltoallv(x->sbuf, x->scount, x->sdispl, MPI_DOUBLE, x->rbuf, x->rcount, x->rdispl,
                  MPI_DOUBLE, MPI_COMM_WORLD);
    for (size_t j = 0; j < x->nb; j++)
        x->dst[x->ridx[j]] = x->rbuf[j];
}

static void pack_fly(pat *x)
{
    size_t P = (size_t)g_np, me = (size_t)g_me, fill[64];
    for (size_t q = 0; q < P; q++)
        fill[q] = (size_t)x->sdispl[q];
    for (size_t l = 0; l < x->na; l++)
        x->sbuf[fill[owner(&x->b, global_of(&x->a, me, l))]++] = x->src[l];
    MPI_Alltoallv(x->sbuf, x->scount, x->sdispl, MPI_DOUBLE, x->rbuf, x->rcount, x->rdispl,
                  MPI_DOUBLE, MPI_COMM_WORLD);
    for (size_t p = 0; p < P; p++)
        fill[p] = (size_t)x->rdispl[p];
    for (size_t l = 0; l < x->nb; l++)
        x->dst[l] = x->rbuf[fill[owner(&x->a, global_of(&x->b, me, l))]++];
}

static void a2aw(pat *x)
{
    MPI_Alltoallw(x->src, x->wsc, x->wsd, x->stype, x->dst, x->wrc, x->wrd, x->rtype,
                  MPI_COMM_WORLD);
}

/* An indexed type of the runs (consecutive local indices) of idx[0..n). */
static MPI_Datatype runs_type(const size_t *idx, size_t n)
{
    int *len = xmalloc(n * sizeof *len), *at = xmalloc(n * sizeof *at), k = 0;
    for (size_t j = 0; j < n; j++) {
        if (k > 0 && (size_t)at[k - 1] + (size_t)len[k - 1] == idx[j]) {
            len[k - 1]++;
        } else {
            at[k] = (int)idx[j];
            len[k++] = 1;
        }
    }
    MPI_Datatype t;
    MPI_Type_indexed(k, len, at, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    free(len);
    free(at);
    return t;
}

static void setup(pat *x, size_t m, size_t ka, size_t kb)
{
    size_t P = (size_t)g_np, me = (size_t)g_me;
    x->a = (dist){m, ka, P};
    x->b = (dist){m, kb, P};
    x->na = local_count(&x->a, me);
    x->nb = local_count(&x->b, me);
    x->src = xmalloc(x->na * 8);
    x->dst = xmalloc(x->nb * 8);
    x->sbuf = xmalloc(x->na * 8);
    x->rbuf = xmalloc(x->nb * 8);
    int *ints = xmalloc(8 * P * sizeof *ints);
    x->scount = ints, x->sdispl = ints + P, x->rcount = ints + 2 * P, x->rdispl = ints + 3 * P;
    x->wsc = ints + 4 * P, x->wsd = ints + 5 * P, x->wrc = ints + 6 * P, x->wrd = ints + 7 * P;
    memset(ints, 0, 8 * P * sizeof *ints);
    for (size_t l = 0; l < x->na; l++) {
        size_t g = global_of(&x->a, me, l);
        x->src[l] = (double)g;
        x->scount[owner(&x->b, g)]++;
    }
    for (size_t l = 0; l < x->nb; l++)
        x->rcount[owner(&x->a, global_of(&x->b, me, l))]++;
    for (size_t q = 1; q < P; q++) {
        x->sdispl[q] = x->sdispl[q - 1] + x->scount[q - 1];
        x->rdispl[q] = x->rdispl[q - 1] + x->rcount[q - 1];
    }
    /* Index lists in global order (as pack_fly packs and unpacks). */
    x->sidx = xmalloc(x->na * sizeof *x->sidx);
    x->ridx = xmalloc(x->nb * sizeof *x->ridx);
    size_t fill[64];
    for (size_t q = 0; q < P; q++)
        fill[q] = (size_t)x->sdispl[q];
    for (size_t l = 0; l < x->na; l++)
        x->sidx[fill[owner(&x->b, global_of(&x->a, me, l))]++] = l;
    for (size_t p = 0; p < P; p++)
        fill[p] = (size_t)x->rdispl[p];
    for (size_t l = 0; l < x->nb; l++)
        x->ridx[fill[owner(&x->a, global_of(&x->b, me, l))]++] = l;
    x->stype = xmalloc(2 * P * sizeof *x->stype);
    x->rtype = x->stype + P;
    for (size_t q = 0; q < P; q++) {
        x->stype[q] = runs_type(x->sidx + x->sdispl[q], (size_t)x->scount[q]);
        x->rtype[q] = runs_type(x->ridx + x->rdispl[q], (size_t)x->rcount[q]);
        x->wsc[q] = x->wrc[q] = 1;
        x->wsd[q] = x->wrd[q] = 0;
    }
}

static void check(pat *x, const char *what)
{
    size_t bad = 0;
    for (size_t l = 0; l < x->nb; l++)
        bad += x->dst[l] != (double)global_of(&x->b, (size_t)g_me, l);
    unsigned long long all = 0, mine = bad;
    MPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (all) {
        if (g_me == 0) fprintf(stderr, "dmsg-redist-mpi: %s: %llu wrong elements\n", what, all);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static int cmp_d(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &g_np);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_me);
    int rounds = 7, execs = 3, i = 1;
    for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
        if (!strcmp(argv[i], "-r"))
            rounds = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-e"))
            execs = atoi(argv[i + 1]);
    }
    if (argc - i < 2 || rounds < 1 || rounds > MAXR || execs < 1 || g_np > 64) {
        if (g_me == 0)
            fprintf(stderr,
                    "usage: mpiexec -n P dmsg-redist-mpi [-r ROUNDS] [-e EXECS] M A:B ...\n");
        MPI_Finalize();
        return 2;
    }
    size_t m = strtoull(argv[i++], NULL, 0);
    int n = argc - i;
    pat *ps = xmalloc((size_t)n * sizeof *ps);
    static void (*const fn[NV])(pat *) = {pack_idx, pack_fly, a2aw};
    static const char *const names[NV] = {"pack-idx", "pack-fly", "a2aw"};
    for (int p = 0; p < n; p++) {
        size_t ka, kb;
        if (sscanf(argv[i + p], "%zu:%zu", &ka, &kb) != 2) die("bad pattern");
        memset(&ps[p], 0, sizeof ps[p]);
        setup(&ps[p], m, ka, kb);
        for (int v = 0; v < NV; v++) {
            memset(ps[p].dst, 0xff, ps[p].nb * 8);
            fn[v](&ps[p]);
            check(&ps[p], names[v]);
        }
    }
    for (int r = 0; r < rounds; r++)
        for (int p = 0; p < n; p++)
            for (int v = 0; v < NV; v++) {
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                for (int e = 0; e < execs; e++)
                    fn[v](&ps[p]);
                double t = (MPI_Wtime() - t0) / execs, w;
                MPI_Allreduce(&t, &w, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                ps[p].t[v][r] = w;
            }
    if (g_me == 0)
        printf("# dmsg-redist-mpi: %zu doubles, %d ranks, %d rounds x %d executions\n"
               "# %-8s %-9s %10s %10s\n",
               m, g_np, rounds, execs, "pattern", "variant", "best_MBs", "med_MBs");
    for (int p = 0; p < n; p++) {
        double top = 0;
        int topv = 0;
        for (int v = 0; v < NV; v++) {
            double mbs[MAXR];
            for (int r = 0; r < rounds; r++)
                mbs[r] = (double)ps[p].na * 8 / ps[p].t[v][r] / 1e6;
            qsort(mbs, (size_t)rounds, sizeof *mbs, cmp_d);
            if (mbs[rounds - 1] > top) top = mbs[rounds - 1], topv = v;
            if (g_me == 0)
                printf("%zu:%-8zu %-9s %10.1f %10.1f\n", ps[p].a.k, ps[p].b.k, names[v],
                       mbs[rounds - 1], mbs[rounds / 2]);
        }
        if (g_me == 0)
            printf("%zu:%-8zu %-9s %10.1f (best: %s)\n", ps[p].a.k, ps[p].b.k, "best", top,
                   names[topv]);
    }
    for (int p = 0; p < n; p++) {
        for (int q = 0; q < g_np; q++) {
            MPI_Type_free(&ps[p].stype[q]);
            MPI_Type_free(&ps[p].rtype[q]);
        }
        free(ps[p].stype);
        free(ps[p].src);
        free(ps[p].dst);
        free(ps[p].sbuf);
        free(ps[p].rbuf);
        free(ps[p].scount);
        free(ps[p].sidx);
        free(ps[p].ridx);
    }
    free(ps);
    MPI_Finalize();
    return 0;
}
