/*
 * dmsg-gen - a code generator for array assignments on distributed arrays.
 *
 *   dmsg-gen [-m MACHINE] [--mech model|direct|pack] [-o OUT.c] FILE.dgen
 *
 * Reads a description (processor grids, distributed arrays, assignment
 * statements; docs/compiler.md) and writes a C program with one function per
 * statement, specialized for it: every section, count and offset computed
 * here and stored as constants, the partners in staggered order, pack and
 * unpack loops specialized per element size and unrolled by 8, the
 * mechanism of each pair chosen by the copy-transfer model of MACHINE, and
 * one barrier and one await of a count fixed at generation time. A driver
 * main initializes the arrays, runs the statements and checks every element
 * against a serial evaluation. The generated code includes only dmsg.h and
 * dmsg_plan.h. Errors name FILE:LINE:COLUMN; exit status 2 (usage), 1 (error).
 *
 * The sections come from dmsg_assign_pieces (the closed form the library's
 * plans use); the mechanism from the plan layer's model choice.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dmsg/plan/choose.h"
#include "dmsg_plan.h"

#define MAX_NAMES 64
#define NAME_LEN 32

/* ------------------------------------------------------------ the input */

typedef struct grid {
    char name[NAME_LEN];
    int ndims, ext[DMSG_MAX_DIMS];
} grid;

typedef struct array {
    char name[NAME_LEN];
    const char *type; /* C element type name in the generated code */
    dmsg_darray_desc desc;
    dmsg_darray da;
    int line, col;
} array;

typedef struct stmt {
    char label[NAME_LEN];
    int dst, src; /* array indices */
    dmsg_section dsec, ssec;
    int perm[DMSG_MAX_DIMS];
    char text[256]; /* the statement as written, for the comment */
    int line, col;
} stmt;

typedef struct input {
    const char *file;
    int npes; /* 0: the largest grid */
    grid grids[MAX_NAMES];
    int ngrids;
    array arrays[MAX_NAMES];
    int narrays;
    stmt stmts[MAX_NAMES];
    int nstmts;
} input;

/* ---------------------------------------------------------------- lexer */

typedef enum { T_EOF, T_NL, T_IDENT, T_NUM, T_PUNCT } tok_kind;

typedef struct lexer {
    const char *file, *src, *p, *line_start;
    int line;
    tok_kind kind;
    char text[NAME_LEN];
    long long num;
    int tline, tcol;
    const char *tstart;
} lexer;

static void fail_at(const lexer *lx, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5), noreturn));
static void fail_at(const lexer *lx, int line, int col, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s:%d:%d: error: ", lx->file, line, col);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

#define FAIL_TOK(lx, ...) fail_at((lx), (lx)->tline, (lx)->tcol, __VA_ARGS__)

static void next(lexer *lx)
{
    for (;;) {
        while (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\r')
            lx->p++;
        if (*lx->p == '#')
            while (*lx->p != '\0' && *lx->p != '\n')
                lx->p++;
        if (*lx->p == '\\' && lx->p[1] == '\n') { /* continued line */
            lx->p += 2;
            lx->line++;
            lx->line_start = lx->p;
            continue;
        }
        break;
    }
    lx->tline = lx->line;
    lx->tcol = (int)(lx->p - lx->line_start) + 1;
    lx->tstart = lx->p;
    char c = *lx->p;
    if (c == '\0') {
        lx->kind = T_EOF;
        return;
    }
    if (c == '\n') {
        lx->kind = T_NL;
        lx->p++;
        lx->line++;
        lx->line_start = lx->p;
        return;
    }
    if (isalpha((unsigned char)c) || c == '_') {
        size_t n = 0;
        while (isalnum((unsigned char)*lx->p) || *lx->p == '_') {
            if (n + 1 >= NAME_LEN) FAIL_TOK(lx, "name longer than %d characters", NAME_LEN - 1);
            lx->text[n++] = *lx->p++;
        }
        lx->text[n] = '\0';
        lx->kind = T_IDENT;
        return;
    }
    if (isdigit((unsigned char)c)) {
        errno = 0;
        char *end;
        lx->num = strtoll(lx->p, &end, 10);
        if (errno != 0 || lx->num > (1ll << 40)) FAIL_TOK(lx, "number too large");
        if (isalpha((unsigned char)*end) || *end == '_') FAIL_TOK(lx, "malformed number");
        lx->p = end;
        lx->kind = T_NUM;
        return;
    }
    if (strchr("(),:=@*-", c) != NULL) {
        lx->text[0] = c;
        lx->text[1] = '\0';
        lx->kind = T_PUNCT;
        lx->p++;
        return;
    }
    FAIL_TOK(lx, "unexpected character '%c'", c);
}

static int is_punct(const lexer *lx, char c)
{
    return lx->kind == T_PUNCT && lx->text[0] == c;
}

static int is_word(const lexer *lx, const char *w)
{
    return lx->kind == T_IDENT && strcmp(lx->text, w) == 0;
}

static const char *tok_desc(const lexer *lx)
{
    static char buf[64];
    switch (lx->kind) {
    case T_EOF:
        return "end of file";
    case T_NL:
        return "end of line";
    case T_NUM:
        snprintf(buf, sizeof buf, "'%lld'", lx->num);
        return buf;
    default:
        snprintf(buf, sizeof buf, "'%s'", lx->text);
        return buf;
    }
}

static void expect_punct(lexer *lx, char c)
{
    if (!is_punct(lx, c)) FAIL_TOK(lx, "expected '%c', found %s", c, tok_desc(lx));
    next(lx);
}

static long long expect_num(lexer *lx, const char *what)
{
    if (lx->kind != T_NUM) FAIL_TOK(lx, "expected %s (a number), found %s", what, tok_desc(lx));
    long long v = lx->num;
    next(lx);
    return v;
}

/* A signed number. */
static long long expect_snum(lexer *lx, const char *what)
{
    int neg = 0;
    if (is_punct(lx, '-')) {
        neg = 1;
        next(lx);
    }
    long long v = expect_num(lx, what);
    return neg ? -v : v;
}

static void expect_ident(lexer *lx, char *out, const char *what)
{
    if (lx->kind != T_IDENT) FAIL_TOK(lx, "expected %s, found %s", what, tok_desc(lx));
    strcpy(out, lx->text);
    next(lx);
}

static void expect_eol(lexer *lx)
{
    if (lx->kind != T_NL && lx->kind != T_EOF)
        FAIL_TOK(lx, "expected end of line, found %s", tok_desc(lx));
    if (lx->kind == T_NL) next(lx);
}

/* --------------------------------------------------------------- parser */

static int find_grid(const input *in, const char *name)
{
    for (int i = 0; i < in->ngrids; i++)
        if (strcmp(in->grids[i].name, name) == 0) return i;
    return -1;
}

static int find_array(const input *in, const char *name)
{
    for (int i = 0; i < in->narrays; i++)
        if (strcmp(in->arrays[i].name, name) == 0) return i;
    return -1;
}

static const char *const reserved[] = {"pes", "grid", "array",     "dist",  "onto",   "halo",
                                       "pad", "perm", "transpose", "block", "cyclic", NULL};

static void check_new_name(lexer *lx, const input *in, const char *name, int line, int col)
{
    for (int i = 0; reserved[i] != NULL; i++)
        if (strcmp(name, reserved[i]) == 0) fail_at(lx, line, col, "'%s' is a keyword", name);
    if (find_grid(in, name) >= 0 || find_array(in, name) >= 0)
        fail_at(lx, line, col, "'%s' is already declared", name);
}

/* (n, n, ...) into v; returns the count. */
static int num_list(lexer *lx, long long *v, const char *what, int signed_ok)
{
    int n = 0;
    expect_punct(lx, '(');
    for (;;) {
        if (n == DMSG_MAX_DIMS) FAIL_TOK(lx, "more than %d %s", DMSG_MAX_DIMS, what);
        v[n++] = signed_ok ? expect_snum(lx, what) : expect_num(lx, what);
        if (!is_punct(lx, ',')) break;
        next(lx);
    }
    expect_punct(lx, ')');
    return n;
}

static void parse_grid(lexer *lx, input *in)
{
    grid g;
    int line = lx->tline, col = lx->tcol;
    expect_ident(lx, g.name, "a grid name");
    check_new_name(lx, in, g.name, line, col);
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
    expect_eol(lx);
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
    expect_ident(lx, a.name, "an array name");
    check_new_name(lx, in, a.name, a.line, a.col);
    long long v[DMSG_MAX_DIMS];
    int ecol = lx->tcol;
    a.desc.ndims = num_list(lx, v, "extents", 0);
    for (int d = 0; d < a.desc.ndims; d++) {
        if (v[d] < 1) fail_at(lx, a.line, ecol, "extent of dimension %d is %lld", d + 1, v[d]);
        a.desc.extent[d] = (size_t)v[d];
    }
    char tname[NAME_LEN];
    int tcol = lx->tcol;
    expect_ident(lx, tname, "an element type");
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
    if (!is_word(lx, "dist")) FAIL_TOK(lx, "expected 'dist', found %s", tok_desc(lx));
    next(lx);
    expect_punct(lx, '(');
    int nd = 0, at[DMSG_MAX_DIMS], atcol[DMSG_MAX_DIMS];
    for (;;) {
        if (nd == a.desc.ndims)
            FAIL_TOK(lx, "more distributions than the %d dimensions", a.desc.ndims);
        at[nd] = -1;
        atcol[nd] = lx->tcol;
        if (is_punct(lx, '*')) {
            a.desc.dist[nd] = DMSG_DIST_NONE;
            next(lx);
        } else if (is_word(lx, "block") || is_word(lx, "cyclic")) {
            a.desc.dist[nd] = is_word(lx, "block") ? DMSG_DIST_BLOCK : DMSG_DIST_CYCLIC;
            next(lx);
            if (is_punct(lx, '(')) {
                next(lx);
                long long k = expect_num(lx, "a block size");
                if (k < 1) FAIL_TOK(lx, "block size %lld < 1", k);
                a.desc.block[nd] = (size_t)k;
                expect_punct(lx, ')');
            }
            if (is_punct(lx, '@')) {
                next(lx);
                at[nd] = (int)expect_num(lx, "a grid dimension");
            }
        } else {
            FAIL_TOK(lx, "expected '*', 'block' or 'cyclic', found %s", tok_desc(lx));
        }
        nd++;
        if (!is_punct(lx, ',')) break;
        next(lx);
    }
    if (nd != a.desc.ndims) FAIL_TOK(lx, "%d distributions for %d dimensions", nd, a.desc.ndims);
    expect_punct(lx, ')');
    if (!is_word(lx, "onto")) FAIL_TOK(lx, "expected 'onto', found %s", tok_desc(lx));
    next(lx);
    char gname[NAME_LEN];
    int gcol = lx->tcol;
    expect_ident(lx, gname, "a grid name");
    int g = find_grid(in, gname);
    if (g < 0) fail_at(lx, a.line, gcol, "unknown grid '%s'", gname);
    const grid *gr = &in->grids[g];
    a.desc.grid_ndims = gr->ndims;
    memcpy(a.desc.grid, gr->ext, sizeof gr->ext);
    /* Distributed dimensions take the grid dimensions in order, unless @g. */
    int nextg = 0;
    unsigned used = 0;
    for (int d = 0; d < nd; d++) {
        if (a.desc.dist[d] == DMSG_DIST_NONE) continue;
        int gd = at[d] >= 0 ? at[d] : nextg++;
        if (gd >= gr->ndims)
            fail_at(lx, a.line, atcol[d], "no grid dimension %d in %s (%d dimensions)", gd,
                    gr->name, gr->ndims);
        if (used & (1u << gd))
            fail_at(lx, a.line, atcol[d], "grid dimension %d of %s used twice", gd, gr->name);
        used |= 1u << gd;
        a.desc.onto[d] = gd;
    }
    while (is_word(lx, "halo") || is_word(lx, "pad")) {
        int halo = is_word(lx, "halo");
        next(lx);
        expect_punct(lx, '(');
        for (int d = 0; d < a.desc.ndims; d++) {
            long long lo = expect_num(lx, "a width"), hi = lo;
            if (halo && is_punct(lx, ':')) {
                next(lx);
                hi = expect_num(lx, "a width");
            }
            if (halo) {
                a.desc.halo_lo[d] = (size_t)lo;
                a.desc.halo_hi[d] = (size_t)hi;
            } else {
                a.desc.pad[d] = (size_t)lo;
            }
            if (d + 1 < a.desc.ndims) expect_punct(lx, ',');
        }
        expect_punct(lx, ')');
    }
    if (dmsg_darray_init(&a.da, &a.desc) != DMSG_OK)
        fail_at(lx, a.line, a.col, "array %s: a BLOCK(k) too small for its extent, or too large",
                a.name);
    if (in->narrays == MAX_NAMES) fail_at(lx, a.line, a.col, "more than %d arrays", MAX_NAMES);
    in->arrays[in->narrays++] = a;
    expect_eol(lx);
}

/* One subscript list: triplets and single indices, into sec; the array
 * dimensions that are triplets go to trip[] in order. */
static int parse_ref(lexer *lx, const input *in, dmsg_section *sec, int *trip, int *ntrip,
                     const char *side)
{
    char name[NAME_LEN];
    int line = lx->tline, col = lx->tcol;
    expect_ident(lx, name, "an array name");
    int ai = find_array(in, name);
    if (ai < 0) fail_at(lx, line, col, "unknown array '%s'", name);
    const dmsg_darray_desc *d = &in->arrays[ai].desc;
    memset(sec, 0, sizeof *sec);
    *ntrip = 0;
    if (!is_punct(lx, '(')) { /* the whole array */
        for (int k = 0; k < d->ndims; k++) {
            sec->hi[k] = d->extent[k] - 1;
            sec->step[k] = 1;
            trip[(*ntrip)++] = k;
        }
        return ai;
    }
    next(lx);
    for (int k = 0;; k++) {
        int scol = lx->tcol;
        if (k == d->ndims) fail_at(lx, line, scol, "%s has %d dimensions", name, d->ndims);
        long long ext = (long long)d->extent[k], lo = 0, hi = ext - 1, step = 1;
        int has_lo = 0, has_hi = 0, triplet = 0;
        if (!is_punct(lx, ':')) {
            lo = expect_snum(lx, "an index");
            has_lo = 1;
        }
        if (is_punct(lx, ':')) {
            triplet = 1;
            next(lx);
            if (!is_punct(lx, ':') && !is_punct(lx, ',') && !is_punct(lx, ')')) {
                hi = expect_snum(lx, "an upper bound");
                has_hi = 1;
            }
            if (is_punct(lx, ':')) {
                next(lx);
                int stcol = lx->tcol;
                step = expect_snum(lx, "a step");
                if (step == 0) fail_at(lx, line, stcol, "step 0");
            }
        }
        if (step < 0) { /* A(::-1) runs from the top down */
            if (!has_lo) lo = ext - 1;
            if (!has_hi) hi = 0;
        }
        if (!triplet) hi = lo;
        long long cnt =
            step > 0 ? (hi < lo ? 0 : (hi - lo) / step + 1) : (lo < hi ? 0 : (lo - hi) / -step + 1);
        long long last = lo + (cnt - 1) * step;
        if (cnt > 0 && (lo < 0 || lo >= ext || last < 0 || last >= ext))
            fail_at(lx, line, scol, "%s subscript %d of %s: index %lld outside 0..%lld", side,
                    k + 1, name, lo < 0 || lo >= ext ? lo : last, ext - 1);
        if (lo < 0 || hi < 0) fail_at(lx, line, scol, "negative bound in an empty section");
        sec->lo[k] = (size_t)lo;
        sec->hi[k] = (size_t)hi;
        sec->step[k] = (ptrdiff_t)step;
        if (triplet) trip[(*ntrip)++] = k;
        if (is_punct(lx, ')')) {
            if (k + 1 != d->ndims)
                FAIL_TOK(lx, "%s has %d dimensions, %d subscripts given", name, d->ndims, k + 1);
            next(lx);
            return ai;
        }
        expect_punct(lx, ',');
    }
}

static size_t sec_count(const dmsg_section *s, int k)
{
    ptrdiff_t st = s->step[k];
    if (st > 0) return s->hi[k] < s->lo[k] ? 0 : (s->hi[k] - s->lo[k]) / (size_t)st + 1;
    return s->lo[k] < s->hi[k] ? 0 : (s->lo[k] - s->hi[k]) / (size_t)(-st) + 1;
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
    expect_punct(lx, '=');
    int rcol = lx->tcol, transpose = 0;
    if (is_word(lx, "transpose")) {
        transpose = 1;
        next(lx);
        expect_punct(lx, '(');
    }
    int scol = lx->tcol;
    s.src = parse_ref(lx, in, &s.ssec, st, &nst, "source");
    if (transpose) expect_punct(lx, ')');
    int perm[DMSG_MAX_DIMS];
    for (int k = 0; k < DMSG_MAX_DIMS; k++)
        perm[k] = k;
    if (transpose) {
        if (nst != 2) fail_at(lx, line, scol, "transpose of a section with %d ranges, not 2", nst);
        perm[0] = 1;
        perm[1] = 0;
    }
    if (is_word(lx, "perm")) {
        int pcol = lx->tcol;
        if (transpose) FAIL_TOK(lx, "perm after transpose");
        next(lx);
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
    size_t len = (size_t)(lx->tstart - start);
    snprintf(s.text, sizeof s.text, "%.*s", (int)(len < 200 ? len : 200), start);
    while (len > 0 && s.text[len - 1] == ' ')
        s.text[--len] = '\0';
    expect_eol(lx);
    if (s.dst == s.src)
        fail_at(lx, line, rcol, "%s on both sides: assign through a temporary array",
                in->arrays[s.dst].name);
    if (ndt != nst)
        fail_at(lx, line, rcol, "the destination has %d ranges, the source %d", ndt, nst);
    if (in->arrays[s.dst].desc.elem_size != in->arrays[s.src].desc.elem_size)
        fail_at(lx, line, rcol, "element types differ (%zu and %zu bytes)",
                in->arrays[s.dst].desc.elem_size, in->arrays[s.src].desc.elem_size);
    for (int k = 0; k < DMSG_MAX_DIMS; k++)
        s.perm[k] = -1;
    for (int k = 0; k < ndt; k++) {
        int da = st[perm[k]];
        s.perm[dt[k]] = da;
        size_t cb = sec_count(&s.dsec, dt[k]), ca = sec_count(&s.ssec, da);
        if (cb != ca)
            fail_at(lx, line, rcol, "range %d: %zu elements on the left, %zu on the right", k + 1,
                    cb, ca);
    }
    if (in->nstmts == MAX_NAMES) fail_at(lx, line, col, "more than %d statements", MAX_NAMES);
    in->stmts[in->nstmts++] = s;
}

static void parse(const char *file, const char *text, input *in)
{
    lexer lx = {.file = file, .src = text, .p = text, .line_start = text, .line = 1};
    memset(in, 0, sizeof *in);
    in->file = file;
    next(&lx);
    while (lx.kind != T_EOF) {
        if (lx.kind == T_NL) {
            next(&lx);
            continue;
        }
        int line = lx.tline, col = lx.tcol;
        if (lx.kind != T_IDENT)
            FAIL_TOK(&lx, "expected a declaration or a statement, found %s", tok_desc(&lx));
        if (is_word(&lx, "pes")) {
            next(&lx);
            long long n = expect_num(&lx, "a PE count");
            if (n < 1 || n > 4096) fail_at(&lx, line, col, "pes %lld not in 1..4096", n);
            in->npes = (int)n;
            expect_eol(&lx);
        } else if (is_word(&lx, "grid")) {
            next(&lx);
            parse_grid(&lx, in);
        } else if (is_word(&lx, "array")) {
            next(&lx);
            parse_array(&lx, in);
        } else {
            /* "label: statement" or a statement. */
            const char *save_p = lx.p, *save_ls = lx.line_start;
            lexer peek = lx;
            char word[NAME_LEN];
            strcpy(word, lx.text);
            next(&peek);
            if (is_punct(&peek, ':')) {
                next(&peek);
                lx = peek;
                parse_stmt(&lx, in, word, line, col);
            } else {
                lx.p = save_p;
                lx.line_start = save_ls;
                parse_stmt(&lx, in, NULL, line, col);
            }
        }
    }
    if (in->nstmts == 0) fail_at(&lx, lx.line, 1, "no statements");
    int maxg = 1;
    for (int i = 0; i < in->narrays; i++)
        maxg = in->arrays[i].da.grid_pes > maxg ? in->arrays[i].da.grid_pes : maxg;
    if (in->npes == 0)
        in->npes = maxg;
    else if (in->npes < maxg)
        fail_at(&lx, 1, 1, "pes %d is smaller than a grid of %d PEs", in->npes, maxg);
}

/* ------------------------------------------------------------- the plan */

/* Everything generated for one statement: per sender, its partners. */
typedef struct gpeer {
    int q;
    size_t first, n; /* into pieces */
    size_t bytes, stage_off;
    int packed;
} gpeer;

typedef struct gstmt {
    dmsg_piece *pieces;
    size_t npieces;
    gpeer *peers;       /* senders in rank order, each partners staggered */
    size_t *peer_first; /* npes + 1 */
    size_t npeers;
    uint64_t *recv_msgs;
    size_t send_max; /* largest packed chunk */
    double mbs_direct, mbs_pack;
} gstmt;

static void *xmalloc(size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (p == NULL) {
        fprintf(stderr, "dmsg-gen: out of memory\n");
        exit(1);
    }
    return p;
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (p == NULL) {
        fprintf(stderr, "dmsg-gen: out of memory\n");
        exit(1);
    }
    return p;
}

typedef enum { MECH_MODEL, MECH_DIRECT, MECH_PACK } gen_mech;

/* --store adp: chained pieces as address-data records (4, 8, 16-byte elements). */
static int g_store_adp;

static void build_stmt(const input *in, const stmt *s, gen_mech mech, const plan_model *model,
                       gstmt *g, size_t *stage_need)
{
    int P = in->npes;
    dmsg_assign as;
    memset(&as, 0, sizeof as);
    as.dst = &in->arrays[s->dst].da;
    as.src = &in->arrays[s->src].da;
    as.dsec = s->dsec;
    as.ssec = s->ssec;
    memcpy(as.perm, s->perm, sizeof as.perm);
    if (dmsg_assign_check(&as, P) != DMSG_OK) {
        fprintf(stderr, "%s:%d:%d: error: statement %s is not a valid assignment\n", in->file,
                s->line, s->col, s->label);
        exit(1);
    }
    size_t elem = as.src->desc.elem_size;
    memset(g, 0, sizeof *g);
    g->peers = xmalloc((size_t)P * (size_t)P * sizeof *g->peers);
    g->peer_first = xmalloc(((size_t)P + 1) * sizeof *g->peer_first);
    g->recv_msgs = xmalloc((size_t)P * sizeof *g->recv_msgs);
    size_t *in_bytes = xmalloc((size_t)P * sizeof *in_bytes); /* staging use per receiver */
    size_t cap = 0;
    double bytes_all = 0, t_direct = 0, t_pack = 0;
    for (int p = 0; p < P; p++) {
        g->peer_first[p] = g->npeers;
        for (int i = 0; i < P; i++) {
            int q = (p + i) % P;
            size_t n;
            if (dmsg_assign_pieces(&as, P, p, q, NULL, 0, &n) != DMSG_OK) {
                fprintf(stderr, "dmsg-gen: out of memory\n");
                exit(1);
            }
            if (n == 0) continue;
            if (g->npieces + n > cap) {
                cap = 2 * (g->npieces + n);
                g->pieces = xrealloc(g->pieces, cap * sizeof *g->pieces);
            }
            dmsg_assign_pieces(&as, P, p, q, g->pieces + g->npieces, n, &n);
            gpeer *pr = &g->peers[g->npeers++];
            pr->q = q;
            pr->first = g->npieces;
            pr->n = n;
            for (size_t k = 0; k < n; k++)
                pr->bytes += g->pieces[g->npieces + k].elems * elem;
            int cand = plan_pack_candidate(g->pieces + g->npieces, n, elem, p == q);
            double md = 0, mp = 0;
            if (model != NULL)
                plan_model_predict(model, g->pieces + g->npieces, n, elem, p == q, &md, &mp);
            if (md > 0 && mp > 0) {
                bytes_all += (double)pr->bytes;
                t_direct += (double)pr->bytes / md;
                t_pack += (double)pr->bytes / mp;
            }
            pr->packed = cand && (mech == MECH_PACK || (mech == MECH_MODEL && mp > md));
            if (pr->packed) {
                pr->stage_off = in_bytes[q];
                in_bytes[q] += (pr->bytes + 15) / 16 * 16;
                g->send_max = pr->bytes > g->send_max ? pr->bytes : g->send_max;
                g->recv_msgs[q] += 1;
            } else {
                g->recv_msgs[q] += n;
            }
            g->npieces += n;
        }
    }
    g->peer_first[P] = g->npeers;
    for (int q = 0; q < P; q++)
        *stage_need = in_bytes[q] > *stage_need ? in_bytes[q] : *stage_need;
    g->mbs_direct = t_direct > 0 ? bytes_all / t_direct : 0;
    g->mbs_pack = t_pack > 0 ? bytes_all / t_pack : 0;
    free(in_bytes);
}

/* ------------------------------------------------------------- emitting */

static void emit_layout(FILE *o, const dmsg_layout *l)
{
    fprintf(o, "{%d, {", l->ndims);
    for (int d = 0; d < l->ndims; d++)
        fprintf(o, "%s%zu", d ? ", " : "", l->count[d]);
    fprintf(o, "}, {");
    for (int d = 0; d < l->ndims; d++)
        fprintf(o, "%s%td", d ? ", " : "", l->stride[d]);
    fprintf(o, "}}");
}

static const char *dist_name(const dmsg_darray_desc *d, int k, char *buf, size_t len)
{
    switch (d->dist[k]) {
    case DMSG_DIST_BLOCK:
        if (d->block[k])
            snprintf(buf, len, "block(%zu)@%d", d->block[k], d->onto[k]);
        else
            snprintf(buf, len, "block@%d", d->onto[k]);
        break;
    case DMSG_DIST_CYCLIC:
        snprintf(buf, len, "cyclic(%zu)@%d", d->block[k] ? d->block[k] : 1, d->onto[k]);
        break;
    default:
        snprintf(buf, len, "*");
        break;
    }
    return buf;
}

/* The element copy of the unrolled pack loops, per element size. */
static const char *elem_ctype(size_t e)
{
    switch (e) {
    case 1:
        return "uint8_t";
    case 2:
        return "uint16_t";
    case 4:
        return "uint32_t";
    case 8:
        return "uint64_t";
    case 16:
        return "gen_complex";
    default:
        return NULL;
    }
}

/* gather_E / scatter_E: an n-D section to or from a contiguous buffer,
 * innermost dimension unrolled by 8 (the Catacomb templates' DPACK loops). */
static void emit_pack_loops(FILE *o, size_t e)
{
    const char *t = elem_ctype(e);
    for (int scatter = 0; scatter < 2; scatter++) {
        fprintf(o,
                "\n/* %s of %zu-byte elements: the section l at %s %s a contiguous buffer,\n"
                " * the innermost dimension unrolled by 8. */\n",
                scatter ? "Scatter" : "Gather", e, scatter ? "dst" : "src",
                scatter ? "from" : "into");
        if (scatter)
            fprintf(o,
                    "static void scatter_%zu(char *sec, const dmsg_layout *l, const char *buf)\n",
                    e);
        else
            fprintf(o, "static void gather_%zu(char *buf, const char *sec, const dmsg_layout *l)\n",
                    e);
        fprintf(o,
                "{\n"
                "    size_t idx[DMSG_MAX_DIMS] = {0};\n"
                "    const size_t n = l->count[0];\n"
                "    const ptrdiff_t s = l->stride[0];\n"
                "    for (;;) {\n"
                "        %schar *p = sec;\n"
                "        for (int d = 1; d < l->ndims; d++)\n"
                "            p += (ptrdiff_t)idx[d] * l->stride[d];\n"
                "        size_t i = 0;\n"
                "        for (; i + 8 <= n; i += 8, p += 8 * s, buf += 8 * %zu) {\n",
                scatter ? "" : "const ", e);
        const char *fmt = scatter ? "            memcpy(p + %d * s, buf + %d * %zu, sizeof(%s));\n"
                                  : "            memcpy(buf + %d * %zu, p + %d * s, sizeof(%s));\n";
        for (int k = 0; k < 8; k++) {
            if (scatter)
                fprintf(o, fmt, k, k, e, t);
            else
                fprintf(o, fmt, k, e, k, t);
        }
        fprintf(o,
                "        }\n"
                "        for (; i < n; i++, p += s, buf += %zu)\n"
                "            memcpy(%s, sizeof(%s));\n"
                "        int d = 1;\n"
                "        while (d < l->ndims && ++idx[d] == l->count[d])\n"
                "            idx[d++] = 0;\n"
                "        if (d >= l->ndims)\n"
                "            return;\n"
                "    }\n"
                "}\n",
                e, scatter ? "p, buf" : "buf, p", t);
    }
}

/* adp_E: address-data records of one piece, source values with their
 * destination byte offsets, the innermost dimension unrolled by 8 (the
 * Catacomb template's DPACKADP16_8 for 16-byte elements). */
static void emit_adp_loop(FILE *o, size_t e)
{
    fprintf(o,
            "\n/* Address-data records of %zu-byte elements for one piece: each source value\n"
            " * with the byte offset of its destination, innermost dimension unrolled by 8. */\n"
            "static void adp_%zu(dmsg_adp%zu *rec, const char *sec, const dmsg_layout *sl,\n"
            "                   const dmsg_layout *dl, size_t dst_off)\n{\n"
            "    size_t idx[DMSG_MAX_DIMS] = {0};\n"
            "    const size_t n = sl->count[0];\n"
            "    const ptrdiff_t s = sl->stride[0], t = dl->stride[0];\n"
            "    for (;;) {\n"
            "        const char *p = sec;\n"
            "        ptrdiff_t q = (ptrdiff_t)dst_off;\n"
            "        for (int d = 1; d < sl->ndims; d++) {\n"
            "            p += (ptrdiff_t)idx[d] * sl->stride[d];\n"
            "            q += (ptrdiff_t)idx[d] * dl->stride[d];\n"
            "        }\n"
            "        size_t i = 0;\n"
            "        for (; i + 8 <= n; i += 8, p += 8 * s, q += 8 * t, rec += 8) {\n",
            e, e, e);
    for (int k = 0; k < 8; k++)
        fprintf(o,
                "            rec[%d].off = (uint64_t)(q + %d * t);\n"
                "            memcpy(&rec[%d].val, p + %d * s, %zu);\n",
                k, k, k, k, e);
    fprintf(o,
            "        }\n"
            "        for (; i < n; i++, p += s, q += t, rec++) {\n"
            "            rec->off = (uint64_t)q;\n"
            "            memcpy(&rec->val, p, %zu);\n"
            "        }\n"
            "        int d = 1;\n"
            "        while (d < sl->ndims && ++idx[d] == sl->count[d])\n"
            "            idx[d++] = 0;\n"
            "        if (d >= sl->ndims)\n"
            "            return;\n"
            "    }\n}\n",
            e);
}

static void emit_header(FILE *o, const input *in, const char *machine, const char *mech)
{
    fprintf(o, "/*\n * Generated by dmsg-gen from %s for %d PEs; mechanism: %s", in->file, in->npes,
            mech);
    if (machine != NULL) fprintf(o, " (model of machine %s)", machine);
    fprintf(o,
            ".\n * Do not edit: edit the description and generate again.\n *\n"
            " *   dmsgrun -n %d ./prog [runs]\n *\n"
            " * Every statement function is one communication step of the deposit model:\n"
            " * a dmsg_sync for clearance, deposits to the partners in staggered order\n"
            " * (pieces and counts computed at generation time), and one dmsg_await of\n"
            " * the number of deposits this PE receives. main() checks every element\n"
            " * against a serial evaluation of the statements.\n */\n",
            in->npes);
    fprintf(o,
            "#include <dmsg.h>\n#include <dmsg_plan.h>\n#include <stdint.h>\n"
            "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\n"
            "#define GEN_NPES %d\n\n"
            "typedef struct gen_complex {\n    double re, im;\n} gen_complex;\n\n"
            "/* One partner of a sender: pieces [first, first + n) of the statement's table;\n"
            " * packed: gathered into one deposit at stage_off of the partner's staging\n"
            " * area (bytes long), else one section deposit per piece. */\n"
            "typedef struct gen_peer {\n    int pe, packed;\n    uint32_t first, n;\n"
            "    size_t bytes, stage_off;\n} gen_peer;\n",
            in->npes);
}

static void emit_arrays(FILE *o, const input *in)
{
    fprintf(o, "\n/* ---- arrays */\n\nenum { ");
    for (int i = 0; i < in->narrays; i++)
        fprintf(o, "%sARR_%s", i ? ", " : "", in->arrays[i].name);
    fprintf(o, ", NARRAYS };\n\n");
    fprintf(o, "static const char *const array_name[NARRAYS] = {");
    for (int i = 0; i < in->narrays; i++)
        fprintf(o, "%s\"%s\"", i ? ", " : "", in->arrays[i].name);
    fprintf(o, "};\n\nstatic const dmsg_darray_desc array_desc[NARRAYS] = {\n");
    for (int i = 0; i < in->narrays; i++) {
        const dmsg_darray_desc *d = &in->arrays[i].desc;
        char buf[48];
        fprintf(o, "    /* %s: %s, dist (", in->arrays[i].name, in->arrays[i].type);
        for (int k = 0; k < d->ndims; k++)
            fprintf(o, "%s%s", k ? ", " : "", dist_name(d, k, buf, sizeof buf));
        fprintf(o, "), %zu bytes per PE */\n", in->arrays[i].da.bytes);
        fprintf(o, "    {.ndims = %d, .elem_size = %zu, .grid_ndims = %d,\n", d->ndims,
                d->elem_size, d->grid_ndims);
#define ROW(field, fmt)                                                                            \
    do {                                                                                           \
        fprintf(o, "     ." #field " = {");                                                        \
        for (int k = 0; k < (strcmp(#field, "grid") == 0 ? d->grid_ndims : d->ndims); k++)         \
            fprintf(o, "%s" fmt, k ? ", " : "", d->field[k]);                                      \
        fprintf(o, "},\n");                                                                        \
    } while (0)
        ROW(extent, "%zu");
        ROW(grid, "%d");
        ROW(dist, "%d");
        ROW(block, "%zu");
        ROW(onto, "%d");
        ROW(halo_lo, "%zu");
        ROW(halo_hi, "%zu");
        ROW(pad, "%zu");
#undef ROW
        fprintf(o, "    },\n");
    }
    fprintf(o, "};\n");
}

static void emit_stmt(FILE *o, const input *in, const stmt *s, const gstmt *g, int adp)
{
    const array *A = &in->arrays[s->src], *B = &in->arrays[s->dst];
    size_t e = A->desc.elem_size;
    size_t packed = 0;
    for (size_t i = 0; i < g->npeers; i++)
        packed += g->peers[i].packed;
    fprintf(o, "\n/* ---- statement %s (%s:%d): %s\n", s->label, in->file, s->line, s->text);
    fprintf(o, " * %zu pieces in %zu pairs, %zu pairs packed", g->npieces, g->npeers, packed);
    if (g->mbs_direct > 0)
        fprintf(o, "; model: direct %.1f MB/s, packed %.1f MB/s", g->mbs_direct, g->mbs_pack);
    fprintf(o, ". */\n\n");
    fprintf(o, "static const dmsg_piece %s_pieces[%zu] = {\n", s->label,
            g->npieces ? g->npieces : 1);
    for (size_t k = 0; k < g->npieces; k++) {
        const dmsg_piece *pc = &g->pieces[k];
        fprintf(o, "    {%zu, ", pc->src_off);
        emit_layout(o, &pc->src);
        fprintf(o, ", %zu, ", pc->dst_off);
        emit_layout(o, &pc->dst);
        fprintf(o, ", %zu},\n", pc->elems);
    }
    fprintf(
        o,
        "};\n\n/* Partners of each sender, staggered: sender p's are [first[p], first[p+1]). */\n");
    fprintf(o, "static const gen_peer %s_peers[%zu] = {\n", s->label, g->npeers ? g->npeers : 1);
    for (size_t i = 0; i < g->npeers; i++) {
        const gpeer *pr = &g->peers[i];
        fprintf(o, "    {%d, %d, %zu, %zu, %zu, %zu},\n", pr->q, pr->packed, pr->first, pr->n,
                pr->bytes, pr->stage_off);
    }
    fprintf(o, "};\nstatic const uint32_t %s_first[GEN_NPES + 1] = {", s->label);
    for (int p = 0; p <= in->npes; p++)
        fprintf(o, "%s%zu", p ? ", " : "", g->peer_first[p]);
    fprintf(o, "};\n/* Deposits each PE receives (a packed pair counts once). */\n");
    fprintf(o, "static const uint64_t %s_recv[GEN_NPES] = {", s->label);
    for (int p = 0; p < in->npes; p++)
        fprintf(o, "%s%llu", p ? ", " : "", (unsigned long long)g->recv_msgs[p]);
    fprintf(o, "};\n");
    if (packed) {
        /* Receivers of packed chunks: per receiver, the senders' peer entries. */
        fprintf(o, "/* Packed chunks each PE unpacks: indices into %s_peers, per receiver. */\n",
                s->label);
        size_t *cnt = xmalloc(((size_t)in->npes + 1) * sizeof *cnt);
        fprintf(o, "static const uint32_t %s_unpack[%zu] = {", s->label, packed);
        size_t n = 0;
        for (int q = 0; q < in->npes; q++) {
            cnt[q] = n;
            for (size_t i = 0; i < g->npeers; i++)
                if (g->peers[i].packed && g->peers[i].q == q)
                    fprintf(o, "%s%zu", n++ ? ", " : "", i);
        }
        cnt[in->npes] = n;
        fprintf(o, "};\nstatic const uint32_t %s_unpack_first[GEN_NPES + 1] = {", s->label);
        for (int q = 0; q <= in->npes; q++)
            fprintf(o, "%s%zu", q ? ", " : "", cnt[q]);
        fprintf(o, "};\n");
        free(cnt);
        fprintf(o, "static _Alignas(64) char %s_sendbuf[%zu];\n", s->label, g->send_max);
    }
    if (adp) {
        size_t most = 1;
        for (size_t k = 0; k < g->npieces; k++)
            most = g->pieces[k].elems > most ? g->pieces[k].elems : most;
        fprintf(o, "static dmsg_adp%zu %s_recs[%zu]; /* the largest piece's records */\n", e,
                s->label, most);
    }
    fprintf(o, "\n/* %s: %s (%s, %s: the arrays' storage on this PE) */\n", s->label, s->text,
            B->name, A->name);
    fprintf(o, "static int stmt_%s(char *%s, const char *%s, char *stage, dmsg_ctr ctr)\n{\n",
            s->label, B->name, A->name);
    fprintf(o,
            "    const int me = dmsg_pe();\n"
            "    int st = dmsg_sync(); /* clearance: every PE is done with its part of %s */\n"
            "    if (st != DMSG_OK)\n        return st;\n",
            B->name);
    fprintf(o, "    for (uint32_t i = %s_first[me]; i < %s_first[me + 1]; i++) {\n", s->label,
            s->label);
    fprintf(o, "        const gen_peer *pr = &%s_peers[i];\n", s->label);
    fprintf(o, "        const dmsg_piece *pc = &%s_pieces[pr->first], *end = pc + pr->n;\n",
            s->label);
    if (packed) {
        fprintf(o,
                "        if (pr->packed) { /* gather, then one contiguous deposit */\n"
                "            char *buf = %s_sendbuf;\n"
                "            for (; pc < end; buf += pc->elems * %zu, pc++)\n"
                "                gather_%zu(buf, %s + pc->src_off, &pc->src);\n"
                "            st = dmsg_deposit(stage + pr->stage_off, %s_sendbuf, pr->bytes, "
                "pr->pe, ctr);\n"
                "            if (st != DMSG_OK)\n                return st;\n"
                "            continue;\n        }\n",
                s->label, e, e, A->name, s->label);
    }
    if (adp) {
        fprintf(o,
                "        for (; pc < end; pc++) { /* chained: address-data records, one deposit "
                "per piece */\n"
                "            adp_%zu(%s_recs, %s + pc->src_off, &pc->src, &pc->dst, pc->dst_off);\n"
                "            st = dmsg_deposit_adp(%s, %s_recs, pc->elems, %zu, pr->pe, ctr);\n"
                "            if (st != DMSG_OK)\n                return st;\n"
                "        }\n    }\n",
                e, s->label, A->name, B->name, s->label, e);
    } else {
        fprintf(
            o,
            "        for (; pc < end; pc++) { /* chained: one section deposit per piece */\n"
            "            st = dmsg_deposit_section(%s + pc->dst_off, &pc->dst, %s + pc->src_off,\n"
            "                                      &pc->src, %zu, pr->pe, ctr);\n"
            "            if (st != DMSG_OK)\n                return st;\n"
            "        }\n    }\n",
            B->name, A->name, e);
    }
    fprintf(o,
            "    st = dmsg_await(ctr, %s_recv[me]); /* my part of %s has landed */\n"
            "    if (st != DMSG_OK)\n        return st;\n",
            s->label, B->name);
    if (packed)
        fprintf(o,
                "    for (uint32_t u = %s_unpack_first[me]; u < %s_unpack_first[me + 1]; u++) {\n"
                "        const gen_peer *pr = &%s_peers[%s_unpack[u]];\n"
                "        const char *buf = stage + pr->stage_off;\n"
                "        for (const dmsg_piece *pc = &%s_pieces[pr->first], *end = pc + pr->n; "
                "pc < end;\n"
                "             buf += pc->elems * %zu, pc++)\n"
                "            scatter_%zu(%s + pc->dst_off, &pc->dst, buf);\n"
                "    }\n",
                s->label, s->label, s->label, s->label, s->label, e, e, B->name);
    (void)s;
    fprintf(o, "    (void)stage;\n    return DMSG_OK;\n}\n");
}

/* Serial evaluation: the statement on whole-array images (dimension 0
 * fastest), with its bounds and coefficients as constants. */
static void emit_serial(FILE *o, const input *in, const stmt *s)
{
    const array *A = &in->arrays[s->src], *B = &in->arrays[s->dst];
    size_t e = A->desc.elem_size;
    long long ga[DMSG_MAX_DIMS], gb[DMSG_MAX_DIMS], base_a = 0, base_b = 0, m = 1;
    for (int d = 0; d < A->desc.ndims; d++)
        ga[d] = d == 0 ? 1 : ga[d - 1] * (long long)A->desc.extent[d - 1];
    for (int d = 0; d < B->desc.ndims; d++)
        gb[d] = d == 0 ? 1 : gb[d - 1] * (long long)B->desc.extent[d - 1];
    for (int d = 0; d < A->desc.ndims; d++)
        base_a += (long long)s->ssec.lo[d] * ga[d];
    for (int d = 0; d < B->desc.ndims; d++)
        base_b += (long long)s->dsec.lo[d] * gb[d];
    fprintf(o, "\nstatic void serial_%s(unsigned char *%s, const unsigned char *%s)\n{\n", s->label,
            B->name, A->name);
    int depth = 0;
    char ia[512] = "", ib[512] = "";
    for (int d = B->desc.ndims - 1; d >= 0; d--) {
        int da = s->perm[d];
        if (da < 0) continue;
        size_t cnt = sec_count(&s->dsec, d);
        m *= (long long)cnt;
        fprintf(o, "%*sfor (long long t%d = 0; t%d < %zu; t%d++)\n", 4 * (depth + 1), "", d, d, cnt,
                d);
        depth++;
        size_t la = strlen(ia), lb = strlen(ib);
        snprintf(ia + la, sizeof ia - la, " + t%d * %lld", d, (long long)s->ssec.step[da] * ga[da]);
        snprintf(ib + lb, sizeof ib - lb, " + t%d * %lld", d, (long long)s->dsec.step[d] * gb[d]);
    }
    fprintf(o, "%*smemcpy(%s + (size_t)(%lld%s) * %zu, %s + (size_t)(%lld%s) * %zu, %zu);\n",
            4 * (depth + 1), "", B->name, base_b, ib, e, A->name, base_a, ia, e, e);
    (void)m;
    fprintf(o, "}\n");
}

static void emit_main(FILE *o, const input *in, size_t stage)
{
    fprintf(o,
            "\n/* ---- driver */\n\n"
            "/* Byte j of element lin of array a, before any statement ran. */\n"
            "static unsigned char initial(int a, size_t lin, size_t j)\n{\n"
            "    uint64_t x = (lin + 1) * 0x9E3779B97F4A7C15ull ^ ((uint64_t)(a + 1) << 40) ^ "
            "(j * 131);\n"
            "    x ^= x >> 29;\n    return (unsigned char)(x * 0xBF58476D1CE4E5B9ull >> 56);\n}\n");
    fprintf(o, "\nstatic size_t elements(const dmsg_darray *a)\n{\n    size_t n = 1;\n"
               "    for (int d = 0; d < a->desc.ndims; d++)\n        n *= a->desc.extent[d];\n"
               "    return n;\n}\n"
               "\nstatic void unlinear(const dmsg_darray *a, size_t lin, size_t *g)\n{\n"
               "    for (int d = 0; d < a->desc.ndims; d++) {\n"
               "        g[d] = lin %% a->desc.extent[d];\n        lin /= a->desc.extent[d];\n"
               "    }\n}\n");
    fprintf(o,
            "\n/* Copies image elements this PE owns into (or compares them with) its\n"
            " * storage; returns the number of differing elements when comparing. */\n"
            "static size_t local_part(const dmsg_darray *a, unsigned char *img, int compare,\n"
            "                         const char *name)\n{\n"
            "    size_t n = elements(a), e = a->desc.elem_size, bad = 0, g[DMSG_MAX_DIMS], off;\n"
            "    int pe;\n"
            "    for (size_t lin = 0; lin < n; lin++) {\n"
            "        unlinear(a, lin, g);\n"
            "        if (dmsg_darray_locate(a, g, &pe, &off) != DMSG_OK || pe != dmsg_pe())\n"
            "            continue;\n"
            "        unsigned char *mine = (unsigned char *)a->base + off;\n"
            "        if (!compare) {\n            memcpy(mine, img + lin * e, e);\n"
            "        } else if (memcmp(mine, img + lin * e, e) != 0 && bad++ < 5) {\n"
            "            fprintf(stderr, \"PE %%d: %%s element %%zu differs from the serial "
            "evaluation\\n\",\n"
            "                    dmsg_pe(), name, lin);\n        }\n    }\n    return bad;\n}\n");
    fprintf(o, "\n#define CHECK(call)                                                            "
               "     \\\n"
               "    do {                                                                        "
               "   \\\n"
               "        int st_ = (call);                                                       "
               "   \\\n"
               "        if (st_ != DMSG_OK) {                                                   "
               "   \\\n"
               "            fprintf(stderr, \"PE %%d: %%s: %%s\\n\", dmsg_pe(), #call, "
               "dmsg_strerror(st_));       \\\n"
               "            exit(1);                                                            "
               "   \\\n"
               "        }                                                                       "
               "   \\\n"
               "    } while (0)\n");
    fprintf(o,
            "\nint main(int argc, char **argv)\n{\n"
            "    CHECK(dmsg_init());\n"
            "    if (dmsg_npes() != GEN_NPES) {\n"
            "        if (dmsg_pe() == 0)\n"
            "            fprintf(stderr, \"generated for %%d PEs, started on %%d\\n\", GEN_NPES, "
            "dmsg_npes());\n"
            "        dmsg_finalize();\n        return 2;\n    }\n"
            "    long runs = argc > 1 ? strtol(argv[1], NULL, 10) : 2;\n"
            "    dmsg_darray arr[NARRAYS];\n"
            "    unsigned char *img[NARRAYS];\n"
            "    for (int a = 0; a < NARRAYS; a++) {\n"
            "        CHECK(dmsg_darray_init(&arr[a], &array_desc[a]));\n"
            "        CHECK(dmsg_darray_alloc(&arr[a]));\n"
            "        size_t n = elements(&arr[a]), e = arr[a].desc.elem_size;\n"
            "        img[a] = malloc(n * e);\n"
            "        if (img[a] == NULL) {\n            fprintf(stderr, \"out of memory\\n\");\n"
            "            return 1;\n        }\n"
            "        for (size_t i = 0; i < n * e; i++)\n"
            "            img[a][i] = initial(a, i / e, i %% e);\n"
            "        local_part(&arr[a], img[a], 0, array_name[a]);\n    }\n"
            "    char *stage = NULL;\n");
    if (stage > 0)
        fprintf(o, "    CHECK(dmsg_alloc(%zu, (void **)&stage)); /* packed chunks land here */\n",
                stage);
    fprintf(o, "    dmsg_ctr ctr;\n    CHECK(dmsg_ctr_create(&ctr));\n"
               "    double t0 = dmsg_wtime();\n"
               "    for (long r = 0; r < runs; r++) {\n");
    for (int i = 0; i < in->nstmts; i++) {
        const stmt *s = &in->stmts[i];
        fprintf(o, "        CHECK(stmt_%s(arr[ARR_%s].base, arr[ARR_%s].base, stage, ctr));\n",
                s->label, in->arrays[s->dst].name, in->arrays[s->src].name);
    }
    fprintf(o, "    }\n    double t = dmsg_wtime() - t0;\n"
               "    CHECK(dmsg_sync()); /* every deposit of the last statement is complete */\n"
               "    for (long r = 0; r < runs; r++) {\n");
    for (int i = 0; i < in->nstmts; i++) {
        const stmt *s = &in->stmts[i];
        fprintf(o, "        serial_%s(img[ARR_%s], img[ARR_%s]);\n", s->label,
                in->arrays[s->dst].name, in->arrays[s->src].name);
    }
    fprintf(o,
            "    }\n    size_t bad = 0;\n"
            "    for (int a = 0; a < NARRAYS; a++)\n"
            "        bad += local_part(&arr[a], img[a], 1, array_name[a]);\n"
            "    if (dmsg_pe() == 0)\n"
            "        printf(\"%d statements x %%ld runs on %%d PEs: %%.3f ms per run\\n\", runs,\n"
            "               dmsg_npes(), runs > 0 ? t / (double)runs * 1e3 : 0.0);\n"
            "    if (bad)\n        fprintf(stderr, \"PE %%d: %%zu elements FAILED\\n\", "
            "dmsg_pe(), bad);\n"
            "    else if (dmsg_pe() == 0)\n        printf(\"OK\\n\");\n"
            "    CHECK(dmsg_ctr_destroy(ctr));\n"
            "    for (int a = NARRAYS - 1; a >= 0; a--) {\n"
            "        CHECK(dmsg_darray_free(&arr[a]));\n        free(img[a]);\n    }\n",
            in->nstmts);
    if (stage > 0) fprintf(o, "    CHECK(dmsg_free(stage));\n");
    fprintf(o, "    CHECK(dmsg_finalize());\n    return bad ? 1 : 0;\n}\n");
}

/* ------------------------------------------------------------------ main */

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "dmsg-gen: %s: %s\n", path, strerror(errno));
        exit(1);
    }
    size_t cap = 4096, n = 0;
    char *buf = xmalloc(cap);
    size_t r;
    while ((r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += r;
        if (n + 1 == cap) buf = xrealloc(buf, cap *= 2);
    }
    fclose(f);
    buf[n] = '\0';
    if (strlen(buf) != n) {
        fprintf(stderr, "dmsg-gen: %s: contains a NUL byte\n", path);
        exit(1);
    }
    return buf;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: dmsg-gen [-m MACHINE] [--mech model|direct|pack] [--store section|adp]\n"
               "                [-o OUT.c] FILE.dgen\n"
               "  -m MACHINE   machine whose copy-transfer model picks packing or chaining per\n"
               "               pair (t3d, paragon, iwarp, t3e, or a .machine file); without it,\n"
               "               every pair is chained (direct section deposits)\n"
               "  --mech M     model (default), direct or pack for every pair\n"
               "  --store S    how chained pairs store: section (default: one section deposit\n"
               "               per piece) or adp (address-data records built by a loop unrolled\n"
               "               by 8, one dmsg_deposit_adp per piece; 4, 8, 16-byte elements)\n"
               "  -o OUT.c     output file (default: standard output)\n"
               "The description language: docs/compiler.md.\n");
}

int main(int argc, char **argv)
{
    const char *machine = NULL, *out = NULL, *file = NULL;
    gen_mech mech = MECH_MODEL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "-m") == 0 && i + 1 < argc) {
            machine = argv[++i];
        } else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else if (strcmp(argv[i], "--store") == 0 && i + 1 < argc) {
            const char *m = argv[++i];
            if (strcmp(m, "adp") == 0 || strcmp(m, "section") == 0) {
                g_store_adp = strcmp(m, "adp") == 0;
            } else {
                fprintf(stderr, "dmsg-gen: unknown store form '%s'\n", m);
                usage(stderr);
                return 2;
            }
        } else if (strcmp(argv[i], "--mech") == 0 && i + 1 < argc) {
            const char *m = argv[++i];
            if (strcmp(m, "model") == 0)
                mech = MECH_MODEL;
            else if (strcmp(m, "direct") == 0)
                mech = MECH_DIRECT;
            else if (strcmp(m, "pack") == 0)
                mech = MECH_PACK;
            else {
                fprintf(stderr, "dmsg-gen: unknown mechanism '%s'\n", m);
                usage(stderr);
                return 2;
            }
        } else if (argv[i][0] == '-' || file != NULL) {
            fprintf(stderr, "dmsg-gen: unexpected argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        } else {
            file = argv[i];
        }
    }
    if (file == NULL) {
        usage(stderr);
        return 2;
    }
    plan_model *model = NULL;
    if (machine != NULL && plan_model_open(machine, &model) != DMSG_OK) {
        fprintf(stderr, "dmsg-gen: unknown machine '%s'\n", machine);
        return 2;
    }
    char *text = read_file(file);
    static input in;
    parse(file, text, &in);
    gstmt *gs = xmalloc((size_t)in.nstmts * sizeof *gs);
    size_t stage = 0;
    for (int i = 0; i < in.nstmts; i++)
        build_stmt(&in, &in.stmts[i], mech, model, &gs[i], &stage);
    FILE *o = out != NULL ? fopen(out, "w") : stdout;
    if (o == NULL) {
        fprintf(stderr, "dmsg-gen: %s: %s\n", out, strerror(errno));
        return 1;
    }
    const char *mech_name = mech == MECH_PACK     ? "pack"
                            : mech == MECH_DIRECT ? "direct"
                            : machine != NULL     ? "model"
                                                  : "direct (no machine given)";
    emit_header(o, &in, machine, mech_name);
    emit_arrays(o, &in);
    int sizes[17] = {0};
    for (int i = 0; i < in.nstmts; i++)
        for (size_t k = 0; k < gs[i].npeers; k++)
            if (gs[i].peers[k].packed) sizes[in.arrays[in.stmts[i].src].desc.elem_size] = 1;
    for (size_t e = 1; e <= 16; e++)
        if (sizes[e]) emit_pack_loops(o, e);
    int adp_sizes[17] = {0};
    for (int i = 0; g_store_adp && i < in.nstmts; i++) {
        size_t e = in.arrays[in.stmts[i].src].desc.elem_size;
        adp_sizes[e] = e == 4 || e == 8 || e == 16;
    }
    for (size_t e = 1; e <= 16; e++)
        if (adp_sizes[e]) emit_adp_loop(o, e);
    for (int i = 0; i < in.nstmts; i++) {
        size_t e = in.arrays[in.stmts[i].src].desc.elem_size;
        emit_stmt(o, &in, &in.stmts[i], &gs[i], adp_sizes[e]);
        emit_serial(o, &in, &in.stmts[i]);
    }
    emit_main(o, &in, stage);
    if (o != stdout && fclose(o) != 0) {
        fprintf(stderr, "dmsg-gen: %s: write failed\n", out);
        return 1;
    }
    for (int i = 0; i < in.nstmts; i++) {
        free(gs[i].pieces);
        free(gs[i].peers);
        free(gs[i].peer_first);
        free(gs[i].recv_msgs);
    }
    free(gs);
    free(text);
    plan_model_close(model);
    return 0;
}
