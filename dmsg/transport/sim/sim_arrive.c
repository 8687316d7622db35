/* Arrival times of counted deposits (sim.h, sim_log_*).
 *
 * An await for k messages moves the waiting PE's clock to the k-th earliest
 * arrival among the deposits its counter has counted and no await has taken
 * yet, not to the latest arrival ever counted: a partner that runs ahead and
 * deposits its next step's message early in host time no longer drags the
 * waiting PE's clock to that message's arrival, unless the PE awaits it.
 *
 * Where the times live. The shm transport owns each PE's control area: its
 * counter table and, after it, at least 4 KiB that the job region reserves
 * (dmsg_job_ctl_size). The simulator keeps there one log per PE: a record
 * per counted deposit (counter slot, arrival, bytes), appended by the
 * depositing PE under a spin lock and taken by the owner's awaits. The
 * log's header (the lock, the counts, the stamps) is in the job area, in
 * a dense array that the scheduler's drops never unmap (sim_sched.c): in
 * the control area it was one more page of the target, a page fault per
 * deposit after each drop. A message
 * await takes the k earliest records of its counter and frees them; a bytes
 * await takes bytes from the earliest records (marking them) and leaves them
 * for the message awaits. When the log is full, a deposit's arrival goes to
 * its counter's floor instead (sim_ctr_words, in the counter's slot):
 * every later await of that counter moves the clock at least there (the
 * old rule, conservative) until the counter is reset.
 *
 * The log's header also carries this PE's part of the ordered delivery
 * (sim_order.c): the lower bound of its next deposit's issue time, what it
 * is blocked on, and the futex word its order waits sleep on. A deposit to
 * a PE blocked on the deposit's counter (or on any deposit: an order wait)
 * lowers that bound to the deposit's arrival under the log's lock, before
 * the count releases it, so a bound read from the log is never above
 * what its PE can still do. */
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "dmsg/transport/sim/sim.h"

/* Why the scans below are single passes and sorts. The log grows with the
 * PE count (4 records a PE), and in an all-to-all every PE logs an arrival
 * from each of the others per step: a take that looked for the earliest
 * record once per message, an add that looked for a free record from the
 * start, and a bound recomputed over the log at each deposit to a blocked
 * PE each cost P^2 per PE and step, P^3 in all (at 1024 PEs 34% of the host
 * time of a transpose; at 4096, 64 times that). The results are the same:
 * the records in (arrival, index) order are exactly those that picking the
 * earliest one at a time (ties to the lower index) took. */
/* Takes of up to this many messages pick the earliest record one pass at a
 * time (RRMSG's engine takes one message at a time, from logs of thousands
 * of records at 1024 PEs: a tally and a sort cost it two passes and more). */
#define SIM_TAKE_FEW 4

typedef struct sim_pick {
    double t;
    uint32_t i;
} sim_pick;

static int pick_cmp(const void *a, const void *b)
{
    const sim_pick *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* Whether record r is one a take of this mode on slot uses: any deposit
 * (messages), one with bytes left (bytes), a zero-byte deposit (empty). */
static int rec_counts(const sim_rec *r, uint32_t slot, int mode)
{
    if (!r->used || (r->slot & ~SIM_REC_EMPTY) != slot)
        return 0;
    return mode == SIM_TAKE_BYTES ? r->bytes != 0
                                  : mode != SIM_TAKE_EMPTY || (r->slot & SIM_REC_EMPTY);
}

/* What one record adds to a tally of a take of this mode: its bytes
 * (bytes) or one message. */
static uint64_t rec_amount(const sim_rec *r, int mode)
{
    return mode == SIM_TAKE_BYTES ? r->bytes : 1;
}

/* The records of slot below end that a take of mode uses, earliest first
 * (ties in log order), in s's scratch; returns how many, or -1 when the
 * scratch cannot grow (the caller then picks one at a time). */
static long sorted_recs(sim_state *s, const sim_rec *rec, uint32_t end, uint32_t slot, int mode)
{
    if (s->picks_cap < end) {
        sim_pick *p = realloc(s->picks, (size_t)end * sizeof *p);
        if (!p)
            return -1;
        s->picks = p;
        s->picks_cap = end;
    }
    long m = 0;
    for (uint32_t i = 0; i < end; i++)
        if (rec_counts(&rec[i], slot, mode))
            s->picks[m++] = (sim_pick){rec[i].t, i};
    qsort(s->picks, (size_t)m, sizeof *s->picks, pick_cmp);
    return m;
}

/* One pass: what the records of slot hold for a take of mode (messages or
 * bytes) and the latest of their arrivals (0 when none). */
static uint64_t tally(const sim_rec *rec, uint32_t end, uint32_t slot, int mode, double *latest)
{
    uint64_t have = 0;
    double lt = 0;
    for (uint32_t i = 0; i < end; i++) {
        const sim_rec *r = &rec[i];
        if (rec_counts(r, slot, mode)) {
            have += rec_amount(r, mode);
            lt = r->t > lt ? r->t : lt;
        }
    }
    *latest = lt;
    return have;
}

/* What own_tally keeps per counter slot. */
typedef struct sim_tal {
    uint64_t have;
    double latest;
} sim_tal;

/* tally() of this PE's own log (l locked), from the tallies of every slot
 * that one pass made (the same sums and maxima: they do not depend on the
 * order of the records), made again when a deposit was logged since (the
 * log's `adds` moved: every add bumps it under the lock) or this PE took
 * from its log (log_gen). RRMSG's engine asks for the arrival of each
 * landed message and control message of a look, one slot each: a pass
 * over the whole log each (4 records a PE of the job) was a third of a
 * 1024-PE transpose's user time. Falls back to a pass when the slot is out
 * of the table or the table cannot be had. */
static uint64_t own_tally(sim_state *s, const sim_log *l, const sim_rec *rec, uint32_t end,
                          uint32_t slot, int mode, double *latest)
{
    uint32_t nslots = s->shm.hdr->max_counters;
    uint32_t adds = atomic_load_explicit(&l->adds, memory_order_acquire);
    if (slot >= nslots)
        return tally(rec, end, slot, mode, latest);
    if (!s->tal) {
        s->tal = malloc((size_t)nslots * sizeof *s->tal);
        if (!s->tal)
            return tally(rec, end, slot, mode, latest);
        s->tal_ok = 0;
    }
    if (!s->tal_ok || s->tal_mode != mode || s->tal_adds != adds || s->tal_gen != s->log_gen) {
        memset(s->tal, 0, (size_t)nslots * sizeof *s->tal);
        for (uint32_t i = 0; i < end; i++) {
            const sim_rec *r = &rec[i];
            uint32_t rs = r->slot & ~SIM_REC_EMPTY;
            if (rs < nslots && rec_counts(r, rs, mode)) {
                s->tal[rs].have += rec_amount(r, mode);
                s->tal[rs].latest = r->t > s->tal[rs].latest ? r->t : s->tal[rs].latest;
            }
        }
        s->tal_ok = 1;
        s->tal_mode = mode;
        s->tal_adds = adds;
        s->tal_gen = s->log_gen;
    }
    *latest = s->tal[slot].latest;
    return s->tal[slot].have;
}

/* Frees record i (l locked). */
static void free_rec(sim_log *l, sim_rec *rec, uint32_t i)
{
    rec[i].used = 0;
    if (i < l->lo)
        l->lo = i;
}

/* PE pe's log: the slack of its control area after the counter table. */
sim_log *dmsg_sim_log_of(sim_state *s, int pe)
{
    return &sim_job(s)->log[pe];
}

/* PE pe's records: the slack of its control area after the counter table. */
sim_rec *dmsg_sim_log_recs(sim_state *s, int pe)
{
    return (sim_rec *)((char *)shm_ctr_at(&s->shm, pe, 0) +
                       (size_t)s->shm.hdr->max_counters * DMSG_CTR_SLOT_BYTES + SIM_LOG_REC_OFF);
}

void dmsg_sim_log_lock(sim_log *l)
{
    while (atomic_exchange_explicit(&l->lock, 1, memory_order_acquire))
        sched_yield(); /* PEs may outnumber cores: let the holder run */
}

void dmsg_sim_log_unlock(sim_log *l)
{
    atomic_store_explicit(&l->lock, 0, memory_order_release);
}

/* Records a log holds: the same for every PE (the job region starts zeroed:
 * every record free, the lock open). */
static uint32_t cap_of(const sim_state *s)
{
    /* The last bytes of the area are shm's doorbell and the boot layer's
     * (dmsg_job_pe_pid). */
    size_t room = s->shm.hdr->ctl_size - (size_t)s->shm.hdr->max_counters * DMSG_CTR_SLOT_BYTES -
                  SHM_CTL_TAIL_BYTES - (s->set.topology ? SIM_TOPO_CTL_BYTES : 0);
    return (uint32_t)((room - SIM_LOG_REC_OFF) / sizeof(sim_rec));
}

/* Where the scans of l stop: no record at or past it is in use (l locked). */
static uint32_t scan_end(const sim_state *s, const sim_log *l)
{
    uint32_t cap = cap_of(s);
    return l->hi < cap ? l->hi : cap;
}

/* After records were freed: the high-water mark comes down past the free
 * ones at the top (l locked). */
static void lower_hi(sim_log *l, const sim_rec *rec)
{
    while (l->hi > 0 && !rec[l->hi - 1].used)
        l->hi--;
}

/* Raises the counter's floor to t (a lock-free max on the bit patterns:
 * positive doubles order like them). */
static void raise_floor(sim_ctr_words *c, double t)
{
    uint64_t want = dbits(t), have = atomic_load(&c->floor);
    while (have < want && !atomic_compare_exchange_weak(&c->floor, &have, want))
        ;
}

/* Whether this PE reaches PE pe's control area through the file
 * (sim_file.c): a PE that drops, for another PE. */
static int by_file(const sim_state *s, int pe)
{
    return s->file && pe != s->tp->rank;
}

/* The floor of PE pe's counter slot (in pe's control area: read through
 * the file by a PE that drops). */
static double floor_of(sim_state *s, int pe, uint32_t slot)
{
    _Atomic uint64_t *f = &sim_ctr(s, pe, slot)->floor;
    uint64_t v;
    if (by_file(s, pe) && dmsg_sim_file_read(s, (const void *)f, &v, sizeof v) == 0)
        return bitsd(v);
    sim_touch(s, pe);
    return bitsd(atomic_load(f));
}

/* The first free record of PE pe's log from i on, read through the file
 * (l locked): records from `hi` on are free, below it a few reads of a
 * chunk. Returns cap when the log is full, UINT32_MAX when a read failed. */
static uint32_t file_first_free(sim_state *s, const sim_log *l, sim_rec *rec, uint32_t i,
                                uint32_t cap)
{
    enum { CHUNK = 32 };
    sim_rec buf[CHUNK];
    uint32_t end = l->hi < cap ? l->hi : cap;
    while (i < end) {
        uint32_t n = end - i < CHUNK ? end - i : CHUNK;
        if (dmsg_sim_file_read(s, &rec[i], buf, n * sizeof *buf))
            return UINT32_MAX;
        for (uint32_t k = 0; k < n; k++)
            if (!buf[k].used)
                return i + k;
        i += n;
    }
    return i < cap ? i : cap;
}

/* The bound of PE pe blocked in an await on slot, from its tally (pe's log
 * locked): as dmsg_sim_log_bound, which passes over the log, computes it,
 * except where the log holds more than the await takes (then the k-th
 * earliest arrival is needed: the sort). */
static double bound_of(sim_state *s, int pe, uint32_t slot)
{
    sim_log *l = dmsg_sim_log_of(s, pe);
    sim_job_words *j = sim_job(s);
    double due;
    if (j->blk_have[pe] < l->blk_n)
        return INFINITY;
    if (j->blk_have[pe] == l->blk_n) {
        double floor = floor_of(s, pe, slot);
        due = j->blk_latest[pe] > floor ? j->blk_latest[pe] : floor;
    } else {
        int covered;
        due = dmsg_sim_log_due(s, pe, slot, (int)l->blk_bytes, l->blk_n, &covered);
    }
    return due > l->blk_clock ? due : l->blk_clock;
}

void dmsg_sim_log_add(dmsg_tp *tp, int pe, uint32_t slot, double t, uint64_t bytes)
{
    sim_state *s = tp->priv;
    sim_log *l = dmsg_sim_log_of(s, pe);
    sim_rec *rec = dmsg_sim_log_recs(s, pe);
    uint32_t cap = cap_of(s);
    int file = by_file(s, pe);
    dmsg_sim_log_lock(l);
    /* The first free record, as a scan from the start finds it. */
    uint32_t i = l->lo < cap ? l->lo : cap;
    if (file && (i = file_first_free(s, l, rec, i, cap)) == UINT32_MAX) {
        file = 0; /* the mapping, as without the file path */
        i = l->lo < cap ? l->lo : cap;
    }
    if (!file)
        sim_touch(s, pe);
    /* Its page is written below (it is usually record lo): a compare-and-
     * swap that writes back what is there is a write access, so after the
     * scheduler's drops (sim_sched.c) the page comes back with one write
     * fault. The scan's read would fault first, and a read fault maps up
     * to 16 neighbouring pages of the target as well (fault-around), which
     * a PE that deposits to every other once a run never uses and its
     * next drop unmaps again. Changes nothing: records change only under
     * this lock. */
    if (!file && i < cap) {
        uint32_t same = 0;
        (void)__atomic_compare_exchange_n(&rec[i].used, &same, 0u, 0, __ATOMIC_RELAXED,
                                          __ATOMIC_RELAXED);
    }
    while (!file && i < cap && rec[i].used)
        i++;
    l->lo = i < cap ? i + 1 : cap;
    /* The record's number: a reader that has seen `adds` reach it also sees
     * the count (signalled below, before the number is published). */
    uint32_t seq = atomic_load(&l->adds) + 1;
    seq += !seq; /* 0 marks a free record */
    sim_rec nr = {.slot = slot | (bytes ? 0 : SIM_REC_EMPTY), .used = seq, .t = t,
                  .bytes = bytes};
    if (i < cap) {
        if (!file || dmsg_sim_file_write(s, &rec[i], &nr, sizeof nr)) {
            sim_touch(s, pe);
            rec[i] = nr;
        }
        if (i >= l->hi)
            l->hi = i + 1;
    } else {
        sim_touch(s, pe);
        raise_floor(sim_ctr(s, pe, slot), t);
    }
    /* A deposit to itself: the bound below must see the record, and `adds`
     * moves only after it. */
    if (pe == s->tp->rank)
        s->log_gen++;
    uint32_t w = atomic_load(&l->wait);
    int lowered = 0, any = w == SIM_WAIT_ANY;
    if (w == slot + 1 && i < cap && rec_counts(&nr, slot, (int)l->blk_bytes)) {
        sim_job_words *j = sim_job(s);
        j->blk_have[pe] += rec_amount(&nr, (int)l->blk_bytes);
        j->blk_latest[pe] = t > j->blk_latest[pe] ? t : j->blk_latest[pe];
    }
    if (any || w == slot + 1) {
        /* An await may need more than this deposit: its bound is the time
         * it can end at now (never above the bound it had). */
        uint64_t tb = dbits(any ? t : bound_of(s, pe, slot));
        _Atomic uint64_t *lb = &sim_bound(s, pe)->lb;
        lowered = tb < atomic_load(lb);
        if (lowered)
            atomic_store(lb, tb);
    }
    /* Through the file, the count waits in the log header until the target
     * reads its counter (dmsg_sim_count_fold), for one slot at a time. */
    uint32_t ps = file ? atomic_load(&l->pslot) : 0;
    if (file && (ps == 0 || ps == slot + 1)) {
        l->pmsgs++;
        l->pbytes += bytes;
        atomic_store_explicit(&l->pslot, slot + 1, memory_order_release);
    } else if (!file || dmsg_sim_file_count(s, pe, slot, bytes)) {
        sim_touch(s, pe);
        dmsg_shm_ctr_signal(tp, pe, slot, bytes);
    }
    atomic_store(&l->adds, seq);
    if (any)
        atomic_fetch_add(&l->inbox, 1);
    dmsg_sim_log_unlock(l);
    /* After the lowering, before this PE's own bound may rise past t (the
     * caller publishes its clock after this): see sim_order.c. */
    if (lowered)
        atomic_fetch_add(&dmsg_sim_log_of(s, 0)->epoch, 1);
    if (any)
        dmsg_sim_order_wake(l);
    if (any && lowered) /* the only deposits that can end an order wait early */
        dmsg_sim_sched_poke_why(s, pe, SIM_PARK_ORDER);
}

double dmsg_sim_log_next(sim_state *s, double clock, double t, uint32_t mark)
{
    sim_log *l = dmsg_sim_log_of(s, s->tp->rank);
    sim_rec *rec = dmsg_sim_log_recs(s, s->tp->rank);
    uint32_t end = scan_end(s, l);
    double b = t > clock ? t : clock;
    for (uint32_t i = 0; i < end; i++) {
        sim_rec *r = &rec[i];
        if (!r->used)
            continue;
        /* Perhaps not seen: due at once (or at its arrival); seen: the PE
         * wakes at its arrival if that is still to come. */
        double at = r->t > clock ? r->t : clock;
        if ((int32_t)(r->used - mark) > 0 || r->t > clock)
            b = at < b ? at : b;
    }
    return b;
}

/* The earliest record of slot that a message (or, bytes_mode, a bytes)
 * await can still take, or NULL. */
static sim_rec *earliest(sim_rec *rec, uint32_t end, uint32_t slot, int bytes_mode)
{
    sim_rec *best = NULL;
    for (uint32_t i = 0; i < end; i++) {
        sim_rec *r = &rec[i];
        if (rec_counts(r, slot, bytes_mode) && (!best || r->t < best->t))
            best = r;
    }
    return best;
}

double dmsg_sim_log_due(sim_state *s, int pe, uint32_t slot, int bytes_mode, uint64_t n,
                   int *covered)
{
    sim_log *l = dmsg_sim_log_of(s, pe);
    sim_rec *rec = dmsg_sim_log_recs(s, pe);
    uint32_t end = scan_end(s, l);
    double floor = floor_of(s, pe, slot);
    sim_touch(s, pe); /* the records below, through the mapping */
    /* One pass first: too few, or exactly enough (the latest of them), is
     * the common case of an await that blocks. */
    double latest;
    uint64_t have = pe == s->tp->rank ? own_tally(s, l, rec, end, slot, bytes_mode, &latest)
                                      : tally(rec, end, slot, bytes_mode, &latest);
    *covered = have >= n;
    if (have <= n)
        return latest > floor ? latest : floor;
    /* More than enough: the records the take would use, earliest first
     * (ties in log order); for a few messages a pass each (below). */
    long m = bytes_mode != SIM_TAKE_BYTES && n <= SIM_TAKE_FEW
                 ? -1
                 : sorted_recs(s, rec, end, slot, bytes_mode);
    if (m >= 0) {
        double t = 0;
        for (long k = 0; k < m && n > 0; k++) {
            const sim_rec *r = &rec[s->picks[k].i];
            t = r->t;
            n -= bytes_mode == SIM_TAKE_BYTES ? (r->bytes < n ? r->bytes : n) : 1;
        }
        return t > floor ? t : floor;
    }
    /* A few, or no memory for the sort: each round the next one after
     * (t, i) of the last. */
    double t = 0, last_t = -1;
    uint32_t last_i = 0;
    while (n > 0) {
        sim_rec *best = NULL;
        uint32_t bi = 0;
        for (uint32_t i = 0; i < end; i++) {
            sim_rec *r = &rec[i];
            if (!rec_counts(r, slot, bytes_mode))
                continue;
            if (r->t < last_t || (r->t == last_t && i <= last_i))
                continue;
            if (!best || r->t < best->t)
                best = r, bi = i;
        }
        if (!best)
            break;
        t = best->t;
        last_t = best->t;
        last_i = bi;
        n -= bytes_mode == SIM_TAKE_BYTES ? (best->bytes < n ? best->bytes : n) : 1;
    }
    return t > floor ? t : floor;
}

double dmsg_sim_log_bound(sim_state *s, int pe, uint32_t slot)
{
    sim_log *l = dmsg_sim_log_of(s, pe);
    sim_rec *rec = dmsg_sim_log_recs(s, pe);
    sim_job_words *j = sim_job(s);
    sim_touch(s, pe);
    j->blk_have[pe] = pe == s->tp->rank
                          ? own_tally(s, l, rec, scan_end(s, l), slot, (int)l->blk_bytes,
                                      &j->blk_latest[pe])
                          : tally(rec, scan_end(s, l), slot, (int)l->blk_bytes, &j->blk_latest[pe]);
    int covered;
    double due = dmsg_sim_log_due(s, pe, slot, (int)l->blk_bytes, l->blk_n, &covered);
    if (!covered)
        return INFINITY;
    return due > l->blk_clock ? due : l->blk_clock;
}

/* Takes what an await of n (messages or bytes) still needs from record i;
 * returns what it then needs; *t moves to the record's arrival. */
static uint64_t take_from(sim_log *l, sim_rec *rec, uint32_t i, int bytes_mode, uint64_t n, double *t)
{
    sim_rec *r = &rec[i];
    *t = r->t > *t ? r->t : *t;
    if (bytes_mode != SIM_TAKE_BYTES) {
        free_rec(l, rec, i);
        return n - 1;
    }
    uint64_t k = r->bytes < n ? r->bytes : n;
    r->bytes -= k;
    return n - k;
}

/* Takes the earliest counting record, one at a time, until n is taken or
 * none is left; returns what is left of n. */
static uint64_t take_earliest(sim_log *l, sim_rec *rec, uint32_t end, uint32_t slot, int bytes_mode, uint64_t n,
                              double *t)
{
    while (n > 0) {
        sim_rec *r = earliest(rec, end, slot, bytes_mode);
        if (!r)
            break;
        n = take_from(l, rec, (uint32_t)(r - rec), bytes_mode, n, t);
    }
    return n;
}

double dmsg_sim_log_take(sim_state *s, uint32_t slot, int bytes_mode, uint64_t n)
{
    sim_log *l = dmsg_sim_log_of(s, s->tp->rank);
    sim_rec *rec = dmsg_sim_log_recs(s, s->tp->rank);
    double t = bitsd(atomic_load(&sim_ctr(s, s->tp->rank, slot)->floor));
    dmsg_sim_log_lock(l);
    s->log_gen++; /* the tallies of own_tally no longer hold */
    uint32_t end = scan_end(s, l);
    double latest;
    uint64_t have;
    long m;
    if (bytes_mode != SIM_TAKE_BYTES && n <= SIM_TAKE_FEW) {
        /* A few messages (RRMSG's engine takes one at a time): a pass each
         * is less than a tally and a sort. */
        take_earliest(l, rec, end, slot, bytes_mode, n, &t);
    } else if ((have = tally(rec, end, slot, bytes_mode, &latest)) <= n) {
        /* It takes every record (the common case: an await of exactly the
         * step's arrivals); the rest, if any, overflowed the log: the
         * floor stands for them. */
        for (uint32_t i = 0; i < end; i++) {
            sim_rec *r = &rec[i];
            if (!rec_counts(r, slot, bytes_mode))
                continue;
            t = r->t > t ? r->t : t;
            if (bytes_mode != SIM_TAKE_BYTES)
                free_rec(l, rec, i);
            else
                r->bytes = 0;
        }
    } else if ((m = sorted_recs(s, rec, end, slot, bytes_mode)) >= 0) {
        for (long k = 0; k < m && n > 0; k++)
            n = take_from(l, rec, s->picks[k].i, bytes_mode, n, &t);
    } else {
        take_earliest(l, rec, end, slot, bytes_mode, n, &t); /* no memory for the sort */
    }
    lower_hi(l, rec);
    dmsg_sim_log_unlock(l);
    return t;
}

void dmsg_sim_log_reset(sim_state *s, uint32_t slot)
{
    sim_log *l = dmsg_sim_log_of(s, s->tp->rank);
    sim_rec *rec = dmsg_sim_log_recs(s, s->tp->rank);
    atomic_store(&sim_ctr(s, s->tp->rank, slot)->floor, 0);
    dmsg_sim_log_lock(l);
    s->log_gen++;
    for (uint32_t i = 0, end = scan_end(s, l); i < end; i++)
        if ((rec[i].slot & ~SIM_REC_EMPTY) == slot)
            free_rec(l, rec, i);
    lower_hi(l, rec);
    dmsg_sim_log_unlock(l);
}
