/* The postal and RRMSG baselines (tests/pe/postal.c, tests/pe/rr.c) under
 * dmsgrun: on 1 to 4 PEs and on 8, on the transport the suite runs over
 * (shm, or ofi when tests/ofi/integ.sh runs it), on the simulated T3D, and
 * with a mailbox so small that rings wrap and senders queue. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static int pe_counts[] = {1, 2, 3, 4};

/* Over ofi each postal message costs a network round trip: the late
 * receiver then gets 1,000 messages instead of 10,000. */
static const char *const *late_env(void)
{
    static const char *const fewer[] = {"PE_POSTAL_MESSAGES=1000", NULL};
    const char *t = getenv("DMSG_TRANSPORT");
    return t && strcmp(t, "ofi") == 0 ? fewer : NULL;
}

#define BASE_CASE(name, env)                                                                       \
    ParameterizedTestParameters(baselines, name)                                                   \
    {                                                                                              \
        return cr_make_param_array(int, pe_counts, sizeof pe_counts / sizeof pe_counts[0]);       \
    }                                                                                              \
    ParameterizedTest(int *npes, baselines, name, .timeout = 2 * JOB_WATCHDOG)                     \
    {                                                                                              \
        expect_case_ok(#name, *npes, env);                                                         \
    }

BASE_CASE(postal_alltoall, NULL)
BASE_CASE(postal_neighbour, NULL)
BASE_CASE(postal_wildcard_order, NULL)
BASE_CASE(postal_late_receiver, late_env())
BASE_CASE(postal_out_of_order, NULL)
BASE_CASE(postal_pingpong, NULL)
BASE_CASE(rr_alltoall, NULL)
BASE_CASE(rr_neighbour, NULL)
BASE_CASE(rr_indexed_errors, NULL)

Test(baselines, pes8, .timeout = 6 * JOB_WATCHDOG)
{
    expect_case_ok("postal_alltoall", 8, NULL);
    expect_case_ok("postal_neighbour", 8, NULL);
    expect_case_ok("postal_late_receiver", 8, late_env());
    expect_case_ok("rr_alltoall", 8, NULL);
    expect_case_ok("rr_neighbour", 8, NULL);
}

/* 1 KiB per sender: 448-byte messages at most, rings wrap every few
 * messages, senders queue and send STUCK notices, receivers spill. */
Test(baselines, tiny_mailbox, .timeout = 6 * JOB_WATCHDOG)
{
    static const char *const tiny[] = {"DMSG_POSTAL_MAILBOX=1K", "PE_POSTAL_MESSAGES=10000",
                                       NULL};
    static const char *const tiny_ofi[] = {"DMSG_POSTAL_MAILBOX=1K", "PE_POSTAL_MESSAGES=300",
                                           NULL};
    expect_case_ok("postal_late_receiver", 2, late_env() ? tiny_ofi : tiny);
    expect_case_ok("postal_alltoall", 3, tiny);
    expect_case_ok("postal_out_of_order", 2, tiny);
    expect_case_ok("postal_wildcard_order", 4, tiny);
    expect_case_ok("postal_neighbour", 4, tiny);
}

/* The same programs on the simulated T3D (virtual time; data moves as on shm). */
Test(baselines, sim_t3d, .timeout = 6 * JOB_WATCHDOG)
{
    static const char *const sim[] = {"DMSG_TRANSPORT=sim", "DMSG_MACHINE=t3d",
                                      "PE_POSTAL_MESSAGES=10000", NULL};
    static const char *const sim_tiny[] = {"DMSG_TRANSPORT=sim", "DMSG_POSTAL_MAILBOX=1K", NULL};
    static const char *const names[] = {"postal_alltoall", "postal_neighbour",
                                        "postal_wildcard_order", "postal_late_receiver",
                                        "postal_out_of_order", "postal_pingpong",
                                        "rr_alltoall", "rr_neighbour", "rr_indexed_errors"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        expect_case_ok(names[i], 3, sim);
    expect_case_ok("postal_alltoall", 8, sim);
    expect_case_ok("rr_alltoall", 8, sim);
    expect_case_ok("postal_late_receiver", 2, sim_tiny);
}
