/* The set of live request ids behind DMSG_ERR_HANDLE for retired or copied
 * request handles: ids are unique among live ones, leave on removal, survive
 * growth and the wrap of the id counter. */
#include <criterion/criterion.h>
#include "dmsg/core/reqset.h"

Test(reqset, add_has_remove)
{
    dmsg_reqset s = {0};
    uint32_t a, b;
    cr_assert(!dmsg_reqset_has(&s, 1), "an empty set holds nothing");
    cr_assert_eq(dmsg_reqset_add(&s, &a), DMSG_OK);
    cr_assert_eq(dmsg_reqset_add(&s, &b), DMSG_OK);
    cr_assert(a != 0 && b != 0 && a != b);
    cr_assert(dmsg_reqset_has(&s, a) && dmsg_reqset_has(&s, b));
    dmsg_reqset_remove(&s, a);
    cr_assert(!dmsg_reqset_has(&s, a), "a removed id (a retired handle and all its copies) is gone");
    cr_assert(dmsg_reqset_has(&s, b));
    dmsg_reqset_remove(&s, a); /* twice: nothing happens */
    cr_assert(!dmsg_reqset_has(&s, 0) && !dmsg_reqset_has(&s, UINT32_MAX + 0u));
    dmsg_reqset_fini(&s);
    cr_assert(!dmsg_reqset_has(&s, b));
}

Test(reqset, many_live_ids_through_growth)
{
    dmsg_reqset s = {0};
    enum { N = 5000 };
    static uint32_t id[N];
    for (int i = 0; i < N; i++)
        cr_assert_eq(dmsg_reqset_add(&s, &id[i]), DMSG_OK);
    for (int i = 0; i < N; i += 2)
        dmsg_reqset_remove(&s, id[i]);
    for (int i = 0; i < N; i++)
        cr_assert_eq(dmsg_reqset_has(&s, id[i]), i % 2, "id %u (number %d)", id[i], i);
    cr_assert_eq(s.set.live, (size_t)N / 2);
    dmsg_reqset_fini(&s);
}

Test(reqset, wrap_skips_live_ids)
{
    dmsg_reqset s = {0};
    uint32_t keep, a, b;
    cr_assert_eq(dmsg_reqset_add(&s, &keep), DMSG_OK); /* id 1 stays live */
    s.next = 0x7ffffffeu;                              /* as after 2^31 requests */
    cr_assert_eq(dmsg_reqset_add(&s, &a), DMSG_OK);
    cr_assert_eq(dmsg_reqset_add(&s, &b), DMSG_OK);
    cr_assert_eq(a, 0x7fffffffu, "ids stay below 2^31 (a handle's state is an int32)");
    cr_assert_eq(b, 2u, "after the wrap, the live id %u is skipped", keep);
    dmsg_reqset_fini(&s);
}
