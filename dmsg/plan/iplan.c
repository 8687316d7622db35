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
#include "dmsg/coll/agree.h"
#include "dmsg/core/caps.h"
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

static void iplan_free_local(iplan_t *ip)
{
    free_lists(ip->lists, ip->nlists);
    free(ip->tmp);
    free(ip->reqs);
    free(ip);
}

static const char *const what[2] = {"iplan_create", "iplan_create_scatter"};

/* Zero elements need no buffer and no index list: buf and idx may then be
 * NULL (or anything), as with the core's zero-byte transfers. */
static dmsg_status check_local(int scatter, const dmsg_darray *arr, const size_t *idx, size_t n,
                               void *buf, int mech, dmsg_iplan **out)
{
    const char *fn = what[scatter];
    if (out == NULL || arr == NULL || (n > 0 && (buf == NULL || idx == NULL)))
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
    int must_sym = (!scatter || mech == DMSG_IPLAN_FETCH) && n > 0;
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
static dmsg_status group(iplan_t *ip, const size_t *idx, uint64_t *cnt, ilist *by_owner)
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
static dmsg_status keep_staggered(iplan_t *ip, ilist *all, int down)
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
static dmsg_status hand_over(iplan_t *ip, const uint64_t *cnt, size_t rowlen, ilist *mine)
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

/* Several PEs naming one element of a scatter: the highest ranked PE's value
 * wins, decided here once rather than by the order in which the deposits
 * land (which tears elements wider than what the transport writes at once,
 * and is a race to the checker). Each holder sends each owner the targets
 * it names there; the owner marks the entries that win and sends the marks
 * back; the holders drop the others. Collective only where some owner is
 * named by two or more PEs (all PEs see that alike in cnt, where cnt[r *
 * rowlen + q] is r's count for q); *changed is then 1 and the counts must
 * be exchanged again. A local failure is returned after the collective
 * steps, a failed barrier at once (the PEs are then out of step). */
static dmsg_status drop_overwritten(iplan_t *ip, const uint64_t *cnt, size_t rowlen, ilist *mine,
                                    int *changed)
{
    int P = ip->npes, me = ip->me, shared = 0;
    size_t in_max = 0, out_max = 0, most = 1;
    for (int q = 0; q < P; q++) {
        size_t col = 0, row = 0;
        int named = 0;
        for (int r = 0; r < P; r++) {
            col += cnt[(size_t)r * rowlen + (size_t)q];
            row += cnt[(size_t)q * rowlen + (size_t)r];
            named += cnt[(size_t)r * rowlen + (size_t)q] > 0;
        }
        shared |= named > 1;
        in_max = col > in_max ? col : in_max;
        out_max = row > out_max ? row : out_max;
        most = mine[q].n > most ? mine[q].n : most;
    }
    *changed = shared;
    if (!shared) return DMSG_OK;
    /* The owners' inboxes of targets, then the holders' marks (1: keeps). */
    uint64_t *box;
    dmsg_status st = dmsg_alloc(in_max * sizeof(uint64_t) + out_max, (void **)&box);
    if (st != DMSG_OK) return st;
    unsigned char *marks = (unsigned char *)(box + in_max);
    size_t m = 0;
    for (int r = 0; r < P; r++)
        m += cnt[(size_t)r * rowlen + (size_t)me];
    uint64_t *out = malloc(most * sizeof *out);
    target *t = malloc((m ? m : 1) * sizeof *t);
    unsigned char *keep = calloc(m ? m : 1, 1);
    dmsg_status lst = out == NULL || t == NULL || keep == NULL
                          ? DMSG_FAIL(DMSG_ERR_NOMEM, "iplan: out of memory")
                          : DMSG_OK;
    for (int i = 0; i < P && lst == DMSG_OK; i++) {
        int q = (me + i) % P;
        if (mine[q].n == 0) continue;
        size_t at = 0;
        for (int r = 0; r < me; r++)
            at += cnt[(size_t)r * rowlen + (size_t)q];
        for (size_t j = 0; j < mine[q].n; j++)
            out[j] = mine[q].pos[j];
        lst = dmsg_deposit(box + at, out, mine[q].n * sizeof *out, q, DMSG_CTR_NONE);
    }
    if ((st = dmsg_sync()) != DMSG_OK) goto out;
    /* My inbox holds the senders' targets in rank order: sorted by target,
     * then by position, the last of equal targets is the highest rank's. */
    for (size_t j = 0; lst == DMSG_OK && j < m; j++)
        t[j] = (target){box[j], j};
    if (lst == DMSG_OK) qsort(t, m, sizeof *t, by_target);
    for (size_t j = 0; lst == DMSG_OK && j < m; j++)
        keep[t[j].i] = j + 1 == m || t[j + 1].elem != t[j].elem;
    size_t at = 0;
    for (int r = 0; r < P; r++) {
        size_t c = cnt[(size_t)r * rowlen + (size_t)me], off = 0;
        for (int q = 0; q < me; q++)
            off += cnt[(size_t)r * rowlen + (size_t)q];
        if (c > 0 && lst == DMSG_OK)
            lst = dmsg_deposit(marks + off, keep + at, c, r, DMSG_CTR_NONE);
        at += c;
    }
    if ((st = dmsg_sync()) != DMSG_OK) goto out;
    size_t off = 0;
    for (int q = 0; q < P && lst == DMSG_OK; q++) {
        ilist *l = &mine[q];
        size_t k = 0;
        for (size_t j = 0; j < l->n; j++) {
            if (!marks[off + j]) continue;
            l->idx[k] = l->idx[j];
            l->pos[k++] = l->pos[j];
        }
        off += l->n;
        l->n = k;
    }
    st = dmsg_free(box);
out:
    free(out);
    free(t);
    free(keep);
    return lst != DMSG_OK ? lst : st;
}

/* row[1] of the counts exchange: where this PE's buffer (a gather's dst, a
 * scatter's src) is, in bytes from the exchange's block (symmetric too, so
 * the same on every PE), or one of these. */
#define BUF_NONE (UINT64_MAX - 1) /* no elements: no buffer */
#define BUF_LOCAL UINT64_MAX      /* not symmetric (a scatter's deposits allow it) */

/* The counts exchange, with every PE's status (row[0] = st): all return
 * alike. Returns the verdict (the
 * lowest ranked PE's error) with *mat the all-gathered rows, which the
 * caller frees (collective); *mat NULL: the PEs are out of step or the
 * block could not be had, no further collective step. */
static dmsg_status exchange_counts(const iplan_t *ip, dmsg_status st, uint64_t *row, size_t rowlen,
                                   const void *buf, uint64_t **mat)
{
    int P = ip->npes;
    size_t rowsz = rowlen * sizeof(uint64_t);
    uint64_t *m = NULL;
    *mat = NULL;
    int ast = dmsg_alloc((size_t)P * rowsz, (void **)&m);
    if (ast != DMSG_OK) return ast;
    /* A PE without a row still contributes one (dmsg_agree_rows). */
    if (row == NULL && st == DMSG_OK) st = DMSG_FAIL(DMSG_ERR_NOMEM, "iplan: out of memory");
    if (row != NULL)
        row[1] = ip->n == 0                                       ? BUF_NONE
                 : !dmsg_addr_is_symmetric(buf, ip->n * ip->elem) ? BUF_LOCAL
                                                                  : (uint64_t)((uintptr_t)buf - (uintptr_t)m);
    dmsg_status verdict;
    int xst = dmsg_agree_rows(st, row, rowsz, m, &verdict);
    if (xst != DMSG_OK) return xst; /* out of step: report and leave */
    *mat = m;
    return verdict;
}

/* The model of the machine for a scatter's choice: under a virtual clock
 * the machine it follows (sim), else the one DMSG_PLAN_MACHINE names; NULL
 * without one. */
static dmsg_status iplan_model(plan_model **pm)
{
    *pm = NULL;
    plan_settings set;
    if (dmsg_plan_settings_load(&set) != DMSG_OK)
        return DMSG_FAIL(DMSG_ERR_ENV, "iplan_create_scatter: %s", dmsg_last_error());
    const char *vm = dmsg_vtime_machine();
    if (vm != NULL)
        return dmsg_plan_model_open(vm, pm);
    return set.machine[0] != '\0' ? dmsg_plan_model_open(set.machine, pm) : DMSG_OK;
}

/* DMSG_IPLAN_MODEL: fetch when every PE's src is symmetric and the model
 * predicts the slowest PE finishes sooner fetching. Every PE evaluates the
 * same matrix with the same machine, so all decide alike. */
static void decide(iplan_t *ip, const uint64_t *mat, size_t rowlen, const plan_model *pm)
{
    int all_sym = 1;
    for (int p = 0; p < ip->npes; p++)
        all_sym &= mat[(size_t)p * rowlen + 1] != BUF_LOCAL;
    ip->fetch = 0;
    if (pm == NULL) return;
    double dep = 0, fet = 0;
    for (int p = 0; p < ip->npes; p++) {
        double d, f;
        dmsg_iplan_model_predict(ip, pm, mat + 2, rowlen, p, &d, &f);
        dep = d > dep ? d : dep;
        fet = f > fet ? f : fet;
    }
    ip->model_deposit_s = dep;
    ip->model_fetch_s = fet;
    ip->fetch = all_sym && fet < dep;
}

static int create(int scatter, const dmsg_darray *arr, const size_t *idx, size_t n, void *buf,
                  int mech, dmsg_iplan **out, int no_handle, iplan_t **made)
{
    int P = dmsg_npes(), me = dmsg_pe();
    if (P <= 0) return DMSG_FAIL(DMSG_ERR_NOT_INIT, "%s: dmsg is not initialized", what[scatter]);
    iplan_t *ip = calloc(1, sizeof *ip);
    /* A row: status, src symmetric (scatter) or dst's place (gather), then
     * the count for each PE. */
    size_t rowlen = 2 + (size_t)P;
    uint64_t *row = calloc(rowlen, sizeof *row);
    ilist *mine = calloc((size_t)P, sizeof *mine);
    plan_model *pm = NULL;
    dmsg_status st = ip == NULL || row == NULL || mine == NULL || no_handle
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
        st = group(ip, idx, row + 2, mine);
    }
    if (ip != NULL) { /* what exchange_counts reads, also after a local error */
        ip->npes = P;
        ip->me = me;
        ip->scatter = scatter;
        ip->n = st == DMSG_OK ? n : 0;
        ip->elem = st == DMSG_OK ? ip->elem : 1;
    }
    uint64_t *mat = NULL;
    st = ip == NULL ? st : exchange_counts(ip, st, row, rowlen, buf, &mat);
    if (mat == NULL) goto out_local;
    /* Counts without the first two columns: cnt[r][q] = mat[r * rowlen + 2 + q]. */
    int changed = 0;
    if (st == DMSG_OK && scatter) st = drop_overwritten(ip, mat + 2, rowlen, mine, &changed);
    if (changed) { /* decided alike: the counts again, as they now are */
        int fst = dmsg_free(mat);
        st = st != DMSG_OK ? st : fst;
        for (int q = 0; row != NULL && q < P; q++)
            row[2 + q] = mine[q].n;
        st = exchange_counts(ip, st, row, rowlen, buf, &mat);
        if (mat == NULL) goto out_local;
    }
    if (st == DMSG_OK && mech == DMSG_IPLAN_MODEL) decide(ip, mat, rowlen, pm);
    /* The side that moves the values holds the lists: the gather's owners
     * and the scatter's holders deposit, the gather's requesters and the
     * scatter's owners fetch. */
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
    /* The partner's end of each list: the array's storage, or the
     * partner's buffer where that is the remote end (a gather's deposits
     * into the requesters' dst, a scatter's fetches from the holders' src),
     * placed as the partner said: a PE without elements may pass NULL. */
    for (int i = 0; st == DMSG_OK && i < ip->nlists; i++) {
        ilist *l = &ip->lists[i];
        l->remote = scatter != ip->fetch
                        ? ip->arr.base
                        : (char *)((uintptr_t)mat + (uintptr_t)mat[(size_t)l->pe * rowlen + 1]);
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
    if (st == DMSG_OK && !ip->fetch) st = dmsg_plan_ctr_get(&ip->ctr);
    if (st == DMSG_OK) {
        free(row);
        free_lists(mine, P);
        dmsg_plan_model_close(pm);
        *made = ip;
        return DMSG_OK;
    }
out_local:
    free(row);
    free_lists(mine, P);
    dmsg_plan_model_close(pm);
    if (ip != NULL) iplan_free_local(ip);
    return st;
}

/* Takes the handle first, so that running out of memory for it is a local
 * error the counts exchange makes every PE's. */
static int create_handle(int scatter, const dmsg_darray *arr, const size_t *idx, size_t n,
                         void *buf, int mech, dmsg_iplan **out)
{
    struct dmsg_iplan *h = dmsg_plan_cell_new();
    iplan_t *ip = NULL;
    int st = create(scatter, arr, idx, n, buf, mech, out, h == NULL, &ip);
    if (st != DMSG_OK) {
        if (h != NULL) dmsg_plan_cell_unused(h);
        return st;
    }
    h->body = ip;
    *out = h;
    return DMSG_OK;
}

int dmsg_iplan_create(const dmsg_darray *src, const size_t *idx, size_t n, void *dst, int mech,
                      dmsg_iplan **out)
{
    return create_handle(0, src, idx, n, dst, mech, out);
}

int dmsg_iplan_create_scatter(dmsg_darray *dst, const size_t *idx, size_t n, const void *src,
                              int mech, dmsg_iplan **out)
{
    return create_handle(1, dst, idx, n, (void *)src, mech, out);
}

/* The plan behind a handle, or NULL with *st DMSG_ERR_NULL or, for a
 * destroyed plan, DMSG_ERR_HANDLE. */
static iplan_t *body(const dmsg_iplan *h, const char *fn, int *st)
{
    *st = h == NULL         ? DMSG_FAIL(DMSG_ERR_NULL, "%s: NULL plan", fn)
          : h->body == NULL ? DMSG_FAIL(DMSG_ERR_HANDLE, "%s: the plan is destroyed", fn)
                            : DMSG_OK;
    return *st == DMSG_OK ? h->body : NULL;
}

int dmsg_iplan_execute(dmsg_iplan *h)
{
    int st;
    iplan_t *ip = body(h, "iplan_execute", &st);
    if (ip == NULL) return st;
    st = dmsg_iplan_run(ip);
    if (st == DMSG_OK) ip->execs++;
    return st;
}

int dmsg_iplan_destroy(dmsg_iplan *h)
{
    if (h == NULL) return DMSG_OK;
    int st;
    iplan_t *ip = body(h, "iplan_destroy", &st);
    if (ip == NULL) return st;
    h->body = NULL;
    st = dmsg_sync();
    int pst = ip->fetch ? DMSG_OK : dmsg_plan_ctr_put();
    iplan_free_local(ip);
    return st != DMSG_OK ? st : pst;
}

int dmsg_iplan_get_info(const dmsg_iplan *h, dmsg_iplan_info *info)
{
    int hst;
    const iplan_t *ip = body(h, "iplan_get_info", &hst);
    if (ip == NULL) return hst;
    if (info == NULL) return DMSG_FAIL(DMSG_ERR_NULL, "iplan_get_info: NULL argument");
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
