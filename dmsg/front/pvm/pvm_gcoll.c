/* PVM's group collectives (reduce, scatter, gather) and its reduction
 * functions. They are messages in a context of their own (PVM_CTX_GROUP),
 * root to members by instance number, because PVM's groups are dynamic
 * (the core's collectives need a team made by all of its members) and a
 * member other than the root may return before the others arrive; each
 * exchange names its partner, so a fast member's next collective with the
 * same tag is never taken for this one. */
#include <stdlib.h>
#include <string.h>
#include "dmsg/front/pvm/pvm_impl.h"

extern int dmsg_pvm_group_members(const char *name, int64_t *tids, int *gi_out);

typedef struct gctx {
    int64_t *m;
    int n, me_inst, root_pe;
    size_t bytes;
} gctx;

static int setup(gctx *c, const char *group, int root, int count, int type, int tag,
                 const void *p1, const void *p2)
{
    pvm_state *g = &dmsg_pvm_g;
    int rc = dmsg_pvm_enroll();
    if (rc)
        return rc;
    size_t size = dmsg_pvm_type_size(type);
    if (!size || type == PVM_STR || count < 0 || tag < 0 || (count && (!p1 || !p2)))
        return PvmBadParam;
    if (__builtin_mul_overflow((size_t)count, size, &c->bytes))
        return PvmOverflow;
    c->m = calloc((size_t)g->npes, sizeof *c->m);
    if (!c->m)
        return PvmNoMem;
    c->n = dmsg_pvm_group_members(group, c->m, NULL);
    if (c->n < 0) {
        rc = c->n;
        goto fail;
    }
    c->me_inst = -1;
    for (int i = 0; i < g->npes; i++)
        if (c->m[i] == dmsg_pvm_tid(g->me))
            c->me_inst = i;
    rc = PvmNotInGroup;
    if (c->me_inst < 0)
        goto fail;
    rc = PvmNoInst;
    if (root < 0 || root >= g->npes || !c->m[root])
        goto fail;
    c->root_pe = dmsg_pvm_pe((int)c->m[root]);
    return PvmOk;
fail:
    free(c->m);
    c->m = NULL;
    return rc;
}

static int recv_from(int pe, int tag, void *p, size_t bytes)
{
    size_t got = 0;
    int rc = dmsg_pvm_recv_bytes(pe, tag, PVM_CTX_GROUP, p, bytes, &got, NULL);
    if (!rc && got != bytes)
        rc = PvmMismatch; /* the members disagree on the count */
    return rc;
}

int pvm_reduce(void (*func)(int *, void *, void *, int *, int *), void *data, int count,
               int datatype, int msgtag, char *group, int root)
{
    pvm_state *g = &dmsg_pvm_g;
    gctx c;
    int rc = func ? setup(&c, group, root, count, datatype, msgtag, data, data) : PvmBadParam;
    if (rc)
        return dmsg_pvm_err(rc);
    if (g->me != c.root_pe) {
        rc = dmsg_pvm_send_bytes(c.root_pe, msgtag, PVM_CTX_GROUP, data, c.bytes);
        free(c.m);
        return rc ? dmsg_pvm_err(rc) : PvmOk;
    }
    char *tmp = malloc(c.bytes ? c.bytes : 1);
    rc = tmp ? PvmOk : PvmNoMem;
    for (int i = 0; i < g->npes && !rc; i++) {
        if (!c.m[i] || i == c.me_inst)
            continue;
        if ((rc = recv_from(dmsg_pvm_pe((int)c.m[i]), msgtag, tmp, c.bytes)))
            break;
        int info = 0, type = datatype, num = count;
        func(&type, data, tmp, &num, &info);
        rc = info < 0 ? info : PvmOk;
    }
    free(tmp);
    free(c.m);
    return rc ? dmsg_pvm_err(rc) : PvmOk;
}

int pvm_scatter(void *result, void *data, int count, int datatype, int msgtag, char *group,
                int root)
{
    pvm_state *g = &dmsg_pvm_g;
    gctx c;
    int is_root = 0;
    int rc = setup(&c, group, root, count, datatype, msgtag, result, result);
    if (rc)
        return dmsg_pvm_err(rc);
    is_root = g->me == c.root_pe;
    if (is_root && count && !data)
        rc = PvmBadParam;
    for (int i = 0; is_root && i < g->npes && !rc; i++) {
        const char *part = (const char *)data + (size_t)i * c.bytes;
        if (!c.m[i])
            continue;
        if (i == c.me_inst)
            memcpy(result, part, c.bytes);
        else
            rc = dmsg_pvm_send_bytes(dmsg_pvm_pe((int)c.m[i]), msgtag, PVM_CTX_GROUP, part,
                                     c.bytes);
    }
    if (!is_root)
        rc = recv_from(c.root_pe, msgtag, result, c.bytes);
    free(c.m);
    return rc ? dmsg_pvm_err(rc) : PvmOk;
}

int pvm_gather(void *result, void *data, int count, int datatype, int msgtag, char *group,
               int root)
{
    pvm_state *g = &dmsg_pvm_g;
    gctx c;
    int rc = setup(&c, group, root, count, datatype, msgtag, data, data);
    if (rc)
        return dmsg_pvm_err(rc);
    if (g->me != c.root_pe) {
        rc = dmsg_pvm_send_bytes(c.root_pe, msgtag, PVM_CTX_GROUP, data, c.bytes);
        free(c.m);
        return rc ? dmsg_pvm_err(rc) : PvmOk;
    }
    if (count && !result)
        rc = PvmBadParam;
    for (int i = 0; i < g->npes && !rc; i++) {
        char *part = (char *)result + (size_t)i * c.bytes;
        if (!c.m[i])
            continue;
        if (i == c.me_inst)
            memcpy(part, data, c.bytes);
        else
            rc = recv_from(dmsg_pvm_pe((int)c.m[i]), msgtag, part, c.bytes);
    }
    free(c.m);
    return rc ? dmsg_pvm_err(rc) : PvmOk;
}

/* ------------------------------------------------- reduction functions */

enum { OP_MAX, OP_MIN, OP_SUM, OP_PROD };

#define APPLY(T)                                                                                   \
    do {                                                                                           \
        T *a = x;                                                                                  \
        const T *b = y;                                                                            \
        for (int i = 0; i < n; i++)                                                                \
            a[i] = op == OP_MAX    ? (a[i] > b[i] ? a[i] : b[i])                                   \
                   : op == OP_MIN  ? (a[i] < b[i] ? a[i] : b[i])                                   \
                   : op == OP_SUM  ? (T)(a[i] + b[i])                                              \
                                   : (T)(a[i] * b[i]);                                             \
    } while (0)

#define APPLY_CPLX(T)                                                                              \
    do {                                                                                           \
        T *a = x;                                                                                  \
        const T *b = y;                                                                            \
        for (int i = 0; i < n; i++) {                                                              \
            T re = a[2 * i], im = a[2 * i + 1];                                                    \
            if (op == OP_SUM) {                                                                    \
                a[2 * i] = re + b[2 * i];                                                          \
                a[2 * i + 1] = im + b[2 * i + 1];                                                  \
            } else {                                                                               \
                a[2 * i] = re * b[2 * i] - im * b[2 * i + 1];                                      \
                a[2 * i + 1] = re * b[2 * i + 1] + im * b[2 * i];                                  \
            }                                                                                      \
        }                                                                                          \
    } while (0)

static void apply(int op, const int *datatype, void *x, const void *y, const int *num, int *info)
{
    if (!datatype || !x || !y || !num || *num < 0) {
        if (info)
            *info = PvmBadParam;
        return;
    }
    int n = *num, rc = PvmOk;
    switch (*datatype) {
    case PVM_BYTE: APPLY(char); break;
    case PVM_SHORT: APPLY(short); break;
    case PVM_INT: APPLY(int); break;
    case PVM_LONG: APPLY(long); break;
    case PVM_USHORT: APPLY(unsigned short); break;
    case PVM_UINT: APPLY(unsigned int); break;
    case PVM_ULONG: APPLY(unsigned long); break;
    case PVM_FLOAT: APPLY(float); break;
    case PVM_DOUBLE: APPLY(double); break;
    case PVM_CPLX:
        if (op == OP_SUM || op == OP_PROD)
            APPLY_CPLX(float);
        else
            rc = PvmBadParam; /* complex numbers have no order */
        break;
    case PVM_DCPLX:
        if (op == OP_SUM || op == OP_PROD)
            APPLY_CPLX(double);
        else
            rc = PvmBadParam;
        break;
    default: rc = PvmBadParam;
    }
    if (info)
        *info = rc;
}

void pvm_op_max(int *datatype, void *x, void *y, int *num, int *info)
{
    apply(OP_MAX, datatype, x, y, num, info);
}
void pvm_op_min(int *datatype, void *x, void *y, int *num, int *info)
{
    apply(OP_MIN, datatype, x, y, num, info);
}
void pvm_op_sum(int *datatype, void *x, void *y, int *num, int *info)
{
    apply(OP_SUM, datatype, x, y, num, info);
}
void pvm_op_product(int *datatype, void *x, void *y, int *num, int *info)
{
    apply(OP_PROD, datatype, x, y, num, info);
}
