/* PVM tasks on dmsg PEs: enrolling, tids, the launch's programs (dmsgrun's
 * MPMD blocks), pvm_spawn handing out tasks the launch started, leaving,
 * options, errors, and the calls that are out of scope. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "dmsg/front/pvm/pvm_impl.h"

pvm_state dmsg_pvm_g;

static int own_dmsg;     /* this library started dmsg (and ends it) */
static char (*names)[PVM_NAME_MAX];
static int *pids;
static int64_t *hosts; /* slot[3] of every task */
static struct pvmhostinfo host;
static char hostname[256];
static struct pvmtaskinfo *tinfo;

int dmsg_pvm_err(int code)
{
    dmsg_pvm_g.last_err = code;
    if (code < 0 && dmsg_pvm_g.autoerr)
        fprintf(stderr, "libpvm [t%x]: error %d\n", dmsg_pvm_tid(dmsg_pvm_g.me), code);
    return code;
}

int dmsg_pvm_from_status(int st)
{
    switch (st) {
    case DMSG_OK: return PvmOk;
    case DMSG_ERR_NOMEM: return PvmNoMem;
    case DMSG_ERR_ARG:
    case DMSG_ERR_NULL:
    case DMSG_ERR_PE: return PvmBadParam;
    case DMSG_ERR_OVERFLOW: return PvmOverflow;
    case DMSG_ERR_SIZE: return PvmNoData;
    default: return PvmSysErr;
    }
}

int dmsg_pvm_pe(int tid)
{
    pvm_state *g = &dmsg_pvm_g;
    if (tid < PVM_TID_BASE || tid - PVM_TID_BASE >= g->npes)
        return -1;
    return tid - PVM_TID_BASE;
}

size_t dmsg_pvm_type_size(int type)
{
    switch (type) {
    case PVM_STR:
    case PVM_BYTE: return 1;
    case PVM_SHORT:
    case PVM_USHORT: return sizeof(short);
    case PVM_INT:
    case PVM_UINT: return sizeof(int);
    case PVM_FLOAT: return sizeof(float);
    case PVM_CPLX: return 2 * sizeof(float);
    case PVM_DOUBLE: return sizeof(double);
    case PVM_DCPLX: return 2 * sizeof(double);
    case PVM_LONG:
    case PVM_ULONG: return sizeof(long);
    default: return 0;
    }
}

int dmsg_pvm_poll(void)
{
    int found;
    int st = dmsg_postal_probe(DMSG_POSTAL_ANY, DMSG_POSTAL_ANY, &found, NULL);
    dmsg_pvm_check_kill(); /* no polling wait holds the group lock */
    return st;
}

void dmsg_pvm_nap(unsigned *spins)
{
    /* A polling wait spins briefly, then sleeps, so that a loaded host
     * (more tasks than cores) runs the tasks it waits for. */
    if ((*spins)++ < 64)
        return;
    struct timespec ts = {0, *spins < 1000 ? 20000 : 200000};
    nanosleep(&ts, NULL);
}

/* Seconds a wait outside the postal layer may take (DMSG_TIMEOUT, 0: no
 * limit), as the postal waits are bounded. */
static double wait_limit(void)
{
    const char *s = getenv("DMSG_TIMEOUT");
    double v = s && *s ? strtod(s, NULL) : 0;
    return v > 0 ? v : 1e30;
}

/* This host, as a number the tasks compare (FNV-1a of the node name): a
 * pid means something only on its own host. Never 0 (0: unknown). */
static int64_t host_hash(void)
{
    struct utsname u;
    uint64_t h = 1469598103934665603ull;
    if (uname(&u) == 0)
        for (const char *c = u.nodename; *c; c++)
            h = (h ^ (unsigned char)*c) * 1099511628211ull;
    return (int64_t)(h | 1);
}

/* The launch's programs: dmsgrun's MPMD form sets DMSG_APPNUM (this PE's
 * program block) and DMSG_APP_SIZES (the PEs of each block, comma
 * separated); without them the job is one program. */
static int read_apps(pvm_state *g)
{
    const char *num = getenv("DMSG_APPNUM"), *sizes = getenv("DMSG_APP_SIZES");
    int n = 1;
    for (const char *s = sizes; s && *s; s++)
        n += *s == ',';
    if (!num || !sizes)
        n = 1;
    g->app_first = calloc((size_t)n + 1, sizeof *g->app_first);
    if (!g->app_first)
        return PvmNoMem;
    g->napps = n;
    g->app = 0;
    g->app_first[1] = g->npes;
    if (n > 1 || (num && sizes)) {
        const char *s = sizes;
        for (int i = 0; i < n; i++) {
            char *end;
            long v = strtol(s, &end, 10);
            if (v < 1 || (*end && *end != ','))
                return PvmSysErr;
            g->app_first[i + 1] = g->app_first[i] + (int)v;
            s = *end ? end + 1 : end;
        }
        g->app = atoi(num);
        if (g->app_first[n] != g->npes || g->app < 0 || g->app >= n)
            return PvmSysErr;
    }
    g->nsibs = g->app_first[g->app + 1] - g->app_first[g->app];
    g->sibs = malloc((size_t)g->nsibs * sizeof *g->sibs);
    if (!g->sibs)
        return PvmNoMem;
    for (int i = 0; i < g->nsibs; i++)
        g->sibs[i] = dmsg_pvm_tid(g->app_first[g->app] + i);
    return PvmOk;
}

static int app_of(int pe)
{
    pvm_state *g = &dmsg_pvm_g;
    int a = 0;
    while (a + 1 < g->napps && pe >= g->app_first[a + 1])
        a++;
    return a;
}

static void at_exit(void)
{
    pvm_state *g = &dmsg_pvm_g;
    if (!g->enrolled)
        return;
    if (!g->left)
        pvm_exit();
    /* Output first: a task that exits with a failure makes dmsgrun stop the
     * others, possibly before their exit would have flushed it. */
    fflush(NULL);
    dmsg_postal_finalize();
    if (own_dmsg)
        dmsg_finalize();
    g->enrolled = 0;
}

extern int dmsg_pvm_groups_init(void);
static int await_claim(pvm_state *g);

int dmsg_pvm_enroll(void)
{
    pvm_state *g = &dmsg_pvm_g;
    if (g->enrolled) {
        if (g->left)
            return dmsg_pvm_err(PvmSysErr);
        dmsg_pvm_check_kill(); /* every PVM call starts here */
        return PvmOk;
    }
    int st;
    if (dmsg_pe() < 0) {
        if ((st = dmsg_init()))
            return dmsg_pvm_err(PvmSysErr);
        own_dmsg = 1;
    }
    st = dmsg_postal_init();
    if (st && st != DMSG_ERR_STATE)
        return dmsg_pvm_err(PvmSysErr);
    g->me = dmsg_pe();
    g->npes = dmsg_npes();
    int rc = read_apps(g);
    if (rc)
        return dmsg_pvm_err(rc);
    size_t words = PVM_SLOT_WORDS + PVM_NAME_MAX / 8;
    if (dmsg_alloc(words * sizeof(int64_t), (void **)&g->slot))
        return dmsg_pvm_err(PvmNoMem);
    memset(g->slot, 0, words * sizeof(int64_t));
    g->slot[0] = g->app == 0 ? -1 : 0; /* the first program's tasks are nobody's children */
    g->slot[1] = getpid();
    g->slot[3] = host_hash();
    snprintf((char *)&g->slot[PVM_SLOT_WORDS], PVM_NAME_MAX, "%s", program_invocation_short_name);
    if ((rc = dmsg_pvm_groups_init()) || (rc = dmsg_pvm_notify_init()) ||
        (rc = dmsg_pvm_mbox_init()))
        return dmsg_pvm_err(rc);
    if (dmsg_sync())
        return dmsg_pvm_err(PvmSysErr);
    names = calloc((size_t)g->npes, sizeof *names);
    pids = calloc((size_t)g->npes, sizeof *pids);
    hosts = calloc((size_t)g->npes, sizeof *hosts);
    if (!names || !pids || !hosts)
        return dmsg_pvm_err(PvmNoMem);
    for (int p = 0; p < g->npes; p++) {
        int64_t s[PVM_SLOT_WORDS + PVM_NAME_MAX / 8];
        if (dmsg_fetch(s, g->slot, sizeof s, p))
            return dmsg_pvm_err(PvmSysErr);
        pids[p] = (int)s[1];
        hosts[p] = s[3];
        memcpy(names[p], &s[PVM_SLOT_WORDS], PVM_NAME_MAX);
        names[p][PVM_NAME_MAX - 1] = 0;
    }
    g->ctx = 0;
    g->route = PvmAllowDirect;
    g->fragsize = 4096;
    g->enrolled = 1;
    atexit(at_exit);
    if (g->app > 0 && (rc = await_claim(g))) {
        g->left = 1; /* never handed out: no PVM task (its calls fail from now on) */
        return dmsg_pvm_err(rc);
    }
    return PvmOk;
}

#define ENROLL()                                                                                   \
    do {                                                                                           \
        int rc_ = dmsg_pvm_enroll();                                                               \
        if (rc_)                                                                                   \
            return rc_;                                                                            \
    } while (0)

int pvm_mytid(void)
{
    ENROLL();
    return dmsg_pvm_tid(dmsg_pvm_g.me);
}

/* The claim word (slot[0]) of a task of a later program block: 0 until a
 * pvm_spawn hands it out, then the spawner's tid (low 32 bits) and the
 * spawner's context (high 32 bits), set by one compare-and-swap so that
 * both arrive together. -1 for the first block's tasks (nobody's child). */
static int64_t claim_word(int64_t tid, int64_t ctx) { return (ctx << 32) | tid; }

/* A task of a later block exists for PVM once it is handed out: it waits
 * for that (moving messages, at most DMSG_TIMEOUT) and takes its parent's
 * context, as a spawned PVM task inherits it. */
static int await_claim(pvm_state *g)
{
    double end = dmsg_wtime() + wait_limit();
    unsigned spins = 0;
    for (;;) {
        int64_t v, zero = 0;
        if (dmsg_atomic(&g->slot[0], DMSG_AMO_FETCH, DMSG_TYPE_INT64, &zero, NULL, &v, g->me))
            return PvmSysErr;
        if (v != 0) {
            g->parent = (int)(v & 0x7fffffff);
            g->ctx = (int)(v >> 32);
            return PvmOk;
        }
        if (dmsg_pvm_poll() || dmsg_wtime() > end)
            return PvmSysErr;
        dmsg_pvm_nap(&spins);
    }
}

int pvm_parent(void)
{
    pvm_state *g = &dmsg_pvm_g;
    ENROLL();
    return g->parent > 0 ? g->parent : dmsg_pvm_err(PvmNoParent);
}

int pvm_siblings(int **tids)
{
    ENROLL();
    if (!tids)
        return dmsg_pvm_err(PvmBadParam);
    *tids = dmsg_pvm_g.sibs;
    return dmsg_pvm_g.nsibs;
}

extern void dmsg_pvm_groups_leave_all(void);

int pvm_exit(void)
{
    pvm_state *g = &dmsg_pvm_g;
    if (!g->enrolled || g->left)
        return PvmOk;
    dmsg_pvm_groups_leave_all();
    dmsg_pvm_mbox_exit(); /* before the notices: a watcher then finds its entries gone */
    dmsg_pvm_notify_exit();
    dmsg_postal_flush();
    for (int i = 1; i < g->nbufs; i++)
        if (g->bufs[i].used)
            dmsg_pvm_dropbuf(i);
    free(g->bufs);
    g->bufs = NULL;
    g->nbufs = 0;
    g->sbuf = g->rbuf = 0;
    g->left = 1;
    return PvmOk;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

int pvm_spawn(char *task, char **argv, int flag, char *where, int ntask, int *tids)
{
    pvm_state *g = &dmsg_pvm_g;
    (void)argv, (void)flag, (void)where;
    ENROLL();
    if (!task || !*task || ntask < 1 || !tids)
        return dmsg_pvm_err(PvmBadParam);
    const char *want = base_name(task);
    int got = 0, exists = 0;
    int64_t me = claim_word(dmsg_pvm_tid(g->me), g->ctx);
    for (int p = 0; p < g->npes && got < ntask; p++) {
        if (app_of(p) == 0 || strncmp(names[p], want, PVM_NAME_MAX - 1) != 0)
            continue;
        exists = 1;
        int64_t zero = 0, old;
        if (dmsg_atomic(&g->slot[0], DMSG_AMO_CSWAP, DMSG_TYPE_INT64, &me, &zero, &old, p))
            return dmsg_pvm_err(PvmSysErr);
        if (old == 0)
            tids[got++] = dmsg_pvm_tid(p);
    }
    for (int i = got; i < ntask; i++)
        tids[i] = exists ? PvmOutOfRes : PvmNoFile;
    if (got < ntask)
        dmsg_pvm_err(exists ? PvmOutOfRes : PvmNoFile);
    return got;
}

int pvm_kill(int tid)
{
    pvm_state *g = &dmsg_pvm_g;
    ENROLL();
    int pe = dmsg_pvm_pe(tid);
    if (pe < 0)
        return dmsg_pvm_err(PvmBadParam);
    if (pe == g->me)
        dmsg_pvm_die();
    /* The task ends at its next PVM call, or in the wait it is in: its kill
     * word, which every call and polling wait looks at, and a notice that
     * wakes a receive (docs/baselines.md). Not at once, by a signal as
     * PVM's daemon sends: the task may be inside a PVM call or holding
     * the group lock, and its exit ends the job's shared state
     * collectively, which needs it at a clean point. */
    int64_t one = 1;
    if (dmsg_atomic(&g->slot[2], DMSG_AMO_SET, DMSG_TYPE_INT64, &one, NULL, NULL, pe))
        return dmsg_pvm_err(PvmSysErr);
    int rc = dmsg_pvm_send_bytes(pe, 0, PVM_CTX_KILL, NULL, 0);
    return rc ? dmsg_pvm_err(rc) : PvmOk;
}

/* Set once the task is ending: the PVM calls of its exit (pvm_exit's
 * group leaving) must not end it a second time. */
static int dying;

void dmsg_pvm_die(void)
{
    /* as a task that PVM kills: no further PVM work; the job's shared state
     * still ends collectively at exit */
    dying = 1;
    exit(0);
}

void dmsg_pvm_check_kill(void)
{
    pvm_state *g = &dmsg_pvm_g;
    /* Another PE's atomic set it: a relaxed look at this PE's own word is
     * enough, since a late sight only delays the end to the next call. */
    if (!dying && g->slot && __atomic_load_n(&g->slot[2], __ATOMIC_RELAXED))
        dmsg_pvm_die();
}

int pvm_tidtohost(int tid)
{
    ENROLL();
    return dmsg_pvm_pe(tid) < 0 ? dmsg_pvm_err(PvmBadParam) : PVM_HOST_TID;
}

int pvm_config(int *nhost, int *narch, struct pvmhostinfo **hostp)
{
    ENROLL();
    if (!host.hi_name) {
        if (gethostname(hostname, sizeof hostname - 1))
            snprintf(hostname, sizeof hostname, "localhost");
        host.hi_tid = PVM_HOST_TID;
        host.hi_name = hostname;
        host.hi_arch = sizeof(long) == 8 ? "LINUX64" : "LINUX";
        host.hi_speed = 1000;
        host.hi_dsig = PVM_DSIG;
    }
    if (nhost)
        *nhost = 1;
    if (narch)
        *narch = 1;
    if (hostp)
        *hostp = &host;
    return PvmOk;
}

int pvm_tasks(int where, int *ntask, struct pvmtaskinfo **taskp)
{
    pvm_state *g = &dmsg_pvm_g;
    ENROLL();
    int one = dmsg_pvm_pe(where);
    if (where != 0 && where != PVM_HOST_TID && one < 0)
        return dmsg_pvm_err(PvmBadParam);
    if (!tinfo && !(tinfo = calloc((size_t)g->npes, sizeof *tinfo)))
        return dmsg_pvm_err(PvmNoMem);
    int n = 0;
    for (int p = 0; p < g->npes; p++) {
        if (one >= 0 && p != one)
            continue;
        int64_t parent, zero = 0;
        if (dmsg_atomic(&g->slot[0], DMSG_AMO_FETCH, DMSG_TYPE_INT64, &zero, NULL, &parent, p))
            return dmsg_pvm_err(PvmSysErr);
        tinfo[n++] = (struct pvmtaskinfo){.ti_tid = dmsg_pvm_tid(p),
                                          .ti_ptid = parent > 0 ? (int)(parent & 0x7fffffff) : 0,
                                          .ti_host = PVM_HOST_TID,
                                          .ti_a_out = names[p],
                                          .ti_pid = pids[p]};
    }
    if (ntask)
        *ntask = n;
    if (taskp)
        *taskp = tinfo;
    return PvmOk;
}

int pvm_sendsig(int tid, int signum)
{
    pvm_state *g = &dmsg_pvm_g;
    ENROLL();
    int p = dmsg_pvm_pe(tid);
    if (p < 0 || signum < 0 || signum >= NSIG)
        return dmsg_pvm_err(PvmBadParam);
    /* a task of another host (ofi across hosts): its pid is not ours to signal */
    if (hosts[p] != hosts[g->me])
        return dmsg_pvm_err(PvmNotImpl);
    if (kill(pids[p], signum))
        return dmsg_pvm_err(errno == EINVAL ? PvmBadParam : PvmSysErr);
    return PvmOk;
}

int pvm_archcode(char *arch)
{
    ENROLL();
    if (!arch)
        return dmsg_pvm_err(PvmBadParam);
    struct pvmhostinfo *hi;
    pvm_config(NULL, NULL, &hi);
    /* the data signature of an architecture of the machine: this host's only */
    return strcmp(arch, hi->hi_arch) ? dmsg_pvm_err(PvmNotFound) : hi->hi_dsig;
}

int pvm_hostsync(int hosttid, struct timeval *clk, struct timeval *delta)
{
    ENROLL();
    if (hosttid != PVM_HOST_TID && dmsg_pvm_pe(hosttid) < 0)
        return dmsg_pvm_err(PvmNoHost);
    struct timeval now;
    gettimeofday(&now, NULL);
    if (clk)
        *clk = now;
    if (delta)
        *delta = (struct timeval){0, 0}; /* one host: one clock */
    return PvmOk;
}

/* PVM_EXPORT: the names of environment variables a spawned task gets,
 * separated by ':'. */
static int export_edit(const char *name, int add)
{
    ENROLL();
    if (!name || !*name || strchr(name, ':'))
        return dmsg_pvm_err(PvmBadParam);
    const char *old = getenv("PVM_EXPORT");
    size_t n = strlen(name), cap = (old ? strlen(old) : 0) + n + 2;
    char *out = malloc(cap);
    if (!out)
        return dmsg_pvm_err(PvmNoMem);
    out[0] = 0;
    int had = 0;
    for (const char *p = old ? old : ""; *p;) {
        const char *e = strchr(p, ':');
        size_t k = e ? (size_t)(e - p) : strlen(p);
        int same = k == n && !strncmp(p, name, n);
        had |= same;
        if (k && !(same && !add)) /* empty names dropped, the name itself when removing */
            snprintf(out + strlen(out), cap - strlen(out), "%s%.*s", *out ? ":" : "", (int)k, p);
        p += k + (e != NULL);
    }
    if (add && !had)
        snprintf(out + strlen(out), cap - strlen(out), "%s%s", *out ? ":" : "", name);
    int rc = setenv("PVM_EXPORT", out, 1) ? PvmNoMem : PvmOk;
    free(out);
    return rc ? dmsg_pvm_err(rc) : PvmOk;
}

int pvm_export(char *name) { return export_edit(name, 1); }
int pvm_unexport(char *name) { return export_edit(name, 0); }

int pvm_getnoresets(int **tids, int *ntids)
{
    static int none;
    ENROLL();
    /* PvmNoReset is not an option here (pvm_setopt refuses it): no task has it */
    if (tids)
        *tids = &none;
    if (ntids)
        *ntids = 0;
    return PvmOk;
}

int pvm_pstat(int tid)
{
    ENROLL();
    return dmsg_pvm_pe(tid) < 0 ? dmsg_pvm_err(PvmNoTask) : PvmOk;
}

int pvm_mstat(char *h)
{
    ENROLL();
    struct pvmhostinfo *hi;
    pvm_config(NULL, NULL, &hi);
    if (!h)
        return dmsg_pvm_err(PvmBadParam);
    return strcmp(h, hi->hi_name) && strcmp(h, "localhost") ? dmsg_pvm_err(PvmNoHost) : PvmOk;
}

static const char *err_text(int code)
{
    static const char *text[] = {
        [0] = "Ok", [2] = "Bad parameter", [3] = "Parameter mismatch", [4] = "Value too large",
        [5] = "End of buffer", [6] = "No such host", [7] = "No such file", [8] = "Permission denied",
        [10] = "Malloc failed", [12] = "Can't decode message", [14] = "Can't contact local daemon",
        [15] = "No current buffer", [16] = "No such buffer", [17] = "Null group name",
        [18] = "Already in group", [19] = "No such group", [20] = "Not in group",
        [21] = "No such instance", [22] = "Host failed", [23] = "No parent task",
        [24] = "Not implemented", [25] = "Pvmd system error", [26] = "Version mismatch",
        [27] = "Out of resources", [28] = "Duplicate host", [29] = "Can't start pvmd",
        [30] = "Already in progress", [31] = "No such task", [32] = "Not found",
        [33] = "Already exists", [34] = "Hoster run on non-master host",
        [35] = "Spawning parent not set", [36] = "Master host's IP is loopback"};
    int i = -code;
    if (i < 0 || i >= (int)(sizeof text / sizeof *text) || !text[i])
        return "Unknown error";
    return text[i];
}

int pvm_perror(char *msg)
{
    fprintf(stderr, "libpvm [t%x]: %s: %s\n", dmsg_pvm_tid(dmsg_pvm_g.me), msg ? msg : "",
            err_text(dmsg_pvm_g.last_err));
    return PvmOk;
}

char *pvm_strerror(void)
{
    /* PVM's texts are string literals: the cast only meets PVM's prototype */
    return (char *)err_text(dmsg_pvm_g.last_err);
}

int pvm_catchout(void *ff)
{
    (void)ff;
    ENROLL();
    return PvmOk;
}

static int *option(int what)
{
    pvm_state *g = &dmsg_pvm_g;
    switch (what) {
    case PvmRoute: return &g->route;
    case PvmAutoErr: return &g->autoerr;
    case PvmOutputTid:
    case PvmSelfOutputTid: return &g->outtid;
    case PvmOutputCode:
    case PvmSelfOutputCode: return &g->outcode;
    case PvmFragSize: return &g->fragsize;
    case PvmShowTids: return &g->showtids;
    case PvmResvTids: return &g->resvtids;
    case PvmPollType: return &g->polltype;
    case PvmPollTime: return &g->polltime;
    default: return NULL;
    }
}

int pvm_setopt(int what, int val)
{
    ENROLL();
    int *o = option(what);
    if (!o)
        return dmsg_pvm_err(PvmBadParam);
    int old = *o;
    *o = val;
    return old;
}

int pvm_getopt(int what)
{
    ENROLL();
    int *o = option(what);
    return o ? *o : dmsg_pvm_err(PvmBadParam);
}

int pvm_advise(int what) { return pvm_setopt(PvmRoute, what); }
int pvm_setdebug(int mask) { (void)mask; ENROLL(); return 0; }
int pvm_serror(int how) { return pvm_setopt(PvmAutoErr, how); }
char *pvm_version(void) { return PVM_VER; }

/* Out of scope: no daemon, hosts, notification, handlers, mailboxes.
 * Their arguments are not looked at. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define NOT_IMPL(decl)                                                                             \
    decl                                                                                           \
    {                                                                                              \
        return dmsg_pvm_err(PvmNotImpl);                                                           \
    }
NOT_IMPL(int pvm_addhosts(char **n, int c, int *s))
NOT_IMPL(int pvm_delhosts(char **n, int c, int *s))
NOT_IMPL(int pvm_halt(void))
NOT_IMPL(int pvm_addmhf(int s, int t, int c, int (*f)(int)))
NOT_IMPL(int pvm_delmhf(int m))
NOT_IMPL(int pvm_start_pvmd(int c, char **v, int b))
NOT_IMPL(int pvm_reg_hoster(void))
NOT_IMPL(int pvm_reg_tasker(void))
NOT_IMPL(int pvm_reg_rm(struct pvmhostinfo **h))
NOT_IMPL(int pvm_tickle(int h, int *n, int *a, int *b))
NOT_IMPL(int pvm_reg_tracer(int t, int c, int ot, int oc, char *m, int b, int bc))
NOT_IMPL(int pvm_getfds(int **f))
