/* RRMSG's READYs that ride on data (rr.h, rr_slot): a receive's counted
 * READY is held back at posting, and the PE's next contiguous send to that
 * PE answered by a count carries it. A ping-pong's hop is then one uncounted
 * slot write, the data and one count, where it was a ring message (a header
 * deposit and a count), the data and a count: the READY's ring message, and
 * its walk at the partner, leave the critical path.
 *
 * Only on transports in real time whose deposits land in the order issued
 * (DMSG_TP_CAP_ORDERED): the slot is written uncounted, and it is the data's
 * count, issued after it, that says it is there.
 *
 * A held READY must not keep a partner waiting: it leaves alone on the ring
 * at the PE's next progress pass (every wait and test), before any other
 * control message to its PE, before another READY (READYs leave in posting
 * order), and before the program waits for anything outside RRMSG (a barrier,
 * an await): dmsg_before_wait runs the release at the start of such a wait.
 * That hook is armed only while control is with the program: inside RRMSG
 * the core's waits happen in the middle of channel operations, and there a
 * held READY leaves by the rules above instead. */
#include <stdlib.h>
#include <string.h>
#include "dmsg/core/at_fini.h"
#include "dmsg/core/caps.h"
#include "dmsg/core/order.h"
#include "dmsg/postal/rr.h"

dmsg_status dmsg_rr_ride_open(rr_state *n)
{
    int np = dmsg_npes();
    /* The same verdict on every PE (one transport, one ordering): the
     * allocation below is collective. */
    if (dmsg_order_on() || !dmsg_tp_has(DMSG_TP_CAP_ORDERED))
        return DMSG_OK;
    void *slots;
    dmsg_status st = dmsg_alloc((size_t)np * sizeof(rr_slot), &slots);
    if (st)
        return st;
    /* Zero (no ride seen from anyone) before any partner may write it: a
     * partner writes its slot only when answering a READY of this PE. */
    memset(slots, 0, (size_t)np * sizeof(rr_slot));
    /* Riding is on for every PE or for none: the tables of rides seen and
     * sent (n->slot_seen, n->slot_sent) came with dmsg_rr_init's other
     * tables, whose failure on any PE the channel's first collective
     * reported to all. */
    n->slots = slots;
    return DMSG_OK;
}

static void ride_stop(rr_state *g)
{
    g->fast_held = 0;
    dmsg_before_wait(NULL);
}

dmsg_status dmsg_rr_ride_close(rr_state *g)
{
    ride_stop(g);
    dmsg_status st = g->slots ? dmsg_free(g->slots) : DMSG_OK;
    g->slots = NULL;
    return st;
}

void dmsg_rr_ride_forget(rr_state *g)
{
    ride_stop(g);
    g->slots = NULL; /* its memory went with the job */
}

static int can_ride(const rr_state *g)
{
    return g->slots != NULL;
}

void dmsg_rr_ready_hold(dmsg_rr_req *r)
{
    rr_state *g = &dmsg_rr_g;
    g->fast_r = r;
    g->fast_held = 1;
}

dmsg_status dmsg_rr_ready_release(void)
{
    rr_state *g = &dmsg_rr_g;
    if (!g->fast_held)
        return DMSG_OK;
    g->fast_held = 0; /* first: the send below must not release it again */
    dmsg_status st = dmsg_rr_send_ready(g->fast_r, 1, 1);
    if (st)
        g->fast_held = 1; /* still held: the next pass tries again, or reports */
    return st;
}

dmsg_status dmsg_rr_ride(int pe)
{
    rr_state *g = &dmsg_rr_g;
    dmsg_rr_req *r = g->fast_r;
    if (!g->fast_held || r->pe != pe || g->ch.tx[pe].qhead)
        return DMSG_OK;
    uint32_t acks = g->ackdue[pe] > RR_ACKS_MAX ? RR_ACKS_MAX : g->ackdue[pe];
    rr_slot sl = {.seq = g->slot_sent[pe] + 1,
                  .ring_seq = g->ch.tx[pe].seq,
                  .type = RR_T_READYC | acks << 8,
                  .tag = r->tag,
                  .aux = {(uint64_t)(uintptr_t)r, r->bytes,
                          (uint64_t)((char *)r->dst - g->ch.rings)}};
    dmsg_status st = dmsg_deposit(&g->slots[dmsg_pe()], &sl, sizeof sl, pe, DMSG_CTR_NONE);
    if (st)
        return st;
    g->slot_sent[pe] = sl.seq;
    g->ackdue[pe] -= acks;
    g->fast_held = 0;
    g->st.ready_rode++;
    g->st.control++; /* a control message of the protocol all the same */
    return DMSG_OK;
}

dmsg_status dmsg_rr_ride_landed(int src, chan_msg **in)
{
    rr_state *g = &dmsg_rr_g;
    *in = NULL;
    if (!can_ride(g))
        return DMSG_OK;
    /* Written before the data whose count this PE has just read (acquire),
     * and not again before this PE answers it: a copy is the READY. */
    rr_slot sl;
    memcpy(&sl, &g->slots[src], sizeof sl);
    if (sl.seq == g->slot_seen[src])
        return DMSG_OK;
    if (sl.seq != g->slot_seen[src] + 1 || RR_TYPE(sl.type) != RR_T_READYC)
        return DMSG_FAIL(DMSG_ERR_TRANSPORT, "READY %llu from PE %d after %llu",
                         (unsigned long long)sl.seq, src, (unsigned long long)g->slot_seen[src]);
    chan_hdr h = {.type = sl.type, .tag = sl.tag, .seq = sl.ring_seq};
    memcpy(h.aux, sl.aux, sizeof h.aux);
    dmsg_status st = dmsg_chan_inject(&g->ch, src, &h, in);
    if (!st)
        g->slot_seen[src] = sl.seq;
    return st;
}

/* Runs at the start of a core wait of the program's (armed only then). */
static void release_before_wait(void)
{
    dmsg_before_wait(NULL);
    /* An error leaves it held: the next RRMSG call's pass sends it or
     * reports why. */
    (void)dmsg_rr_ready_release();
}

void dmsg_rr_ride_arm(void)
{
    if (dmsg_rr_g.fast_held)
        dmsg_before_wait(release_before_wait);
}

void dmsg_rr_ride_disarm(void)
{
    dmsg_before_wait(NULL);
}
