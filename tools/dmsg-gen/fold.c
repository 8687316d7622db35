/* dmsg-gen's tables of a statement: the pieces of every pair by the
 * library's closed form (dmsg_assign_pieces), folded into one constant table
 * in sending order, the mechanism of each pair, the deposits each PE
 * receives and where packed chunks land in the receivers' staging areas. */
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
            int cand = plan_pack_candidate(g->pieces + g->npieces, n, elem, p == q);
            double md = 0, mp = 0;
            if (model != NULL)
                plan_model_predict(model, g->pieces + g->npieces, n, elem, p == q, &md, &mp);
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
    free(g->pieces);
    free(g->peers);
    free(g->peer_first);
    free(g->recv_msgs);
}
