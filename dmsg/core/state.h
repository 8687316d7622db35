/* The PE's library state and the checks every entry point shares. */
#ifndef DMSG_CORE_STATE_H
#define DMSG_CORE_STATE_H

#include <stdatomic.h>
#include <stdint.h>
#include "dmsg/boot/job.h"
#include "dmsg/core/config.h"
#include "dmsg/core/heap.h"
#include "dmsg/core/reqset.h"
#include "dmsg/transport/transport.h"
#include "dmsg/xfer/xfer.h"

typedef struct dmsg_state {
    int initialized;
    dmsg_config cfg;
    dmsg_boot boot; /* how this PE started; ended after the transport */
    dmsg_tp tp;
    const dmsg_tp_vtime_ops *vtime; /* tp's virtual-time extension or NULL, looked up once */
    char *seg;               /* this PE's segment (symmetric addresses live here) */
    dmsg_heap heap;
    uint32_t *ctr_gen;       /* per slot: generation; odd = live (identical on all PEs) */
    uint64_t coll_seq;       /* number of checked collectives so far */
    uint64_t (*coll_buf)[4]; /* npes rows for dmsg_coll_check */
    uint16_t wait_serial;    /* waits entered, in the wait word's units */
    /* This PE's wait word in the job region (boot/job.h) under dmsgrun, on
     * every transport; NULL without a job region. */
    _Atomic uint16_t *wait_word;
    dmsg_reqset reqs;        /* ids of the live requests (fetches, atomics) */
    int check;               /* DMSG_CHECK is on (dmsg/core/checker.h) */
    /* Teams and collectives (dmsg/coll/), which the core does not call:
     * the scratch area at the top of the heap, the first of the teams'
     * counter slots (after the user's), per user counter slot the team it
     * was created on (0: the world), and what coll registers: its state,
     * which finalize frees, and how a team counter is destroyed. */
    uint64_t coll_off, coll_bytes;
    uint32_t ctr_user;       /* the user's counter slots: [0, ctr_user) */
    uint32_t coll_ctr0;      /* the teams' slots: [coll_ctr0, coll_ctr0 + DMSG_COLL_CTRS) */
    uint64_t *ctr_team;
    void *coll;
    void (*coll_fini)(void *coll);
    dmsg_status (*coll_ctr_destroy)(dmsg_ctr ctr, uint32_t slot);
    /* A layer's word that must leave before this PE waits (dmsg_before_wait,
     * at_fini.h); NULL: none. */
    void (*before_wait)(void);
} dmsg_state;

extern dmsg_state dmsg_g;

/* Marks the start and the end of a call that may wait for other PEs in the
 * job region's wait word (dmsg/boot/job.h), for dmsgrun's report of a job
 * that makes no progress. Two plain stores to a word of this PE's. */
static inline void dmsg_wait_enter(unsigned op)
{
    if (dmsg_g.before_wait)
        dmsg_g.before_wait();
    if (dmsg_g.wait_word) {
        dmsg_g.wait_serial = (uint16_t)(dmsg_g.wait_serial + DMSG_WAIT_SERIAL_STEP);
        atomic_store_explicit(dmsg_g.wait_word, (uint16_t)(dmsg_g.wait_serial | op),
                              memory_order_relaxed);
    }
}

static inline void dmsg_wait_leave(void)
{
    if (dmsg_g.wait_word)
        atomic_store_explicit(dmsg_g.wait_word, dmsg_g.wait_serial, memory_order_relaxed);
}

#define DMSG_REQUIRE_INIT()                                                                     \
    do {                                                                                        \
        if (!dmsg_g.initialized)                                                                \
            return DMSG_FAIL(DMSG_ERR_NOT_INIT, "%s before dmsg_init", __func__);              \
    } while (0)

/* Offset of a symmetric address, checking [p, p+bytes) lies in the segment. */
dmsg_status dmsg_sym_range(const void *p, size_t bytes, size_t *off);

/* Checks that the extent ext of a section based at p lies in the segment. */
dmsg_status dmsg_sym_extent(const void *p, dmsg_extent ext, size_t *off);

dmsg_status dmsg_check_pe(int pe);

/* Resolves a counter handle to its slot; DMSG_CTR_NONE gives *slot = UINT32_MAX
 * when allow_none, else an error. */
dmsg_status dmsg_ctr_slot(dmsg_ctr ctr, int allow_none, uint32_t *slot);

/* Checks a collective's arguments: every PE passes the same (op, arg), and
 * `local` is the PE's own verdict on its other arguments (e.g. a NULL output).
 * Returns on every PE alike: DMSG_ERR_COLLECTIVE when any PE disagrees, else
 * the lowest-ranked PE's non-zero local status, else DMSG_OK. */
dmsg_status dmsg_coll_check(uint64_t op, uint64_t arg, dmsg_status local);

/* DMSG_ERR_ABORTED once the job is ending (its abort flag is up); a PE
 * whose launcher has died ends inside the call (dmsg_boot_aborted). For the
 * loops of a front end that poll without a dmsg wait, such as a lock taken
 * by compare-and-swap: an atomic on shm is an instruction and looks at
 * nothing, so a PE outside dmsgrun's process group (setsid) spun there for
 * ever once dmsgrun was killed. DMSG_OK otherwise, also before dmsg_init.
 * Cheap: a clock read, and a poll of the launcher's pipe each 0.1 s. */
dmsg_status dmsg_job_check(void);

enum {
    DMSG_COLL_ALLOC = 1,
    DMSG_COLL_FREE,
    DMSG_COLL_CTR_CREATE,
    DMSG_COLL_CTR_DESTROY,
    DMSG_COLL_CTR_CREATE_MANY,
    DMSG_COLL_CTR_DESTROY_MANY
};

#endif
