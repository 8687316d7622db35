/* The settings of the postal layer: its own rows, read by dmsg_postal_init;
 * the settings registry (dmsg/plan/registry.h) lists them for dmsgrun's
 * check and --help-env. */
#ifndef DMSG_POSTAL_SETTINGS_H
#define DMSG_POSTAL_SETTINGS_H

#include <stdint.h>
#include <stdio.h>
#include "dmsg/base/status.h"

typedef struct dmsg_postal_config {
    uint64_t mailbox; /* DMSG_POSTAL_MAILBOX: bytes per sender in each PE's mailbox */
    uint64_t queue;   /* DMSG_POSTAL_QUEUE: bytes queued at a sender per receiver */
    uint64_t window;  /* DMSG_POSTAL_WINDOW: each PE's landing window of large messages (0: none) */
} dmsg_postal_config;

/* Fills c from the environment (defaults for unset or empty variables).
 * DMSG_ERR_ENV with a detail naming the variable (dmsg_last_error); c is
 * set only on success. */
dmsg_status dmsg_postal_config_load(dmsg_postal_config *c);

/* The postal layer as an owner of the settings registry. */
struct dmsg_env_owner;
extern const struct dmsg_env_owner dmsg_postal_owner;

#endif
