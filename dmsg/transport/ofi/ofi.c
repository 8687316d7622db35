/* The ofi transport's start-up and teardown, and its ops table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/mman.h>
#include <unistd.h>
#include "dmsg/boot/kvs.h"
#include "dmsg/transport/ofi/ofi.h"

/* What each PE publishes at start-up. */
typedef struct ofi_card {
    uint32_t namelen;
    uint32_t pad;
    uint64_t base;
    uint64_t key;
    uint64_t cells; /* counting by remote counters, virtual addresses: the cells table */
    char prov[24]; /* the provider chosen, so that a PE that fell back is named */
    char name[OFI_ADDR_MAX];
} ofi_card;

static dmsg_status join_job(dmsg_tp *tp, ofi_state *s, const dmsg_boot *boot)
{
    if (boot->kind == DMSG_BOOT_PMI) {
        s->pmi = boot->priv;
        tp->rank = boot->rank;
        tp->npes = boot->npes;
        tp->seg_size = tp->cfg->seg_size;
        tp->max_counters = tp->cfg->max_counters;
        return DMSG_OK;
    }
    /* The job region gives rank, size and an all-gather for the addresses. */
    dmsg_status st = shm_join(tp, &s->shm, boot);
    if (st)
        return st;
    s->have_shm = 1;
    s->shm_seg = tp->seg;
    tp->seg = NULL;
    return DMSG_OK;
}

/* failing: init failed, and the core gives the boot's fd and PMI connection
 * back itself (dmsg_boot_end), so they must not be released here too. */
static void leave_job(dmsg_tp *tp, ofi_state *s, int failing)
{
    if (s->have_shm) {
        if (failing)
            s->shm.fd = -1;
        tp->seg = s->shm_seg;
        tp->priv = s; /* shm_leave reads the shm state through tp->priv */
        shm_leave(tp, &s->shm);
        s->have_shm = 0;
    }
    if (s->pmi) {
        if (!failing)
            dmsg_kvs_close(s->pmi);
        s->pmi = NULL;
    }
}

/* How deposits are counted, from what the probe found (pc) and
 * DMSG_OFI_COUNT: remote CQ data where it works (one operation per deposit:
 * the count travels with the data), remote counters bound to memory regions
 * where it does not (two operations: the data, then a signal write). */
static dmsg_status choose_count(ofi_state *s, const ofi_caps *pc, ofi_count want, char *why,
                                size_t whylen)
{
    char ctr_why[200];
    int cq_ok = pc->cqdata_works == 1;
    int ctr_ok = ofi_rcount_usable(pc, ctr_why, sizeof ctr_why);
    if (want == OFI_COUNT_CQDATA && !cq_ok) {
        snprintf(why, whylen,
                 "DMSG_OFI_COUNT=cqdata: provider \"%s\" lacks working remote CQ data "
                 "(fi_writedata), which counts deposits",
                 s->caps.prov);
        return DMSG_FAIL(DMSG_ERR_UNSUPPORTED, "%s", why);
    }
    if (want == OFI_COUNT_COUNTER && !ctr_ok) {
        snprintf(why, whylen, "DMSG_OFI_COUNT=counter: provider \"%s\" %s", s->caps.prov,
                 ctr_why);
        return DMSG_FAIL(DMSG_ERR_UNSUPPORTED, "%s", why);
    }
    if (!cq_ok && !ctr_ok) {
        snprintf(why, whylen,
                 "provider \"%s\" lacks working remote CQ data (fi_writedata), and it %s: dmsg "
                 "needs one of the two to count deposits",
                 s->caps.prov, ctr_why);
        return DMSG_FAIL(DMSG_ERR_UNSUPPORTED, "%s", why);
    }
    s->by_counter = want == OFI_COUNT_COUNTER || (want == OFI_COUNT_AUTO && !cq_ok);
    s->msg_tokens = !cq_ok;
    return DMSG_OK;
}

/* The start-up probe on a separate endpoint (the real one's address table is
 * indexed by rank): decides whether operations can ask for delivery
 * completion and how deposits are counted, and fails early with the
 * provider's name if RMA does not work. Counting by remote counters needs an
 * endpoint opened with FI_RMA_EVENT, which the real one was not (it may cost
 * where it is not used): it is then opened again. */
static dmsg_status probe(ofi_state *s, const char *iface, ofi_count want, char *why,
                         size_t whylen)
{
    ofi_fab pf;
    ofi_caps pc;
    dmsg_status st = ofi_fab_open(s->caps.prov, iface, OFI_OPEN_PROBE, &pf, &pc, why, whylen);
    if (st)
        return DMSG_FAIL(st, "ofi probe: %s", why);
    st = ofi_probe(&pf, &pc, why, whylen);
    ofi_fab_close(&pf);
    if (st)
        return st;
    if ((st = choose_count(s, &pc, want, why, whylen)))
        return st;
    if (s->by_counter && !s->fab.rma_event) {
        char prov[sizeof s->caps.prov];
        snprintf(prov, sizeof prov, "%s", s->caps.prov);
        ofi_fab_close(&s->fab);
        if ((st = ofi_fab_open(prov, iface, OFI_OPEN_RMA_EVENT, &s->fab, &s->caps, why, whylen)))
            return DMSG_FAIL(st, "%s", why);
    }
    s->caps.rcntr_write = pc.rcntr_write;
    s->caps.rcntr_writemsg = pc.rcntr_writemsg;
    s->caps.rcntr_inject = pc.rcntr_inject;
    s->caps.rcntr_writedata = pc.rcntr_writedata;
    s->caps.rcntr_mr = pc.rcntr_mr;
    s->caps.cqdata_works = pc.cqdata_works;
    s->caps.delivery_complete = pc.delivery_complete;
    s->caps.writemsg_chain = pc.writemsg_chain;
    s->caps.t_write8_us = pc.t_write8_us;
    s->caps.t_write8_dc_us = pc.t_write8_dc_us;
    s->caps.tx_delivers = pc.tx_delivers;
    /* The engine relies on delivery completion: a message's receive
     * completion is in the target's CQ before anything sent after it. */
    s->caps.engine = pc.delivery_complete == 1 || (s->caps.order_raw && s->caps.order_ras);
    if (s->caps.rma_iov_limit > 1 && pc.writemsg_chain != 1)
        s->caps.rma_iov_limit = 1; /* chained lists misbehave: one piece per operation */
    return DMSG_OK;
}

static dmsg_status connect_peers(dmsg_tp *tp, ofi_state *s, const dmsg_boot *boot)
{
    ofi_card me = {.namelen = (uint32_t)s->fab.namelen,
                   .base = s->caps.virt_addr ? (uint64_t)(uintptr_t)s->fab.base : 0,
                   .key = s->fab.key,
                   .cells = s->caps.virt_addr ? (uint64_t)(uintptr_t)s->cells : 0};
    memcpy(me.name, s->fab.name, s->fab.namelen);
    snprintf(me.prov, sizeof me.prov, "%s", s->caps.prov);
    dmsg_status st;
    ofi_card *all = calloc((size_t)tp->npes, sizeof *all);
    char *names = calloc((size_t)tp->npes, OFI_ADDR_MAX);
    fi_addr_t *fa = calloc((size_t)tp->npes, sizeof *fa);
    if (!all || !names || !fa) {
        st = DMSG_FAIL(DMSG_ERR_NOMEM, "address table");
        goto out;
    }
    if ((st = ofi_boot_exchange(s, boot, &me, sizeof me, all)))
        goto out;
    for (int p = 0; p < tp->npes; p++) {
        all[p].prov[sizeof all[p].prov - 1] = '\0';
        if (strcmp(all[p].prov, me.prov) != 0) {
            /* Every PE reports it: each names the first PE that differs. */
            fprintf(stderr,
                    "dmsg: ofi: PE %d uses provider \"%s\", PE %d \"%s\": every PE must use the "
                    "same one (set DMSG_OFI_PROVIDER; DMSG_DEBUG=1 shows why a provider failed)\n",
                    tp->rank, me.prov, p, all[p].prov);
            st = DMSG_FAIL(DMSG_ERR_TRANSPORT, "PE %d chose another provider", p);
            goto out;
        }
        if (all[p].namelen != me.namelen) {
            st = DMSG_FAIL(DMSG_ERR_TRANSPORT,
                           "PE %d uses another provider or address format (%u-byte address, "
                           "ours %u): set DMSG_OFI_PROVIDER alike everywhere",
                           p, all[p].namelen, me.namelen);
            goto out;
        }
        memcpy(names + (size_t)p * me.namelen, all[p].name, me.namelen);
        s->peer[p] = (ofi_peer){.addr = all[p].base, .key = all[p].key, .cells = all[p].cells};
    }
    int n = fi_av_insert(s->fab.av, names, (size_t)tp->npes, fa, 0, NULL);
    if (n != tp->npes) {
        st = DMSG_FAIL(DMSG_ERR_TRANSPORT, "%s: fi_av_insert took %d of %d addresses",
                       s->caps.prov, n, tp->npes);
        goto out;
    }
    for (int p = 0; p < tp->npes; p++)
        if (fa[p] != (fi_addr_t)p) {
            st = DMSG_FAIL(DMSG_ERR_TRANSPORT, "%s: address table is not indexed by rank",
                           s->caps.prov);
            goto out;
        }
out:
    free(fa);
    free(names);
    free(all);
    return st;
}

/* Names of the DMSG_OFI_MECH choices, with their values, and of the
 * ofi_count values in enum order. */
static const char *const mech_names[] = {"auto", "chained", "packed", NULL};
static const dmsg_mech mech_values[] = {DMSG_MECH_AUTO, DMSG_MECH_CHAINED, DMSG_MECH_PACKED};
static const char *const count_names[] = {"auto", "cqdata", "counter", NULL};

/* Index of val in names, or -1 after rank 0 has said what the setting takes. */
static int choice(const char *setting, const char *val, const char *const *names, int rank)
{
    for (int i = 0; names[i]; i++)
        if (!strcmp(val, names[i]))
            return i;
    if (rank == 0) {
        fprintf(stderr, "dmsg: %s=%s is not one of:", setting, val);
        for (int i = 0; names[i]; i++)
            fprintf(stderr, " %s", names[i]);
        fputc('\n', stderr);
    }
    return -1;
}

/* libfabric's shm provider names its region in /dev/shm after our pid, and
 * a PE that crashes leaves it behind. Once every peer has reached us (the
 * first barrier: each has written its token into the region) the name is no
 * longer needed, so it goes now and the kernel frees the memory with the
 * last process that maps it. */
static void unlink_shm_names(void)
{
    char prefix[32];
    int n = snprintf(prefix, sizeof prefix, "%ld:", (long)getpid());
    DIR *d = opendir("/dev/shm");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, prefix, (size_t)n)) {
            char path[300];
            snprintf(path, sizeof path, "/dev/shm/%s", e->d_name);
            unlink(path);
        }
    closedir(d);
}

static dmsg_status ofi_init(dmsg_tp *tp, const dmsg_boot *boot)
{
    const dmsg_config *cfg = tp->cfg;
    dmsg_status st;
    ofi_state *s = calloc(1, sizeof *s);
    if (!s)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "ofi state");
    s->tp = tp;
    s->timeout = cfg->timeout > 0 ? cfg->timeout : cfg->ofi_timeout > 0 ? cfg->ofi_timeout : 60;
    s->boot_kind = boot->kind;
    tp->priv = s;
    if ((st = join_job(tp, s, boot)))
        goto err_free;
    s->rank = tp->rank;
    s->npes = tp->npes;
    int mech = choice("DMSG_OFI_MECH", cfg->ofi_mech, mech_names, boot->rank);
    int count = choice("DMSG_OFI_COUNT", cfg->ofi_count, count_names, boot->rank);
    if (mech < 0 || count < 0) {
        st = DMSG_ERR_ENV;
        goto err_job;
    }
    s->mech = mech_values[mech];
    int local = boot->kind != DMSG_BOOT_PMI;
    const char *iface = strcmp(cfg->ofi_iface, "auto") ? cfg->ofi_iface : local ? "lo" : "auto-net";
    char why[512] = "";
    /* sockets' progress thread spins 10 ms after each piece of work by
     * default; with PEs outnumbering cores that spin takes the core from
     * the PEs and the other progress threads (an 8-byte write to itself took
     * 4 ms instead of 30 us on a busy 2-core host). Unless the user chose,
     * it sleeps at once; libfabric reads this at its first fi_getinfo. */
    if (!strcmp(cfg->ofi_provider, "sockets"))
        setenv("FI_SOCKETS_PE_WAITTIME", "0", 0);
    if ((st = ofi_lib_load(cfg->ofi_library, why, sizeof why)) ||
        (st = ofi_choose(cfg->ofi_provider, iface, local, &s->fab, &s->caps, why, sizeof why)))
        goto err_prov;
    if ((st = probe(s, iface, (ofi_count)count, why, sizeof why)))
        goto err_fab_prov;
    s->mapped_len = OFI_CTL_BYTES + tp->seg_size;
    s->mapped = mmap(NULL, s->mapped_len, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (s->mapped == MAP_FAILED) {
        s->mapped = NULL;
        st = DMSG_FAIL(DMSG_ERR_NOMEM, "mapping a %zu-byte segment", s->mapped_len);
        goto err_fab;
    }
    s->seg = s->mapped + OFI_CTL_BYTES;
    if ((st = ofi_fab_register(&s->fab, s->mapped, s->mapped_len)))
        goto err_map;
    s->peer = calloc((size_t)tp->npes, sizeof *s->peer);
    s->slot = calloc(tp->max_counters, sizeof *s->slot);
    s->segtab = calloc((size_t)tp->npes, sizeof *s->segtab);
    s->dirty = calloc((size_t)tp->npes, 1);
    s->sigpend = calloc((size_t)tp->npes, 1);
    s->nslots = tp->max_counters;
    if (!s->peer || !s->slot || !s->segtab || !s->dirty || !s->sigpend) {
        st = DMSG_FAIL(DMSG_ERR_NOMEM, "peer tables");
        goto err_tabs;
    }
    s->segtab[tp->rank] = s->seg;
    /* Visibility: delivery completion per operation, unless the probe found
     * it to cost much more than a plain write (tcp;ofi_rxm: an extra round
     * trip each) and the provider orders reads after writes and sends; then
     * one flushing read per written peer at quiet time instead. */
    s->flush = s->caps.order_raw && s->caps.order_ras &&
               (s->caps.delivery_complete != 1 ||
                s->caps.t_write8_dc_us > s->caps.t_write8_us + 0.5);
    s->inject_max = s->caps.inject;
    if (!s->flush && s->caps.delivery_complete != 1) {
        snprintf(why, sizeof why,
                 "provider \"%s\" lacks both delivery completion (FI_DELIVERY_COMPLETE) and "
                 "read-after-write order (FI_ORDER_RAW, FI_ORDER_RAS): deposits could not be "
                 "completed at their targets",
                 s->caps.prov);
        st = DMSG_FAIL(DMSG_ERR_UNSUPPORTED, "%s", why);
        goto err_tabs_prov;
    }
    if (!s->caps.engine && s->mech == DMSG_MECH_PACKED) {
        st = DMSG_FAIL(DMSG_ERR_UNSUPPORTED,
                       "DMSG_OFI_MECH=packed: provider \"%s\" lacks delivery completion "
                       "(FI_DELIVERY_COMPLETE), which the deposit engine needs",
                       s->caps.prov);
        goto err_tabs;
    }
    if (!s->caps.engine)
        s->mech = DMSG_MECH_CHAINED;
    if (s->by_counter && (st = ofi_rcount_start(s)))
        goto err_tabs;
    /* Receive buffers go up before any peer can learn our address. */
    if ((s->mech != DMSG_MECH_CHAINED || s->caps.tx_delivers || s->msg_tokens) &&
        (st = ofi_engine_start(s)))
        goto err_tabs;
    if ((st = connect_peers(tp, s, boot)))
        goto err_tabs;
    tp->seg = s->segtab;
    /* The first barrier over libfabric: every peer is reachable. */
    if ((st = ofi_barrier(tp)))
        goto err_seg;
    if (!strcmp(s->caps.prov, "shm"))
        unlink_shm_names();
    return DMSG_OK;

err_seg:
    tp->seg = NULL;
err_tabs_prov:
    if (tp->rank == 0 && why[0])
        fprintf(stderr, "dmsg: ofi: %s\n", why);
err_tabs:
    ofi_rcount_stop(s);
    free(s->sigpend);
    free(s->dirty);
    free(s->segtab);
    free(s->slot);
    free(s->peer);
err_map:
    ofi_fab_close(&s->fab);
    ofi_engine_stop(s);
    munmap(s->mapped, s->mapped_len);
    goto err_job;
err_fab:
    ofi_fab_close(&s->fab);
    goto err_job;
err_fab_prov:
    ofi_fab_close(&s->fab);
err_prov:
    /* A provider that cannot serve is a configuration error: nothing can
     * run, so it is reported even without DMSG_DEBUG, once (rank 0). */
    if (tp->rank == 0 && why[0])
        fprintf(stderr, "dmsg: ofi: %s\n", why);
    else if (tp->rank != 0)
        usleep(300000); /* the launcher stops the job at the first exit: let rank 0 say why */
err_job:
    leave_job(tp, s, 1);
err_free:
    tp->priv = NULL;
    free(s);
    return st;
}

static void ofi_finalize(dmsg_tp *tp)
{
    ofi_state *s = tp->priv;
    /* The core's last barrier is done, but a peer may still wait for the
     * acknowledgement of its last token to us, which reliable-datagram
     * providers send from our progress: serve briefly before closing (a
     * peer that then still waits ends at its timeout, not in a hang). */
    double until = ofi_now() + OFI_LINGER;
    while (ofi_now() < until && ofi_progress(s) == DMSG_OK)
        if (s->tx_pending == 0 && s->npes == 1)
            break;
    ofi_rcount_stop(s); /* its MRs and counters before the domain */
    ofi_fab_close(&s->fab);
    ofi_engine_stop(s); /* after the endpoint: no receive may land in freed buffers */
    munmap(s->mapped, s->mapped_len);
    free(s->sigpend);
    free(s->dirty);
    free(s->segtab);
    free(s->slot);
    free(s->peer);
    tp->seg = NULL;
    leave_job(tp, s, 0);
    tp->priv = NULL;
    free(s);
}

const dmsg_tp_ops dmsg_tp_ofi_ops = {
    .name = "ofi",
    .caps = 0,
    .init = ofi_init,
    .finalize = ofi_finalize,
    .barrier = ofi_barrier,
    .quiet = ofi_quiet,
    .allgather = ofi_allgather,
    .ctr_reset = ofi_ctr_reset,
    .ctr_wait = ofi_ctr_wait,
    .ctr_read = ofi_ctr_read,
    .wtime = NULL,
    .xfer = ofi_xfer,
    .xfer_nb = ofi_xfer_nb,
    .req_test = ofi_req_test,
};
