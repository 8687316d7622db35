/* Deposit counters: many senders to one receiver, message and byte awaits,
 * consumption, independence of counters, reuse over many rounds, and the
 * counter table limit. Data is always checked right after the await that
 * covers it, with no sync in between: the count must imply visibility. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pe.h"
#include "dmsg/core/ctr_many.h"

#define ULL(x) ((unsigned long long)(x))

/* Reads a counter and compares both counts. */
static int expect_counts(dmsg_ctr c, uint64_t msgs, uint64_t bytes, const char *when)
{
    uint64_t m = ~0ull, b = ~0ull;
    PE_OK(dmsg_ctr_read(c, &m, &b));
    PE_CHECK(m == msgs && b == bytes,
             "counter %s: expected %llu msgs %llu bytes got %llu msgs %llu bytes",
             when, ULL(msgs), ULL(bytes), ULL(m), ULL(b));
    return 0;
}

/* Every PE deposits 1 MiB to PE 0, which awaits npes messages. */
static int many_to_one_msgs(dmsg_ctr ctr)
{
    const size_t size = (size_t)1 << 20;
    int n = pe_n(), me = pe_me();
    char *recv = pe_alloc(size * (size_t)n);
    char *src = malloc(size);
    PE_CHECK(recv != NULL && src != NULL, "allocation failed");
    pe_fill(src, size, me, 15000);
    PE_OK(dmsg_deposit(recv + (size_t)me * size, src, size, 0, ctr));
    if (me == 0) {
        PE_OK(dmsg_await(ctr, (uint64_t)n));
        for (int from = 0; from < n; from++) {
            char what[64];
            snprintf(what, sizeof what, "1 MiB from PE %d right after await", from);
            PE_TRY(pe_check_pattern(recv + (size_t)from * size, size, from, 15000, what));
        }
        /* await consumed the messages but left the bytes */
        PE_TRY(expect_counts(ctr, 0, (uint64_t)n * size, "after await(npes)"));
        PE_OK(dmsg_await_bytes(ctr, (uint64_t)n * size));
        PE_TRY(expect_counts(ctr, 0, 0, "after await_bytes(all)"));
    }
    PE_OK(dmsg_free(recv)); /* starts with a barrier */
    free(src);
    return 0;
}

/* Every PE deposits two odd-sized messages to PE 0, which awaits the bytes. */
static int many_to_one_bytes(dmsg_ctr ctr)
{
    const size_t size = 4099;
    int n = pe_n(), me = pe_me();
    char *recv = pe_alloc(2 * size * (size_t)n);
    char src[2][4099];
    PE_CHECK(recv != NULL, "alloc failed");
    for (int j = 0; j < 2; j++) {
        pe_fill(src[j], size, me, 15100 + (uint32_t)j);
        PE_OK(dmsg_deposit(recv + (2 * (size_t)me + (size_t)j) * size, src[j], size, 0, ctr));
    }
    if (me == 0) {
        uint64_t total = 2 * (uint64_t)n * size;
        PE_OK(dmsg_await_bytes(ctr, total));
        for (int from = 0; from < n; from++)
            for (int j = 0; j < 2; j++) {
                char what[64];
                snprintf(what, sizeof what, "message %d from PE %d after await_bytes", j, from);
                PE_TRY(pe_check_pattern(recv + (2 * (size_t)from + (size_t)j) * size, size, from,
                                        15100 + (uint32_t)j, what));
            }
        PE_TRY(expect_counts(ctr, 2 * (uint64_t)n, 0, "after await_bytes(all)"));
        PE_OK(dmsg_await(ctr, (uint64_t)n));
        PE_TRY(expect_counts(ctr, (uint64_t)n, 0, "after await(npes) of 2*npes"));
        PE_OK(dmsg_await(ctr, (uint64_t)n));
        PE_TRY(expect_counts(ctr, 0, 0, "after second await(npes)"));
    } else {
        PE_TRY(expect_counts(ctr, 0, 0, "on a PE nobody deposited to"));
    }
    PE_OK(dmsg_free(recv));
    return 0;
}

static int ctr_many_to_one(void)
{
    dmsg_ctr ctr = DMSG_CTR_NONE;
    PE_OK(dmsg_ctr_create(&ctr));
    PE_CHECK(ctr != DMSG_CTR_NONE, "dmsg_ctr_create returned DMSG_CTR_NONE");
    PE_TRY(expect_counts(ctr, 0, 0, "new counter"));
    PE_TRY(many_to_one_msgs(ctr));
    PE_TRY(many_to_one_bytes(ctr));

    /* Awaiting nothing returns at once, even on an empty counter. */
    double t0 = pe_now();
    PE_OK(dmsg_await(ctr, 0));
    PE_OK(dmsg_await_bytes(ctr, 0));
    PE_CHECK(pe_now() - t0 < 2.0, "await of 0 took %.2f s", pe_now() - t0);
    PE_TRY(expect_counts(ctr, 0, 0, "after await(0)"));
    PE_OK(dmsg_ctr_destroy(ctr));
    return 0;
}

/* Partial consumption leaves exactly the remainder. */
static int ctr_consume(void)
{
    enum { MSGS = 5, SIZE = 100 };
    dmsg_ctr ctr;
    PE_OK(dmsg_ctr_create(&ctr));
    char *recv = pe_alloc(MSGS * SIZE);
    PE_CHECK(recv != NULL, "alloc failed");
    char src[SIZE];
    for (int i = 0; i < MSGS; i++) {
        pe_fill(src, SIZE, pe_me(), 16000 + (uint32_t)i);
        PE_OK(dmsg_deposit(recv + i * SIZE, src, SIZE, pe_up(1), ctr));
    }
    PE_OK(dmsg_sync()); /* every deposit has landed and been counted */
    PE_TRY(expect_counts(ctr, MSGS, MSGS * SIZE, "after sync"));
    PE_OK(dmsg_await(ctr, 2));
    PE_TRY(expect_counts(ctr, MSGS - 2, MSGS * SIZE, "after await(2)"));
    PE_OK(dmsg_await_bytes(ctr, 2 * SIZE + SIZE / 2));
    PE_TRY(expect_counts(ctr, MSGS - 2, MSGS * SIZE - (2 * SIZE + SIZE / 2),
                         "after await_bytes(250)"));
    PE_OK(dmsg_await(ctr, MSGS - 2));
    PE_OK(dmsg_await_bytes(ctr, MSGS * SIZE - (2 * SIZE + SIZE / 2)));
    PE_TRY(expect_counts(ctr, 0, 0, "after consuming all"));
    for (int i = 0; i < MSGS; i++) {
        char what[48];
        snprintf(what, sizeof what, "message %d", i);
        PE_TRY(pe_check_pattern(recv + i * SIZE, SIZE, pe_down(1), 16000 + (uint32_t)i, what));
    }
    PE_OK(dmsg_ctr_read(ctr, NULL, NULL)); /* both outputs optional */
    PE_OK(dmsg_free(recv));
    PE_OK(dmsg_ctr_destroy(ctr));
    return 0;
}

/* Counter k receives k+1 messages of 10*(k+1) bytes; the others are unaffected. */
static int ctr_independent(void)
{
    enum { NC = 3 };
    dmsg_ctr c[NC];
    for (int k = 0; k < NC; k++)
        PE_OK(dmsg_ctr_create(&c[k]));
    for (int k = 0; k < NC; k++)
        for (int j = 0; j < k; j++)
            PE_CHECK(c[j] != c[k], "counters %d and %d have the same handle", j, k);
    char *recv = pe_alloc(4096);
    PE_CHECK(recv != NULL, "alloc failed");
    char src[64] = {0};
    for (int k = 0; k < NC; k++)
        for (int m = 0; m <= k; m++)
            PE_OK(dmsg_deposit(recv + 64 * (k * NC + m), src, 10 * ((size_t)k + 1), pe_up(1),
                               c[k]));
    /* An uncounted deposit changes no counter. */
    PE_OK(dmsg_deposit(recv + 2048, src, 64, pe_up(1), DMSG_CTR_NONE));
    PE_OK(dmsg_sync());
    for (int k = 0; k < NC; k++) {
        char when[48];
        snprintf(when, sizeof when, "%d after sync", k);
        PE_TRY(expect_counts(c[k], (uint64_t)k + 1, (uint64_t)(k + 1) * 10 * (k + 1), when));
    }
    for (int k = NC - 1; k >= 0; k--) {
        PE_OK(dmsg_await(c[k], (uint64_t)k + 1));
        for (int j = 0; j < NC; j++) {
            char when[64];
            snprintf(when, sizeof when, "%d after awaiting counter %d", j, k);
            uint64_t msgs = j >= k ? 0 : (uint64_t)j + 1;
            PE_TRY(expect_counts(c[j], msgs, (uint64_t)(j + 1) * 10 * (j + 1), when));
        }
    }
    PE_OK(dmsg_free(recv));
    for (int k = 0; k < NC; k++)
        PE_OK(dmsg_ctr_destroy(c[k]));
    return 0;
}

/* Ping-pong between pairs (me ^ 1); with an odd PE count the last PE plays
 * against itself. One counter is reused for every round. */
static int ctr_pingpong(void)
{
    enum { ROUNDS = 200, MAXSZ = 2048 };
    int me = pe_me(), partner = me ^ 1;
    if (partner >= pe_n())
        partner = me;
    int starter = me <= partner;
    dmsg_ctr ctr;
    PE_OK(dmsg_ctr_create(&ctr));
    char *slot = pe_alloc(MAXSZ);
    PE_CHECK(slot != NULL, "alloc failed");
    char src[MAXSZ];
    uint64_t received = 0;
    for (uint32_t r = 0; r < ROUNDS; r++) {
        size_t size = 8 + (r * 37) % (MAXSZ - 8);
        char what[64];
        if (starter) {
            pe_fill(src, size, me, 17000 + r);
            PE_OK(dmsg_deposit(slot, src, size, partner, ctr));
        }
        if (!starter || partner == me) {
            PE_OK(dmsg_await(ctr, 1));
            snprintf(what, sizeof what, "ping round %u", r);
            PE_TRY(pe_check_pattern(slot, size, partner, 17000 + r, what));
            received += size;
        }
        if (!starter) {
            pe_fill(src, size, me, 18000 + r);
            PE_OK(dmsg_deposit(slot, src, size, partner, ctr));
        }
        if (starter && partner != me) {
            PE_OK(dmsg_await(ctr, 1));
            snprintf(what, sizeof what, "pong round %u", r);
            PE_TRY(pe_check_pattern(slot, size, partner, 18000 + r, what));
            received += size;
        }
    }
    PE_TRY(expect_counts(ctr, 0, received, "after ping-pong (bytes never consumed)"));
    PE_OK(dmsg_free(slot));
    PE_OK(dmsg_ctr_destroy(ctr));
    return 0;
}

/* Creating counters until the table is full gives DMSG_ERR_NOMEM on every
 * PE; after destroying them the table is usable again. */
static int ctr_exhaust(void)
{
    const char *env = getenv("DMSG_MAX_COUNTERS");
    long limit = env != NULL ? strtol(env, NULL, 10) : 256;
    dmsg_ctr *c = calloc((size_t)limit + 16, sizeof *c);
    PE_CHECK(c != NULL, "malloc failed");
    long k = 0;
    int st = DMSG_OK;
    while (k < limit + 16) {
        dmsg_ctr h = 12345;
        st = dmsg_ctr_create(&h);
        if (st != DMSG_OK) {
            PE_CHECK(h == 12345, "failed dmsg_ctr_create changed its output to %llu", ULL(h));
            break;
        }
        c[k++] = h;
    }
    PE_CHECK(st == DMSG_ERR_NOMEM,
             "creating counter %ld of limit %ld: expected DMSG_ERR_NOMEM got %s",
             k + 1, limit, pe_status_name(st));
    /* A few may be reserved internally, but the table must hold nearly the limit. */
    PE_CHECK(k <= limit && k >= limit - 8,
             "counter table held %ld counters, expected between %ld and %ld (DMSG_MAX_COUNTERS)",
             k, limit - 8, limit);
    for (long i = 0; i < k; i++)
        PE_OK(dmsg_ctr_destroy(c[i]));

    dmsg_ctr ctr;
    PE_OK(dmsg_ctr_create(&ctr));
    char *slot = pe_alloc(64);
    PE_CHECK(slot != NULL, "alloc failed");
    uint64_t v = 0xC0FFEE00u + (uint64_t)pe_me();
    PE_OK(dmsg_deposit(slot, &v, sizeof v, pe_up(1), ctr));
    PE_OK(dmsg_await(ctr, 1));
    uint64_t got;
    memcpy(&got, slot, sizeof got);
    PE_CHECK(got == 0xC0FFEE00u + (uint64_t)pe_down(1),
             "deposit after refilling the counter table: expected %llx got %llx",
             ULL(0xC0FFEE00u + (uint64_t)pe_down(1)), ULL(got));
    PE_OK(dmsg_free(slot));
    PE_OK(dmsg_ctr_destroy(ctr));
    free(c);
    return 0;
}

/* Many counters in one collective step (dmsg/core/ctr_many.h, used by
 * RRMSG and its channel): the same slots as one creation at a time, each
 * counting on its own; nothing made or ended on a refusal (NULL, too many,
 * a handle twice, a stale handle, a team's counter). */
static int ctr_many(void)
{
    int n = pe_n();
    size_t k = (size_t)n + 3;
    dmsg_ctr one[16], many[16];
    PE_CHECK(k <= 16, "too many PEs for this case");
    PE_OK(dmsg_ctr_create_many(NULL, 0)); /* a collective no-op */
    for (size_t i = 0; i < k; i++)
        PE_OK(dmsg_ctr_create(&one[i]));
    for (size_t i = k; i-- > 0;)
        PE_OK(dmsg_ctr_destroy(one[i]));
    PE_OK(dmsg_ctr_create_many(many, k));
    for (size_t i = 0; i < k; i++)
        PE_CHECK((many[i] & 0xffffffffu) == (one[i] & 0xffffffffu) && many[i] != one[i],
                 "counter %zu: handle %llx, one at a time %llx (same slot, new life expected)", i,
                 ULL(many[i]), ULL(one[i]));
    /* Each counts only its own deposits: deposit i goes to the PE above on
     * counter i, carrying i. */
    uint64_t *slot = pe_alloc(k * sizeof *slot);
    PE_CHECK(slot != NULL, "alloc failed");
    for (size_t i = 0; i < k; i++) {
        uint64_t v = 1000 * (uint64_t)pe_me() + i;
        PE_OK(dmsg_deposit(&slot[i], &v, sizeof v, pe_up(1), many[i]));
    }
    for (size_t i = 0; i < k; i++) {
        PE_OK(dmsg_await(many[i], 1));
        if (expect_counts(many[i], 0, 8, "after its await (the bytes stay)"))
            return 1;
        PE_CHECK(slot[i] == 1000 * (uint64_t)pe_down(1) + i, "slot %zu: %llu", i, ULL(slot[i]));
    }

    /* Refusals change nothing. */
    dmsg_ctr keep[2] = {many[0], many[0]};
    PE_CHECK(dmsg_ctr_create_many(NULL, 2) == DMSG_ERR_NULL, "NULL array not refused");
    dmsg_ctr big[1];
    big[0] = 777;
    PE_CHECK(dmsg_ctr_create_many(big, 1u << 20) == DMSG_ERR_NOMEM && big[0] == 777,
             "2^20 counters not refused with DMSG_ERR_NOMEM, or the array written");
    PE_CHECK(dmsg_ctr_destroy_many(keep, 2) == DMSG_ERR_ARG, "a handle given twice not refused");
    PE_CHECK(dmsg_ctr_destroy_many(NULL, 1) == DMSG_ERR_NULL, "NULL array not refused");
    PE_CHECK(dmsg_ctr_destroy_many(one, 1) == DMSG_ERR_COUNTER, "a stale handle not refused");
    dmsg_team t;
    dmsg_ctr tc;
    PE_OK(dmsg_team_split_strided(DMSG_TEAM_WORLD, 0, 1, n, &t));
    PE_OK(dmsg_ctr_create_team(t, &tc));
    dmsg_ctr mixed[2] = {many[1], tc};
    PE_CHECK(dmsg_ctr_destroy_many(mixed, 2) == DMSG_ERR_ARG, "a team's counter not refused");
    PE_OK(dmsg_ctr_destroy(tc));
    PE_OK(dmsg_team_free(t));
    /* All still alive and counting. */
    PE_OK(dmsg_sync());
    for (size_t i = 0; i < k; i++) {
        uint64_t v = 7 + i;
        PE_OK(dmsg_deposit(&slot[i], &v, sizeof v, pe_down(1), many[i]));
    }
    for (size_t i = 0; i < k; i++) {
        PE_OK(dmsg_await(many[i], 1));
        PE_CHECK(slot[i] == 7 + i, "after the refusals, slot %zu: %llu", i, ULL(slot[i]));
    }
    PE_OK(dmsg_ctr_destroy_many(many, k));
    for (size_t i = 0; i < k; i++)
        PE_CHECK(dmsg_ctr_read(many[i], NULL, NULL) == DMSG_ERR_COUNTER,
                 "counter %zu still live after dmsg_ctr_destroy_many", i);
    PE_OK(dmsg_free(slot));
    return 0;
}

const pe_case pe_counter_cases[] = {
    {"ctr_many_to_one", ctr_many_to_one, 0},
    {"ctr_consume", ctr_consume, 0},
    {"ctr_independent", ctr_independent, 0},
    {"ctr_pingpong", ctr_pingpong, 0},
    {"ctr_exhaust", ctr_exhaust, 0},
    {"ctr_many", ctr_many, 0},
    {NULL, NULL, 0},
};
