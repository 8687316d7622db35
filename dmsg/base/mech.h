/* Mechanisms: the two ways to move a non-contiguous block to another PE
 * (copy-transfer model, REFERENCE.md section 1). One definition for the
 * model, the transports that choose between them and their settings.
 * Contiguous blocks are moved the same way by both ("direct"). */
#ifndef DMSG_BASE_MECH_H
#define DMSG_BASE_MECH_H

/* The concrete mechanisms are distinct bits, so a set of them (what a
 * machine's hardware allows) is their OR. */
typedef enum {
    DMSG_MECH_AUTO = 0,    /* the cheaper one of those allowed */
    DMSG_MECH_PACKED = 1,  /* gather into a buffer, contiguous transfer, scatter */
    DMSG_MECH_CHAINED = 2, /* the transfer itself loads or stores non-contiguously */
} dmsg_mech;

#endif
