/* The model's choice on sim for every statement of dmsg-gen's test corpus
 * (the .dgen files of tests/gen), built through the plan API: each statement's plan
 * with the model's choice is as fast as the faster of all-direct and
 * all-packed, by the simulator's clock. The statements are those of the
 * description files, written out here as descriptors (keep them in step:
 * file and label are named with each). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dmsg_plan.h"
#include "pe.h"

typedef struct gen_stmt {
    const char *where; /* file: label */
    int b, a;          /* destination and source: indices into the arrays */
    dmsg_section dsec, ssec;
    int perm[DMSG_MAX_DIMS];
} gen_stmt;

#define DESC(nd, ext, es, gnd, grd, dst, blk, ont, ...)                                            \
    {                                                                                              \
        .ndims = nd, .extent = ext, .elem_size = es, .grid_ndims = gnd, .grid = grd, .dist = dst,  \
        .block = blk, .onto = ont, __VA_ARGS__                                                     \
    }
#define L(...)                                                                                     \
    {                                                                                              \
        __VA_ARGS__                                                                                \
    }
enum { BK = DMSG_DIST_BLOCK, CY = DMSG_DIST_CYCLIC, NO = DMSG_DIST_NONE };

static const dmsg_darray_desc arrays[] = {
    /* bytes.dgen: grid P(8), Q(4, 2) */
    /* 0 C */ DESC(2, L(64, 48), 1, 1, L(8), L(BK, NO), L(0, 0), L(0, 0)),
    /* 1 D */ DESC(2, L(64, 48), 1, 2, L(4, 2), L(CY, BK), L(5, 0), L(0, 1)),
    /* redist.dgen: grid L(4), G(2, 2) */
    /* 2 V */ DESC(1, L(1000), 4, 1, L(4), L(BK), L(0), L(0)),
    /* 3 W */ DESC(1, L(1000), 4, 1, L(4), L(CY), L(7), L(0)),
    /* 4 M */ DESC(2, L(40, 30), 4, 2, L(2, 2), L(BK, CY), L(0, 3), L(0, 1)),
    /* 5 N */ DESC(2, L(40, 30), 4, 2, L(2, 2), L(CY, BK), L(2, 0), L(0, 1)),
    /* sections.dgen: grid G(2, 3) */
    /* 6 A */
    DESC(3, L(20, 12, 6), 2, 2, L(2, 3), L(BK, NO, CY), L(0, 0, 2), L(1, 0, 0),
         .halo_lo = L(1, 0, 1), .halo_hi = L(1, 2, 1), .pad = L(1, 0, 0)),
    /* 7 B */ DESC(3, L(6, 20, 12), 2, 2, L(2, 3), L(CY, BK, NO), L(0, 7, 0), L(0, 1, 0)),
    /* 8 R */ DESC(1, L(17), 8, 2, L(2, 3), L(CY), L(3), L(0)),
    /* 9 S */ DESC(2, L(12, 5), 8, 2, L(2, 3), L(NO, BK), L(0, 0), L(0, 0)),
    /* shift.dgen: grid P(3) */
    /* 10 X */ DESC(1, L(100), 8, 1, L(3), L(BK), L(0), L(0)),
    /* 11 Y */ DESC(1, L(100), 8, 1, L(3), L(BK), L(0), L(0)),
    /* transpose.dgen: grid P(4) */
    /* 12 A */ DESC(2, L(64, 64), 16, 1, L(4), L(NO, BK), L(0, 0), L(0, 0)),
    /* 13 B */ DESC(2, L(64, 64), 16, 1, L(4), L(NO, BK), L(0, 0), L(0, 0)),
};
#define NARR (sizeof arrays / sizeof arrays[0])

/* Sections: lo, hi, step per dimension. */
#define SEC(l, h, s)                                                                               \
    {                                                                                              \
        .lo = l, .hi = h, .step = s                                                                \
    }

static const gen_stmt stmts[] = {
    {"bytes.dgen: s1 D = C", 1, 0, SEC(L(0, 0), L(63, 47), L(1, 1)),
     SEC(L(0, 0), L(63, 47), L(1, 1)), L(0, 1)},
    {"bytes.dgen: s2 C(0:63, 0:47:2) = D(0:63, 0:47:2)", 0, 1, SEC(L(0, 0), L(63, 46), L(1, 2)),
     SEC(L(0, 0), L(63, 46), L(1, 2)), L(0, 1)},
    {"redist.dgen: to_cyclic W = V", 3, 2, SEC(L(0), L(999), L(1)), SEC(L(0), L(999), L(1)), L(0)},
    {"redist.dgen: to_block V = W", 2, 3, SEC(L(0), L(999), L(1)), SEC(L(0), L(999), L(1)), L(0)},
    {"redist.dgen: m2n N = M", 5, 4, SEC(L(0, 0), L(39, 29), L(1, 1)),
     SEC(L(0, 0), L(39, 29), L(1, 1)), L(0, 1)},
    {"sections.dgen: permuted B(:, ::-1, 0:11) = A(:, :, :) perm(2, 0, 1)", 7, 6,
     SEC(L(0, 19, 0), L(5, 0, 11), L(1, -1, 1)), SEC(L(0, 0, 0), L(19, 11, 5), L(1, 1, 1)),
     L(2, 0, 1)},
    {"sections.dgen: strided B(0:5:5, 1:16:3, 4) = A(19:0:-10, 1:11:2, 3)", 7, 6,
     SEC(L(0, 1, 4), L(5, 16, 4), L(5, 3, 1)), SEC(L(19, 1, 3), L(0, 11, 3), L(-10, 2, 1)),
     L(0, 1, -1)},
    {"sections.dgen: column S(0:11:2, 3) = R(16:0:-3)", 9, 8, SEC(L(0, 3), L(11, 3), L(2, 1)),
     SEC(L(16), L(0), L(-3)), L(0, -1)},
    {"shift.dgen: right Y(1:99) = X(0:98)", 11, 10, SEC(L(1), L(99), L(1)), SEC(L(0), L(98), L(1)),
     L(0)},
    {"shift.dgen: left X(0:97) = Y(2:99)", 10, 11, SEC(L(0), L(97), L(1)), SEC(L(2), L(99), L(1)),
     L(0)},
    {"transpose.dgen: t B = transpose(A)", 13, 12, SEC(L(0, 0), L(63, 63), L(1, 1)),
     SEC(L(0, 0), L(63, 63), L(1, 1)), L(1, 0)},
};

/* Virtual seconds of one execution, barrier to barrier (the same on every PE). */
static int time_plan(const dmsg_assign *as, int mech, double *t, dmsg_plan_info *info)
{
    dmsg_plan_opts o = {.mech = mech};
    dmsg_plan *plan;
    PE_OK(dmsg_plan_create(as, &o, &plan));
    PE_OK(dmsg_sync());
    double t0 = dmsg_wtime();
    PE_OK(dmsg_plan_execute(plan));
    PE_OK(dmsg_sync());
    *t = dmsg_wtime() - t0;
    PE_OK(dmsg_plan_get_info(plan, info));
    PE_OK(dmsg_plan_destroy(plan));
    return 0;
}

static int plan_model_gen_corpus(void)
{
    PE_CHECK(strcmp(dmsg_transport_name(), "sim") == 0, "run on the sim transport");
    PE_CHECK(pe_n() >= 8, "the corpus has a grid of 8 PEs");
    dmsg_darray arr[NARR];
    for (size_t i = 0; i < NARR; i++) {
        PE_OK(dmsg_darray_init(&arr[i], &arrays[i]));
        PE_OK(dmsg_darray_alloc(&arr[i]));
    }
    for (size_t s = 0; s < sizeof stmts / sizeof stmts[0]; s++) {
        const gen_stmt *g = &stmts[s];
        dmsg_assign as = {.dst = &arr[g->b], .dsec = g->dsec, .src = &arr[g->a], .ssec = g->ssec};
        for (int d = 0; d < DMSG_MAX_DIMS; d++)
            as.perm[d] = d < arr[g->b].desc.ndims ? g->perm[d] : -1;
        PE_OK(dmsg_assign_check(&as, pe_n()));
        static const int mech[3] = {DMSG_PLAN_DIRECT, DMSG_PLAN_PACK, DMSG_PLAN_MODEL};
        double t[3];
        dmsg_plan_info info[3];
        for (int k = 0; k < 3; k++)
            PE_TRY(time_plan(&as, mech[k], &t[k], &info[k]));
        double best = t[0] < t[1] ? t[0] : t[1];
        if (getenv("PLAN_MODEL_VERBOSE") && pe_me() == 0)
            printf("%-64s %s: direct %.3g s, packed %.3g s, model %.3g s\n", g->where,
                   info[2].machine, t[0], t[1], t[2]);
        PE_CHECK(info[2].machine[0] != '\0', "%s: no model", g->where);
        PE_CHECK(t[2] <= best * 1.001,
                 "%s on %s: the model's plan took %.3g s (packs %d of %d partners), direct "
                 "%.3g s, packed %.3g s",
                 g->where, info[2].machine, t[2], info[2].partners_packed, info[2].partners_send,
                 t[0], t[1]);
    }
    for (size_t i = NARR; i-- > 0;)
        PE_OK(dmsg_darray_free(&arr[i]));
    return 0;
}

const pe_case pe_corpus_cases[] = {
    {"plan_model_gen_corpus", plan_model_gen_corpus, 0},
    {NULL, NULL, 0},
};
