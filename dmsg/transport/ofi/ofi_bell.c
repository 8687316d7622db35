/* Doorbells: waking a waiting PE whose provider gives no descriptor to
 * sleep on. Over shm, sockets and udp;ofi_rxd an atomic, a software atomic
 * request, an engine message or a counted write to a PE is served in that
 * PE's progress; a PE asleep in a wait's backoff served it only when its
 * sleep ended (up to OFI_BACKOFF_MAX_NS: a blocking fetch-add to a PE in
 * dmsg_sync cost about 300 us). Under dmsgrun every PE maps the job region,
 * so each gets a bell there (one cache line in its control area, which the
 * ofi transport uses for nothing else): a wait without a descriptor sleeps
 * on its own bell's futex word with the backoff as timeout, and every
 * operation this PE starts to a peer rings that peer's bell, as the shm
 * transport's deposits ring its doorbell (shm.h, shm_ring).
 *
 * No lost wake-up: a ringer makes its operation visible to the target
 * (posts it), then a fence, then looks at the sleeper count; a sleeper
 * counts itself, then reads the futex word, then polls once more (the
 * re-check), then sleeps on the word's value. Either the ringer sees the
 * sleeper and bumps the word (so the sleep returns at once or is woken), or
 * the sleeper's re-check sees the operation. Where the provider moves an
 * operation only in the sender's progress (sockets writes it into the
 * socket then), the post is too early to ring: the PE is also rung after
 * this PE's next progress call (owed). A ring when nobody sleeps is a fence
 * and a load of a line that changes only when its owner sleeps.
 *
 * Without a job region (mpiexec, PMI) there are no bells: waits keep the
 * plain backoff, which also serves what no bell rings (a provider's
 * internal acknowledgements, replies written by the target's provider). */
#include <limits.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "dmsg/base/fence.h"
#include "dmsg/transport/ofi/ofi.h"

/* Where pe's bell lies: the last line of its control area before the
 * boot layer's PE info. */
static ofi_bell *bell_at(const ofi_state *s, int pe)
{
    dmsg_job_hdr *h = s->bell.hdr;
    return (ofi_bell *)(dmsg_job_ctl(h, pe) + h->ctl_size - DMSG_JOB_PE_INFO_BYTES -
                        sizeof(ofi_bell));
}

dmsg_status dmsg_ofi_bell_start(ofi_state *s, int sleeps_on_fd)
{
    dmsg_job_hdr *h = s->boot->hdr;
    if (!h || s->tp->npes < 2 || sleeps_on_fd || s->boot->kind == DMSG_BOOT_PMI)
        return DMSG_OK;
    /* The region's control areas are dmsgrun's size, which has room for
     * the counters the shm transport keeps there plus a spare page. */
    if (h->npes != (uint32_t)s->tp->npes ||
        h->ctl_size < (uint64_t)h->max_counters * DMSG_CTR_SLOT_BYTES + DMSG_JOB_PE_INFO_BYTES +
                          sizeof(ofi_bell))
        return DMSG_OK;
    s->bell.owed = calloc((size_t)s->tp->npes, 1);
    s->bell.list = calloc((size_t)s->tp->npes, sizeof *s->bell.list);
    s->bell.asked = calloc((size_t)s->tp->npes, 1);
    s->bell.alist = calloc((size_t)s->tp->npes, sizeof *s->bell.alist);
    if (!s->bell.owed || !s->bell.list || !s->bell.asked || !s->bell.alist) {
        dmsg_ofi_bell_stop(s);
        return DMSG_FAIL(DMSG_ERR_NOMEM, "doorbell tables");
    }
    s->bell.hdr = h;
    return DMSG_OK;
}

void dmsg_ofi_bell_stop(ofi_state *s)
{
    free(s->bell.owed);
    free(s->bell.list);
    free(s->bell.asked);
    free(s->bell.alist);
    s->bell.owed = s->bell.asked = NULL;
    s->bell.list = s->bell.alist = NULL;
    s->bell.n = s->bell.an = 0;
    s->bell.hdr = NULL;
}

/* Wakes pe if it sleeps on its bell. The fence orders this PE's operation
 * (its stores into the provider's shared queues, or its system call) before
 * the look at the sleeper count, as the sleeper's count is ordered before
 * its re-check. */
static void ring(const ofi_state *s, int pe)
{
    ofi_bell *b = bell_at(s, pe);
    dmsg_fence_seq_cst();
    if (atomic_load_explicit(&b->sleepers, memory_order_relaxed) == 0)
        return;
    atomic_fetch_add(&b->seq, 1);
    syscall(SYS_futex, (uint32_t *)&b->seq, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

void dmsg_ofi_bell_ring(ofi_state *s, int pe)
{
    if (!s->bell.hdr || pe == s->tp->rank)
        return;
    ring(s, pe);
    if (!s->bell.owed[pe]) {
        s->bell.owed[pe] = 1;
        s->bell.list[s->bell.n++] = pe;
    }
    if (!s->bell.asked[pe]) {
        s->bell.asked[pe] = 1;
        s->bell.alist[s->bell.an++] = pe;
    }
}

void dmsg_ofi_bell_ring_now(ofi_state *s, int pe)
{
    if (s->bell.hdr && pe != s->tp->rank)
        ring(s, pe);
}

/* Rings the PEs that asked to be rung after this PE's progress. The flag
 * is cleared before the bits are taken: a bit set after that sets the flag
 * again. */
static void answer(ofi_state *s)
{
    ofi_bell *me = bell_at(s, s->tp->rank);
    if (!atomic_load_explicit(&me->want_any, memory_order_relaxed) ||
        !atomic_exchange(&me->want_any, 0))
        return;
    for (int w = 0; w < (s->tp->npes + 63) / 64; w++) {
        uint64_t bits = atomic_load_explicit(&me->want[w], memory_order_relaxed)
                            ? atomic_exchange(&me->want[w], 0)
                            : 0;
        while (bits) {
            int pe = w * 64 + __builtin_ctzll(bits);
            bits &= bits - 1;
            if (pe < s->tp->npes && pe != s->tp->rank)
                ring(s, pe);
        }
    }
}

void dmsg_ofi_bell_after_progress(ofi_state *s, int k)
{
    if (k > s->bell.n)
        k = s->bell.n;
    for (int i = 0; i < k; i++) {
        int pe = s->bell.list[i];
        s->bell.owed[pe] = 0;
        ring(s, pe);
    }
    /* Rings owed by operations posted during that progress call (replies
     * sent from it) stay for the next one. */
    memmove(s->bell.list, s->bell.list + k, (size_t)(s->bell.n - k) * sizeof *s->bell.list);
    s->bell.n -= k;
    answer(s);
}

/* Before sleeping with operations in flight (their completion may need a
 * peer's answer, which its provider sends in its progress without dmsg
 * seeing it): ask each PE posted to since nothing was in flight to ring
 * this one after its next progress call. Called after this PE counted
 * itself a sleeper, so that the ring finds it. */
static void ask_answers(ofi_state *s)
{
    if (s->tx_pending == 0) {
        for (int i = 0; i < s->bell.an; i++)
            s->bell.asked[s->bell.alist[i]] = 0;
        s->bell.an = 0;
        return;
    }
    uint64_t bit = UINT64_C(1) << (s->tp->rank % 64);
    for (int i = 0; i < s->bell.an; i++) {
        ofi_bell *b = bell_at(s, s->bell.alist[i]);
        /* seq_cst loads: a bit or flag seen set is taken after them, so
         * the ring that follows finds this PE counted as a sleeper. */
        if (!(atomic_load(&b->want[s->tp->rank / 64]) & bit))
            atomic_fetch_or(&b->want[s->tp->rank / 64], bit);
        if (!atomic_load(&b->want_any))
            atomic_store(&b->want_any, 1);
    }
}

int dmsg_ofi_bell_sleep(ofi_state *s, long ns, int (*ready)(ofi_state *, const void *),
                   const void *arg)
{
    ofi_bell *b = bell_at(s, s->tp->rank);
    atomic_fetch_add(&b->sleepers, 1);
    uint32_t v = atomic_load(&b->seq);
    ask_answers(s);
    /* The re-check: what was posted to this PE before a ringer looked at
     * the count is found here (and served: an atomic of a peer is applied
     * in this poll). */
    uint64_t seen = s->bell.events;
    dmsg_ofi_progress(s);
    if (s->bell.events != seen || (ready && ready(s, arg))) {
        atomic_fetch_sub(&b->sleepers, 1);
        return 0;
    }
    struct timespec ts = {0, ns};
    syscall(SYS_futex, (uint32_t *)&b->seq, FUTEX_WAIT, v, &ts, NULL, 0);
    atomic_fetch_sub(&b->sleepers, 1);
    return atomic_load_explicit(&b->seq, memory_order_relaxed) != v ? 2 : 1;
}
