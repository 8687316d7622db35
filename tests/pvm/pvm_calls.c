/* PVM 3 calls on the postal front end, on any number of tasks: tids and
 * the virtual machine, buffers, packing every type, strings, in-place
 * packing, unpacking past the end, pvm_precv's truncation, tags, contexts,
 * pvm_recvf, nrecv, trecv, probe, mcast, psend, and forwarding a received
 * buffer. `pvm_calls mpmd` is the master of pvm_worker tasks (pvm_spawn
 * hands out the launch's tasks; parent, siblings, inherited context). */
#include <string.h>
#include "tests/pvm/pvm_test.h"

static int by_highest_tag(int bufid, int tid, int tag)
{
    int t, src;
    if (pvm_bufinfo(bufid, NULL, &t, &src) < 0)
        return -1;
    if (tid != -1 && src != tid)
        return 0;
    return tag == -1 || t == tag ? t + 2 : 0; /* > 1: the highest rank wins */
}

static void self_messages(void)
{
    int me = pvm_mytid();
    /* every type, a string, strided, through one message to itself */
    char c[3] = {1, -2, 3};
    short s[4] = {-1, 2, -3, 4};
    int i[6] = {10, 11, 12, 13, 14, 15};
    long l[2] = {-1234567890123L, 42};
    float f[2] = {1.5f, -2.25f};
    double d[2] = {3.125, -1e300};
    float cx[4] = {1, 2, 3, 4};
    double dcx[2] = {5, 6};
    unsigned short us = 65535;
    unsigned int ui = 4000000000u;
    unsigned long ul = 18000000000000000000ul;
    int sb = pvm_initsend(PvmDataDefault);
    EXPECT(sb > 0);
    EXPECT_EQ(pvm_getsbuf(), sb);
    EXPECT_EQ(pvm_pkbyte(c, 3, 1), PvmOk);
    EXPECT_EQ(pvm_pkshort(s, 2, 2), PvmOk); /* -1, -3 */
    EXPECT_EQ(pvm_pkint(i, 3, 2), PvmOk);   /* 10, 12, 14 */
    EXPECT_EQ(pvm_pklong(l, 2, 1), PvmOk);
    EXPECT_EQ(pvm_pkfloat(f, 2, 1), PvmOk);
    EXPECT_EQ(pvm_pkdouble(d, 2, 1), PvmOk);
    EXPECT_EQ(pvm_pkcplx(cx, 2, 1), PvmOk);
    EXPECT_EQ(pvm_pkdcplx(dcx, 1, 1), PvmOk);
    EXPECT_EQ(pvm_pkushort(&us, 1, 1), PvmOk);
    EXPECT_EQ(pvm_pkuint(&ui, 1, 1), PvmOk);
    EXPECT_EQ(pvm_pkulong(&ul, 1, 1), PvmOk);
    EXPECT_EQ(pvm_pkstr("hello, pvm"), PvmOk);
    EXPECT_EQ(pvm_pack(i, 1, 1, PVM_INT), PvmOk);
    EXPECT_EQ(pvm_send(me, 1), PvmOk);
    int rb = pvm_recv(me, 1);
    EXPECT(rb > 0);
    EXPECT_EQ(pvm_getrbuf(), rb);
    int bytes, tag, src;
    EXPECT_EQ(pvm_bufinfo(rb, &bytes, &tag, &src), PvmOk);
    EXPECT_EQ(tag, 1);
    EXPECT_EQ(src, me);
    char c2[3];
    short s2[4] = {0, 0, 0, 0};
    int i2[6] = {0};
    long l2[2];
    float f2[2], cx2[4];
    double d2[2], dcx2[2];
    unsigned short us2;
    unsigned int ui2;
    unsigned long ul2;
    char str[32];
    EXPECT_EQ(pvm_upkbyte(c2, 3, 1), PvmOk);
    EXPECT_EQ(c2[1], -2);
    EXPECT_EQ(pvm_upkshort(s2, 2, 2), PvmOk); /* into s2[0], s2[2] */
    EXPECT_EQ(s2[0], -1);
    EXPECT_EQ(s2[1], 0);
    EXPECT_EQ(s2[2], -3);
    EXPECT_EQ(pvm_upkint(i2, 3, 1), PvmOk);
    EXPECT_EQ(i2[0] + i2[1] + i2[2], 36);
    EXPECT_EQ(i2[2], 14);
    EXPECT_EQ(pvm_upklong(l2, 2, 1), PvmOk);
    EXPECT_EQ(l2[0], -1234567890123L);
    EXPECT_EQ(pvm_upkfloat(f2, 2, 1), PvmOk);
    EXPECT(f2[1] == -2.25f);
    EXPECT_EQ(pvm_upkdouble(d2, 2, 1), PvmOk);
    EXPECT(d2[1] == -1e300);
    EXPECT_EQ(pvm_upkcplx(cx2, 2, 1), PvmOk);
    EXPECT(cx2[3] == 4);
    EXPECT_EQ(pvm_upkdcplx(dcx2, 1, 1), PvmOk);
    EXPECT(dcx2[1] == 6);
    EXPECT_EQ(pvm_upkushort(&us2, 1, 1), PvmOk);
    EXPECT_EQ(us2, 65535);
    EXPECT_EQ(pvm_upkuint(&ui2, 1, 1), PvmOk);
    EXPECT_EQ(ui2, 4000000000u);
    EXPECT_EQ(pvm_upkulong(&ul2, 1, 1), PvmOk);
    EXPECT(ul2 == ul);
    EXPECT_EQ(pvm_upkstr(str), PvmOk);
    EXPECT(!strcmp(str, "hello, pvm"));
    EXPECT_EQ(pvm_unpack(i2, 1, 1, PVM_INT), PvmOk);
    EXPECT_EQ(i2[0], 10);
    /* past the end: nothing left */
    EXPECT_EQ(pvm_upkint(i2, 1, 1), PvmNoData);

    /* unpacking past the end writes what is left (PVM's rule) */
    pvm_initsend(PvmDataRaw);
    int three[3] = {7, 8, 9};
    pvm_pkint(three, 3, 1);
    pvm_send(me, 2);
    EXPECT(pvm_recv(-1, 2) > 0);
    int five[5] = {-1, -1, -1, -1, -1};
    EXPECT_EQ(pvm_upkint(five, 5, 1), PvmNoData);
    EXPECT_EQ(five[0], 7);
    EXPECT_EQ(five[2], 9);
    EXPECT_EQ(five[3], -1);

    /* in place: the data are read at send time, not at pack time */
    int live[4] = {1, 2, 3, 4};
    pvm_initsend(PvmDataInPlace);
    EXPECT_EQ(pvm_pkint(live, 2, 2), PvmOk); /* live[0], live[2] */
    EXPECT_EQ(pvm_pkstr("tail"), PvmOk);
    live[2] = 33;
    EXPECT_EQ(pvm_send(me, 3), PvmOk);
    EXPECT(pvm_recv(me, 3) > 0);
    int two[2];
    EXPECT_EQ(pvm_upkint(two, 2, 1), PvmOk);
    EXPECT_EQ(two[1], 33);
    EXPECT_EQ(pvm_upkstr(str), PvmOk);
    EXPECT(!strcmp(str, "tail"));

    /* several buffers: a kept receive buffer survives later receives */
    pvm_initsend(PvmDataDefault);
    int v = 100;
    pvm_pkint(&v, 1, 1);
    pvm_send(me, 4);
    v = 200;
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&v, 1, 1);
    pvm_send(me, 5);
    int b4 = pvm_recv(me, 4);
    EXPECT_EQ(pvm_setrbuf(0), b4); /* kept, no active buffer */
    EXPECT_EQ(pvm_upkint(&v, 1, 1), PvmNoBuf);
    int b5 = pvm_recv(me, 5);
    EXPECT(b5 > 0 && b5 != b4);
    EXPECT_EQ(pvm_upkint(&v, 1, 1), PvmOk);
    EXPECT_EQ(v, 200);
    EXPECT_EQ(pvm_setrbuf(b4), b5);
    EXPECT_EQ(pvm_upkint(&v, 1, 1), PvmOk);
    EXPECT_EQ(v, 100);
    EXPECT_EQ(pvm_freebuf(b5), PvmOk);
    EXPECT_EQ(pvm_freebuf(b5), PvmNoSuchBuf);
    /* forwarding: a received buffer as the send buffer */
    EXPECT(pvm_setsbuf(b4) >= 0);
    EXPECT_EQ(pvm_send(me, 6), PvmOk);
    EXPECT(pvm_recv(me, 6) > 0);
    EXPECT_EQ(pvm_upkint(&v, 1, 1), PvmOk);
    EXPECT_EQ(v, 100);
    /* mkbuf / setsbuf */
    int mb = pvm_mkbuf(PvmDataDefault);
    int old = pvm_setsbuf(mb);
    EXPECT_EQ(old, b4);
    v = 300;
    pvm_pkint(&v, 1, 1);
    pvm_send(me, 7);
    EXPECT_EQ(pvm_setsbuf(old), mb);
    EXPECT_EQ(pvm_freebuf(mb), PvmOk);
    EXPECT(pvm_recv(me, 7) > 0);
    pvm_upkint(&v, 1, 1);
    EXPECT_EQ(v, 300);

    /* nrecv, trecv, probe with nothing there */
    EXPECT_EQ(pvm_nrecv(me, 99), 0);
    struct timeval tv = {0, 20000};
    EXPECT_EQ(pvm_trecv(me, 99, &tv), 0);
    EXPECT_EQ(pvm_probe(-1, 99), 0);

    /* pvm_recvf ranks: the highest tag first, then the default again */
    for (int t = 10; t <= 12; t++) {
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&t, 1, 1);
        pvm_send(me, t == 11 ? 12 : t == 12 ? 11 : t);
    }
    EXPECT(pvm_recvf(by_highest_tag) == NULL);
    int pb = pvm_probe(me, -1);
    EXPECT(pb > 0);
    EXPECT_EQ(pvm_bufinfo(pb, NULL, &tag, NULL), PvmOk);
    EXPECT_EQ(tag, 12);
    EXPECT(pvm_recv(me, -1) > 0);
    pvm_bufinfo(pvm_getrbuf(), NULL, &tag, NULL);
    EXPECT_EQ(tag, 12);
    EXPECT(pvm_recvf(NULL) == by_highest_tag);
    EXPECT(pvm_recv(me, -1) > 0); /* default: the first that arrived */
    pvm_bufinfo(pvm_getrbuf(), NULL, &tag, NULL);
    EXPECT_EQ(tag, 10);
    EXPECT(pvm_nrecv(me, -1) > 0);
    pvm_bufinfo(pvm_getrbuf(), NULL, &tag, NULL);
    EXPECT_EQ(tag, 11);

    /* contexts: a message is seen only in its own */
    int ctx = pvm_newcontext();
    EXPECT(ctx > 0);
    EXPECT_EQ(pvm_setcontext(ctx), 0);
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&ctx, 1, 1);
    pvm_send(me, 20);
    EXPECT_EQ(pvm_setcontext(0), ctx);
    EXPECT_EQ(pvm_nrecv(-1, 20), 0);
    pvm_setcontext(ctx);
    EXPECT(pvm_recv(-1, 20) > 0);
    EXPECT_EQ(pvm_getcontext(), ctx);
    pvm_setcontext(0);
    EXPECT_EQ(pvm_freecontext(ctx), PvmOk);
}

static void ring(void)
{
    int me = pvm_mytid(), *tids, n = pvm_siblings(&tids), my = me - tids[0];
    int right = tids[(my + 1) % n], left = tids[(my + n - 1) % n];
    /* psend / precv with truncation: ten ints into four */
    int ten[10];
    for (int k = 0; k < 10; k++)
        ten[k] = my * 100 + k;
    EXPECT_EQ(pvm_psend(right, 30, ten, 10, PVM_INT), PvmOk);
    int four[5] = {0, 0, 0, 0, -7}, rtid, rtag, rcnt;
    EXPECT_EQ(pvm_precv(left, 30, four, 4, PVM_INT, &rtid, &rtag, &rcnt), PvmOk);
    EXPECT_EQ(rtid, left);
    EXPECT_EQ(rtag, 30);
    EXPECT_EQ(rcnt, 4);
    EXPECT_EQ(four[3], (left - tids[0]) * 100 + 3);
    EXPECT_EQ(four[4], -7);
    /* precv leaves the active receive buffer alone */
    int keep = 5;
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&keep, 1, 1);
    pvm_send(me, 31);
    int rb = pvm_recv(me, 31);
    pvm_psend(right, 32, ten, 2, PVM_INT);
    EXPECT_EQ(pvm_precv(-1, 32, four, 2, PVM_INT, NULL, NULL, NULL), PvmOk);
    EXPECT_EQ(pvm_getrbuf(), rb);
    EXPECT_EQ(pvm_upkint(&keep, 1, 1), PvmOk);
    EXPECT_EQ(keep, 5);
    /* messages of one sender arrive in order; tags choose among them */
    for (int t = 40; t < 43; t++) {
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&t, 1, 1);
        pvm_send(right, t);
    }
    int v;
    pvm_recv(left, 42);
    pvm_upkint(&v, 1, 1);
    EXPECT_EQ(v, 42);
    pvm_recv(left, -1);
    pvm_upkint(&v, 1, 1);
    EXPECT_EQ(v, 40);
    pvm_recv(-1, 41); /* (others' mcasts may be there already) */
    pvm_upkint(&v, 1, 1);
    EXPECT_EQ(v, 41);
    /* mcast to everyone: never to the caller */
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&my, 1, 1);
    EXPECT_EQ(pvm_mcast(tids, n, 50), PvmOk);
    int sum = 0;
    for (int k = 0; k < n - 1; k++) {
        pvm_recv(-1, 50);
        pvm_upkint(&v, 1, 1);
        sum += v;
    }
    EXPECT_EQ(sum, n * (n - 1) / 2 - my);
    EXPECT_EQ(pvm_nrecv(me, 50), 0);
}

static void machine(void)
{
    int me = pvm_mytid(), *tids, n = pvm_siblings(&tids);
    EXPECT(me >= PVM_TID_BASE);
    EXPECT_EQ(pvm_tidtohost(me), PVM_HOST_TID);
    EXPECT_EQ(pvm_parent(), PvmNoParent);
    int nhost, narch;
    struct pvmhostinfo *hp;
    EXPECT_EQ(pvm_config(&nhost, &narch, &hp), PvmOk);
    EXPECT_EQ(nhost, 1);
    EXPECT_EQ(hp[0].hi_tid, PVM_HOST_TID);
    int nt;
    struct pvmtaskinfo *ti;
    EXPECT_EQ(pvm_tasks(0, &nt, &ti), PvmOk);
    EXPECT_EQ(nt, n);
    EXPECT_EQ(ti[n - 1].ti_tid, tids[n - 1]);
    EXPECT(!strcmp(ti[0].ti_a_out, "pvm_calls"));
    EXPECT_EQ(pvm_tasks(me, &nt, &ti), PvmOk);
    EXPECT_EQ(nt, 1);
    EXPECT_EQ(ti[0].ti_pid, getpid());
    EXPECT_EQ(pvm_pstat(me), PvmOk);
    EXPECT_EQ(pvm_mstat(hp[0].hi_name), PvmOk);
    EXPECT_EQ(pvm_setopt(PvmRoute, PvmRouteDirect), PvmAllowDirect);
    EXPECT_EQ(pvm_getopt(PvmRoute), PvmRouteDirect);
    EXPECT_EQ(pvm_catchout(stdout), PvmOk);
}

static int master(void)
{
    int me = pvm_mytid(), *sibs, tids[4];
    EXPECT_EQ(pvm_siblings(&sibs), 1);
    int ctx = pvm_newcontext();
    pvm_setcontext(ctx);
    EXPECT_EQ(pvm_spawn("pvm_worker", NULL, PvmTaskDefault, "", 2, tids), 2);
    EXPECT_EQ(tids[0], me + 1);
    EXPECT_EQ(tids[1], me + 2);
    EXPECT_EQ(pvm_spawn("./bin/pvm_worker", NULL, 0, "", 2, &tids[2]), 1); /* one left */
    EXPECT_EQ(tids[2], me + 3);
    EXPECT_EQ(tids[3], PvmOutOfRes);
    int none;
    EXPECT_EQ(pvm_spawn("no_such_program", NULL, 0, "", 1, &none), 0);
    EXPECT_EQ(none, PvmNoFile);
    for (int k = 0; k < 3; k++) {
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&k, 1, 1);
        EXPECT_EQ(pvm_send(tids[k], 1), PvmOk);
    }
    for (int k = 0; k < 3; k++) {
        int r[4];
        EXPECT(pvm_recv(-1, 2) > 0);
        EXPECT_EQ(pvm_upkint(r, 4, 1), PvmOk);
        EXPECT_EQ(r[1], tids[r[0]]);
        EXPECT_EQ(r[2], me); /* the worker's parent */
        EXPECT_EQ(r[3], ctx); /* inherited context */
    }
    int nt;
    struct pvmtaskinfo *ti;
    pvm_tasks(0, &nt, &ti);
    EXPECT_EQ(ti[1].ti_ptid, me);
    EXPECT_EQ(pvm_exit(), PvmOk);
    printf("pvm_calls: ok\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "mpmd")) {
        if (master())
            return 1;
        printf("pvm_mpmd: ok\n");
        return 0;
    }
    EXPECT(pvm_mytid() > 0);
    machine();
    self_messages();
    ring();
    EXPECT_EQ(pvm_exit(), PvmOk);
    EXPECT_EQ(pvm_exit(), PvmOk);
    printf("pvm_calls: ok\n");
    return 0;
}
