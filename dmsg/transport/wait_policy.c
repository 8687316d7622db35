/* How a transport's waits behave when PEs outnumber cores: one rule for
 * every transport, so that shm, sim and ofi agree on when a job counts as
 * oversubscribed and on what DMSG_YIELD_US means. */
#include <unistd.h>
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
