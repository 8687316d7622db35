/* Mechanism choice per partner. Packing a partner's pieces costs two local
 * copies (gather at the sender, scatter at the receiver) and saves the
 * non-contiguous transfer; it only pays where the machine moves contiguous
 * blocks much faster than strided ones. A pair whose only piece is
 * contiguous at both ends, and the pair with oneself, never pack. */
#include <string.h>
#include "dmsg/plan/choose.h"

/* 1 if packing can differ from the direct deposit for this partner. */
static int pack_candidate(const dmsg_plan *pl, const plan_peer *pr)
{
    if (pr->pe == pl->me) return 0;
    return !(pr->npieces == 1 && plan_piece_contiguous(&pl->sendp.v[pr->first], pl->elem));
}

dmsg_status plan_choose(dmsg_plan *pl, const char *machine)
{
    (void)machine;
    pl->machine[0] = '\0';
    for (int i = 0; i < pl->nto; i++) {
        plan_peer *pr = &pl->to[i];
        int cand = pack_candidate(pl, pr);
        switch (pl->mech) {
        case DMSG_PLAN_PACK:
        case DMSG_PLAN_MEASURE:
            pr->packable = cand;
            break;
        default:
            pr->packable = 0;
            break;
        }
    }
    return DMSG_OK;
}
