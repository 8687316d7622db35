/* The postal layer's state, shared by its files (init, send side, receive side). */
#ifndef DMSG_POSTAL_POSTAL_H
#define DMSG_POSTAL_POSTAL_H

#include "dmsg_postal.h"
#include "dmsg/postal/chan.h"

/* Channel message types: a message (or fragment), the announcement of a
 * large message (RTS: no payload; aux[TOTAL] its length, aux[ANN_ID] the
 * sender's number for it), a receiver's grant of its window for a piece of
 * one (CTS: aux[BULK_ID], aux[BULK_OFF] the piece's offset, aux[BULK_LEN]
 * its length); the announcement of a large message the receiver fetches
 * itself from the sender's out-window (PULL: as RTS), and its report that
 * it has (DONE: aux[BULK_ID]). A STREAM announces (as PULL) a large message
 * that send_bytes is still copying into its out-window, and each PART
 * (aux[BULK_ID]; aux[BULK_OFF]: its first that many bytes are there)
 * tells the receiver how far it may fetch: the sender's copy and the
 * receiver's fetch overlap (postal_send.c, send_stream). */
enum {
    POSTAL_T_MSG = 1,
    POSTAL_T_RTS = 2,
    POSTAL_T_CTS = 3,
    POSTAL_T_PULL = 4,
    POSTAL_T_DONE = 5,
    POSTAL_T_STREAM = 6,
    POSTAL_T_PART = 7
};

/* Memory of a send buffer that pending large messages still read from
 * (postal_bulk), shared with the buffer until it is packed again. */
typedef struct postal_lend {
    int refs;  /* the send buffer (while it still points here) and each pending message */
    char *p;   /* CHAN_HDR bytes of header room, then the packed bytes */
    size_t cap;
    int fixed; /* a region of the out-window (postal_state.oreg): never freed; free when refs == 0 */
} postal_lend;

/* A send buffer: CHAN_HDR bytes of room, then the packed message. Private
 * memory that grows as it is packed (deposit sources may be any memory). */
typedef struct postal_buf {
    char *p;
    size_t used, cap;   /* packed bytes; bytes after the header room */
    postal_lend *lent;  /* p is read by pending large messages (NULL: not) */
} postal_buf;

/* A large message announced and not yet deposited whole (sender side). */
typedef struct postal_bulk {
    struct postal_bulk *next;
    int pe;
    uint64_t id;
    const char *data;   /* the packed bytes, in lent memory */
    size_t len;
    postal_lend *lend;
} postal_bulk;

/* Message fragments. A message longer than a channel message goes as
 * consecutive fragments (messages of one pair stay in order); the header's
 * aux[0] holds the message's whole length, aux[1] the fragment's offset.
 * The receiver copies fragments into one private buffer as they land, so
 * they never hold mailbox room (postal_recv.c). */
enum { POSTAL_AUX_TOTAL = 0, POSTAL_AUX_OFF = 1 };
enum { POSTAL_AUX_BULK_ID = 2, POSTAL_AUX_BULK_OFF = 0, POSTAL_AUX_BULK_LEN = 1 };
/* Messages, fragments and announcements (MSG, RTS, PULL) carry the
 * sender's context (dmsg_postal_send_ctx) and its word in aux[CTX], so that a match
 * function never needs the payload (an announcement has none yet); an
 * announcement's number for its large message is in aux[ANN_ID]. */
enum { POSTAL_AUX_CTX = 2, POSTAL_AUX_ANN_ID = 1 };
/* aux[ANN_ID] of an announcement: the large message's number in the low
 * half (CTS, DONE and PART name it so), and for a PULL or STREAM the
 * offset of its region in the sender's out-window in the high half (the
 * window is at most 4 GiB; DMSG_POSTAL_WINDOW). */
static inline uint64_t dmsg_postal_ann(uint64_t id, size_t off)
{
    return (uint64_t)(uint32_t)id | (uint64_t)off << 32;
}
static inline uint64_t dmsg_postal_ann_id(uint64_t ann)
{
    return (uint32_t)ann;
}
static inline size_t dmsg_postal_ann_off(uint64_t ann)
{
    return (size_t)(ann >> 32);
}
/* chan_msg.user: examined by the reassembly; complete and receivable. */
enum { POSTAL_SEEN = 1, POSTAL_READY = 2 };

enum { POSTAL_SPARES = 4 };
/* Regions of the out-window: large messages that may be pulled at once
 * (postal_send.c, buf_place). */
enum { POSTAL_OREGIONS = 8 };

typedef struct postal_state {
    int started;
    chan ch;
    postal_buf sbuf;   /* the send buffer (pack, send) */
    postal_buf pbuf;   /* dmsg_postal_send_bytes */
    chan_msg *active;  /* the active receive buffer, or NULL */
    size_t upos;       /* unpack position in it */
    /* The active buffer is a pulled large message whose bytes are still in
     * its sender's out-window, at lazy_at (recv, postal_recv.c): unpacks
     * fetch from there straight into the user's memory (one copy, not a
     * fetch into the window and an unpack); anything else that needs its
     * bytes fetches them into the window first (dmsg_postal_materialize).
     * Releasing it sends the DONE, lazy_id its number. */
    int lazy;
    size_t lazy_at;
    uint64_t lazy_id;
    dmsg_postal_stats st;
    /* Large messages (docs/baselines.md, "Large messages"): a message longer
     * than a fragment is announced (RTS) and the send buffer lent to it;
     * when a receive matches the announcement the receiver grants its
     * window (CTS) and the sender, in its next progress pass, deposits the
     * message there, counted on `bulk`. One grant at a time per receiver,
     * so the counter names it. win == NULL: off (fragments). */
    char *win;         /* symmetric: the landing window, winsize bytes */
    size_t winsize;
    dmsg_ctr bulk;
    postal_bulk *pending;  /* announced by this PE, not yet deposited whole or fetched */
    /* The out-window: symmetric memory of CHAN_HDR + winsize bytes that a
     * send buffer moves into once it outgrows a fragment, into a region
     * above the regions that earlier messages still use (when it fits; on a
     * simulated machine only when no region is in use, as before regions).
     * A large message sent from there is fetched by its receiver (PULL,
     * then DONE): no grant, and recv_bytes fetches straight into the user's
     * buffer. So the P - 1 messages of an all-to-all step are all pulled,
     * none waits for a grant and its sender's next postal call. A region
     * (fixed lend: p = owin + its offset, cap the bytes after its header
     * room) is free when its refs are 0. */
    char *owin;
    postal_lend oreg[POSTAL_OREGIONS];
    uint64_t bulk_ids;
    /* Memory of finished large messages, for the next send buffers (large
     * messages come in series: no fresh pages to fault in for each). */
    char *spare[POSTAL_SPARES];
    size_t spare_cap[POSTAL_SPARES];
} postal_state;

extern postal_state dmsg_postal_g;

/* The clock of a postal statistic of a call that never waits (pack, unpack,
 * a send, matching): read on a simulated machine only (dmsg_chan_clock).
 * Waits and tests (receives, probes, flush, barrier) read dmsg_wtime. */
static inline double dmsg_postal_clock(void)
{
    return dmsg_chan_clock(&dmsg_postal_g.ch);
}

#define POSTAL_REQUIRE()                                                                           \
    do {                                                                                           \
        if (!dmsg_postal_g.started)                                                                \
            return DMSG_FAIL(DMSG_ERR_STATE, "%s before dmsg_postal_init", __func__);             \
    } while (0)

/* Checks n, stride and elem_size of a pack or unpack; *bytes = n * elem_size,
 * *span = the bytes of user memory the elements cover. */
dmsg_status dmsg_postal_check_strided(const void *data, long n, long stride, size_t elem_size,
                                 size_t *bytes, size_t *span);

/* Copies n elements of elem_size bytes, every sstride bytes from src to
 * every dstride bytes at dst, and books the copy as modelled work (a local
 * copy of those patterns on a simulated machine). */
dmsg_status dmsg_postal_copy(void *dst, ptrdiff_t dstride, const void *src, ptrdiff_t sstride,
                        size_t n, size_t elem_size);

/* Finds landed messages and reassembles fragments (postal_recv.c). */
dmsg_status dmsg_postal_progress(void);

/* The channel's serve hook: deposits the pieces of this PE's large messages
 * that receivers granted, frees out-window memory that receivers report
 * fetched, notes how far streams have come (PART) (postal_send.c). */
dmsg_status dmsg_postal_serve(chan *c);

/* Fetches the large message m announces (RTS, PULL or STREAM; taken, unlinked, its
 * counts consumed), after which m is an ordinary message of its whole
 * length: a PULL with dst != NULL fetches only its bytes [skip, skip + n)
 * straight into dst and sets *into (m's data are then not there); else
 * the message lands in this PE's memory (the window, borrowed, or private
 * memory) and *into = 0. The active receive buffer moves out of the
 * window first if it is there. */
dmsg_status dmsg_postal_fetch(chan_msg *m, void *dst, size_t skip, size_t n, int *into);

/* The context a message, fragment or announcement carries. */
static inline int dmsg_postal_ctx(const chan_msg *m)
{
    return (int)(uint32_t)m->h.aux[POSTAL_AUX_CTX];
}

/* The word a message carries beside its context (dmsg_postal_send_ctx_word). */
static inline int dmsg_postal_word(const chan_msg *m)
{
    return (int)(uint32_t)(m->h.aux[POSTAL_AUX_CTX] >> 32);
}

/* aux[CTX] of a message: the context in the low half, the word in the high. */
static inline uint64_t dmsg_postal_cw(int ctx, int word)
{
    return (uint64_t)(uint32_t)ctx | (uint64_t)(uint32_t)word << 32;
}

/* Fetches the bytes of a lazy active buffer into the window (see lazy). */
dmsg_status dmsg_postal_materialize(void);

/* Releases the active receive buffer, if any (a lazy one's DONE goes to
 * its sender first). */
dmsg_status dmsg_postal_drop_active(void);

/* Frees every pending large message and lent memory (finalize). */
void dmsg_postal_bulk_free(void);

/* Whether m announces a large message (whose bytes are not here yet). */
static inline int dmsg_postal_announced(const chan_msg *m)
{
    return m->h.type == POSTAL_T_RTS || m->h.type == POSTAL_T_PULL ||
           m->h.type == POSTAL_T_STREAM;
}

/* The bytes of a landed message: its payload, or an announced large
 * message's whole length. */
static inline size_t dmsg_postal_len(const chan_msg *m)
{
    return (size_t)(dmsg_postal_announced(m) ? m->h.aux[POSTAL_AUX_TOTAL] : m->h.len);
}

#endif
