/* Plan handles that outlive their plans, and the counter all plans share
 * (plan_impl.h says why). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "dmsg/core/at_fini.h"
#include "dmsg/plan/plan_impl.h"

/* Cells come in chunks that stay reachable from `chunks` until the process
 * ends (they are never freed: a stale handle must stay readable). */
#define CELLS 127
typedef union cell {
    struct dmsg_plan p;
    struct dmsg_iplan i;
} cell;
typedef struct chunk {
    struct chunk *next;
    size_t used;
    cell c[CELLS];
} chunk;

static chunk *chunks;
static cell *spare; /* a cell handed back unused, given out next */

void *dmsg_plan_cell_new(void)
{
    if (spare != NULL) {
        cell *c = spare;
        spare = NULL;
        return c;
    }
    if (chunks == NULL || chunks->used == CELLS) {
        chunk *k = calloc(1, sizeof *k);
        if (k == NULL) return NULL;
        k->next = chunks;
        chunks = k;
    }
    return &chunks->c[chunks->used++];
}

void dmsg_plan_cell_unused(void *c)
{
    spare = c;
}

/* The shared counter: its users, and the executions begun on it. Tickets
 * count up; every ticket up to `landed` has landed. */
static struct {
    dmsg_ctr ctr;
    int users;
    uint64_t pending; /* deposits of begun executions not yet awaited */
    uint64_t begun;   /* the last ticket handed out */
    uint64_t landed;  /* every ticket <= landed has landed */
} shared;

/* The counter is the job's: plans a program did not destroy do not carry it
 * into a later job (their handles stay readable, the counter goes). */
static void ctr_forget(void)
{
    uint64_t begun = shared.begun;
    memset(&shared, 0, sizeof shared);
    shared.begun = begun; /* tickets never repeat, as plans' handles outlive jobs */
}

dmsg_status dmsg_plan_ctr_get(dmsg_ctr *ctr)
{
    if (shared.users == 0) {
        dmsg_status st = dmsg_at_finalize(ctr_forget);
        if (st != DMSG_OK) return st;
        dmsg_ctr c;
        st = dmsg_ctr_create(&c);
        if (st != DMSG_OK) return st;
        shared.ctr = c;
        shared.pending = 0;
        shared.landed = shared.begun;
    }
    shared.users++;
    *ctr = shared.ctr;
    return DMSG_OK;
}

dmsg_status dmsg_plan_ctr_put(void)
{
    if (shared.users <= 0) return DMSG_OK;
    if (--shared.users > 0) return DMSG_OK;
    return dmsg_ctr_destroy(shared.ctr);
}

uint64_t dmsg_plan_ctr_begin(uint64_t msgs)
{
    shared.pending += msgs;
    return ++shared.begun;
}

dmsg_status dmsg_plan_ctr_land(uint64_t ticket)
{
    if (ticket <= shared.landed) return DMSG_OK; /* an earlier land awaited it */
    int st = dmsg_await(shared.ctr, shared.pending);
    if (st != DMSG_OK) return st;
    shared.pending = 0;
    shared.landed = shared.begun;
    return DMSG_OK;
}
