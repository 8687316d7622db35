/* Capabilities of the running transport (caps.h). */
#include "dmsg/core/caps.h"
#include "dmsg/core/state.h"

int dmsg_tp_has(unsigned caps)
{
    return dmsg_g.initialized && (dmsg_g.tp.ops->caps & caps) == caps;
}

const dmsg_tp_vtime_ops *dmsg_vtime(void)
{
    return dmsg_g.initialized ? dmsg_g.vtime : NULL;
}

const char *dmsg_vtime_machine(void)
{
    const dmsg_tp_vtime_ops *v = dmsg_vtime();
    return v ? v->machine(&dmsg_g.tp) : NULL;
}
