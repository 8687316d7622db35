/* Native shared-memory transport: join, barrier, gather, ops table. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "dmsg/transport/shm/shm.h"

_Static_assert(sizeof(shm_job_area) <= DMSG_JOB_BOOT_OFF - DMSG_JOB_AREA_OFF,
               "shm job area must fit the job header block");
_Static_assert(sizeof(dmsg_job_hdr) <= DMSG_JOB_AREA_OFF, "job header too large");
_Static_assert(sizeof(shm_ctr) + SHM_LINE == DMSG_CTR_SLOT_BYTES,
               "a counter and one spare line fill a slot of the job region");
_Static_assert(offsetof(shm_ctr, bytes) == 2 * SHM_LINE, "bytes two lines from msgs");
/* The control area's spare page (dmsg_job_ctl_size) holds the doorbell. */
_Static_assert(SHM_CTL_TAIL_BYTES <= 4096, "doorbell fits the control area's spare page");

typedef struct gen_past {
    _Atomic uint32_t *gen;
    uint32_t seen;
} gen_past;

static int gen_moved(const void *arg)
{
    const gen_past *g = arg;
    return atomic_load_explicit(g->gen, memory_order_acquire) != g->seen;
}

typedef struct pair_past {
    _Atomic uint32_t *entered;
    uint32_t want;
} pair_past;

static int pair_done(const void *arg)
{
    const pair_past *p = arg;
    uint32_t e = atomic_load_explicit(p->entered, memory_order_acquire);
    return (int32_t)(e - p->want) >= 0; /* counts wrap */
}

/* barrier_xchg's rows: where PE p's value of a barrier of parity par
 * lies. A row starts on its own line where all rows fit so (no two PEs
 * write one line), else they are packed; every PE computes the same. */
static unsigned char *xchg_row(shm_state *s, unsigned par, int npes, size_t len, int p)
{
    size_t lined = (len + SHM_LINE - 1) / SHM_LINE * SHM_LINE;
    size_t stride = lined * (size_t)npes <= DMSG_TP_XCHG_BYTES ? lined : len;
    return s->area->xrow[par] + (size_t)p * stride;
}

/* A PE writes its row of a parity again two barriers later, when every PE
 * has entered the barrier in between and so has read this one's rows. */
static void xchg_put(shm_state *s, unsigned par, int npes, int me, const void *mine, size_t len)
{
    memcpy(xchg_row(s, par, npes, len, me), mine, len);
}

/* Where every PE's row lies: read in place (no copy out), until this PE
 * enters its next barrier, after which a PE may write it again. This PE's
 * own value is read from mine: its row's line, which the others have
 * just read, cost as much again as the barrier's wait (2 PEs, 8 bytes:
 * 0.27-0.29 us against 0.22-0.23 with mine, the bare barrier 0.19-0.21). */
static void xchg_get(shm_state *s, unsigned par, int npes, int me, const void *mine, size_t len,
                     const void **rows)
{
    for (int p = 0; p < npes; p++)
        rows[p] = p == me ? mine : xchg_row(s, par, npes, len, p);
}

/* Two PEs: each writes the number of barriers it has entered into its own
 * line and waits until the partner's line shows as many. A plain release
 * store, not a read-modify-write of the partner's line: the store waits in
 * the store buffer while this PE already loads the partner's line, so the
 * later PE pays one line transfer (the partner's line, whose store landed
 * long ago) and the earlier one one more (the later one's store), where an
 * atomic add to the partner's word stalled the later PE for the add's
 * transfer and then its own reload (two in a row). The release store
 * publishes every store and load of this PE before the barrier (deposits
 * on shm are complete when their copy returns); the acquire of the
 * partner's word takes in the partner's. The fence orders our store before
 * the look at the partner's sleepers word, as a sleeper's advertisement is
 * ordered before its last look at our word (futex_sleep), so either we see
 * it sleep and wake it or it sees our store; the partner's line is loaded
 * before the fence so that its transfer overlaps the store's. A sleeper
 * sleeps on the partner's word and advertises in its own line, which the
 * partner reads anyway. barrier_xchg's values (len) ride on the line up to
 * SHM_PAIR_VAL bytes, in the rows beyond. Each PE has a line per parity of
 * the barrier's count, so that a value stays until the partner has read
 * it: the PE writes that line again two barriers later, after the partner
 * has entered the one between. */
static dmsg_status pair_barrier(dmsg_tp *tp, shm_state *s, const void *mine_val, size_t len,
                                const void **rows)
{
    uint32_t want = ++s->bar_seen;
    unsigned par = want & 1;
    shm_pair *mine = &s->area->pair[tp->rank][par], *peer = &s->area->pair[1 - tp->rank][par];
    pair_past p = {&peer->entered, want};
    int on_line = len <= SHM_PAIR_VAL;
    if (len && on_line)
        memcpy(mine->val, mine_val, len);
    else if (len)
        xchg_put(s, par, 2, tp->rank, mine_val, len);
    atomic_store_explicit(&mine->entered, p.want, memory_order_release);
    int done = pair_done(&p);
    dmsg_fence_seq_cst();
    if (atomic_load_explicit(&peer->sleepers, memory_order_relaxed))
        dmsg_shm_wake(&mine->entered, &peer->sleepers, 0);
    dmsg_status st = done ? DMSG_OK
                          : dmsg_shm_wait(s, pair_done, &p, &peer->entered, &mine->sleepers);
    if (st || !len)
        return st;
    /* The partner wrote this parity's value before its store of the count
     * we acquired, and writes it next two barriers later, after we have
     * entered the next one. */
    if (!on_line) {
        xchg_get(s, par, 2, tp->rank, mine_val, len, rows);
        return DMSG_OK;
    }
    rows[tp->rank] = mine_val;
    rows[1 - tp->rank] = peer->val;
    return DMSG_OK;
}

/* Central counter barrier with a generation word: the last arrival resets
 * the count and then releases the others by bumping the generation, so a PE
 * that races ahead into the next barrier always finds the count reset. The
 * acq_rel arrival and the acquire of the generation make every store before
 * the barrier on any PE visible after it on every PE. Jobs of two PEs take
 * pair_barrier (above). */
static dmsg_status central_barrier(dmsg_tp *tp, shm_state *s, const void *mine, size_t len,
                                   const void **rows)
{
    shm_job_area *a = s->area;
    unsigned par = ++s->bar_seen & 1;
    if (len)
        xchg_put(s, par, tp->npes, tp->rank, mine, len);
    gen_past g = {&a->gen, atomic_load_explicit(&a->gen, memory_order_acquire)};
    dmsg_status st = DMSG_OK;
    if (atomic_fetch_add_explicit(&a->arrived, 1, memory_order_acq_rel) == (uint32_t)tp->npes - 1) {
        atomic_store_explicit(&a->arrived, 0, memory_order_relaxed);
        atomic_fetch_add_explicit(&a->gen, 1, memory_order_seq_cst);
        dmsg_shm_wake(&a->gen, &a->sleepers, 0);
    } else {
        st = dmsg_shm_wait(s, gen_moved, &g, &a->gen, &a->sleepers);
    }
    if (!st && len)
        xchg_get(s, par, tp->npes, tp->rank, mine, len, rows);
    return st;
}

/* Dissemination barrier (DMSG_BARRIER=dissemination), 3 to SHM_DIS_MAX
 * PEs: in round k each PE stores the number of barriers it has entered into
 * its own line of the round (release) and waits until the line of the PE
 * 2^k places before it shows as many (acquire); after ceil(log2 n) rounds
 * every PE has heard, through a chain of such pairs, of every other PE's
 * arrival, and every store before the barrier on any PE happens before
 * everything after it on every PE. Each round costs a line transfer, where
 * the central barrier's n atomic adds on one line come one after another;
 * yet on a 16-core virtual host (a core per PE, two runs of each, nothing
 * else running) it was no faster: 16 PEs 1.23-1.47 us a barrier in
 * 5,000-barrier loops against the central one's 1.45-1.62 (one run 18.2),
 * 1.69-1.77 in OSU's shmem_barrier_all against 1.47-1.65; 8 PEs 0.86-1.10
 * against 0.84-1.16. So the central one stays the default. A line's word
 * only grows, so a PE that already passed the next barrier's round is seen
 * as arrived. Sleeping as in the pair barrier, the other way round: the
 * reader sleeps on the word and advertises in the writer's line, which the
 * writer reads after its store (a fence between), so the common case costs
 * the writer no transfer. Where PEs outnumber cores each round can wait
 * for a time slice. */
static dmsg_status dis_barrier(dmsg_tp *tp, shm_state *s, const void *mine, size_t len,
                               const void **rows)
{
    shm_job_area *a = s->area;
    int n = tp->npes, me = tp->rank;
    uint32_t want = ++s->bar_seen;
    unsigned par = want & 1;
    if (len)
        xchg_put(s, par, n, me, mine, len);
    for (int k = 0, d = 1; d < n; k++, d <<= 1) {
        shm_dis *my = &a->dis[me][k], *src = &a->dis[(me - d + n) % n][k];
        pair_past p = {&src->entered, want};
        atomic_store_explicit(&my->entered, want, memory_order_release);
        int done = pair_done(&p);
        dmsg_fence_seq_cst();
        if (atomic_load_explicit(&my->sleepers, memory_order_relaxed))
            dmsg_shm_wake(&my->entered, &my->sleepers, 0);
        dmsg_status st =
            done ? DMSG_OK : dmsg_shm_wait(s, pair_done, &p, &src->entered, &src->sleepers);
        if (st)
            return st;
    }
    if (len)
        xchg_get(s, par, n, me, mine, len, rows);
    return DMSG_OK;
}

dmsg_status dmsg_shm_barrier(dmsg_tp *tp)
{
    shm_state *s = tp->priv;
    if (tp->npes == 2)
        return pair_barrier(tp, s, NULL, 0, NULL);
    if (s->dis)
        return dis_barrier(tp, s, NULL, 0, NULL);
    return central_barrier(tp, s, NULL, 0, NULL);
}

/* transport.h, barrier_xchg: the values ride in the barrier's own words
 * (the pair barrier's lines, else rows beside the barrier), one pass. */
dmsg_status dmsg_shm_barrier_xchg(dmsg_tp *tp, const void *mine, size_t len, const void **rows)
{
    shm_state *s = tp->priv;
    if (len > DMSG_TP_XCHG_BYTES / (size_t)tp->npes)
        return DMSG_FAIL(DMSG_ERR_ARG, "barrier exchange of %zu bytes from %d PEs", len, tp->npes);
    if (tp->npes == 2)
        return pair_barrier(tp, s, mine, len, rows);
    if (s->dis)
        return dis_barrier(tp, s, mine, len, rows);
    /* one PE: its barrier is a no-op, its row the one of parity 0 */
    return central_barrier(tp, s, mine, len, rows);
}

dmsg_status dmsg_shm_quiet(dmsg_tp *tp)
{
    /* Deposits are complete when their copy loop returns; only ordering is left. */
    atomic_thread_fence(memory_order_seq_cst);
    return DMSG_OK;
}

dmsg_status dmsg_shm_allgather(dmsg_tp *tp, const void *mine, size_t len, void *all)
{
    shm_state *s = tp->priv;
    if (len > sizeof s->area->gather[0])
        return DMSG_FAIL(DMSG_ERR_ARG, "allgather of %zu bytes", len);
    memcpy(s->area->gather[tp->rank], mine, len);
    dmsg_status st = dmsg_shm_barrier(tp);
    if (st)
        return st;
    for (int p = 0; p < tp->npes; p++)
        memcpy((char *)all + (size_t)p * len, s->area->gather[p], len);
    /* Nobody may overwrite its slot before everyone has read it. */
    return dmsg_shm_barrier(tp);
}

dmsg_status dmsg_shm_join(dmsg_tp *tp, shm_state *s, dmsg_boot *boot)
{
    int rank = boot->rank, npes = boot->npes;
    if (boot->fd < 0) /* dmsg_init says it once for the job (dmsg_boot_note_failure). */
        return DMSG_FAIL(
            DMSG_ERR_UNSUPPORTED,
            "started by %s: transport %s needs all PEs started by dmsgrun on one "
            "host; under this launcher set DMSG_TRANSPORT=ofi (%s), or use dmsgrun -n %d",
            boot->launcher ? boot->launcher : "a launcher", tp->ops->name,
            boot->pass ? boot->pass : "in the PEs' environment", npes);
    dmsg_status st = dmsg_boot_join(boot);
    if (st)
        return st;
    s->hdr = boot->hdr;
    s->boot = boot;
    s->seg = malloc((size_t)npes * sizeof *s->seg);
    if (!s->seg) {
        st = DMSG_FAIL(DMSG_ERR_NOMEM, "segment table");
        goto err_joined;
    }
    for (int p = 0; p < npes; p++)
        s->seg[p] = dmsg_job_seg(s->hdr, p);
    s->taken = calloc(2 * (size_t)s->hdr->max_counters, sizeof *s->taken);
    if (!s->taken) {
        st = DMSG_FAIL(DMSG_ERR_NOMEM, "counter marks");
        goto err_segtab;
    }
    s->area = (shm_job_area *)dmsg_job_area(s->hdr);
    dmsg_wait_policy_init(&tp->wait, &tp->conf, npes, &SHM_WAIT_AUTO, boot);
    s->wait = &tp->wait;
    s->dis = npes >= 3 && npes <= SHM_DIS_MAX && tp->conf.barrier == DMSG_TP_BARRIER_DISSEMINATION;
    s->xp = tp->conf.xp;
    tp->seg = s->seg[rank];
    tp->priv = s;
    tp->rank = rank;
    tp->npes = npes;
    tp->seg_size = s->hdr->seg_size;
    tp->max_counters = s->hdr->max_counters;
    st = dmsg_shm_barrier(tp);
    if (st)
        goto err_taken;
    return DMSG_OK;

err_taken:
    tp->priv = NULL;
    tp->seg = NULL;
    free(s->taken);
err_segtab:
    free(s->seg);
    s->seg = NULL;
err_joined:
    dmsg_boot_leave(boot);
    return st;
}

void dmsg_shm_leave(dmsg_tp *tp, shm_state *s)
{
    dmsg_boot_leave(tp->boot);
    free(s->taken);
    free(s->seg);
    s->seg = NULL;
    tp->seg = NULL;
    tp->priv = NULL;
}

static dmsg_status shm_init(dmsg_tp *tp, dmsg_boot *boot)
{
    shm_state *s = calloc(1, sizeof *s);
    if (!s)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "shm state");
    dmsg_status st = dmsg_shm_join(tp, s, boot);
    if (st)
        free(s);
    return st;
}

static void shm_finalize(dmsg_tp *tp)
{
    shm_state *s = tp->priv;
    dmsg_shm_leave(tp, s);
    free(s);
}

/* seg_alias's copy of the process's own data pages: every byte, also a
 * sanitizer's redzones between globals, and never through memcpy (which
 * AddressSanitizer checks); volatile keeps the loop a loop. */
__attribute__((no_sanitize_address)) static void shm_alias_copy(char *dst, const char *src, size_t n)
{
    volatile uint64_t *d = (volatile uint64_t *)(void *)dst;
    const volatile uint64_t *s = (const volatile uint64_t *)(const void *)src;
    for (size_t i = 0; i < n / sizeof *d; i++)
        d[i] = s[i];
}

/* transport.h, seg_alias: the job region's pages of our segment, mapped a
 * second time from its file (also for sim, whose state begins with ours). */
dmsg_status dmsg_shm_seg_alias(dmsg_tp *tp, size_t off, size_t len, void *at)
{
    shm_state *s = tp->priv;
    char *seg = tp->seg + off;
    shm_alias_copy(seg, at, len);
    void *m = mmap(at, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, s->boot->fd,
                   (off_t)(seg - (char *)s->hdr));
    if (m == MAP_FAILED)
        return DMSG_FAIL(DMSG_ERR_TRANSPORT, "mapping segment pages at %p: %s", at, strerror(errno));
    return DMSG_OK;
}

/* transport.h, peer_seg: shm maps every PE's segment in every process. */
static void *shm_peer_seg(dmsg_tp *tp, int pe)
{
    shm_state *s = tp->priv;
    return s->seg[pe];
}

const dmsg_tp_ops dmsg_tp_shm_ops = {
    .name = "shm",
    .init = shm_init,
    .finalize = shm_finalize,
    .barrier = dmsg_shm_barrier,
    .quiet = dmsg_shm_quiet,
    .allgather = dmsg_shm_allgather,
    .ctr_reset = dmsg_shm_ctr_reset,
    .ctr_wait = dmsg_shm_ctr_wait,
    .ctr_read = dmsg_shm_ctr_read,
    .put = dmsg_shm_put,
    .get = dmsg_shm_get,
    .get_nb = dmsg_shm_get_nb,
    .req_test = dmsg_shm_req_test,
    .amo = dmsg_shm_amo,
    .signal = dmsg_shm_signal,
    .word_wait = dmsg_shm_word_wait,
    .caps = DMSG_TP_CAP_PUT_DONE | DMSG_TP_CAP_ORDERED | DMSG_TP_CAP_ASYNC |
            DMSG_TP_CAP_REMOTE_CTR | DMSG_TP_CAP_AMO4 | DMSG_TP_CAP_AMO8 | DMSG_TP_CAP_SIGNAL |
            DMSG_TP_CAP_WORD_WAIT | DMSG_TP_CAP_PEER_MAP |
            DMSG_TP_CAP_BARRIER_QUIET,
    .seg_alias = dmsg_shm_seg_alias,
    .peer_seg = shm_peer_seg,
    .barrier_xchg = dmsg_shm_barrier_xchg,
};
