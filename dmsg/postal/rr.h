/* The RRMSG layer's state and protocol engine, shared by rr.c (lifetime and
 * progress) and rr_req.c (starting and completing transfers). */
#ifndef DMSG_POSTAL_RR_H
#define DMSG_POSTAL_RR_H

#include "dmsg_rr.h"
#include "dmsg/postal/chan.h"

/* Control message types on the channel. A receive posted with a known
 * source and tag may answer its request ahead (READY: a response sent at
 * posting, before any request); the send it binds to deposits its data and
 * then sends its request as a DONE (the data is in place), and the receiver
 * acknowledges. Transports in real time only (rr.c, "Responses ahead"). */
enum { RR_T_REQ = 1, RR_T_RESP, RR_T_ACK, RR_T_READY, RR_T_DONE, RR_T_READYC };

/* RR_T_READYC: a contiguous receive's READY whose transfer may skip the
 * DONE (transports in real time; rr.c, "Counted data"): a contiguous send
 * of at least one byte that finds it before it sent a request deposits its
 * data counted on the receiver's channel bell, and the bell's bytes
 * complete the receive (bells themselves count none). A receiver has at
 * most one such READY out (rr_state.fast_r), so the bytes name its
 * receive; any other send answers it with a DONE, as a READY. */

/* A counted READY that rides (transports in real time whose deposits land
 * in the order issued; rr_ride.c): posting the receive holds it back, and
 * the PE's next contiguous send to that PE that is answered by a count
 * carries it, written uncounted into the receiver's slot for this PE just
 * before its data (no ring message: one deposit and one count a hop
 * instead of two of each). The receiver reads the slot when that data's
 * count lands and takes the READY as if it had come on the ring, after the
 * ring messages sent before it (ring_seq). A held READY leaves alone on
 * the ring at the PE's next progress pass, before any other control message
 * to that PE or READY, or before the PE waits for anything outside RRMSG. */
typedef struct rr_slot {
    uint64_t seq;      /* this sender's rides to this PE, from 1 (0: none yet) */
    uint64_t ring_seq; /* ring messages it had deposited for this PE before it */
    uint32_t type;     /* RR_T_READYC with the acknowledgements that ride (RR_ACKS) */
    int32_t tag;
    uint64_t aux[3];   /* as a READYC's header: the receive's id, bytes, offset */
    uint64_t pad[2];
} rr_slot;

/* A header's type word: the message type in the low byte; on a transport in
 * real time, bits 8 and up carry acknowledgements owed to the receiver of
 * the message (rr.c, send_ctl: the acknowledgements ride on the next control
 * message to their sender, or go alone as an ACK at the next progress pass
 * or after the next send). The channel's own type (CHAN_T_STUCK) is never
 * one of these. */
#define RR_TYPE(w) ((uint32_t)(w) & 0xFFu)
#define RR_ACKS(w) ((uint32_t)(w) >> 8)
#define RR_ACKS_MAX 0xFFFFu

/* What a request carries and a receive expects. */
enum { RR_K_CONTIG, RR_K_SECTION, RR_K_GATHERED };

/* Request states. RR_S_AHEAD: a receive whose response went ahead (READY),
 * no request of its sender seen yet; RR_S_BOUND: the same after the request
 * of the send it answers arrived (its DONE follows). */
enum { RR_S_IDLE = 0, RR_S_WAIT_RESP, RR_S_WAIT_ACK, RR_S_POSTED, RR_S_WAIT_DATA, RR_S_DONE,
       RR_S_AHEAD, RR_S_BOUND };

#define RR_MAGIC 0x52524d53u
#define RR_RING (16 * 1024)

/* The payload of a response (RESP) and of a response sent ahead (READY,
 * whose header's aux[1] carries the receive's bytes: the sender checks the
 * fit). Its size is booked on a simulated machine: keep it. A READY for a
 * contiguous receive has no payload: its header says it all (aux: the
 * receive's id, its bytes, its offset), one line instead of four. */
typedef struct rr_resp {
    uint64_t sreq;   /* RESP: the sender's request id; READY: the receive's id */
    int32_t status;  /* DMSG_OK, or why the receiver refused */
    int32_t kind;    /* RR_K_CONTIG or RR_K_SECTION */
    int64_t off;     /* destination, from the channel's rings (a symmetric address) */
    uint64_t elem;
    dmsg_layout dl;
} rr_resp;

/* The payload of a DONE that refuses the data (why the sender refused it);
 * a DONE whose data is in place has none. Its header's aux: the send's id,
 * its bytes, the receive's id (rid). */
typedef struct rr_done {
    uint64_t rid;
    int32_t status;
    int32_t pad;
} rr_done;

typedef struct rr_fifo {
    dmsg_rr_req *head, *tail;
} rr_fifo;

/* The receives posted and not yet matched, indexed by (source, tag), in
 * posting order (rr_posted.c). */
typedef struct rr_pnode rr_pnode;
typedef struct rr_pqueue rr_pqueue;
typedef struct rr_posted {
    rr_pqueue *tab;   /* one queue per (source, tag) with receives: open addressing */
    size_t cap, used;
    uint32_t *fen;    /* Fenwick tree over posting numbers: 1 where one is posted */
    uint64_t fcap, next;
    size_t n;         /* receives posted */
} rr_posted;

typedef struct rr_state {
    int started;
    chan ch;
    dmsg_ctr *data;    /* data[p]: data deposits from p */
    rr_fifo *sends;    /* per destination: sends waiting for a response or an ack, in the
                        * order started (a READY answers the first one of its tag) */
    rr_posted posted;  /* receives not yet matched, in posting order */
    rr_fifo *expect;   /* per source: matched receives waiting for data, in response order */
    rr_fifo *ahead;    /* per source: receives answered ahead (READY), in posting order */
    uint64_t *owed;    /* per PE: acknowledgements of completed sends still to come */
    /* Real time: acknowledgements this PE owes each PE, not yet sent (they
     * ride on the next control message to it, or go alone later: rr.c),
     * and the PEs owed some since the last flush, each once (acklisted). */
    uint32_t *ackdue;
    int *ackpes;
    uint8_t *acklisted;
    size_t nackpes;
    uint64_t active;   /* requests started and not retired (rr_live.c tells them from copies) */
    /* Real time: the one receive whose READY went counted (RR_T_READYC),
     * NULL if none, and the bytes of counted data the channel's bell has
     * counted so far (its data is counted there; rr.c, "Counted data"). */
    dmsg_rr_req *fast_r;
    uint64_t fast_bytes;
    /* Riding READYs (rr_slot; NULL slots: not on this transport, on no
     * PE): the slots of every sender in symmetric memory, the last ride
     * seen from each and sent to each (allocated with the other tables),
     * and whether fast_r's READY is held back. */
    rr_slot *slots;
    uint64_t *slot_seen, *slot_sent;
    int fast_held;
    size_t nctr;
    dmsg_rr_stats st;
} rr_state;

extern rr_state dmsg_rr_g;

#define RR_REQUIRE()                                                                               \
    do {                                                                                           \
        if (!dmsg_rr_g.started)                                                                    \
            return DMSG_FAIL(DMSG_ERR_STATE, "%s before dmsg_rr_init", __func__);                 \
    } while (0)

/* DMSG_ERR_HANDLE if r is a live request (a transfer may not start in it);
 * whether r is a live request (started at this address, not a copy, not
 * retired); marks a request just filled in as live at its address; marks it
 * retired. */
dmsg_status dmsg_rr_live_check(const dmsg_rr_req *r);
int dmsg_rr_live_has(const dmsg_rr_req *r);
void dmsg_rr_live_mark(dmsg_rr_req *r);
void dmsg_rr_live_remove(dmsg_rr_req *r);

void dmsg_rr_fifo_push(rr_fifo *f, dmsg_rr_req *r);
/* Removes r from f (anywhere in it); returns 1 if it was there. */
int dmsg_rr_fifo_remove(rr_fifo *f, dmsg_rr_req *r);

/* Adds a posted receive r (its pe and tag set) after all others
 * (DMSG_ERR_NOMEM: nothing changed); the first receive in posting order
 * that a request from src with tag fits, NULL if none, and in *pos its
 * 1-based position among the receives posted (if none: how many there
 * are), the comparisons a search of a list would make; takes r out. */
dmsg_status dmsg_rr_posted_add(rr_posted *p, dmsg_rr_req *r);
dmsg_rr_req *dmsg_rr_posted_first(const rr_posted *p, int src, int tag, uint64_t *pos);
void dmsg_rr_posted_remove(rr_posted *p, dmsg_rr_req *r);
void dmsg_rr_posted_free(rr_posted *p);

/* Sends a receive's response ahead (READY, or READYC when `counted`), as
 * dmsg_rr_answer_ahead decided: at posting without a bell, later (a READY
 * held back) with one (`bell`). */
dmsg_status dmsg_rr_send_ready(dmsg_rr_req *r, int counted, int bell);

/* Riding READYs (rr_ride.c). Collective at dmsg_rr_init: the slots where the
 * transport allows them (n->slots stays NULL elsewhere); at dmsg_rr_finalize
 * (collective) and when the job ends without it (forget: no collective). */
dmsg_status dmsg_rr_ride_open(rr_state *n);
dmsg_status dmsg_rr_ride_close(rr_state *g);
void dmsg_rr_ride_forget(rr_state *g);
/* Holds r's counted READY back (r becomes fast_r). */
void dmsg_rr_ready_hold(dmsg_rr_req *r);
/* Sends a held READY alone on the ring (nothing held: nothing to do). */
dmsg_status dmsg_rr_ready_release(void);
/* Deposits the held READY into pe's slot for this PE, if it is for pe and
 * nothing for pe is queued on the ring (it would overtake that): the
 * caller's counted data to pe follows at once. */
dmsg_status dmsg_rr_ride(int pe);
/* After counted data from src landed: a READY that rode on it joins the
 * landed messages (*in: it, else NULL). */
dmsg_status dmsg_rr_ride_landed(int src, chan_msg **in);
/* Before returning to the program (irecv, isend) and on entering the other
 * RRMSG calls: a held READY must leave before the program waits for
 * anything outside RRMSG (dmsg_before_wait), and inside RRMSG it never
 * leaves from a core wait (the channel may be mid-operation there). */
void dmsg_rr_ride_arm(void);
void dmsg_rr_ride_disarm(void);

/* Sends a request's REQ control message (the send is in sends[its PE]). */
dmsg_status dmsg_rr_send_request(dmsg_rr_req *r);

/* A receive being posted (state RR_S_POSTED, not yet in the posted index):
 * if it has a known source and tag, no posted receive could take a request
 * of that source and tag before it, and no such request has landed, sends
 * its response ahead (READY) and moves it to `ahead` (*answered = 1); else
 * leaves it to be posted (*answered = 0). Not on an ordered channel. */
dmsg_status dmsg_rr_answer_ahead(dmsg_rr_req *r, int *answered);
/* Sends the acknowledgements this PE owes (on a transport in real time they
 * wait for the start of the next progress pass or the end of the next send:
 * nobody waits for them, and a receiver that answers with a send deposits
 * its data first). */
dmsg_status dmsg_rr_flush_acks(void);
/* Serves the responses (RESP, READY) pe sent this PE, in arrival order,
 * with `walk` after a look at pe's ring: a send just started finds a READY
 * at once. */
dmsg_status dmsg_rr_serve_from(int pe, int walk);

/* The first posted receive a request matches; with `book`, the posted
 * receives compared are booked as matching work (a look that only decides
 * whether the request can be served books nothing). */
dmsg_rr_req *dmsg_rr_match_posted(int src, int tag, int book);
/* Acts on a control message; *consumed: 0 for a request no receive matches
 * yet (it stays in the channel's list). */
dmsg_status dmsg_rr_on_message(chan_msg *m, int *consumed);
/* The first accepted receive of src, whose data has landed: completes it
 * and sends the acknowledgement. */
dmsg_status dmsg_rr_complete_one(int src);
/* Serves every control message and all landed data found, in the order
 * found (real time: transports without virtual time; rr.c). */
/* Completes the receive whose READY went counted (fast_r) if its data's
 * count has landed, and owes its acknowledgement; a READY that rode on that
 * data joins the landed messages (*in: it, else NULL; in may be NULL). */
dmsg_status dmsg_rr_fast_landed(chan_msg **in);
dmsg_status dmsg_rr_progress_found(void);

/* One progress pass: answers requests, deposits data, acknowledges; on an
 * ordered channel only what arrived no later than the horizon, earliest
 * first (rr_order.c). */
dmsg_status dmsg_rr_progress(void);
/* After a progress pass that left the caller waiting: blocks until there
 * may be more to do (dmsg_chan_wait), or on an ordered channel serves what it
 * can and waits for the next arrival's turn (dmsg_order_wait). */
dmsg_status dmsg_rr_progress_wait(void);
/* A test's progress: one pass; on an ordered channel every arrival up to
 * the clock, or if there is none the next one (a polling loop costs no
 * virtual time, so without it time would never pass for it). */
dmsg_status dmsg_rr_progress_test(void);

/* Elements and byte extent [lo, hi) of a layout of elem-byte elements;
 * checks ndims, overflow and (when `written`) that no two elements overlap. */
dmsg_status dmsg_rr_layout_span(const dmsg_layout *l, size_t elem, int written, size_t *n,
                           ptrdiff_t *lo, ptrdiff_t *hi);

#endif
