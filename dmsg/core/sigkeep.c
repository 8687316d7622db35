/* The program's signal dispositions and mask, kept across dmsg_init.
 * Libraries a transport loads install handlers of their own: Debian's
 * libfabric links libinfinipath (psm), whose constructor takes SIGSEGV,
 * SIGBUS, SIGILL, SIGABRT, SIGINT and SIGTERM to write a backtrace file and
 * exit 1, and libfabric's shm provider takes several more. With them a
 * crashing PE was no longer "killed by signal 11", wrote no core file, and
 * the application's own handlers were gone. dmsg never relies on a signal
 * handler, so dmsg_init puts back whatever the program had. */
#include "dmsg/core/sigkeep.h"

void dmsg_sigkeep_save(dmsg_sigkeep *k)
{
    for (int i = 1; i < NSIG; i++)
        k->have[i] = sigaction(i, NULL, &k->act[i]) == 0;
    sigprocmask(SIG_SETMASK, NULL, &k->mask);
}

/* The C library sets a flag of its own (the kernel's restorer) on every
 * handler it installs; it is not part of what the program chose. */
#define RESTORER_FLAG 0x04000000

static int same(const struct sigaction *a, const struct sigaction *b)
{
    return a->sa_handler == b->sa_handler &&
           (a->sa_flags & ~RESTORER_FLAG) == (b->sa_flags & ~RESTORER_FLAG);
}

void dmsg_sigkeep_restore(const dmsg_sigkeep *k)
{
    for (int i = 1; i < NSIG; i++) {
        struct sigaction now;
        if (k->have[i] && i != SIGKILL && i != SIGSTOP && sigaction(i, NULL, &now) == 0 &&
            !same(&now, &k->act[i]))
            sigaction(i, &k->act[i], NULL);
    }
    sigprocmask(SIG_SETMASK, &k->mask, NULL);
}
