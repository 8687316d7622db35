/* Keeping the program's signal dispositions across dmsg_init (sigkeep.c). */
#ifndef DMSG_CORE_SIGKEEP_H
#define DMSG_CORE_SIGKEEP_H

#include <signal.h>

typedef struct dmsg_sigkeep {
    struct sigaction act[NSIG];
    int have[NSIG];
    sigset_t mask;
} dmsg_sigkeep;

void dmsg_sigkeep_save(dmsg_sigkeep *k);
void dmsg_sigkeep_restore(const dmsg_sigkeep *k);

#endif
