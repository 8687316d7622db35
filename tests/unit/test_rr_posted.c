/* RRMSG's index of posted receives (dmsg/postal/rr_posted.c): the first
 * receive a request fits, in posting order, and the count of receives a
 * search of the list in posting order compares (booked as matching work on
 * a simulated machine), the same as the list gives, through wildcards,
 * removals from the middle, renumbering and queues emptied and refilled. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include "dmsg/postal/rr.h"

#define MAXR 3000

/* The model: the list in posting order, searched from its head. */
typedef struct model {
    dmsg_rr_req *r[MAXR];
    size_t n;
} model;

static dmsg_rr_req *model_first(const model *m, int src, int tag, uint64_t *pos)
{
    for (size_t i = 0; i < m->n; i++) {
        const dmsg_rr_req *r = m->r[i];
        if ((r->pe == DMSG_RR_ANY || r->pe == src) && (r->tag == DMSG_RR_ANY || r->tag == tag)) {
            *pos = i + 1;
            return m->r[i];
        }
    }
    *pos = m->n;
    return NULL;
}

static void model_remove(model *m, const dmsg_rr_req *r)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->r[i] == r) {
            for (size_t j = i + 1; j < m->n; j++)
                m->r[j - 1] = m->r[j];
            m->n--;
            return;
        }
    cr_assert_fail("request not in the model");
}

static void post(rr_posted *p, model *m, dmsg_rr_req *r, int src, int tag)
{
    r->pe = src;
    r->tag = tag;
    cr_assert_eq(dmsg_rr_posted_add(p, r), DMSG_OK);
    cr_assert_lt(m->n, MAXR);
    m->r[m->n++] = r;
}

static void same(const rr_posted *p, const model *m, int src, int tag)
{
    uint64_t a, b;
    dmsg_rr_req *x = dmsg_rr_posted_first(p, src, tag, &a);
    dmsg_rr_req *y = model_first(m, src, tag, &b);
    cr_assert_eq(x, y, "request from %d tag %d: the index's first fit is not the list's", src, tag);
    cr_assert_eq(a, b, "request from %d tag %d: %llu compared, the list %llu", src, tag,
                 (unsigned long long)a, (unsigned long long)b);
}

Test(rr_posted, first_fit_and_count_as_the_list)
{
    static dmsg_rr_req reqs[MAXR];
    rr_posted p = {0};
    model m = {0};
    size_t used = 0;
    /* A fixed table first: the count and the choice across wildcards. */
    post(&p, &m, &reqs[used++], 3, 7);
    post(&p, &m, &reqs[used++], DMSG_RR_ANY, 7);
    post(&p, &m, &reqs[used++], 3, DMSG_RR_ANY);
    post(&p, &m, &reqs[used++], DMSG_RR_ANY, DMSG_RR_ANY);
    uint64_t pos;
    cr_assert_eq(dmsg_rr_posted_first(&p, 3, 7, &pos), &reqs[0]);
    cr_assert_eq(pos, 1);
    cr_assert_eq(dmsg_rr_posted_first(&p, 4, 7, &pos), &reqs[1]);
    cr_assert_eq(pos, 2);
    cr_assert_eq(dmsg_rr_posted_first(&p, 3, 8, &pos), &reqs[2]);
    cr_assert_eq(pos, 3);
    cr_assert_eq(dmsg_rr_posted_first(&p, 5, 9, &pos), &reqs[3]);
    cr_assert_eq(pos, 4);
    /* A middle one goes: the later ones count one less. */
    dmsg_rr_posted_remove(&p, &reqs[1]);
    model_remove(&m, &reqs[1]);
    cr_assert_eq(dmsg_rr_posted_first(&p, 4, 7, &pos), &reqs[3]);
    cr_assert_eq(pos, 3);
    dmsg_rr_posted_remove(&p, &reqs[3]);
    model_remove(&m, &reqs[3]);
    cr_assert_null(dmsg_rr_posted_first(&p, 4, 7, &pos));
    cr_assert_eq(pos, 2, "no fit: every receive is compared");

    /* Then at random: posts and matches interleaved, a few sources and tags
     * so that queues empty and fill again, and enough posts to renumber. */
    srand(12345);
    size_t freelist[MAXR], nfree = 0;
    for (int step = 0; step < 60000; step++) {
        int src = rand() % 9, tag = rand() % 5;
        if (rand() % 2 && (used < MAXR || nfree)) {
            int ps = rand() % 10 == 0 ? DMSG_RR_ANY : src, pt = rand() % 8 == 0 ? DMSG_RR_ANY : tag;
            size_t i = nfree ? freelist[--nfree] : used++;
            post(&p, &m, &reqs[i], ps, pt);
        } else {
            same(&p, &m, src, tag);
            same(&p, &m, src, DMSG_RR_ANY); /* a sender's tag may be DMSG_RR_ANY too */
            dmsg_rr_req *r = dmsg_rr_posted_first(&p, src, tag, &pos);
            if (r) {
                dmsg_rr_posted_remove(&p, r);
                model_remove(&m, r);
                freelist[nfree++] = (size_t)(r - reqs);
            }
        }
        cr_assert_eq(p.n, m.n);
    }
    /* Drained in the model's order. */
    while (m.n) {
        dmsg_rr_req *r = m.r[0];
        same(&p, &m, r->pe == DMSG_RR_ANY ? 0 : r->pe, r->tag == DMSG_RR_ANY ? 0 : r->tag);
        dmsg_rr_posted_remove(&p, r);
        model_remove(&m, r);
    }
    cr_assert_eq(p.n, 0);
    cr_assert_eq(p.used, 0, "every emptied queue left the table");
    dmsg_rr_posted_free(&p);
}
