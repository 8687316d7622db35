/* The settings registry (registry.h). */
#include <string.h>
#include "dmsg/boot/run_env.h"
#include "dmsg/core/config.h"
#include "dmsg/model/machine.h"
#include "dmsg/plan/registry.h"
#include "dmsg/plan/settings.h"
#include "dmsg/postal/settings.h"
#include "dmsg/transport/transport.h"

/* Variables that tools read with getenv, outside any layer's struct: they
 * are listed here so that --help-env shows them and the registry test
 * finds every DMSG_ variable. Their fields are never filled. */
typedef struct bench_settings {
    char mpiexec[256];
    char oshrun[256];
} bench_settings;

static const dmsg_env_entry bench_rows[] = {
    {"DMSG_BENCH_MPIEXEC", DMSG_ENV_PATH, "",
     "dmsg-bench: the launcher of the MPI variants, a command; none = mpiexec.mpich where it is "
     "on PATH, else mpiexec",
     DMSG_ENV_FIELD(bench_settings, mpiexec)},
    {"DMSG_BENCH_OSHRUN", DMSG_ENV_PATH, "",
     "dmsg-bench: the launcher of the OpenSHMEM variants, a command; none = oshrun "
     "--allow-run-as-root --oversubscribe",
     DMSG_ENV_FIELD(bench_settings, oshrun)},
};
static const dmsg_env_table bench_table = {bench_rows, sizeof bench_rows / sizeof bench_rows[0],
                                           sizeof(bench_settings)};
static const dmsg_env_owner bench_owner = {"dmsg-bench", "dmsg-bench", &bench_table, NULL};

/* The copy engine's host profile: read by dmsg_init and by dmsg-ctm, which
 * runs without a job, so it is looked up where it is used
 * (dmsg/xfer/copy_tune.c). */
typedef struct profile_settings {
    char path[1024];
} profile_settings;

static const dmsg_env_entry profile_rows[] = {
    {"DMSG_HOST_PROFILE", DMSG_ENV_PATH, "",
     "the host profile (dmsg-ctm tune writes it): the copy engine's transpose blocking, used only "
     "on a host of the same CPU model and caches; none = $XDG_CACHE_HOME/dmsg/host.profile, else "
     "~/.cache/dmsg/host.profile",
     DMSG_ENV_FIELD(profile_settings, path)},
};
static const dmsg_env_table profile_table = {profile_rows, 1, sizeof(profile_settings)};
static const dmsg_env_owner profile_owner = {"copy engine", "every PE at dmsg_init, and dmsg-ctm",
                                             &profile_table, NULL};

/* What dmsgrun's MPMD form (dmsgrun -n 1 ./a : -n 3 ./b) tells each PE;
 * the PVM front end reads it (dmsg/front/pvm/pvm_task.c). */
typedef struct mpmd_settings {
    long appnum;
    char sizes[256];
} mpmd_settings;

static const dmsg_env_entry mpmd_rows[] = {
    {"DMSG_APPNUM", DMSG_ENV_LONG, "-1",
     "set by dmsgrun for every PE of an MPMD launch: the program block this PE runs, from 0; "
     "-1 = one program",
     DMSG_ENV_FIELD(mpmd_settings, appnum)},
    {"DMSG_APP_SIZES", DMSG_ENV_PATH, "",
     "set by dmsgrun for every PE of an MPMD launch: the PEs of each program block, comma "
     "separated; none = one program",
     DMSG_ENV_FIELD(mpmd_settings, sizes)},
};
static const dmsg_env_table mpmd_table = {mpmd_rows, sizeof mpmd_rows / sizeof mpmd_rows[0],
                                          sizeof(mpmd_settings)};
static const dmsg_env_owner mpmd_owner = {"dmsgrun MPMD", "the PVM front end (pvm_spawn)",
                                          &mpmd_table, NULL};

/* The coarray runtime's component heap (dmsg/front/caf/caf_heap.c), which
 * reads it with getenv: a front end sits above this layer. */
typedef struct caf_settings {
    uint64_t heap;
} caf_settings;

static const dmsg_env_entry caf_rows[] = {
    {"DMSG_CAF_HEAP", DMSG_ENV_SIZE, "0",
     "libcaf_dmsg: bytes of the component heap, the symmetric block in which each image "
     "allocates the allocatable components of its derived-type coarrays; taken from the "
     "segment at the first registration of a component; 0 = a quarter of DMSG_SEGMENT_SIZE",
     DMSG_ENV_FIELD(caf_settings, heap)},
};
static const dmsg_env_table caf_table = {caf_rows, 1, sizeof(caf_settings)};
static const dmsg_env_owner caf_owner = {"coarrays", "libcaf_dmsg, at its first component",
                                         &caf_table, NULL};

/* The owners below and above the transports, in --help-env's order. */
static const dmsg_env_owner *const before[] = {&dmsg_config_owner, &profile_owner};
static const dmsg_env_owner *const after[] = {&dmsg_machine_owner, &dmsg_postal_owner,
                                              &dmsg_plan_owner, &dmsg_run_owner, &mpmd_owner,
                                              &caf_owner, &bench_owner};
#define NBEFORE (sizeof before / sizeof before[0])
#define NAFTER (sizeof after / sizeof after[0])

size_t dmsg_settings_count(void)
{
    return NBEFORE + dmsg_tp_count + NAFTER;
}

int dmsg_settings_owner(size_t i, dmsg_env_owner *o)
{
    if (i < NBEFORE) {
        *o = *before[i];
    } else if (i - NBEFORE < dmsg_tp_count) {
        const dmsg_tp_ops *tp = dmsg_tp_all[i - NBEFORE];
        *o = (dmsg_env_owner){tp->name, "every PE on this transport, at dmsg_init; checked on any",
                              tp->settings, NULL};
    } else if (i - NBEFORE - dmsg_tp_count < NAFTER) {
        *o = *after[i - NBEFORE - dmsg_tp_count];
    } else {
        return -1;
    }
    return 0;
}

dmsg_status dmsg_settings_check(void)
{
    char scratch[1024]; /* rows whose values only get checked here */
    dmsg_env_owner o;
    for (size_t i = 0; dmsg_settings_owner(i, &o) == 0; i++) {
        dmsg_status st = DMSG_OK;
        if (o.check)
            st = o.check();
        else if (o.table)
            st = dmsg_env_load(o.table, scratch);
        if (st) return st;
    }
    return DMSG_OK;
}

void dmsg_settings_print(FILE *f)
{
    int wname = 0, wdef = 0;
    dmsg_env_owner o;
    for (size_t i = 0; dmsg_settings_owner(i, &o) == 0; i++)
        if (o.table) dmsg_env_widths(o.table, &wname, &wdef);
    fprintf(f, "dmsg environment settings, by owner (and who reads them):\n");
    for (size_t i = 0; dmsg_settings_owner(i, &o) == 0; i++) {
        if (!o.table || o.table->n == 0) continue;
        fprintf(f, "\n%s (%s):\n", o.owner, o.reader);
        dmsg_env_print(f, o.table, wname, wdef);
    }
}

int dmsg_settings_find(const char *name, dmsg_env_owner *o)
{
    dmsg_env_owner c;
    for (size_t i = 0; dmsg_settings_owner(i, &c) == 0; i++)
        for (size_t r = 0; c.table && r < c.table->n; r++)
            if (!strcmp(c.table->rows[r].name, name)) {
                *o = c;
                return 0;
            }
    return -1;
}
