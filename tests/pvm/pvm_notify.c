/* pvm_notify(PvmTaskExit) on 3 tasks: task 0 watches task 1 (tag 77), a tid
 * that is no task (77: noticed at once) and task 2 (78); task 1 leaves; a
 * watch of task 1 after it left is noticed at once (79); cancelling the
 * watch of task 2 delivers its notice at once (78, as PVM does); watched
 * again (80), task 2's exit sends that one only. Every notice carries the
 * exited tid as one int. Host events are accepted and never fire. */
#include <string.h>
#include "tests/pvm/pvm_test.h"

#define BOGUS 0x40077

/* Receives a notice with tag and returns the tid in it. */
static int notice(int tag)
{
    EXPECT(pvm_recv(-1, tag) > 0);
    int tid = 0, bytes;
    EXPECT_EQ(pvm_bufinfo(pvm_getrbuf(), &bytes, NULL, NULL), PvmOk);
    EXPECT_EQ(bytes, (int)sizeof(int));
    EXPECT_EQ(pvm_upkint(&tid, 1, 1), PvmOk);
    return tid;
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    int me = pvm_mytid();
    EXPECT(me > 0);
    int t1 = PVM_TID_BASE + 1, t2 = PVM_TID_BASE + 2;
    if (me == t1 || me == t2) {
        EXPECT(pvm_recv(PVM_TID_BASE, 1) > 0); /* told to go */
        EXPECT_EQ(pvm_exit(), PvmOk);
        return 0;
    }
    int w1[2] = {t1, BOGUS};
    EXPECT_EQ(pvm_notify(PvmTaskExit, 77, 2, w1), PvmOk);
    EXPECT_EQ(pvm_notify(PvmTaskExit, 78, 1, &t2), PvmOk);
    EXPECT_EQ(pvm_notify(PvmTaskExit, 76, 1, &me), PvmOk); /* itself: never */
    EXPECT_EQ(pvm_notify(PvmHostDelete, 90, 1, w1), PvmOk);
    EXPECT_EQ(pvm_notify(PvmHostAdd, 91, -1, NULL), PvmOk);
    EXPECT_EQ(pvm_notify(PvmTaskExit, -1, 1, &t2), PvmBadParam);
    EXPECT_EQ(pvm_notify(PvmTaskExit, 5, -1, &t2), PvmBadParam);
    EXPECT_EQ(pvm_notify(PvmTaskExit, 5, 1, NULL), PvmBadParam);
    EXPECT_EQ(pvm_notify(99, 5, 1, &t2), PvmBadParam);
    EXPECT_EQ(notice(77), BOGUS);
    EXPECT(pvm_initsend(PvmDataDefault) > 0);
    EXPECT_EQ(pvm_send(t1, 1), PvmOk);
    EXPECT_EQ(notice(77), t1);
    EXPECT_EQ(pvm_notify(PvmTaskExit, 79, 1, &t1), PvmOk);
    EXPECT_EQ(notice(79), t1);
    EXPECT_EQ(pvm_notify(PvmTaskExit | PvmNotifyCancel, 78, 1, &t2), PvmOk);
    EXPECT_EQ(notice(78), t2);
    EXPECT_EQ(pvm_notify(PvmTaskExit, 80, 1, &t2), PvmOk);
    EXPECT_EQ(pvm_send(t2, 1), PvmOk);
    EXPECT_EQ(notice(80), t2);
    /* nothing else came: not the cancelled 78 (it would be before 80), no host notice */
    EXPECT_EQ(pvm_nrecv(-1, -1), 0);
    printf("pvm_notify: ok\n");
    pvm_exit();
    return 0;
}
