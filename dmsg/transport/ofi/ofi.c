/* The ofi transport's start-up and teardown, and its ops table. Start-up
 * runs in steps, each undone by close_all in the one order libfabric
 * allows (counters before the domain, the endpoint before the buffers its
 * receives land in). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "dmsg/transport/ofi/ofi.h"

ofi_state *dmsg_ofi_active;

static const dmsg_env_choice mechs[] = {
    {"auto", DMSG_MECH_AUTO}, {"chained", DMSG_MECH_CHAINED}, {"packed", DMSG_MECH_PACKED}};
static const dmsg_env_choice counts[] = {
    {"auto", OFI_COUNT_AUTO}, {"cqdata", OFI_COUNT_CQDATA}, {"counter", OFI_COUNT_COUNTER}};
static const dmsg_env_choice amos[] = {{"auto", OFI_AMO_AUTO},
                                       {"native", OFI_AMO_NATIVE},
                                       {"emulated", OFI_AMO_EMULATED},
                                       {"software", OFI_AMO_SOFTWARE}};

/* Appends the detail of a choice that failed to why ("; " between). */
static void add_why(char *why, size_t len, dmsg_status st)
{
    size_t used = strlen(why);
    if (st && used < len)
        snprintf(why + used, len - used, "%s%s", used ? "; " : "", dmsg_last_error());
}

/* The settings, and the choices checked all, so that one detail names
 * every bad one (dmsgrun prints it). */
static dmsg_status read_settings(dmsg_tp *tp, ofi_state *s, ofi_count *count)
{
    int mech, cnt, amo;
    dmsg_status st = dmsg_env_load(&dmsg_ofi_env_table, &s->set);
    if (st)
        return st;
    char why[768] = "";
    add_why(why, sizeof why, dmsg_env_choose("DMSG_OFI_MECH", s->set.mech, mechs, 3, &mech));
    add_why(why, sizeof why, dmsg_env_choose("DMSG_OFI_COUNT", s->set.count, counts, 3, &cnt));
    add_why(why, sizeof why, dmsg_env_choose("DMSG_OFI_ATOMICS", s->set.atomics, amos, 4, &amo));
    if (why[0])
        return DMSG_FAIL(DMSG_ERR_ENV, "%s", why);
    s->amo.path = (ofi_amo_path)amo; /* what is wanted, until the plan decides */
    s->mech = (dmsg_mech)mech;
    *count = (ofi_count)cnt;
    return DMSG_OK;
}

/* The start-up probe on a separate endpoint (the real one's address table
 * is indexed by rank) finds what the provider really does; the plan
 * follows from it. Counting by remote counters needs an endpoint opened
 * with FI_RMA_EVENT, which the real one was not (it may cost where it is
 * not used): it is then opened again. */
static dmsg_status probe(ofi_state *s, const char *iface, ofi_count count, ofi_plan *plan)
{
    ofi_fab pf;
    ofi_caps pc;
    dmsg_status st = dmsg_ofi_fab_open(s->caps.prov, iface, OFI_OPEN_PROBE, &pf, &pc);
    if (st)
        return st;
    st = dmsg_ofi_probe(&pf, &pc);
    dmsg_ofi_fab_close(&pf);
    if (st)
        return st;
    dmsg_ofi_caps_merge(&s->caps, &pc);
    if ((st = dmsg_ofi_plan_make(&s->caps, count, s->mech, plan)))
        return st;
    if (plan->by_counter && !s->fab.rma_event) {
        char prov[sizeof s->caps.prov];
        snprintf(prov, sizeof prov, "%s", s->caps.prov);
        dmsg_ofi_fab_close(&s->fab);
        if ((st = dmsg_ofi_fab_open(prov, iface, OFI_OPEN_RMA_EVENT, &s->fab, &s->caps)))
            return st;
        dmsg_ofi_caps_merge(&s->caps, &pc);
        return dmsg_ofi_plan_make(&s->caps, count, s->mech, plan);
    }
    return DMSG_OK;
}

/* libfabric, the provider (DMSG_OFI_PROVIDER, or the best that works), its
 * probe, and the plan. */
static dmsg_status open_endpoint(ofi_state *s, ofi_count count, int local, ofi_plan *plan)
{
    const char *iface = strcmp(s->set.iface, "auto") ? s->set.iface : local ? "lo" : "auto-net";
    dmsg_status st = dmsg_ofi_lib_load(s->set.library);
    if (!st)
        st = dmsg_ofi_choose(s->set.provider, iface, local, &s->fab, &s->caps);
    if (!st)
        st = probe(s, iface, count, plan);
    if (!st)
        st = dmsg_ofi_plan_atomics(&s->caps, s->amo.path, plan);
    return st;
}

/* The registered region: control area, then the segment. Backed by an
 * unnamed file (memfd) rather than anonymous memory, so that seg_alias can
 * map the same pages a second time (the OpenSHMEM front end's static data);
 * it is private to this process all the same and goes with it. */
static dmsg_status map_segment(ofi_state *s, size_t seg_size)
{
    s->mapped_len = OFI_CTL_BYTES + seg_size;
    s->seg_fd = memfd_create("dmsg-ofi-seg", MFD_CLOEXEC);
    if (s->seg_fd < 0)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "memfd_create for the segment: %s", strerror(errno));
    if (ftruncate(s->seg_fd, (off_t)s->mapped_len) != 0) {
        dmsg_status st = DMSG_FAIL(DMSG_ERR_NOMEM, "sizing a %zu-byte segment: %s",
                                   s->mapped_len, strerror(errno));
        close(s->seg_fd);
        s->seg_fd = -1;
        return st;
    }
    s->mapped = mmap(NULL, s->mapped_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE,
                     s->seg_fd, 0);
    if (s->mapped == MAP_FAILED) {
        s->mapped = NULL;
        return DMSG_FAIL(DMSG_ERR_NOMEM, "mapping a %zu-byte segment", s->mapped_len);
    }
    s->seg = s->mapped + OFI_CTL_BYTES;
    return dmsg_ofi_fab_register(&s->fab, s->mapped, s->mapped_len);
}

/* seg_alias's copy of the process's own data pages: every byte, also a
 * sanitizer's redzones between globals, and never through memcpy (which
 * AddressSanitizer checks); volatile keeps the loop a loop. */
__attribute__((no_sanitize_address)) static void ofi_alias_copy(char *dst, const char *src, size_t n)
{
    volatile uint64_t *d = (volatile uint64_t *)(void *)dst;
    const volatile uint64_t *s = (const volatile uint64_t *)(const void *)src;
    for (size_t i = 0; i < n / sizeof *d; i++)
        d[i] = s[i];
}

/* transport.h, seg_alias: the same file pages at `at`; the registered
 * mapping keeps serving peers, so their writes land there too. */
static dmsg_status ofi_seg_alias(dmsg_tp *tp, size_t off, size_t len, void *at)
{
    ofi_state *s = tp->priv;
    ofi_alias_copy(s->seg + off, at, len);
    void *m = mmap(at, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, s->seg_fd,
                   (off_t)(OFI_CTL_BYTES + off));
    if (m == MAP_FAILED)
        return DMSG_FAIL(DMSG_ERR_TRANSPORT, "mapping segment pages at %p: %s", at, strerror(errno));
    return DMSG_OK;
}

static dmsg_status alloc_tables(ofi_state *s, int npes, uint32_t max_counters)
{
    s->peer = calloc((size_t)npes, sizeof *s->peer);
    s->slot = calloc(max_counters, sizeof *s->slot);
    s->dirty = calloc((size_t)npes, 1);
    s->sigpend = calloc((size_t)npes, 1);
    s->nslots = max_counters;
    if (!s->peer || !s->slot || !s->dirty || !s->sigpend)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "peer tables");
    return DMSG_OK;
}

/* Counting by remote counters, and receive buffers, up before any peer can
 * learn our address. */
static dmsg_status start_services(ofi_state *s, const ofi_plan *plan)
{
    dmsg_status st = DMSG_OK;
    s->by_counter = plan->by_counter;
    s->msg_tokens = plan->msg_tokens;
    s->flush = plan->flush;
    s->mech = plan->mech;
    s->inject_max = s->caps.inject;
    s->amo.path = plan->amo;
    s->amo.window = OFI_AMO_INFLIGHT;
    if (s->by_counter)
        st = dmsg_ofi_rcount_start(s);
    /* Software atomics travel as messages into the engine's buffers. */
    if (!st && (plan->receives || plan->amo == OFI_AMO_SOFTWARE))
        st = dmsg_ofi_engine_start(s);
    if (!st)
        st = dmsg_ofi_bell_start(s, dmsg_ofi_sleeps_on_fd(s));
    if (!st && s->tp->rank == 0 && dmsg_debug_level)
        dmsg_log_line("dmsg: ofi: provider %s: atomics and signals %s%s%s%s", s->caps.prov,
                      dmsg_ofi_amo_path_name(plan->amo), plan->amo_why[0] ? " (natively not: " : "",
                      plan->amo_why, plan->amo_why[0] ? ")" : "");
    return st;
}

/* Undoes every start-up step that was taken (each part knows whether it
 * was): counters before the domain, the endpoint before the buffers. */
static void close_all(ofi_state *s)
{
    dmsg_ofi_bell_stop(s);
    dmsg_ofi_rcount_stop(s);
    dmsg_ofi_fab_close(&s->fab);
    dmsg_ofi_amo_stop(s);
    dmsg_ofi_engine_stop(s);
    if (s->mapped)
        munmap(s->mapped, s->mapped_len);
    if (s->seg_fd >= 0)
        close(s->seg_fd);
    free(s->sigpend);
    free(s->dirty);
    free(s->slot);
    free(s->peer);
}

static dmsg_status ofi_init(dmsg_tp *tp, dmsg_boot *boot)
{
    ofi_plan plan = {0};
    ofi_count count;
    dmsg_status st;
    ofi_state *s = calloc(1, sizeof *s);
    if (!s)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "ofi state");
    s->tp = tp;
    s->boot = boot;
    s->seg_fd = -1;
    tp->priv = s;
    if ((st = read_settings(tp, s, &count)) || (st = dmsg_ofi_join_job(tp, boot)))
        goto out_free;
    /* Counted against this host's cores even when PEs are spread over
     * hosts: sleeping early costs a wake-up, spinning on a shared core
     * starves the PE we wait for. */
    s->oversubscribed = dmsg_tp_oversubscribed(s->tp->npes);
    dmsg_wait_policy_init(&tp->wait, &tp->conf, s->tp->npes, &OFI_WAIT_AUTO, boot);
    /* A provider that cannot serve is the failure's detail, "ofi: ...":
     * dmsg_init returns it (dmsg_last_error), dmsgrun prints it once. */
    if ((st = open_endpoint(s, count, boot->kind != DMSG_BOOT_PMI, &plan))) {
        st = DMSG_FAIL(st, "ofi: %s", dmsg_last_error());
        goto out_close;
    }
    if (dmsg_ofi_sleeps_on_fd(s))
        tp->wait.yield_s = 0; /* sleep at once: see dmsg_ofi_idle */
    if ((st = map_segment(s, tp->seg_size)) ||
        (st = alloc_tables(s, tp->npes, tp->max_counters)) ||
        (st = start_services(s, &plan)) || (st = dmsg_ofi_connect_peers(tp, s, boot)))
        goto out_close;
    tp->seg = s->seg;
    /* The first barrier over libfabric: every peer is reachable. */
    if ((st = dmsg_ofi_barrier(tp)))
        goto out_seg;
    if (!strcmp(s->caps.prov, "shm"))
        dmsg_ofi_unlink_shm_names();
    dmsg_ofi_active = s;
    return DMSG_OK;

out_seg:
    tp->seg = NULL;
out_close:
    close_all(s);
    dmsg_boot_leave(boot);
out_free:
    tp->priv = NULL;
    free(s);
    return st;
}

static dmsg_status ofi_fetch(dmsg_tp *tp, const dmsg_op *op)
{
    return dmsg_ofi_move(tp, op, UINT32_MAX);
}

static void ofi_finalize(dmsg_tp *tp)
{
    ofi_state *s = tp->priv;
    /* The core's last barrier is done, but a peer may still wait for the
     * acknowledgement of its last token to us, which reliable-datagram
     * providers send from our progress: serve briefly before closing (a
     * peer that then still waits ends at DMSG_TIMEOUT where one is set). */
    double until = dmsg_clock_now() + OFI_LINGER;
    ofi_backoff b = {0};
    dmsg_waiter w;
    dmsg_waiter_start(&w, &tp->wait);
    while (dmsg_clock_now() < until && dmsg_ofi_progress(s) == DMSG_OK) {
        if (s->tx_pending == 0 && s->tp->npes == 1)
            break;
        dmsg_ofi_wait_step(s, &w, &b, NULL, NULL); /* bounded by OFI_LINGER, not DMSG_TIMEOUT */
    }
    close_all(s);
    tp->seg = NULL;
    dmsg_boot_leave(s->boot);
    tp->priv = NULL;
    dmsg_ofi_active = NULL;
    free(s);
}

const dmsg_tp_ops dmsg_tp_ofi_ops = {
    .name = "ofi",
    .settings = &dmsg_ofi_env_table,
    .init = ofi_init,
    .finalize = ofi_finalize,
    .barrier = dmsg_ofi_barrier,
    .quiet = dmsg_ofi_quiet,
    .allgather = dmsg_ofi_allgather,
    .ctr_reset = dmsg_ofi_ctr_reset,
    .ctr_wait = dmsg_ofi_ctr_wait,
    .ctr_read = dmsg_ofi_ctr_read,
    .put = dmsg_ofi_move,
    .get = ofi_fetch,
    .get_nb = dmsg_ofi_get_nb,
    .req_test = dmsg_ofi_req_test,
    .amo = dmsg_ofi_amo,
    .signal = dmsg_ofi_signal,
    .word_wait = dmsg_ofi_word_wait,
    .caps = DMSG_TP_CAP_AMO4 | DMSG_TP_CAP_AMO8 | DMSG_TP_CAP_SIGNAL | DMSG_TP_CAP_WORD_WAIT |
            DMSG_TP_CAP_PACK_MECH,
    .seg_alias = ofi_seg_alias,
};
