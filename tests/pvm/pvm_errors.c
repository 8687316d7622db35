/* PVM's error codes on the postal front end (2 tasks): bad arguments, no
 * buffer, no such buffer, the calls out of scope (PvmNotImpl, never a
 * silent success), pvm_kill of another task, calls after pvm_exit.
 * `pvm_errors none : pvm_errors child` (DMSG_TIMEOUT=2): a task of a later
 * program block that no pvm_spawn hands out gives up at the timeout. */
#include <string.h>
#include <time.h>
#include "tests/pvm/pvm_test.h"

static int unclaimed(int child)
{
    if (child) {
        EXPECT_EQ(pvm_mytid(), PvmSysErr);
        EXPECT_EQ(pvm_mytid(), PvmSysErr); /* and stays so */
        EXPECT_EQ(pvm_initsend(PvmDataDefault), PvmSysErr);
        printf("pvm_errors: unclaimed ok\n");
        return 0;
    }
    EXPECT(pvm_mytid() > 0);
    struct timeval tv = {4, 0}; /* the child's wait ends first */
    EXPECT_EQ(pvm_trecv(-1, -1, &tv), 0);
    pvm_exit();
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        return unclaimed(!strcmp(argv[1], "child"));
    int me = pvm_mytid(), *tids, n = pvm_siblings(&tids), v = 1;
    EXPECT_EQ(n, 2);
    int other = tids[0] == me ? tids[1] : tids[0];
    /* buffers */
    EXPECT_EQ(pvm_mkbuf(77), PvmBadParam);
    EXPECT_EQ(pvm_initsend(-1), PvmBadParam);
    EXPECT_EQ(pvm_freebuf(999), PvmNoSuchBuf);
    EXPECT_EQ(pvm_freebuf(-1), PvmBadParam);
    EXPECT_EQ(pvm_setsbuf(999), PvmNoSuchBuf);
    EXPECT_EQ(pvm_setrbuf(999), PvmNoSuchBuf);
    EXPECT_EQ(pvm_bufinfo(0, NULL, NULL, NULL), PvmNoBuf);
    EXPECT_EQ(pvm_bufinfo(999, NULL, NULL, NULL), PvmNoSuchBuf);
    EXPECT_EQ(pvm_pkint(&v, 1, 1), PvmNoBuf); /* no send buffer yet */
    EXPECT_EQ(pvm_upkint(&v, 1, 1), PvmNoBuf);
    EXPECT_EQ(pvm_send(other, 1), PvmNoBuf);
    EXPECT(pvm_initsend(PvmDataDefault) > 0);
    EXPECT_EQ(pvm_pkint(&v, -1, 1), PvmBadParam);
    EXPECT_EQ(pvm_pkint(&v, 1, 0), PvmBadParam);
    EXPECT_EQ(pvm_pkint(NULL, 1, 1), PvmBadParam);
    EXPECT_EQ(pvm_pkstr(NULL), PvmBadParam);
    EXPECT_EQ(pvm_pack(&v, 1, 1, 42), PvmBadParam);
    /* sending and receiving */
    EXPECT_EQ(pvm_send(12345, 1), PvmBadParam);
    EXPECT_EQ(pvm_send(other, -1), PvmBadParam);
    EXPECT_EQ(pvm_psend(other, 1, &v, 1, 99), PvmBadParam);
    EXPECT_EQ(pvm_mcast(&v, 1, 1), PvmBadParam);
    EXPECT_EQ(pvm_recv(12345, 1), PvmBadParam);
    EXPECT_EQ(pvm_recv(other, -2), PvmBadParam);
    EXPECT_EQ(pvm_nrecv(12345, 1), PvmBadParam);
    EXPECT_EQ(pvm_precv(other, 1, &v, 1, 99, NULL, NULL, NULL), PvmBadParam);
    struct timeval bad = {-1, 0};
    EXPECT_EQ(pvm_trecv(other, 1, &bad), PvmBadParam);
    EXPECT_EQ(pvm_setcontext(-5), PvmBadParam);
    EXPECT_EQ(pvm_freecontext(0), PvmBadParam);
    /* tasks and the machine */
    int tid;
    EXPECT_EQ(pvm_spawn(NULL, NULL, 0, "", 1, &tid), PvmBadParam);
    EXPECT_EQ(pvm_spawn("pvm_errors", NULL, 0, "", 0, &tid), PvmBadParam);
    EXPECT_EQ(pvm_spawn("pvm_errors", NULL, 0, "", 1, &tid), 0); /* the first block: nobody's child */
    EXPECT_EQ(tid, PvmNoFile);
    EXPECT_EQ(pvm_tidtohost(5), PvmBadParam);
    EXPECT_EQ(pvm_tasks(5, NULL, NULL), PvmBadParam);
    EXPECT_EQ(pvm_pstat(5), PvmNoTask);
    EXPECT_EQ(pvm_mstat("no-such-host.invalid"), PvmNoHost);
    EXPECT_EQ(pvm_setopt(999, 1), PvmBadParam);
    EXPECT_EQ(pvm_getopt(999), PvmBadParam);
    EXPECT_EQ(pvm_kill(5), PvmBadParam);
    /* out of scope: PVM's own code, nothing done */
    char *hosts[] = {"elsewhere"};
    int sv;
    EXPECT_EQ(pvm_addhosts(hosts, 1, &sv), PvmNotImpl);
    EXPECT_EQ(pvm_delhosts(hosts, 1, &sv), PvmNotImpl);
    EXPECT_EQ(pvm_delmhf(1), PvmNotImpl);
    EXPECT_EQ(pvm_addmhf(-1, -1, -1, NULL), PvmNotImpl);
    EXPECT_EQ(pvm_reg_tasker(), PvmNotImpl);
    EXPECT_EQ(pvm_halt(), PvmNotImpl);
    EXPECT_EQ(pvm_tickle(0, NULL, NULL, NULL), PvmNotImpl);
    EXPECT_EQ(pvm_getfds(NULL), PvmNotImpl);
    struct pvmminfo mi;
    EXPECT_EQ(pvm_getminfo(pvm_getsbuf(), NULL), PvmBadParam);
    EXPECT_EQ(pvm_getminfo(0, &mi), PvmBadParam);
    EXPECT_EQ(pvm_getminfo(999, &mi), PvmNoSuchBuf);
    EXPECT_EQ(pvm_setminfo(999, &mi), PvmNoSuchBuf);
    EXPECT(!strcmp(pvm_version(), "3.4.6"));
    EXPECT_EQ(pvm_serror(1), 0); /* PvmAutoErr on: errors are printed too (as PVM) */
    EXPECT_EQ(pvm_serror(0), 1);
    EXPECT_EQ(pvm_advise(PvmRouteDirect), PvmAllowDirect);
    EXPECT_EQ(pvm_setdebug(0), 0);
    /* pvm_kill: the second task ends at its next PVM call of any kind (here
     * buffer calls in a loop, no receive); it gives up after a minute */
    if (me == tids[1]) {
        time_t end = time(NULL) + 60;
        while (time(NULL) < end) {
            pvm_initsend(PvmDataDefault);
            pvm_pkint(&v, 1, 1);
        }
        fprintf(stderr, "pvm_errors: the killed task went on\n");
        return 1;
    }
    EXPECT_EQ(pvm_kill(other), PvmOk);
    EXPECT_EQ(pvm_exit(), PvmOk);
    EXPECT_EQ(pvm_mytid(), PvmSysErr); /* after pvm_exit */
    EXPECT_EQ(pvm_initsend(PvmDataDefault), PvmSysErr);
    printf("pvm_errors: ok\n");
    return 0;
}
