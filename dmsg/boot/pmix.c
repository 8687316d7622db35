/* PMIx client (see pmix.h). pmix.h gives the types and the signatures; the
 * functions come from dlsym, so libdmsg has no link-time tie to libpmix. */
#include <dlfcn.h>
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dmsg/boot/pmix.h"

struct dmsg_pmix {
    void *lib;
    int timeout; /* seconds, for PMIX_TIMEOUT; 0 = none */
    pmix_proc_t me;
    __typeof__(PMIx_Init) *init;
    __typeof__(PMIx_Finalize) *finalize;
    __typeof__(PMIx_Put) *put;
    __typeof__(PMIx_Commit) *commit;
    __typeof__(PMIx_Fence) *fence;
    __typeof__(PMIx_Get) *get;
    __typeof__(PMIx_Value_destruct) *value_destruct;
    __typeof__(PMIx_Error_string) *error_string;
};

static dmsg_status load(dmsg_pmix *p, const char *library)
{
    /* RTLD_GLOBAL: libpmix opens its own plugins, which look for its symbols. */
    p->lib = dlopen(library, RTLD_NOW | RTLD_GLOBAL);
    if (!p->lib)
        return DMSG_FAIL(DMSG_ERR_TRANSPORT,
                         "cannot load the PMIx library %s (DMSG_PMIX_LIBRARY; Debian package "
                         "libpmix2): %s",
                         library, dlerror());
    struct {
        const char *name;
        void **fn;
    } syms[] = {
        {"PMIx_Init", (void **)&p->init},
        {"PMIx_Finalize", (void **)&p->finalize},
        {"PMIx_Put", (void **)&p->put},
        {"PMIx_Commit", (void **)&p->commit},
        {"PMIx_Fence", (void **)&p->fence},
        {"PMIx_Get", (void **)&p->get},
        {"PMIx_Value_destruct", (void **)&p->value_destruct},
        {"PMIx_Error_string", (void **)&p->error_string},
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        *syms[i].fn = dlsym(p->lib, syms[i].name);
        if (!*syms[i].fn)
            return DMSG_FAIL(DMSG_ERR_TRANSPORT,
                             "the PMIx library %s (DMSG_PMIX_LIBRARY) has no %s (PMIx 4 or "
                             "later is needed)",
                             library, syms[i].name);
    }
    return DMSG_OK;
}

static void release(dmsg_pmix *p, pmix_value_t *v)
{
    p->value_destruct(v);
    free(v);
}

/* Reads a uint32 the server keeps about the whole job (rank wildcard). */
static dmsg_status job_u32(dmsg_pmix *p, const char *key, uint32_t *out)
{
    pmix_proc_t job = p->me;
    job.rank = PMIX_RANK_WILDCARD;
    pmix_value_t *v = NULL;
    pmix_status_t rc = p->get(&job, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS)
        return DMSG_FAIL(DMSG_ERR_TRANSPORT, "PMIx_Get(%s): %s", key, p->error_string(rc));
    dmsg_status st = DMSG_OK;
    if (v->type == PMIX_UINT32)
        *out = v->data.uint32;
    else
        st = DMSG_FAIL(DMSG_ERR_TRANSPORT, "PMIx_Get(%s): value of type %d", key, (int)v->type);
    release(p, v);
    return st;
}

dmsg_status dmsg_pmix_init(dmsg_pmix **out, const char *library, int *rank, int *size,
                           double timeout)
{
    dmsg_pmix *p = calloc(1, sizeof *p);
    if (!p)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "out of memory (PMIx state)");
    p->timeout = timeout > 0 && timeout < 1e6 ? (int)(timeout + 0.999) : 0;
    dmsg_status st = load(p, library);
    if (st)
        goto err_lib;
    pmix_status_t rc = p->init(&p->me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        st = DMSG_FAIL(DMSG_ERR_TRANSPORT, "PMIx_Init: %s", p->error_string(rc));
        goto err_lib;
    }
    uint32_t n;
    if ((st = job_u32(p, PMIX_JOB_SIZE, &n))) {
        st = DMSG_FAIL(st, "the PMIx server does not say the job size (%s: %s)", PMIX_JOB_SIZE,
                       dmsg_last_error());
        goto err_init;
    }
    if (n < 1 || p->me.rank >= n) {
        st = DMSG_FAIL(DMSG_ERR_TRANSPORT, "PMIx says rank %u of %u", (unsigned)p->me.rank,
                       (unsigned)n);
        goto err_init;
    }
    *out = p;
    *rank = (int)p->me.rank;
    *size = (int)n;
    return DMSG_OK;

err_init:
    p->finalize(NULL, 0);
err_lib:
    /* libpmix stays loaded: its threads and atexit handlers may outlive a
     * failed start, and unloading their code under them would crash. */
    free(p);
    return st;
}

dmsg_status dmsg_pmix_put(dmsg_pmix *p, const char *key, const char *val)
{
    if (strlen(key) > PMIX_MAX_KEYLEN)
        return DMSG_FAIL(DMSG_ERR_ARG, "PMIx: key of %zu bytes", strlen(key));
    pmix_value_t v;
    memset(&v, 0, sizeof v);
    v.type = PMIX_STRING;
    v.data.string = (char *)val; /* PMIx_Put copies it */
    pmix_status_t rc = p->put(PMIX_GLOBAL, key, &v);
    if (rc != PMIX_SUCCESS)
        return DMSG_FAIL(DMSG_ERR_TRANSPORT, "PMIx_Put(%s): %s", key, p->error_string(rc));
    return DMSG_OK;
}

dmsg_status dmsg_pmix_commit(dmsg_pmix *p)
{
    pmix_status_t rc = p->commit();
    if (rc != PMIX_SUCCESS)
        return DMSG_FAIL(DMSG_ERR_TRANSPORT, "PMIx_Commit: %s", p->error_string(rc));
    return DMSG_OK;
}

static void info_set(pmix_info_t *i, const char *key)
{
    memset(i, 0, sizeof *i);
    snprintf(i->key, sizeof i->key, "%s", key);
}

dmsg_status dmsg_pmix_barrier(dmsg_pmix *p)
{
    pmix_info_t info[2];
    size_t n = 0;
    info_set(&info[n], PMIX_COLLECT_DATA);
    info[n].value.type = PMIX_BOOL;
    info[n++].value.data.flag = true;
    if (p->timeout > 0) {
        info_set(&info[n], PMIX_TIMEOUT);
        info[n].value.type = PMIX_INT;
        info[n++].value.data.integer = p->timeout;
    }
    /* No procs: every process of our namespace, i.e. the job. */
    pmix_status_t rc = p->fence(NULL, 0, info, n);
    if (rc != PMIX_SUCCESS)
        return DMSG_FAIL(rc == PMIX_ERR_TIMEOUT ? DMSG_ERR_TIMEOUT : DMSG_ERR_TRANSPORT,
                         "PMIx_Fence: %s", p->error_string(rc));
    return DMSG_OK;
}

dmsg_status dmsg_pmix_get(dmsg_pmix *p, int rank, const char *key, char *val, size_t len)
{
    pmix_proc_t who = p->me;
    who.rank = (pmix_rank_t)rank;
    pmix_value_t *v = NULL;
    pmix_status_t rc = p->get(&who, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS)
        return DMSG_FAIL(DMSG_ERR_TRANSPORT, "PMIx_Get(rank %d, %s): %s", rank, key,
                         p->error_string(rc));
    dmsg_status st = DMSG_OK;
    if (v->type != PMIX_STRING || !v->data.string)
        st = DMSG_FAIL(DMSG_ERR_TRANSPORT, "PMIx_Get(rank %d, %s): not a string", rank, key);
    else if (strlen(v->data.string) >= len)
        st = DMSG_FAIL(DMSG_ERR_TRANSPORT, "PMIx_Get(rank %d, %s): %zu bytes, room for %zu", rank,
                       key, strlen(v->data.string), len - 1);
    else
        memcpy(val, v->data.string, strlen(v->data.string) + 1);
    release(p, v);
    return st;
}

void dmsg_pmix_finalize(dmsg_pmix *p)
{
    if (!p)
        return;
    p->finalize(NULL, 0);
    free(p); /* the library stays loaded, see dmsg_pmix_init */
}
