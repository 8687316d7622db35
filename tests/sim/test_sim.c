/* The simulated machines, end to end: determinism, causality, costs that
 * match the copy-transfer model, fetch strategies, machine-file errors and
 * 64-PE jobs on this 2-core host. Jobs run through dmsgrun from $DMSG_BUILD. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "dmsg/model/ctm.h"
#include "dmsg/model/machine.h"

static const char *build(void)
{
    const char *b = getenv("DMSG_BUILD");
    return b && *b ? b : "build";
}

/* Runs `env ENV timeout 120 dmsgrun -n NP PROG ARGS` and returns its exit
 * status; stdout goes to out, stderr to err (each may be NULL). */
static int run(const char *env, int np, const char *prog, const char *args, char *out,
               size_t outlen, char *err, size_t errlen)
{
    char errfile[] = "/tmp/dmsg-simtest-XXXXXX";
    int fd = mkstemp(errfile);
    cr_assert(fd >= 0);
    close(fd);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "env %s timeout 120 %s/bin/dmsgrun -n %d %s %s 2>%s", env, build(),
             np, prog, args, errfile);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t n = out ? fread(out, 1, outlen - 1, p) : 0;
    if (out)
        out[n] = '\0';
    else
        while (fgetc(p) != EOF)
            ;
    int st = pclose(p);
    FILE *e = fopen(errfile, "r");
    if (e && err) {
        size_t m = fread(err, 1, errlen - 1, e);
        err[m] = '\0';
    }
    if (e)
        fclose(e);
    unlink(errfile);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static char *simprog(const char *c)
{
    static char buf[512];
    snprintf(buf, sizeof buf, "%s/tests/sim_prog %s", build(), c);
    return buf;
}

static double value_after(const char *out, const char *key)
{
    const char *p = strstr(out, key);
    cr_assert_not_null(p, "no '%s' in output:\n%s", key, out);
    return strtod(p + strlen(key), NULL);
}

Test(sim, deterministic_across_runs_spinning_and_cores)
{
    static char a[8192], b[8192], c[8192], err[4096];
    const char *machines[] = {"t3d", "iwarp", "t3e", "paragon"};
    for (int m = 0; m < 4; m++) {
        char env[256];
        snprintf(env, sizeof env, "DMSG_TRANSPORT=sim DMSG_MACHINE=%s", machines[m]);
        cr_assert_eq(run(env, 5, simprog("clocks"), "", a, sizeof a, err, sizeof err), 0, "%s",
                     err);
        /* Same program, other host timing: no spinning, and all PEs on one core. */
        char env2[300];
        snprintf(env2, sizeof env2, "%s DMSG_SPIN=0", env);
        cr_assert_eq(run(env2, 5, simprog("clocks"), "", b, sizeof b, err, sizeof err), 0);
        char prog[600];
        snprintf(prog, sizeof prog, "taskset -c 0 %s", simprog("clocks"));
        cr_assert_eq(run(env, 5, prog, "", c, sizeof c, err, sizeof err), 0, "%s", err);
        cr_assert_str_eq(a, b, "%s: virtual times differ between runs", machines[m]);
        cr_assert_str_eq(a, c, "%s: virtual times differ on one core", machines[m]);
        cr_assert(strstr(a, "clock 4 ") != NULL);
        cr_assert(value_after(a, "clock 0 ") > 0);
    }
}

Test(sim, causality_and_monotonic_clocks)
{
    static char out[8192], err[4096];
    const char *machines[] = {"t3d", "iwarp", "t3e"};
    for (int m = 0; m < 3; m++)
        for (int np = 2; np <= 8; np *= 2) {
            char env[128];
            snprintf(env, sizeof env, "DMSG_TRANSPORT=sim DMSG_MACHINE=%s", machines[m]);
            cr_assert_eq(run(env, np, simprog("causality"), "", out, sizeof out, err, sizeof err),
                         0, "%s at %d PEs: %s", machines[m], np, err);
            cr_assert(strstr(out, "causality OK") != NULL);
        }
}

/* Expected virtual cost of case "cost" by the model, computed independently. */
static void expect_cost(const char *machine, dmsg_mech mech, double *send, double *recv)
{
    dmsg_machine m;
    char err[256];
    cr_assert_eq(dmsg_machine_load(machine, &m, err, sizeof err), DMSG_OK, "%s", err);
    double bytes = 4096 * 8;
    double mbs = dmsg_ctm_remote_mbs(&m, 64, 1, mech, m.congestion, NULL, NULL, 0);
    cr_assert(mbs > 0);
    *send = (m.partner_us + m.overhead_us) * 1e-6 + bytes / (mbs * 1e6);
    *recv = *send + 0.5e-6 * (m.write_us > 0 ? m.write_us : m.read_us);
}

Test(sim, deposit_cost_follows_the_model)
{
    static char out[4096], err[4096];
    struct {
        const char *machine, *mech;
        dmsg_mech m;
    } cases[] = {{"t3d", "packed", DMSG_MECH_PACKED},   {"t3d", "chained", DMSG_MECH_CHAINED},
                 {"t3d", "auto", DMSG_MECH_AUTO},       {"paragon", "auto", DMSG_MECH_AUTO},
                 {"iwarp", "packed", DMSG_MECH_PACKED}, {"t3e", "chained", DMSG_MECH_CHAINED}};
    double t3d_packed = 0, t3d_chained = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char env[160];
        snprintf(env, sizeof env, "DMSG_TRANSPORT=sim DMSG_MACHINE=%s DMSG_SIM_MECH=%s",
                 cases[i].machine, cases[i].mech);
        cr_assert_eq(run(env, 2, simprog("cost"), "", out, sizeof out, err, sizeof err), 0, "%s",
                     err);
        double send, recv;
        expect_cost(cases[i].machine, cases[i].m, &send, &recv);
        double got_send = value_after(out, "send "), got_recv = value_after(out, "recv ");
        cr_assert_float_eq(got_send, send, send * 1e-9, "%s %s: send %g expected %g",
                           cases[i].machine, cases[i].mech, got_send, send);
        cr_assert_float_eq(got_recv, recv, recv * 1e-9, "%s %s: recv %g expected %g",
                           cases[i].machine, cases[i].mech, got_recv, recv);
        if (i == 0)
            t3d_packed = send;
        if (i == 1)
            t3d_chained = send;
    }
    /* T3D 64Q1: the deposit engine stores contiguously, so chaining the strided
     * loads avoids the packing copy and is faster. */
    cr_assert_lt(t3d_chained, t3d_packed);
}

Test(sim, chained_refused_where_the_hardware_cannot)
{
    static char err[4096];
    int rc = run("DMSG_TRANSPORT=sim DMSG_MACHINE=iwarp DMSG_SIM_MECH=chained", 2, simprog("cost"),
                 "", NULL, 0, err, sizeof err);
    cr_assert_neq(rc, 0);
    cr_assert(strstr(err, "DMSG_SIM_MECH=chained") != NULL, "stderr: %s", err);
}

Test(sim, fetch_strategies_on_the_t3e)
{
    static char out[4096], err[4096];
    const char *strat[] = {"blocking", "pipelined", "vector"};
    double t[3];
    for (int i = 0; i < 3; i++) {
        char env[128];
        snprintf(env, sizeof env, "DMSG_TRANSPORT=sim DMSG_MACHINE=t3e DMSG_SIM_FETCH=%s",
                 strat[i]);
        cr_assert_eq(run(env, 2, simprog("fetch"), "", out, sizeof out, err, sizeof err), 0, "%s",
                     err);
        t[i] = value_after(out, "fetch ");
    }
    dmsg_machine m;
    char e[256];
    cr_assert_eq(dmsg_machine_load("t3e", &m, e, sizeof e), DMSG_OK);
    /* blocking: one remote read per word, plus the partner switch. */
    cr_assert_float_eq(t[0], 8192 * m.read_us * 1e-6 + m.partner_us * 1e-6, 1e-12);
    cr_assert_lt(t[1], t[0] / 4, "SCAP pipelining hides most of the latency");
    cr_assert_lt(t[2], t[1], "vector commands beat single prefetches");
}

Test(sim, bad_machine_file_names_file_and_line)
{
    static char err[4096];
    char path[] = "/tmp/dmsg-bad-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("name = bad\n# a comment\ncopy.1C1 = fast\n", f);
    fclose(f);
    char env[256];
    snprintf(env, sizeof env, "DMSG_TRANSPORT=sim DMSG_MACHINE=%s", path);
    int rc = run(env, 2, simprog("clocks"), "", NULL, 0, err, sizeof err);
    unlink(path);
    cr_assert_neq(rc, 0);
    cr_assert(strstr(err, ":3:") != NULL, "stderr should name line 3: %s", err);
    rc = run("DMSG_TRANSPORT=sim DMSG_MACHINE=no-such-machine", 1, simprog("clocks"), "", NULL, 0,
             err, sizeof err);
    cr_assert_neq(rc, 0);
    cr_assert(strstr(err, "no-such-machine") != NULL, "stderr: %s", err);
}

Test(sim, times_breakdown)
{
    static char out[8192], err[4096];
    cr_assert_eq(run("DMSG_TRANSPORT=sim", 3, simprog("times"), "", out, sizeof out, err,
                     sizeof err), 0, "%s", err);
    cr_assert(strstr(out, "times OK") != NULL);
    cr_assert_eq(run("DMSG_TRANSPORT=shm", 2, simprog("times"), "", out, sizeof out, err,
                     sizeof err), 0, "%s", err);
    cr_assert(strstr(out, "times unsupported OK") != NULL);
}

/* 64 PEs on 2 cores: the waits sleep, so the job finishes quickly. */
Test(sim, sixty_four_pes_kernels_with_breakdown, .timeout = 300)
{
    static char out[65536], err[65536];
    const char *machines[] = {"t3d", "iwarp"};
    const char *kernels[] = {"transpose 256 2", "halo 128 5", "gather 1024 100"};
    for (int m = 0; m < 2; m++)
        for (int k = 0; k < 3; k++) {
            char env[200], prog[512];
            snprintf(env, sizeof env,
                     "DMSG_TRANSPORT=sim DMSG_MACHINE=%s DMSG_SIM_REPORT=1 DMSG_SEGMENT_SIZE=4M",
                     machines[m]);
            snprintf(prog, sizeof prog, "%s/examples/%s", build(), kernels[k]);
            struct timespec t0, t1;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            int rc = run(env, 64, prog, "", out, sizeof out, err, sizeof err);
            clock_gettime(CLOCK_MONOTONIC, &t1);
            double wall = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
            cr_assert_eq(rc, 0, "%s %s: %s", machines[m], kernels[k], err);
            cr_assert(strstr(out, "OK") != NULL, "%s", out);
            cr_assert(strstr(err, "dmsg sim: machine") != NULL, "no breakdown: %s", err);
            cr_assert(strstr(err, "\n    63 ") != NULL, "breakdown lacks PE 63: %s", err);
            cr_assert_lt(wall, 60, "%s %s took %.1f s of wall time", machines[m], kernels[k], wall);
        }
}

/* dmsg-ctm measure characterizes this host and writes a machine description
 * that the simulator loads ("this host" beside "T3D"). */
Test(sim, measure_writes_a_loadable_machine, .timeout = 120)
{
    char dir[] = "/tmp/dmsg-measure-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "%s/bin/dmsg-ctm measure --quick --csv %s/m.csv --png %s/m.png "
             "--machine-out %s/host.machine >/dev/null 2>&1",
             build(), dir, dir, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    char path[600];
    snprintf(path, sizeof path, "%s/host.machine", dir);
    dmsg_machine m;
    char err[256];
    cr_assert_eq(dmsg_machine_load(path, &m, err, sizeof err), DMSG_OK, "%s", err);
    cr_assert_gt(dmsg_ctm_copy_mbs(&m, 1, 1, NULL, 0), 0);
    snprintf(path, sizeof path, "%s/m.csv", dir);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    int lines = 0, c;
    while ((c = fgetc(f)) != EOF)
        lines += c == '\n';
    fclose(f);
    cr_assert_gt(lines, 20, "CSV has %d lines", lines);
    snprintf(path, sizeof path, "%s/m.png", dir);
    f = fopen(path, "rb");
    cr_assert_not_null(f, "no PNG (is gnuplot installed?)");
    unsigned char sig[4] = {0};
    cr_assert_eq(fread(sig, 1, 4, f), 4);
    fclose(f);
    cr_assert(sig[1] == 'P' && sig[2] == 'N' && sig[3] == 'G');
    snprintf(cmd, sizeof cmd,
             "env DMSG_TRANSPORT=sim DMSG_MACHINE=%s/host.machine %s/bin/dmsgrun -n 2 "
             "%s/examples/transpose 64 >/dev/null 2>&1",
             dir, build(), build());
    cr_assert_eq(system(cmd), 0, "the host machine file does not run: %s", cmd);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}
