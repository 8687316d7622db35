/* Which copy-transfer model a plan uses: the machine the options or
 * DMSG_PLAN_MACHINE name; under a virtual clock (sim) the machine it
 * follows; on real clocks (shm, ofi), for the mechanisms that decide by it (model, and measure, which reports
 * the model's prediction next to its measurements), this host's
 * description, cached or calibrated (calibrate.c). */
#include "dmsg/core/caps.h"
#include "dmsg/plan/calibrate.h"

size_t dmsg_plan_xch_bytes(int npes, size_t rowsz)
{
    return (size_t)npes * rowsz + PLAN_CAL_TEXT;
}

char *dmsg_plan_cal_text(const plan_t *pl)
{
    return pl->xch + (size_t)pl->npes * pl->rowsz;
}

dmsg_status dmsg_plan_local_model(plan_t *pl, const plan_settings *set, const char *machine,
                             plan_model **pm, uint32_t *need, int *unknown)
{
    *pm = NULL;
    *need = 0;
    *unknown = 0;
    pl->model_source = DMSG_PLAN_SRC_NONE;
    if (machine != NULL) {
        pl->model_source = DMSG_PLAN_SRC_NAMED;
        return dmsg_plan_model_open(machine, pm);
    }
    /* A virtual clock follows a machine the transport loaded at dmsg_init. */
    const char *vm = dmsg_vtime_machine();
    if (vm != NULL) {
        pl->model_source = DMSG_PLAN_SRC_SIM;
        return dmsg_plan_model_open(vm, pm);
    }
    if (pl->mech != DMSG_PLAN_MODEL && pl->mech != DMSG_PLAN_MEASURE) return DMSG_OK;
    *need = dmsg_plan_cal_needs(pl);
    dmsg_status st;
    if (!dmsg_plan_cal_known(set, *need, pm, &pl->model_source, &st)) *unknown = 1;
    return st;
}
