/* Host tuning of the copy engine: which tile working set and which inner
 * blocking a transposing section copy uses for each class of element sizes,
 * and from which plane size it writes with streaming stores.
 * The best shape depends on the host's caches (see the notes at the top of
 * copy_sect.c: 64 KiB tiles won on one Xeon, 2-4 KiB on an EPYC for 16-byte
 * elements), so it is measured, not assumed: dmsg_xfer_calibrate times the
 * candidates on a transpose of the kind the benchmarks and kernels run, and
 * `dmsg-ctm tune` writes the result as a host profile keyed by CPU model and
 * cache sizes, which dmsg_init reads (dmsg_xfer_params_tune). A profile of
 * another kind of host is ignored. Nothing is measured at dmsg_init: a
 * calibration takes seconds (2-4 s of CPU), longer than most jobs' copies. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "dmsg/xfer/xfer_impl.h"

int dmsg_xfer_class(size_t elem)
{
    return elem < 8 ? 0 : elem < 16 ? 1 : 2;
}

int dmsg_xfer_size_class(size_t plane_bytes)
{
    return plane_bytes <= DMSG_XFER_SMALL_PLANE ? 0 : 1;
}

static const size_t class_elem[DMSG_XFER_CLASSES] = {4, 8, 16};
static const char *const size_name[DMSG_XFER_SIZES] = {"small", "large"};

/* The calibrated matrix edge per class and plane size: planes of 2-8 MiB
 * per side (small) and 16-32 MiB (large), power-of-two strides as in the
 * benchmarks and kernels. */
static size_t calib_n(int c, int z)
{
    return z == 0 ? 1024 : c == 0 ? 4096 : 2048;
}

/* Reads the first line of a small text file into buf (newline dropped). */
static int read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    if (ok)
        buf[strcspn(buf, "\n")] = 0;
    return ok;
}

void dmsg_xfer_host_key(char *buf, size_t len)
{
    char model[128] = "unknown CPU", line[256];
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        while (fgets(line, sizeof line, f)) {
            char *c = strchr(line, ':');
            if (!strncmp(line, "model name", 10) && c) {
                c += 1 + strspn(c + 1, " \t");
                c[strcspn(c, "\n")] = 0;
                snprintf(model, sizeof model, "%s", c);
                break;
            }
        }
        fclose(f);
    }
    size_t n = (size_t)snprintf(buf, len, "%s |", model);
    for (int i = 0; i < 8 && n < len; i++) {
        char p[96], lvl[16], type[32], size[32];
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        if (!read_line(p, lvl, sizeof lvl))
            break;
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        if (!read_line(p, type, sizeof type) || !strcmp(type, "Instruction"))
            continue;
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if (!read_line(p, size, sizeof size))
            continue;
        n += (size_t)snprintf(buf + n, len - n, " L%s%s %s", lvl, !strcmp(type, "Data") ? "d" : "",
                              size);
    }
}

/* ------------------------------------------------------------ calibration */

/* This thread's CPU time: a copy's time without the stretches the
 * scheduler gave the core to other work (on a busy host, wall time mostly
 * measures those and crowns whichever candidate ran in a quiet moment). */
static double thread_cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Best time of reps copies of an nb x n source (nb rows of n elements)
 * into its transpose (n rows of nb elements): the benchmarks' local
 * reference, the half-matrix one PE of two transposes. */
/* Where the consumer's reads go, so that they are not optimized away. */
static volatile uint64_t read_sink;

/* Reads bytes of p once, word by word, as the program that receives a
 * transposed block does next. */
static void consume(const char *p, size_t bytes)
{
    uint64_t sum = 0, w;
    for (size_t i = 0; i + 8 <= bytes; i += 8) {
        memcpy(&w, p + i, 8);
        sum += w;
    }
    read_sink = sum;
}

/* read: time a read of the destination after each copy too (consume). */
static double time_shape(char *dst, const char *src, size_t n, size_t nb, size_t elem,
                         const dmsg_xfer_params *xp, int reps, int read)
{
    dmsg_layout sl = {2, {n, nb}, {(ptrdiff_t)elem, (ptrdiff_t)(n * elem)}};
    dmsg_layout dl = {2, {n, nb}, {(ptrdiff_t)(nb * elem), (ptrdiff_t)elem}};
    double best = 1e30;
    /* One untimed copy first: the destination's cache state is then the
     * one this candidate leaves behind when it runs step after step (a
     * streamed copy leaves no destination line cached, a plain one leaves
     * dirty lines), not the previous candidate's. Without it a plain copy
     * after a streamed one measured up to 2x slower than after itself. */
    dmsg_copy_section(dst, &dl, src, &sl, elem, xp);
    for (int r = 0; r < reps; r++) {
        double t0 = thread_cpu_now();
        dmsg_copy_section(dst, &dl, src, &sl, elem, xp);
        if (read)
            consume(dst, n * nb * elem);
        double t = thread_cpu_now() - t0;
        if (t < best)
            best = t;
    }
    return best;
}

/* Median of n <= 5 samples (sorted in place). */
static double median(double *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            double x = v[j];
            v[j] = v[j - 1];
            v[j - 1] = x;
        }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Streaming stores per element class: streamed against plain (the plain
 * blocking the tile calibration chose) at DMSG_XFER_STREAM_SIZES plane
 * sizes, the two taking turns round after round, each sample two threads
 * at once as the two PEs of a transpose step (time_pair): each copies, then
 * reads the other's result. The copy alone misleads: a streamed block is
 * read back from memory, a plain one from the caches where it fits, and a
 * deposit is made to be read (the FFT kernel at 512^2 on 2 PEs, 512 KiB
 * planes streamed against plain: communication CPU 0.25 against 0.29 ms a
 * step, computation 0.72 against 0.47 ms (two rounds of three), 2026-11-27 on the Xeon host,
 * where timing the copy alone chose streaming from 128 KiB). One thread
 * copying and reading its own result (an L2 hit when plain) chose 8 MiB
 * there, though the FFT at 1024^2 (2 MiB planes) streamed was no slower
 * to compute and 15-30% faster to communicate; the pair chose 2 MiB. Streaming is switched on
 * from the smallest size where it wins by 5% and keeps winning at every
 * larger size; the threshold is the geometric middle between that size
 * and the next smaller one (half the smallest size when it wins
 * everywhere). Never winning, or only at some sizes in between: off. */
static const size_t stream_n[DMSG_XFER_STREAM_SIZES] = {256, 512, 1024, 2048};

size_t dmsg_xfer_stream_plane(int c, int k)
{
    return stream_n[k] * (stream_n[k] / 2) * class_elem[c];
}

/* One of the two threads of a paired sample, as the two PEs of a transpose
 * step: each copies its own transpose, then (after the other finished)
 * reads the other's result, as a receiver reads what was deposited to it. */
typedef struct pair_side {
    char *dst;
    const char *src, *peer_dst;
    size_t n, nb, elem;
    const dmsg_xfer_params *xp;
    int reps;
    pthread_barrier_t *bar;
    double t; /* out: the least copy + read CPU time of the reps */
} pair_side;

static void *pair_run(void *arg)
{
    pair_side *q = arg;
    dmsg_layout sl = {2, {q->n, q->nb}, {(ptrdiff_t)q->elem, (ptrdiff_t)(q->n * q->elem)}};
    dmsg_layout dl = {2, {q->n, q->nb}, {(ptrdiff_t)(q->nb * q->elem), (ptrdiff_t)q->elem}};
    size_t bytes = q->n * q->nb * q->elem;
    q->t = 1e30;
    for (int r = -1; r < q->reps; r++) { /* r = -1: untimed, as in time_shape */
        pthread_barrier_wait(q->bar);
        double t0 = thread_cpu_now();
        dmsg_copy_section(q->dst, &dl, q->src, &sl, q->elem, q->xp);
        double t1 = thread_cpu_now();
        pthread_barrier_wait(q->bar);
        double t2 = thread_cpu_now();
        consume(q->peer_dst, bytes);
        double t = t1 - t0 + thread_cpu_now() - t2;
        if (r >= 0 && t < q->t)
            q->t = t;
    }
    return NULL;
}

/* A paired sample: two threads (a second one started here), each copying
 * an n x nb plane (a -> b, c -> d) and reading the other's; the mean of the
 * two threads' CPU times. A thread that cannot be started makes it a
 * single-thread sample (copy and read of its own result). */
static double time_pair(char *const buf[4], size_t n, size_t nb, size_t elem,
                        const dmsg_xfer_params *xp, int reps)
{
    pthread_barrier_t bar;
    if (pthread_barrier_init(&bar, NULL, 2) != 0)
        return time_shape(buf[1], buf[0], n, nb, elem, xp, reps, 1);
    pair_side side[2] = {{buf[1], buf[0], buf[3], n, nb, elem, xp, reps, &bar, 0},
                         {buf[3], buf[2], buf[1], n, nb, elem, xp, reps, &bar, 0}};
    pthread_t th;
    double t;
    if (pthread_create(&th, NULL, pair_run, &side[1]) != 0) {
        t = time_shape(buf[1], buf[0], n, nb, elem, xp, reps, 1);
    } else {
        pair_run(&side[0]);
        pthread_join(th, NULL);
        t = (side[0].t + side[1].t) / 2;
    }
    pthread_barrier_destroy(&bar);
    return t;
}

static void calibrate_stream(dmsg_xfer_profile *p, int c, char *const buf[4], int rounds)
{
    size_t elem = class_elem[c];
    double t[2][DMSG_XFER_STREAM_SIZES][5], med[2][DMSG_XFER_STREAM_SIZES];
    for (int k = 0; k < DMSG_XFER_STREAM_SIZES; k++) {
        size_t n = stream_n[k], nb = n / 2;
        dmsg_xfer_params xp[2] = {{0}, {0}}; /* 0 plain, 1 streamed */
        for (int v = 0; v < 2; v++) {
            memcpy(xp[v].tune, p->tune, sizeof xp[v].tune);
            xp[v].stream[c] = (dmsg_xfer_stream){v ? DMSG_XFER_STREAM_ON : DMSG_XFER_STREAM_OFF, 0};
        }
        /* A sample is the best of several copies of a small plane (each
         * copy of one is too short to time alone). */
        int reps = (int)(((size_t)4 << 20) / (n * nb * elem)) + 1;
        for (int r = 0; r < rounds; r++)
            for (int v = 0; v < 2; v++)
                t[v][k][r] = time_pair(buf, n, nb, elem, &xp[v], reps);
        for (int v = 0; v < 2; v++) {
            med[v][k] = median(t[v][k], rounds);
            double mbs = (double)(n * nb * elem) / med[v][k] / 1e6;
            if (v)
                p->stream_mbs[c][k] = mbs;
            else
                p->plain_mbs[c][k] = mbs;
        }
    }
    p->stream[c] = dmsg_xfer_stream_choose(c, med[1], med[0]);
}

dmsg_xfer_stream dmsg_xfer_stream_choose(int c, const double *streamed, const double *plain)
{
    int from = DMSG_XFER_STREAM_SIZES;
    while (from > 0 && streamed[from - 1] < plain[from - 1])
        from--;
    while (from < DMSG_XFER_STREAM_SIZES && streamed[from] > 0.95 * plain[from])
        from++;
    if (from == DMSG_XFER_STREAM_SIZES)
        return (dmsg_xfer_stream){DMSG_XFER_STREAM_OFF, 0};
    /* Sizes step by 4x: half the size is the geometric middle. */
    return (dmsg_xfer_stream){DMSG_XFER_STREAM_ON, dmsg_xfer_stream_plane(c, from) / 2};
}

dmsg_status dmsg_xfer_calibrate(dmsg_xfer_profile *p, int quick)
{
    static const uint32_t tiles[] = {2048, 4096, 16384, 65536, 262144};
    enum { NT = sizeof tiles / sizeof tiles[0], NC = 1 + 2 * NT };
    size_t bytes = (size_t)32 << 20; /* the largest plane: 4096 x 2048 x 4, 2048 x 1024 x 16 */
    int rounds = quick ? 3 : 5;
    /* Page-aligned: streaming stores apply only where destination rows
     * start on a cache line (a large malloc block starts 16 bytes into a
     * page). */
    char *buf[4]; /* a -> b for one thread; c -> d for the streaming step's second one */
    for (int i = 0; i < 4; i++)
        buf[i] = aligned_alloc(4096, bytes);
    if (!buf[0] || !buf[1] || !buf[2] || !buf[3]) {
        for (int i = 0; i < 4; i++)
            free(buf[i]);
        return DMSG_FAIL(DMSG_ERR_NOMEM, "calibration buffers of %zu bytes", bytes);
    }
    for (int i = 0; i < 4; i++)
        memset(buf[i], i + 1, bytes); /* touch every page before timing */
    char *a = buf[0], *b = buf[1];
    memset(p, 0, sizeof *p);
    dmsg_xfer_host_key(p->key, sizeof p->key);
    for (int c = 0; c < DMSG_XFER_CLASSES; c++)
        for (int z = 0; z < DMSG_XFER_SIZES; z++) {
            size_t elem = class_elem[c], n = calib_n(c, z), nb = n / 2, moved = n * nb * elem;
            /* Candidate 0 is the built-in choice; the candidates take turns,
             * round after round, so that a slow moment of the host (or the
             * first copies' warm-up) does not fall on one of them only. */
            dmsg_xfer_params xp[NC] = {0};
            double t[NC][5], med[NC];
            /* The table is for plain stores: streaming (its own 16 x 16
             * tiles) is calibrated after it. */
            for (int k = 0; k < NC; k++)
                xp[k].stream[c].mode = DMSG_XFER_STREAM_OFF;
            for (int k = 1; k < NC; k++)
                xp[k].tune[c][z] = (dmsg_xfer_choice){
                    tiles[(k - 1) / 2],
                    (uint8_t)((k - 1) % 2 ? DMSG_XFER_BLOCKS_OFF : DMSG_XFER_BLOCKS_ON)};
            for (int r = 0; r < rounds; r++)
                for (int k = 0; k < NC; k++)
                    t[k][r] = time_shape(b, a, n, nb, elem, &xp[k], 1, 0);
            /* Medians, not best times: with eleven candidates the best of a
             * few runs each would often crown a lucky one on a busy host. */
            for (int k = 0; k < NC; k++)
                med[k] = median(t[k], rounds);
            /* A candidate must beat the built-in choice by 10%: identical
             * blockings measured up to 10% apart at a load of 15 (CPU time),
             * and the least of eleven noisy medians is biased low. The
             * built-in blocking itself (the same tile and blocks) is no
             * candidate. */
            size_t bt = dmsg_xfer_tile_auto(elem);
            int bb = elem == 16 || (elem == 8 && z == 1) ? DMSG_XFER_BLOCKS_OFF
                                                         : DMSG_XFER_BLOCKS_ON;
            int win = 0;
            for (int k = 1; k < NC; k++)
                if (!(xp[k].tune[c][z].tile_bytes == bt && xp[k].tune[c][z].blocks == bb) &&
                    med[k] < med[win] && med[k] < 0.90 * med[0])
                    win = k;
            p->tune[c][z] = xp[win].tune[c][z];
            p->mbs[c][z] = (double)moved / med[win] / 1e6;
            p->default_mbs[c][z] = (double)moved / med[0] / 1e6;
        }
    for (int c = 0; c < DMSG_XFER_CLASSES; c++)
        if (dmsg_xfer_streams(NULL, class_elem[c], (size_t)1 << 40)) /* a streaming kernel */
            calibrate_stream(p, c, buf, rounds);
    for (int i = 0; i < 4; i++)
        free(buf[i]);
    return DMSG_OK;
}

/* ---------------------------------------------------------------- profile */

dmsg_status dmsg_xfer_profile_write(const char *path, const dmsg_xfer_profile *p)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return DMSG_FAIL(DMSG_ERR_ARG, "%s: %s", path, strerror(errno));
    fprintf(f, "# dmsg host profile (dmsg-ctm tune): the copy engine's transpose blocking per\n"
               "# element size, measured on this host; tile 0 = built-in choice.\n"
               "key = %s\n",
            p->key);
    for (int c = 0; c < DMSG_XFER_CLASSES; c++)
        for (int z = 0; z < DMSG_XFER_SIZES; z++)
            fprintf(f, "elem %zu plane %s tile %u blocks %u   # %.0f MB/s, built-in %.0f MB/s\n",
                    class_elem[c], size_name[z], p->tune[c][z].tile_bytes, p->tune[c][z].blocks,
                    p->mbs[c][z], p->default_mbs[c][z]);
    for (int c = 0; c < DMSG_XFER_CLASSES; c++) {
        const dmsg_xfer_stream *st = &p->stream[c];
        if (st->mode == DMSG_XFER_STREAM_AUTO)
            continue; /* built-in: no line */
        if (st->mode == DMSG_XFER_STREAM_ON)
            fprintf(f, "elem %zu stream on from %llu", class_elem[c],
                    (unsigned long long)st->from);
        else
            fprintf(f, "elem %zu stream off", class_elem[c]);
        if (p->plain_mbs[c][0] > 0) {
            fprintf(f, "   # MB/s streamed/plain at");
            for (int k = 0; k < DMSG_XFER_STREAM_SIZES; k++)
                fprintf(f, " %zuK %.0f/%.0f", dmsg_xfer_stream_plane(c, k) >> 10,
                        p->stream_mbs[c][k], p->plain_mbs[c][k]);
        }
        fputc('\n', f);
    }
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return DMSG_FAIL(DMSG_ERR_ARG, "%s: write failed", path);
    return DMSG_OK;
}

/* "elem E stream on from BYTES" or "elem E stream off" (E 8 or 16, the
 * element sizes with a streaming kernel); 1 when line is one. */
static int parse_stream(const char *line, dmsg_xfer_profile *q, int *c, int *bad)
{
    size_t elem;
    unsigned long long from;
    char mode[8], word[8], extra;
    int n = sscanf(line, "elem %zu stream %7s %7s %llu %c", &elem, mode, word, &from, &extra);
    if (n < 2)
        return 0;
    *bad = 1;
    if (elem != 8 && elem != 16)
        return 1;
    if (n == 2 && !strcmp(mode, "off")) {
        *c = dmsg_xfer_class(elem);
        q->stream[*c] = (dmsg_xfer_stream){DMSG_XFER_STREAM_OFF, 0};
        *bad = 0;
    } else if (n == 4 && !strcmp(mode, "on") && !strcmp(word, "from") &&
               from <= ((unsigned long long)1 << 40)) {
        *c = dmsg_xfer_class(elem);
        q->stream[*c] = (dmsg_xfer_stream){DMSG_XFER_STREAM_ON, (uint64_t)from};
        *bad = 0;
    }
    return 1;
}

dmsg_status dmsg_xfer_profile_read(const char *path, dmsg_xfer_profile *p)
{
    FILE *f = fopen(path, "r");
    if (!f) return DMSG_FAIL(DMSG_ERR_ARG, "%s: %s", path, strerror(errno));
    dmsg_xfer_profile q = {0};
    char line[512];
    int have_key = 0, lineno = 0;
    unsigned seen = 0, streams_seen = 0;
    dmsg_status st = DMSG_OK;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\n")] = 0;
        char *hash = strchr(line, '#');
        if (!strncmp(line, "key = ", 6)) {
            size_t kl = strnlen(line + 6, sizeof q.key - 1);
            memcpy(q.key, line + 6, kl);
            q.key[kl] = 0;
            have_key = 1;
            continue;
        }
        if (hash)
            *hash = 0;
        if (line[strspn(line, " \t")] == 0)
            continue;
        int sc = -1, sbad = 0;
        if (parse_stream(line, &q, &sc, &sbad)) {
            if (sbad || (streams_seen & (1u << sc))) {
                st = DMSG_FAIL(DMSG_ERR_ARG, "%s:%d: not a stream line (elem 8|16 stream off | "
                               "on from BYTES, once per size): %.80s", path, lineno, line);
                break;
            }
            streams_seen |= 1u << sc;
            continue;
        }
        size_t elem;
        unsigned tile, blocks;
        char extra, plane[16];
        int z = -1;
        if (sscanf(line, "elem %zu plane %15s tile %u blocks %u %c", &elem, plane, &tile, &blocks,
                   &extra) == 4)
            for (int k = 0; k < DMSG_XFER_SIZES; k++)
                if (!strcmp(plane, size_name[k]))
                    z = k;
        if (z < 0 || (elem != 4 && elem != 8 && elem != 16) || blocks > DMSG_XFER_BLOCKS_OFF ||
            (tile != 0 && (tile < 256 || tile > (64u << 20)))) {
            st = DMSG_FAIL(DMSG_ERR_ARG, "%s:%d: not a profile line: %.80s", path, lineno, line);
            break;
        }
        int c = dmsg_xfer_class(elem);
        q.tune[c][z] = (dmsg_xfer_choice){tile, (uint8_t)blocks};
        seen |= 1u << (c * DMSG_XFER_SIZES + z);
    }
    fclose(f);
    if (st == DMSG_OK && !have_key) st = DMSG_FAIL(DMSG_ERR_ARG, "%s: no \"key = \" line", path);
    if (st == DMSG_OK && seen != (1u << DMSG_XFER_CLASSES * DMSG_XFER_SIZES) - 1)
        st = DMSG_FAIL(DMSG_ERR_ARG, "%s: an element class or plane size is missing", path);
    if (st == DMSG_OK)
        *p = q;
    return st;
}

int dmsg_xfer_profile_path(char *buf, size_t len)
{
    const char *e = getenv("DMSG_HOST_PROFILE"), *x = getenv("XDG_CACHE_HOME"),
               *h = getenv("HOME");
    int n;
    if (e && *e)
        n = snprintf(buf, len, "%s", e);
    else if (x && *x)
        n = snprintf(buf, len, "%s/dmsg/host.profile", x);
    else if (h && *h)
        n = snprintf(buf, len, "%s/.cache/dmsg/host.profile", h);
    else
        return 0;
    return n > 0 && (size_t)n < len;
}

/* "; streaming stores: ..." for each class, and the 8-byte kernel. */
static void describe_stream(const dmsg_xfer_params *xp, char *buf, size_t len)
{
    int n = snprintf(buf, len, "; streaming stores (transposed planes, bytes per side):");
    for (int c = 0; c < DMSG_XFER_CLASSES && n > 0 && (size_t)n < len; c++) {
        size_t elem = class_elem[c];
        const dmsg_xfer_stream *st = &xp->stream[c];
        const char *src = st->mode == DMSG_XFER_STREAM_AUTO ? "built-in" : "profile";
        if (!dmsg_xfer_streams(NULL, elem, (size_t)1 << 40))
            n += snprintf(buf + n, len - (size_t)n, " %zu-byte never (no kernel)%s", elem,
                          c + 1 < DMSG_XFER_CLASSES ? "," : "");
        else if (st->mode == DMSG_XFER_STREAM_OFF)
            n += snprintf(buf + n, len - (size_t)n, " %zu-byte never (%s)%s", elem, src,
                          c + 1 < DMSG_XFER_CLASSES ? "," : "");
        else
            n += snprintf(buf + n, len - (size_t)n, " %zu-byte from %llu KiB (%s)%s", elem,
                          (unsigned long long)(st->mode == DMSG_XFER_STREAM_ON
                                                   ? st->from
                                               : elem == 8 ? DMSG_XFER_STREAM_FROM_8
                                                           : DMSG_XFER_STREAM_FROM_16) >> 10,
                          src, c + 1 < DMSG_XFER_CLASSES ? "," : "");
    }
    if (n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, "; 8-byte streamed blocks: %s",
                 dmsg_xfer_kernel_name(dmsg_xfer_regblk_best()));
}

/* The built-in choices' description after why; returns 0 (no profile). */
static int builtin_tail(const dmsg_xfer_params *xp, char *why, size_t whylen)
{
    size_t n = strlen(why);
    if (n < whylen)
        describe_stream(xp, why + n, whylen - n);
    return 0;
}

int dmsg_xfer_params_tune(dmsg_xfer_params *xp, char *why, size_t whylen)
{
    char path[1024], key[256];
    dmsg_xfer_profile p;
    if (!dmsg_xfer_profile_path(path, sizeof path)) {
        snprintf(why, whylen, "built-in blocking (no profile path: HOME unset)");
        return builtin_tail(xp, why, whylen);
    }
    /* No profile is the usual case, not an error (no detail, no diagnostic). */
    if (access(path, F_OK) != 0) {
        snprintf(why, whylen, "built-in blocking (%s: %s)", path, strerror(errno));
        return builtin_tail(xp, why, whylen);
    }
    if (dmsg_xfer_profile_read(path, &p) != DMSG_OK) {
        snprintf(why, whylen, "built-in blocking (%s)", dmsg_last_error());
        return builtin_tail(xp, why, whylen);
    }
    dmsg_xfer_host_key(key, sizeof key);
    if (strcmp(key, p.key) != 0) {
        snprintf(why, whylen, "built-in blocking (%s was measured on another host: %.80s)", path,
                 p.key);
        return builtin_tail(xp, why, whylen);
    }
    memcpy(xp->tune, p.tune, sizeof xp->tune);
    memcpy(xp->stream, p.stream, sizeof xp->stream);
    int n = snprintf(why, whylen, "host profile %s: tile bytes/line blocks (0 = built-in; "
                     "blocks 1 on, 2 off) for 4/8/16-byte elements, small and large planes:",
                     path);
    for (int c = 0; c < DMSG_XFER_CLASSES; c++)
        for (int z = 0; z < DMSG_XFER_SIZES && n > 0 && (size_t)n < whylen; z++)
            n += snprintf(why + n, whylen - (size_t)n, " %u/%u", p.tune[c][z].tile_bytes,
                          p.tune[c][z].blocks);
    if (n > 0 && (size_t)n < whylen)
        describe_stream(xp, why + n, whylen - (size_t)n);
    return 1;
}
