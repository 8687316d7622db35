/* Deposit counters in shared memory. The sender's copy is complete before
 * the count is released, and the receiver acquires the count before it
 * reads, so the data is never seen after the count. */
#include "dmsg/transport/shm/shm.h"

dmsg_status dmsg_shm_ctr_reset(dmsg_tp *tp, uint32_t slot)
{
    shm_state *s = tp->priv;
    shm_ctr *c = shm_ctr_at(s, tp->rank, slot);
    atomic_store(&c->msgs, 0);
    atomic_store(&c->bytes, 0);
    s->taken[2 * slot] = s->taken[2 * slot + 1] = 0;
    return DMSG_OK;
}

void dmsg_shm_ctr_signal(dmsg_tp *tp, int pe, uint32_t slot, uint64_t bytes)
{
    shm_ctr *c = shm_ctr_at(tp->priv, pe, slot);
    /* Bytes first: an await on messages then also sees the bytes. seq_cst
     * orders both adds before the sleepers check (store-load). */
    uint64_t b = atomic_fetch_add_explicit(&c->bytes, bytes, memory_order_seq_cst) + bytes;
    uint64_t m = atomic_fetch_add_explicit(&c->msgs, 1, memory_order_seq_cst) + 1;
    if (atomic_load(&c->sleepers) == 0)
        return;
    /* A sleeper stores its target before it advertises itself, so a sleeper
     * seen here has its target seen too. Only the deposit that reaches the
     * target wakes it: a PE awaiting two halos sleeps once, not twice, and
     * the first sender saves its wake-up call. */
    if (m < atomic_load(&c->want_msgs) && b < atomic_load(&c->want_bytes))
        return;
    dmsg_shm_wake(&c->seq, &c->sleepers, 1);
}

typedef struct ctr_need {
    _Atomic uint64_t *word;
    uint64_t n;
} ctr_need;

static int ctr_ready(const void *arg)
{
    const ctr_need *w = arg;
    return atomic_load_explicit(w->word, memory_order_acquire) >= w->n;
}

dmsg_status dmsg_shm_ctr_wait(dmsg_tp *tp, uint32_t slot, int bytes_mode, uint64_t n)
{
    shm_state *s = tp->priv;
    shm_ctr *c = shm_ctr_at(s, tp->rank, slot);
    uint64_t *taken = &s->taken[2 * slot + (bytes_mode ? 1 : 0)];
    /* Counts only grow; "consuming" n advances our private mark by n. */
    ctr_need w = {bytes_mode ? &c->bytes : &c->msgs, *taken + n};
    if (!ctr_ready(&w)) {
        /* Read by senders only while we advertise ourselves as a sleeper. */
        atomic_store(&c->want_msgs, bytes_mode ? UINT64_MAX : w.n);
        atomic_store(&c->want_bytes, bytes_mode ? w.n : UINT64_MAX);
        dmsg_status st = dmsg_shm_wait(s, ctr_ready, &w, &c->seq, &c->sleepers);
        if (st)
            return st;
    }
    *taken += n;
    return DMSG_OK;
}

dmsg_status dmsg_shm_ctr_read(dmsg_tp *tp, uint32_t slot, uint64_t *msgs, uint64_t *bytes)
{
    shm_state *s = tp->priv;
    shm_ctr *c = shm_ctr_at(s, tp->rank, slot);
    /* Messages first: senders add bytes before messages, so the bytes read
     * next include at least those of every message counted. */
    *msgs = atomic_load_explicit(&c->msgs, memory_order_acquire) - s->taken[2 * slot];
    *bytes = atomic_load_explicit(&c->bytes, memory_order_acquire) - s->taken[2 * slot + 1];
    return DMSG_OK;
}
