/*
 * caf_conv.c - kind and type conversion of coindexed assignments
 * (a[2] = b where the kinds differ: integer, real, complex, logical and
 * character of any kind gfortran has, converted element by element).
 *
 * SPDX-License-Identifier: BSD-3-Clause (the LICENSE file of dmsg)
 */
#include <string.h>

#include "dmsg/front/caf/caf.h"

typedef _Float128 real_t; /* wide enough for every real kind */

static __int128 get_int(const char *p, size_t len)
{
    switch (len) {
    case 1: { int8_t v; memcpy(&v, p, 1); return v; }
    case 2: { int16_t v; memcpy(&v, p, 2); return v; }
    case 4: { int32_t v; memcpy(&v, p, 4); return v; }
    case 8: { int64_t v; memcpy(&v, p, 8); return v; }
    default: { __int128 v; memcpy(&v, p, 16); return v; }
    }
}

static void put_int(char *p, size_t len, __int128 x)
{
    switch (len) {
    case 1: { int8_t v = (int8_t)x; memcpy(p, &v, 1); break; }
    case 2: { int16_t v = (int16_t)x; memcpy(p, &v, 2); break; }
    case 4: { int32_t v = (int32_t)x; memcpy(p, &v, 4); break; }
    case 8: { int64_t v = (int64_t)x; memcpy(p, &v, 8); break; }
    default: memcpy(p, &x, 16);
    }
}

/* Real kinds 4, 8, 10 and 16 (kind 10 is stored in 16 bytes). */
static real_t get_real(const char *p, int kind)
{
    switch (kind) {
    case 4: { float v; memcpy(&v, p, 4); return v; }
    case 8: { double v; memcpy(&v, p, 8); return v; }
    case 10: { long double v; memcpy(&v, p, sizeof v); return v; }
    default: { _Float128 v; memcpy(&v, p, 16); return v; }
    }
}

static void put_real(char *p, int kind, real_t x)
{
    switch (kind) {
    case 4: { float v = (float)x; memcpy(p, &v, 4); break; }
    case 8: { double v = (double)x; memcpy(p, &v, 8); break; }
    case 10: { long double v = (long double)x; memcpy(p, &v, sizeof v); break; }
    default: memcpy(p, &x, 16);
    }
}

/* Complex of kind k: two reals of kind k, elem_len/2 bytes apart. */
static int numeric(int t)
{
    return t == CAF_BT_INTEGER || t == CAF_BT_REAL || t == CAF_BT_COMPLEX;
}

static void conv_char(char *d, int dk, size_t dlen, const char *s, int sk, size_t slen)
{
    size_t dn = dlen / (size_t)dk, sn = slen / (size_t)sk;
    for (size_t i = 0; i < dn; i++) {
        uint32_t c = ' ';
        if (i < sn) {
            if (sk == 4)
                memcpy(&c, s + 4 * i, 4);
            else
                c = (unsigned char)s[i];
        }
        if (dk == 4)
            memcpy(d + 4 * i, &c, 4);
        else
            d[i] = c > 255 ? '?' : (char)c;
    }
}

int dmsg_caf_convert(void *dst, int dtype, int dkind, size_t dlen, const void *src, int stype,
                     int skind, size_t slen, size_t n)
{
    char *d = dst;
    const char *s = src;
    if (dtype == stype && dlen == slen && (dkind == skind || dtype == CAF_BT_DERIVED)) {
        memmove(d, s, n * dlen);
        return 0;
    }
    if (dtype == CAF_BT_CHARACTER && stype == CAF_BT_CHARACTER) {
        for (size_t i = 0; i < n; i++)
            conv_char(d + i * dlen, dkind, dlen, s + i * slen, skind, slen);
        return 0;
    }
    if (dtype == CAF_BT_LOGICAL && stype == CAF_BT_LOGICAL) {
        for (size_t i = 0; i < n; i++)
            put_int(d + i * dlen, dlen, get_int(s + i * slen, slen) != 0);
        return 0;
    }
    if (!numeric(dtype) || !numeric(stype))
        return -1;
    for (size_t i = 0; i < n; i++) {
        const char *sp = s + i * slen;
        char *dp = d + i * dlen;
        real_t re, im = 0;
        if (stype == CAF_BT_INTEGER) {
            __int128 v = get_int(sp, slen);
            if (dtype == CAF_BT_INTEGER) {
                put_int(dp, dlen, v);
                continue;
            }
            re = (real_t)v;
        } else if (stype == CAF_BT_REAL) {
            re = get_real(sp, skind);
        } else {
            re = get_real(sp, skind);
            im = get_real(sp + slen / 2, skind);
        }
        if (dtype == CAF_BT_INTEGER)
            put_int(dp, dlen, (__int128)re);
        else if (dtype == CAF_BT_REAL)
            put_real(dp, dkind, re);
        else {
            put_real(dp, dkind, re);
            put_real(dp + dlen / 2, dkind, im);
        }
    }
    return 0;
}
