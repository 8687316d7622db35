/* The simulated machines, end to end: determinism, causality, costs that
 * match the copy-transfer model, fetch strategies, machine-file errors and
 * 64-PE jobs on this 2-core host. Jobs run through dmsgrun from $DMSG_BUILD. */
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "dmsg/model/ctm.h"
#include "dmsg/model/machine.h"
#include "dmsg/postal/rr.h"
#include "tests/figures.h"

/* dmsg_machine_load with its detail (dmsg_last_error) copied into err. */
static dmsg_status load_machine(const char *name, dmsg_machine *m, char *err, size_t len)
{
    dmsg_status st = dmsg_machine_load(name, m);
    snprintf(err, len, "%s", st ? dmsg_last_error() : "");
    return st;
}

static const char *build(void)
{
    const char *b = getenv("DMSG_BUILD");
    return b && *b ? b : "build";
}

/* Runs `env ENV timeout 600 dmsgrun -n NP PROG ARGS` and returns its exit
 * status; stdout goes to out, stderr to err (each may be NULL). */
static int run(const char *env, int np, const char *prog, const char *args, char *out,
               size_t outlen, char *err, size_t errlen)
{
    char errfile[] = "/tmp/dmsg-simtest-XXXXXX";
    int fd = mkstemp(errfile);
    cr_assert(fd >= 0);
    close(fd);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "env %s timeout 600 %s/bin/dmsgrun -n %d %s %s 2>%s", env, build(),
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
    const char *machines[] = {"t3d", "iwarp", "t3e-vscap", "paragon"};
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
    const char *machines[] = {"t3d", "iwarp", "t3e-vscap"};
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
    cr_assert_eq(load_machine(machine, &m, err, sizeof err), DMSG_OK, "%s", err);
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
                 {"iwarp", "packed", DMSG_MECH_PACKED}, {"t3e-vscap", "chained", DMSG_MECH_CHAINED}};
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

Test(sim, modelled_work_costs_what_the_model_says)
{
    static char out[4096], err[4096];
    dmsg_machine m;
    char why[256];
    cr_assert_eq(load_machine("paragon", &m, why, sizeof why), DMSG_OK, "%s", why);
    cr_assert_eq(run("DMSG_TRANSPORT=sim DMSG_MACHINE=paragon", 2, simprog("work"), "", out,
                     sizeof out, err, sizeof err),
                 0, "%s", err);
    double copy = 4096 * 8 / (dmsg_ctm_copy_mbs(&m, 64, 1, NULL, 0) * 1e6);
    double msgs = 10 * m.overhead_us * 1e-6;
    cr_assert_float_eq(value_after(out, "copy "), copy, copy * 1e-9, "%s", out);
    cr_assert_float_eq(value_after(out, "msgs "), msgs, msgs * 1e-9, "%s", out);
    /* the machine file's estimates: 300 and 50 cycles at the Paragon's 50 MHz */
    cr_assert_float_eq(m.buffer_us, 6.0, 1e-12);
    cr_assert_float_eq(m.match_us, 1.0, 1e-12);
    double bufs = 10 * m.buffer_us * 1e-6, match = 10 * m.match_us * 1e-6;
    cr_assert_float_eq(value_after(out, "bufs "), bufs, bufs * 1e-9, "%s", out);
    cr_assert_float_eq(value_after(out, "match "), match, match * 1e-9, "%s", out);
    cr_assert_eq(run("DMSG_TRANSPORT=shm", 2, simprog("work"), "", out, sizeof out, err,
                     sizeof err),
                 0, "%s", err);
    cr_assert(strstr(out, "work ignored OK"), "%s", out);
}

/* A partner running ahead: an await for k messages ends at the k-th
 * earliest arrival counted, not at the latest (tests/simpe: case drift). */
Test(sim, await_takes_the_kth_arrival)
{
    static char out[4096], err[4096];
    dmsg_machine m;
    char why[256];
    cr_assert_eq(load_machine("t3d", &m, why, sizeof why), DMSG_OK, "%s", why);
    cr_assert_eq(run("DMSG_TRANSPORT=sim DMSG_MACHINE=t3d", 2, simprog("drift"), "", out,
                     sizeof out, err, sizeof err),
                 0, "%s", err);
    double bytes = value_after(out, "bytes "), first = value_after(out, "first "),
           second = value_after(out, "second "), third = value_after(out, "third ");
    /* A and B leave about 2 us apart (overhead, 64 B at 69 MB/s); C 1000 us
     * of work later */
    cr_assert_gt(first, 0, "%s", out);
    cr_assert_float_eq(bytes, first, 1e-12, "the first 64 bytes are A's\n%s", out);
    cr_assert_lt(second - first, 5e-6, "B right after A\n%s", out);
    cr_assert_gt(second, first, "%s", out);
    cr_assert_gt(third - second, 999e-6, "C after the work\n%s", out);
    cr_assert_lt(first, 10e-6, "A's arrival, not C's\n%s", out);
}

/* 63 senders, four arrivals each, one counter: the early awaits end at the
 * early arrivals (the arrival log grows with the PE count; with the fixed
 * 4 KiB of before, 252 records overflowed it and postal's FFT at 128 nodes
 * took 288 ms a step instead of 14 ms). */
Test(sim, await_takes_early_arrivals_of_many_senders, .timeout = 600)
{
    static char out[4096], err[8192];
    cr_assert_eq(run("DMSG_TRANSPORT=sim DMSG_MACHINE=t3d DMSG_TIMEOUT=300", 64, simprog("fanin"),
                     "", out, sizeof out, err, sizeof err),
                 0, "%s", err);
    double early = value_after(out, "early "), late = value_after(out, "late ");
    cr_assert_gt(early, 0, "%s", out);
    cr_assert_lt(early, 1000e-6, "the early arrivals, not the late ones\n%s", out);
    cr_assert_gt(late, 1000e-6, "%s", out);
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
        snprintf(env, sizeof env, "DMSG_TRANSPORT=sim DMSG_MACHINE=t3e-vscap DMSG_SIM_FETCH=%s",
                 strat[i]);
        cr_assert_eq(run(env, 2, simprog("fetch"), "", out, sizeof out, err, sizeof err), 0, "%s",
                     err);
        t[i] = value_after(out, "fetch ");
    }
    dmsg_machine m;
    char e[256];
    cr_assert_eq(load_machine("t3e-vscap", &m, e, sizeof e), DMSG_OK);
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
    /* One PE: only rank 0 reports a bad description, and with more PEs another
     * one's failure may stop the job before it has (seen under ASan). */
    int rc = run(env, 1, simprog("clocks"), "", NULL, 0, err, sizeof err);
    unlink(path);
    cr_assert_neq(rc, 0);
    cr_assert(strstr(err, ":3:") != NULL, "stderr should name line 3: %s", err);
    /* An absurd value in a complete description: file, line and key. */
    char text[4096] = "";
    for (int i = 0; i < dmsg_machine_nbuiltins; i++)
        if (!strcmp(dmsg_machine_builtins[i].name, "t3d"))
            snprintf(text, sizeof text, "%s", dmsg_machine_builtins[i].text);
    char *o = strstr(text, "msg.overhead_us = 1 ");
    cr_assert_not_null(o);
    memcpy(o, "msg.overhead_us=1e29", 20);
    int line = 1;
    for (char *q = text; q < o; q++)
        line += *q == '\n';
    strcpy(path, "/tmp/dmsg-bad-XXXXXX");
    fd = mkstemp(path);
    cr_assert(fd >= 0);
    f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    snprintf(env, sizeof env, "DMSG_TRANSPORT=sim DMSG_MACHINE=%s", path);
    rc = run(env, 1, simprog("clocks"), "", NULL, 0, err, sizeof err);
    unlink(path);
    cr_assert_neq(rc, 0);
    char want[600];
    snprintf(want, sizeof want, "%s:%d: msg.overhead_us = 1e29 is out of range", path, line);
    cr_assert(strstr(err, want) != NULL, "stderr lacks '%s': %s", want, err);
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
Test(sim, sixty_four_pes_kernels_with_breakdown, .timeout = 1200)
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
static char measure_dir[] = "/tmp/dmsg-measure-XXXXXX";

/* Runs after a failed assertion too (which leaves the test by a jump). */
static void measure_cleanup(void)
{
    char cmd[64];
    if (strstr(measure_dir, "XXXXXX"))
        return;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", measure_dir);
    cr_expect_eq(system(cmd), 0, "%s", cmd);
}

Test(sim, measure_writes_a_loadable_machine, .timeout = 900, .fini = measure_cleanup)
{
    char *dir = measure_dir;
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
    cr_assert_eq(load_machine(path, &m, err, sizeof err), DMSG_OK, "%s", err);
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
}

/* Settings a machine cannot honour stop the job at dmsg_init and name the
 * setting; nothing runs with a congestion below 1 (0.5 used to make every
 * transfer free). The PEs print nothing: the detail reaches dmsgrun, which
 * says it once for the job (before, rank 0 printed it and dmsgrun did not). */
Test(sim, bad_settings_are_refused)
{
    static char err[4096];
    static const struct {
        const char *env, *want;
    } cases[] = {
        {"DMSG_MACHINE=t3d DMSG_SIM_CONGESTION=0.5", "DMSG_SIM_CONGESTION=0.5"},
        {"DMSG_MACHINE=t3d DMSG_SIM_CONGESTION=2000", "DMSG_SIM_CONGESTION=2000"},
        {"DMSG_MACHINE=t3d DMSG_SIM_CONGESTION=-1", "DMSG_SIM_CONGESTION"},
        {"DMSG_MACHINE=t3d DMSG_SIM_FETCH=vector", "DMSG_SIM_FETCH=vector: machine t3d"},
        {"DMSG_MACHINE=paragon DMSG_SIM_FETCH=pipelined", "DMSG_SIM_FETCH=pipelined"},
        {"DMSG_MACHINE=t3e-scap DMSG_SIM_FETCH=vector", "DMSG_SIM_FETCH=vector: machine t3e-scap"},
        {"DMSG_MACHINE=t3e", "DMSG_MACHINE=t3e: machine: unknown machine 't3e'"},
        {"DMSG_MACHINE=t3d DMSG_SIM_MECH=fast", "DMSG_SIM_MECH=fast is not one of: auto packed"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char env[256];
        snprintf(env, sizeof env, "DMSG_TRANSPORT=sim %s", cases[i].env);
        int rc = run(env, 2, simprog("clocks"), "", NULL, 0, err, sizeof err);
        cr_assert_neq(rc, 0, "%s was accepted", cases[i].env);
        /* dmsgrun refuses what its own check of the settings finds before
         * it starts the job, the rest once a PE could not start. */
        char line[300];
        snprintf(line, sizeof line, " could not start: %s", cases[i].want);
        const char *at = strstr(err, line), *first = strstr(err, cases[i].want);
        if (at == NULL) {
            snprintf(line, sizeof line, "dmsgrun: %s", cases[i].want);
            at = strstr(err, line);
        }
        cr_assert(at != NULL,
                  "%s: dmsgrun does not say '%s': %s", cases[i].env, line, err);
        cr_assert(first == at + strlen(line) - strlen(cases[i].want) &&
                      strstr(first + 1, cases[i].want) == NULL,
                  "%s: '%s' said more than once: %s", cases[i].env, cases[i].want, err);
    }
    /* Congestion 1 and 4 are fine, and 4 makes a transfer slower than 1. */
    static char out[4096];
    cr_assert_eq(run("DMSG_TRANSPORT=sim DMSG_MACHINE=t3d DMSG_SIM_CONGESTION=1", 2,
                     simprog("xfer"), "1 1 4096", out, sizeof out, err, sizeof err), 0, "%s", err);
    double c1 = value_after(out, "send ");
    cr_assert_eq(run("DMSG_TRANSPORT=sim DMSG_MACHINE=t3d DMSG_SIM_CONGESTION=4", 2,
                     simprog("xfer"), "1 1 4096", out, sizeof out, err, sizeof err), 0, "%s", err);
    cr_assert_gt(value_after(out, "send "), c1);
}

/* ---- Published figures through the simulator (2 PEs unless said). */

/* Runs sim_prog CASE ARGS on machine with extra settings; returns the value
 * printed after key. */
static double sim_value(const char *machine, const char *extra, const char *c, const char *args,
                        const char *key)
{
    static char out[4096], err[4096];
    char env[256];
    snprintf(env, sizeof env, "DMSG_TRANSPORT=sim DMSG_MACHINE=%s %s", machine, extra);
    cr_assert_eq(run(env, 2, simprog(c), args, out, sizeof out, err, sizeof err), 0,
                 "%s %s %s: %s", env, c, args, err);
    return value_after(out, key);
}

Test(simfig, t3d_copy_transfer)
{
    /* 32768 words: the per-message costs (2 us) are below 0.02% of the time. */
    double a = sim_value("t3d", "DMSG_SIM_MECH=packed", "xfer", "16 1 32768", "mbs ");
    figure("T3D 16Q1 buffer packing, congestion 2 (sim deposit)", "MB/s", 18.4, a, 0.10,
           "estimate", "sim simfig/t3d_copy_transfer");
    double b = sim_value("t3d", "DMSG_SIM_MECH=packed", "xfer", "1 1024 4096", "mbs ");
    figure("T3D 1Q1024 buffer packing, congestion 2 (sim deposit)", "MB/s", 25.0, b, 0.10,
           "estimate", "sim simfig/t3d_copy_transfer");
}

Test(simfig, paragon_chained)
{
    double a = sim_value("paragon", "DMSG_SIM_MECH=chained", "xfer", "1 16 32768", "mbs ");
    figure("Paragon 1Q'16 chained (sim deposit)", "MB/s", 32, a, 0.10, "estimate",
           "sim simfig/paragon_chained");
    double b = sim_value("paragon", "DMSG_SIM_MECH=chained", "xfer", "16 1 32768", "mbs ");
    figure("Paragon 16Q'1 chained (sim deposit)", "MB/s", 42, b, 0.10, "estimate",
           "sim simfig/paragon_chained");
}

Test(simfig, t3e_scap)
{
    double tb = sim_value("t3e-scap", "DMSG_SIM_FETCH=blocking", "fetch", "128 4", "fetch ");
    figure("T3E (SCAP 1997) k = 128 remote reads, blocking (sim fetch)", "us", 190.67, tb * 1e6,
           0.10, "estimate", "sim simfig/t3e_scap");
    double tp = sim_value("t3e-scap", "DMSG_SIM_FETCH=pipelined", "fetch", "128 4", "fetch ");
    figure("T3E (SCAP 1997) k = 128, SCAP pipelined (sim fetch)", "us", 20.48, tp * 1e6, 0.10,
           "estimate", "sim simfig/t3e_scap");
    figure("T3E (SCAP 1997) speed-up over blocking c = T_L / dt_p (sim fetch)", "x", 1489.6 / 160,
           tb / tp, 0.10, "estimate", "sim simfig/t3e_scap");
    double t1 = sim_value("t3e-scap", "DMSG_SIM_FETCH=pipelined", "fetch", "8 4", "fetch ");
    figure("T3E (SCAP 1997) class 1, k = 8: T = T_L (sim fetch)", "ns", 1489.6, t1 * 1e9, 0.10,
           "estimate", "sim simfig/t3e_scap");
    /* auto picks the prefetch window on the 1997 machine (no vectors). */
    cr_assert_float_eq(sim_value("t3e-scap", "", "fetch", "128 4", "fetch "), tp, 1e-15);
}

Test(simfig, t3e_vscap)
{
    const char *m = "t3e-vscap";
    double s = sim_value(m, "DMSG_SIM_FETCH=pipelined", "fetch", "64 4", "fetch ");
    double v = sim_value(m, "DMSG_SIM_FETCH=vector", "fetch", "64 4", "fetch ");
    figure("T3E-900 VSCAP / SCAP speed-up, V = K = 64 (sim fetch)", "x", 7.8, s / v, 0.10,
           "estimate", "sim simfig/t3e_vscap");
    figure("T3E-900 (VSCAP 2000) (L,L) case 1, K = 64 (sim fetch)", "ns",
           8 * 144 + 1480 + 7 * 13.3, v * 1e9, 0.10, "estimate", "sim simfig/t3e_vscap");
    double c2 = sim_value(m, "DMSG_SIM_FETCH=vector", "fetch", "96 1", "fetch ");
    figure("T3E-900 (VSCAP 2000) (L,L) case 2, K = 96 (sim fetch)", "ns", 12 * (146 + 144),
           c2 * 1e9, 0.10, "estimate", "sim simfig/t3e_vscap");
    double c3 = sim_value(m, "DMSG_SIM_FETCH=vector", "fetch", "1024 2", "fetch ");
    figure("T3E-900 (VSCAP 2000) (L,L) case 3, K = 1024 (sim fetch)", "ns",
           128 * (146 + 144) - (1024 - 128 + 8) / 8 * 44, c3 * 1e9, 0.10, "estimate",
           "sim simfig/t3e_vscap");
    /* Indexed fetches: (1,L) with the indirect gather kernel's t_v = 462 and
     * t_z^L = 183 ns; the latency bounds at K = 64, the accesses at 1024. */
    double g = sim_value(m, "DMSG_SIM_FETCH=vector", "fetch", "64 0", "fetch ");
    figure("T3E-900 (VSCAP 2000) (1,L) indexed gather, K = 64 (sim fetch)", "ns", 64 * 462 + 1480,
           g * 1e9, 0.10, "estimate", "sim simfig/t3e_vscap");
    g = sim_value(m, "DMSG_SIM_FETCH=vector", "fetch", "1024 0", "fetch ");
    figure("T3E-900 (VSCAP 2000) (1,L) indexed gather, K = 1024 (sim fetch)", "ns",
           1024 * 462 + 128 * 183, g * 1e9, 0.10, "estimate", "sim simfig/t3e_vscap");
    double b = sim_value(m, "DMSG_SIM_FETCH=blocking", "fetch", "64 4", "fetch ");
    figure("T3E-900 blocking access (sim fetch, per element)", "ns", 1880, b * 1e9 / 64, 0.10,
           "measured (input)", "sim simfig/t3e_vscap");
}

Test(simfig, t3d_remote_access_and_barrier)
{
    double b = sim_value("t3d", "DMSG_SIM_FETCH=blocking", "fetch", "8192 4", "fetch ");
    figure("T3D remote uncached read (sim fetch, per word)", "ns", 610, b * 1e9 / 8192, 0.10,
           "measured (input)", "sim simfig/t3d_remote_access_and_barrier");
    double p = sim_value("t3d", "DMSG_SIM_FETCH=pipelined", "fetch", "8192 4", "fetch ");
    figure("T3D prefetch queue, pipelined: 31 cycles per word (sim fetch)", "ns", 31 / 0.150,
           p * 1e9 / 8192, 0.10, "measured (input)", "sim simfig/t3d_remote_access_and_barrier");
    double h = sim_value("t3d", "", "barrier", "", "barrier ");
    figure("T3D hardware barrier (sim dmsg_sync)", "us", 1, h * 1e6, 0.10, "measured (input)",
           "sim simfig/t3d_remote_access_and_barrier");
}

/* The iWarp's DMSG library: send plus receive overhead per message, 400
 * cycles; the sender-buffered variant (125 cycles) is a copy of the machine
 * file with that overhead. */
Test(simfig, iwarp_message_overhead)
{
    double a = sim_value("iwarp", "", "xfer", "1 1 1", "send ");
    figure("iWarp DMSG per-message overhead, 8-byte deposit (sim)", "us", 20, a * 1e6, 0.10,
           "measured (input)", "sim simfig/iwarp_message_overhead");
    char text[4096] = "", path[] = "/tmp/dmsg-iwarp-XXXXXX";
    for (int i = 0; i < dmsg_machine_nbuiltins; i++)
        if (!strcmp(dmsg_machine_builtins[i].name, "iwarp"))
            snprintf(text, sizeof text, "%s", dmsg_machine_builtins[i].text);
    char *o = strstr(text, "msg.overhead_us = 20 ");
    cr_assert_not_null(o);
    memcpy(o, "msg.overhead_us=6.25", 20);
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    double b = sim_value(path, "", "xfer", "1 1 1", "send ");
    unlink(path);
    figure("iWarp sender-buffered variant, 8-byte deposit (sim, overhead 6.25 us)", "us", 6.25,
           b * 1e6, 0.10, "measured (input)", "sim simfig/iwarp_message_overhead");
}

/* The worked example's pattern as a whole program: the transpose example on
 * 64 simulated T3D nodes with buffer packing, throughput per PE. */
Test(simfig, t3d_transpose_64_nodes, .timeout = 1200)
{
    static char out[65536], err[65536];
    char prog[512];
    snprintf(prog, sizeof prog, "%s/examples/transpose", build());
    cr_assert_eq(run("DMSG_TRANSPORT=sim DMSG_MACHINE=t3d DMSG_SIM_MECH=packed", 64, prog, "1024 1",
                     out, sizeof out, err, sizeof err), 0, "%s", err);
    double pe0 = value_after(out, "PE   0:");
    figure("T3D transpose 1Q1024 packed, 64 nodes, per PE (sim example vs model)", "MB/s", 25.0,
           pe0, 0.10, "estimate", "sim simfig/t3d_transpose_64_nodes");
    figure("T3D transpose 1Q1024 packed, 64 nodes, per PE (sim example vs measured)", "MB/s", 20.0,
           pe0, -1, "measured", "sim simfig/t3d_transpose_64_nodes");
}

/* Buffer packing books its two copies as copies, also the 1C1 copies of a
 * contiguous deposit: docs/simulator.md says so. */
Test(sim, packing_copies_are_booked_as_copies)
{
    dmsg_machine m;
    char e[256];
    cr_assert_eq(load_machine("t3d", &m, e, sizeof e), DMSG_OK, "%s", e);
    double bytes = 1024 * 8;
    double copy = sim_value("t3d", "DMSG_SIM_MECH=packed", "xfer", "1 1 1024", "copy ");
    cr_assert_float_eq(copy, 2 * bytes / (dmsg_ctm_copy_mbs(&m, 1, 1, NULL, 0) * 1e6), 1e-12);
    copy = sim_value("t3d", "DMSG_SIM_MECH=packed", "xfer", "64 1 1024", "copy ");
    cr_assert_float_eq(copy, bytes / 33.3e6 + bytes / 93e6, 1e-12);
    cr_assert_eq(sim_value("t3d", "DMSG_SIM_MECH=auto", "xfer", "1 1 1024", "copy "), 0);
    /* The halo example with packing forced: its breakdown shows copies. */
    static char out[8192], err[8192];
    char prog[512];
    snprintf(prog, sizeof prog, "%s/examples/halo", build());
    cr_assert_eq(run("DMSG_TRANSPORT=sim DMSG_MACHINE=t3d DMSG_SIM_MECH=packed DMSG_SIM_REPORT=1",
                     2, prog, "256 4", out, sizeof out, err, sizeof err), 0, "%s", err);
    const char *row = strstr(err, "\n     0 ");
    cr_assert_not_null(row, "%s", err);
    double v[4];
    cr_assert_eq(sscanf(row, " 0 %lf %lf %lf %lf", &v[0], &v[1], &v[2], &v[3]), 4, "%s", row);
    /* 4 iterations, one 2 KiB row to its one neighbour, two 1C1 copies per
     * row; PE 0's 4-byte verdict to itself (a local copy) adds 0.04 us. */
    cr_assert_float_eq(v[2], 4 * 2 * 2048 / 93.0 + 4 / 93.0, 1e-3, "copies %g: %s", v[2], err);
}

/* Ordered delivery (tests/simpe: case order): a request that lands late in
 * host time but arrives early in virtual time is served first. On a
 * transport without virtual time the order calls refuse. */
Test(sim, rrmsg_serves_requests_in_virtual_time_order)
{
    static char out[4096], err[4096];
    cr_assert_eq(run("DMSG_TRANSPORT=sim DMSG_MACHINE=t3d", 3, simprog("order"), "", out,
                     sizeof out, err, sizeof err),
                 0, "%s", err);
    cr_assert(strstr(out, "first 2 second 1"), "PE 2's request (virtual time 0, sent 300 ms "
                                               "late) must be served before PE 1's:\n%s", out);
    cr_assert_eq(run("DMSG_TRANSPORT=shm", 3, simprog("order"), "", out, sizeof out, err,
                     sizeof err),
                 0, "%s", err);
    cr_assert(strstr(out, "order refused OK"), "%s", out);
}

/* A wildcard all-to-all over RRMSG, whose matches depend on the order in
 * which PEs serve requests: the same matches and clocks on every run,
 * whatever the host's timing (no spinning, all PEs on one core). */
Test(sim, rrmsg_wildcard_exchange_is_deterministic, .timeout = 900)
{
    static char a[8192], b[8192], c[8192], err[4096];
    const char *env = "DMSG_TRANSPORT=sim DMSG_MACHINE=t3d";
    cr_assert_eq(run(env, 6, simprog("rrall"), "3", a, sizeof a, err, sizeof err), 0, "%s", err);
    cr_assert_eq(run("DMSG_TRANSPORT=sim DMSG_MACHINE=t3d DMSG_SPIN=0", 6, simprog("rrall"), "3",
                     b, sizeof b, err, sizeof err),
                 0, "%s", err);
    char prog[600];
    snprintf(prog, sizeof prog, "taskset -c 0 %s", simprog("rrall"));
    cr_assert_eq(run(env, 6, prog, "3", c, sizeof c, err, sizeof err), 0, "%s", err);
    cr_assert(strstr(a, "pe 5 ") != NULL, "%s", a);
    cr_assert_str_eq(a, b, "matches or clocks differ between runs:\n%s\n%s", a, b);
    cr_assert_str_eq(a, c, "matches or clocks differ on one core:\n%s\n%s", a, c);
}

/* Runs one kernel cell on sim and returns its time per step; checks that the
 * split sums to it (the slowest PE's split, tools/kernels/kern_main.c). */
static double kernel_step(const char *mach, int np, const char *kernel, const char *variant,
                          const char *n)
{
    static char out[4096], err[4096];
    char env[256], prog[512], args[128];
    int base = !strcmp(variant, "postal") || !strcmp(variant, "rr");
    snprintf(env, sizeof env, "DMSG_TRANSPORT=sim DMSG_MACHINE=%s DMSG_MAX_COUNTERS=%d", mach,
             2 * np + 256);
    snprintf(prog, sizeof prog, "%s/bin/%s", build(), base ? "postal-kern" : "dmsg-kern");
    snprintf(args, sizeof args, "%s %s %s 0 1 --nocompute", kernel, variant, n);
    cr_assert_eq(run(env, np, prog, args, out, sizeof out, err, sizeof err), 0, "%s %s: %s",
                 kernel, variant, err);
    double t = value_after(out, "t_step="), sum = value_after(out, "comp=") +
                                                   value_after(out, "xfer=") +
                                                   value_after(out, "sync=") +
                                                   value_after(out, "pack=");
    cr_assert_float_eq(sum, t, 1e-6 * t, "%s %s: split %g does not sum to the step %g\n%s",
                       kernel, variant, sum, t, out);
    return t;
}

/* The thesis's order at a small size (chapter 9): DMSG fastest, RRMSG
 * second, PVM-style postal last; T3D, 2D-FFT 128^2 on 8 nodes, where the
 * margins are about 1.3x and 1.8x (docs/kernels.md). */
Test(sim, kernel_variants_keep_the_thesis_order, .timeout = 1200)
{
    double d = kernel_step("t3d", 8, "fft", "dmsg-chained", "128");
    double r = kernel_step("t3d", 8, "fft", "rr", "128");
    double p = kernel_step("t3d", 8, "fft", "postal", "128");
    cr_assert_lt(d, r, "dmsg %g s a step, RRMSG %g", d, r);
    cr_assert_lt(r, p, "RRMSG %g s a step, postal %g", r, p);
}

/* The KERN line of one kernel cell on sim (every figure in it is virtual). */
static void kernel_line(const char *variant, int np, char *line, size_t len)
{
    static char out[8192], err[4096];
    char env[256], prog[512];
    int base = !strcmp(variant, "postal") || !strcmp(variant, "rr");
    snprintf(env, sizeof env,
             "DMSG_TRANSPORT=sim DMSG_SIM_SCHED=1 DMSG_MACHINE=t3d DMSG_MAX_COUNTERS=%d", 2 * np + 256);
    snprintf(prog, sizeof prog, "%s/bin/%s", build(), base ? "postal-kern" : "dmsg-kern");
    char args[128];
    snprintf(args, sizeof args, "fft %s 128 0 1 --nocompute", variant);
    cr_assert_eq(run(env, np, prog, args, out, sizeof out, err, sizeof err), 0, "%s: %s", variant,
                 err);
    const char *k = strstr(out, "KERN ");
    cr_assert_not_null(k, "%s: no KERN line:\n%s", variant, out);
    snprintf(line, len, "%.*s", (int)strcspn(k, "\n"), k);
}

/* The scheduler runs one PE at a time in a fixed order (sim_sched.c), so
 * even postal, whose progress serves whatever it finds, gives the same
 * virtual times on every run: once on a quiet host, once with two busy
 * loops beside it (before the scheduler postal's FFT step on 16 T3D PEs
 * varied by about 1% between runs). */
Test(sim, kernels_are_deterministic_on_a_loaded_host, .timeout = 900)
{
    const char *variants[] = {"postal", "rr", "dmsg-chained"};
    for (int v = 0; v < 3; v++) {
        char a[1024], b[1024];
        kernel_line(variants[v], 16, a, sizeof a);
        pid_t busy[2];
        for (int i = 0; i < 2; i++) {
            busy[i] = fork();
            cr_assert(busy[i] >= 0);
            if (busy[i] == 0) {
                alarm(600); /* never outlives the test */
                for (volatile unsigned long x = 0;; x++)
                    ;
            }
        }
        kernel_line(variants[v], 16, b, sizeof b);
        for (int i = 0; i < 2; i++) {
            kill(busy[i], SIGKILL);
            waitpid(busy[i], NULL, 0);
        }
        cr_assert_str_eq(a, b, "%s: virtual times differ between runs:\n%s\n%s", variants[v], a,
                         b);
    }
}

/* A poll that finds nothing hands the run token over (sim_ctr_read): postal
 * programs that poll with nrecv and probe, and RRMSG's that poll with
 * dmsg_rr_test, finish under the scheduler. Before, the matching work each
 * fruitless nrecv books reset the poll count, so the poller never handed
 * over and the PE it waited for never ran (seed 4: "nrecv polled in vain"
 * after DMSG_TIMEOUT). */
Test(sim, scheduler_hands_over_when_a_poll_finds_nothing, .timeout = 900)
{
    static char err[4096];
    char prog[512];
    snprintf(prog, sizeof prog, "%s/tests/pe_prog", build());
    for (int seed = 2; seed <= 5; seed++) {
        char env[256];
        snprintf(env, sizeof env,
                 "DMSG_TRANSPORT=sim DMSG_SIM_SCHED=1 DMSG_TIMEOUT=120 DMSG_POSTAL_MAILBOX=1K "
                 "PE_POSTAL_SEED=%d",
                 seed);
        cr_assert_eq(run(env, 2 + seed % 2, prog, "postal_random", NULL, 0, err, sizeof err), 0,
                     "postal_random, seed %d: %s", seed, err);
        snprintf(env, sizeof env, "DMSG_TRANSPORT=sim DMSG_SIM_SCHED=1 DMSG_TIMEOUT=120 PE_RR_SEED=%d",
                 seed);
        cr_assert_eq(run(env, 3 + seed % 2, prog, "rr_random_test", NULL, 0, err, sizeof err), 0,
                     "rr_random_test, seed %d: %s", seed, err);
    }
}

/* ---- The postal and RRMSG baselines against the model (tests/simpe: case
 * baselines; docs/simulator.md, "The postal and RRMSG baselines"). One
 * transfer of n doubles read every sx words at PE 0 and written every sy
 * words at PE 1, each way timed from a barrier; the expected virtual times
 * are written term by term from the model (REFERENCE.md 1 and 6, the machine
 * file), not taken from the simulator's code. Every term is booked exactly,
 * so the tolerance is rounding only. */

typedef struct {
    double send, recv;
} side_times;

typedef struct {
    side_times dmsg, postal, rr;
} baseline_times;

/* Seconds to move bytes at mbs MB/s. */
static double at_mbs(double bytes, double mbs)
{
    cr_assert_gt(mbs, 0);
    return bytes / (mbs * 1e6);
}

/* One-way latency of a remote store: half a blocking round trip (the
 * store and its acknowledgement, else a remote read). */
static double latency(const dmsg_machine *m)
{
    return 0.5e-6 * (m->write_us > 0 ? m->write_us : m->read_us);
}

/* A message of `bytes` deposited contiguously into a contiguous buffer (a
 * mailbox slot, a control message): the per-message overhead, the bytes at
 * the direct remote copy 1Q1 = 1S0 || Nd || 0D1, and the latency: the time
 * from its start until it has landed. */
static double message(const dmsg_machine *m, double bytes)
{
    double r11 = dmsg_ctm_remote_mbs(m, 1, 1, DMSG_MECH_AUTO, m->congestion, NULL, NULL, 0);
    return m->overhead_us * 1e-6 + at_mbs(bytes, r11) + latency(m);
}

/* The data of a strided deposit xQy (sx, sy words) as dmsg moves it: the
 * faster mechanism the machine allows, plus the packing copies xC1 and 1Cy
 * if that is buffer packing (the model's xC1 o 1Q1 o 1Cy), overhead and
 * latency. */
static double deposit(const dmsg_machine *m, double bytes, long sx, long sy, dmsg_mech *used)
{
    double mbs = dmsg_ctm_remote_mbs(m, sx, sy, DMSG_MECH_AUTO, m->congestion, used, NULL, 0);
    double t = m->overhead_us * 1e-6 + at_mbs(bytes, mbs) + latency(m);
    if (*used == DMSG_MECH_PACKED)
        t += at_mbs(bytes, dmsg_ctm_copy_mbs(m, sx, 1, NULL, 0)) +
             at_mbs(bytes, dmsg_ctm_copy_mbs(m, 1, sy, NULL, 0));
    return t;
}

/* The expected times of case "baselines" on a loaded machine m. */
static baseline_times expect_baselines(const dmsg_machine *mp, long n, long sx, long sy)
{
    const dmsg_machine m = *mp;
    baseline_times e;
    double bytes = (double)n * 8, o = m.overhead_us * 1e-6, lat = latency(&m);
    double buffer = m.buffer_us * 1e-6, match = m.match_us * 1e-6;
    dmsg_mech used;
    /* (No partner switch anywhere: each PE deposited to the other before.) */

    /* dmsg: one deposit xQy; the receiver's await ends at its arrival. */
    double data = deposit(&m, bytes, sx, sy, &used);
    e.dmsg.send = data - lat;
    e.dmsg.recv = data;

    /* Postal (buffer packing plus buffering): */
    double pack = at_mbs(bytes, dmsg_ctm_copy_mbs(&m, sx, 1, NULL, 0)); /* S.P: xC1 */
    double mailbox = message(&m, CHAN_HDR + bytes); /* header and data into the mailbox: 1Q1 */
    double wake = o + lat; /* after dmsg_quiet (the data has landed) a zero-byte wake-up */
    double unpack = at_mbs(bytes, dmsg_ctm_copy_mbs(&m, 1, sy, NULL, 0)); /* R.U: 1Cy */
    /* the receiver waits from the start: woken, it compares one header (the
     * only landed message) and unpacks. Postal = pack + buffering (buffer,
     * match) + transfer (mailbox) + control (wake-up) + unpack: */
    e.postal.recv = pack + buffer + mailbox + wake + match + unpack;
    /* the sender: its data landed (the quiet), then its wake-up's overhead */
    e.postal.send = pack + buffer + mailbox + o;

    /* RRMSG (the chained or packed transfer plus three control messages): */
    double req = message(&m, CHAN_HDR);                    /* request: a header */
    double resp = message(&m, CHAN_HDR + sizeof(rr_resp)); /* response: header and destination */
    double ack = message(&m, CHAN_HDR);                    /* acknowledgement: a header */
    /* each control message leaves when the previous step has arrived (its
     * wake-up, after the sender's quiet, is off that path); the receiver
     * compares the request with its one posted receive */
    /* RRMSG = transfer (data) + 3 control messages + the match; the sender
     * is done when the ack arrives */
    e.rr.send = req + match + resp + data + ack;
    /* the receiver completes its ack (its arrival) and deposits the wake-up */
    e.rr.recv = e.rr.send + o;
    return e;
}

static side_times measured_side(const char *out, const char *way)
{
    char key[32];
    side_times t;
    snprintf(key, sizeof key, "%s send ", way);
    t.send = value_after(out, key);
    snprintf(key, sizeof key, "%s recv ", way);
    t.recv = value_after(out, key);
    return t;
}

static void check_side(const char *what, side_times got, side_times want, double slack,
                       const char *out)
{
    cr_assert_float_eq(got.send, want.send, want.send * 1e-9,
                       "%s: sender %.4f us, the model says %.4f us\n%s", what, got.send * 1e6,
                       want.send * 1e6, out);
    cr_assert_float_eq(got.recv, want.recv, want.recv * 1e-9,
                       "%s: receiver %.4f us, the model says %.4f us%s\n%s", what,
                       got.recv * 1e6, want.recv * 1e6,
                       fabs(want.recv - got.recv - slack) < 1e-12
                           ? " (short by one wake-up: the receiver found the message before it "
                             "waited, in host time)"
                           : "",
                       out);
}

Test(sim, baselines_cost_what_the_model_says, .timeout = 900)
{
    static char out[4096], err[4096];
    static const struct {
        const char *machine;
        long n, sx, sy;
    } cases[] = {{"t3d", 1024, 8, 1}, {"t3d", 1024, 8, 4}, {"paragon", 1024, 8, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char env[128], args[64], what[160];
        snprintf(env, sizeof env, "DMSG_TRANSPORT=sim DMSG_MACHINE=%s", cases[i].machine);
        snprintf(args, sizeof args, "%ld %ld %ld", cases[i].n, cases[i].sx, cases[i].sy);
        cr_assert_eq(run(env, 2, simprog("baselines"), args, out, sizeof out, err, sizeof err), 0,
                     "%s %s: %s", env, args, err);
        cr_assert(strstr(out, "WRONG DATA") == NULL, "%s", out);
        dmsg_machine m;
        char e[256];
        cr_assert_eq(load_machine(cases[i].machine, &m, e, sizeof e), DMSG_OK, "%s", e);
        baseline_times want = expect_baselines(&m, cases[i].n, cases[i].sx, cases[i].sy);
        baseline_times got = {measured_side(out, "dmsg"), measured_side(out, "postal"),
                              measured_side(out, "rr")};
        snprintf(what, sizeof what, "%s %s dmsg", cases[i].machine, args);
        check_side(what, got.dmsg, want.dmsg, -1, out);
        snprintf(what, sizeof what, "%s %s postal", cases[i].machine, args);
        check_side(what, got.postal, want.postal, m.overhead_us * 1e-6 + latency(&m), out);
        snprintf(what, sizeof what, "%s %s RRMSG", cases[i].machine, args);
        check_side(what, got.rr, want.rr, -1, out);
        /* The thesis's order on the T3D (chapter 9): dmsg, then RRMSG, then
         * PVM-style postal. */
        if (!strcmp(cases[i].machine, "t3d")) {
            cr_assert_lt(got.dmsg.recv, got.rr.recv, "%s", out);
            cr_assert_lt(got.rr.recv, got.postal.recv, "%s", out);
        }
    }
}

/* Atomics and signals cost what docs/simulator.md says: a blocking remote
 * atomic the machine's round trip (remote.amo_us), a signal ping-pong round
 * two zero-byte deposits (overhead plus one-way latency each), the same in
 * every run. */
Test(sim, atomics_and_signals_follow_the_model)
{
    static char out[4096], err[4096];
    static const struct {
        const char *machine;
        double amo_us, overhead_us, latency_us;
    } m[] = {{"t3d", 1, 1, 0.44}, {"paragon", 60, 30, 30}, {"t3e-scap", 1.4896, 2, 0.7448}};
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
        char env[160];
        snprintf(env, sizeof env, "DMSG_TRANSPORT=sim DMSG_MACHINE=%s", m[i].machine);
        double end[2];
        for (int k = 0; k < 2; k++) {
            cr_assert_eq(run(env, 2, simprog("amo"), "", out, sizeof out, err, sizeof err), 0,
                         "%s", err);
            double amo = value_after(out, "amo "), pp = value_after(out, "pingpong ");
            double want_pp = 2e-6 * (m[i].overhead_us + m[i].latency_us);
            cr_assert_float_eq(amo, m[i].amo_us * 1e-6, 1e-12, "%s: amo %g", m[i].machine, amo);
            cr_assert_float_eq(pp, want_pp, want_pp * 1e-9, "%s: ping-pong %g expected %g",
                               m[i].machine, pp, want_pp);
            end[k] = value_after(out, "end ");
        }
        cr_assert_eq(end[0], end[1], "%s: runs differ: %a %a", m[i].machine, end[0], end[1]);
    }
}

/* RRMSG's order waits are woken by the rises of the bounds they wait for
 * (sim_order.c), so under the scheduler no sweep (nobody ready: every
 * parked PE readied, what a missed wake-up costs) is needed. Until
 * November 2026 the job-wide least threshold kept that of a wait long
 * gone, no rise crossed it, and every order wait went on through sweeps;
 * and the engine's counter reads made it park as a poll (FFT 128^2 on 32
 * T3D PEs: hundreds of sweeps, each readying every PE). */
Test(sim, rrmsg_order_waits_need_no_sweep, .timeout = 600)
{
    static char out[8192], err[65536];
    char env[256], prog[512];
    snprintf(env, sizeof env, "DMSG_TRANSPORT=sim DMSG_SIM_SCHED=1 DMSG_MACHINE=t3d "
                              "DMSG_SIM_REPORT=1 DMSG_MAX_COUNTERS=%d", 2 * 32 + 256);
    snprintf(prog, sizeof prog, "%s/bin/postal-kern", build());
    cr_assert_eq(run(env, 32, prog, "fft rr 128 0 1 --nocompute", out, sizeof out, err, sizeof err),
                 0, "%s", err);
    const char *line = strstr(err, "dmsg sim: scheduler: ");
    cr_assert_not_null(line, "no scheduler line in the report:\n%s", err);
    unsigned long long handoffs, sweeps;
    cr_assert_eq(sscanf(line, "dmsg sim: scheduler: %llu hand-offs, %llu sweeps", &handoffs,
                        &sweeps), 2, "%s", line);
    cr_assert_gt(handoffs, 0, "%s", line);
    cr_assert_eq(sweeps, 0, "%.*s", (int)strcspn(line, "\n"), line);
}

/* DMSG_SIM_DROP_PES: a PE that hands the token on drops its page-table
 * entries for the other PEs' parts of the job region (page tables grew as
 * PEs^2: docs/simulator.md, "How many PEs"), never for its own part, and
 * the data stay (the region is a shared memfd). 0 drops in any job; the
 * default (1024) drops nothing in a job of 2 PEs. */
Test(sim, handing_the_token_on_drops_other_pes_pages_not_data)
{
    static char out[4096], err[4096];
    /* Through the mapping: with the file path a run that touched nothing
     * of another PE through the simulator drops nothing (sim_sched.c). */
    cr_assert_eq(run("DMSG_TRANSPORT=sim DMSG_SIM_DROP_PES=0 DMSG_SIM_PWRITE=0", 2, simprog("drop"), "", out,
                     sizeof out, err, sizeof err),
                 0, "%s", err);
    cr_assert_not_null(strstr(out, "before peer 1 own 1"), "the test touched both:\n%s", out);
    cr_assert_not_null(strstr(out, "after peer 0 own 1"), "PE 1's pages dropped, own kept:\n%s",
                       out);
    cr_assert_not_null(strstr(out, "pe 0 bad 0"), "%s", out);
    cr_assert_not_null(strstr(out, "pe 1 bad 0"), "%s", out);
    cr_assert_eq(run("DMSG_TRANSPORT=sim", 2, simprog("drop"), "", out, sizeof out, err,
                     sizeof err),
                 0, "%s", err);
    cr_assert_not_null(strstr(out, "after peer 1 own 1"), "2 PEs <= 1024: nothing dropped\n%s",
                       out);
    cr_assert_not_null(strstr(out, "pe 0 bad 0"), "%s", out);
    cr_assert_not_null(strstr(out, "pe 1 bad 0"), "%s", out);
}

/* A deposit under the scheduler touches of its target's control area only
 * its counter slot and the arrival record it adds: the log's header is in
 * the job area and shm's doorbell is not rung (nobody sleeps on it). With
 * DMSG_SIM_DROP_PES each other page was a fault per deposit after every
 * drop (docs/simulator.md, "How many PEs"). sim_prog's case takes the
 * pages of the log's start and of the doorbell away from the depositor. */
Test(sim, deposit_touches_no_log_header_or_doorbell_of_its_target)
{
    static char out[4096], err[4096];
    cr_assert_eq(run("DMSG_TRANSPORT=sim DMSG_MAX_COUNTERS=256", 2, simprog("guard"), "", out,
                     sizeof out, err, sizeof err),
                 0, "%s", err);
    cr_assert_not_null(strstr(out, "deposit without the doorbell's page done"), "%s", out);
    cr_assert_not_null(strstr(out, "deposit without the log's first page done"), "%s", out);
    cr_assert_not_null(strstr(out, "pe 0 bad 0"), "%s", out);
    cr_assert_not_null(strstr(out, "pe 1 bad 0"), "%s", out);
}

/* DMSG_SIM_DROP_PES=0 with DMSG_SIM_PWRITE (the default): a PE's deposits
 * to another PE go through the job region's file (sim_file.c), mapping
 * nothing of the target: PE 0 deposits with PE 1's whole part taken away
 * from it (mprotect), and PE 1 finds every byte and count. Through the
 * mapping (DMSG_SIM_PWRITE=0) the same deposits kill PE 0. The virtual
 * times are those of the mapping path (the same deposits, unprotected,
 * give the same clocks: checked on the kernels, docs/kernels.md). */
Test(sim, deposits_through_the_file_map_nothing_of_the_target)
{
    static char out[4096], err[4096];
    /* The deposit engine (a thread of PE 0) writes through PE 0's mapping,
     * which the program takes away: the file path's own writes here. */
    cr_assert_eq(run("DMSG_TRANSPORT=sim DMSG_SIM_DROP_PES=0 DMSG_SIM_ENGINE=0", 2, simprog("file"), "", out,
                     sizeof out, err, sizeof err),
                 0, "%s", err);
    cr_assert_not_null(strstr(out, "deposits with PE 1's part taken away done"), "%s", out);
    cr_assert_not_null(strstr(out, "pe 0 bad 0"), "%s", out);
    cr_assert_not_null(strstr(out, "pe 1 bad 0"), "%s\n%s", out, err);
    cr_assert_neq(run("DMSG_TRANSPORT=sim DMSG_SIM_DROP_PES=0 DMSG_SIM_ENGINE=0 DMSG_SIM_PWRITE=0", 2,
                      simprog("file"), "", out, sizeof out, err, sizeof err),
                  0, "through the mapping the protected deposits must fault:\n%s", out);
}

/* The default DMSG_SIM_DROP_PES (16): a job of 16 PEs keeps its deposits
 * on the mapping, one of 17 writes them through the file (hello: every
 * other PE deposits once to PE 0; DMSG_SIM_REPORT counts both ways). */
Test(sim, file_path_by_default_from_17_pes)
{
    static char out[8192], err[16384];
    char prog[512];
    snprintf(prog, sizeof prog, "%s/examples/hello", build());
    cr_assert_eq(run("DMSG_TRANSPORT=sim DMSG_SIM_REPORT=1", 16, prog, "", out, sizeof out, err,
                     sizeof err),
                 0, "%s", err);
    cr_assert_not_null(strstr(err, "0 through the file, 15 through the mapping"), "%s", err);
    cr_assert_eq(run("DMSG_TRANSPORT=sim DMSG_SIM_REPORT=1", 17, prog, "", out, sizeof out, err,
                     sizeof err),
                 0, "%s", err);
    cr_assert_not_null(strstr(err, "16 through the file, 0 through the mapping"), "%s", err);
}

/* The deposit engine (sim_engine.c) changes how the file path's bytes
 * reach their place, never what or when: a wildcard RRMSG all-to-all (6
 * PEs, every deposit through the file) and an FFT 256^2 on 32 T3D nodes
 * print the same clocks, matches and errors with the engine, without it
 * and through the mapping; the report says the engine wrote. */
Test(sim, deposit_engine_changes_no_result, .timeout = 900)
{
    static char a[8192], b[8192], c[8192], err[16384];
    const char *on = "DMSG_TRANSPORT=sim DMSG_MACHINE=t3d DMSG_SIM_DROP_PES=0 DMSG_SIM_REPORT=1";
    const char *off = "DMSG_TRANSPORT=sim DMSG_MACHINE=t3d DMSG_SIM_DROP_PES=0 DMSG_SIM_ENGINE=0";
    const char *map = "DMSG_TRANSPORT=sim DMSG_MACHINE=t3d DMSG_SIM_DROP_PES=4096";
    cr_assert_eq(run(on, 6, simprog("rrall"), "3", a, sizeof a, err, sizeof err), 0, "%s", err);
    cr_assert(strstr(err, "deposit engine: on") != NULL, "%s", err);
    cr_assert(strstr(err, " 0 through the mapping") != NULL, "%s", err);
    cr_assert_eq(run(off, 6, simprog("rrall"), "3", b, sizeof b, err, sizeof err), 0, "%s", err);
    cr_assert_eq(run(map, 6, simprog("rrall"), "3", c, sizeof c, err, sizeof err), 0, "%s", err);
    cr_assert(strstr(a, "pe 5 ") != NULL, "%s", a);
    cr_assert_str_eq(a, b, "the engine changed matches or clocks:\n%s\n%s", a, b);
    cr_assert_str_eq(a, c, "the file path changed matches or clocks:\n%s\n%s", a, c);
    char prog[600];
    snprintf(prog, sizeof prog, "%s/bin/dmsg-kern", build());
    const char *args = "fft dmsg-chained 256 0 1 --nocompute";
    cr_assert_eq(run(on, 32, prog, args, a, sizeof a, err, sizeof err), 0, "%s", err);
    unsigned long long writes = 0;
    const char *w = strstr(err, "deposit engine: on, ");
    cr_assert(w && sscanf(w, "deposit engine: on, %llu writes", &writes) == 1 && writes > 0,
              "%s", err);
    cr_assert_eq(run(off, 32, prog, args, b, sizeof b, err, sizeof err), 0, "%s", err);
    cr_assert_eq(run(map, 32, prog, args, c, sizeof c, err, sizeof err), 0, "%s", err);
    cr_assert(strstr(a, "status=ok") != NULL, "%s", a);
    cr_assert_str_eq(a, b, "the engine changed the kernel's result:\n%s\n%s", a, b);
    cr_assert_str_eq(a, c, "the file path changed the kernel's result:\n%s\n%s", a, c);
}

/* The engine's two other paths: a run of more deposits than its ring
 * holds (a transpose 1024^2 on 32 PEs: one entry a transposed element, the
 * writer waits for room), and writes too large for the ring, which the
 * writer makes itself after the ring is empty (halo rows of 2 KiB; their
 * records still go through the ring): the same results as without it. */
Test(sim, deposit_engine_full_ring_and_large_runs, .timeout = 900)
{
    static char a[8192], b[8192], err[16384];
    const char *on = "DMSG_TRANSPORT=sim DMSG_MACHINE=t3d DMSG_SIM_DROP_PES=0 DMSG_SEGMENT_SIZE=64M";
    const char *off = "DMSG_TRANSPORT=sim DMSG_MACHINE=t3d DMSG_SIM_DROP_PES=0 DMSG_SEGMENT_SIZE=64M "
                      "DMSG_SIM_ENGINE=0";
    char prog[600];
    snprintf(prog, sizeof prog, "%s/bin/dmsg-kern", build());
    const char *args = "transpose dmsg-chained 1024 0 1 --nocompute";
    cr_assert_eq(run(on, 32, prog, args, a, sizeof a, err, sizeof err), 0, "%s", err);
    cr_assert_eq(run(off, 32, prog, args, b, sizeof b, err, sizeof err), 0, "%s", err);
    cr_assert(strstr(a, "status=ok") != NULL, "%s", a);
    cr_assert_str_eq(a, b, "the engine changed the transpose:\n%s\n%s", a, b);
    snprintf(prog, sizeof prog, "%s/examples/halo", build());
    cr_assert_eq(run(on, 4, prog, "256 5", a, sizeof a, err, sizeof err), 0, "%s", err);
    cr_assert_eq(run(off, 4, prog, "256 5", b, sizeof b, err, sizeof err), 0, "%s", err);
    cr_assert(strstr(a, "OK (0 PEs differ") != NULL, "%s", a);
    cr_assert_str_eq(a, b, "the engine changed the halo exchange:\n%s\n%s", a, b);
}

/* A PE sleeping under the scheduler wakes when it is handed the token (or
 * at its deadline, or when the job is torn down), not every 100 ms to look
 * at the abort flag: 4095 sleepers did so 41,000 times a second on the
 * host's 2 cores. PE 0 holds the token for 3 s of host time; each of the
 * others went to sleep about 30 times meanwhile before, and now a handful
 * (one look a second, sim_sched.c's slice, and the barrier's hand-offs). */
Test(sim, sleepers_wake_only_when_handed_the_token, .timeout = 600)
{
    static char out[4096], err[4096];
    cr_assert_eq(run("DMSG_TRANSPORT=sim", 4, simprog("sleep"), "3", out, sizeof out, err,
                     sizeof err),
                 0, "%s", err);
    for (int pe = 1; pe < 4; pe++) {
        char key[64];
        snprintf(key, sizeof key, "sleeper %d slept ", pe);
        double n = value_after(out, key);
        cr_expect(n < 12, "PE %d went to sleep %.0f times in 3 s:\n%s", pe, n, out);
    }
}
