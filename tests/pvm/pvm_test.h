/* Checks for the PVM front end's test programs (tests/pvm/): a failed
 * check prints where and what, and the task exits 1 (dmsgrun then stops
 * the job). */
#ifndef DMSG_TESTS_PVM_TEST_H
#define DMSG_TESTS_PVM_TEST_H
#include <stdio.h>
#include <stdlib.h>
#include "pvm3.h"

#define EXPECT_EQ(got, want)                                                                       \
    do {                                                                                           \
        long long g_ = (long long)(got), w_ = (long long)(want);                                   \
        if (g_ != w_) {                                                                            \
            fprintf(stderr, "t%x: %s:%d: %s: expected %lld got %lld\n", pvm_mytid(), __FILE__,     \
                    __LINE__, #got, w_, g_);                                                       \
            fflush(NULL);                                                                          \
            _exit(1);                                                                              \
        }                                                                                          \
    } while (0)
#define EXPECT(cond) EXPECT_EQ(!!(cond), 1)

#include <unistd.h>
#endif
