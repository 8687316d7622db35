/* dmsgrun's own settings: rows that only the launcher reads (the PEs never
 * do), kept in the library so that the settings registry lists them. */
#ifndef DMSG_BOOT_RUN_ENV_H
#define DMSG_BOOT_RUN_ENV_H

#include "dmsg/base/env.h"

typedef struct dmsg_run_config {
    double stall_report; /* DMSG_STALL_REPORT: dmsgrun reports a job without progress; 0 = never */
} dmsg_run_config;

/* Fills c from the environment (defaults for unset or empty variables).
 * DMSG_ERR_ENV with a detail naming the variable (dmsg_last_error); c is set only on
 * success. */
dmsg_status dmsg_run_config_load(dmsg_run_config *c);

/* dmsgrun as an owner of the settings registry. */
extern const dmsg_env_owner dmsg_run_owner;

#endif
