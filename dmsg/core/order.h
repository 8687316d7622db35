/* Delivery in virtual-time order, for the layers above the core that serve
 * whatever messages they find (RRMSG's protocol engine). On a simulated
 * machine the PEs run in host time, so a message can be found before one
 * that arrived earlier in virtual time; these calls let such a layer serve
 * the arrivals in virtual-time order and wait, conservatively, until no
 * earlier one can still come (docs/simulator.md, "Ordered delivery").
 * Transports that keep real time have nothing to order: dmsg_order_on()
 * is 0 there and the layer serves what it finds. Internal: not in dmsg.h. */
#ifndef DMSG_CORE_ORDER_H
#define DMSG_CORE_ORDER_H

#include <stdint.h>
#include "dmsg.h"
#include "dmsg/base/status.h"

/* 1 if the transport delivers in virtual-time order (the sim), else 0 (also
 * before dmsg_init). */
int dmsg_order_on(void);

/* The virtual time an await of n messages (bytes_mode 1: n bytes; 2: n
 * zero-byte deposits, as dmsg_order_await_empty takes them) on ctr would
 * move this PE's clock to, without consuming anything. Call when the
 * counts are there (dmsg_ctr_read). Local.
 * Errors: DMSG_ERR_NOT_INIT, DMSG_ERR_NULL (t), DMSG_ERR_COUNTER (ctr not
 * live), DMSG_ERR_UNSUPPORTED (dmsg_order_on() is 0). */
dmsg_status dmsg_order_due(dmsg_ctr ctr, int bytes_mode, uint64_t n, double *t);

/* Consumes n messages of ctr that the caller knows to be zero-byte
 * deposits counted here (dmsg_await(ctr, n) otherwise): on a simulated
 * machine the clock takes the arrivals of zero-byte deposits, not those of
 * the earliest deposits of any size, which may belong to messages the
 * caller has not served yet. Blocks like dmsg_await.
 * Errors: those of dmsg_await, DMSG_ERR_UNSUPPORTED. */
dmsg_status dmsg_order_await_empty(dmsg_ctr ctr, uint64_t n);

/* *h: no deposit that is not yet counted at this PE can arrive before *h
 * (virtual seconds); an arrival at or before it may be acted on in order.
 * Local (reads the other PEs' published bounds).
 * Errors: DMSG_ERR_NOT_INIT, DMSG_ERR_NULL, DMSG_ERR_UNSUPPORTED. */
dmsg_status dmsg_order_horizon(double *h);

/* Blocks until the horizon reaches t, or until a deposit counted here
 * meanwhile arrives earlier than t and the horizon reaches its arrival;
 * the clock moves to the earlier of the two (the PE was idle until then).
 * t = INFINITY: until some deposit is counted here and its arrival is
 * safe. While it blocks, other PEs may count on this PE issuing nothing
 * before that time, so call it only where the caller's next action is
 * the arrival it waits for (a protocol engine with nothing to serve).
 * Errors: DMSG_ERR_NOT_INIT, DMSG_ERR_UNSUPPORTED, DMSG_ERR_TIMEOUT
 * (DMSG_TIMEOUT), DMSG_ERR_ABORTED. */
dmsg_status dmsg_order_wait(double t);

#endif
