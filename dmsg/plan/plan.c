/* Plans: building one (pieces per partner, the mechanism choice, one
 * agreement exchange, counter and staging memory), inspecting, destroying. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dmsg/coll/agree.h"
#include "dmsg/core/caps.h"
#include "dmsg/plan/calibrate.h"

int dmsg_plan_piece_contiguous(const dmsg_piece *pc, size_t elem)
{
    const dmsg_layout *ls[2] = {&pc->src, &pc->dst};
    for (int s = 0; s < 2; s++) {
        ptrdiff_t want = (ptrdiff_t)elem;
        for (int d = 0; d < ls[s]->ndims; d++) {
            if (ls[s]->count[d] == 1) continue;
            if (ls[s]->stride[d] != want) return 0;
            want *= (ptrdiff_t)ls[s]->count[d];
        }
    }
    return 1;
}

uint64_t dmsg_plan_send_msgs(const plan_t *pl, int pack_on)
{
    if (dmsg_plan_share_on(pl, pack_on)) return (uint64_t)pl->npes; /* the notes */
    uint64_t n = 0;
    for (int i = 0; i < pl->nto; i++)
        n += pack_on && pl->to[i].packable ? 1 : dmsg_plan_peer_deposits(&pl->to[i]);
    return n;
}

uint64_t dmsg_plan_recv_msgs(const plan_t *pl, int pack_on)
{
    if (dmsg_plan_share_on(pl, pack_on)) return (uint64_t)pl->npes;
    uint64_t n = 0;
    for (int i = 0; i < pl->nfrom; i++)
        n += pack_on && pl->from[i].packable ? 1 : dmsg_plan_peer_deposits(&pl->from[i]);
    return n;
}

/* Bytes of the source that the direct deposits of all partners' groups
 * read in turn, slice by slice (exec.c): a periodic pattern's partners each
 * take a few elements of every cache line, so moved partner after partner
 * each pass reads the whole source again; in slices that fit the cache
 * (L2), the source comes from memory once. */
#define PLAN_SLICE_WINDOW (256u << 10)

/* Slices only where deposits are copies done by the call, visible in the
 * order issued (a group's last slice carries its count for all of them),
 * and the clock is real: a simulated machine's model prices a group as one
 * transfer (docs/compiler.md, section 3). */
static int slice_groups(void)
{
    return dmsg_tp_has(DMSG_TP_CAP_ORDERED | DMSG_TP_CAP_PUT_DONE) &&
           !dmsg_tp_has(DMSG_TP_CAP_VTIME);
}

/* The pieces between this PE and every partner, one direction. */
static dmsg_status build_side(plan_t *pl, const dmsg_assign *as, int sending)
{
    plan_pieces *ps = sending ? &pl->sendp : &pl->recvp;
    plan_peer *peers = calloc((size_t)pl->npes, sizeof *peers);
    if (peers == NULL) return DMSG_FAIL(DMSG_ERR_NOMEM, "plan: out of memory");
    int n = 0;
    for (int i = 0; i < pl->npes; i++) {
        /* Staggered: I send to me+i and receive from me-i, so that in step i
         * every PE has exactly one partner in each direction. */
        int other = sending ? (pl->me + i) % pl->npes : (pl->me - i + pl->npes) % pl->npes;
        size_t first = ps->n;
        dmsg_status st = sending ? dmsg_plan_pair_pieces(as, pl->me, other, ps)
                                 : dmsg_plan_pair_pieces(as, other, pl->me, ps);
        if (st != DMSG_OK) {
            free(peers);
            return st;
        }
        if (ps->n == first) continue;
        plan_peer *pr = &peers[n++];
        pr->pe = other;
        pr->first = first;
        pr->npieces = ps->n - first;
        for (size_t k = first; k < ps->n; k++)
            pr->bytes += ps->v[k].elems * pl->elem;
        /* A partner with oneself deposits to oneself: grouped as well. */
        st = dmsg_plan_group_build(&ps->v[first], pr->npieces, pl->elem, &pr->grp);
        /* A lone piece of short runs reads the source as a group does; as
         * a group it moves in slices too (both ends build it alike, so
         * their packed layouts agree). */
        if (st == DMSG_OK && pr->grp == NULL && pr->npieces == 1 && slice_groups())
            st = dmsg_plan_group_single(&ps->v[first], pl->elem, &pr->grp);
        if (st == DMSG_OK && sending && pr->grp != NULL && slice_groups()) {
            st = dmsg_plan_group_slice(pr->grp, PLAN_SLICE_WINDOW);
            if (pr->grp->slices > 1 && pr->grp->slices > pl->slices) pl->slices = pr->grp->slices;
        }
        if (st != DMSG_OK) {
            for (int j = 0; j < n; j++)
                dmsg_plan_group_free(peers[j].grp);
            free(peers);
            return st;
        }
    }
    if (sending) {
        pl->to = peers;
        pl->nto = n;
    } else {
        pl->from = peers;
        pl->nfrom = n;
    }
    return DMSG_OK;
}

/* Local checks of plan_create, before anything is exchanged. */
static dmsg_status check_local(const dmsg_assign *as, const dmsg_plan_opts *opts, int npes,
                               dmsg_plan **out)
{
    if (out == NULL) return DMSG_FAIL(DMSG_ERR_NULL, "plan_create: NULL plan pointer");
    dmsg_status st = dmsg_assign_check(as, npes);
    if (st != DMSG_OK) return st;
    const dmsg_darray *a = as->src, *b = as->dst;
    if (a->base == NULL || b->base == NULL)
        return DMSG_FAIL(DMSG_ERR_ARG, "plan_create: array without storage");
    if (!dmsg_addr_is_symmetric(a->base, a->bytes) || !dmsg_addr_is_symmetric(b->base, b->bytes))
        return DMSG_FAIL(DMSG_ERR_RANGE, "plan_create: array storage is not symmetric");
    const char *pa = a->base, *pb = b->base;
    if (pa < pb + b->bytes && pb < pa + a->bytes)
        return DMSG_FAIL(DMSG_ERR_ARG, "plan_create: source and destination share storage");
    if (opts != NULL && (opts->mech < DMSG_PLAN_MODEL || opts->mech > DMSG_PLAN_MEASURE))
        return DMSG_FAIL(DMSG_ERR_ARG, "plan_create: unknown mechanism %d", opts->mech);
    return DMSG_OK;
}

/* One row of the create exchange: hash, status, the strides the host
 * model needs and whether this PE lacks a description that covers them,
 * then per receiver the bytes this PE packs for it (0: direct). */
/* A PE's row of the create exchange; the status first, where the
 * agreement (dmsg/coll/agree.h) carries it. */
typedef struct xrow {
    int64_t status;
    uint64_t hash;
    uint64_t need;
    uint64_t unknown;
    uint64_t share_ok; /* this PE can take shares (share.c) */
    uint64_t packed[];
} xrow;

static xrow *row_of(const plan_t *pl, int pe)
{
    return (xrow *)(pl->xch + (size_t)pe * pl->rowsz);
}

/* The create exchange: this PE's row (its status st, the statement's
 * hash, the host model's needs, the bytes it packs per receiver) to every
 * PE. Returns the all-gather's error (the PEs are then out of step), else
 * DMSG_OK with every row readable and *verdict the same on every PE: the
 * lowest-ranked PE's error, then a PE that passed another assignment. */
static dmsg_status create_exchange(plan_t *pl, dmsg_status st, uint64_t hash, uint32_t need,
                                   int unknown, dmsg_status *verdict)
{
    xrow *row = calloc(1, pl->rowsz);
    if (row != NULL) {
        row->hash = hash;
        row->need = need;
        row->unknown = (uint64_t)unknown;
        row->share_ok = (uint64_t)pl->share_ok;
        for (int i = 0; st == DMSG_OK && i < pl->nto; i++)
            if (pl->to[i].packable) row->packed[pl->to[i].pe] = pl->to[i].bytes;
    } else if (st == DMSG_OK) {
        st = DMSG_FAIL(DMSG_ERR_NOMEM, "plan_create: out of memory");
    }
    dmsg_status xst = dmsg_agree_rows(st, row, pl->rowsz, pl->xch, verdict);
    free(row);
    if (xst != DMSG_OK || *verdict != DMSG_OK) return xst;
    for (int p = 1; p < pl->npes; p++)
        if (row_of(pl, p)->hash != row_of(pl, 0)->hash) {
            *verdict = DMSG_FAIL(DMSG_ERR_COLLECTIVE,
                                 "plan_create: PE %d passed another assignment than PE 0", p);
            break;
        }
    return DMSG_OK;
}

/* From the packed-bytes matrix: offsets of the chunks in the staging areas
 * and the size every PE allocates (the largest need of any PE). */
static size_t place_chunks(plan_t *pl)
{
    size_t in_max = 0, out_max = 0;
    for (int q = 0; q < pl->npes; q++) {
        size_t sum = 0;
        for (int p = 0; p < pl->npes; p++) {
            size_t b = row_of(pl, p)->packed[q];
            if (p == pl->me && q != pl->me)
                for (int i = 0; i < pl->nto; i++)
                    if (pl->to[i].pe == q) pl->to[i].stage_off = sum;
            if (q == pl->me)
                for (int i = 0; i < pl->nfrom; i++)
                    if (pl->from[i].pe == p) {
                        pl->from[i].stage_off = sum;
                        pl->from[i].packable = b > 0;
                    }
            sum += b;
            out_max = b > out_max ? b : out_max;
            pl->any_packed |= b > 0;
        }
        in_max = sum > in_max ? sum : in_max;
    }
    /* Chunks start 64-byte aligned in the send buffer's wake. */
    pl->stage_in = (in_max + 63) / 64 * 64;
    return out_max == 0 ? 0 : pl->stage_in + out_max;
}

static void free_local(plan_t *pl)
{
    dmsg_plan_share_free(pl);
    for (int i = 0; pl->to != NULL && i < pl->nto; i++)
        dmsg_plan_group_free(pl->to[i].grp);
    for (int i = 0; pl->from != NULL && i < pl->nfrom; i++)
        dmsg_plan_group_free(pl->from[i].grp);
    dmsg_plan_pieces_free(&pl->sendp);
    dmsg_plan_pieces_free(&pl->recvp);
    free(pl->to);
    free(pl->from);
    free(pl);
}

static int create(const dmsg_assign *as, const dmsg_plan_opts *opts, dmsg_plan **out,
                  int no_handle, plan_t **made)
{
    int npes = dmsg_npes(), me = dmsg_pe();
    if (npes <= 0) return DMSG_FAIL(DMSG_ERR_NOT_INIT, "plan_create: dmsg is not initialized");
    plan_t *pl = calloc(1, sizeof *pl);
    if (pl == NULL) return DMSG_FAIL(DMSG_ERR_NOMEM, "plan_create: out of memory");
    pl->npes = npes;
    pl->me = me;
    pl->rowsz = (sizeof(xrow) + (size_t)npes * sizeof(uint64_t) + 63) / 64 * 64;
    /* Every PE goes through the exchanges even after a local error, so that
     * all of them return the same status and none is left waiting. */
    plan_settings set;
    dmsg_status st = dmsg_plan_settings_load(&set);
    if (st != DMSG_OK) {
        st = DMSG_FAIL(st, "plan_create: %s", dmsg_last_error());
        memset(&set, 0, sizeof set);
    }
    pl->mech = opts != NULL ? opts->mech : set.mech;
    const char *machine = opts != NULL && opts->machine != NULL ? opts->machine
                          : set.machine[0] != '\0'              ? set.machine
                                                                : NULL;
    if (st == DMSG_OK) st = check_local(as, opts, npes, out);
    if (st == DMSG_OK && no_handle) st = DMSG_FAIL(DMSG_ERR_NOMEM, "plan_create: out of memory");
    if (st == DMSG_OK) {
        pl->src = *as->src;
        pl->dst = *as->dst;
        pl->elem = pl->src.desc.elem_size;
        st = build_side(pl, as, 1);
    }
    if (st == DMSG_OK) st = build_side(pl, as, 0);
    if (st == DMSG_OK) st = dmsg_plan_share_build(pl, as, slice_groups() && pl->mech != DMSG_PLAN_PACK);
    uint64_t hash = 0;
    if (as != NULL && as->src != NULL && as->dst != NULL)
        hash = dmsg_plan_hash_assign(as, pl->mech, machine);
    int ast = dmsg_alloc(dmsg_plan_xch_bytes(npes, pl->rowsz), (void **)&pl->xch);
    if (ast != DMSG_OK) {
        free_local(pl);
        return ast;
    }
    plan_model *pm = NULL;
    uint32_t need = 0;
    int unknown = 0;
    if (st == DMSG_OK) st = dmsg_plan_local_model(pl, &set, machine, &pm, &need, &unknown);
    if (st == DMSG_OK) dmsg_plan_choose(pl, pm);
    dmsg_plan_model_close(pm);
    int xst = create_exchange(pl, st, hash, need, unknown, &st);
    if (xst != DMSG_OK) { /* a failed barrier leaves the PEs out of step */
        free_local(pl);
        return xst;
    }
    /* The first plan of a job that needs the host's model (or strides it has
     * not seen): every PE learns that from the rows, PE 0 provides the
     * description for the union of the needs, and the PEs choose again. */
    uint32_t all = 0;
    int any = 0;
    for (int p = 0; st == DMSG_OK && p < npes; p++) {
        all |= (uint32_t)row_of(pl, p)->need;
        any |= row_of(pl, p)->unknown != 0;
    }
    if (any) {
        st = dmsg_plan_cal_model(pl, &set, all, dmsg_plan_cal_text(pl), &pm, &pl->model_source, &pl->cal_s);
        if (st == DMSG_OK) {
            dmsg_plan_choose(pl, pm);
            xst = create_exchange(pl, st, hash, 0, 0, &st);
            if (xst != DMSG_OK) {
                dmsg_plan_model_close(pm);
                free_local(pl);
                return xst;
            }
        }
        dmsg_plan_model_close(pm);
    }
    size_t stage = 0;
    if (st == DMSG_OK) stage = place_chunks(pl);
    /* Shares only where every PE can take them. */
    pl->shared = st == DMSG_OK;
    for (int p = 0; pl->shared && p < npes; p++)
        pl->shared = row_of(pl, p)->share_ok != 0;
    if (!pl->shared) dmsg_plan_share_free(pl);
    /* The rows are read; nothing writes them again. */
    if (st == DMSG_OK) st = dmsg_plan_ctr_get(&pl->ctr);
    if (st == DMSG_OK && stage > 0) {
        st = dmsg_alloc(stage, (void **)&pl->stage);
        if (st != DMSG_OK) dmsg_plan_ctr_put();
    }
    if (st != DMSG_OK) {
        dmsg_free(pl->xch);
        free_local(pl);
        return st;
    }
    pl->pack_on = pl->mech != DMSG_PLAN_DIRECT && pl->mech != DMSG_PLAN_MEASURE;
    /* Where a deposit is complete when its call returns (shm, sim:
     * docs/model.md 3), packed bytes need no dmsg_quiet before they move. */
    pl->async = !dmsg_tp_has(DMSG_TP_CAP_PUT_DONE);
    /* Where a deposit is the copy itself (as for the slices), a packed
     * group can be gathered into the receiver's chunk by one deposit: one
     * copy less than gathering here and depositing the buffer. */
    pl->gather_remote = slice_groups();
    *made = pl;
    return DMSG_OK;
}

int dmsg_plan_create(const dmsg_assign *as, const dmsg_plan_opts *opts, dmsg_plan **out)
{
    /* The handle is taken first: running out of memory for it later would
     * fail this PE alone after the collective steps; now it is a local
     * error that the create exchange makes every PE's. */
    struct dmsg_plan *h = dmsg_plan_cell_new();
    plan_t *pl = NULL;
    int st = create(as, opts, out, h == NULL, &pl);
    if (st != DMSG_OK) {
        if (h != NULL) dmsg_plan_cell_unused(h);
        return st;
    }
    h->body = pl;
    *out = h;
    return DMSG_OK;
}

int dmsg_plan_destroy_body(plan_t *pl)
{
    int st = dmsg_plan_ctr_put();
    int st2 = pl->stage != NULL ? dmsg_free(pl->stage) : DMSG_OK;
    int st3 = dmsg_free(pl->xch);
    free_local(pl);
    return st != DMSG_OK ? st : st2 != DMSG_OK ? st2 : st3;
}

int dmsg_plan_destroy(dmsg_plan *h)
{
    if (h == NULL) return DMSG_OK;
    if (h->body == NULL)
        return DMSG_FAIL(DMSG_ERR_HANDLE, "plan_destroy: the plan is already destroyed");
    plan_t *pl = h->body;
    h->body = NULL;
    return dmsg_plan_destroy_body(pl);
}

plan_t *dmsg_plan_body(const dmsg_plan *h, const char *fn, int *st)
{
    if (h == NULL) {
        *st = DMSG_FAIL(DMSG_ERR_NULL, "%s: NULL plan", fn);
        return NULL;
    }
    if (h->body == NULL) {
        *st = DMSG_FAIL(DMSG_ERR_HANDLE, "%s: the plan is destroyed", fn);
        return NULL;
    }
    *st = DMSG_OK;
    return h->body;
}

int dmsg_plan_get_info(const dmsg_plan *h, dmsg_plan_info *info)
{
    int hst;
    const plan_t *pl = dmsg_plan_body(h, "plan_get_info", &hst);
    if (pl == NULL) return hst;
    if (info == NULL) return DMSG_FAIL(DMSG_ERR_NULL, "plan_get_info: NULL argument");
    dmsg_plan_info t;
    memset(&t, 0, sizeof t);
    t.mech = pl->mech;
    t.partners_send = pl->nto;
    double bytes = 0, tdirect = 0, tpack = 0;
    for (int i = 0; i < pl->nto; i++) {
        const plan_peer *pr = &pl->to[i];
        t.partners_packed += pl->pack_on && pr->packable;
        t.send_bytes += pr->bytes;
        t.pieces += pr->npieces;
        bytes += (double)pr->bytes;
        if (pr->mbs_direct > 0) tdirect += (double)pr->bytes / pr->mbs_direct;
        /* A partner that cannot pack (oneself, one contiguous piece) goes
         * direct in a packed execution too: its time counts there as well. */
        double pk = pr->mbs_pack > 0 ? pr->mbs_pack : pr->mbs_direct;
        if (pk > 0) tpack += (double)pr->bytes / pk;
    }
    for (int i = 0; i < pl->nfrom; i++)
        t.recv_bytes += pl->from[i].bytes;
    t.send_msgs = dmsg_plan_send_msgs(pl, pl->pack_on);
    t.recv_msgs = dmsg_plan_recv_msgs(pl, pl->pack_on);
    t.model_direct_mbs = tdirect > 0 ? bytes / tdirect : 0;
    t.model_pack_mbs = tpack > 0 ? bytes / tpack : 0;
    t.measured_direct_s = pl->measured[0];
    t.measured_pack_s = pl->measured[1];
    t.measured_direct_mbs = pl->measured[0] > 0 ? bytes / pl->measured[0] / 1e6 : 0;
    t.measured_pack_mbs = pl->measured[1] > 0 ? bytes / pl->measured[1] / 1e6 : 0;
    t.executions = pl->execs;
    memcpy(t.machine, pl->machine, sizeof t.machine);
    t.model_source = pl->model_source;
    for (int i = 0; i < pl->nto; i++)
        t.model_packed += pl->to[i].model_pack;
    t.calibration_s = pl->cal_s;
    *info = t;
    return DMSG_OK;
}

int dmsg_plan_partner(const dmsg_plan *h, int i, dmsg_plan_partner_info *info)
{
    int hst;
    const plan_t *pl = dmsg_plan_body(h, "plan_partner", &hst);
    if (pl == NULL) return hst;
    if (info == NULL) return DMSG_FAIL(DMSG_ERR_NULL, "plan_partner: NULL argument");
    if (i < 0 || i >= pl->nto)
        return DMSG_FAIL(DMSG_ERR_ARG, "plan_partner: %d not in 0..%d", i, pl->nto - 1);
    const plan_peer *pr = &pl->to[i];
    *info = (dmsg_plan_partner_info){
        pr->pe, pl->pack_on && pr->packable, pr->npieces, pr->bytes, pr->mbs_direct, pr->mbs_pack};
    return DMSG_OK;
}
