/* The plan cases of tests/pe/plan.c on 1 to 8 PEs, and on 64 simulated PEs. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "harness.h"

/* Every test gets its own cache of host descriptions (DMSG_PLAN_CACHE), so
 * that model plans on shm and ofi calibrate into it and never into the
 * user's ~/.cache; removed afterwards. */
static char cache_dir[64];

static void cache_fini(void)
{
    char cmd[128];
    if (!cache_dir[0])
        return;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache_dir);
    cr_expect(system(cmd) == 0, "cannot remove %s", cache_dir);
    cache_dir[0] = 0;
}

static void cache_init(void)
{
    snprintf(cache_dir, sizeof cache_dir, "/tmp/dmsg-plan-cache-XXXXXX");
    cr_assert(mkdtemp(cache_dir) != NULL, "mkdtemp failed");
    setenv("DMSG_PLAN_CACHE", cache_dir, 1);
    job_on_skip(cache_fini); /* INTEG_PES skips leave without .fini */
}

TestSuite(plan, .init = cache_init, .fini = cache_fini);

static int plan_pes[] = {1, 2, 3, 4, 5, 8};

ParameterizedTestParameters(plan, random)
{
    return cr_make_param_array(int, plan_pes, sizeof plan_pes / sizeof plan_pes[0]);
}
ParameterizedTest(int *npes, plan, random, .timeout = 2 * JOB_WATCHDOG)
{
    expect_case_ok("plan_random", *npes, NULL);
}

static int split_pes[] = {1, 2, 3, 4};

ParameterizedTestParameters(plan, transpose_split)
{
    return cr_make_param_array(int, split_pes, sizeof split_pes / sizeof split_pes[0]);
}
ParameterizedTest(int *npes, plan, transpose_split, .timeout = 2 * JOB_WATCHDOG)
{
    expect_case_ok("plan_transpose_split", *npes, NULL);
}

ParameterizedTestParameters(plan, errors)
{
    return cr_make_param_array(int, split_pes, sizeof split_pes / sizeof split_pes[0]);
}
ParameterizedTest(int *npes, plan, errors, .timeout = 2 * JOB_WATCHDOG)
{
    expect_case_ok("plan_errors", *npes, NULL);
}

/* Periodic CYCLIC(a) -> CYCLIC(b) folds (tests/pe/plan.c plan_periodic). */
static int periodic_pes[] = {1, 2, 3, 4, 8};

ParameterizedTestParameters(plan, periodic)
{
    return cr_make_param_array(int, periodic_pes, sizeof periodic_pes / sizeof periodic_pes[0]);
}
ParameterizedTest(int *npes, plan, periodic, .timeout = 2 * JOB_WATCHDOG)
{
    expect_case_ok("plan_periodic", *npes, NULL);
}

Test(plan, periodic_sim, .timeout = 4 * JOB_WATCHDOG)
{
    static const char *const sim[] = {"DMSG_TRANSPORT=sim", "DMSG_MACHINE=t3d", NULL};
    expect_case_ok("plan_periodic", 3, sim);
    expect_case_ok("plan_periodic", 4, sim);
}

/* A partner's periodic pieces moved in one pass (tests/pe/plan.c
 * plan_periodic_group), on 1-8 PEs over shm, over sim, and over ofi. */
static int group_pes[] = {1, 2, 3, 4, 5, 6, 7, 8};

ParameterizedTestParameters(plan, periodic_group)
{
    return cr_make_param_array(int, group_pes, sizeof group_pes / sizeof group_pes[0]);
}
ParameterizedTest(int *npes, plan, periodic_group, .timeout = 2 * JOB_WATCHDOG)
{
    expect_case_ok("plan_periodic_group", *npes, NULL);
}

/* Groups moved in slices on shm, lone pieces as groups (tests/pe/plan.c
 * plan_periodic_slices). */
static int slice_pes[] = {1, 2, 3, 4, 8};

ParameterizedTestParameters(plan, periodic_slices)
{
    return cr_make_param_array(int, slice_pes, sizeof slice_pes / sizeof slice_pes[0]);
}
ParameterizedTest(int *npes, plan, periodic_slices, .timeout = 4 * JOB_WATCHDOG)
{
    expect_case_ok("plan_periodic_slices", *npes, NULL);
}

/* Shares: every PE a share of every pair, the notes, a source that
 * changes as soon as its owner's finish returns (tests/pe/plan.c
 * plan_periodic_shares); over sim, where no PE maps another's segment,
 * the owners deposit as before. */
static int share_pes[] = {1, 2, 3, 4, 8};

ParameterizedTestParameters(plan, periodic_shares)
{
    return cr_make_param_array(int, share_pes, sizeof share_pes / sizeof share_pes[0]);
}
ParameterizedTest(int *npes, plan, periodic_shares, .timeout = 4 * JOB_WATCHDOG)
{
    expect_case_ok("plan_periodic_shares", *npes, NULL);
}

Test(plan, periodic_shares_sim, .timeout = 4 * JOB_WATCHDOG)
{
    static const char *const sim[] = {"DMSG_TRANSPORT=sim", "DMSG_MACHINE=t3d", NULL};
    expect_case_ok("plan_periodic_shares", 4, sim);
}

/* With DMSG_CHECK=1 the shares move as deposits (share.c: the checker sees
 * them), not through the mapped destinations: the same results, nothing
 * reported. */
Test(plan, periodic_shares_checked, .timeout = 4 * JOB_WATCHDOG)
{
    if (job_over_ofi()) {
        cache_fini(); /* the skip jumps past .fini */
        cr_skip_test("chooses its transport: runs in the suite over shm");
    }
    static const char *const env[] = {"DMSG_TRANSPORT=shm", "DMSG_CHECK=1", NULL};
    job_result j;
    cr_assert(job_run_case("plan_periodic_shares", 3, env, &j) == 0, "could not start the job");
    cr_expect(job_exited_ok(&j), "%s: %s\n%s", j.cmd, job_how(&j), job_tail(j.err, 3000));
    cr_expect(!job_contains(j.err, "dmsg check:"), "%s: reported:\n%s", j.cmd,
              job_tail(j.err, 3000));
    job_free(&j);
}

Test(plan, periodic_group_sim, .timeout = 4 * JOB_WATCHDOG)
{
    static const char *const sim[] = {"DMSG_TRANSPORT=sim", "DMSG_MACHINE=t3d", NULL};
    expect_case_ok("plan_periodic_group", 3, sim);
    expect_case_ok("plan_periodic_group", 4, sim);
}

/* DMSG_CHECK's await on sim at 4 PEs: its looks at the others' windows
 * came every 16 counter reads, and the scheduler hands the run token on
 * only after more than 16 fruitless reads with no communication between,
 * so a PE awaiting the next PE's deposit never let it run (until
 * DMSG_TIMEOUT). The job completes, nothing reported. */
Test(plan, periodic_group_sim_checked, .timeout = 4 * JOB_WATCHDOG)
{
    static const char *const sim[] = {"DMSG_TRANSPORT=sim", "DMSG_MACHINE=t3d", "DMSG_CHECK=1",
                                      "DMSG_TIMEOUT=60", NULL};
    for (int n = 4; n <= 5; n++) {
        job_result j;
        cr_assert(job_run_case("plan_periodic_group", n, sim, &j) == 0, "could not start the job");
        cr_expect(job_exited_ok(&j), "%s: %s\n%s", j.cmd, job_how(&j), job_tail(j.err, 3000));
        cr_expect(!job_contains(j.err, "dmsg check:"), "%s: reported:\n%s", j.cmd,
                  job_tail(j.err, 3000));
        job_free(&j);
    }
}

Test(plan, periodic_group_ofi, .timeout = 4 * JOB_WATCHDOG)
{
    static const char *const ofi[] = {"DMSG_TRANSPORT=ofi", "DMSG_OFI_PROVIDER=tcp;ofi_rxm", NULL};
    expect_case_ok("plan_periodic_group", 2, ofi);
    expect_case_ok("plan_periodic_group", 3, ofi);
}

/* dmsg_plan_get_info's model throughputs count every partner, oneself too. */
Test(plan, info_model_sim, .timeout = 2 * JOB_WATCHDOG)
{
    static const char *const sim[] = {"DMSG_TRANSPORT=sim", "DMSG_MACHINE=t3d", NULL};
    expect_case_ok("plan_info_model", 3, sim);
}

/* 64 PEs on the simulated T3D: the same checks, many more partners. */
static const char *const sim64[] = {"DMSG_TRANSPORT=sim", "DMSG_MACHINE=t3d", NULL};
Test(plan, random_64_sim, .timeout = 4 * JOB_WATCHDOG)
{
    expect_case_ok("plan_random_small", 64, sim64);
}

/* The host model on shm and ofi: calibration, cache, settings. */
ParameterizedTestParameters(plan, calibrate)
{
    return cr_make_param_array(int, split_pes, sizeof split_pes / sizeof split_pes[0]);
}

/* Calibration is of real-time transports (the simulator has its machine):
 * in the suite over sim these jobs run over shm. */
ParameterizedTest(int *npes, plan, calibrate, .timeout = 2 * JOB_WATCHDOG)
{
    static const char *const shm[] = {"DMSG_TRANSPORT=shm", NULL};
    expect_case_ok("plan_calibrate", *npes, job_over_sim() ? shm : NULL);
}

/* The agreed host model ends with dmsg_finalize: init, finalize, init in
 * one process, which only a program started without a launcher may do. */
Test(plan, model_ends_at_finalize, .timeout = 2 * JOB_WATCHDOG)
{
    const char *argv[] = {job_path("tests/pe_prog"), "plan_model_ends_at_finalize", NULL};
    static const char *const env[] = {JOB_DMSG_TIMEOUT, NULL};
    static const char *const shm[] = {JOB_DMSG_TIMEOUT, "DMSG_TRANSPORT=shm", NULL};
    job_result r;
    cr_assert(job_run(argv, job_over_sim() ? shm : env, JOB_WATCHDOG, &r) == 0,
              "could not start pe_prog");
    cr_expect(job_exited_ok(&r), "%s: %s\n%s", r.cmd, job_how(&r), job_tail(r.err, 3000));
    job_free(&r);
}

/* dmsgrun refuses a bad plan setting before it starts anything. */
Test(plan, settings_refused_by_dmsgrun)
{
    static const char *const bad[] = {"DMSG_PLAN_MECH=fastest", NULL};
    job_result r;
    job_run_case("sync_empty", 1, bad, &r);
    cr_expect(!job_exited_ok(&r), "DMSG_PLAN_MECH=fastest was accepted");
    cr_expect(
        job_contains(r.err, "DMSG_PLAN_MECH=fastest is not one of: model direct pack measure"),
        "no clear message: %s", job_tail(r.err, 500));
    job_free(&r);
}

/* The plan layer's rows in `dmsgrun --help-env`. */
Test(plan, settings_listed)
{
    static const char *const names[] = {"DMSG_PLAN_MECH", "DMSG_PLAN_MACHINE",
                                        "DMSG_PLAN_CALIBRATE", "DMSG_PLAN_CACHE"};
    job_result r;
    job_run((const char *const[]){job_path("bin/dmsgrun"), "--help-env", NULL}, NULL, 20, &r);
    cr_expect(job_exited_ok(&r), "dmsgrun --help-env: %s", job_how(&r));
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        cr_expect(job_contains(r.out, names[i]), "--help-env does not list %s:\n%s", names[i],
                  job_tail(r.out, 3000));
    job_free(&r);
}

/* Irregular plans on 1 to 5 PEs. */
static int iplan_pes[] = {1, 2, 3, 4, 5};

ParameterizedTestParameters(plan, iplan_gather)
{
    return cr_make_param_array(int, iplan_pes, sizeof iplan_pes / sizeof iplan_pes[0]);
}
ParameterizedTest(int *npes, plan, iplan_gather, .timeout = 2 * JOB_WATCHDOG)
{
    expect_case_ok("iplan_gather", *npes, NULL);
}

ParameterizedTestParameters(plan, iplan_errors)
{
    return cr_make_param_array(int, split_pes, sizeof split_pes / sizeof split_pes[0]);
}
ParameterizedTest(int *npes, plan, iplan_errors, .timeout = 2 * JOB_WATCHDOG)
{
    expect_case_ok("iplan_errors", *npes, NULL);
}

/* Irregular scatters on 1 to 8 PEs, on 8 simulated PEs, and their errors. */
static int scatter_pes[] = {1, 2, 3, 4, 5, 8};

ParameterizedTestParameters(plan, iplan_scatter)
{
    return cr_make_param_array(int, scatter_pes, sizeof scatter_pes / sizeof scatter_pes[0]);
}
ParameterizedTest(int *npes, plan, iplan_scatter, .timeout = 2 * JOB_WATCHDOG)
{
    expect_case_ok("iplan_scatter", *npes, NULL);
}

Test(plan, iplan_scatter_sim, .timeout = 2 * JOB_WATCHDOG)
{
    static const char *const sim[] = {"DMSG_TRANSPORT=sim", "DMSG_MACHINE=paragon", NULL};
    expect_case_ok("iplan_scatter", 8, sim);
}

ParameterizedTestParameters(plan, iplan_scatter_errors)
{
    return cr_make_param_array(int, split_pes, sizeof split_pes / sizeof split_pes[0]);
}
ParameterizedTest(int *npes, plan, iplan_scatter_errors, .timeout = 2 * JOB_WATCHDOG)
{
    expect_case_ok("iplan_scatter_errors", *npes, NULL);
}

/* A scatter's model choice (deposit or fetch) against the simulator's clock. */
Test(plan, iplan_scatter_model_sim, .timeout = 4 * JOB_WATCHDOG)
{
    static const char *const t3d[] = {"DMSG_TRANSPORT=sim", "DMSG_MACHINE=t3d", NULL};
    static const char *const paragon[] = {"DMSG_TRANSPORT=sim", "DMSG_MACHINE=paragon", NULL};
    expect_case_ok("iplan_scatter_model_sim", 4, t3d);
    expect_case_ok("iplan_scatter_model_sim", 4, paragon);
    expect_case_ok("iplan_scatter_model_sim", 16, t3d);
}

/* The same for every statement of dmsg-gen's corpus (the .dgen files of tests/gen). */
Test(plan, model_choice_gen_corpus_sim, .timeout = 4 * JOB_WATCHDOG)
{
    static const char *const t3d[] = {"DMSG_TRANSPORT=sim", "DMSG_MACHINE=t3d", NULL};
    static const char *const paragon[] = {"DMSG_TRANSPORT=sim", "DMSG_MACHINE=paragon", NULL};
    expect_case_ok("plan_model_gen_corpus", 8, t3d);
    expect_case_ok("plan_model_gen_corpus", 8, paragon);
}

/* The model's choice is the faster mechanism by the simulator's clock, for
 * every statement of the corpus, on the T3D and the Paragon. */
static const char *const sim_t3d[] = {"DMSG_TRANSPORT=sim", "DMSG_MACHINE=t3d", NULL};
static const char *const sim_paragon[] = {"DMSG_TRANSPORT=sim", "DMSG_MACHINE=paragon", NULL};
Test(plan, model_choice_sim, .timeout = 4 * JOB_WATCHDOG)
{
    expect_case_ok("plan_model_sim", 4, sim_t3d);
    expect_case_ok("plan_model_sim", 4, sim_paragon);
    expect_case_ok("plan_model_sim", 16, sim_t3d);
    expect_case_ok("plan_model_sim", 16, sim_paragon);
}

/* Duplicate targets of a scatter with wide elements: the highest rank's
 * whole value, over shm and sim, and no race reported by the checker. */
ParameterizedTestParameters(plan, iplan_scatter_wide)
{
    return cr_make_param_array(int, split_pes, sizeof split_pes / sizeof split_pes[0]);
}
ParameterizedTest(int *npes, plan, iplan_scatter_wide, .timeout = 2 * JOB_WATCHDOG)
{
    expect_case_ok("iplan_scatter_wide", *npes, NULL);
}

Test(plan, iplan_scatter_wide_sim, .timeout = 2 * JOB_WATCHDOG)
{
    static const char *const sim[] = {"DMSG_TRANSPORT=sim", "DMSG_MACHINE=paragon", NULL};
    expect_case_ok("iplan_scatter_wide", 4, sim);
}

Test(plan, iplan_scatter_checker_quiet, .timeout = 4 * JOB_WATCHDOG)
{
    if (job_over_ofi()) {
        cache_fini(); /* the skip jumps past .fini */
        cr_skip_test("chooses its transport: runs in the suite over shm");
    }
    static const char *const env[] = {"DMSG_TRANSPORT=shm", "DMSG_CHECK=1", NULL};
    static const char *const cases[] = {"iplan_scatter_wide", "iplan_scatter"};
    for (size_t i = 0; i < 2; i++) {
        job_result j;
        cr_assert(job_run_case(cases[i], 3, env, &j) == 0, "could not start the job");
        cr_expect(job_exited_ok(&j), "%s: %s\n%s", j.cmd, job_how(&j), job_tail(j.err, 3000));
        cr_expect(!job_contains(j.err, "dmsg check:"), "%s: reported:\n%s", j.cmd,
                  job_tail(j.err, 3000));
        job_free(&j);
    }
}

/* NULL buffers with no elements, destroyed handles, more plans than counters. */
static const char *const plan_handle_cases[] = {"iplan_empty", "iplan_stale", "iplan_many",
                                                "plan_stale",  "plan_many",   "darray_alloc_agree"};

ParameterizedTestParameters(plan, handles)
{
    return cr_make_param_array(int, split_pes, sizeof split_pes / sizeof split_pes[0]);
}
ParameterizedTest(int *npes, plan, handles, .timeout = 6 * JOB_WATCHDOG)
{
    for (size_t i = 0; i < sizeof plan_handle_cases / sizeof plan_handle_cases[0]; i++)
        expect_case_ok(plan_handle_cases[i], *npes, NULL);
}

Test(plan, handles_sim, .timeout = 6 * JOB_WATCHDOG)
{
    static const char *const sim[] = {"DMSG_TRANSPORT=sim", "DMSG_MACHINE=t3d", NULL};
    for (size_t i = 0; i < sizeof plan_handle_cases / sizeof plan_handle_cases[0]; i++)
        expect_case_ok(plan_handle_cases[i], 3, sim);
}
