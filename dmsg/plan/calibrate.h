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
uint32_t plan_cal_needs(const dmsg_plan *pl);

/* Collective: after every PE's needs were gathered (need = their union;
 * the same on every PE), the host description that covers them: the one
 * this job already agreed on, else PE 0's cached file, else PE 0's cache
 * completed by a calibration of the missing strides (written back). text
 * is pl's shared text area. *pm gets the model (NULL with calibrate off and
 * nothing cached in this job), *source a DMSG_PLAN_SRC_*, *cal_s PE 0's
 * seconds of measuring (0 when nothing was measured). Errors: those of
 * dmsg_deposit and dmsg_sync, DMSG_ERR_ENV (a cached file that does not
 * parse: named in the message), DMSG_ERR_NOMEM. */
dmsg_status plan_cal_model(dmsg_plan *pl, const plan_settings *set, uint32_t need, char *text,
                           plan_model **pm, int *source, double *cal_s);

/* Bytes of a plan's exchange memory: the rows of the create and measure
 * exchanges (rowsz each), the rows of the model exchange, the text area. */
size_t plan_xch_bytes(int npes, size_t rowsz);

/* The model of pl (model.c): on shm and ofi collective, every PE calls it
 * with its local status st and its statement's fingerprint hash; the needs
 * are gathered and, if every PE is fine and agrees, the host model is
 * provided. machine: the one the options or settings name, or NULL.
 * Returns st, or the first error on the way (the same on every PE for the
 * collective steps); sets *pm (NULL: no model), pl->model_source and
 * pl->cal_s. */
dmsg_status plan_pick_model(dmsg_plan *pl, const plan_settings *set, const char *machine,
                            dmsg_status st, uint64_t hash, plan_model **pm);

/* Forgets the description this process agreed on, so that the next plan
 * behaves as the first of a new job (for tests; every PE must call it). */
void plan_cal_forget(void);

/* The file a calibration writes: DIR/host-HOSTNAME-TRANSPORT.machine. */
void plan_cal_path(const plan_settings *set, char *out, size_t len);

#endif
