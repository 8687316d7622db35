/* Error logging: silent unless DMSG_DEBUG is set, so a user error never
 * prints by default (the status code is the report); the detail of the
 * latest error is kept for dmsg_last_error either way. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "dmsg/base/status.h"

int dmsg_debug_level;

/* Per thread, as errors are detected on the calling thread; one line. */
static _Thread_local char last_error[512];
static _Thread_local unsigned long errors;

const char *dmsg_last_error(void)
{
    return last_error;
}

unsigned long dmsg_error_count(void)
{
    return errors;
}

/* Writes len bytes of line (which ends in a newline) at once; a short
 * write to a pipe of lines is retried for the rest rather than lost. */
static void write_line(const char *line, size_t len)
{
    while (len > 0) {
        ssize_t n = write(STDERR_FILENO, line, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        line += n;
        len -= (size_t)n;
    }
}

static void vlog_line(const char *fmt, va_list ap)
{
    char line[1024];
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    if (n < 0)
        return;
    size_t len = (size_t)n < sizeof line - 1 ? (size_t)n : sizeof line - 2;
    line[len++] = '\n';
    write_line(line, len);
}

void dmsg_log_line(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog_line(fmt, ap);
    va_end(ap);
}

void dmsg_log_error(const char *file, int line, dmsg_status st, const char *fmt, ...)
{
    /* Formatted aside first: the arguments may be the previous detail. */
    char text[sizeof last_error];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    memcpy(last_error, text, sizeof text);
    errors++;
    if (dmsg_debug_level)
        dmsg_log_line("dmsg[pid %d] %s:%d: %s: %s", (int)getpid(), file, line, dmsg_strerror(st),
                      last_error);
}
