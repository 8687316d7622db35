/* The start-up exchange service: how the PEs of a job exchange what they
 * need to find each other (endpoint names, keys, addresses) before a
 * transport's own data path works, whatever started them: through the boot
 * exchange area of the job region (dmsgrun, singleton) or through PMI
 * (mpiexec). Transports use it instead of each other's internals.
 *
 * Every call here is collective except dmsg_boot_put, dmsg_boot_get and
 * dmsg_boot_aborted: all PEs of the job make the same collective calls in
 * the same order. Calls are meant for start-up (each costs barriers), from
 * the one thread of the PE. Errors: DMSG_ERR_ABORTED when the launcher tore
 * the job down, DMSG_ERR_TIMEOUT when a peer did not arrive within
 * DMSG_BOOT_TIMEOUT seconds, DMSG_ERR_TRANSPORT for a PMI failure,
 * DMSG_ERR_ARG/NOMEM for bad sizes or memory. */
#ifndef DMSG_BOOT_EXCHANGE_H
#define DMSG_BOOT_EXCHANGE_H

#include <stddef.h>
#include "dmsg/boot/job.h"

/* Seconds a start-up barrier waits for the slowest PE. */
#define DMSG_BOOT_TIMEOUT 120.0

/* Largest value of one put, and of all of one PE's puts per exchange. */
#define DMSG_BOOT_VAL_MAX 256
#define DMSG_BOOT_KV_MAX 1024

/* Joins the job: maps the job region where there is one (b->hdr) and marks
 * this PE as started in it (the launcher then expects dmsg_finalize). Not
 * collective; idempotent. */
dmsg_status dmsg_boot_join(dmsg_boot *b);

/* Marks this PE as finished in the job region (it may exit now). The
 * mapping stays until dmsg_boot_end. */
void dmsg_boot_leave(dmsg_boot *b);

/* Marks this PE, about to exit, as ending the whole job with its exit
 * status (DMSG_PE_EXIT): the launcher then stops the other PEs and exits
 * with that status, 0 included. Nothing where there is no job region. */
void dmsg_boot_exit_job(dmsg_boot *b);

/* 1 when the launcher has torn the job down (a PE failed). Called from the
 * sleeping (or rarely polling) paths of every wait; under dmsgrun it also
 * looks, at most every 0.1 s, whether dmsgrun is still alive (its life
 * pipe, DMSG_BOOT_ENV_LIFE): when dmsgrun has died, by SIGKILL too, nobody
 * is left to end this PE, which may have escaped dmsgrun's process groups
 * (a wrapper that calls setsid). The PE then says so on stderr, raises the
 * job's abort flag (its peers' waits return DMSG_ERR_ABORTED at once),
 * removes the files named after its pid in /dev/shm, and ends itself with
 * SIGKILL, as dmsgrun would have ended it: this call does not return. */
int dmsg_boot_aborted(dmsg_boot *b);

/* Says why this PE's dmsg_init failed (a line, the detail of the failure),
 * the library's one way of printing an error: under dmsgrun it goes into
 * the job region for dmsgrun to print, unless another PE recorded one first
 * (they fail alike; one line is enough; the region is mapped for it where
 * the transport failed before joining); under another launcher (no region:
 * nobody else can say it) rank 0 prints it to stderr as "dmsg: ...", every
 * process where the launcher does not say ranks; a singleton prints nothing
 * (the application has the detail from dmsg_last_error). Not collective. */
void dmsg_boot_note_failure(dmsg_boot *b, const char *text);

/* Barrier over all PEs. */
dmsg_status dmsg_boot_barrier(dmsg_boot *b);

/* Every PE contributes len bytes (mine); all receives npes * len bytes, PE
 * p's at all + p * len. len is the same on every PE, at most
 * DMSG_BOOT_VAL_MAX over PMI. */
dmsg_status dmsg_boot_allgather(dmsg_boot *b, const void *mine, size_t len, void *all);

/* Key-value exchange, as PMI offers it: put values under keys (local),
 * exchange (collective: every put before it is visible after it), then get
 * any PE's value of a key. A key is a short name without spaces or '='
 * (up to 32 characters); a value up to DMSG_BOOT_VAL_MAX bytes, all puts of
 * one PE between two exchanges up to DMSG_BOOT_KV_MAX bytes. get: the value
 * must have exactly len bytes; DMSG_ERR_ARG when pe put no such key. */
dmsg_status dmsg_boot_put(dmsg_boot *b, const char *key, const void *val, size_t len);
dmsg_status dmsg_boot_exchange(dmsg_boot *b);
dmsg_status dmsg_boot_get(dmsg_boot *b, int pe, const char *key, void *val, size_t len);

#endif
