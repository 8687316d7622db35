/* PVM groups on any number of tasks: join, instances, gettid/getinst,
 * gsize, barriers of every task (the postal barrier) and of a part (the
 * group's own counter), bcast, reduce with PvmSum, PvmMax, PvmMin and
 * PvmProduct, scatter, gather, leaving, and their errors. */
#include <string.h>
#include "tests/pvm/pvm_test.h"

int main(void)
{
    int me = pvm_mytid(), *tids, n = pvm_siblings(&tids), my = me - tids[0];
    int inst = pvm_joingroup("all");
    EXPECT(inst >= 0 && inst < n);
    EXPECT_EQ(pvm_joingroup("all"), PvmDupGroup);
    EXPECT_EQ(pvm_barrier("all", n), PvmOk);
    EXPECT_EQ(pvm_gsize("all"), n);
    EXPECT_EQ(pvm_getinst("all", me), inst);
    EXPECT_EQ(pvm_gettid("all", inst), me);
    EXPECT_EQ(pvm_gettid("all", n), PvmNoInst);
    EXPECT_EQ(pvm_getinst("all", 12345), PvmNotInGroup);
    /* a part of the tasks: the even ones, a barrier of their count, many times */
    int evens = (n + 1) / 2;
    if (my % 2 == 0) {
        EXPECT(pvm_joingroup("even") >= 0);
        for (int k = 0; k < 50; k++)
            EXPECT_EQ(pvm_barrier("even", evens), PvmOk);
        EXPECT_EQ(pvm_gsize("even"), evens);
        EXPECT_EQ(pvm_barrier("even", -1), PvmOk); /* -1: every member now */
    }
    EXPECT_EQ(pvm_barrier("all", -1), PvmOk);
    if (my % 2) /* "even" lives until its members exit */
        EXPECT_EQ(pvm_barrier("even", 1), PvmNotInGroup);
    /* bcast from instance 0: to everyone else */
    if (inst == 0) {
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&n, 1, 1);
        EXPECT_EQ(pvm_bcast("all", 7), PvmOk);
    } else {
        int v;
        EXPECT(pvm_recv(pvm_gettid("all", 0), 7) > 0);
        pvm_upkint(&v, 1, 1);
        EXPECT_EQ(v, n);
    }
    EXPECT_EQ(pvm_nrecv(-1, 7), 0);
    /* reductions at instance n - 1 */
    int root = n - 1;
    int iv[2] = {inst + 1, -(inst + 1)};
    EXPECT_EQ(pvm_reduce(PvmSum, iv, 2, PVM_INT, 8, "all", root), PvmOk);
    if (inst == root) {
        EXPECT_EQ(iv[0], n * (n + 1) / 2);
        EXPECT_EQ(iv[1], -n * (n + 1) / 2);
    }
    double dv = inst + 1.5;
    EXPECT_EQ(pvm_reduce(PvmMax, &dv, 1, PVM_DOUBLE, 9, "all", root), PvmOk);
    if (inst == root)
        EXPECT(dv == n - 1 + 1.5);
    long lv = 10 + inst;
    EXPECT_EQ(pvm_reduce(PvmMin, &lv, 1, PVM_LONG, 10, "all", root), PvmOk);
    if (inst == root)
        EXPECT_EQ(lv, 10);
    float fv = 2.0f;
    EXPECT_EQ(pvm_reduce(PvmProduct, &fv, 1, PVM_FLOAT, 11, "all", root), PvmOk);
    if (inst == root)
        EXPECT(fv == (float)(1 << n));
    /* scatter from 0, gather at 0 */
    int *all = malloc((size_t)n * 2 * sizeof *all), part[2];
    for (int k = 0; k < 2 * n; k++)
        all[k] = inst == 0 ? 1000 + k : -1;
    EXPECT_EQ(pvm_scatter(part, all, 2, PVM_INT, 12, "all", 0), PvmOk);
    EXPECT_EQ(part[0], 1000 + 2 * inst);
    EXPECT_EQ(part[1], 1000 + 2 * inst + 1);
    part[0] += 1;
    part[1] += 1;
    memset(all, 0, (size_t)n * 2 * sizeof *all);
    EXPECT_EQ(pvm_gather(all, part, 2, PVM_INT, 13, "all", 0), PvmOk);
    if (inst == 0)
        for (int k = 0; k < 2 * n; k++)
            EXPECT_EQ(all[k], 1001 + k);
    free(all);
    /* errors */
    EXPECT_EQ(pvm_joingroup(NULL), PvmNullGroup);
    EXPECT_EQ(pvm_joingroup(""), PvmNullGroup);
    EXPECT_EQ(pvm_gsize("no such group"), PvmNoGroup);
    EXPECT_EQ(pvm_lvgroup("no such group"), PvmNoGroup);
    EXPECT_EQ(pvm_reduce(PvmSum, iv, 1, PVM_INT, 8, "all", n + 5), PvmNoInst);
    EXPECT_EQ(pvm_reduce(PvmSum, iv, 1, 99, 8, "all", 0), PvmBadParam);
    EXPECT_EQ(pvm_reduce(PvmSum, iv, -1, PVM_INT, 8, "all", 0), PvmBadParam);
    int info = 0, cnt = 1, dt = PVM_CPLX;
    float c1[2] = {1, 2}, c2[2] = {3, 4};
    PvmMax(&dt, c1, c2, &cnt, &info);
    EXPECT_EQ(info, PvmBadParam);
    PvmProduct(&dt, c1, c2, &cnt, &info);
    EXPECT_EQ(info, PvmOk);
    EXPECT(c1[0] == -5 && c1[1] == 10);
    EXPECT_EQ(pvm_freezegroup("all", n), PvmOk); /* all are in: returns at once */
    EXPECT_EQ(pvm_freezegroup(NULL, n), PvmNullGroup);
    EXPECT_EQ(pvm_barrier("all", n), PvmOk);
    EXPECT_EQ(pvm_joingroup("all"), PvmDupGroup);
    /* leaving: the group ends with its last member */
    EXPECT_EQ(pvm_lvgroup("all"), PvmOk);
    /* the others may have left too, ending the group */
    int rc = pvm_lvgroup("all");
    EXPECT(rc == PvmNotInGroup || rc == PvmNoGroup);
    rc = pvm_getinst("all", me);
    EXPECT(rc == PvmNotInGroup || rc == PvmNoGroup);
    /* a rejoin takes the lowest free instance */
    if (my == 0) {
        int again = pvm_joingroup("again");
        EXPECT_EQ(again, 0);
        EXPECT_EQ(pvm_joingroup("again2"), 0);
        EXPECT_EQ(pvm_lvgroup("again"), PvmOk);
        EXPECT_EQ(pvm_joingroup("again"), 0);
    }
    pvm_exit(); /* leaves "again", "again2" and "even" */
    printf("pvm_groups: ok\n");
    return 0;
}
