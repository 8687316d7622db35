/* Agreement across all PEs (agree.h), over the library's collectives. */
#include <stdint.h>
#include <string.h>
#include "dmsg.h"
#include "dmsg/coll/agree.h"

dmsg_status dmsg_agree_rows(dmsg_status mine, void *row, size_t rowsz, void *all,
                            dmsg_status *verdict)
{
    if (rowsz < sizeof(int64_t) || rowsz % sizeof(int64_t) != 0 || all == NULL)
        return DMSG_FAIL(DMSG_ERR_ARG, "agreement rows of %zu bytes", rowsz);
    /* A PE without a row still contributes one, so nobody waits: on the
     * stack, a few words per PE (the callers' rows). */
    int64_t fallback[row == NULL ? rowsz / sizeof(int64_t) : 1];
    if (row == NULL) {
        memset(fallback, 0, rowsz);
        row = fallback;
        if (mine == DMSG_OK) mine = DMSG_FAIL(DMSG_ERR_NOMEM, "agreement: no row (out of memory)");
    }
    int64_t st = mine;
    memcpy(row, &st, sizeof st);
    dmsg_status xst = dmsg_allgather(DMSG_TEAM_WORLD, all, row, rowsz);
    if (xst != DMSG_OK) return xst;
    int npes = dmsg_npes();
    *verdict = DMSG_OK;
    for (int p = 0; p < npes && *verdict == DMSG_OK; p++) {
        memcpy(&st, (const char *)all + (size_t)p * rowsz, sizeof st);
        *verdict = (dmsg_status)st;
    }
    return DMSG_OK;
}

dmsg_status dmsg_agree_root(dmsg_status mine, void *buf, size_t len, int root)
{
    if (len < sizeof(int64_t) || buf == NULL)
        return DMSG_FAIL(DMSG_ERR_ARG, "agreement of %zu bytes", len);
    int64_t st = mine;
    if (dmsg_pe() == root) memcpy(buf, &st, sizeof st);
    dmsg_status xst = dmsg_bcast(DMSG_TEAM_WORLD, buf, buf, len, root);
    if (xst != DMSG_OK) return xst;
    memcpy(&st, buf, sizeof st);
    return (dmsg_status)st;
}
