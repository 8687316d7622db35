/* Spin-then-sleep waiting. Spinning alone would starve the PE we wait for
 * when PEs outnumber cores; sleeping alone would add a system call to every
 * wait. The futex is shared (not FUTEX_PRIVATE) because the word lives in a
 * mapping shared between processes. */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "dmsg/base/clock.h"
#include "dmsg/transport/shm/shm.h"

/* Sleep slice: a sleeper re-checks the abort flag and its deadline this often. */
#define SHM_SLICE_NS 100000000L

/* A PE that has spun SHM_YIELD_AFTER polls yields its core every
 * SHM_YIELD_POLLS polls. When other processes load the host, the PE we wait
 * for may be runnable but without a core, and spinning out the whole budget
 * (20,000 polls are about 0.45 ms on this project's AMD EPYC host) kept it
 * off ours: a 128 KiB halo exchange then took 0.2-0.75 ms instead of 2-50 us
 * (docs/kernels.md). Short waits never yield: a yield on a loaded host can
 * hand the core to another process for a whole time slice, and yielding
 * from the 128th poll on made an 8-byte ping-pong 10 times slower there
 * (0.4-0.9 us a half round trip without, 7.4-7.8 us with). 2,048 polls are
 * about 45 us, longer than any transfer between two running PEs of the
 * sizes a spinning wait serves. */
#define SHM_YIELD_AFTER 2048
#define SHM_YIELD_POLLS 128

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

dmsg_status dmsg_shm_wait(shm_state *s, shm_ready_fn ready, const void *arg, _Atomic uint32_t *seq,
                     _Atomic uint32_t *sleepers)
{
    long spin = s->spin;
    if (s->spin_auto && spin > SHM_SPIN_LOADED && dmsg_tp_host_loaded())
        spin = SHM_SPIN_LOADED;
    for (long i = 0; i < spin; i++) {
        if (ready(arg))
            return DMSG_OK;
        cpu_relax();
        if (i >= SHM_YIELD_AFTER && i % SHM_YIELD_POLLS == SHM_YIELD_POLLS - 1)
            sched_yield();
    }
    if (s->yield_s > 0) {
        double until = dmsg_clock_now() + s->yield_s;
        do {
            sched_yield();
            if (ready(arg))
                return DMSG_OK;
        } while (dmsg_clock_now() < until);
    }
    double deadline = s->conf->timeout > 0 ? dmsg_clock_now() + s->conf->timeout : 0;
    for (;;) {
        if (dmsg_boot_aborted(s->boot))
            return DMSG_FAIL(DMSG_ERR_ABORTED, "the launcher is tearing the job down");
        /* Advertise before the last check: a waker that bumps the counter
         * after our check will see sleepers != 0 and bump seq (seq_cst). */
        atomic_fetch_add(sleepers, 1);
        uint32_t v = atomic_load(seq);
        if (ready(arg)) {
            atomic_fetch_sub(sleepers, 1);
            return DMSG_OK;
        }
        struct timespec ts = {0, SHM_SLICE_NS};
        syscall(SYS_futex, (uint32_t *)seq, FUTEX_WAIT, v, &ts, NULL, 0);
        atomic_fetch_sub(sleepers, 1);
        if (ready(arg))
            return DMSG_OK;
        if (deadline && dmsg_clock_now() > deadline)
            return DMSG_FAIL(DMSG_ERR_TIMEOUT, "waited longer than DMSG_TIMEOUT=%g s", s->conf->timeout);
    }
}

void dmsg_shm_wake(_Atomic uint32_t *seq, _Atomic uint32_t *sleepers, int bump)
{
    if (atomic_load(sleepers) == 0)
        return;
    if (bump)
        atomic_fetch_add(seq, 1);
    syscall(SYS_futex, (uint32_t *)seq, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}
