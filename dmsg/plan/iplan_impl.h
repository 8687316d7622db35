/* Internals of irregular plans (iplan.c builds them, iplan_exec.c runs
 * them, iplan_model.c chooses a scatter's mechanism). */
#ifndef DMSG_PLAN_IPLAN_IMPL_H
#define DMSG_PLAN_IPLAN_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include "dmsg/plan/choose.h"

/* What this PE moves with one partner: element indices at the reading end
 * (idx, from the base the values are read from) and at the writing end
 * (pos, from the base they are written to). */
typedef struct ilist {
    int pe;
    size_t n;
    char *remote; /* on pe, where its side's indices count from: a deposit's pos, a fetch's idx */
    size_t *idx; /* elements from `from` (on this PE, or on pe when fetching) */
    size_t *pos; /* elements from `to` (on pe when depositing, or here when fetching) */
} ilist;

struct iplan_s {
    dmsg_darray arr; /* the distributed array: gather's source, scatter's destination */
    int scatter;     /* 0: gather dst[i] = arr(idx[i]); 1: scatter arr(idx[i]) = src[i] */
    char *from;      /* where values are read: arr.base (gather), src (scatter) */
    char *to;        /* where they are written: dst (gather), arr.base (scatter) */
    size_t elem, n;
    int mech, me, npes;
    int fetch; /* the executor fetches (the mechanism, or the model's choice) */
    dmsg_ctr ctr;       /* the plans' shared counter (deposit mechanisms) */
    ilist *lists; /* deposits: partners this PE deposits to; fetch: partners it reads; staggered */
    int nlists;
    uint64_t awaited;   /* deposits awaited per execution */
    unsigned char *tmp; /* gather buffer, records, or fetched elements */
    dmsg_req *reqs;
    uint64_t execs;
    double model_deposit_s, model_fetch_s; /* the model's prediction of the slowest PE (0: none) */
};

/* Runs the plan once (iplan_exec.c): see dmsg_iplan_execute. */
int dmsg_iplan_run(iplan_t *ip);

/* The model's prediction for PE p of a scatter (iplan_model.c), from the
 * counts matrix cnt (cnt[r * stride + q]: elements r sends q): the seconds p
 * spends depositing what it holds, and fetching what the others hold for
 * it. pm: the machine's model. */
void dmsg_iplan_model_predict(const iplan_t *ip, const plan_model *pm, const uint64_t *cnt,
                         size_t stride, int p, double *deposit_s, double *fetch_s);

#endif
