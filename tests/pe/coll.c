/* Teams and collectives: every collective on several teams (world, strided
 * by 2, reversed by a negative stride, split by color), sizes 0, 1, small
 * and larger than a scratch chunk, several types and ops; team life cycle,
 * team counters, and each error of the header's list. */
#include <complex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "pe.h"
/* White box, for the direct path's count of calls (coll_direct): */
#include "dmsg/coll/coll.h"
#include "dmsg/core/state.h"

/* Sizes: 0, 1, small (a flat allreduce), middle (recursive doubling), and
 * more than one chunk of every team's scratch. */
static const size_t nsizes[] = {0, 1, 37, 1000, 300000};
#define NSIZES (sizeof nsizes / sizeof nsizes[0])

/* The teams under test (DMSG_TEAM_INVALID where this PE is not a member). */
enum { NTEAMS = 4 };
static int make_teams(dmsg_team *t)
{
    int n = pe_n(), me = pe_me();
    t[0] = DMSG_TEAM_WORLD;
    PE_OK(dmsg_team_split_strided(DMSG_TEAM_WORLD, 0, 2, (n + 1) / 2, &t[1]));
    PE_CHECK((t[1] != DMSG_TEAM_INVALID) == (me % 2 == 0), "strided membership of PE %d", me);
    PE_OK(dmsg_team_split_strided(DMSG_TEAM_WORLD, n - 1, -1, n, &t[2]));
    PE_CHECK(dmsg_team_pe(t[2]) == n - 1 - me, "reversed team numbers PE %d as %d", me,
             dmsg_team_pe(t[2]));
    PE_OK(dmsg_team_split_color(DMSG_TEAM_WORLD, me % 2, -me, &t[3]));
    PE_CHECK(dmsg_team_npes(t[3]) == (me % 2 ? n / 2 : (n + 1) / 2), "color team size %d",
             dmsg_team_npes(t[3]));
    return 0;
}

static int free_teams(dmsg_team *t)
{
    for (int i = 1; i < NTEAMS; i++)
        if (t[i] != DMSG_TEAM_INVALID)
            PE_OK(dmsg_team_free(t[i]));
    return 0;
}

static int32_t ival(int r, size_t i)
{
    return (int32_t)((r + 1) * 7 + (int)(i % 1000) * 3 - 500);
}

/* A double whose sum depends on the order of addition. */
static double dval(int r, size_t i)
{
    return (r % 3 == 0 ? 1e16 : r % 3 == 1 ? -1e16 + 3.0 : 0.7) * (1.0 + (double)(i % 5));
}

/* Member 0's copy of buf, compared bitwise with this member's. */
static int same_everywhere(dmsg_team t, const void *buf, size_t bytes, const char *what)
{
    unsigned char *c = malloc(bytes ? bytes : 1);
    PE_CHECK(c, "malloc");
    PE_OK(dmsg_bcast(t, c, buf, bytes, 0));
    int bad = memcmp(c, buf, bytes) != 0;
    free(c);
    PE_CHECK(!bad, "%s: %zu bytes differ from member 0's", what, bytes);
    return 0;
}

static int one_team_reductions(dmsg_team t)
{
    int np = dmsg_team_npes(t), me = dmsg_team_pe(t);
    for (size_t s = 0; s < NSIZES; s++) {
        size_t n = nsizes[s];
        int32_t *si = malloc(n * 4 + 4), *di = malloc(n * 4 + 4);
        double *sd = malloc(n * 8 + 8), *dd = malloc(n * 8 + 8), *dd2 = malloc(n * 8 + 8);
        PE_CHECK(si && di && sd && dd && dd2, "malloc");
        for (size_t i = 0; i < n; i++) {
            si[i] = ival(me, i);
            sd[i] = dval(me, i);
        }
        PE_OK(dmsg_allreduce(t, di, si, n, DMSG_TYPE_INT32, DMSG_OP_SUM));
        for (size_t i = 0; i < n; i++) {
            int64_t want = 0;
            for (int r = 0; r < np; r++)
                want += ival(r, i);
            PE_CHECK(di[i] == (int32_t)want, "allreduce int32 sum [%zu] of %zu: %d, want %lld", i,
                     n, di[i], (long long)want);
        }
        PE_OK(dmsg_allreduce(t, dd, sd, n, DMSG_TYPE_DOUBLE, DMSG_OP_SUM));
        PE_OK(dmsg_allreduce(t, dd2, sd, n, DMSG_TYPE_DOUBLE, DMSG_OP_SUM));
        PE_CHECK(memcmp(dd, dd2, n * 8) == 0, "double allreduce differs between two calls");
        PE_TRY(same_everywhere(t, dd, n * 8, "double allreduce"));
        /* in place, max */
        memcpy(di, si, n * 4);
        PE_OK(dmsg_allreduce(t, di, di, n, DMSG_TYPE_INT32, DMSG_OP_MAX));
        for (size_t i = 0; i < n; i++)
            PE_CHECK(di[i] == ival(np - 1, i), "in-place max [%zu]: %d", i, di[i]);
        /* reduce to the last member, min */
        int root = np - 1;
        memset(di, 0, n * 4);
        PE_OK(dmsg_reduce(t, me == root ? di : NULL, si, n, DMSG_TYPE_INT32, DMSG_OP_MIN, root));
        for (size_t i = 0; me == root && i < n; i++)
            PE_CHECK(di[i] == ival(0, i), "reduce min [%zu]: %d", i, di[i]);
        /* scan and exscan, int32 sum */
        PE_OK(dmsg_scan(t, di, si, n, DMSG_TYPE_INT32, DMSG_OP_SUM));
        for (size_t i = 0; i < n; i++) {
            int32_t want = 0;
            for (int r = 0; r <= me; r++)
                want += ival(r, i);
            PE_CHECK(di[i] == want, "scan [%zu] on member %d: %d want %d", i, me, di[i], want);
        }
        for (size_t i = 0; i < n; i++)
            di[i] = -12345;
        PE_OK(dmsg_exscan(t, di, si, n, DMSG_TYPE_INT32, DMSG_OP_SUM));
        for (size_t i = 0; i < n; i++) {
            int32_t want = me == 0 ? -12345 : 0;
            for (int r = 0; r < me; r++)
                want += ival(r, i);
            PE_CHECK(di[i] == want, "exscan [%zu] on member %d: %d want %d", i, me, di[i], want);
        }
        /* scan of doubles: the same on every run */
        PE_OK(dmsg_scan(t, dd, sd, n, DMSG_TYPE_DOUBLE, DMSG_OP_SUM));
        PE_OK(dmsg_scan(t, dd2, sd, n, DMSG_TYPE_DOUBLE, DMSG_OP_SUM));
        PE_CHECK(memcmp(dd, dd2, n * 8) == 0, "double scan differs between two calls");
        free(si);
        free(di);
        free(sd);
        free(dd);
        free(dd2);
    }
    return 0;
}

/* Every other type with one op or more, 37 elements. */
static int types_ops(dmsg_team t)
{
    int np = dmsg_team_npes(t), me = dmsg_team_pe(t);
    enum { N = 37 };
    {
        int8_t s[N], d[N];
        for (int i = 0; i < N; i++)
            s[i] = (int8_t)(me * 3 - i);
        PE_OK(dmsg_allreduce(t, d, s, N, DMSG_TYPE_INT8, DMSG_OP_MIN));
        for (int i = 0; i < N; i++)
            PE_CHECK(d[i] == (int8_t)(-i), "int8 min [%d] %d", i, d[i]);
    }
    {
        uint16_t s[N], d[N];
        for (int i = 0; i < N; i++)
            s[i] = (uint16_t)(1u << (me % 16));
        PE_OK(dmsg_allreduce(t, d, s, N, DMSG_TYPE_UINT16, DMSG_OP_OR));
        uint16_t want = 0;
        for (int r = 0; r < np; r++)
            want |= (uint16_t)(1u << (r % 16));
        for (int i = 0; i < N; i++)
            PE_CHECK(d[i] == want, "uint16 or [%d] %u want %u", i, d[i], want);
    }
    {
        uint64_t s[N], d[N];
        for (int i = 0; i < N; i++)
            s[i] = (uint64_t)(me + 1) * 0x9E3779B97F4A7C15ULL + (uint64_t)i;
        PE_OK(dmsg_allreduce(t, d, s, N, DMSG_TYPE_UINT64, DMSG_OP_XOR));
        for (int i = 0; i < N; i++) {
            uint64_t want = 0;
            for (int r = 0; r < np; r++)
                want ^= (uint64_t)(r + 1) * 0x9E3779B97F4A7C15ULL + (uint64_t)i;
            PE_CHECK(d[i] == want, "uint64 xor [%d]", i);
        }
        PE_OK(dmsg_allreduce(t, d, s, N, DMSG_TYPE_UINT64, DMSG_OP_PROD));
        PE_OK(dmsg_allreduce(t, d, s, N, DMSG_TYPE_UINT64, DMSG_OP_AND));
    }
    {
        int64_t s[N], d[N];
        for (int i = 0; i < N; i++)
            s[i] = (int64_t)me - i;
        PE_OK(dmsg_allreduce(t, d, s, N, DMSG_TYPE_INT64, DMSG_OP_SUM));
        for (int i = 0; i < N; i++)
            PE_CHECK(d[i] == (int64_t)np * (np - 1) / 2 - (int64_t)np * i, "int64 sum [%d]", i);
    }
    {
        float s[N], d[N];
        for (int i = 0; i < N; i++)
            s[i] = 1.0f + (float)((me + i) % 3);
        PE_OK(dmsg_allreduce(t, d, s, N, DMSG_TYPE_FLOAT, DMSG_OP_MAX));
        PE_OK(dmsg_allreduce(t, d, s, N, DMSG_TYPE_FLOAT, DMSG_OP_PROD));
        PE_TRY(same_everywhere(t, d, sizeof d, "float prod"));
    }
    {
        long double s[N], d[N];
        for (int i = 0; i < N; i++)
            s[i] = (long double)(me + 1) / 3;
        PE_OK(dmsg_allreduce(t, d, s, N, DMSG_TYPE_LONG_DOUBLE, DMSG_OP_SUM));
        long double want = 0;
        for (int r = 0; r < np; r++)
            want += (long double)(r + 1) / 3;
        for (int i = 0; i < N; i++)
            PE_CHECK(d[i] > want * 0.999999L && d[i] < want * 1.000001L, "long double sum [%d]", i);
    }
    {
        double _Complex s[N], d[N];
        for (int i = 0; i < N; i++)
            s[i] = (double)me + (double)i * I;
        PE_OK(dmsg_allreduce(t, d, s, N, DMSG_TYPE_DOUBLE_COMPLEX, DMSG_OP_SUM));
        for (int i = 0; i < N; i++)
            PE_CHECK(creal(d[i]) == np * (np - 1) / 2.0 && cimag(d[i]) == (double)i * np,
                     "complex sum [%d]", i);
        float _Complex fs[N], fd[N];
        for (int i = 0; i < N; i++)
            fs[i] = 1.0f * I;
        PE_OK(dmsg_allreduce(t, fd, fs, N, DMSG_TYPE_FLOAT_COMPLEX, DMSG_OP_PROD));
    }
    return 0;
}

static int one_team_movers(dmsg_team t)
{
    int np = dmsg_team_npes(t), me = dmsg_team_pe(t);
    for (size_t s = 0; s < NSIZES; s++) {
        size_t b = nsizes[s] / 8 + (nsizes[s] ? 1 : 0); /* bytes per member block */
        if (s == NSIZES - 1)
            b = nsizes[s]; /* one large block for bcast */
        unsigned char *src = malloc(b * np + 1), *dst = malloc(b * np + 1);
        PE_CHECK(src && dst, "malloc");
        /* bcast from the last member, and in place from member 0 */
        pe_fill(src, b, np - 1, 11);
        PE_OK(dmsg_bcast(t, dst, me == np - 1 ? src : NULL, b, np - 1));
        PE_TRY(pe_check_pattern(dst, b, np - 1, 11, "bcast"));
        if (me == 0)
            pe_fill(dst, b, 0, 12);
        PE_OK(dmsg_bcast(t, dst, dst, b, 0));
        PE_TRY(pe_check_pattern(dst, b, 0, 12, "bcast in place"));
        if (s == NSIZES - 1)
            b = nsizes[s] / (size_t)np / 4 + 1;
        /* gather to member np/2, allgather */
        int root = np / 2;
        pe_fill(src, b, me, 13);
        memset(dst, 0, b * np + 1);
        PE_OK(dmsg_gather(t, me == root ? dst : NULL, src, b, root));
        for (int r = 0; me == root && r < np; r++)
            PE_TRY(pe_check_pattern(dst + (size_t)r * b, b, r, 13, "gather"));
        PE_OK(dmsg_allgather(t, dst, src, b));
        for (int r = 0; r < np; r++)
            PE_TRY(pe_check_pattern(dst + (size_t)r * b, b, r, 13, "allgather"));
        /* alltoall: block j of member i carries pattern (i * np + j) */
        for (int j = 0; j < np; j++)
            pe_fill(src + (size_t)j * b, b, me * np + j, 14);
        PE_OK(dmsg_alltoall(t, dst, src, b));
        for (int i = 0; i < np; i++)
            PE_TRY(pe_check_pattern(dst + (size_t)i * b, b, i * np + me, 14, "alltoall"));
        free(src);
        free(dst);

        /* variable sizes: member i sends (i % 3) * k bytes, blocks in reverse order */
        size_t k = b, *cnt = malloc(np * sizeof *cnt), *dsp = malloc(np * sizeof *dsp);
        size_t tot = 0;
        for (int i = np - 1; i >= 0; i--) {
            cnt[i] = (size_t)(i % 3) * k;
            dsp[i] = tot;
            tot += cnt[i];
        }
        src = malloc(cnt[me] + 1);
        dst = malloc(tot + 1);
        pe_fill(src, cnt[me], me, 15);
        PE_OK(dmsg_gatherv(t, me == 0 ? dst : NULL, cnt, dsp, src, cnt[me], 0));
        for (int i = 0; me == 0 && i < np; i++)
            PE_TRY(pe_check_pattern(dst + dsp[i], cnt[i], i, 15, "gatherv"));
        PE_OK(dmsg_allgatherv(t, dst, cnt, dsp, src, cnt[me]));
        for (int i = 0; i < np; i++)
            PE_TRY(pe_check_pattern(dst + dsp[i], cnt[i], i, 15, "allgatherv"));
        free(src);
        free(dst);
        /* alltoallv: i sends ((i + j) % 3) * k bytes to j */
        size_t *sc = malloc(np * sizeof *sc), *sdp = malloc(np * sizeof *sdp);
        size_t *rc = malloc(np * sizeof *rc), *rdp = malloc(np * sizeof *rdp), st = 0, rt = 0;
        for (int j = 0; j < np; j++) {
            sc[j] = (size_t)((me + j) % 3) * k;
            sdp[j] = st;
            st += sc[j];
            rc[j] = sc[j]; /* symmetric in i and j */
            rdp[j] = rt;
            rt += rc[j];
        }
        src = malloc(st + 1);
        dst = malloc(rt + 1);
        for (int j = 0; j < np; j++)
            pe_fill(src + sdp[j], sc[j], me * np + j, 16);
        PE_OK(dmsg_alltoallv(t, dst, rc, rdp, src, sc, sdp));
        for (int i = 0; i < np; i++)
            PE_TRY(pe_check_pattern(dst + rdp[i], rc[i], i * np + me, 16, "alltoallv"));
        free(src);
        free(dst);
        free(sc);
        free(sdp);
        free(rc);
        free(rdp);
        free(cnt);
        free(dsp);
    }
    return 0;
}

static int coll_reductions(void)
{
    dmsg_team t[NTEAMS];
    PE_TRY(make_teams(t));
    for (int i = 0; i < NTEAMS; i++)
        if (t[i] != DMSG_TEAM_INVALID) {
            PE_TRY(one_team_reductions(t[i]));
            PE_TRY(types_ops(t[i]));
        }
    PE_TRY(free_teams(t));
    PE_OK(dmsg_sync());
    return 0;
}

static int coll_movers(void)
{
    dmsg_team t[NTEAMS];
    PE_TRY(make_teams(t));
    for (int i = 0; i < NTEAMS; i++)
        if (t[i] != DMSG_TEAM_INVALID)
            PE_TRY(one_team_movers(t[i]));
    PE_TRY(free_teams(t));
    PE_OK(dmsg_sync());
    return 0;
}

/* Many more creations than slots; each team is used once, then freed;
 * translate between it and the world. */
static int team_cycle(void)
{
    int n = pe_n(), me = pe_me();
    for (int it = 0; it < 200; it++) {
        dmsg_team t;
        int start = it % n;
        PE_OK(dmsg_team_split_strided(DMSG_TEAM_WORLD, start, 1, n - start, &t));
        if (me < start) {
            PE_CHECK(t == DMSG_TEAM_INVALID, "PE %d got a team it is not in", me);
            continue;
        }
        PE_CHECK(dmsg_team_pe(t) == me - start, "team number %d", dmsg_team_pe(t));
        PE_CHECK(dmsg_team_translate(t, 0, DMSG_TEAM_WORLD) == start, "translate");
        PE_CHECK(dmsg_team_translate(DMSG_TEAM_WORLD, 0, t) == (start ? -1 : 0), "translate back");
        uint64_t one = 1, sum = 0;
        PE_OK(dmsg_allreduce(t, &sum, &one, 1, DMSG_TYPE_UINT64, DMSG_OP_SUM));
        PE_CHECK(sum == (uint64_t)(n - start), "sum %llu", (unsigned long long)sum);
        PE_OK(dmsg_team_sync(t));
        PE_OK(dmsg_team_free(t));
        PE_EXPECT(dmsg_team_sync(t), DMSG_ERR_TEAM);
        PE_EXPECT(dmsg_team_pe(t), DMSG_ERR_TEAM);
    }
    PE_OK(dmsg_sync());
    return 0;
}

/* A counter over the even PEs: each member deposits to the next member. */
static int team_counter(void)
{
    int n = pe_n();
    dmsg_team t;
    uint64_t *box = pe_alloc(64);
    PE_CHECK(box, "alloc");
    PE_OK(dmsg_team_split_strided(DMSG_TEAM_WORLD, 0, 2, (n + 1) / 2, &t));
    if (t != DMSG_TEAM_INVALID) {
        for (int round = 0; round < 40; round++) {
            dmsg_ctr c;
            PE_OK(dmsg_ctr_create_team(t, &c));
            int tn = dmsg_team_npes(t), tm = dmsg_team_pe(t);
            uint64_t v = (uint64_t)round * 1000 + (uint64_t)tm;
            int to = dmsg_team_translate(t, (tm + 1) % tn, DMSG_TEAM_WORLD);
            PE_OK(dmsg_deposit(box, &v, 8, to, c));
            PE_OK(dmsg_await(c, 1));
            uint64_t want = (uint64_t)round * 1000 + (uint64_t)((tm + tn - 1) % tn);
            PE_CHECK(*box == want, "team counter round %d: %llu want %llu", round,
                     (unsigned long long)*box, (unsigned long long)want);
            PE_OK(dmsg_ctr_destroy(c));
            PE_EXPECT(dmsg_await(c, 1), DMSG_ERR_COUNTER);
        }
        PE_OK(dmsg_team_free(t));
    }
    PE_OK(dmsg_sync());
    PE_OK(dmsg_free(box));
    return 0;
}

/* A full team table refuses a split on every parent member alike,
 * non-members of the would-be team included (dmsg.h), and changes nothing:
 * the handle stays as it was, and a split works again once a team is freed. */
static int team_table_full(void)
{
    int n = pe_n(), me = pe_me();
    dmsg_team fill[64];
    int made = 0, st;
    while (made < 64 && (st = dmsg_team_split_strided(DMSG_TEAM_WORLD, 0, 1, n, &fill[made])) == 0)
        made++;
    PE_EXPECT(st, DMSG_ERR_NOMEM);
    PE_CHECK(made > 0 && made < 64, "%d teams made before the table was full", made);
    /* Only PE 0 would be in these teams: everyone else must fail too. */
    dmsg_team t = 7;
    PE_EXPECT(dmsg_team_split_strided(DMSG_TEAM_WORLD, 0, 1, 1, &t), DMSG_ERR_NOMEM);
    PE_CHECK(t == 7, "a refused split set the handle (PE %d)", me);
    PE_EXPECT(dmsg_team_split_color(DMSG_TEAM_WORLD, me == 0 ? 0 : -1, 0, &t), DMSG_ERR_NOMEM);
    PE_CHECK(t == 7, "a refused color split set the handle (PE %d)", me);
    PE_OK(dmsg_team_free(fill[--made]));
    PE_OK(dmsg_team_split_strided(DMSG_TEAM_WORLD, 0, 1, 1, &t));
    PE_CHECK((t != DMSG_TEAM_INVALID) == (me == 0), "PE %d: team after the free", me);
    if (t != DMSG_TEAM_INVALID)
        PE_OK(dmsg_team_free(t));
    while (made > 0)
        PE_OK(dmsg_team_free(fill[--made]));
    PE_OK(dmsg_sync());
    return 0;
}

static int coll_errors(void)
{
    int n = pe_n(), me = pe_me();
    int x = 1, y = 0;
    dmsg_team odd, gone;
    PE_EXPECT(dmsg_allreduce(DMSG_TEAM_INVALID, &y, &x, 1, DMSG_TYPE_INT32, DMSG_OP_SUM),
              DMSG_ERR_TEAM);
    PE_EXPECT(dmsg_bcast((dmsg_team)0x12345, &y, &x, 4, 0), DMSG_ERR_TEAM);
    PE_EXPECT(dmsg_team_npes(DMSG_TEAM_INVALID), DMSG_ERR_TEAM);
    PE_EXPECT(dmsg_team_free(DMSG_TEAM_WORLD), DMSG_ERR_TEAM);
    PE_EXPECT(dmsg_team_split_strided(DMSG_TEAM_WORLD, 0, 1, n + 1, &odd), DMSG_ERR_ARG);
    PE_EXPECT(dmsg_team_split_strided(DMSG_TEAM_WORLD, 0, 0, 2, &odd), DMSG_ERR_ARG);
    PE_EXPECT(dmsg_team_split_strided(DMSG_TEAM_WORLD, 0, 1, 0, &odd), DMSG_ERR_ARG);
    PE_EXPECT(dmsg_team_split_strided(DMSG_TEAM_WORLD, 0, 1, n, NULL), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_team_split_color(DMSG_TEAM_WORLD, 0, 0, NULL), DMSG_ERR_NULL);
    /* freed team */
    PE_OK(dmsg_team_split_strided(DMSG_TEAM_WORLD, 0, 1, n, &gone));
    PE_OK(dmsg_team_free(gone));
    PE_EXPECT(dmsg_allreduce(gone, &y, &x, 1, DMSG_TYPE_INT32, DMSG_OP_SUM), DMSG_ERR_TEAM);
    PE_EXPECT(dmsg_team_free(gone), DMSG_ERR_TEAM);
    /* non-member: the odd PEs are not in the even team */
    PE_OK(dmsg_team_split_color(DMSG_TEAM_WORLD, me % 2 ? -1 : 0, 0, &odd));
    PE_CHECK((odd == DMSG_TEAM_INVALID) == (me % 2 == 1), "negative color gave a team");
    if (odd == DMSG_TEAM_INVALID)
        PE_EXPECT(dmsg_team_sync(odd), DMSG_ERR_TEAM);
    /* root outside, bad type/op, NULL with a size, zero sizes */
    PE_EXPECT(dmsg_bcast(DMSG_TEAM_WORLD, &y, &x, 4, n), DMSG_ERR_PE);
    PE_EXPECT(dmsg_bcast(DMSG_TEAM_WORLD, &y, &x, 4, -1), DMSG_ERR_PE);
    PE_EXPECT(dmsg_reduce(DMSG_TEAM_WORLD, &y, &x, 1, DMSG_TYPE_INT32, DMSG_OP_SUM, n),
              DMSG_ERR_PE);
    PE_EXPECT(dmsg_gather(DMSG_TEAM_WORLD, &y, &x, 4, n), DMSG_ERR_PE);
    PE_EXPECT(dmsg_allreduce(DMSG_TEAM_WORLD, &y, &x, 1, (dmsg_type)0, DMSG_OP_SUM), DMSG_ERR_ARG);
    PE_EXPECT(dmsg_allreduce(DMSG_TEAM_WORLD, &y, &x, 1, (dmsg_type)99, DMSG_OP_SUM),
              DMSG_ERR_ARG);
    PE_EXPECT(dmsg_allreduce(DMSG_TEAM_WORLD, &y, &x, 1, DMSG_TYPE_INT32, (dmsg_redop)0),
              DMSG_ERR_ARG);
    double dv = 1, dr = 0;
    PE_EXPECT(dmsg_allreduce(DMSG_TEAM_WORLD, &dr, &dv, 1, DMSG_TYPE_DOUBLE, DMSG_OP_XOR),
              DMSG_ERR_ARG);
    double _Complex cv = 1, cr = 0;
    PE_EXPECT(dmsg_allreduce(DMSG_TEAM_WORLD, &cr, &cv, 1, DMSG_TYPE_DOUBLE_COMPLEX, DMSG_OP_MAX),
              DMSG_ERR_ARG);
    PE_EXPECT(dmsg_scan(DMSG_TEAM_WORLD, &y, &x, 1, DMSG_TYPE_FLOAT, DMSG_OP_AND), DMSG_ERR_ARG);
    PE_EXPECT(dmsg_allreduce(DMSG_TEAM_WORLD, NULL, &x, 1, DMSG_TYPE_INT32, DMSG_OP_SUM),
              DMSG_ERR_NULL);
    PE_EXPECT(dmsg_bcast(DMSG_TEAM_WORLD, NULL, &x, 4, 0), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_allgather(DMSG_TEAM_WORLD, &y, NULL, 4), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_alltoall(DMSG_TEAM_WORLD, NULL, &x, 4), DMSG_ERR_NULL);
    if (n > 1)
        PE_EXPECT(dmsg_alltoall(DMSG_TEAM_WORLD, &y, &x, SIZE_MAX / 2 + 1), DMSG_ERR_OVERFLOW);
    PE_EXPECT(dmsg_allgatherv(DMSG_TEAM_WORLD, &y, NULL, NULL, &x, 4), DMSG_ERR_NULL);
    y = 77;
    PE_OK(dmsg_allreduce(DMSG_TEAM_WORLD, NULL, NULL, 0, DMSG_TYPE_INT32, DMSG_OP_SUM));
    PE_OK(dmsg_bcast(DMSG_TEAM_WORLD, NULL, NULL, 0, 0));
    PE_OK(dmsg_alltoall(DMSG_TEAM_WORLD, NULL, NULL, 0));
    PE_OK(dmsg_gather(DMSG_TEAM_WORLD, NULL, NULL, 0, 0));
    PE_CHECK(y == 77, "a failed or empty collective wrote");
    if (odd != DMSG_TEAM_INVALID)
        PE_OK(dmsg_team_free(odd));
    PE_OK(dmsg_sync());
    return 0;
}

/* Run with DMSG_CHECK=1: members disagreeing on count, root or type are
 * refused on every member, nothing written. */
static int coll_mismatch(void)
{
    int n = pe_n(), me = pe_me();
    int32_t s[4] = {1, 2, 3, 4}, d[4] = {9, 9, 9, 9};
    if (n < 2)
        return 0;
    PE_EXPECT(dmsg_allreduce(DMSG_TEAM_WORLD, d, s, me == 1 ? 3 : 4, DMSG_TYPE_INT32,
                             DMSG_OP_SUM),
              DMSG_ERR_COLLECTIVE);
    PE_EXPECT(dmsg_allreduce(DMSG_TEAM_WORLD, d, s, 4, DMSG_TYPE_INT32,
                             me == 1 ? DMSG_OP_MAX : DMSG_OP_SUM),
              DMSG_ERR_COLLECTIVE);
    PE_EXPECT(dmsg_bcast(DMSG_TEAM_WORLD, d, s, 16, me == 1 ? 1 : 0), DMSG_ERR_COLLECTIVE);
    PE_EXPECT(dmsg_alltoall(DMSG_TEAM_WORLD, d, s, me == 0 ? 4 : 8 / (size_t)n),
              n == 2 ? DMSG_OK : DMSG_ERR_COLLECTIVE);
    for (int i = 0; i < 4 && n != 2; i++)
        PE_CHECK(d[i] == 9, "mismatched collective wrote d[%d] = %d", i, d[i]);
    /* gatherv: member 1 sends more than the root expects */
    size_t cnt[64], dsp[64];
    for (int i = 0; i < n && i < 64; i++) {
        cnt[i] = 4;
        dsp[i] = 0;
    }
    if (n <= 64)
        PE_EXPECT(dmsg_gatherv(DMSG_TEAM_WORLD, d, cnt, dsp, s, me == 1 ? 8 : 4, 0),
                  DMSG_ERR_COLLECTIVE);
    /* after all that, the team still works */
    PE_OK(dmsg_allreduce(DMSG_TEAM_WORLD, d, s, 4, DMSG_TYPE_INT32, DMSG_OP_SUM));
    PE_CHECK(d[3] == 4 * n, "sum after the refused calls: %d", d[3]);
    return 0;
}

/* PEs at very different speeds: a random PE dawdles before each of many
 * back-to-back collectives that do not all synchronize (bcast and gather
 * from rotating roots, reduce, scan), so fast members run ahead into the
 * next ones while slow ones still read their scratch. */
static int coll_skew(void)
{
    int n = pe_n(), me = pe_me();
    uint64_t rs = 77;
    enum { W = 300 };
    static unsigned char src[W], dst[64 * W];
    for (int it = 0; it < 300; it++) {
        if (pe_rnd_below(&rs, n) == me) {
            struct timespec ts = {0, 200000L * pe_rnd_below(&rs, 5)};
            nanosleep(&ts, NULL);
        } else {
            (void)pe_rnd_next(&rs);
        }
        int root = it % n;
        size_t b = (size_t)(it * 37) % W;
        pe_fill(src, b, me, (uint32_t)it);
        switch (it % 5) {
        case 0:
            PE_OK(dmsg_bcast(DMSG_TEAM_WORLD, dst, src, b, root));
            PE_TRY(pe_check_pattern(dst, b, root, (uint32_t)it, "skewed bcast"));
            break;
        case 1:
            /* two in a row, to different roots: neither waits for all */
            for (int g = 0; n <= 64 && g < 2; g++) {
                int gr = (root + g) % n;
                PE_OK(dmsg_gather(DMSG_TEAM_WORLD, dst, src, b, gr));
                for (int r = 0; me == gr && r < n; r++)
                    PE_TRY(pe_check_pattern(dst + (size_t)r * b, b, r, (uint32_t)it,
                                            "skewed gather"));
            }
            break;
        case 2: {
            int64_t v = me + it, sum = 0;
            PE_OK(dmsg_reduce(DMSG_TEAM_WORLD, &sum, &v, 1, DMSG_TYPE_INT64, DMSG_OP_SUM, root));
            PE_CHECK(me != root || sum == (int64_t)n * (n - 1) / 2 + (int64_t)n * it,
                     "skewed reduce %lld", (long long)sum);
            break;
        }
        case 3: {
            int64_t v = 1, pre = -1;
            PE_OK(dmsg_exscan(DMSG_TEAM_WORLD, &pre, &v, 1, DMSG_TYPE_INT64, DMSG_OP_SUM));
            PE_CHECK(me == 0 ? pre == -1 : pre == me, "skewed exscan %lld", (long long)pre);
            break;
        }
        default: {
            uint64_t v = (uint64_t)me, mx = 0;
            PE_OK(dmsg_allreduce(DMSG_TEAM_WORLD, &mx, &v, 1, DMSG_TYPE_UINT64, DMSG_OP_MAX));
            PE_CHECK(mx == (uint64_t)n - 1, "skewed allreduce %llu", (unsigned long long)mx);
        }
        }
    }
    return 0;
}

/* A few small allreduces and barriers, for many PEs (1,000 by hand). */
static int coll_allreduce_small(void)
{
    int n = pe_n(), me = pe_me();
    double t0 = dmsg_wtime();
    for (int it = 0; it < 10; it++) {
        uint64_t v[2] = {(uint64_t)me, 1}, r[2];
        PE_OK(dmsg_allreduce(DMSG_TEAM_WORLD, r, v, 2, DMSG_TYPE_UINT64, DMSG_OP_SUM));
        PE_CHECK(r[0] == (uint64_t)n * (n - 1) / 2 && r[1] == (uint64_t)n, "allreduce of %d PEs",
                 n);
        PE_OK(dmsg_team_sync(DMSG_TEAM_WORLD));
    }
    if (me == 0 && getenv("COLL_SHOW_TIME"))
        printf("%d PEs: 10 allreduces and team syncs in %.3f s\n", n, dmsg_wtime() - t0);
    return 0;
}

/* Short allreduces on the whole job, which on shm ride in the barrier's
 * own words (barrier_xchg), mixed with syncs, deposits and a team's
 * allreduce (which does not): integer sums, min and max of every width,
 * two ints at once, in place, vectors up to 16 KiB, and double sums whose
 * bits depend on the order of addition, which must be member order 0, 1,
 * ... on every member where the path promises it (else the same bits on
 * every member). PE_ROUNDS sets the rounds (default 1500). */
static int coll_allreduce_lines(void)
{
    const char *e = getenv("PE_ROUNDS");
    long rounds = e ? strtol(e, NULL, 10) : 1500;
    PE_CHECK(rounds > 0, "PE_ROUNDS=%s: expected a positive number", e);
    int n = pe_n(), me = pe_me();
    /* An 8-byte vector is combined in member order by the barrier's words
     * (shm, unless DMSG_COLL_XCHG=0) and by the flat step (unless
     * DMSG_COLL_FLAT=0); recursive doubling, the path left when both are
     * off, promises only the same bits on every member. */
    const char *fx = getenv("DMSG_COLL_FLAT"), *xx = getenv("DMSG_COLL_XCHG");
    int no_flat = fx && strcmp(fx, "0") == 0;
    int no_xchg = strcmp(dmsg_transport_name(), "shm") != 0 || (xx && strcmp(xx, "0") == 0);
    int ordered = !(no_flat && no_xchg);
    dmsg_team half;
    PE_OK(dmsg_team_split_color(DMSG_TEAM_WORLD, me % 2, me, &half));
    uint64_t *box = pe_alloc(2 * sizeof(uint64_t));
    PE_CHECK(box != NULL, "alloc failed");
    for (long r = 0; r < rounds; r++) {
        int64_t sum = 0, want = 0;
        int64_t v = (int64_t)(me + 1) * (r + 3);
        for (int p = 0; p < n; p++)
            want += (int64_t)(p + 1) * (r + 3);
        switch (r % 7) {
        case 0:
            PE_OK(dmsg_allreduce(DMSG_TEAM_WORLD, &sum, &v, 1, DMSG_TYPE_INT64, DMSG_OP_SUM));
            PE_CHECK(sum == want, "round %ld: int64 sum %lld, want %lld", r, (long long)sum,
                     (long long)want);
            break;
        case 1: {
            int32_t x[2] = {(int32_t)(me - (int)r), (int32_t)(me * 3)}, y[2];
            PE_OK(dmsg_allreduce(DMSG_TEAM_WORLD, y, x, 2, DMSG_TYPE_INT32, DMSG_OP_MIN));
            PE_CHECK(y[0] == -(int32_t)r && y[1] == 0, "round %ld: int32 min (%d,%d)", r, y[0],
                     y[1]);
            PE_OK(dmsg_allreduce(DMSG_TEAM_WORLD, x, x, 2, DMSG_TYPE_INT32, DMSG_OP_MAX));
            PE_CHECK(x[0] == n - 1 - (int32_t)r && x[1] == 3 * (n - 1),
                     "round %ld: int32 max in place (%d,%d)", r, x[0], x[1]);
            break;
        }
        case 2: {
            int8_t b = (int8_t)(me % 20 + (int)(r % 100)), c;
            int16_t h = (int16_t)(me * 100), g;
            PE_OK(dmsg_allreduce(DMSG_TEAM_WORLD, &c, &b, 1, DMSG_TYPE_INT8, DMSG_OP_MAX));
            PE_CHECK(c == (int8_t)((n < 20 ? n - 1 : 19) + (int)(r % 100)), "round %ld: int8 max %d",
                     r, c);
            PE_OK(dmsg_allreduce(DMSG_TEAM_WORLD, &g, &h, 1, DMSG_TYPE_INT16, DMSG_OP_SUM));
            PE_CHECK(n > 25 || g == (int16_t)(100 * n * (n - 1) / 2), "round %ld: int16 sum %d", r,
                     g);
            break;
        }
        case 3: {
            double d = dval(me, (size_t)r), ds, dw = dval(0, (size_t)r);
            for (int p = 1; p < n; p++)
                dw += dval(p, (size_t)r);
            PE_OK(dmsg_allreduce(DMSG_TEAM_WORLD, &ds, &d, 1, DMSG_TYPE_DOUBLE, DMSG_OP_SUM));
            PE_CHECK(!ordered || memcmp(&ds, &dw, sizeof ds) == 0,
                     "round %ld: double sum %.17g, want %.17g (member order)", r, ds, dw);
            if (!ordered)
                PE_TRY(same_everywhere(DMSG_TEAM_WORLD, &ds, sizeof ds, "double sum"));
            break;
        }
        case 4: {
            /* A deposit before the allreduce, read after a sync. */
            uint64_t msg = (uint64_t)r * 1000 + (uint64_t)me;
            PE_OK(dmsg_deposit(&box[r % 2], &msg, sizeof msg, pe_up(1), DMSG_CTR_NONE));
            uint64_t one = 1, cnt = 0;
            PE_OK(dmsg_allreduce(DMSG_TEAM_WORLD, &cnt, &one, 1, DMSG_TYPE_UINT64, DMSG_OP_SUM));
            PE_CHECK(cnt == (uint64_t)n, "round %ld: count %llu", r, (unsigned long long)cnt);
            PE_OK(dmsg_sync());
            PE_CHECK(box[r % 2] == (uint64_t)r * 1000 + (uint64_t)pe_down(1),
                     "round %ld: deposit %llu", r, (unsigned long long)box[r % 2]);
            break;
        }
        case 5: {
            /* Vectors of 3 to 4096 doubles and ints (rows beside the
             * barrier up to 512 bytes; past that, the other paths, whose
             * order of addition differs: whole numbers here, exact in any
             * order; case 3 checks the order). */
            static const size_t lens[] = {3, 7, 15, 37, 64, 65, 128, 1001, 4096};
            size_t m = lens[(r / 7) % 9];
            double *dv = malloc(m * sizeof *dv), *dr = malloc(m * sizeof *dr);
            int32_t *iv = malloc(m * sizeof *iv), *ir = malloc(m * sizeof *ir);
            PE_CHECK(dv && dr && iv && ir, "malloc");
            for (size_t i = 0; i < m; i++) {
                dv[i] = (double)ival(me, i + (size_t)r) * 0.5;
                iv[i] = ival(me, i + (size_t)r);
            }
            PE_OK(dmsg_allreduce(DMSG_TEAM_WORLD, dr, dv, m, DMSG_TYPE_DOUBLE, DMSG_OP_SUM));
            PE_OK(dmsg_allreduce(DMSG_TEAM_WORLD, ir, iv, m, DMSG_TYPE_INT32, DMSG_OP_SUM));
            for (size_t i = 0; i < m; i++) {
                double dw = (double)ival(0, i + (size_t)r) * 0.5;
                int32_t iw = ival(0, i + (size_t)r);
                for (int p = 1; p < n; p++) {
                    dw += (double)ival(p, i + (size_t)r) * 0.5;
                    iw += ival(p, i + (size_t)r);
                }
                PE_CHECK(memcmp(&dr[i], &dw, sizeof dw) == 0 && ir[i] == iw,
                         "round %ld, %zu elements, [%zu]: %.17g and %d, want %.17g and %d", r, m,
                         i, dr[i], ir[i], dw, iw);
            }
            free(dv);
            free(dr);
            free(iv);
            free(ir);
            break;
        }
        default: {
            int64_t hs = 0, hw = 0;
            for (int p = me % 2; p < n; p += 2)
                hw += (int64_t)(p + 1) * (r + 3);
            PE_OK(dmsg_allreduce(half, &hs, &v, 1, DMSG_TYPE_INT64, DMSG_OP_SUM));
            PE_CHECK(hs == hw, "round %ld: team sum %lld, want %lld", r, (long long)hs,
                     (long long)hw);
            PE_OK(dmsg_sync());
        }
        }
    }
    PE_OK(dmsg_team_free(half));
    PE_OK(dmsg_free(box));
    return 0;
}

/* Run with DMSG_COLL_SCRATCH=4K: the world's chunks are 128 bytes, so a
 * thousand elements take many steps; a split team has no room at all and
 * says so (DMSG_ERR_NOMEM on every member) instead of failing later. */
static int coll_tiny_scratch(void)
{
    int n = pe_n(), me = pe_me();
    if (n >= 16) { /* a port per round leaves under 128 bytes: refused, not divided by zero */
        int64_t v = 1, r = 0;
        PE_EXPECT(dmsg_bcast(DMSG_TEAM_WORLD, &r, &v, 8, 0), DMSG_ERR_NOMEM);
        PE_EXPECT(dmsg_allreduce(DMSG_TEAM_WORLD, &r, &v, 1, DMSG_TYPE_INT64, DMSG_OP_SUM),
                  DMSG_ERR_NOMEM);
        PE_CHECK(r == 0, "a refused collective wrote");
        PE_OK(dmsg_team_sync(DMSG_TEAM_WORLD));
        return 0;
    }
    if (n > 4)
        return 0;
    enum { N = 1000 };
    static int64_t s[N], d[N];
    for (int i = 0; i < N; i++)
        s[i] = me * i;
    PE_OK(dmsg_allreduce(DMSG_TEAM_WORLD, d, s, N, DMSG_TYPE_INT64, DMSG_OP_SUM));
    for (int i = 0; i < N; i++)
        PE_CHECK(d[i] == (int64_t)i * n * (n - 1) / 2, "chunked sum [%d]", i);
    PE_OK(dmsg_bcast(DMSG_TEAM_WORLD, d, s, sizeof s, n - 1));
    for (int i = 0; i < N; i++)
        PE_CHECK(d[i] == (int64_t)(n - 1) * i, "chunked bcast [%d]", i);
    dmsg_team t = 7;
    PE_EXPECT(dmsg_team_split_strided(DMSG_TEAM_WORLD, 0, 1, n, &t), n > 1 ? DMSG_ERR_NOMEM : DMSG_OK);
    PE_CHECK(n > 1 ? t == 7 : t != DMSG_TEAM_INVALID, "team handle after the split: %#llx",
             (unsigned long long)t);
    if (n == 1)
        PE_OK(dmsg_team_free(t));
    return 0;
}

/* Streams of broadcasts on team t: runs of one root (the ring of short
 * broadcasts and acked broadcast steps: no barrier between them, so the
 * root runs ahead of slow members),
 * then another root, sizes 0 to past the long path's threshold (and many
 * chunks under a small DMSG_COLL_SCRATCH), mixed with gathers (steps that
 * are not full, which may follow them), full steps (allreduce, alltoall)
 * and a rooted reduce, while one random member at a time sleeps. All
 * members draw the same random sequence, so they agree on each call. */
static int bcast_stream(dmsg_team t, uint64_t seed, int iters)
{
    int n = dmsg_team_npes(t), me = dmsg_team_pe(t);
    enum { BIG = 70000, G = 300 };
    static const size_t sz[] = {0, 1, 8, 300, 5000, BIG};
    uint64_t rs = seed;
    unsigned char *src = malloc(BIG), *dst = malloc(BIG), *gat = malloc((size_t)n * G);
    PE_CHECK(src && dst && gat, "malloc");
    for (int it = 0; it < iters; it++) {
        if (pe_rnd_below(&rs, n) == me) {
            struct timespec ts = {0, 100000L * pe_rnd_below(&rs, 5)};
            nanosleep(&ts, NULL);
        } else {
            (void)pe_rnd_next(&rs);
        }
        int op = pe_rnd_below(&rs, 10), root = pe_rnd_below(&rs, n);
        uint32_t tag = (uint32_t)it * 16;
        if (op < 6) {
            /* sometimes longer than the ring (DMSG_COLL_RING): slots reused */
            int run = pe_rnd_below(&rs, 3) ? 1 + pe_rnd_below(&rs, 6) : 20 + pe_rnd_below(&rs, 30);
            for (int k = 0; k < run; k++) {
                size_t b = sz[pe_rnd_below(&rs, 6)];
                pe_fill(src, b, me, tag + (uint32_t)k);
                memset(dst, 0xa5, b);
                /* the root sometimes broadcasts in place */
                void *d = me == root && k % 2 ? src : dst;
                PE_OK(dmsg_bcast(t, d, src, b, root));
                PE_TRY(pe_check_pattern(d, b, root, tag + (uint32_t)k, "streamed bcast"));
            }
        } else if (op == 6) {
            size_t b = (size_t)pe_rnd_below(&rs, G + 1);
            pe_fill(src, b, me, tag);
            PE_OK(dmsg_gather(t, gat, src, b, root));
            for (int r = 0; me == root && r < n; r++)
                PE_TRY(pe_check_pattern(gat + (size_t)r * b, b, r, tag, "streamed gather"));
        } else if (op == 7) {
            int64_t v[3] = {me, 1, -me}, r[3];
            PE_OK(dmsg_allreduce(t, r, v, 3, DMSG_TYPE_INT64, DMSG_OP_SUM));
            PE_CHECK(r[0] == (int64_t)n * (n - 1) / 2 && r[1] == n && r[2] == -r[0],
                     "streamed allreduce %lld %lld %lld", (long long)r[0], (long long)r[1],
                     (long long)r[2]);
        } else if (op == 8) {
            uint64_t *a = (uint64_t *)src, *b = (uint64_t *)dst;
            for (int j = 0; j < n; j++)
                a[j] = (uint64_t)me << 32 | (uint64_t)j;
            PE_OK(dmsg_alltoall(t, b, a, 8));
            for (int j = 0; j < n; j++)
                PE_CHECK(b[j] == ((uint64_t)j << 32 | (uint64_t)me), "streamed alltoall [%d]", j);
        } else {
            double v = me, sum = -1;
            PE_OK(dmsg_reduce(t, &sum, &v, 1, DMSG_TYPE_DOUBLE, DMSG_OP_SUM, root));
            PE_CHECK(me != root || sum == (double)n * (n - 1) / 2, "streamed reduce %g", sum);
        }
    }
    free(src);
    free(dst);
    free(gat);
    return 0;
}

/* The ring's root change. On a fresh world (DMSG_COLL_RING 16 slots in
 * groups of 4): member n - 1 broadcasts 4 times (slots 0-3), then the last
 * member sleeps while member 0 broadcasts 16 times (slots 4-15, 0-3: it
 * never waits, each group it enters is fresh to it), then member 1
 * broadcasts into slot 4, which the sleeper has not read yet. Only the
 * barrier at the change keeps member 1 from overwriting it. */
static int ring_root_change(void)
{
    int n = pe_n(), me = pe_me();
    enum { PRE = 4, RUN = 16, ALL = PRE + RUN + 1 };
    uint64_t src[ALL], dst[ALL];
    int root[ALL];
    for (int i = 0; i < ALL; i++) {
        src[i] = (uint64_t)(i + 1) << 8 | (uint64_t)me;
        root[i] = i < PRE ? n - 1 : i < PRE + RUN ? 0 : 1 % n;
    }
    for (int i = 0; i < ALL; i++) {
        if (i == PRE && me == n - 1) {
            struct timespec ts = {0, 50000000L};
            nanosleep(&ts, NULL);
        }
        PE_OK(dmsg_bcast(DMSG_TEAM_WORLD, &dst[i], &src[i], 8, root[i]));
    }
    for (int i = 0; i < ALL; i++)
        PE_CHECK(dst[i] == ((uint64_t)(i + 1) << 8 | (uint64_t)root[i]),
                 "broadcast %d of the root change: %#llx", i, (unsigned long long)dst[i]);
    return 0;
}

/* bcast_stream on the world, then on the halves by parity at once (each a
 * team of its own, with its own seed) when the scratch has room for them. */
static int coll_bcast_stream(void)
{
    int me = pe_me();
    PE_TRY(ring_root_change());
    PE_TRY(bcast_stream(DMSG_TEAM_WORLD, 91, 200));
    dmsg_team half;
    int st = dmsg_team_split_color(DMSG_TEAM_WORLD, me % 2, me, &half);
    if (st == DMSG_ERR_NOMEM)
        return 0; /* DMSG_COLL_SCRATCH too small for a team: coll_tiny_scratch's case */
    PE_OK(st);
    PE_TRY(bcast_stream(half, 17 + (uint64_t)(me % 2), 100));
    PE_OK(dmsg_team_free(half));
    return 0;
}

/* ------------------------------------------------ the direct path */

static uint64_t direct_calls(void)
{
    return ((const coll_state *)dmsg_g.coll)->direct;
}

/* The direct path is for this team: every PE mapped (shm), more than one
 * member, and at least DMSG_COLL_DIRECT bytes. */
static int direct_expected(dmsg_team t, size_t bytes)
{
    int mapped = 1;
    for (int p = 0; p < pe_n(); p++)
        mapped &= dmsg_pe_mapped(p);
    size_t min = (size_t)dmsg_g.cfg.coll_direct;
    return mapped && dmsg_team_npes(t) > 1 && min && bytes && bytes >= min;
}

/* An allreduce on the world of two PEs, with more bytes than ride in the
 * barrier (512) and fewer than DMSG_COLL_DIRECT, where the transport
 * carries values in its barrier (shm): the direct path in two barriers
 * (dmsg_coll_direct_pair). */
static int pair_expected(dmsg_team t, size_t bytes)
{
    size_t min = (size_t)dmsg_g.cfg.coll_direct;
    return t == DMSG_TEAM_WORLD && pe_n() == 2 && dmsg_pe_mapped(0) && dmsg_pe_mapped(1) &&
           dmsg_g.tp.ops->barrier_xchg != NULL && bytes > 512 && bytes < min;
}

/* The scratch path also combines in member order (so bitwise like the
 * direct path): two members, the flat allreduce, the long vectors. */
static int scratch_in_order(int np, size_t n)
{
    size_t bytes = n * sizeof(double);
    return np <= 2 || (np <= 16 && bytes <= 2048) || (bytes >= (16 << 10) && n >= (size_t)np);
}

/* Sum of dval over members 0, 1, ... in that order (the direct path's). */
static double dsum(int np, size_t i)
{
    double a = dval(0, i);
    for (int r = 1; r < np; r++)
        a += dval(r, i);
    return a;
}

/* Runs call (one collective) and checks that it took the direct path
 * exactly when expected. */
#define DIRECT_CALL(t, bytes, want_direct, call)                                                   \
    do {                                                                                           \
        uint64_t d0_ = direct_calls();                                                             \
        PE_OK(call);                                                                               \
        int took_ = direct_calls() != d0_, want_ = (want_direct);                                  \
        PE_CHECK(took_ == want_, "%s (%zu bytes): direct path %d, expected %d", #call,             \
                 (size_t)(bytes), took_, want_);                                                   \
    } while (0)

static int one_team_direct(dmsg_team t, double *S, double *D, int64_t *SI, double *ps, double *pd,
                           size_t n)
{
    int np = dmsg_team_npes(t), me = dmsg_team_pe(t);
    size_t bytes = n * sizeof(double);
    int want = direct_expected(t, bytes), want_all = want || pair_expected(t, bytes);
    const double guard = -7.25;
    for (size_t i = 0; i < n; i++)
        S[i] = ps[i] = dval(me, i);
    D[n] = guard;
    /* symmetric (direct where mapped) against private (the scratch path) */
    DIRECT_CALL(t, bytes, want_all, dmsg_allreduce(t, D, S, n, DMSG_TYPE_DOUBLE, DMSG_OP_SUM));
    DIRECT_CALL(t, bytes, 0, dmsg_allreduce(t, pd, ps, n, DMSG_TYPE_DOUBLE, DMSG_OP_SUM));
    PE_CHECK(D[n] == guard, "allreduce of %zu wrote past dst", n);
    for (size_t i = 0; i < n; i++) {
        double w = dsum(np, i);
        if (want_all)
            PE_CHECK(!memcmp(&D[i], &w, 8), "direct sum [%zu] of %zu on %d: %.17g, want %.17g",
                     i, n, np, D[i], w);
        if (scratch_in_order(np, n))
            PE_CHECK(!memcmp(&D[i], &pd[i], 8), "direct and scratch sums [%zu] of %zu differ: "
                     "%.17g, %.17g", i, n, D[i], pd[i]);
    }
    PE_TRY(same_everywhere(t, D, bytes, "direct allreduce"));
    /* in place: dst == src on every member */
    DIRECT_CALL(t, bytes, want_all, dmsg_allreduce(t, S, S, n, DMSG_TYPE_DOUBLE, DMSG_OP_SUM));
    PE_CHECK(!memcmp(S, D, bytes), "in-place allreduce of %zu differs", n);
    /* reduce to the last member (max of int64), dst NULL elsewhere */
    int root = np - 1;
    for (size_t i = 0; i < n; i++)
        SI[i] = (int64_t)((i * 7919 + (size_t)me * 104729) % 1000003);
    int64_t *DI = (int64_t *)D;
    DI[n] = -1;
    DIRECT_CALL(t, bytes, want,
                dmsg_reduce(t, me == root ? DI : NULL, SI, n, DMSG_TYPE_INT64, DMSG_OP_MAX, root));
    for (size_t i = 0; me == root && i < n; i++) {
        int64_t w = 0;
        for (int r = 0; r < np; r++) {
            int64_t v = (int64_t)((i * 7919 + (size_t)r * 104729) % 1000003);
            w = v > w ? v : w;
        }
        PE_CHECK(DI[i] == w, "reduce max [%zu] of %zu: %lld want %lld", i, n, (long long)DI[i],
                 (long long)w);
    }
    PE_CHECK(DI[n] == -1, "reduce of %zu wrote past dst", n);
    /* one member's source is not symmetric: every member takes the scratch path */
    for (size_t i = 0; i < n; i++)
        S[i] = ps[i] = dval(me, i);
    DIRECT_CALL(t, bytes, 0,
                dmsg_allreduce(t, D, me == 0 ? ps : S, n, DMSG_TYPE_DOUBLE, DMSG_OP_SUM));
    for (size_t i = 0; scratch_in_order(np, n) && i < n; i++)
        PE_CHECK(D[i] == pd[i], "fallback sum [%zu] of %zu: %.17g want %.17g", i, n, D[i], pd[i]);
    PE_TRY(same_everywhere(t, D, bytes, "fallback allreduce"));
    return 0;
}

static unsigned char bval(int r, size_t i)
{
    return (unsigned char)(r * 37 + (int)(i % 251) + 1);
}

/* Broadcast, allgather and all-to-all of nb-byte blocks from a symmetric
 * source (S, np * nb bytes) into D (np * nb + 1 bytes, the last a guard),
 * and from a private one (ps), which every member must get alike. */
static int one_team_direct_movers(dmsg_team t, unsigned char *S, unsigned char *D,
                                  unsigned char *ps, size_t nb)
{
    int np = dmsg_team_npes(t), me = dmsg_team_pe(t), root = np / 2;
    size_t all = nb * (size_t)np;
    int mapped = direct_expected(t, SIZE_MAX); /* mapped, more than one member */
    size_t min = (size_t)dmsg_g.cfg.coll_direct * 4; /* received per member (coll.c) */
    for (size_t i = 0; i < all; i++)
        S[i] = ps[i] = bval(me, i);
    D[all] = 0x5a;
    /* broadcast, then in place */
    DIRECT_CALL(t, nb, mapped && nb >= min, dmsg_bcast(t, D, S, nb, root));
    for (size_t i = 0; i < nb; i++)
        PE_CHECK(D[i] == bval(root, i), "bcast [%zu] of %zu: %d", i, nb, D[i]);
    DIRECT_CALL(t, nb, mapped && nb >= min, dmsg_bcast(t, S, S, nb, root));
    PE_CHECK(!memcmp(S, D, nb), "in-place bcast of %zu differs", nb);
    for (size_t i = 0; i < all; i++)
        S[i] = bval(me, i);
    /* allgather: member j's first nb bytes to block j */
    DIRECT_CALL(t, all, mapped && all >= min, dmsg_allgather(t, D, S, nb));
    for (int j = 0; j < np; j++)
        for (size_t i = 0; i < nb; i++)
            PE_CHECK(D[(size_t)j * nb + i] == bval(j, i), "allgather block %d [%zu] of %zu", j,
                     i, nb);
    /* all-to-all: block me of member j's source to block j */
    DIRECT_CALL(t, all, mapped && all >= min, dmsg_alltoall(t, D, S, nb));
    for (int j = 0; j < np; j++)
        for (size_t i = 0; i < nb; i++)
            PE_CHECK(D[(size_t)j * nb + i] == bval(j, (size_t)me * nb + i),
                     "alltoall block %d [%zu] of %zu", j, i, nb);
    PE_CHECK(D[all] == 0x5a, "a mover of %zu wrote past dst", nb);
    /* a private source on member 0: the scratch path everywhere, same data */
    DIRECT_CALL(t, all, 0, dmsg_alltoall(t, D, me == 0 ? ps : S, nb));
    for (int j = 0; j < np; j++)
        for (size_t i = 0; i < nb; i++)
            PE_CHECK(D[(size_t)j * nb + i] == bval(j, (size_t)me * nb + i),
                     "fallback alltoall block %d [%zu] of %zu", j, i, nb);
    DIRECT_CALL(t, nb, 0, dmsg_bcast(t, D, me == root ? ps : S, nb, root));
    for (size_t i = 0; i < nb; i++)
        PE_CHECK(D[i] == bval(root, i), "fallback bcast [%zu] of %zu: %d", i, nb, D[i]);
    return 0;
}

/* Allreduce and reduce on symmetric buffers, which take the direct path
 * where every member's segment is mapped (shm) and the scratch path
 * elsewhere (ofi, sim): the same bits as the scratch path and as member
 * order, in place, rooted, and a member with a private source (everyone
 * falls back); on every team of make_teams, sizes below and above the
 * default threshold, not divisible by the members (run with
 * DMSG_COLL_DIRECT=1 too: fewer elements than members). Then broadcast,
 * allgather and all-to-all the same way. */
static int coll_direct_path(void)
{
    static const size_t sizes[] = {1, 3, 7, 65, 511, 512, 1000, 4095, 4097, 70001};
    enum { MAXN = 70001 };
    void *S, *D, *SI;
    PE_OK(dmsg_alloc((MAXN + 1) * 8, &S));
    PE_OK(dmsg_alloc((MAXN + 1) * 8, &D));
    PE_OK(dmsg_alloc((MAXN + 1) * 8, &SI));
    double *ps = malloc((MAXN + 1) * 8), *pd = malloc((MAXN + 1) * 8);
    PE_CHECK(ps && pd, "malloc");
    dmsg_team t[NTEAMS];
    PE_TRY(make_teams(t));
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (int i = 0; i < NTEAMS; i++)
            if (t[i] != DMSG_TEAM_INVALID)
                PE_TRY(one_team_direct(t[i], S, D, SI, ps, pd, sizes[k]));
    /* the movers: blocks of 1 byte to 64K + 3, np * block bytes in all
     * (from 128K on the direct path by default) */
    static const size_t blocks[] = {1, 3, 100, 4095, 4096, 10000, 65539};
    for (size_t k = 0; k < sizeof blocks / sizeof blocks[0]; k++)
        for (int i = 0; i < NTEAMS; i++)
            if (t[i] != DMSG_TEAM_INVALID && blocks[k] * (size_t)dmsg_team_npes(t[i]) <= MAXN * 8)
                PE_TRY(one_team_direct_movers(t[i], S, D, (unsigned char *)ps, blocks[k]));
    PE_TRY(free_teams(t));
    PE_OK(dmsg_sync());
    free(ps);
    free(pd);
    PE_OK(dmsg_free(SI));
    PE_OK(dmsg_free(D));
    PE_OK(dmsg_free(S));
    return 0;
}

const pe_case pe_coll_cases[] = {
    {"coll_allreduce_lines", coll_allreduce_lines, 0},
    {"coll_direct_path", coll_direct_path, 0},
    {"coll_tiny_scratch", coll_tiny_scratch, 0},
    {"coll_skew", coll_skew, 0},
    {"coll_bcast_stream", coll_bcast_stream, 0},
    {"coll_allreduce_small", coll_allreduce_small, 0},
    {"coll_reductions", coll_reductions, 0},
    {"coll_movers", coll_movers, 0},
    {"team_cycle", team_cycle, 0},
    {"team_counter", team_counter, 0},
    {"coll_errors", coll_errors, 0},
    {"team_table_full", team_table_full, 0},
    {"coll_mismatch", coll_mismatch, 0},
    {NULL, NULL, 0},
};
