/* The key-value space and barrier of the process manager that started the
 * job: PMI-1 (MPICH's mpiexec) or PMIx (Open MPI's mpirun, srun
 * --mpi=pmix). Transports exchange their start-up data through it without
 * knowing which of the two it is. */
#ifndef DMSG_BOOT_KVS_H
#define DMSG_BOOT_KVS_H

#include <stddef.h>
#include "dmsg/base/status.h"

typedef struct dmsg_kvs dmsg_kvs;

typedef enum { DMSG_KVS_PMI, DMSG_KVS_PMIX } dmsg_kvs_proto;

/* Connects; sets this process's rank and the job size. pmix_library: the
 * libpmix to open for DMSG_KVS_PMIX (DMSG_PMIX_LIBRARY). Every wait is
 * bounded by timeout seconds. On failure the detail (dmsg_last_error) says
 * what went wrong. */
dmsg_status dmsg_kvs_open(dmsg_kvs_proto proto, const char *pmix_library, dmsg_kvs **out,
                          int *rank, int *size, double timeout);

/* Publishes key=val (val: a string without spaces or '='). */
dmsg_status dmsg_kvs_put(dmsg_kvs *k, const char *key, const char *val);

/* Makes this process's puts visible at the next barrier. */
dmsg_status dmsg_kvs_commit(dmsg_kvs *k);

/* Barrier over the job; every put committed before it is readable after it. */
dmsg_status dmsg_kvs_barrier(dmsg_kvs *k);

/* Reads the value that rank published under key. */
dmsg_status dmsg_kvs_get(dmsg_kvs *k, int rank, const char *key, char *val, size_t len);

/* The same for binary values of up to DMSG_KVS_BYTES_MAX bytes, sent as hex
 * text; get: the value must have exactly len bytes. */
#define DMSG_KVS_BYTES_MAX 256
dmsg_status dmsg_kvs_put_bytes(dmsg_kvs *k, const char *key, const void *val, size_t len);
dmsg_status dmsg_kvs_get_bytes(dmsg_kvs *k, int rank, const char *key, void *val, size_t len);

/* Says goodbye to the process manager and frees k (NULL: nothing). */
void dmsg_kvs_close(dmsg_kvs *k);

#endif
