/* Groups of pieces: each group one operation (fi_writemsg / fi_readmsg iov
 * list), with a window of operations in flight, for deposits and fetches
 * alike. The pieces come from the copy engine's run walker (dmsg_op_runs). */
#include "dmsg/transport/ofi/ofi.h"

void dmsg_ofi_group_init(ofi_group *g, ofi_state *s, int pe, int read, ofi_batch *b)
{
    *g = (ofi_group){.s = s, .pe = pe, .read = read, .b = b};
    g->lim = s->caps.iov_limit < s->caps.rma_iov_limit ? s->caps.iov_limit
                                                         : s->caps.rma_iov_limit;
    if (g->lim > OFI_GROUP_MAX)
        g->lim = OFI_GROUP_MAX;
}

static int window_ok(ofi_state *s, const void *arg)
{
    const ofi_batch *b = arg;
    return b->pending < OFI_WINDOW;
}

dmsg_status dmsg_ofi_group_post(ofi_group *g, uint64_t flags, uint64_t data, ofi_batch *b)
{
    ofi_state *s = g->s;
    dmsg_status st;
    if (g->b->pending >= OFI_WINDOW &&
        (st = dmsg_ofi_wait_pred(s, window_ok, g->b, g->read ? "the fetch window"
                                                        : "the deposit window")))
        return st;
    st = dmsg_ofi_post_rma(s, g->read, g->pe, g->iov, g->k, g->riov, g->k, flags, data, b);
    g->k = 0;
    g->ops++;
    return st;
}

/* A dmsg_run_fn: appends a piece, posting the group when it is full (pieces
 * longer than the provider's message size are cut). */
dmsg_status dmsg_ofi_group_add(void *arg, size_t roff, char *local, size_t len)
{
    ofi_group *g = arg;
    ofi_state *s = g->s;
    while (len) {
        dmsg_status st;
        if (g->k == g->lim && (st = dmsg_ofi_group_post(g, 0, 0, g->b)))
            return st;
        size_t n = len < s->caps.max_msg ? len : s->caps.max_msg;
        g->iov[g->k] = (struct iovec){.iov_base = local, .iov_len = n};
        g->riov[g->k] = ofi_seg_riov(s, g->pe, roff, n);
        g->k++;
        roff += n;
        local += n;
        len -= n;
    }
    return DMSG_OK;
}
