/*
 * dmsg_postal.h - the postal baseline: PVM 3-style send / receive on top of
 * dmsg's deposits, for measuring conventional message passing against the
 * deposit model in the same job, on the same transport.
 *
 * The model in one paragraph: a sender packs typed, strided data into its send
 * buffer (a copy), sends it to a PE with a tag and goes on at once; the
 * message is deposited into a mailbox in the receiver's symmetric memory,
 * where it waits until a receive matches it by source and tag (wildcards
 * allowed); the receiver then unpacks it into its own data (another copy).
 * Messages of one sender to one receiver are received in the order sent.
 * docs/baselines.md describes the protocol, the copies and the settings.
 *
 * Buffering. Each PE keeps DMSG_POSTAL_MAILBOX bytes of mailbox per sender.
 * When a receiver's mailbox is full, the sender keeps the message in a queue
 * of its own (at most DMSG_POSTAL_QUEUE bytes per receiver) and delivers it
 * when the receiver has made room; a receiver that finds no match (waiting
 * or polling) makes room by moving unmatched messages, and its active
 * receive buffer, out of a full mailbox and reports it. Nothing is lost or
 * overwritten. Messages may have any size up to DMSG_POSTAL_QUEUE: one
 * longer than half a mailbox is only announced in the mailbox, and a
 * receive that matches it fetches it from the sender's out-window (which
 * holds several such messages at once, each in a region of its own;
 * dmsg_postal_recv leaves it there until the buffer is released, and the
 * unpacks fetch it), or grants its landing window, which the sender fills
 * in its next postal call (DMSG_POSTAL_WINDOW; with no windows it travels as fragments, which
 * the receiver reassembles in its own memory as they land, as PVM does).
 *
 * Progress. Queued messages move, and mailbox room is reported, only while
 * the PE is inside a postal call: every blocking call (recv, recv_bytes,
 * flush, barrier, finalize) drives progress until it can return, and every
 * poll (nrecv, probe) drives it once and makes room as a wait does, so a
 * program that is correct with unbounded buffering and synchronizes with
 * postal calls cannot deadlock, and a polling loop cannot livelock. dmsg_sync is not a postal call: a PE waiting
 * in it delivers nothing, so a partner that waits for its queued messages
 * waits for ever. Synchronize postal programs with dmsg_postal_barrier (as
 * PVM programs use pvm_barrier).
 *
 * Threads, errors, timeouts: as dmsg.h. One thread per PE calls the postal
 * layer. A call that fails has no effect, except where noted. Waits are
 * bounded by DMSG_TIMEOUT and return DMSG_ERR_TIMEOUT.
 *
 * SPDX-License-Identifier: BSD-3-Clause (the LICENSE file of dmsg)
 */
#ifndef DMSG_POSTAL_H
#define DMSG_POSTAL_H

#include <stddef.h>
#include <stdint.h>
#include "dmsg.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Wildcard for the source PE or the tag of a receive or probe. */
#define DMSG_POSTAL_ANY (-1)

/** What a received (or probed) message is. */
typedef struct dmsg_postal_info {
    int src;      /**< sending PE */
    int tag;      /**< the sender's tag */
    size_t bytes; /**< packed bytes in the message */
    int ctx;      /**< the sender's context (dmsg_postal_send_ctx; 0 for the other sends) */
    int word;     /**< the sender's word (dmsg_postal_send_ctx_word; 0 for the other sends) */
} dmsg_postal_info;

/**
 * Starts the postal layer. Collective (every PE, after dmsg_init): allocates
 * the mailboxes (DMSG_POSTAL_MAILBOX bytes per PE of the job) and npes + 2
 * deposit counters (one per sender, a wake-up and a finish counter), then
 * two windows of DMSG_POSTAL_WINDOW bytes and one more counter for large
 * messages (left out, and large messages sent as fragments, where the
 * segment or DMSG_MAX_COUNTERS has no room for them), and ends with a
 * barrier, so every PE may send as soon as it returns.
 * Errors: DMSG_ERR_NOT_INIT, DMSG_ERR_STATE (already started), DMSG_ERR_NOMEM
 * (segment too small for the mailboxes, or DMSG_MAX_COUNTERS too low), and
 * the errors of the collectives.
 */
int dmsg_postal_init(void);

/**
 * Ends the postal layer. Collective: first delivers every message this PE
 * still has queued (driving progress, so the others' queues drain too), then
 * a barrier, then frees the mailboxes. Messages never received are dropped
 * (dmsg_postal_stats_get tells how many, before the call).
 * Errors: DMSG_ERR_STATE (not started), the waits' errors.
 */
int dmsg_postal_finalize(void);

/**
 * Waits until every message this PE has sent is in its receiver's mailbox
 * (none left in the sender queue). Local, but needs the receivers to enter
 * a postal call (or to be waiting in one) to make room.
 * Errors: DMSG_ERR_STATE, DMSG_ERR_TIMEOUT, DMSG_ERR_ABORTED.
 */
int dmsg_postal_flush(void);

/**
 * Barrier of the postal layer (as pvm_barrier over all PEs). Collective:
 * drives progress until no PE has messages queued (making room for stuck
 * senders as a waiting receive does), then ends with dmsg_sync. On return
 * every message any PE sent before the call is in its receiver's mailbox
 * (or already received); messages not received stay receivable.
 * Errors: DMSG_ERR_STATE, DMSG_ERR_NOMEM (spill memory), DMSG_ERR_TIMEOUT,
 * DMSG_ERR_ABORTED.
 */
int dmsg_postal_barrier(void);

/* ------------------------------------------------------------- sending */

/**
 * Clears the send buffer for a new message (as pvm_initsend). Local.
 * Errors: DMSG_ERR_STATE (layer not started).
 */
int dmsg_postal_initsend(void);

/**
 * Appends n elements of elem_size bytes (1, 2, 4, 8 or 16) to the send
 * buffer, taken from data every `stride` elements (as pvm_pk*): element i is
 * at data + i * stride * elem_size. A copy; data may be reused on return.
 * n == 0 appends nothing (data may then be NULL).
 * Errors: DMSG_ERR_STATE, DMSG_ERR_NULL, DMSG_ERR_ARG (elem_size, n < 0,
 * stride < 1), DMSG_ERR_OVERFLOW (the extent overflows), DMSG_ERR_NOMEM (no
 * memory to grow the send buffer).
 */
int dmsg_postal_pk(const void *data, long n, long stride, size_t elem_size);

/** Typed forms of dmsg_postal_pk, as PVM's pvm_pkbyte ... pvm_pkdcplx. */
int dmsg_postal_pk_byte(const int8_t *data, long n, long stride);
int dmsg_postal_pk_short(const int16_t *data, long n, long stride);
int dmsg_postal_pk_int(const int32_t *data, long n, long stride);
int dmsg_postal_pk_long(const int64_t *data, long n, long stride);
int dmsg_postal_pk_float(const float *data, long n, long stride);
int dmsg_postal_pk_double(const double *data, long n, long stride);
/** Complex numbers as pairs: 8 bytes (float re, im) and 16 bytes (double). */
int dmsg_postal_pk_cplx(const float *data, long n, long stride);
int dmsg_postal_pk_dcplx(const double *data, long n, long stride);

/**
 * Sends the send buffer to PE pe with tag (>= 0). Returns as soon as the send
 * buffer may be reused (it keeps its contents, so the same message can be
 * sent again); never waits for the receiver. The message is in pe's mailbox
 * on return, or in this PE's queue when that mailbox is full.
 * Errors: DMSG_ERR_STATE, DMSG_ERR_PE, DMSG_ERR_ARG (tag < 0), DMSG_ERR_NOMEM
 * (pe's mailbox is full and the message would take the queue for pe past
 * DMSG_POSTAL_QUEUE bytes: nothing is sent; receive something, or flush, and
 * retry).
 */
int dmsg_postal_send(int pe, int tag);

/**
 * As dmsg_postal_send, and the message carries the context ctx (any int) in
 * its header: receives with a caller's matcher see it in
 * dmsg_postal_info.ctx (a front end's message contexts, as PVM's), before
 * any of the payload has arrived. The receives by source and tag ignore it.
 * Errors: as dmsg_postal_send.
 */
int dmsg_postal_send_ctx(int pe, int tag, int ctx);

/**
 * As dmsg_postal_send_ctx, and the message carries one more int, `word`,
 * beside the context (dmsg_postal_info.word): a front end's header field
 * that its receivers read back (PVM's wait id, pvm_getminfo). Matching
 * never looks at it. Errors: as dmsg_postal_send.
 */
int dmsg_postal_send_ctx_word(int pe, int tag, int ctx, int word);

/**
 * Sends `bytes` contiguous bytes from buf to pe with tag, without touching
 * the send buffer (as pvm_psend). The bytes are still copied into the
 * message. A large message (longer than half a mailbox) is announced
 * first and copied into the out-window piece by piece, so that a receiver
 * already waiting fetches each piece while the next is copied (a stream;
 * docs/baselines.md, "Large messages"); it still returns without waiting
 * for the receiver. Errors: as dmsg_postal_send, DMSG_ERR_NULL (buf NULL
 * with bytes > 0).
 */
int dmsg_postal_send_bytes(int pe, int tag, const void *buf, size_t bytes);

/** dmsg_postal_send_bytes with a context, as dmsg_postal_send_ctx. */
int dmsg_postal_send_bytes_ctx(int pe, int tag, int ctx, const void *buf, size_t bytes);
/** dmsg_postal_send_bytes with a context and a word, as dmsg_postal_send_ctx_word. */
int dmsg_postal_send_bytes_ctx_word(int pe, int tag, int ctx, int word, const void *buf,
                                    size_t bytes);

/* ----------------------------------------------------------- receiving */

/**
 * Blocks until a message from src (or DMSG_POSTAL_ANY) with tag (or
 * DMSG_POSTAL_ANY) is there, and makes it the active receive buffer (as
 * pvm_recv); the previous active buffer is released first. Of the messages that
 * match, the first to arrive is taken; between one sender and this PE that is
 * the first sent. info (may be NULL) receives source, tag and size.
 * Errors: DMSG_ERR_STATE, DMSG_ERR_PE (src), DMSG_ERR_ARG (tag < -1),
 * DMSG_ERR_TIMEOUT, DMSG_ERR_ABORTED.
 */
int dmsg_postal_recv(int src, int tag, dmsg_postal_info *info);

/**
 * As dmsg_postal_recv, but does not block (as pvm_nrecv): *found = 1 and the
 * message is the active receive buffer, or *found = 0 (the previous active
 * buffer is released either way). Each call drives progress once and, when
 * nothing matches, makes room for stuck senders (as a waiting receive does),
 * so polling until *found gets a message queued behind a full mailbox.
 * Errors: as dmsg_postal_recv (no DMSG_ERR_TIMEOUT), DMSG_ERR_NULL (found),
 * DMSG_ERR_NOMEM (memory to move messages out of the mailbox).
 */
int dmsg_postal_nrecv(int src, int tag, int *found, dmsg_postal_info *info);

/**
 * Tells whether a matching message is there, without receiving it (as
 * pvm_probe): *found = 1 and info describes it, or *found = 0 (info is left
 * alone). Does not block; drives progress and makes room as nrecv does (the
 * active receive buffer stays, its data moved out of the mailbox when its
 * sender is stuck). Errors: as dmsg_postal_nrecv.
 */
int dmsg_postal_probe(int src, int tag, int *found, dmsg_postal_info *info);

/**
 * Takes the next n elements of elem_size bytes out of the active receive
 * buffer and stores them every `stride` elements at data (as pvm_upk*), in
 * the order they were packed. A copy: for a large message that the receive
 * left in its sender's out-window, a contiguous unpack (stride 1) fetches
 * straight from there into data; any other first brings the whole message
 * into this PE's landing window (a fetch) and copies from there.
 * Errors: DMSG_ERR_STATE (no active buffer), DMSG_ERR_NULL, DMSG_ERR_ARG,
 * DMSG_ERR_OVERFLOW, DMSG_ERR_SIZE (fewer bytes left in the message: nothing
 * is written and the position stays).
 */
int dmsg_postal_upk(void *data, long n, long stride, size_t elem_size);

/** Typed forms of dmsg_postal_upk. */
int dmsg_postal_upk_byte(int8_t *data, long n, long stride);
int dmsg_postal_upk_short(int16_t *data, long n, long stride);
int dmsg_postal_upk_int(int32_t *data, long n, long stride);
int dmsg_postal_upk_long(int64_t *data, long n, long stride);
int dmsg_postal_upk_float(float *data, long n, long stride);
int dmsg_postal_upk_double(double *data, long n, long stride);
int dmsg_postal_upk_cplx(float *data, long n, long stride);
int dmsg_postal_upk_dcplx(double *data, long n, long stride);

/**
 * Describes the active receive buffer (as pvm_bufinfo).
 * Errors: DMSG_ERR_STATE (none), DMSG_ERR_NULL.
 */
int dmsg_postal_bufinfo(dmsg_postal_info *info);

/**
 * Releases the active receive buffer now instead of at the next receive, so
 * its mailbox room, or its region of the sender's out-window (a large
 * message; a 64-byte report tells the sender), goes back to the sender
 * sooner. No-op without one. The buffer is released even on an error.
 * Errors: DMSG_ERR_STATE (layer not started), DMSG_ERR_NOMEM (the report
 * found the sender's mailbox full and the queue limit reached).
 */
int dmsg_postal_release(void);

/**
 * Blocking receive of a whole message into `cap` contiguous bytes at buf (as
 * pvm_precv); the active receive buffer is not used (nor released; while
 * this waits, its data move out of the mailbox if its sender needs the
 * room). info
 * (may be NULL) receives source, tag and size.
 * Errors: as dmsg_postal_recv, DMSG_ERR_NULL (buf NULL with cap > 0),
 * DMSG_ERR_SIZE (the first matching message is larger than cap: nothing is
 * written, the message stays to be received, info is not set).
 */
int dmsg_postal_recv_bytes(int src, int tag, void *buf, size_t cap, dmsg_postal_info *info);

/* ------------------------------------- receives with a caller's matcher */

/**
 * A match function: scores a receivable message (info: source, tag, size,
 * context; data: its packed bytes, readable during the call only, or NULL
 * for a large message that is only announced so far: its bytes are fetched
 * once a receive takes it, so choose by info). 0: not this one;
 * 1: this one, stop looking; > 1: a candidate (the first of the highest
 * score wins when no message scores 1); < 0: stop, the receive fails with
 * DMSG_ERR_ARG. It must not call the postal layer. (PVM's pvm_recvf.)
 */
typedef int (*dmsg_postal_match_fn)(void *arg, const dmsg_postal_info *info, const void *data);

/** Modes of dmsg_postal_match. */
enum {
    DMSG_POSTAL_PROBE = 0, /**< describe the chosen message only (as probe) */
    DMSG_POSTAL_POLL = 1,  /**< receive it if there is one now (as nrecv) */
    DMSG_POSTAL_WAIT = 2,  /**< wait for one and receive it (as recv) */
};

/**
 * dmsg_postal_recv, dmsg_postal_nrecv and dmsg_postal_probe with the choice
 * made by fn(arg, ...) over the messages that have arrived, in arrival order.
 * POLL and WAIT release the previous active receive buffer first and make the
 * chosen message the active one (unpack it with dmsg_postal_upk or read it
 * with dmsg_postal_active); PROBE leaves the active buffer alone. *found
 * says whether one was chosen; info (may be NULL) describes it. Progress and
 * room making as the calls it generalizes.
 * Errors: DMSG_ERR_STATE, DMSG_ERR_NULL (fn, found), DMSG_ERR_ARG (mode, or
 * fn returned < 0: nothing received), DMSG_ERR_TIMEOUT, DMSG_ERR_ABORTED,
 * DMSG_ERR_NOMEM.
 */
int dmsg_postal_match(dmsg_postal_match_fn fn, void *arg, int mode, int *found,
                      dmsg_postal_info *info);

/**
 * Receives the message fn chooses (mode POLL or WAIT) straight into buf,
 * without the active receive buffer (which stays as it is): its bytes from
 * offset `skip` on, at most cap of them; the rest is dropped (as pvm_precv
 * truncates). *copied (may be NULL) gets the bytes written, info (may be
 * NULL) the whole message's size. The message is consumed; a large one
 * fetched from its sender's out-window lands straight in buf (only the
 * bytes kept).
 * Errors: as dmsg_postal_match, DMSG_ERR_ARG (mode PROBE), DMSG_ERR_NULL
 * (buf NULL with cap > 0).
 */
int dmsg_postal_match_copy(dmsg_postal_match_fn fn, void *arg, int mode, size_t skip, void *buf,
                           size_t cap, size_t *copied, int *found, dmsg_postal_info *info);

/**
 * The active receive buffer's packed bytes, for a caller that unpacks or
 * copies them itself. *data stays valid until the next postal call (a wait
 * may move the message out of the mailbox). Local: a large message that the
 * receive left in its sender's out-window is fetched into this PE's landing
 * window first (one-sided; its sender is then told it is done with it).
 * Errors: DMSG_ERR_STATE (layer not started, or no active buffer),
 * DMSG_ERR_NULL, the fetch's errors.
 */
int dmsg_postal_active(const void **data, size_t *bytes);

/* ------------------------------------------------------------ measuring */

/** What this PE's postal layer did since dmsg_postal_init (dmsg_postal_stats_get). */
typedef struct dmsg_postal_stats {
    uint64_t sent;          /**< messages sent */
    uint64_t received;      /**< messages received */
    uint64_t queued;        /**< sends that found the mailbox full and were queued */
    uint64_t spilled;       /**< messages moved out of a full mailbox by a waiting receiver */
    uint64_t control;       /**< control deposits: room reports and wake-ups */
    uint64_t unreceived;    /**< messages now in this PE's mailbox, not yet received */
    uint64_t pack_bytes;    /**< copy S.P: user data into the send buffer */
    uint64_t queue_bytes;   /**< copy S.T: send buffer into the sender queue */
    uint64_t transfer_bytes;/**< deposits into mailboxes, headers included */
    uint64_t spill_bytes;   /**< copy R.T: mailbox into receiver memory (spills, reassembly of fragments) */
    uint64_t unpack_bytes;  /**< copy R.U: receive buffer into user data */
    uint64_t large;         /**< of sent: large messages announced, data through the windows */
    uint64_t streamed;      /**< of large: send_bytes messages streamed (the receiver fetched
                                 each piece while the next was copied) */
    /* Times, as RRMSG's (dmsg_rr.h): seconds (dmsg_wtime) in waits and tests; calls that never
     * wait (packing, unpacking, a send, matching, buffer management) are timed on a simulated
     * machine only (virtual time: the machine's cost). In real time (shm, ofi) two clock reads
     * cost about a tenth of a small message's hop, so those times stay 0 there. */
    double pack_time;       /**< in pack calls (sim only) */
    double send_time;       /**< in flushes (waits); on sim also in sends: transfer, control,
                                 buffer management */
    double recv_time;       /**< in receives, probes and the postal barrier: waiting, matching,
                                 control (the copy out of recv_bytes not included) */
    double unpack_time;     /**< in unpack calls and the copies of recv_bytes and match_copy
                                 (sim only) */
    double match_time;      /**< of send_time and recv_time: reading headers, matching (sim
                                 only) */
    double manage_time;     /**< of send_time and recv_time: queue copies, spills, room reports
                                 (sim only) */
    uint64_t direct_bytes;  /**< of unpack_bytes (and recv_bytes' bytes): fetched straight from
                                 the sender's out-window into user data, the transfer and the
                                 unpack one copy (pulled large messages, contiguous unpacks) */
} dmsg_postal_stats;

/**
 * This PE's postal counts and times. Local. Errors: DMSG_ERR_STATE, DMSG_ERR_NULL.
 */
int dmsg_postal_stats_get(dmsg_postal_stats *stats);

#ifdef __cplusplus
}
#endif
#endif /* DMSG_POSTAL_H */
