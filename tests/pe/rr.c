/* The RRMSG baseline on several PEs: a dense all-to-all of transposed
 * blocks (receives posted first, sections at both ends), neighbour
 * exchanges with blocking sends, indexed sources, wildcards and the refusal
 * of a request that does not fit, all checked element by element. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "dmsg_rr.h"
#include "pe.h"

/* PE_BASELINE_ITERS caps the iterations (as in postal.c). */
static int iters(int want)
{
    const char *v = getenv("PE_BASELINE_ITERS");
    int cap = v ? atoi(v) : want;
    return cap > 0 && cap < want ? cap : want;
}

static double val(int from, int to, int r, long i)
{
    return (double)from * 1e6 + (double)to * 1e4 + (double)r * 1e2 + (double)i * 1e-3;
}

/* B = transpose(A) by blocks of b x b: every PE posts a section receive per
 * source, then sends every partner its block column as a section, transposed
 * at the destination. */
static int alltoall(void)
{
    int n = pe_n(), me = pe_me();
    const size_t b = 24;
    size_t row = b * (size_t)n; /* doubles per row of the local row block */
    double *a = malloc(b * row * sizeof *a);
    double *bm = pe_alloc(b * row * sizeof *bm);
    dmsg_rr_req *reqs = malloc(2 * (size_t)n * sizeof *reqs);
    dmsg_rr_info *infos = malloc(2 * (size_t)n * sizeof *infos);
    PE_CHECK(a && bm && reqs && infos, "allocation");
    PE_OK(dmsg_rr_init());
    for (int rnd = 0; rnd < 3; rnd++) {
        for (size_t i = 0; i < b; i++)
            for (size_t j = 0; j < row; j++)
                a[i * row + j] = val(me, (int)(j / b), rnd, (long)(i * row + j));
        for (size_t k = 0; k < b * row; k++)
            bm[k] = -1;
        for (int k = 0; k < n; k++) {
            int from = (me - k + n) % n;
            /* from's block lands transposed in columns from*b .. from*b + b - 1 */
            dmsg_layout dl = pe_l2(b, (ptrdiff_t)(row * 8), b, 8);
            PE_OK(dmsg_rr_irecv_section(from, rnd, bm + (size_t)from * b, &dl, 8, &reqs[k]));
        }
        for (int k = 0; k < n; k++) {
            int to = (me + k) % n;
            dmsg_layout sl = pe_l2(b, 8, b, (ptrdiff_t)(row * 8));
            PE_OK(dmsg_rr_isend_section(to, rnd, a + (size_t)to * b, &sl, 8, &reqs[n + k]));
        }
        PE_OK(dmsg_rr_waitall(2 * n, reqs, infos));
        for (int k = 0; k < n; k++) {
            int from = (me - k + n) % n;
            PE_CHECK(infos[k].src == from && infos[k].tag == rnd && infos[k].bytes == b * b * 8,
                     "receive from %d: info %d/%d/%zu", from, infos[k].src, infos[k].tag,
                     infos[k].bytes);
        }
        for (size_t i = 0; i < b; i++)
            for (int from = 0; from < n; from++)
                for (size_t j = 0; j < b; j++) {
                    /* bm[i][from*b + j] = A_from[j][me*b + i] */
                    double want = val(from, me, rnd, (long)(j * row + (size_t)me * b + i));
                    double got = bm[i * row + (size_t)from * b + j];
                    PE_CHECK(got == want, "round %d: B[%zu][%zu] from %d: %g, expected %g", rnd,
                             i, (size_t)from * b + j, from, got, want);
                }
    }
    dmsg_rr_stats st;
    PE_OK(dmsg_rr_stats_get(&st));
    PE_CHECK(st.sends == 3 * (uint64_t)n && st.recvs == 3 * (uint64_t)n, "stats %llu sends %llu recvs",
             (unsigned long long)st.sends, (unsigned long long)st.recvs);
    PE_OK(dmsg_rr_finalize());
    PE_OK(dmsg_free(bm));
    free(a);
    free(reqs);
    free(infos);
    return 0;
}

/* Ring neighbours: post both receives, blocking sends both ways, wait. */
static int neighbour(void)
{
    int me = pe_me(), up = pe_up(1), down = pe_down(1);
    const size_t cnt = 1000;
    double *ghost = pe_alloc(2 * cnt * sizeof *ghost), *row = malloc(cnt * sizeof *row);
    PE_CHECK(ghost && row, "allocation");
    PE_OK(dmsg_rr_init());
    for (int it = 0; it < iters(20); it++) {
        dmsg_rr_req r[2];
        PE_OK(dmsg_rr_irecv(down, 1, ghost, cnt * 8, &r[0]));
        PE_OK(dmsg_rr_irecv(up, 2, ghost + cnt, cnt * 8, &r[1]));
        for (size_t i = 0; i < cnt; i++)
            row[i] = val(me, up, it, (long)i);
        PE_OK(dmsg_rr_send(up, 1, row, cnt * 8));
        for (size_t i = 0; i < cnt; i++)
            row[i] = val(me, down, it, (long)i);
        PE_OK(dmsg_rr_send(down, 2, row, cnt * 8));
        PE_OK(dmsg_rr_waitall(2, r, NULL));
        for (size_t i = 0; i < cnt; i++) {
            PE_CHECK(ghost[i] == val(down, me, it, (long)i), "it %d from below %zu", it, i);
            PE_CHECK(ghost[cnt + i] == val(up, me, it, (long)i), "it %d from above %zu", it, i);
        }
    }
    PE_OK(dmsg_rr_finalize());
    PE_OK(dmsg_free(ghost));
    free(row);
    return 0;
}

/* Indexed sources into a contiguous and into a strided destination, from
 * any source; a request larger than the receive is refused on both sides. */
static int indexed_and_errors(void)
{
    int me = pe_me(), up = pe_up(1), down = pe_down(1);
    const size_t cnt = 300;
    int64_t *src = malloc(2 * cnt * sizeof *src);
    size_t *idx = malloc(cnt * sizeof *idx);
    int64_t *dst = pe_alloc(3 * cnt * sizeof *dst);
    PE_CHECK(src && idx && dst, "allocation");
    for (size_t i = 0; i < 2 * cnt; i++)
        src[i] = me * 100000 + (int64_t)i;
    for (size_t i = 0; i < cnt; i++)
        idx[i] = (i * 7) % (2 * cnt);
    PE_OK(dmsg_rr_init());
    dmsg_rr_req r[2];
    dmsg_rr_info info;
    /* contiguous destination */
    PE_OK(dmsg_rr_irecv(DMSG_RR_ANY, 5, dst, cnt * 8, &r[0]));
    PE_OK(dmsg_rr_isend_gathered(up, 5, src, idx, cnt, 8, &r[1]));
    PE_OK(dmsg_rr_wait(&r[1], NULL));
    PE_OK(dmsg_rr_wait(&r[0], &info));
    PE_CHECK(info.src == down && info.tag == 5 && info.bytes == cnt * 8, "info %d %d %zu",
             info.src, info.tag, info.bytes);
    for (size_t i = 0; i < cnt; i++)
        PE_CHECK(dst[i] == down * 100000 + (int64_t)idx[i], "gathered element %zu", i);
    /* every third element of a strided destination */
    for (size_t i = 0; i < 3 * cnt; i++)
        dst[i] = -7;
    dmsg_layout dl = pe_l1(cnt, 24);
    PE_OK(dmsg_rr_irecv_section(down, DMSG_RR_ANY, dst, &dl, 8, &r[0]));
    PE_OK(dmsg_rr_isend_gathered(up, 6, src, idx, cnt, 8, &r[1]));
    PE_OK(dmsg_rr_waitall(2, r, NULL));
    for (size_t i = 0; i < 3 * cnt; i++)
        PE_CHECK(dst[i] == (i % 3 ? -7 : down * 100000 + (int64_t)idx[i / 3]),
                 "strided element %zu: %lld", i, (long long)dst[i]);
    /* too large for the receive: both sides learn, nothing is written */
    for (size_t i = 0; i < 3 * cnt; i++)
        dst[i] = -7;
    PE_OK(dmsg_rr_irecv(down, 7, dst, 8, &r[0]));
    PE_OK(dmsg_rr_isend(up, 7, src, 16, &r[1]));
    PE_EXPECT(dmsg_rr_wait(&r[1], NULL), DMSG_ERR_SIZE);
    PE_EXPECT(dmsg_rr_wait(&r[0], NULL), DMSG_ERR_SIZE);
    PE_CHECK(dst[0] == -7, "refused destination written: %lld", (long long)dst[0]);
    PE_EXPECT(dmsg_rr_wait(&r[0], NULL), DMSG_ERR_HANDLE);
    PE_OK(dmsg_rr_finalize());
    PE_OK(dmsg_free(dst));
    free(src);
    free(idx);
    return 0;
}

static unsigned char byte_of(int from, int to, int tag, int k, size_t i)
{
    return (unsigned char)(from * 131 + to * 71 + tag * 29 + k * 17 + (long)i * 7 + (long)(i >> 8));
}

/* One transfer of a round: from, to, tag, its number k among the transfers
 * of that pair and tag, its length, and where it goes and comes from. */
typedef struct rr_xfer {
    int from, to, tag, k;
    size_t len, off; /* off: in the receiver's buffer (receive) or the sender's (send) */
    dmsg_rr_req req;
    int done;
} rr_xfer;

/* The transfers of round r (all PEs draw the same schedule from the seed):
 * fills this PE's receives and sends; *most: the most bytes any PE
 * receives, *own: the bytes this PE sends. */
static int rr_schedule(uint64_t seed, int r, rr_xfer *in, size_t *nin, rr_xfer *out, size_t *nout,
                       size_t *most, size_t *own)
{
    int n = pe_n(), me = pe_me();
    static const size_t lens[] = {0, 8, 100, 1000, 4096, 20000};
    uint64_t s = seed * 1000003ULL + (uint64_t)r;
    size_t *inb = calloc((size_t)n, sizeof *inb), outb = 0;
    int (*cnt)[4] = calloc((size_t)n * (size_t)n, sizeof *cnt);
    PE_CHECK(inb && cnt, "calloc");
    *nin = *nout = 0;
    for (int src = 0; src < n; src++)
        for (int dst = 0; dst < n; dst++) {
            int m = pe_rnd_below(&s, 3);
            for (int i = 0; i < m; i++) {
                int slot = pe_rnd_below(&s, 4);
                rr_xfer x = {.from = src, .to = dst, .tag = r * 4 + slot,
                             .k = cnt[src * n + dst][slot]++,
                             .len = lens[pe_rnd_below(&s, 6)]};
                x.off = inb[dst];
                inb[dst] += (x.len + 15) & ~(size_t)15;
                if (dst == me)
                    in[(*nin)++] = x;
                if (src == me) {
                    x.off = outb;
                    outb += x.len;
                    out[(*nout)++] = x;
                }
            }
        }
    *own = outb;
    *most = 0;
    for (int p = 0; p < n; p++)
        *most = inb[p] > *most ? inb[p] : *most;
    free(inb);
    free(cnt);
    return 0;
}

/* Random sequences of transfers (0 to 2 per ordered pair and round, random
 * tags and lengths, receives posted and sends started in a random
 * interleaving) completed by polling dmsg_rr_test over the requests in a
 * random order, as a program that overlaps work would; now and then a copy
 * of a request is tested (DMSG_ERR_HANDLE). On sim a polling loop costs no
 * virtual time of its own, so the tests must let time pass. PE_RR_SEED
 * picks the sequence (default 1); a failure names the seed. */
static int random_test(void)
{
    int n = pe_n(), me = pe_me(), rounds = iters(12);
    const char *v = getenv("PE_RR_SEED"), *tv = getenv("DMSG_TIMEOUT");
    uint64_t seed = v ? strtoull(v, NULL, 10) : 1, s = seed * 7919ULL + (uint64_t)me + 1;
    double lim = tv && atof(tv) > 0 ? atof(tv) : 1e30;
    size_t cap = 2 * (size_t)n, nin, nout, most = 0, own = 0, m, o;
    rr_xfer *in = malloc(cap * sizeof *in), *out = malloc(cap * sizeof *out);
    rr_xfer **all = malloc(2 * cap * sizeof *all);
    PE_CHECK(in && out && all, "malloc");
    for (int r = 0; r < rounds; r++) { /* the largest buffer of any PE and round */
        PE_TRY(rr_schedule(seed, r, in, &nin, out, &nout, &m, &o));
        most = m > most ? m : most;
        own = o > own ? o : own;
    }
    unsigned char *dst = pe_alloc(most + 16), *src = malloc(own + 16);
    PE_CHECK(dst && src, "allocation");
    PE_OK(dmsg_rr_init());
    for (int r = 0; r < rounds; r++) {
        PE_TRY(rr_schedule(seed, r, in, &nin, out, &nout, &m, &o));
        memset(dst, 0xEE, most);
        for (size_t i = 0; i < nout; i++)
            for (size_t b = 0; b < out[i].len; b++)
                src[out[i].off + b] = byte_of(me, out[i].to, out[i].tag, out[i].k, b);
        /* Receives and sends each in schedule order, interleaved at random. */
        size_t ri = 0, si = 0, na = 0;
        while (ri < nin || si < nout) {
            int recv = si == nout || (ri < nin && pe_rnd_below(&s, 2));
            rr_xfer *x = recv ? &in[ri++] : &out[si++];
            if (recv)
                PE_OK(dmsg_rr_irecv(x->from, x->tag, dst + x->off, x->len, &x->req));
            else
                PE_OK(dmsg_rr_isend(x->to, x->tag, src + x->off, x->len, &x->req));
            x->done = 0;
            all[na++] = x;
        }
        double t0 = pe_now();
        for (size_t left = na; left;) {
            rr_xfer *x = all[pe_rnd_below(&s, (int)na)];
            if (x->done)
                continue;
            int done = 0;
            dmsg_rr_info info;
            if (pe_rnd_below(&s, 16) == 0) {
                dmsg_rr_req copy = x->req;
                PE_EXPECT(dmsg_rr_test(&copy, &done, &info), DMSG_ERR_HANDLE);
            }
            int st = dmsg_rr_test(&x->req, &done, &info);
            PE_CHECK(st == DMSG_OK, "seed %llu round %d: dmsg_rr_test of a %s %d -> %d tag %d: %s",
                     (unsigned long long)seed, r, x->to == me && x->from != me ? "receive" : "transfer",
                     x->from, x->to, x->tag, pe_status_name(st));
            PE_CHECK(pe_now() - t0 < lim, "seed %llu round %d: polled %.0f s in vain",
                     (unsigned long long)seed, r, lim);
            if (!done)
                continue;
            x->done = 1;
            left--;
            if (x >= in && x < in + nin)
                PE_CHECK(info.src == x->from && info.tag == x->tag && info.bytes == x->len,
                         "seed %llu round %d: info %d %d %zu", (unsigned long long)seed, r,
                         info.src, info.tag, info.bytes);
        }
        for (size_t i = 0; i < nin; i++)
            for (size_t b = 0; b < in[i].len; b++)
                PE_CHECK(dst[in[i].off + b] == byte_of(in[i].from, me, in[i].tag, in[i].k, b),
                         "seed %llu round %d: transfer %d from %d tag %d byte %zu",
                         (unsigned long long)seed, r, in[i].k, in[i].from, in[i].tag, b);
        PE_OK(dmsg_sync()); /* every PE has read its buffer before the next round writes it */
    }
    PE_OK(dmsg_rr_finalize());
    PE_OK(dmsg_free(dst));
    free(src);
    free(in);
    free(out);
    free(all);
    return 0;
}

/* The answers of one progress pass go out as a batch: PE 1 posts K
 * receives, PE 0 sends K requests, and one dmsg_rr_test of PE 1 answers
 * all K with one completion and one wake-up for PE 0 (it took K wake-ups
 * before), on a transport in real time (the simulator serves arrivals one
 * by one in virtual-time order). Every transfer then completes with its
 * data. The receives take any source, so that requests are answered (a
 * receive with a known source answers ahead: rr_ahead). */
static int batch(void)
{
    enum { K = 16 };
    int me = pe_me();
    const char *t = getenv("DMSG_TRANSPORT");
    int timed = !(t && !strcmp(t, "sim"));
    long *dst;
    long src[K];
    dmsg_rr_req r[K];
    PE_OK(dmsg_rr_init());
    PE_OK(dmsg_alloc(K * sizeof *dst, (void **)&dst));
    memset(dst, 0, K * sizeof *dst);
    for (int k = 0; k < K; k++)
        src[k] = 1000 * me + k;
    if (me == 1)
        for (int k = 0; k < K; k++)
            PE_OK(dmsg_rr_irecv(DMSG_RR_ANY, k, &dst[k], sizeof *dst, &r[k]));
    PE_OK(dmsg_sync());
    if (me == 0 && pe_n() > 1)
        for (int k = 0; k < K; k++)
            PE_OK(dmsg_rr_isend(1, k, &src[k], sizeof src[k], &r[k]));
    PE_OK(dmsg_sync()); /* the requests have landed */
    if (me == 1) {
        dmsg_rr_stats s0, s1;
        int done;
        PE_OK(dmsg_rr_stats_get(&s0));
        PE_OK(dmsg_rr_test(&r[0], &done, NULL));
        PE_OK(dmsg_rr_stats_get(&s1));
        PE_CHECK(s1.control - s0.control == K, "%llu responses, expected %d",
                 (unsigned long long)(s1.control - s0.control), K);
        if (timed)
            PE_CHECK(s1.signals - s0.signals <= 2, "%llu wake-ups and room reports for %d responses",
                     (unsigned long long)(s1.signals - s0.signals), K);
        PE_CHECK(!done, "a receive completed before its data was sent");
    }
    /* PE 0 waits here until PE 1's pass is counted: had it gone on, its
     * sends could find the first answers while the pass still ran and
     * their data's acknowledgements fall due within it (over ofi's tcp:
     * 17 or 18 control messages). */
    PE_OK(dmsg_sync());
    if ((me == 0 && pe_n() > 1) || me == 1)
        PE_OK(dmsg_rr_waitall(K, r, NULL));
    if (me == 1)
        for (int k = 0; k < K; k++)
            PE_CHECK(dst[k] == k, "transfer %d: %ld", k, dst[k]);
    PE_OK(dmsg_sync());
    PE_OK(dmsg_free(dst));
    PE_OK(dmsg_rr_finalize());
    return 0;
}

/* Responses sent ahead: a receive posted with a known source and tag sends
 * its response (READY) at once, and a send that finds it deposits the data
 * and tells the receiver (DONE), without a request round trip: so a send to
 * a PE whose receive was posted before it completes in the send call itself,
 * its partner busy elsewhere (on a transport in real time: the simulator
 * keeps the request protocol). The matching rules stay: a wildcard receive
 * posted earlier keeps its turn, one posted later never takes a message
 * from a receive answered ahead, tags keep their order, and a send too
 * large for the receive is refused on both sides. Three control messages
 * per transfer either way. */
static int ahead(void)
{
    int me = pe_me(), up = pe_up(1), down = pe_down(1);
    const char *t = getenv("DMSG_TRANSPORT");
    int timed = !(t && !strcmp(t, "sim"));
    long *dst = pe_alloc(8 * sizeof *dst), src[8];
    PE_CHECK(dst, "allocation");
    for (int k = 0; k < 8; k++)
        src[k] = 1000 * me + k;
    PE_OK(dmsg_rr_init());
    dmsg_rr_req r[8];
    dmsg_rr_info info;
    dmsg_rr_stats s0, s1;
    int done = 0;

    /* 1. The send completes at once, while its receiver waits in dmsg_sync. */
    memset(dst, 0, 8 * sizeof *dst);
    PE_OK(dmsg_rr_stats_get(&s0));
    PE_OK(dmsg_rr_irecv(down, 10, &dst[0], sizeof *dst, &r[0]));
    PE_OK(dmsg_sync()); /* every response has landed */
    PE_OK(dmsg_rr_isend(up, 10, &src[0], sizeof src[0], &r[1]));
    if (timed) {
        PE_OK(dmsg_rr_test(&r[1], &done, NULL));
        PE_CHECK(done, "a send to a receive posted before it did not complete in its call");
    }
    PE_OK(dmsg_sync()); /* no PE drove any progress in between */
    if (!done)
        PE_OK(dmsg_rr_wait(&r[1], NULL));
    PE_OK(dmsg_rr_wait(&r[0], &info));
    PE_CHECK(info.src == down && info.tag == 10 && info.bytes == sizeof *dst, "info %d %d %zu",
             info.src, info.tag, info.bytes);
    PE_CHECK(dst[0] == 1000 * down, "data %ld, expected %d", dst[0], 1000 * down);

    /* 2. Too large: refused on both sides, nothing written. */
    dst[1] = -7;
    PE_OK(dmsg_rr_irecv(down, 11, &dst[1], 4, &r[0]));
    PE_OK(dmsg_sync());
    PE_OK(dmsg_rr_isend(up, 11, &src[1], sizeof src[1], &r[1]));
    PE_OK(dmsg_sync());
    PE_EXPECT(dmsg_rr_wait(&r[1], NULL), DMSG_ERR_SIZE);
    PE_EXPECT(dmsg_rr_wait(&r[0], NULL), DMSG_ERR_SIZE);
    PE_CHECK(dst[1] == -7, "refused destination written: %ld", dst[1]);
    PE_OK(dmsg_rr_stats_get(&s1));
    /* This PE's receive and send of 1 (READY, ACK: the data's count stands
     * for the DONE; on sim REQ, RESP, ACK) and of 2 (READY; DONE with the
     * refusal: on sim REQ, RESP); an acknowledgement counts when it falls
     * due, whenever it leaves. */
    uint64_t want = timed ? 4 : 5;
    PE_CHECK(s1.control - s0.control == want,
             "%llu control messages for two sends and receives, expected %llu",
             (unsigned long long)(s1.control - s0.control), (unsigned long long)want);

    /* 3. A wildcard receive posted first takes the first message, 4. one
     * posted after a receive answered ahead the second. */
    for (int c = 0; c < 2; c++) {
        int tag = 12 + c;
        long *any = &dst[2], *known = &dst[3];
        *any = *known = 0;
        if (c == 0) {
            PE_OK(dmsg_rr_irecv(DMSG_RR_ANY, tag, any, sizeof *any, &r[0]));
            PE_OK(dmsg_rr_irecv(down, tag, known, sizeof *known, &r[1]));
        } else {
            PE_OK(dmsg_rr_irecv(down, tag, known, sizeof *known, &r[1]));
            PE_OK(dmsg_rr_irecv(DMSG_RR_ANY, tag, any, sizeof *any, &r[0]));
        }
        PE_OK(dmsg_sync());
        PE_OK(dmsg_rr_isend(up, tag, &src[2], sizeof src[2], &r[2]));
        PE_OK(dmsg_rr_isend(up, tag, &src[3], sizeof src[3], &r[3]));
        PE_OK(dmsg_rr_waitall(4, r, NULL));
        long first = 1000 * down + 2, second = 1000 * down + 3;
        PE_CHECK(c == 0 ? *any == first && *known == second : *known == first && *any == second,
                 "case %d: wildcard got %ld, known source %ld", c, *any, *known);
        PE_OK(dmsg_sync());
    }

    /* 5. A request that landed before its receive is answered as before;
     * 6. tags in their order among receives answered ahead. */
    dst[4] = 0;
    PE_OK(dmsg_rr_isend(up, 14, &src[4], sizeof src[4], &r[0]));
    PE_OK(dmsg_sync());
    PE_OK(dmsg_rr_irecv(down, 14, &dst[4], sizeof *dst, &r[1]));
    PE_OK(dmsg_rr_waitall(2, r, NULL));
    PE_CHECK(dst[4] == 1000 * down + 4, "request before its receive: %ld", dst[4]);
    PE_OK(dmsg_sync());
    PE_OK(dmsg_rr_irecv(down, 15, &dst[5], sizeof *dst, &r[0]));
    PE_OK(dmsg_rr_irecv(down, 16, &dst[6], sizeof *dst, &r[1]));
    PE_OK(dmsg_rr_irecv(down, 15, &dst[7], sizeof *dst, &r[2]));
    PE_OK(dmsg_sync());
    PE_OK(dmsg_rr_isend(up, 16, &src[5], sizeof src[5], &r[3]));
    PE_OK(dmsg_rr_isend(up, 15, &src[6], sizeof src[6], &r[4]));
    PE_OK(dmsg_rr_isend(up, 15, &src[7], sizeof src[7], &r[5]));
    PE_OK(dmsg_rr_waitall(6, r, NULL));
    PE_CHECK(dst[6] == 1000 * down + 5 && dst[5] == 1000 * down + 6 && dst[7] == 1000 * down + 7,
             "tags out of order: %ld %ld %ld", dst[5], dst[6], dst[7]);
    PE_OK(dmsg_sync());
    PE_OK(dmsg_rr_finalize());
    PE_OK(dmsg_free(dst));
    return 0;
}

/* The posted ping-pong (RRMSG's idiom: each receive posted before the PE's
 * send) between PEs 2k and 2k+1, checked message by message, and what it
 * put into the rings: the protocol still counts three control messages a
 * transfer (READY, DONE, acknowledgement), but on shm and ofi a READY of a
 * contiguous receive and a DONE whose data is in place are a 64-byte header
 * alone, and each acknowledgement rides on the receiver's next READY: two
 * ring messages a round trip and PE, 128 bytes (before: three, 376 bytes). On
 * sim the four steps stay (request, response with its layout, data,
 * acknowledgement). On shm the READYs ride on the data of the partner's
 * sends (rr_ride.c): no ring message at all for most transfers. */
static int lean(void)
{
    int me = pe_me(), peer = me ^ 1;
    const char *t = getenv("DMSG_TRANSPORT");
    int timed = !(t && !strcmp(t, "sim"));
    const int n = iters(200);
    long *in = pe_alloc(sizeof *in), out;
    PE_CHECK(in, "allocation");
    PE_OK(dmsg_rr_init());
    dmsg_rr_stats s0, s1;
    PE_OK(dmsg_rr_stats_get(&s0));
    dmsg_rr_req r;
    int pair = peer < pe_n();
    if (pair && (me & 1))
        PE_OK(dmsg_rr_irecv(peer, 3, in, sizeof *in, &r));
    PE_OK(dmsg_sync()); /* the first READY has landed: no send goes before it */
    for (int i = 0; pair && i < n; i++) {
        long got;
        if (!(me & 1)) {
            PE_OK(dmsg_rr_irecv(peer, 3, in, sizeof *in, &r));
            out = 1000L * me + i;
            PE_OK(dmsg_rr_send(peer, 3, &out, sizeof out));
            PE_OK(dmsg_rr_wait(&r, NULL));
            got = *in;
        } else {
            PE_OK(dmsg_rr_wait(&r, NULL));
            got = *in; /* before the next receive is posted: the next send lands there */
            if (i + 1 < n)
                PE_OK(dmsg_rr_irecv(peer, 3, in, sizeof *in, &r));
            out = 1000L * me + i;
            PE_OK(dmsg_rr_send(peer, 3, &out, sizeof out));
        }
        PE_CHECK(got == 1000L * peer + i, "round trip %d: %ld, expected %ld", i, got,
                 1000L * peer + i);
    }
    PE_OK(dmsg_rr_stats_get(&s1));
    uint64_t logical = s1.control - s0.control, sent = s1.ctl_sent - s0.ctl_sent,
             bytes = s1.ctl_bytes - s0.ctl_bytes, want = peer < pe_n() ? (uint64_t)n : 0;
    PE_CHECK(s1.sends - s0.sends == want && s1.recvs - s0.recvs == want, "%llu sends, %llu receives",
             (unsigned long long)(s1.sends - s0.sends), (unsigned long long)(s1.recvs - s0.recvs));
    /* In real time every receive here is the PE's one READY out that its
     * data answers by a count (no DONE): a READY and an acknowledgement a
     * transfer; on sim REQ, RESP, ACK. */
    PE_CHECK(logical == (timed ? 2 : 3) * want, "%llu control messages for %llu transfers each way",
             (unsigned long long)logical, (unsigned long long)want);
    if (timed) {
        /* One READY a transfer, the acknowledgement riding on the next one.
         * On shm (deposits land in the order issued) a READY posted before
         * the PE's send to its partner rides on that send's data instead of
         * going on the ring (rr_ride.c): every READY here but the odd PE's
         * first, which leaves alone when that PE waits in dmsg_sync. The
         * last acknowledgement has no READY to ride on: it is still owed
         * here, or went alone. */
        uint64_t rode = s1.ready_rode - s0.ready_rode;
        int rides = !t || !strcmp(t, "shm");
        PE_CHECK(sent + rode >= want && sent + rode <= want + 1,
                 "%llu ring messages and %llu READYs riding for %llu round trips",
                 (unsigned long long)sent, (unsigned long long)rode, (unsigned long long)want);
        PE_CHECK(rides ? rode + 1 >= want : rode == 0, "%llu READYs rode in %llu round trips",
                 (unsigned long long)rode, (unsigned long long)want);
        PE_CHECK(bytes == 64 * sent, "%llu bytes in %llu ring messages", (unsigned long long)bytes,
                 (unsigned long long)sent);
    }

    /* Acknowledgements that fall due again after riding away, many times in
     * one progress pass: PE 2k+1 answers k receives ahead (tag 1) and posts
     * k receives of any tag after them; PE 2k sends tag 1 (into the READYs:
     * DONEs) and tag 2 (requests) in turn, so one pass of the receiver
     * completes a receive (an acknowledgement due), answers a request (the
     * acknowledgement rides on the response), completes the next, ... */
    enum { K = 8 };
    long *got = pe_alloc(2 * K * sizeof *got), v[2 * K];
    PE_CHECK(got, "allocation");
    dmsg_rr_req rq[2 * K];
    for (int i = 0; i < 2 * K; i++) {
        got[i] = -1;
        v[i] = 100000L * me + i;
    }
    if (pair && (me & 1)) {
        for (int i = 0; i < K; i++)
            PE_OK(dmsg_rr_irecv(peer, 1, &got[i], sizeof *got, &rq[i]));
        for (int i = 0; i < K; i++)
            PE_OK(dmsg_rr_irecv(peer, DMSG_RR_ANY, &got[K + i], sizeof *got, &rq[K + i]));
    }
    PE_OK(dmsg_sync()); /* the READYs have landed */
    if (pair && !(me & 1))
        for (int i = 0; i < K; i++) {
            PE_OK(dmsg_rr_isend(peer, 1, &v[i], sizeof v[i], &rq[2 * i]));
            PE_OK(dmsg_rr_isend(peer, 2, &v[K + i], sizeof v[K + i], &rq[2 * i + 1]));
        }
    PE_OK(dmsg_sync()); /* the DONEs and requests have landed */
    if (pair)
        PE_OK(dmsg_rr_waitall(2 * K, rq, NULL));
    for (int i = 0; pair && (me & 1) && i < 2 * K; i++)
        PE_CHECK(got[i] == 100000L * peer + i, "receive %d: %ld, expected %ld", i, got[i],
                 100000L * peer + i);
    PE_OK(dmsg_sync());
    PE_OK(dmsg_rr_finalize());
    PE_OK(dmsg_free(got));
    PE_OK(dmsg_free(in));
    return 0;
}

/* READYs that ride (rr_ride.c: on shm a receive's counted READY is held
 * back and rides on the data of the PE's next send to its partner). First,
 * a held READY leaves before the PE waits outside RRMSG: PE 2k+1 posts a
 * receive and awaits a counter that PE 2k adds to only once its blocking
 * send to it is complete; were the READY still held, the send would wait
 * for the receiver's progress and the receiver for the counter (both ending
 * in DMSG_ERR_TIMEOUT). Then the order of a READY that rode and one on the
 * ring: PE 2k posts r1 (held), sends (r1's READY rides on the data) and
 * posts r2 of the same source and tag (its READY on the ring, behind);
 * PE 2k+1 finds r2's READY on the ring before it has taken the data that
 * carried r1's, and its two sends must still land in r1, then r2. */
static int ride(void)
{
    int me = pe_me(), peer = me ^ 1, pair = peer < pe_n();
    long *in = pe_alloc(4 * sizeof *in), out[2];
    PE_CHECK(in, "allocation");
    dmsg_ctr c;
    PE_OK(dmsg_ctr_create(&c));
    PE_OK(dmsg_rr_init());
    dmsg_rr_req r[3];
    if (pair && (me & 1)) {
        PE_OK(dmsg_rr_irecv(peer, 7, &in[0], sizeof *in, &r[0]));
        PE_OK(dmsg_await(c, 1)); /* the held READY leaves as this wait starts */
        PE_OK(dmsg_rr_wait(&r[0], NULL));
        PE_CHECK(in[0] == 7000 + peer, "first transfer: %ld", in[0]);
    } else if (pair) {
        out[0] = 7000 + me;
        PE_OK(dmsg_rr_send(peer, 7, &out[0], sizeof out[0]));
        PE_OK(dmsg_deposit(&in[3], out, 0, peer, c)); /* counted, nothing copied */
    }
    PE_OK(dmsg_sync());

    for (int i = 0; i < 3; i++)
        in[i] = -1;
    dmsg_rr_stats s0, s1;
    PE_OK(dmsg_rr_stats_get(&s0));
    if (pair && (me & 1))
        PE_OK(dmsg_rr_irecv(peer, 8, &in[0], sizeof *in, &r[0]));
    PE_OK(dmsg_sync()); /* its READY leaves here */
    if (pair && !(me & 1)) {
        PE_OK(dmsg_rr_irecv(peer, 9, &in[1], sizeof *in, &r[1]));
        out[0] = 8000 + me;
        PE_OK(dmsg_rr_send(peer, 8, &out[0], sizeof out[0])); /* r[1]'s READY rides */
        PE_OK(dmsg_rr_irecv(peer, 9, &in[2], sizeof *in, &r[2])); /* on the ring */
    }
    PE_OK(dmsg_sync()); /* all of it has landed at the partner */
    if (pair && (me & 1)) {
        out[0] = 9001;
        out[1] = 9002;
        PE_OK(dmsg_rr_isend(peer, 9, &out[0], sizeof out[0], &r[1]));
        PE_OK(dmsg_rr_isend(peer, 9, &out[1], sizeof out[1], &r[2]));
        PE_OK(dmsg_rr_waitall(3, r, NULL));
        PE_CHECK(in[0] == 8000 + peer, "transfer into r0: %ld", in[0]);
    } else if (pair) {
        PE_OK(dmsg_rr_waitall(2, &r[1], NULL));
        PE_CHECK(in[1] == 9001 && in[2] == 9002, "sends of one tag in order: %ld then %ld",
                 in[1], in[2]);
    }
    PE_OK(dmsg_rr_stats_get(&s1));
    const char *t = getenv("DMSG_TRANSPORT");
    if (pair && !(me & 1) && (!t || !strcmp(t, "shm")))
        PE_CHECK(s1.ready_rode - s0.ready_rode == 1, "%llu READYs rode, expected r1's",
                 (unsigned long long)(s1.ready_rode - s0.ready_rode));
    PE_OK(dmsg_sync());
    PE_OK(dmsg_rr_finalize());
    PE_OK(dmsg_ctr_destroy(c));
    PE_OK(dmsg_free(in));
    return 0;
}

/* Every case above in one job (as postal_all). */
static int flood(void);

static int all(void)
{
    return alltoall() || neighbour() || indexed_and_errors() || random_test() || batch() ||
           ahead() || lean() || ride() || flood();
}

/* Floods: more requests than a ring holds (RR_RING, 16 KiB: 256 control
 * messages), first one way while the receiver is away, then both ways at
 * once. Senders queue, send STUCK notices and get their room back in the
 * partner's answers, some of which ring no bell (acknowledgements, READYs
 * sent ahead): every message arrives, in order. PEs pair up (0-1, 2-3); an
 * odd last PE sits out. */
static int flood(void)
{
    enum { M = 1500 };
    int me = pe_me(), partner = me ^ 1;
    int paired = partner < pe_n();
    long *in;
    long *out = malloc(M * sizeof *out);
    dmsg_rr_req *rq = malloc(M * sizeof *rq);
    PE_CHECK(out && rq, "out of memory");
    if (!out || !rq)
        return 1;
    PE_OK(dmsg_rr_init());
    PE_OK(dmsg_alloc(M * sizeof *in, (void **)&in));
    for (int k = 0; k < M; k++)
        out[k] = 1000000L * me + k;
    PE_OK(dmsg_sync());
    if (paired && me % 2 == 0) {
        for (int k = 0; k < M; k++)
            PE_OK(dmsg_rr_isend(partner, 7, &out[k], sizeof out[k], &rq[k]));
        PE_OK(dmsg_rr_waitall(M, rq, NULL));
    } else if (paired) {
        struct timespec ts = {0, 300 * 1000 * 1000}; /* away while the ring fills */
        while (nanosleep(&ts, &ts) != 0)
            ;
        for (int k = 0; k < M; k++) {
            in[k] = -1;
            PE_OK(dmsg_rr_recv(partner, 7, &in[k], sizeof in[k], NULL));
            PE_CHECK(in[k] == 1000000L * partner + k, "one way: message %d is %ld", k, in[k]);
        }
    }
    PE_OK(dmsg_sync());
    if (paired) {
        for (int k = 0; k < M; k++)
            PE_OK(dmsg_rr_isend(partner, 8, &out[k], sizeof out[k], &rq[k]));
        for (int k = 0; k < M; k++) {
            in[k] = -1;
            PE_OK(dmsg_rr_recv(partner, 8, &in[k], sizeof in[k], NULL));
            PE_CHECK(in[k] == 1000000L * partner + k, "both ways: message %d is %ld", k, in[k]);
        }
        PE_OK(dmsg_rr_waitall(M, rq, NULL));
    }
    PE_OK(dmsg_sync());
    PE_OK(dmsg_free(in));
    PE_OK(dmsg_rr_finalize());
    free(rq);
    free(out);
    return 0;
}

const pe_case pe_rr_cases[] = {
    {"rr_all", all, 0},
    {"rr_alltoall", alltoall, 0},
    {"rr_neighbour", neighbour, 0},
    {"rr_indexed_errors", indexed_and_errors, 0},
    {"rr_random_test", random_test, 0},
    {"rr_batch", batch, 0},
    {"rr_ahead", ahead, 0},
    {"rr_lean", lean, 0},
    {"rr_ride", ride, 0},
    {"rr_flood", flood, 0},
    {NULL, NULL, 0},
};
