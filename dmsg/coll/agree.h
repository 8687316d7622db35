/* Agreement across all PEs, for the layers above the core (the plan
 * layer's creates and its host model): every PE contributes its own status
 * with its data, and every PE returns the same verdict, so that a failure
 * on one PE (a bad argument, no memory, a file that does not parse) fails
 * the collective call everywhere and no PE waits for a partner that left.
 * Both forms are one world collective (every PE calls them in the same
 * order) and carry the status in the first 8 bytes of the data. */
#ifndef DMSG_COLL_AGREE_H
#define DMSG_COLL_AGREE_H

#include <stddef.h>
#include "dmsg/base/status.h"

/* Every PE's row of rowsz bytes (a multiple of 8, at least 8) lands at
 * all + p * rowsz on every PE (all: npes * rowsz bytes of any local
 * memory). The first 8 bytes of each row are its PE's status: this PE's
 * `mine` is written there. row NULL: this PE has no row (its caller ran
 * out of memory) and contributes a zero row whose status is mine, or
 * DMSG_ERR_NOMEM where mine is DMSG_OK, so that nobody waits for it.
 * Returns the all-gather's error (the PEs are out of step: nothing more
 * may be exchanged; *all and *verdict are undefined), else DMSG_OK with
 * *verdict the lowest-ranked PE's error, DMSG_OK if none: the same on
 * every PE, with every row readable. */
dmsg_status dmsg_agree_rows(dmsg_status mine, void *row, size_t rowsz, void *all,
                            dmsg_status *verdict);

/* The root's len bytes at buf (len >= 8) land in buf on every PE; the
 * first 8 bytes carry the root's status, `mine` (ignored elsewhere: only
 * the root had anything to fail). Returns the broadcast's error, else the
 * root's status, the same on every PE. */
dmsg_status dmsg_agree_root(dmsg_status mine, void *buf, size_t len, int root);

#endif
