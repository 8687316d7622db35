/* The executor of irregular plans: per partner in staggered order either
 * one indexed or address-data deposit of values read here by index, or one
 * indexed fetch of values the partner holds, every fetch in flight at once
 * and the values put in place here. The same for gathers and scatters: only
 * which side deposits or fetches differs (iplan.c sets the lists). */
#include <string.h>
#include "dmsg/plan/iplan_impl.h"

/* Deposits: one indexed or address-data deposit per partner, then the
 * await of what the partners deposit here. */
static int deposit_lists(iplan_t *ip, uint64_t ticket)
{
    size_t e = ip->elem;
    for (int i = 0; i < ip->nlists; i++) {
        const ilist *l = &ip->lists[i];
        int st;
        if (ip->mech == DMSG_IPLAN_ADP) {
            size_t rs = dmsg_adp_record_size(e);
            for (size_t j = 0; j < l->n; j++) {
                unsigned char *rec = ip->tmp + j * rs;
                uint64_t off = (uint64_t)(l->pos[j] * e);
                memcpy(rec, &off, sizeof off);
                memcpy(rec + sizeof off, ip->from + l->idx[j] * e, e);
            }
            st = dmsg_deposit_adp(l->remote, ip->tmp, l->n, e, l->pe, ip->ctr);
        } else {
            for (size_t j = 0; j < l->n; j++)
                memcpy(ip->tmp + j * e, ip->from + l->idx[j] * e, e);
            st = dmsg_deposit_indexed(l->remote, l->pos, ip->tmp, l->n, e, l->pe, ip->ctr);
        }
        if (st != DMSG_OK) return st;
    }
    return dmsg_plan_ctr_land(ticket);
}

/* Fetches: every partner's indexed fetch in flight, then the values into
 * place. */
static int fetch_lists(iplan_t *ip)
{
    size_t e = ip->elem, at = 0;
    int st = DMSG_OK, started = 0;
    for (int i = 0; i < ip->nlists && st == DMSG_OK; i++, started++) {
        const ilist *l = &ip->lists[i];
        st =
            dmsg_fetch_indexed_nb(ip->tmp + at * e, l->remote, l->idx, l->n, e, l->pe, &ip->reqs[i]);
        at += l->n;
        if (st != DMSG_OK) break;
    }
    for (int i = 0; i < started; i++) {
        int wst = dmsg_wait(&ip->reqs[i]);
        st = st != DMSG_OK ? st : wst;
    }
    if (st != DMSG_OK) return st;
    at = 0;
    for (int i = 0; i < ip->nlists; i++) {
        const ilist *l = &ip->lists[i];
        for (size_t j = 0; j < l->n; j++)
            memcpy(ip->to + l->pos[j] * e, ip->tmp + (at + j) * e, e);
        at += l->n;
    }
    /* The partners may change what was read only after every PE has fetched. */
    return dmsg_sync();
}

int dmsg_iplan_run(iplan_t *ip)
{
    int st = dmsg_sync(); /* clearance: the targets are free everywhere, the values final */
    if (st != DMSG_OK) return st;
    return ip->fetch ? fetch_lists(ip) : deposit_lists(ip, dmsg_plan_ctr_begin(ip->awaited));
}
