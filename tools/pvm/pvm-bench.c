/*
 * pvm-bench.c - the real PVM 3's side of tools/bench-pvm.sh, linked with
 * libpvm3 (built without the tree's include/, so that the system's pvm3.h
 * is used). Started as the first task of a running pvmd (tools/pvm/pvmd.sh);
 * it spawns the others as lib_pvm.c does. Every task asks for direct routes.
 *
 *   pvm-bench pingpong            2 tasks; per size and packing mode the half
 *                                 round trip: "PP pvm MODE BYTES US"
 *   pvm-bench strided NP [MODE]   NP tasks; the strided exchange (bench.h):
 *                                 "SX pvm MODE NP US" (per exchange)
 *
 * Modes: raw (PvmDataRaw: pack copies), inplace (PvmDataInPlace: the send
 * reads the user's memory), psend (pvm_psend / pvm_precv, ping-pong only).
 * The receiver always unpacks into its own buffer.
 */
#include "bench.h"

#include <stdio.h> /* before pvm3.h, which declares pvm_catchout only after it */
#include <pvm3.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_TIDS = 900, TAG_BAR, TAG_PP, TAG_SX };

static int g_me, g_np, *g_tid;

#define PVK(call)                                                                                  \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ < 0) {                                                                             \
            fprintf(stderr, "pvm-bench: %s: PVM error %d\n", #call, rc_);                          \
            pvm_exit();                                                                            \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* As lib_pvm.c: the first task spawns np - 1 copies and multicasts the table. */
static void start(int argc, char **argv, int np)
{
    int me = pvm_mytid();
    if (me < 0) {
        fprintf(stderr, "pvm-bench: pvm_mytid: PVM error %d (is a pvmd running?)\n", me);
        exit(1);
    }
    PVK(pvm_setopt(PvmRoute, PvmRouteDirect));
    int parent = pvm_parent();
    if (parent == PvmNoParent) {
        g_np = np;
        g_tid = pb_malloc((size_t)np * sizeof(int));
        g_tid[0] = me;
        PVK(pvm_catchout(stderr));
        if (np > 1) {
            char *self = realpath(argv[0], NULL);
            int got = self ? pvm_spawn(self, argv + 1, PvmTaskDefault, "", np - 1, g_tid + 1) : -1;
            free(self);
            if (got != np - 1) {
                fprintf(stderr, "pvm-bench: pvm_spawn started %d of %d tasks\n", got, np - 1);
                for (int i = 1; i <= got; i++)
                    pvm_kill(g_tid[i]);
                pvm_exit();
                exit(1);
            }
            PVK(pvm_initsend(PvmDataDefault));
            PVK(pvm_pkint(&g_np, 1, 1));
            PVK(pvm_pkint(g_tid, g_np, 1));
            PVK(pvm_mcast(g_tid + 1, g_np - 1, TAG_TIDS));
        }
        g_me = 0;
        return;
    }
    (void)argc;
    PVK(pvm_recv(parent, TAG_TIDS));
    PVK(pvm_upkint(&g_np, 1, 1));
    g_tid = pb_malloc((size_t)g_np * sizeof(int));
    PVK(pvm_upkint(g_tid, g_np, 1));
    for (int i = 0; i < g_np; i++)
        if (g_tid[i] == me) g_me = i;
}

static void barrier(void)
{
    for (int d = 1; d < g_np; d *= 2) {
        PVK(pvm_initsend(PvmDataRaw));
        PVK(pvm_send(g_tid[(g_me + d) % g_np], TAG_BAR));
        PVK(pvm_recv(g_tid[(g_me + g_np - d) % g_np], TAG_BAR));
    }
}

enum { M_RAW, M_INPLACE, M_PSEND, M_COUNT };
static const char *mode_name[M_COUNT] = {"raw", "inplace", "psend"};

static void pp_send(int mode, const char *buf, size_t bytes, int to)
{
    if (mode == M_PSEND) {
        PVK(pvm_psend(g_tid[to], TAG_PP, (void *)buf, (int)bytes, PVM_BYTE));
        return;
    }
    PVK(pvm_initsend(mode == M_RAW ? PvmDataRaw : PvmDataInPlace));
    PVK(pvm_pkbyte((char *)buf, (int)bytes, 1));
    PVK(pvm_send(g_tid[to], TAG_PP));
}

static void pp_recv(int mode, char *buf, size_t bytes, int from)
{
    if (mode == M_PSEND) {
        int tid, tag, got;
        PVK(pvm_precv(g_tid[from], TAG_PP, buf, (int)bytes, PVM_BYTE, &tid, &tag, &got));
        return;
    }
    PVK(pvm_recv(g_tid[from], TAG_PP));
    PVK(pvm_upkbyte(buf, (int)bytes, 1));
}

static void pingpong(void)
{
    char *sbuf = pb_malloc(PB_MAX), *rbuf = pb_malloc(PB_MAX);
    memset(sbuf, 7, PB_MAX);
    int peer = 1 - g_me;
    for (size_t bytes = PB_MIN; bytes <= PB_MAX; bytes = pb_next(bytes))
        for (int mode = 0; mode < M_COUNT; mode++) {
            int reps = pb_reps(bytes);
            double best = 1e30;
            for (int bt = -1; bt < PB_BATCHES; bt++) { /* batch -1 warms up */
                barrier();
                double t0 = pb_now();
                for (int i = 0; i < reps; i++) {
                    if (g_me == 0) {
                        pp_send(mode, sbuf, bytes, peer);
                        pp_recv(mode, rbuf, bytes, peer);
                    } else {
                        pp_recv(mode, rbuf, bytes, peer);
                        pp_send(mode, sbuf, bytes, peer);
                    }
                }
                double t = (pb_now() - t0) / reps / 2;
                if (bt >= 0 && t < best) best = t;
            }
            if (rbuf[bytes - 1] != 7) {
                fprintf(stderr, "pvm-bench: ping-pong data wrong\n");
                exit(1);
            }
            if (g_me == 0) printf("PP pvm %s %zu %.3f\n", mode_name[mode], bytes, best * 1e6);
        }
    free(sbuf);
    free(rbuf);
}

static void strided(const char *only)
{
    size_t n = SX_N, b = n / (size_t)g_np;
    double *src = pb_malloc(b * n * sizeof(double)), *res = pb_malloc(n * b * sizeof(double));
    double *stage = pb_malloc(b * b * sizeof(double));
    for (size_t r = 0; r < b; r++)
        for (size_t c = 0; c < n; c++)
            src[r * n + c] = sx_val((size_t)g_me * b + r, c);
    for (int mode = M_RAW; mode <= M_INPLACE; mode++) {
        if (only && strcmp(only, mode_name[mode])) continue;
        double best = 1e30;
        memset(res, 0, n * b * sizeof(double));
        for (int it = 0; it < SX_WARM + SX_ITERS; it++) {
            barrier();
            double t0 = pb_now();
            for (int k = 1; k < g_np; k++) {
                int q = (g_me + k) % g_np;
                if (mode == M_RAW) {
                    PVK(pvm_initsend(PvmDataRaw));
                    for (size_t r = 0; r < b; r++)
                        PVK(pvm_pkdouble(src + r * n + (size_t)q * b, (int)b, 1));
                } else {
                    /* In place, the block's rows are gathered by the user
                     * first: PVM 3.4.6 crashes in pvm_send when an in-place
                     * message has more than a few dozen pieces (128 pk
                     * calls of 1024 doubles do it). pvm_send has read the
                     * buffer when it returns, so one buffer serves all. */
                    for (size_t r = 0; r < b; r++)
                        memcpy(stage + r * b, src + r * n + (size_t)q * b, b * sizeof(double));
                    PVK(pvm_initsend(PvmDataInPlace));
                    PVK(pvm_pkdouble(stage, (int)(b * b), 1));
                }
                PVK(pvm_send(g_tid[q], TAG_SX));
            }
            for (size_t r = 0; r < b; r++) /* my own block */
                memcpy(res + ((size_t)g_me * b + r) * b, src + r * n + (size_t)g_me * b,
                       b * sizeof(double));
            for (int k = 1; k < g_np; k++) {
                int s = (g_me + g_np - k) % g_np;
                PVK(pvm_recv(g_tid[s], TAG_SX));
                PVK(pvm_upkdouble(res + (size_t)s * b * b, (int)(b * b), 1));
            }
            barrier();
            double t = pb_now() - t0;
            if (it >= SX_WARM && t < best) best = t;
        }
        if (!sx_check(res, b, g_me)) exit(1);
        if (g_me == 0) printf("SX pvm %s %d %.3f\n", mode_name[mode], g_np, best * 1e6);
    }
    free(src);
    free(res);
    free(stage);
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "pingpong") && (strcmp(argv[1], "strided") || argc < 3))) {
        fprintf(stderr, "usage: pvm-bench pingpong | strided NP [raw|inplace] (under a pvmd)\n");
        return 2;
    }
    int pp = !strcmp(argv[1], "pingpong");
    start(argc, argv, pp ? 2 : atoi(argv[2]));
    if (g_np < 1 || (!pp && SX_N % g_np)) {
        fprintf(stderr, "pvm-bench: %d tasks\n", g_np);
        return 2;
    }
    if (pp)
        pingpong();
    else
        strided(argc > 3 ? argv[3] : NULL);
    fflush(stdout);
    barrier();
    pvm_exit();
    return 0;
}
