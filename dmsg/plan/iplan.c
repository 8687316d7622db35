/* Irregular plans: the inspector / executor of a gather dst[i] = src(idx[i])
 * with index lists that only the run time knows (FEM ghost exchanges,
 * A = B(idx)). The inspector groups the indices by owner and, for the
 * deposit mechanisms, hands every owner the list of what it must send where
 * (one exchange); the executor then moves the elements as often as needed:
 * owners gather and send one indexed or address-data deposit per requester,
 * or requesters fetch by index with every owner's fetch in flight at once. */
#include <stdlib.h>
#include <string.h>
#include "dmsg/plan/plan_impl.h"

/* What this PE serves one requester (deposit mechanisms) or asks of one
 * owner (fetch): element indices in src's storage and positions in dst. */
typedef struct ilist {
    int pe;
    size_t n;
    size_t *srcidx; /* elements from src's storage start on the owner */
    size_t *pos;    /* elements of the requester's dst */
} ilist;

struct dmsg_iplan {
    dmsg_darray src;
    char *dst;
    size_t elem, n;
    int mech, me, npes;
    dmsg_ctr ctr;
    ilist *lists; /* deposits: requesters I serve; fetch: owners I ask; staggered */
    int nlists;
    uint64_t owners;    /* deposits awaited per execution */
    unsigned char *tmp; /* gather buffer, records, or fetched elements */
    dmsg_req *reqs;
    uint64_t execs;
};

/* A row of the counts exchange: status, then what this PE asks of each PE. */
typedef struct crow {
    int64_t status;
    uint64_t cnt[];
} crow;

static void free_lists(ilist *l, int n)
{
    for (int i = 0; l != NULL && i < n; i++) {
        free(l[i].srcidx);
        free(l[i].pos);
    }
    free(l);
}

static void iplan_free_local(dmsg_iplan *ip)
{
    free_lists(ip->lists, ip->nlists);
    free(ip->tmp);
    free(ip->reqs);
    free(ip);
}

static dmsg_status check_local(const dmsg_darray *src, const size_t *idx, size_t n, void *dst,
                               int mech, dmsg_iplan **out)
{
    if (out == NULL || src == NULL || dst == NULL || (idx == NULL && n > 0))
        return DMSG_FAIL(DMSG_ERR_NULL, "iplan_create: NULL argument");
    if (mech < DMSG_IPLAN_INDEXED || mech > DMSG_IPLAN_FETCH)
        return DMSG_FAIL(DMSG_ERR_ARG, "iplan_create: unknown mechanism %d", mech);
    size_t e = src->desc.elem_size;
    if (mech == DMSG_IPLAN_ADP && dmsg_adp_record_size(e) == 0)
        return DMSG_FAIL(DMSG_ERR_ARG,
                         "iplan_create: address-data records need 4, 8 or 16-byte "
                         "elements, not %zu",
                         e);
    if (src->base == NULL)
        return DMSG_FAIL(DMSG_ERR_ARG, "iplan_create: source array without storage");
    if (src->grid_pes > dmsg_npes())
        return DMSG_FAIL(DMSG_ERR_PE, "iplan_create: grid of %d PEs, job of %d", src->grid_pes,
                         dmsg_npes());
    if (n > SIZE_MAX / e || !dmsg_addr_is_symmetric(dst, n * e))
        return DMSG_FAIL(DMSG_ERR_RANGE,
                         "iplan_create: dst is not %zu elements of symmetric "
                         "memory",
                         n);
    size_t total = 1;
    for (int d = 0; d < src->desc.ndims; d++)
        total *= src->desc.extent[d];
    for (size_t i = 0; i < n; i++)
        if (idx[i] >= total)
            return DMSG_FAIL(DMSG_ERR_RANGE,
                             "iplan_create: idx[%zu] = %zu outside the %zu "
                             "elements of the source",
                             i, idx[i], total);
    return DMSG_OK;
}

/* Groups my indices by owner: per owner, source element indices and
 * positions, in index order. cnt[q] gets the count per owner. */
static dmsg_status group(dmsg_iplan *ip, const size_t *idx, uint64_t *cnt, ilist *by_owner)
{
    const dmsg_darray *a = &ip->src;
    size_t g[DMSG_MAX_DIMS];
    int *owner = malloc((ip->n ? ip->n : 1) * sizeof *owner);
    size_t *off = malloc((ip->n ? ip->n : 1) * sizeof *off);
    if (owner == NULL || off == NULL) {
        free(owner);
        free(off);
        return DMSG_FAIL(DMSG_ERR_NOMEM, "iplan: out of memory");
    }
    for (size_t i = 0; i < ip->n; i++) {
        size_t lin = idx[i];
        for (int d = 0; d < a->desc.ndims; d++) {
            g[d] = lin % a->desc.extent[d];
            lin /= a->desc.extent[d];
        }
        dmsg_darray_locate(a, g, &owner[i], &off[i]); /* checked in check_local */
        cnt[owner[i]]++;
    }
    dmsg_status st = DMSG_OK;
    for (int q = 0; q < ip->npes && st == DMSG_OK; q++) {
        by_owner[q].pe = q;
        if (cnt[q] == 0) continue;
        by_owner[q].srcidx = malloc(cnt[q] * sizeof(size_t));
        by_owner[q].pos = malloc(cnt[q] * sizeof(size_t));
        if (by_owner[q].srcidx == NULL || by_owner[q].pos == NULL)
            st = DMSG_FAIL(DMSG_ERR_NOMEM, "iplan: out of memory");
    }
    for (size_t i = 0; i < ip->n && st == DMSG_OK; i++) {
        ilist *l = &by_owner[owner[i]];
        l->srcidx[l->n] = off[i] / ip->elem;
        l->pos[l->n++] = i;
    }
    free(owner);
    free(off);
    return st;
}

/* The lists with elements, in staggered order from `me` (me + i, or me - i
 * for the side that receives), moved out of all[]. */
static dmsg_status keep_staggered(dmsg_iplan *ip, ilist *all, int down)
{
    ip->lists = calloc((size_t)ip->npes, sizeof *ip->lists);
    if (ip->lists == NULL) return DMSG_FAIL(DMSG_ERR_NOMEM, "iplan: out of memory");
    for (int i = 0; i < ip->npes; i++) {
        int q = down ? (ip->me - i + ip->npes) % ip->npes : (ip->me + i) % ip->npes;
        if (all[q].n == 0) continue;
        ip->lists[ip->nlists++] = all[q];
        memset(&all[q], 0, sizeof all[q]);
    }
    return DMSG_OK;
}

/* Deposit mechanisms: every PE sends each owner its (source index,
 * position) pairs; the owner keeps them as the lists it serves. cnt is the
 * all-gathered matrix (row r: what r asks of each PE). */
static dmsg_status hand_over(dmsg_iplan *ip, const uint64_t *cnt, size_t rowlen, ilist *mine)
{
    int P = ip->npes > 0 ? ip->npes : 1, me = ip->me;
    size_t inbox = 0;
    for (int q = 0; q < P; q++) {
        size_t sum = 0;
        for (int r = 0; r < P; r++)
            sum += cnt[(size_t)r * rowlen + (size_t)q];
        inbox = sum > inbox ? sum : inbox;
    }
    uint64_t *box;
    dmsg_status st = dmsg_alloc(inbox * 2 * sizeof(uint64_t), (void **)&box);
    if (st != DMSG_OK) return st;
    for (int i = 0; i < P && st == DMSG_OK; i++) {
        int q = (me + i) % P;
        if (mine[q].n == 0) continue;
        size_t at = 0;
        for (int r = 0; r < me; r++)
            at += cnt[(size_t)r * rowlen + (size_t)q];
        uint64_t *pairs = malloc(mine[q].n * 2 * sizeof *pairs);
        if (pairs == NULL) {
            st = DMSG_FAIL(DMSG_ERR_NOMEM, "iplan: out of memory");
            break;
        }
        for (size_t j = 0; j < mine[q].n; j++) {
            pairs[2 * j] = mine[q].srcidx[j];
            pairs[2 * j + 1] = mine[q].pos[j];
        }
        st = dmsg_deposit(box + 2 * at, pairs, mine[q].n * 2 * sizeof *pairs, q, DMSG_CTR_NONE);
        free(pairs);
    }
    /* Every PE reaches the barrier, so a local failure cannot hang the others. */
    int sst = dmsg_sync();
    st = st != DMSG_OK ? st : sst;
    ilist *serve = calloc((size_t)ip->npes, sizeof *serve);
    if (serve == NULL && st == DMSG_OK) st = DMSG_FAIL(DMSG_ERR_NOMEM, "iplan: out of memory");
    size_t at = 0;
    for (int r = 0; r < P && st == DMSG_OK; r++) {
        size_t n = cnt[(size_t)r * rowlen + (size_t)me];
        serve[r].pe = r;
        serve[r].n = n;
        if (n == 0) continue;
        serve[r].srcidx = malloc(n * sizeof(size_t));
        serve[r].pos = malloc(n * sizeof(size_t));
        if (serve[r].srcidx == NULL || serve[r].pos == NULL) {
            st = DMSG_FAIL(DMSG_ERR_NOMEM, "iplan: out of memory");
            break;
        }
        for (size_t j = 0; j < n; j++) {
            serve[r].srcidx[j] = box[2 * (at + j)];
            serve[r].pos[j] = box[2 * (at + j) + 1];
        }
        at += n;
    }
    int fst = dmsg_free(box);
    st = st != DMSG_OK ? st : fst;
    if (st == DMSG_OK) st = keep_staggered(ip, serve, 1);
    free_lists(serve, P);
    return st;
}

int dmsg_iplan_create(const dmsg_darray *src, const size_t *idx, size_t n, void *dst, int mech,
                      dmsg_iplan **out)
{
    int P = dmsg_npes(), me = dmsg_pe();
    if (P <= 0) return DMSG_FAIL(DMSG_ERR_NOT_INIT, "iplan_create: dmsg is not initialized");
    dmsg_iplan *ip = calloc(1, sizeof *ip);
    size_t rowlen = 1 + (size_t)P, rowsz = rowlen * sizeof(uint64_t);
    uint64_t *row = calloc(rowlen, sizeof *row);
    ilist *mine = calloc((size_t)P, sizeof *mine);
    dmsg_status st = ip == NULL || row == NULL || mine == NULL
                         ? DMSG_FAIL(DMSG_ERR_NOMEM, "iplan_create: out of memory")
                         : check_local(src, idx, n, dst, mech, out);
    if (st == DMSG_OK) {
        ip->src = *src;
        ip->dst = dst;
        ip->elem = src->desc.elem_size;
        ip->n = n;
        ip->mech = mech;
        ip->me = me;
        ip->npes = P;
        st = group(ip, idx, row + 1, mine);
    }
    /* The counts exchange, with every PE's status: all return alike. */
    uint64_t *mat = NULL;
    int ast = dmsg_alloc((size_t)P * rowsz, (void **)&mat);
    if (ast != DMSG_OK) {
        st = ast;
        goto out_local;
    }
    if (row != NULL) {
        row[0] = (uint64_t)(int64_t)st;
        for (int i = 0; i < P && ast == DMSG_OK; i++)
            ast = dmsg_deposit(mat + (size_t)me * rowlen, row, rowsz, (me + i) % P, DMSG_CTR_NONE);
    }
    int sst = dmsg_sync();
    if (sst != DMSG_OK) { /* out of step: report and leave */
        st = sst;
        goto out_local;
    }
    dmsg_status verdict = ast;
    for (int p = 0; p < P && verdict == DMSG_OK; p++)
        verdict = (dmsg_status)(int64_t)mat[(size_t)p * rowlen];
    st = verdict;
    /* Counts without the status column: cnt[r][q] = mat[r * rowlen + 1 + q]. */
    if (st == DMSG_OK) {
        if (mech == DMSG_IPLAN_FETCH) {
            ip->owners = 0;
            st = keep_staggered(ip, mine, 0);
        } else {
            for (int q = 0; q < P; q++)
                ip->owners += mine[q].n > 0;
            st = hand_over(ip, mat + 1, rowlen, mine);
        }
    }
    size_t most = 0;
    for (int i = 0; st == DMSG_OK && i < ip->nlists; i++)
        most = ip->lists[i].n > most ? ip->lists[i].n : most;
    if (st == DMSG_OK) {
        size_t unit = mech == DMSG_IPLAN_ADP ? dmsg_adp_record_size(ip->elem) : ip->elem;
        size_t bytes = mech == DMSG_IPLAN_FETCH ? n * ip->elem : most * unit;
        ip->tmp = malloc(bytes ? bytes : 1);
        ip->reqs = calloc((size_t)P, sizeof *ip->reqs);
        if (ip->tmp == NULL || ip->reqs == NULL)
            st = DMSG_FAIL(DMSG_ERR_NOMEM, "iplan_create: out of memory");
    }
    /* The remaining steps are collective and decided alike everywhere; a
     * local out-of-memory above is not, and is reported as it is. */
    int fst = dmsg_free(mat);
    st = st != DMSG_OK ? st : fst;
    if (st == DMSG_OK && mech != DMSG_IPLAN_FETCH) st = dmsg_ctr_create(&ip->ctr);
    if (st == DMSG_OK) {
        free(row);
        free_lists(mine, P);
        *out = ip;
        return DMSG_OK;
    }
out_local:
    free(row);
    free_lists(mine, P);
    if (ip != NULL) iplan_free_local(ip);
    return st;
}

/* Owners: one indexed or address-data deposit per requester. */
static int send_lists(dmsg_iplan *ip)
{
    const char *src = ip->src.base;
    size_t e = ip->elem;
    for (int i = 0; i < ip->nlists; i++) {
        const ilist *l = &ip->lists[i];
        int st;
        if (ip->mech == DMSG_IPLAN_ADP) {
            size_t rs = dmsg_adp_record_size(e);
            for (size_t j = 0; j < l->n; j++) {
                unsigned char *rec = ip->tmp + j * rs;
                uint64_t off = (uint64_t)(l->pos[j] * e);
                memcpy(rec, &off, sizeof off);
                memcpy(rec + sizeof off, src + l->srcidx[j] * e, e);
            }
            st = dmsg_deposit_adp(ip->dst, ip->tmp, l->n, e, l->pe, ip->ctr);
        } else {
            for (size_t j = 0; j < l->n; j++)
                memcpy(ip->tmp + j * e, src + l->srcidx[j] * e, e);
            st = dmsg_deposit_indexed(ip->dst, l->pos, ip->tmp, l->n, e, l->pe, ip->ctr);
        }
        if (st != DMSG_OK) return st;
    }
    return dmsg_await(ip->ctr, ip->owners);
}

/* Requesters: every owner's indexed fetch in flight, then the scatter. */
static int fetch_lists(dmsg_iplan *ip)
{
    size_t e = ip->elem, at = 0;
    int st = DMSG_OK, started = 0;
    for (int i = 0; i < ip->nlists && st == DMSG_OK; i++, started++) {
        const ilist *l = &ip->lists[i];
        st = dmsg_fetch_indexed_nb(ip->tmp + at * e, ip->src.base, l->srcidx, l->n, e, l->pe,
                                   &ip->reqs[i]);
        at += l->n;
        if (st != DMSG_OK) break;
    }
    for (int i = 0; i < started; i++) {
        int wst = dmsg_wait(&ip->reqs[i]);
        st = st != DMSG_OK ? st : wst;
    }
    if (st != DMSG_OK) return st;
    at = 0;
    for (int i = 0; i < ip->nlists; i++) {
        const ilist *l = &ip->lists[i];
        for (size_t j = 0; j < l->n; j++)
            memcpy(ip->dst + l->pos[j] * e, ip->tmp + (at + j) * e, e);
        at += l->n;
    }
    /* The owners may change src only after every PE has fetched. */
    return dmsg_sync();
}

int dmsg_iplan_execute(dmsg_iplan *ip)
{
    if (ip == NULL) return DMSG_FAIL(DMSG_ERR_NULL, "iplan_execute: NULL plan");
    int st = dmsg_sync(); /* clearance: dst free everywhere, src final */
    if (st != DMSG_OK) return st;
    st = ip->mech == DMSG_IPLAN_FETCH ? fetch_lists(ip) : send_lists(ip);
    if (st == DMSG_OK) ip->execs++;
    return st;
}

int dmsg_iplan_destroy(dmsg_iplan *ip)
{
    if (ip == NULL) return DMSG_OK;
    int st = ip->mech == DMSG_IPLAN_FETCH ? dmsg_sync() : dmsg_ctr_destroy(ip->ctr);
    iplan_free_local(ip);
    return st;
}

int dmsg_iplan_get_info(const dmsg_iplan *ip, dmsg_iplan_info *info)
{
    if (ip == NULL || info == NULL)
        return DMSG_FAIL(DMSG_ERR_NULL, "iplan_get_info: NULL argument");
    dmsg_iplan_info t = {ip->mech, ip->nlists, 0, 0, ip->execs};
    for (int i = 0; i < ip->nlists; i++)
        t.elements += ip->lists[i].n;
    t.recv_msgs = ip->mech == DMSG_IPLAN_FETCH ? 0 : ip->owners;
    *info = t;
    return DMSG_OK;
}
