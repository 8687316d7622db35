/* Error logging: silent unless DMSG_DEBUG is set, so a user error never
 * prints by default (the status code is the report). */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>
#include "dmsg/base/status.h"

int dmsg_debug_level;

void dmsg_log_error(const char *file, int line, dmsg_status st, const char *fmt, ...)
{
    if (!dmsg_debug_level)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "dmsg[pid %d] %s:%d: %s: %s\n", (int)getpid(), file, line, dmsg_strerror(st),
            msg);
}
