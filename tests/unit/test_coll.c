/* The reduction kernels (dmsg/coll/reduce_ops.c), which the compiler
 * vectorizes: element by element the same values as the plain expression,
 * NaNs and signed zeros in min and max included (x wins when the two
 * compare equal or unordered), at every length and alignment around the
 * vector width, with dst the same array as x or y (the callers' in-place
 * accumulations). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>
#include "dmsg/coll/coll.h"

enum { N = 203 };

static double dv(int i, int which)
{
    static const double special[] = {NAN, -0.0, 0.0, INFINITY, -INFINITY, 1.5, -1.5};
    if ((i * 7 + which * 3) % 5 == 0)
        return special[(i + which) % 7];
    return (double)((i * 37 + which * 101) % 19) - 9.25;
}

/* The expected element: the kernels' definitions, written out. */
static double ref(dmsg_redop op, double a, double b)
{
    switch (op) {
    case DMSG_OP_SUM:
        return a + b;
    case DMSG_OP_PROD:
        return a * b;
    case DMSG_OP_MIN:
        return b < a ? b : a;
    default:
        return b > a ? b : a;
    }
}

Test(coll_kernels, double_and_float_like_scalar)
{
    static const dmsg_redop ops[] = {DMSG_OP_SUM, DMSG_OP_PROD, DMSG_OP_MIN, DMSG_OP_MAX};
    for (size_t o = 0; o < 4; o++) {
        coll_red_fn kd = dmsg_coll_red_kernel(DMSG_TYPE_DOUBLE, ops[o]);
        coll_red_fn kf = dmsg_coll_red_kernel(DMSG_TYPE_FLOAT, ops[o]);
        cr_assert(kd && kf);
        for (size_t off = 0; off < 3; off++)
            for (size_t n = 0; n + off <= N; n += n < 20 ? 1 : 61) {
                double x[N], y[N], d[N], xa[N];
                float xf[N], yf[N], df[N];
                for (int i = 0; i < N; i++) {
                    x[i] = xa[i] = dv(i, 0);
                    y[i] = dv(i, 1);
                    xf[i] = (float)x[i];
                    yf[i] = (float)y[i];
                }
                kd(d + off, x + off, y + off, n);
                kf(df + off, xf + off, yf + off, n);
                kd(xa + off, xa + off, y + off, n); /* dst == x */
                for (size_t i = off; i < off + n; i++) {
                    double w = ref(ops[o], x[i], y[i]);
                    float wf = (float)ref(ops[o], xf[i], yf[i]);
                    cr_assert(!memcmp(&d[i], &w, 8), "op %d [%zu] of %zu: %g want %g",
                              (int)ops[o], i, n, d[i], w);
                    cr_assert(!memcmp(&xa[i], &w, 8), "op %d in place [%zu]", (int)ops[o], i);
                    if (ops[o] == DMSG_OP_MIN || ops[o] == DMSG_OP_MAX || ops[o] == DMSG_OP_SUM)
                        cr_assert(!memcmp(&df[i], &wf, 4), "float op %d [%zu] of %zu: %g want %g",
                                  (int)ops[o], i, n, (double)df[i], (double)wf);
                }
            }
    }
}

Test(coll_kernels, integers_wrap_and_alias_y)
{
    coll_red_fn sum = dmsg_coll_red_kernel(DMSG_TYPE_INT32, DMSG_OP_SUM);
    coll_red_fn mx = dmsg_coll_red_kernel(DMSG_TYPE_UINT8, DMSG_OP_MAX);
    coll_red_fn xr = dmsg_coll_red_kernel(DMSG_TYPE_INT64, DMSG_OP_XOR);
    cr_assert(sum && mx && xr);
    int32_t a[N], b[N];
    uint8_t u[N], v[N];
    int64_t p[N], q[N];
    for (int i = 0; i < N; i++) {
        a[i] = i % 2 ? INT32_MAX - i : INT32_MIN + i;
        b[i] = i * 1000;
        u[i] = (uint8_t)(i * 13);
        v[i] = (uint8_t)(255 - i);
        p[i] = (int64_t)i << 40;
        q[i] = -(int64_t)i;
    }
    int32_t a0[N];
    memcpy(a0, a, sizeof a);
    sum(b, a, b, N); /* dst == y */
    mx(v, u, v, N);
    xr(q, p, q, N);
    for (int i = 0; i < N; i++) {
        cr_assert_eq(b[i], (int32_t)((uint32_t)a0[i] + (uint32_t)(i * 1000)), "int32 sum [%d]", i);
        uint8_t w = (uint8_t)(255 - i) > (uint8_t)(i * 13) ? (uint8_t)(255 - i) : (uint8_t)(i * 13);
        cr_assert_eq(v[i], w, "uint8 max [%d]", i);
        cr_assert_eq(q[i], ((int64_t)i << 40) ^ -(int64_t)i, "int64 xor [%d]", i);
    }
}
