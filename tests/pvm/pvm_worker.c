/* A worker for `pvm_calls mpmd`: handed out by the master's pvm_spawn, it
 * answers with its index, tid, parent and context; siblings are the
 * workers the launch started together. */
#include "tests/pvm/pvm_test.h"

int main(void)
{
    int me = pvm_mytid(), *sibs, n = pvm_siblings(&sibs);
    EXPECT_EQ(n, 3);
    EXPECT_EQ(sibs[0], PVM_TID_BASE + 1);
    int parent = pvm_parent();
    EXPECT_EQ(parent, PVM_TID_BASE);
    int r[4];
    EXPECT(pvm_recv(parent, 1) > 0);
    EXPECT_EQ(pvm_upkint(r, 1, 1), PvmOk);
    r[1] = me;
    r[2] = parent;
    r[3] = pvm_getcontext();
    pvm_initsend(PvmDataDefault);
    pvm_pkint(r, 4, 1);
    EXPECT_EQ(pvm_send(parent, 2), PvmOk);
    pvm_exit();
    return 0;
}
