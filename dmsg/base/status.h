/* Internal status type and error logging. Every internal call returns a
 * dmsg_status (the public DMSG_ codes); errors are logged where first
 * detected, and only printed when DMSG_DEBUG is set. */
#ifndef DMSG_BASE_STATUS_H
#define DMSG_BASE_STATUS_H

#include "dmsg.h"

typedef int dmsg_status;

/* Non-zero when DMSG_DEBUG asked for diagnostics (set by the env loader). */
extern int dmsg_debug_level;

void dmsg_log_error(const char *file, int line, dmsg_status st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Writes one line to stderr (fd 2) with a single write(2) call, so that the
 * lines of several PEs sharing a terminal or a pipe never interleave in the
 * middle (stdio may split a message, and a message built from several calls
 * is always split). fmt is the line without its newline; the line is cut to
 * 1023 bytes. */
void dmsg_log_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Logs (if debugging) and evaluates to st, for `return DMSG_FAIL(...)`.
 * The message becomes the thread's detail (dmsg_last_error): the one error
 * path is a status plus that detail, never a caller's buffer. A caller that
 * adds context to a callee's detail passes dmsg_last_error() as an argument
 * (the message is formatted before the detail is replaced). */
#define DMSG_FAIL(st, ...) (dmsg_log_error(__FILE__, __LINE__, (st), __VA_ARGS__), (st))

/* How many errors this thread has recorded so far: a caller that must know
 * whether a call it made left a detail of its own (rather than an older
 * one) compares the counts before and after. */
unsigned long dmsg_error_count(void);

#endif
