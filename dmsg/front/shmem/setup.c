/* OpenSHMEM setup, query, exit and errors (shmem.h, "setup and query"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dmsg/front/shmem/shmem_impl.h"

int dmsg_shmem_inited;
int dmsg_shmem_thread_level = SHMEM_THREAD_SINGLE;

void dmsg_shmem_static_init(void); /* static.c */
int dmsg_shmem_teams_init(void);   /* team.c */
void dmsg_shmem_teams_fini(void);  /* team.c */
void dmsg_shmem_thr_init(int level); /* thr.c */
void dmsg_shmem_thr_fini(void);    /* thr.c */

_Noreturn void dmsg_shmem_die(const char *call, int st, const char *what)
{
    const char *detail = st ? dmsg_last_error() : "";
    fprintf(stderr, "dmsg-shmem: PE %d: %s: %s%s%s\n", dmsg_pe(), call,
            what ? what : dmsg_strerror(st), *detail ? ": " : "", detail);
    fflush(NULL);
    /* A PE that ends with a non-zero status makes dmsgrun stop the others. */
    _exit(1);
}

void dmsg_shmem_need_init(const char *call)
{
    if (!dmsg_shmem_inited)
        dmsg_shmem_die(call, 0, "called before shmem_init (or after shmem_finalize)");
}

static void finalize_at_exit(void)
{
    if (dmsg_shmem_inited)
        shmem_finalize();
}

/* shmem_init at thread level `level` (this PE's; thr.c agrees with the
 * others' whether the job takes the lock). */
static void start(int level)
{
    if (dmsg_shmem_inited)
        return;
    dmsg_shmem_thread_level = level;
    int st = dmsg_init();
    if (st)
        dmsg_shmem_die("shmem_init", st, NULL);
    if (dmsg_shmem_teams_init())
        dmsg_shmem_die("shmem_init", 0, "could not make SHMEM_TEAM_SHARED");
    dmsg_shmem_thr_init(level); /* before static data's barrier, which it needs */
    dmsg_shmem_static_init();
    dmsg_shmem_inited = 1;
    /* Programs written before OpenSHMEM 1.2 end without shmem_finalize. */
    static int registered;
    if (!registered && atexit(finalize_at_exit) == 0)
        registered = 1;
}

void shmem_init(void)
{
    start(SHMEM_THREAD_SINGLE);
}

int shmem_init_thread(int requested, int *provided)
{
    /* dmsg serves one thread of a PE at a time (include/dmsg.h, "Threads"):
     * MULTIPLE is the front end's lock (thr.c), taken only when asked for.
     * A level above MULTIPLE is none of the specification's: MULTIPLE. */
    int level = requested < SHMEM_THREAD_MULTIPLE ? requested : SHMEM_THREAD_MULTIPLE;
    if (level < SHMEM_THREAD_SINGLE)
        level = SHMEM_THREAD_SINGLE;
    if (!dmsg_shmem_inited)
        start(level);
    else if (level < SHMEM_THREAD_MULTIPLE || dmsg_shmem_mt)
        dmsg_shmem_thread_level = level; /* again, after shmem_init */
    else
        dmsg_shmem_thread_level = SHMEM_THREAD_SERIALIZED; /* too late to agree on the lock */
    if (provided)
        *provided = dmsg_shmem_thread_level;
    return 0;
}

void shmem_query_thread(int *provided)
{
    if (provided)
        *provided = dmsg_shmem_thread_level;
}

void shmem_finalize(void)
{
    if (!dmsg_shmem_inited)
        return;
    int st = dmsg_finalize();
    dmsg_shmem_inited = 0;
    dmsg_shmem_teams_fini();
    dmsg_shmem_thr_fini();
    if (st)
        dmsg_shmem_die("shmem_finalize", st, NULL);
}

void shmem_global_exit(int status)
{
    /* dmsgrun stops the other PEs and exits with status, 0 included. */
    dmsg_global_exit(status);
}

int shmem_my_pe(void)
{
    return dmsg_pe();
}

int shmem_n_pes(void)
{
    return dmsg_npes();
}

int shmem_pe_accessible(int pe)
{
    return dmsg_shmem_inited && pe >= 0 && pe < dmsg_npes();
}

int shmem_addr_accessible(const void *addr, int pe)
{
    return shmem_pe_accessible(pe) && dmsg_addr_is_symmetric(dmsg_shmem_sym(addr), 1);
}

void *shmem_ptr(const void *dest, int pe)
{
    void *p = dmsg_peer_ptr(dmsg_shmem_sym(dest), pe);
    /* The PE's own static data: its own address (the block aliases it). */
    return p && pe == dmsg_pe() ? (void *)(uintptr_t)dest : p;
}

void shmem_info_get_version(int *major, int *minor)
{
    if (major)
        *major = SHMEM_MAJOR_VERSION;
    if (minor)
        *minor = SHMEM_MINOR_VERSION;
}

void shmem_info_get_name(char *name)
{
    if (name)
        snprintf(name, SHMEM_MAX_NAME_LEN, "%s", SHMEM_VENDOR_STRING);
}

/* The generic forms' sink for an unsupported type: never defined with
 * arguments, so a call with one fails to compile (shmem.h). */
void dmsg_shmem_generic_bad(void)
{
    dmsg_shmem_die("a shmem generic routine", 0, "no routine for this type");
}

void shmem_pcontrol(const int level, ...)
{
    (void)level;
}
