/* Copy engine on whole ops: dmsg_copy_op moves every kind both ways,
 * dmsg_op_runs yields contiguous runs in element order, merged where they
 * continue each other at both ends. */
#include <criterion/criterion.h>
#include <string.h>
#include "dmsg/xfer/op.h"

typedef struct run_log {
    size_t n;
    size_t roff[64], len[64];
    char *local[64];
} run_log;

static dmsg_status record(void *arg, size_t roff, char *local, size_t len)
{
    run_log *r = arg;
    cr_assert_lt(r->n, 64);
    r->roff[r->n] = roff;
    r->local[r->n] = local;
    r->len[r->n++] = len;
    return DMSG_OK;
}

static dmsg_status stop_at_second(void *arg, size_t roff, char *local, size_t len)
{
    return ++*(int *)arg == 2 ? DMSG_ERR_TRANSPORT : DMSG_OK;
}

Test(op, copy_moves_a_transposing_section_both_ways)
{
    enum { N = 5 };
    double a[N][N], seg[N][N], back[N][N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            a[i][j] = i * 10 + j;
    /* remote[j][i] = local[i][j]: rows of the local array become columns. */
    dmsg_layout rl = {2, {N, N}, {N * 8, 8}}, ll = {2, {N, N}, {8, N * 8}};
    dmsg_op put = {.kind = DMSG_OP_SECTION, .dir = DMSG_DIR_PUT, .local = a, .elem = 8,
                   .n = N * N, .rl = &rl, .ll = &ll};
    dmsg_copy_op(&put, (char *)seg, NULL);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            cr_assert_eq(seg[j][i], a[i][j]);
    dmsg_op get = put;
    get.dir = DMSG_DIR_GET;
    get.local = back;
    dmsg_copy_op(&get, (char *)seg, NULL);
    cr_assert_eq(memcmp(back, a, sizeof a), 0);
}

Test(op, copy_moves_indexed_and_adp)
{
    int local[4] = {1, 2, 3, 4}, seg[8] = {0};
    const size_t idx[4] = {6, 0, 3, 1};
    dmsg_op op = {.kind = DMSG_OP_REMOTE_INDEXED, .dir = DMSG_DIR_PUT, .local = local,
                  .elem = 4, .n = 4, .idx = idx};
    dmsg_copy_op(&op, (char *)seg, NULL);
    cr_assert(seg[6] == 1 && seg[0] == 2 && seg[3] == 3 && seg[1] == 4);
    dmsg_adp4 rec[2] = {{.off = 8, .val = 77}, {.off = 28, .val = 99}};
    op = (dmsg_op){.kind = DMSG_OP_ADP, .dir = DMSG_DIR_PUT, .local = rec, .elem = 4, .n = 2};
    dmsg_copy_op(&op, (char *)seg, NULL);
    cr_assert(seg[2] == 77 && seg[7] == 99);
}

Test(op, runs_merge_what_is_contiguous_at_both_ends)
{
    char local[256];
    run_log r = {0};
    /* 4 rows of 8 bytes, contiguous at both ends: one run. */
    dmsg_layout dense = {2, {8, 4}, {1, 8}};
    dmsg_op op = {.kind = DMSG_OP_SECTION, .dir = DMSG_DIR_PUT, .local = local, .elem = 1,
                  .n = 32, .rl = &dense, .ll = &dense, .roff = 100};
    cr_assert_eq(dmsg_op_runs(&op, record, &r), DMSG_OK);
    cr_assert_eq(r.n, 1);
    cr_assert(r.roff[0] == 100 && r.len[0] == 32 && r.local[0] == local);
    /* The same rows 16 bytes apart remotely: four runs of 8, in order. */
    dmsg_layout spread = {2, {8, 4}, {1, 16}};
    op.rl = &spread;
    r.n = 0;
    cr_assert_eq(dmsg_op_runs(&op, record, &r), DMSG_OK);
    cr_assert_eq(r.n, 4);
    for (size_t i = 0; i < 4; i++)
        cr_assert(r.roff[i] == 100 + 16 * i && r.len[i] == 8 && r.local[i] == local + 8 * i);
    /* Indexed: consecutive indices merge, others do not. */
    const size_t idx[5] = {2, 3, 4, 9, 10};
    op = (dmsg_op){.kind = DMSG_OP_REMOTE_INDEXED, .dir = DMSG_DIR_GET, .local = local,
                   .elem = 4, .n = 5, .idx = idx};
    r.n = 0;
    cr_assert_eq(dmsg_op_runs(&op, record, &r), DMSG_OK);
    cr_assert_eq(r.n, 2);
    cr_assert(r.roff[0] == 8 && r.len[0] == 12 && r.roff[1] == 36 && r.len[1] == 8);
}

Test(op, runs_stop_at_the_first_failure)
{
    char local[64];
    const size_t idx[3] = {0, 5, 9};
    dmsg_op op = {.kind = DMSG_OP_REMOTE_INDEXED, .dir = DMSG_DIR_PUT, .local = local,
                  .elem = 1, .n = 3, .idx = idx};
    int calls = 0;
    cr_assert_eq(dmsg_op_runs(&op, stop_at_second, &calls), DMSG_ERR_TRANSPORT);
    cr_assert_eq(calls, 2);
}
