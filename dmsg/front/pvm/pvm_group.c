/* PVM's dynamic groups. Groups are joined and left by single tasks at any
 * time, so they cannot be the core's teams (which are made collectively);
 * their table lives in PE 0's symmetric memory and every task reads and
 * changes it one-sidedly (fetch, deposit, atomics) under a lock word
 * there, so no task has to serve the others (PVM's group server). Barriers
 * count arrivals with atomics on the group's own words; a barrier of every
 * task of the job is the postal barrier. */
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include "dmsg/front/pvm/pvm_impl.h"

#define ENROLL()                                                                                   \
    do {                                                                                           \
        int rc_ = dmsg_pvm_enroll();                                                               \
        if (rc_)                                                                                   \
            return rc_;                                                                            \
    } while (0)

enum { NGROUPS = 64 }; /* groups alive at once in the job */

typedef struct ghdr {
    int64_t used, frozen, arrived, gen;
    char name[PVM_NAME_MAX];
} ghdr;

/* PE 0's table: lock word, then NGROUPS of (header, npes member tids by
 * instance, 0 for a free instance). */
static size_t gbytes(void) { return sizeof(ghdr) + (size_t)dmsg_pvm_g.npes * sizeof(int64_t); }
static char *gbase(int gi)
{
    return (char *)dmsg_pvm_g.groups + sizeof(int64_t) + (size_t)gi * gbytes();
}

int dmsg_pvm_groups_init(void)
{
    size_t bytes = sizeof(int64_t) + NGROUPS * gbytes();
    if (dmsg_alloc(bytes, &dmsg_pvm_g.groups))
        return PvmNoMem;
    memset(dmsg_pvm_g.groups, 0, bytes);
    return PvmOk;
}

static int lock(void)
{
    int64_t me = dmsg_pvm_g.me + 1, zero = 0, old;
    unsigned spins = 0;
    for (;;) {
        if (dmsg_atomic(dmsg_pvm_g.groups, DMSG_AMO_CSWAP, DMSG_TYPE_INT64, &me, &zero, &old, 0))
            return PvmSysErr;
        if (old == 0)
            return PvmOk;
        if (dmsg_pvm_poll())
            return PvmSysErr;
        dmsg_pvm_nap(&spins);
    }
}

static void unlock(void)
{
    int64_t zero = 0;
    dmsg_quiet(); /* the table's changes are complete before the lock goes */
    dmsg_atomic(dmsg_pvm_g.groups, DMSG_AMO_SET, DMSG_TYPE_INT64, &zero, NULL, NULL, 0);
}

/* Reads group gi's header and members (members may be NULL). */
static int load(int gi, ghdr *h, int64_t *members)
{
    if (dmsg_fetch(h, gbase(gi), sizeof *h, 0))
        return PvmSysErr;
    if (members && dmsg_fetch(members, gbase(gi) + sizeof(ghdr),
                              (size_t)dmsg_pvm_g.npes * sizeof(int64_t), 0))
        return PvmSysErr;
    return PvmOk;
}

/* Writes a group's header (and members): `used`, `frozen` and the name,
 * never the barrier's words `arrived` and `gen`, which members in a
 * barrier change by atomics outside the lock (a task joining while others
 * waited in the group's barrier wrote back the count it had read, and the
 * barrier lost an arrival: its members waited for ever); `whole` writes
 * them too, for a group that ends (no member, so no barrier). */
static int store_hdr(int gi, const ghdr *h, const int64_t *members, int whole)
{
    if (whole ? dmsg_deposit(gbase(gi), h, sizeof *h, 0, DMSG_CTR_NONE)
              : dmsg_deposit(gbase(gi), h, offsetof(ghdr, arrived), 0, DMSG_CTR_NONE) ||
                    dmsg_deposit(gbase(gi) + offsetof(ghdr, name), h->name, sizeof h->name, 0,
                                 DMSG_CTR_NONE))
        return PvmSysErr;
    if (members && dmsg_deposit(gbase(gi) + sizeof(ghdr), members,
                                (size_t)dmsg_pvm_g.npes * sizeof(int64_t), 0, DMSG_CTR_NONE))
        return PvmSysErr;
    return PvmOk;
}

static int store(int gi, const ghdr *h, const int64_t *members)
{
    return store_hdr(gi, h, members, 0);
}

/* The group's slot (locked by the caller), -1 if none; with `create`, a
 * free slot becomes the group. */
static int find(const char *name, int create, ghdr *h)
{
    int free_gi = -1;
    for (int gi = 0; gi < NGROUPS; gi++) {
        if (load(gi, h, NULL))
            return -2;
        if (h->used && !strncmp(h->name, name, PVM_NAME_MAX - 1))
            return gi;
        if (!h->used && free_gi < 0)
            free_gi = gi;
    }
    if (!create || free_gi < 0)
        return free_gi < 0 && create ? -3 : -1;
    memset(h, 0, sizeof *h);
    h->used = 1;
    strncpy(h->name, name, PVM_NAME_MAX - 1);
    return free_gi;
}

static int check_name(const char *name)
{
    if (!name || !*name)
        return PvmNullGroup;
    if (strlen(name) >= PVM_NAME_MAX)
        return PvmBadParam;
    return PvmOk;
}

/* A locked look at a group: its members by instance into tids (npes
 * entries, 0 = free). Returns the number of members or an error. */
int dmsg_pvm_group_members(const char *name, int64_t *tids, int *gi_out)
{
    int rc = check_name(name);
    if (rc)
        return rc;
    if ((rc = lock()))
        return rc;
    ghdr h;
    int gi = find(name, 0, &h);
    int n = PvmNoGroup;
    if (gi == -2)
        n = PvmSysErr;
    else if (gi >= 0 && !load(gi, &h, tids)) {
        n = 0;
        for (int i = 0; i < dmsg_pvm_g.npes; i++)
            n += tids[i] != 0;
        if (gi_out)
            *gi_out = gi;
    }
    unlock();
    return n;
}

/* The start of a change to a group's member list: a checked name, a
 * member buffer for npes tasks (the caller frees it) and the table's lock
 * taken. 0, or a PVM error code with nothing held. */
static int begin_change(const char *group, int npes, int64_t **m)
{
    int rc = check_name(group);
    if (rc)
        return rc;
    if (!(*m = calloc((size_t)npes, sizeof **m)))
        return PvmNoMem;
    if ((rc = lock())) {
        free(*m);
        *m = NULL;
    }
    return rc;
}

int pvm_joingroup(char *group)
{
    pvm_state *g = &dmsg_pvm_g;
    ENROLL();
    int64_t *m;
    int rc = begin_change(group, g->npes, &m);
    if (rc)
        return dmsg_pvm_err(rc);
    ghdr h;
    int gi = find(group, 1, &h), inst = -1;
    int64_t me = dmsg_pvm_tid(g->me);
    if (gi < 0)
        rc = gi == -3 ? PvmOutOfRes : PvmSysErr;
    else if (h.used && gi >= 0 && (rc = load(gi, &(ghdr){0}, m)) == 0) {
        for (int i = 0; i < g->npes && !rc; i++)
            if (m[i] == me)
                rc = PvmDupGroup;
        if (!rc && h.frozen)
            rc = PvmDupGroup; /* a frozen group takes nobody new */
        for (int i = 0; i < g->npes && !rc && inst < 0; i++)
            if (m[i] == 0)
                inst = i;
        if (!rc) {
            m[inst] = me;
            rc = store(gi, &h, m);
        }
    }
    unlock();
    free(m);
    return rc ? dmsg_pvm_err(rc) : inst;
}

/* Leaves slot gi (locked). */
static int leave(int gi, ghdr *h, int64_t *m)
{
    int64_t me = dmsg_pvm_tid(dmsg_pvm_g.me);
    int rc = load(gi, h, m), n = 0, was = 0;
    for (int i = 0; i < dmsg_pvm_g.npes && !rc; i++) {
        if (m[i] == me) {
            m[i] = 0;
            was = 1;
        }
        n += m[i] != 0;
    }
    if (rc || !was)
        return rc ? rc : PvmNotInGroup;
    if (n == 0)
        memset(h, 0, sizeof *h); /* the last one out ends the group */
    return store_hdr(gi, h, m, n == 0);
}

int pvm_lvgroup(char *group)
{
    pvm_state *g = &dmsg_pvm_g;
    ENROLL();
    int64_t *m;
    int rc = begin_change(group, g->npes, &m);
    if (rc)
        return dmsg_pvm_err(rc);
    ghdr h;
    int gi = find(group, 0, &h);
    rc = gi == -2 ? PvmSysErr : gi < 0 ? PvmNoGroup : leave(gi, &h, m);
    unlock();
    free(m);
    return rc ? dmsg_pvm_err(rc) : PvmOk;
}

void dmsg_pvm_groups_leave_all(void)
{
    pvm_state *g = &dmsg_pvm_g;
    int64_t *m = calloc((size_t)g->npes, sizeof *m);
    if (!m || lock()) {
        free(m);
        return;
    }
    for (int gi = 0; gi < NGROUPS; gi++) {
        ghdr h;
        if (!load(gi, &h, NULL) && h.used)
            leave(gi, &h, m);
    }
    unlock();
    free(m);
}

static int members(const char *group, int64_t **m, int *gi)
{
    *m = NULL;
    ENROLL();
    *m = calloc((size_t)dmsg_pvm_g.npes, sizeof **m);
    if (!*m)
        return PvmNoMem;
    int n = dmsg_pvm_group_members(group, *m, gi);
    if (n < 0) {
        free(*m);
        *m = NULL;
    }
    return n;
}

int pvm_gsize(char *group)
{
    int64_t *m = NULL;
    int n = members(group, &m, NULL);
    free(m);
    return n < 0 ? dmsg_pvm_err(n) : n;
}

int pvm_getinst(char *group, int tid)
{
    int64_t *m = NULL;
    int n = members(group, &m, NULL);
    if (n < 0)
        return dmsg_pvm_err(n);
    int inst = PvmNotInGroup;
    for (int i = 0; i < dmsg_pvm_g.npes; i++)
        if (m[i] == tid)
            inst = i;
    free(m);
    return inst < 0 ? dmsg_pvm_err(inst) : inst;
}

int pvm_gettid(char *group, int inst)
{
    int64_t *m = NULL;
    int n = members(group, &m, NULL);
    if (n < 0)
        return dmsg_pvm_err(n);
    int tid = inst >= 0 && inst < dmsg_pvm_g.npes && m[inst] ? (int)m[inst] : PvmNoInst;
    free(m);
    return tid < 0 ? dmsg_pvm_err(tid) : tid;
}

int pvm_barrier(char *group, int count)
{
    pvm_state *g = &dmsg_pvm_g;
    int64_t *m = NULL;
    int gi, n = members(group, &m, &gi);
    if (n < 0)
        return dmsg_pvm_err(n);
    int64_t me = dmsg_pvm_tid(g->me);
    int in = 0;
    for (int i = 0; i < g->npes; i++)
        in |= m[i] == me;
    free(m);
    if (!in)
        return dmsg_pvm_err(PvmNotInGroup);
    if (count == -1)
        count = n;
    if (count < 1)
        return dmsg_pvm_err(PvmBadParam);
    if (count == g->npes) /* every task: the postal barrier (it also delivers what is queued) */
        return dmsg_postal_barrier() ? dmsg_pvm_err(PvmSysErr) : PvmOk;
    ghdr *h = (ghdr *)gbase(gi);
    int64_t one = 1, zero = 0, gen, arrived;
    if (dmsg_atomic(&h->gen, DMSG_AMO_FETCH, DMSG_TYPE_INT64, &zero, NULL, &gen, 0) ||
        dmsg_atomic(&h->arrived, DMSG_AMO_FETCH_ADD, DMSG_TYPE_INT64, &one, NULL, &arrived, 0))
        return dmsg_pvm_err(PvmSysErr);
    if (arrived + 1 >= count) {
        /* the last one: reset, then open (waiters look at gen only) */
        if (dmsg_atomic(&h->arrived, DMSG_AMO_SET, DMSG_TYPE_INT64, &zero, NULL, NULL, 0) ||
            dmsg_atomic(&h->gen, DMSG_AMO_ADD, DMSG_TYPE_INT64, &one, NULL, NULL, 0))
            return dmsg_pvm_err(PvmSysErr);
        return PvmOk;
    }
    unsigned spins = 0;
    for (;;) {
        int64_t now;
        if (dmsg_atomic(&h->gen, DMSG_AMO_FETCH, DMSG_TYPE_INT64, &zero, NULL, &now, 0))
            return dmsg_pvm_err(PvmSysErr);
        if (now != gen)
            return PvmOk;
        if (dmsg_pvm_poll()) /* a waiting task moves messages, as postal waits do */
            return dmsg_pvm_err(PvmSysErr);
        dmsg_pvm_nap(&spins);
    }
}

int pvm_freezegroup(char *group, int size)
{
    ENROLL();
    int rc = check_name(group);
    if (rc)
        return dmsg_pvm_err(rc);
    unsigned spins = 0;
    for (;;) {
        int n = pvm_gsize(group);
        if (n < 0 && n != PvmNoGroup)
            return n;
        if (size < 0 || n >= size)
            break;
        if (dmsg_pvm_poll())
            return dmsg_pvm_err(PvmSysErr);
        dmsg_pvm_nap(&spins);
    }
    if ((rc = lock()))
        return dmsg_pvm_err(rc);
    ghdr h;
    int gi = find(group, 0, &h);
    if (gi >= 0) {
        h.frozen = 1;
        rc = store(gi, &h, NULL);
    } else
        rc = gi == -2 ? PvmSysErr : PvmNoGroup;
    unlock();
    return rc ? dmsg_pvm_err(rc) : PvmOk;
}

int pvm_bcast(char *group, int msgtag)
{
    pvm_state *g = &dmsg_pvm_g;
    if (msgtag < 0) {
        ENROLL();
        return dmsg_pvm_err(PvmBadParam);
    }
    int64_t *m = NULL;
    int n = members(group, &m, NULL);
    if (n < 0)
        return dmsg_pvm_err(n);
    pvm_buf *b = dmsg_pvm_buf(g->sbuf);
    int rc = b ? PvmOk : PvmNoBuf;
    for (int i = 0; i < g->npes && !rc; i++)
        if (m[i] && dmsg_pvm_pe((int)m[i]) != g->me) /* never to the caller */
            rc = dmsg_pvm_send_buf(b, dmsg_pvm_pe((int)m[i]), msgtag, g->ctx);
    free(m);
    return rc ? dmsg_pvm_err(rc) : PvmOk;
}
