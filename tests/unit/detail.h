/* A call's status with its detail (dmsg_last_error) copied into a buffer,
 * for unit tests that check the detail after the fact. */
#ifndef DMSG_TESTS_UNIT_DETAIL_H
#define DMSG_TESTS_UNIT_DETAIL_H

#include <stdio.h>
#include "dmsg.h"

static inline dmsg_status detail(dmsg_status st, char *err, size_t len)
{
    snprintf(err, len, "%s", st ? dmsg_last_error() : "");
    return st;
}

#endif
