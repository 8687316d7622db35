/*
 * postal-bench.c - dmsg's side of tools/bench-pvm.sh: the same ping-pong and
 * strided exchange as pvm-bench.c (bench.h), under dmsgrun, with the postal
 * baseline (dmsg_postal.h), RRMSG (dmsg_rr.h) and deposits (dmsg.h).
 *
 *   postal-bench pingpong [MODE [BYTES]]
 *                                 2 PEs: "PP LIB MODE BYTES US" (half round trip);
 *                                 MODE (pack, bytes, send, posted or deposit) and BYTES
 *                                 (one of the sizes) run that one only
 *   postal-bench strided [MODE]   any PEs: "SX LIB MODE NP US" (per exchange);
 *                                 MODE (pack, send or deposit) runs that one only
 *   postal-bench cpu MODE BYTES [ROUND_TRIPS] [ROUNDS]
 *                                 2 PEs: ROUNDS (default 1) runs of ROUND_TRIPS
 *                                 (default 20000) round trips of one mode, each
 *                                 PE printing "CPU LIB MODE BYTES PE US CPU_US
 *                                 USER_US CSW" per run: the half round trip
 *                                 (wall), its CPU time (user + system, getrusage),
 *                                 of it user time, and context switches per round
 *                                 trip: on a loaded host the CPU times are the
 *                                 steadier measure (user time: the libraries' own
 *                                 work, without the system calls of waits)
 *
 * Modes: postal pack (initsend, pk_byte, send; recv, upk_byte: PVM's way)
 * and postal bytes (send_bytes / recv_bytes: psend / precv); rrmsg send /
 * recv (blocking: request, response, data, acknowledgement) into a symmetric
 * buffer, and rrmsg posted (each receive posted before the PE's send, as
 * RRMSG programs are told to: its response goes ahead of the request);
 * dmsg deposit (a deposit and an await of its counter; the ping-pong's
 * answer is the next deposit's clearance). Strided: postal packs the block's
 * rows and sends; RRMSG sends the block as a section into the posted
 * receive; dmsg deposits the section after a barrier (the clearance) and
 * awaits its counter.
 */
#include "bench.h"

#include <dmsg.h>
#include <dmsg_postal.h>
#include <dmsg_rr.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static int g_me, g_np;

#define CK(call)                                                                                   \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != DMSG_OK) {                                                                      \
            fprintf(stderr, "postal-bench PE %d: %s: %s\n", g_me, #call, dmsg_strerror(rc_));      \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

enum { M_PACK, M_BYTES, M_RR, M_RR_POSTED, M_DMSG, M_COUNT };
static const char *lib_name[M_COUNT] = {"postal", "postal", "rrmsg", "rrmsg", "dmsg"};
static const char *mode_name[M_COUNT] = {"pack", "bytes", "send", "posted", "deposit"};

static dmsg_ctr g_ctr;

static void pp_send(int mode, const char *buf, size_t bytes, int to, char *sym)
{
    switch (mode) {
    case M_PACK:
        CK(dmsg_postal_initsend());
        CK(dmsg_postal_pk_byte((const int8_t *)buf, (long)bytes, 1));
        CK(dmsg_postal_send(to, 1));
        break;
    case M_BYTES: CK(dmsg_postal_send_bytes(to, 1, buf, bytes)); break;
    case M_RR:
    case M_RR_POSTED: CK(dmsg_rr_send(to, 1, buf, bytes)); break;
    default: CK(dmsg_deposit(sym, buf, bytes, to, g_ctr)); break;
    }
}

/* RRMSG's own idiom (dmsg_rr.h: post receives early): each PE's receive is
 * posted before its send, so its response goes ahead of its data and the
 * partner's answer needs no request round trip. */
static dmsg_rr_req g_posted;

static void pp_post(int mode, size_t bytes, int from, char *sym)
{
    if (mode == M_RR_POSTED)
        CK(dmsg_rr_irecv(from, 1, sym, bytes, &g_posted));
}

static void pp_recv(int mode, char *buf, size_t bytes, int from, char *sym)
{
    switch (mode) {
    case M_PACK:
        CK(dmsg_postal_recv(from, 1, NULL));
        CK(dmsg_postal_upk_byte((int8_t *)buf, (long)bytes, 1));
        break;
    case M_BYTES: CK(dmsg_postal_recv_bytes(from, 1, buf, bytes, NULL)); break;
    case M_RR: CK(dmsg_rr_recv(from, 1, sym, bytes, NULL)); break;
    case M_RR_POSTED: CK(dmsg_rr_wait(&g_posted, NULL)); break;
    default: CK(dmsg_await(g_ctr, 1)); break;
    }
}

/* Round trip i of n: PE 0 posts, sends and receives; PE 1 receives and
 * answers, its next receive posted before its send (the posted mode's
 * idiom: the partner's next message finds it). */
static void pp_round(int mode, char *sbuf, char *rbuf, size_t bytes, int peer, char *sym, int i,
                     int n)
{
    if (g_me == 0) {
        pp_post(mode, bytes, peer, sym);
        pp_send(mode, sbuf, bytes, peer, sym);
        pp_recv(mode, rbuf, bytes, peer, sym);
    } else {
        if (i == 0)
            pp_post(mode, bytes, peer, sym);
        pp_recv(mode, rbuf, bytes, peer, sym);
        if (i + 1 < n)
            pp_post(mode, bytes, peer, sym); /* the next round's, before the send */
        pp_send(mode, sbuf, bytes, peer, sym);
    }
}

/* only_mode: NULL or a mode name (runs that one); only_bytes: 0 or the one
 * size to run (profiling one cell: tools/bench-pvm.sh runs them all). */
static void pingpong(const char *only_mode, size_t only_bytes)
{
    char *sbuf = pb_malloc(PB_MAX), *rbuf = pb_malloc(PB_MAX), *sym;
    CK(dmsg_alloc(PB_MAX, (void **)&sym));
    memset(sbuf, 7, PB_MAX);
    int peer = 1 - g_me;
    for (size_t bytes = PB_MIN; bytes <= PB_MAX; bytes = pb_next(bytes))
        for (int mode = 0; mode < M_COUNT; mode++) {
            if ((only_mode && strcmp(only_mode, mode_name[mode])) ||
                (only_bytes && only_bytes != bytes))
                continue;
            int reps = pb_reps(bytes);
            double best = 1e30;
            memset(rbuf, 0, bytes);
            memset(sym, 0, bytes);
            for (int bt = -1; bt < PB_BATCHES; bt++) {
                CK(dmsg_postal_barrier());
                double t0 = pb_now();
                for (int i = 0; i < reps; i++)
                    pp_round(mode, sbuf, rbuf, bytes, peer, sym, i, reps);
                double t = (pb_now() - t0) / reps / 2;
                if (bt >= 0 && t < best) best = t;
            }
            const char *got = mode == M_PACK || mode == M_BYTES ? rbuf : sym;
            if (got[bytes - 1] != 7) {
                fprintf(stderr, "postal-bench: ping-pong data wrong (%s)\n", lib_name[mode]);
                exit(1);
            }
            if (g_me == 0)
                printf("PP %s %s %zu %.3f\n", lib_name[mode], mode_name[mode], bytes, best * 1e6);
        }
    CK(dmsg_free(sym));
    free(sbuf);
    free(rbuf);
}

static int mode_of(const char *name)
{
    for (int m = 0; m < M_COUNT; m++)
        if (!strcmp(name, mode_name[m]))
            return m;
    fprintf(stderr, "postal-bench: no mode %s\n", name);
    exit(2);
}

static double cpu_seconds(long *csw, double *user)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    *csw = ru.ru_nvcsw + ru.ru_nivcsw;
    *user = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec;
    return *user + (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

/* One mode and size, n round trips a run, CPU time beside the wall time:
 * the loaded host's wall times swing 2x, its CPU times much less. */
static void cpu_pingpong(int mode, size_t bytes, int n, int runs)
{
    char *sbuf = pb_malloc(bytes), *rbuf = pb_malloc(bytes), *sym;
    CK(dmsg_alloc(bytes, (void **)&sym));
    memset(sbuf, 7, bytes);
    memset(sym, 0, bytes);
    int peer = 1 - g_me;
    for (int run = 0; run < runs; run++) {
        CK(dmsg_postal_barrier());
        long csw0, csw1;
        double u0, u1, c0 = cpu_seconds(&csw0, &u0), t0 = pb_now();
        for (int i = 0; i < n; i++)
            pp_round(mode, sbuf, rbuf, bytes, peer, sym, i, n);
        double t = pb_now() - t0, c = cpu_seconds(&csw1, &u1) - c0;
        printf("CPU %s %s %zu %d %.3f %.3f %.3f %.2f\n", lib_name[mode], mode_name[mode], bytes,
               g_me, t / n / 2 * 1e6, c / n * 1e6, (u1 - u0) / n * 1e6,
               (double)(csw1 - csw0) / n);
        fflush(stdout);
    }
    const char *got = mode == M_PACK || mode == M_BYTES ? rbuf : sym;
    if (got[bytes - 1] != 7) {
        fprintf(stderr, "postal-bench: ping-pong data wrong (%s)\n", lib_name[mode]);
        exit(1);
    }
    CK(dmsg_free(sym));
    free(sbuf);
    free(rbuf);
}

static void exchange(int mode, const double *src, double *res, size_t b, dmsg_rr_req *req)
{
    size_t n = SX_N;
    int me = g_me, np = g_np, nreq = 0;
    const ptrdiff_t e = sizeof(double);
    dmsg_layout sl = {.ndims = 2, .count = {b, b}, .stride = {e, (ptrdiff_t)(n * sizeof(double))}};
    dmsg_layout dl = {.ndims = 2, .count = {b, b}, .stride = {e, (ptrdiff_t)(b * sizeof(double))}};
    if (mode == M_DMSG) CK(dmsg_sync()); /* clearance: every result buffer is free */
    if (mode == M_RR)
        for (int k = 1; k < np; k++) {
            int s = (me + np - k) % np;
            CK(dmsg_rr_irecv(s, 2, res + (size_t)s * b * b, b * b * sizeof(double), &req[nreq++]));
        }
    for (int k = 1; k < np; k++) {
        int q = (me + k) % np;
        const double *blk = src + (size_t)q * b;
        if (mode == M_PACK) {
            CK(dmsg_postal_initsend());
            for (size_t r = 0; r < b; r++)
                CK(dmsg_postal_pk_double(blk + r * n, (long)b, 1));
            CK(dmsg_postal_send(q, 2));
        } else if (mode == M_RR) {
            CK(dmsg_rr_isend_section(q, 2, blk, &sl, sizeof(double), &req[nreq++]));
        } else {
            CK(dmsg_deposit_section(res + (size_t)me * b * b, &dl, blk, &sl, sizeof(double), q,
                                    g_ctr));
        }
    }
    for (size_t r = 0; r < b; r++) /* my own block */
        memcpy(res + ((size_t)me * b + r) * b, src + r * n + (size_t)me * b, b * sizeof(double));
    if (mode == M_PACK)
        for (int k = 1; k < np; k++) {
            int s = (me + np - k) % np;
            CK(dmsg_postal_recv(s, 2, NULL));
            CK(dmsg_postal_upk_double(res + (size_t)s * b * b, (long)(b * b), 1));
        }
    else if (mode == M_RR)
        CK(dmsg_rr_waitall(nreq, req, NULL));
    else if (np > 1)
        CK(dmsg_await(g_ctr, (uint64_t)(np - 1)));
}

static void strided(const char *only)
{
    size_t n = SX_N, b = n / (size_t)g_np;
    double *src = pb_malloc(b * n * sizeof(double)), *res;
    dmsg_rr_req *req = pb_malloc(2 * (size_t)g_np * sizeof *req);
    CK(dmsg_alloc(n * b * sizeof(double), (void **)&res));
    for (size_t r = 0; r < b; r++)
        for (size_t c = 0; c < n; c++)
            src[r * n + c] = sx_val((size_t)g_me * b + r, c);
    static const int modes[] = {M_PACK, M_RR, M_DMSG};
    for (int i = 0; i < 3; i++) {
        int mode = modes[i];
        if (only && strcmp(only, mode_name[mode]))
            continue;
        double best = 1e30;
        CK(dmsg_postal_barrier());
        memset(res, 0, n * b * sizeof(double));
        for (int it = 0; it < SX_WARM + SX_ITERS; it++) {
            CK(dmsg_postal_barrier());
            double t0 = pb_now();
            exchange(mode, src, res, b, req);
            CK(dmsg_postal_barrier());
            double t = pb_now() - t0;
            if (it >= SX_WARM && t < best) best = t;
        }
        if (!sx_check(res, b, g_me)) exit(1);
        if (g_me == 0) printf("SX %s %s %d %.3f\n", lib_name[mode], mode_name[mode], g_np, best * 1e6);
    }
    CK(dmsg_free(res));
    free(src);
    free(req);
}

int main(int argc, char **argv)
{
    int cpu = argc > 1 && !strcmp(argv[1], "cpu");
    if (argc < 2 || (strcmp(argv[1], "pingpong") && strcmp(argv[1], "strided") && !cpu) ||
        (cpu && (argc < 4 || !strtoull(argv[3], NULL, 10)))) {
        fprintf(stderr, "usage: dmsgrun -n NP postal-bench pingpong [pack|bytes|send|posted|deposit "
                        "[BYTES]] | strided [pack|send|deposit] | cpu MODE BYTES [ROUND_TRIPS "
                        "[ROUNDS]]\n");
        return 2;
    }
    int cpu_mode = cpu ? mode_of(argv[2]) : 0;
    CK(dmsg_init());
    g_me = dmsg_pe();
    g_np = dmsg_npes();
    CK(dmsg_ctr_create(&g_ctr));
    CK(dmsg_postal_init());
    CK(dmsg_rr_init());
    int pp = !strcmp(argv[1], "pingpong") || cpu;
    if ((pp && g_np != 2) || SX_N % g_np) {
        fprintf(stderr, "postal-bench: %d PEs\n", g_np);
        return 2;
    }
    if (cpu)
        cpu_pingpong(cpu_mode, (size_t)strtoull(argv[3], NULL, 10),
                     argc > 4 ? atoi(argv[4]) : 20000, argc > 5 ? atoi(argv[5]) : 1);
    else if (pp)
        pingpong(argc > 2 ? argv[2] : NULL, argc > 3 ? (size_t)strtoull(argv[3], NULL, 10) : 0);
    else
        strided(argc > 2 ? argv[2] : NULL);
    fflush(stdout);
    CK(dmsg_rr_finalize());
    CK(dmsg_postal_finalize());
    CK(dmsg_ctr_destroy(g_ctr));
    CK(dmsg_finalize());
    return 0;
}
