/* The copy-transfer model (REFERENCE.md sections 1 and 3): throughputs of
 * local and remote copies composed from a machine's basic transfers, the
 * cost of one transfer for the sim transport, and the SCAP/VSCAP timing
 * formulas of latency hiding by prefetch.
 *
 * Patterns are those of machine.h: a stride in 64-bit words (1 =
 * contiguous) or DMSG_PAT_INDEXED. Throughputs are MB/s (10^6 bytes/s).
 * Every evaluation can write a human-readable trace of the composition it
 * used into trace (trace may be NULL). Nothing here allocates or keeps
 * state: safe from any thread. */
#ifndef DMSG_MODEL_CTM_H
#define DMSG_MODEL_CTM_H

#include <stddef.h>
#include "dmsg/model/machine.h"

/* The mechanisms (dmsg/base/mech.h) in the model's terms:
 * packed: xC1 o (1S0 || Nd || 0D1) o 1Cy;
 * chained: xS0 || Nadp || 0Dy (Nd, "direct", when 1Q1). */

/* One remote transfer: bytes of payload read with pattern src at the source
 * and written with pattern dst at the destination. */
typedef struct {
    size_t bytes;
    long src;
    long dst;
} dmsg_ctm_transfer;

/* Composition: parallel steps (pipelined on different resources) run at
 * the slowest one's rate; sequential steps (sharing a resource) add their
 * times per byte. A zero throughput (impossible step) makes both zero. */
double dmsg_ctm_par(const double *mbs, int n);
double dmsg_ctm_seq(const double *mbs, int n);

/* Local copy xCy. Given directly when one end is contiguous; otherwise the
 * gather and scatter costs per byte add, minus the shared 1C1 part. */
double dmsg_ctm_copy_mbs(const dmsg_machine *m, long x, long y, char *trace, size_t len);

/* Remote copy xQy at average congestion c (>= 1) by mechanism mech. Returns
 * MB/s, or 0 when the machine cannot do it that way (a mechanism it does not
 * allow, a pattern no engine handles); *used (if not NULL) gets the
 * mechanism evaluated (for AUTO, the faster allowed one). Chained with
 * both ends contiguous is the direct transfer 1S0 || Nd || 0D1, which every
 * machine allows. */
double dmsg_ctm_remote_mbs(const dmsg_machine *m, long x, long y, dmsg_mech mech, double c,
                           dmsg_mech *used, char *trace, size_t len);

/* Seconds to move one transfer at the machine's congestion by mech, plus
 * the per-message software overhead (msg.overhead_us). The partner switch
 * cost is not included (the caller knows when the partner changes). Returns
 * a negative value when mech is impossible for this pattern on m. */
double dmsg_ctm_transfer_seconds(const dmsg_machine *m, const dmsg_ctm_transfer *x, dmsg_mech mech,
                                 char *trace, size_t tracelen);

/* Seconds for one barrier of npes PEs: hardware: barrier.us; tree:
 * barrier.us + 2 * ceil(log2 npes) * barrier.hop_us (up and down). */
double dmsg_ctm_barrier_seconds(const dmsg_machine *m, int npes);

/* Name of a pattern ("1", "64", "w") into buf; returns buf. */
const char *dmsg_ctm_pat_str(long pat, char *buf, size_t len);
/* Parses "1Q64", "wQ1", "64C1": returns the operation letter ('Q' or 'C')
 * and the two patterns, or 0 on a malformed name. */
int dmsg_ctm_parse_name(const char *s, long *x, long *y);

/* ---- Latency hiding by prefetch (REFERENCE.md section 3); times in ns. */

/* k blocking remote reads of latency tl: k * tl. */
double dmsg_ctm_scap_blocking(double k, double tl);

/* k pipelined reads (SCAP), the class model of REFERENCE.md 9: prefetch
 * loop iteration dtp, network capacity cn, software window cp; T = k dtp +
 * the wait of the first access, max(0, tl - k dtp). The access loop (dtc)
 * is not charged; dtc and the network issue time dtn only bound the model:
 * it needs dtc >= dtn and min(cn, cp) dtp >= tl, else returns -1. *cls (if
 * not NULL) gets the class: 1 (k <= cn), 2 (k <= cp), 3 (k > cp). */
double dmsg_ctm_scap_pipelined(double k, double tl, double dtp, double dtc, double dtn, double cn,
                               double cp, int *cls, char *trace, size_t len);

/* Vector commands of length L with constant stride, strategy (L,L):
 * cases 1-3 of REFERENCE.md; *which (if not NULL) gets the case. */
double dmsg_ctm_vscap_LL(double K, double L, double tl, double tn, double tvL, double tzL,
                         double ts, double cv, int *which, char *trace, size_t len);

/* Single prefetches with vector access, strategy (1,L):
 * K t_v + max(T_L, (K/L) t_z^L). */
double dmsg_ctm_vscap_1L(double K, double L, double tl, double tv, double tzL, char *trace,
                         size_t len);

#endif
