/* The job region of a single-host job: one anonymous shared memory file
 * (memfd) created by the launcher (dmsgrun) or by a singleton PE, inherited by
 * every PE as a file descriptor and mapped whole by each. Because it has no
 * name, nothing can be left behind in /dev/shm and no other job can attach;
 * the kernel frees it when the last PE exits, also after a crash.
 *
 * Layout: [job header | transport job area | boot exchange area] then per PE
 * [control area | segment]. The boot layer owns the header (sizes, PE
 * states, abort flag) and the exchange area (exchange.c); the transport owns
 * the job area and the control areas. */
#ifndef DMSG_BOOT_JOB_H
#define DMSG_BOOT_JOB_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "dmsg/base/status.h"

#define DMSG_JOB_MAGIC 0x31304a47534d44ull /* "DMSGJ01" */
/* The most PEs of a job on one host (dmsgrun's -n, the job region) and of
 * a job under a process manager (boot.c refuses more): every structure
 * sized by the PE count at build time grows with it (the header block
 * below, shm's and sim's job-wide rows, ofi's control area and barrier
 * steps: ofi.h). 4096 = the thesis's largest simulated machines. */
#define DMSG_MAX_PES 4096
/* The header block: [job header | transport job area | boot exchange area],
 * each sized per PE, so that DMSG_MAX_PES alone decides the block's size
 * (1,568 KiB at 4096 PEs, virtual: a job touches only the pages of the rows
 * of its own PEs). Each part has a static assert where it is laid
 * out (job.c, shm.c and sim.h, exchange.c). The transport job area holds
 * shm's barrier and gather rows (32 bytes a PE) and its barrier_xchg rows
 * (64 KiB, 16 bytes a PE at the limit), and the simulator's dense per-PE
 * words (barrier clocks, bounds, scheduler states, its ready queue and the
 * blocked awaits' tallies: 84 bytes a PE) and the headers of its arrival
 * logs (128 bytes a PE: every deposit writes its target's, and kept in the
 * target's control area each was a page fault per deposit after the
 * simulator's drops, sim_sched.c); 320 leaves room. */
#define DMSG_JOB_AREA_OFF (8u * DMSG_MAX_PES) /* transport job area inside the header block */
#define DMSG_JOB_AREA_BYTES (320u * DMSG_MAX_PES)
#define DMSG_JOB_BOOT_OFF (DMSG_JOB_AREA_OFF + DMSG_JOB_AREA_BYTES) /* boot exchange area */
#define DMSG_JOB_HDR_BYTES (DMSG_JOB_BOOT_OFF + 64u * DMSG_MAX_PES) /* the whole block */

/* Environment variables of the launcher protocol (set by dmsgrun). */
#define DMSG_BOOT_ENV_FD "DMSG_BOOT_FD"
#define DMSG_BOOT_ENV_RANK "DMSG_BOOT_RANK"
#define DMSG_BOOT_ENV_NPES "DMSG_BOOT_NPES"
/* The read end of a pipe whose only writer is dmsgrun: it hangs up when
 * dmsgrun ends, also by SIGKILL, so that every PE learns of it (below a
 * wrapper that left dmsgrun's reach with setsid too). */
#define DMSG_BOOT_ENV_LIFE "DMSG_BOOT_LIFE_FD"

/* DMSG_PE_EXIT: the PE ends the whole job with its own exit status
 * (dmsg_global_exit); the launcher stops the others and exits with it. */
enum dmsg_pe_state { DMSG_PE_NONE = 0, DMSG_PE_INIT = 1, DMSG_PE_FINALIZED = 2, DMSG_PE_EXIT = 3 };

/* Where a PE waits, so that dmsgrun can say what a job that makes no
 * progress is stuck on. A PE's wait word holds the call it waits in (low 4
 * bits; DMSG_WAIT_NONE outside any dmsg wait) and a count of the waits it
 * entered (high 12 bits), so that a run of short waits never looks like one
 * long wait. */
enum dmsg_wait_op {
    DMSG_WAIT_NONE = 0,
    DMSG_WAIT_SYNC,
    DMSG_WAIT_QUIET,
    DMSG_WAIT_AWAIT,
    DMSG_WAIT_FETCH,
    DMSG_WAIT_REQ,
    DMSG_WAIT_COLL,
    DMSG_WAIT_FINALIZE,
    DMSG_WAIT_ATOMIC, /* a blocking dmsg_atomic */
    DMSG_WAIT_UNTIL,  /* dmsg_wait_until, dmsg_wait_until_set */
    DMSG_WAIT_INIT,   /* dmsg_init's closing barrier */
};
#define DMSG_WAIT_OP_MASK 0xfu
#define DMSG_WAIT_SERIAL_STEP 0x10u

typedef struct dmsg_job_hdr {
    uint64_t magic;
    uint32_t npes;
    uint32_t max_counters;
    uint64_t seg_size;   /* bytes of each PE's symmetric segment */
    uint64_t ctl_size;   /* bytes of each PE's control area */
    uint64_t pe_stride;  /* ctl_size + seg_size */
    uint64_t total_size; /* bytes of the whole region */
    _Atomic uint32_t abort;            /* set by the launcher when the job is torn down */
    _Atomic uint32_t pe_state[DMSG_MAX_PES];
    _Atomic uint16_t pe_wait[DMSG_MAX_PES]; /* wait words (enum dmsg_wait_op) */
    /* The first PE whose dmsg_init failed with a detail says why here, so
     * that dmsgrun prints it once for the job (dmsg_boot_note_failure):
     * fail_claim 0 -> 1 by that PE, fail_pe its rank, fail_ready 1 once
     * fail_text (a line without the newline) is written. */
    _Atomic uint32_t fail_claim;
    _Atomic uint32_t fail_ready;
    int32_t fail_pe;
    char fail_text[512];
} dmsg_job_hdr;

/* The call a wait word names, for messages ("dmsg_sync", ...). */
const char *dmsg_job_wait_name(unsigned word);

/* Bytes of one deposit counter in a control area (the shm transport lays
 * it out: messages, futex words and bytes on separate cache lines). */
#define DMSG_CTR_SLOT_BYTES 256u

/* Bytes of a control area kept per PE of the job, past the counter table
 * and the spare page: a transport layered on shm keeps per-sender records
 * there (sim: the arrival log, four 24-byte records per sender, so that a
 * step in which every PE deposits a message and a wake-up to every other,
 * one sender a step ahead, fits without falling back to its conservative
 * rule: docs/simulator.md, "Arrival times"). */
#define DMSG_JOB_CTL_PER_PE_BYTES 96u

/* Control-area size for a counter table size and a PE count (page-rounded). */
size_t dmsg_job_ctl_size(uint32_t max_counters, uint32_t npes);

/* Creates and sizes a job region for npes PEs; returns its fd (not
 * close-on-exec) with the header written. */
dmsg_status dmsg_job_create(uint32_t npes, uint64_t seg_size, uint32_t max_counters, int *fd_out);

/* Maps a job region read-write; validates the header. */
dmsg_status dmsg_job_map(int fd, dmsg_job_hdr **hdr_out);

void dmsg_job_unmap(dmsg_job_hdr *hdr);

/* One line saying which pages the job region got and why (hugetlb pages,
 * transparent huge pages and how many are resident now, or none and the
 * kernel settings that refuse them); for dmsg-info and DMSG_DEBUG. fd may
 * be -1 and hdr NULL (then only the host's settings are described). */
void dmsg_job_huge_report(int fd, const dmsg_job_hdr *hdr, char *buf, size_t len);

static inline char *dmsg_job_area(dmsg_job_hdr *h)
{
    return (char *)h + DMSG_JOB_AREA_OFF;
}
static inline char *dmsg_job_boot_area(dmsg_job_hdr *h)
{
    return (char *)h + DMSG_JOB_BOOT_OFF;
}
static inline char *dmsg_job_ctl(dmsg_job_hdr *h, int pe)
{
    return (char *)h + DMSG_JOB_HDR_BYTES + (size_t)pe * h->pe_stride;
}
/* The last bytes of each PE's control area belong to the boot layer (the
 * counters use the start; the area has a spare page): the pid of the process
 * that joined as that PE, so that the launcher can remove what is named after
 * it when the PE dies (libfabric's shm provider: /dev/shm/<pid>:...). */
#define DMSG_JOB_PE_INFO_BYTES 64u
static inline _Atomic int32_t *dmsg_job_pe_pid(dmsg_job_hdr *h, int pe)
{
    return (_Atomic int32_t *)(dmsg_job_ctl(h, pe) + h->ctl_size - DMSG_JOB_PE_INFO_BYTES);
}
static inline char *dmsg_job_seg(dmsg_job_hdr *h, int pe)
{
    return dmsg_job_ctl(h, pe) + h->ctl_size;
}

/* What a PE learns at start-up: its rank, the job size and how it was
 * started (which decides what a transport can use to find its peers). */
typedef enum {
    DMSG_BOOT_SINGLETON, /* no launcher: a 1-PE job region made here */
    DMSG_BOOT_LOCAL,     /* dmsgrun: a job region shared by all PEs of this host */
    DMSG_BOOT_PMI,       /* a process manager (PMI-1 or PMIx; boot/kvs.h), no job region */
} dmsg_boot_kind;

typedef struct dmsg_boot {
    dmsg_boot_kind kind;
    int rank;
    int npes;
    int fd;               /* job region fd (SINGLETON, LOCAL); -1 otherwise */
    void *priv;           /* PMI: the process manager's dmsg_kvs (boot/kvs.h) */
    const char *launcher; /* PMI: "Open MPI's mpirun", ..., for messages; else NULL */
    const char *pass;     /* PMI: how to pass DMSG_TRANSPORT=ofi through that launcher */
    /* The start-up exchange service (exchange.h): */
    dmsg_job_hdr *hdr;      /* the job region, mapped by dmsg_boot_join */
    uint64_t rounds;        /* exchanges so far (PMI keys are unique per round) */
    unsigned char *kv_mine; /* this PE's puts since the last exchange */
    size_t kv_len;
    unsigned char *kv_all;  /* after an exchange: every PE's puts, kv_stride bytes each
                             * (region) */
    size_t kv_stride;
    /* Seconds a start-up barrier may wait: the job's one wait limit
     * (DMSG_TIMEOUT, kept in the transport's conf and read there); NULL or
     * 0 = no limit. */
    const double *timeout;
    int life_fd;            /* LOCAL: dmsgrun's life pipe (DMSG_BOOT_ENV_LIFE); else -1 */
    double life_next;       /* when dmsg_boot_aborted looks at life_fd next */
    /* Run by a PE that finds the launcher dead, before it ends itself: a
     * transport whose sleepers look at the life pipe only rarely wakes them
     * here (sim_sched.c); NULL: none. */
    void (*on_launcher_death)(void *arg);
    void *on_launcher_death_arg;
} dmsg_boot;

/* Reads the launcher protocol from the environment; without it, creates a
 * one-PE job region (singleton). */
dmsg_status dmsg_boot_local(dmsg_boot *b, uint64_t seg_size, uint32_t max_counters);

/* Finds out how this PE was started and fills b (boot.c): dmsgrun's local
 * protocol, else a launcher's process manager (PMI-1 under MPICH's mpiexec,
 * PMIx under Open MPI's mpirun or srun --mpi=pmix), else a singleton. A
 * launcher of several processes that dmsg cannot join is an error, printed
 * (by rank 0) with the launcher's name: never N jobs of one PE. */
dmsg_status dmsg_boot_start(dmsg_boot *b, uint64_t seg_size, uint32_t max_counters,
                            const char *pmix_library);

/* Releases everything dmsg_boot_start and the exchange service acquired:
 * the exchange state, the region's mapping and descriptor, the PMI
 * connection. The core calls it after the transport has finished. */
void dmsg_boot_end(dmsg_boot *b);

#endif
