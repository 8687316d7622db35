/*
 * gather.c - irregular communication: scattered updates and an indirect gather.
 *
 * A global array of npes * L 64-bit words is distributed in blocks of L; it
 * starts as value(k) everywhere.
 *  (a) Scatter: each PE updates a pseudo-random set of elements owned by
 *      other PEs. The updates for one target travel as ONE deposit of
 *      address-data pairs (dmsg_adp8: offset, value), and every target awaits
 *      as many deposits as PEs have updates for it. Each element has at most
 *      one writer (PE s only writes elements k with k % npes == s), so the
 *      final contents are known and every owner checks its whole block.
 *      (On one PE there is nobody else to update, so (a) sends nothing.)
 *  (b) Gather: after a reset and a dmsg_sync, each PE reads a pseudo-random
 *      set of global elements, one indexed fetch per owner (one of them
 *      non-blocking, waited for after the others), and checks value(k).
 * The random sets come from a hash of (PE, draw number), so any PE can replay
 * any other PE's draws: that is how owners know what to expect.
 *
 *   dmsgrun -n 4 ./gather [L [updates]]     (default 4096 1000)
 */
#include <dmsg.h>
#include "check.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>


typedef struct job {
    int me, npes;
    size_t len;      /* L: elements per PE */
    size_t updates;  /* draws per PE in part (a) */
    uint64_t *block; /* symmetric: my L elements of the global array */
    dmsg_ctr ctr;
} job;

/* A 64-bit mix (splitmix64 finalizer): cheap, deterministic, well spread. */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t draw(int pe, uint64_t salt, size_t t)
{
    return mix(((uint64_t)pe << 40) ^ (salt << 32) ^ (uint64_t)t);
}

/* Initial contents; below 2^63, so never equal to an update value. */
static uint64_t value(uint64_t k)
{
    return k * 3 + 7;
}

static uint64_t update_value(int pe, size_t t)
{
    return (1ull << 63) | ((uint64_t)pe << 32) | (uint64_t)t;
}

/* Draw t of PE s in part (a): a global index k with k % npes == s, or
 * UINT64_MAX when it falls into s's own block (s does not update itself). */
static uint64_t update_target(const job *j, int s, size_t t)
{
    uint64_t k = (uint64_t)s + (uint64_t)j->npes * (draw(s, 1, t) % j->len);
    return k / j->len == (uint64_t)s ? UINT64_MAX : k;
}

static void reset_block(const job *j)
{
    for (size_t l = 0; l < j->len; l++)
        j->block[l] = value((uint64_t)j->me * j->len + l);
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes > 0 ? bytes : 1);
    if (p == NULL) {
        fprintf(stderr, "PE %d: out of memory\n", dmsg_pe());
        exit(EXIT_FAILURE);
    }
    return p;
}

/* How many of my draws in part (a) update another PE's element. */
static size_t updates_sent(const job *j)
{
    size_t n = 0;
    for (size_t t = 0; t < j->updates; t++)
        n += update_target(j, j->me, t) != UINT64_MAX;
    return n;
}

/* Part (a), sender side: one address-data deposit per target PE, records in
 * draw order (a later record for the same element wins, as at the owner). */
static void scatter_updates(const job *j)
{
    dmsg_adp8 *rec = xmalloc(j->updates * sizeof(dmsg_adp8));
    for (int pe = 0; pe < j->npes; pe++) {
        size_t n = 0;
        for (size_t t = 0; t < j->updates; t++) {
            uint64_t k = update_target(j, j->me, t);
            if (k != UINT64_MAX && k / j->len == (uint64_t)pe)
                rec[n++] = (dmsg_adp8){(k % j->len) * sizeof(uint64_t), update_value(j->me, t)};
        }
        if (n > 0) CHECK(dmsg_deposit_adp(j->block, rec, n, sizeof(uint64_t), pe, j->ctr));
    }
    free(rec);
}

/* Part (a), owner side: replays every PE's draws to build the expected block
 * and to count the deposits to await, then compares. Returns wrong elements. */
static uint64_t check_updates(const job *j)
{
    uint64_t *want = xmalloc(j->len * sizeof(uint64_t)), senders = 0, errors = 0;
    uint64_t first = (uint64_t)j->me * j->len;
    for (size_t l = 0; l < j->len; l++)
        want[l] = value(first + l);
    for (int s = 0; s < j->npes; s++) {
        int sends = 0;
        for (size_t t = 0; t < j->updates; t++) {
            uint64_t k = update_target(j, s, t);
            if (k != UINT64_MAX && k / j->len == (uint64_t)j->me) {
                want[k - first] = update_value(s, t);
                sends = 1;
            }
        }
        senders += (uint64_t)sends;
    }
    CHECK(dmsg_await(j->ctr, senders));
    for (size_t l = 0; l < j->len; l++) {
        if (j->block[l] != want[l] && errors++ < 5)
            fprintf(stderr, "PE %d: element %" PRIu64 " = %#" PRIx64 ", want %#" PRIx64 "\n", j->me,
                    first + l, j->block[l], want[l]);
    }
    free(want);
    return errors;
}

/* Part (b) plan: draws `count` global indices and sorts them by owner
 * (counting sort): idx[start[pe] .. start[pe+1]) are local indices on pe. */
static void draw_reads(const job *j, size_t count, size_t *idx, size_t *start)
{
    uint64_t global = (uint64_t)j->npes * j->len;
    size_t *fill = xmalloc((size_t)j->npes * sizeof(size_t));
    for (int pe = 0; pe <= j->npes; pe++)
        start[pe] = 0;
    for (size_t t = 0; t < count; t++)
        start[draw(j->me, 2, t) % global / j->len + 1]++;
    for (int pe = 0; pe < j->npes; pe++) {
        start[pe + 1] += start[pe];
        fill[pe] = start[pe];
    }
    for (size_t t = 0; t < count; t++) {
        uint64_t k = draw(j->me, 2, t) % global;
        idx[fill[k / j->len]++] = (size_t)(k % j->len);
    }
    free(fill);
}

/* Part (b): one indexed fetch per owner. The next PE's group goes first and
 * non-blocking, so it is in flight while the others are fetched. */
static void fetch_reads(const job *j, const size_t *idx, const size_t *start, uint64_t *got)
{
    int first = (j->me + 1) % j->npes;
    size_t n_first = start[first + 1] - start[first];
    dmsg_req req;
    if (n_first > 0)
        CHECK(dmsg_fetch_indexed_nb(got + start[first], j->block, idx + start[first], n_first,
                                    sizeof(uint64_t), first, &req));
    for (int pe = 0; pe < j->npes; pe++) {
        size_t n = start[pe + 1] - start[pe];
        if (pe != first && n > 0)
            CHECK(dmsg_fetch_indexed(got + start[pe], j->block, idx + start[pe], n,
                                     sizeof(uint64_t), pe));
    }
    if (n_first > 0) CHECK(dmsg_wait(&req));
}

/* Part (b): draws, fetches and checks `count` elements; returns wrong ones. */
static uint64_t gather_and_check(const job *j, size_t count)
{
    size_t *idx = xmalloc(count * sizeof(size_t));
    size_t *start = xmalloc(((size_t)j->npes + 1) * sizeof(size_t));
    uint64_t *got = xmalloc(count * sizeof(uint64_t)), errors = 0;
    draw_reads(j, count, idx, start);
    fetch_reads(j, idx, start, got);
    for (int pe = 0; pe < j->npes; pe++) {
        for (size_t i = start[pe]; i < start[pe + 1]; i++) {
            uint64_t k = (uint64_t)pe * j->len + idx[i];
            if (got[i] != value(k) && errors++ < 5)
                fprintf(stderr,
                        "PE %d: fetched element %" PRIu64 " = %" PRIu64 ", want %" PRIu64 "\n",
                        j->me, k, got[i], value(k));
        }
    }
    free(got);
    free(start);
    free(idx);
    return errors;
}

static long arg_or(int argc, char **argv, int i, long dflt)
{
    return argc > i ? strtol(argv[i], NULL, 10) : dflt;
}

/* Every PE deposits its error count into PE 0's table; PE 0 sums them. */
static uint64_t total_errors(const job *j, uint64_t mine)
{
    uint64_t *table, sum = 0;
    CHECK(dmsg_alloc((size_t)j->npes * sizeof(uint64_t), (void **)&table));
    CHECK(dmsg_deposit(&table[j->me], &mine, sizeof mine, 0, DMSG_CTR_NONE));
    CHECK(dmsg_sync());
    for (int pe = 0; j->me == 0 && pe < j->npes; pe++)
        sum += table[pe];
    CHECK(dmsg_free(table));
    return j->me == 0 ? sum : mine;
}

int main(int argc, char **argv)
{
    CHECK(dmsg_init());
    job j = {.me = dmsg_pe(), .npes = dmsg_npes()};
    long len = arg_or(argc, argv, 1, 4096), updates = arg_or(argc, argv, 2, 1000);
    if (len <= 0 || updates < 0) {
        if (j.me == 0) fprintf(stderr, "usage: gather [L [updates]]: L > 0 elements per PE\n");
        dmsg_finalize();
        return EXIT_FAILURE;
    }
    j.len = (size_t)len;
    j.updates = (size_t)updates;
    CHECK(dmsg_alloc(j.len * sizeof(uint64_t), (void **)&j.block));
    CHECK(dmsg_ctr_create(&j.ctr));

    /* (a) The sync after the reset is the clearance: no PE deposits into a
     * block before its owner has finished initializing it. */
    reset_block(&j);
    CHECK(dmsg_sync());
    double t0 = dmsg_wtime();
    scatter_updates(&j);
    double t_a = dmsg_wtime() - t0;
    uint64_t err_a = total_errors(&j, check_updates(&j));

    /* (b) Fetches need the data final at the source: reset, then sync. Every
     * deposit of part (a) was awaited, so none can overwrite the reset. */
    reset_block(&j);
    CHECK(dmsg_sync());
    t0 = dmsg_wtime();
    uint64_t mine_b = gather_and_check(&j, j.updates);
    double t_b = dmsg_wtime() - t0;
    uint64_t err_b = total_errors(&j, mine_b);

    if (j.me == 0) {
        printf("gather (a) address-data scatter: %s (%" PRIu64 " wrong elements)\n",
               err_a ? "FAILED" : "OK", err_a);
        printf("gather (b) indexed fetch:        %s (%" PRIu64 " wrong elements)\n",
               err_b ? "FAILED" : "OK", err_b);
        printf("gather: PE 0 took %.3f us to scatter, %.3f us to fetch (%s clock)\n", t_a * 1e6,
               t_b * 1e6, dmsg_transport_name());
        /* Payload per PE over its time: 8 data bytes per record or element
         * (the addresses and the index array are overhead, not payload). */
        double sent = 8.0 * (double)updates_sent(&j), fetched = 8.0 * (double)j.updates;
        printf("gather: %.1f MB/s per PE scattering (%.0f bytes), %.1f MB/s fetching (%.0f bytes)\n",
               t_a > 0 ? sent / t_a / 1e6 : 0.0, sent, t_b > 0 ? fetched / t_b / 1e6 : 0.0,
               fetched);
        printf("gather: L = %zu, %d PEs, %zu draws per PE: %s\n", j.len, j.npes, j.updates,
               err_a + err_b ? "FAILED" : "OK");
    }
    CHECK(dmsg_ctr_destroy(j.ctr));
    CHECK(dmsg_free(j.block));
    CHECK(dmsg_finalize());
    return err_a + err_b ? EXIT_FAILURE : EXIT_SUCCESS;
}
