/* The start-up exchange service over a job region: barrier, all-gather in
 * several rounds, key-value put/exchange/get, errors. Three PEs are three
 * forked processes sharing one region, as under dmsgrun. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "dmsg/boot/exchange.h"

#define NPES 3

/* One PE's part; returns 0 when every check held. */
static int pe_main(int fd, int rank)
{
    dmsg_boot b = {.kind = DMSG_BOOT_LOCAL, .rank = rank, .npes = NPES, .fd = fd};
    unsigned char mine[100], all[NPES * 100];
    int bad = 0;
    if (dmsg_boot_join(&b) || dmsg_boot_barrier(&b))
        return 1;
    for (int i = 0; i < 100; i++)
        mine[i] = (unsigned char)(rank * 100 + i);
    if (dmsg_boot_allgather(&b, mine, sizeof mine, all))
        return 2;
    for (int p = 0; p < NPES; p++)
        for (int i = 0; i < 100; i++)
            bad |= all[p * 100 + i] != (unsigned char)(p * 100 + i);
    /* Every PE puts its rank under "r" and, on odd ranks, a word under "odd". */
    long r = rank * 7;
    if (dmsg_boot_put(&b, "r", &r, sizeof r) ||
        (rank % 2 && dmsg_boot_put(&b, "odd", "yes", 3)) || dmsg_boot_exchange(&b))
        return 3;
    for (int p = 0; p < NPES; p++) {
        long v = -1;
        char w[3];
        bad |= dmsg_boot_get(&b, p, "r", &v, sizeof v) != DMSG_OK || v != p * 7;
        dmsg_status st = dmsg_boot_get(&b, p, "odd", w, sizeof w);
        bad |= p % 2 ? st != DMSG_OK || memcmp(w, "yes", 3) : st != DMSG_ERR_ARG;
    }
    bad |= dmsg_boot_get(&b, 0, "r", &r, 4) != DMSG_ERR_ARG;      /* wrong size */
    bad |= dmsg_boot_get(&b, NPES, "r", &r, sizeof r) != DMSG_ERR_PE;
    bad |= dmsg_boot_put(&b, "a key", &r, sizeof r) != DMSG_ERR_ARG; /* space */
    bad |= dmsg_boot_aborted(&b);
    dmsg_boot_leave(&b);
    bad |= atomic_load(&b.hdr->pe_state[rank]) != DMSG_PE_FINALIZED;
    if (dmsg_boot_barrier(&b))
        return 4;
    dmsg_boot_end(&b);
    return bad ? 5 : 0;
}

Test(boot, exchange_over_the_job_region)
{
    int fd;
    cr_assert_eq(dmsg_job_create(NPES, 1 << 16, 4, &fd), DMSG_OK);
    pid_t pid[NPES];
    for (int r = 0; r < NPES; r++) {
        pid[r] = fork();
        cr_assert(pid[r] >= 0);
        if (pid[r] == 0)
            _exit(pe_main(fd, r));
    }
    for (int r = 0; r < NPES; r++) {
        int ws;
        cr_assert_eq(waitpid(pid[r], &ws, 0), pid[r]);
        cr_assert(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "PE %d: exit %d", r, WEXITSTATUS(ws));
    }
    close(fd);
}

Test(boot, abort_ends_a_start_up_barrier)
{
    int fd;
    dmsg_job_hdr *h;
    cr_assert_eq(dmsg_job_create(2, 1 << 16, 4, &fd), DMSG_OK);
    cr_assert_eq(dmsg_job_map(fd, &h), DMSG_OK);
    atomic_store(&h->abort, 1); /* as dmsgrun does when a PE fails */
    dmsg_boot b = {.kind = DMSG_BOOT_LOCAL, .rank = 0, .npes = 2, .fd = fd};
    cr_assert_eq(dmsg_boot_barrier(&b), DMSG_ERR_ABORTED, "the second PE never comes");
    dmsg_boot_end(&b);
    dmsg_job_unmap(h);
}

Test(boot, timeout_ends_a_start_up_barrier)
{
    int fd;
    cr_assert_eq(dmsg_job_create(2, 1 << 16, 4, &fd), DMSG_OK);
    static const double limit = 0.2;
    dmsg_boot b = {.kind = DMSG_BOOT_LOCAL, .rank = 1, .npes = 2, .fd = fd, .timeout = &limit};
    cr_assert_eq(dmsg_boot_barrier(&b), DMSG_ERR_TIMEOUT);
    dmsg_boot_end(&b);
}

/* A failed start-up's detail reaches the launcher once: the first PE to
 * record one keeps the slot, a second (failing alike) adds nothing. */
Test(boot, first_failure_is_kept_for_the_launcher)
{
    int fd;
    dmsg_job_hdr *h;
    cr_assert_eq(dmsg_job_create(2, 1 << 16, 4, &fd), DMSG_OK);
    cr_assert_eq(dmsg_job_map(fd, &h), DMSG_OK);
    dmsg_boot b1 = {.kind = DMSG_BOOT_LOCAL, .rank = 1, .npes = 2, .fd = fd};
    dmsg_boot b0 = {.kind = DMSG_BOOT_LOCAL, .rank = 0, .npes = 2, .fd = fd};
    cr_assert_eq(dmsg_boot_join(&b1), DMSG_OK);
    cr_assert_eq(dmsg_boot_join(&b0), DMSG_OK);
    cr_assert_eq(atomic_load(&h->fail_ready), 0, "no failure yet");
    dmsg_boot_note_failure(&b1, "");
    cr_assert_eq(atomic_load(&h->fail_ready), 0, "an empty detail is no detail");
    dmsg_boot_note_failure(&b1, "ofi: provider \"x\" is not available");
    dmsg_boot_note_failure(&b0, "ofi: something else");
    cr_assert_eq(atomic_load(&h->fail_ready), 1);
    cr_assert_eq(h->fail_pe, 1);
    cr_assert_str_eq(h->fail_text, "ofi: provider \"x\" is not available");
    dmsg_boot_end(&b0);
    dmsg_boot_end(&b1);
    dmsg_job_unmap(h);
}

/* The job region maps and works whatever pages it got, and the page report
 * says what it got by the host's own settings: hugetlb pages, or the
 * transparent-huge-page setting for shared memory that decided. */
Test(boot, job_region_pages_reported)
{
    int fd = -1;
    dmsg_job_hdr *h = NULL;
    cr_assert_eq(dmsg_job_create(2, (uint64_t)4 << 20, 16, &fd), DMSG_OK);
    cr_assert_eq(dmsg_job_map(fd, &h), DMSG_OK);
    cr_assert_eq(h->npes, 2);
    cr_assert_geq(h->total_size, DMSG_JOB_HDR_BYTES + 2 * h->pe_stride);
    memset(dmsg_job_ctl(h, 1), 7, (size_t)(4 << 20));
    char line[512] = "";
    dmsg_job_huge_report(fd, h, line, sizeof line);
    cr_assert(strstr(line, "hugetlb") || strstr(line, "shmem_enabled = "), "%s", line);
    char none[512] = "";
    dmsg_job_huge_report(-1, NULL, none, sizeof none);
    cr_assert_gt(strlen(none), 0);
    dmsg_job_unmap(h);
    close(fd);
}

/* The PE limit: DMSG_MAX_PES PEs make a job region, one more is refused
 * with the limit named, and the control area (and so the region) grows
 * with the PE count as job.h says: the counters, a spare page and
 * DMSG_JOB_CTL_PER_PE_BYTES per PE, page-rounded. A region of 4096 PEs is
 * only created and mapped here, not touched (it is sparse). */
Test(boot, job_region_takes_up_to_max_pes)
{
    int fd = -1;
    cr_assert_eq(DMSG_MAX_PES, 4096);
    cr_assert_eq(dmsg_job_create(DMSG_MAX_PES + 1, 1 << 16, 4, &fd), DMSG_ERR_ARG);
    cr_assert_eq(fd, -1, "a refused region has no descriptor");
    cr_assert(strstr(dmsg_last_error(), "4097 PEs") && strstr(dmsg_last_error(), "1..4096"),
              "the error names the count and the limit: %s", dmsg_last_error());
    cr_assert_eq(dmsg_job_create(0, 1 << 16, 4, &fd), DMSG_ERR_ARG);

    size_t ctl = dmsg_job_ctl_size(4, DMSG_MAX_PES);
    /* 4 x 256 + 4096 + 4096 x 96 = 398,336 bytes -> 98 pages */
    cr_assert_eq(ctl, (size_t)98 * 4096);
    cr_assert_eq(dmsg_job_ctl_size(4, 1), (size_t)2 * 4096);
    cr_assert_eq(DMSG_JOB_HDR_BYTES, 392u * 4096u, "1,568 KiB of header block at 4096 PEs");

    dmsg_job_hdr *h = NULL;
    cr_assert_eq(dmsg_job_create(DMSG_MAX_PES, 1 << 16, 4, &fd), DMSG_OK, "%s", dmsg_last_error());
    cr_assert_eq(dmsg_job_map(fd, &h), DMSG_OK);
    cr_assert_eq(h->npes, DMSG_MAX_PES);
    cr_assert_eq(h->ctl_size, ctl);
    cr_assert_eq(h->pe_stride, ctl + (1 << 16));
    cr_assert_geq(h->total_size, DMSG_JOB_HDR_BYTES + (uint64_t)DMSG_MAX_PES * h->pe_stride);
    /* The last PE's rows and its pid word are inside the region. */
    atomic_store(&h->pe_state[DMSG_MAX_PES - 1], DMSG_PE_INIT);
    atomic_store(dmsg_job_pe_pid(h, DMSG_MAX_PES - 1), 1234);
    cr_assert_eq(atomic_load(dmsg_job_pe_pid(h, DMSG_MAX_PES - 1)), 1234);
    dmsg_job_unmap(h);
    close(fd);
}

/* A process manager's job of more than DMSG_MAX_PES processes is refused
 * before dmsg connects to it (the transports' rows and barrier steps are
 * sized by the limit), with the size and the limit named. PMI_FD names a
 * descriptor nobody serves: a connection attempt would time out, not
 * refuse. */
Test(boot, process_manager_job_over_max_pes_is_refused)
{
    setenv("PMI_FD", "1000", 1);
    setenv("PMI_RANK", "0", 1);
    setenv("PMI_SIZE", "4097", 1);
    dmsg_boot b;
    cr_assert_eq(dmsg_boot_start(&b, 1 << 16, 4, NULL), DMSG_ERR_UNSUPPORTED);
    cr_assert(strstr(dmsg_last_error(), "4097 PEs") &&
                  strstr(dmsg_last_error(), "at most 4096 PEs (DMSG_MAX_PES)"),
              "%s", dmsg_last_error());
    cr_assert_eq(b.hdr, NULL);
}
