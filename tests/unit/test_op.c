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

/* ------------------------------------------------ periodic patterns */

static uint64_t prng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* The pattern's meaning, run by run in copy order (period, then list). */
static void periodic_ref(char *dst, const char *src, const dmsg_periodic *p)
{
    size_t sp = 0, dp = 0;
    for (size_t r = 0; r < p->periods; r++)
        for (size_t k = 0; k < p->nruns; k++) {
            const dmsg_prun *x = &p->run[k];
            if (x->reps <= r) continue;
            const char *s = p->stream == DMSG_PER_SRC_STREAM
                                ? src + sp
                                : src + x->soff + (ptrdiff_t)r * p->sstride;
            char *d = p->stream == DMSG_PER_DST_STREAM ? dst + dp
                                                        : dst + x->doff + (ptrdiff_t)r * p->dstride;
            memcpy(d, s, x->bytes);
            sp += x->bytes;
            dp += x->bytes;
        }
}

enum { PBUF = 1 << 16 };

Test(periodic, copy_matches_the_run_by_run_meaning)
{
    /* Random patterns: runs of whole 4-, 8- or 16-byte words or of any
     * length from 4 bytes (the move tables), of 1-3 bytes (run by run),
     * reps mixed (a section cut in
     * a period), strides of either sign, every stream side; the engine
     * must write exactly what the reference does, and nothing else. */
    static char src[PBUF], dst[PBUF], want[PBUF];
    static dmsg_prun run[40];
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < PBUF; i++)
        src[i] = (char)(i * 7 + 3);
    int tested = 0;
    for (int t = 0; t < 3000; t++) {
        /* w 0: runs of any length from 4 bytes on (the move tables' odd
         * tails, overlapping moves) and past XFER_PER_TABLE_RUN. */
        size_t w = (size_t[]){0, 1, 4, 8, 16}[prng(&seed) % 5], n = 1 + prng(&seed) % 39;
        size_t periods = 1 + prng(&seed) % 300;
        int stream = (int)(prng(&seed) % 3);
        ptrdiff_t span = 0, gap = w ? (ptrdiff_t)w : 3; /* w 0: odd alignments too */
        for (size_t k = 0; k < n; k++) {
            size_t b = w == 0   ? 4 + prng(&seed) % (prng(&seed) % 8 ? 60 : 140)
                       : w == 1 ? 1 + prng(&seed) % 40
                                : w * (1 + prng(&seed) % 5);
            run[k] = (dmsg_prun){span + (ptrdiff_t)(prng(&seed) % 3) * gap, 0, b,
                                 periods - (prng(&seed) % 4 == 0 ? prng(&seed) % periods : 0)};
            span = run[k].soff + (ptrdiff_t)b;
        }
        /* Destination offsets: a shuffle of the same slots, so that the
         * runs do not overlap there either. */
        ptrdiff_t dspan = 0;
        for (size_t k = n; k-- > 0;) {
            run[k].doff = dspan;
            dspan += (ptrdiff_t)run[k].bytes + (ptrdiff_t)(prng(&seed) % 2) * gap;
        }
        ptrdiff_t ss = span + (ptrdiff_t)(prng(&seed) % 3) * gap;
        ptrdiff_t ds = dspan + (ptrdiff_t)(prng(&seed) % 3) * gap;
        if (prng(&seed) % 3 == 0) ss = -ss;
        if (prng(&seed) % 3 == 0) ds = -ds;
        dmsg_periodic p = {.run = run, .nruns = n, .sstride = ss, .dstride = ds, .stream = stream};
        dmsg_extent se, de;
        cr_assert_eq(dmsg_periodic_check(&p, &se, &de), DMSG_OK);
        if (se.hi - se.lo > PBUF || de.hi - de.lo > PBUF) continue;
        tested++;
        memset(dst, 0x5a, PBUF);
        memset(want, 0x5a, PBUF);
        dmsg_copy_periodic(dst - de.lo, src - se.lo, &p);
        periodic_ref(want - de.lo, src - se.lo, &p);
        cr_assert(memcmp(dst, want, PBUF) == 0, "pattern %d (word %zu, %zu runs, %zu periods, "
                  "stream %d, strides %td %td) differs", t, w, n, periods, stream, ss, ds);
    }
    cr_assert_gt(tested, 1000);
}

Test(periodic, pack_then_unpack_is_the_direct_copy)
{
    /* CYCLIC(2) -> CYCLIC(3)-like: runs of 2 and 1 doubles, the last
     * period cut. Packing into a stream and unpacking it gives the direct
     * copy's result, and the stream holds the payload back to back. */
    double src[1200], direct[1200], packed[1200], stream[1200];
    for (int i = 0; i < 1200; i++)
        src[i] = i;
    dmsg_prun r[2] = {{0, 8, 16, 100}, {32, 0, 8, 99}};
    dmsg_periodic p = {.run = r, .nruns = 2, .sstride = 12 * 8, .dstride = 6 * 8, .stream = DMSG_PER_NO_STREAM};
    cr_assert_eq(dmsg_periodic_check(&p, NULL, NULL), DMSG_OK);
    cr_assert_eq(p.bytes, 100 * 16 + 99 * 8);
    cr_assert_eq(p.pieces, 199);
    cr_assert_eq(p.periods, 100);
    cr_assert_eq(p.full, 99);
    memset(direct, 0, sizeof direct);
    memset(packed, 0, sizeof packed);
    dmsg_copy_periodic((char *)direct, (char *)src, &p);
    p.stream = DMSG_PER_DST_STREAM;
    cr_assert_eq(dmsg_periodic_check(&p, NULL, NULL), DMSG_OK);
    dmsg_copy_periodic((char *)stream, (char *)src, &p);
    for (int i = 0; i < 99; i++) {
        cr_assert_eq(stream[3 * i], src[12 * i]);
        cr_assert_eq(stream[3 * i + 2], src[12 * i + 4]);
    }
    cr_assert_eq(stream[297], src[1188]);
    p.stream = DMSG_PER_SRC_STREAM;
    cr_assert_eq(dmsg_periodic_check(&p, NULL, NULL), DMSG_OK);
    dmsg_copy_periodic((char *)packed, (char *)stream, &p);
    cr_assert(memcmp(direct, packed, sizeof direct) == 0);
    cr_assert_eq(direct[1], src[0]);
    cr_assert_eq(direct[0], src[4]);
    cr_assert_eq(direct[6 * 99 + 1], src[12 * 99]);
    cr_assert_eq(direct[6 * 99], 0); /* run 1 misses the last period */
}

Test(periodic, check_refuses_bad_patterns)
{
    dmsg_prun r[2] = {{0, 0, 8, 3}, {8, 8, 8, 3}};
    dmsg_periodic p = {.run = r, .nruns = 2, .sstride = 16, .dstride = 16, .stream = DMSG_PER_NO_STREAM};
    dmsg_extent se, de;
    cr_assert_eq(dmsg_periodic_check(&p, &se, &de), DMSG_OK);
    cr_assert_eq(se.lo, 0);
    cr_assert_eq(se.hi, 48);
    p.dstride = -16; /* downwards: the extent reaches below the base */
    cr_assert_eq(dmsg_periodic_check(&p, &se, &de), DMSG_OK);
    cr_assert_eq(de.lo, -32);
    cr_assert_eq(de.hi, 16);
    p.stream = DMSG_PER_DST_STREAM;
    cr_assert_eq(dmsg_periodic_check(&p, &se, &de), DMSG_OK);
    cr_assert_eq(de.lo, 0);
    cr_assert_eq(de.hi, 48);
    p.stream = 7;
    cr_assert_eq(dmsg_periodic_check(&p, NULL, NULL), DMSG_ERR_ARG);
    p.stream = DMSG_PER_NO_STREAM;
    r[1].bytes = 0;
    cr_assert_eq(dmsg_periodic_check(&p, NULL, NULL), DMSG_ERR_ARG);
    r[1].bytes = 8;
    r[1].reps = 0;
    cr_assert_eq(dmsg_periodic_check(&p, NULL, NULL), DMSG_ERR_ARG);
    r[1].reps = SIZE_MAX / 2;
    cr_assert_eq(dmsg_periodic_check(&p, NULL, NULL), DMSG_ERR_OVERFLOW);
    r[1].reps = 3;
    p.sstride = PTRDIFF_MAX / 2;
    cr_assert_eq(dmsg_periodic_check(&p, NULL, NULL), DMSG_ERR_OVERFLOW);
    p.run = NULL;
    cr_assert_eq(dmsg_periodic_check(&p, NULL, NULL), DMSG_ERR_NULL);
}

/* A random pattern without a stream side for a set member: n runs of
 * whole w-byte words (w 0: any length from 4 bytes; 1: also 1-3 bytes or
 * past 128, which the set tables refuse), reps from periods down to 1,
 * strides of either sign (neg). */
static void set_member_pattern(uint64_t *seed, size_t w, size_t n, size_t periods, int neg,
                               dmsg_prun *run, dmsg_periodic *p)
{
    ptrdiff_t span = 0, gap = w ? (ptrdiff_t)w : 3;
    for (size_t k = 0; k < n; k++) {
        size_t b = w == 0   ? 4 + prng(seed) % 125
                   : w == 1 ? 1 + prng(seed) % 140
                            : w * (1 + prng(seed) % 5);
        run[k] = (dmsg_prun){span + (ptrdiff_t)(prng(seed) % 3) * gap, 0, b,
                             periods - (prng(seed) % 4 == 0 ? prng(seed) % periods : 0)};
        span = run[k].soff + (ptrdiff_t)b;
    }
    ptrdiff_t dspan = 0;
    for (size_t k = n; k-- > 0;) {
        run[k].doff = dspan;
        dspan += (ptrdiff_t)run[k].bytes + (ptrdiff_t)(prng(seed) % 2) * gap;
    }
    ptrdiff_t ss = span + (ptrdiff_t)(prng(seed) % 3) * gap;
    ptrdiff_t ds = dspan + (ptrdiff_t)(prng(seed) % 3) * gap;
    *p = (dmsg_periodic){.run = run, .nruns = n, .sstride = neg && prng(seed) % 3 == 0 ? -ss : ss,
                         .dstride = neg && prng(seed) % 3 == 0 ? -ds : ds,
                         .stream = DMSG_PER_NO_STREAM};
}

Test(periodic, set_copies_what_each_member_means)
{
    /* 1-9 members, each its own random pattern (periods, offsets, run
     * lengths with odd tails, some runs a period or more short), their
     * destinations side by side in one buffer and their sources anywhere
     * in another (members may read the same bytes), budgets from 1 byte
     * (one period a step) to more than all: the set must write exactly the
     * bytes that the run-by-run reference writes for each member, and
     * nothing else. */
    enum { MEMBERS = 9, SBUF = 1 << 20, SLOT = SBUF / MEMBERS };
    static char src[SBUF], dst[SBUF], want[SBUF];
    static dmsg_prun run[MEMBERS][12];
    uint64_t seed = 0x2545f4914f6cdd1dull;
    for (int i = 0; i < SBUF; i++)
        src[i] = (char)(i * 13 + 5);
    int tested = 0, sets = 0;
    for (int t = 0; t < 600; t++) {
        size_t n = 1 + prng(&seed) % MEMBERS, w = (size_t[]){0, 4, 8, 16}[prng(&seed) % 4];
        size_t periods = 1 + prng(&seed) % 100;
        size_t budget = (size_t[]){1, 256, 4096, 1u << 20}[prng(&seed) % 4];
        dmsg_periodic p[MEMBERS];
        char *d[MEMBERS];
        const char *sp[MEMBERS];
        int fits = 1;
        for (size_t i = 0; i < n && fits; i++) {
            set_member_pattern(&seed, w, 1 + prng(&seed) % 12,
                               periods - prng(&seed) % (periods < 3 ? 1 : 3), 1, run[i], &p[i]);
            dmsg_extent se, de;
            cr_assert_eq(dmsg_periodic_check(&p[i], &se, &de), DMSG_OK);
            if (se.hi - se.lo > SBUF || de.hi - de.lo > SLOT) {
                fits = 0;
                break;
            }
            d[i] = dst + (ptrdiff_t)i * SLOT - de.lo;
            sp[i] = src + (ptrdiff_t)(prng(&seed) % (size_t)(SBUF - (se.hi - se.lo) + 1)) - se.lo;
        }
        if (!fits) continue;
        dmsg_periodic_set *set = NULL;
        cr_assert_eq(dmsg_periodic_set_build(p, n, budget, &set), DMSG_OK);
        cr_assert_not_null(set, "pattern %d: runs of 4-128 bytes must make a set", t);
        sets++;
        memset(dst, 0x5a, SBUF);
        memset(want, 0x5a, SBUF);
        for (size_t i = 0; i < n; i++) /* the reference loop, run by run */
            periodic_ref(want + (d[i] - dst), sp[i], &p[i]);
        /* The set holds copies of the runs: the callers' may change. */
        memset(run, 0xff, sizeof run);
        dmsg_copy_periodic_set(set, d, sp);
        dmsg_periodic_set_free(set);
        cr_assert(memcmp(dst, want, SBUF) == 0,
                  "pattern %d (%zu members, word %zu, %zu periods, budget %zu) differs", t, n, w,
                  periods, budget);
        tested++;
    }
    cr_assert_gt(tested, 400);
    cr_assert_eq(sets, tested);
}

Test(periodic, set_is_not_built_where_its_tables_do_not_apply)
{
    /* A run of 2 bytes, one of 129, a stream side: no set, no error, and
     * a set of good members still builds beside them. */
    dmsg_prun good[2] = {{0, 8, 16, 10}, {16, 0, 8, 9}};
    dmsg_prun r2[1] = {{0, 0, 2, 10}}, r129[1] = {{0, 0, 129, 10}};
    dmsg_periodic p[2] = {
        {.run = good, .nruns = 2, .sstride = 32, .dstride = 24, .stream = DMSG_PER_NO_STREAM},
        {.run = good, .nruns = 2, .sstride = 32, .dstride = 24, .stream = DMSG_PER_NO_STREAM}};
    for (int i = 0; i < 2; i++)
        cr_assert_eq(dmsg_periodic_check(&p[i], NULL, NULL), DMSG_OK);
    dmsg_periodic_set *set = NULL;
    cr_assert_eq(dmsg_periodic_set_build(p, 2, 4096, &set), DMSG_OK);
    cr_assert_not_null(set);
    dmsg_periodic_set_free(set);
    dmsg_periodic bad[3] = {
        {.run = r2, .nruns = 1, .sstride = 8, .dstride = 8, .stream = DMSG_PER_NO_STREAM},
        {.run = r129, .nruns = 1, .sstride = 256, .dstride = 256, .stream = DMSG_PER_NO_STREAM},
        {.run = good, .nruns = 2, .sstride = 32, .dstride = 24, .stream = DMSG_PER_DST_STREAM}};
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(dmsg_periodic_check(&bad[i], NULL, NULL), DMSG_OK);
        p[1] = bad[i];
        set = (dmsg_periodic_set *)&set; /* must be reset */
        cr_assert_eq(dmsg_periodic_set_build(p, 2, 4096, &set), DMSG_OK);
        cr_assert_null(set, "bad member %d made a set", i);
    }
    set = (dmsg_periodic_set *)&set;
    cr_assert_eq(dmsg_periodic_set_build(p, 0, 4096, &set), DMSG_OK);
    cr_assert_null(set);
    dmsg_periodic_set_free(NULL); /* allowed, as free's */
}

Test(periodic, runs_follow_the_copy_order)
{
    /* Period by period, runs in list order; neighbours that continue each
     * other at both ends merge (run 1 of period r and run 0 of r + 1). */
    char local[256];
    dmsg_prun r[2] = {{0, 0, 8, 3}, {8, 8, 8, 2}};
    dmsg_periodic p = {.run = r, .nruns = 2, .sstride = 16, .dstride = 16, .stream = DMSG_PER_NO_STREAM};
    cr_assert_eq(dmsg_periodic_check(&p, NULL, NULL), DMSG_OK);
    dmsg_op op = {.kind = DMSG_OP_PERIODIC, .dir = DMSG_DIR_PUT, .local = local, .elem = 1,
                  .per = &p, .roff = 100};
    run_log log = {0};
    cr_assert_eq(dmsg_op_runs(&op, record, &log), DMSG_OK);
    cr_assert_eq(log.n, 1);
    cr_assert_eq(log.roff[0], 100);
    cr_assert_eq(log.len[0], 40);
    cr_assert_eq(log.local[0], local);
    p.dstride = 32; /* now the periods leave gaps at the remote end */
    log.n = 0;
    cr_assert_eq(dmsg_op_runs(&op, record, &log), DMSG_OK);
    cr_assert_eq(log.n, 3);
    cr_assert_eq(log.roff[1], 132);
    cr_assert_eq(log.len[1], 16);
    cr_assert_eq(log.local[1], local + 16);
    cr_assert_eq(log.roff[2], 164);
    cr_assert_eq(log.len[2], 8);
    p.stream = DMSG_PER_DST_STREAM; /* a stream remote end: one run */
    log.n = 0;
    cr_assert_eq(dmsg_op_runs(&op, record, &log), DMSG_OK);
    cr_assert_eq(log.n, 1);
    cr_assert_eq(log.len[0], 40);
}
