/* The barrier over libfabric: quiet, then rounds of tokens (8-byte signal
 * writes, or engine messages where remote CQ data does not arrive).
 *
 * A token's signal data: bit 0 the barrier's parity, bit 1 the round, bit 2
 * "engine messages were sent" (round 0), bits 3-6 the step, bit 7 "PEs
 * outnumber the cores of some host".
 *
 * Two ways to run a round, the same on every PE of a job:
 * - dissemination (log2 npes steps, npes log2 npes tokens): every PE sends
 *   and waits at every step, the fewest hops when every PE has a core;
 * - a gather/release tree of fan-out OFI_BAR_FAN (2 (npes - 1) tokens, the
 *   same hop count), when PEs outnumber the cores of some host: there every
 *   token is a wake-up of a sleeping PE and, over a socket provider, a few
 *   system calls, so the number of tokens sets the speed (16 PEs on 2 cores:
 *   64 tokens a barrier against 30).
 * The first barrier (in ofi_init) is always dissemination; it tells every PE
 * whether any PE is oversubscribed (bit 7), so all choose alike after it. */
#include "dmsg/transport/ofi/ofi.h"

#define TOK_OVERSUB (UINT64_C(1) << 7)
enum { TREE_UP = 0, TREE_DOWN = 1 }; /* the tree's steps */

typedef struct tok_need {
    ofi_batch *b;
    int parity, round, step, last;
    uint32_t need;
} tok_need;

/* The tokens this step needs are in; at the last step also every token
 * this PE sent has completed (the message headers they send from live
 * until then). */
static int tokens_in(ofi_state *s, const void *arg)
{
    const tok_need *t = arg;
    return (!t->last || t->b->pending == 0) &&
           s->bar.tokens[t->parity][t->round][t->step] >= t->need;
}

static dmsg_status await_tokens(ofi_state *s, ofi_batch *b, int parity, int round, int step,
                                int last, uint32_t need)
{
    tok_need t = {b, parity, round, step, last, need};
    dmsg_status st = dmsg_ofi_wait_pred(s, tokens_in, &t, "the other PEs at a barrier");
    if (!st)
        s->bar.tokens[parity][round][step] -= need;
    return st;
}

/* Where remote CQ data does not arrive (sockets), a token is a deposit
 * engine message without records whose signal is the token: the target's
 * engine counts it like a deposit's signal. */
static dmsg_status post_token_msg(ofi_state *s, int pe, const ofi_eng_hdr *h, ofi_batch *b)
{
    struct iovec iov = {.iov_base = (void *)h, .iov_len = sizeof *h};
    struct fi_msg m = {.msg_iov = &iov, .iov_count = 1, .addr = (fi_addr_t)pe, .context = b};
    double deadline = 0;
    ssize_t rc;
    dmsg_status st;
    while ((rc = fi_sendmsg(s->fab.ep, &m, FI_COMPLETION)) == -FI_EAGAIN)
        if ((st = dmsg_ofi_retry(s, pe, &deadline)))
            return st;
    if (rc)
        return DMSG_FAIL(DMSG_ERR_TRANSPORT, "%s: barrier token to PE %d: %s", s->caps.prov, pe,
                         fi_strerror((int)-rc));
    s->tx_pending++;
    b->pending++;
    dmsg_ofi_bell_ring(s, pe);
    return DMSG_OK;
}

/* One token to pe. In round 0 its flag says that this PE or one it heard
 * from sent engine messages; *h lives until b is done. */
static dmsg_status post_token(ofi_state *s, int pe, int parity, int round, int step, int mine,
                              ofi_eng_hdr *h, ofi_batch *b)
{
    int flag = round == 0 && (mine || s->bar.any_engine[parity]);
    uint64_t tok = ((uint64_t)OFI_SIG_TOKEN << OFI_SIG_SHIFT) | (uint64_t)parity |
                   ((uint64_t)round << 1) | ((uint64_t)flag << 2) | ((uint64_t)step << 3);
    if (s->oversubscribed || s->bar.any_oversub)
        tok |= TOK_OVERSUB;
    *h = (ofi_eng_hdr){.magic = OFI_ENG_MAGIC, .sig = tok};
    return s->msg_tokens ? post_token_msg(s, pe, h, b) : dmsg_ofi_post_signal(s, pe, tok, b);
}

void dmsg_ofi_bar_on_token(ofi_state *s, uint64_t data)
{
    unsigned step = (unsigned)(data >> 3) & ((1u << OFI_BAR_STEP_BITS) - 1);
    if (step < OFI_BAR_STEPS)
        s->bar.tokens[data & 1][(data >> 1) & 1][step]++;
    if ((data & 6) == 4)
        s->bar.any_engine[data & 1] = 1;
    if (data & TOK_OVERSUB)
        s->bar.any_oversub = 1;
}

/* Dissemination: at step k this PE sends a token to the PE 2^k above it
 * and waits for the one from the PE 2^k below, so after ceil(log2 npes)
 * steps every PE has heard, directly or through others, from every PE that
 * entered (and of every flag they set). */
static dmsg_status dissemination_round(ofi_state *s, int parity, int round, int mine)
{
    ofi_batch b = {0};
    dmsg_status st = DMSG_OK;
    ofi_eng_hdr h[OFI_BAR_STEPS]; /* live until b is done */
    for (int k = 0; (1 << k) < s->tp->npes && !st; k++) {
        int pe = (s->tp->rank + (1 << k)) % s->tp->npes;
        st = post_token(s, pe, parity, round, k, mine, &h[k], &b);
        /* After a failed post, wait for what was posted before leaving. */
        dmsg_status w = st ? dmsg_ofi_wait_batch(s, &b, "barrier tokens")
                           : await_tokens(s, &b, parity, round, k, (2 << k) >= s->tp->npes, 1);
        if (st || (st = w))
            return st;
    }
    return b.status ? dmsg_ofi_peer_failed(s, b.status) : DMSG_OK;
}

/* Gather and release: PE r's children are r * OFI_BAR_FAN + 1 ... + FAN.
 * A PE sends its token up once all its children's are in; PE 0 then knows
 * that everyone entered (and every flag), and the release travels down. */
static dmsg_status tree_round(ofi_state *s, int parity, int round, int mine)
{
    ofi_batch b = {0};
    ofi_eng_hdr h[1 + OFI_BAR_FAN]; /* live until b is done */
    long first = (long)s->tp->rank * OFI_BAR_FAN + 1;
    int kids = first >= s->tp->npes ? 0 : (int)(s->tp->npes - first);
    if (kids > OFI_BAR_FAN)
        kids = OFI_BAR_FAN;
    dmsg_status st =
        kids ? await_tokens(s, &b, parity, round, TREE_UP, 0, (uint32_t)kids) : DMSG_OK;
    if (!st && s->tp->rank > 0) {
        st = post_token(s, (s->tp->rank - 1) / OFI_BAR_FAN, parity, round, TREE_UP, mine, &h[0], &b);
        if (!st)
            st = await_tokens(s, &b, parity, round, TREE_DOWN, 0, 1);
    }
    for (int i = 0; i < kids && !st; i++)
        st = post_token(s, (int)first + i, parity, round, TREE_DOWN, mine, &h[1 + i], &b);
    /* Wait for every token posted, also after a failure. */
    dmsg_status w = dmsg_ofi_wait_batch(s, &b, "barrier tokens");
    return st ? st : w;
}

static dmsg_status token_round(ofi_state *s, int parity, int round, int mine)
{
    return s->bar.tree ? tree_round(s, parity, round, mine)
                       : dissemination_round(s, parity, round, mine);
}

/* Quiet (every operation of this PE is delivered), then a round of tokens;
 * when it ends, every PE has entered, so everything issued before the
 * barrier anywhere is visible. Tokens of a faster PE's next barrier count
 * on the other parity. Deposit engine messages are delivered into a receive
 * buffer but stored only when the target reads them; the target does so
 * before it sees the sender's token (tokens travel behind messages), yet a
 * third PE could pass the barrier before that. So when any PE sent engine
 * messages (round-0 tokens carry it to every PE), a second round of tokens
 * follows, sent only after each PE has stored what it received. */
dmsg_status dmsg_ofi_barrier(dmsg_tp *tp)
{
    ofi_state *s = tp->priv;
    dmsg_status st = dmsg_ofi_quiet(tp);
    if (st)
        return st;
    int parity = (int)(s->bar.count & 1);
    int mine = s->eng.used;
    s->eng.used = 0;
    if ((st = token_round(s, parity, 0, mine)))
        return st;
    if ((s->bar.any_engine[parity] || mine) && (st = token_round(s, parity, 1, 0)))
        return st;
    /* The next tokens of this parity come only after everyone has passed
     * the next barrier, which needs our token: resetting now is safe. */
    s->bar.any_engine[parity] = 0;
    /* After the first barrier every PE knows whether any is oversubscribed. */
    if (s->bar.count == 0)
        s->bar.tree = s->bar.any_oversub;
    s->bar.count++;
    return DMSG_OK;
}
