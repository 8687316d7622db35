/* Every normal PE test case (tests/pe) under dmsgrun on 1, 2, 3 and 4 PEs:
 * the job must exit 0 and leave no process and no /dev/shm entry behind. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "harness.h"

static int pe_counts[] = {1, 2, 3, 4};

/* One parameterized test per case; criterion reports each PE count. */
#define PE_CASE_ENV(name, env)                                                                     \
    ParameterizedTestParameters(pe, name)                                                          \
    {                                                                                              \
        return cr_make_param_array(int, pe_counts, sizeof pe_counts / sizeof pe_counts[0]);       \
    }                                                                                              \
    ParameterizedTest(int *npes, pe, name, .timeout = 2 * JOB_WATCHDOG)                            \
    {                                                                                              \
        expect_case_ok(#name, *npes, env);                                                         \
    }
#define PE_CASE(name) PE_CASE_ENV(name, NULL)

/* deposit.c */
PE_CASE(deposit_sizes)
PE_CASE(deposit_unaligned)
PE_CASE(deposit_src_reuse)
PE_CASE(deposit_sym_src)
/* section.c */
PE_CASE(section_1d)
PE_CASE(section_2d)
PE_CASE(section_3d)
PE_CASE(section_transpose)
PE_CASE(section_negative)
PE_CASE(section_reshape)
/* indexed.c, adp.c */
PE_CASE(indexed_scatter)
PE_CASE(indexed_gather)
PE_CASE(adp_records)
/* fetch.c */
PE_CASE(fetch_contig)
PE_CASE(fetch_section)
PE_CASE(fetch_req_copies)
PE_CASE(fetch_indexed)
PE_CASE(fetch_nb)
/* counter.c */
PE_CASE(ctr_many_to_one)
PE_CASE(ctr_consume)
PE_CASE(ctr_independent)
PE_CASE(ctr_pingpong)
PE_CASE(ctr_exhaust)
PE_CASE(ctr_many)
/* sync.c */
PE_CASE(sync_rounds)
PE_CASE(deposit_rounds)
PE_CASE(sync_empty)
PE_CASE(sync_one_buffer)
PE_CASE(sync_xchg)
PE_CASE(quiet_orders)
/* alloc.c */
PE_CASE(alloc_symmetric)
PE_CASE(alloc_many)
PE_CASE(alloc_exhaust)
PE_CASE(alloc_mismatch)
PE_CASE(alloc_freed_refused)
/* errors.c */
PE_CASE(err_pe)
PE_CASE(err_range)
PE_CASE(err_overflow)
PE_CASE(err_null)
PE_CASE(err_args)
PE_CASE(err_indexed)
PE_CASE(err_adp)
PE_CASE(err_counter)
PE_CASE(err_strerror)
PE_CASE(err_lifecycle)
/* coll.c */
PE_CASE(coll_reductions)
PE_CASE(coll_movers)
PE_CASE(coll_skew)
PE_CASE(coll_bcast_stream)
PE_CASE(coll_allreduce_small)
PE_CASE(coll_allreduce_lines)
PE_CASE(coll_direct_path)
PE_CASE(team_cycle)
PE_CASE(team_counter)
PE_CASE(coll_errors)
PE_CASE(team_table_full)
static const char *const coll_check_env[] = {"DMSG_CHECK=1", NULL};
PE_CASE_ENV(coll_mismatch, coll_check_env)
static const char *const coll_tiny_env[] = {"DMSG_COLL_SCRATCH=4K", NULL};
PE_CASE_ENV(coll_tiny_scratch, coll_tiny_env)
/* launch.c */
PE_CASE(nested_job)
PE_CASE(nested_before_init)
PE_CASE(signals_kept)

/* A short limit bounds the start-up too: a run whose PE started late on a
 * loaded host is tried again (expect_started_case_ok). */
static const char *const timeout_env[] = {"DMSG_TIMEOUT=2", NULL};
ParameterizedTestParameters(pe, err_timeout)
{
    return cr_make_param_array(int, pe_counts, sizeof pe_counts / sizeof pe_counts[0]);
}
ParameterizedTest(int *npes, pe, err_timeout, .timeout = 2 * JOB_WATCHDOG)
{
    expect_started_case_ok("err_timeout", *npes, timeout_env);
}

/* The dissemination barrier (DMSG_BARRIER; automatic only where every PE
 * has a core, so forced here, where PEs outnumber the cores: its sleeping
 * paths run too) and the central one forced: barriers on one buffer mixed
 * with deposits, allreduces riding in the barrier, dmsg_sync_xchg. */
Test(env, barrier_kinds, .timeout = 6 * JOB_WATCHDOG)
{
    static const char *const dis[] = {"DMSG_BARRIER=dissemination", "PE_ROUNDS=600", NULL};
    static const char *const cen[] = {"DMSG_BARRIER=central", "PE_ROUNDS=600", NULL};
    static const char *const names[] = {"sync_one_buffer", "coll_allreduce_lines", "sync_xchg"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        expect_case_ok(names[i], 3, dis);
        expect_case_ok(names[i], 6, dis);
        expect_case_ok(names[i], 3, cen);
    }
}

/* DMSG_CHECK's await keeps DMSG_TIMEOUT (it polled for ever where no PE
 * reached a barrier). */
Test(env, check_await_timeout, .timeout = 4 * JOB_WATCHDOG)
{
    static const char *const shm[] = {"DMSG_CHECK=1", "DMSG_TIMEOUT=2", NULL};
    static const char *const sim[] = {"DMSG_CHECK=1", "DMSG_TIMEOUT=2", "DMSG_TRANSPORT=sim",
                                      "DMSG_MACHINE=t3d", NULL};
    expect_started_case_ok("err_timeout", 2, shm);
    expect_started_case_ok("err_timeout", 2, sim);
}

/* Settings reach the PEs through dmsgrun. */
static const char *const small_table[] = {"DMSG_MAX_COUNTERS=16", NULL};
Test(env, max_counters_16, .timeout = 2 * JOB_WATCHDOG)
{
    expect_case_ok("ctr_exhaust", 3, small_table);
}

static const char *const small_segment[] = {"DMSG_SEGMENT_SIZE=4M", NULL};
Test(env, segment_4m, .timeout = 2 * JOB_WATCHDOG)
{
    expect_case_ok("alloc_exhaust", 3, small_segment);
    expect_case_ok("env_segment", 2, small_segment);
}

Test(env, segment_default, .timeout = 2 * JOB_WATCHDOG)
{
    static const char *const unset[] = {"DMSG_SEGMENT_SIZE", NULL};
    expect_case_ok("env_segment", 2, unset);
}

/* More PEs than cores must work (PEs block instead of spinning forever). */
Test(many, pes8_deposit_sizes, .timeout = 2 * JOB_WATCHDOG)
{
    expect_case_ok("deposit_sizes", 8, NULL);
}
Test(many, pes8_ctr_many_to_one, .timeout = 2 * JOB_WATCHDOG)
{
    expect_case_ok("ctr_many_to_one", 8, NULL);
}
Test(many, pes8_ctr_pingpong, .timeout = 2 * JOB_WATCHDOG)
{
    expect_case_ok("ctr_pingpong", 8, NULL);
}
Test(many, pes8_sync_rounds, .timeout = 2 * JOB_WATCHDOG)
{
    expect_case_ok("sync_rounds", 8, NULL);
}

/* Tuning settings change how data moves, never what arrives. */
static const char *const tiny_tiles[] = {"DMSG_TILE_BYTES=256", NULL};
static const char *const huge_tiles[] = {"DMSG_TILE_BYTES=64M", NULL};
static const char *const no_spin[] = {"DMSG_SPIN=0", NULL};

Test(env, tile_bytes_256, .timeout = 3 * JOB_WATCHDOG)
{
    expect_case_ok("section_transpose", 2, tiny_tiles);
    expect_case_ok("section_2d", 2, tiny_tiles);
    expect_case_ok("fetch_section", 2, tiny_tiles);
}

Test(env, tile_bytes_64m, .timeout = 3 * JOB_WATCHDOG)
{
    expect_case_ok("section_transpose", 2, huge_tiles);
    expect_case_ok("section_2d", 2, huge_tiles);
    expect_case_ok("fetch_section", 2, huge_tiles);
}

/* Waiting PEs sleep at once: every wake-up path is exercised. */
Test(env, spin_0, .timeout = 3 * JOB_WATCHDOG)
{
    expect_case_ok("ctr_pingpong", 4, no_spin);
    expect_case_ok("sync_rounds", 4, no_spin);
    expect_case_ok("ctr_many_to_one", 3, no_spin);
}

/* The barrier's sleeping and waking paths (2 PEs: the pair barrier; 3
 * and 5: the central one) and an odd count above the cores. */
static const char *const one_buffer_short[] = {"DMSG_SPIN=0", "PE_ROUNDS=600", NULL};
Test(env, sync_one_buffer_sleeping, .timeout = 3 * JOB_WATCHDOG)
{
    expect_case_ok("sync_one_buffer", 2, no_spin);
    expect_case_ok("sync_one_buffer", 3, one_buffer_short);
    expect_case_ok("sync_one_buffer", 5, one_buffer_short);
    expect_case_ok("coll_allreduce_lines", 2, no_spin);
    expect_case_ok("coll_allreduce_lines", 5, one_buffer_short);
}

/* The allreduce's paths by the settings that choose them: every vector of
 * coll_allreduce_lines in the barrier's words (DMSG_COLL_XCHG=4K, the
 * largest, and no flat step), and none there (DMSG_COLL_XCHG=0: the pair
 * path at 2 PEs, the flat step or recursive doubling at 3). */
Test(env, coll_path_settings, .timeout = 3 * JOB_WATCHDOG)
{
    static const char *const wide[] = {"DMSG_COLL_XCHG=4K", "DMSG_COLL_FLAT=0", "PE_ROUNDS=600",
                                       NULL};
    static const char *const none[] = {"DMSG_COLL_XCHG=0", "PE_ROUNDS=600", NULL};
    expect_case_ok("coll_allreduce_lines", 3, wide);
    expect_case_ok("coll_allreduce_lines", 5, wide);
    expect_case_ok("coll_allreduce_lines", 2, none);
    expect_case_ok("coll_allreduce_lines", 3, none);
}

/* dmsg_sync_xchg over sim, which carries no values in its barrier: refused
 * on every PE alike. */
static const char *const sync_xchg_sim[] = {"DMSG_TRANSPORT=sim", "DMSG_MACHINE=t3d", NULL};
Test(env, sync_xchg_sim, .timeout = 2 * JOB_WATCHDOG)
{
    expect_case_ok("sync_xchg", 3, sync_xchg_sim);
}

/* amo.c: atomics, signals and point-to-point waits, over shm and sim. */
PE_CASE(amo_ops)
PE_CASE(amo_contend)
PE_CASE(amo_nb)
PE_CASE(amo_errors)
PE_CASE(amo_not_init)
PE_CASE(signal_order)
PE_CASE(wait_cmp)
PE_CASE(wait_set)
PE_CASE_ENV(wait_timeout, timeout_env)
static const char *const amo_sim[] = {"DMSG_TRANSPORT=sim", "DMSG_MACHINE=t3d", NULL};
static const char *const amo_sim_paragon[] = {"DMSG_TRANSPORT=sim", "DMSG_MACHINE=paragon", NULL};
static const char *const amo_nospin[] = {"DMSG_SPIN=0", NULL};
Test(amo, sim_cases, .timeout = 8 * JOB_WATCHDOG)
{
    static const char *const names[] = {"amo_ops", "amo_contend", "amo_nb", "amo_errors",
                                        "signal_order", "wait_cmp", "wait_set"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        expect_case_ok(names[i], 3, i % 2 ? amo_sim_paragon : amo_sim);
}
/* More PEs than cores: contention, and sleeping waiters woken by the
 * doorbell (DMSG_SPIN=0: every wait sleeps at once). */
Test(amo, pes8_contend, .timeout = 2 * JOB_WATCHDOG)
{
    expect_case_ok("amo_contend", 8, NULL);
}
Test(amo, pes16_signal_order_nospin, .timeout = 3 * JOB_WATCHDOG)
{
    expect_case_ok("signal_order", 16, amo_nospin);
    expect_case_ok("wait_set", 16, amo_nospin);
}
Test(amo, pes8_wait_cmp_nospin, .timeout = 2 * JOB_WATCHDOG)
{
    expect_case_ok("wait_cmp", 8, amo_nospin);
}
/* Collectives with more PEs than cores, on the simulated machine, and
 * through a small scratch area (many chunks per call). */
Test(many, pes8_coll, .timeout = 4 * JOB_WATCHDOG)
{
    expect_case_ok("coll_movers", 8, NULL);
    expect_case_ok("coll_reductions", 8, NULL);
    expect_case_ok("coll_skew", 8, NULL);
    expect_case_ok("coll_bcast_stream", 8, NULL);
}
Test(many, pes16_coll, .timeout = 4 * JOB_WATCHDOG)
{
    expect_case_ok("coll_skew", 16, NULL);
    expect_case_ok("coll_bcast_stream", 16, NULL); /* a tree, not flat */
    expect_case_ok("team_cycle", 16, NULL);
    expect_case_ok("coll_movers", 16, NULL);
    static const char *const tiny[] = {"DMSG_COLL_SCRATCH=4K", NULL};
    expect_case_ok("coll_tiny_scratch", 16, tiny);
}
/* The direct path of reductions: 8 PEs on shm; every size with
 * DMSG_COLL_DIRECT=1 (fewer elements than members); sim and ofi, which
 * must take the scratch path. */
Test(env, coll_direct, .timeout = 6 * JOB_WATCHDOG)
{
    static const char *const all[] = {"DMSG_COLL_DIRECT=1", NULL};
    static const char *const sim[] = {"DMSG_TRANSPORT=sim", NULL};
    static const char *const ofi[] = {"DMSG_TRANSPORT=ofi", "DMSG_OFI_PROVIDER=shm", NULL};
    expect_case_ok("coll_direct_path", 8, NULL);
    expect_case_ok("coll_direct_path", 3, all);
    expect_case_ok("coll_direct_path", 5, all);
    expect_case_ok("coll_direct_path", 3, sim);
    expect_case_ok("coll_direct_path", 2, ofi);
}
Test(env, coll_sim, .timeout = 4 * JOB_WATCHDOG)
{
    static const char *const sim[] = {"DMSG_TRANSPORT=sim", NULL};
    expect_case_ok("coll_reductions", 3, sim);
    expect_case_ok("coll_movers", 4, sim);
    expect_case_ok("coll_skew", 3, sim);
    expect_case_ok("coll_bcast_stream", 4, sim);
}
Test(env, coll_scratch_small, .timeout = 4 * JOB_WATCHDOG)
{
    static const char *const small[] = {"DMSG_COLL_SCRATCH=192K", NULL};
    expect_case_ok("coll_movers", 4, small);
    expect_case_ok("coll_reductions", 3, small);
    expect_case_ok("coll_bcast_stream", 3, small); /* chunked acked broadcasts */
    static const char *const check[] = {"DMSG_CHECK=1", NULL};
    expect_case_ok("coll_bcast_stream", 4, check);
}
/* Over libfabric's sockets provider, which counts deposits by remote
 * counters: a counter exists there only once it is reset, so the teams'
 * lanes must be set up before anyone writes them. */
Test(env, coll_ofi_counters, .timeout = 4 * JOB_WATCHDOG)
{
    static const char *const sock[] = {"DMSG_TRANSPORT=ofi", "DMSG_OFI_PROVIDER=sockets", NULL};
    expect_case_ok("team_cycle", 3, sock);
    expect_case_ok("coll_movers", 3, sock);
    expect_case_ok("team_counter", 4, sock);
    static const char *const tcp[] = {"DMSG_TRANSPORT=ofi", "DMSG_OFI_PROVIDER=tcp;ofi_rxm", NULL};
    expect_case_ok("coll_bcast_stream", 3, tcp);
}
