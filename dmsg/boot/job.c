/* Job region: create (launcher or singleton), map, unmap. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include "dmsg/boot/job.h"

#ifndef MFD_HUGETLB
#define MFD_HUGETLB 0x0004U
#endif
#define JOB_HUGETLBFS_MAGIC 0x958458f6 /* statfs f_type of a hugetlb memfd */

/* ------------------------------------------------------------ huge pages
 * The job region holds every PE's segment; with 4 KiB pages a transpose of
 * a few hundred MiB walks thousands of pages per tile row and the TLB
 * misses show. Two ways the kernel may give a shared memfd huge pages:
 * hugetlb pages (memfd_create MFD_HUGETLB), only from a pool the
 * administrator reserved (/proc/sys/vm/nr_hugepages), and transparent huge
 * pages for shared memory, only where /sys/kernel/mm/transparent_hugepage/
 * shmem_enabled is not "never" ("advise": for mappings marked
 * MADV_HUGEPAGE). The region takes hugetlb pages when the pool's free pages
 * hold all of it (a shared hugetlb mapping reserves its pages when mapped,
 * so a short pool fails the mmap here, never a store later), else plain
 * pages marked MADV_HUGEPAGE. */

/* A "Name:   N kB" line of /proc/meminfo, or -1. */
static long meminfo_field(const char *name)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[128];
    long v = -1;
    size_t n = strlen(name);
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, name, n) && line[n] == ':') {
            v = strtol(line + n + 1, NULL, 10);
            break;
        }
    fclose(f);
    return v;
}

/* The bracketed choice of a sysfs setting ("always [madvise] never"). */
static void sysfs_choice(const char *path, char *buf, size_t len)
{
    char line[256] = "";
    FILE *f = fopen(path, "r");
    snprintf(buf, len, "unknown");
    if (!f)
        return;
    if (fgets(line, sizeof line, f)) {
        char *a = strchr(line, '['), *b = a ? strchr(a, ']') : NULL;
        if (a && b) {
            *b = 0;
            snprintf(buf, len, "%s", a + 1);
        }
    }
    fclose(f);
}

/* Bytes of one hugetlb page when the free pool holds `bytes`, else 0. */
static uint64_t hugetlb_fits(uint64_t bytes)
{
    long kb = meminfo_field("Hugepagesize"), free_pages = meminfo_field("HugePages_Free");
    if (kb <= 0 || free_pages <= 0)
        return 0;
    uint64_t page = (uint64_t)kb * 1024;
    return (bytes + page - 1) / page <= (uint64_t)free_pages ? page : 0;
}

static int fd_is_hugetlb(int fd)
{
    struct statfs sf;
    return fstatfs(fd, &sf) == 0 && (unsigned long)sf.f_type == JOB_HUGETLBFS_MAGIC;
}

_Static_assert(sizeof(dmsg_job_hdr) <= DMSG_JOB_AREA_OFF, "job header overlaps the job area");

const char *dmsg_job_wait_name(unsigned word)
{
    switch (word & DMSG_WAIT_OP_MASK) {
    case DMSG_WAIT_SYNC: return "dmsg_sync";
    case DMSG_WAIT_QUIET: return "dmsg_quiet";
    case DMSG_WAIT_AWAIT: return "dmsg_await";
    case DMSG_WAIT_FETCH: return "a blocking fetch";
    case DMSG_WAIT_REQ: return "dmsg_wait (a non-blocking fetch)";
    case DMSG_WAIT_COLL: return "a collective (dmsg_alloc, dmsg_free, dmsg_ctr_create/destroy)";
    case DMSG_WAIT_FINALIZE: return "dmsg_finalize";
    case DMSG_WAIT_ATOMIC: return "dmsg_atomic";
    case DMSG_WAIT_UNTIL: return "dmsg_wait_until (a point-to-point wait)";
    case DMSG_WAIT_INIT: return "dmsg_init (its closing barrier)";
    default: return "no dmsg call";
    }
}

size_t dmsg_job_ctl_size(uint32_t max_counters, uint32_t npes)
{
    size_t bytes = (size_t)max_counters * DMSG_CTR_SLOT_BYTES + 4096 +
                   (size_t)npes * DMSG_JOB_CTL_PER_PE_BYTES;
    return (bytes + 4095) & ~(size_t)4095;
}

dmsg_status dmsg_job_create(uint32_t npes, uint64_t seg_size, uint32_t max_counters, int *fd_out)
{
    if (npes < 1 || npes > DMSG_MAX_PES)
        return DMSG_FAIL(DMSG_ERR_ARG, "%u PEs: must be 1..%d", npes, DMSG_MAX_PES);
    uint64_t ctl = dmsg_job_ctl_size(max_counters, npes);
    uint64_t stride = ctl + seg_size, total;
    if (__builtin_mul_overflow(stride, (uint64_t)npes, &total) ||
        __builtin_add_overflow(total, (uint64_t)DMSG_JOB_HDR_BYTES, &total) ||
        total > (uint64_t)INT64_MAX)
        return DMSG_FAIL(DMSG_ERR_OVERFLOW, "job region too large");

    /* No MFD_CLOEXEC: the PEs inherit the descriptor across exec. A
     * hugetlb region is a whole number of huge pages; where that fails
     * for any reason the region takes normal pages. */
    int fd = -1;
    uint64_t hp = hugetlb_fits(total);
    if (hp) {
        uint64_t rounded = (total + hp - 1) / hp * hp;
        fd = memfd_create("dmsg-job", MFD_HUGETLB);
        if (fd >= 0 && ftruncate(fd, (off_t)rounded) != 0) {
            close(fd);
            fd = -1;
        }
        if (fd >= 0)
            total = rounded;
    }
    if (fd < 0)
        fd = memfd_create("dmsg-job", 0);
    if (fd < 0)
        return DMSG_FAIL(DMSG_ERR_TRANSPORT, "memfd_create: %s", strerror(errno));
    dmsg_status st = DMSG_ERR_TRANSPORT;
    if (!fd_is_hugetlb(fd) && ftruncate(fd, (off_t)total) != 0) {
        st = DMSG_FAIL(DMSG_ERR_NOMEM, "ftruncate(%llu): %s", (unsigned long long)total,
                       strerror(errno));
        goto err_close;
    }
    dmsg_job_hdr *h = mmap(NULL, DMSG_JOB_HDR_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (h == MAP_FAILED) {
        st = DMSG_FAIL(DMSG_ERR_TRANSPORT, "mmap header: %s", strerror(errno));
        goto err_close;
    }
    h->npes = npes;
    h->max_counters = max_counters;
    h->seg_size = seg_size;
    h->ctl_size = ctl;
    h->pe_stride = stride;
    h->total_size = total;
    atomic_store(&h->abort, 0);
    atomic_thread_fence(memory_order_release);
    h->magic = DMSG_JOB_MAGIC;
    munmap(h, DMSG_JOB_HDR_BYTES);
    *fd_out = fd;
    return DMSG_OK;

err_close:
    close(fd);
    return st;
}

dmsg_status dmsg_job_map(int fd, dmsg_job_hdr **hdr_out)
{
    struct stat sb;
    if (fstat(fd, &sb) != 0 || (uint64_t)sb.st_size < DMSG_JOB_HDR_BYTES)
        return DMSG_FAIL(DMSG_ERR_TRANSPORT, "fd %d is not a dmsg job region", fd);
    /* MAP_NORESERVE: segments are sparse; memory is committed when touched.
     * Not for hugetlb pages: reserved at the mmap, a short pool fails here
     * rather than with SIGBUS at some later store. */
    int huge = fd_is_hugetlb(fd);
    dmsg_job_hdr *h = mmap(NULL, (size_t)sb.st_size, PROT_READ | PROT_WRITE,
                           MAP_SHARED | (huge ? 0 : MAP_NORESERVE), fd, 0);
    if (h == MAP_FAILED)
        return DMSG_FAIL(DMSG_ERR_TRANSPORT, "mmap job region: %s", strerror(errno));
    /* Transparent huge pages where shmem_enabled allows them ("advise"
     * wants this mark; "always"/"within_size" do not need it; "never"
     * ignores it). An error only means no huge pages, so it is ignored. */
    if (!huge)
        (void)madvise(h, (size_t)sb.st_size, MADV_HUGEPAGE);
    if (h->magic != DMSG_JOB_MAGIC || h->total_size != (uint64_t)sb.st_size) {
        munmap(h, (size_t)sb.st_size);
        return DMSG_FAIL(DMSG_ERR_TRANSPORT, "job region header is invalid");
    }
    *hdr_out = h;
    return DMSG_OK;
}

void dmsg_job_unmap(dmsg_job_hdr *hdr)
{
    if (hdr)
        munmap(hdr, (size_t)hdr->total_size);
}

void dmsg_job_huge_report(int fd, const dmsg_job_hdr *hdr, char *buf, size_t len)
{
    char shmem[32], line[256];
    long hp_kb = meminfo_field("Hugepagesize"), hp_free = meminfo_field("HugePages_Free"),
         hp_total = meminfo_field("HugePages_Total");
    if (fd >= 0 && fd_is_hugetlb(fd)) {
        snprintf(buf, len, "hugetlb pages of %ld kB (the pool had room for the whole region)",
                 hp_kb);
        return;
    }
    sysfs_choice("/sys/kernel/mm/transparent_hugepage/shmem_enabled", shmem, sizeof shmem);
    /* What the mapping holds now: the PMD-mapped bytes of its smaps entry. */
    long pmd_kb = -1, rss_kb = -1;
    FILE *f = hdr ? fopen("/proc/self/smaps", "r") : NULL;
    if (f) {
        int in = 0;
        char want[32];
        snprintf(want, sizeof want, "%lx-", (unsigned long)(uintptr_t)hdr);
        while (fgets(line, sizeof line, f)) {
            unsigned long a, b;
            if (sscanf(line, "%lx-%lx", &a, &b) == 2) { /* a mapping's first line */
                in = !strncmp(line, want, strlen(want));
                continue;
            }
            if (in) {
                sscanf(line, "Rss: %ld kB", &rss_kb);
                sscanf(line, "ShmemPmdMapped: %ld kB", &pmd_kb);
                sscanf(line, "FilePmdMapped: %ld kB", &pmd_kb);
            }
        }
        fclose(f);
    }
    char hugetlb[96];
    if (hp_total <= 0)
        snprintf(hugetlb, sizeof hugetlb, "no hugetlb pool (vm.nr_hugepages = 0)");
    else
        snprintf(hugetlb, sizeof hugetlb, "hugetlb pool: %ld of %ld pages of %ld kB free, too few",
                 hp_free, hp_total, hp_kb);
    if (!strcmp(shmem, "never") || !strcmp(shmem, "deny"))
        snprintf(buf, len, "none: shared memory gets no transparent huge pages here "
                 "(shmem_enabled = %s) and %s", shmem, hugetlb);
    else if (pmd_kb > 0)
        snprintf(buf, len, "transparent huge pages: %ld of %ld kB resident in huge pages "
                 "(shmem_enabled = %s, region marked MADV_HUGEPAGE)", pmd_kb, rss_kb, shmem);
    else
        snprintf(buf, len, "asked for transparent huge pages (shmem_enabled = %s, MADV_HUGEPAGE); "
                 "none resident yet%s%s", shmem, rss_kb >= 0 ? "" : " (smaps not readable)",
                 pmd_kb == 0 ? " (the kernel found no aligned 2 MiB ranges or no free ones)" : "");
}
