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

const pe_case pe_sync_cases[] = {
    {"sync_rounds", sync_rounds, 0},
    {"sync_empty", sync_empty, 0},
    {"quiet_orders", quiet_orders, 0},
    {NULL, NULL, 0},
};
