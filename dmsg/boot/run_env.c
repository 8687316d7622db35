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

dmsg_status dmsg_run_config_load(dmsg_run_config *c)
{
    return dmsg_env_load(&table, c);
}

const dmsg_env_owner dmsg_run_owner = {"dmsgrun", "dmsgrun, before it starts the job", &table,
                                       NULL};
