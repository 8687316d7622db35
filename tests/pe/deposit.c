/* Contiguous deposits: every PE to every PE (itself included), many sizes,
 * unaligned addresses, and source reuse right after the call returns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pe.h"

/* Guard bytes before and after each receive slot. */
#define PAD 64

/* Checks one receive slot: guard, the sender's pattern, guard. */
static int check_slot(const char *slot, size_t size, int from, uint32_t salt, const char *ctx)
{
    char what[160];
    snprintf(what, sizeof what, "%s: guard before data from PE %d", ctx, from);
    PE_TRY(pe_check_bytes(slot, PAD, PE_GUARD, what));
    snprintf(what, sizeof what, "%s: data from PE %d", ctx, from);
    PE_TRY(pe_check_pattern(slot + PAD, size, from, salt, what));
    snprintf(what, sizeof what, "%s: guard after data from PE %d", ctx, from);
    PE_TRY(pe_check_bytes(slot + PAD + size, PAD, PE_GUARD, what));
    return 0;
}

/* Every PE deposits `size` bytes into slot [me] of every PE; sync completes. */
static int all_to_all(size_t size, uint32_t salt)
{
    int n = pe_n(), me = pe_me();
    size_t slot = size + 2 * PAD;
    char *recv = pe_alloc(slot * (size_t)n);
    PE_CHECK(recv != NULL, "alloc of the receive area failed");
    char *src = malloc(size + 1);
    PE_CHECK(src != NULL, "malloc(%zu) failed", size + 1);
    pe_fill(src, size, me, salt);
    memset(recv, PE_GUARD, slot * (size_t)n);
    PE_OK(dmsg_sync()); /* clearance: every receiver's guards are in place */

    for (int k = 0; k < n; k++)
        PE_OK(dmsg_deposit(recv + (size_t)me * slot + PAD, src, size, pe_up(k), DMSG_CTR_NONE));
    PE_OK(dmsg_sync());

    char ctx[64];
    snprintf(ctx, sizeof ctx, "deposit of %zu bytes", size);
    for (int from = 0; from < n; from++)
        PE_TRY(check_slot(recv + (size_t)from * slot, size, from, salt, ctx));
    PE_OK(dmsg_free(recv));
    free(src);
    return 0;
}

static int deposit_sizes(void)
{
    static const size_t sizes[] = {0, 1, 7, 8, 63, 4099, 65536, (size_t)1 << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        PE_TRY(all_to_all(sizes[i], 100 + (uint32_t)i));
    return 0;
}

/* Odd destination and source addresses and odd lengths, to the next PE. */
static int deposit_unaligned(void)
{
    static const size_t lens[] = {1, 3, 15, 33, 257};
    const size_t area = 512 + 2 * PAD;
    char *recv = pe_alloc(area);
    PE_CHECK(recv != NULL, "alloc failed");
    char src[600];
    uint32_t salt = 200;
    for (size_t off = 1; off < 8; off += 2) {
        for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++, salt++) {
            size_t soff = (off * 3) % 8;
            pe_fill(src + soff, lens[i], pe_me(), salt);
            memset(recv, PE_GUARD, area);
            PE_OK(dmsg_sync());
            PE_OK(dmsg_deposit(recv + PAD + off, src + soff, lens[i], pe_up(1), DMSG_CTR_NONE));
            PE_OK(dmsg_sync());
            char ctx[96];
            snprintf(ctx, sizeof ctx, "unaligned deposit dst+%zu src+%zu len %zu", off, soff,
                     lens[i]);
            PE_TRY(pe_check_bytes(recv, PAD + off, PE_GUARD, ctx));
            PE_TRY(pe_check_pattern(recv + PAD + off, lens[i], pe_down(1), salt, ctx));
            PE_TRY(pe_check_bytes(recv + PAD + off + lens[i], area - PAD - off - lens[i],
                                  PE_GUARD, ctx));
        }
    }
    PE_OK(dmsg_free(recv));
    return 0;
}

/* The source may be overwritten as soon as dmsg_deposit returns. */
static int deposit_src_reuse(void)
{
    const size_t size = 64 * 1024;
    char *recv = pe_alloc(2 * size);
    PE_CHECK(recv != NULL, "alloc failed");
    char *src = malloc(size);
    PE_CHECK(src != NULL, "malloc failed");
    PE_OK(dmsg_sync());
    for (int round = 0; round < 2; round++) {
        pe_fill(src, size, pe_me(), 300 + (uint32_t)round);
        PE_OK(dmsg_deposit(recv + (size_t)round * size, src, size, pe_up(1), DMSG_CTR_NONE));
        memset(src, 0xEE, size); /* must not affect what was deposited */
    }
    PE_OK(dmsg_sync());
    PE_TRY(pe_check_pattern(recv, size, pe_down(1), 300, "first deposit, source reused after"));
    PE_TRY(pe_check_pattern(recv + size, size, pe_down(1), 301, "second deposit"));
    PE_OK(dmsg_free(recv));
    free(src);
    return 0;
}

/* The source may itself be symmetric memory (the usual case for generated
 * code moving one distributed array into another), including the target
 * PE's own segment when depositing to itself. */
static int deposit_sym_src(void)
{
    const size_t size = 100003;
    int n = pe_n(), me = pe_me();
    char *src = pe_alloc(size);
    char *recv = pe_alloc(size * (size_t)n);
    PE_CHECK(src != NULL && recv != NULL, "alloc failed");
    pe_fill(src, size, me, 400);
    PE_OK(dmsg_sync());
    for (int k = 0; k < n; k++)
        PE_OK(dmsg_deposit(recv + (size_t)me * size, src, size, pe_up(k), DMSG_CTR_NONE));
    PE_OK(dmsg_sync());
    for (int from = 0; from < n; from++) {
        char what[64];
        snprintf(what, sizeof what, "symmetric-source deposit from PE %d", from);
        PE_TRY(pe_check_pattern(recv + (size_t)from * size, size, from, 400, what));
    }
    PE_TRY(pe_check_pattern(src, size, me, 400, "symmetric source after the deposits"));
    PE_OK(dmsg_free(recv));
    PE_OK(dmsg_free(src));
    return 0;
}

const pe_case pe_deposit_cases[] = {
    {"deposit_sym_src", deposit_sym_src, 0},
    {"deposit_sizes", deposit_sizes, 0},
    {"deposit_unaligned", deposit_unaligned, 0},
    {"deposit_src_reuse", deposit_src_reuse, 0},
    {NULL, NULL, 0},
};
