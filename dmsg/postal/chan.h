/* Channels: ordered, flow-controlled message rings between every pair of PEs,
 * built only from public deposits and counters. The postal layer carries its
 * messages on one, RRMSG its control messages on another.
 *
 * Layout. Every PE owns, in symmetric memory, one ring of `ring` bytes per
 * sender. A message is a 64-byte header and its payload, deposited straight
 * into the receiver's ring for this sender; when the payload does not fit
 * before the ring's end it goes to the ring's start (the header stays).
 *
 * Trust. Deposited data may be read only once a counter says it landed, so
 * each sender p has its own counter pair[p]: a ring deposit from p counts its
 * bytes and one message there; a room report from p (a zero-byte deposit)
 * counts one message. After every batch of deposits the sender waits for
 * them to complete (dmsg_quiet) before it rings the receiver's bell (a
 * zero-byte deposit on counter `bell`). So the deposits of one pair land in
 * the order issued, the byte tally names exactly which ring deposits are
 * complete, and a PE woken by its bell finds everything the bell announced.
 * A message sent `silent` (see the field) is completed the same way but
 * rings no bell: for messages nobody sleeps waiting for.
 *
 * Room. A receiver frees ring room in ring order once messages are consumed,
 * and reports the number freed to the sender inside the headers it sends
 * back, or with zero-byte room reports when the sender is stuck or much room
 * is unreported. A sender whose message does not fit queues a copy and sends
 * a 64-byte STUCK notice (room for it is always reserved); a receiver that
 * must wait moves unmatched messages of stuck senders out of its ring. */
#ifndef DMSG_POSTAL_CHAN_H
#define DMSG_POSTAL_CHAN_H

#include <stddef.h>
#include <stdint.h>
#include "dmsg.h"
#include "dmsg/base/status.h"

#define CHAN_HDR 64

/* Header of every ring message (exactly CHAN_HDR bytes). */
typedef struct chan_hdr {
    uint32_t type;    /* user type (1 ..), or CHAN_T_STUCK */
    int32_t tag;
    uint64_t len;     /* payload bytes */
    uint64_t seq;     /* per-pair message number, from 0 */
    uint32_t wrap;    /* payload starts at the ring's start */
    uint32_t queued;  /* messages still queued at the sender for this receiver */
    uint64_t credit;  /* this many more of the receiver's messages to the sender were freed */
    uint64_t aux[3];  /* for the channel's user */
} chan_hdr;

enum { CHAN_T_STUCK = 0xFFFFu };

/* A landed message not yet consumed (receiver side). */
typedef struct chan_msg {
    struct chan_msg *next;
    chan_hdr h;
    int src;
    char *data;      /* payload: in the ring (symmetric memory) or in spill memory */
    int spilled;     /* data is not in the ring (its ring room is freed) */
    int borrowed;    /* spilled, and data is the channel user's memory: never freed here */
    uint64_t idx;    /* ring order within its pair */
    int user;        /* for the channel's user (0 when the message is found) */
    uint64_t cum;    /* the pair counter's deposit bytes up to and with this message */
    int ndep;        /* its deposits (2 when wrapped) */
    int taken;       /* its counts consumed (dmsg_chan_take) */
    int at_known;    /* `at` is set (ordered delivery) */
    double at;       /* its virtual arrival (ordered delivery, the channel's user) */
} chan_msg;

typedef struct chan_qmsg {
    struct chan_qmsg *next;
    size_t len;      /* payload bytes; buf holds the header and the payload */
    char buf[];
} chan_qmsg;

typedef struct chan_tx {  /* this PE sending to one PE */
    uint64_t wpos, cpos;  /* ring bytes written, ring bytes known freed (cumulative) */
    uint64_t sent, acked; /* ring messages deposited, of them known freed */
    chan_qmsg *qhead, *qtail;
    uint64_t qbytes, qcount;
    int stuck_sent;       /* a STUCK notice is out and the queue has not emptied since */
    uint64_t seq;
} chan_tx;

typedef struct chan_rx {  /* this PE receiving from one PE */
    uint64_t cum_walked;  /* deposit bytes walked (cumulative) */
    uint64_t cum_taken;   /* of them, consumed on the counter by dmsg_chan_take */
    uint64_t dep_pending; /* ring deposits walked whose messages are not yet taken */
    uint64_t rpos;        /* ring position of the next header (cumulative) */
    uint64_t walked;      /* ring messages walked */
    uint64_t freed;       /* ring messages freed, a prefix of the walked ones */
    uint64_t reported;    /* freed messages reported to the sender */
    uint64_t unrep_bytes; /* ring bytes freed but not reported */
    int stuck;            /* the sender has messages queued for us */
    int quiet_credit;     /* room reported in a silent message and no bell since: a
                           * STUCK notice of the sender rings its bell (chan.c, stamp) */
    chan_msg *open;       /* for the channel's user: a message of this sender it is building */
    /* For the channel's user (postal): the large message this sender
     * streams (its announcement's number) and how many of its bytes are in
     * the sender's out-window, from the PARTs that arrived. One stream per
     * sender at a time: it holds the sender's out-window until the DONE. */
    uint64_t stream_id, stream_ready;
    /* Counts of messages taken (dmsg_chan_take) but not yet consumed on the
     * counter: on a transport in real time consumed together at the next
     * walk of this sender, one await each instead of two a message. */
    uint64_t owe_bytes, owe_msgs;
} chan_rx;

typedef struct chan_stats {
    uint64_t sent, queued, spilled, control, transfer_bytes, queue_bytes, spill_bytes;
    double t_scan;   /* seconds reading the headers of landed messages (part of matching) */
    double t_manage; /* seconds managing buffers: queue copies, spills, room reports */
} chan_stats;

typedef struct chan {
    int open, me, npes;
    /* The user serves messages in virtual-time order (dmsg/core/order.h):
     * waits are order waits, so wake-ups are deposited uncounted (their
     * cost stays, no await would take their arrivals). */
    int ordered;
    size_t ring;          /* bytes per sender */
    size_t cap;           /* ring / CHAN_HDR: most messages a ring can hold */
    /* Per partner p and message number i (sent, walked): the footprint of
     * each message to p not known freed, of each walked message from p, and
     * whether that one was consumed, at [(i % cap) * npes + p] (chan.c). */
    uint32_t *tx_fp, *rx_fp;
    uint8_t *rx_done;
    uint64_t qlimit;      /* queue bytes per receiver */
    char *rings;          /* symmetric: npes rings */
    char *scratch;        /* symmetric: target of zero-byte deposits */
    dmsg_ctr *pair;       /* pair[p]: deposits from p */
    dmsg_ctr bell, fin;
    chan_tx *tx;
    chan_rx *rx;
    chan_msg *head, *tail;/* landed messages in the order found */
    /* A message the user holds outside that list (postal's active receive
     * buffer): waits and polls move it out of the ring, as the landed
     * ones, when its sender is stuck (NULL: none). */
    chan_msg *held;
    uint64_t nmsgs;       /* entries in that list */
    uint8_t *touched;     /* per PE: deposits issued since the last bell */
    chan_stats st;
    /* The user's handler of the control messages it sends itself (postal's
     * grants of large messages), run by every progress pass after the walk
     * and before the bells: so a PE serves them in every wait, the drains of
     * barrier and close included. Deposits it makes set touched[pe]. NULL:
     * none. */
    dmsg_status (*serve)(struct chan *c);
    /* The user sends a batch of messages (RRMSG's answers to everything a
     * progress pass found): dmsg_chan_send leaves the bells, and the
     * completion before them, to dmsg_chan_ring at the batch's end, so a
     * partner is woken once for the batch, not once per message (a second
     * message to a PE still completes the first one before it goes). */
    int hold_bells;
    /* The next dmsg_chan_send goes without a bell: for a message nobody
     * waits for (RRMSG's acknowledgements on transports in real time), so
     * it does not wake a partner that sleeps for something else. It is
     * completed at once (dmsg_quiet) unless a bell to that PE is owed
     * anyway, and it carries a room report only to a sender not known to be
     * stuck (one stuck sleeps for its report: a bell), whose STUCK notice,
     * if it sent one before it read it, then rings its bell; a message that
     * must queue rings as any other. */
    int silent;
    /* The user reports no scan time (RRMSG): walks read no clock. */
    int untimed;
    /* The clock is virtual (a simulated machine, dmsg_order_on): calls
     * that never wait are timed only there (dmsg_chan_clock). */
    int vclock;
    /* Takes consume their counts at the next walk (no virtual time: the
     * moment of an await moves no clock). */
    int lazy_take;
    /* Descriptors of consumed messages, kept for the next ones found (a
     * malloc and a free a message otherwise; RRMSG finds three a transfer). */
    chan_msg *spare;
    size_t nspare;
} chan;

/* The clock of a statistic that times work which never waits (buffer
 * management, matching, packing, starting a send): on a simulated machine
 * its virtual time is the machine's cost and is kept; in real time such a
 * call is not timed (0 at both ends: the difference is 0), as RRMSG's
 * starting calls are not (dmsg_rr.h), since two clock reads cost about as
 * much as a small message's whole hop (docs/baselines.md). */
static inline double dmsg_chan_clock(const chan *c)
{
    return c->vclock ? dmsg_wtime() : 0;
}

/* Copies bytes from src to dst (local memory) and books the copy as
 * modelled work, as every buffering copy of the channels is. */
dmsg_status dmsg_chan_copy(void *dst, const void *src, size_t bytes);

/* Collective: rings of `ring` bytes per sender, queues of qlimit bytes. */
dmsg_status dmsg_chan_open(chan *c, size_t ring, uint64_t qlimit);
/* Collective: delivers every queued message of every PE, drops what was never
 * received, frees everything. */
dmsg_status dmsg_chan_close(chan *c);
/* Frees this PE's own memory of the channel without a word to the others
 * (its counters and rings went with the job: dmsg_finalize); c is closed. */
void dmsg_chan_forget(chan *c);

/* Largest payload a message may carry. */
size_t dmsg_chan_max_len(const chan *c);

/* How many messages without payload would go straight into pe's ring now,
 * one after the other (0 while messages for pe are queued). */
uint64_t dmsg_chan_headers_fit(const chan *c, int pe);

/* Whether `bytes` more payload for pe stay within the queue limit even if
 * none of it fits the ring now (after one progress pass when they would
 * not). DMSG_ERR_NOMEM: they would not; nothing changed. */
dmsg_status dmsg_chan_reserve(chan *c, int pe, uint64_t bytes);

/* Sends a message: buf holds CHAN_HDR bytes of room followed by len payload
 * bytes (buf is local memory; its header room is overwritten). h gives type,
 * tag and aux; the rest is filled here. Delivered now or queued.
 * DMSG_ERR_NOMEM: the queue for pe is full (nothing sent). */
dmsg_status dmsg_chan_send(chan *c, int pe, const chan_hdr *h, char *buf, size_t len);

/* Finds the messages src has landed here (appends them to the landed list)
 * and acts on its room reports; nothing else (no queue, reports or bells). */
dmsg_status dmsg_chan_walk(chan *c, int src);

/* One progress pass: finds landed messages, room reports, pushes queued
 * messages and owed room reports, rings bells. */
dmsg_status dmsg_chan_progress(chan *c);

/* Makes room for stuck senders and tells them: moves the held message and
 * the landed messages of each stuck sender out of the ring, then reports
 * every freed room a stuck sender has not heard of (a progress pass). Call
 * it whenever the caller found nothing, before it waits and on every
 * fruitless poll: a sender stuck behind messages nobody receives yet, or
 * behind room nobody reported, moves only once this has run. *did: 1 if it
 * moved or reported anything (the caller should look again before it
 * sleeps). */
dmsg_status dmsg_chan_make_room(chan *c, int *did);

/* Called when the caller found nothing and is about to wait: makes room for
 * stuck senders (dmsg_chan_make_room; if that did anything it returns, so that
 * the caller looks again), else blocks until a bell rings (or returns at once
 * if one already rang); an ordered channel until a deposit is counted here
 * and its arrival is safe (dmsg_order_wait). */
dmsg_status dmsg_chan_wait(chan *c);

/* Moves a message the caller holds out of the ring if its sender is stuck. */
dmsg_status dmsg_chan_spill(chan *c, chan_msg *m);

/* Moves m's payload into private memory of cap bytes (cap >= its length;
 * from the ring, its spill copy or borrowed memory) and frees its ring room.
 * For a message the caller will grow (reassembly of fragments). */
dmsg_status dmsg_chan_own(chan *c, chan_msg *m, size_t cap);

/* Collective: drives progress until no PE has messages queued, making room
 * for stuck senders (spilling, or with `drop` dropping every landed
 * message), then agrees with every PE that all queues are empty. Landed
 * messages that are kept stay receivable. */
dmsg_status dmsg_chan_drain(chan *c, int drop);

/* Consumes m's counts on its sender's counter: every deposit byte of that
 * sender up to and with m, and m's deposits. Call it when the PE starts to
 * use m (match, spill, reassembly): on a simulated machine the PE's clock
 * then moves to m's arrival, not to the latest arrival of everything found
 * (a partner running ahead). On a transport in real time the counts are
 * consumed at the next walk of that sender, with those of the other messages
 * taken until then (lazy_take). No-op the second time. */
dmsg_status dmsg_chan_take(chan *c, chan_msg *m);

/* Adds a message of src that came outside the ring (the user's own path:
 * RRMSG's READYs that ride on data) to the landed list, where the ring
 * messages of src numbered h->seq and later would be: before the first of
 * them found, else at the end. It has no payload and no counts (taken,
 * nothing to free); *out: the message. DMSG_ERR_NOMEM: nothing changed. */
dmsg_status dmsg_chan_inject(chan *c, int src, const chan_hdr *h, chan_msg **out);

/* Removes m from the landed list and frees its ring room (and spill memory). */
void dmsg_chan_consume(chan *c, chan_msg *m);
/* Unlinks m from the landed list without freeing it (the caller holds it). */
void dmsg_chan_unlink(chan *c, chan_msg *m);
/* Frees a message the caller holds. */
void dmsg_chan_release(chan *c, chan_msg *m);

/* Rings pe's bell after completing this PE's deposits (for deposits the
 * channel's user made itself, e.g. RRMSG data). */
dmsg_status dmsg_chan_kick(chan *c, int pe);

/* Completes this PE's deposits and rings the bells of every PE they went
 * to (the end of a hold_bells batch). */
dmsg_status dmsg_chan_ring(chan *c);

/* Messages queued at this PE for any receiver. */
uint64_t dmsg_chan_queued(const chan *c);

#endif
