/*
 * caf_sync.c - image control: SYNC ALL (dmsg_sync over the current team),
 * SYNC IMAGES (pairwise, on a per-image arrival word: no global barrier),
 * SYNC MEMORY, LOCK/UNLOCK and CRITICAL (compare-and-swap on a word of the
 * lock's image), EVENT POST/WAIT/QUERY (a counter word changed by dmsg
 * atomics) and the atomic subroutines.
 *
 * SPDX-License-Identifier: BSD-3-Clause (the LICENSE file of dmsg)
 */
#include <sched.h>

#include "dmsg/core/state.h"
#include "dmsg/front/caf/caf.h"

static void check(int rc, int *stat, char *errmsg, size_t errmsg_len, const char *what)
{
    if (rc == DMSG_OK)
        dmsg_caf_ok(stat, errmsg, errmsg_len);
    else
        dmsg_caf_fail(stat, errmsg, errmsg_len, 1, "%s: %s (%s)", what, dmsg_strerror(rc),
                      dmsg_last_error());
}

/* The arrival words work as those of SYNC IMAGES below: image i's word
 * gate_cnt[j] counts the gates j came through with i, and a stopping image
 * adds DMSG_CAF_STOP_WAKE to its word everywhere, so a wait for it ends and
 * the count below that bit says whether it had come. Every member of a
 * team passes the team's gates in the same order (collectives are called
 * in the same order), so the counts of a pair agree. */
static char *slot(int pe, uint64_t gates)
{
    return dmsg_caf_slots + ((size_t)(gates & 1) * (size_t)dmsg_npes() + (size_t)pe) * DMSG_CAF_SLOT;
}

const void *dmsg_caf_gate_slot(int pe)
{
    return slot(pe, dmsg_caf_gate_seen[pe] - 1);
}

/* Waits for image pe's next arrival on this image's word cnt[pe] (seen[pe]
 * counts the arrivals waited for). A stopping image adds DMSG_CAF_STOP_WAKE
 * to the word: the wait ends, and the count below it says whether pe came
 * before stopping; if not, *stopped is set and the arrival is not counted
 * (it never comes: later waits must not wait for it). */
static int arrival(uint64_t *cnt, uint64_t *seen, int pe, int *stopped)
{
    uint64_t want = ++seen[pe], v = 0;
    int rc = dmsg_wait_until(&cnt[pe], DMSG_TYPE_UINT64, DMSG_CMP_GE, &want);
    if (rc == DMSG_OK)
        rc = dmsg_atomic(&cnt[pe], DMSG_AMO_FETCH, DMSG_TYPE_UINT64, NULL, NULL, &v, dmsg_pe());
    if (rc == DMSG_OK && (v & (DMSG_CAF_STOP_WAKE - 1)) < want) {
        seen[pe]--;
        *stopped = 1;
    }
    return rc;
}

static int gate(dmsg_team team, int quiet, const void *data, size_t bytes, const char *what,
                int *stat, char *errmsg, size_t errmsg_len)
{
    int me = dmsg_pe(), n = dmsg_team_npes(team), rc = n < 1 ? n : DMSG_OK;
    if (quiet && rc == DMSG_OK)
        rc = dmsg_quiet();
    for (int i = 0; i < n && rc == DMSG_OK; i++) {
        int pe = team == DMSG_TEAM_WORLD ? i : dmsg_team_translate(team, i, DMSG_TEAM_WORLD);
        if (pe == me)
            continue;
        /* the gates this pair has passed choose the slot, on both sides */
        if (data)
            rc = dmsg_deposit_signal(slot(me, dmsg_caf_gate_seen[pe]), data, bytes, pe,
                                     DMSG_CTR_NONE, &dmsg_caf_gate_cnt[me], 1, DMSG_SIG_ADD);
        else
            rc = dmsg_signal(&dmsg_caf_gate_cnt[me], 1, DMSG_SIG_ADD, pe);
    }
    int gone = 0;
    for (int i = 0; i < n && rc == DMSG_OK; i++) {
        int pe = team == DMSG_TEAM_WORLD ? i : dmsg_team_translate(team, i, DMSG_TEAM_WORLD);
        if (pe == me)
            continue;
        int stopped = 0;
        rc = arrival(dmsg_caf_gate_cnt, dmsg_caf_gate_seen, pe, &stopped);
        if (stopped && !gone)
            gone = pe + 1;
    }
    return dmsg_caf_step_end(stat, errmsg, errmsg_len, what, rc, gone);
}

int dmsg_caf_step_end(int *stat, char *errmsg, size_t errmsg_len, const char *what, int rc,
                      int gone)
{
    /* images are named by their number in the initial team, as the
     * message's "image N:" prefix names this one */
    if (gone)
        dmsg_caf_fail(stat, errmsg, errmsg_len, CAF_STAT_STOPPED_IMAGE, "%s: image %d has stopped",
                      what, gone);
    else if (rc != DMSG_OK)
        dmsg_caf_fail(stat, errmsg, errmsg_len, 1, "%s: %s (%s)", what, dmsg_strerror(rc),
                      dmsg_last_error());
    return gone || rc != DMSG_OK ? -1 : 0;
}

int dmsg_caf_gate(dmsg_team team, int quiet, const char *what, int *stat, char *errmsg,
                  size_t errmsg_len)
{
    return gate(team, quiet, NULL, 0, what, stat, errmsg, errmsg_len);
}

int dmsg_caf_gate_data(dmsg_team team, const void *data, size_t bytes, const char *what, int *stat,
                       char *errmsg, size_t errmsg_len)
{
    if (bytes > DMSG_CAF_SLOT) {
        dmsg_caf_fail(stat, errmsg, errmsg_len, 1, "%s: %zu bytes do not fit a gate's slot", what,
                      bytes);
        return -1;
    }
    return gate(team, 0, data, bytes, what, stat, errmsg, errmsg_len);
}

void _gfortran_caf_sync_all(int *stat, char *errmsg, size_t errmsg_len)
{
    /* the SYNC ALL that gfortran adds after a coarray ALLOCATE: a stopped
     * image was reported by the ALLOCATE's STAT= already */
    int after_alloc = dmsg_caf_alloc_stopped && !stat;
    dmsg_caf_alloc_stopped = 0;
    if (dmsg_caf_cur->team != DMSG_TEAM_WORLD) {
        /* a stopped image takes part in world barriers only: the gate
         * (with quiet, a barrier) finds it instead of waiting for it */
        if (dmsg_caf_gate(dmsg_caf_cur->team, 1, "SYNC ALL", stat, errmsg, errmsg_len) == 0)
            dmsg_caf_ok(stat, errmsg, errmsg_len);
        return;
    }
    /* A stopped image takes part in world barriers until all have stopped
     * (caf_init.c): the barrier completes, and its status says whether it
     * had stopped by this barrier. */
    int rc = dmsg_caf_world_sync(), gone = rc == DMSG_OK ? dmsg_caf_stopped_by(dmsg_caf_barriers) : 0;
    if (gone && after_alloc)
        dmsg_caf_ok(stat, errmsg, errmsg_len);
    else if (gone)
        dmsg_caf_fail(stat, errmsg, errmsg_len, CAF_STAT_STOPPED_IMAGE,
                      "SYNC ALL: image %d has stopped", gone);
    else
        check(rc, stat, errmsg, errmsg_len, "SYNC ALL");
}

void _gfortran_caf_sync_memory(int *stat, char *errmsg, size_t errmsg_len);
void _gfortran_caf_sync_memory(int *stat, char *errmsg, size_t errmsg_len)
{
    check(dmsg_quiet(), stat, errmsg, errmsg_len, "SYNC MEMORY");
}

/* Image i's word sync_cnt[j] counts the SYNC IMAGES that image j has
 * directed at i; i's sync_seen[j] how many of them i has waited for. Each
 * side first completes its own accesses (quiet), then tells the others,
 * then waits for their word: the pairs order their segments, nothing else
 * waits. */
void _gfortran_caf_sync_images(int count, int images[], int *stat, char *errmsg,
                               size_t errmsg_len);
void _gfortran_caf_sync_images(int count, int images[], int *stat, char *errmsg,
                               size_t errmsg_len)
{
    int me = dmsg_pe(), n = dmsg_team_npes(dmsg_caf_cur->team);
    int all = count < 0, cnt = all ? n : count;
    /* The list is checked whole first: a bad one synchronizes with nobody. */
    for (int i = 0; i < cnt && !all; i++) {
        if (dmsg_caf_pe(images[i]) < 0) {
            dmsg_caf_fail(stat, errmsg, errmsg_len, 1, "SYNC IMAGES: image %d does not exist",
                          images[i]);
            return;
        }
        for (int j = 0; j < i; j++)
            if (images[j] == images[i]) {
                dmsg_caf_fail(stat, errmsg, errmsg_len, CAF_STAT_DUP_SYNC_IMAGES,
                              "SYNC IMAGES: image %d appears twice in the list", images[i]);
                return;
            }
    }
    int rc = dmsg_quiet();
    for (int i = 0; i < cnt && rc == DMSG_OK; i++) {
        int pe = dmsg_caf_pe(all ? i + 1 : images[i]);
        if (pe != me)
            rc = dmsg_signal(&dmsg_caf_sync_cnt[me], 1, DMSG_SIG_ADD, pe);
    }
    /* A stopping image adds DMSG_CAF_STOP_WAKE to its word: the wait ends,
     * and the count below it says whether it came here before stopping. */
    int gone = 0;
    for (int i = 0; i < cnt && rc == DMSG_OK; i++) {
        int pe = dmsg_caf_pe(all ? i + 1 : images[i]);
        if (pe == me)
            continue;
        int stopped = 0;
        rc = arrival(dmsg_caf_sync_cnt, dmsg_caf_sync_seen, pe, &stopped);
        if (stopped && !gone)
            gone = all ? i + 1 : images[i];
    }
    if (gone)
        dmsg_caf_fail(stat, errmsg, errmsg_len, CAF_STAT_STOPPED_IMAGE,
                      "SYNC IMAGES: image %d has stopped", gone);
    else
        check(rc, stat, errmsg, errmsg_len, "SYNC IMAGES");
}

static uint64_t *word(void *token, size_t index)
{
    return (uint64_t *)((dmsg_caf_token *)token)->mem + index;
}

static int target(int image)
{
    return image == 0 ? dmsg_pe() : dmsg_caf_pe(image);
}

void _gfortran_caf_lock(void *token, size_t index, int image, int *acquired, int *stat,
                        char *errmsg, size_t errmsg_len);
void _gfortran_caf_lock(void *token, size_t index, int image, int *acquired, int *stat,
                        char *errmsg, size_t errmsg_len)
{
    int pe = target(image);
    uint64_t mine = (uint64_t)dmsg_pe() + 1, zero = 0, old = 0;
    if (pe < 0) {
        dmsg_caf_fail(stat, errmsg, errmsg_len, 1, "LOCK: image %d does not exist", image);
        return;
    }
    if (pe != dmsg_pe() && dmsg_caf_has_stopped(pe)) {
        dmsg_caf_fail(stat, errmsg, errmsg_len, CAF_STAT_STOPPED_IMAGE,
                      "LOCK: image %d has stopped", image);
        return;
    }
    for (;;) {
        int rc = dmsg_atomic(word(token, index), DMSG_AMO_CSWAP, DMSG_TYPE_UINT64, &mine, &zero,
                             &old, pe);
        if (rc) {
            check(rc, stat, errmsg, errmsg_len, "LOCK");
            return;
        }
        if (old == 0)
            break;
        if (old == mine) {
            dmsg_caf_fail(stat, errmsg, errmsg_len, CAF_STAT_LOCKED,
                          "LOCK: the lock is already held by this image");
            return;
        }
        if (acquired) {
            *acquired = 0;
            dmsg_caf_ok(stat, errmsg, errmsg_len);
            return;
        }
        /* a holder that has stopped never unlocks it */
        if (old <= (uint64_t)dmsg_npes() && dmsg_caf_has_stopped((int)old - 1)) {
            dmsg_caf_fail(stat, errmsg, errmsg_len, CAF_STAT_STOPPED_IMAGE,
                          "LOCK: the lock is held by image %llu, which has stopped",
                          (unsigned long long)old);
            return;
        }
        if ((rc = dmsg_job_check())) {
            check(rc, stat, errmsg, errmsg_len, "LOCK");
            return;
        }
        /* PEs may outnumber cores: let the holder run. */
        sched_yield();
    }
    if (acquired)
        *acquired = 1;
    dmsg_caf_ok(stat, errmsg, errmsg_len);
}

void _gfortran_caf_unlock(void *token, size_t index, int image, int *stat, char *errmsg,
                          size_t errmsg_len);
void _gfortran_caf_unlock(void *token, size_t index, int image, int *stat, char *errmsg,
                          size_t errmsg_len)
{
    int pe = target(image);
    uint64_t mine = (uint64_t)dmsg_pe() + 1, zero = 0, old = 0;
    if (pe < 0) {
        dmsg_caf_fail(stat, errmsg, errmsg_len, 1, "UNLOCK: image %d does not exist", image);
        return;
    }
    /* What this image did while holding the lock is complete first. */
    int rc = dmsg_quiet();
    if (rc == DMSG_OK)
        rc = dmsg_atomic(word(token, index), DMSG_AMO_CSWAP, DMSG_TYPE_UINT64, &zero, &mine, &old,
                         pe);
    if (rc) {
        check(rc, stat, errmsg, errmsg_len, "UNLOCK");
        return;
    }
    if (old != mine) {
        if (old == 0)
            dmsg_caf_fail(stat, errmsg, errmsg_len, CAF_STAT_UNLOCKED == 0 ? 1 : CAF_STAT_UNLOCKED,
                          "UNLOCK: the lock is not locked");
        else
            dmsg_caf_fail(stat, errmsg, errmsg_len, CAF_STAT_LOCKED_OTHER_IMAGE,
                          "UNLOCK: the lock is held by image %llu", (unsigned long long)old);
        return;
    }
    dmsg_caf_ok(stat, errmsg, errmsg_len);
}

void _gfortran_caf_event_post(void *token, size_t index, int image, int *stat, char *errmsg,
                              size_t errmsg_len);
void _gfortran_caf_event_post(void *token, size_t index, int image, int *stat, char *errmsg,
                              size_t errmsg_len)
{
    int pe = target(image);
    if (pe < 0) {
        dmsg_caf_fail(stat, errmsg, errmsg_len, 1, "EVENT POST: image %d does not exist", image);
        return;
    }
    if (pe != dmsg_pe() && dmsg_caf_has_stopped(pe)) {
        dmsg_caf_fail(stat, errmsg, errmsg_len, CAF_STAT_STOPPED_IMAGE,
                      "EVENT POST: image %d has stopped", image);
        return;
    }
    /* The poster's earlier accesses to any image complete before the count
     * moves, and the count has landed before the bell rings (a waiter that
     * the bell wakes reads the count). */
    int rc = dmsg_quiet();
    uint64_t one = 1;
    if (rc == DMSG_OK)
        rc = dmsg_atomic(word(token, index), DMSG_AMO_ADD, DMSG_TYPE_UINT64, &one, NULL, NULL, pe);
    if (rc == DMSG_OK && pe != dmsg_pe()) {
        rc = dmsg_quiet();
        if (rc == DMSG_OK)
            rc = dmsg_signal(DMSG_CAF_BELL, 1, DMSG_SIG_ADD, pe);
    }
    check(rc, stat, errmsg, errmsg_len, "EVENT POST");
}

void _gfortran_caf_event_wait(void *token, size_t index, int until, int *stat, char *errmsg,
                              size_t errmsg_len);
void _gfortran_caf_event_wait(void *token, size_t index, int until, int *stat, char *errmsg,
                              size_t errmsg_len)
{
    uint64_t want = until > 0 ? (uint64_t)until : 1, minus = (uint64_t)0 - want;
    /* EVENT WAIT names no image: any image may still post, so the wait
     * ends early only when every other image has stopped. It sleeps on the
     * bell (rung by posts to this image and by stopping images), read
     * before the count, so that no post or stop between the reads is
     * missed. */
    int rc, met = 0;
    for (;;) {
        uint64_t bell = 0, next;
        rc = dmsg_atomic(DMSG_CAF_BELL, DMSG_AMO_FETCH, DMSG_TYPE_UINT64, NULL, NULL, &bell,
                         dmsg_pe());
        if (rc == DMSG_OK)
            rc = dmsg_test_until(word(token, index), DMSG_TYPE_UINT64, DMSG_CMP_GE, &want, &met);
        if (rc != DMSG_OK || met)
            break;
        if (dmsg_caf_nstopped() >= dmsg_npes() - 1) {
            dmsg_caf_fail(stat, errmsg, errmsg_len, CAF_STAT_STOPPED_IMAGE,
                          "EVENT WAIT: every other image has stopped; the event cannot be "
                          "posted any more");
            return;
        }
        next = bell + 1;
        rc = dmsg_wait_until(DMSG_CAF_BELL, DMSG_TYPE_UINT64, DMSG_CMP_GE, &next);
        if (rc != DMSG_OK)
            break;
    }
    if (rc == DMSG_OK)
        rc = dmsg_atomic(word(token, index), DMSG_AMO_ADD, DMSG_TYPE_UINT64, &minus, NULL, NULL,
                         dmsg_pe());
    check(rc, stat, errmsg, errmsg_len, "EVENT WAIT");
}

void _gfortran_caf_event_query(void *token, size_t index, int image, int *count, int *stat);
void _gfortran_caf_event_query(void *token, size_t index, int image, int *count, int *stat)
{
    int pe = target(image);
    uint64_t v = 0;
    int rc = pe < 0 ? DMSG_ERR_PE
                    : dmsg_atomic(word(token, index), DMSG_AMO_FETCH, DMSG_TYPE_UINT64, NULL, NULL,
                                  &v, pe);
    if (rc == DMSG_OK)
        *count = (int)v;
    check(rc, stat, NULL, 0, "EVENT_QUERY");
}

/* ---------------------------------------------------------------- atomics */

static int amo_type(int kind)
{
    return kind == 8 ? DMSG_TYPE_INT64 : DMSG_TYPE_INT32;
}

static void *aaddr(void *token, size_t offset)
{
    return ((dmsg_caf_token *)token)->mem + offset;
}

void _gfortran_caf_atomic_define(void *token, size_t offset, int image, void *value, int *stat,
                                 int type, int kind);
void _gfortran_caf_atomic_define(void *token, size_t offset, int image, void *value, int *stat,
                                 int type, int kind)
{
    int pe = target(image);
    int rc = pe < 0 ? DMSG_ERR_PE
                    : dmsg_atomic(aaddr(token, offset), DMSG_AMO_SET, amo_type(kind), value, NULL,
                                  NULL, pe);
    check(rc, stat, NULL, 0, "ATOMIC_DEFINE");
}

void _gfortran_caf_atomic_ref(void *token, size_t offset, int image, void *value, int *stat,
                              int type, int kind);
void _gfortran_caf_atomic_ref(void *token, size_t offset, int image, void *value, int *stat,
                              int type, int kind)
{
    int pe = target(image);
    int rc = pe < 0 ? DMSG_ERR_PE
                    : dmsg_atomic(aaddr(token, offset), DMSG_AMO_FETCH, amo_type(kind), NULL, NULL,
                                  value, pe);
    check(rc, stat, NULL, 0, "ATOMIC_REF");
}

void _gfortran_caf_atomic_cas(void *token, size_t offset, int image, void *old, void *compare,
                              void *new_val, int *stat, int type, int kind);
void _gfortran_caf_atomic_cas(void *token, size_t offset, int image, void *old, void *compare,
                              void *new_val, int *stat, int type, int kind)
{
    int pe = target(image);
    int rc = pe < 0 ? DMSG_ERR_PE
                    : dmsg_atomic(aaddr(token, offset), DMSG_AMO_CSWAP, amo_type(kind), new_val,
                                  compare, old, pe);
    check(rc, stat, NULL, 0, "ATOMIC_CAS");
}

/* gfortran's operation codes: 1 add, 2 and, 3 or, 4 xor. */
void _gfortran_caf_atomic_op(int op, void *token, size_t offset, int image, void *value,
                             void *old, int *stat, int type, int kind);
void _gfortran_caf_atomic_op(int op, void *token, size_t offset, int image, void *value,
                             void *old, int *stat, int type, int kind)
{
    static const dmsg_amo_op plain[] = {0, DMSG_AMO_ADD, DMSG_AMO_AND, DMSG_AMO_OR, DMSG_AMO_XOR};
    static const dmsg_amo_op fetch[] = {0, DMSG_AMO_FETCH_ADD, DMSG_AMO_FETCH_AND,
                                        DMSG_AMO_FETCH_OR, DMSG_AMO_FETCH_XOR};
    int pe = target(image);
    if (op < 1 || op > 4) {
        dmsg_caf_fail(stat, NULL, 0, 1, "atomic operation %d is unknown", op);
        return;
    }
    int rc = pe < 0 ? DMSG_ERR_PE
                    : dmsg_atomic(aaddr(token, offset), old ? fetch[op] : plain[op],
                                  amo_type(kind), value, NULL, old, pe);
    check(rc, stat, NULL, 0, "atomic subroutine");
}
