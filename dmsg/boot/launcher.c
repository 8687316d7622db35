/* Telling launchers apart by the variables they set (see launcher.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "dmsg/boot/launcher.h"

/* Launchers dmsg cannot join, by the variables that give their job size and
 * this process's rank. The first whose size variable is set names the
 * launcher; a size of 1 is a one-process job, which a singleton is. */
static const struct foreign {
    const char *size_var, *rank_var, *name, *advice;
} foreign[] = {
    {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "Open MPI's mpirun",
     "it offers no PMIx server here (PMIX_NAMESPACE is not set); use an Open MPI with PMIx "
     "(4.0 or later) or dmsgrun"},
    {"SLURM_STEP_NUM_TASKS", "SLURM_PROCID", "Slurm's srun",
     "it was started without PMIx; start it with srun --mpi=pmix"},
    {"PMI_SIZE", "PMI_RANK", "a PMI launcher without PMI_FD",
     "dmsg speaks PMI-1 only over the socket MPICH's mpiexec (hydra) passes in PMI_FD; use "
     "MPICH's mpiexec, a PMIx launcher (Open MPI's mpirun, srun --mpi=pmix) or dmsgrun"},
    {"MV2_COMM_WORLD_SIZE", "MV2_COMM_WORLD_RANK", "MVAPICH's mpirun_rsh",
     "use MPICH's mpiexec, a PMIx launcher (Open MPI's mpirun, srun --mpi=pmix) or dmsgrun"},
    {"JSM_NAMESPACE_SIZE", "JSM_NAMESPACE_RANK", "IBM's jsrun",
     "use a PMIx launcher (Open MPI's mpirun, srun --mpi=pmix) or dmsgrun"},
    {"ALPS_APP_PE", "ALPS_APP_PE", "Cray's aprun",
     "use a PMIx launcher (srun --mpi=pmix, Open MPI's mpirun) or dmsgrun"},
};

/* A non-negative integer variable's value; -1 when unset or not a number. */
static long env_long(const char *name)
{
    const char *s = dmsg_boot_env(name);
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    return (errno || *end || v < 0) ? -1 : v;
}

static int set(const char *name)
{
    return dmsg_boot_env(name) != NULL;
}

/* How DMSG_TRANSPORT=ofi reaches the processes, per launcher. */
#define PASS_OMPI "mpirun -x DMSG_TRANSPORT=ofi"
#define PASS_SLURM "DMSG_TRANSPORT=ofi srun ...: srun passes its environment on"
#define PASS_MPIEXEC "mpiexec -genv DMSG_TRANSPORT ofi"

void dmsg_launcher_detect(dmsg_launcher *l)
{
    int slurm = set("SLURM_STEP_ID") || set("SLURM_STEPID");
    *l = (dmsg_launcher){.kind = DMSG_LAUNCHER_NONE, .size = -1, .rank = -1};
    if (set("PMI_FD")) {
        *l = (dmsg_launcher){.kind = DMSG_LAUNCHER_PMI,
                             .name = slurm ? "Slurm's srun (PMI)" : "MPICH's mpiexec",
                             .var = "PMI_FD",
                             .size = env_long("PMI_SIZE"),
                             .rank = env_long("PMI_RANK")};
        l->pass = slurm ? PASS_SLURM : PASS_MPIEXEC;
        return;
    }
    if (set("PMIX_NAMESPACE") && set("PMIX_RANK")) {
        int ompi = set("OMPI_COMM_WORLD_SIZE");
        const char *name = ompi ? "Open MPI's mpirun" : slurm ? "Slurm's srun" : "a PMIx launcher";
        long size = env_long("OMPI_COMM_WORLD_SIZE");
        if (size < 0)
            size = env_long("SLURM_STEP_NUM_TASKS");
        *l = (dmsg_launcher){.kind = DMSG_LAUNCHER_PMIX,
                             .name = name,
                             .var = "PMIX_NAMESPACE",
                             .pass = ompi    ? PASS_OMPI
                                     : slurm ? PASS_SLURM
                                             : PASS_MPIEXEC,
                             .size = size,
                             .rank = env_long("PMIX_RANK")};
        return;
    }
    for (size_t i = 0; i < sizeof foreign / sizeof foreign[0]; i++) {
        const struct foreign *f = &foreign[i];
        if (!set(f->size_var))
            continue;
        /* aprun says no size: unknown counts as several */
        long size = strcmp(f->size_var, f->rank_var) ? env_long(f->size_var) : -1;
        if (size == 1)
            return; /* a one-process job: a singleton is exactly that */
        *l = (dmsg_launcher){.kind = DMSG_LAUNCHER_FOREIGN,
                             .name = f->name,
                             .var = f->size_var,
                             .advice = f->advice,
                             .size = size,
                             .rank = env_long(f->rank_var)};
        return;
    }
}
