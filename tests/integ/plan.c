/* The plan cases of tests/pe/plan.c on 1 to 8 PEs, and on 64 simulated PEs. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "harness.h"

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

/* 64 PEs on the simulated T3D: the same checks, many more partners. */
static const char *const sim64[] = {"DMSG_TRANSPORT=sim", "DMSG_MACHINE=t3d", NULL};
Test(plan, random_64_sim, .timeout = 4 * JOB_WATCHDOG)
{
    expect_case_ok("plan_random_small", 64, sim64);
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
