/* The core's settings (DMSG_TRANSPORT, segment size, counters, timeout, ...)
 * and the functions that read or print every settings table of this build:
 * the core's rows, then each registered transport's, in registration order.
 * dmsg_init uses it; the settings registry (dmsg/plan/registry.h) names the
 * core's and each transport's rows next to the other owners'. */
#ifndef DMSG_CORE_CONFIG_H
#define DMSG_CORE_CONFIG_H

#include <stdint.h>
#include <stdio.h>
#include "dmsg/base/env.h"

typedef struct dmsg_config {
    char transport[16];    /* DMSG_TRANSPORT */
    uint64_t seg_size;     /* DMSG_SEGMENT_SIZE, bytes, page-rounded */
    uint32_t max_counters; /* DMSG_MAX_COUNTERS */
    double timeout;        /* DMSG_TIMEOUT, seconds per wait; 0 = forever */
    long spin;             /* DMSG_SPIN, polls before sleeping; -1 = automatic */
    long yield_us;         /* DMSG_YIELD_US, oversubscribed: yielding before sleeping; -1 = automatic */
    uint64_t tile_bytes;   /* DMSG_TILE_BYTES */
    char pmix_library[256]; /* DMSG_PMIX_LIBRARY */
    int check;             /* DMSG_CHECK: the checker for well-synchronized programs */
    uint64_t check_log;    /* DMSG_CHECK_LOG: bytes of the checker's window; 0 = automatic */
    int debug;             /* DMSG_DEBUG */
    uint64_t coll_scratch; /* DMSG_COLL_SCRATCH: bytes of the collectives' scratch; 0 = automatic */
    uint64_t coll_direct;  /* DMSG_COLL_DIRECT: collectives' direct path from these bytes; 0 = never */
    uint64_t coll_xchg;    /* DMSG_COLL_XCHG: allreduces in the barrier, bytes a member */
    uint64_t coll_flat;    /* DMSG_COLL_FLAT: allreduces in one flat step, bytes */
    char barrier[16];      /* DMSG_BARRIER: central, dissemination (shm, 3+ PEs) */
    int barrier_kind;      /* its choice: DMSG_TP_BARRIER_CENTRAL, _DISSEMINATION */
} dmsg_config;

/* Teams and collectives (dmsg/coll/): team slots per PE (the world team is
 * slot 0), and the counter slots each team owns: DMSG_COLL_GENS generations
 * (consecutive collective steps use consecutive ones) of DMSG_COLL_LANES
 * lanes. They sit after the user's DMSG_MAX_COUNTERS slots in every
 * transport's counter table, so the user's limit is what it says. */
#define DMSG_MAX_TEAMS 32
#define DMSG_COLL_GENS 3
#define DMSG_COLL_LANES 16
/* and the short broadcasts' ring of slots, a data lane each, and an
 * acknowledgement lane per group of DMSG_COLL_RING_GROUP slots */
#define DMSG_COLL_RING 16
#define DMSG_COLL_RING_GROUP 4
#define DMSG_COLL_TEAM_CTRS                                                                        \
    (DMSG_COLL_GENS * DMSG_COLL_LANES + DMSG_COLL_RING + DMSG_COLL_RING / DMSG_COLL_RING_GROUP)
#define DMSG_COLL_CTRS (DMSG_MAX_TEAMS * DMSG_COLL_TEAM_CTRS)
/* The counter table every transport sets up: the user's and the teams'. */
#define DMSG_CTR_TABLE(cfg) ((cfg)->max_counters + (uint32_t)DMSG_COLL_CTRS)
/* The largest DMSG_COLL_XCHG: the bytes a member's value may have where
 * the world team's allreduce rides in the barrier (dmsg/coll/coll.c keeps a
 * vector this long on its stack). */
#define DMSG_COLL_XCHG_MAX 4096
/* Bytes of the collectives' scratch area in a segment of seg_size bytes. */
uint64_t dmsg_coll_scratch_bytes(const dmsg_config *c);

/* The core's rows (filling a dmsg_config). */
extern const dmsg_env_table dmsg_config_table;

/* Fills cfg from the environment and checks every transport's settings as
 * well, so that a bad value of any setting is refused whichever transport
 * runs. DMSG_ERR_ENV with a detail naming the variable (dmsg_last_error);
 * cfg is set only on success. */
dmsg_status dmsg_config_load(dmsg_config *cfg);

/* The core as an owner of the settings registry (dmsg/plan/registry.h):
 * its check loads and checks the rows as dmsg_config_load. */
extern const dmsg_env_owner dmsg_config_owner;

/* 1 if this build has a transport of that name (for dmsgrun -t). */
int dmsg_transport_known(const char *name);

/* The transports of this build, comma-separated ("shm, sim, ofi"), built
 * from the registry so that a new transport is never missing from a message. */
const char *dmsg_transport_list(void);

#endif
