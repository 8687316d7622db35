/* The host's copy-transfer model for plans on shm and ofi, when no machine
 * is named: a description cached per host, or a short calibration of the
 * rates the plan's patterns need (docs/compiler.md 5). Collective and
 * consistent: PE 0 provides the description's text and every PE parses the
 * same text, so all of them predict alike. */
#ifndef DMSG_PLAN_CALIBRATE_H
#define DMSG_PLAN_CALIBRATE_H

#include <stdint.h>
#include "dmsg/plan/choose.h"
#include "dmsg/plan/settings.h"

/* Strides 1, 2, 4, ..., 2^14 words, one bit each (larger strides behave as
 * the largest in the model's curves). */
#define PLAN_CAL_NSTRIDES 15

/* Bytes of the shared text area of a plan's exchange memory (after its
 * rows): the description PE 0 hands to every PE. */
#define PLAN_CAL_TEXT 16384

/* The stride bits the model needs for pl's send pieces: the powers of two
 * around each piece's patterns, and stride 1. */
uint32_t dmsg_plan_cal_needs(const plan_t *pl);

/* Local: the model of the host description this job already agreed on,
 * if it covers need (or, with calibration off, that the job has none).
 * Returns 1 with *pm (NULL: no model), *source and *st (a parse error) set;
 * 0 when the PEs must first agree on a description (dmsg_plan_cal_model). */
int dmsg_plan_cal_known(const plan_settings *set, uint32_t need, plan_model **pm, int *source,
                   dmsg_status *st);

/* Collective, when some PE's needs are not known (need = the union of
 * every PE's; the same on every PE): the host description that covers
 * them: PE 0's full description from dmsg-ctm, else its cached calibration,
 * completed by a calibration of the missing strides (written back). text is
 * pl's shared text area. *pm gets the model (NULL with calibrate off and
 * nothing cached), *source a DMSG_PLAN_SRC_*, *cal_s PE 0's seconds of
 * measuring (0 when nothing was measured). Errors, the same on every PE
 * but those of the deposits and the barrier: DMSG_ERR_ENV (a cached file
 * that does not parse: PE 0 names it), DMSG_ERR_NOMEM. */
dmsg_status dmsg_plan_cal_model(plan_t *pl, const plan_settings *set, uint32_t need, char *text,
                           plan_model **pm, int *source, double *cal_s);

/* Bytes of a plan's exchange memory: the rows of the create and measure
 * exchanges (rowsz each), then the text area. */
size_t dmsg_plan_xch_bytes(int npes, size_t rowsz);

/* The text area in pl's exchange memory. */
char *dmsg_plan_cal_text(const plan_t *pl);

/* Local (model.c): the model pl can have without asking the others: the
 * machine named (the options' or DMSG_PLAN_MACHINE), on sim the simulated
 * one, for the mechanisms that decide by the model on shm and ofi the host
 * description this job agreed on. Sets *pm (NULL: none), pl->model_source,
 * *need (the strides pl's pieces need) and *unknown = 1 when the PEs must
 * first agree on a host description that covers them (dmsg_plan_cal_model).
 * Errors: DMSG_ERR_ENV (a machine that does not load). */
dmsg_status dmsg_plan_local_model(plan_t *pl, const plan_settings *set, const char *machine,
                             plan_model **pm, uint32_t *need, int *unknown);

/* Forgets the description this process agreed on, so that the next plan
 * behaves as the first of a new job: dmsg_finalize runs it (registered
 * with dmsg_at_finalize when a description is agreed on); tests call it
 * too, on every PE, to start over within one job. */
void dmsg_plan_cal_forget(void);

/* The file a calibration writes: DIR/host-HOSTNAME-TRANSPORT.machine. */
void dmsg_plan_cal_path(const plan_settings *set, char *out, size_t len);

#endif
