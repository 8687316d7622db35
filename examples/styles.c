/* styles: one neighbour exchange in three styles, side by side on the same
 * data and transport: dmsg deposits with counters, postal send/receive
 * (dmsg_postal.h) and RRMSG request/response (dmsg_rr.h).
 *
 *   dmsgrun -n 4 styles [N [ITERS [STYLE [sync]]]]   STYLE: dmsg, postal, rrmsg or all
 *
 * With `sync`, every iteration ends with a dmsg_sync: the PEs run in lock
 * step, which a simulated machine times exactly (docs/baselines.md, Limits).
 *
 * Every PE sends a row of N doubles to each ring neighbour per iteration and
 * checks what it got. PE 0 prints the time per iteration of each style and
 * its ratio to dmsg (virtual time on a simulated machine). docs/baselines.md
 * explains the styles. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dmsg.h"
#include "dmsg_postal.h"
#include "dmsg_rr.h"
#include "check.h"

static int me, np, up, down, lock;
static size_t n;
static double *row, *ghost; /* ghost: symmetric, [parity][below, above][n] */

static double val(int pe, int it, size_t i)
{
    return pe * 1e6 + it * 1e3 + (double)i;
}

static void fill(int it)
{
    for (size_t i = 0; i < n; i++)
        row[i] = val(me, it, i);
}

static int verify(const double *below, const double *above, int it, const char *style)
{
    for (size_t i = 0; i < n; i++)
        if (below[i] != val(down, it, i) || above[i] != val(up, it, i)) {
            fprintf(stderr, "PE %d: %s: iteration %d element %zu wrong\n", me, style, it, i);
            return 1;
        }
    return 0;
}

/* dmsg: deposit into the neighbours' ghost rows; the counter of the
 * iteration's parity says both have landed. A neighbour's deposit of
 * iteration k proves it has read its ghosts of k - 1, so buffers of one
 * parity are free again two iterations later: no barrier. */
static int run_dmsg(int iters, dmsg_ctr ctr[2])
{
    for (int it = 0; it < iters; it++) {
        int p = it & 1;
        double *mine = ghost + (size_t)p * 2 * n;
        fill(it);
        CHECK(dmsg_deposit(mine + n, row, n * sizeof *row, down, ctr[p])); /* my row is down's above */
        CHECK(dmsg_deposit(mine, row, n * sizeof *row, up, ctr[p]));       /* and up's below */
        CHECK(dmsg_await(ctr[p], 2));
        if (verify(mine, mine + n, it, "dmsg"))
            return 1;
        if (lock)
            CHECK(dmsg_sync());
    }
    return 0;
}

/* postal: buffered messages matched by source and tag. */
static int run_postal(int iters)
{
    for (int it = 0; it < iters; it++) {
        fill(it);
        CHECK(dmsg_postal_send_bytes(up, 2 * it, row, n * sizeof *row));
        CHECK(dmsg_postal_send_bytes(down, 2 * it + 1, row, n * sizeof *row));
        CHECK(dmsg_postal_recv_bytes(down, 2 * it, ghost, n * sizeof *row, NULL));
        CHECK(dmsg_postal_recv_bytes(up, 2 * it + 1, ghost + n, n * sizeof *row, NULL));
        if (verify(ghost, ghost + n, it, "postal"))
            return 1;
        if (lock)
            CHECK(dmsg_sync());
    }
    return 0;
}

/* RRMSG: receives posted first, then sends; each transfer is request,
 * response, data, acknowledgement. */
static int run_rr(int iters)
{
    for (int it = 0; it < iters; it++) {
        dmsg_rr_req r[4];
        fill(it);
        CHECK(dmsg_rr_irecv(down, 2 * it, ghost, n * sizeof *row, &r[0]));
        CHECK(dmsg_rr_irecv(up, 2 * it + 1, ghost + n, n * sizeof *row, &r[1]));
        CHECK(dmsg_rr_isend(up, 2 * it, row, n * sizeof *row, &r[2]));
        CHECK(dmsg_rr_isend(down, 2 * it + 1, row, n * sizeof *row, &r[3]));
        CHECK(dmsg_rr_waitall(4, r, NULL));
        if (verify(ghost, ghost + n, it, "rrmsg"))
            return 1;
        if (lock)
            CHECK(dmsg_sync());
    }
    return 0;
}

int main(int argc, char **argv)
{
    n = argc > 1 ? (size_t)atol(argv[1]) : 1024;
    int iters = argc > 2 ? atoi(argv[2]) : 100;
    const char *only = argc > 3 && strcmp(argv[3], "all") ? argv[3] : NULL;
    const char *names[3] = {"dmsg", "postal", "rrmsg"};
    lock = argc > 4 && !strcmp(argv[4], "sync");
    if (n == 0 || iters < 1 || (argc > 4 && !lock) ||
        (only && strcmp(only, names[0]) && strcmp(only, names[1]) && strcmp(only, names[2]))) {
        fprintf(stderr, "usage: styles [N [ITERS [dmsg|postal|rrmsg|all [sync]]]]\n");
        return 2;
    }
    CHECK(dmsg_init());
    me = dmsg_pe();
    np = dmsg_npes();
    up = (me + 1) % np;
    down = (me + np - 1) % np;
    row = malloc(n * sizeof *row);
    if (!row) {
        fprintf(stderr, "PE %d: out of memory\n", me);
        return 1;
    }
    CHECK(dmsg_alloc(4 * n * sizeof *ghost, (void **)&ghost));
    dmsg_ctr ctr[2];
    CHECK(dmsg_ctr_create(&ctr[0]));
    CHECK(dmsg_ctr_create(&ctr[1]));
    CHECK(dmsg_postal_init());
    CHECK(dmsg_rr_init());

    double t[3] = {0, 0, 0};
    for (int s = 0; s < 3; s++) {
        if (only && strcmp(only, names[s]))
            continue;
        CHECK(dmsg_sync());
        double t0 = dmsg_wtime();
        int bad = s == 0 ? run_dmsg(iters, ctr) : s == 1 ? run_postal(iters) : run_rr(iters);
        if (bad)
            return 1;
        t[s] = (dmsg_wtime() - t0) / iters;
        CHECK(dmsg_sync()); /* nobody deposits into the ghosts of the next style early */
    }
    if (me == 0) {
        printf("styles: %d PEs, rows of %zu doubles to both neighbours, %d iterations%s (%s)\n",
               np, n, iters, lock ? " in lock step" : "", dmsg_transport_name());
        for (int s = 0; s < 3; s++)
            if (!only || !strcmp(only, names[s]))
                printf("  %-7s %10.2f us per iteration  %6.2f x dmsg\n", names[s], t[s] * 1e6,
                       t[0] > 0 ? t[s] / t[0] : 0.0);
    }
    CHECK(dmsg_rr_finalize());
    CHECK(dmsg_postal_finalize());
    CHECK(dmsg_ctr_destroy(ctr[1]));
    CHECK(dmsg_ctr_destroy(ctr[0]));
    CHECK(dmsg_free(ghost));
    free(row);
    CHECK(dmsg_finalize());
    return 0;
}
