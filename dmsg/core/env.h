/* The one table of environment settings. dmsg_init, dmsgrun and
 * `dmsgrun --help-env` all read it, so a setting is declared exactly once. */
#ifndef DMSG_CORE_ENV_H
#define DMSG_CORE_ENV_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "dmsg/core/status.h"

typedef struct dmsg_config {
    char transport[16];   /* DMSG_TRANSPORT */
    uint64_t seg_size;    /* DMSG_SEGMENT_SIZE, bytes, page-rounded */
    uint32_t max_counters;/* DMSG_MAX_COUNTERS */
    double timeout;       /* DMSG_TIMEOUT, seconds per wait; 0 = forever */
    long spin;            /* DMSG_SPIN, polls before sleeping; -1 = automatic */
    uint64_t tile_bytes;  /* DMSG_TILE_BYTES */
    int debug;            /* DMSG_DEBUG */
    /* Simulated machines (DMSG_TRANSPORT=sim). */
    char machine[256];    /* DMSG_MACHINE: built-in name or description file */
    char sim_mech[16];    /* DMSG_SIM_MECH: auto, packed, chained */
    double sim_congestion;/* DMSG_SIM_CONGESTION: 0 = the machine's typical value */
    char sim_fetch[16];   /* DMSG_SIM_FETCH: auto, blocking, pipelined, vector */
    int sim_report;       /* DMSG_SIM_REPORT: print the time breakdown at finalize */
    /* libfabric (DMSG_TRANSPORT=ofi). */
    char ofi_provider[64];/* DMSG_OFI_PROVIDER: auto or a provider name, e.g. "udp;ofi_rxd" */
    char ofi_iface[32];   /* DMSG_OFI_IFACE: auto or a network interface name */
    char ofi_mech[16];    /* DMSG_OFI_MECH: auto, chained, packed */
    char ofi_count[16];   /* DMSG_OFI_COUNT: auto, cqdata, counter */
    char ofi_library[256];/* DMSG_OFI_LIBRARY: libfabric shared library to open */
    double ofi_timeout;   /* DMSG_OFI_TIMEOUT: seconds any ofi wait may last when DMSG_TIMEOUT=0 */
} dmsg_config;

typedef enum { DMSG_ENV_STRING, DMSG_ENV_SIZE, DMSG_ENV_UINT, DMSG_ENV_SECONDS, DMSG_ENV_LONG,
               DMSG_ENV_BOOL } dmsg_env_type;

typedef struct dmsg_env_entry {
    const char *name;
    dmsg_env_type type;
    const char *def;  /* default, in the same syntax as the variable */
    const char *help;
    size_t field;     /* offsetof in dmsg_config */
    size_t size;      /* sizeof the field */
} dmsg_env_entry;

extern const dmsg_env_entry dmsg_env_table[];
extern const size_t dmsg_env_count;

/* Fills cfg from the environment (defaults for unset variables). On a bad
 * value returns DMSG_ERR_ENV and writes a message naming the variable to err. */
dmsg_status dmsg_env_load(dmsg_config *cfg, char *err, size_t errlen);

/* Parses one value of a given type into *out (sized per type). */
dmsg_status dmsg_env_parse(dmsg_env_type type, const char *text, void *out, size_t outlen);

/* Prints the table (name, default, help) for `dmsgrun --help-env`. */
void dmsg_env_print(FILE *f);

#endif
