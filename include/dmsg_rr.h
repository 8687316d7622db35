/*
 * dmsg_rr.h - the RRMSG baseline: request / response / acknowledge message
 * passing on top of dmsg's deposits, for measuring per-pair synchronization
 * against the deposit model in the same job, on the same transport.
 *
 * Every transfer is three control messages around one direct data transfer:
 * the sender's request (tag, size); the receiver's response once a matching
 * receive has reserved its destination (a contiguous buffer or a dmsg_layout
 * section in the receiver's symmetric memory); the data, deposited by the
 * sender straight into that destination (sections and indexed sources
 * without packing, as dmsg does); and the receiver's acknowledgement once
 * the data has landed. No system buffer and no global barrier: each pair
 * synchronizes on its own. A receive posted with a known source and tag,
 * when no receive posted before it could take that sender's next message of
 * that tag, sends its response ahead; a send that finds it deposits the data
 * without a request round trip and sends its request after the data (the
 * three messages stay, in another order). On shm one such response of a
 * PE at a time rides on the data of the PE's next send to that sender
 * instead of going alone; it goes alone at the PE's next RRMSG wait or test,
 * or as the PE enters any other dmsg call that waits (a barrier, an await),
 * whichever comes first. On transports in real
 * time (shm, ofi) a send is complete once its data is complete in the
 * receiver's memory (dmsg_quiet), the acknowledgement following (the
 * receiver sends it at its next progress pass or after its next send); on a
 * simulated machine (sim) the protocol is the machine's: requests answered,
 * sends complete at the acknowledgement.
 * docs/baselines.md describes the protocol and its costs.
 *
 * Matching. A request matches the first posted receive (in posting order)
 * whose source (or DMSG_RR_ANY) and tag (or DMSG_RR_ANY) fit; requests of
 * one sender are matched in the order sent. Post receives early (dmsg_rr_irecv)
 * so that requests find them at once.
 *
 * Progress. Requests are answered, data deposited and acknowledgements sent
 * only while the PE is inside an RRMSG call; every wait drives progress for
 * all of the PE's transfers, so any program that would be correct with
 * synchronous (rendezvous) sends cannot deadlock.
 *
 * Threads, errors, timeouts: as dmsg.h. Waits are bounded by DMSG_TIMEOUT.
 *
 * SPDX-License-Identifier: BSD-3-Clause (the LICENSE file of dmsg)
 */
#ifndef DMSG_RR_H
#define DMSG_RR_H

#include <stddef.h>
#include <stdint.h>
#include "dmsg.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Wildcard for the source PE or the tag of a receive. */
#define DMSG_RR_ANY (-1)

/**
 * A transfer in progress: storage owned by the caller, valid from the start
 * call until dmsg_rr_wait, dmsg_rr_waitall or a dmsg_rr_test that reports
 * completion retires it. Its fields are the library's; the source (of a
 * send) and destination (of a receive) must stay untouched until then. The
 * library completes the request at the address it was started with: a byte
 * copy of it (made while it is active or after it is retired) is not a
 * request, and waiting for or testing one is DMSG_ERR_HANDLE, as is
 * starting a new transfer in a request still in progress.
 */
typedef struct dmsg_rr_req {
    uint32_t magic;
    int32_t state, status, kind;
    int32_t pe, tag, peer, peer_tag; /**< peer, peer_tag: who matched a receive */
    const void *src;
    void *dst;
    const size_t *idx;
    size_t n, elem, bytes;
    uint64_t peer_id;
    dmsg_layout lay;
    struct dmsg_rr_req *next;
    const struct dmsg_rr_req *self; /**< its own address while active: a copy's is not */
} dmsg_rr_req;

/** What a completed receive got. */
typedef struct dmsg_rr_info {
    int src;      /**< sending PE */
    int tag;      /**< the sender's tag */
    size_t bytes; /**< payload bytes deposited */
} dmsg_rr_info;

/**
 * Starts the RRMSG layer. Collective (every PE, after dmsg_init): allocates
 * control mailboxes (16 KiB per PE of the job; on shm 64 bytes more per PE
 * for responses that ride on data) and 2 * npes + 2 deposit
 * counters; ends with a barrier.
 * Errors: DMSG_ERR_NOT_INIT, DMSG_ERR_STATE (already started), DMSG_ERR_NOMEM
 * (segment or counter table too small), the errors of the collectives.
 */
int dmsg_rr_init(void);

/**
 * Ends the RRMSG layer. Collective. Every transfer must be complete (waited
 * for) on every PE. Errors: DMSG_ERR_STATE (not started, or this PE still has
 * transfers in progress: nothing is done), the waits' errors.
 */
int dmsg_rr_finalize(void);

/* --------------------------------------------------- non-blocking starts */

/**
 * Starts sending `bytes` contiguous bytes at src (local memory) to pe with
 * tag (>= 0): if pe's response for it went ahead and has landed, deposits
 * the data now (the send may then be complete already), else sends the
 * request; returns. src must stay unchanged until the request is retired.
 * Errors (nothing is started, *req untouched):
 * DMSG_ERR_STATE, DMSG_ERR_NULL (req; src with bytes > 0), DMSG_ERR_PE,
 * DMSG_ERR_ARG (tag < 0), DMSG_ERR_HANDLE (req is a request still in
 * progress), DMSG_ERR_NOMEM (control mailbox and queue full).
 * Errors the receiver finds (the destination does not fit: DMSG_ERR_SIZE)
 * are the final status of the request.
 */
int dmsg_rr_isend(int pe, int tag, const void *src, size_t bytes, dmsg_rr_req *req);

/**
 * As dmsg_rr_isend, for the elements of a section (src, sl) of elem_size
 * bytes each, deposited without packing. Errors also DMSG_ERR_ARG (layout or
 * elem_size), DMSG_ERR_OVERFLOW.
 */
int dmsg_rr_isend_section(int pe, int tag, const void *src, const dmsg_layout *sl,
                          size_t elem_size, dmsg_rr_req *req);

/**
 * As dmsg_rr_isend, for n elements src_base[src_idx[i]] of elem_size bytes
 * (an indexed gather at the source, no packing when the destination is
 * contiguous). src_idx must stay unchanged until the request is retired.
 */
int dmsg_rr_isend_gathered(int pe, int tag, const void *src_base, const size_t *src_idx,
                           size_t n, size_t elem_size, dmsg_rr_req *req);

/**
 * Posts a receive of at most `cap` bytes into the symmetric buffer dst from
 * src (or DMSG_RR_ANY) with tag (or DMSG_RR_ANY). A request that carries more
 * than cap bytes is refused (DMSG_ERR_SIZE for both sides). With a known
 * source and tag, and no earlier posted receive that could take that
 * source's next message of that tag, the response goes to src ahead of any
 * request (not on sim): at once, or on shm, if it is this PE's one counted
 * response, with this PE's next send to src (riding on its data) or at its
 * next RRMSG wait or test or other waiting dmsg call, whichever is first;
 * dst may be written from then on.
 * Errors: DMSG_ERR_STATE, DMSG_ERR_NULL, DMSG_ERR_PE (src), DMSG_ERR_ARG (tag
 * < -1), DMSG_ERR_RANGE ([dst, dst + cap) not in the symmetric segment),
 * DMSG_ERR_HANDLE (req is a request still in progress), DMSG_ERR_NOMEM.
 */
int dmsg_rr_irecv(int src, int tag, void *dst, size_t cap, dmsg_rr_req *req);

/**
 * Posts a receive into the section (dst, dl) of elem_size-byte elements of
 * symmetric memory; the sender's elements fill it in row-major order. The
 * request must carry exactly the section's bytes, in elements of the same
 * size (or contiguous bytes), else DMSG_ERR_SIZE for both sides.
 * Errors: as dmsg_rr_irecv, DMSG_ERR_ARG (layout), DMSG_ERR_OVERFLOW.
 */
int dmsg_rr_irecv_section(int src, int tag, void *dst, const dmsg_layout *dl, size_t elem_size,
                          dmsg_rr_req *req);

/* ------------------------------------------------------------ completion */

/**
 * Waits until the transfer is complete and retires the request; returns its
 * final status. A send is complete when its data is in the receiver's
 * destination (src may be reused): on shm and ofi once the deposit has
 * completed there, on sim once the receiver has acknowledged it; a receive
 * when the data is in place. info (may be
 * NULL; receives only) gets source, tag and size.
 * Errors: DMSG_ERR_NULL, DMSG_ERR_HANDLE (not a started request: never
 * started, retired, or a copy), DMSG_ERR_TIMEOUT, DMSG_ERR_ABORTED, and the
 * transfer's own status.
 */
int dmsg_rr_wait(dmsg_rr_req *req, dmsg_rr_info *info);

/**
 * Waits for all n requests and retires them; returns DMSG_OK or the first
 * failing request's status (every request is retired either way, unless the
 * wait itself failed). infos may be NULL, else one entry per request.
 * Errors: DMSG_ERR_NULL, DMSG_ERR_HANDLE (nothing waited), the waits' errors.
 */
int dmsg_rr_waitall(int n, dmsg_rr_req *reqs, dmsg_rr_info *infos);

/**
 * Drives progress once and tells whether the request is complete: *done = 1
 * (the request is retired, its status returned, info set) or *done = 0.
 * Polling with it until *done completes every transfer that waiting would.
 * On a simulated machine each test that finds nothing to do takes one
 * message's software overhead of virtual time (docs/baselines.md), so a
 * polling loop lets time pass as it would on the machine.
 * Errors: DMSG_ERR_NULL, DMSG_ERR_HANDLE (not a started request: never
 * started, retired, or a copy), the request's own status.
 */
int dmsg_rr_test(dmsg_rr_req *req, int *done, dmsg_rr_info *info);

/* -------------------------------------------------------------- blocking */

/** isend + wait. */
int dmsg_rr_send(int pe, int tag, const void *src, size_t bytes);
/** isend_section + wait. */
int dmsg_rr_send_section(int pe, int tag, const void *src, const dmsg_layout *sl,
                         size_t elem_size);
/** isend_gathered + wait. */
int dmsg_rr_send_gathered(int pe, int tag, const void *src_base, const size_t *src_idx, size_t n,
                          size_t elem_size);
/** irecv + wait. */
int dmsg_rr_recv(int src, int tag, void *dst, size_t cap, dmsg_rr_info *info);
/** irecv_section + wait. */
int dmsg_rr_recv_section(int src, int tag, void *dst, const dmsg_layout *dl, size_t elem_size,
                         dmsg_rr_info *info);

/** What this PE's RRMSG layer did since dmsg_rr_init. */
typedef struct dmsg_rr_stats {
    uint64_t sends, recvs;    /**< transfers completed */
    uint64_t control;         /**< control messages sent: requests, responses (also
                                   those sent ahead), acks (counted when due); on shm and
                                   ofi a transfer whose data is counted on its receiver's
                                   READYC sends no request (DONE): two (docs/baselines.md) */
    uint64_t signals;         /**< zero-byte wake-ups and room reports */
    uint64_t data_bytes;      /**< bytes deposited as data */
    uint64_t pack_bytes;      /**< bytes packed (indexed source into a section only) */
    double send_time, recv_time; /**< seconds (dmsg_wtime) in waits and tests of sends and
                                      receives (wait, waitall, test, the blocking forms); on a
                                      simulated machine also in starting a send. Starting a
                                      transfer never waits: in real time it is not timed (two
                                      clock reads cost a tenth of a start) */
    uint64_t ctl_sent;        /**< control messages this PE put into partners' rings: on
                                   shm and ofi acknowledgements ride on the next control
                                   message to their PE, so fewer than `control` */
    uint64_t ctl_bytes;       /**< their bytes, 64-byte headers included (a READY of a
                                   contiguous receive and a DONE are a header alone) */
    uint64_t ready_rode;      /**< READYs (in `control`, not in `ctl_sent`) that rode on
                                   the data of this PE's send to their PE instead of
                                   going on the ring (shm: docs/baselines.md) */
} dmsg_rr_stats;

/** This PE's RRMSG counts and times. Local. Errors: DMSG_ERR_STATE, DMSG_ERR_NULL. */
int dmsg_rr_stats_get(dmsg_rr_stats *stats);

#ifdef __cplusplus
}
#endif
#endif /* DMSG_RR_H */
