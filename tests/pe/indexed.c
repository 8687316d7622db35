/* Indexed deposits: scatter (dmsg_deposit_indexed: element i goes to index
 * idx[i] of the target array) and gather (dmsg_deposit_gathered: element
 * idx[i] of the local array goes to slot i of a contiguous target range). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pe.h"

#define PAD 64
#define ARRAY_ELEMS 1024 /* elements of the target (scatter) or source (gather) array */
#define N_IDX 257        /* elements moved per deposit */

static const size_t elem_sizes[] = {1, 3, 4, 8, 16};

/* Distinct indices in [0, ARRAY_ELEMS): 37 is coprime with 1024. */
static void scatter_indices(size_t *idx, size_t n, size_t salt)
{
    for (size_t i = 0; i < n; i++)
        idx[i] = (i * 37 + salt) % ARRAY_ELEMS;
}

/* Indices for a gather may repeat and come in any order. */
static void gather_indices(size_t *idx, size_t n, size_t salt)
{
    for (size_t i = 0; i < n; i++)
        idx[i] = (i * i * 13 + salt) % ARRAY_ELEMS;
}

static int scatter_one(size_t es, uint32_t salt, dmsg_ctr ctr)
{
    size_t area = ARRAY_ELEMS * es + 2 * PAD;
    char *recv = pe_alloc(area);
    PE_CHECK(recv != NULL, "alloc failed");
    size_t idx[N_IDX];
    char *src = malloc(N_IDX * es);
    char *img = malloc(area);
    PE_CHECK(src != NULL && img != NULL, "malloc failed");
    scatter_indices(idx, N_IDX, salt);
    pe_fill(src, N_IDX * es, pe_me(), salt);
    memset(recv, PE_GUARD, area);
    PE_OK(dmsg_sync());

    PE_OK(dmsg_deposit_indexed(recv + PAD, idx, src, N_IDX, es, pe_up(1), ctr));
    PE_OK(dmsg_await(ctr, 1));
    uint64_t bytes = 0;
    PE_OK(dmsg_ctr_read(ctr, NULL, &bytes));
    PE_CHECK(bytes == N_IDX * es, "scatter elem %zu: counted bytes: expected %zu got %llu", es,
             (size_t)N_IDX * es, (unsigned long long)bytes);
    PE_OK(dmsg_await_bytes(ctr, bytes));

    /* The sender used the same indices (same salt) and its own pattern. */
    memset(img, PE_GUARD, area);
    pe_fill(src, N_IDX * es, pe_down(1), salt);
    for (size_t i = 0; i < N_IDX; i++)
        memcpy(img + PAD + idx[i] * es, src + i * es, es);
    char what[96];
    snprintf(what, sizeof what, "indexed scatter, elem size %zu, from PE %d", es, pe_down(1));
    PE_TRY(pe_check_equal(recv, img, area, what));
    PE_OK(dmsg_free(recv));
    free(src);
    free(img);
    return 0;
}

static int gather_one(size_t es, uint32_t salt, dmsg_ctr ctr)
{
    size_t area = N_IDX * es + 2 * PAD;
    char *recv = pe_alloc(area);
    PE_CHECK(recv != NULL, "alloc failed");
    size_t idx[N_IDX];
    char *src = malloc(ARRAY_ELEMS * es);
    char *img = malloc(area);
    PE_CHECK(src != NULL && img != NULL, "malloc failed");
    gather_indices(idx, N_IDX, salt);
    pe_fill(src, ARRAY_ELEMS * es, pe_me(), salt);
    memset(recv, PE_GUARD, area);
    PE_OK(dmsg_sync());

    PE_OK(dmsg_deposit_gathered(recv + PAD, src, idx, N_IDX, es, pe_up(1), ctr));
    PE_OK(dmsg_await(ctr, 1));

    memset(img, PE_GUARD, area);
    pe_fill(src, ARRAY_ELEMS * es, pe_down(1), salt);
    for (size_t i = 0; i < N_IDX; i++)
        memcpy(img + PAD + i * es, src + idx[i] * es, es);
    char what[96];
    snprintf(what, sizeof what, "gathered deposit, elem size %zu, from PE %d", es, pe_down(1));
    PE_TRY(pe_check_equal(recv, img, area, what));
    PE_OK(dmsg_free(recv));
    free(src);
    free(img);
    return 0;
}

static int indexed_scatter(void)
{
    dmsg_ctr ctr;
    PE_OK(dmsg_ctr_create(&ctr));
    for (size_t e = 0; e < sizeof elem_sizes / sizeof elem_sizes[0]; e++)
        PE_TRY(scatter_one(elem_sizes[e], 7000 + (uint32_t)e, ctr));

    /* n == 0 moves nothing but is still counted as one message of 0 bytes. */
    size_t idx0 = 0;
    char dummy = 0;
    char *recv = pe_alloc(64);
    PE_CHECK(recv != NULL, "alloc failed");
    memset(recv, PE_GUARD, 64);
    PE_OK(dmsg_sync());
    PE_OK(dmsg_deposit_indexed(recv, &idx0, &dummy, 0, 4, pe_up(1), ctr));
    PE_OK(dmsg_await(ctr, 1));
    uint64_t msgs = 9, bytes = 9;
    PE_OK(dmsg_ctr_read(ctr, &msgs, &bytes));
    PE_CHECK(msgs == 0 && bytes == 0, "after empty indexed deposit: expected 0/0 got %llu/%llu",
             (unsigned long long)msgs, (unsigned long long)bytes);
    PE_OK(dmsg_sync());
    PE_TRY(pe_check_bytes(recv, 64, PE_GUARD, "target of an empty indexed deposit"));
    PE_OK(dmsg_free(recv));
    PE_OK(dmsg_ctr_destroy(ctr));
    return 0;
}

static int indexed_gather(void)
{
    dmsg_ctr ctr;
    PE_OK(dmsg_ctr_create(&ctr));
    for (size_t e = 0; e < sizeof elem_sizes / sizeof elem_sizes[0]; e++)
        PE_TRY(gather_one(elem_sizes[e], 8000 + (uint32_t)e, ctr));
    PE_OK(dmsg_ctr_destroy(ctr));
    return 0;
}

const pe_case pe_indexed_cases[] = {
    {"indexed_scatter", indexed_scatter, 0},
    {"indexed_gather", indexed_gather, 0},
    {NULL, NULL, 0},
};
