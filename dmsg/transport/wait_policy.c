/* How a transport's waits behave: one rule for every transport, so that
 * shm, sim and ofi agree on when a job counts as oversubscribed, on when
 * the host is loaded, and on what DMSG_YIELD_US means. */
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>
#include "dmsg/base/clock.h"
#include "dmsg/transport/transport.h"

int dmsg_tp_oversubscribed(int npes)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 0 && npes > cores;
}

double dmsg_tp_yield_s(const dmsg_tp_conf *conf, double auto_s)
{
    return conf->yield_us >= 0 ? 1e-6 * (double)conf->yield_us : auto_s;
}

/* The host's load, sampled from the kernel's count of runnable tasks (the
 * fourth field of /proc/loadavg, "running/threads": tasks on a core or
 * queued for one, the reader included) at most every LOAD_PERIOD_S, and
 * smoothed over about four samples so that one PE's own sleeping and
 * waking does not flip the verdict each time. One reading is a pread of
 * an open descriptor (about 1-2 us), so a wait pays a clock read and,
 * every 10 ms at most, that. Per process (a PE waits on one thread). */
#define LOAD_PERIOD_S 0.01

static struct {
    int fd;         /* /proc/loadavg, opened on first use; -1: none (then never loaded) */
    double next;    /* clock of the next sample */
    double running; /* smoothed runnable tasks */
    long cores;
} load = {.fd = -2};

static int sample_running(double *running)
{
    char buf[128];
    ssize_t n = pread(load.fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    /* "0.52 0.58 0.59 3/95 25788": the fourth field's numerator. */
    char *p = buf;
    for (int field = 0; field < 3; field++) {
        while (*p && *p != ' ')
            p++;
        while (*p == ' ')
            p++;
    }
    char *end;
    long r = strtol(p, &end, 10);
    if (end == p || *end != '/' || r < 0)
        return -1;
    *running = (double)r;
    return 0;
}

int dmsg_tp_host_loaded(void)
{
    double now = dmsg_clock_now();
    if (load.fd == -1)
        return 0;
    if (load.fd == -2) {
        load.fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
        load.cores = sysconf(_SC_NPROCESSORS_ONLN);
        if (load.fd < 0 || load.cores <= 0) {
            load.fd = -1;
            return 0;
        }
        load.running = 0;
        load.next = 0;
    }
    if (now >= load.next) {
        double r;
        if (sample_running(&r) == 0)
            load.running = load.next == 0 ? r : 0.75 * load.running + 0.25 * r;
        load.next = now + LOAD_PERIOD_S;
    }
    return load.running > (double)load.cores + 0.5;
}
