/* The core's settings table, and reading or printing all tables at once. */
#include <stdlib.h>
#include <string.h>
#include "dmsg/core/config.h"
#include "dmsg/transport/transport.h"

#define F(field) DMSG_ENV_FIELD(dmsg_config, field)

static const dmsg_env_entry rows[] = {
    {"DMSG_TRANSPORT", DMSG_ENV_STRING, "shm",
     "transport: shm (native shared memory, one host), sim (simulated machine, virtual time), "
     "ofi (libfabric RMA, one or many hosts)",
     F(transport)},
    {"DMSG_SEGMENT_SIZE", DMSG_ENV_SIZE, "128M",
     "bytes of each PE's symmetric segment (suffix K, M, G, T); memory is used only when touched",
     F(seg_size)},
    {"DMSG_MAX_COUNTERS", DMSG_ENV_UINT, "256", "number of deposit counters that may exist at once",
     F(max_counters)},
    {"DMSG_TIMEOUT", DMSG_ENV_SECONDS, "0",
     "seconds any single wait (await, sync, collective, init) may block before it returns "
     "DMSG_ERR_TIMEOUT; 0 = no limit",
     F(timeout)},
    {"DMSG_SPIN", DMSG_ENV_LONG, "-1",
     "polls before a waiting PE sleeps (futex); -1 = automatic (short when PEs outnumber cores)",
     F(spin)},
    {"DMSG_YIELD_US", DMSG_ENV_LONG, "-1",
     "microseconds a waiting PE yields its core between polls, when PEs outnumber cores, before "
     "it sleeps; 0 = sleep at once; -1 = automatic (shm and sim 200, ofi 5000)",
     F(yield_us)},
    {"DMSG_TILE_BYTES", DMSG_ENV_SIZE, "0",
     "working set per side of one tile of a strided 2-D copy (transpose); 0 = automatic by "
     "element size (4K from 16-byte elements on, 64K below)",
     F(tile_bytes)},
    {"DMSG_PMIX_LIBRARY", DMSG_ENV_STRING, "libpmix.so.2",
     "the libpmix shared library opened under a PMIx launcher (Open MPI's mpirun, srun "
     "--mpi=pmix): a name the dynamic loader searches, or a path",
     F(pmix_library)},
    {"DMSG_CHECK", DMSG_ENV_BOOL, "0",
     "1: check that the program is well-synchronized: report on stderr deposits and fetches of "
     "the same bytes by different PEs in one barrier epoch, and awaits that can never complete "
     "(docs/model.md)",
     F(check)},
    {"DMSG_CHECK_LOG", DMSG_ENV_SIZE, "0",
     "DMSG_CHECK=1: bytes at the top of each segment (hidden from dmsg_alloc) through which the "
     "PEs pass their check logs at each barrier; a larger log takes extra barrier rounds, never "
     "goes unchecked; 0 = automatic (a quarter of the segment, at most 32M)",
     F(check_log)},
    {"DMSG_COLL_SCRATCH", DMSG_ENV_SIZE, "0",
     "bytes at the top of each segment (hidden from dmsg_alloc) through which the collectives "
     "pass data: half for the world team, half shared by the other teams; larger data goes "
     "through it in chunks; 0 = automatic (a sixteenth of the segment, at most 8M)",
     F(coll_scratch)},
    {"DMSG_COLL_DIRECT", DMSG_ENV_SIZE, "32K",
     "where every member's segment is mapped (shm), reductions of at least this many bytes on "
     "symmetric buffers read and write the members' buffers in place instead of passing through "
     "the collectives' scratch, and so do broadcasts, allgathers and all-to-alls from symmetric "
     "sources where a member receives 4 times as much; the same on every PE; 0 = never",
     F(coll_direct)},
    {"DMSG_COLL_XCHG", DMSG_ENV_SIZE, "512",
     "allreduces on the world team of at most this many bytes a member (and 32K of all members "
     "together) ride in the barrier's shared words where the transport offers that (shm): one "
     "barrier, no deposit; the same on every PE; 0 = never; at most 4K",
     F(coll_xchg)},
    {"DMSG_COLL_FLAT", DMSG_ENV_SIZE, "2K",
     "allreduces of at most this many bytes on at most 16 members that take none of the paths "
     "before it take one flat step (every member deposits its vector to every other) instead of "
     "recursive doubling; at most 512 where every PE has a core of one host (shm); the same on "
     "every PE; 0 = never",
     F(coll_flat)},
    {"DMSG_BARRIER", DMSG_ENV_STRING, "central",
     "shm: the barrier of 3 or more PEs: central (one counter and a generation word), "
     "dissemination (log2 n rounds of a line each, up to 64 PEs, beyond them central); the same "
     "on every PE",
     F(barrier)},
    {"DMSG_DEBUG", DMSG_ENV_BOOL, "0", "1: print a diagnostic to stderr where an error is detected",
     F(debug)},
};

const dmsg_env_table dmsg_config_table = {rows, sizeof rows / sizeof rows[0], sizeof(dmsg_config)};

/* Range rules that the types alone do not express. */
static dmsg_status check_ranges(dmsg_config *c)
{
    if (c->seg_size < 4096 || c->seg_size > ((uint64_t)1 << 40)) {
        return DMSG_FAIL(DMSG_ERR_ENV, "DMSG_SEGMENT_SIZE must be between 4K and 1T");
    }
    c->seg_size = (c->seg_size + 4095) & ~(uint64_t)4095;
    if (c->max_counters < 1 || c->max_counters > 65536 - DMSG_COLL_CTRS) {
        return DMSG_FAIL(DMSG_ERR_ENV, "DMSG_MAX_COUNTERS must be between 1 and %d",
                         65536 - DMSG_COLL_CTRS);
    }
    if (c->yield_us > 10000000) {
        return DMSG_FAIL(DMSG_ERR_ENV,
                         "DMSG_YIELD_US must be -1 (automatic) or between 0 and 10000000");
    }
    if (c->tile_bytes != 0 && (c->tile_bytes < 256 || c->tile_bytes > ((uint64_t)64 << 20))) {
        return DMSG_FAIL(DMSG_ERR_ENV,
                         "DMSG_TILE_BYTES must be 0 (automatic) or between 256 and 64M");
    }
    if (c->check_log != 0 && (c->check_log < 4096 || c->check_log > c->seg_size / 2)) {
        return DMSG_FAIL(DMSG_ERR_ENV,
                         "DMSG_CHECK_LOG must be 0 (automatic) or between 4K and half of "
                         "DMSG_SEGMENT_SIZE");
    }
    if (c->coll_scratch != 0 && c->coll_scratch > c->seg_size / 2) {
        return DMSG_FAIL(DMSG_ERR_ENV, "DMSG_COLL_SCRATCH must be 0 (automatic) or at most half of "
                                       "DMSG_SEGMENT_SIZE");
    }
    static const dmsg_env_choice kinds[] = {{"central", DMSG_TP_BARRIER_CENTRAL},
                                            {"dissemination", DMSG_TP_BARRIER_DISSEMINATION}};
    dmsg_status st = dmsg_env_choose("DMSG_BARRIER", c->barrier, kinds,
                                     sizeof kinds / sizeof kinds[0], &c->barrier_kind);
    if (st)
        return st;
    if (c->coll_xchg > DMSG_COLL_XCHG_MAX) {
        return DMSG_FAIL(DMSG_ERR_ENV, "DMSG_COLL_XCHG must be at most %d", DMSG_COLL_XCHG_MAX);
    }
    return DMSG_OK;
}

uint64_t dmsg_coll_scratch_bytes(const dmsg_config *c)
{
    uint64_t b = c->coll_scratch;
    if (b == 0) {
        b = c->seg_size / 16;
        if (b > ((uint64_t)8 << 20))
            b = (uint64_t)8 << 20;
    }
    return b & ~(uint64_t)4095;
}

dmsg_status dmsg_config_load(dmsg_config *cfg)
{
    dmsg_config c;
    char scratch[1024]; /* a transport's settings, only checked here */
    dmsg_status st = dmsg_env_load(&dmsg_config_table, &c);
    for (size_t i = 0; !st && i < dmsg_tp_count; i++)
        if (dmsg_tp_all[i]->settings)
            st = dmsg_env_load(dmsg_tp_all[i]->settings, scratch);
    if (!st) st = check_ranges(&c);
    if (st)
        return st;
    *cfg = c;
    return DMSG_OK;
}

static dmsg_status core_check(void)
{
    dmsg_config c;
    return dmsg_config_load(&c);
}

const dmsg_env_owner dmsg_config_owner = {"core", "every PE, at dmsg_init", &dmsg_config_table,
                                          core_check};

int dmsg_transport_known(const char *name)
{
    return dmsg_tp_find(name) != NULL;
}

const char *dmsg_transport_list(void)
{
    static char list[128];
    if (!list[0])
        for (size_t i = 0; i < dmsg_tp_count; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                     dmsg_tp_all[i]->name);
    return list;
}
