/* The settings machinery (env.h): parsing, loading and printing any table. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "dmsg/base/env.h"

/* Length of the decimal number at the start of s: an optional '-' (minus),
 * digits, and with frac a '.' and more digits; 0 when there is none. Every
 * number a setting takes is checked by this before strtoul, strtol or strtod
 * reads it, because those also take what a user does not mean as decimal:
 * strtod reads 0x10 as 16 and 1e3 as 1000, and all of them skip leading
 * blanks and a '+'. Leading zeros stay decimal (010 is ten). */
static size_t decimal_len(const char *s, int minus, int frac)
{
    size_t n = (minus && *s == '-') ? 1 : 0, digits = 0;
    while (isdigit((unsigned char)s[n]))
        n++, digits++;
    if (!digits)
        return 0;
    if (frac && s[n] == '.') {
        size_t f = 0;
        while (isdigit((unsigned char)s[n + 1 + f]))
            f++;
        if (!f)
            return 0; /* "5." is a typo as likely as a number */
        n += 1 + f;
    }
    return n;
}

static int decimal(const char *s, int minus, int frac)
{
    size_t n = decimal_len(s, minus, frac);
    return n > 0 && s[n] == '\0';
}

static dmsg_status parse_size(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!decimal_len(s, 0, 0))
        return DMSG_ERR_ENV;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return DMSG_ERR_ENV;
    unsigned shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K': shift = 10; end++; break;
    case 'M': shift = 20; end++; break;
    case 'G': shift = 30; end++; break;
    case 'T': shift = 40; end++; break;
    default: break;
    }
    /* "iB" only after a multiplier (2GiB): "1iB" is a typo, not 1 byte. */
    if (shift && *end == 'i' && toupper((unsigned char)end[1]) == 'B')
        end += 2;
    else if (toupper((unsigned char)*end) == 'B')
        end++;
    if (*end != '\0' || (shift && v > (UINT64_MAX >> shift)))
        return DMSG_ERR_ENV;
    *out = (uint64_t)v << shift;
    return DMSG_OK;
}

dmsg_status dmsg_env_parse(dmsg_env_type type, const char *s, void *out, size_t outlen)
{
    char *end;
    errno = 0;
    switch (type) {
    case DMSG_ENV_PATH:
        if (strlen(s) >= outlen)
            return DMSG_ERR_ENV;
        strcpy(out, s);
        return DMSG_OK;
    case DMSG_ENV_STRING:
        if (strlen(s) >= outlen || !*s)
            return DMSG_ERR_ENV;
        strcpy(out, s);
        return DMSG_OK;
    case DMSG_ENV_SIZE: {
        uint64_t v;
        if (parse_size(s, &v))
            return DMSG_ERR_ENV;
        if (outlen != sizeof v)
            return DMSG_ERR_ENV;
        *(uint64_t *)out = v;
        return DMSG_OK;
    }
    case DMSG_ENV_UINT: {
        if (outlen != sizeof(uint32_t) || !decimal(s, 0, 0))
            return DMSG_ERR_ENV;
        unsigned long v = strtoul(s, &end, 10);
        if (errno || *end || v > UINT32_MAX)
            return DMSG_ERR_ENV;
        *(uint32_t *)out = (uint32_t)v;
        return DMSG_OK;
    }
    case DMSG_ENV_SECONDS:
    case DMSG_ENV_BOUND: {
        if (!decimal(s, 0, 1))
            return DMSG_ERR_ENV;
        double v = strtod(s, &end);
        if (outlen != sizeof v || errno || *end || end == s || !isfinite(v) || v < 0 ||
            (type == DMSG_ENV_BOUND && v == 0))
            return DMSG_ERR_ENV;
        *(double *)out = v;
        return DMSG_OK;
    }
    case DMSG_ENV_LONG: {
        if (!decimal(s, 1, 0))
            return DMSG_ERR_ENV;
        long v = strtol(s, &end, 10);
        if (outlen != sizeof v || errno || *end || end == s || v < -1)
            return DMSG_ERR_ENV;
        *(long *)out = v;
        return DMSG_OK;
    }
    case DMSG_ENV_BOOL:
        if (outlen != sizeof(int))
            return DMSG_ERR_ENV;
        if (!strcmp(s, "0") || !strcmp(s, "no") || !strcmp(s, "false") || !strcmp(s, "off"))
            *(int *)out = 0;
        else if (!strcmp(s, "1") || !strcmp(s, "yes") || !strcmp(s, "true") || !strcmp(s, "on"))
            *(int *)out = 1;
        else
            return DMSG_ERR_ENV;
        return DMSG_OK;
    }
    return DMSG_ERR_ENV;
}

/* What a value of each type looks like, for the message about a bad one. */
static const char *expected(dmsg_env_type type)
{
    switch (type) {
    case DMSG_ENV_STRING: return "a non-empty name that is not too long";
    case DMSG_ENV_SIZE: return "a decimal byte count, optionally with K, M, G or T";
    case DMSG_ENV_UINT: return "a decimal whole number from 0 to 4294967295";
    case DMSG_ENV_SECONDS: return "a decimal number >= 0, such as 20 or 2.5";
    case DMSG_ENV_BOUND: return "a decimal number > 0, such as 20 or 2.5";
    case DMSG_ENV_LONG: return "a decimal whole number >= -1";
    case DMSG_ENV_BOOL: return "0, no, false, off, 1, yes, true or on";
    case DMSG_ENV_PATH: return "a path that is not too long";
    }
    return "a valid value";
}

dmsg_status dmsg_env_load(const dmsg_env_table *t, void *out)
{
    char buf[1024]; /* the largest table's struct; checked below */
    if (t->size > sizeof buf)
        return DMSG_FAIL(DMSG_ERR_ENV, "settings struct of %zu bytes exceeds %zu", t->size,
                         sizeof buf);
    memset(buf, 0, t->size);
    for (size_t i = 0; i < t->n; i++) {
        const dmsg_env_entry *e = &t->rows[i];
        const char *v = getenv(e->name);
        const char *text = (v && *v) ? v : e->def;
        if (dmsg_env_parse(e->type, text, buf + e->field, e->size))
            return DMSG_FAIL(DMSG_ERR_ENV, "%s=\"%s\" is not valid: expected %s (%s)", e->name,
                             text, expected(e->type), e->help);
    }
    memcpy(out, buf, t->size);
    return DMSG_OK;
}

static const char *shown_default(const dmsg_env_entry *e)
{
    return e->def[0] ? e->def : "none";
}

void dmsg_env_widths(const dmsg_env_table *t, int *wname, int *wdef)
{
    for (size_t i = 0; i < t->n; i++) {
        int n = (int)strlen(t->rows[i].name), d = (int)strlen(shown_default(&t->rows[i]));
        *wname = n > *wname ? n : *wname;
        *wdef = d > *wdef ? d : *wdef;
    }
}

void dmsg_env_print(FILE *f, const dmsg_env_table *t, int wname, int wdef)
{
    for (size_t i = 0; i < t->n; i++) {
        const dmsg_env_entry *e = &t->rows[i];
        fprintf(f, "  %-*s  default %-*s  %s\n", wname, e->name, wdef, shown_default(e), e->help);
    }
}

dmsg_status dmsg_env_choose(const char *var, const char *val, const dmsg_env_choice *c, size_t n,
                            int *out)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(val, c[i].name)) {
            *out = c[i].value;
            return DMSG_OK;
        }
    char names[512] = "";
    size_t used = 0;
    for (size_t i = 0; i < n && used < sizeof names; i++) {
        int k = snprintf(names + used, sizeof names - used, " %s", c[i].name);
        if (k < 0)
            break;
        used += (size_t)k;
    }
    return DMSG_FAIL(DMSG_ERR_ENV, "%s=%s is not one of:%s", var, val, names);
}
