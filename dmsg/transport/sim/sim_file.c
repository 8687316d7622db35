/* Deposits through the job region's file (sim.h, dmsg_sim_file_*).
 *
 * Why. Under the scheduler with DMSG_SIM_DROP_PES a PE drops its page-table
 * entries for the other PEs' parts of the job region each time it hands
 * the run token on (sim_sched.c), so that page tables stay bounded at
 * thousands of PEs. A PE that deposits to every other once a run (an
 * all-to-all: transpose, FFT) then pays, per deposit, a fault on each page
 * of the target it touches (destination, counter slot, arrival record), a
 * page-table page per partner, and their unmapping at the next drop:
 * about 14 us of CPU a deposit at 4096 PEs, mostly the kernel's, and 8
 * all-to-alls of 4096 x 4096 deposits (FFT 4096^2) took about 40 minutes.
 * Measured on this project's 2-core host (November 27, 2026, a test
 * program, 4096 partners 64 MiB apart in one memfd mapping): a store into
 * a page of a fresh 2 MiB of the mapping 21 us, its share of the drop
 * after 14 us; a pwrite of 8 to 64 bytes into the memfd 1.8 to 2.1 us, a
 * pread 1.6 to 2.0 us (a system call is about 1 us on this VM).
 *
 * So a PE that drops writes another PE's memory through the file every PE
 * holds (the region's memfd, mapped from offset 0): the destination with
 * pwrite (a write per run of the destination that the runs do not
 * continue, the local pieces gathered by pwritev), and the arrival record
 * (sim_arrive.c) likewise; the count goes to the target's log header in
 * the job area, which is never dropped, and the target adds it to its
 * counter before it reads one (dmsg_sim_count_fold). The file and every
 * PE's mapping share the same pages, so the target sees the data as if
 * stored; only one PE runs at a time, and the hand-off of the token
 * orders the writes before the target's reads. What still touches other
 * PEs through the mapping (fetches, atomics, signals, deposits the path
 * leaves to the mapping, a count for a second slot) marks the PE for a
 * drop at its next hand-off (s->mapped); the other hand-offs drop
 * nothing. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>
#include "dmsg/transport/sim/sim.h"

/* One run of a deposit: where it goes in the target's segment and where
 * its bytes are here. */
typedef struct sim_run {
    size_t roff;
    char *local;
    size_t len;
    size_t i; /* its place in the op's element order (ties of the sort) */
} sim_run;

/* A deposit with more runs than this many per page of the target it
 * touches goes through the mapping: a fault a page is then cheaper than a
 * write a run (21 against 2 us, above). */
#define SIM_FILE_RUNS_PER_PAGE 8

/* Where `at` (an address of the job region in this process) is in the
 * region's file. */
static off_t file_off(const sim_state *s, const void *at)
{
    return (off_t)((const char *)at - (const char *)s->shm.hdr);
}

/* pread or pwrite of len bytes at off, to the end (interrupted or short
 * calls go on); 0 on success. */
static int file_io(int fd, int wr, off_t off, char *b, size_t len)
{
    while (len > 0) {
        ssize_t n = wr ? pwrite(fd, b, len, off) : pread(fd, b, len, off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        b += n, off += n, len -= (size_t)n;
    }
    return 0;
}

int dmsg_sim_file_read(sim_state *s, const void *at, void *buf, size_t len)
{
    /* After what the deposit engine's ring holds (sim_engine.c). */
    if (dmsg_sim_engine_drain(s))
        return -1;
    return file_io(s->shm.boot->fd, 0, file_off(s, at), buf, len);
}

/* len bytes to offset off of the file: through the deposit engine's ring
 * where it takes them, else a write of this PE's own after what the ring
 * holds (a later write must win). */
static int write_at(sim_state *s, off_t off, const void *buf, size_t len)
{
    if (dmsg_sim_engine_takes(s, len))
        return dmsg_sim_engine_write(s, (uint64_t)off, buf, len);
    if (dmsg_sim_engine_drain(s))
        return -1;
    return file_io(s->shm.boot->fd, 1, off, (char *)buf, len);
}

int dmsg_sim_file_write(sim_state *s, void *at, const void *buf, size_t len)
{
    return write_at(s, file_off(s, at), buf, len);
}

/* Collects the op's runs (dmsg_op_runs' callback). */
static dmsg_status add_run(void *arg, size_t roff, char *local, size_t len)
{
    sim_state *s = arg;
    if (s->runs_n == s->runs_cap) {
        size_t cap = s->runs_cap ? 2 * s->runs_cap : 16;
        sim_run *r = realloc(s->runs, cap * sizeof *r);
        if (!r)
            return DMSG_ERR_NOMEM;
        s->runs = r;
        s->runs_cap = cap;
    }
    s->runs[s->runs_n] = (sim_run){roff, local, len, s->runs_n};
    s->runs_n++;
    return DMSG_OK;
}

static int run_cmp(const void *a, const void *b)
{
    const sim_run *x = a, *y = b;
    if (x->roff != y->roff)
        return x->roff < y->roff ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* Writes the runs r[0..n), sorted and not overlapping, to the file at
 * base: one pwritev per stretch the runs continue (up to 64 pieces). */
static int write_runs(sim_state *s, off_t base, const sim_run *r, size_t n)
{
    int fd = s->shm.boot->fd;
    if (s->engine) {
        /* Run by run through the deposit engine (sim_engine.c), which
         * copies them; large runs are written here. */
        for (size_t k = 0; k < n; k++)
            if (write_at(s, base + (off_t)r[k].roff, r[k].local, r[k].len))
                return -1;
        return 0;
    }
    struct iovec iov[64];
    size_t k = 0;
    while (k < n) {
        size_t first = k, m = 0, bytes = 0;
        do {
            iov[m++] = (struct iovec){r[k].local, r[k].len};
            bytes += r[k].len;
            k++;
        } while (k < n && m < sizeof iov / sizeof iov[0] &&
                 r[k].roff == r[k - 1].roff + r[k - 1].len);
        if (pwritev(fd, iov, (int)m, base + (off_t)r[first].roff) == (ssize_t)bytes)
            continue;
        /* Short or interrupted: piece by piece (bytes written twice are
         * the same bytes). */
        for (size_t j = first; j < k; j++)
            if (file_io(fd, 1, base + (off_t)r[j].roff, r[j].local, r[j].len))
                return -1;
    }
    return 0;
}

/* The page size, asked once: the check below runs on every deposit. */
static size_t page_bytes(void)
{
    static size_t page;
    if (!page) {
        long p = sysconf(_SC_PAGESIZE);
        page = p > 0 ? (size_t)p : 4096;
    }
    return page;
}

int dmsg_sim_file_put(sim_state *s, const dmsg_op *op)
{
    s->runs_n = 0;
    if (dmsg_op_runs(op, add_run, s) != DMSG_OK)
        return 0;
    size_t n = s->runs_n;
    if (n == 0)
        return 1; /* nothing to move */
    sim_run *r = s->runs;
    int sorted = 1;
    for (size_t k = 1; k < n && sorted; k++)
        sorted = r[k].roff >= r[k - 1].roff + r[k - 1].len;
    if (!sorted) {
        qsort(r, n, sizeof *r, run_cmp);
        /* Runs that overlap: the copy's order decides what stays; the
         * mapping keeps it. */
        for (size_t k = 1; k < n; k++)
            if (r[k].roff < r[k - 1].roff + r[k - 1].len)
                return 0;
    }
    /* Writes (stretches the runs continue) against pages touched. */
    size_t page = page_bytes();
    size_t writes = 0, pages = 0, last = SIZE_MAX;
    for (size_t k = 0; k < n; k++) {
        if (k == 0 || r[k].roff != r[k - 1].roff + r[k - 1].len)
            writes++;
        size_t p0 = r[k].roff / page, p1 = (r[k].roff + r[k].len - 1) / page;
        pages += p1 - p0 + 1 - (p0 == last);
        last = p1;
    }
    if (writes > SIM_FILE_RUNS_PER_PAGE * pages)
        return 0;
    off_t base = file_off(s, s->shm.seg[op->pe]);
    return write_runs(s, base, r, n) == 0;
}

int dmsg_sim_file_count(sim_state *s, int pe, uint32_t slot, uint64_t bytes)
{
    /* shm's counter from its messages to its bytes (shm.h: two lines
     * apart): one read, one write back. Only the token's holder runs, so
     * the words between do not change meanwhile; a sleeper on the counter
     * (none under the scheduler) needs a wake-up: the caller's. */
    shm_ctr *c = shm_ctr_at(&s->shm, pe, slot);
    enum { SPAN = offsetof(shm_ctr, bytes) + sizeof(uint64_t) };
    _Alignas(shm_ctr) unsigned char buf[SPAN];
    shm_ctr *w = (shm_ctr *)(void *)buf;
    if (dmsg_sim_file_read(s, (const void *)c, buf, SPAN) || atomic_load(&w->sleepers))
        return -1;
    atomic_store(&w->bytes, atomic_load(&w->bytes) + bytes);
    atomic_store(&w->msgs, atomic_load(&w->msgs) + 1);
    return dmsg_sim_file_write(s, (void *)c, buf, SPAN);
}

void dmsg_sim_count_fold(sim_state *s)
{
    sim_log *l = dmsg_sim_log_of(s, s->tp->rank);
    if (!atomic_load_explicit(&l->pslot, memory_order_acquire))
        return;
    dmsg_sim_log_lock(l);
    uint32_t ps = atomic_load(&l->pslot);
    if (ps) {
        shm_ctr *c = shm_ctr_at(&s->shm, s->tp->rank, ps - 1);
        /* Bytes first, as a sender counts (shm_ctr.c). */
        atomic_fetch_add(&c->bytes, l->pbytes);
        atomic_fetch_add(&c->msgs, l->pmsgs);
        l->pmsgs = l->pbytes = 0;
        atomic_store(&l->pslot, 0);
    }
    dmsg_sim_log_unlock(l);
}
