/* dmsgrun's settings rows (run_env.h). */
#include "dmsg/boot/run_env.h"

#define F(field) DMSG_ENV_FIELD(dmsg_run_config, field)

static const dmsg_env_entry rows[] = {
    {"DMSG_STALL_REPORT", DMSG_ENV_SECONDS, "60",
     "dmsgrun: seconds without progress (PEs waiting in dmsg, nobody's state changing) after "
     "which dmsgrun says which PE waits where (again after twice as long, ...); 0 = never",
     F(stall_report)},
};

static const dmsg_env_table table = {rows, sizeof rows / sizeof rows[0], sizeof(dmsg_run_config)};

dmsg_status dmsg_run_config_load(dmsg_run_config *c, char *err, size_t errlen)
{
    dmsg_status st = dmsg_env_load(&table, c);
    if (st)
        snprintf(err, errlen, "%s", dmsg_last_error());
    return st;
}

const dmsg_env_owner dmsg_run_owner = {"dmsgrun", "dmsgrun, before it starts the job", &table,
                                       NULL};
