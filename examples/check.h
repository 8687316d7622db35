/* The examples' one error rule: every dmsg call returns a status, and an
 * example stops at the first failure, naming the call, the status and its
 * detail (dmsg_last_error). */
#ifndef DMSG_EXAMPLES_CHECK_H
#define DMSG_EXAMPLES_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include "dmsg.h"

#define CHECK(call)                                                                                \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != DMSG_OK) {                                                                      \
            const char *d_ = dmsg_last_error(); /* dmsg prints nothing: the detail is ours */      \
            if (dmsg_pe() >= 0) /* before dmsg_init succeeded there is no PE number */             \
                fprintf(stderr, "PE %d: %s failed: %s%s%s%s\n", dmsg_pe(), #call,                  \
                        dmsg_strerror(rc_), d_[0] ? " (" : "", d_, d_[0] ? ")" : "");              \
            else                                                                                   \
                fprintf(stderr, "%s failed: %s%s%s%s\n", #call, dmsg_strerror(rc_),                \
                        d_[0] ? " (" : "", d_, d_[0] ? ")" : "");                                  \
            exit(EXIT_FAILURE);                                                                    \
        }                                                                                          \
    } while (0)

#endif
