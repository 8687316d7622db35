/*
 * dmsgrun - starts an SPMD job of N PEs on this host.
 *
 * It creates the job region (an anonymous memfd, so nothing is ever left in
 * /dev/shm), forks the PEs with the region's descriptor and their rank in the
 * environment, and watches them. When a PE fails -- killed by a signal, a
 * non-zero exit, or an exit after dmsg_init without dmsg_finalize -- it says
 * which PE and how, raises the job's abort flag, and stops the others
 * (SIGTERM, then SIGKILL after a grace period).
 *
 * A PE may be started through a wrapper that forks (sh -c, /usr/bin/time),
 * so the process dmsgrun forks is not always the dmsg program. Each PE
 * therefore runs in a process group of its own, and every signal goes to
 * the whole group. dmsgrun is a child subreaper, so descendants orphaned by
 * a wrapper that exits are reparented to it, and at the end of the job it
 * kills and reaps whatever is left of every PE's tree. For the one case it
 * cannot handle itself, its own death by SIGKILL, a guardian process holds
 * the read end of a pipe that only dmsgrun writes to: when dmsgrun dies the
 * pipe closes and the guardian kills every PE's process group. A PE that
 * left its group (a wrapper that calls setsid) escapes the guardian: every
 * PE therefore holds the read end of a second pipe, the life pipe, whose
 * only writer is dmsgrun, and the library's waits end the PE when it hangs
 * up (dmsg_boot_aborted).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "dmsg/base/shmfiles.h"
#include "dmsg/boot/job.h"
#include "dmsg/boot/run_env.h"
#include "dmsg/core/config.h"
#include "dmsg/plan/registry.h"

#define GRACE_SECONDS 2.0
#define TICK_NS 20000000L

typedef struct pe_proc {
    pid_t pid;  /* also the PE's process group */
    int32_t dmsg_pid; /* the process that joined as this PE (below a wrapper: not pid) */
    int done;   /* exited (left unreaped until the end, so the group id stays ours) */
    int status; /* wait status */
} pe_proc;

static volatile sig_atomic_t got_signal;

/* Set when a child has changed state: the watch loop asks each PE with
 * waitid only then (and once a second besides where one waitid over all
 * children finds an exit it does not know of: unknown_exit), not every
 * tick -- at 4096 PEs the per-tick scan was 200,000 system calls a second,
 * about a fifth of a simulated job's CPU. */
static volatile sig_atomic_t got_child = 1;

static void on_signal(int sig)
{
    got_signal = sig;
}

static void on_child(int sig)
{
    (void)sig;
    got_child = 1;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: dmsgrun [-n N] [-t TRANSPORT] [--] PROGRAM [ARGS...] [: -n M PROGRAM2 [ARGS...]]...\n"
            "Starts PROGRAM as an SPMD job of N processing elements (PEs) on this host;\n"
            "with ':' blocks (MPMD, as mpiexec), the next M PEs run PROGRAM2, and so on.\n\n"
            "  -n, --npes N            number of PEs (default 1, at most %d)\n"
            "  -t, --transport NAME    transport (sets DMSG_TRANSPORT): %s\n"
            "  -h, --help              this text\n"
            "      --help-env          the environment settings every PE reads\n\n"
            "The job is sized by DMSG_SEGMENT_SIZE and DMSG_MAX_COUNTERS in dmsgrun's own\n"
            "environment, which the PEs inherit.\n"
            "Exit status: 0 when every PE exits 0; otherwise the failing PE's exit status\n"
            "(128+signal when it was killed), after the other PEs have been stopped; a PE\n"
            "that ends the job (dmsg_global_exit, shmem_global_exit) gives its status, 0 too.\n",
            DMSG_MAX_PES, dmsg_transport_list());
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void nap(long ns)
{
    struct timespec ts = {0, ns};
    nanosleep(&ts, NULL);
}

/* Removes what is named after a PE process in /dev/shm: libfabric's shm
 * provider names its region "<pid>:..." and unlinks it only when the
 * process ends normally or by a signal it catches; a PE killed during
 * dmsg_init (before the ofi transport unlinks it itself) left it behind. */
static void unlink_pid_files(int32_t pid)
{
    dmsg_shm_unlink_pid((long)pid);
}

/* ------------------------------------------------------------- guardian */

/* The guardian reads int32 values from the pipe: a PE's process group id,
 * or minus the pid of a PE's dmsg process (whose files it removes). A 0
 * means dmsgrun has cleaned up itself; end of file without it means dmsgrun
 * died, and the guardian kills every group it was told of and removes the
 * files. It lives in a group of its own so that a signal to dmsgrun's group
 * does not take it along. */
static void guardian_main(int rd)
{
    int32_t groups[DMSG_MAX_PES], pids[2 * DMSG_MAX_PES];
    int n = 0, np = 0;
    setpgid(0, 0);
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    for (;;) {
        int32_t g;
        ssize_t got = read(rd, &g, sizeof g);
        if (got < 0 && errno == EINTR)
            continue;
        if (got == (ssize_t)sizeof g && g == 0)
            _exit(0);
        if (got != (ssize_t)sizeof g)
            break;
        if (g > 0 && n < DMSG_MAX_PES)
            groups[n++] = g;
        else if (g < 0 && np < 2 * DMSG_MAX_PES)
            pids[np++] = -g;
    }
    for (int i = 0; i < n; i++)
        kill(-groups[i], SIGKILL);
    for (int i = 0; i < np; i++)
        unlink_pid_files(pids[i]);
    _exit(0);
}

/* Starts the guardian; returns the write end of its pipe (close-on-exec, so
 * no PE holds it), or -1 (the job then runs without that protection). */
static int guardian_start(pid_t *pid_out)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        return -1;
    }
    if (pid == 0) {
        close(p[1]);
        guardian_main(p[0]);
    }
    setpgid(pid, pid);
    close(p[0]);
    *pid_out = pid;
    return p[1];
}

static void guardian_tell(int wr, int32_t v)
{
    if (wr >= 0)
        (void)!write(wr, &v, sizeof v);
}

/* ------------------------------------------------------------------ PEs */

/* MPMD launches: each PE learns its program block (DMSG_APPNUM) and the
 * blocks' sizes (DMSG_APP_SIZES, comma separated); NULL for one block. */
static const char *app_sizes;

/* The PEs' environment: dmsgrun's own without the variables a launch sets,
 * then the job's values of them (the job region's descriptor, the PE count,
 * the life pipe, the MPMD blocks' sizes) and each PE's own (its rank, its
 * block), which pe_env_set rewrites in place before each PE starts. Built
 * before the PEs' processes exist: each shares dmsgrun's memory until it
 * execs (vfork, see spawn) and may only make system calls. */
typedef struct pe_env {
    char **v;
    char *text;                 /* the job's values */
    char rank[48], appnum[48];  /* this PE's */
} pe_env;

static const char *const launch_vars[] = {DMSG_BOOT_ENV_FD,   DMSG_BOOT_ENV_RANK, DMSG_BOOT_ENV_NPES,
                                          DMSG_BOOT_ENV_LIFE, "DMSG_APPNUM",      "DMSG_APP_SIZES"};
#define N_LAUNCH_VARS (sizeof launch_vars / sizeof launch_vars[0])

static int is_launch_var(const char *entry)
{
    for (size_t k = 0; k < N_LAUNCH_VARS; k++) {
        size_t n = strlen(launch_vars[k]);
        if (!strncmp(entry, launch_vars[k], n) && entry[n] == '=')
            return 1;
    }
    return 0;
}

static int pe_env_build(pe_env *e, int npes, int fd, int life_rd)
{
    size_t n = 0;
    while (environ[n])
        n++;
    size_t cap = N_LAUNCH_VARS * 64 + (app_sizes ? strlen(app_sizes) : 0);
    e->v = calloc(n + N_LAUNCH_VARS + 1, sizeof *e->v);
    e->text = malloc(cap);
    if (!e->v || !e->text) {
        free(e->v);
        free(e->text);
        return -1;
    }
    size_t k = 0, at = 0;
    for (size_t i = 0; i < n; i++)
        if (!is_launch_var(environ[i]))
            e->v[k++] = environ[i];
#define ADD(...)                                                                                   \
    do {                                                                                           \
        e->v[k++] = e->text + at;                                                                  \
        at += (size_t)snprintf(e->text + at, cap - at, __VA_ARGS__) + 1;                           \
    } while (0)
    ADD("%s=%d", DMSG_BOOT_ENV_FD, fd);
    ADD("%s=%d", DMSG_BOOT_ENV_NPES, npes);
    /* The PE keeps the life pipe's read end across exec (pe_start clears
     * its close-on-exec); its write end stays dmsgrun's alone. */
    if (life_rd >= 0)
        ADD("%s=%d", DMSG_BOOT_ENV_LIFE, life_rd);
    if (app_sizes)
        ADD("DMSG_APP_SIZES=%s", app_sizes);
#undef ADD
    e->v[k++] = e->rank;
    if (app_sizes)
        e->v[k++] = e->appnum;
    e->v[k] = NULL;
    return 0;
}

static void pe_env_set(pe_env *e, int rank, int app)
{
    snprintf(e->rank, sizeof e->rank, "%s=%d", DMSG_BOOT_ENV_RANK, rank);
    snprintf(e->appnum, sizeof e->appnum, "DMSG_APPNUM=%d", app);
}

static void pe_env_free(pe_env *e)
{
    free(e->v);
    free(e->text);
}

/* Set by a PE's process that could not exec its program (it shares
 * dmsgrun's memory until then); dmsgrun reports it. */
static volatile int exec_errno;

/* The PE's process between vfork and exec: system calls only, on what
 * dmsgrun prepared; every signal is blocked on entry (old: the mask to
 * restore). */
static _Noreturn void pe_start(pid_t parent, int guard_wr, int life_rd, char **argv, char **envp,
                               const sigset_t *old)
{
    setpgid(0, 0);
    /* Die with the launcher, even if it is killed with SIGKILL. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127);
    /* The guardian learns of this group before the program (or a wrapper's
     * child) can start: if dmsgrun is killed right after the fork, the
     * guardian still ends the whole group. The pipe end closes at exec. */
    guardian_tell(guard_wr, (int32_t)getpid());
    /* dmsgrun's handlers must never run here, in its memory: they go
     * before the signals are let in again. */
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    sigemptyset(&dfl.sa_mask);
    static const int caught[] = {SIGINT, SIGTERM, SIGHUP, SIGCHLD};
    for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++)
        sigaction(caught[i], &dfl, NULL);
    sigprocmask(SIG_SETMASK, old, NULL);
    /* A process group other than the terminal's foreground group is stopped
     * when it reads the terminal: PEs do not get it as standard input. */
    if (isatty(0)) {
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0) {
            dup2(null, 0);
            close(null);
        }
    }
    if (life_rd >= 0 && fcntl(life_rd, F_SETFD, 0) != 0) {
        exec_errno = errno;
        _exit(127);
    }
    execvpe(argv[0], argv, envp);
    exec_errno = errno ? errno : ENOEXEC;
    _exit(127);
}

/* Starts one PE. By vfork: a fork copied dmsgrun's page tables and each
 * page the child then wrote (its environment), a cost that dominated the
 * start of thousands of PEs in a virtual machine, where every page fault
 * and TLB flush is dear. */
static pid_t spawn(int rank, pe_env *env, pid_t parent, int guard_wr, int life_rd, char **argv,
                   int app)
{
    pe_env_set(env, rank, app);
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, &old);
    exec_errno = 0;
    pid_t pid = vfork();
    if (pid == 0)
        pe_start(parent, guard_wr, life_rd, argv, env->v, &old);
    int err = errno;
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (pid < 0) {
        errno = err;
        return -1;
    }
    setpgid(pid, pid); /* also here, so the group exists before any signal */
    if (exec_errno)
        fprintf(stderr, "dmsgrun: PE %d: cannot run %s: %s\n", rank, argv[0],
                strerror(exec_errno));
    return pid;
}

/* Signals every PE's whole process group, also of PEs that have exited:
 * what a wrapper left running is still in the group. */
static void signal_all(pe_proc *pes, int n, int sig)
{
    for (int i = 0; i < n; i++)
        if (pes[i].pid > 0)
            kill(-pes[i].pid, sig);
}

/* Describes a PE's end; returns the exit status dmsgrun should report (0 = fine). */
static int judge(int rank, const pe_proc *p, const dmsg_job_hdr *h, int any_joined, char *why,
                 size_t len)
{
    int st = p->status;
    uint32_t state = atomic_load(&h->pe_state[rank]);
    if (WIFSIGNALED(st)) {
        snprintf(why, len, "PE %d (pid %d) was killed by signal %d (%s)", rank, (int)p->pid,
                 WTERMSIG(st), strsignal(WTERMSIG(st)));
        return 128 + WTERMSIG(st);
    }
    if (WEXITSTATUS(st) != 0) {
        snprintf(why, len, "PE %d (pid %d) exited with status %d", rank, (int)p->pid,
                 WEXITSTATUS(st));
        return WEXITSTATUS(st);
    }
    if (state == DMSG_PE_INIT) {
        snprintf(why, len, "PE %d (pid %d) exited after dmsg_init without dmsg_finalize", rank,
                 (int)p->pid);
        return 1;
    }
    if (state == DMSG_PE_NONE && any_joined) {
        snprintf(why, len, "PE %d (pid %d) exited without calling dmsg_init while others joined",
                 rank, (int)p->pid);
        return 1;
    }
    return 0;
}

/* Notes PEs that have exited, leaving them unreaped (WNOWAIT): while its
 * leader is a zombie, a PE's process group id cannot be reused, so a later
 * kill of the group never hits a stranger. */
static int reap(pe_proc *pes, int n)
{
    int changed = 0;
    for (int i = 0; i < n; i++) {
        if (pes[i].pid <= 0 || pes[i].done)
            continue;
        siginfo_t si;
        si.si_pid = 0;
        if (waitid(P_PID, (id_t)pes[i].pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0 ||
            si.si_pid != pes[i].pid)
            continue;
        pes[i].done = 1;
        /* The wait status waitpid would have given. */
        if (si.si_code == CLD_EXITED)
            pes[i].status = (si.si_status & 0xff) << 8;
        else
            pes[i].status = (si.si_status & 0x7f) | (si.si_code == CLD_DUMPED ? 0x80 : 0);
        changed = 1;
    }
    return changed;
}

/* Whether a child has exited that the PEs' table does not know of yet,
 * by one waitid over all children (WNOWAIT: nothing is reaped): the watch
 * loop's look once a second besides the SIGCHLDs, instead of a waitid per
 * PE (4,096 system calls a second at 4096 PEs). It names the first exited
 * child only, so once a PE has exited (its zombie stays until the end) or
 * an orphan waits to be reaped, the answer is yes and the caller scans. */
static int unknown_exit(const pe_proc *pes, int n)
{
    siginfo_t si;
    si.si_pid = 0;
    if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid == 0)
        return 0;
    for (int i = 0; i < n; i++)
        if (pes[i].pid == si.si_pid)
            return !pes[i].done;
    return 1;
}

static int all_done(const pe_proc *pes, int n)
{
    for (int i = 0; i < n; i++)
        if (pes[i].pid > 0 && !pes[i].done)
            return 0;
    return 1;
}

/* Stops the remaining PEs: abort flag (PEs blocked in dmsg waits return
 * DMSG_ERR_ABORTED), SIGTERM, and SIGKILL after the grace period. */
static void stop_job(pe_proc *pes, int n, dmsg_job_hdr *h)
{
    atomic_store(&h->abort, 1);
    signal_all(pes, n, SIGTERM);
    double kill_at = now() + GRACE_SECONDS;
    while (!all_done(pes, n)) {
        nap(TICK_NS);
        reap(pes, n);
        if (now() > kill_at) {
            signal_all(pes, n, SIGKILL);
            kill_at = now() + 3600;
        }
    }
}

/* Kills and reaps everything left below dmsgrun: the PEs' process groups,
 * then any child (PE leaders, descendants reparented to this subreaper,
 * even those that left their group), until no child is left. Only then
 * is the guardian told that its work is done. */
static void clean_up(pe_proc *pes, int n, int guard_wr, pid_t guard_pid)
{
    signal_all(pes, n, SIGKILL);
    guardian_tell(guard_wr, 0);
    if (guard_wr >= 0)
        close(guard_wr);
    double give_up = now() + 10.0;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)getpid());
    for (;;) {
        int st;
        while (waitpid(-1, &st, WNOHANG) > 0)
            ;
        FILE *f = fopen(path, "r");
        int left = 0;
        long pid;
        while (f && fscanf(f, "%ld", &pid) == 1) {
            left++;
            if ((pid_t)pid != guard_pid)
                kill((pid_t)pid, SIGKILL);
        }
        if (f)
            fclose(f);
        if (!f && errno == ENOENT) /* no children file: wait for what we know */
            left = waitpid(-1, &st, WNOHANG) >= 0 || errno != ECHILD;
        if (left == 0 || now() > give_up)
            return;
        nap(TICK_NS / 4);
    }
}

/* ---------------------------------------------------------------- stalls */

/* What dmsgrun last saw of each PE, to notice a job that makes no progress. */
typedef struct stall_watch {
    double limit;       /* DMSG_STALL_REPORT seconds; 0 = never report */
    double changed;     /* when any PE's wait word or state last changed */
    double next;        /* the next report, while nothing changes */
    double interval;    /* seconds to the next report; doubles after each */
    uint32_t *word;     /* per PE: wait word << 8 | state | done << 4 */
    double *since;      /* per PE: when its word last changed */
} stall_watch;

static uint32_t pe_word(const pe_proc *p, const dmsg_job_hdr *h, int i)
{
    return (uint32_t)atomic_load_explicit(&h->pe_wait[i], memory_order_relaxed) << 8 |
           (uint32_t)p->done << 4 | atomic_load_explicit(&h->pe_state[i], memory_order_relaxed);
}

static void describe_pe(int i, const pe_proc *p, uint32_t w, double t, const dmsg_job_hdr *h)
{
    unsigned op = (w >> 8) & DMSG_WAIT_OP_MASK, state = w & 0xf;
    fprintf(stderr, "dmsgrun:   PE %d (pid %d) ", i, (int)p->pid);
    if (p->done)
        fprintf(stderr, "has exited\n");
    else if (state == DMSG_PE_NONE)
        fprintf(stderr, "has not called dmsg_init (for %.0f s)\n", t);
    else if (state == DMSG_PE_FINALIZED)
        fprintf(stderr, "has left the job (dmsg_finalize returned %.0f s ago)\n", t);
    else if (op != DMSG_WAIT_NONE)
        fprintf(stderr, "waits in %s (for %.0f s)\n", dmsg_job_wait_name(op), t);
    else
        fprintf(stderr, "runs outside dmsg (for %.0f s): computing, or stuck in its own code\n", t);
    (void)h;
}

/* Says which PE waits where once nothing has changed for the limit while
 * some PE waits in dmsg, and again after twice as long, and so on. */
static void check_stall(stall_watch *sw, const pe_proc *pes, int n, const dmsg_job_hdr *h)
{
    if (sw->limit <= 0)
        return;
    double t = now();
    int waiting = 0;
    for (int i = 0; i < n; i++) {
        uint32_t w = pe_word(&pes[i], h, i);
        if (w != sw->word[i]) {
            sw->word[i] = w;
            sw->since[i] = t;
            sw->changed = t;
            sw->interval = sw->limit;
            sw->next = t + sw->limit;
        }
        waiting |= !pes[i].done && (w & 0xf) == DMSG_PE_INIT && ((w >> 8) & DMSG_WAIT_OP_MASK);
    }
    if (!waiting || t < sw->next)
        return;
    enum { SHOWN = 16 };
    fprintf(stderr, "dmsgrun: the job has made no progress for %.0f s (DMSG_STALL_REPORT=%g):\n",
            t - sw->changed, sw->limit);
    for (int i = 0; i < n && i < SHOWN; i++)
        describe_pe(i, &pes[i], sw->word[i], t - sw->since[i], h);
    if (n > SHOWN)
        fprintf(stderr, "dmsgrun:   ... and %d more PEs\n", n - SHOWN);
    fprintf(stderr, "dmsgrun: still waiting; DMSG_TIMEOUT ends such waits with DMSG_ERR_TIMEOUT. "
                    "Next report in %.0f s.\n",
            2 * sw->interval);
    sw->interval *= 2;
    sw->next = t + sw->interval;
}

/* Learns which process joined as each PE (from the job region) and tells
 * the guardian, so that a PE's files can be removed whoever ends the job.
 * A PE joins once, so a pid once learnt is not read again: the word is in
 * the PE's control area, a page each, and reading all of them each tick
 * cost 4,096 TLB misses (and page-table pages) a tick at 4096 PEs. */
static void note_pids(pe_proc *pes, int n, dmsg_job_hdr *h, int guard_wr)
{
    for (int i = 0; i < n; i++) {
        if (pes[i].dmsg_pid > 0)
            continue;
        int32_t p = atomic_load_explicit(dmsg_job_pe_pid(h, i), memory_order_relaxed);
        if (p > 0 && p != pes[i].dmsg_pid) {
            pes[i].dmsg_pid = p;
            guardian_tell(guard_wr, -p);
        }
    }
}

/* Why a PE's dmsg_init failed, as the PE recorded it in the job region
 * (dmsg_boot_note_failure): the library prints nothing itself, so the
 * launcher says it, once for the job (the PEs fail alike). */
static void say_init_failure(dmsg_job_hdr *h)
{
    if (!atomic_load_explicit(&h->fail_ready, memory_order_acquire))
        return;
    char text[sizeof h->fail_text];
    memcpy(text, h->fail_text, sizeof text);
    text[sizeof text - 1] = '\0';
    fprintf(stderr, "dmsgrun: PE %d could not start: %s\n", (int)h->fail_pe, text);
}

static int watch(pe_proc *pes, int n, dmsg_job_hdr *h, stall_watch *sw, int guard_wr)
{
    char why[256];
    double scan_at = 0.0;
    for (;;) {
        int rc = 0;
        nap(TICK_NS);
        /* Cleared before the scan: a child that exits during it sets the
         * flag again, and the next tick looks. */
        if (got_child || now() >= scan_at) {
            int look = got_child;
            got_child = 0;
            if (!look) { /* the once-a-second look, in case a SIGCHLD went amiss */
                scan_at = now() + 1.0;
                look = unknown_exit(pes, n);
            }
            if (look)
                reap(pes, n);
        }
        note_pids(pes, n, h, guard_wr);
        check_stall(sw, pes, n, h);
        if (got_signal) {
            fprintf(stderr, "dmsgrun: received signal %d (%s); stopping the job\n",
                    (int)got_signal, strsignal(got_signal));
            stop_job(pes, n, h);
            return 128 + got_signal;
        }
        /* A PE that ended the job (dmsg_global_exit) decides its status,
         * 0 included, before any other PE's end is judged: the others'
         * ends are its consequence. */
        for (int i = 0; i < n; i++) {
            if (!pes[i].done || atomic_load(&h->pe_state[i]) != DMSG_PE_EXIT)
                continue;
            rc = WIFSIGNALED(pes[i].status) ? 128 + WTERMSIG(pes[i].status)
                                            : WEXITSTATUS(pes[i].status);
            fprintf(stderr, "dmsgrun: PE %d (pid %d) ended the job with status %d; stopping the job\n",
                    i, (int)pes[i].pid, rc);
            stop_job(pes, n, h);
            return rc;
        }
        int any_joined = 0;
        for (int i = 0; i < n; i++)
            any_joined |= atomic_load(&h->pe_state[i]) != DMSG_PE_NONE;
        /* Of the PEs found failed in one look, one killed by a signal is
         * named first: the others' errors (a survivor whose barrier saw the
         * peer vanish and exited) are usually its consequence. */
        int first = -1;
        for (int i = 0; i < n; i++) {
            if (!pes[i].done || !judge(i, &pes[i], h, any_joined, why, sizeof why))
                continue;
            if (first < 0 || (WIFSIGNALED(pes[i].status) && !WIFSIGNALED(pes[first].status)))
                first = i;
        }
        if (first >= 0) {
            rc = judge(first, &pes[first], h, any_joined, why, sizeof why);
            say_init_failure(h);
            fprintf(stderr, "dmsgrun: %s; stopping the job\n", why);
            stop_job(pes, n, h);
            return rc;
        }
        if (all_done(pes, n))
            return 0;
    }
}

/* ------------------------------------------------------------ MPMD form */

/* `PROGRAM ARGS : -n M PROGRAM2 ARGS : ...`: the blocks of an MPMD launch. */
typedef struct mpmd_blocks {
    int n;        /* blocks */
    long total;   /* PEs of all blocks */
    long *npes;   /* per block */
    char ***argv; /* per block: its program and arguments, NULL-terminated in argv */
} mpmd_blocks;

static int mpmd_count(const char *opt, const char *val, long *n)
{
    char *end;
    errno = 0;
    *n = val ? strtol(val, &end, 10) : 0;
    if (!val || errno || *end || *n < 1 || *n > DMSG_MAX_PES) {
        fprintf(stderr, "dmsgrun: %s %s: the number of PEs must be 1..%d\n", opt,
                val ? val : "(missing)", DMSG_MAX_PES);
        return 2;
    }
    return 0;
}

/* Splits argv[first..] at ":" tokens (each replaced by NULL). The first
 * block has `npes` PEs; each later one starts with -n M (or --npes M,
 * -nM, --npes=M) and then its program. */
static int mpmd_split(int argc, char **argv, int first, long npes, mpmd_blocks *b)
{
    int most = 1;
    for (int i = first; i < argc; i++)
        most += !strcmp(argv[i], ":");
    b->n = 0;
    b->total = 0;
    b->npes = calloc((size_t)most, sizeof *b->npes);
    b->argv = calloc((size_t)most, sizeof *b->argv);
    if (!b->npes || !b->argv)
        return 2;
    int i = first;
    for (;;) {
        long n = npes;
        if (b->n > 0) {
            if (i < argc && (!strcmp(argv[i], "-n") || !strcmp(argv[i], "--npes"))) {
                if (mpmd_count(argv[i], i + 1 < argc ? argv[i + 1] : NULL, &n))
                    return 2;
                i += 2;
            } else if (i < argc && !strncmp(argv[i], "--npes=", 7)) {
                if (mpmd_count("--npes", argv[i] + 7, &n))
                    return 2;
                i++;
            } else if (i < argc && !strncmp(argv[i], "-n", 2) && argv[i][2]) {
                if (mpmd_count("-n", argv[i] + 2, &n))
                    return 2;
                i++;
            } else {
                n = 1;
            }
        }
        if (i >= argc || !strcmp(argv[i], ":")) {
            fprintf(stderr, "dmsgrun: block %d of the command line has no program\n", b->n + 1);
            return 2;
        }
        b->argv[b->n] = &argv[i];
        b->npes[b->n++] = n;
        b->total += n;
        if (b->total > DMSG_MAX_PES) {
            fprintf(stderr, "dmsgrun: %ld PEs in all, at most %d\n", b->total, DMSG_MAX_PES);
            return 2;
        }
        while (i < argc && strcmp(argv[i], ":"))
            i++;
        if (i >= argc)
            break;
        argv[i++] = NULL; /* ends the block's argument list */
    }
    if (b->n > 1) {
        /* "n1,n2,...": at most two characters a PE (a block of n PEs
         * writes at most 2n), so every split of DMSG_MAX_PES PEs fits. */
        static char sizes[2 * DMSG_MAX_PES + 1];
        size_t at = 0;
        for (int k = 0; k < b->n && at < sizeof sizes; k++)
            at += (size_t)snprintf(sizes + at, sizeof sizes - at, "%s%ld", k ? "," : "",
                                   b->npes[k]);
        if (at >= sizeof sizes) {
            fprintf(stderr, "dmsgrun: too many program blocks\n");
            return 2;
        }
        app_sizes = sizes;
    }
    return 0;
}

static int mpmd_block_of(const mpmd_blocks *b, long rank)
{
    int k = 0;
    for (long first = 0; k + 1 < b->n && rank >= first + b->npes[k]; k++)
        first += b->npes[k];
    return k;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"npes", required_argument, NULL, 'n'},
        {"transport", required_argument, NULL, 't'},
        {"help", no_argument, NULL, 'h'},
        {"help-env", no_argument, NULL, 'E'},
        {NULL, 0, NULL, 0},
    };
    long npes = 1;
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, "+n:t:h", opts, NULL)) != -1) {
        switch (c) {
        case 'n':
            errno = 0;
            npes = strtol(optarg, &end, 10);
            if (errno || *end || npes < 1 || npes > DMSG_MAX_PES) {
                fprintf(stderr, "dmsgrun: -n %s: the number of PEs must be 1..%d\n", optarg,
                        DMSG_MAX_PES);
                return 2;
            }
            break;
        case 't':
            if (!dmsg_transport_known(optarg)) {
                fprintf(stderr, "dmsgrun: -t %s: unknown transport (%s)\n", optarg,
                        dmsg_transport_list());
                return 2;
            }
            setenv("DMSG_TRANSPORT", optarg, 1);
            break;
        case 'h': usage(stdout); return 0;
        case 'E':
            dmsg_settings_print(stdout);
            return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "dmsgrun: no program to run\n");
        usage(stderr);
        return 2;
    }
    mpmd_blocks blocks;
    if (mpmd_split(argc, argv, optind, npes, &blocks))
        return 2;
    npes = blocks.total;

    dmsg_config cfg;
    dmsg_run_config rcfg;
    if (dmsg_settings_check() || dmsg_config_load(&cfg) || dmsg_run_config_load(&rcfg)) {
        fprintf(stderr, "dmsgrun: %s\n", dmsg_last_error());
        return 2;
    }
    /* Descendants a wrapper leaves behind become our children, so the job
     * can wait for them and end them. */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    pid_t guard_pid = -1;
    int guard_wr = guardian_start(&guard_pid);

    int fd;
    dmsg_job_hdr *h;
    if (dmsg_job_create((uint32_t)npes, cfg.seg_size, DMSG_CTR_TABLE(&cfg), &fd) ||
        dmsg_job_map(fd, &h)) {
        fprintf(stderr, "dmsgrun: cannot create the job region for %ld PEs of %llu bytes\n", npes,
                (unsigned long long)cfg.seg_size);
        return 2;
    }

    /* The life pipe, made after the guardian so that it holds neither end:
     * dmsgrun keeps the write end until it exits, whichever way. Without
     * it the job still runs, without that protection. */
    int life[2] = {-1, -1};
    if (pipe2(life, O_CLOEXEC) != 0)
        life[0] = life[1] = -1;

    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    /* SA_RESTART: the notice must not fail a pipe write to the guardian
     * with EINTR; a nap it cuts short only makes the next look sooner. */
    struct sigaction sc = {.sa_handler = on_child, .sa_flags = SA_RESTART | SA_NOCLDSTOP};
    sigemptyset(&sc.sa_mask);
    sigaction(SIGCHLD, &sc, NULL);

    pe_proc *pes = calloc((size_t)npes, sizeof *pes);
    pe_env env;
    if (!pes || pe_env_build(&env, (int)npes, fd, life[0]) != 0) {
        fprintf(stderr, "dmsgrun: no memory to start %ld PEs\n", npes);
        return 2;
    }
    pid_t self = getpid();
    int rc = 0, started = 0;
    for (; started < npes; started++) {
        int app = mpmd_block_of(&blocks, started);
        pes[started].pid = spawn(started, &env, self, guard_wr, life[0], blocks.argv[app], app);
        if (pes[started].pid < 0) {
            fprintf(stderr, "dmsgrun: fork of PE %d failed: %s\n", started, strerror(errno));
            rc = 2;
            break;
        }
        guardian_tell(guard_wr, (int32_t)pes[started].pid);
    }
    pe_env_free(&env);
    /* The PEs hold the region now; our descriptor would only keep it alive. */
    close(fd);
    if (life[0] >= 0)
        close(life[0]);
    stall_watch sw = {.limit = rcfg.stall_report,
                      .changed = now(),
                      .word = calloc((size_t)npes, sizeof *sw.word),
                      .since = calloc((size_t)npes, sizeof *sw.since)};
    sw.interval = sw.limit;
    sw.next = sw.changed + sw.limit;
    if (!sw.word || !sw.since)
        sw.limit = 0; /* no memory for reports: the job still runs */
    for (int i = 0; i < started; i++)
        sw.since[i] = sw.changed;
    if (rc) {
        stop_job(pes, started, h);
    } else {
        rc = watch(pes, (int)npes, h, &sw, guard_wr);
    }
    free(sw.word);
    free(sw.since);
    clean_up(pes, started, guard_wr, guard_pid);
    note_pids(pes, started, h, -1);
    for (int i = 0; i < started; i++) {
        unlink_pid_files(pes[i].dmsg_pid);
        unlink_pid_files(pes[i].pid);
    }
    dmsg_job_unmap(h);
    free(pes);
    free(blocks.npes);
    free(blocks.argv);
    return rc;
}
