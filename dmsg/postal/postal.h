/* The postal layer's state, shared by its files (init, send side, receive side). */
#ifndef DMSG_POSTAL_POSTAL_H
#define DMSG_POSTAL_POSTAL_H

#include "dmsg_postal.h"
#include "dmsg/postal/chan.h"

enum { POSTAL_T_MSG = 1 };

typedef struct postal_state {
    int started;
    chan ch;
    char *sbuf;        /* symmetric: CHAN_HDR room, then the packed message */
    size_t sused;      /* packed bytes in sbuf */
    char *pbuf;        /* symmetric: the same for dmsg_postal_send_bytes */
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
dmsg_status postal_check_strided(const void *data, long n, long stride, size_t elem_size,
                                 size_t *bytes, size_t *span);

/* The 1-D layouts of n elements: packed (contiguous) and user side (strided). */
void postal_layouts(long n, long stride, size_t elem_size, dmsg_layout *packed,
                    dmsg_layout *user);

#endif
