/* A PMIx client, for jobs started by a PMIx launcher: Open MPI's mpirun
 * (its PMIx server runs in mpirun), Slurm's `srun --mpi=pmix`, PRRTE.
 * The launcher passes PMIX_NAMESPACE, PMIX_RANK and the server's address in
 * the environment; the job size comes from the server.
 *
 * libpmix is opened with dlopen, and only when that environment is there:
 * a program that never runs under such a launcher neither links nor loads
 * it (as the ofi transport does with libfabric). The interface mirrors
 * pmi.h, except that a key is read from a given rank (PMIx keys belong to
 * the process that put them). */
#ifndef DMSG_BOOT_PMIX_H
#define DMSG_BOOT_PMIX_H

#include <stddef.h>
#include "dmsg/base/status.h"

typedef struct dmsg_pmix dmsg_pmix;

/* Whether the environment shows a PMIx server is launcher.c's question. */

/* Opens library (libpmix: a name the dynamic loader searches, or a path;
 * DMSG_PMIX_LIBRARY) and connects to the launcher's PMIx server
 * (PMIx_Init); sets rank and job size. A fence may wait at most timeout
 * seconds. On failure the detail (dmsg_last_error) says what went wrong,
 * naming the library, for the user. */
dmsg_status dmsg_pmix_init(dmsg_pmix **out, const char *library, int *rank, int *size,
                           double timeout);

/* Stores key=val (a string) for every process of the job to read. */
dmsg_status dmsg_pmix_put(dmsg_pmix *p, const char *key, const char *val);

/* Hands the puts to the server. */
dmsg_status dmsg_pmix_commit(dmsg_pmix *p);

/* Barrier over the job that also collects every committed put, so that
 * reads after it are answered locally. */
dmsg_status dmsg_pmix_barrier(dmsg_pmix *p);

/* Reads the value that rank put under key into val (len bytes, NUL-terminated). */
dmsg_status dmsg_pmix_get(dmsg_pmix *p, int rank, const char *key, char *val, size_t len);

/* Disconnects (PMIx_Finalize: the launcher then knows this process ended
 * properly) and frees p. */
void dmsg_pmix_finalize(dmsg_pmix *p);

#endif
