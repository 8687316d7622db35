/* The library's one clock: monotonic seconds, for deadlines and for the
 * wall-clock dmsg_wtime (CLOCK_MONOTONIC never jumps with the date). */
#ifndef DMSG_BASE_CLOCK_H
#define DMSG_BASE_CLOCK_H

#include <time.h>

static inline double dmsg_clock_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A span of seconds (>= 0) as a timespec, for a timed sleep. */
static inline struct timespec dmsg_clock_span(double seconds)
{
    long long ns = (long long)(seconds * 1e9);
    return (struct timespec){(time_t)(ns / 1000000000LL), (long)(ns % 1000000000LL)};
}

#endif
