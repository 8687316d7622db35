/* Helpers shared by the PE test cases: reporting, test data, a reference
 * section copy and segment bounds. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "pe.h"

int pe_fail(const char *file, int line, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "PE %d: %s:%d: %s\n", dmsg_pe(), file, line, msg);
    fflush(stderr);
    return 1;
}

const char *pe_status_name(int st)
{
    static const char *const names[] = {
        "DMSG_OK",           "DMSG_ERR_ARG",        "DMSG_ERR_NULL",     "DMSG_ERR_PE",
        "DMSG_ERR_RANGE",    "DMSG_ERR_OVERFLOW",   "DMSG_ERR_NOMEM",    "DMSG_ERR_COLLECTIVE",
        "DMSG_ERR_COUNTER",  "DMSG_ERR_NOT_INIT",   "DMSG_ERR_STATE",    "DMSG_ERR_TIMEOUT",
        "DMSG_ERR_TRANSPORT", "DMSG_ERR_ABORTED",   "DMSG_ERR_ALIGN",    "DMSG_ERR_UNSUPPORTED",
        "DMSG_ERR_HANDLE",   "DMSG_ERR_ENV",        "DMSG_ERR_SIZE",
    };
    if (st <= 0 && -st < (int)(sizeof names / sizeof names[0]))
        return names[-st];
    return "(not a dmsg status)";
}

int pe_me(void)
{
    return dmsg_pe();
}

int pe_n(void)
{
    return dmsg_npes();
}

int pe_up(int k)
{
    int n = dmsg_npes();
    return (dmsg_pe() + k % n) % n;
}

int pe_down(int k)
{
    int n = dmsg_npes();
    return (dmsg_pe() - k % n + n) % n;
}

unsigned char pe_pattern(int pe, uint32_t salt, size_t i)
{
    /* A cheap hash, so shifted or transposed data never matches by accident. */
    uint64_t x = (uint64_t)i * 0x9E3779B97F4A7C15ull ^ ((uint64_t)salt << 20) ^ (uint64_t)(pe + 1);
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 32;
    return (unsigned char)x;
}

void pe_fill(void *buf, size_t n, int pe, uint32_t salt)
{
    unsigned char *b = buf;
    for (size_t i = 0; i < n; i++)
        b[i] = pe_pattern(pe, salt, i);
}

int pe_check_pattern(const void *buf, size_t n, int pe, uint32_t salt, const char *what)
{
    const unsigned char *b = buf;
    for (size_t i = 0; i < n; i++) {
        unsigned char want = pe_pattern(pe, salt, i);
        if (b[i] != want)
            return pe_fail(__FILE__, __LINE__, "%s: byte %zu of %zu: expected 0x%02x got 0x%02x",
                           what, i, n, want, b[i]);
    }
    return 0;
}

int pe_check_bytes(const void *buf, size_t n, unsigned char v, const char *what)
{
    const unsigned char *b = buf;
    for (size_t i = 0; i < n; i++)
        if (b[i] != v)
            return pe_fail(__FILE__, __LINE__, "%s: byte %zu of %zu: expected 0x%02x got 0x%02x",
                           what, i, n, v, b[i]);
    return 0;
}

int pe_check_equal(const void *got, const void *want, size_t n, const char *what)
{
    const unsigned char *g = got, *w = want;
    for (size_t i = 0; i < n; i++)
        if (g[i] != w[i])
            return pe_fail(__FILE__, __LINE__, "%s: byte %zu of %zu: expected 0x%02x got 0x%02x",
                           what, i, n, w[i], g[i]);
    return 0;
}

size_t pe_layout_total(const dmsg_layout *l)
{
    size_t t = 1;
    for (int d = 0; d < l->ndims; d++)
        t *= l->count[d];
    return t;
}

ptrdiff_t pe_layout_offset(const dmsg_layout *l, size_t k)
{
    ptrdiff_t off = 0;
    for (int d = 0; d < l->ndims; d++) {
        off += (ptrdiff_t)(k % l->count[d]) * l->stride[d];
        k /= l->count[d];
    }
    return off;
}

void pe_ref_section(char *dst, const dmsg_layout *dl, const char *src, const dmsg_layout *sl,
                    size_t elem_size)
{
    size_t total = pe_layout_total(dl);
    for (size_t k = 0; k < total; k++)
        memcpy(dst + pe_layout_offset(dl, k), src + pe_layout_offset(sl, k), elem_size);
}

void pe_layout_extent(const dmsg_layout *l, size_t elem_size, size_t *origin, size_t *bytes)
{
    ptrdiff_t lo = 0, hi = (ptrdiff_t)elem_size;
    for (int d = 0; d < l->ndims; d++) {
        ptrdiff_t span = (ptrdiff_t)(l->count[d] - 1) * l->stride[d];
        if (span < 0)
            lo += span;
        else
            hi += span;
    }
    *origin = (size_t)-lo;
    *bytes = (size_t)(hi - lo);
}

dmsg_layout pe_l3(size_t c0, ptrdiff_t s0, size_t c1, ptrdiff_t s1, size_t c2, ptrdiff_t s2)
{
    dmsg_layout l;
    memset(&l, 0, sizeof l);
    l.ndims = 3;
    l.count[0] = c0;
    l.stride[0] = s0;
    l.count[1] = c1;
    l.stride[1] = s1;
    l.count[2] = c2;
    l.stride[2] = s2;
    return l;
}

dmsg_layout pe_l2(size_t c0, ptrdiff_t s0, size_t c1, ptrdiff_t s1)
{
    dmsg_layout l = pe_l3(c0, s0, c1, s1, 0, 0);
    l.ndims = 2;
    l.count[2] = 0;
    return l;
}

dmsg_layout pe_l1(size_t c0, ptrdiff_t s0)
{
    dmsg_layout l = pe_l3(c0, s0, 0, 0, 0, 0);
    l.ndims = 1;
    return l;
}

static int sym_at(uintptr_t a)
{
    return dmsg_addr_is_symmetric((const void *)a, 1);
}

char *pe_segment_end(void *sym)
{
    /* sym is inside the segment: the end lies in (sym, sym + size]. */
    uintptr_t lo = (uintptr_t)sym, hi = (uintptr_t)sym + dmsg_segment_size();
    while (hi - lo > 1) {
        uintptr_t mid = lo + (hi - lo) / 2;
        if (sym_at(mid))
            lo = mid;
        else
            hi = mid;
    }
    return (char *)hi;
}

char *pe_segment_base(void *sym)
{
    uintptr_t lo = (uintptr_t)sym - dmsg_segment_size(), hi = (uintptr_t)sym;
    /* Invariant: lo is outside (or the first byte before the segment), hi inside. */
    while (hi - lo > 1) {
        uintptr_t mid = lo + (hi - lo) / 2;
        if (sym_at(mid))
            hi = mid;
        else
            lo = mid;
    }
    return (char *)hi;
}

void *pe_alloc(size_t bytes)
{
    void *p = NULL;
    int st = dmsg_alloc(bytes, &p);
    if (st != DMSG_OK) {
        pe_fail(__FILE__, __LINE__, "dmsg_alloc(%zu): expected DMSG_OK got %s", bytes,
                pe_status_name(st));
        return NULL;
    }
    if (p == NULL)
        pe_fail(__FILE__, __LINE__, "dmsg_alloc(%zu) returned DMSG_OK and a NULL pointer", bytes);
    return p;
}

double pe_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
