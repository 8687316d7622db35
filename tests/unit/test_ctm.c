/* Copy-transfer model and machine descriptions: the published worked
 * example, composition rules, stride interpolation, mechanism choice, the
 * SCAP/VSCAP formulas on hand-computed values, parse errors, and the
 * built-in descriptions against the files in machines/. Runs from the repo
 * root (make test). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dmsg/model/ctm.h"
#include "dmsg/model/machine.h"

static dmsg_machine load(const char *name)
{
    dmsg_machine m;
    char err[512] = "";
    cr_assert_eq(dmsg_machine_load(name, &m, err, sizeof err), DMSG_OK, "%s: %s", name, err);
    return m;
}

/* A small user-written machine; each error test breaks one line of it. */
static const char *const good_lines[] = {
    "# a user-written machine\n",
    "name = toy\n",
    "description = toy machine for tests\n",
    "clock_mhz = 100  # trailing comment\n",
    "nodes = 16\n",
    "copy.1C1 = 100\n",
    "copy.1C16 = 50\n",
    "copy.16C1 = 40\n",
    "send.1S0 = 200\n",
    "send.1F0 = none\n",
    "recv.0D1 = 300\n",
    "\n",
    "net.Nd = 100 50 25\n",
    "net.Nadp = 50 25 12.5\n",
    "congestion = 1\n",
    "mechanisms = packed chained\n",
    "msg.overhead_us = 2\n",
    "msg.partner_us = 0.5\n",
    "barrier.kind = hardware\n",
    "barrier.us = 1\n",
    "remote.read_us = 1\n",
};
#define NGOOD ((int)(sizeof good_lines / sizeof good_lines[0]))

/* The toy text with line `line` (1-based) replaced by repl ("" drops it). */
static void toy_text(char *buf, size_t len, int line, const char *repl)
{
    buf[0] = 0;
    for (int i = 0; i < NGOOD; i++) {
        const char *l = i + 1 == line ? repl : good_lines[i];
        strncat(buf, l, len - strlen(buf) - 1);
    }
}

Test(ctm, worked_example_t3d_transpose)
{
    dmsg_machine m = load("t3d");
    char t[512];
    dmsg_mech used;
    double r = dmsg_ctm_remote_mbs(&m, 1, 1024, DMSG_MECH_PACKED, 2, &used, t, sizeof t);
    cr_assert_float_eq(r, 25.0, 0.05, "got %g: %s", r, t);
    cr_assert_eq(used, DMSG_MECH_PACKED);
    cr_assert(strstr(t, "1/(1/93 + 1/min(126, 69, 142) + 1/67.9) = 25.0"), "trace: %s", t);
    /* The T3D's own congestion is the published typical value, 2. */
    cr_assert_float_eq(m.congestion, 2, 1e-12);
}

Test(ctm, composition_rules)
{
    double a[] = {3, 1, 2};
    cr_assert_float_eq(dmsg_ctm_par(a, 3), 1, 1e-12);
    double b[] = {2, 2};
    cr_assert_float_eq(dmsg_ctm_seq(b, 2), 1, 1e-12);
    double c[] = {93, 69, 67.9};
    cr_assert_float_eq(dmsg_ctm_seq(c, 3), 1 / (1 / 93.0 + 1 / 69.0 + 1 / 67.9), 1e-9);
    double z[] = {5, 0};
    cr_assert_eq(dmsg_ctm_seq(z, 2), 0);
    cr_assert_eq(dmsg_ctm_par(z, 2), 0);
}

Test(ctm, stride_interpolation)
{
    dmsg_machine m = load("t3d");
    /* Scatter 1Cy: 93 at 1, 67.9 at 64; stride 8 is halfway on a log scale. */
    cr_assert_float_eq(dmsg_mach_curve_at(&m.copy_scatter, 8), (93 + 67.9) / 2, 1e-9);
    cr_assert_float_eq(dmsg_mach_curve_at(&m.copy_scatter, 64), 67.9, 1e-12);
    cr_assert_float_eq(dmsg_mach_curve_at(&m.copy_scatter, 4096), 67.9, 1e-12);
    cr_assert_float_eq(dmsg_mach_curve_at(&m.copy_gather, DMSG_PAT_INDEXED), 32.9, 1e-12);
    double t2 = log(2) / log(64);
    cr_assert_float_eq(dmsg_mach_curve_at(&m.send, 2), 126 + t2 * (35 - 126), 1e-9);
    /* No fetch engine at all, and a contiguous-only engine has no strides. */
    cr_assert_eq(dmsg_mach_curve_at(&m.fetch, 1), 0);
    dmsg_machine p = load("paragon");
    cr_assert_float_eq(dmsg_mach_curve_at(&p.fetch, 1), 160, 1e-12);
    cr_assert_eq(dmsg_mach_curve_at(&p.fetch, 2), 0);
    cr_assert_eq(dmsg_mach_curve_at(&p.fetch, DMSG_PAT_INDEXED), 0);
}

Test(ctm, network_congestion)
{
    dmsg_machine m = load("t3d");
    cr_assert_float_eq(dmsg_mach_net_at(m.net_nd, 1), 142, 1e-9);
    cr_assert_float_eq(dmsg_mach_net_at(m.net_nd, 2), 69, 1e-9);
    cr_assert_float_eq(dmsg_mach_net_at(m.net_nadp, 4), 20, 1e-9);
    cr_assert_float_eq(dmsg_mach_net_at(m.net_nd, 8), 17.5, 1e-9);
    cr_assert_float_eq(dmsg_mach_net_at(m.net_nd, 3), 69 * pow(35 / 69.0, log2(1.5)), 1e-9);
    cr_assert_eq(dmsg_mach_net_at(m.net_nd, 0.5), 0);
}

Test(ctm, chained_and_packed_respect_mechanisms)
{
    dmsg_machine w = load("iwarp");
    cr_assert_eq(w.mechanisms, (unsigned)DMSG_MECH_PACKED);
    dmsg_mech used;
    char t[512];
    cr_assert_eq(dmsg_ctm_remote_mbs(&w, 1, 64, DMSG_MECH_CHAINED, 1, NULL, t, sizeof t), 0);
    cr_assert(strstr(t, "not allowed"), "%s", t);
    double a = dmsg_ctm_remote_mbs(&w, 1, 64, DMSG_MECH_AUTO, 1, &used, NULL, 0);
    cr_assert_eq(used, DMSG_MECH_PACKED);
    cr_assert_float_eq(a, dmsg_ctm_remote_mbs(&w, 1, 64, DMSG_MECH_PACKED, 1, NULL, NULL, 0), 1e-12);
    /* A contiguous transfer needs no chaining: the direct path is allowed. */
    cr_assert_float_eq(dmsg_ctm_remote_mbs(&w, 1, 1, DMSG_MECH_CHAINED, 1, NULL, NULL, 0), 40,
                       1e-9);

    /* T3D transpose: chained is min(1S0 126, Nadp 38, 0D1024 52) = 38 > 25 packed. */
    dmsg_machine d = load("t3d");
    double c = dmsg_ctm_remote_mbs(&d, 1, 1024, DMSG_MECH_AUTO, 2, &used, t, sizeof t);
    cr_assert_eq(used, DMSG_MECH_CHAINED, "%s", t);
    cr_assert_float_eq(c, 38, 1e-9);
    cr_assert(strstr(t, "min(126, 38, 52)"), "%s", t);

    /* Paragon contiguous: the DMA engines (160) beat the processor (52, 82). */
    dmsg_machine p = load("paragon");
    cr_assert_float_eq(dmsg_ctm_remote_mbs(&p, 1, 1, DMSG_MECH_CHAINED, 1, NULL, t, sizeof t),
                       160, 1e-9, "%s", t);
    cr_assert(strstr(t, "1F0") && strstr(t, "0D1"), "%s", t);
}

Test(ctm, transfer_seconds)
{
    dmsg_machine d = load("t3d");
    dmsg_ctm_transfer x = {1 << 20, 1, 1024};
    char t[1024];
    double s = dmsg_ctm_transfer_seconds(&d, &x, DMSG_MECH_PACKED, t, sizeof t);
    double mbs = 1 / (1 / 93.0 + 1 / 69.0 + 1 / 67.9);
    cr_assert_float_eq(s, 1e-6 + (1 << 20) / (mbs * 1e6), 1e-12, "%s", t);
    x.bytes = 0;
    cr_assert_float_eq(dmsg_ctm_transfer_seconds(&d, &x, DMSG_MECH_AUTO, NULL, 0), 1e-6, 1e-15);

    dmsg_machine w = load("iwarp");
    dmsg_ctm_transfer y = {4096, 64, 1};
    cr_assert_lt(dmsg_ctm_transfer_seconds(&w, &y, DMSG_MECH_CHAINED, NULL, 0), 0);
    cr_assert_gt(dmsg_ctm_transfer_seconds(&w, &y, DMSG_MECH_AUTO, NULL, 0), 20e-6);
}

Test(ctm, barrier_seconds)
{
    dmsg_machine d = load("t3d");
    cr_assert_float_eq(dmsg_ctm_barrier_seconds(&d, 64), 1e-6, 1e-15);
    dmsg_machine p = load("paragon");
    cr_assert_float_eq(dmsg_ctm_barrier_seconds(&p, 64), 2 * 6 * 30e-6, 1e-12);
    cr_assert_float_eq(dmsg_ctm_barrier_seconds(&p, 65), 2 * 7 * 30e-6, 1e-12);
}

Test(ctm, local_copy_both_ends_strided)
{
    dmsg_machine d = load("t3d");
    cr_assert_float_eq(dmsg_ctm_copy_mbs(&d, 64, 1, NULL, 0), 33.3, 1e-12);
    double r = dmsg_ctm_copy_mbs(&d, 64, 64, NULL, 0);
    cr_assert_float_eq(r, 1 / (1 / 33.3 + 1 / 67.9 - 1 / 93.0), 1e-9);
}

Test(scap, blocking_and_pipelined_by_hand)
{
    cr_assert_float_eq(dmsg_ctm_scap_blocking(10, 1000), 10000, 1e-9);
    /* k=10, T_L=100, dt_p=10, dt_c=5, dt_n=1, window 4:
     * fill 4*10 = 40; steady 6 * max(15, 1, 115/4 = 28.75) = 172.5;
     * drain max(4*5, 100 + 5 + max(0, 3*(5 - 28.75))) = 105; total 317.5 */
    cr_assert_float_eq(dmsg_ctm_scap_pipelined(10, 100, 10, 5, 1, 4, NULL, 0), 317.5, 1e-9);
    /* Window larger than k: fill only. k=3, window 8 -> w=3: 3*10 + 0 +
     * max(15, 100 + 5 + max(0, 2*(5-10))) = 30 + 105 = 135. */
    cr_assert_float_eq(dmsg_ctm_scap_pipelined(3, 100, 10, 5, 1, 8, NULL, 0), 135, 1e-9);
    /* Processor-bound steady state: latency hidden, 15 per element. */
    double big = dmsg_ctm_scap_pipelined(1e6, 100, 10, 5, 1, 64, NULL, 0);
    cr_assert_float_eq(big / 1e6, 15, 1e-3);
}

Test(scap, vscap_cases_by_hand)
{
    int which;
    /* L=8, T_L=1000, t_n=10, t_v^L=100, t_z^L=50, t_s=20, C_V=128. */
    cr_assert_float_eq(dmsg_ctm_vscap_LL(16, 8, 1000, 10, 100, 50, 20, 128, &which, NULL, 0),
                       2 * 50 + 1000 + 7 * 10, 1e-9);
    cr_assert_eq(which, 1);
    cr_assert_float_eq(dmsg_ctm_vscap_LL(100, 8, 1000, 10, 100, 50, 20, 128, &which, NULL, 0),
                       12.5 * 150, 1e-9);
    cr_assert_eq(which, 2);
    cr_assert_float_eq(dmsg_ctm_vscap_LL(200, 8, 1000, 10, 100, 50, 20, 128, &which, NULL, 0),
                       25 * 150 - 10 * 20, 1e-9);
    cr_assert_eq(which, 3);
    cr_assert_float_eq(dmsg_ctm_vscap_1L(16, 8, 1000, 30, 50, NULL, 0), 16 * 30 + 1000, 1e-9);
    cr_assert_float_eq(dmsg_ctm_vscap_1L(800, 8, 1000, 30, 50, NULL, 0), 800 * 30 + 100 * 50,
                       1e-9);
}

Test(machine, user_written_machine_parses)
{
    char text[4096];
    toy_text(text, sizeof text, 0, "");
    dmsg_machine m;
    char err[256] = "";
    cr_assert_eq(dmsg_machine_parse(text, "toy.machine", &m, err, sizeof err), DMSG_OK, "%s", err);
    cr_assert_str_eq(m.name, "toy");
    cr_assert_float_eq(m.clock_mhz, 100, 1e-12);
    cr_assert_eq(m.cores, 1);
    cr_assert_eq(m.mechanisms, (unsigned)(DMSG_MECH_PACKED | DMSG_MECH_CHAINED));
    cr_assert_float_eq(dmsg_mach_curve_at(&m.copy_scatter, 16), 50, 1e-12);
    cr_assert_float_eq(m.net_nadp[2], 12.5, 1e-12);
}

static void expect_error(int line, const char *repl, const char *want)
{
    char text[4096], err[256] = "";
    toy_text(text, sizeof text, line, repl);
    dmsg_machine m;
    cr_assert_eq(dmsg_machine_parse(text, "toy.machine", &m, err, sizeof err), DMSG_ERR_ARG,
                 "accepted: %s", repl);
    cr_assert(strstr(err, want), "error '%s' lacks '%s'", err, want);
}

Test(machine, parse_errors_name_file_line_and_key)
{
    expect_error(6, "copy.1X1 = 93\n", "toy.machine:6: unknown key 'copy.1X1'");
    expect_error(6, "copy.1C1 = 9x3\n", "toy.machine:6: bad number '9x3'");
    expect_error(6, "copy.1C1 = -1\n", "toy.machine:6: bad number '-1'");
    expect_error(13, "net.Nd = 100 50\n", "toy.machine:13: key 'net.Nd' needs 3 numbers");
    expect_error(16, "mechanisms = teleport\n", "toy.machine:16: unknown mechanism 'teleport'");
    expect_error(19, "barrier.kind = magic\n", "toy.machine:19:");
    expect_error(7, "copy.1C1 = 90\n", "toy.machine:7: duplicate key 'copy.1C1'");
    expect_error(7, "copy.16C16 = 9\n", "toy.machine:7: key 'copy.16C16'");
    expect_error(7, "just words\n", "toy.machine:7: expected 'key = value'");
    expect_error(14, "", "toy.machine: missing required key 'net.Nadp'");
    expect_error(10, "", "missing required key 'send.1F0'");
    expect_error(19, "barrier.kind = tree\n", "missing required key 'barrier.hop_us'");
}

Test(machine, load_from_dir_names_the_file)
{
    char dir[] = "/tmp/dmsg-ctm-test-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char path[256], text[4096];
    snprintf(path, sizeof path, "%s/t3d.machine", dir);
    toy_text(text, sizeof text, 12, "copy.1X1 = 1\n");
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    setenv("DMSG_MACHINE_DIR", dir, 1);
    dmsg_machine m;
    char err[512] = "", want[300];
    cr_assert_eq(dmsg_machine_load("t3d", &m, err, sizeof err), DMSG_ERR_ARG);
    snprintf(want, sizeof want, "%s:12: unknown key 'copy.1X1'", path);
    cr_assert(strstr(err, want), "%s", err);
    /* A file path works too, and an unknown name is an error. */
    cr_assert_eq(dmsg_machine_load(path, &m, err, sizeof err), DMSG_ERR_ARG);
    cr_assert_eq(dmsg_machine_load("no-such-machine", &m, err, sizeof err), DMSG_ERR_ARG);
    cr_assert(strstr(err, "unknown machine 'no-such-machine'"), "%s", err);
    unsetenv("DMSG_MACHINE_DIR");
    remove(path);
    rmdir(dir);
}

Test(machine, builtins_load)
{
    static const char *const names[] = {"iwarp", "t3d", "t3e", "paragon"};
    cr_assert_eq(dmsg_machine_nbuiltins, 4);
    for (int i = 0; i < 4; i++) {
        dmsg_machine m = load(names[i]);
        cr_assert_str_eq(m.name, names[i]);
        cr_assert_gt(m.clock_mhz, 0);
        cr_assert_gt(dmsg_ctm_remote_mbs(&m, 1, 1, DMSG_MECH_AUTO, m.congestion, NULL, NULL, 0), 0);
    }
    dmsg_machine e = load("t3e");
    cr_assert_eq(e.vec_len, 8);
    cr_assert_float_eq(e.pf_latency_ns, 1489.6, 1e-9);
}

Test(machine, builtins_match_machine_files)
{
    for (int i = 0; i < dmsg_machine_nbuiltins; i++) {
        char path[128];
        snprintf(path, sizeof path, "machines/%s.machine", dmsg_machine_builtins[i].name);
        FILE *f = fopen(path, "r");
        cr_assert_not_null(f, "%s (run from the repository root)", path);
        static char buf[1 << 16];
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = 0;
        const char *b = dmsg_machine_builtins[i].text;
        cr_assert_eq(strlen(b), n, "%s: built-in has %zu bytes, file %zu; regenerate "
                     "machines_builtin.c with dmsg-ctm builtins", path, strlen(b), n);
        cr_assert_eq(memcmp(b, buf, n), 0, "%s differs from its built-in copy", path);
    }
}
