/* Host tuning of the copy engine: which tile working set and which inner
 * blocking a transposing section copy uses for each class of element sizes.
 * The best shape depends on the host's caches (see the notes at the top of
 * copy_sect.c: 64 KiB tiles won on one Xeon, 2-4 KiB on an EPYC for 16-byte
 * elements), so it is measured, not assumed: dmsg_xfer_calibrate times the
 * candidates on a transpose of the kind the benchmarks and kernels run, and
 * `dmsg-ctm tune` writes the result as a host profile keyed by CPU model and
 * cache sizes, which dmsg_init reads (dmsg_xfer_params_tune). A profile of
 * another kind of host is ignored. Nothing is measured at dmsg_init: a
 * calibration takes about a second, longer than most jobs' copies. */
#include <errno.h>
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
static double time_shape(char *dst, const char *src, size_t n, size_t nb, size_t elem,
                         const dmsg_xfer_params *xp, int reps)
{
    dmsg_layout sl = {2, {n, nb}, {(ptrdiff_t)elem, (ptrdiff_t)(n * elem)}};
    dmsg_layout dl = {2, {n, nb}, {(ptrdiff_t)(nb * elem), (ptrdiff_t)elem}};
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        double t0 = thread_cpu_now();
        dmsg_copy_section(dst, &dl, src, &sl, elem, xp);
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

dmsg_status dmsg_xfer_calibrate(dmsg_xfer_profile *p, int quick)
{
    static const uint32_t tiles[] = {2048, 4096, 16384, 65536, 262144};
    enum { NT = sizeof tiles / sizeof tiles[0], NC = 1 + 2 * NT };
    size_t bytes = (size_t)32 << 20; /* the largest plane: 4096 x 2048 x 4, 2048 x 1024 x 16 */
    int rounds = quick ? 3 : 5;
    char *a = malloc(bytes), *b = malloc(bytes);
    if (!a || !b) {
        free(a);
        free(b);
        return DMSG_FAIL(DMSG_ERR_NOMEM, "calibration buffers of %zu bytes", bytes);
    }
    memset(a, 1, bytes);
    memset(b, 2, bytes); /* touch every page before timing */
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
            for (int k = 1; k < NC; k++)
                xp[k].tune[c][z] = (dmsg_xfer_choice){
                    tiles[(k - 1) / 2],
                    (uint8_t)((k - 1) % 2 ? DMSG_XFER_BLOCKS_OFF : DMSG_XFER_BLOCKS_ON)};
            for (int r = 0; r < rounds; r++)
                for (int k = 0; k < NC; k++)
                    t[k][r] = time_shape(b, a, n, nb, elem, &xp[k], 1);
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
    free(a);
    free(b);
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
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return DMSG_FAIL(DMSG_ERR_ARG, "%s: write failed", path);
    return DMSG_OK;
}

dmsg_status dmsg_xfer_profile_read(const char *path, dmsg_xfer_profile *p)
{
    FILE *f = fopen(path, "r");
    if (!f) return DMSG_FAIL(DMSG_ERR_ARG, "%s: %s", path, strerror(errno));
    dmsg_xfer_profile q = {0};
    char line[512];
    int have_key = 0, lineno = 0;
    unsigned seen = 0;
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

int dmsg_xfer_params_tune(dmsg_xfer_params *xp, char *why, size_t whylen)
{
    char path[1024], key[256];
    dmsg_xfer_profile p;
    if (!dmsg_xfer_profile_path(path, sizeof path)) {
        snprintf(why, whylen, "built-in blocking (no profile path: HOME unset)");
        return 0;
    }
    /* No profile is the usual case, not an error (no detail, no diagnostic). */
    if (access(path, F_OK) != 0) {
        snprintf(why, whylen, "built-in blocking (%s: %s)", path, strerror(errno));
        return 0;
    }
    if (dmsg_xfer_profile_read(path, &p) != DMSG_OK) {
        snprintf(why, whylen, "built-in blocking (%s)", dmsg_last_error());
        return 0;
    }
    dmsg_xfer_host_key(key, sizeof key);
    if (strcmp(key, p.key) != 0) {
        snprintf(why, whylen, "built-in blocking (%s was measured on another host: %.80s)", path,
                 p.key);
        return 0;
    }
    memcpy(xp->tune, p.tune, sizeof xp->tune);
    int n = snprintf(why, whylen, "host profile %s: tile bytes/line blocks (0 = built-in; "
                     "blocks 1 on, 2 off) for 4/8/16-byte elements, small and large planes:",
                     path);
    for (int c = 0; c < DMSG_XFER_CLASSES; c++)
        for (int z = 0; z < DMSG_XFER_SIZES && n > 0 && (size_t)n < whylen; z++)
            n += snprintf(why + n, whylen - (size_t)n, " %u/%u", p.tune[c][z].tile_bytes,
                          p.tune[c][z].blocks);
    return 1;
}
