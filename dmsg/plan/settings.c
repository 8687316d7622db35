/* The plan layer's settings rows. */
#include <stdlib.h>
#include <string.h>
#include "dmsg/base/env.h"
#include "dmsg/model/machine.h"
#include "dmsg/plan/settings.h"
#include "dmsg_plan.h"

#define F(field) DMSG_ENV_FIELD(dmsg_plan_config, field)

static const dmsg_env_entry rows[] = {
    {"DMSG_PLAN_MECH", DMSG_ENV_STRING, "model",
     "plan: mechanism of plans created without options: model (the copy-transfer model picks "
     "direct or packed per partner), direct, pack, measure (time both, keep the faster)",
     F(mech)},
    {"DMSG_PLAN_MACHINE", DMSG_ENV_STRING, "auto",
     "plan: machine of the model when the options name none: auto (on sim the simulated one, "
     "else this host's cached description or a short calibration), a built-in or a file",
     F(machine)},
    {"DMSG_PLAN_CALIBRATE", DMSG_ENV_STRING, "auto",
     "plan: auto (measure this host's copy rates the plan needs, a few ms, when no cached "
     "description has them), off (no model without a machine: direct), refresh (measure again)",
     F(calibrate)},
    {"DMSG_PLAN_CACHE", DMSG_ENV_STRING, "auto",
     "plan: directory of host descriptions; auto = $XDG_CACHE_HOME/dmsg, else ~/.cache/dmsg",
     F(cache)},
};

static const dmsg_env_table table = {rows, sizeof rows / sizeof rows[0], sizeof(dmsg_plan_config)};

static const dmsg_env_choice mechs[] = {{"model", DMSG_PLAN_MODEL},
                                        {"direct", DMSG_PLAN_DIRECT},
                                        {"pack", DMSG_PLAN_PACK},
                                        {"measure", DMSG_PLAN_MEASURE}};
static const dmsg_env_choice cals[] = {
    {"auto", PLAN_CAL_AUTO}, {"off", PLAN_CAL_OFF}, {"refresh", PLAN_CAL_REFRESH}};

dmsg_status dmsg_plan_settings_load(plan_settings *s)
{
    dmsg_plan_config c;
    plan_settings n;
    memset(&n, 0, sizeof n);
    dmsg_status st = dmsg_env_load(&table, &c);
    if (st == DMSG_OK)
        st = dmsg_env_choose("DMSG_PLAN_MECH", c.mech, mechs, sizeof mechs / sizeof mechs[0],
                             &n.mech);
    if (st == DMSG_OK)
        st = dmsg_env_choose("DMSG_PLAN_CALIBRATE", c.calibrate, cals, sizeof cals / sizeof cals[0],
                             &n.calibrate);
    if (st != DMSG_OK) return st;
    if (strcmp(c.machine, "auto") != 0) {
        dmsg_machine m;
        if (dmsg_machine_load(c.machine, &m) != DMSG_OK)
            return DMSG_FAIL(DMSG_ERR_ENV, "DMSG_PLAN_MACHINE=%s: %s", c.machine,
                             dmsg_last_error());
        memcpy(n.machine, c.machine, sizeof c.machine);
    }
    if (strcmp(c.cache, "auto") != 0) {
        memcpy(n.cache, c.cache, sizeof c.cache);
    } else {
        const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
        if (xdg != NULL && xdg[0] == '/')
            snprintf(n.cache, sizeof n.cache, "%s/dmsg", xdg);
        else if (home != NULL && home[0] != '\0')
            snprintf(n.cache, sizeof n.cache, "%s/.cache/dmsg", home);
    }
    *s = n;
    return DMSG_OK;
}

dmsg_status dmsg_plan_config_check(void)
{
    plan_settings s;
    return dmsg_plan_settings_load(&s);
}

const dmsg_env_owner dmsg_plan_owner = {"plan", "dmsg_plan_create and dmsg_iplan_create", &table,
                                        dmsg_plan_config_check};
