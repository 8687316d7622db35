/* Job region: create (launcher or singleton), map, unmap. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "dmsg/boot/job.h"

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
    default: return "no dmsg call";
    }
}

size_t dmsg_job_ctl_size(uint32_t max_counters)
{
    size_t bytes = (size_t)max_counters * DMSG_CTR_SLOT_BYTES + 4096;
    return (bytes + 4095) & ~(size_t)4095;
}

dmsg_status dmsg_job_create(uint32_t npes, uint64_t seg_size, uint32_t max_counters, int *fd_out)
{
    if (npes < 1 || npes > DMSG_MAX_PES)
        return DMSG_FAIL(DMSG_ERR_ARG, "%u PEs: must be 1..%d", npes, DMSG_MAX_PES);
    uint64_t ctl = dmsg_job_ctl_size(max_counters);
    uint64_t stride = ctl + seg_size, total;
    if (__builtin_mul_overflow(stride, (uint64_t)npes, &total) ||
        __builtin_add_overflow(total, (uint64_t)DMSG_JOB_HDR_BYTES, &total) ||
        total > (uint64_t)INT64_MAX)
        return DMSG_FAIL(DMSG_ERR_OVERFLOW, "job region too large");

    /* No MFD_CLOEXEC: the PEs inherit the descriptor across exec. */
    int fd = memfd_create("dmsg-job", 0);
    if (fd < 0)
        return DMSG_FAIL(DMSG_ERR_TRANSPORT, "memfd_create: %s", strerror(errno));
    dmsg_status st = DMSG_ERR_TRANSPORT;
    if (ftruncate(fd, (off_t)total) != 0) {
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
    /* MAP_NORESERVE: segments are sparse; memory is committed when touched. */
    dmsg_job_hdr *h = mmap(NULL, (size_t)sb.st_size, PROT_READ | PROT_WRITE,
                           MAP_SHARED | MAP_NORESERVE, fd, 0);
    if (h == MAP_FAILED)
        return DMSG_FAIL(DMSG_ERR_TRANSPORT, "mmap job region: %s", strerror(errno));
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
