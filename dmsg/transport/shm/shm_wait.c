/* Waiting on shared words by the one wait policy (dmsg/transport/wait_policy.h):
 * a poll is a load of the word, a sleep is on a futex. Spinning alone would
 * starve the PE we wait for when PEs outnumber cores; sleeping alone would
 * add a system call to every wait. The futex is shared (not FUTEX_PRIVATE)
 * because the word lives in a mapping shared between processes. */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "dmsg/base/clock.h"
#include "dmsg/base/relax.h"
#include "dmsg/transport/shm/shm.h"

/* Sleeps on the futex word until a waker bumps it or slice_s passes.
 * Returns 1 when ready(arg) held around the sleep. */
static int futex_sleep(double slice_s, shm_ready_fn ready, const void *arg, _Atomic uint32_t *seq,
                       _Atomic uint32_t *sleepers)
{
    /* Advertise before the last check: a waker that bumps the counter
     * after our check will see sleepers != 0 and bump seq (seq_cst). */
    atomic_fetch_add(sleepers, 1);
    uint32_t v = atomic_load(seq);
    if (ready(arg)) {
        atomic_fetch_sub(sleepers, 1);
        return 1;
    }
    struct timespec ts = dmsg_clock_span(slice_s);
    syscall(SYS_futex, (uint32_t *)seq, FUTEX_WAIT, v, &ts, NULL, 0);
    atomic_fetch_sub(sleepers, 1);
    return 0;
}

dmsg_status dmsg_shm_wait(shm_state *s, shm_ready_fn ready, const void *arg, _Atomic uint32_t *seq,
                     _Atomic uint32_t *sleepers)
{
    dmsg_waiter w;
    dmsg_waiter_start(&w, s->wait);
    while (!ready(arg)) {
        dmsg_wait_act act = dmsg_waiter_next(&w);
        switch (act) {
        case DMSG_WAIT_POLL: dmsg_cpu_relax(); break;
        case DMSG_WAIT_YIELD: sched_yield(); break;
        case DMSG_WAIT_SLEEP:
            if (futex_sleep(dmsg_waiter_sleep_s(&w), ready, arg, seq, sleepers))
                goto done;
            break;
        default: return dmsg_waiter_fail(&w, act, "a counter, word or barrier");
        }
    }
done:
    dmsg_waiter_done(&w);
    return DMSG_OK;
}

void dmsg_shm_wake(_Atomic uint32_t *seq, _Atomic uint32_t *sleepers, int bump)
{
    if (atomic_load(sleepers) == 0)
        return;
    if (bump)
        atomic_fetch_add(seq, 1);
    syscall(SYS_futex, (uint32_t *)seq, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}
