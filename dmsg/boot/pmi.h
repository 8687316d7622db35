/* A small client of the PMI-1 wire protocol, as spoken by MPICH's hydra
 * (mpiexec): the process manager passes a connected socket in PMI_FD and the
 * rank and size in PMI_RANK and PMI_SIZE; requests and answers are lines of
 * "cmd=NAME key=value ..." text. Only what start-up needs: init, get_maxes,
 * key-value put/commit/barrier/get, finalize. */
#ifndef DMSG_BOOT_PMI_H
#define DMSG_BOOT_PMI_H

#include <stddef.h>
#include "dmsg/base/status.h"

typedef struct dmsg_pmi dmsg_pmi;

/* Connects (init, get_maxes, get_my_kvsname); sets rank and size. Every
 * answer is waited for at most timeout seconds. */
dmsg_status dmsg_pmi_init(dmsg_pmi **out, int *rank, int *size, double timeout);

/* Longest key and value the process manager accepts. */
size_t dmsg_pmi_keylen_max(const dmsg_pmi *p);
size_t dmsg_pmi_vallen_max(const dmsg_pmi *p);

/* Stores key=val in the job's key-value space (val: no spaces or '='). */
dmsg_status dmsg_pmi_put(dmsg_pmi *p, const char *key, const char *val);

/* Makes the puts visible (a no-op on the wire in PMI-1: put is synchronous). */
dmsg_status dmsg_pmi_commit(dmsg_pmi *p);

/* Barrier over all processes of the job; puts before it are visible after it. */
dmsg_status dmsg_pmi_barrier(dmsg_pmi *p);

/* Reads the value of key into val (len bytes, NUL-terminated). */
dmsg_status dmsg_pmi_get(dmsg_pmi *p, const char *key, char *val, size_t len);

/* Says goodbye to the process manager and frees p. */
void dmsg_pmi_finalize(dmsg_pmi *p);

#endif
