/* The start-up exchange service (exchange.h). Over the job region: a
 * counter barrier with a generation word in the boot exchange area, and
 * one row per PE through which an all-gather passes in rounds. Over PMI:
 * puts, a PMI barrier, gets. */
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "dmsg/base/clock.h"
#include "dmsg/base/shmfiles.h"
#include "dmsg/boot/exchange.h"
#include "dmsg/boot/kvs.h"

#define ROW 32 /* bytes per PE and round of a region all-gather */

typedef struct boot_area {
    _Alignas(64) _Atomic uint32_t arrived;
    _Alignas(64) _Atomic uint32_t gen;
    _Alignas(64) unsigned char row[DMSG_MAX_PES][ROW];
} boot_area;

_Static_assert(DMSG_BOOT_VAL_MAX <= DMSG_KVS_BYTES_MAX, "a start-up value fits a process manager value");
_Static_assert(sizeof(boot_area) <= DMSG_JOB_HDR_BYTES - DMSG_JOB_BOOT_OFF,
               "boot exchange area must fit the job header block");

static boot_area *area(dmsg_boot *b)
{
    return (boot_area *)dmsg_job_boot_area(b->hdr);
}

dmsg_status dmsg_boot_join(dmsg_boot *b)
{
    if (b->fd < 0 || b->hdr)
        return DMSG_OK;
    dmsg_job_hdr *h;
    dmsg_status st = dmsg_job_map(b->fd, &h);
    if (st)
        return st;
    if (h->npes != (uint32_t)b->npes || b->rank < 0 || b->rank >= b->npes) {
        st = DMSG_FAIL(DMSG_ERR_TRANSPORT, "job region is for %u PEs, launcher says %d (rank %d)",
                       h->npes, b->npes, b->rank);
        dmsg_job_unmap(h);
        return st;
    }
    b->hdr = h;
    atomic_store(dmsg_job_pe_pid(h, b->rank), (int32_t)getpid());
    atomic_store(&h->pe_state[b->rank], DMSG_PE_INIT);
    return DMSG_OK;
}

void dmsg_boot_leave(dmsg_boot *b)
{
    if (b->hdr)
        atomic_store(&b->hdr->pe_state[b->rank], DMSG_PE_FINALIZED);
}

void dmsg_boot_exit_job(dmsg_boot *b)
{
    if (b->hdr)
        atomic_store(&b->hdr->pe_state[b->rank], DMSG_PE_EXIT);
}

/* How often a wait looks at dmsgrun's life pipe: poll(2) is a system call,
 * and a few tenths of a second are soon enough to notice a dead launcher. */
#define LIFE_CHECK_S 0.1

static _Noreturn void launcher_died(dmsg_boot *b)
{
    if (b->hdr)
        atomic_store(&b->hdr->abort, 1);
    dmsg_log_line("dmsg: PE %d (pid %d): dmsgrun, the launcher of this job, has died; "
                  "ending this PE",
                  b->rank, (int)getpid());
    if (b->on_launcher_death)
        b->on_launcher_death(b->on_launcher_death_arg);
    dmsg_shm_unlink_pid((long)getpid());
    kill(getpid(), SIGKILL);
    _exit(128 + SIGKILL); /* not reached */
}

int dmsg_boot_aborted(dmsg_boot *b)
{
    if (b->life_fd >= 0) {
        double t = dmsg_clock_now();
        if (t >= b->life_next) {
            b->life_next = t + LIFE_CHECK_S;
            /* dmsgrun never writes: any event is the hang-up of its end. */
            struct pollfd p = {.fd = b->life_fd, .events = POLLIN};
            if (poll(&p, 1, 0) > 0 && p.revents)
                launcher_died(b);
        }
    }
    return b->hdr && atomic_load_explicit(&b->hdr->abort, memory_order_relaxed);
}

void dmsg_boot_note_failure(dmsg_boot *b, const char *text)
{
    dmsg_job_hdr *h = b->hdr;
    uint32_t free_slot = 0;
    if (!text || !*text)
        return;
    if (!h && b->fd < 0) {
        /* A launcher that is not dmsgrun cannot say why nothing runs: this
         * job's rank 0 does, once (every process where the launcher does
         * not say ranks). A singleton leaves it to the application. */
        if (b->launcher && b->rank <= 0) dmsg_log_line("dmsg: %s", text);
        return;
    }
    /* A transport that failed before joining the region (its settings,
     * checked first) still has the launcher's descriptor: the note goes
     * through a mapping of its own, which leaves this PE's state alone. */
    int own = !h && b->fd >= 0 && dmsg_job_map(b->fd, &h) == DMSG_OK;
    if (h && atomic_compare_exchange_strong(&h->fail_claim, &free_slot, 1)) {
        h->fail_pe = b->rank;
        snprintf(h->fail_text, sizeof h->fail_text, "%s", text);
        atomic_store_explicit(&h->fail_ready, 1, memory_order_release);
    }
    if (own)
        dmsg_job_unmap(h);
}

/* Waits for the generation to move on from gen: yields first (start-up is
 * short), then sleeps in slices, so that PEs outnumbering cores still let
 * the last one arrive. */
static dmsg_status wait_gen(dmsg_boot *b, _Atomic uint32_t *word, uint32_t gen)
{
    double limit = b->timeout ? *b->timeout : 0;
    double deadline = limit > 0 ? dmsg_clock_now() + limit : 0;
    for (unsigned i = 0; atomic_load_explicit(word, memory_order_acquire) == gen; i++) {
        if (dmsg_boot_aborted(b))
            return DMSG_FAIL(DMSG_ERR_ABORTED, "the job was stopped during start-up");
        if (deadline && dmsg_clock_now() > deadline)
            return DMSG_FAIL(DMSG_ERR_TIMEOUT, "start-up barrier: a PE did not arrive in %g s",
                             limit);
        if (i < 64) {
            sched_yield();
        } else {
            struct timespec ts = {0, 50000};
            nanosleep(&ts, NULL);
        }
    }
    return DMSG_OK;
}

/* The last arrival resets the count before it bumps the generation, so a
 * PE that races ahead into the next barrier finds the count reset. */
static dmsg_status region_barrier(dmsg_boot *b)
{
    boot_area *a = area(b);
    uint32_t gen = atomic_load_explicit(&a->gen, memory_order_acquire);
    if (atomic_fetch_add_explicit(&a->arrived, 1, memory_order_acq_rel) == (uint32_t)b->npes - 1) {
        atomic_store_explicit(&a->arrived, 0, memory_order_relaxed);
        atomic_fetch_add_explicit(&a->gen, 1, memory_order_release);
        return DMSG_OK;
    }
    return wait_gen(b, &a->gen, gen);
}

dmsg_status dmsg_boot_barrier(dmsg_boot *b)
{
    if (b->kind == DMSG_BOOT_PMI)
        return dmsg_kvs_barrier(b->priv);
    dmsg_status st = dmsg_boot_join(b);
    return st ? st : region_barrier(b);
}

static dmsg_status region_allgather(dmsg_boot *b, const unsigned char *mine, size_t len,
                                    unsigned char *all)
{
    boot_area *a = area(b);
    dmsg_status st;
    for (size_t at = 0; at < len; at += ROW) {
        size_t n = len - at < ROW ? len - at : ROW;
        memcpy(a->row[b->rank], mine + at, n);
        if ((st = region_barrier(b)))
            return st;
        for (int p = 0; p < b->npes; p++)
            memcpy(all + (size_t)p * len + at, a->row[p], n);
        /* Nobody may overwrite its row before everyone has read it. */
        if ((st = region_barrier(b)))
            return st;
    }
    return DMSG_OK;
}

static dmsg_status pmi_allgather(dmsg_boot *b, const void *mine, size_t len, unsigned char *all)
{
    char key[64];
    dmsg_status st;
    uint64_t round = b->rounds++;
    snprintf(key, sizeof key, "dmsg-ag%llu-%d", (unsigned long long)round, b->rank);
    if ((st = dmsg_kvs_put_bytes(b->priv, key, mine, len)) || (st = dmsg_kvs_commit(b->priv)) ||
        (st = dmsg_kvs_barrier(b->priv)))
        return st;
    for (int p = 0; p < b->npes; p++) {
        snprintf(key, sizeof key, "dmsg-ag%llu-%d", (unsigned long long)round, p);
        if ((st = dmsg_kvs_get_bytes(b->priv, p, key, all + (size_t)p * len, len)))
            return st;
    }
    return DMSG_OK;
}

dmsg_status dmsg_boot_allgather(dmsg_boot *b, const void *mine, size_t len, void *all)
{
    if (b->kind == DMSG_BOOT_PMI) {
        if (len > DMSG_BOOT_VAL_MAX)
            return DMSG_FAIL(DMSG_ERR_ARG, "PMI all-gather of %zu bytes", len);
        return pmi_allgather(b, mine, len, all);
    }
    dmsg_status st = dmsg_boot_join(b);
    return st ? st : region_allgather(b, mine, len, all);
}
