/* Choosing how this PE finds its peers. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "dmsg/boot/job.h"
#include "dmsg/boot/kvs.h"
#include "dmsg/boot/launcher.h"

/* Seconds a PMI answer (a start-up barrier: all PEs must arrive) may take. */
#define BOOT_PMI_TIMEOUT 120.0

/* Set once this process has joined a launcher's job. The launcher's
 * variables are gone then (they are unset so that programs this one starts
 * do not join the job), so a second dmsg_init must not quietly become a
 * singleton. */
static int joined_launcher;

/* A start-up failure under a launcher: the detail of the failed dmsg_init
 * (dmsg_last_error), which dmsg_boot_note_failure says once for the job;
 * b names the launcher and this process's rank for it. */
static dmsg_status refuse(dmsg_boot *b, const dmsg_launcher *l, dmsg_status st, const char *fmt,
                          ...) __attribute__((format(printf, 4, 5)));
static dmsg_status refuse(dmsg_boot *b, const dmsg_launcher *l, dmsg_status st, const char *fmt,
                          ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    b->launcher = l->name;
    b->rank = (int)l->rank;
    return DMSG_FAIL(st, "%s", msg);
}

/* The launcher's variables are this process's alone once it has joined: a
 * dmsg program it starts (system("./other")) must be a job of its own, not
 * a second copy of this rank in its parent's job. */
static void forget_launcher(const dmsg_launcher *l)
{
    static const char *const pmi[] = {"PMI_FD", "PMI_RANK", "PMI_SIZE", NULL};
    static const char *const pmix[] = {"PMIX_NAMESPACE", "PMIX_RANK", "OMPI_COMM_WORLD_SIZE",
                                       "OMPI_COMM_WORLD_RANK", "SLURM_STEP_NUM_TASKS", NULL};
    for (const char *const *v = l->kind == DMSG_LAUNCHER_PMI ? pmi : pmix; *v; v++)
        unsetenv(*v);
}

/* libpmix reads the namespace and rank from the environment itself; they
 * were taken out before main (dmsg_boot_env_take) and go back only while
 * it connects. */
static void put_back_pmix(void)
{
    static const char *const pmix[] = {"PMIX_NAMESPACE", "PMIX_RANK", NULL};
    dmsg_boot_env_put_back(pmix);
}

/* Why a job larger than DMSG_MAX_PES is refused (the transports' rows and
 * barrier steps are sized by it: job.h). */
#define BOOT_TOO_MANY_FMT(n) "dmsg runs at most " #n " PEs (DMSG_MAX_PES)"
#define BOOT_TOO_MANY(n) BOOT_TOO_MANY_FMT(n)
static const char too_many[] = BOOT_TOO_MANY(DMSG_MAX_PES);

static dmsg_status join_manager(dmsg_boot *b, const dmsg_launcher *l, const char *pmix_library)
{
    dmsg_kvs *k;
    int rank, npes;
    dmsg_kvs_proto proto = l->kind == DMSG_LAUNCHER_PMIX ? DMSG_KVS_PMIX : DMSG_KVS_PMI;
    if (proto == DMSG_KVS_PMIX)
        put_back_pmix();
    dmsg_status st = dmsg_kvs_open(proto, pmix_library, &k, &rank, &npes, BOOT_PMI_TIMEOUT);
    if (st) {
        char why[512]; /* the detail, before forget_launcher may replace it */
        snprintf(why, sizeof why, "%s", dmsg_last_error());
        forget_launcher(l);
        return refuse(b, l, st, "started by %s (%s is set), but cannot join its job: %s", l->name,
                      l->var, why);
    }
    if (npes > DMSG_MAX_PES) {
        /* The launcher did not say the size before (PMIx without a size
         * variable): refuse now, before any row sized by DMSG_MAX_PES. */
        dmsg_kvs_close(k);
        forget_launcher(l);
        return refuse(b, l, DMSG_ERR_UNSUPPORTED, "started by %s as a job of %d PEs: %s", l->name,
                      npes, too_many);
    }
    forget_launcher(l);
    dmsg_boot_env_forget();
    joined_launcher = 1;
    *b = (dmsg_boot){.kind = DMSG_BOOT_PMI,
                     .rank = rank,
                     .npes = npes,
                     .fd = -1,
                     .life_fd = -1,
                     .priv = k,
                     .launcher = l->name,
                     .pass = l->pass};
    return DMSG_OK;
}

dmsg_status dmsg_boot_start(dmsg_boot *b, uint64_t seg_size, uint32_t max_counters,
                            const char *pmix_library)
{
    if (joined_launcher)
        return DMSG_FAIL(DMSG_ERR_TRANSPORT,
                         "this process has already joined its launcher's job once");
    /* dmsgrun's protocol wins: it is set only by the local launcher. */
    dmsg_launcher l;
    dmsg_launcher_detect(&l);
    /* What dmsg_boot_note_failure needs if nothing below fills it. */
    *b = (dmsg_boot){.kind = DMSG_BOOT_SINGLETON, .rank = -1, .fd = -1, .life_fd = -1};
    if (dmsg_boot_env(DMSG_BOOT_ENV_FD))
        l.kind = DMSG_LAUNCHER_NONE;
    switch (l.kind) {
    case DMSG_LAUNCHER_PMI:
    case DMSG_LAUNCHER_PMIX:
        /* Refused before connecting where the environment says the size. */
        if (l.size > DMSG_MAX_PES)
            return refuse(b, &l, DMSG_ERR_UNSUPPORTED, "started by %s as a job of %ld PEs: %s",
                          l.name, l.size, too_many);
        return join_manager(b, &l, pmix_library);
    case DMSG_LAUNCHER_FOREIGN:
        if (l.size > 0)
            return refuse(b, &l, DMSG_ERR_UNSUPPORTED,
                          "started by %s (%s=%ld), which dmsg cannot join: %s", l.name, l.var,
                          l.size, l.advice);
        return refuse(b, &l, DMSG_ERR_UNSUPPORTED,
                      "started by %s (%s is set), which dmsg cannot join: %s", l.name, l.var,
                      l.advice);
    case DMSG_LAUNCHER_NONE:
        break;
    }
    dmsg_status st = dmsg_boot_local(b, seg_size, max_counters);
    if (st == DMSG_OK && b->kind == DMSG_BOOT_LOCAL) {
        dmsg_boot_env_forget();
        joined_launcher = 1;
    }
    return st;
}


void dmsg_boot_end(dmsg_boot *b)
{
    free(b->kv_mine);
    free(b->kv_all);
    b->kv_mine = b->kv_all = NULL;
    dmsg_job_unmap(b->hdr);
    b->hdr = NULL;
    if (b->fd >= 0)
        close(b->fd);
    b->fd = -1;
    if (b->life_fd >= 0)
        close(b->life_fd);
    b->life_fd = -1;
    if (b->kind == DMSG_BOOT_PMI)
        dmsg_kvs_close(b->priv);
    b->priv = NULL;
}
