/* dmsg-gen's checks of a parsed description: new names, the grid
 * dimensions of an array, its layout, the matched ranges of a statement and
 * the job size; each error names the place the user wrote. */
#include <stdio.h>
#include <string.h>
#include "tools/dmsg-gen/gen.h"

static const char *const reserved[] = {"pes", "grid", "array",     "dist",  "onto",   "halo",
                                       "pad", "perm", "transpose", "block", "cyclic", NULL};

void gen_check_new_name(lexer *lx, const input *in, const char *name, int line, int col)
{
    for (int i = 0; reserved[i] != NULL; i++)
        if (strcmp(name, reserved[i]) == 0) fail_at(lx, line, col, "'%s' is a keyword", name);
    if (gen_find_grid(in, name) >= 0 || gen_find_array(in, name) >= 0)
        fail_at(lx, line, col, "'%s' is already declared", name);
}

void gen_check_onto(lexer *lx, array *a, const grid *gr, const int *at, const int *atcol, int nd)
{
    /* Distributed dimensions take the grid dimensions in order, unless @g. */
    int nextg = 0;
    unsigned used = 0;
    for (int d = 0; d < nd; d++) {
        if (a->desc.dist[d] == DMSG_DIST_NONE) continue;
        int gd = at[d] >= 0 ? at[d] : nextg++;
        if (gd >= gr->ndims)
            fail_at(lx, a->line, atcol[d], "no grid dimension %d in %s (%d dimensions)", gd,
                    gr->name, gr->ndims);
        if (used & (1u << gd))
            fail_at(lx, a->line, atcol[d], "grid dimension %d of %s used twice", gd, gr->name);
        used |= 1u << gd;
        a->desc.onto[d] = gd;
    }
}

void gen_check_layout(lexer *lx, array *a)
{
    if (dmsg_darray_init(&a->da, &a->desc) != DMSG_OK)
        fail_at(lx, a->line, a->col, "array %s: a BLOCK(k) too small for its extent, or too large",
                a->name);
}

size_t gen_sec_count_1(size_t lo, size_t hi, ptrdiff_t st)
{
    if (st > 0) return hi < lo ? 0 : (hi - lo) / (size_t)st + 1;
    return lo < hi ? 0 : (lo - hi) / (size_t)(-st) + 1;
}

size_t gen_sec_count(const dmsg_section *s, int k)
{
    return gen_sec_count_1(s->lo[k], s->hi[k], s->step[k]);
}

void gen_check_stmt(lexer *lx, const input *in, stmt *s, const int *dt, int ndt, const int *st,
                    int nst, const int *perm, int rcol)
{
    int line = s->line;
    if (s->dst == s->src)
        fail_at(lx, line, rcol, "%s on both sides: assign through a temporary array",
                in->arrays[s->dst].name);
    if (ndt != nst)
        fail_at(lx, line, rcol, "the destination has %d ranges, the source %d", ndt, nst);
    if (in->arrays[s->dst].desc.elem_size != in->arrays[s->src].desc.elem_size)
        fail_at(lx, line, rcol, "element types differ (%zu and %zu bytes)",
                in->arrays[s->dst].desc.elem_size, in->arrays[s->src].desc.elem_size);
    for (int k = 0; k < DMSG_MAX_DIMS; k++)
        s->perm[k] = -1;
    for (int k = 0; k < ndt; k++) {
        int da = st[perm[k]];
        s->perm[dt[k]] = da;
        size_t cb = gen_sec_count(&s->dsec, dt[k]), ca = gen_sec_count(&s->ssec, da);
        if (cb != ca)
            fail_at(lx, line, rcol, "range %d: %zu elements on the left, %zu on the right", k + 1,
                    cb, ca);
    }
}

void gen_check_input(lexer *lx, input *in)
{
    if (in->nstmts == 0) fail_at(lx, lx->line, 1, "no statements");
    int maxg = 1;
    for (int i = 0; i < in->narrays; i++)
        maxg = in->arrays[i].da.grid_pes > maxg ? in->arrays[i].da.grid_pes : maxg;
    if (in->npes == 0)
        in->npes = maxg;
    else if (in->npes < maxg)
        fail_at(lx, 1, 1, "pes %d is smaller than a grid of %d PEs", in->npes, maxg);
}
