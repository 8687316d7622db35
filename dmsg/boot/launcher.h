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

/* The launcher's variables (dmsgrun's DMSG_BOOT_*, PMI_FD, PMI_RANK,
 * PMI_SIZE, PMIX_NAMESPACE, PMIX_RANK and the job sizes of launchers dmsg
 * cannot join) belong to the process the launcher started, not to programs
 * it starts: dmsg_boot_env_take, run before main by a constructor in the
 * object file that holds dmsg_init (so every dmsg program has it), moves
 * them into private storage, removes them from the environment and makes
 * the descriptors they name close-on-exec. A dmsg program started by a PE
 * with system() or exec, before or after the PE's dmsg_init, then sees no
 * launcher and runs as a singleton; programs that are not dmsg programs
 * (sh -c, /usr/bin/time as wrappers) never run it and pass them on.
 * Taking twice does nothing. */
void dmsg_boot_env_take(void);

/* A launcher variable: the taken value, else the environment's (so that a
 * process that took nothing, a unit test that sets them, still works). */
const char *dmsg_boot_env(const char *name);

/* Puts taken variables back into the environment (NULL-terminated names),
 * for a library that reads them itself (libpmix's PMIx_Init); the boot
 * removes them again once it has joined. */
void dmsg_boot_env_put_back(const char *const *which);

/* Drops the taken values once this process has joined its launcher's job:
 * they are of no use to a second dmsg_init. */
void dmsg_boot_env_forget(void);

#endif
