/* The copy engine's table of transfer kinds (kinds.h): one row per kind of
 * DMSG_OP_KIND_LIST, built from it, so a kind without its copy or walker
 * does not compile. */
#include "dmsg/xfer/kinds.h"

const dmsg_xfer_kind dmsg_xfer_kinds[DMSG_OP_KINDS] = {
#define DMSG_XFER_ROW_(K, k) [DMSG_OP_##K] = {dmsg_copy_op_##k, dmsg_runs_##k},
    DMSG_OP_KIND_LIST(DMSG_XFER_ROW_)
#undef DMSG_XFER_ROW_
};
DMSG_OP_TABLE_CHECK(dmsg_xfer_kinds);
