/* Large PVM messages (longer than a postal mailbox fragment), which postal
 * sends as an announcement and moves through its windows: both packing
 * modes (an in-place buffer changed right after pvm_send), pvm_psend and
 * pvm_precv (whole and truncated), receives out of the order sent, a
 * message in another context with the same tag, pvm_probe and pvm_trecv
 * on a large message. Run with two tasks (-n 2): the first sends, the
 * second receives. With postal's windows on (DMSG_POSTAL_WINDOW not 0)
 * the sender checks that its large messages took them. */
#include <stdint.h>
#include <string.h>
#include <sys/time.h>
#include "dmsg_postal.h"
#include "pvm_test.h"

#define N (256 * 1024) /* ints: 1 MiB */
#define ND (96 * 1024)  /* doubles of the psend messages */
#define CUT 1000        /* doubles pvm_precv takes of a truncated message */

enum { T_CTX = 99, T_DEF = 1, T_INPLACE = 2, T_INPLACE2 = 3, T_PS = 4, T_CUT = 5, T_PROBE = 6 };

static int val(int seed, int i) { return seed * 1000003 + i * 7; }

static void fill(int *a, int n, int seed)
{
    for (int i = 0; i < n; i++)
        a[i] = val(seed, i);
}

static void fill_d(double *a, int n, int seed)
{
    for (int i = 0; i < n; i++)
        a[i] = seed + 0.5 * i;
}

static void sender(int peer)
{
    static int a[N], b[2 * N];
    static double d[ND];
    int ctx = pvm_newcontext();
    EXPECT(ctx > 0);
    /* the other context's number, and its message: the same tag as the
     * base context's next one, and sent before it */
    EXPECT(pvm_initsend(PvmDataDefault) > 0);
    EXPECT_EQ(pvm_pkint(&ctx, 1, 1), PvmOk);
    EXPECT_EQ(pvm_send(peer, T_CTX), PvmOk);
    int old = pvm_setcontext(ctx);
    EXPECT_EQ(old, 0);
    fill(a, N, 9);
    EXPECT(pvm_initsend(PvmDataDefault) > 0);
    EXPECT_EQ(pvm_pkint(a, N, 1), PvmOk);
    EXPECT_EQ(pvm_send(peer, T_DEF), PvmOk);
    EXPECT_EQ(pvm_setcontext(0), ctx);

    fill(a, N, 1);
    EXPECT(pvm_initsend(PvmDataDefault) > 0);
    EXPECT_EQ(pvm_pkint(a, N, 1), PvmOk);
    EXPECT_EQ(pvm_send(peer, T_DEF), PvmOk);

    /* in place, strided: the data are changed as soon as pvm_send returns,
     * before the receiver has asked for them */
    fill(b, 2 * N, 2);
    EXPECT(pvm_initsend(PvmDataInPlace) > 0);
    EXPECT_EQ(pvm_pkint(b, N, 2), PvmOk);
    EXPECT_EQ(pvm_send(peer, T_INPLACE), PvmOk);
    fill(b, 2 * N, 3);
    EXPECT(pvm_initsend(PvmDataInPlace) > 0);
    EXPECT_EQ(pvm_pkint(b, N, 2), PvmOk);
    EXPECT_EQ(pvm_send(peer, T_INPLACE2), PvmOk);
    fill(b, 2 * N, 4);

    fill_d(d, ND, 5);
    EXPECT_EQ(pvm_psend(peer, T_PS, d, ND, PVM_DOUBLE), PvmOk);
    fill_d(d, ND, 6);
    EXPECT_EQ(pvm_psend(peer, T_CUT, d, ND, PVM_DOUBLE), PvmOk);
    fill(a, N, 7);
    EXPECT_EQ(pvm_psend(peer, T_PROBE, a, N, PVM_INT), PvmOk);
    memset(d, 0, sizeof d);
    memset(a, 0, sizeof a);

    int done;
    EXPECT(pvm_recv(peer, T_CTX) > 0);
    EXPECT_EQ(pvm_upkint(&done, 1, 1), PvmOk);
    EXPECT_EQ(done, 1);

    const char *w = getenv("DMSG_POSTAL_WINDOW");
    if (!w || strtol(w, NULL, 10) != 0) {
        dmsg_postal_stats st;
        EXPECT_EQ(dmsg_postal_stats_get(&st), 0);
        EXPECT_EQ(st.large, 7); /* every large one, none as fragments */
    }
}

static void check_ints(int *a, int n, int seed, int step)
{
    for (int i = 0; i < n; i++)
        if (a[i] != val(seed, step * i)) {
            fprintf(stderr, "at %d: %d, %d expected\n", i, a[i], val(seed, step * i));
            EXPECT_EQ(i, -1); /* where */
        }
}

/* step: the message holds every step-th value (a strided pack) */
static void check_buf(int bufid, int peer, int tag, int seed, int step)
{
    static int a[N];
    int bytes, t, tid;
    EXPECT_EQ(pvm_bufinfo(bufid, &bytes, &t, &tid), PvmOk);
    EXPECT_EQ(bytes, (int)sizeof a);
    EXPECT_EQ(t, tag);
    EXPECT_EQ(tid, peer);
    memset(a, 0, sizeof a);
    /* in two unpacks, the second strided over a gap the first left */
    EXPECT_EQ(pvm_upkint(a, N / 2, 1), PvmOk);
    static int rest[N];
    EXPECT_EQ(pvm_upkint(rest, N / 2, 2), PvmOk);
    for (int i = 0; i < N / 2; i++)
        a[N / 2 + i] = rest[2 * i];
    check_ints(a, N, seed, step);
    int extra;
    EXPECT_EQ(pvm_upkint(&extra, 1, 1), PvmNoData);
}

static void receiver(int peer)
{
    static double d[ND];
    int ctx;
    EXPECT(pvm_recv(peer, T_CTX) > 0);
    EXPECT_EQ(pvm_upkint(&ctx, 1, 1), PvmOk);

    /* probe, then trecv the last one sent */
    int id = 0;
    for (int i = 0; i < 100000 && id == 0; i++)
        if ((id = pvm_probe(peer, T_PROBE)) == 0)
            usleep(100);
    EXPECT(id > 0);
    int bytes, t, tid;
    EXPECT_EQ(pvm_bufinfo(id, &bytes, &t, &tid), PvmOk);
    EXPECT_EQ(bytes, N * 4);
    EXPECT_EQ(t, T_PROBE);
    EXPECT_EQ(tid, peer);
    struct timeval tmo = {.tv_sec = 60};
    int probe_rb = pvm_trecv(peer, T_PROBE, &tmo);
    EXPECT(probe_rb > 0);
    check_buf(probe_rb, peer, T_PROBE, 7, 1);

    /* a received buffer kept while large messages go around it */
    int rb = pvm_recv(-1, T_INPLACE2);
    EXPECT(rb > 0);
    int cnt = -1, rtid = 0, rtag = -1;
    memset(d, 0, sizeof d);
    EXPECT_EQ(pvm_precv(peer, T_CUT, d, CUT, PVM_DOUBLE, &rtid, &rtag, &cnt), PvmOk);
    EXPECT_EQ(cnt, CUT);
    EXPECT_EQ(rtag, T_CUT);
    EXPECT_EQ(rtid, peer);
    for (int i = 0; i < ND; i++)
        EXPECT_EQ(d[i] * 2, i < CUT ? 12 + i : 0);
    EXPECT_EQ(pvm_precv(-1, T_PS, d, ND, PVM_DOUBLE, &rtid, &rtag, &cnt), PvmOk);
    EXPECT_EQ(cnt, ND);
    EXPECT_EQ(rtag, T_PS);
    for (int i = 0; i < ND; i++)
        EXPECT_EQ(d[i] * 2, 10 + i);
    EXPECT_EQ(pvm_getrbuf(), rb);
    check_buf(rb, peer, T_INPLACE2, 3, 2);

    EXPECT((rb = pvm_recv(peer, T_INPLACE)) > 0);
    check_buf(rb, peer, T_INPLACE, 2, 2);
    /* the base context's T_DEF, though the other context's came first */
    EXPECT((rb = pvm_recv(peer, T_DEF)) > 0);
    check_buf(rb, peer, T_DEF, 1, 1);
    EXPECT_EQ(pvm_nrecv(-1, -1), 0);
    EXPECT_EQ(pvm_setcontext(ctx), 0);
    EXPECT((rb = pvm_recv(-1, -1)) > 0);
    check_buf(rb, peer, T_DEF, 9, 1);
    EXPECT_EQ(pvm_setcontext(0), ctx);

    int one = 1;
    EXPECT(pvm_initsend(PvmDataDefault) > 0);
    EXPECT_EQ(pvm_pkint(&one, 1, 1), PvmOk);
    EXPECT_EQ(pvm_send(peer, T_CTX), PvmOk);
}

int main(void)
{
    int me = pvm_mytid(), *tids, n = pvm_siblings(&tids);
    EXPECT(me > 0);
    EXPECT_EQ(n, 2);
    if (me == tids[0])
        sender(tids[1]);
    else
        receiver(tids[0]);
    EXPECT_EQ(pvm_exit(), PvmOk);
    if (me == tids[0])
        printf("pvm_large: ok\n");
    return 0;
}
