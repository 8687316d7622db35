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
 * depositing PE under a spin lock and taken by the owner's awaits. A message
 * await takes the k earliest records of its counter and frees them; a bytes
 * await takes bytes from the earliest records (marking them) and leaves them
 * for the message awaits. When the log is full, a deposit's arrival goes to
 * its counter's floor instead (shm_ctr.aux): every later await of that
 * counter moves the clock at least there (the old rule, conservative) until
 * the counter is reset. */
#include <sched.h>
#include <string.h>
#include "dmsg/transport/sim/sim.h"

typedef struct sim_rec {
    uint32_t slot;
    uint32_t used;   /* 0: free */
    double t;        /* arrival, virtual seconds */
    uint64_t bytes;  /* bytes not yet taken by bytes awaits */
} sim_rec;

struct sim_log {
    _Atomic uint32_t lock;
    uint32_t pad;
    sim_rec rec[];
};

/* PE pe's log: the slack of its control area after the counter table. */
static sim_log *log_of(sim_state *s, int pe)
{
    return (sim_log *)((char *)shm_ctr_at(&s->shm, pe, 0) +
                       (size_t)s->shm.hdr->max_counters * DMSG_CTR_SLOT_BYTES);
}

static void lock(sim_log *l)
{
    while (atomic_exchange_explicit(&l->lock, 1, memory_order_acquire))
        sched_yield(); /* PEs may outnumber cores: let the holder run */
}

static void unlock(sim_log *l)
{
    atomic_store_explicit(&l->lock, 0, memory_order_release);
}

/* Records a log holds: the same for every PE (the job region starts zeroed:
 * every record free, the lock open). */
static uint32_t cap_of(const sim_state *s)
{
    size_t room = s->shm.hdr->ctl_size - (size_t)s->shm.hdr->max_counters * DMSG_CTR_SLOT_BYTES;
    return (uint32_t)((room - sizeof(sim_log)) / sizeof(sim_rec));
}

/* Raises the counter's floor to t (a lock-free max on the bit patterns:
 * positive doubles order like them). */
static void raise_floor(shm_ctr *c, double t)
{
    uint64_t want = dbits(t), have = atomic_load(&c->aux);
    while (have < want && !atomic_compare_exchange_weak(&c->aux, &have, want))
        ;
}

void sim_log_add(sim_state *s, int pe, uint32_t slot, double t, uint64_t bytes)
{
    sim_log *l = log_of(s, pe);
    uint32_t cap = cap_of(s), i = 0;
    lock(l);
    while (i < cap && l->rec[i].used)
        i++;
    if (i < cap)
        l->rec[i] = (sim_rec){.slot = slot, .used = 1, .t = t, .bytes = bytes};
    unlock(l);
    if (i == cap)
        raise_floor(shm_ctr_at(&s->shm, pe, slot), t);
}

/* The earliest record of slot that a message (or, bytes_mode, a bytes)
 * await can still take, or NULL. */
static sim_rec *earliest(sim_log *l, uint32_t cap, uint32_t slot, int bytes_mode)
{
    sim_rec *best = NULL;
    for (uint32_t i = 0; i < cap; i++) {
        sim_rec *r = &l->rec[i];
        if (r->used && r->slot == slot && (!bytes_mode || r->bytes) && (!best || r->t < best->t))
            best = r;
    }
    return best;
}

double sim_log_take(sim_state *s, uint32_t slot, int bytes_mode, uint64_t n)
{
    sim_log *l = log_of(s, s->self);
    double t = bitsd(atomic_load(&shm_ctr_at(&s->shm, s->self, slot)->aux));
    lock(l);
    while (n > 0) {
        sim_rec *r = earliest(l, cap_of(s), slot, bytes_mode);
        if (!r)
            break; /* the rest overflowed the log: the floor stands for them */
        t = r->t > t ? r->t : t;
        if (!bytes_mode) {
            r->used = 0;
            n--;
        } else {
            uint64_t k = r->bytes < n ? r->bytes : n;
            r->bytes -= k;
            n -= k;
        }
    }
    unlock(l);
    return t;
}

void sim_log_reset(sim_state *s, uint32_t slot)
{
    sim_log *l = log_of(s, s->self);
    atomic_store(&shm_ctr_at(&s->shm, s->self, slot)->aux, 0);
    uint32_t cap = cap_of(s);
    lock(l);
    for (uint32_t i = 0; i < cap; i++)
        if (l->rec[i].slot == slot)
            l->rec[i].used = 0;
    unlock(l);
}
