/* The examples' one error rule: every dmsg call returns a status, and an
 * example stops at the first failure, naming the call and the status. */
#ifndef DMSG_EXAMPLES_CHECK_H
#define DMSG_EXAMPLES_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include "dmsg.h"

#define CHECK(call)                                                                                \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != DMSG_OK) {                                                                      \
            fprintf(stderr, "PE %d: %s failed: %s\n", dmsg_pe(), #call, dmsg_strerror(rc_));       \
            exit(EXIT_FAILURE);                                                                    \
        }                                                                                          \
    } while (0)

#endif
