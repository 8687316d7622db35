/* RRMSG's posted receives, indexed (rr.h).
 *
 * A request is served by the first receive, in posting order, whose source
 * and tag fit (each may be DMSG_RR_ANY). A list searched from its head finds
 * it in as many comparisons as receives precede it, and that count is what
 * a simulated machine books as matching work; at 1024 PEs a PE has 1023
 * receives posted in an all-to-all and every request searched them (and every
 * progress pass looked again at each request still unmatched). Here each
 * receive sits in the queue of its own (source, tag) pair, in posting order,
 * so the first fit is the earliest of the heads of at most four queues:
 * (src, tag), (src, ANY), (ANY, tag), (ANY, ANY). Each receive carries a
 * posting number, and a Fenwick tree over the numbers of the receives still
 * posted counts those at or before a receive: the same count the list's
 * search made, so virtual times do not move. */
#include <stdlib.h>
#include "dmsg/postal/rr.h"

struct rr_pnode {
    dmsg_rr_req *r;
    uint64_t seq; /* posting number: a position in the Fenwick tree */
    struct rr_pnode *next;
};

struct rr_pqueue {
    uint64_t key;
    int used;
    rr_pnode *head, *tail;
};

static uint64_t key_of(int src, int tag)
{
    return (uint64_t)(uint32_t)src << 32 | (uint32_t)tag;
}

static size_t slot_of(uint64_t k, size_t cap)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return (size_t)k & (cap - 1);
}

static rr_pqueue *find(const rr_posted *p, uint64_t k)
{
    if (!p->cap)
        return NULL;
    for (size_t i = slot_of(k, p->cap);; i = (i + 1) & (p->cap - 1)) {
        if (!p->tab[i].used)
            return NULL;
        if (p->tab[i].key == k)
            return &p->tab[i];
    }
}

/* The slot for key k in tab (cap slots, room guaranteed). */
static rr_pqueue *place(rr_pqueue *tab, size_t cap, uint64_t k)
{
    size_t i = slot_of(k, cap);
    while (tab[i].used && tab[i].key != k)
        i = (i + 1) & (cap - 1);
    return &tab[i];
}

static dmsg_status grow_table(rr_posted *p)
{
    size_t cap = p->cap ? 2 * p->cap : 64;
    rr_pqueue *tab = calloc(cap, sizeof *tab);
    if (!tab)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "RRMSG receive index of %zu queues", cap);
    for (size_t i = 0; i < p->cap; i++)
        if (p->tab[i].used)
            *place(tab, cap, p->tab[i].key) = p->tab[i];
    free(p->tab);
    p->tab = tab;
    p->cap = cap;
    return DMSG_OK;
}

/* Takes an emptied queue out of the table (linear probing: the entries
 * after it that would no longer be found move back). */
static void drop_queue(rr_posted *p, rr_pqueue *q)
{
    size_t i = (size_t)(q - p->tab), mask = p->cap - 1;
    p->tab[i].used = 0;
    p->used--;
    for (size_t j = (i + 1) & mask; p->tab[j].used; j = (j + 1) & mask) {
        size_t home = slot_of(p->tab[j].key, p->cap);
        /* j's entry may fill the hole at i unless its home lies in (i, j]. */
        int stays = (i <= j) ? (home > i && home <= j) : (home > i || home <= j);
        if (stays)
            continue;
        p->tab[i] = p->tab[j];
        p->tab[j].used = 0;
        i = j;
    }
}

static void fen_add(uint32_t *fen, uint64_t cap, uint64_t seq, int32_t d)
{
    for (uint64_t i = seq + 1; i <= cap; i += i & (~i + 1))
        fen[i - 1] += (uint32_t)d;
}

/* Receives posted with a number at or below seq. */
static uint64_t fen_count(const uint32_t *fen, uint64_t seq)
{
    uint64_t n = 0;
    for (uint64_t i = seq + 1; i; i -= i & (~i + 1))
        n += fen[i - 1];
    return n;
}

static int by_seq(const void *a, const void *b)
{
    uint64_t x = (*(rr_pnode *const *)a)->seq, y = (*(rr_pnode *const *)b)->seq;
    return x < y ? -1 : x > y;
}

/* The numbers ran out: renumber the receives posted 0..n-1, in their order,
 * into a tree with room for as many again. Changes nothing on failure. */
static dmsg_status renumber(rr_posted *p)
{
    uint64_t cap = 64;
    while (cap < 2 * ((uint64_t)p->n + 1))
        cap *= 2;
    uint32_t *fen = calloc(cap, sizeof *fen);
    rr_pnode **all = malloc((p->n ? p->n : 1) * sizeof *all);
    if (!fen || !all) {
        free(fen);
        free(all);
        return DMSG_FAIL(DMSG_ERR_NOMEM, "RRMSG receive index of %llu", (unsigned long long)cap);
    }
    size_t k = 0;
    for (size_t i = 0; i < p->cap; i++)
        if (p->tab[i].used)
            for (rr_pnode *x = p->tab[i].head; x; x = x->next)
                all[k++] = x;
    qsort(all, k, sizeof *all, by_seq);
    for (size_t i = 0; i < k; i++) {
        all[i]->seq = i;
        fen_add(fen, cap, i, 1);
    }
    free(all);
    free(p->fen);
    p->fen = fen;
    p->fcap = cap;
    p->next = k;
    return DMSG_OK;
}

dmsg_status dmsg_rr_posted_add(rr_posted *p, dmsg_rr_req *r)
{
    dmsg_status st;
    if (p->next == p->fcap && (st = renumber(p)))
        return st;
    uint64_t k = key_of(r->pe, r->tag);
    rr_pqueue *q = find(p, k);
    if (!q && 2 * (p->used + 1) > p->cap && (st = grow_table(p)))
        return st;
    rr_pnode *x = malloc(sizeof *x);
    if (!x)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "RRMSG receive index entry");
    if (!q) {
        q = place(p->tab, p->cap, k);
        *q = (rr_pqueue){.key = k, .used = 1};
        p->used++;
    }
    *x = (rr_pnode){.r = r, .seq = p->next++};
    if (q->tail)
        q->tail->next = x;
    else
        q->head = x;
    q->tail = x;
    fen_add(p->fen, p->fcap, x->seq, 1);
    p->n++;
    return DMSG_OK;
}

dmsg_rr_req *dmsg_rr_posted_first(const rr_posted *p, int src, int tag, uint64_t *pos)
{
    uint64_t keys[4] = {key_of(src, tag), key_of(src, DMSG_RR_ANY), key_of(DMSG_RR_ANY, tag),
                        key_of(DMSG_RR_ANY, DMSG_RR_ANY)};
    const rr_pnode *best = NULL;
    for (int i = 0; i < 4; i++) {
        const rr_pqueue *q = find(p, keys[i]);
        if (q && q->head && (!best || q->head->seq < best->seq))
            best = q->head; /* a key twice (src or tag is ANY) finds the same head */
    }
    *pos = best ? fen_count(p->fen, best->seq) : p->n;
    return best ? best->r : NULL;
}

void dmsg_rr_posted_remove(rr_posted *p, dmsg_rr_req *r)
{
    rr_pqueue *q = find(p, key_of(r->pe, r->tag));
    if (!q)
        return;
    rr_pnode *prev = NULL, *x = q->head;
    while (x && x->r != r) { /* the head, when it was matched */
        prev = x;
        x = x->next;
    }
    if (!x)
        return;
    if (prev)
        prev->next = x->next;
    else
        q->head = x->next;
    if (q->tail == x)
        q->tail = prev;
    fen_add(p->fen, p->fcap, x->seq, -1);
    p->n--;
    free(x);
    if (!q->head)
        drop_queue(p, q);
}

void dmsg_rr_posted_free(rr_posted *p)
{
    for (size_t i = 0; i < p->cap; i++)
        for (rr_pnode *x = p->tab[i].used ? p->tab[i].head : NULL, *nx; x; x = nx) {
            nx = x->next;
            free(x);
        }
    free(p->tab);
    free(p->fen);
    *p = (rr_posted){0};
}
