/* Prints a random description for dmsg-gen: the statements of the plan
 * property tests (tests/plan_rand.h) written in the description language,
 * so that generated code is checked on the same random distributions,
 * sections, strides and permutations as the plan API.
 *
 *   randgen SEED NPES > file.dgen */
#include <stdio.h>
#include <stdlib.h>
#include "tests/plan_rand.h"

static const char *type_of(size_t e)
{
    switch (e) {
    case 1:
        return "int8";
    case 2:
        return "int16";
    case 4:
        return "int32";
    case 16:
        return "complex";
    default:
        return "double";
    }
}

static void array(const char *name, const char *grid, const dmsg_darray_desc *d)
{
    printf("array %s(", name);
    for (int k = 0; k < d->ndims; k++)
        printf("%s%zu", k ? ", " : "", d->extent[k]);
    printf(") %s dist(", type_of(d->elem_size));
    for (int k = 0; k < d->ndims; k++) {
        printf("%s", k ? ", " : "");
        if (d->dist[k] == DMSG_DIST_NONE)
            printf("*");
        else if (d->dist[k] == DMSG_DIST_BLOCK)
            printf("block@%d", d->onto[k]);
        else if (d->block[k])
            printf("cyclic(%zu)@%d", d->block[k], d->onto[k]);
        else
            printf("cyclic@%d", d->onto[k]);
    }
    printf(") onto %s halo(", grid);
    for (int k = 0; k < d->ndims; k++)
        printf("%s%zu:%zu", k ? ", " : "", d->halo_lo[k], d->halo_hi[k]);
    printf(") pad(");
    for (int k = 0; k < d->ndims; k++)
        printf("%s%zu", k ? ", " : "", d->pad[k]);
    printf(")\n");
}

/* Subscripts: triplets for matched dimensions, single indices otherwise;
 * the matched dimensions in order go to trip[]. */
static int subscripts(const dmsg_darray_desc *d, const dmsg_section *s, const int *matched,
                      int *trip)
{
    int n = 0;
    printf("(");
    for (int k = 0; k < d->ndims; k++) {
        printf("%s", k ? ", " : "");
        if (matched[k]) {
            printf("%zu:%zu:%td", s->lo[k], s->hi[k], s->step[k]);
            trip[n++] = k;
        } else {
            printf("%zu", s->lo[k]);
        }
    }
    printf(")");
    return n;
}

int main(int argc, char **argv)
{
    if (argc != 3) return 2;
    uint64_t seed = strtoull(argv[1], NULL, 10);
    int npes = atoi(argv[2]);
    dmsg_darray_desc da, db;
    dmsg_assign as;
    prand_statement(seed, npes, 12, &da, &db, &as);
    printf("# random statement, seed %llu\npes %d\n", (unsigned long long)seed, npes);
    printf("grid GA(%d, %d)\ngrid GB(%d, %d)\n", da.grid[0], da.grid_ndims > 1 ? da.grid[1] : 1,
           db.grid[0], db.grid_ndims > 1 ? db.grid[1] : 1);
    array("A", "GA", &da);
    array("B", "GB", &db);
    int mb[DMSG_MAX_DIMS] = {0}, ma[DMSG_MAX_DIMS] = {0}, tb[DMSG_MAX_DIMS], ta[DMSG_MAX_DIMS];
    for (int k = 0; k < db.ndims; k++)
        if (as.perm[k] >= 0) mb[k] = 1, ma[as.perm[k]] = 1;
    printf("B");
    int n = subscripts(&db, &as.dsec, mb, tb);
    printf(" = A");
    subscripts(&da, &as.ssec, ma, ta);
    /* perm: for each destination range, the position of its source range. */
    printf(" perm(");
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (ta[j] == as.perm[tb[i]]) printf("%s%d", i ? ", " : "", j);
    printf(")\n");
    return 0;
}
