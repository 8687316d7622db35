/* The set of live request ids (reqset.h), a key set (dmsg/base/keyset.h). */
#include "dmsg/core/reqset.h"

dmsg_status dmsg_reqset_add(dmsg_reqset *s, uint32_t *id)
{
    /* Ids go up to 2^31 - 1 (a request's state field is an int32) and
     * skip ids that are still live after a wrap. */
    do {
        s->next = s->next >= 0x7fffffffu ? 1 : s->next + 1;
    } while (dmsg_keyset_has(&s->set, s->next));
    dmsg_status st = dmsg_keyset_add(&s->set, s->next);
    if (st)
        return st;
    *id = s->next;
    return DMSG_OK;
}

int dmsg_reqset_has(const dmsg_reqset *s, uint32_t id)
{
    return dmsg_keyset_has(&s->set, id);
}

void dmsg_reqset_remove(dmsg_reqset *s, uint32_t id)
{
    dmsg_keyset_remove(&s->set, id);
}

void dmsg_reqset_fini(dmsg_reqset *s)
{
    dmsg_keyset_fini(&s->set);
    s->next = 0;
}
