/* The core's settings (DMSG_TRANSPORT, segment size, counters, timeout, ...)
 * and the functions that read or print every settings table of this build:
 * the core's rows, then each registered transport's, in registration order.
 * dmsg_init and dmsgrun (the launcher, which checks the settings before it
 * starts a job and prints them for --help-env) use it. */
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
    double stall_report;   /* DMSG_STALL_REPORT: dmsgrun reports a job without progress; 0 = never */
    long spin;             /* DMSG_SPIN, polls before sleeping; -1 = automatic */
    long yield_us;         /* DMSG_YIELD_US, oversubscribed: yielding before sleeping; -1 = automatic */
    uint64_t tile_bytes;   /* DMSG_TILE_BYTES */
    char pmix_library[256]; /* DMSG_PMIX_LIBRARY */
    int check;             /* DMSG_CHECK: the checker for well-synchronized programs */
    uint64_t check_log;    /* DMSG_CHECK_LOG: bytes of the checker's window; 0 = automatic */
    int debug;             /* DMSG_DEBUG */
} dmsg_config;

/* The core's rows (filling a dmsg_config). */
extern const dmsg_env_table dmsg_config_table;

/* Fills cfg from the environment and checks every transport's settings as
 * well, so that a bad value of any setting is refused whichever transport
 * runs. DMSG_ERR_ENV with a message naming the variable in err; cfg is set
 * only on success. */
dmsg_status dmsg_config_load(dmsg_config *cfg, char *err, size_t errlen);

/* Prints every table of this build (`dmsgrun --help-env`). */
void dmsg_config_print(FILE *f);

/* 1 if this build has a transport of that name (for dmsgrun -t). */
int dmsg_transport_known(const char *name);

/* The transports of this build, comma-separated ("shm, sim, ofi"), built
 * from the registry so that a new transport is never missing from a message. */
const char *dmsg_transport_list(void);

#endif
