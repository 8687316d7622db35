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
#include <sys/stat.h>
#include <unistd.h>

#include "dmsg/model/ctm.h"
#include "dmsg/model/machine.h"
#include "tests/figures.h"
#include "tests/unit/detail.h"

/* dmsg_machine_load with its detail (dmsg_last_error) copied into err. */
static dmsg_status load_machine(const char *name, dmsg_machine *m, char *err, size_t len)
{
    return detail(dmsg_machine_load(name, m), err, len);
}

static dmsg_machine load(const char *name)
{
    dmsg_machine m;
    char err[512] = "";
    cr_assert_eq(load_machine(name, &m, err, sizeof err), DMSG_OK, "%s: %s", name, err);
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
    figure("T3D 1Q1024 buffer packing, congestion 2 (model)", "MB/s", 25.0, r, 0.10, "estimate",
           "unit ctm/worked_example_t3d_transpose");
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
    /* 32-byte lines: from a stride of 4 words on, every element touches a
     * line, so strides 4..64 take the stride-64 value; stride 2 lies halfway
     * (log scale) between 1 and the virtual point at 4. */
    cr_assert_eq(m.copy_scatter.line, 4);
    cr_assert_float_eq(dmsg_mach_curve_at(&m.copy_scatter, 2), (93 + 67.9) / 2, 1e-9);
    cr_assert_float_eq(dmsg_mach_curve_at(&m.copy_scatter, 4), 67.9, 1e-12);
    cr_assert_float_eq(dmsg_mach_curve_at(&m.copy_scatter, 16), 67.9, 1e-12);
    cr_assert_float_eq(dmsg_mach_curve_at(&m.copy_scatter, 64), 67.9, 1e-12);
    cr_assert_float_eq(dmsg_mach_curve_at(&m.copy_scatter, 4096), 67.9, 1e-12);
    cr_assert_float_eq(dmsg_mach_curve_at(&m.copy_gather, DMSG_PAT_INDEXED), 32.9, 1e-12);
    cr_assert_float_eq(dmsg_mach_curve_at(&m.send, 2), (126 + 35) / 2.0, 1e-9);
    figure("T3D 16C1 ~ 64C1 (one cache line per element)", "MB/s", 33.3,
           dmsg_ctm_copy_mbs(&m, 16, 1, NULL, 0), 0.10, "estimate",
           "unit ctm/stride_interpolation");
    /* Without a cache line (the iWarp) strides interpolate on a log scale. */
    dmsg_machine w = load("iwarp");
    cr_assert_eq(w.copy_scatter.line, 0);
    /* A given stride below the line stays a point of its own (Paragon 0R16
     * is between the line and 64). */
    dmsg_machine p = load("paragon");
    cr_assert_float_eq(dmsg_mach_curve_at(&p.recv, 8), 32, 1e-12);
    cr_assert_float_eq(dmsg_mach_curve_at(&p.recv, 16), 32, 1e-12);
    double t = log(32 / 16.0) / log(64 / 16.0);
    cr_assert_float_eq(dmsg_mach_curve_at(&p.recv, 32), 32 + t * (38 - 32), 1e-9);
    /* No fetch engine at all, and a contiguous-only engine has no strides. */
    cr_assert_eq(dmsg_mach_curve_at(&m.fetch, 1), 0);
    cr_assert_float_eq(dmsg_mach_curve_at(&p.fetch, 1), 160, 1e-12);
    cr_assert_eq(dmsg_mach_curve_at(&p.fetch, 2), 0);
    cr_assert_eq(dmsg_mach_curve_at(&p.fetch, DMSG_PAT_INDEXED), 0);
}

Test(figures, t3d_16Q1_buffer_packing)
{
    dmsg_machine m = load("t3d");
    char t[512];
    double r = dmsg_ctm_remote_mbs(&m, 16, 1, DMSG_MECH_PACKED, 2, NULL, t, sizeof t);
    cr_assert(strstr(t, "1/(1/33.3 + 1/min(126, 69, 142) + 1/93)"), "%s", t);
    figure("T3D 16Q1 buffer packing, congestion 2 (model)", "MB/s", 18.4, r, 0.10, "estimate",
           "unit figures/t3d_16Q1_buffer_packing");
}

Test(figures, paragon_chained_is_processor_driven)
{
    dmsg_machine m = load("paragon");
    char t[512];
    cr_assert_eq(m.chain_form, DMSG_CHAIN_PROCESSOR);
    double a = dmsg_ctm_remote_mbs(&m, 1, 16, DMSG_MECH_CHAINED, m.congestion, NULL, t, sizeof t);
    /* The DMA engines move contiguous blocks only: processor at both ends,
     * data only on the network. */
    cr_assert(strstr(t, "1S0 || Nd[c=2] || 0R16"), "%s", t);
    figure("Paragon 1Q'16 chained (model)", "MB/s", 32, a, 0.10, "estimate",
           "unit figures/paragon_chained_is_processor_driven");
    double b = dmsg_ctm_remote_mbs(&m, 16, 1, DMSG_MECH_CHAINED, m.congestion, NULL, t, sizeof t);
    cr_assert(strstr(t, "16S0 || Nd[c=2] || 0R1"), "%s", t);
    figure("Paragon 16Q'1 chained (model)", "MB/s", 42, b, 0.10, "estimate",
           "unit figures/paragon_chained_is_processor_driven");
    /* A contiguous transfer still uses the DMA engines (direct). */
    cr_assert_float_eq(dmsg_ctm_remote_mbs(&m, 1, 1, DMSG_MECH_CHAINED, 2, NULL, t, sizeof t), 90,
                       1e-9, "%s", t);
}

Test(figures, t3e_scap_classes)
{
    dmsg_machine m = load("t3e-scap");
    double cn = m.pf_net_capacity, cp = m.pf_window;
    double tb = dmsg_ctm_scap_blocking(128, m.pf_latency_ns);
    figure("T3E (SCAP 1997) k = 128 remote reads, blocking (model)", "us", 190.67, tb / 1e3, 0.10,
           "estimate", "unit figures/t3e_scap_classes");
    int cls;
    double tp = dmsg_ctm_scap_pipelined(128, m.pf_latency_ns, m.pf_issue_ns, m.pf_access_ns,
                                        m.net_issue_ns, cn, cp, &cls, NULL, 0);
    cr_assert_eq(cls, 2);
    figure("T3E (SCAP 1997) k = 128, SCAP pipelined (model)", "us", 20.48, tp / 1e3, 0.10,
           "estimate", "unit figures/t3e_scap_classes");
    figure("T3E (SCAP 1997) speed-up over blocking, classes 2, 3: c = T_L / dt_p", "x",
           1489.6 / 160, tb / tp, 0.10, "estimate", "unit figures/t3e_scap_classes");
    /* Class 1: only the first access waits, T = T_L. */
    double t1 = dmsg_ctm_scap_pipelined(8, m.pf_latency_ns, m.pf_issue_ns, m.pf_access_ns,
                                        m.net_issue_ns, cn, cp, &cls, NULL, 0);
    cr_assert_eq(cls, 1);
    figure("T3E (SCAP 1997) class 1 (k = 8 <= C_n): T = T_L", "ns", 1489.6, t1, 0.10, "estimate",
           "unit figures/t3e_scap_classes");
    /* Class 3 (k > C_p): fill / access-and-issue / drain, same total k dt_p. */
    double t3 = dmsg_ctm_scap_pipelined(1000, m.pf_latency_ns, m.pf_issue_ns, m.pf_access_ns,
                                        m.net_issue_ns, cn, cp, &cls, NULL, 0);
    cr_assert_eq(cls, 3);
    cr_assert_float_eq(t3, 1000 * 160.0, 1e-6);
    /* The 1997 machine has no vector commands: those are the 2000 study's. */
    cr_assert_eq(m.vec_len, 0);
}

Test(figures, t3e_vscap_cases)
{
    dmsg_machine m = load("t3e-vscap");
    double L = m.vec_len, tl = m.vec_latency_ns, tn = m.net_issue_ns;
    int c;
    /* Published formulas with the study's published parameters (by hand). */
    double got = dmsg_ctm_vscap_LL(64, L, tl, tn, m.vec_tvL_ns, m.vec_tzL_ns, m.vec_ts_ns,
                                   m.vec_window, &c, NULL, 0);
    cr_assert_eq(c, 1);
    figure("T3E-900 (VSCAP 2000) (L,L) case 1, K = 64", "ns", 8 * 144 + 1480 + 7 * 13.3, got,
           0.10, "estimate", "unit figures/t3e_vscap_cases");
    got = dmsg_ctm_vscap_LL(96, L, tl, tn, m.vec_tvL_ns, m.vec_tzL_ns, m.vec_ts_ns, m.vec_window,
                            &c, NULL, 0);
    cr_assert_eq(c, 2);
    figure("T3E-900 (VSCAP 2000) (L,L) case 2, K = 96", "ns", 12 * (146 + 144), got, 0.10,
           "estimate", "unit figures/t3e_vscap_cases");
    got = dmsg_ctm_vscap_LL(1024, L, tl, tn, m.vec_tvL_ns, m.vec_tzL_ns, m.vec_ts_ns,
                            m.vec_window, &c, NULL, 0);
    cr_assert_eq(c, 3);
    figure("T3E-900 (VSCAP 2000) (L,L) case 3, K = 1024", "ns",
           128 * (146 + 144) - (1024 - 128 + 8) / 8 * 44, got, 0.10, "estimate",
           "unit figures/t3e_vscap_cases");
    got = dmsg_ctm_vscap_1L(64, L, tl, m.vec_tv_ns, m.vec_tzL_ns, NULL, 0);
    figure("T3E-900 (VSCAP 2000) (1,L) cyclic shift times, K = 64", "ns", 64 * 148 + 1480, got,
           0.10, "estimate", "unit figures/t3e_vscap_cases");
    /* Indexed gathers take the indirect gather kernel's times. */
    got = dmsg_ctm_vscap_1L(1024, L, tl, m.gather_tv_ns, m.gather_tzL_ns, NULL, 0);
    figure("T3E-900 (VSCAP 2000) (1,L) indirect gather times, K = 1024", "ns",
           1024 * 462 + 128 * 183, got, 0.10, "estimate", "unit figures/t3e_vscap_cases");
}

/* Both times from the one machine of the 2000 study. */
static double vscap_over_scap(const dmsg_machine *m, double K)
{
    double v = dmsg_ctm_vscap_LL(K, m->vec_len, m->vec_latency_ns, m->net_issue_ns, m->vec_tvL_ns,
                                 m->vec_tzL_ns, m->vec_ts_ns, m->vec_window, NULL, NULL, 0);
    double s = dmsg_ctm_scap_pipelined(K, m->pf_latency_ns, m->pf_issue_ns, m->pf_access_ns,
                                       m->net_issue_ns, m->pf_net_capacity, m->pf_window, NULL,
                                       NULL, 0);
    return s / v;
}

Test(figures, t3e_vscap_over_scap)
{
    dmsg_machine m = load("t3e-vscap");
    figure("T3E-900 VSCAP / SCAP speed-up, V = K = 64", "x", 7.8, vscap_over_scap(&m, 64), 0.10,
           "estimate", "unit figures/t3e_vscap_over_scap");
    /* "About L at large K": a qualitative statement, checked loosely. */
    figure("T3E-900 VSCAP / SCAP gain at large K (K = 8192): about L", "x", m.vec_len,
           vscap_over_scap(&m, 8192), 0.5, "approximate", "unit figures/t3e_vscap_over_scap");
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
    /* T_L = 100, dt_p = 20, dt_c = 5, dt_n = 1, C_n = 8, C_p = 16. */
    int c;
    cr_assert_float_eq(dmsg_ctm_scap_pipelined(3, 100, 20, 5, 1, 8, 16, &c, NULL, 0), 100, 1e-9);
    cr_assert_eq(c, 1); /* 3*20 = 60 issuing, then the first access waits 40 */
    cr_assert_float_eq(dmsg_ctm_scap_pipelined(6, 100, 20, 5, 1, 8, 16, &c, NULL, 0), 120, 1e-9);
    cr_assert_eq(c, 1); /* the issue loop outlasts the latency: no wait */
    cr_assert_float_eq(dmsg_ctm_scap_pipelined(10, 100, 20, 5, 1, 8, 16, &c, NULL, 0), 200, 1e-9);
    cr_assert_eq(c, 2);
    cr_assert_float_eq(dmsg_ctm_scap_pipelined(20, 100, 20, 5, 1, 8, 16, &c, NULL, 0), 400, 1e-9);
    cr_assert_eq(c, 3);
    /* Outside the class model's bounds: accesses slower than network issues
     * would be needed, or the window must cover the latency. */
    char t[256];
    cr_assert_lt(dmsg_ctm_scap_pipelined(10, 100, 20, 0.5, 1, 8, 16, NULL, t, sizeof t), 0);
    cr_assert(strstr(t, "outside the class model"), "%s", t);
    cr_assert_lt(dmsg_ctm_scap_pipelined(10, 100, 20, 5, 1, 4, 16, NULL, NULL, 0), 0);
    cr_assert_eq(dmsg_ctm_scap_pipelined(0, 100, 20, 5, 1, 8, 16, NULL, NULL, 0), 0);
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
    cr_assert_eq(detail(dmsg_machine_parse(text, "toy.machine", &m), err, sizeof err), DMSG_OK,
                 "%s", err);
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
    cr_assert_eq(detail(dmsg_machine_parse(text, "toy.machine", &m), err, sizeof err), DMSG_ERR_ARG,
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

Test(machine, out_of_range_values_name_line_and_key)
{
    expect_error(15, "congestion = 0.5\n", "toy.machine:15: congestion = 0.5 is out of range");
    expect_error(15, "congestion = 5000\n", "toy.machine:15: congestion = 5000 is out of range");
    expect_error(17, "msg.overhead_us = 1e29\n",
                 "toy.machine:17: msg.overhead_us = 1e29 is out of range (0 to 1000000 us)");
    expect_error(21, "remote.read_us = 0\n", "toy.machine:21: remote.read_us = 0 is out of range");
    expect_error(6, "copy.1C1 = 1e9\n", "toy.machine:6: copy.1C1 = 1e9 is out of range");
    expect_error(13, "net.Nd = 100 50 1e12\n", "toy.machine:13: net.Nd = 1e12 is out of range");
    expect_error(5, "nodes = 0\n", "toy.machine:5: nodes = 0 is out of range");
    expect_error(5, "nodes = 99999999999999999999\n", "toy.machine:5: bad number");
    expect_error(4, "clock_mhz = nan\n", "toy.machine:4: bad number 'nan'");
    expect_error(12, "cache.line_bytes = 12\n", "toy.machine:12: cache.line_bytes = 12 is not a "
                                                 "multiple of 8");
    expect_error(16, "chained.form = telepathy\n", "toy.machine:16: bad chained.form");
}

Test(machine, model_bounds_name_line_and_key)
{
    expect_error(13, "net.Nd = 100 150 25\n",
                 "toy.machine:13: key 'net.Nd': 150 MB/s at congestion 2 exceeds 100");
    expect_error(14, "net.Nadp = 150 25 12.5\n",
                 "toy.machine:14: key 'net.Nadp': 150 MB/s at congestion 1 exceeds net.Nd");
    /* Prefetch and vector keys come in groups, within the model's bounds. */
    expect_error(21, "remote.read_us = 1\nprefetch.window = 4\n",
                 "missing required key 'prefetch.issue_ns'");
    expect_error(21,
                 "remote.read_us = 1\nprefetch.window = 4\nprefetch.issue_ns = 10\n"
                 "prefetch.latency_ns = 100\n",
                 "toy.machine:22: a window of 4 prefetches issued every 10 ns");
    expect_error(21,
                 "remote.read_us = 1\nprefetch.window = 16\nprefetch.issue_ns = 10\n"
                 "prefetch.latency_ns = 100\nprefetch.access_ns = 5\n"
                 "prefetch.net_issue_ns = 13\n",
                 "toy.machine:25: prefetch.access_ns (5) is below prefetch.net_issue_ns (13)");
    const char *vec = "remote.read_us = 1\nvector.L = 8\nvector.tv_ns = 1\nvector.tvL_ns = 10\n"
                      "vector.tzL_ns = 10\nvector.latency_ns = 100\n";
    char text[512];
    snprintf(text, sizeof text, "%svector.window = 8\n", vec);
    expect_error(21, text, "toy.machine:27: vector.window (8) must exceed vector.L (8)");
    snprintf(text, sizeof text, "%svector.window = 64\nvector.ts_ns = 20\n", vec);
    expect_error(21, text, "toy.machine:28: vector.ts_ns (20) must be below");
    expect_error(21, "remote.read_us = 1\nvector.L = 8\n",
                 "missing required key 'vector.window'");
    expect_error(21, "remote.read_us = 1\nvector.L = 1\n",
                 "toy.machine:22: vector.L = 1 is out of range");
}

Test(machine, a_bad_description_changes_nothing)
{
    char text[4096], err[256] = "";
    toy_text(text, sizeof text, 17, "msg.overhead_us = 1e29\n");
    dmsg_machine m, before;
    memset(&m, 0x5a, sizeof m);
    before = m;
    cr_assert_eq(detail(dmsg_machine_parse(text, "toy.machine", &m), err, sizeof err),
                 DMSG_ERR_ARG);
    cr_assert_eq(memcmp(&m, &before, sizeof m), 0, "a failed parse wrote into the machine");
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
    cr_assert_eq(load_machine("t3d", &m, err, sizeof err), DMSG_ERR_ARG);
    snprintf(want, sizeof want, "%s:12: unknown key 'copy.1X1'", path);
    cr_assert(strstr(err, want), "%s", err);
    /* A file path works too, and an unknown name is an error. */
    cr_assert_eq(load_machine(path, &m, err, sizeof err), DMSG_ERR_ARG);
    cr_assert_eq(load_machine("no-such-machine", &m, err, sizeof err), DMSG_ERR_ARG);
    cr_assert(strstr(err, "unknown machine 'no-such-machine'"), "%s", err);
    unsetenv("DMSG_MACHINE_DIR");
    remove(path);
    rmdir(dir);
}

Test(machine, builtins_load)
{
    static const char *const names[] = {"iwarp", "t3d", "t3e-scap", "t3e-vscap", "paragon"};
    cr_assert_eq(dmsg_machine_nbuiltins, 5);
    for (int i = 0; i < 5; i++) {
        dmsg_machine m = load(names[i]);
        cr_assert_str_eq(m.name, names[i]);
        cr_assert_gt(m.clock_mhz, 0);
        cr_assert_gt(dmsg_ctm_remote_mbs(&m, 1, 1, DMSG_MECH_AUTO, m.congestion, NULL, NULL, 0), 0);
    }
    /* One study per machine: the 1997 SCAP study's T3E at 300 MHz, the 2000
     * VSCAP study's T3E-900 at 450 MHz, each with its own latencies. */
    dmsg_machine s = load("t3e-scap"), v = load("t3e-vscap");
    cr_assert_float_eq(s.clock_mhz, 300, 1e-12);
    cr_assert_float_eq(s.pf_latency_ns, 1489.6, 1e-9);
    cr_assert_float_eq(s.read_us, 1.4896, 1e-12);
    cr_assert_float_eq(v.clock_mhz, 450, 1e-12);
    cr_assert_eq(v.vec_len, 8);
    cr_assert_float_eq(v.pf_latency_ns, 1480, 1e-9);
    cr_assert_float_eq(v.read_us, 1.88, 1e-12);
    cr_assert_eq(v.pf_net_capacity, 112);
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

/* A machine description that names a FIFO (or any non-regular file) is an
 * error at once; opening it would wait for a writer forever. */
Test(machine, fifo_is_rejected_without_waiting, .timeout = 10)
{
    char dir[] = "/tmp/dmsg-ctm-fifo-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/t3d.machine", dir);
    cr_assert_eq(mkfifo(path, 0600), 0);
    dmsg_machine m;
    memset(&m, 0x5a, sizeof m);
    char err[512] = "";
    cr_expect_eq(load_machine(path, &m, err, sizeof err), DMSG_ERR_ARG);
    cr_expect(strstr(err, "not a regular file"), "%s", err);
    /* By name through DMSG_MACHINE_DIR: the FIFO is skipped, the built-in wins. */
    setenv("DMSG_MACHINE_DIR", dir, 1);
    cr_expect_eq(load_machine("t3d", &m, err, sizeof err), DMSG_OK, "%s", err);
    unsetenv("DMSG_MACHINE_DIR");
    remove(path);
    rmdir(dir);
}
