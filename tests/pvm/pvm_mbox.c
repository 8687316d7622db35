/* PVM's mailbox (pvm_putinfo, pvm_recvinfo, pvm_delinfo, pvm_getmboxinfo).
 * Task 0 alone first: the rules as real PVM 3.4.6 showed them (replacing
 * one's own default entry, instances at the lowest free index, first
 * available, read and delete, direct index, the classes in the order put);
 * this part builds against libpvm3 too (-DREAL_PVM, one task). With a
 * second task: another task's entries (read, not replaced nor deleted, an
 * overwritable one replaced), a wait for an entry not there yet, and task
 * 0's exit (its default entries gone, a persistent one kept without owner). */
#include <string.h>
#include "tests/pvm/pvm_test.h"

static int body(int v)
{
    int b = pvm_mkbuf(PvmDataDefault), old = pvm_setsbuf(b);
    EXPECT_EQ(pvm_pkint(&v, 1, 1), PvmOk);
    pvm_setsbuf(old);
    return b;
}

/* The int in buffer b (a recvinfo's result), or its error. */
static int value(int b)
{
    if (b < 0)
        return b;
    EXPECT_EQ(pvm_getrbuf(), b); /* recvinfo made it the active one */
    int v = -1;
    EXPECT_EQ(pvm_upkint(&v, 1, 1), PvmOk);
    return v;
}

static void entries(const char *name, int n, const int *idx, const int *flags)
{
    int nc = -1;
    struct pvmmboxinfo *c = NULL;
    EXPECT_EQ(pvm_getmboxinfo((char *)name, &nc, &c), PvmOk);
    EXPECT_EQ(nc, 1);
    EXPECT(!strcmp(c[0].mi_name, name));
    EXPECT_EQ(c[0].mi_nentries, n);
    for (int i = 0; i < n; i++) {
        EXPECT_EQ(c[0].mi_indices[i], idx[i]);
        EXPECT_EQ(c[0].mi_flags[i], flags[i]);
        EXPECT_EQ(c[0].mi_owners[i], pvm_mytid());
    }
}

static void alone(void)
{
    EXPECT_EQ(pvm_putinfo("a", body(1), PvmMboxDefault), 0);
    EXPECT_EQ(pvm_putinfo("a", body(2), PvmMboxDefault), 0); /* its own: replaced */
    EXPECT_EQ(pvm_putinfo("a", body(3), PvmMboxMultiInstance), 1);
    EXPECT_EQ(pvm_putinfo("a", body(4), PvmMboxOverWritable), 0);
    EXPECT_EQ(value(pvm_recvinfo("a", 0, PvmMboxDefault)), 4);
    EXPECT_EQ(pvm_putinfo("m", body(10), PvmMboxMultiInstance), 0);
    EXPECT_EQ(pvm_putinfo("m", body(11), PvmMboxMultiInstance), 1);
    EXPECT_EQ(pvm_putinfo("m", body(12), PvmMboxDefault), 0);
    EXPECT_EQ(pvm_putinfo("m", body(13), PvmMboxMultiInstance | PvmMboxPersistent), 2);
    EXPECT_EQ(value(pvm_recvinfo("m", 1, PvmMboxDefault)), 11);
    EXPECT(pvm_delinfo("m", 1, 0) >= 0); /* PvmOk here, 1 in real PVM */
    EXPECT_EQ(pvm_recvinfo("m", 1, PvmMboxDefault), PvmNotFound);
    EXPECT_EQ(value(pvm_recvinfo("m", 1, PvmMboxFirstAvail)), 13);
    EXPECT_EQ(pvm_putinfo("m", body(14), PvmMboxMultiInstance), 1); /* the lowest free */
    int nc = -1;
    struct pvmmboxinfo *c = NULL;
    EXPECT_EQ(pvm_getmboxinfo("*", &nc, &c), PvmOk);
    EXPECT(nc == 2 && !strcmp(c[0].mi_name, "a") && !strcmp(c[1].mi_name, "m"));
    static const int ai[] = {0, 1}, af[] = {4, 2};
    entries("a", 2, ai, af);
    static const int mi[] = {0, 1, 2}, mf[] = {0, 2, 3};
    entries("m", 3, mi, mf);
    EXPECT_EQ(pvm_getmboxinfo("x*", &nc, &c), PvmOk);
    EXPECT_EQ(nc, 0);
    EXPECT_EQ(value(pvm_recvinfo("m", 0, PvmMboxReadAndDelete)), 12);
    static const int mi2[] = {1, 2}, mf2[] = {2, 3};
    entries("m", 2, mi2, mf2);
    EXPECT_EQ(pvm_recvinfo("none", 0, 0), PvmNotFound);
    EXPECT_EQ(pvm_delinfo("none", 0, 0), PvmNotFound);
    EXPECT_EQ(pvm_putinfo("o", body(20), PvmMboxOverWritable), 0);
    EXPECT_EQ(pvm_putinfo("o", body(21), PvmMboxOverWritable), 0);
    EXPECT_EQ(pvm_putinfo("o", body(22), PvmMboxOverWritable | PvmMboxDirectIndex(0)), 0);
    int rb = pvm_recvinfo("o", 0, 0);
    EXPECT_EQ(value(rb), 22);
    int bytes, tag, tid;
    EXPECT_EQ(pvm_bufinfo(rb, &bytes, &tag, &tid), PvmOk);
    EXPECT(bytes == 4 && tag == 0 && tid == pvm_mytid());
    EXPECT_EQ(pvm_putinfo(NULL, body(1), 0), PvmBadParam);
#ifndef REAL_PVM /* OURS: PVM's pvm_putinfo of a bufid that is no buffer hangs */
    EXPECT_EQ(pvm_putinfo("z", 999, 0), PvmNoSuchBuf);
    EXPECT_EQ(pvm_recvinfo("a", -1, 0), PvmBadParam);
    EXPECT_EQ(pvm_getmboxinfo("*", NULL, &c), PvmBadParam);
    /* a direct index replaces an entry there (its owner may, as in real
     * PVM's mbox example) */
    EXPECT_EQ(pvm_putinfo("m", body(15), PvmMboxDirectIndex(1)), 1);
    EXPECT_EQ(value(pvm_recvinfo("m", 1, 0)), 15);
    EXPECT_EQ(pvm_putinfo("m", body(15), PvmMboxDirectIndex(7)), PvmNotFound);
    EXPECT_EQ(pvm_putinfo("q", body(30), PvmMboxOverWritable | PvmMboxMultiInstance), 0);
    EXPECT_EQ(pvm_putinfo("q", body(31), PvmMboxOverWritable | PvmMboxMultiInstance), 1);
    EXPECT_EQ(pvm_putinfo("q", body(32), PvmMboxOverWritable | PvmMboxDirectIndex(1)), 1);
    EXPECT_EQ(value(pvm_recvinfo("q", 1, 0)), 32);
    /* a message larger than the whole store */
    static char big[300 * 1024];
    int bb = pvm_mkbuf(PvmDataRaw), old = pvm_setsbuf(bb);
    EXPECT_EQ(pvm_pkbyte(big, (int)sizeof big, 1), PvmOk);
    pvm_setsbuf(old);
    EXPECT_EQ(pvm_putinfo("big", bb, 0), PvmNoMem);
    EXPECT_EQ(pvm_recvinfo("big", 0, 0), PvmNotFound);
#endif
    /* PVM 3.3's names */
    EXPECT_EQ(pvm_insert("old", -1, body(1)), 0);
    EXPECT_EQ(pvm_insert("old", -1, body(2)), 1);
    EXPECT_EQ(pvm_insert("old", 5, body(5)), 5);
    EXPECT_EQ(pvm_insert("old", 5, body(6)), PvmDupEntry);
    int lb = -7, rbuf = pvm_getrbuf();
    EXPECT_EQ(pvm_lookup("old", -1, &lb), 0);
    EXPECT_EQ(pvm_getrbuf(), rbuf); /* not made the active one */
    EXPECT_EQ(pvm_setrbuf(lb), rbuf);
    EXPECT_EQ(value(lb), 1);
    EXPECT_EQ(pvm_lookup("old", 5, &lb), 5);
    EXPECT_EQ(pvm_setrbuf(lb) >= 0, 1);
    EXPECT_EQ(value(lb), 5);
    EXPECT_EQ(pvm_lookup("old", 3, &lb), PvmNotFound);
    EXPECT_EQ(pvm_delete("old", 5), 5);
    EXPECT_EQ(pvm_delete("old", 5), PvmNotFound);
    EXPECT_EQ(pvm_delete("old", -1), PvmBadParam);
    static const int oi[] = {0, 1}, of[] = {3, 3};
    entries("old", 2, oi, of);
    pvm_delete("old", 0);
    pvm_delete("old", 1);
    /* clean up for the second part */
    const char *names[] = {"a", "m", "o", "q"};
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 3; i++)
            pvm_delinfo((char *)names[k], i, 0);
    EXPECT_EQ(pvm_getmboxinfo(NULL, &nc, &c), PvmOk);
    EXPECT_EQ(nc, 0);
}

#ifndef REAL_PVM
static void two_tasks(int me)
{
    int t0 = PVM_TID_BASE, t1 = PVM_TID_BASE + 1;
    EXPECT(pvm_initsend(PvmDataDefault) > 0);
    if (me == t0) {
        EXPECT_EQ(pvm_putinfo("svc", body(100), PvmMboxDefault), 0);
        EXPECT_EQ(pvm_putinfo("keep", body(200), PvmMboxPersistent), 0);
        EXPECT_EQ(pvm_putinfo("ow", body(300), PvmMboxOverWritable), 0);
        EXPECT_EQ(pvm_putinfo("multi", body(500), PvmMboxMultiInstance), 0);
        EXPECT_EQ(pvm_putinfo("multi", body(501), PvmMboxMultiInstance), 1);
        EXPECT_EQ(pvm_send(t1, 1), PvmOk);
        EXPECT(pvm_recv(t1, 2) > 0); /* t1 waits for "late" now, or soon */
        EXPECT_EQ(pvm_putinfo("late", body(400), PvmMboxDefault), 0);
        EXPECT(pvm_recv(t1, 3) > 0);
        return; /* its exit removes svc and late */
    }
    int w = t0;
    EXPECT_EQ(pvm_notify(PvmTaskExit, 9, 1, &w), PvmOk);
    EXPECT(pvm_recv(t0, 1) > 0);
    int rb = pvm_recvinfo("svc", 0, 0), tid;
    EXPECT_EQ(value(rb), 100);
    EXPECT_EQ(pvm_bufinfo(rb, NULL, NULL, &tid), PvmOk);
    EXPECT_EQ(tid, t0);
    EXPECT_EQ(pvm_putinfo("svc", body(1), 0), PvmExists);
    EXPECT_EQ(pvm_putinfo("multi", body(1), PvmMboxDirectIndex(1)), PvmDenied); /* t0's */
    EXPECT_EQ(pvm_delinfo("svc", 0, 0), PvmDenied);
    EXPECT_EQ(pvm_recvinfo("svc", 0, PvmMboxReadAndDelete), PvmDenied);
    EXPECT_EQ(value(pvm_recvinfo("svc", 0, 0)), 100);
    EXPECT_EQ(pvm_putinfo("ow", body(301), PvmMboxPersistent), 0); /* overwritable: now t1's */
    EXPECT_EQ(pvm_send(t0, 2), PvmOk);
    EXPECT_EQ(value(pvm_recvinfo("late", 0, PvmMboxWaitForInfo)), 400);
    EXPECT_EQ(pvm_send(t0, 3), PvmOk);
    EXPECT(pvm_recv(-1, 9) > 0); /* t0 has left PVM */
    EXPECT_EQ(pvm_recvinfo("svc", 0, 0), PvmNotFound);
    EXPECT_EQ(pvm_recvinfo("late", 0, 0), PvmNotFound);
    EXPECT_EQ(pvm_recvinfo("multi", 0, PvmMboxFirstAvail), PvmNotFound);
    rb = pvm_recvinfo("keep", 0, 0);
    EXPECT_EQ(value(rb), 200);
    EXPECT_EQ(pvm_bufinfo(rb, NULL, NULL, &tid), PvmOk);
    EXPECT_EQ(tid, me); /* no owner left: it reads as this task's */
    int nc;
    struct pvmmboxinfo *c;
    EXPECT_EQ(pvm_getmboxinfo("*", &nc, &c), PvmOk);
    EXPECT(nc == 2 && !strcmp(c[0].mi_name, "keep") && c[0].mi_owners[0] == 0 &&
           !strcmp(c[1].mi_name, "ow") && c[1].mi_owners[0] == me);
    EXPECT_EQ(value(pvm_recvinfo("ow", 0, PvmMboxReadAndDelete)), 301);
    EXPECT_EQ(pvm_delinfo("keep", 0, 0), PvmDenied); /* nobody's now, and locked */
}
#endif

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    int me = pvm_mytid();
    EXPECT(me > 0);
    pvm_setopt(PvmAutoErr, 0);
#ifdef REAL_PVM
    alone(); /* one task: the first */
#else
    if (me == PVM_TID_BASE)
        alone();
#endif
#ifndef REAL_PVM
    int ntask = 0;
    EXPECT_EQ(pvm_tasks(0, &ntask, NULL), PvmOk);
    if (ntask >= 2 && me <= PVM_TID_BASE + 1)
        two_tasks(me);
#endif
    printf("pvm_mbox: ok\n");
    pvm_exit();
    return 0;
}
