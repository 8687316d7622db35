/* dmsg_sync completes every deposit issued before it (no counters needed);
 * dmsg_quiet completes this PE's own deposits at their targets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pe.h"

/* Each round every PE deposits (round, me) into slot [me] of every PE; after
 * the sync each PE checks all slots. Two buffers alternate by round parity so
 * the next round's deposits cannot overwrite a slot still being checked. */
static int sync_rounds(void)
{
    enum { ROUNDS = 100 };
    int n = pe_n(), me = pe_me();
    uint64_t *buf = pe_alloc(2 * (size_t)n * 2 * sizeof(uint64_t));
    PE_CHECK(buf != NULL, "alloc failed");
    for (uint64_t r = 0; r < ROUNDS; r++) {
        uint64_t *half = buf + (r % 2) * (size_t)n * 2;
        uint64_t msg[2] = {r + 1, (uint64_t)me + 1000}; /* never the initial zeros */
        for (int k = 0; k < n; k++)
            PE_OK(dmsg_deposit(half + 2 * me, msg, sizeof msg, pe_up(k), DMSG_CTR_NONE));
        PE_OK(dmsg_sync());
        for (int from = 0; from < n; from++)
            PE_CHECK(half[2 * from] == r + 1 && half[2 * from + 1] == (uint64_t)from + 1000,
                     "round %llu, slot of PE %d after sync: expected (%llu,%d) got (%llu,%llu)",
                     (unsigned long long)r, from, (unsigned long long)r + 1, from + 1000,
                     (unsigned long long)half[2 * from], (unsigned long long)half[2 * from + 1]);
    }
    PE_OK(dmsg_free(buf));
    return 0;
}

/* Syncs with nothing outstanding, and a quiet with nothing outstanding. */
static int sync_empty(void)
{
    for (int i = 0; i < 50; i++)
        PE_OK(dmsg_sync());
    PE_OK(dmsg_quiet());
    PE_OK(dmsg_quiet());
    return 0;
}

/* After dmsg_quiet an uncounted deposit is complete at its target, so a
 * counted "flag" deposit issued after the quiet proves the data is there. */
static int quiet_orders(void)
{
    enum { ROUNDS = 20 };
    const size_t size = 64 * 1024;
    dmsg_ctr flag;
    PE_OK(dmsg_ctr_create(&flag));
    char *data = pe_alloc(size);
    uint64_t *flagbuf = pe_alloc(64);
    char *src = malloc(size);
    PE_CHECK(data != NULL && flagbuf != NULL && src != NULL, "allocation failed");
    for (uint32_t r = 0; r < ROUNDS; r++) {
        uint64_t f = r + 1; /* never the initial zero */
        pe_fill(src, size, pe_me(), 19000 + r);
        PE_OK(dmsg_deposit(data, src, size, pe_up(1), DMSG_CTR_NONE));
        PE_OK(dmsg_quiet());
        PE_OK(dmsg_deposit(flagbuf, &f, sizeof f, pe_up(1), flag));
        PE_OK(dmsg_await(flag, 1));
        PE_CHECK(flagbuf[0] == r + 1, "round %u: flag expected %u got %llu", r, r + 1,
                 (unsigned long long)flagbuf[0]);
        char what[64];
        snprintf(what, sizeof what, "round %u: data deposited before quiet", r);
        PE_TRY(pe_check_pattern(data, size, pe_down(1), 19000 + r, what));
        PE_OK(dmsg_sync()); /* everyone has checked before the next round writes */
    }
    PE_OK(dmsg_free(flagbuf));
    PE_OK(dmsg_free(data));
    PE_OK(dmsg_ctr_destroy(flag));
    free(src);
    return 0;
}

/* Rounds of deposit, await, sync, as a time-stepped program runs them: each
 * PE deposits its round number to the next PE, awaits the one deposit from
 * the previous PE, checks it and syncs. PE 0 prints the time per round
 * ("round_us N") for tests/ofi/oversub.sh, which compares transports
 * running it side by side. PE_ROUNDS sets the number of rounds (default 200). */
static int deposit_rounds(void)
{
    const char *e = getenv("PE_ROUNDS");
    long rounds = e ? strtol(e, NULL, 10) : 200;
    PE_CHECK(rounds > 0, "PE_ROUNDS=%s: expected a positive number", e);
    dmsg_ctr c;
    PE_OK(dmsg_ctr_create(&c));
    uint64_t *box = pe_alloc(2 * sizeof(uint64_t));
    PE_CHECK(box != NULL, "alloc failed");
    PE_OK(dmsg_sync());
    double t0 = dmsg_wtime();
    for (long r = 0; r < rounds; r++) {
        uint64_t v = (uint64_t)r + 1;
        PE_OK(dmsg_deposit(&box[r % 2], &v, sizeof v, pe_up(1), c));
        PE_OK(dmsg_await(c, 1));
        PE_CHECK(box[r % 2] == v, "round %ld: expected %llu from PE %d got %llu", r,
                 (unsigned long long)v, pe_down(1), (unsigned long long)box[r % 2]);
        PE_OK(dmsg_sync());
    }
    double dt = dmsg_wtime() - t0;
    if (pe_me() == 0)
        printf("round_us %.1f\n", dt / (double)rounds * 1e6);
    PE_OK(dmsg_free(box));
    PE_OK(dmsg_ctr_destroy(c));
    return 0;
}

/* An 8-byte ping-pong of deposit and await between PEs 0 and 1 (the others
 * wait in dmsg_sync): PE 0 prints the time of half a round trip ("pp_us
 * N"), PE_ROUNDS round trips (default 2000). Checks every value. */
static int ping_latency(void)
{
    const char *e = getenv("PE_ROUNDS");
    long rounds = e ? strtol(e, NULL, 10) : 2000;
    PE_CHECK(rounds > 0, "PE_ROUNDS=%s: expected a positive number", e);
    dmsg_ctr c;
    PE_OK(dmsg_ctr_create(&c));
    uint64_t *box = pe_alloc(sizeof *box);
    PE_CHECK(box != NULL, "alloc failed");
    PE_OK(dmsg_sync());
    int me = pe_me();
    if (me < 2 && pe_n() > 1) {
        double t0 = dmsg_wtime();
        for (long r = 0; r < rounds; r++) {
            uint64_t v = (uint64_t)r + 1;
            if (me == 0)
                PE_OK(dmsg_deposit(box, &v, sizeof v, 1, c));
            PE_OK(dmsg_await(c, 1));
            PE_CHECK(*box == v, "round %ld: expected %llu got %llu", r, (unsigned long long)v,
                     (unsigned long long)*box);
            if (me == 1)
                PE_OK(dmsg_deposit(box, &v, sizeof v, 0, c));
        }
        if (me == 0)
            printf("pp_us %.2f\n", (dmsg_wtime() - t0) / (double)rounds / 2 * 1e6);
    }
    PE_OK(dmsg_sync());
    PE_OK(dmsg_free(box));
    PE_OK(dmsg_ctr_destroy(c));
    return 0;
}

/* Many syncs on one buffer, no alternating halves: each round every PE
 * deposits (round, me) and, every 7th round, a block of 8 KiB to its
 * slot on every PE; after a sync every PE checks every slot, and a
 * second sync keeps the next round's deposits off the slots until all
 * have checked. So the barrier must publish the stores before it (the
 * first sync) and the loads before it (the second: a deposit of the
 * next round may not reach a slot its owner is still reading). A round
 * with a third sync alone now and then puts the PEs' barrier counts out
 * of step with the rounds. PE_ROUNDS sets the rounds (default 3000). */
static int sync_one_buffer(void)
{
    const char *e = getenv("PE_ROUNDS");
    long rounds = e ? strtol(e, NULL, 10) : 3000;
    PE_CHECK(rounds > 0, "PE_ROUNDS=%s: expected a positive number", e);
    enum { BLOCK = 8192 };
    int n = pe_n(), me = pe_me();
    uint64_t *slot = pe_alloc((size_t)n * 2 * sizeof(uint64_t));
    unsigned char *blk = pe_alloc((size_t)n * BLOCK);
    unsigned char *src = malloc(BLOCK);
    PE_CHECK(slot != NULL && blk != NULL && src != NULL, "allocation failed");
    for (long r = 0; r < rounds; r++) {
        uint64_t msg[2] = {(uint64_t)r + 1, (uint64_t)me + 1000};
        int big = r % 7 == 3;
        if (big)
            pe_fill(src, BLOCK, me, (uint32_t)r);
        for (int k = 0; k < n; k++) {
            PE_OK(dmsg_deposit(slot + 2 * me, msg, sizeof msg, pe_up(k), DMSG_CTR_NONE));
            if (big)
                PE_OK(dmsg_deposit(blk + (size_t)me * BLOCK, src, BLOCK, pe_up(k), DMSG_CTR_NONE));
        }
        PE_OK(dmsg_sync());
        for (int from = 0; from < n; from++) {
            PE_CHECK(slot[2 * from] == (uint64_t)r + 1 && slot[2 * from + 1] == (uint64_t)from + 1000,
                     "round %ld, slot of PE %d after sync: expected (%ld,%d) got (%llu,%llu)", r,
                     from, r + 1, from + 1000, (unsigned long long)slot[2 * from],
                     (unsigned long long)slot[2 * from + 1]);
            if (big) {
                char what[64];
                snprintf(what, sizeof what, "round %ld: block of PE %d after sync", r, from);
                PE_TRY(pe_check_pattern(blk + (size_t)from * BLOCK, BLOCK, from, (uint32_t)r, what));
            }
        }
        PE_OK(dmsg_sync());
        if (r % 101 == 50)
            PE_OK(dmsg_sync());
    }
    PE_OK(dmsg_free(blk));
    PE_OK(dmsg_free(slot));
    free(src);
    return 0;
}

/* dmsg_sync_xchg: every PE's bytes in PE order on every PE (1 to 16K
 * bytes a PE within DMSG_SYNC_XCHG_MAX of all, so on the pair lines and in
 * the rows), a barrier as dmsg_sync (a deposit before it is seen after it),
 * meeting dmsg_sync where the other PEs call that (PE 0 alone calls
 * dmsg_sync_xchg now and then), refusals (NULL, too many bytes: at once,
 * nothing synchronized) and, on a transport that carries no values in its
 * barrier (sim), DMSG_ERR_UNSUPPORTED everywhere. */
static int sync_xchg(void)
{
    int n = pe_n(), me = pe_me();
    static const size_t sizes[] = {1, 4, 8, 12, 48, 49, 64, 500, 4096, 16384};
    uint64_t *box = pe_alloc(2 * sizeof(uint64_t));
    unsigned char *mine = malloc(16384), *all = malloc((size_t)DMSG_SYNC_XCHG_MAX);
    PE_CHECK(box && mine && all, "allocation failed");
    mine[0] = 1;
    int st = dmsg_sync_xchg(mine, 1, all);
    if (st == DMSG_ERR_UNSUPPORTED) /* every PE alike, nothing to meet */
        PE_CHECK(strcmp(dmsg_transport_name(), "shm") != 0, "shm refuses dmsg_sync_xchg");
    else
        PE_OK(st);
    PE_EXPECT(dmsg_sync_xchg(NULL, 8, all), st ? st : DMSG_ERR_NULL);
    PE_EXPECT(dmsg_sync_xchg(mine, 1, NULL), st ? st : DMSG_ERR_NULL);
    PE_EXPECT(dmsg_sync_xchg(mine, DMSG_SYNC_XCHG_MAX / (size_t)n + 1, all),
              st ? st : DMSG_ERR_ARG);
    if (st) {
        PE_OK(dmsg_free(box));
        free(mine);
        free(all);
        return 0;
    }
    for (int r = 0; r < 400; r++) {
        size_t b = sizes[r % 10];
        if (b * (size_t)n > DMSG_SYNC_XCHG_MAX)
            b = DMSG_SYNC_XCHG_MAX / (size_t)n;
        for (size_t i = 0; i < b; i++)
            mine[i] = (unsigned char)(me * 31 + r * 7 + (int)i);
        uint64_t msg = (uint64_t)r * 1000 + (uint64_t)me;
        PE_OK(dmsg_deposit(&box[r % 2], &msg, sizeof msg, pe_up(1), DMSG_CTR_NONE));
        memset(all, 0xee, b * (size_t)n);
        PE_OK(dmsg_sync_xchg(mine, b, all));
        for (int p = 0; p < n; p++)
            for (size_t i = 0; i < b; i++)
                PE_CHECK(all[(size_t)p * b + i] == (unsigned char)(p * 31 + r * 7 + (int)i),
                         "round %d, %zu bytes: PE %d's byte %zu is %u", r, b, p, i,
                         all[(size_t)p * b + i]);
        PE_CHECK(box[r % 2] == (uint64_t)r * 1000 + (uint64_t)pe_down(1),
                 "round %d: the deposit before dmsg_sync_xchg is not seen after it", r);
        if (r % 9 == 4) /* PE 0 offers a value, the others only meet it */
            PE_OK(me == 0 ? dmsg_sync_xchg(mine, 8, all) : dmsg_sync());
    }
    PE_OK(dmsg_free(box));
    free(mine);
    free(all);
    return 0;
}

const pe_case pe_sync_cases[] = {
    {"sync_xchg", sync_xchg, 0},
    {"deposit_rounds", deposit_rounds, 0},
    {"ping_latency", ping_latency, 0},
    {"sync_rounds", sync_rounds, 0},
    {"sync_empty", sync_empty, 0},
    {"sync_one_buffer", sync_one_buffer, 0},
    {"quiet_orders", quiet_orders, 0},
    {NULL, NULL, 0},
};
