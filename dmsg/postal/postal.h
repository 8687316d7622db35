/* The postal layer's state, shared by its files (init, send side, receive side). */
#ifndef DMSG_POSTAL_POSTAL_H
#define DMSG_POSTAL_POSTAL_H

#include "dmsg_postal.h"
#include "dmsg/postal/chan.h"

enum { POSTAL_T_MSG = 1 };

/* A send buffer: CHAN_HDR bytes of room, then the packed message. Private
 * memory that grows as it is packed (deposit sources may be any memory). */
typedef struct postal_buf {
    char *p;
    size_t used, cap; /* packed bytes; bytes after the header room */
} postal_buf;

/* Message fragments. A message longer than a channel message goes as
 * consecutive fragments (messages of one pair stay in order); the header's
 * aux[0] holds the message's whole length, aux[1] the fragment's offset.
 * The receiver copies fragments into one private buffer as they land, so
 * they never hold mailbox room (postal_recv.c). */
enum { POSTAL_AUX_TOTAL = 0, POSTAL_AUX_OFF = 1 };
/* chan_msg.user: examined by the reassembly; complete and receivable. */
enum { POSTAL_SEEN = 1, POSTAL_READY = 2 };

typedef struct postal_state {
    int started;
    chan ch;
    postal_buf sbuf;   /* the send buffer (pack, send) */
    postal_buf pbuf;   /* dmsg_postal_send_bytes */
    chan_msg *active;  /* the active receive buffer, or NULL */
    size_t upos;       /* unpack position in it */
    dmsg_postal_stats st;
} postal_state;

extern postal_state dmsg_postal_g;

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

#endif
