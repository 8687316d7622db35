/* Modelled local work, for the layers above the core (postal, RRMSG, plans):
 * work they do outside deposits — packing into and unpacking out of buffers,
 * matching messages, managing buffers — that a simulated machine must see
 * to time them fairly next to direct deposits. Internal: not in dmsg.h. */
#ifndef DMSG_CORE_WORK_H
#define DMSG_CORE_WORK_H

#include "dmsg/transport/transport.h"

/* Books w (dmsg_work, dmsg/transport/transport.h) on this PE's clock. On
 * the sim transport the virtual clock advances by the machine's cost of
 * that work (a copy: the local copy throughput of its read and write
 * patterns, counted as copy time in dmsg_times; messages: the machine's
 * per-message software overhead each, counted as transfer time; buffers
 * and matches: the machine's msg.buffer_us and msg.match_us each, counted
 * as sync time, with the protocol's other waits); on transports that keep
 * real time it does nothing. Local: no
 * synchronization, no data moves. Book work where it happens relative to
 * the caller's deposits: work booked before a deposit delays that
 * deposit's arrival, work booked after it does not.
 * Errors: DMSG_ERR_NOT_INIT, DMSG_ERR_NULL (w), DMSG_ERR_ARG (an unknown
 * kind, or a copy with elem == 0). */
dmsg_status dmsg_work_book(const dmsg_work *w);

#endif
