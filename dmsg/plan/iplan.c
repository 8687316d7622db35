/* Irregular plans, the inspector: gathers dst[i] = arr(idx[i]) and
 * scatters arr(idx[i]) = src[i] with index lists that only the run time
 * knows (FEM ghost exchanges, A = B(idx), A(idx) = B). It groups the indices
 * by owner, exchanges the counts (with every PE's status, so that all
 * return alike) and, where the side that moves the values does not hold the
 * lists, hands every partner its list (one exchange); the executor
 * (iplan_exec.c) then moves the elements as often as needed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dmsg/plan/iplan_impl.h"
#include "dmsg/plan/settings.h"

static void free_lists(ilist *l, int n)
{
    for (int i = 0; l != NULL && i < n; i++) {
        free(l[i].idx);
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

static const char *const what[2] = {"iplan_create", "iplan_create_scatter"};

static dmsg_status check_local(int scatter, const dmsg_darray *arr, const size_t *idx, size_t n,
                               void *buf, int mech, dmsg_iplan **out)
{
    const char *fn = what[scatter];
    if (out == NULL || arr == NULL || buf == NULL || (idx == NULL && n > 0))
        return DMSG_FAIL(DMSG_ERR_NULL, "%s: NULL argument", fn);
    if (mech < DMSG_IPLAN_INDEXED || mech > DMSG_IPLAN_MODEL ||
        (!scatter && mech > DMSG_IPLAN_FETCH))
        return DMSG_FAIL(DMSG_ERR_ARG, "%s: unknown mechanism %d", fn, mech);
    size_t e = arr->desc.elem_size;
    if (mech == DMSG_IPLAN_ADP && dmsg_adp_record_size(e) == 0)
        return DMSG_FAIL(DMSG_ERR_ARG,
                         "%s: address-data records need 4, 8 or 16-byte elements, not %zu", fn, e);
    if (arr->base == NULL) return DMSG_FAIL(DMSG_ERR_ARG, "%s: array without storage", fn);
    if (arr->grid_pes > dmsg_npes())
        return DMSG_FAIL(DMSG_ERR_PE, "%s: grid of %d PEs, job of %d", fn, arr->grid_pes,
                         dmsg_npes());
    /* A gather deposits into dst, a scatter's fetch reads src remotely. */
    int must_sym = !scatter || mech == DMSG_IPLAN_FETCH;
    if (n > SIZE_MAX / e || (must_sym && !dmsg_addr_is_symmetric(buf, n * e)))
        return DMSG_FAIL(DMSG_ERR_RANGE, "%s: %s is not %zu elements of symmetric memory", fn,
                         scatter ? "src" : "dst", n);
    size_t total = 1;
    for (int d = 0; d < arr->desc.ndims; d++)
        total *= arr->desc.extent[d];
    for (size_t i = 0; i < n; i++)
        if (idx[i] >= total)
            return DMSG_FAIL(DMSG_ERR_RANGE,
                             "%s: idx[%zu] = %zu outside the %zu elements of the array", fn, i,
                             idx[i], total);
    return DMSG_OK;
}

/* One element of a scatter: its target (an element of arr's storage on
 * the owner) and its position in src. */
typedef struct target {
    size_t elem, i;
} target;

static int by_target(const void *a, const void *b)
{
    const target *x = a, *y = b;
    if (x->elem != y->elem) return x->elem < y->elem ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* A scatter's list for one owner: sorted by target, and of the entries
 * naming one target only the last (the largest i) kept. */
static dmsg_status last_wins(ilist *l)
{
    target *t = malloc((l->n ? l->n : 1) * sizeof *t);
    if (t == NULL) return DMSG_FAIL(DMSG_ERR_NOMEM, "iplan: out of memory");
    for (size_t j = 0; j < l->n; j++)
        t[j] = (target){l->pos[j], l->idx[j]};
    qsort(t, l->n, sizeof *t, by_target);
    size_t k = 0;
    for (size_t j = 0; j < l->n; j++) {
        if (j + 1 < l->n && t[j + 1].elem == t[j].elem) continue;
        l->pos[k] = t[j].elem;
        l->idx[k++] = t[j].i;
    }
    l->n = k;
    free(t);
    return DMSG_OK;
}

/* Groups my indices by owner: per owner, the pairs (idx, pos): a gather's
 * are (element of arr on the owner, position in dst), a scatter's
 * (position in src, element of arr on the owner), the latter without
 * repeated targets. cnt[q] gets the count per owner. */
static dmsg_status group(dmsg_iplan *ip, const size_t *idx, uint64_t *cnt, ilist *by_owner)
{
    const dmsg_darray *a = &ip->arr;
    size_t g[DMSG_MAX_DIMS];
    int *owner = malloc((ip->n ? ip->n : 1) * sizeof *owner);
    size_t *off = malloc((ip->n ? ip->n : 1) * sizeof *off), *have = NULL;
    if (owner == NULL || off == NULL) {
        free(owner);
        free(off);
        return DMSG_FAIL(DMSG_ERR_NOMEM, "iplan: out of memory");
    }
    have = calloc((size_t)ip->npes, sizeof *have);
    for (size_t i = 0; i < ip->n; i++) {
        size_t lin = idx[i];
        for (int d = 0; d < a->desc.ndims; d++) {
            g[d] = lin % a->desc.extent[d];
            lin /= a->desc.extent[d];
        }
        dmsg_darray_locate(a, g, &owner[i], &off[i]); /* checked in check_local */
    }
    dmsg_status st = have == NULL ? DMSG_FAIL(DMSG_ERR_NOMEM, "iplan: out of memory") : DMSG_OK;
    for (size_t i = 0; i < ip->n && st == DMSG_OK; i++)
        have[owner[i]]++;
    for (int q = 0; q < ip->npes && st == DMSG_OK; q++) {
        by_owner[q].pe = q;
        if (have[q] == 0) continue;
        by_owner[q].idx = malloc(have[q] * sizeof(size_t));
        by_owner[q].pos = malloc(have[q] * sizeof(size_t));
        if (by_owner[q].idx == NULL || by_owner[q].pos == NULL)
            st = DMSG_FAIL(DMSG_ERR_NOMEM, "iplan: out of memory");
    }
    for (size_t i = 0; i < ip->n && st == DMSG_OK; i++) {
        ilist *l = &by_owner[owner[i]];
        l->idx[l->n] = ip->scatter ? i : off[i] / ip->elem;
        l->pos[l->n++] = ip->scatter ? off[i] / ip->elem : i;
    }
    for (int q = 0; q < ip->npes && st == DMSG_OK; q++) {
        if (ip->scatter) st = last_wins(&by_owner[q]);
        cnt[q] = by_owner[q].n;
    }
    free(have);
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

/* Where the side that moves the values does not hold the lists (a gather
 * by deposits, a scatter by fetches): every PE sends each partner q its
 * (idx, pos) pairs for q; q keeps them as its lists, staggered downwards.
 * cnt is the all-gathered matrix (cnt[r * rowlen + q]: r's pairs for q). */
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
            pairs[2 * j] = mine[q].idx[j];
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
        serve[r].idx = malloc(n * sizeof(size_t));
        serve[r].pos = malloc(n * sizeof(size_t));
        if (serve[r].idx == NULL || serve[r].pos == NULL) {
            st = DMSG_FAIL(DMSG_ERR_NOMEM, "iplan: out of memory");
            break;
        }
        for (size_t j = 0; j < n; j++) {
            serve[r].idx[j] = box[2 * (at + j)];
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

/* The model of the machine for a scatter's choice: on sim the simulated
 * machine, else the one DMSG_PLAN_MACHINE names; NULL without one. */
static dmsg_status iplan_model(plan_model **pm)
{
    *pm = NULL;
    plan_settings set;
    char err[256];
    if (plan_settings_load(&set, err, sizeof err) != DMSG_OK) {
        if (dmsg_pe() == 0) fprintf(stderr, "dmsg: %s\n", err);
        return DMSG_FAIL(DMSG_ERR_ENV, "iplan_create_scatter: %s", err);
    }
    const char *tp = dmsg_transport_name(), *m = getenv("DMSG_MACHINE");
    if (tp != NULL && strcmp(tp, "sim") == 0)
        return plan_model_open(m != NULL && m[0] != '\0' ? m : "t3d", pm);
    return set.machine[0] != '\0' ? plan_model_open(set.machine, pm) : DMSG_OK;
}

/* DMSG_IPLAN_MODEL: fetch when every PE's src is symmetric and the model
 * predicts the slowest PE finishes sooner fetching. Every PE evaluates the
 * same matrix with the same machine, so all decide alike. */
static void decide(dmsg_iplan *ip, const uint64_t *mat, size_t rowlen, const plan_model *pm)
{
    int all_sym = 1;
    for (int p = 0; p < ip->npes; p++)
        all_sym &= mat[(size_t)p * rowlen + 1] != 0;
    ip->fetch = 0;
    if (pm == NULL) return;
    double dep = 0, fet = 0;
    for (int p = 0; p < ip->npes; p++) {
        double d, f;
        iplan_model_predict(ip, pm, mat + 2, rowlen, p, &d, &f);
        dep = d > dep ? d : dep;
        fet = f > fet ? f : fet;
    }
    ip->model_deposit_s = dep;
    ip->model_fetch_s = fet;
    ip->fetch = all_sym && fet < dep;
}

static int create(int scatter, const dmsg_darray *arr, const size_t *idx, size_t n, void *buf,
                  int mech, dmsg_iplan **out)
{
    int P = dmsg_npes(), me = dmsg_pe();
    if (P <= 0) return DMSG_FAIL(DMSG_ERR_NOT_INIT, "%s: dmsg is not initialized", what[scatter]);
    dmsg_iplan *ip = calloc(1, sizeof *ip);
    /* A row: status, src symmetric (scatter), then the count for each PE. */
    size_t rowlen = 2 + (size_t)P, rowsz = rowlen * sizeof(uint64_t);
    uint64_t *row = calloc(rowlen, sizeof *row);
    ilist *mine = calloc((size_t)P, sizeof *mine);
    plan_model *pm = NULL;
    dmsg_status st = ip == NULL || row == NULL || mine == NULL
                         ? DMSG_FAIL(DMSG_ERR_NOMEM, "%s: out of memory", what[scatter])
                         : check_local(scatter, arr, idx, n, buf, mech, out);
    if (st == DMSG_OK && mech == DMSG_IPLAN_MODEL) st = iplan_model(&pm);
    if (st == DMSG_OK) {
        ip->arr = *arr;
        ip->scatter = scatter;
        ip->from = scatter ? buf : arr->base;
        ip->to = scatter ? arr->base : buf;
        ip->elem = arr->desc.elem_size;
        ip->n = n;
        ip->mech = mech;
        ip->me = me;
        ip->npes = P;
        ip->fetch = mech == DMSG_IPLAN_FETCH;
        row[1] = scatter && dmsg_addr_is_symmetric(buf, n * ip->elem);
        st = group(ip, idx, row + 2, mine);
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
    if (st == DMSG_OK && mech == DMSG_IPLAN_MODEL) decide(ip, mat, rowlen, pm);
    /* Counts without the first two columns: cnt[r][q] = mat[r * rowlen + 2 + q]. The side
     * that moves the values holds the lists: the gather's owners and the scatter's holders
     * deposit, the gather's requesters and the scatter's owners fetch. */
    if (st == DMSG_OK) {
        int lists_here = scatter != ip->fetch;
        if (lists_here) {
            st = keep_staggered(ip, mine, 0);
        } else {
            st = hand_over(ip, mat + 2, rowlen, mine);
        }
        for (int q = 0; !ip->fetch && q < P; q++) /* deposits: one from each partner that sends */
            ip->awaited += scatter ? mat[(size_t)q * rowlen + 2 + (size_t)me] > 0 : mine[q].n > 0;
    }
    size_t most = 0, sum = 0;
    for (int i = 0; st == DMSG_OK && i < ip->nlists; i++) {
        most = ip->lists[i].n > most ? ip->lists[i].n : most;
        sum += ip->lists[i].n;
    }
    if (st == DMSG_OK) {
        size_t unit = mech == DMSG_IPLAN_ADP ? dmsg_adp_record_size(ip->elem) : ip->elem;
        size_t bytes = ip->fetch ? sum * ip->elem : most * unit;
        ip->tmp = malloc(bytes ? bytes : 1);
        ip->reqs = calloc((size_t)P, sizeof *ip->reqs);
        if (ip->tmp == NULL || ip->reqs == NULL)
            st = DMSG_FAIL(DMSG_ERR_NOMEM, "%s: out of memory", what[scatter]);
    }
    /* The remaining steps are collective and decided alike everywhere; a
     * local out-of-memory above is not, and is reported as it is. */
    int fst = dmsg_free(mat);
    st = st != DMSG_OK ? st : fst;
    if (st == DMSG_OK && !ip->fetch) st = dmsg_ctr_create(&ip->ctr);
    if (st == DMSG_OK) {
        free(row);
        free_lists(mine, P);
        plan_model_close(pm);
        *out = ip;
        return DMSG_OK;
    }
out_local:
    free(row);
    free_lists(mine, P);
    plan_model_close(pm);
    if (ip != NULL) iplan_free_local(ip);
    return st;
}

int dmsg_iplan_create(const dmsg_darray *src, const size_t *idx, size_t n, void *dst, int mech,
                      dmsg_iplan **out)
{
    return create(0, src, idx, n, dst, mech, out);
}

int dmsg_iplan_create_scatter(dmsg_darray *dst, const size_t *idx, size_t n, const void *src,
                              int mech, dmsg_iplan **out)
{
    return create(1, dst, idx, n, (void *)src, mech, out);
}

int dmsg_iplan_execute(dmsg_iplan *ip)
{
    if (ip == NULL) return DMSG_FAIL(DMSG_ERR_NULL, "iplan_execute: NULL plan");
    int st = iplan_run(ip);
    if (st == DMSG_OK) ip->execs++;
    return st;
}

int dmsg_iplan_destroy(dmsg_iplan *ip)
{
    if (ip == NULL) return DMSG_OK;
    int st = ip->fetch ? dmsg_sync() : dmsg_ctr_destroy(ip->ctr);
    iplan_free_local(ip);
    return st;
}

int dmsg_iplan_get_info(const dmsg_iplan *ip, dmsg_iplan_info *info)
{
    if (ip == NULL || info == NULL)
        return DMSG_FAIL(DMSG_ERR_NULL, "iplan_get_info: NULL argument");
    dmsg_iplan_info t;
    memset(&t, 0, sizeof t);
    t.mech = ip->mech;
    t.partners = ip->nlists;
    t.executions = ip->execs;
    for (int i = 0; i < ip->nlists; i++)
        t.elements += ip->lists[i].n;
    t.recv_msgs = ip->awaited;
    t.fetches = ip->fetch;
    t.model_deposit_s = ip->model_deposit_s;
    t.model_fetch_s = ip->model_fetch_s;
    *info = t;
    return DMSG_OK;
}
