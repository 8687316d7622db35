/*
 * dmsg-gen - a code generator for array assignments on distributed arrays
 * (docs/compiler.md). The parts, one job each:
 *
 *   lex.c     the lexer: tokens with their line and column, fail_at
 *   parse.c   the parser: declarations and statements into an input
 *   check.c   the checks of what was parsed (names, grids, matched ranges)
 *   fold.c    the tables of a statement: pieces per pair, mechanisms, counts
 *   emit.c    the statement functions and their constant tables
 *   driver.c  the serial evaluation and the driver main of the program
 *   main.c    the command line
 *
 * Errors in the description name FILE:LINE:COLUMN and exit with status 1.
 */
#ifndef DMSG_GEN_H
#define DMSG_GEN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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
    char text[256]; /* the statement as written (blanks collapsed, cut with "..."), for comments */
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

/* ---------------------------------------------------------------- lex.c */

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

/* Prints "FILE:LINE:COL: error: ..." and exits with status 1. */
void fail_at(const lexer *lx, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5), noreturn));
#define FAIL_TOK(lx, ...) fail_at((lx), (lx)->tline, (lx)->tcol, __VA_ARGS__)

void lex_next(lexer *lx); /* the next token (comments and continuations skipped) */
int lex_is_punct(const lexer *lx, char c);
int lex_is_word(const lexer *lx, const char *w);
int lex_is_op(const lexer *lx);            /* an arithmetic operator: * - + / % ^ */
const char *lex_tok_desc(const lexer *lx); /* "'x'", "end of line", ... */
void lex_expect_punct(lexer *lx, char c);
long long lex_expect_num(lexer *lx, const char *what);
long long lex_expect_snum(lexer *lx, const char *what); /* optionally signed */
void lex_expect_ident(lexer *lx, char *out, const char *what);
void lex_expect_eol(lexer *lx);

/* -------------------------------------------------------------- parse.c */

/* Parses the description text of file into *in (exits on an error). */
void gen_parse(const char *file, const char *text, input *in);
int gen_find_grid(const input *in, const char *name);
int gen_find_array(const input *in, const char *name);

/* -------------------------------------------------------------- check.c */

/* A new grid or array name: not a keyword, not declared before. */
void gen_check_new_name(lexer *lx, const input *in, const char *name, int line, int col);
/* Gives each of the nd distributed dimensions of a its dimension of grid
 * gr: at[d] if >= 0 (written at column atcol[d]), else the next in order. */
void gen_check_onto(lexer *lx, array *a, const grid *gr, const int *at, const int *atcol, int nd);
/* The local layout of a (dmsg_darray_init): BLOCK(k) and sizes that fit. */
void gen_check_layout(lexer *lx, array *a);
/* The statement's ranges against each other: dt[0..ndt) and st[0..nst) are
 * the dimensions of dst and src that are triplets, perm the order in which
 * the source ranges match the destination's; sets s->perm. */
void gen_check_stmt(lexer *lx, const input *in, stmt *s, const int *dt, int ndt, const int *st,
                    int nst, const int *perm, int rcol);
/* The whole description: some statement, pes not below any grid. */
void gen_check_input(lexer *lx, input *in);
/* Elements of dimension k of a section. */
size_t gen_sec_count(const dmsg_section *s, int k);
size_t gen_sec_count_1(size_t lo, size_t hi, ptrdiff_t step); /* of one triplet */

/* --------------------------------------------------------------- fold.c */

/* Limits of one statement (docs/compiler.md, section 9), checked before
 * anything is computed or allocated for it. The closed form walks the
 * distribution blocks a section touches, one interval each, per matched
 * dimension: at most GEN_MAX_BLOCKS per dimension and side (a 2^40-element
 * CYCLIC(3) array touches 2^40 / 3). The generated tables hold every piece
 * as a constant: at most GEN_MAX_PIECES per statement. */
#define GEN_MAX_BLOCKS (1u << 20)
#define GEN_MAX_PIECES (1u << 18)

/* Everything generated for one statement: per sender, its partners. */
/* A pair's periodic pieces (a CYCLIC(a) -> CYCLIC(b) pattern) as one
 * period's runs: a packed pair gathers and scatters them by an emitted loop
 * over the periods, the runs of one period written out as straight code
 * (at most GEN_LOOP_MAX_RUNS, and the group's own bound). */
#define GEN_LOOP_MAX_RUNS 64

typedef struct gloop {
    plan_group *grp;     /* sorted runs, strides (the library's group of the pair) */
    size_t npieces;      /* the pair's first npieces pieces are the group's */
    size_t full, periods; /* periods every run takes part in; periods in all */
    size_t period_bytes; /* payload of one whole period */
} gloop;

typedef struct gpeer {
    int q;
    size_t first, n; /* into pieces */
    size_t bytes, stage_off;
    int packed;
    gloop loop; /* loop.grp NULL: no periodic group */
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

typedef enum { MECH_MODEL, MECH_DIRECT, MECH_PACK } gen_mech;

/* The tables of statement s for in->npes PEs, the mechanism of each pair by
 * mech (MECH_MODEL: model's prediction; no model: direct); raises
 * *stage_need to the staging bytes the statement needs on any PE. */
void gen_fold_stmt(const input *in, const stmt *s, gen_mech mech, const plan_model *model, gstmt *g,
                   size_t *stage_need);
void gen_fold_free(gstmt *g);
/* An array with `*` in every dimension: every PE of its grid holds a copy,
 * and a statement into it writes every copy. */
int gen_replicated(const dmsg_darray_desc *d);

/* calloc and realloc that exit with a message when memory runs out. */
void *gen_xmalloc(size_t n);
void *gen_xrealloc(void *p, size_t n);

/* --------------------------------------------------------------- emit.c */

void gen_emit_header(FILE *o, const input *in, const char *machine, const char *mech);
void gen_emit_arrays(FILE *o, const input *in);
/* gather_E and scatter_E, the unrolled pack loops of E-byte elements. */
void gen_emit_pack_loops(FILE *o, size_t e);
/* adp_E, the unrolled address-data record loop of E-byte elements. */
void gen_emit_adp_loop(FILE *o, size_t e);
/* The tables and the function stmt_LABEL of one statement. */
void gen_emit_stmt(FILE *o, const input *in, const stmt *s, const gstmt *g, int adp);

/* ------------------------------------------------------------- driver.c */

/* serial_LABEL: the statement evaluated on whole-array images. */
void gen_emit_serial(FILE *o, const input *in, const stmt *s);
/* main: arrays, the statements, the check against the serial evaluation. */
void gen_emit_main(FILE *o, const input *in, size_t stage);

#endif
