/* Functions that dmsg_finalize runs for the layers above (at_fini.h). */
#include <stddef.h>
#include "dmsg/core/at_fini.h"
#include "dmsg/core/state.h"

/* One per layer that keeps per-job state; registration lasts for the
 * process (a layer registers when it first keeps state). */
#define DMSG_AT_FINI_MAX 8
static void (*hooks[DMSG_AT_FINI_MAX])(void);
static size_t nhooks;

dmsg_status dmsg_at_finalize(void (*fn)(void))
{
    if (fn == NULL) return DMSG_FAIL(DMSG_ERR_NULL, "dmsg_at_finalize: no function");
    for (size_t i = 0; i < nhooks; i++)
        if (hooks[i] == fn) return DMSG_OK;
    if (nhooks == DMSG_AT_FINI_MAX)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "dmsg_at_finalize: all %d slots taken", DMSG_AT_FINI_MAX);
    hooks[nhooks++] = fn;
    return DMSG_OK;
}

void dmsg_at_finalize_run(void)
{
    for (size_t i = 0; i < nhooks; i++)
        hooks[i]();
}

void dmsg_before_wait(void (*fn)(void))
{
    dmsg_g.before_wait = fn;
}
