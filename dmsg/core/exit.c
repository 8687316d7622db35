/* Ending the whole job from one PE (dmsg_global_exit), and asking whether
 * it is ending (dmsg_job_check). */
#include <stdio.h>
#include <unistd.h>
#include "dmsg/boot/exchange.h"
#include "dmsg/core/state.h"

_Noreturn void dmsg_global_exit(int status)
{
    /* Output the program wrote must not be lost with the job; atexit
     * handlers must not run (a front end's would finalize, a collective
     * the other PEs never join). */
    fflush(NULL);
    if (dmsg_g.initialized)
        dmsg_boot_exit_job(&dmsg_g.boot);
    _exit(status);
}

dmsg_status dmsg_job_check(void)
{
    if (dmsg_g.initialized && dmsg_boot_aborted(&dmsg_g.boot))
        return DMSG_FAIL(DMSG_ERR_ABORTED, "the job is ending (a PE failed or the launcher stopped it)");
    return DMSG_OK;
}
