/* Plans (include/dmsg_plan.h) on real PEs: random statements executed with
 * every mechanism and compared element by element with a serial
 * evaluation (halos and padding must stay untouched); the split start /
 * finish; reuse; and the errors, which must leave everything unchanged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dmsg_plan.h"
#include "pe.h"
#include "tests/plan_rand.h"

#define UNTOUCHED 0xEE /* halo, padding and unowned storage bytes */
/* DMSG_PLAN_MEASURE: its trial executions and one after the decision. */
#define PLAN_RUNS_MEASURE 5

/* Fills a's storage: UNTOUCHED everywhere, owned elements from salt. */
static int fill(const dmsg_darray *a, uint32_t salt, unsigned char *img)
{
    size_t n = 1, g[DMSG_MAX_DIMS], elem = a->desc.elem_size;
    memset(img, UNTOUCHED, a->bytes);
    for (int d = 0; d < a->desc.ndims; d++)
        n *= a->desc.extent[d];
    for (size_t lin = 0; lin < n; lin++) {
        int pe;
        size_t off;
        prand_unlinear(a, lin, g);
        PE_OK(dmsg_darray_locate(a, g, &pe, &off));
        if (pe == pe_me())
            for (size_t j = 0; j < elem; j++)
                img[off + j] = prand_byte(salt, lin, j);
    }
    return 0;
}

/* What this PE's part of dst must hold after the assignment. */
static int expected(const dmsg_assign *as, unsigned char *img)
{
    const dmsg_darray *B = as->dst;
    PE_TRY(fill(B, 2, img));
    size_t n = 1, gb[DMSG_MAX_DIMS], ga[DMSG_MAX_DIMS], elem = B->desc.elem_size;
    for (int d = 0; d < B->desc.ndims; d++)
        n *= B->desc.extent[d];
    for (size_t lin = 0; lin < n; lin++) {
        int pe;
        size_t off;
        prand_unlinear(B, lin, gb);
        PE_OK(dmsg_darray_locate(B, gb, &pe, &off));
        if (pe != pe_me() || !prand_source_of(as, gb, ga)) continue;
        size_t la = prand_linear(as->src, ga);
        for (size_t j = 0; j < elem; j++)
            img[off + j] = prand_byte(1, la, j);
    }
    return 0;
}

static int compare(const dmsg_assign *as, const unsigned char *want, uint64_t seed, int mech)
{
    const unsigned char *got = as->dst->base;
    for (size_t i = 0; i < as->dst->bytes; i++)
        PE_CHECK(got[i] == want[i], "seed %llu mech %d: dst byte %zu of %zu is %#x, want %#x",
                 (unsigned long long)seed, mech, i, as->dst->bytes, got[i], want[i]);
    return 0;
}

/* One statement on allocated arrays: plan, execute `runs` times (re-filling
 * dst before the last, so that the last run alone must produce the
 * result), check. seed names it in messages. */
static int run_assign(dmsg_assign *asp, uint64_t seed, int mech, int runs)
{
    dmsg_assign as = *asp;
    dmsg_darray A = *as.src, B = *as.dst;
    unsigned char *want = malloc(B.bytes);
    PE_CHECK(want != NULL, "out of memory");
    PE_TRY(fill(&A, 1, A.base));
    dmsg_plan_opts opts = {.mech = mech};
    dmsg_plan *plan = NULL;
    PE_OK(dmsg_plan_create(&as, &opts, &plan));
    for (int r = 0; r < runs; r++) {
        if (r == runs - 1) {
            PE_OK(dmsg_sync()); /* nobody deposits into B while it is refilled */
            PE_TRY(fill(&B, 2, B.base));
        }
        PE_OK(dmsg_plan_execute(plan));
    }
    PE_TRY(expected(&as, want));
    PE_TRY(compare(&as, want, seed, mech));
    dmsg_plan_info info;
    PE_OK(dmsg_plan_get_info(plan, &info));
    PE_CHECK(info.executions == (uint64_t)runs, "executions %llu",
             (unsigned long long)info.executions);
    if (mech == DMSG_PLAN_MEASURE && pe_n() > 1 && info.send_bytes > 0)
        PE_CHECK(info.measured_direct_s > 0 && info.measured_pack_s > 0 &&
                     info.measured_direct_mbs > 0 && info.measured_pack_mbs > 0,
                 "MEASURE: no measured times after %d executions", runs);
    if (mech == DMSG_PLAN_DIRECT)
        /* Shares (dmsg/plan/share.c) send one note per PE instead. */
        PE_CHECK(info.partners_packed == 0 &&
                     (info.send_msgs <= info.pieces || info.send_msgs == (uint64_t)pe_n()) &&
                     (info.pieces == 0) == (info.send_msgs == 0),
                 "direct plan packs %d partners", info.partners_packed);
    PE_OK(dmsg_plan_destroy(plan));
    free(want);
    return 0;
}

/* One random statement: build, run_assign, free. */
static int run_statement(uint64_t seed, int mech, int runs, long max_len)
{
    dmsg_darray_desc da, db;
    dmsg_assign as;
    dmsg_darray A, B;
    prand_statement(seed, pe_n(), max_len, &da, &db, &as);
    PE_OK(dmsg_darray_init(&A, &da));
    PE_OK(dmsg_darray_init(&B, &db));
    PE_OK(dmsg_darray_alloc(&A));
    PE_OK(dmsg_darray_alloc(&B));
    as.src = &A;
    as.dst = &B;
    PE_TRY(run_assign(&as, seed, mech, runs));
    PE_OK(dmsg_darray_free(&B));
    PE_OK(dmsg_darray_free(&A));
    return 0;
}

int pe_plan_verify(dmsg_plan *plan, const dmsg_assign *as)
{
    unsigned char *want = malloc(as->dst->bytes);
    PE_CHECK(want != NULL, "out of memory");
    PE_OK(dmsg_sync()); /* nobody reads A or deposits into B while they are refilled */
    PE_TRY(fill(as->src, 1, as->src->base));
    PE_TRY(fill(as->dst, 2, as->dst->base));
    PE_OK(dmsg_plan_execute(plan));
    PE_TRY(expected(as, want));
    dmsg_plan_info info;
    PE_OK(dmsg_plan_get_info(plan, &info));
    PE_TRY(compare(as, want, 0, info.mech));
    free(want);
    return 0;
}

static const int mechs[] = {DMSG_PLAN_DIRECT, DMSG_PLAN_PACK, DMSG_PLAN_MODEL, DMSG_PLAN_MEASURE};

static int plan_random(void)
{
    /* Each statement costs about twenty barriers (allocations, the plan's
     * exchange, executions, frees); over libfabric's network providers on a
     * busy machine that is slow, and the shm runs and the unit tests cover
     * the statements in number. */
    const char *tp = dmsg_transport_name();
    uint64_t count = strcmp(tp, "ofi") == 0 ? 8 : 40;
    for (uint64_t seed = 1; seed <= count; seed++) {
        int mech = mechs[seed % 4];
        PE_TRY(run_statement(seed * 7919 + (uint64_t)pe_n(), mech,
                             mech == DMSG_PLAN_MEASURE ? PLAN_RUNS_MEASURE : 2, 16));
    }
    return 0;
}

/* Fewer, larger statements: for 64 PEs on the simulator. */
static int plan_random_small(void)
{
    for (uint64_t seed = 1; seed <= 10; seed++)
        PE_TRY(run_statement(seed * 104729 + (uint64_t)pe_n(), mechs[seed % 4],
                             mechs[seed % 4] == DMSG_PLAN_MEASURE ? PLAN_RUNS_MEASURE : 1, 20));
    return 0;
}

static dmsg_darray_desc vec(size_t n, int dist, size_t k, int np);

/* Two 1-D arrays of n elements, A distributed BLOCK (ka 0) or CYCLIC(ka)
 * and B by kb alike, allocated, and the assignment B = A in *as. */
static int vec_pair(size_t n, size_t ka, size_t kb, dmsg_darray *A, dmsg_darray *B, dmsg_assign *as)
{
    int np = pe_n();
    dmsg_darray_desc da = vec(n, ka ? DMSG_DIST_CYCLIC : DMSG_DIST_BLOCK, ka, np);
    dmsg_darray_desc db = vec(n, kb ? DMSG_DIST_CYCLIC : DMSG_DIST_BLOCK, kb, np);
    PE_OK(dmsg_darray_init(A, &da));
    PE_OK(dmsg_darray_init(B, &db));
    PE_OK(dmsg_darray_alloc(A));
    PE_OK(dmsg_darray_alloc(B));
    PE_OK(dmsg_assign_init(as, B, A));
    return 0;
}

/* BLOCK / CYCLIC(a) -> BLOCK / CYCLIC(b) of 1-D arrays, sizes below and
 * well above the overlap's period (not multiples of it), whole, shifted,
 * strided and reversed sections, every mechanism in turn: the folded
 * periodic pieces, executed directly or packed, give the serial result. */
static int plan_periodic(void)
{
    static const size_t ks[] = {0, 1, 2, 3, 5, 16};
    static const size_t sizes[] = {3, 1000, 4099};
    const char *tp = dmsg_transport_name();
    int step = strcmp(tp, "ofi") == 0 ? 5 : 1; /* ofi: fewer (barriers are slow) */
    uint64_t tag = 0;
    for (size_t x = 0; x < 6; x++)
        for (size_t y = 0; y < 6; y++, tag++) {
            if (tag % (uint64_t)step != 0) continue;
            size_t n = sizes[tag % 3];
            int v = (int)(tag / 3 % 4), mech = mechs[tag % 4];
            dmsg_darray A, B;
            dmsg_assign as;
            PE_TRY(vec_pair(n, ks[x], ks[y], &A, &B, &as));
            size_t m;
            switch (v) {
            case 1: /* B(0:n-2) = A(1:n-1) */
                as.ssec.lo[0] = 1;
                as.dsec.hi[0] = n - 2;
                break;
            case 2: /* B(n-m:n-1) = A(0:2m-2:2) */
                m = (n + 1) / 2;
                as.ssec.step[0] = 2;
                as.ssec.hi[0] = 2 * (m - 1);
                as.dsec.lo[0] = n - m;
                break;
            case 3: /* B(0:m-1) = A(n-1:..:-3) */
                m = (n + 2) / 3;
                as.ssec.lo[0] = n - 1;
                as.ssec.hi[0] = n - 1 - 3 * (m - 1);
                as.ssec.step[0] = -3;
                as.dsec.hi[0] = m - 1;
                break;
            default:
                break;
            }
            PE_TRY(run_assign(&as, tag, mech, mech == DMSG_PLAN_MEASURE ? PLAN_RUNS_MEASURE : 2));
            PE_OK(dmsg_darray_free(&B));
            PE_OK(dmsg_darray_free(&A));
        }
    return 0;
}

/* dmsg_plan_get_info's model throughputs are this PE's bytes over the
 * model's time of all its partners, this PE itself included: in a packed
 * execution a partner that cannot pack (oneself) goes direct, at its
 * direct rate. Needs a model (sim). */
static int plan_info_model(void)
{
    dmsg_darray A, B;
    dmsg_assign as;
    PE_TRY(vec_pair(4096, 0, 1, &A, &B, &as));
    dmsg_plan_opts o = {.mech = DMSG_PLAN_PACK};
    dmsg_plan *plan;
    PE_OK(dmsg_plan_create(&as, &o, &plan));
    dmsg_plan_info info;
    PE_OK(dmsg_plan_get_info(plan, &info));
    double bytes = 0, td = 0, tp = 0;
    int self = 0;
    for (int i = 0; i < info.partners_send; i++) {
        dmsg_plan_partner_info pi;
        PE_OK(dmsg_plan_partner(plan, i, &pi));
        PE_CHECK(pi.model_direct_mbs > 0, "partner %d: no model", pi.pe);
        self |= pi.pe == pe_me();
        bytes += (double)pi.bytes;
        td += (double)pi.bytes / pi.model_direct_mbs;
        tp += (double)pi.bytes / (pi.model_pack_mbs > 0 ? pi.model_pack_mbs : pi.model_direct_mbs);
    }
    PE_CHECK(self, "no partner with oneself: the check is void");
    double wd = bytes / td, wp = bytes / tp;
    PE_CHECK(info.model_direct_mbs > 0.999999 * wd && info.model_direct_mbs < 1.000001 * wd,
             "model_direct_mbs %g, partners say %g", info.model_direct_mbs, wd);
    PE_CHECK(info.model_pack_mbs > 0.999999 * wp && info.model_pack_mbs < 1.000001 * wp,
             "model_pack_mbs %g, partners say %g", info.model_pack_mbs, wp);
    PE_OK(dmsg_plan_destroy(plan));
    PE_OK(dmsg_darray_free(&B));
    PE_OK(dmsg_darray_free(&A));
    return 0;
}

/* 2-D BLOCK rows -> transpose: the plan of examples/transpose.c. */
int pe_plan_transpose(struct dmsg_darray *A, struct dmsg_darray *B, struct dmsg_assign *as,
                      size_t n, size_t elem)
{
    int np = pe_n();
    dmsg_darray_desc d = {.ndims = 2,
                          .extent = {n, n},
                          .elem_size = elem,
                          .grid_ndims = 1,
                          .grid = {np},
                          .dist = {DMSG_DIST_NONE, DMSG_DIST_BLOCK}};
    PE_OK(dmsg_darray_init(A, &d));
    PE_OK(dmsg_darray_init(B, &d));
    PE_OK(dmsg_darray_alloc(A));
    PE_OK(dmsg_darray_alloc(B));
    PE_OK(dmsg_assign_init(as, B, A));
    as->perm[0] = 1;
    as->perm[1] = 0;
    return 0;
}

static int plan_transpose_split(void)
{
    dmsg_darray A, B;
    dmsg_assign as;
    size_t n = 8 * (size_t)pe_n();
    PE_TRY(pe_plan_transpose(&A, &B, &as, n, 16));
    PE_TRY(fill(&A, 1, A.base));
    PE_TRY(fill(&B, 2, B.base));
    dmsg_plan *plan;
    PE_OK(dmsg_plan_create(&as, NULL, &plan));
    dmsg_plan_info info;
    PE_OK(dmsg_plan_get_info(plan, &info));
    /* One block per partner, each way; the counts are exact. */
    PE_CHECK(info.partners_send == pe_n(), "partners %d", info.partners_send);
    PE_CHECK(info.recv_msgs == (uint64_t)pe_n() && info.send_msgs == (uint64_t)pe_n(),
             "msgs %llu / %llu", (unsigned long long)info.recv_msgs,
             (unsigned long long)info.send_msgs);
    PE_CHECK(info.recv_bytes == (uint64_t)(n * n / (size_t)pe_n() * 16), "bytes");
    for (int i = 0; i < info.partners_send; i++) {
        dmsg_plan_partner_info pi;
        PE_OK(dmsg_plan_partner(plan, i, &pi));
        PE_CHECK(pi.pe == (pe_me() + i) % pe_n(), "partner %d is PE %d: not staggered", i, pi.pe);
    }
    dmsg_plan_partner_info pi;
    PE_EXPECT(dmsg_plan_partner(plan, info.partners_send, &pi), DMSG_ERR_ARG);
    PE_EXPECT(dmsg_plan_finish(plan), DMSG_ERR_STATE);
    PE_OK(dmsg_plan_start(plan));
    PE_EXPECT(dmsg_plan_start(plan), DMSG_ERR_STATE);
    /* Computation overlapping communication: A is read-only, B is not ours
     * until finish. */
    volatile double sum = 0;
    for (int i = 0; i < 1000; i++)
        sum += i;
    PE_OK(dmsg_plan_finish(plan));
    unsigned char *want = malloc(B.bytes);
    PE_CHECK(want != NULL, "out of memory");
    PE_TRY(expected(&as, want));
    PE_TRY(compare(&as, want, 0, -1));
    free(want);
    PE_OK(dmsg_plan_destroy(plan));
    PE_OK(dmsg_plan_destroy(NULL));
    PE_OK(dmsg_darray_free(&B));
    PE_OK(dmsg_darray_free(&A));
    return 0;
}

/* Every bad argument: the same status on every PE, B unchanged. */
static int plan_errors(void)
{
    dmsg_darray A, B;
    dmsg_assign as, bad;
    size_t n = 4 * (size_t)pe_n();
    PE_TRY(pe_plan_transpose(&A, &B, &as, n, 16));
    PE_TRY(fill(&A, 1, A.base));
    PE_TRY(fill(&B, 2, B.base));
    unsigned char *keep = malloc(B.bytes);
    PE_CHECK(keep != NULL, "out of memory");
    memcpy(keep, B.base, B.bytes);
    dmsg_plan *plan = (dmsg_plan *)&plan; /* must stay as it is */
    dmsg_plan *const sentinel = plan;

    bad = as, bad.dsec.hi[0] = n - 2; /* shapes differ */
    PE_EXPECT(dmsg_plan_create(&bad, NULL, &plan), DMSG_ERR_ARG);
    bad = as, bad.ssec.hi[1] = n, bad.dsec.hi[0] = n; /* outside the arrays */
    PE_EXPECT(dmsg_plan_create(&bad, NULL, &plan), DMSG_ERR_RANGE);
    bad = as, bad.src = &B; /* source and destination share storage */
    PE_EXPECT(dmsg_plan_create(&bad, NULL, &plan), DMSG_ERR_ARG);
    dmsg_plan_opts o = {.mech = 9};
    PE_EXPECT(dmsg_plan_create(&as, &o, &plan), DMSG_ERR_ARG);
    PE_EXPECT(dmsg_plan_create(NULL, NULL, &plan), DMSG_ERR_NULL);
    /* One PE passes a NULL output: every PE gets the error. */
    PE_EXPECT(dmsg_plan_create(&as, NULL, pe_me() == pe_n() - 1 ? NULL : &plan), DMSG_ERR_NULL);
    /* One PE's statement differs: the PEs disagree. */
    if (pe_n() > 1) {
        bad = as;
        if (pe_me() == 1) bad.ssec.lo[0] = 1, bad.ssec.hi[0] = n - 1, bad.dsec.lo[1] = 1;
        PE_EXPECT(dmsg_plan_create(&bad, NULL, &plan), DMSG_ERR_COLLECTIVE);
        /* One PE has a bad section: its error wins everywhere. */
        bad = as;
        if (pe_me() == 0) bad.dsec.step[0] = 0;
        PE_EXPECT(dmsg_plan_create(&bad, NULL, &plan), DMSG_ERR_ARG);
    }
    /* An array without storage. */
    dmsg_darray C = B;
    C.base = NULL;
    bad = as, bad.dst = &C;
    PE_EXPECT(dmsg_plan_create(&bad, NULL, &plan), DMSG_ERR_ARG);
    PE_CHECK(plan == sentinel, "failed plan_create wrote its output");
    PE_OK(dmsg_sync());
    PE_CHECK(memcmp(keep, B.base, B.bytes) == 0, "a failed plan_create changed B");
    PE_EXPECT(dmsg_plan_execute(NULL), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_plan_start(NULL), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_plan_finish(NULL), DMSG_ERR_NULL);
    PE_EXPECT(dmsg_plan_get_info(NULL, NULL), DMSG_ERR_NULL);
    /* darray storage errors. */
    PE_EXPECT(dmsg_darray_alloc(&A), DMSG_ERR_ARG); /* already has storage */
    PE_EXPECT(dmsg_darray_attach(&A, A.base, A.bytes), DMSG_ERR_ARG);
    dmsg_darray D = A;
    D.base = NULL;
    int local = 0;
    PE_EXPECT(dmsg_darray_attach(&D, &local, sizeof local), DMSG_ERR_RANGE);
    PE_EXPECT(dmsg_darray_attach(&D, A.base, A.bytes - 1), DMSG_ERR_RANGE);
    PE_OK(dmsg_darray_attach(&D, A.base, A.bytes));
    PE_CHECK(D.base == A.base, "attach");
    free(keep);
    PE_OK(dmsg_darray_free(&B));
    PE_OK(dmsg_darray_free(&A));
    return 0;
}

/* ---- the model's choice against the simulator's clock */

/* One statement of the model corpus: 1-D or 2-D arrays of doubles. */
typedef struct corpus_stmt {
    const char *name;
    dmsg_darray_desc a, b;
    int transpose;
    size_t dlo, dhi, slo, shi; /* dimension 0 sections (hi 0: whole) */
    ptrdiff_t dstep, sstep;
} corpus_stmt;

/* A partner's periodic pieces as one pass (dmsg/plan/group.c): every
 * BLOCK/CYCLIC pair at odd sizes, each section variant in turn, direct and
 * packed alternately, gives the serial result; and CYCLIC(2) -> CYCLIC(3)
 * of 20011 elements on 2 PEs deposits once per partner direct (and once
 * more for a cut piece), fewer than its pieces. */
static int plan_periodic_group(void)
{
    static const size_t ks[] = {0, 1, 2, 3, 5, 16};
    static const size_t sizes[] = {1001, 20011};
    const char *tp = dmsg_transport_name();
    int np = pe_n(), step = strcmp(tp, "ofi") == 0 ? 7 : 1; /* ofi: fewer (barriers are slow) */
    uint64_t tag = 0;
    for (size_t x = 0; x < 6; x++)
        for (size_t y = 0; y < 6; y++, tag++) {
            if (tag % (uint64_t)step != 0) continue;
            size_t n = sizes[tag % 2];
            int v = (int)(tag / 2 % 4), mech = tag % 3 == 0 ? DMSG_PLAN_PACK : DMSG_PLAN_DIRECT;
            dmsg_darray A, B;
            dmsg_assign as;
            PE_TRY(vec_pair(n, ks[x], ks[y], &A, &B, &as));
            size_t m;
            switch (v) {
            case 1: /* B(2:n-1) = A(0:n-3) */
                as.dsec.lo[0] = 2;
                as.ssec.hi[0] = n - 3;
                break;
            case 2: /* B(1:m) = A(n-1:..:-2) */
                m = n / 2;
                as.ssec.lo[0] = n - 1;
                as.ssec.hi[0] = n - 1 - 2 * (m - 1);
                as.ssec.step[0] = -2;
                as.dsec.lo[0] = 1;
                as.dsec.hi[0] = m;
                break;
            case 3: /* B(n-1:..:-3) = A(0:3m-3:3) */
                m = (n + 2) / 3;
                as.ssec.step[0] = 3;
                as.ssec.hi[0] = 3 * (m - 1);
                as.dsec.lo[0] = n - 1;
                as.dsec.hi[0] = n - 1 - 3 * (m - 1);
                as.dsec.step[0] = -3;
                break;
            default:
                break;
            }
            PE_TRY(run_assign(&as, tag, mech, 2));
            PE_OK(dmsg_darray_free(&B));
            PE_OK(dmsg_darray_free(&A));
        }
    /* One deposit per partner for the periodic pair. */
    dmsg_darray A, B;
    dmsg_assign as;
    PE_TRY(vec_pair(20011, 2, 3, &A, &B, &as));
    dmsg_plan_opts opts = {.mech = DMSG_PLAN_DIRECT};
    dmsg_plan *plan = NULL;
    PE_OK(dmsg_plan_create(&as, &opts, &plan));
    PE_OK(dmsg_plan_execute(plan));
    dmsg_plan_info info;
    PE_OK(dmsg_plan_get_info(plan, &info));
    /* On 2 PEs each pair has two pieces per period (and PE 1 a cut one to
     * PE 0): one deposit for the two. */
    PE_CHECK(info.send_msgs <= info.pieces && info.send_msgs >= (uint64_t)info.partners_send &&
                 (np != 2 || info.send_msgs == (uint64_t)(2 + (dmsg_pe() == 1))),
             "%d PEs: %llu deposits for %llu pieces to %d partners", np,
             (unsigned long long)info.send_msgs, (unsigned long long)info.pieces,
             info.partners_send);
    PE_TRY(pe_plan_verify(plan, &as));
    PE_OK(dmsg_plan_destroy(plan));
    PE_OK(dmsg_darray_free(&B));
    PE_OK(dmsg_darray_free(&A));
    return 0;
}

/* Shares (dmsg/plan/share.c): CYCLIC(2) -> CYCLIC(3) and CYCLIC(16) ->
 * CYCLIC(5) of a multiple of every period on 1-8 PEs, direct. On shm with
 * 2 PEs or more each PE moves a share of every pair and notes every PE
 * (send_msgs and recv_msgs: the PEs). Each PE overwrites its source as
 * soon as its finish returns, while others may still be in theirs: the
 * destinations must still hold the old source (a finish returns only after
 * every PE's note, so nobody reads a source after its owner's finish). Two
 * executions, the destination refilled before the second. */
static int plan_periodic_shares(void)
{
    static const size_t pairs[][2] = {{2, 3}, {16, 5}};
    size_t n = 201600 * 6; /* 240 P for every P in 1-8 divides it */
    int np = pe_n(), shm = strcmp(dmsg_transport_name(), "shm") == 0;
    for (size_t i = 0; i < 2; i++) {
        dmsg_darray A, B;
        dmsg_assign as;
        PE_TRY(vec_pair(n, pairs[i][0], pairs[i][1], &A, &B, &as));
        unsigned char *want = malloc(B.bytes);
        PE_CHECK(want != NULL, "out of memory");
        dmsg_plan_opts opts = {.mech = DMSG_PLAN_DIRECT};
        dmsg_plan *plan = NULL;
        PE_OK(dmsg_plan_create(&as, &opts, &plan));
        dmsg_plan_info info;
        PE_OK(dmsg_plan_get_info(plan, &info));
        if (shm && np > 1)
            PE_CHECK(info.send_msgs == (uint64_t)np && info.recv_msgs == (uint64_t)np,
                     "CYCLIC(%zu) -> CYCLIC(%zu) on %d PEs: %llu sends, %llu receipts, want the "
                     "notes of shares", pairs[i][0], pairs[i][1], np,
                     (unsigned long long)info.send_msgs, (unsigned long long)info.recv_msgs);
        PE_TRY(expected(&as, want));
        for (int r = 0; r < 2; r++) {
            PE_OK(dmsg_sync()); /* nobody reads A or writes B while they are refilled */
            PE_TRY(fill(&A, 1, A.base));
            PE_TRY(fill(&B, 2, B.base));
            PE_OK(dmsg_plan_execute(plan));
            memset(A.base, 0x5a, A.bytes); /* mine again */
            PE_OK(dmsg_sync());
            PE_TRY(compare(&as, want, 300 + i, DMSG_PLAN_DIRECT));
        }
        PE_OK(dmsg_plan_destroy(plan));
        free(want);
        PE_OK(dmsg_darray_free(&B));
        PE_OK(dmsg_darray_free(&A));
    }
    return 0;
}

/* Periodic pairs large enough that a plan's direct groups move in slices
 * on shm (plan.c: 256 KiB of the source each, so 1M doubles make 4-16 per
 * partner on 2-8 PEs), with lone pieces of short runs as groups (CYCLIC(2)
 * -> CYCLIC(3) on 4 and 8 PEs): whole and shifted sections, direct, packed
 * (oneself still direct) and measured, two executions each with the
 * destination refilled before the second, give the serial result. */
static int plan_periodic_slices(void)
{
    static const size_t pairs[][2] = {{2, 3}, {16, 5}, {3, 1}, {0, 3}};
    static const int mech_of[] = {DMSG_PLAN_DIRECT, DMSG_PLAN_PACK, DMSG_PLAN_MEASURE};
    size_t n = (1u << 20) + 7;
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        for (int shift = 0; shift < 2; shift++) {
            dmsg_darray A, B;
            dmsg_assign as;
            PE_TRY(vec_pair(n, pairs[i][0], pairs[i][1], &A, &B, &as));
            if (shift) { /* B(5:n-1) = A(0:n-6) */
                as.dsec.lo[0] = 5;
                as.ssec.hi[0] = n - 6;
            }
            int mech = mech_of[(i + (size_t)shift) % 3];
            PE_TRY(run_assign(&as, 100 + 2 * i + (size_t)shift, mech, mech == DMSG_PLAN_MEASURE ? 4 : 2));
            PE_OK(dmsg_darray_free(&B));
            PE_OK(dmsg_darray_free(&A));
        }
    return 0;
}

static dmsg_darray_desc vec(size_t n, int dist, size_t k, int np)
{
    return (dmsg_darray_desc){.ndims = 1,
                              .extent = {n},
                              .elem_size = 8,
                              .grid_ndims = 1,
                              .grid = {np},
                              .dist = {dist},
                              .block = {k}};
}

static dmsg_darray_desc mat(size_t n0, size_t n1, int d0, size_t k0, int d1, size_t k1, int np)
{
    int g0 = np >= 4 ? 2 : 1, g1 = np >= 4 ? np / 2 : np;
    return (dmsg_darray_desc){.ndims = 2,
                              .extent = {n0, n1},
                              .elem_size = 8,
                              .grid_ndims = 2,
                              .grid = {g0, g1},
                              .dist = {d0, d1},
                              .block = {k0, k1},
                              .onto = {0, 1}};
}

/* Virtual seconds of one execution, barrier to barrier (the same on every PE). */
static int time_once(dmsg_plan *plan, double *t)
{
    PE_OK(dmsg_sync());
    double t0 = dmsg_wtime();
    PE_OK(dmsg_plan_execute(plan));
    PE_OK(dmsg_sync());
    *t = dmsg_wtime() - t0;
    return 0;
}

/* On sim: for every statement of the corpus, the plan the model chose is as
 * fast as the faster of all-direct and all-packed, measured by the
 * simulator; and the corpus has statements where the two differ. */
static int plan_model_sim(void)
{
    int np = pe_n();
    PE_CHECK(strcmp(dmsg_transport_name(), "sim") == 0, "run on the sim transport");
    size_t n = 64 * (size_t)np;
    corpus_stmt cs[] = {
        {"transpose", mat(n, n, DMSG_DIST_NONE, 0, DMSG_DIST_BLOCK, 0, np),
         mat(n, n, DMSG_DIST_NONE, 0, DMSG_DIST_BLOCK, 0, np), 1, 0, 0, 0, 0, 1, 1},
        {"block-cyclic1", vec(64 * n, DMSG_DIST_BLOCK, 0, np), vec(64 * n, DMSG_DIST_CYCLIC, 1, np),
         0, 0, 0, 0, 0, 1, 1},
        {"block-cyclic16", vec(64 * n, DMSG_DIST_BLOCK, 0, np),
         vec(64 * n, DMSG_DIST_CYCLIC, 16, np), 0, 0, 0, 0, 0, 1, 1},
        {"cyclic3-cyclic5", vec(48 * n, DMSG_DIST_CYCLIC, 3, np),
         vec(48 * n, DMSG_DIST_CYCLIC, 5, np), 0, 0, 0, 0, 0, 1, 1},
        {"strided", vec(64 * n, DMSG_DIST_BLOCK, 0, np), vec(32 * n, DMSG_DIST_BLOCK, 0, np), 0, 0,
         32 * n - 1, 0, 64 * n - 2, 1, 2},
        {"shift", vec(64 * n, DMSG_DIST_BLOCK, 0, np), vec(64 * n, DMSG_DIST_BLOCK, 0, np), 0, 1,
         64 * n - 1, 0, 64 * n - 2, 1, 1},
        {"2d-redist", mat(n, 96, DMSG_DIST_BLOCK, 0, DMSG_DIST_CYCLIC, 2, np),
         mat(n, 96, DMSG_DIST_CYCLIC, 3, DMSG_DIST_BLOCK, 0, np), 0, 0, 0, 0, 0, 1, 1},
    };
    int differ = 0;
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        dmsg_darray A, B;
        PE_OK(dmsg_darray_init(&A, &cs[i].a));
        PE_OK(dmsg_darray_init(&B, &cs[i].b));
        PE_OK(dmsg_darray_alloc(&A));
        PE_OK(dmsg_darray_alloc(&B));
        dmsg_assign as;
        PE_OK(dmsg_assign_init(&as, &B, &A));
        if (cs[i].transpose) as.perm[0] = 1, as.perm[1] = 0;
        if (cs[i].dhi) {
            as.dsec.lo[0] = cs[i].dlo, as.dsec.hi[0] = cs[i].dhi, as.dsec.step[0] = cs[i].dstep;
            as.ssec.lo[0] = cs[i].slo, as.ssec.hi[0] = cs[i].shi, as.ssec.step[0] = cs[i].sstep;
        }
        double t[3];
        static const int mech[3] = {DMSG_PLAN_DIRECT, DMSG_PLAN_PACK, DMSG_PLAN_MODEL};
        dmsg_plan_info info;
        for (int k = 0; k < 3; k++) {
            dmsg_plan_opts o = {.mech = mech[k]};
            dmsg_plan *plan;
            PE_OK(dmsg_plan_create(&as, &o, &plan));
            PE_TRY(time_once(plan, &t[k]));
            if (k == 2) PE_OK(dmsg_plan_get_info(plan, &info));
            PE_OK(dmsg_plan_destroy(plan));
        }
        double best = t[0] < t[1] ? t[0] : t[1];
        PE_CHECK(info.machine[0] != '\0', "%s: the plan has no model", cs[i].name);
        PE_CHECK(t[2] <= best * 1.001,
                 "%s on %s: the model's plan took %.3g s (packs %d of %d "
                 "partners; model direct %.1f, packed %.1f MB/s), direct %.3g s, packed %.3g s",
                 cs[i].name, info.machine, t[2], info.partners_packed, info.partners_send,
                 info.model_direct_mbs, info.model_pack_mbs, t[0], t[1]);
        differ += t[0] > 1.05 * t[1] || t[1] > 1.05 * t[0];
        if (getenv("PLAN_MODEL_VERBOSE") && pe_me() == 0)
            printf("%-16s %s: direct %.3g s, packed %.3g s, model %.3g s (packs %d of %d)\n",
                   cs[i].name, info.machine, t[0], t[1], t[2], info.partners_packed,
                   info.partners_send);
        PE_OK(dmsg_darray_free(&B));
        PE_OK(dmsg_darray_free(&A));
    }
    PE_CHECK(np == 1 || differ > 0, "no statement where the mechanisms differ: the check is void");
    return 0;
}

/* A destroyed plan's handle: every use returns DMSG_ERR_HANDLE (no use
 * after free), a second destroy too, on every PE alike. */
static int plan_stale(void)
{
    dmsg_darray A, B;
    dmsg_assign as;
    PE_TRY(pe_plan_transpose(&A, &B, &as, 4 * (size_t)pe_n(), 8));
    dmsg_plan_opts o = {.mech = DMSG_PLAN_PACK};
    dmsg_plan *plan, *again;
    PE_OK(dmsg_plan_create(&as, &o, &plan));
    PE_TRY(pe_plan_verify(plan, &as));
    PE_OK(dmsg_plan_destroy(plan));
    dmsg_plan_info info;
    dmsg_plan_partner_info pi;
    PE_EXPECT(dmsg_plan_execute(plan), DMSG_ERR_HANDLE);
    PE_EXPECT(dmsg_plan_start(plan), DMSG_ERR_HANDLE);
    PE_EXPECT(dmsg_plan_finish(plan), DMSG_ERR_HANDLE);
    PE_EXPECT(dmsg_plan_get_info(plan, &info), DMSG_ERR_HANDLE);
    PE_EXPECT(dmsg_plan_partner(plan, 0, &pi), DMSG_ERR_HANDLE);
    PE_EXPECT(dmsg_plan_destroy(plan), DMSG_ERR_HANDLE);
    /* A new plan does not revive the old handle. */
    PE_OK(dmsg_plan_create(&as, &o, &again));
    PE_CHECK(again != plan, "a new plan got a destroyed plan's handle");
    PE_EXPECT(dmsg_plan_execute(plan), DMSG_ERR_HANDLE);
    PE_TRY(pe_plan_verify(again, &as));
    PE_OK(dmsg_plan_destroy(again));
    PE_OK(dmsg_darray_free(&B));
    PE_OK(dmsg_darray_free(&A));
    return 0;
}

/* More plans alive at once than DMSG_MAX_COUNTERS (256 by default): they
 * share one counter, also when their executions overlap (two started,
 * finished in either order). */
static int plan_many(void)
{
    enum { PLANS = 300 };
    dmsg_darray A, B, C, D;
    dmsg_assign ab, cd;
    size_t n = 4 * (size_t)pe_n();
    PE_TRY(pe_plan_transpose(&A, &B, &ab, n, 8));
    PE_TRY(pe_plan_transpose(&C, &D, &cd, n, 16));
    dmsg_plan **pl = malloc(PLANS * sizeof *pl);
    unsigned char *want_b = malloc(B.bytes), *want_d = malloc(D.bytes);
    PE_CHECK(pl != NULL && want_b != NULL && want_d != NULL, "out of memory");
    for (int k = 0; k < PLANS; k++) {
        dmsg_plan_opts o = {.mech = k % 2 ? DMSG_PLAN_PACK : DMSG_PLAN_DIRECT};
        PE_OK(dmsg_plan_create(k % 3 ? &ab : &cd, &o, &pl[k]));
    }
    for (int k = 0; k < PLANS; k += 37)
        PE_TRY(pe_plan_verify(pl[k], k % 3 ? &ab : &cd));
    PE_TRY(pe_plan_verify(pl[PLANS - 1], (PLANS - 1) % 3 ? &ab : &cd));
    for (int order = 0; order < 2; order++) {
        dmsg_plan *p = pl[1], *q = pl[3]; /* A to B packed, C to D packed */
        PE_OK(dmsg_sync());
        PE_TRY(fill(&A, 1, A.base));
        PE_TRY(fill(&B, 2, B.base));
        PE_TRY(fill(&C, 1, C.base));
        PE_TRY(fill(&D, 2, D.base));
        PE_OK(dmsg_plan_start(p));
        PE_OK(dmsg_plan_start(q));
        PE_OK(dmsg_plan_finish(order ? q : p));
        PE_OK(dmsg_plan_finish(order ? p : q));
        PE_TRY(expected(&ab, want_b));
        PE_TRY(expected(&cd, want_d));
        PE_TRY(compare(&ab, want_b, (uint64_t)order, DMSG_PLAN_PACK));
        PE_TRY(compare(&cd, want_d, (uint64_t)order, DMSG_PLAN_PACK));
    }
    for (int k = 0; k < PLANS; k++)
        PE_OK(dmsg_plan_destroy(pl[k]));
    /* All gone: counters are free again for the user. */
    dmsg_ctr c;
    PE_OK(dmsg_ctr_create(&c));
    PE_OK(dmsg_ctr_destroy(c));
    free(want_d);
    free(want_b);
    free(pl);
    PE_OK(dmsg_darray_free(&D));
    PE_OK(dmsg_darray_free(&C));
    PE_OK(dmsg_darray_free(&B));
    PE_OK(dmsg_darray_free(&A));
    return 0;
}

/* A bad dmsg_darray_alloc on some PEs only: every PE returns the same
 * status (the lowest ranked failing PE's), and nothing is allocated. */
static int darray_alloc_agree(void)
{
    dmsg_darray A, B, C;
    dmsg_assign as;
    PE_TRY(pe_plan_transpose(&A, &B, &as, 4 * (size_t)pe_n(), 8));
    C = A;
    C.base = NULL;
    /* The last PE passes an array that has storage. */
    PE_EXPECT(dmsg_darray_alloc(pe_me() == pe_n() - 1 ? &A : &C), DMSG_ERR_ARG);
    PE_CHECK(C.base == NULL, "a failed alloc set base");
    /* PE 0 passes NULL, the last PE an array with storage: PE 0's error wins. */
    PE_EXPECT(dmsg_darray_alloc(pe_me() == 0 ? NULL : pe_me() == pe_n() - 1 ? &A : &C),
              DMSG_ERR_NULL);
    /* A grid larger than the job on one PE. */
    dmsg_darray_desc d = A.desc;
    d.grid[0] = pe_me() == pe_n() - 1 ? pe_n() + 1 : pe_n();
    dmsg_darray E;
    PE_OK(dmsg_darray_init(&E, &d));
    PE_EXPECT(dmsg_darray_alloc(&E), DMSG_ERR_PE);
    PE_CHECK(E.base == NULL, "a failed alloc set base");
    /* The PEs are still in step: a good call works. */
    PE_OK(dmsg_darray_alloc(&C));
    PE_OK(dmsg_darray_free(&C));
    PE_OK(dmsg_darray_free(&B));
    PE_OK(dmsg_darray_free(&A));
    return 0;
}

const pe_case pe_plan_cases[] = {
    {"plan_stale", plan_stale, 0},
    {"plan_many", plan_many, 0},
    {"darray_alloc_agree", darray_alloc_agree, 0},
    {"plan_random", plan_random, 0},
    {"plan_random_small", plan_random_small, 0},
    {"plan_periodic", plan_periodic, 0},
    {"plan_periodic_group", plan_periodic_group, 0},
    {"plan_periodic_slices", plan_periodic_slices, 0},
    {"plan_periodic_shares", plan_periodic_shares, 0},
    {"plan_info_model", plan_info_model, 0},
    {"plan_transpose_split", plan_transpose_split, 0},
    {"plan_errors", plan_errors, 0},
    {"plan_model_sim", plan_model_sim, 0},
    {NULL, NULL, 0},
};
