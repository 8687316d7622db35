/* Status strings: every code has its own non-empty string. */
#include <criterion/criterion.h>
#include <string.h>
#include "dmsg.h"

Test(status, every_code_distinct)
{
    const char *seen[32];
    int n = 0;
    for (int code = 0; code >= DMSG_ERR_TEAM; code--) {
        const char *s = dmsg_strerror(code);
        cr_assert(s && *s, "code %d", code);
        cr_assert_neq(strcmp(s, dmsg_strerror(12345)), 0, "code %d has the fallback string", code);
        for (int i = 0; i < n; i++)
            cr_assert_neq(strcmp(seen[i], s), 0, "codes share \"%s\"", s);
        seen[n++] = s;
    }
    cr_assert_eq(n, 20);
}

/* The texts hold for every use: DMSG_ERR_RANGE is also an index or a
 * section outside a distributed array, DMSG_ERR_HANDLE also a destroyed plan. */
Test(status, texts_cover_every_use)
{
    cr_assert(strstr(dmsg_strerror(DMSG_ERR_RANGE), "symmetric segment") != NULL);
    cr_assert(strstr(dmsg_strerror(DMSG_ERR_RANGE), "allocated") != NULL, "%s",
              dmsg_strerror(DMSG_ERR_RANGE));
    cr_assert(strstr(dmsg_strerror(DMSG_ERR_RANGE), "index") != NULL, "%s",
              dmsg_strerror(DMSG_ERR_RANGE));
    cr_assert(strstr(dmsg_strerror(DMSG_ERR_HANDLE), "plan") != NULL, "%s",
              dmsg_strerror(DMSG_ERR_HANDLE));
}

Test(status, unknown_code)
{
    cr_assert_str_eq(dmsg_strerror(7), "unknown dmsg status");
    cr_assert_str_eq(dmsg_strerror(-999), "unknown dmsg status");
}

Test(status, calls_before_init)
{
    dmsg_ctr c;
    void *p;
    char buf[8];
    cr_assert_eq(dmsg_pe(), -1);
    cr_assert_eq(dmsg_npes(), 0);
    cr_assert_eq(dmsg_segment_size(), 0);
    cr_assert_null(dmsg_transport_name());
    cr_assert_eq(dmsg_sync(), DMSG_ERR_NOT_INIT);
    cr_assert_eq(dmsg_quiet(), DMSG_ERR_NOT_INIT);
    cr_assert_eq(dmsg_alloc(8, &p), DMSG_ERR_NOT_INIT);
    cr_assert_eq(dmsg_ctr_create(&c), DMSG_ERR_NOT_INIT);
    cr_assert_eq(dmsg_deposit(buf, buf, 8, 0, DMSG_CTR_NONE), DMSG_ERR_NOT_INIT);
    cr_assert_eq(dmsg_fetch(buf, buf, 8, 0), DMSG_ERR_NOT_INIT);
    cr_assert_eq(dmsg_finalize(), DMSG_ERR_NOT_INIT);
    /* The last error's detail names the call. */
    cr_assert(strstr(dmsg_last_error(), "dmsg_finalize before dmsg_init") != NULL, "%s",
              dmsg_last_error());
}
