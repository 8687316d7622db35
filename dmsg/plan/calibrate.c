/* A short calibration of this host for the plan layer's model choice.
 *
 * The copy-transfer model of a plan (choose.c) needs, per stride x of a
 * piece's source and y of its destination: the gather copy xC1, the scatter
 * copy 1Cy, the processor's loads xS0 (a deposit's send side), its stores
 * 0Ry (= 1Cy: on shm and on a host the processor stores), the contiguous
 * copy (the "network" within a host) and the per-deposit overhead. These are
 * what `dmsg-ctm measure --machine-out` measures over all strides and large
 * working sets (seconds); here PE 0 measures only the strides the plans at
 * hand need, over a cache-sized working set, in a few milliseconds, and
 * writes them in the same format, so that the next job reads them instead.
 *
 * Consistency: PE 0 alone reads or measures, then deposits the description's
 * text into every PE's text area; every PE parses the same text. The text
 * this job agreed on is kept (per process, the same on every PE) together
 * with the strides it covers, so later plans measure only what is new,
 * until dmsg_finalize forgets it (a later dmsg_init is another job). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "dmsg/coll/agree.h"
#include "dmsg/core/at_fini.h"
#include "dmsg/model/machine.h"
#include "dmsg/plan/calibrate.h"

/* Rates of the strides measured or read (bit k: stride 2^k). */
typedef struct cal_rates {
    uint32_t have;
    double load[PLAN_CAL_NSTRIDES], gather[PLAN_CAL_NSTRIDES], scatter[PLAN_CAL_NSTRIDES];
    double copy_mbs;    /* contiguous copy (memcpy) */
    double overhead_us; /* one small deposit to oneself */
} cal_rates;

/* The description this job agreed on (the same on every PE). */
static struct {
    char text[PLAN_CAL_TEXT];
    uint32_t covers; /* stride bits; all bits for a full dmsg-ctm description */
    int source;
    int none; /* calibration off and nothing cached: the job has no model */
} agreed;

/* The header of the text area PE 0 fills. */
typedef struct cal_hdr {
    int64_t status;
    uint32_t covers;
    int32_t source;
    double cal_s;
} cal_hdr;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint32_t stride_bits(long pat)
{
    if (pat <= 1) return 1;
    int k = 0;
    while (k + 1 < PLAN_CAL_NSTRIDES && (1L << (k + 1)) <= pat)
        k++;
    uint32_t b = 1u << k; /* the power of two at or below */
    if ((1L << k) != pat && k + 1 < PLAN_CAL_NSTRIDES) b |= 1u << (k + 1);
    return b;
}

uint32_t dmsg_plan_cal_needs(const plan_t *pl)
{
    uint32_t need = 1;
    for (size_t k = 0; k < pl->sendp.n; k++) {
        long x, y;
        dmsg_plan_piece_pats(&pl->sendp.v[k], pl->elem, &x, &y);
        need |= stride_bits(x) | stride_bits(y);
    }
    for (int i = 0; i < pl->nto; i++) {
        long x, y;
        if (pl->to[i].grp == NULL) continue;
        dmsg_plan_group_pats(pl->to[i].grp, &x, &y);
        need |= stride_bits(x) | stride_bits(y);
    }
    return need;
}

void dmsg_plan_cal_path(const plan_settings *set, char *out, size_t len)
{
    char host[128] = "unknown";
    if (gethostname(host, sizeof host) != 0) snprintf(host, sizeof host, "unknown");
    host[sizeof host - 1] = '\0';
    snprintf(out, len, "%s/host-%s-%s.machine", set->cache, host, dmsg_transport_name());
}

/* ------------------------------------------------------------ measuring */

#define CAL_WORDS ((size_t)1 << 16) /* 512 KiB per buffer: a cache-sized working set */

static volatile double cal_sink;

/* One traversal of n words at stride s in passes (0, s, 2s, ..., then 1,
 * s+1, ...): every word once. kind 0 loads, 1 gathers into b, 2 scatters
 * from b. Returns its seconds. */
static double traverse(double *a, double *b, size_t n, size_t s, int kind)
{
    size_t per = n / s;
    double sum = 0, t0 = now();
    for (size_t p = 0; p < s; p++) {
        const double *x = a + p;
        double *y = b + p * per;
        if (kind == 0) {
            for (size_t k = 0; k < per; k++)
                sum += x[k * s];
        } else if (kind == 1) {
            for (size_t k = 0; k < per; k++)
                y[k] = x[k * s];
        } else {
            double *d = a + p;
            for (size_t k = 0; k < per; k++)
                d[k * s] = y[k];
        }
    }
    cal_sink = sum;
    return now() - t0;
}

/* MB/s of payload: a warm traversal, then the better of two. */
static double rate(double *a, double *b, size_t s, int kind)
{
    traverse(a, b, CAL_WORDS, s, kind);
    double t1 = traverse(a, b, CAL_WORDS, s, kind), t2 = traverse(a, b, CAL_WORDS, s, kind);
    double t = t1 < t2 ? t1 : t2;
    return t > 0 ? (double)(CAL_WORDS * 8) / t / 1e6 : 0;
}

/* The per-deposit overhead: small deposits to oneself into sym (symmetric,
 * at least 64 bytes), the better of two rounds. */
static double overhead_us(void *sym)
{
    enum { K = 32 };
    char src[8] = {0};
    double best = 1e30;
    for (int r = 0; r < 2; r++) {
        double t0 = now();
        for (int i = 0; i < K; i++)
            if (dmsg_deposit(sym, src, sizeof src, dmsg_pe(), DMSG_CTR_NONE) != DMSG_OK) return 0.5;
        if (dmsg_quiet() != DMSG_OK) return 0.5;
        double t = (now() - t0) / K;
        best = t < best ? t : best;
    }
    return best * 1e6;
}

/* Measures the strides of want that r lacks (and the contiguous copy and
 * overhead the first time). */
static dmsg_status measure(cal_rates *r, uint32_t want, void *sym)
{
    double *a = malloc(CAL_WORDS * sizeof *a), *b = malloc(CAL_WORDS * sizeof *b);
    if (a == NULL || b == NULL) {
        free(a);
        free(b);
        return DMSG_FAIL(DMSG_ERR_NOMEM, "plan: out of memory for the calibration");
    }
    for (size_t i = 0; i < CAL_WORDS; i++)
        a[i] = b[i] = (double)(i & 1023);
    if (!(r->have & 1)) {
        double best = 1e30;
        for (int i = 0; i < 3; i++) {
            double t0 = now();
            memcpy(b, a, CAL_WORDS * sizeof *a);
            double t = now() - t0;
            best = t < best ? t : best;
        }
        cal_sink = b[CAL_WORDS / 2];
        r->copy_mbs = (double)(CAL_WORDS * 8) / best / 1e6;
        r->overhead_us = overhead_us(sym);
    }
    for (int k = 0; k < PLAN_CAL_NSTRIDES; k++) {
        if (!(want & (1u << k)) || (r->have & (1u << k))) continue;
        size_t s = (size_t)1 << k;
        r->load[k] = rate(a, b, s, 0);
        r->gather[k] = rate(a, b, s, 1);
        r->scatter[k] = rate(a, b, s, 2);
        r->have |= 1u << k;
    }
    free(a);
    free(b);
    return DMSG_OK;
}

/* -------------------------------------------------- the description text */

/* The rates of a calibrated description at its power-of-two strides. */
static void rates_of(const dmsg_machine *m, cal_rates *r)
{
    memset(r, 0, sizeof *r);
    for (int k = 0; k < PLAN_CAL_NSTRIDES; k++) {
        long s = 1L << k;
        int in_all = 1;
        const dmsg_mach_curve *cs[3] = {&m->send, &m->copy_gather, &m->copy_scatter};
        for (int c = 0; c < 3; c++) {
            int found = 0;
            for (int i = 0; i < cs[c]->n; i++)
                found |= cs[c]->stride[i] == s;
            in_all &= found;
        }
        if (!in_all) continue;
        r->have |= 1u << k;
        r->load[k] = dmsg_mach_curve_at(&m->send, s);
        r->gather[k] = dmsg_mach_curve_at(&m->copy_gather, s);
        r->scatter[k] = dmsg_mach_curve_at(&m->copy_scatter, s);
    }
    r->copy_mbs = dmsg_mach_curve_at(&m->recv, 1);
    r->overhead_us = m->overhead_us;
}

/* The description of r in the format of machine.h (and of dmsg-ctm). */
static int write_text(const cal_rates *r, char *out, size_t len)
{
    char host[128] = "unknown";
    if (gethostname(host, sizeof host) != 0) snprintf(host, sizeof host, "unknown");
    host[sizeof host - 1] = '\0';
    for (char *c = host; *c; c++) /* '#' would start a comment */
        *c = *c == '#' ? '_' : *c;
    size_t at = 0;
#define PUT(...)                                                                                   \
    do {                                                                                           \
        int n_ = snprintf(out + at, at < len ? len - at : 0, __VA_ARGS__);                         \
        if (n_ < 0 || at + (size_t)n_ >= len) return -1;                                           \
        at += (size_t)n_;                                                                          \
    } while (0)
    PUT("# This host, calibrated by the dmsg plan layer (transport %s): the strides its\n"
        "# plans needed, over a 512 KiB working set. Throughputs in MB/s, strides in\n"
        "# 64-bit words. send = loads, recv = scatter copies, network = memcpy, as\n"
        "# `dmsg-ctm measure --machine-out` writes them. Delete it to measure again.\n",
        dmsg_transport_name());
    PUT("name        = host\ndescription = %s, plan calibration\n", host);
    PUT("clock_mhz   = 0\nnodes       = 1\n");
    for (int k = 0; k < PLAN_CAL_NSTRIDES; k++) {
        if (!(r->have & (1u << k))) continue;
        long s = 1L << k;
        PUT("copy.%ldC1 = %.1f\n", s, r->gather[k]);
        if (s > 1) PUT("copy.1C%ld = %.1f\n", s, r->scatter[k]);
        PUT("send.%ldS0 = %.1f\n", s, r->load[k]);
        if (s > 1) PUT("recv.0R%ld = %.1f\n", s, r->scatter[k]);
    }
    PUT("send.1F0 = none\nrecv.0D1 = none\nrecv.0R1 = %.1f\n", r->copy_mbs);
    PUT("net.Nd = %.1f %.1f %.1f\nnet.Nadp = %.1f %.1f %.1f\n", r->copy_mbs, r->copy_mbs / 2,
        r->copy_mbs / 4, r->copy_mbs, r->copy_mbs / 2, r->copy_mbs / 4);
    PUT("congestion = 1\nmechanisms = chained packed\n");
    PUT("msg.overhead_us = %.3f   # measured: a small deposit to oneself\n", r->overhead_us);
    PUT("msg.partner_us = 0\nbarrier.kind = tree\nbarrier.us = 0\n");
    PUT("barrier.hop_us = 0.1   # estimated, not measured: the plan model does not use it\n");
    PUT("remote.read_us = 0.1   # estimated, not measured: the plan model does not use it\n");
#undef PUT
    return 0;
}

/* Writes text to path through a temporary file and a rename, so that a
 * job reading the cache never sees half a file. Best effort: a cache that
 * cannot be written only means the next job measures again. */
static void store(const char *path, const char *text)
{
    char dir[720], tmp[760];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == NULL) return;
    *slash = '\0';
    for (char *p = dir + 1; *p; p++) /* mkdir -p */
        if (*p == '/') {
            *p = '\0';
            mkdir(dir, 0755);
            *p = '/';
        }
    mkdir(dir, 0755);
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (f == NULL) return;
    int bad = fputs(text, f) < 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) remove(tmp);
}

/* Reads a whole file of at most PLAN_CAL_TEXT - 1 bytes; 0 if there is none. */
static int slurp(const char *path, char *out, size_t len)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) return 0;
    size_t n = fread(out, 1, len - 1, f);
    int whole = n < len - 1 || fgetc(f) == EOF;
    fclose(f);
    out[n] = '\0';
    return whole && n > 0;
}

/* PE 0: the text covering need, into hdr and text; sym: 64 bytes of
 * symmetric scratch for the overhead's deposits. */
static void provide(const plan_settings *set, uint32_t need, void *sym, cal_hdr *hdr, char *text)
{
    char path[720], full[600];
    memset(hdr, 0, sizeof *hdr);
    /* A full description by `dmsg-ctm measure --machine-out DIR/host.machine`. */
    snprintf(full, sizeof full, "%s/host.machine", set->cache);
    if (set->cache[0] != '\0' && set->calibrate != PLAN_CAL_REFRESH &&
        slurp(full, text, PLAN_CAL_TEXT)) {
        hdr->covers = ~0u;
        hdr->source = DMSG_PLAN_SRC_CACHED;
        return;
    }
    dmsg_plan_cal_path(set, path, sizeof path);
    cal_rates r;
    memset(&r, 0, sizeof r);
    dmsg_machine m;
    if (set->cache[0] != '\0' && set->calibrate != PLAN_CAL_REFRESH &&
        slurp(path, text, PLAN_CAL_TEXT)) {
        if (dmsg_machine_parse(text, path, &m) != DMSG_OK) {
            /* Every PE returns this status with the detail (the plan agrees on it). */
            hdr->status = DMSG_FAIL(DMSG_ERR_ENV,
                                    "plan: the cached host description does not parse (delete "
                                    "it to measure again): %s",
                                    dmsg_last_error());
            return;
        }
        rates_of(&m, &r);
    }
    hdr->source = DMSG_PLAN_SRC_CACHED;
    if ((need & ~r.have) != 0 || !(r.have & 1)) {
        if (set->calibrate == PLAN_CAL_OFF) {
            hdr->covers = 0; /* nothing usable: no model */
            text[0] = '\0';
            return;
        }
        double t0 = now();
        hdr->status = measure(&r, need | r.have, sym);
        hdr->cal_s = now() - t0;
        hdr->source = DMSG_PLAN_SRC_CALIBRATED;
        if (hdr->status != DMSG_OK) return;
        if (write_text(&r, text, PLAN_CAL_TEXT) != 0) {
            hdr->status = DMSG_FAIL(DMSG_ERR_NOMEM, "plan: host description too long");
            return;
        }
        if (set->cache[0] != '\0') store(path, text);
    }
    hdr->covers = r.have;
}

int dmsg_plan_cal_known(const plan_settings *set, uint32_t need, plan_model **pm, int *source,
                   dmsg_status *st)
{
    *pm = NULL;
    *source = DMSG_PLAN_SRC_NONE;
    *st = DMSG_OK;
    if (agreed.none && set->calibrate == PLAN_CAL_OFF) return 1;
    int fresh = set->calibrate == PLAN_CAL_REFRESH && agreed.source != DMSG_PLAN_SRC_CALIBRATED;
    if (agreed.text[0] == '\0' || (need & ~agreed.covers) != 0 || fresh) return 0;
    *st = dmsg_plan_model_parse(agreed.text, "host description", pm);
    if (*st == DMSG_OK) {
        dmsg_plan_model_host(*pm);
        *source = agreed.source;
    }
    return 1;
}

dmsg_status dmsg_plan_cal_model(plan_t *pl, const plan_settings *set, uint32_t need, char *text,
                           plan_model **pm, int *source, double *cal_s)
{
    *pm = NULL;
    *source = DMSG_PLAN_SRC_NONE;
    *cal_s = 0;
    /* PE 0 provides, every PE reads: the same text everywhere. */
    cal_hdr hdr;
    char *body = text + sizeof hdr;
    /* What this job agrees on ends with it (the same on every PE: the same
     * calls in the same order, so a failure here is everyone's). */
    dmsg_status st = dmsg_at_finalize(dmsg_plan_cal_forget), mine = DMSG_OK;
    if (st != DMSG_OK) return st;
    if (pl->me == 0) {
        provide(set, need, text, &hdr, body); /* overhead deposits: into the header */
        mine = dmsg_quiet(); /* they have landed before it is overwritten */
        if (mine == DMSG_OK) mine = (dmsg_status)hdr.status;
        memcpy(text, &hdr, sizeof hdr);
    }
    /* The whole text area, since only PE 0 knows how much of it is used;
     * its status travels in the header's first word. */
    st = dmsg_agree_root(mine, text, PLAN_CAL_TEXT, 0);
    if (st != DMSG_OK) return st;
    memcpy(&hdr, text, sizeof hdr);
    *cal_s = hdr.cal_s;
    if (hdr.covers == 0) { /* calibration off, nothing cached */
        agreed.none = 1;
        return DMSG_OK;
    }
    snprintf(agreed.text, sizeof agreed.text, "%s", body);
    agreed.covers = hdr.covers;
    agreed.source = hdr.source;
    agreed.none = 0;
    st = dmsg_plan_model_parse(agreed.text, "host description", pm);
    if (st == DMSG_OK) {
        dmsg_plan_model_host(*pm);
        *source = agreed.source;
    }
    return st;
}

void dmsg_plan_cal_forget(void)
{
    memset(&agreed, 0, sizeof agreed);
}
