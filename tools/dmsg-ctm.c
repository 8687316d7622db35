/*
 * dmsg-ctm - the copy-transfer model tool.
 *
 *   dmsg-ctm calc MACHINE TRANSFER [--mech packed|chained|both|auto] [--congestion C]
 *   dmsg-ctm calc MACHINE table [--congestion C]
 *   dmsg-ctm calc scap  [--machine M] [--k K] [--latency NS] [--issue NS] [--access NS]
 *                       [--net-issue NS] [--window W] [--capacity C]
 *   dmsg-ctm calc vscap [--machine M] [--K K] [--L L] [--latency NS] [--tn NS] [--tv NS]
 *                       [--tvL NS] [--tz NS] [--tzL NS] [--ts NS] [--window CV]
 *   dmsg-ctm measure [--csv FILE] [--png FILE] [--machine-out FILE] [--quick]
 *   dmsg-ctm tune [--out FILE] [--quick] [--show]
 *   dmsg-ctm builtins FILE.machine...   (prints dmsg/model/machines_builtin.c)
 *
 * calc evaluates the model of dmsg/model/ctm.c for a machine
 * description (machine.c) and prints the composition it used; measure
 * characterizes this host (throughput over stride and working set) and can
 * write a machine description of it. docs/ctm.md describes both.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dmsg/model/ctm.h"
#include "dmsg/model/machine.h"
#include "dmsg/xfer/xfer.h"

static void usage(FILE *f)
{
    fputs("usage:\n"
          "  dmsg-ctm calc MACHINE TRANSFER [--mech packed|chained|both|auto] [--congestion C]\n"
          "      TRANSFER is xQy (remote) or xCy (local copy); x, y = 1, a stride, or w.\n"
          "      e.g. dmsg-ctm calc t3d 1Q1024 --congestion 2\n"
          "  dmsg-ctm calc MACHINE table [--congestion C]   remote copies 1/64/w x 1/64/w\n"
          "  dmsg-ctm calc scap [--machine M] [--k K] [--latency NS] [--issue NS]\n"
          "      [--access NS] [--net-issue NS] [--window W] [--capacity C]\n"
          "  dmsg-ctm calc vscap [--machine M] [--K K] [--L L] [--latency NS] [--tn NS]\n"
          "      [--tv NS] [--tvL NS] [--tz NS] [--tzL NS] [--ts NS] [--window CV]\n"
          "      (parameters default to the machine's: t3e-scap for scap, t3e-vscap for vscap)\n"
          "  dmsg-ctm measure [--csv FILE] [--png FILE] [--machine-out FILE] [--quick]\n"
          "      characterize this host: loads xC0, gathers xC1, scatters 1Cx over strides\n"
          "      1..1024 and indexed, working sets 4 KiB..512 MiB (--quick: ..64 MiB)\n"
          "  dmsg-ctm tune [--out FILE] [--quick] [--show]\n"
          "      time the copy engine's transpose blockings and streaming stores (on/off\n"
          "      and from which plane size, per element size) on this host and write the host\n"
          "      profile dmsg_init reads (default: $DMSG_HOST_PROFILE, else\n"
          "      $XDG_CACHE_HOME/dmsg/host.profile, else ~/.cache/dmsg/host.profile);\n"
          "      --show: print what the library would use now, measure nothing\n"
          "  dmsg-ctm builtins FILE.machine...   print machines_builtin.c for these files\n"
          "MACHINE: iwarp, t3d, t3e-scap, t3e-vscap, paragon, a NAME in $DMSG_MACHINE_DIR, or a\n"
          "file path.\n",
          f);
}

static int fail(const char *fmt, const char *arg)
{
    fputs("dmsg-ctm: ", stderr);
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    return 2;
}

static int num_arg(const char *opt, const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v) || v < 0) {
        fprintf(stderr, "dmsg-ctm: %s needs a number >= 0, got '%s'\n", opt, s);
        return -1;
    }
    *out = v;
    return 0;
}

static int load_machine(const char *name, dmsg_machine *m)
{
    if (dmsg_machine_load(name, m) != DMSG_OK) {
        fprintf(stderr, "dmsg-ctm: %s\n", dmsg_last_error());
        return -1;
    }
    return 0;
}

/* ================================================================ calc */

static void print_remote(const dmsg_machine *m, long x, long y, dmsg_mech mech, double c)
{
    char t[1024];
    double r = dmsg_ctm_remote_mbs(m, x, y, mech, c, NULL, t, sizeof t);
    /* The trace starts with "machine xQy "; the heading already says that. */
    const char *body = strchr(t, ' ');
    body = body ? strchr(body + 1, ' ') : NULL;
    printf("  %7.1f MB/s  %s\n", r, body ? body + 1 : t);
}

static int calc_transfer(const dmsg_machine *m, const char *name, const char *mech, double c)
{
    long x, y;
    int op = dmsg_ctm_parse_name(name, &x, &y);
    if (!op)
        return fail("bad transfer '%s' (xQy or xCy, x and y: 1, a stride, or w)", name);
    printf("%s: %s\n", m->name, m->description);
    if (op == 'C') {
        char t[512];
        double r = dmsg_ctm_copy_mbs(m, x, y, t, sizeof t);
        printf("local copy %s: %.1f MB/s   %s\n", name, r, t);
        return r > 0 ? 0 : 1;
    }
    printf("remote copy %s at congestion %g (mechanisms:%s%s):\n", name, c,
           m->mechanisms & DMSG_MECH_PACKED ? " packed" : "",
           m->mechanisms & DMSG_MECH_CHAINED ? " chained" : "");
    int both = !strcmp(mech, "both");
    if (both || !strcmp(mech, "packed"))
        print_remote(m, x, y, DMSG_MECH_PACKED, c);
    if (both || !strcmp(mech, "chained"))
        print_remote(m, x, y, DMSG_MECH_CHAINED, c);
    if (!strcmp(mech, "auto"))
        print_remote(m, x, y, DMSG_MECH_AUTO, c);
    double r = dmsg_ctm_remote_mbs(m, x, y, DMSG_MECH_AUTO, c, NULL, NULL, 0);
    return r > 0 ? 0 : 1;
}

static int calc_table(const dmsg_machine *m, double c)
{
    static const long pats[] = {1, 64, DMSG_PAT_INDEXED};
    printf("%s at congestion %g: remote copy xQy in MB/s (packed / chained; - = impossible)\n",
           m->name, c);
    printf("%8s", "x \\ y");
    for (int j = 0; j < 3; j++) {
        char ps[16];
        printf(" %17s", dmsg_ctm_pat_str(pats[j], ps, sizeof ps));
    }
    putchar('\n');
    for (int i = 0; i < 3; i++) {
        char ps[16];
        printf("%8s", dmsg_ctm_pat_str(pats[i], ps, sizeof ps));
        for (int j = 0; j < 3; j++) {
            double p = dmsg_ctm_remote_mbs(m, pats[i], pats[j], DMSG_MECH_PACKED, c, NULL, NULL, 0);
            double q = dmsg_ctm_remote_mbs(m, pats[i], pats[j], DMSG_MECH_CHAINED, c, NULL, NULL, 0);
            char a[16] = "-", b[16] = "-", cell[40];
            if (p > 0)
                snprintf(a, sizeof a, "%.1f", p);
            if (q > 0)
                snprintf(b, sizeof b, "%.1f", q);
            snprintf(cell, sizeof cell, "%s / %s", a, b);
            printf(" %17s", cell);
        }
        putchar('\n');
    }
    return 0;
}

/* Options of calc scap / vscap: name, destination, whether given. */
typedef struct {
    const char *opt;
    double *val;
} num_opt;

static int parse_num_opts(int argc, char **argv, num_opt *opts, int nopts, const char **machine)
{
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--machine") && i + 1 < argc) {
            *machine = argv[++i];
            continue;
        }
        int k = 0;
        while (k < nopts && strcmp(argv[i], opts[k].opt))
            k++;
        if (k == nopts || i + 1 >= argc) {
            fprintf(stderr, "dmsg-ctm: unknown option or missing value: '%s'\n", argv[i]);
            return -1;
        }
        if (num_arg(argv[i], argv[i + 1], opts[k].val))
            return -1;
        i++;
    }
    return 0;
}

/* Pre-scan for --machine so the machine's values become the defaults. */
static const char *find_machine_opt(int argc, char **argv, const char *dflt)
{
    for (int i = 0; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--machine"))
            return argv[i + 1];
    return dflt;
}

static int calc_scap(int argc, char **argv)
{
    const char *mname = find_machine_opt(argc, argv, "t3e-scap");
    dmsg_machine m;
    if (load_machine(mname, &m))
        return 2;
    double k = 1000, tl = m.pf_latency_ns, dtp = m.pf_issue_ns, dtc = m.pf_access_ns;
    double dtn = m.net_issue_ns, w = m.pf_window, cap = m.pf_net_capacity;
    num_opt opts[] = {{"--k", &k},          {"--latency", &tl},   {"--issue", &dtp},
                      {"--access", &dtc},   {"--net-issue", &dtn}, {"--window", &w},
                      {"--capacity", &cap}};
    if (parse_num_opts(argc, argv, opts, 7, &mname))
        return 2;
    if (!(tl > 0) || !(w >= 1))
        return fail("machine %s has no prefetch parameters; give --latency and --window", m.name);
    double cn = cap >= 1 ? cap : w;
    char t[1024];
    double tb = dmsg_ctm_scap_blocking(k, tl);
    double tp = dmsg_ctm_scap_pipelined(k, tl, dtp, dtc, dtn, cn, w, NULL, t, sizeof t);
    printf("SCAP, parameters of %s: k=%g T_L=%g dt_p=%g dt_c=%g dt_n=%g C_p=%g C_n=%g (ns)\n",
           m.name, k, tl, dtp, dtc, dtn, w, cn);
    printf("  blocking : k * T_L = %g * %g = %.1f ns (%.2f ns per element)\n", k, tl, tb, tb / k);
    printf("  %s\n", t);
    if (!(tp > 0))
        return 1;
    printf("             (%.2f ns per element, %.2fx faster than blocking)\n", tp / k, tb / tp);
    return 0;
}

static int calc_vscap(int argc, char **argv)
{
    const char *mname = find_machine_opt(argc, argv, "t3e-vscap");
    dmsg_machine m;
    if (load_machine(mname, &m))
        return 2;
    double K = 1000, L = m.vec_len, tl = m.vec_latency_ns > 0 ? m.vec_latency_ns : m.pf_latency_ns;
    double tn = m.net_issue_ns, tv = m.vec_tv_ns, tvL = m.vec_tvL_ns, tz = m.vec_tz_ns;
    double tzL = m.vec_tzL_ns, ts = m.vec_ts_ns, cv = m.vec_window;
    num_opt opts[] = {{"--K", &K},   {"--L", &L},     {"--latency", &tl}, {"--tn", &tn},
                      {"--tv", &tv}, {"--tvL", &tvL}, {"--tz", &tz},      {"--tzL", &tzL},
                      {"--ts", &ts}, {"--window", &cv}};
    if (parse_num_opts(argc, argv, opts, 10, &mname))
        return 2;
    if (!(L >= 1) || !(tl > 0))
        return fail("machine %s has no vector parameters; give --L and --latency", m.name);
    char t[1024];
    int which;
    printf("VSCAP, parameters of %s: K=%g L=%g T_L=%g t_n=%g t_v=%g t_v^L=%g t_z=%g t_z^L=%g "
           "t_s=%g C_V=%g (ns)\n",
           m.name, K, L, tl, tn, tv, tvL, tz, tzL, ts, cv);
    double tLL = dmsg_ctm_vscap_LL(K, L, tl, tn, tvL, tzL, ts, cv, &which, t, sizeof t);
    printf("  %s  (%.2f ns per element)\n", t, tLL / K);
    double t1L = dmsg_ctm_vscap_1L(K, L, tl, tv, tzL, t, sizeof t);
    printf("  %s  (%.2f ns per element)\n", t, t1L / K);
    double tb = dmsg_ctm_scap_blocking(K, m.read_us * 1000);
    printf("  blocking : K * %g = %.1f ns (remote.read_us of %s); (L,L) is %.1fx faster\n",
           m.read_us * 1000, tb, m.name, tb / tLL);
    /* The speed-up over single-element pipelining, with this machine's own
     * SCAP parameters (never those of another study). */
    if (m.pf_window > 0) {
        double cn = m.pf_net_capacity > 0 ? m.pf_net_capacity : m.pf_window;
        double tp = dmsg_ctm_scap_pipelined(K, m.pf_latency_ns, m.pf_issue_ns, m.pf_access_ns,
                                            m.net_issue_ns, cn, m.pf_window, NULL, t, sizeof t);
        printf("  SCAP %s\n  VSCAP (L,L) / SCAP speed-up: %.2f\n", t, tp / tLL);
    }
    (void)tz; /* t_z is per-element access time; no formula of REFERENCE.md 3 uses it */
    return 0;
}

static int cmd_calc(int argc, char **argv)
{
    if (argc < 1)
        return usage(stderr), 2;
    if (!strcmp(argv[0], "scap"))
        return calc_scap(argc - 1, argv + 1);
    if (!strcmp(argv[0], "vscap"))
        return calc_vscap(argc - 1, argv + 1);
    if (argc < 2)
        return fail("calc %s: which transfer? (e.g. 1Q64, or table)", argv[0]);
    const char *mech = "both";
    double c = -1;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--mech") && i + 1 < argc) {
            mech = argv[++i];
            if (strcmp(mech, "packed") && strcmp(mech, "chained") && strcmp(mech, "both") &&
                strcmp(mech, "auto"))
                return fail("--mech: packed, chained, both or auto, not '%s'", mech);
        } else if (!strcmp(argv[i], "--congestion") && i + 1 < argc) {
            if (num_arg("--congestion", argv[++i], &c))
                return 2;
            if (c < 1)
                return fail("--congestion must be >= 1, got %s", argv[i]);
        } else {
            return fail("calc: unknown option '%s'", argv[i]);
        }
    }
    dmsg_machine m;
    if (load_machine(argv[0], &m))
        return 2;
    if (c < 1)
        c = m.congestion;
    if (!strcmp(argv[1], "table"))
        return calc_table(&m, c);
    return calc_transfer(&m, argv[1], mech, c);
}

/* ============================================================ builtins */

static int cmd_builtins(int argc, char **argv)
{
    if (argc < 1)
        return fail("builtins: give the machine files%s", "");
    printf("/* Built-in machine descriptions: byte-identical copies of the files in the\n"
           " * top-level machines/ directory, so the library finds them without an\n"
           " * installed share directory. Regenerate after editing a machine file:\n"
           " *   build/bin/dmsg-ctm builtins machines/iwarp.machine machines/paragon.machine \\\n"
           " *       machines/t3d.machine machines/t3e-scap.machine machines/t3e-vscap.machine \\\n"
           " *       > dmsg/model/machines_builtin.c\n"
           " * A unit test (tests/unit/test_ctm.c) fails when the two drift apart. */\n"
           "#include \"dmsg/model/machine.h\"\n");
    char names[16][64];
    if (argc > 16)
        return fail("builtins: at most 16 files%s", "");
    for (int f = 0; f < argc; f++) {
        const char *base = strrchr(argv[f], '/');
        base = base ? base + 1 : argv[f];
        size_t n = strcspn(base, ".");
        if (n == 0 || n >= sizeof names[f])
            return fail("builtins: bad file name '%s'", argv[f]);
        memcpy(names[f], base, n);
        names[f][n] = 0;
        /* The C identifier of the text: a '-' in a machine name becomes '_'. */
        char ident[64];
        for (size_t i = 0; i <= n; i++)
            ident[i] = names[f][i] == '-' ? '_' : names[f][i];
        FILE *in = fopen(argv[f], "r");
        if (!in)
            return fail("builtins: cannot open '%s'", argv[f]);
        printf("\nstatic const char %s_text[] =\n", ident);
        /* One literal per line of the file, split at 88 characters. */
        char piece[96];
        size_t used = 0;
        int ch, any = 0;
        while ((ch = fgetc(in)) != EOF) {
            char esc[3] = {0};
            if (ch == '\\' || ch == '"')
                esc[0] = '\\', esc[1] = (char)ch;
            else if (ch == '\t')
                esc[0] = '\\', esc[1] = 't';
            else if (ch == '\n')
                esc[0] = '\\', esc[1] = 'n';
            else
                esc[0] = (char)ch;
            size_t el = strlen(esc);
            if (used + el > 88) {
                printf("%s    \"%.*s\"", any ? "\n" : "", (int)used, piece);
                any = 1;
                used = 0;
            }
            memcpy(piece + used, esc, el);
            used += el;
            if (ch == '\n') {
                printf("%s    \"%.*s\"", any ? "\n" : "", (int)used, piece);
                any = 1;
                used = 0;
            }
        }
        if (used)
            printf("%s    \"%.*s\"", any ? "\n" : "", (int)used, piece);
        printf(";\n");
        fclose(in);
    }
    printf("\nconst dmsg_machine_builtin dmsg_machine_builtins[] = {\n");
    for (int f = 0; f < argc; f++) {
        char ident[64];
        for (size_t i = 0; i < sizeof ident; i++)
            if ((ident[i] = names[f][i] == '-' ? '_' : names[f][i]) == 0)
                break;
        printf("    {\"%s\", %s_text},\n", names[f], ident);
    }
    printf("};\nconst int dmsg_machine_nbuiltins = %d;\n", argc);
    return 0;
}

/* ============================================================= measure */

enum { K_LOAD, K_GATHER, K_SCATTER, NKINDS };
static const char *const kind_name[NKINDS] = {"load", "gather", "scatter"};
static const char *const kind_model[NKINDS] = {"xC0", "xC1", "1Cx"};

#define NPAT 12 /* strides 1, 2, 4, ..., 1024 and indexed */
#define MAX_WS_LOG 29

typedef struct {
    double *a; /* load array, copy source */
    double *b; /* copy destination */
    uint32_t *idx;
    size_t n; /* elements in the pattern's array */
    size_t s; /* effective stride */
    int indexed;
    size_t cur; /* rotating position in the traversal, so repeated runs cover it all */
} mbench;

static volatile double g_sink;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Visits count elements in traversal order: stride s in passes (0, s, 2s,
 * ..., then 1, s+1, ...), so every element is touched once per traversal;
 * indexed: idx[] order. The kind decides what happens at each element. */
static void run_kernel(mbench *mb, int kind, size_t count)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t n = mb->n, s = mb->indexed ? 1 : mb->s, per = n / s;
    while (count) {
        size_t t = mb->cur, p = t / per, k = t % per;
        size_t m = per - k < count ? per - k : count;
        double *a = mb->a, *b = mb->b;
        if (mb->indexed) {
            const uint32_t *ix = mb->idx + t;
            if (kind == K_LOAD) {
                for (size_t j = 0; j < m; j++)
                    s0 += a[ix[j]];
            } else if (kind == K_GATHER) {
                for (size_t j = 0; j < m; j++)
                    b[t + j] = a[ix[j]];
            } else {
                for (size_t j = 0; j < m; j++)
                    b[ix[j]] = a[t + j];
            }
        } else {
            size_t off = p + k * s;
            if (kind == K_LOAD) {
                const double *x = a + off;
                size_t j = 0;
                /* Four sums: one would measure the add latency, not the loads. */
                for (; j + 4 <= m; j += 4) {
                    s0 += x[j * s];
                    s1 += x[(j + 1) * s];
                    s2 += x[(j + 2) * s];
                    s3 += x[(j + 3) * s];
                }
                for (; j < m; j++)
                    s0 += x[j * s];
            } else if (kind == K_GATHER) {
                const double *x = a + off;
                double *d = b + t;
                for (size_t j = 0; j < m; j++)
                    d[j] = x[j * s];
            } else {
                double *d = b + off;
                const double *x = a + t;
                for (size_t j = 0; j < m; j++)
                    d[j * s] = x[j];
            }
        }
        count -= m;
        mb->cur = t + m == n ? 0 : t + m;
    }
    g_sink = s0 + s1 + s2 + s3;
}

/* MB/s of payload: best of three runs, each at least target/3 seconds. */
static double measure_point(mbench *mb, int kind, double target)
{
    mb->cur = 0;
    run_kernel(mb, kind, mb->n < ((size_t)1 << 22) ? mb->n : (size_t)1 << 22); /* warm */
    size_t count = 4096;
    double dt;
    for (;;) {
        double t0 = now();
        run_kernel(mb, kind, count);
        dt = now() - t0;
        if (dt >= target / 3 || count >= ((size_t)1 << 34))
            break;
        count = dt > 0 && dt < target / 12 ? count * 4 : count * 2;
    }
    double best = dt;
    for (int r = 0; r < 2; r++) {
        double t0 = now();
        run_kernel(mb, kind, count);
        dt = now() - t0;
        best = dt < best ? dt : best;
    }
    return count * 8.0 / best / 1e6;
}

static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return g_rng;
}

static void permute(uint32_t *idx, size_t n)
{
    for (size_t i = 0; i < n; i++)
        idx[i] = (uint32_t)i;
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = rnd() % (i + 1);
        uint32_t t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
    }
}

/* Memory latency: a random cyclic pointer chase (Sattolo's permutation). */
static double chase_ns(size_t *buf, size_t n)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = i;
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = rnd() % i;
        size_t t = buf[i];
        buf[i] = buf[j];
        buf[j] = t;
    }
    size_t hops = 1 << 21, p = 0;
    double t0 = now();
    for (size_t h = 0; h < hops; h++)
        p = buf[p];
    double dt = now() - t0;
    g_sink = (double)p;
    return dt / hops * 1e9;
}

/* memcpy throughput of a block of `bytes`, best of three. */
static double memcpy_mbs(double *dst, const double *src, size_t bytes)
{
    double best = 1e30;
    for (int r = 0; r < 3; r++) {
        double t0 = now();
        memcpy(dst, src, bytes);
        double dt = now() - t0;
        best = dt < best ? dt : best;
    }
    g_sink = dst[bytes / 16];
    return bytes / best / 1e6;
}

static int find_in_path(const char *prog)
{
    const char *path = getenv("PATH");
    if (!path)
        return 0;
    char buf[4096];
    while (*path) {
        size_t n = strcspn(path, ":");
        if (n > 0 && n + strlen(prog) + 2 < sizeof buf) {
            snprintf(buf, sizeof buf, "%.*s/%s", (int)n, path, prog);
            if (access(buf, X_OK) == 0)
                return 1;
        }
        path += n + (path[n] == ':');
    }
    return 0;
}

typedef struct {
    int nws;
    int ws_log[32];              /* log2 of working set bytes */
    double mbs[NKINDS][32][NPAT]; /* kind, working set, pattern */
    long eff[NKINDS][32][NPAT];  /* effective stride used */
} msurface;

static void pat_label(int p, char *buf, size_t len)
{
    if (p == NPAT - 1)
        snprintf(buf, len, "w");
    else
        snprintf(buf, len, "%d", 1 << p);
}

static int write_csv(const char *path, const msurface *ms)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "dmsg-ctm: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    fprintf(f, "kind,model,pattern,stride,eff_stride,working_set_bytes,mbs\n");
    for (int k = 0; k < NKINDS; k++)
        for (int w = 0; w < ms->nws; w++)
            for (int p = 0; p < NPAT; p++) {
                char pl[8];
                pat_label(p, pl, sizeof pl);
                fprintf(f, "%s,%s,%s,%ld,%ld,%zu,%.1f\n", kind_name[k], kind_model[k], pl,
                        p == NPAT - 1 ? -1L : 1L << p, ms->eff[k][w][p],
                        (size_t)1 << ms->ws_log[w], ms->mbs[k][w][p]);
            }
    if (fclose(f)) {
        fprintf(stderr, "dmsg-ctm: error writing %s\n", path);
        return -1;
    }
    return 0;
}

static int write_png(const char *path, const msurface *ms)
{
    if (!find_in_path("gnuplot")) {
        fprintf(stderr,
                "dmsg-ctm: gnuplot not found in PATH: no PNG written (install gnuplot-nox); "
                "the CSV has the data\n");
        return -1;
    }
    const char *tmpdir = getenv("TMPDIR");
    char dat[512];
    snprintf(dat, sizeof dat, "%s/dmsg-ctm-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    int fd = mkstemp(dat);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        fprintf(stderr, "dmsg-ctm: cannot create a temporary file for gnuplot\n");
        return -1;
    }
    for (int k = 0; k < NKINDS; k++) {
        for (int w = 0; w < ms->nws; w++) {
            for (int p = 0; p < NPAT; p++)
                fprintf(f, "%d %d %.1f\n", p, ms->ws_log[w], ms->mbs[k][w][p]);
            fputc('\n', f);
        }
        fputs("\n\n", f);
    }
    fclose(f);

    char xt[512] = "", yt[512] = "";
    for (int p = 0; p < NPAT; p++) {
        char pl[8];
        pat_label(p, pl, sizeof pl);
        snprintf(xt + strlen(xt), sizeof xt - strlen(xt), "%s\"%s\" %d", p ? ", " : "", pl, p);
    }
    for (int w = 0; w < ms->nws; w++) {
        int l = ms->ws_log[w];
        if (l % 2) /* every other label, so they do not overlap */
            continue;
        snprintf(yt + strlen(yt), sizeof yt - strlen(yt), "%s\"%d%s\" %d", *yt ? ", " : "",
                 1 << (l % 10), l >= 20 ? "M" : "K", l);
    }
    FILE *gp = popen("gnuplot", "w");
    if (!gp) {
        remove(dat);
        fprintf(stderr, "dmsg-ctm: cannot start gnuplot\n");
        return -1;
    }
    fprintf(gp,
            "set terminal pngcairo size 1800,620 font ',10'\n"
            "set output '%s'\n"
            "set multiplot layout 1,3 title 'dmsg-ctm measure: throughput (MB/s) over access "
            "pattern and working set on this host'\n"
            "set xtics (%s) offset 0,-0.5\nset ytics (%s) offset 1,0\n"
            "set xlabel 'stride (words; w = indexed)' offset 0,-1.5\n"
            "set ylabel 'working set (bytes)' offset 2,-1\nset zlabel 'MB/s' rotate by 90\n"
            "set logscale z 10\nset logscale cb 10\nset format z '%%.0f'\n"
            "set view 55,50\nset pm3d depthorder border lc 'black' lw 0.3\n"
            "set palette rgb 33,13,10\nunset colorbox\nset ticslevel 0\n",
            path, xt, yt);
    static const char *const titles[NKINDS] = {"loads xC0 (summing)", "gather copies xC1",
                                               "scatter copies 1Cx"};
    for (int k = 0; k < NKINDS; k++)
        fprintf(gp, "set title '%s'\nsplot '%s' index %d using 1:2:3 with pm3d notitle\n",
                titles[k], dat, k);
    fprintf(gp, "unset multiplot\n");
    int rc = pclose(gp);
    remove(dat);
    if (rc != 0) {
        fprintf(stderr, "dmsg-ctm: gnuplot failed (status %d); the CSV has the data\n", rc);
        return -1;
    }
    return 0;
}

static void cpu_model(char *buf, size_t len, double *mhz)
{
    snprintf(buf, len, "unknown CPU");
    *mhz = 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    int got_model = 0, got_mhz = 0;
    while (fgets(line, sizeof line, f) && !(got_model && got_mhz)) {
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        char *v = colon + 1 + strspn(colon + 1, " \t");
        v[strcspn(v, "\n")] = 0;
        if (!got_model && !strncmp(line, "model name", 10)) {
            /* '#' would start a comment in the machine file. */
            for (char *c = v; *c; c++)
                *c = *c == '#' ? ' ' : *c;
            snprintf(buf, len, "%.100s", v);
            got_model = 1;
        } else if (!got_mhz && !strncmp(line, "cpu MHz", 7)) {
            *mhz = atof(v);
            got_mhz = 1;
        }
    }
    fclose(f);
}

/* Writes the host's machine description. Copies: the largest working set
 * measured. Send/receive/network: this is shared memory, so the "network"
 * is a memory copy; these values are estimates built from measured ones. */
static int write_machine(const char *path, const msurface *ms, double memcpy_v, double lat_ns)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "dmsg-ctm: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    char model[128];
    double mhz;
    cpu_model(model, sizeof model, &mhz);
    int w = ms->nws - 1;
    int wsl = ms->ws_log[w];
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const double *ld = ms->mbs[K_LOAD][w], *ga = ms->mbs[K_GATHER][w], *sc = ms->mbs[K_SCATTER][w];
    time_t tnow = time(NULL);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M", localtime(&tnow));

    fprintf(f, "# This host, characterized by `dmsg-ctm measure` on %s.\n", date);
    fprintf(f, "# Throughputs in MB/s (10^6 bytes/s) of payload; strides in 64-bit words.\n");
    fprintf(f, "# copy.* and send.*: measured at a working set of %d MiB (the largest measured).\n",
            1 << (wsl - 20));
    fprintf(f, "# This host, shared memory: network = memory copy. A deposit is one copy loop\n"
               "# from the source into the target's mapping, so send, network and receive\n"
               "# below are estimates built from measured loads, copies and memcpy.\n\n");
    fprintf(f, "name        = host\n");
    fprintf(f, "description = this host (%s), measured by dmsg-ctm measure\n", model);
    fprintf(f, "clock_mhz   = %.0f   # /proc/cpuinfo 'cpu MHz' (0: not found)\n", mhz);
    fprintf(f, "nodes       = 1\ncores       = %ld   # online processors\n\n", cores);

    fprintf(f, "# Local copies, measured: gather xC1 and scatter 1Cy.\n");
    fprintf(f, "copy.1C1    = %.1f\n", ga[0]);
    for (int p = 1; p < NPAT - 1; p++)
        fprintf(f, "copy.%dC1 = %.1f\n", 1 << p, ga[p]);
    fprintf(f, "copy.wC1    = %.1f\n", ga[NPAT - 1]);
    for (int p = 1; p < NPAT - 1; p++)
        fprintf(f, "copy.1C%d = %.1f\n", 1 << p, sc[p]);
    fprintf(f, "copy.1Cw    = %.1f\n\n", sc[NPAT - 1]);

    fprintf(f, "# Send: the processor loads the source; measured load streams xC0.\n");
    for (int p = 0; p < NPAT - 1; p++)
        fprintf(f, "send.%dS0 = %.1f\n", 1 << p, ld[p]);
    fprintf(f, "send.wS0 = %.1f\n", ld[NPAT - 1]);
    fprintf(f, "send.1F0 = none   # no fetch engine\n\n");

    fprintf(f, "# Receive: the same processor stores into the target's mapping.\n"
               "# Estimated: contiguous = measured memcpy; strided / indexed = the measured\n"
               "# scatter copies 1Cy (a load and a store per word, so conservative).\n");
    fprintf(f, "recv.0D1 = none   # no deposit engine\n");
    fprintf(f, "recv.0R1 = %.1f   # memcpy, measured\n", memcpy_v);
    for (int p = 1; p < NPAT - 1; p++)
        fprintf(f, "recv.0R%d = %.1f\n", 1 << p, sc[p]);
    fprintf(f, "recv.0Rw = %.1f\n\n", sc[NPAT - 1]);

    fprintf(f, "# Network: this host, shared memory: network = memory copy (memcpy, measured).\n"
               "# Congestion c: c PEs share the memory system; estimated as an even share.\n");
    fprintf(f, "net.Nd      = %.1f %.1f %.1f\n", memcpy_v, memcpy_v / 2, memcpy_v / 4);
    fprintf(f, "net.Nadp    = %.1f %.1f %.1f   # estimated: no addresses travel in shared "
               "memory\n",
            memcpy_v, memcpy_v / 2, memcpy_v / 4);
    fprintf(f, "congestion  = 1\nmechanisms  = chained packed\n\n");

    fprintf(f, "msg.overhead_us = 0.5   # estimated, not measured: a counter update and a few\n"
               "                        # cache-line transfers between cores\n");
    fprintf(f, "msg.partner_us  = 0     # estimated: every segment is mapped, no setup\n");
    fprintf(f, "barrier.kind    = tree\nbarrier.us      = 0\n");
    fprintf(f, "barrier.hop_us  = %.3f   # estimated: one cache-line transfer, taken as the "
               "measured memory latency\n",
            lat_ns / 1000);
    fprintf(f, "remote.read_us  = %.3f   # measured memory latency (random pointer chase)\n",
            lat_ns / 1000);
    if (fclose(f)) {
        fprintf(stderr, "dmsg-ctm: error writing %s\n", path);
        return -1;
    }
    return 0;
}

static int cmd_measure(int argc, char **argv)
{
    const char *csv = NULL, *png = NULL, *mout = NULL;
    int quick = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc)
            csv = argv[++i];
        else if (!strcmp(argv[i], "--png") && i + 1 < argc)
            png = argv[++i];
        else if (!strcmp(argv[i], "--machine-out") && i + 1 < argc)
            mout = argv[++i];
        else
            return fail("measure: unknown option or missing value '%s'", argv[i]);
    }
    /* Working sets 4 KiB .. 512 MiB (quick: every other size up to 64 MiB). */
    msurface *ms = calloc(1, sizeof *ms);
    if (!ms)
        return fail("out of memory%s", "");
    int max_log = quick ? 26 : MAX_WS_LOG;
    for (int l = 12; l <= max_log; l += quick ? 2 : 1)
        ms->ws_log[ms->nws++] = l;
    size_t max_ws = (size_t)1 << max_log;
    double target = quick ? 0.012 : 0.03;

    mbench mb = {0};
    mb.a = malloc(max_ws);
    mb.b = malloc(max_ws / 2);
    mb.idx = malloc(max_ws / 8 * sizeof(uint32_t));
    if (!mb.a || !mb.b || !mb.idx) {
        free(mb.a), free(mb.b), free(mb.idx), free(ms);
        return fail("cannot allocate the measurement arrays%s", "");
    }
    for (size_t i = 0; i < max_ws / 8; i++)
        mb.a[i] = (double)(i & 1023);
    /* Touch every page now, so no measurement pays for first-touch faults
     * (a memset to zero could be folded into calloc and touch nothing). */
    memset(mb.b, 0x11, max_ws / 2);

    double t_start = now();
    fprintf(stderr, "dmsg-ctm measure: %d working sets x %d patterns x %d kinds%s\n", ms->nws,
            NPAT, NKINDS, quick ? " (quick)" : "");
    for (int w = 0; w < ms->nws; w++) {
        size_t ws = (size_t)1 << ms->ws_log[w];
        for (int k = 0; k < NKINDS; k++) {
            /* Loads touch one array of ws bytes; copies two of ws/2. */
            size_t n = (k == K_LOAD ? ws : ws / 2) / 8;
            permute(mb.idx, n);
            for (int p = 0; p < NPAT; p++) {
                mb.n = n;
                mb.indexed = p == NPAT - 1;
                /* A stride needs room: at least 8 elements per pass. */
                size_t s = mb.indexed ? 1 : (size_t)1 << p;
                while (s > 1 && n / s < 8)
                    s /= 2;
                mb.s = s;
                ms->eff[k][w][p] = mb.indexed ? -1 : (long)s;
                ms->mbs[k][w][p] = measure_point(&mb, k, target);
            }
        }
        fprintf(stderr, "  %7zu KiB done (%.0f s)\n", ws >> 10, now() - t_start);
    }

    double mc = memcpy_mbs(mb.b, mb.a, max_ws / 2);
    double lat = chase_ns((size_t *)mb.a, (quick ? max_ws : max_ws / 4) / sizeof(size_t));

    printf("this host, working set %zu MiB: MB/s by pattern\n", max_ws >> 20);
    printf("%8s %10s %10s %10s\n", "pattern", "load xC0", "gather xC1", "scatter 1Cx");
    int w = ms->nws - 1;
    for (int p = 0; p < NPAT; p++) {
        char pl[8];
        pat_label(p, pl, sizeof pl);
        printf("%8s %10.1f %10.1f %10.1f\n", pl, ms->mbs[K_LOAD][w][p], ms->mbs[K_GATHER][w][p],
               ms->mbs[K_SCATTER][w][p]);
    }
    printf("memcpy %zu MiB: %.1f MB/s; memory latency (pointer chase): %.1f ns; %.0f s total\n",
           max_ws >> 21, mc, lat, now() - t_start);

    int rc = 0;
    if (csv && write_csv(csv, ms) == 0)
        printf("wrote %s\n", csv);
    else if (csv)
        rc = 1;
    if (png && write_png(png, ms) == 0)
        printf("wrote %s\n", png);
    else if (png)
        rc = 1;
    if (mout && write_machine(mout, ms, mc, lat) == 0) {
        dmsg_machine m;
        if (load_machine(mout, &m) == 0)
            printf("wrote %s (loads back as machine '%s')\n", mout, m.name);
        else
            rc = 1;
    } else if (mout) {
        rc = 1;
    }
    free(mb.a), free(mb.b), free(mb.idx), free(ms);
    return rc;
}

/* ================================================================ tune */

static int cmd_tune(int argc, char **argv)
{
    const char *out = NULL;
    int quick = 0, show = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--out") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--show"))
            show = 1;
        else
            return fail("tune: unknown option '%s'", argv[i]);
    }
    char path[1024], why[1400];
    if (show) {
        dmsg_xfer_params xp = {0};
        dmsg_xfer_host_key(path, sizeof path);
        printf("host: %s\n", path);
        dmsg_xfer_params_tune(&xp, why, sizeof why);
        printf("copy engine: %s\n", why);
        return 0;
    }
    if (!out) {
        if (!dmsg_xfer_profile_path(path, sizeof path))
            return fail("tune: no profile path (set HOME or use --out)%s", "");
        /* The default place is a cache folder that may not exist yet. */
        char dir[1024];
        snprintf(dir, sizeof dir, "%s", path);
        for (char *sl = strchr(dir + 1, '/'); sl; sl = strchr(sl + 1, '/')) {
            *sl = 0;
            if (mkdir(dir, 0755) != 0 && errno != EEXIST)
                return fail("tune: cannot create %s", dir);
            *sl = '/';
        }
        out = path;
    }
    dmsg_xfer_profile p;
    if (dmsg_xfer_calibrate(&p, quick) != DMSG_OK)
        return fail("tune: out of memory%s", "");
    printf("host: %s\n", p.key);
    static const int elems[] = {4, 8, 16};
    for (int c = 0; c < DMSG_XFER_CLASSES; c++)
        for (int z = 0; z < DMSG_XFER_SIZES; z++) {
            const dmsg_xfer_choice *ch = &p.tune[c][z];
            printf("  %2d-byte elements, %s planes: tile %6u bytes/side, line blocks %s: %7.0f "
                   "MB/s (built-in %7.0f MB/s)\n",
                   elems[c], z ? "large" : "small", ch->tile_bytes,
                   ch->blocks == DMSG_XFER_BLOCKS_ON    ? "on  "
                   : ch->blocks == DMSG_XFER_BLOCKS_OFF ? "off "
                                                        : "auto",
                   p.mbs[c][z], p.default_mbs[c][z]);
        }
    for (int c = 0; c < DMSG_XFER_CLASSES; c++) {
        const dmsg_xfer_stream *st = &p.stream[c];
        if (st->mode == DMSG_XFER_STREAM_AUTO)
            continue; /* no streaming kernel for this size */
        printf("  %2d-byte elements, streaming stores: ", elems[c]);
        if (st->mode == DMSG_XFER_STREAM_ON)
            printf("from %llu KiB planes", (unsigned long long)st->from >> 10);
        else
            printf("never");
        printf(" (MB/s streamed/plain:");
        for (int k = 0; k < DMSG_XFER_STREAM_SIZES; k++)
            printf(" %zu KiB %.0f/%.0f", dmsg_xfer_stream_plane(c, k) >> 10, p.stream_mbs[c][k],
                   p.plain_mbs[c][k]);
        printf(")\n");
    }
    if (dmsg_xfer_profile_write(out, &p) != DMSG_OK)
        return fail("tune: cannot write %s", out);
    printf("wrote %s\n", out);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "calc"))
        return cmd_calc(argc - 2, argv + 2);
    if (!strcmp(argv[1], "measure"))
        return cmd_measure(argc - 2, argv + 2);
    if (!strcmp(argv[1], "tune"))
        return cmd_tune(argc - 2, argv + 2);
    if (!strcmp(argv[1], "builtins"))
        return cmd_builtins(argc - 2, argv + 2);
    fprintf(stderr, "dmsg-ctm: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
