/* Which copy-transfer model a plan uses: the machine the options or
 * DMSG_PLAN_MACHINE name; on sim the simulated machine; on shm and ofi,
 * for the mechanisms that decide by it (model, and measure, which reports
 * the model's prediction next to its measurements), this host's
 * description, cached or calibrated (calibrate.c). */
#include <stdlib.h>
#include <string.h>
#include "dmsg/plan/calibrate.h"

/* One row of the model exchange: the PE's status so far, the fingerprint
 * of its statement and the strides its pieces need. */
typedef struct mrow {
    int64_t status;
    uint64_t hash;
    uint64_t need;
} mrow;

#define MROW 64 /* bytes per row */

size_t plan_xch_bytes(int npes, size_t rowsz)
{
    return (size_t)npes * rowsz + (size_t)npes * MROW + PLAN_CAL_TEXT;
}

/* Collective on shm and ofi: every PE's row, then the union of the needs.
 * Returns 1 when every PE is fine and passed the same statement. */
static int gather_needs(dmsg_plan *pl, dmsg_status st, uint64_t hash, uint32_t *need,
                        dmsg_status *xst)
{
    char *rows = pl->xch + (size_t)pl->npes * pl->rowsz;
    mrow mine = {st, hash, st == DMSG_OK ? plan_cal_needs(pl) : 0};
    *xst = DMSG_OK;
    for (int i = 0; i < pl->npes && *xst == DMSG_OK; i++) {
        int q = (pl->me + i) % pl->npes;
        *xst = dmsg_deposit(rows + (size_t)pl->me * MROW, &mine, sizeof mine, q, DMSG_CTR_NONE);
    }
    /* Every PE reaches the barrier, so a failed deposit cannot hang the others. */
    dmsg_status sst = dmsg_sync();
    if (*xst == DMSG_OK) *xst = sst;
    if (*xst != DMSG_OK) return 0;
    int ok = 1;
    *need = 0;
    for (int p = 0; p < pl->npes; p++) {
        const mrow *r = (const mrow *)(rows + (size_t)p * MROW);
        ok &= r->status == DMSG_OK && r->hash == ((const mrow *)rows)->hash;
        *need |= (uint32_t)r->need;
    }
    return ok;
}

dmsg_status plan_pick_model(dmsg_plan *pl, const plan_settings *set, const char *machine,
                            dmsg_status st, uint64_t hash, plan_model **pm)
{
    *pm = NULL;
    pl->model_source = DMSG_PLAN_SRC_NONE;
    const char *tp = dmsg_transport_name();
    int sim = tp != NULL && strcmp(tp, "sim") == 0;
    if (!sim) {
        uint32_t need;
        dmsg_status xst;
        int ok = gather_needs(pl, st, hash, &need, &xst);
        if (xst != DMSG_OK) return xst; /* out of step: the create ends here */
        if (!ok || st != DMSG_OK) return st;
        int decides = pl->mech == DMSG_PLAN_MODEL || pl->mech == DMSG_PLAN_MEASURE;
        if (machine == NULL && decides) {
            char *text = pl->xch + (size_t)pl->npes * pl->rowsz + (size_t)pl->npes * MROW;
            return plan_cal_model(pl, set, need, text, pm, &pl->model_source, &pl->cal_s);
        }
    }
    if (st != DMSG_OK) return st;
    if (machine != NULL) {
        pl->model_source = DMSG_PLAN_SRC_NAMED;
        return plan_model_open(machine, pm);
    }
    if (!sim) return DMSG_OK;
    /* The sim transport validated DMSG_MACHINE at dmsg_init; t3d is its default. */
    const char *m = getenv("DMSG_MACHINE");
    pl->model_source = DMSG_PLAN_SRC_SIM;
    return plan_model_open(m != NULL && m[0] != '\0' ? m : "t3d", pm);
}
