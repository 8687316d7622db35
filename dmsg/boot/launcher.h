/* Which launcher started this process, read from the environment that
 * launchers leave their processes. dmsg joins a job through the launcher's
 * process manager where it speaks its protocol (PMI-1, PMIx); where it sees
 * a launcher it cannot join, it must fail rather than run every process as
 * a job of its own (N one-PE jobs that each report success). */
#ifndef DMSG_BOOT_LAUNCHER_H
#define DMSG_BOOT_LAUNCHER_H

typedef enum {
    DMSG_LAUNCHER_NONE,    /* none seen (or a one-process launch): a singleton */
    DMSG_LAUNCHER_PMI,     /* PMI-1 wire protocol, PMI_FD: MPICH's mpiexec (hydra) */
    DMSG_LAUNCHER_PMIX,    /* a PMIx server: Open MPI's mpirun, srun --mpi=pmix, prterun */
    DMSG_LAUNCHER_FOREIGN, /* a launcher of several processes that dmsg cannot join */
} dmsg_launcher_kind;

typedef struct dmsg_launcher {
    dmsg_launcher_kind kind;
    const char *name;   /* "Open MPI's mpirun", "Slurm's srun", ... (NULL for NONE) */
    const char *var;    /* the environment variable that shows it */
    const char *pass;   /* how to pass DMSG_TRANSPORT=ofi through it */
    const char *advice; /* FOREIGN: how to start the job so that dmsg can join */
    long size;          /* processes in the job; -1 when the environment does not say */
    long rank;          /* this process's rank; -1 when the environment does not say */
} dmsg_launcher;

/* Reads the environment (dmsgrun's own protocol is not looked at here). */
void dmsg_launcher_detect(dmsg_launcher *l);

#endif
