/* pvm_packf and pvm_unpackf: PVM's printf-like formats, each conversion one
 * pvm_pk / pvm_upk of its type. A format is walked three times: its syntax
 * alone, then with the arguments but without packing (counts, strides and
 * addresses checked), then for real, so that a bad format or argument
 * changes nothing (pvm3.h says where this differs from PVM). */
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include "dmsg/front/pvm/pvm_impl.h"

enum { SYNTAX, CHECK, DO };

/* One conversion: '%' [count] ['.' stride] {h l u} conv. */
typedef struct conv {
    int count, stride;        /* from the format; -1: '*' (an argument) */
    int byaddr;               /* a count or a stride was given */
    int h, l;                 /* 'u' changes nothing here: same sizes */
    char c;
} conv;

/* Digits at *f as an int; PvmBadParam past INT_MAX. */
static int number(const char **f, int *v)
{
    long n = 0;
    while (**f >= '0' && **f <= '9') {
        n = 10 * n + (**f - '0');
        if (n > INT_MAX)
            return PvmBadParam;
        (*f)++;
    }
    *v = (int)n;
    return PvmOk;
}

/* Parses the conversion after a '%' at *f and moves *f past it. */
static int parse(const char **f, conv *cv)
{
    *cv = (conv){.count = 1, .stride = 1};
    if (**f == '*') {
        cv->count = -1;
        cv->byaddr = 1;
        (*f)++;
    } else if (**f >= '0' && **f <= '9') {
        cv->byaddr = 1;
        if (number(f, &cv->count))
            return PvmBadParam;
    }
    if (**f == '.') {
        cv->byaddr = 1;
        (*f)++;
        if (**f == '*') {
            cv->stride = -1;
            (*f)++;
        } else if (**f >= '0' && **f <= '9' && number(f, &cv->stride)) {
            return PvmBadParam;
        }
    }
    for (;; (*f)++) {
        if (**f == 'h')
            cv->h = 1;
        else if (**f == 'l')
            cv->l = 1;
        else if (**f != 'u')
            break;
    }
    cv->c = **f;
    switch (cv->c) {
    case 'c': case 'd': case 'f': case 'x': case 's': (*f)++; return PvmOk;
    default: return PvmBadParam; /* '+' after the start, '%' at the end, others */
    }
}

/* Bytes of one item of a conversion. */
static size_t item_size(const conv *cv)
{
    switch (cv->c) {
    case 'c': return 1;
    case 'd': return cv->l ? sizeof(long) : cv->h ? sizeof(short) : sizeof(int);
    case 'f': return cv->l ? sizeof(double) : sizeof(float);
    case 'x': return cv->l ? 2 * sizeof(double) : 2 * sizeof(float);
    default: return 1;
    }
}

/* Packs one value passed by value (copied: it lives in this frame). */
static int pack_value(const conv *cv, va_list *ap, int mode)
{
    union {
        char c;
        short h;
        int i;
        long l;
        float f;
        double d;
    } v;
    switch (cv->c) {
    case 'c': v.c = (char)va_arg(*ap, int); break;
    case 'd':
        if (cv->l)
            v.l = va_arg(*ap, long);
        else if (cv->h)
            v.h = (short)va_arg(*ap, int);
        else
            v.i = va_arg(*ap, int);
        break;
    case 'f':
        if (cv->l)
            v.d = va_arg(*ap, double);
        else
            v.f = (float)va_arg(*ap, double); /* a float argument arrives as a double */
        break;
    default: return PvmBadParam;
    }
    return mode == DO ? dmsg_pvm_pack(&v, 1, 1, item_size(cv), 0) : PvmOk;
}

/* Takes a conversion's '*' count and stride from the arguments. */
static int stars(conv *cv, va_list *ap)
{
    if (cv->count < 0 && (cv->count = va_arg(*ap, int)) < 0)
        return PvmBadParam;
    if (cv->stride < 0 && (cv->stride = va_arg(*ap, int)) < 1)
        return PvmBadParam;
    return cv->stride < 1 ? PvmBadParam : PvmOk;
}

/* One pass over fmt (see the top of the file); ap is NULL for SYNTAX. */
static int walk(const char *fmt, va_list *ap, int mode, int unpacking)
{
    for (const char *f = fmt; *f;) {
        if (*f++ != '%')
            continue; /* text between conversions is skipped, as PVM does */
        conv cv;
        int rc = parse(&f, &cv);
        if (rc)
            return rc;
        if (mode == SYNTAX)
            continue;
        if ((rc = stars(&cv, ap)))
            return rc;
        if (!unpacking && !cv.byaddr && cv.c != 'x' && cv.c != 's') {
            if ((rc = pack_value(&cv, ap, mode)))
                return rc;
            continue;
        }
        void *p = va_arg(*ap, void *);
        if (!p && (cv.count > 0 || cv.c == 's'))
            return PvmBadParam;
        if (mode != DO)
            continue;
        if (cv.c == 's')
            rc = unpacking ? pvm_upkstr(p) : pvm_pkstr(p);
        else if (unpacking)
            rc = dmsg_pvm_unpack(p, cv.count, cv.stride, item_size(&cv));
        else
            rc = dmsg_pvm_pack(p, cv.count, cv.stride, item_size(&cv), 1);
        if (rc)
            return rc;
    }
    return PvmOk;
}

int pvm_packf(const char *fmt, ...)
{
    pvm_state *g = &dmsg_pvm_g;
    int rc = dmsg_pvm_enroll();
    if (rc)
        return rc;
    if (!fmt)
        return dmsg_pvm_err(PvmBadParam);
    int init = fmt[0] == '%' && fmt[1] == '+';
    const char *f = init ? fmt + 2 : fmt;
    if ((rc = walk(f, NULL, SYNTAX, 0)))
        return dmsg_pvm_err(rc);
    va_list ap, dry;
    va_start(ap, fmt);
    int enc = init ? va_arg(ap, int) : 0;
    if (init && enc != PvmDataDefault && enc != PvmDataRaw && enc != PvmDataInPlace &&
        enc != PvmDataTrace)
        rc = PvmBadParam;
    else if (!init && !dmsg_pvm_buf(g->sbuf))
        rc = PvmNoBuf;
    if (!rc) {
        va_copy(dry, ap);
        rc = walk(f, &dry, CHECK, 0);
        va_end(dry);
    }
    if (!rc && init) {
        int id = pvm_initsend(enc);
        rc = id < 0 ? id : PvmOk;
    }
    if (!rc) {
        pvm_buf *b = dmsg_pvm_buf(g->sbuf);
        pvm_mark m;
        dmsg_pvm_mark_get(b, &m);
        if ((rc = walk(f, &ap, DO, 0)))
            dmsg_pvm_mark_undo(b, &m); /* PvmNoMem or PvmOverflow part way */
    }
    va_end(ap);
    return rc ? dmsg_pvm_err(rc) : PvmOk;
}

int pvm_unpackf(const char *fmt, ...)
{
    int rc = dmsg_pvm_enroll();
    if (rc)
        return rc;
    if (!fmt)
        return dmsg_pvm_err(PvmBadParam);
    if ((rc = walk(fmt, NULL, SYNTAX, 1)))
        return dmsg_pvm_err(rc);
    if (!dmsg_pvm_buf(dmsg_pvm_g.rbuf))
        return dmsg_pvm_err(PvmNoBuf);
    va_list ap, dry;
    va_start(ap, fmt);
    va_copy(dry, ap);
    rc = walk(fmt, &dry, CHECK, 1);
    va_end(dry);
    if (!rc)
        rc = walk(fmt, &ap, DO, 1);
    va_end(ap);
    return rc ? dmsg_pvm_err(rc) : PvmOk;
}
