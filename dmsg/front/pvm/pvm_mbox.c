/* PVM's message mailbox (pvm_putinfo, pvm_recvinfo, pvm_delinfo,
 * pvm_getmboxinfo): a table of named, indexed messages that any task
 * reads and changes one-sidedly, as the group table (pvm_group.c): it
 * lives in PE 0's symmetric memory with a pool for the messages' bytes,
 * under a lock word, so no task serves the others (PVM's daemon did). A
 * call takes the lock, fetches the table, changes it locally, deposits it
 * back with the message bytes, completes them (dmsg_quiet) and lets the
 * lock go. Sizes are fixed at enrollment (collective): MBOX_ENTRIES
 * entries, MBOX_POOL bytes of messages in all. A task that waits for an
 * entry (PvmMboxWaitForInfo) marks itself waiting in the table and sleeps
 * in a postal receive; the next pvm_putinfo wakes every waiting task with a
 * message in a context of its own, so the wait is postal's (no polling,
 * and virtual time on sim). */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include "dmsg/front/pvm/pvm_impl.h"

enum { MBOX_ENTRIES = 128, MBOX_POOL = 256 * 1024, MBOX_NAME = 64 };

typedef struct mentry {
    int64_t used;
    int64_t off;      /* its bytes in the pool */
    int32_t index, owner, flags, len; /* owner: its tid, 0 once it has exited */
    int64_t seq;      /* order of the classes' first entries (pvm_getmboxinfo) */
    char name[MBOX_NAME];
} mentry;

typedef struct mtable {
    int64_t lock;
    int64_t seq;
    mentry e[MBOX_ENTRIES];
} mtable;

static mtable *home; /* symmetric: the table (its home is PE 0), the pool, then
                        an int64 per task: it waits for an entry */
static mtable tab;   /* this task's copy while it holds the lock */

static char *pool(void) { return (char *)home + sizeof(mtable); }
static int64_t *waiting(void) { return (int64_t *)(pool() + MBOX_POOL); }

int dmsg_pvm_mbox_init(void)
{
    size_t bytes = sizeof(mtable) + MBOX_POOL + (size_t)dmsg_pvm_g.npes * sizeof(int64_t);
    if (dmsg_alloc(bytes, (void **)&home))
        return PvmNoMem;
    memset(home, 0, sizeof(mtable));
    memset(waiting(), 0, (size_t)dmsg_pvm_g.npes * sizeof(int64_t));
    return PvmOk;
}

/* After a put (lock held): takes every waiting mark, so that the caller
 * wakes those tasks once the lock is let go; their number. */
static int take_waiters(int *pes)
{
    int n = 0;
    for (int p = 0; p < dmsg_pvm_g.npes; p++) {
        int64_t zero = 0, was;
        if (dmsg_atomic(&waiting()[p], DMSG_AMO_SWAP, DMSG_TYPE_INT64, &zero, NULL, &was, 0))
            break;
        if (was)
            pes[n++] = p;
    }
    return n;
}

/* Takes the lock and fetches the table. */
static int take(void)
{
    int64_t me = dmsg_pvm_g.me + 1, zero = 0, old;
    unsigned spins = 0;
    for (;;) {
        if (dmsg_atomic(&home->lock, DMSG_AMO_CSWAP, DMSG_TYPE_INT64, &me, &zero, &old, 0))
            return PvmSysErr;
        if (old == 0)
            break;
        if (dmsg_pvm_poll())
            return PvmSysErr;
        dmsg_pvm_nap(&spins);
    }
    if (dmsg_fetch((char *)&tab + sizeof tab.lock, (char *)home + sizeof tab.lock,
                   sizeof tab - sizeof tab.lock, 0)) {
        int64_t z = 0;
        dmsg_atomic(&home->lock, DMSG_AMO_SET, DMSG_TYPE_INT64, &z, NULL, NULL, 0);
        return PvmSysErr;
    }
    return PvmOk;
}

/* Deposits the table back (changed: 1) and lets the lock go. */
static int give(int changed)
{
    int rc = PvmOk;
    if (changed && dmsg_deposit((char *)home + sizeof tab.lock, (char *)&tab + sizeof tab.lock,
                                sizeof tab - sizeof tab.lock, 0, DMSG_CTR_NONE))
        rc = PvmSysErr;
    dmsg_quiet(); /* the table and the bytes are complete before the lock goes */
    int64_t zero = 0;
    dmsg_atomic(&home->lock, DMSG_AMO_SET, DMSG_TYPE_INT64, &zero, NULL, NULL, 0);
    return rc;
}

static mentry *find(const char *name, int index)
{
    for (int i = 0; i < MBOX_ENTRIES; i++)
        if (tab.e[i].used && tab.e[i].index == index && !strcmp(tab.e[i].name, name))
            return &tab.e[i];
    return NULL;
}

/* The first entry of name with an index >= index (PvmMboxFirstAvail). */
static mentry *find_from(const char *name, int index)
{
    mentry *best = NULL;
    for (int i = 0; i < MBOX_ENTRIES; i++) {
        mentry *e = &tab.e[i];
        if (e->used && e->index >= index && !strcmp(e->name, name) &&
            (!best || e->index < best->index))
            best = e;
    }
    return best;
}

/* First fit in the pool for len bytes, or -1. */
static int64_t place(size_t len)
{
    int64_t at = 0;
    for (;;) {
        int64_t next = -1;
        for (int i = 0; i < MBOX_ENTRIES; i++) {
            mentry *e = &tab.e[i];
            if (e->used && e->off < at + (int64_t)len && e->off + e->len > at)
                next = e->off + e->len > next ? e->off + e->len : next; /* overlaps: go past it */
        }
        if (next < 0)
            return at + (int64_t)len <= MBOX_POOL ? at : -1;
        at = next;
    }
}

/* May this task change (overwrite, delete) e? Its owner, or anyone for an
 * overwritable entry. */
static int may_change(const mentry *e)
{
    return e->owner == dmsg_pvm_tid(dmsg_pvm_g.me) || (e->flags & PvmMboxOverWritable);
}

static int check_name(const char *name)
{
    return name && *name && strlen(name) < MBOX_NAME ? PvmOk : PvmBadParam;
}

/* pvm_putinfo, and with exact >= 0 a new entry at that index (pvm_insert:
 * PvmDupEntry if it is taken). */
static int put(char *name, int bufid, int flags, int exact)
{
    pvm_state *g = &dmsg_pvm_g;
    int rc = dmsg_pvm_enroll();
    if (rc)
        return rc;
    if (check_name(name) || flags < 0)
        return dmsg_pvm_err(PvmBadParam);
    if (bufid <= 0)
        return dmsg_pvm_err(PvmBadParam);
    if (!dmsg_pvm_buf(bufid))
        return dmsg_pvm_err(PvmNoSuchBuf);
    void *body;
    size_t len;
    if ((rc = dmsg_pvm_body(bufid, &body, &len)))
        return dmsg_pvm_err(rc);
    if (len > MBOX_POOL) {
        free(body);
        return dmsg_pvm_err(PvmNoMem);
    }
    int direct = flags >> 10; /* PvmMboxDirectIndex(i): i above the flag bits */
    flags &= (1 << 10) - 1;
    if ((rc = take())) {
        free(body);
        return dmsg_pvm_err(rc);
    }
    int me = dmsg_pvm_tid(g->me), index = 0;
    mentry *old = NULL;
    if (exact >= 0) {
        index = exact;
        if (find(name, exact))
            rc = PvmDupEntry;
    } else if (direct) {
        /* replace the entry at that index: this task's own, or an
         * overwritable one (real PVM lets the owner do it) */
        if (!(old = find(name, direct)))
            rc = PvmNotFound;
        else if (!may_change(old))
            rc = PvmDenied;
        index = direct;
    } else if (flags & PvmMboxMultiInstance) {
        while (find(name, index)) /* the lowest free index */
            index++;
    } else if ((old = find(name, 0)) && !may_change(old)) {
        rc = PvmExists; /* another task's, locked */
    }
    mentry *e = old;
    if (!rc && !e)
        for (int i = 0; i < MBOX_ENTRIES && !e; i++)
            if (!tab.e[i].used)
                e = &tab.e[i];
    if (!rc && !e)
        rc = PvmOutOfRes;
    int64_t at = -1;
    if (!rc) {
        int64_t keep = e->used; /* the old bytes go first: their room may take the new */
        e->used = 0;
        if ((at = place(len)) < 0) {
            e->used = keep;
            rc = PvmNoMem;
        }
    }
    if (!rc && len && dmsg_deposit(pool() + at, body, len, 0, DMSG_CTR_NONE))
        rc = PvmSysErr;
    if (!rc) {
        int64_t seq = old ? e->seq : ++tab.seq;
        for (int i = 0; i < MBOX_ENTRIES && !old; i++) /* a class keeps its place */
            if (tab.e[i].used && !strcmp(tab.e[i].name, name) && tab.e[i].seq < seq)
                seq = tab.e[i].seq;
        *e = (mentry){.used = 1, .off = at, .index = index, .owner = me, .flags = flags,
                      .len = (int32_t)len, .seq = seq};
        strcpy(e->name, name);
    }
    int *wake = rc ? NULL : malloc((size_t)g->npes * sizeof *wake), nwake = 0;
    if (wake)
        nwake = take_waiters(wake);
    int grc = give(!rc);
    free(body);
    for (int i = 0; i < nwake; i++) /* each looks again (maybe for another name) */
        dmsg_pvm_send_bytes(wake[i], 0, PVM_CTX_MBOX, NULL, 0);
    free(wake);
    if (!rc)
        rc = grc;
    return rc ? dmsg_pvm_err(rc) : index;
}

int pvm_putinfo(char *name, int bufid, int flags)
{
    return put(name, bufid, flags, -1);
}

/* pvm_recvinfo; activate 0 (pvm_lookup): the new buffer is not made the
 * active receive buffer; *found: the entry's index. */
static int get(char *name, int index, int flags, int activate, int *found)
{
    pvm_state *g = &dmsg_pvm_g;
    int rc = dmsg_pvm_enroll();
    if (rc)
        return rc;
    if (check_name(name) || index < 0 || flags < 0)
        return dmsg_pvm_err(PvmBadParam);
    for (;;) {
        if ((rc = take()))
            return dmsg_pvm_err(rc);
        mentry *e = flags & PvmMboxFirstAvail ? find_from(name, index) : find(name, index);
        if (!e) {
            int64_t one = 1;
            int wait = (flags & PvmMboxWaitForInfo) != 0;
            if (wait && dmsg_atomic(&waiting()[g->me], DMSG_AMO_SET, DMSG_TYPE_INT64, &one, NULL,
                                    NULL, 0))
                wait = -1;
            give(0);
            if (!wait)
                return dmsg_pvm_err(PvmNotFound);
            /* until the next put wakes this task (a kill notice ends it) */
            char none;
            size_t got;
            dmsg_postal_info info;
            if (wait < 0 || dmsg_pvm_recv_bytes(-1, -1, PVM_CTX_MBOX, &none, 0, &got, &info))
                return dmsg_pvm_err(PvmSysErr);
            continue;
        }
        int del = (flags & PvmMboxReadAndDelete) != 0;
        if (del && !may_change(e)) {
            give(0);
            return dmsg_pvm_err(PvmDenied);
        }
        size_t len = (size_t)e->len;
        char *d = malloc(len ? len : 1);
        int id = d ? dmsg_pvm_newbuf(PvmDataRaw) : PvmNoMem;
        if (id < 0 || (len && dmsg_fetch(d, pool() + e->off, len, 0))) {
            give(0);
            free(d);
            if (id > 0)
                dmsg_pvm_dropbuf(id);
            return dmsg_pvm_err(id < 0 ? id : PvmSysErr);
        }
        int owner = dmsg_pvm_pe(e->owner);
        *found = e->index;
        if (del)
            e->used = 0;
        if ((rc = give(del))) {
            free(d);
            dmsg_pvm_dropbuf(id);
            return dmsg_pvm_err(rc);
        }
        /* a received message from its owner (this task once the owner has
         * gone), tag 0, made the active receive buffer as PVM does; the one
         * that was active stays (not freed) */
        g->bufs[id] = (pvm_buf){.used = 1, .encoding = PvmDataRaw, .recvd = 1, .data = d,
                                .len = len, .cap = len, .src = owner < 0 ? g->me : owner,
                                .dst = dmsg_pvm_tid(g->me)};
        if (activate)
            g->rbuf = id;
        return id;
    }
}

int pvm_recvinfo(char *name, int index, int flags)
{
    int found;
    return get(name, index, flags, 1, &found);
}

int pvm_delinfo(char *name, int index, int flags)
{
    (void)flags; /* PVM defines none */
    int rc = dmsg_pvm_enroll();
    if (rc)
        return rc;
    if (check_name(name) || index < 0)
        return dmsg_pvm_err(PvmBadParam);
    if ((rc = take()))
        return dmsg_pvm_err(rc);
    mentry *e = find(name, index);
    if (!e)
        rc = PvmNotFound;
    else if (!may_change(e))
        rc = PvmDenied;
    else
        e->used = 0;
    int grc = give(!rc);
    if (!rc)
        rc = grc;
    return rc ? dmsg_pvm_err(rc) : PvmOk;
}

/* PVM 3.3's names, as real PVM 3.4.6 maps them: persistent instances. */
int pvm_insert(char *name, int index, int bufid)
{
    if (index < -1)
        return dmsg_pvm_err(PvmBadParam);
    return put(name, bufid, PvmMboxPersistent | PvmMboxMultiInstance, index);
}

int pvm_lookup(char *name, int index, int *bufid)
{
    int found = -1, rc = dmsg_pvm_enroll();
    if (rc)
        return rc;
    if (index < -1 || !bufid)
        return dmsg_pvm_err(PvmBadParam);
    int id = get(name, index < 0 ? 0 : index, index < 0 ? PvmMboxFirstAvail : 0, 0, &found);
    if (id < 0)
        return id;
    *bufid = id;
    return found;
}

int pvm_delete(char *name, int index)
{
    int rc = pvm_delinfo(name, index, 0);
    return rc < 0 ? rc : index;
}

static struct pvmmboxinfo *classes;
static int nclasses;

static void free_classes(void)
{
    for (int i = 0; i < nclasses; i++) {
        free(classes[i].mi_name);
        free(classes[i].mi_indices);
        free(classes[i].mi_owners);
        free(classes[i].mi_flags);
    }
    free(classes);
    classes = NULL;
    nclasses = 0;
}

static int by_seq_index(const void *a, const void *b)
{
    const mentry *x = *(const mentry *const *)a, *y = *(const mentry *const *)b;
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

int pvm_getmboxinfo(char *pattern, int *nclassesp, struct pvmmboxinfo **classesp)
{
    int rc = dmsg_pvm_enroll();
    if (rc)
        return rc;
    if (!nclassesp || !classesp)
        return dmsg_pvm_err(PvmBadParam);
    const char *pat = pattern && *pattern ? pattern : "*";
    if ((rc = take()))
        return dmsg_pvm_err(rc);
    give(0);
    free_classes();
    mentry *sel[MBOX_ENTRIES];
    int n = 0;
    for (int i = 0; i < MBOX_ENTRIES; i++)
        if (tab.e[i].used && fnmatch(pat, tab.e[i].name, 0) == 0)
            sel[n++] = &tab.e[i];
    qsort(sel, (size_t)n, sizeof *sel, by_seq_index);
    if (n && !(classes = calloc((size_t)n, sizeof *classes)))
        return dmsg_pvm_err(PvmNoMem);
    for (int i = 0; i < n;) {
        int k = i;
        while (k < n && !strcmp(sel[k]->name, sel[i]->name))
            k++;
        struct pvmmboxinfo *c = &classes[nclasses++];
        c->mi_name = strdup(sel[i]->name);
        c->mi_indices = malloc((size_t)(k - i) * sizeof(int));
        c->mi_owners = malloc((size_t)(k - i) * sizeof(int));
        c->mi_flags = malloc((size_t)(k - i) * sizeof(int));
        if (!c->mi_name || !c->mi_indices || !c->mi_owners || !c->mi_flags) {
            free_classes();
            return dmsg_pvm_err(PvmNoMem);
        }
        c->mi_nentries = k - i;
        for (int j = i; j < k; j++) {
            c->mi_indices[j - i] = sel[j]->index;
            c->mi_owners[j - i] = sel[j]->owner;
            c->mi_flags[j - i] = sel[j]->flags;
        }
        i = k;
    }
    *nclassesp = nclasses;
    *classesp = classes;
    return PvmOk;
}

void dmsg_pvm_mbox_exit(void)
{
    if (!home || take())
        return;
    int me = dmsg_pvm_tid(dmsg_pvm_g.me), changed = 0;
    for (int i = 0; i < MBOX_ENTRIES; i++) {
        mentry *e = &tab.e[i];
        if (!e->used || e->owner != me)
            continue;
        if (e->flags & PvmMboxPersistent)
            e->owner = 0; /* stays, with no owner (as PVM) */
        else
            e->used = 0;
        changed = 1;
    }
    give(changed);
    free_classes();
}
