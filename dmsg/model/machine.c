/* Parser for machine description files (format: machine.h, docs/ctm.md).
 * Strict on purpose: an unknown key, a bad number or a missing required key
 * is an error naming the file and line, because a silently ignored typo in a
 * cost model gives plausible but wrong simulated times. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dmsg/base/env.h"
#include "dmsg/model/machine.h"

typedef struct {
    const char *fname;
    int line;
} parse_ctx;

static dmsg_status perr(parse_ctx *pc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static dmsg_status perr(parse_ctx *pc, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char full[512];
    if (pc->line > 0)
        snprintf(full, sizeof full, "%s:%d: %s", pc->fname, pc->line, msg);
    else
        snprintf(full, sizeof full, "%s: %s", pc->fname, msg);
    return DMSG_FAIL(DMSG_ERR_ARG, "%s", full); /* the detail (dmsg_last_error) */
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

/* Splits a value into whitespace-separated words in place. strtok_r, not strtok:
 * machine descriptions are parsed from several threads at once (a plan's model and
 * a program's own dmsg_machine_load), and strtok keeps its position in a global. */
static int split_words(char *s, char **w, int max)
{
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(s, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
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
    if (v > DMSG_MACH_MAX_MBS) {
        *st = perr(pc, "%s = %s is out of range (above 0 to %.10g MB/s)", key, val,
                   DMSG_MACH_MAX_MBS);
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

enum vkind { V_NAME, V_TEXT, V_NUM, V_INT, V_LIST3, V_MECH, V_BARRIER, V_CHAIN, V_TOPO };

/* Numbers must lie in [lo, hi] (V_NUM with pos: in (lo, hi]). The upper
 * bounds are far beyond any real machine; they catch typos such as an
 * overhead of 1e29 us that would otherwise make every step take forever. */
typedef struct {
    const char *key;
    enum vkind kind;
    int required;
    size_t off; /* offset of the field in dmsg_machine */
    double lo, hi;
    int pos;          /* V_NUM: zero is not allowed */
    const char *unit; /* for messages */
} key_def;

#define F(field) offsetof(dmsg_machine, field)
#define US 0, 1e6, 0, "us"
#define US_POS 0, 1e6, 1, "us"
#define NS 0, 1e9, 0, "ns"
#define NS_POS 0, 1e9, 1, "ns"
#define MBS 0, DMSG_MACH_MAX_MBS, 1, "MB/s"
static const key_def keys[] = {
    {"name", V_NAME, 1, F(name), 0, 0, 0, ""},
    {"description", V_TEXT, 1, F(description), 0, 0, 0, ""},
    {"clock_mhz", V_NUM, 1, F(clock_mhz), 0, 1e5, 0, "MHz"},
    {"nodes", V_INT, 1, F(nodes), 1, 1 << 24, 0, "nodes"},
    {"cores", V_INT, 0, F(cores), 1, 4096, 0, "cores"},
    {"cache.line_bytes", V_INT, 0, F(line_bytes), 8, 4096, 0, "bytes"},
    {"net.Nd", V_LIST3, 1, F(net_nd), MBS},
    {"net.Nadp", V_LIST3, 1, F(net_nadp), MBS},
    {"congestion", V_NUM, 1, F(congestion), 1, DMSG_MACH_MAX_CONGESTION, 0, ""},
    {"mechanisms", V_MECH, 1, F(mechanisms), 0, 0, 0, ""},
    {"chained.form", V_CHAIN, 0, F(chain_form), 0, 0, 0, ""},
    {"msg.overhead_us", V_NUM, 1, F(overhead_us), US},
    {"msg.partner_us", V_NUM, 1, F(partner_us), US},
    {"msg.buffer_us", V_NUM, 0, F(buffer_us), US},
    {"msg.match_us", V_NUM, 0, F(match_us), US},
    {"barrier.kind", V_BARRIER, 1, F(barrier_kind), 0, 0, 0, ""},
    {"barrier.us", V_NUM, 1, F(barrier_us), US},
    {"barrier.hop_us", V_NUM, 0, F(barrier_hop_us), US},
    {"remote.read_us", V_NUM, 1, F(read_us), US_POS},
    {"remote.write_us", V_NUM, 0, F(write_us), US_POS},
    {"remote.amo_us", V_NUM, 0, F(amo_us), US_POS},
    {"prefetch.window", V_INT, 0, F(pf_window), 1, 1 << 20, 0, "requests"},
    {"prefetch.net_capacity", V_INT, 0, F(pf_net_capacity), 1, 1 << 20, 0, "requests"},
    {"prefetch.issue_ns", V_NUM, 0, F(pf_issue_ns), NS_POS},
    {"prefetch.access_ns", V_NUM, 0, F(pf_access_ns), NS},
    {"prefetch.net_issue_ns", V_NUM, 0, F(net_issue_ns), NS},
    {"prefetch.latency_ns", V_NUM, 0, F(pf_latency_ns), NS_POS},
    {"vector.L", V_INT, 0, F(vec_len), 2, 4096, 0, "elements"},
    {"vector.window", V_INT, 0, F(vec_window), 3, 1 << 20, 0, "elements"},
    {"vector.tv_ns", V_NUM, 0, F(vec_tv_ns), NS_POS},
    {"vector.tvL_ns", V_NUM, 0, F(vec_tvL_ns), NS_POS},
    {"vector.tz_ns", V_NUM, 0, F(vec_tz_ns), NS},
    {"vector.tzL_ns", V_NUM, 0, F(vec_tzL_ns), NS_POS},
    {"vector.ts_ns", V_NUM, 0, F(vec_ts_ns), NS},
    {"vector.latency_ns", V_NUM, 0, F(vec_latency_ns), NS_POS},
    {"vector.gather.tv_ns", V_NUM, 0, F(gather_tv_ns), NS_POS},
    {"vector.gather.tzL_ns", V_NUM, 0, F(gather_tzL_ns), NS_POS},
    {"topo.kind", V_TOPO, 0, F(topo_kind), 0, 0, 0, ""},
    {"topo.dims", V_INT, 0, F(topo_dims), 1, 3, 0, "dimensions"},
    {"topo.pes_per_node", V_INT, 0, F(topo_ppn), 1, 64, 0, "PEs"},
};
#undef F
#undef US
#undef US_POS
#undef NS
#undef NS_POS
#undef MBS
#define NKEYS ((int)(sizeof keys / sizeof keys[0]))

static int key_index(const char *key)
{
    for (int i = 0; i < NKEYS; i++)
        if (!strcmp(keys[i].key, key))
            return i;
    return -1;
}

static dmsg_status bad_range(parse_ctx *pc, const key_def *k, const char *val)
{
    return perr(pc, "%s = %s is out of range (%s%.10g to %.10g%s%s)", k->key, val,
                k->pos ? "above " : "", k->lo, k->hi, *k->unit ? " " : "", k->unit);
}

/* The keys whose value is one of two words, each naming an int. */
typedef struct word_value {
    const char *word;
    int value;
} word_value;
static const word_value barrier_words[] = {{"hardware", DMSG_BARRIER_HARDWARE},
                                           {"tree", DMSG_BARRIER_TREE}};
static const word_value chain_words[] = {{"adp", DMSG_CHAIN_ADP},
                                         {"processor", DMSG_CHAIN_PROCESSOR}};
static const word_value topo_words[] = {{"torus", DMSG_TOPO_TORUS}, {"mesh", DMSG_TOPO_MESH}};

static dmsg_status pick_word(parse_ctx *pc, const char *key, const char *val,
                             const word_value w[2], char *field)
{
    for (int i = 0; i < 2; i++)
        if (!strcmp(val, w[i].word)) {
            memcpy(field, &w[i].value, sizeof w[i].value);
            return DMSG_OK;
        }
    return perr(pc, "bad %s '%s' (%s, %s)", key, val, w[0].word, w[1].word);
}

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
    case V_NUM:
        if (parse_double(val, &d))
            return perr(pc, "bad number '%s' for key '%s'", val, k->key);
        if (d < k->lo || d > k->hi || (k->pos && d == k->lo))
            return bad_range(pc, k, val);
        memcpy(field, &d, sizeof d);
        return DMSG_OK;
    case V_INT:
        if (parse_int(val, LONG_MIN, LONG_MAX, &l))
            return perr(pc, "bad number '%s' for key '%s' (an integer)", val, k->key);
        if (l < (long)k->lo || l > (long)k->hi)
            return bad_range(pc, k, val);
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
        for (int i = 0; i < n; i++) {
            if (parse_double(w[i], &tab[i]))
                return perr(pc, "bad number '%s' for key '%s'", w[i], k->key);
            if (!(tab[i] > k->lo && tab[i] <= k->hi))
                return bad_range(pc, k, w[i]);
        }
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
        return pick_word(pc, "barrier.kind", val, barrier_words, field);
    case V_CHAIN:
        return pick_word(pc, "chained.form", val, chain_words, field);
    case V_TOPO:
        return pick_word(pc, "topo.kind", val, topo_words, field);
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

/* at[i] records the line of keys[i] (0: not given), so that checks across
 * keys can name the line to fix. */
static dmsg_status parse_line(parse_ctx *pc, dmsg_machine *m, char *line, int *at)
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

    int i = key_index(key);
    if (i >= 0) {
        if (at[i])
            return perr(pc, "duplicate key '%s'", key);
        at[i] = pc->line;
        return set_value(pc, m, &keys[i], val);
    }
    dmsg_status st;
    if (pattern_key(pc, m, key, val, &st))
        return st;
    return perr(pc, "unknown key '%s'", key);
}

/* Line of a key, or 0 when it was not given. */
static int line_of(const int *at, const char *key)
{
    int i = key_index(key);
    return i >= 0 ? at[i] : 0;
}

/* An error about a key found after the last line: names the key's line. */
static dmsg_status kerr(parse_ctx *pc, const int *at, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static dmsg_status kerr(parse_ctx *pc, const int *at, const char *key, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pc->line = line_of(at, key);
    return perr(pc, "%s", msg);
}

/* The network tables: throughput cannot grow with congestion (the model
 * interpolates between the three points and extrapolates beyond 4), and
 * address-data pairs carry an address with every word, so they never beat
 * data alone. */
static dmsg_status check_network(parse_ctx *pc, const dmsg_machine *m, const int *at)
{
    static const char *const names[2] = {"net.Nd", "net.Nadp"};
    const double *tab[2] = {m->net_nd, m->net_nadp};
    for (int t = 0; t < 2; t++)
        for (int i = 1; i < DMSG_MACH_NCONG; i++)
            if (tab[t][i] > tab[t][i - 1])
                return kerr(pc, at, names[t],
                            "key '%s': %g MB/s at congestion %d exceeds %g at congestion %d "
                            "(throughput cannot grow with congestion)",
                            names[t], tab[t][i], 1 << i, tab[t][i - 1], 1 << (i - 1));
    for (int i = 0; i < DMSG_MACH_NCONG; i++)
        if (m->net_nadp[i] > m->net_nd[i])
            return kerr(pc, at, "net.Nadp",
                        "key 'net.Nadp': %g MB/s at congestion %d exceeds net.Nd (%g): "
                        "address-data pairs carry an address with every word",
                        m->net_nadp[i], 1 << i, m->net_nd[i]);
    return DMSG_OK;
}

/* Latency hiding by prefetch, the class model of REFERENCE.md 9: needs a
 * window, an issue time and a latency; assumes that accesses keep up with
 * the network (dt_c >= dt_n) and that the window covers the latency (no
 * prefetch waits for a free slot), so a machine outside those bounds is an
 * error rather than a silently wrong time. */
static dmsg_status check_prefetch(parse_ctx *pc, const dmsg_machine *m, const int *at)
{
    static const char *const group[] = {"prefetch.window", "prefetch.net_capacity",
                                        "prefetch.issue_ns", "prefetch.access_ns",
                                        "prefetch.net_issue_ns", "prefetch.latency_ns"};
    int any = 0;
    for (size_t i = 0; i < sizeof group / sizeof group[0]; i++)
        any |= line_of(at, group[i]) != 0;
    if (!any)
        return DMSG_OK;
    static const char *const need[] = {"prefetch.window", "prefetch.issue_ns",
                                       "prefetch.latency_ns"};
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        if (!line_of(at, need[i]))
            return perr(pc, "missing required key '%s' (the prefetch keys go together)", need[i]);
    if (m->pf_access_ns < m->net_issue_ns)
        return kerr(pc, at, line_of(at, "prefetch.access_ns") ? "prefetch.access_ns"
                                                                 : "prefetch.net_issue_ns",
                    "prefetch.access_ns (%g) is below prefetch.net_issue_ns (%g): the class "
                    "model needs accesses at least as slow as network issues",
                    m->pf_access_ns, m->net_issue_ns);
    int w = m->pf_window;
    if (m->pf_net_capacity > 0 && m->pf_net_capacity < w)
        w = m->pf_net_capacity;
    if (w * m->pf_issue_ns < m->pf_latency_ns)
        return kerr(pc, at, "prefetch.window",
                    "a window of %d prefetches issued every %g ns (prefetch.window, "
                    "prefetch.net_capacity, prefetch.issue_ns) does not cover "
                    "prefetch.latency_ns = %g",
                    w, m->pf_issue_ns, m->pf_latency_ns);
    return DMSG_OK;
}

/* Vector commands (VSCAP, REFERENCE.md 3): the (L,L) and (1,L) formulas
 * need L, the window C_V > L, the issue and access times, a latency; case 3
 * subtracts t_s per vector, which must stay below the time of a vector. */
static dmsg_status check_vector(parse_ctx *pc, const dmsg_machine *m, const int *at)
{
    static const char *const group[] = {"vector.L",      "vector.window", "vector.tv_ns",
                                        "vector.tvL_ns", "vector.tz_ns",  "vector.tzL_ns",
                                        "vector.ts_ns",  "vector.latency_ns",
                                        "vector.gather.tv_ns", "vector.gather.tzL_ns"};
    int any = 0;
    for (size_t i = 0; i < sizeof group / sizeof group[0]; i++)
        any |= line_of(at, group[i]) != 0;
    if (!any)
        return DMSG_OK;
    static const char *const need[] = {"vector.L", "vector.window", "vector.tv_ns",
                                       "vector.tvL_ns", "vector.tzL_ns"};
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        if (!line_of(at, need[i]))
            return perr(pc, "missing required key '%s' (the vector keys go together)", need[i]);
    if (!(m->vec_latency_ns > 0) && !(m->pf_latency_ns > 0))
        return perr(pc, "missing required key 'vector.latency_ns' (or prefetch.latency_ns)");
    if (m->vec_window <= m->vec_len)
        return kerr(pc, at, "vector.window",
                    "vector.window (%d) must exceed vector.L (%d): the window holds whole vectors",
                    m->vec_window, m->vec_len);
    if (m->vec_ts_ns >= m->vec_tvL_ns + m->vec_tzL_ns)
        return kerr(pc, at, "vector.ts_ns",
                    "vector.ts_ns (%g) must be below vector.tvL_ns + vector.tzL_ns (%g): "
                    "case 3 saves t_s out of each vector's time",
                    m->vec_ts_ns, m->vec_tvL_ns + m->vec_tzL_ns);
    return DMSG_OK;
}

/* Checks after the last line: required keys and consistency. */
static dmsg_status check_complete(parse_ctx *pc, dmsg_machine *m, const int *at)
{
    pc->line = 0;
    for (int i = 0; i < NKEYS; i++)
        if (keys[i].required && !at[i])
            return perr(pc, "missing required key '%s'", keys[i].key);
    if (m->line_bytes % 8)
        return kerr(pc, at, "cache.line_bytes", "cache.line_bytes = %d is not a multiple of 8",
                    m->line_bytes);
    dmsg_mach_curve *curves[] = {&m->copy_gather, &m->copy_scatter, &m->send,
                                 &m->fetch,       &m->deposit,      &m->recv};
    for (size_t i = 0; i < sizeof curves / sizeof curves[0]; i++)
        curves[i]->line = m->line_bytes / 8;
    pc->line = 0;
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
    if (m->chain_form == DMSG_CHAIN_PROCESSOR && dmsg_mach_curve_at(&m->recv, 1) <= 0)
        return kerr(pc, at, "chained.form",
                    "chained.form = processor needs the processor's receive 'recv.0R1'");
    if (m->barrier_kind == DMSG_BARRIER_TREE && !(m->barrier_hop_us > 0))
        return perr(pc, "missing required key 'barrier.hop_us' (barrier.kind = tree)");
    dmsg_status st;
    if ((st = check_network(pc, m, at)) || (st = check_prefetch(pc, m, at)) ||
        (st = check_vector(pc, m, at)))
        return st;
    return DMSG_OK;
}

dmsg_status dmsg_machine_parse(const char *text, const char *fname, dmsg_machine *m)
{
    parse_ctx pc = {fname ? fname : "(machine)", 0};
    if (!text || !m)
        return perr(&pc, "no text or no machine");
    dmsg_machine tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.cores = 1;
    int at[NKEYS] = {0};
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
        dmsg_status st = parse_line(&pc, &tmp, line, at);
        if (st != DMSG_OK)
            return st;
        p += n + (nl ? 1 : 0);
    }
    dmsg_status st = check_complete(&pc, &tmp, at);
    if (st != DMSG_OK)
        return st;
    *m = tmp;
    return DMSG_OK;
}

/* Opens a regular file only: opening a FIFO (or a terminal) would wait for
 * a writer, and dmsg_init would hang without a word. */
static FILE *open_regular(const char *path)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    FILE *f = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? fdopen(fd, "r") : NULL;
    if (!f)
        close(fd);
    return f;
}

/* Reads a whole (small) file; NULL if it cannot be opened or is too big. */
static char *read_text(const char *path)
{
    FILE *f = open_regular(path);
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
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static dmsg_status load_file(const char *path, dmsg_machine *m)
{
    char *text = read_text(path);
    if (!text) {
        parse_ctx pc = {path, 0};
        return perr(&pc, "cannot read (missing, unreadable, not a regular file, over 64 KiB, or binary)");
    }
    dmsg_status st = dmsg_machine_parse(text, path, m);
    free(text);
    return st;
}

/* The model's setting: where descriptions are found by name. A value too
 * long for a path names no directory, as a path that finds no file. */
typedef struct machine_settings {
    char dir[1000]; /* DMSG_MACHINE_DIR */
} machine_settings;

static const dmsg_env_entry machine_rows[] = {
    {"DMSG_MACHINE_DIR", DMSG_ENV_PATH, "",
     "model: directory searched first for NAME.machine when a machine is named (DMSG_MACHINE, "
     "DMSG_PLAN_MACHINE, dmsg-ctm --machine)",
     DMSG_ENV_FIELD(machine_settings, dir)},
};

static const dmsg_env_table machine_table = {machine_rows, 1, sizeof(machine_settings)};

const dmsg_env_owner dmsg_machine_owner = {"model", "wherever a machine is loaded by name",
                                           &machine_table, NULL};

dmsg_status dmsg_machine_load(const char *name_or_path, dmsg_machine *m)
{
    parse_ctx pc = {"machine", 0};
    if (!name_or_path || !*name_or_path || !m)
        return perr(&pc, "no machine name given");
    /* A path (anything with a '/' or that exists as a file) is read as is. */
    if (strchr(name_or_path, '/') || is_file(name_or_path)) return load_file(name_or_path, m);

    machine_settings set;
    const char *dir = dmsg_env_load(&machine_table, &set) ? "" : set.dir;
    if (*dir) {
        char path[4096];
        int n = snprintf(path, sizeof path, "%s/%s.machine", dir, name_or_path);
        if (n > 0 && (size_t)n < sizeof path && is_file(path)) return load_file(path, m);
    }
    for (int i = 0; i < dmsg_machine_nbuiltins; i++) {
        if (strcmp(dmsg_machine_builtins[i].name, name_or_path))
            continue;
        char fname[64];
        snprintf(fname, sizeof fname, "%s.machine", dmsg_machine_builtins[i].name);
        return dmsg_machine_parse(dmsg_machine_builtins[i].text, fname, m);
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

/* Linear in log(stride) between given points; clamped at both ends. */
static double interp(const long *stride, const double *mbs, int n, long pat)
{
    if (pat <= stride[0])
        return mbs[0];
    if (pat >= stride[n - 1])
        return mbs[n - 1];
    int i = 1;
    while (stride[i] < pat)
        i++;
    double a = log((double)stride[i - 1]), b = log((double)stride[i]);
    double t = (log((double)pat) - a) / (b - a);
    return mbs[i - 1] + t * (mbs[i] - mbs[i - 1]);
}

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
    /* Cache lines: from a stride of one line on, every element costs a line,
     * so the first given stride at or beyond the line stands for all strides
     * from the line up to it (a virtual point at the line). */
    int k = 0;
    while (k < c->n && c->stride[k] < c->line)
        k++;
    if (c->line < 2 || k == c->n || c->stride[k] == c->line)
        return interp(c->stride, c->mbs, c->n, pat);
    long st[DMSG_MACH_MAX_PTS + 1];
    double v[DMSG_MACH_MAX_PTS + 1];
    memcpy(st, c->stride, (size_t)k * sizeof st[0]);
    memcpy(v, c->mbs, (size_t)k * sizeof v[0]);
    st[k] = c->line;
    v[k] = c->mbs[k];
    memcpy(st + k + 1, c->stride + k, (size_t)(c->n - k) * sizeof st[0]);
    memcpy(v + k + 1, c->mbs + k, (size_t)(c->n - k) * sizeof v[0]);
    return interp(st, v, c->n + 1, pat);
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
