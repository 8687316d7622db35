/* The settings of the plan layer: its own rows (DMSG_PLAN_*), read by
 * dmsg_plan_create; the settings registry (dmsg/plan/registry.h) lists them
 * for dmsgrun's check and --help-env. */
#ifndef DMSG_PLAN_SETTINGS_H
#define DMSG_PLAN_SETTINGS_H

#include <stddef.h>
#include <stdio.h>
#include "dmsg/base/status.h"

/* DMSG_PLAN_CALIBRATE */
enum { PLAN_CAL_AUTO = 0, PLAN_CAL_OFF = 1, PLAN_CAL_REFRESH = 2 };

/* The rows' raw values. */
typedef struct dmsg_plan_config {
    char mech[16];      /* DMSG_PLAN_MECH: model, direct, pack, measure */
    char machine[256];  /* DMSG_PLAN_MACHINE: auto, a built-in name or a file */
    char calibrate[16]; /* DMSG_PLAN_CALIBRATE: auto, off, refresh */
    char cache[256];    /* DMSG_PLAN_CACHE: auto or a directory */
} dmsg_plan_config;

/* What they mean, checked. */
typedef struct plan_settings {
    int mech;          /* enum dmsg_plan_mech */
    char machine[256]; /* "" for auto */
    int calibrate;     /* PLAN_CAL_* */
    char cache[512];   /* the directory of host descriptions ("" if none can be named) */
} plan_settings;

/* Fills *s from the environment (defaults for unset or empty variables).
 * DMSG_ERR_ENV with a detail naming the variable (dmsg_last_error: an
 * unknown choice, a machine that does not load); *s is set only on success. */
dmsg_status dmsg_plan_settings_load(plan_settings *s);

/* The launcher's check: DMSG_ERR_ENV and the detail as dmsg_plan_settings_load. */
dmsg_status dmsg_plan_config_check(void);

/* The plan layer as an owner of the settings registry. */
struct dmsg_env_owner;
extern const struct dmsg_env_owner dmsg_plan_owner;

#endif
