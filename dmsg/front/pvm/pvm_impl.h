/* The PVM front end's shared state (dmsg/front/pvm/): tasks (pvm_task.c),
 * message buffers and packing (pvm_buf.c), sending and receiving
 * (pvm_msg.c), groups (pvm_group.c), their collectives (pvm_gcoll.c). */
#ifndef DMSG_FRONT_PVM_IMPL_H
#define DMSG_FRONT_PVM_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include "pvm3.h"
#include "dmsg.h"
#include "dmsg_postal.h"

/* Every message carries the context it was sent in in its postal header
 * (dmsg_postal_send_ctx), not in its payload: receives match a large
 * message by its announcement, before any of its bytes have arrived. */

/* The context of the group collectives' own messages: never a user's
 * (pvm_newcontext hands out positive numbers, the base is 0). */
#define PVM_CTX_GROUP (-2)
/* pvm_kill's notice: it wakes a task waiting in a receive, which then ends
 * (pvm_task.c, pvm_kill). */
#define PVM_CTX_KILL (-3)
/* The mailbox's wake-up of a task waiting for an entry (pvm_mbox.c). */
#define PVM_CTX_MBOX (-4)

/* A piece of a send buffer: bytes in the buffer's own memory, or (in
 * place) n items of size bytes every stride items at user memory. */
typedef struct pvm_piece {
    const char *ref; /* NULL: data[off, off + len) */
    size_t off, len;
    size_t n, size, stride;
} pvm_piece;

typedef struct pvm_buf {
    int used;
    int encoding;
    int recvd;       /* a received message (else packed here) */
    int attached;    /* its bytes are postal's active receive buffer */
    char *data;      /* packed bytes, or a received message's payload */
    size_t len, cap; /* bytes in data (for a received one: the payload) */
    pvm_piece *pc;   /* in-place buffers: the pieces in order */
    size_t npc, pccap;
    size_t pos;      /* unpack position in the payload */
    int src, tag, ctx;
    /* pvm_getminfo / pvm_setminfo: the wait id travels with the message
     * (postal's word); srctid, when not 0, is what pvm_setminfo set (else
     * the sender's tid); dst is the receiver's tid, or for a send buffer its
     * last send's (0 before). A send buffer's tag and ctx are its last
     * send's. */
    int wid, srctid, dst;
} pvm_buf;

typedef struct pvm_state {
    int enrolled, left; /* enrolled: dmsg and postal are up; left: pvm_exit done */
    int me, npes, app, napps;
    int *app_first;     /* napps + 1: first PE of each program */
    int *sibs;
    int nsibs;
    pvm_buf *bufs;      /* by bufid; 0 unused */
    int nbufs;
    int sbuf, rbuf;
    int ctx, nextctx;
    int parent;         /* the tid that handed this task out, 0: none */
    int last_err;
    int route, autoerr, fragsize, outtid, outcode, showtids, resvtids, polltype, polltime;
    int (*recvf)(int, int, int);
    /* symmetric */
    int64_t *slot;      /* [0] parent tid (0: not handed out), [1] pid, [2] killed (pvm_kill
                           sets it), [3] its host (a hash of the node name: pvm_sendsig
                           signals only processes of this host), [4] gone (it left PVM:
                           pvm_notify); then the name */
    void *groups;       /* the group table (its home is PE 0) */
} pvm_state;

extern pvm_state dmsg_pvm_g;

#define PVM_SLOT_WORDS 5
#define PVM_SLOT_GONE 4
#define PVM_NAME_MAX 64

/* PVM's data signature of this host's raw format (x86-64 Linux, as real
 * PVM 3.4.6 reports it in pvm_getminfo's enc and pvm_config's hi_dsig). */
#define PVM_DSIG 0x408c41

/* Enrolls on first use; returns PvmOk or a PVM error (and records it). */
int dmsg_pvm_enroll(void);
/* Records a PVM error code as the last one and returns it (PvmOk too). */
int dmsg_pvm_err(int code);
/* A dmsg status as a PVM error code. */
int dmsg_pvm_from_status(int st);
/* PE of a tid, or -1. */
int dmsg_pvm_pe(int tid);
static inline int dmsg_pvm_tid(int pe) { return PVM_TID_BASE + pe; }
/* Bytes of one item of a PVM_* type (PVM_STR: 1), 0 for an unknown type. */
size_t dmsg_pvm_type_size(int type);

/* Buffers (pvm_buf.c). */
pvm_buf *dmsg_pvm_buf(int bufid);
int dmsg_pvm_newbuf(int encoding);
void dmsg_pvm_dropbuf(int bufid);
/* Copies an attached buffer's payload into its own memory (before postal's
 * active buffer changes hands). */
int dmsg_pvm_detach(pvm_buf *b);
/* Packs n items of size bytes every stride items from p into the active
 * send buffer, as pvm_pk* (in_place_ok 0: copied even in an in-place
 * buffer, for values that do not outlive the call); returns a PVM code. */
int dmsg_pvm_pack(const void *p, int n, int stride, size_t size, int in_place_ok);
/* Unpacks as pvm_upk* from the active receive buffer. */
int dmsg_pvm_unpack(void *p, int n, int stride, size_t size);
/* Where a send buffer's packing stands, to take back what one call packed
 * (pvm_packf on an error). */
typedef struct pvm_mark {
    size_t len, npc, last;
} pvm_mark;
void dmsg_pvm_mark_get(const pvm_buf *b, pvm_mark *m);
void dmsg_pvm_mark_undo(pvm_buf *b, const pvm_mark *m);
/* Sends buffer b's contents to pe with tag in context ctx. */
int dmsg_pvm_send_buf(pvm_buf *b, int pe, int tag, int ctx);
/* Sends bytes from p to pe in context ctx (psend, collectives). */
int dmsg_pvm_send_bytes(int pe, int tag, int ctx, const void *p, size_t bytes);
/* Receives the first message from pe (-1 any) with tag (-1 any) in ctx into
 * p (at most cap bytes, truncating): for the collectives and pvm_precv. */
int dmsg_pvm_recv_bytes(int pe, int tag, int ctx, void *p, size_t cap, size_t *got,
                        dmsg_postal_info *info);
/* A buffer's body, gathered into new memory (*body, free it), *len bytes. */
int dmsg_pvm_body(int bufid, void **body, size_t *len);
/* The mailbox (pvm_mbox.c): its table (collective, at enrollment), and the
 * entries this task's exit removes (pvm_exit). */
int dmsg_pvm_mbox_init(void);
void dmsg_pvm_mbox_exit(void);
/* Task-exit notices (pvm_notify.c): the symmetric watch words (collective,
 * at enrollment), and the notices this task's exit sends (pvm_exit). */
int dmsg_pvm_notify_init(void);
void dmsg_pvm_notify_exit(void);
/* Ends this task as pvm_kill does (exits the process). */
void dmsg_pvm_die(void);
/* Ends this task if a pvm_kill has reached it (its slot[2]); called at the
 * start of every PVM call and in every polling wait. */
void dmsg_pvm_check_kill(void);
/* Drives postal progress once (waits that are not postal waits call it). */
int dmsg_pvm_poll(void);
/* Sleeps a little in a polling wait (after the first spins). */
void dmsg_pvm_nap(unsigned *spins);

#endif
