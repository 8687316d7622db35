/* Files a process leaves in /dev/shm under its pid. */
#ifndef DMSG_BASE_SHMFILES_H
#define DMSG_BASE_SHMFILES_H

/* Removes every /dev/shm entry named "<pid>:..." (libfabric's shm provider
 * names its regions so). Used by a PE for its own names once its peers have
 * reached it, and by dmsgrun and its guardian for PEs that died. Does nothing
 * for pid <= 0; errors are ignored (the entry may already be gone). */
void dmsg_shm_unlink_pid(long pid);

#endif
