/* Parser for machine description files (format: machine.h, docs/ctm.md).
 * Strict on purpose: an unknown key, a bad number or a missing required key
 * is an error naming the file and line, because a silently ignored typo in a
 * cost model gives plausible but wrong simulated times. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmsg/model/machine.h"

typedef struct {
    const char *fname;
    int line;
    char *err;
    size_t len;
} parse_ctx;

static dmsg_status perr(parse_ctx *pc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static dmsg_status perr(parse_ctx *pc, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (pc->err && pc->len) {
        if (pc->line > 0)
            snprintf(pc->err, pc->len, "%s:%d: %s", pc->fname, pc->line, msg);
        else
            snprintf(pc->err, pc->len, "%s: %s", pc->fname, msg);
    }
    return DMSG_FAIL(DMSG_ERR_ARG, "%s:%d: %s", pc->fname, pc->line, msg);
}

/* ------------------------------------------------------------ values */

static int parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

static int parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* Splits a value into whitespace-separated words in place. */
static int split_words(char *s, char **w, int max)
{
    int n = 0;
    for (char *tok = strtok(s, " \t"); tok; tok = strtok(NULL, " \t")) {
        if (n == max)
            return -1;
        w[n++] = tok;
    }
    return n;
}

/* ---------------------------------------------------------- patterns */

/* One side of a pattern key: "w" or a stride >= 1. */
static int parse_side(const char *s, size_t n, long *pat)
{
    char buf[16];
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = 0;
    if (!strcmp(buf, "w")) {
        *pat = DMSG_PAT_INDEXED;
        return 0;
    }
    if (!isdigit((unsigned char)buf[0]))
        return -1;
    return parse_int(buf, 1, 1L << 30, pat);
}

static dmsg_status curve_add(parse_ctx *pc, dmsg_mach_curve *c, long pat, double v,
                             const char *key)
{
    if (pat == DMSG_PAT_INDEXED) {
        if (c->indexed > 0)
            return perr(pc, "duplicate key '%s'", key);
        c->indexed = v;
        return DMSG_OK;
    }
    int i = 0;
    while (i < c->n && c->stride[i] < pat)
        i++;
    if (i < c->n && c->stride[i] == pat)
        return perr(pc, "duplicate key '%s'", key);
    if (c->n == DMSG_MACH_MAX_PTS)
        return perr(pc, "too many strides for '%s' (at most %d)", key, DMSG_MACH_MAX_PTS);
    memmove(&c->stride[i + 1], &c->stride[i], (size_t)(c->n - i) * sizeof c->stride[0]);
    memmove(&c->mbs[i + 1], &c->mbs[i], (size_t)(c->n - i) * sizeof c->mbs[0]);
    c->stride[i] = pat;
    c->mbs[i] = v;
    c->n++;
    return DMSG_OK;
}

/* copy.XCY, send.XS0, send.XF0, recv.0DY, recv.0RY. Returns 1 if the key
 * has this form (and then *st is the outcome), 0 if it does not. */
static int pattern_key(parse_ctx *pc, dmsg_machine *m, const char *key, char *val,
                       dmsg_status *st)
{
    const char *body;
    dmsg_mach_curve *c1 = NULL, *c2 = NULL;
    long x, y;
    const char *op;
    if (!strncmp(key, "copy.", 5)) {
        body = key + 5;
        op = strchr(body, 'C');
        if (!op || parse_side(body, (size_t)(op - body), &x) ||
            parse_side(op + 1, strlen(op + 1), &y))
            return 0;
        if (x != 1 && y != 1) {
            *st = perr(pc, "key '%s': one end of a copy must be contiguous (1)", key);
            return 1;
        }
        if (x == 1 && y == 1) {
            c1 = &m->copy_gather;
            c2 = &m->copy_scatter;
        } else if (y == 1) {
            c1 = &m->copy_gather;
        } else {
            c1 = &m->copy_scatter;
            x = y;
        }
    } else if (!strncmp(key, "send.", 5)) {
        body = key + 5;
        size_t n = strlen(body);
        if (n < 3 || strcmp(body + n - 1, "0") || (body[n - 2] != 'S' && body[n - 2] != 'F') ||
            parse_side(body, n - 2, &x))
            return 0;
        c1 = body[n - 2] == 'S' ? &m->send : &m->fetch;
    } else if (!strncmp(key, "recv.0", 6)) {
        body = key + 6;
        if ((body[0] != 'D' && body[0] != 'R') || parse_side(body + 1, strlen(body + 1), &x))
            return 0;
        c1 = body[0] == 'D' ? &m->deposit : &m->recv;
    } else {
        return 0;
    }

    if (!strcmp(val, "none")) {
        /* Only a whole engine can be absent: its contiguous entry says so. */
        if (x != 1 || c1 == &m->send || c2) {
            *st = perr(pc, "key '%s' cannot be 'none'", key);
            return 1;
        }
        if (c1->none || c1->n) {
            *st = perr(pc, "duplicate key '%s'", key);
            return 1;
        }
        c1->none = 1;
        *st = DMSG_OK;
        return 1;
    }
    double v;
    if (parse_double(val, &v) || v <= 0) {
        *st = perr(pc, "bad number '%s' for key '%s' (MB/s > 0, or none)", val, key);
        return 1;
    }
    if (c1->none) {
        *st = perr(pc, "key '%s' given for an engine declared 'none'", key);
        return 1;
    }
    *st = curve_add(pc, c1, x, v, key);
    if (*st == DMSG_OK && c2)
        *st = curve_add(pc, c2, x, v, key);
    return 1;
}

/* -------------------------------------------------------- plain keys */

enum vkind { V_NAME, V_TEXT, V_POS, V_NONNEG, V_INT, V_LIST3, V_MECH, V_BARRIER };

typedef struct {
    const char *key;
    enum vkind kind;
    int required;
    size_t off; /* offset of the field in dmsg_machine */
} key_def;

#define F(field) offsetof(dmsg_machine, field)
static const key_def keys[] = {
    {"name", V_NAME, 1, F(name)},
    {"description", V_TEXT, 1, F(description)},
    {"clock_mhz", V_NONNEG, 1, F(clock_mhz)},
    {"nodes", V_INT, 1, F(nodes)},
    {"cores", V_INT, 0, F(cores)},
    {"net.Nd", V_LIST3, 1, F(net_nd)},
    {"net.Nadp", V_LIST3, 1, F(net_nadp)},
    {"congestion", V_POS, 1, F(congestion)},
    {"mechanisms", V_MECH, 1, F(mechanisms)},
    {"msg.overhead_us", V_NONNEG, 1, F(overhead_us)},
    {"msg.partner_us", V_NONNEG, 1, F(partner_us)},
    {"barrier.kind", V_BARRIER, 1, F(barrier_kind)},
    {"barrier.us", V_NONNEG, 1, F(barrier_us)},
    {"barrier.hop_us", V_NONNEG, 0, F(barrier_hop_us)},
    {"remote.read_us", V_POS, 1, F(read_us)},
    {"remote.write_us", V_POS, 0, F(write_us)},
    {"prefetch.window", V_INT, 0, F(pf_window)},
    {"prefetch.net_capacity", V_INT, 0, F(pf_net_capacity)},
    {"prefetch.issue_ns", V_NONNEG, 0, F(pf_issue_ns)},
    {"prefetch.access_ns", V_NONNEG, 0, F(pf_access_ns)},
    {"prefetch.net_issue_ns", V_NONNEG, 0, F(net_issue_ns)},
    {"prefetch.latency_ns", V_POS, 0, F(pf_latency_ns)},
    {"vector.L", V_INT, 0, F(vec_len)},
    {"vector.window", V_INT, 0, F(vec_window)},
    {"vector.tv_ns", V_NONNEG, 0, F(vec_tv_ns)},
    {"vector.tvL_ns", V_NONNEG, 0, F(vec_tvL_ns)},
    {"vector.tz_ns", V_NONNEG, 0, F(vec_tz_ns)},
    {"vector.tzL_ns", V_NONNEG, 0, F(vec_tzL_ns)},
    {"vector.ts_ns", V_NONNEG, 0, F(vec_ts_ns)},
    {"vector.latency_ns", V_POS, 0, F(vec_latency_ns)},
};
#undef F
#define NKEYS ((int)(sizeof keys / sizeof keys[0]))

static dmsg_status set_value(parse_ctx *pc, dmsg_machine *m, const key_def *k, char *val)
{
    char *field = (char *)m + k->off;
    char *w[8];
    double d;
    long l;
    int n;
    switch (k->kind) {
    case V_NAME:
        if (strlen(val) >= DMSG_MACH_NAME_MAX || strpbrk(val, " \t/"))
            return perr(pc, "bad name '%s' (one word, < %d characters)", val,
                        DMSG_MACH_NAME_MAX);
        strcpy(field, val);
        return DMSG_OK;
    case V_TEXT:
        snprintf(field, DMSG_MACH_DESC_MAX, "%s", val);
        return DMSG_OK;
    case V_POS:
    case V_NONNEG:
        if (parse_double(val, &d) || d < 0 || (k->kind == V_POS && d == 0))
            return perr(pc, "bad number '%s' for key '%s'", val, k->key);
        memcpy(field, &d, sizeof d);
        return DMSG_OK;
    case V_INT:
        if (parse_int(val, 0, 1L << 24, &l))
            return perr(pc, "bad number '%s' for key '%s' (an integer)", val, k->key);
        n = (int)l;
        memcpy(field, &n, sizeof n);
        return DMSG_OK;
    case V_LIST3: {
        char copy[128];
        snprintf(copy, sizeof copy, "%s", val);
        n = split_words(copy, w, 8);
        if (n != DMSG_MACH_NCONG)
            return perr(pc, "key '%s' needs %d numbers (congestion 1 2 4), got '%s'", k->key,
                        DMSG_MACH_NCONG, val);
        double tab[DMSG_MACH_NCONG];
        for (int i = 0; i < n; i++)
            if (parse_double(w[i], &tab[i]) || tab[i] <= 0)
                return perr(pc, "bad number '%s' for key '%s'", w[i], k->key);
        memcpy(field, tab, sizeof tab);
        return DMSG_OK;
    }
    case V_MECH: {
        unsigned mech = 0;
        n = split_words(val, w, 8);
        for (int i = 0; i < n; i++) {
            if (!strcmp(w[i], "packed"))
                mech |= DMSG_MECH_PACKED;
            else if (!strcmp(w[i], "chained"))
                mech |= DMSG_MECH_CHAINED;
            else
                return perr(pc, "unknown mechanism '%s' (packed, chained)", w[i]);
        }
        if (!mech)
            return perr(pc, "key 'mechanisms' needs packed and/or chained");
        memcpy(field, &mech, sizeof mech);
        return DMSG_OK;
    }
    case V_BARRIER:
        if (!strcmp(val, "hardware"))
            n = DMSG_BARRIER_HARDWARE;
        else if (!strcmp(val, "tree"))
            n = DMSG_BARRIER_TREE;
        else
            return perr(pc, "bad barrier.kind '%s' (hardware, tree)", val);
        memcpy(field, &n, sizeof n);
        return DMSG_OK;
    }
    return perr(pc, "internal: key kind");
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = 0;
    return s;
}

static dmsg_status parse_line(parse_ctx *pc, dmsg_machine *m, char *line, unsigned char *seen)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = 0;
    char *s = trim(line);
    if (!*s)
        return DMSG_OK;
    char *eq = strchr(s, '=');
    if (!eq)
        return perr(pc, "expected 'key = value', got '%s'", s);
    *eq = 0;
    char *key = trim(s);
    char *val = trim(eq + 1);
    if (!*key)
        return perr(pc, "missing key before '='");
    if (!*val)
        return perr(pc, "missing value for key '%s'", key);

    for (int i = 0; i < NKEYS; i++) {
        if (strcmp(keys[i].key, key))
            continue;
        if (seen[i])
            return perr(pc, "duplicate key '%s'", key);
        seen[i] = 1;
        return set_value(pc, m, &keys[i], val);
    }
    dmsg_status st;
    if (pattern_key(pc, m, key, val, &st))
        return st;
    return perr(pc, "unknown key '%s'", key);
}

/* Checks after the last line: required keys and consistency. */
static dmsg_status check_complete(parse_ctx *pc, const dmsg_machine *m, const unsigned char *seen)
{
    pc->line = 0;
    for (int i = 0; i < NKEYS; i++)
        if (keys[i].required && !seen[i])
            return perr(pc, "missing required key '%s'", keys[i].key);
    if (dmsg_mach_curve_at(&m->copy_gather, 1) <= 0)
        return perr(pc, "missing required key 'copy.1C1'");
    if (dmsg_mach_curve_at(&m->send, 1) <= 0)
        return perr(pc, "missing required key 'send.1S0'");
    if (!m->fetch.none && !m->fetch.n && !m->fetch.indexed)
        return perr(pc, "missing required key 'send.1F0' (MB/s, or none)");
    if (!m->deposit.none && !m->deposit.n && !m->deposit.indexed)
        return perr(pc, "missing required key 'recv.0D1' (MB/s, or none)");
    if (dmsg_mach_curve_at(&m->deposit, 1) <= 0 && dmsg_mach_curve_at(&m->recv, 1) <= 0)
        return perr(pc, "missing required key 'recv.0R1' (recv.0D1 is none)");
    if (m->barrier_kind == DMSG_BARRIER_TREE && !(m->barrier_hop_us > 0))
        return perr(pc, "missing required key 'barrier.hop_us' (barrier.kind = tree)");
    return DMSG_OK;
}

dmsg_status dmsg_machine_parse(const char *text, const char *fname, dmsg_machine *m, char *err,
                               size_t len)
{
    parse_ctx pc = {fname ? fname : "(machine)", 0, err, len};
    if (!text || !m)
        return perr(&pc, "no text or no machine");
    dmsg_machine tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.cores = 1;
    unsigned char seen[NKEYS] = {0};
    char line[512];
    const char *p = text;
    while (*p) {
        pc.line++;
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (n >= sizeof line)
            return perr(&pc, "line longer than %zu characters", sizeof line - 1);
        memcpy(line, p, n);
        line[n] = 0;
        dmsg_status st = parse_line(&pc, &tmp, line, seen);
        if (st != DMSG_OK)
            return st;
        p += n + (nl ? 1 : 0);
    }
    dmsg_status st = check_complete(&pc, &tmp, seen);
    if (st != DMSG_OK)
        return st;
    *m = tmp;
    return DMSG_OK;
}

/* Reads a whole (small) file; NULL if it cannot be opened or is too big. */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    if (buf)
        n = fread(buf, 1, cap, f);
    int bad = !buf || ferror(f) || !feof(f) || memchr(buf, 0, n);
    if (!bad && fgetc(f) != EOF)
        bad = 1;
    fclose(f);
    if (bad) {
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    return buf;
}

static int is_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    fclose(f);
    return 1;
}

static dmsg_status load_file(const char *path, dmsg_machine *m, char *err, size_t len)
{
    char *text = read_text(path);
    if (!text) {
        parse_ctx pc = {path, 0, err, len};
        return perr(&pc, "cannot read (missing, unreadable, over 64 KiB, or binary)");
    }
    dmsg_status st = dmsg_machine_parse(text, path, m, err, len);
    free(text);
    return st;
}

dmsg_status dmsg_machine_load(const char *name_or_path, dmsg_machine *m, char *err, size_t len)
{
    parse_ctx pc = {"machine", 0, err, len};
    if (!name_or_path || !*name_or_path || !m)
        return perr(&pc, "no machine name given");
    /* A path (anything with a '/' or that exists as a file) is read as is. */
    if (strchr(name_or_path, '/') || is_file(name_or_path))
        return load_file(name_or_path, m, err, len);

    const char *dir = getenv("DMSG_MACHINE_DIR");
    if (dir && *dir) {
        char path[4096];
        int n = snprintf(path, sizeof path, "%s/%s.machine", dir, name_or_path);
        if (n > 0 && (size_t)n < sizeof path && is_file(path))
            return load_file(path, m, err, len);
    }
    for (int i = 0; i < dmsg_machine_nbuiltins; i++) {
        if (strcmp(dmsg_machine_builtins[i].name, name_or_path))
            continue;
        char fname[64];
        snprintf(fname, sizeof fname, "%s.machine", dmsg_machine_builtins[i].name);
        return dmsg_machine_parse(dmsg_machine_builtins[i].text, fname, m, err, len);
    }
    char names[128] = "";
    for (int i = 0; i < dmsg_machine_nbuiltins; i++) {
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
                 dmsg_machine_builtins[i].name);
    }
    return perr(&pc,
                "unknown machine '%s': not a file, not in $DMSG_MACHINE_DIR, not a built-in (%s)",
                name_or_path, names);
}

/* ------------------------------------------------------------ lookups */

double dmsg_mach_curve_at(const dmsg_mach_curve *c, long pat)
{
    if (c->none)
        return 0;
    if (pat == DMSG_PAT_INDEXED)
        return c->indexed;
    if (pat < 1 || c->n == 0)
        return 0;
    /* Only contiguous data given: the engine moves contiguous blocks only. */
    if (pat > 1 && c->stride[c->n - 1] == 1)
        return 0;
    if (pat <= c->stride[0])
        return c->mbs[0];
    if (pat >= c->stride[c->n - 1])
        return c->mbs[c->n - 1];
    int i = 1;
    while (c->stride[i] < pat)
        i++;
    double a = log((double)c->stride[i - 1]), b = log((double)c->stride[i]);
    double t = (log((double)pat) - a) / (b - a);
    return c->mbs[i - 1] + t * (c->mbs[i] - c->mbs[i - 1]);
}

double dmsg_mach_net_at(const double tab[DMSG_MACH_NCONG], double c)
{
    if (!(c >= 1))
        return 0;
    if (c >= 4)
        return tab[2] * 4 / c;
    int i = c >= 2 ? 1 : 0;
    double lo = (double)(1 << i);
    double t = log2(c / lo);
    return exp(log(tab[i]) + t * (log(tab[i + 1]) - log(tab[i])));
}
