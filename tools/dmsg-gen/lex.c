/* dmsg-gen's lexer: identifiers, numbers, the punctuation of the language,
 * line ends as tokens (one declaration or statement per line), `#` comments
 * and `\` continuations skipped; every token keeps its line and column. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "tools/dmsg-gen/gen.h"

void fail_at(const lexer *lx, int line, int col, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s:%d:%d: error: ", lx->file, line, col);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

void lex_next(lexer *lx)
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
    /* The arithmetic operators are tokens too, though the language has no
     * expressions: so the parser can say that an expression is what it
     * does not support, rather than that a character is unexpected. */
    if (strchr("(),:=@*-+/%^", c) != NULL) {
        lx->text[0] = c;
        lx->text[1] = '\0';
        lx->kind = T_PUNCT;
        lx->p++;
        return;
    }
    FAIL_TOK(lx, "unexpected character '%c'", c);
}

int lex_is_punct(const lexer *lx, char c)
{
    return lx->kind == T_PUNCT && lx->text[0] == c;
}

int lex_is_op(const lexer *lx)
{
    return lx->kind == T_PUNCT && strchr("*-+/%^", lx->text[0]) != NULL;
}

int lex_is_word(const lexer *lx, const char *w)
{
    return lx->kind == T_IDENT && strcmp(lx->text, w) == 0;
}

const char *lex_tok_desc(const lexer *lx)
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

void lex_expect_punct(lexer *lx, char c)
{
    if (!lex_is_punct(lx, c)) FAIL_TOK(lx, "expected '%c', found %s", c, lex_tok_desc(lx));
    lex_next(lx);
}

long long lex_expect_num(lexer *lx, const char *what)
{
    if (lx->kind != T_NUM) FAIL_TOK(lx, "expected %s (a number), found %s", what, lex_tok_desc(lx));
    long long v = lx->num;
    lex_next(lx);
    return v;
}

/* A signed number. */
long long lex_expect_snum(lexer *lx, const char *what)
{
    int neg = 0;
    if (lex_is_punct(lx, '-')) {
        neg = 1;
        lex_next(lx);
    }
    long long v = lex_expect_num(lx, what);
    return neg ? -v : v;
}

void lex_expect_ident(lexer *lx, char *out, const char *what)
{
    if (lx->kind != T_IDENT) FAIL_TOK(lx, "expected %s, found %s", what, lex_tok_desc(lx));
    strcpy(out, lx->text);
    lex_next(lx);
}

void lex_expect_eol(lexer *lx)
{
    if (lx->kind != T_NL && lx->kind != T_EOF)
        FAIL_TOK(lx, "expected end of line, found %s", lex_tok_desc(lx));
    if (lx->kind == T_NL) lex_next(lx);
}
