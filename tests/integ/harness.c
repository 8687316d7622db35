/* Job runner of the integration suite (see harness.h). */
#include "harness.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>

extern char **environ;

/* Every job carries this variable with a unique value, so its processes can
 * be found in /proc after the job ended, wherever they were reparented. */
#define MARKER_VAR "DMSG_INTEG_JOB"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void nap(double seconds)
{
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&ts, NULL);
}

int job_over_ofi(void)
{
    const char *t = getenv("DMSG_TRANSPORT");
    return t && strcmp(t, "ofi") == 0;
}

int job_over_sim(void)
{
    const char *t = getenv("DMSG_TRANSPORT");
    return t && strcmp(t, "sim") == 0;
}

const char *job_path(const char *rel)
{
    static char bufs[4][1024];
    static int next;
    char *b = bufs[next++ % 4];
    const char *build = getenv("DMSG_BUILD");
    snprintf(b, sizeof bufs[0], "%s/%s", build && *build ? build : "build", rel);
    return b;
}

/* ------------------------------------------------------------ environment */

static size_t name_len(const char *entry)
{
    const char *eq = strchr(entry, '=');
    return eq ? (size_t)(eq - entry) : strlen(entry);
}

static int overridden(const char *entry, const char *const *env)
{
    for (size_t i = 0; env && env[i]; i++) {
        size_t n = name_len(env[i]);
        if (n == name_len(entry) && strncmp(entry, env[i], n) == 0)
            return 1;
    }
    return 0;
}

/* environ minus overridden names, plus the "NAME=value" overrides and the marker. */
static char **build_env(const char *const *env, const char *marker)
{
    size_t n = 0, extra = 0, mlen = strlen(MARKER_VAR "=");
    while (environ[n])
        n++;
    while (env && env[extra])
        extra++;
    char **out = calloc(n + extra + 2, sizeof *out);
    if (out == NULL)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!overridden(environ[i], env) && strncmp(environ[i], MARKER_VAR "=", mlen) != 0)
            out[k++] = environ[i];
    for (size_t i = 0; i < extra; i++)
        if (strchr(env[i], '=') != NULL)
            out[k++] = (char *)env[i];
    out[k++] = (char *)marker;
    out[k] = NULL;
    return out;
}

/* ---------------------------------------------------------- /proc, /dev/shm */

/* The processes of one job: its first process (dmsgrun or the program) and
 * every descendant seen while it ran or left behind after it. Only files
 * named after these pids are the job's: the host is shared, and other
 * jobs (other users', or other test runs) create and remove /dev/shm files
 * at any time. */
#define JOB_PIDS_MAX 4096
typedef struct job_pids {
    pid_t pid[JOB_PIDS_MAX];
    int n;
} job_pids;

static int pids_has(const job_pids *s, pid_t pid)
{
    for (int i = 0; i < s->n; i++)
        if (s->pid[i] == pid)
            return 1;
    return 0;
}

static void pids_add(job_pids *s, pid_t pid)
{
    if (pid > 0 && s->n < JOB_PIDS_MAX && !pids_has(s, pid))
        s->pid[s->n++] = pid;
}

/* Adds the live descendants of the known pids (/proc/PID/task/PID/children;
 * dmsgrun is a child subreaper, so orphaned grandchildren stay below it). */
static void pids_walk(job_pids *s)
{
    for (int i = 0; i < s->n; i++) {
        char path[64], buf[4096];
        snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)s->pid[i], (int)s->pid[i]);
        int fd = open(path, O_RDONLY);
        if (fd < 0)
            continue;
        ssize_t len = read(fd, buf, sizeof buf - 1);
        close(fd);
        buf[len > 0 ? len : 0] = '\0';
        for (char *p = buf, *end; *p; p = end) {
            long child = strtol(p, &end, 10);
            if (end == p)
                break;
            pids_add(s, (pid_t)child);
        }
    }
}

/* Finds live processes whose environment holds the marker; describes them
 * in `desc`, adds them to the job's pids and, if kill_them, sends them
 * SIGKILL (they belong to our job). */
static int scan_marked(const char *marker, char *desc, size_t desc_len, int kill_them,
                       job_pids *pids)
{
    DIR *d = opendir("/proc");
    if (d == NULL)
        return 0;
    size_t mlen = strlen(marker) + 1; /* match the terminating NUL too */
    int found = 0;
    struct dirent *e;
    static char buf[256 * 1024];
    while ((e = readdir(d)) != NULL) {
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        pid_t pid = (pid_t)atoi(e->d_name);
        if (pid == getpid())
            continue;
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
        int fd = open(path, O_RDONLY);
        if (fd < 0)
            continue;
        ssize_t len = read(fd, buf, sizeof buf);
        close(fd);
        if (len <= 0 || memmem(buf, (size_t)len, marker, mlen) == NULL)
            continue;
        pids_add(pids, pid);
        char comm[64] = "?";
        snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
        FILE *f = fopen(path, "r");
        if (f) {
            if (fgets(comm, sizeof comm, f))
                comm[strcspn(comm, "\n")] = '\0';
            fclose(f);
        }
        size_t used = strlen(desc);
        if (used + 40 < desc_len)
            snprintf(desc + used, desc_len - used, "%spid %d (%s)", found ? ", " : "", (int)pid,
                     comm);
        found++;
        if (kill_them)
            kill(pid, SIGKILL);
    }
    closedir(d);
    return found;
}

/* Waits for marked processes to go away (they are ending: the job is over;
 * on a loaded host that can take seconds); records and kills the rest. */
static void check_leftovers(const char *marker, job_result *r, job_pids *pids)
{
    char scratch[512];
    double t0 = now();
    do {
        scratch[0] = '\0';
        r->lingered = now() - t0;
        if (scan_marked(marker, scratch, sizeof scratch, 0, pids) == 0)
            return;
        nap(0.02);
    } while (now() - t0 < 30.0);
    r->leftover[0] = '\0';
    scan_marked(marker, r->leftover, sizeof r->leftover, 1, pids);
}

/* Newline-separated names in /dev/shm. */
static char *shm_list(void)
{
    size_t cap = 4096, len = 0;
    char *s = malloc(cap);
    if (s == NULL)
        return NULL;
    s[0] = '\0';
    DIR *d = opendir("/dev/shm");
    if (d == NULL)
        return s;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        size_t n = strlen(e->d_name);
        if (len + n + 2 > cap) {
            cap = 2 * (len + n + 2);
            char *t = realloc(s, cap);
            if (t == NULL)
                break;
            s = t;
        }
        memcpy(s + len, e->d_name, n);
        len += n;
        s[len++] = '\n';
        s[len] = '\0';
    }
    closedir(d);
    return s;
}

static int listed(const char *list, const char *name, size_t n)
{
    for (const char *p = list; *p;) {
        const char *nl = strchr(p, '\n');
        size_t l = nl ? (size_t)(nl - p) : strlen(p);
        if (l == n && strncmp(p, name, n) == 0)
            return 1;
        p += l + (nl != NULL);
    }
    return 0;
}

/* 1 if the entry is one of the job's: named after one of its processes as
 * the libfabric shm provider names its files ("<pid>:..."), or with dmsg's
 * own prefix (dmsg itself creates no named file; one would be a bug). */
static int job_entry(const char *name, size_t n, const job_pids *pids)
{
    if (n >= 4 && strncmp(name, "dmsg", 4) == 0)
        return 1;
    size_t digits = 0;
    while (digits < n && isdigit((unsigned char)name[digits]))
        digits++;
    if (digits == 0 || digits > 9 || digits >= n || name[digits] != ':')
        return 0;
    return pids_has(pids, (pid_t)strtol(name, NULL, 10));
}

/* The job's entries in `after` that were not in `before`. */
static void shm_diff(const char *before, const char *after, const job_pids *pids, char *out,
                     size_t out_len)
{
    out[0] = '\0';
    for (const char *p = after; *p;) {
        const char *nl = strchr(p, '\n');
        size_t l = nl ? (size_t)(nl - p) : strlen(p);
        if (!listed(before, p, l) && job_entry(p, l, pids)) {
            size_t used = strlen(out);
            snprintf(out + used, out_len - used, "%s/dev/shm/%.*s", used ? ", " : "", (int)l, p);
        }
        p += l + (nl != NULL);
    }
}

/* The job's entries that appeared during the job and are still there. */
static void check_shm(const char *before, const job_pids *pids, job_result *r)
{
    char *after = shm_list();
    if (after == NULL)
        return;
    shm_diff(before, after, pids, r->new_shm, sizeof r->new_shm);
    free(after);
}

/* ------------------------------------------------------------------ running */

static char *slurp(int fd)
{
    struct stat st;
    size_t size = fstat(fd, &st) == 0 ? (size_t)st.st_size : 0;
    char *s = malloc(size + 1);
    if (s == NULL)
        return NULL;
    ssize_t got = pread(fd, s, size, 0);
    s[got > 0 ? (size_t)got : 0] = '\0';
    return s;
}

/* An anonymous temp file (unlinked at once) to capture a stream. */
static int capture_file(void)
{
    char tmpl[] = "/tmp/dmsg-integ-XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd >= 0)
        unlink(tmpl);
    return fd;
}

static void describe_cmd(const char *const *argv, const char *const *env, char *out, size_t len)
{
    out[0] = '\0';
    for (size_t i = 0; env && env[i]; i++) {
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s%s ", strchr(env[i], '=') ? "" : "unset:", env[i]);
    }
    for (size_t i = 0; argv[i]; i++) {
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s%s", i ? " " : "", argv[i]);
    }
}

/* 1 if the file behind fd holds text. */
static int file_has(int fd, const char *text)
{
    static char buf[64 * 1024];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    return strstr(buf, text) != NULL;
}

/* Waits for the job with a deadline; on expiry kills its process group.
 * With sig != 0, sends sig to the job's first process (only to it) once
 * signal_after seconds have passed, or as soon as its stderr (err_fd) holds
 * `until` when that is given. */
static void wait_job(pid_t pid, double timeout, double signal_after, int sig, int err_fd,
                     const char *until, job_result *r, job_pids *pids)
{
    double t0 = now();
    for (unsigned i = 0;; i++) {
        pids_walk(pids);
        if (sig && (now() - t0 >= signal_after ||
                    (until && i % 25 == 0 && file_has(err_fd, until)))) {
            kill(pid, sig);
            sig = 0;
        }
        pid_t w = waitpid(pid, &r->status, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            r->status = -1;
            break;
        }
        if (now() - t0 > timeout) {
            r->timed_out = 1;
            kill(-pid, SIGKILL); /* dmsgrun is the group leader, not yet reaped */
            waitpid(pid, &r->status, 0);
            break;
        }
        nap(0.002);
    }
    r->seconds = now() - t0;
}

static int run(const char *const *argv, const char *const *env, double timeout,
               double signal_after, int sig, const char *until, job_result *r)
{
    static unsigned seq;
    memset(r, 0, sizeof *r);
    describe_cmd(argv, env, r->cmd, sizeof r->cmd);
    char marker[96];
    snprintf(marker, sizeof marker, MARKER_VAR "=%d.%u.%ld", (int)getpid(), seq++,
             (long)time(NULL));
    char **envp = build_env(env, marker);
    int out_fd = capture_file(), err_fd = capture_file();
    int null_fd = open("/dev/null", O_RDONLY);
    char *shm_before = shm_list();
    if (envp == NULL || out_fd < 0 || err_fd < 0 || null_fd < 0 || shm_before == NULL) {
        r->err = strdup("harness: cannot set up the job (memory or temp files)");
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        /* Only async-signal-safe calls here: the test process may have threads. */
        setpgid(0, 0);
        dup2(null_fd, 0);
        dup2(out_fd, 1);
        dup2(err_fd, 2);
        execve(argv[0], (char *const *)argv, envp);
        static const char msg[] = "harness: execve failed\n";
        (void)!write(2, msg, sizeof msg - 1);
        _exit(127);
    }
    int rc = 0;
    if (pid < 0) {
        rc = -1;
    } else {
        setpgid(pid, pid); /* also here, so the group exists before any kill */
        job_pids pids = {.n = 0};
        pids_add(&pids, pid);
        wait_job(pid, timeout, signal_after, sig, err_fd, until, r, &pids);
        check_leftovers(marker, r, &pids);
        check_shm(shm_before, &pids, r);
    }
    r->out = slurp(out_fd);
    r->err = slurp(err_fd);
    close(out_fd);
    close(err_fd);
    close(null_fd);
    free(envp);
    free(shm_before);
    return rc;
}

int job_run(const char *const *argv, const char *const *env, double timeout, job_result *r)
{
    return run(argv, env, timeout, 0, 0, NULL, r);
}

int job_run_signaled(const char *const *argv, const char *const *env, double timeout,
                     double signal_after, int sig, job_result *r)
{
    return run(argv, env, timeout, signal_after, sig, NULL, r);
}

int job_run_until(const char *const *argv, const char *const *env, double timeout,
                  const char *until, double signal_after, int sig, job_result *r)
{
    return run(argv, env, timeout, signal_after, sig, until, r);
}

void job_free(job_result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

const char *job_how(const job_result *r)
{
    static char buf[64];
    if (r->timed_out)
        snprintf(buf, sizeof buf, "timed out after %.0f s (killed by the watchdog)", r->seconds);
    else if (WIFEXITED(r->status))
        snprintf(buf, sizeof buf, "exit %d", WEXITSTATUS(r->status));
    else if (WIFSIGNALED(r->status))
        snprintf(buf, sizeof buf, "signal %d", WTERMSIG(r->status));
    else
        snprintf(buf, sizeof buf, "wait status %d", r->status);
    return buf;
}

int job_exited_ok(const job_result *r)
{
    return !r->timed_out && WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0;
}

const char *job_tail(const char *s, size_t max)
{
    if (s == NULL)
        return "(none)";
    size_t n = strlen(s);
    return n > max ? s + n - max : s;
}

int job_contains(const char *haystack, const char *needle)
{
    return haystack != NULL && strcasestr(haystack, needle) != NULL;
}

/* After a word such as "PE": optional blanks, '#', '=', ':' then the number. */
static int number_follows(const char *p, int pe)
{
    while (*p == ' ' || *p == '#' || *p == '=' || *p == ':' || *p == '\t')
        p++;
    if (!isdigit((unsigned char)*p))
        return 0;
    char *end;
    long v = strtol(p, &end, 10);
    return v == pe;
}

int job_names_pe(const char *text, int pe)
{
    static const char *const words[] = {"pe", "rank"};
    for (const char *p = text; p && *p; p++) {
        if (p != text && isalnum((unsigned char)p[-1]))
            continue;
        for (size_t w = 0; w < 2; w++) {
            size_t n = strlen(words[w]);
            if (strncasecmp(p, words[w], n) == 0 && number_follows(p + n, pe))
                return 1;
        }
    }
    return 0;
}

int job_pes_wanted(int npes)
{
    const char *list = getenv("INTEG_PES");
    if (!list || !*list)
        return 1;
    for (const char *p = list; *p;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p)
            return 1; /* not a list of numbers: run everything rather than nothing */
        if (v == npes)
            return 1;
        p = *end == ',' ? end + 1 : end + strlen(end);
    }
    return 0;
}

static void (*skip_hook)(void);

void job_on_skip(void (*fn)(void))
{
    skip_hook = fn;
}

int job_run_case(const char *case_name, int npes, const char *const *env, job_result *r)
{
    if (!job_pes_wanted(npes)) {
        /* cr_skip_test leaves the test by a jump: the suite's .fini never
         * runs, so whatever its .init made must go now. */
        if (skip_hook)
            skip_hook();
        cr_skip_test("INTEG_PES=%s leaves out jobs of %d PEs", getenv("INTEG_PES"), npes);
    }
    char n[16];
    snprintf(n, sizeof n, "%d", npes);
    const char *argv[] = {job_path("bin/dmsgrun"), "-n", n, job_path("tests/pe_prog"), case_name,
                          NULL};
    const char *merged[32];
    size_t k = 0;
    if (!overridden("DMSG_TIMEOUT", env))
        merged[k++] = JOB_DMSG_TIMEOUT; /* a hang inside dmsg becomes a reported error */
    for (size_t i = 0; env && env[i] && k < 31; i++)
        merged[k++] = env[i];
    merged[k] = NULL;
    return job_run(argv, merged, JOB_WATCHDOG, r);
}

int job_run_case_started(const char *case_name, int npes, const char *const *env, job_result *r)
{
    for (int tries = 1;; tries++) {
        int rc = job_run_case(case_name, npes, env, r);
        if (rc != 0 || job_exited_ok(r) || tries == 5 ||
            !job_contains(r->err, "start-up barrier: a PE did not arrive"))
            return rc;
        cr_log_info("%s: a PE started late (try %d), again", r->cmd, tries);
        job_free(r);
    }
}

static void expect_ok_by(int (*run_fn)(const char *, int, const char *const *, job_result *),
                         const char *case_name, int npes, const char *const *env)
{
    cr_assert(access(job_path("bin/dmsgrun"), X_OK) == 0 &&
                  access(job_path("tests/pe_prog"), X_OK) == 0,
              "%s or %s missing: build first (make all tests) and set DMSG_BUILD",
              job_path("bin/dmsgrun"), job_path("tests/pe_prog"));
    job_result r;
    int rc = run_fn(case_name, npes, env, &r);
    cr_assert(rc == 0, "could not start %s: %s", r.cmd, r.err ? r.err : "");
    cr_expect(job_exited_ok(&r), "%s on %d PEs: %s\n--- command: %s\n--- stderr (tail):\n%s",
              case_name, npes, job_how(&r), r.cmd, job_tail(r.err, 3000));
    cr_expect(r.leftover[0] == '\0', "%s on %d PEs: processes left after the job: %s", case_name,
              npes, r.leftover);
    cr_expect(r.new_shm[0] == '\0', "%s on %d PEs: new /dev/shm entries after the job: %s",
              case_name, npes, r.new_shm);
    job_free(&r);
}

void expect_case_ok(const char *case_name, int npes, const char *const *env)
{
    expect_ok_by(job_run_case, case_name, npes, env);
}

void expect_started_case_ok(const char *case_name, int npes, const char *const *env)
{
    expect_ok_by(job_run_case_started, case_name, npes, env);
}
