/* PMI-1 wire protocol client (see pmi.h). Every request is one line; the
 * answer is read up to its newline with a bounded wait, so a process manager
 * that dies leaves an error instead of a hang. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dmsg/base/clock.h"
#include "dmsg/boot/launcher.h"
#include "dmsg/boot/pmi.h"

#define PMI_LINE 4096

struct dmsg_pmi {
    int fd;
    double timeout;
    size_t kvsname_max, keylen_max, vallen_max;
    char kvsname[256];
    char line[PMI_LINE];
};

static dmsg_status send_line(dmsg_pmi *p, const char *s)
{
    size_t len = strlen(s), done = 0;
    while (done < len) {
        ssize_t n = write(p->fd, s + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return DMSG_FAIL(DMSG_ERR_TRANSPORT, "PMI: write to the process manager: %s",
                             strerror(errno));
        done += (size_t)n;
    }
    return DMSG_OK;
}

/* Reads one answer line into p->line (byte by byte: the manager may send
 * the next line right after, and it must stay in the socket). */
static dmsg_status recv_line(dmsg_pmi *p)
{
    size_t n = 0;
    double deadline = dmsg_clock_now() + p->timeout;
    for (;;) {
        struct pollfd pf = {.fd = p->fd, .events = POLLIN};
        int ms = (int)((deadline - dmsg_clock_now()) * 1000);
        if (ms <= 0)
            return DMSG_FAIL(DMSG_ERR_TIMEOUT, "PMI: no answer from the process manager in %g s",
                             p->timeout);
        int r = poll(&pf, 1, ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            continue;
        char c;
        ssize_t k = read(p->fd, &c, 1);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return DMSG_FAIL(DMSG_ERR_ABORTED, "PMI: the process manager closed the connection");
        if (c == '\n') {
            p->line[n] = '\0';
            return DMSG_OK;
        }
        if (n + 1 >= sizeof p->line)
            return DMSG_FAIL(DMSG_ERR_TRANSPORT, "PMI: answer longer than %d bytes", PMI_LINE);
        p->line[n++] = c;
    }
}

/* Finds "key=" as a whole word in the last answer; copies its value. */
static int field(const dmsg_pmi *p, const char *key, char *out, size_t len)
{
    size_t kl = strlen(key);
    for (const char *s = p->line; *s;) {
        while (*s == ' ')
            s++;
        if (!strncmp(s, key, kl) && s[kl] == '=') {
            const char *v = s + kl + 1;
            size_t vl = strcspn(v, " ");
            if (vl >= len)
                return 0;
            memcpy(out, v, vl);
            out[vl] = '\0';
            return 1;
        }
        s += strcspn(s, " ");
    }
    return 0;
}

/* Sends a request and reads the answer, which must be cmd=expect and, where
 * the answer has an rc, rc=0. */
static dmsg_status call(dmsg_pmi *p, const char *req, const char *expect)
{
    char v[64];
    dmsg_status st = send_line(p, req);
    if (st || (st = recv_line(p)))
        return st;
    if (!field(p, "cmd", v, sizeof v) || strcmp(v, expect) != 0)
        return DMSG_FAIL(DMSG_ERR_TRANSPORT, "PMI: expected cmd=%s, got \"%s\"", expect, p->line);
    if (field(p, "rc", v, sizeof v) && strcmp(v, "0") != 0) {
        char msg[256] = "";
        field(p, "msg", msg, sizeof msg);
        return DMSG_FAIL(DMSG_ERR_TRANSPORT, "PMI: %s failed: rc=%s %s", expect, v, msg);
    }
    return DMSG_OK;
}

static size_t num_field(const dmsg_pmi *p, const char *key, size_t def)
{
    char v[32];
    return field(p, key, v, sizeof v) ? (size_t)strtoul(v, NULL, 10) : def;
}

dmsg_status dmsg_pmi_init(dmsg_pmi **out, int *rank, int *size, double timeout)
{
    const char *fds = dmsg_boot_env("PMI_FD"), *rs = dmsg_boot_env("PMI_RANK"),
               *ss = dmsg_boot_env("PMI_SIZE");
    if (!fds || !rs || !ss)
        return DMSG_FAIL(DMSG_ERR_TRANSPORT, "PMI: PMI_FD, PMI_RANK or PMI_SIZE is not set");
    char *e1, *e2, *e3;
    long fd = strtol(fds, &e1, 10), r = strtol(rs, &e2, 10), n = strtol(ss, &e3, 10);
    if (*e1 || *e2 || *e3 || fd < 0 || n < 1 || r < 0 || r >= n)
        return DMSG_FAIL(DMSG_ERR_TRANSPORT, "PMI: bad PMI_FD=%s PMI_RANK=%s PMI_SIZE=%s", fds,
                         rs, ss);
    dmsg_pmi *p = calloc(1, sizeof *p);
    if (!p)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "PMI state");
    p->fd = (int)fd;
    /* The connection is this process's: programs it starts must not inherit it. */
    fcntl(p->fd, F_SETFD, FD_CLOEXEC);
    p->timeout = timeout > 0 ? timeout : 60;
    dmsg_status st = call(p, "cmd=init pmi_version=1 pmi_subversion=1\n", "response_to_init");
    if (st)
        goto err;
    if ((st = call(p, "cmd=get_maxes\n", "maxes")))
        goto err;
    p->kvsname_max = num_field(p, "kvsname_max", 256);
    p->keylen_max = num_field(p, "keylen_max", 64);
    p->vallen_max = num_field(p, "vallen_max", 256);
    if ((st = call(p, "cmd=get_my_kvsname\n", "my_kvsname")))
        goto err;
    if (!field(p, "kvsname", p->kvsname, sizeof p->kvsname)) {
        st = DMSG_FAIL(DMSG_ERR_TRANSPORT, "PMI: no kvsname in \"%s\"", p->line);
        goto err;
    }
    *out = p;
    *rank = (int)r;
    *size = (int)n;
    return DMSG_OK;
err:
    free(p);
    return st;
}

size_t dmsg_pmi_keylen_max(const dmsg_pmi *p)
{
    return p->keylen_max;
}

size_t dmsg_pmi_vallen_max(const dmsg_pmi *p)
{
    return p->vallen_max;
}

dmsg_status dmsg_pmi_put(dmsg_pmi *p, const char *key, const char *val)
{
    char req[PMI_LINE];
    if (strlen(key) >= p->keylen_max || strlen(val) >= p->vallen_max)
        return DMSG_FAIL(DMSG_ERR_ARG, "PMI: key or value too long (%zu, %zu)", strlen(key),
                         strlen(val));
    int n = snprintf(req, sizeof req, "cmd=put kvsname=%s key=%s value=%s\n", p->kvsname, key,
                     val);
    if (n < 0 || (size_t)n >= sizeof req)
        return DMSG_FAIL(DMSG_ERR_ARG, "PMI: put request too long");
    return call(p, req, "put_result");
}

dmsg_status dmsg_pmi_commit(dmsg_pmi *p)
{
    return DMSG_OK;
}

dmsg_status dmsg_pmi_barrier(dmsg_pmi *p)
{
    return call(p, "cmd=barrier_in\n", "barrier_out");
}

dmsg_status dmsg_pmi_get(dmsg_pmi *p, const char *key, char *val, size_t len)
{
    char req[PMI_LINE];
    int n = snprintf(req, sizeof req, "cmd=get kvsname=%s key=%s\n", p->kvsname, key);
    if (n < 0 || (size_t)n >= sizeof req)
        return DMSG_FAIL(DMSG_ERR_ARG, "PMI: get request too long");
    dmsg_status st = call(p, req, "get_result");
    if (st)
        return st;
    if (!field(p, "value", val, len))
        return DMSG_FAIL(DMSG_ERR_TRANSPORT, "PMI: no value for key %s", key);
    return DMSG_OK;
}

void dmsg_pmi_finalize(dmsg_pmi *p)
{
    if (!p)
        return;
    if (send_line(p, "cmd=finalize\n") == DMSG_OK)
        recv_line(p); /* finalize_ack; nothing to do if it does not come */
    close(p->fd);
    free(p);
}
