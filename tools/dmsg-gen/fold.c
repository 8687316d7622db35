/* dmsg-gen's tables of a statement: the pieces of every pair by the
 * library's closed form (dmsg_assign_pieces), folded into one constant table
 * in sending order, the mechanism of each pair, the deposits each PE
 * receives and where packed chunks land in the receivers' staging areas. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tools/dmsg-gen/gen.h"

void *gen_xmalloc(size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (p == NULL) {
        fprintf(stderr, "dmsg-gen: out of memory\n");
        exit(1);
    }
    return p;
}

void *gen_xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (p == NULL) {
        fprintf(stderr, "dmsg-gen: out of memory\n");
        exit(1);
    }
    return p;
}

int gen_replicated(const dmsg_darray_desc *d)
{
    for (int k = 0; k < d->ndims; k++)
        if (d->dist[k] != DMSG_DIST_NONE) return 0;
    return 1;
}

/* The library keeps a replicated array (gen_replicated) on PE 0 only; here
 * every PE of its grid holds a copy, at the same offsets (the layout is the
 * same on every PE). So what p sends q is what the library's p sends its
 * PE 0 when the destination is replicated (a broadcast: every copy is
 * written), and when the source is replicated, q's data comes from its own
 * copy (from PE 0's if q holds none): lp and lq name the pair to ask the
 * library for; returns 0 when p sends q nothing. */
static int lib_pair(const dmsg_assign *as, int p, int q, int *lp, int *lq)
{
    *lp = p;
    *lq = q;
    if (gen_replicated(&as->dst->desc)) {
        if (q >= as->dst->grid_pes) return 0;
        *lq = 0;
    }
    if (gen_replicated(&as->src->desc)) {
        int holder = q < as->src->grid_pes ? q : 0;
        if (p != holder) return 0;
        *lp = 0;
    }
    return 1;
}

static void stmt_fail(const input *in, const stmt *s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));
static void stmt_fail(const input *in, const stmt *s, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s:%d:%d: error: statement %s: ", in->file, s->line, s->col, s->label);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

/* Distribution blocks that a section lo:hi:step of dimension d of a
 * touches: the intervals the closed form walks for it (per element where
 * the elements are fewer, as it does). */
static size_t blocks_touched(const dmsg_darray *a, int d, size_t lo, size_t hi, ptrdiff_t step)
{
    size_t m = gen_sec_count_1(lo, hi, step);
    if (m == 0 || a->procs[d] == 1) return m ? 1 : 0;
    size_t as = (size_t)(step < 0 ? -step : step),
           last = step > 0 ? lo + (m - 1) * as : lo - (m - 1) * as;
    size_t a0 = lo < last ? lo : last, a1 = lo < last ? last : lo;
    size_t span = a1 / a->blk[d] - a0 / a->blk[d] + 1;
    return span < m ? span : m;
}

/* One matched dimension of a statement alone, as a 1-D assignment: the
 * library's pieces of it for a pair of coordinates are exactly the folded
 * runs of that dimension of the pair's pieces, so their product bounds the
 * pieces of the pair without building them. */
typedef struct proj {
    dmsg_darray a, b;
    dmsg_assign as;
    int np, d, da; /* PEs of the 1-D grids; the dimension in dst and src */
} proj;

static void proj_init(proj *pj, const dmsg_assign *as, int d)
{
    int da = as->perm[d];
    const dmsg_darray *A = as->src, *B = as->dst;
    dmsg_darray_desc x = {.ndims = 1, .elem_size = A->desc.elem_size, .grid_ndims = 1};
    dmsg_darray_desc y = x;
    x.extent[0] = A->desc.extent[da];
    x.grid[0] = A->procs[da];
    x.dist[0] = A->desc.dist[da];
    x.block[0] = A->desc.block[da];
    y.extent[0] = B->desc.extent[d];
    y.grid[0] = B->procs[d];
    y.dist[0] = B->desc.dist[d];
    y.block[0] = B->desc.block[d];
    memset(pj, 0, sizeof *pj);
    pj->d = d;
    pj->da = da;
    pj->np = x.grid[0] > y.grid[0] ? x.grid[0] : y.grid[0];
    /* Both were accepted as dimensions of the arrays, so they are valid alone. */
    dmsg_darray_init(&pj->a, &x);
    dmsg_darray_init(&pj->b, &y);
    memset(&pj->as, 0, sizeof pj->as);
    pj->as.src = &pj->a;
    pj->as.dst = &pj->b;
    pj->as.ssec.lo[0] = as->ssec.lo[da];
    pj->as.ssec.hi[0] = as->ssec.hi[da];
    pj->as.ssec.step[0] = as->ssec.step[da];
    pj->as.dsec.lo[0] = as->dsec.lo[d];
    pj->as.dsec.hi[0] = as->dsec.hi[d];
    pj->as.dsec.step[0] = as->dsec.step[d];
    for (int k = 0; k < DMSG_MAX_DIMS; k++)
        pj->as.perm[k] = k == 0 ? 0 : -1;
}

/* An upper bound of the pieces the library's p sends its q (exact unless a
 * piece has more than DMSG_MAX_DIMS section dimensions, which the library
 * splits: then bounded by the elements of the dimensions). */
static double pair_bound(const dmsg_assign *as, proj *pj, int npj, int p, int q)
{
    double runs = 1, elems = 1;
    int sdims = 0;
    for (int i = 0; i < npj; i++) {
        int cp = dmsg_plan_coord(as->src, p, pj[i].da), cq = dmsg_plan_coord(as->dst, q, pj[i].d);
        if (cp < 0 || cq < 0) return 0;
        size_t n = 0;
        if (dmsg_assign_pieces(&pj[i].as, pj[i].np, cp, cq, NULL, 0, &n) != DMSG_OK) return 0;
        if (n == 0) return 0;
        dmsg_piece *pc = gen_xmalloc(n * sizeof *pc);
        dmsg_assign_pieces(&pj[i].as, pj[i].np, cp, cq, pc, n, &n);
        int most = 0;
        size_t big = 1;
        for (size_t k = 0; k < n; k++) {
            int nd = pc[k].elems > 1 ? pc[k].src.ndims : 0;
            most = nd > most ? nd : most;
            big = pc[k].elems > big ? pc[k].elems : big;
        }
        free(pc);
        runs *= (double)n;
        elems *= (double)big;
        sdims += most;
    }
    return sdims > DMSG_MAX_DIMS ? runs * elems : runs;
}

/* The limits of gen.h, before the closed form runs on the statement. */
static void check_limits(const input *in, const stmt *s, const dmsg_assign *as, proj *pj, int *npj)
{
    *npj = 0;
    for (int d = 0; d < as->dst->desc.ndims; d++) {
        int da = as->perm[d];
        if (da < 0) continue;
        size_t ba =
            blocks_touched(as->src, da, as->ssec.lo[da], as->ssec.hi[da], as->ssec.step[da]);
        size_t bb = blocks_touched(as->dst, d, as->dsec.lo[d], as->dsec.hi[d], as->dsec.step[d]);
        /* A periodic pattern costs per period, not per block. */
        if ((ba > GEN_MAX_BLOCKS || bb > GEN_MAX_BLOCKS) && dmsg_plan_dim_period(as, d) == 0)
            stmt_fail(in, s,
                      "the section of %s touches %zu distribution blocks of its dimension %d; "
                      "dmsg-gen computes the tables per block and allows at most %u per "
                      "dimension: use larger blocks (BLOCK or CYCLIC(k) with a larger k) or a "
                      "smaller array",
                      ba > GEN_MAX_BLOCKS ? in->arrays[s->src].name : in->arrays[s->dst].name,
                      ba > GEN_MAX_BLOCKS ? ba : bb, (ba > GEN_MAX_BLOCKS ? da : d) + 1,
                      GEN_MAX_BLOCKS);
        proj_init(&pj[(*npj)++], as, d);
    }
}

/* The periodic group of a pair's n pieces (the library's, dmsg/plan/group.c)
 * where its period is short enough to write out as code: the group's pieces
 * then move to the front of v (the rest keep their order), so the emitted
 * gather covers v[0 .. npieces) and gather_E the others. */
static void fold_loop(dmsg_piece *v, size_t n, size_t elem, gloop *lp)
{
    memset(lp, 0, sizeof *lp);
    plan_group *grp = NULL;
    if (dmsg_plan_group_build(v, n, elem, &grp) != DMSG_OK) {
        fprintf(stderr, "dmsg-gen: out of memory\n");
        exit(1);
    }
    if (grp == NULL) return;
    if (grp->nruns > GEN_LOOP_MAX_RUNS) {
        dmsg_plan_group_free(grp);
        return;
    }
    size_t full = SIZE_MAX, periods = 0, per = 0;
    for (size_t k = 0; k < grp->nruns; k++) {
        const dmsg_prun *r = &grp->run[k];
        full = r->reps < full ? r->reps : full;
        periods = r->reps > periods ? r->reps : periods;
        per += r->bytes;
    }
    char *rest = gen_xmalloc(n);
    for (size_t i = 0; i < grp->nrest; i++)
        rest[grp->rest[i]] = 1;
    dmsg_piece *tmp = gen_xmalloc(n * sizeof *tmp);
    size_t w = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t k = 0; k < n; k++)
            if (rest[k] == pass) tmp[w++] = v[k];
    memcpy(v, tmp, n * sizeof *v);
    free(tmp);
    free(rest);
    *lp = (gloop){grp, n - grp->nrest, full, periods, per};
}

void gen_fold_stmt(const input *in, const stmt *s, gen_mech mech, const plan_model *model, gstmt *g,
                   size_t *stage_need)
{
    int P = in->npes;
    dmsg_assign as;
    memset(&as, 0, sizeof as);
    as.dst = &in->arrays[s->dst].da;
    as.src = &in->arrays[s->src].da;
    as.dsec = s->dsec;
    as.ssec = s->ssec;
    memcpy(as.perm, s->perm, sizeof as.perm);
    if (dmsg_assign_check(&as, P) != DMSG_OK) {
        fprintf(stderr, "%s:%d:%d: error: statement %s is not a valid assignment\n", in->file,
                s->line, s->col, s->label);
        exit(1);
    }
    proj pj[DMSG_MAX_DIMS];
    int npj;
    check_limits(in, s, &as, pj, &npj);
    size_t elem = as.src->desc.elem_size;
    memset(g, 0, sizeof *g);
    g->peers = gen_xmalloc((size_t)P * (size_t)P * sizeof *g->peers);
    g->peer_first = gen_xmalloc(((size_t)P + 1) * sizeof *g->peer_first);
    g->recv_msgs = gen_xmalloc((size_t)P * sizeof *g->recv_msgs);
    size_t *in_bytes = gen_xmalloc((size_t)P * sizeof *in_bytes); /* staging use per receiver */
    size_t cap = 0;
    double bytes_all = 0, t_direct = 0, t_pack = 0;
    for (int p = 0; p < P; p++) {
        g->peer_first[p] = g->npeers;
        for (int i = 0; i < P; i++) {
            int q = (p + i) % P;
            int lp, lq; /* the pair as the library sees it */
            if (!lib_pair(&as, p, q, &lp, &lq)) continue;
            if ((double)g->npieces + pair_bound(&as, pj, npj, lp, lq) > GEN_MAX_PIECES)
                stmt_fail(in, s,
                          "more than %u pieces (sections in the generated tables, from PE %d to "
                          "PE %d and before): the distributions of %s and %s do not fold; use "
                          "fewer PEs, larger blocks, or split the statement",
                          GEN_MAX_PIECES, p, q, in->arrays[s->src].name, in->arrays[s->dst].name);
            size_t n;
            if (dmsg_assign_pieces(&as, P, lp, lq, NULL, 0, &n) != DMSG_OK) {
                fprintf(stderr, "dmsg-gen: out of memory\n");
                exit(1);
            }
            if (n == 0) continue;
            if (g->npieces + n > cap) {
                cap = 2 * (g->npieces + n);
                g->pieces = gen_xrealloc(g->pieces, cap * sizeof *g->pieces);
            }
            dmsg_assign_pieces(&as, P, lp, lq, g->pieces + g->npieces, n, &n);
            gpeer *pr = &g->peers[g->npeers++];
            pr->q = q;
            pr->first = g->npieces;
            pr->n = n;
            for (size_t k = 0; k < n; k++)
                pr->bytes += g->pieces[g->npieces + k].elems * elem;
            fold_loop(g->pieces + g->npieces, n, elem, &pr->loop);
            int cand = dmsg_plan_pack_candidate(g->pieces + g->npieces, n, elem, p == q);
            double md = 0, mp = 0;
            if (model != NULL)
                dmsg_plan_model_predict(model, g->pieces + g->npieces, n, elem, p == q, &md, &mp);
            if (md > 0 && mp > 0) {
                bytes_all += (double)pr->bytes;
                t_direct += (double)pr->bytes / md;
                t_pack += (double)pr->bytes / mp;
            }
            pr->packed = cand && (mech == MECH_PACK || (mech == MECH_MODEL && mp > md));
            if (pr->packed) {
                pr->stage_off = in_bytes[q];
                in_bytes[q] += (pr->bytes + 15) / 16 * 16;
                g->send_max = pr->bytes > g->send_max ? pr->bytes : g->send_max;
                g->recv_msgs[q] += 1;
            } else {
                g->recv_msgs[q] += n;
            }
            g->npieces += n;
        }
    }
    g->peer_first[P] = g->npeers;
    for (int q = 0; q < P; q++)
        *stage_need = in_bytes[q] > *stage_need ? in_bytes[q] : *stage_need;
    g->mbs_direct = t_direct > 0 ? bytes_all / t_direct : 0;
    g->mbs_pack = t_pack > 0 ? bytes_all / t_pack : 0;
    free(in_bytes);
}

void gen_fold_free(gstmt *g)
{
    for (size_t i = 0; i < g->npeers; i++)
        dmsg_plan_group_free(g->peers[i].loop.grp);
    free(g->pieces);
    free(g->peers);
    free(g->peer_first);
    free(g->recv_msgs);
}
