/*
 * caf_init.c - the image's life: init/finalize, image numbers, STOP, ERROR
 * STOP, FAIL IMAGE, image status queries and teams, plus the error helpers
 * the other files share.
 *
 * SPDX-License-Identifier: BSD-3-Clause (the LICENSE file of dmsg)
 */
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "dmsg/core/state.h"
#include "dmsg/front/caf/caf.h"

static dmsg_caf_team initial_team = {DMSG_TEAM_WORLD, -1, NULL, NULL, 0};
dmsg_caf_team *dmsg_caf_cur = &initial_team;
uint64_t *dmsg_caf_status;
uint64_t dmsg_caf_barriers;
uint64_t *dmsg_caf_sync_cnt;
uint64_t *dmsg_caf_sync_seen;
uint64_t *dmsg_caf_gate_cnt;
uint64_t *dmsg_caf_gate_seen;
int dmsg_caf_alloc_stopped;
char *dmsg_caf_slots;
char *dmsg_caf_big;
uint64_t *dmsg_caf_big_acks;
uint64_t dmsg_caf_big_want[2];

/* Ends the job: dmsgrun reports the first PE that exits non-zero and stops the others. */
static void die(int code) __attribute__((noreturn));
static void die(int code)
{
    fflush(stdout);
    fflush(stderr);
    exit(code);
}

void dmsg_caf_ok(int *stat, char *errmsg, size_t errmsg_len)
{
    if (stat)
        *stat = 0;
    (void)errmsg;
    (void)errmsg_len;
}

void dmsg_caf_fail(int *stat, char *errmsg, size_t errmsg_len, int code, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (stat) {
        /* Fortran's errmsg is blank-padded, not NUL-terminated. */
        *stat = code;
        if (errmsg && errmsg_len) {
            size_t n = strlen(msg);
            if (n > errmsg_len)
                n = errmsg_len;
            memcpy(errmsg, msg, n);
            memset(errmsg + n, ' ', errmsg_len - n);
        }
        return;
    }
    fprintf(stderr, "libcaf_dmsg: image %d: %s\n", dmsg_pe() + 1, msg);
    die(1);
}

void dmsg_caf_unsupported(const char *what)
{
    fprintf(stderr, "libcaf_dmsg: image %d: %s is not supported by dmsg's coarray runtime "
                    "(docs/coarrays.md)\n", dmsg_pe() + 1, what);
    die(1);
}

int dmsg_caf_pe(int image)
{
    if (dmsg_caf_cur->team == DMSG_TEAM_WORLD)
        return image >= 1 && image <= dmsg_npes() ? image - 1 : -1;
    int n = dmsg_team_npes(dmsg_caf_cur->team);
    if (image < 1 || image > n)
        return -1;
    return dmsg_team_translate(dmsg_caf_cur->team, image - 1, DMSG_TEAM_WORLD);
}

void _gfortran_caf_init(int *argc, char ***argv);
void _gfortran_caf_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (dmsg_caf_sync_seen && argc) {
        /* Started by a static coarray's registration: the constructors have
         * since stored the coarrays' initial values, which every image must
         * see in place before any image runs the program. */
        int rc = dmsg_caf_world_sync();
        if (rc != DMSG_OK) {
            fprintf(stderr, "libcaf_dmsg: start-up barrier: %s\n", dmsg_strerror(rc));
            die(1);
        }
        return;
    }
    int rc = dmsg_init();
    if (rc != DMSG_OK) {
        fprintf(stderr, "libcaf_dmsg: dmsg_init failed: %s (%s)\n", dmsg_strerror(rc),
                dmsg_last_error());
        die(1);
    }
    size_t n = (size_t)dmsg_npes();
    void *p = NULL, *q = NULL, *slots = NULL, *big = NULL;
    /* status: one word per image, how many have stopped, the bell, the
     * job's seed, the anchor; then
     * the arrival words of SYNC IMAGES and of the gates, and the local
     * counts of the waits for them (one block each) */
    if ((rc = dmsg_alloc(DMSG_CAF_STATUS_WORDS(n) * sizeof(uint64_t), &p)) != DMSG_OK ||
        (rc = dmsg_alloc(2 * n * sizeof(uint64_t), &q)) != DMSG_OK ||
        (rc = dmsg_alloc(2 * n * DMSG_CAF_SLOT, &slots)) != DMSG_OK ||
        (rc = dmsg_alloc(64 + 2 * DMSG_CAF_BIG, &big)) != DMSG_OK ||
        !(dmsg_caf_sync_seen = calloc(2 * n, sizeof(uint64_t)))) {
        fprintf(stderr, "libcaf_dmsg: start-up failed: %s\n", rc ? dmsg_strerror(rc) : "no memory");
        die(1);
    }
    dmsg_caf_status = p;
    /* read by other images only after the barriers of the allocations below */
    *DMSG_CAF_ANCHOR = (uint64_t)(uintptr_t)p;
    dmsg_caf_sync_cnt = q;
    dmsg_caf_gate_cnt = dmsg_caf_sync_cnt + n;
    dmsg_caf_gate_seen = dmsg_caf_sync_seen + n;
    dmsg_caf_slots = slots;
    dmsg_caf_big_acks = big; /* two words, a line apart from the buffers */
    dmsg_caf_big = (char *)big + 64;
    if (dmsg_pe() == 0) {
        uint64_t seed = 0;
        if (getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed)
            seed = (uint64_t)time(NULL) * 2654435761u ^ (uint64_t)getpid();
        seed |= 1; /* never 0: 0 means "not drawn yet" */
        (void)dmsg_atomic(DMSG_CAF_JOB_SEED, DMSG_AMO_SET, DMSG_TYPE_UINT64, &seed, NULL, NULL, 0);
    }
}

int dmsg_caf_world_sync(void)
{
    int rc = dmsg_sync();
    if (rc == DMSG_OK)
        dmsg_caf_barriers++;
    return rc;
}

static uint64_t status_of(int pe)
{
    uint64_t v = 0;
    (void)dmsg_atomic(&dmsg_caf_status[pe], DMSG_AMO_FETCH, DMSG_TYPE_UINT64, NULL, NULL, &v,
                      dmsg_pe());
    return v;
}

int dmsg_caf_has_stopped(int pe)
{
    return status_of(pe) != 0;
}

int dmsg_caf_nstopped(void)
{
    return (int)status_of(dmsg_npes());
}

uint64_t dmsg_caf_job_seed(void)
{
    /* image 1 stores it in its start-up, which may still be under way */
    uint64_t v = 0;
    while (dmsg_atomic(DMSG_CAF_JOB_SEED, DMSG_AMO_FETCH, DMSG_TYPE_UINT64, NULL, NULL, &v, 0) ==
               DMSG_OK &&
           v == 0 && dmsg_job_check() == DMSG_OK)
        sched_yield();
    return v;
}

int dmsg_caf_stopped_by(uint64_t epoch)
{
    /* one word while no image has stopped (every SYNC ALL asks) */
    if (status_of(dmsg_npes()) == 0)
        return 0;
    for (int pe = 0; pe < dmsg_npes(); pe++) {
        uint64_t v = status_of(pe);
        if (v && v <= epoch)
            return pe + 1;
    }
    return 0;
}

/* This image has stopped: it says so to every image (its status word holds
 * the first barrier it will enter stopped, its SYNC IMAGES and gate words
 * wake whoever waits for it there, and the bell wakes EVENT WAITs), then takes part in world barriers until every
 * image has stopped. A SYNC ALL of the others thus still completes and
 * reports STAT_STOPPED_IMAGE, instead of meeting dmsg_finalize's barrier and
 * leaving the job out of step. Every image leaves the loop after the same
 * barrier: a status word <= that barrier's number was stored before its
 * image entered it, so every image sees it afterwards; one stored later
 * holds a larger number. */
static void wait_all_stopped(void)
{
    if (!dmsg_caf_status)
        return;
    int me = dmsg_pe(), n = dmsg_npes();
    uint64_t epoch = dmsg_caf_barriers + 1, wake = DMSG_CAF_STOP_WAKE, one = 1;
    if (status_of(me) == 0) {
        (void)dmsg_quiet();
        for (int pe = 0; pe < n; pe++) {
            (void)dmsg_atomic(&dmsg_caf_status[me], DMSG_AMO_SET, DMSG_TYPE_UINT64, &epoch, NULL,
                              NULL, pe);
            (void)dmsg_atomic(&dmsg_caf_status[n], DMSG_AMO_ADD, DMSG_TYPE_UINT64, &one, NULL,
                              NULL, pe);
            if (pe != me) {
                (void)dmsg_signal(&dmsg_caf_sync_cnt[me], wake, DMSG_SIG_ADD, pe);
                (void)dmsg_signal(&dmsg_caf_gate_cnt[me], wake, DMSG_SIG_ADD, pe);
            }
        }
        /* the bell rings after the count has landed (an EVENT WAIT reads
         * the count when the bell wakes it) */
        (void)dmsg_quiet();
        for (int pe = 0; pe < n; pe++)
            if (pe != me)
                (void)dmsg_signal(DMSG_CAF_BELL, 1, DMSG_SIG_ADD, pe);
        (void)dmsg_quiet();
    }
    for (;;) {
        if (dmsg_caf_world_sync() != DMSG_OK)
            return;
        int all = 1;
        for (int pe = 0; pe < n && all; pe++) {
            uint64_t v = status_of(pe);
            all = v != 0 && v <= dmsg_caf_barriers;
        }
        if (all)
            return;
    }
}

/* Every team FORM TEAM made, newest first (freed at the end). */
static dmsg_caf_team *formed;

void _gfortran_caf_finalize(void);
void _gfortran_caf_finalize(void)
{
    fflush(stdout);
    wait_all_stopped();
    int rc = dmsg_finalize();
    if (rc != DMSG_OK && rc != DMSG_ERR_NOT_INIT) {
        fprintf(stderr, "libcaf_dmsg: image %d: dmsg_finalize: %s\n", dmsg_pe() + 1,
                dmsg_strerror(rc));
        die(1);
    }
    free(dmsg_caf_sync_seen);
    dmsg_caf_sync_seen = NULL;
    dmsg_caf_gate_seen = NULL;
    /* a TEAM_TYPE variable lives to the end of the program, and no call
     * tells when it is gone: every team formed is freed here */
    while (formed) {
        dmsg_caf_team *t = formed;
        formed = t->formed;
        free(t);
    }
}

int _gfortran_caf_this_image(int distance);
int _gfortran_caf_this_image(int distance)
{
    (void)distance;
    return dmsg_team_pe(dmsg_caf_cur->team) + 1;
}

int _gfortran_caf_num_images(int distance, int failed);
int _gfortran_caf_num_images(int distance, int failed)
{
    (void)distance;
    /* No image ever fails on its own (docs/coarrays.md): failed=1 counts none. */
    if (failed == 1)
        return 0;
    return dmsg_team_npes(dmsg_caf_cur->team);
}

/* Normal termination of this image: others may still read its status, and
 * dmsg_finalize waits until every image has terminated (Fortran's rule). */
static void stop_image(int code) __attribute__((noreturn));
static void stop_image(int code)
{
    _gfortran_caf_finalize();
    die(code);
}

void _gfortran_caf_stop_numeric(int code, bool quiet) __attribute__((noreturn));
void _gfortran_caf_stop_numeric(int code, bool quiet)
{
    if (!quiet) {
        fflush(stdout);
        fprintf(stderr, "STOP %d\n", code);
    }
    stop_image(code);
}

void _gfortran_caf_stop_str(const char *s, size_t len, bool quiet) __attribute__((noreturn));
void _gfortran_caf_stop_str(const char *s, size_t len, bool quiet)
{
    if (!quiet && len > 0) { /* a plain STOP prints nothing, as without coarrays */
        fflush(stdout);
        fprintf(stderr, "STOP %.*s\n", (int)len, s);
    }
    stop_image(0);
}

/* ERROR STOP ends every image at once: this PE exits with the code, dmsgrun
 * sees it, stops the others and exits with the same code. */
void _gfortran_caf_error_stop(int code, bool quiet) __attribute__((noreturn));
void _gfortran_caf_error_stop(int code, bool quiet)
{
    if (!quiet) {
        fflush(stdout);
        fprintf(stderr, "ERROR STOP %d\n", code);
    }
    die(code);
}

void _gfortran_caf_error_stop_str(const char *s, size_t len, bool quiet) __attribute__((noreturn));
void _gfortran_caf_error_stop_str(const char *s, size_t len, bool quiet)
{
    if (!quiet) {
        fflush(stdout);
        fprintf(stderr, "ERROR STOP %.*s\n", (int)len, s);
    }
    die(1);
}

/* dmsg's images share one fate (a PE that exits early ends the job), so a
 * failed image cannot go on being one while the others continue. */
void _gfortran_caf_fail_image(void) __attribute__((noreturn));
void _gfortran_caf_fail_image(void)
{
    fflush(stdout);
    fprintf(stderr, "libcaf_dmsg: image %d: FAIL IMAGE: dmsg images cannot fail independently; "
                    "the job ends (docs/coarrays.md)\n", dmsg_pe() + 1);
    die(1);
}

int _gfortran_caf_image_status(int image, void **team);
int _gfortran_caf_image_status(int image, void **team)
{
    (void)team;
    int pe = dmsg_caf_pe(image);
    if (pe < 0)
        dmsg_caf_fail(NULL, NULL, 0, 1, "IMAGE_STATUS: image %d does not exist", image);
    return status_of(pe) ? CAF_STAT_STOPPED_IMAGE : 0;
}

/* Fills an unallocated rank-1 integer result with the listed images. */
static void image_list(caf_desc *res, int *kind, int stopped)
{
    size_t esize = res->dtype.elem_len ? res->dtype.elem_len : (kind ? (size_t)*kind : 4);
    int n = dmsg_team_npes(dmsg_caf_cur->team), cnt = 0;
    char *buf = malloc((size_t)(n > 0 ? n : 1) * esize);
    if (!buf)
        dmsg_caf_fail(NULL, NULL, 0, 1, "out of memory");
    for (int i = 1; i <= n && stopped; i++) {
        if (_gfortran_caf_image_status(i, NULL) == 0)
            continue;
        int64_t v = i;
        if (esize == 8)
            memcpy(buf + (size_t)cnt * esize, &v, 8);
        else if (esize == 2) {
            int16_t s = (int16_t)i;
            memcpy(buf + (size_t)cnt * esize, &s, 2);
        } else if (esize == 1)
            buf[cnt] = (char)i;
        else {
            int32_t w = i;
            memcpy(buf + (size_t)cnt * esize, &w, 4);
        }
        cnt++;
    }
    res->base = buf;
    /* gfortran's temporary for the result is indexed from 0 */
    res->offset = 0;
    res->dim[0].lbound = 0;
    res->dim[0].ubound = cnt - 1;
    res->dim[0].stride = 1;
    res->span = (ptrdiff_t)esize;
}

void _gfortran_caf_failed_images(caf_desc *res, void **team, int *kind);
void _gfortran_caf_failed_images(caf_desc *res, void **team, int *kind)
{
    (void)team;
    image_list(res, kind, 0);
}

void _gfortran_caf_stopped_images(caf_desc *res, void **team, int *kind);
void _gfortran_caf_stopped_images(caf_desc *res, void **team, int *kind)
{
    (void)team;
    image_list(res, kind, 1);
}

/* ------------------------------------------------------------------ teams */

void _gfortran_caf_form_team(int number, void **team, int index);
void _gfortran_caf_form_team(int number, void **team, int index)
{
    /* gfortran 12 takes no STAT= for the team statements: a stopped image
     * in the team ends the job (the standard's error termination) */
    (void)dmsg_caf_gate(dmsg_caf_cur->team, 0, "FORM TEAM", NULL, NULL, 0);
    dmsg_caf_team *t = calloc(1, sizeof *t);
    if (!t)
        dmsg_caf_fail(NULL, NULL, 0, 1, "FORM TEAM: out of memory");
    int key = index > 0 ? index - 1 : dmsg_team_pe(dmsg_caf_cur->team);
    int rc = dmsg_team_split_color(dmsg_caf_cur->team, number, key, &t->team);
    if (rc != DMSG_OK)
        dmsg_caf_fail(NULL, NULL, 0, 1, "FORM TEAM: %s (%s)", dmsg_strerror(rc), dmsg_last_error());
    t->number = number;
    t->formed = formed;
    formed = t;
    *team = t;
}

void _gfortran_caf_change_team(void **team, int coselector);
void _gfortran_caf_change_team(void **team, int coselector)
{
    (void)coselector;
    dmsg_caf_team *t = team ? *team : NULL;
    if (!t || t->team == DMSG_TEAM_INVALID)
        dmsg_caf_fail(NULL, NULL, 0, 1, "CHANGE TEAM: the team was not formed");
    t->parent = dmsg_caf_cur;
    dmsg_caf_cur = t;
    (void)dmsg_caf_gate(t->team, 1, "CHANGE TEAM", NULL, NULL, 0);
}

void _gfortran_caf_end_team(void **team);
void _gfortran_caf_end_team(void **team)
{
    (void)team;
    dmsg_caf_team *t = dmsg_caf_cur;
    if (!t->parent)
        dmsg_caf_fail(NULL, NULL, 0, 1, "END TEAM outside CHANGE TEAM");
    (void)dmsg_caf_gate(t->team, 1, "END TEAM", NULL, NULL, 0);
    dmsg_caf_cur = t->parent;
    t->parent = NULL;
}

void _gfortran_caf_sync_team(void **team, int unused);
void _gfortran_caf_sync_team(void **team, int unused)
{
    (void)unused;
    dmsg_caf_team *t = team && *team ? *team : dmsg_caf_cur;
    (void)dmsg_caf_gate(t->team, 1, "SYNC TEAM", NULL, NULL, 0);
}

int _gfortran_caf_team_number(void **team);
int _gfortran_caf_team_number(void **team)
{
    dmsg_caf_team *t = team && *team ? *team : dmsg_caf_cur;
    return t->number;
}

void *_gfortran_caf_get_team(int32_t *level);
void *_gfortran_caf_get_team(int32_t *level)
{
    /* GET_TEAM(INITIAL_TEAM) = -1, PARENT_TEAM = -2, CURRENT_TEAM = -3 (iso_fortran_env). */
    if (level && *level == -1)
        return &initial_team;
    if (level && *level == -2 && dmsg_caf_cur->parent)
        return dmsg_caf_cur->parent;
    return dmsg_caf_cur;
}
