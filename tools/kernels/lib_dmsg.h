/* lib_dmsg.h - the dmsg-based kernel libraries' shared part (lib_dmsg_base.c). */
#ifndef DMSG_KERN_LIB_DMSG_H
#define DMSG_KERN_LIB_DMSG_H

#include <dmsg.h>

#define CK(call)                                                                                   \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != DMSG_OK) kern_die("%s: %s", #call, dmsg_strerror(rc_));                         \
    } while (0)

/* Called by kl_init after dmsg_init, and by kl_finalize before
 * dmsg_finalize: each communication library starts and stops its layer. */
void kl_lib_start(const char *variant);
void kl_lib_stop(void);

/* The barrier of the kernels' collectives (kl_barrier, kl_allreduce,
 * kl_bcast): dmsg_sync, unless the library needs its own (the postal
 * layer delivers queued messages only inside its calls, so it sets
 * dmsg_postal_barrier, as a PVM program calls pvm_barrier). */
extern int (*kl_lib_sync)(void);

#endif
