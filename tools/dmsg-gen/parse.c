/* dmsg-gen's parser: `pes`, `grid` and `array` declarations and the
 * statements `[LABEL:] DST = SRC [perm(...)]` or `DST = transpose(SRC)`,
 * into an input; what the syntax alone cannot tell goes to check.c. */
#include <stdio.h>
#include <string.h>
#include "tools/dmsg-gen/gen.h"

int gen_find_grid(const input *in, const char *name)
{
    for (int i = 0; i < in->ngrids; i++)
        if (strcmp(in->grids[i].name, name) == 0) return i;
    return -1;
}

int gen_find_array(const input *in, const char *name)
{
    for (int i = 0; i < in->narrays; i++)
        if (strcmp(in->arrays[i].name, name) == 0) return i;
    return -1;
}

/* (n, n, ...) into v; returns the count. */
static int num_list(lexer *lx, long long *v, const char *what, int signed_ok)
{
    int n = 0;
    lex_expect_punct(lx, '(');
    for (;;) {
        if (n == DMSG_MAX_DIMS) FAIL_TOK(lx, "more than %d %s", DMSG_MAX_DIMS, what);
        v[n++] = signed_ok ? lex_expect_snum(lx, what) : lex_expect_num(lx, what);
        if (!lex_is_punct(lx, ',')) break;
        lex_next(lx);
    }
    lex_expect_punct(lx, ')');
    return n;
}

static void parse_grid(lexer *lx, input *in)
{
    grid g;
    int line = lx->tline, col = lx->tcol;
    lex_expect_ident(lx, g.name, "a grid name");
    gen_check_new_name(lx, in, g.name, line, col);
    long long v[DMSG_MAX_DIMS];
    int ecol = lx->tcol;
    g.ndims = num_list(lx, v, "grid dimensions", 0);
    long long pes = 1;
    for (int i = 0; i < g.ndims; i++) {
        if (v[i] < 1 || v[i] > 4096)
            fail_at(lx, line, ecol, "grid extent %lld not in 1..4096", v[i]);
        g.ext[i] = (int)v[i];
        pes *= v[i];
    }
    if (pes > 4096) fail_at(lx, line, ecol, "grid of %lld PEs: at most 4096", pes);
    if (in->ngrids == MAX_NAMES) fail_at(lx, line, col, "more than %d grids", MAX_NAMES);
    in->grids[in->ngrids++] = g;
    lex_expect_eol(lx);
}

static const struct {
    const char *name, *ctype;
    size_t size;
} types[] = {
    {"int8", "int8_t", 1},          {"int16", "int16_t", 2}, {"int32", "int32_t", 4},
    {"int64", "int64_t", 8},        {"float", "float", 4},   {"double", "double", 8},
    {"complex", "gen_complex", 16},
};
static void parse_array(lexer *lx, input *in)
{
    array a;
    memset(&a, 0, sizeof a);
    a.line = lx->tline;
    a.col = lx->tcol;
    lex_expect_ident(lx, a.name, "an array name");
    gen_check_new_name(lx, in, a.name, a.line, a.col);
    long long v[DMSG_MAX_DIMS];
    int ecol = lx->tcol;
    a.desc.ndims = num_list(lx, v, "extents", 0);
    for (int d = 0; d < a.desc.ndims; d++) {
        if (v[d] < 1) fail_at(lx, a.line, ecol, "extent of dimension %d is %lld", d + 1, v[d]);
        a.desc.extent[d] = (size_t)v[d];
    }
    char tname[NAME_LEN];
    int tcol = lx->tcol;
    lex_expect_ident(lx, tname, "an element type");
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(types[i].name, tname) == 0) {
            a.type = types[i].ctype;
            a.desc.elem_size = types[i].size;
        }
    if (a.type == NULL)
        fail_at(lx, a.line, tcol,
                "unknown element type '%s' (int8 int16 int32 int64 float "
                "double complex)",
                tname);
    if (!lex_is_word(lx, "dist")) FAIL_TOK(lx, "expected 'dist', found %s", lex_tok_desc(lx));
    lex_next(lx);
    lex_expect_punct(lx, '(');
    int nd = 0, at[DMSG_MAX_DIMS], atcol[DMSG_MAX_DIMS];
    for (;;) {
        if (nd == a.desc.ndims)
            FAIL_TOK(lx, "more distributions than the %d dimensions", a.desc.ndims);
        at[nd] = -1;
        atcol[nd] = lx->tcol;
        if (lex_is_punct(lx, '*')) {
            a.desc.dist[nd] = DMSG_DIST_NONE;
            lex_next(lx);
        } else if (lex_is_word(lx, "block") || lex_is_word(lx, "cyclic")) {
            a.desc.dist[nd] = lex_is_word(lx, "block") ? DMSG_DIST_BLOCK : DMSG_DIST_CYCLIC;
            lex_next(lx);
            if (lex_is_punct(lx, '(')) {
                lex_next(lx);
                long long k = lex_expect_num(lx, "a block size");
                if (k < 1) FAIL_TOK(lx, "block size %lld < 1", k);
                a.desc.block[nd] = (size_t)k;
                lex_expect_punct(lx, ')');
            }
            if (lex_is_punct(lx, '@')) {
                lex_next(lx);
                at[nd] = (int)lex_expect_num(lx, "a grid dimension");
            }
        } else {
            FAIL_TOK(lx, "expected '*', 'block' or 'cyclic', found %s", lex_tok_desc(lx));
        }
        nd++;
        if (!lex_is_punct(lx, ',')) break;
        lex_next(lx);
    }
    if (nd != a.desc.ndims) FAIL_TOK(lx, "%d distributions for %d dimensions", nd, a.desc.ndims);
    lex_expect_punct(lx, ')');
    if (!lex_is_word(lx, "onto")) FAIL_TOK(lx, "expected 'onto', found %s", lex_tok_desc(lx));
    lex_next(lx);
    char gname[NAME_LEN];
    int gcol = lx->tcol;
    lex_expect_ident(lx, gname, "a grid name");
    int g = gen_find_grid(in, gname);
    if (g < 0) fail_at(lx, a.line, gcol, "unknown grid '%s'", gname);
    const grid *gr = &in->grids[g];
    a.desc.grid_ndims = gr->ndims;
    memcpy(a.desc.grid, gr->ext, sizeof gr->ext);
    gen_check_onto(lx, &a, gr, at, atcol, nd);
    while (lex_is_word(lx, "halo") || lex_is_word(lx, "pad")) {
        int halo = lex_is_word(lx, "halo");
        lex_next(lx);
        lex_expect_punct(lx, '(');
        for (int d = 0; d < a.desc.ndims; d++) {
            long long lo = lex_expect_num(lx, "a width"), hi = lo;
            if (halo && lex_is_punct(lx, ':')) {
                lex_next(lx);
                hi = lex_expect_num(lx, "a width");
            }
            if (halo) {
                a.desc.halo_lo[d] = (size_t)lo;
                a.desc.halo_hi[d] = (size_t)hi;
            } else {
                a.desc.pad[d] = (size_t)lo;
            }
            if (d + 1 < a.desc.ndims) lex_expect_punct(lx, ',');
        }
        lex_expect_punct(lx, ')');
    }
    gen_check_layout(lx, &a);
    if (in->narrays == MAX_NAMES) fail_at(lx, a.line, a.col, "more than %d arrays", MAX_NAMES);
    in->arrays[in->narrays++] = a;
    lex_expect_eol(lx);
}
/* The right side holds something other than one array reference. */
static void not_expr(lexer *lx) __attribute__((noreturn));
static void not_expr(lexer *lx)
{
    FAIL_TOK(lx,
             "found %s: expressions (operators, constants, parentheses) are not supported: the "
             "right side is one array section, SRC [perm(...)] or transpose(SRC); compute "
             "expressions in the program",
             lex_tok_desc(lx));
}

/* One subscript list: triplets and single indices, into sec; the array
 * dimensions that are triplets go to trip[] in order. */
static int parse_ref(lexer *lx, const input *in, dmsg_section *sec, int *trip, int *ntrip,
                     const char *side)
{
    const int src_side = strcmp(side, "source") == 0;
    char name[NAME_LEN];
    int line = lx->tline, col = lx->tcol;
    if (src_side && lx->kind != T_IDENT) not_expr(lx);
    lex_expect_ident(lx, name, "an array name");
    int ai = gen_find_array(in, name);
    if (ai < 0 && src_side && lex_is_punct(lx, '('))
        fail_at(lx, line, col,
                "'%s' is not an array: function calls are not supported (the only one is "
                "transpose(SRC)); compute it in the program",
                name);
    if (ai < 0) fail_at(lx, line, col, "unknown array '%s'", name);
    const dmsg_darray_desc *d = &in->arrays[ai].desc;
    memset(sec, 0, sizeof *sec);
    *ntrip = 0;
    if (!lex_is_punct(lx, '(')) { /* the whole array */
        for (int k = 0; k < d->ndims; k++) {
            sec->hi[k] = d->extent[k] - 1;
            sec->step[k] = 1;
            trip[(*ntrip)++] = k;
        }
        return ai;
    }
    lex_next(lx);
    for (int k = 0;; k++) {
        int scol = lx->tcol;
        if (k == d->ndims) fail_at(lx, line, scol, "%s has %d dimensions", name, d->ndims);
        long long ext = (long long)d->extent[k], lo = 0, hi = ext - 1, step = 1;
        int has_lo = 0, has_hi = 0, triplet = 0;
        if (lx->kind == T_IDENT) {
            if (gen_find_array(in, lx->text) >= 0)
                FAIL_TOK(lx,
                         "%s(%s): subscripts through an index array (gathers and scatters) are "
                         "not supported: subscripts are numbers and triplets lo:hi:step; for "
                         "B = A(I) or B(I) = A use the irregular plans (dmsg_iplan_create, "
                         "dmsg_iplan_create_scatter; docs/compiler.md section 4)",
                         name, lx->text);
            FAIL_TOK(lx,
                     "subscript '%s': names in subscripts are not supported, only numbers and "
                     "triplets lo:hi:step",
                     lx->text);
        }
        if (!lex_is_punct(lx, ':')) {
            lo = lex_expect_snum(lx, "an index");
            has_lo = 1;
        }
        if (lex_is_punct(lx, ':')) {
            triplet = 1;
            lex_next(lx);
            if (!lex_is_punct(lx, ':') && !lex_is_punct(lx, ',') && !lex_is_punct(lx, ')')) {
                hi = lex_expect_snum(lx, "an upper bound");
                has_hi = 1;
            }
            if (lex_is_punct(lx, ':')) {
                lex_next(lx);
                int stcol = lx->tcol;
                step = lex_expect_snum(lx, "a step");
                if (step == 0) fail_at(lx, line, stcol, "step 0");
            }
        }
        if (step < 0) { /* A(::-1) runs from the top down */
            if (!has_lo) lo = ext - 1;
            if (!has_hi) hi = 0;
        }
        if (lex_is_op(lx))
            FAIL_TOK(lx,
                     "'%s' in a subscript: arithmetic in subscripts is not supported; write the "
                     "computed number",
                     lx->text);
        if (!triplet) hi = lo;
        long long cnt =
            step > 0 ? (hi < lo ? 0 : (hi - lo) / step + 1) : (lo < hi ? 0 : (lo - hi) / -step + 1);
        long long last = lo + (cnt - 1) * step;
        if (cnt > 0 && (lo < 0 || lo >= ext || last < 0 || last >= ext)) {
            long long bad = lo < 0 || lo >= ext ? lo : last;
            if ((bad < 0 && -bad <= (long long)d->halo_lo[k]) ||
                (bad >= ext && bad - ext < (long long)d->halo_hi[k]))
                fail_at(lx, line, scol,
                        "%s subscript %d of %s: index %lld is in the declared halo: addressing "
                        "a halo is not supported (halo(...) only reserves ghost space in the "
                        "local layout); subscripts run over 0..%lld: move boundary elements "
                        "by a shift between two arrays instead, such as T(1:%lld) = %s(0:%lld)",
                        side, k + 1, name, bad, ext - 1, ext - 1, name, ext - 2);
            fail_at(lx, line, scol, "%s subscript %d of %s: index %lld outside 0..%lld", side,
                    k + 1, name, bad, ext - 1);
        }
        if (lo < 0 || hi < 0) fail_at(lx, line, scol, "negative bound in an empty section");
        sec->lo[k] = (size_t)lo;
        sec->hi[k] = (size_t)hi;
        sec->step[k] = (ptrdiff_t)step;
        if (triplet) trip[(*ntrip)++] = k;
        if (lex_is_punct(lx, ')')) {
            if (k + 1 != d->ndims)
                FAIL_TOK(lx, "%s has %d dimensions, %d subscripts given", name, d->ndims, k + 1);
            lex_next(lx);
            return ai;
        }
        lex_expect_punct(lx, ',');
    }
}
/* The statement as written in [start, end), for the generated comments: a
 * statement may be any number of continued lines long, so runs of blanks
 * and continuations become one space and a text longer than the buffer is
 * cut with "...". */
static void stmt_text(char *out, size_t cap, const char *start, const char *end)
{
    size_t n = 0;
    int blank = 0;
    for (const char *c = start; c < end; c++) {
        if (*c == ' ' || *c == '\t' || *c == '\r' || *c == '\n' || *c == '\\') {
            blank = n > 0;
            continue;
        }
        if (*c == '#') { /* a comment up to a continued line's end */
            while (c + 1 < end && c[1] != '\n')
                c++;
            continue;
        }
        if (n + blank + 1 + 4 > cap) { /* room for "...\0" */
            memcpy(out + n, "...", 4);
            return;
        }
        if (blank) out[n++] = ' ';
        blank = 0;
        out[n++] = *c;
    }
    out[n] = '\0';
}

static void parse_stmt(lexer *lx, input *in, const char *label, int line, int col)
{
    stmt s;
    memset(&s, 0, sizeof s);
    s.line = line;
    s.col = col;
    if (label != NULL)
        strcpy(s.label, label);
    else
        snprintf(s.label, sizeof s.label, "s%d", in->nstmts + 1);
    for (int i = 0; i < in->nstmts; i++)
        if (strcmp(in->stmts[i].label, s.label) == 0)
            fail_at(lx, line, col, "statement label '%s' used twice", s.label);
    const char *start = lx->tstart;
    int dt[DMSG_MAX_DIMS], st[DMSG_MAX_DIMS], ndt, nst;
    s.dst = parse_ref(lx, in, &s.dsec, dt, &ndt, "destination");
    lex_expect_punct(lx, '=');
    int rcol = lx->tcol, transpose = 0;
    if (lex_is_word(lx, "transpose")) {
        transpose = 1;
        lex_next(lx);
        lex_expect_punct(lx, '(');
    }
    int scol = lx->tcol;
    s.src = parse_ref(lx, in, &s.ssec, st, &nst, "source");
    if (transpose) lex_expect_punct(lx, ')');
    int perm[DMSG_MAX_DIMS];
    for (int k = 0; k < DMSG_MAX_DIMS; k++)
        perm[k] = k;
    if (transpose) {
        if (nst != 2) fail_at(lx, line, scol, "transpose of a section with %d ranges, not 2", nst);
        perm[0] = 1;
        perm[1] = 0;
    }
    if (lex_is_word(lx, "perm")) {
        int pcol = lx->tcol;
        if (transpose) FAIL_TOK(lx, "perm after transpose");
        lex_next(lx);
        long long v[DMSG_MAX_DIMS];
        int n = num_list(lx, v, "perm entries", 0);
        if (n != nst) fail_at(lx, line, pcol, "perm has %d entries, the source %d ranges", n, nst);
        unsigned seen = 0;
        for (int k = 0; k < n; k++) {
            if (v[k] >= n || (seen & (1u << v[k])))
                fail_at(lx, line, pcol, "perm is not a permutation of 0..%d", n - 1);
            seen |= 1u << v[k];
            perm[k] = (int)v[k];
        }
    }
    if (lex_is_op(lx) || lex_is_punct(lx, '(')) not_expr(lx);
    stmt_text(s.text, sizeof s.text, start, lx->tstart);
    lex_expect_eol(lx);
    gen_check_stmt(lx, in, &s, dt, ndt, st, nst, perm, rcol);
    if (in->nstmts == MAX_NAMES) fail_at(lx, line, col, "more than %d statements", MAX_NAMES);
    in->stmts[in->nstmts++] = s;
}
void gen_parse(const char *file, const char *text, input *in)
{
    lexer lx = {.file = file, .src = text, .p = text, .line_start = text, .line = 1};
    memset(in, 0, sizeof *in);
    in->file = file;
    lex_next(&lx);
    while (lx.kind != T_EOF) {
        if (lx.kind == T_NL) {
            lex_next(&lx);
            continue;
        }
        int line = lx.tline, col = lx.tcol;
        if (lx.kind != T_IDENT)
            FAIL_TOK(&lx, "expected a declaration or a statement, found %s", lex_tok_desc(&lx));
        if (lex_is_word(&lx, "pes")) {
            lex_next(&lx);
            long long n = lex_expect_num(&lx, "a PE count");
            if (n < 1 || n > 4096) fail_at(&lx, line, col, "pes %lld not in 1..4096", n);
            in->npes = (int)n;
            lex_expect_eol(&lx);
        } else if (lex_is_word(&lx, "grid")) {
            lex_next(&lx);
            parse_grid(&lx, in);
        } else if (lex_is_word(&lx, "array")) {
            lex_next(&lx);
            parse_array(&lx, in);
        } else {
            /* "label: statement" or a statement. */
            const char *save_p = lx.p, *save_ls = lx.line_start;
            lexer peek = lx;
            char word[NAME_LEN];
            strcpy(word, lx.text);
            lex_next(&peek);
            if (lex_is_punct(&peek, ':')) {
                lex_next(&peek);
                lx = peek;
                parse_stmt(&lx, in, word, line, col);
            } else {
                lx.p = save_p;
                lx.line_start = save_ls;
                parse_stmt(&lx, in, NULL, line, col);
            }
        }
    }
    gen_check_input(&lx, in);
}
