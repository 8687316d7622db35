/* dmsg-info: what the libfabric providers of this host really do, as the
 * ofi transport's start-up probe finds it (a loopback endpoint writing to
 * itself), and which mechanisms dmsg picks on each, as the transport's own
 * plan decides them. Reaches below the public header on purpose: it uses
 * the ofi transport's probe and plan (dmsg/transport/ofi/ofi.h). First it
 * says which pages a job segment gets on this host and why (a small job
 * region made and touched as dmsgrun makes one: dmsg/boot/job.c), and which
 * transpose blocking the copy engine uses (the host profile, copy_tune.c).
 *
 *   dmsg-info [-i IFACE] [PROVIDER ...]     (default: the usual providers, IFACE lo) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dmsg/boot/job.h"
#include "dmsg/transport/ofi/ofi.h"
#include "dmsg/xfer/xfer.h"

static const char *yn(int v)
{
    return v < 0 ? "-" : v ? "yes" : "no";
}

/* The ops of a mask, by libfabric's names. */
static void ops(const char *what, uint32_t m)
{
    static const struct {
        enum fi_op op;
        const char *name;
    } names[] = {{FI_SUM, "SUM"},         {FI_BAND, "BAND"},
                 {FI_BOR, "BOR"},         {FI_BXOR, "BXOR"},
                 {FI_ATOMIC_READ, "READ"}, {FI_ATOMIC_WRITE, "WRITE"},
                 {FI_CSWAP, "CSWAP"}};
    printf("%s", what);
    int any = 0;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (m & OFI_AMO_BIT(names[k].op)) {
            printf("%s%s", any ? "," : " ", names[k].name);
            any = 1;
        }
    if (!any)
        printf(" none");
}

/* What the atomics probe found, per word size. */
static void show_atomics(const ofi_caps *c)
{
    if (!c->atomic_cap) {
        printf("   atomics (FI_ATOMIC): not granted\n");
        return;
    }
    for (int t = 0; t < 2; t++) {
        printf("   atomics on FI_UINT%d:", t ? 64 : 32);
        ops(" plain", c->amo_plain[t]);
        ops("; fetch", c->amo_fetch[t]);
        ops("; compare", c->amo_cswap[t]);
        printf("\n");
    }
    printf("   fetch-add and compare-swap to itself gave the right values: %s\n",
           yn(c->amo_works));
}

static int show(const char *prov, const char *iface)
{
    ofi_fab f;
    ofi_caps c;
    char why[512]; /* a failure's detail, kept past the calls that follow */
    printf("== %s\n", prov);
    if (dmsg_ofi_fab_open(prov, iface, OFI_OPEN_PROBE, &f, &c)) {
        printf("   not usable: %s\n", dmsg_last_error());
        return 1;
    }
    dmsg_status st = dmsg_ofi_probe(&f, &c);
    snprintf(why, sizeof why, "%s", st ? dmsg_last_error() : "");
    printf("   provider %s, domain %s\n", c.prov, c.domain);
    printf("   inject size %zu, iov limit %zu, rma_iov limit %zu, cq data %d bytes\n", c.inject,
           c.iov_limit, c.rma_iov_limit, c.cq_data_size);
    printf("   MR mode: %s addresses, %s keys%s; data progress %s\n",
           c.virt_addr ? "virtual" : "offset", c.prov_key ? "provider" : "requested",
           c.mr_endpoint ? ", bound to the endpoint" : "", c.manual ? "manual" : "auto");
    printf("   remote write counter (FI_RMA_EVENT) advertised: %s; counts fi_write %s, "
           "fi_writemsg %s, fi_inject_write %s, fi_writedata %s\n",
           c.rma_event_adv ? "yes" : "no", yn(c.rcntr_write), yn(c.rcntr_writemsg),
           yn(c.rcntr_inject), yn(c.rcntr_writedata));
    printf("   a counter bound to one MR (fi_mr_bind) counts writes to it and no others: %s%s%s%s; "
           "write-after-write order: %s",
           yn(c.rcntr_mr), c.rcntr_mr != 1 && c.rcntr_mr_why[0] ? " (" : "",
           c.rcntr_mr != 1 ? c.rcntr_mr_why : "", c.rcntr_mr != 1 && c.rcntr_mr_why[0] ? ")" : "",
           c.order_waw ? "yes" : "no");
    if (c.order_waw && c.max_order_waw >= (UINT64_C(1) << 40))
        printf(" (data of any size)");
    else if (c.order_waw)
        printf(" (data up to %zu bytes)", c.max_order_waw);
    printf("\n");
    printf("   remote CQ data works: %s; FI_DELIVERY_COMPLETE: %s; chained fi_writemsg: %s\n",
           yn(c.cqdata_works), yn(c.delivery_complete), yn(c.writemsg_chain));
    show_atomics(&c);
    if (c.t_write8_us >= 0)
        printf("   8-byte write to itself, completion waited: %.2f us; with delivery completion: "
               "%.2f us\n",
               c.t_write8_us, c.t_write8_dc_us);
    /* What the transport would do here with DMSG_OFI_COUNT and
     * DMSG_OFI_MECH at auto: its own plan, not a copy of its rules. */
    ofi_plan plan;
    dmsg_ofi_caps_merge(&c, &c);
    if (!st)
        if ((st = dmsg_ofi_plan_make(&c, OFI_COUNT_AUTO, DMSG_MECH_AUTO, &plan)))
            snprintf(why, sizeof why, "%s", dmsg_last_error());
    if (st) {
        printf("   dmsg cannot use it: %s\n", why);
    } else {
        printf("   dmsg uses: counted deposits by %s; quiet and barrier by %s; non-contiguous "
               "pieces chained %zu per fi_writemsg, or packed for the deposit engine: %s\n",
               plan.by_counter
                   ? "remote write counters (one MR and counter per deposit counter; each deposit "
                     "is its data, then an 8-byte signal write of the sender's byte total, "
                     "barrier tokens as messages)"
                   : "remote CQ data (fi_writedata / FI_REMOTE_CQ_DATA: one operation per "
                     "deposit)",
               plan.flush ? "a flushing read per written peer (read-after-write order)"
               : c.tx_delivers
                   ? "delivery completion up to the inject size; above it plain operations (their "
                     "completion comes after the target has them, fi_shm(7)), a large counted "
                     "deposit counted by an injected signal message, flushed at quiet by one "
                     "delivery-completed message"
                   : "delivery completion of every operation",
               plan.chain, c.engine ? "yes" : "no");
        if (!plan.by_counter)
            printf("   DMSG_OFI_COUNT=counter: %s\n",
                   plan.counter_ok ? "possible" : plan.counter_why);
        if (dmsg_ofi_plan_atomics(&c, OFI_AMO_AUTO, &plan) == DMSG_OK)
            printf("   atomics and signals (DMSG_OFI_ATOMICS=auto): %s%s%s%s\n",
                   plan.amo == OFI_AMO_NATIVE     ? "native (the provider's fetching atomics)"
                   : plan.amo == OFI_AMO_EMULATED ? "emulated (compare-swap loops over the "
                                                    "provider's compare-swap)"
                                                  : "software (messages the target's CPU "
                                                    "executes in its progress)",
                   plan.amo_why[0] ? "; natively not: " : "", plan.amo_why, "");
    }
    dmsg_ofi_fab_close(&f);
    return st ? 1 : 0;
}

int main(int argc, char **argv)
{
    static const char *const def[] = {"shm", "udp;ofi_rxd", "tcp;ofi_rxm", "sockets", "net",
                                      "tcp", "udp"};
    const char *iface = "lo";
    int i = 1, bad = 0;
    if (i + 1 < argc && !strcmp(argv[i], "-i")) {
        iface = argv[i + 1];
        i += 2;
    }
    if (i < argc && (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))) {
        printf("usage: dmsg-info [-i IFACE] [PROVIDER ...]\n");
        return 0;
    }
    /* This host's pages and copy blocking first: they hold without libfabric. */
    char pages[512], tune[1400];
    dmsg_job_hdr *jh = NULL;
    int jfd = -1;
    if (dmsg_job_create(1, (uint64_t)8 << 20, 64, &jfd) == DMSG_OK &&
        dmsg_job_map(jfd, &jh) == DMSG_OK)
        memset(dmsg_job_ctl(jh, 0), 1, (size_t)8 << 20); /* touch it: what does it get? */
    dmsg_job_huge_report(jfd, jh, pages, sizeof pages);
    dmsg_job_unmap(jh);
    if (jfd >= 0)
        close(jfd);
    printf("job segment pages: %s\n", pages);
    dmsg_xfer_params xp = {0};
    dmsg_xfer_params_tune(&xp, tune, sizeof tune);
    printf("copy engine: %s\n", tune);

    ofi_settings cfg; /* the transport's settings table: DMSG_OFI_LIBRARY */
    if (dmsg_env_load(&dmsg_ofi_env_table, &cfg)) {
        fprintf(stderr, "dmsg-info: %s\n", dmsg_last_error());
        return 1;
    }
    if (dmsg_ofi_lib_load(cfg.library)) {
        fprintf(stderr, "dmsg-info: %s\n", dmsg_last_error());
        return 1;
    }
    printf("libfabric %u.%u; interface for IP providers: %s\n", FI_MAJOR(fi_version()),
           FI_MINOR(fi_version()), iface);
    if (i < argc)
        for (; i < argc; i++)
            bad |= show(argv[i], iface);
    else
        for (size_t k = 0; k < sizeof def / sizeof def[0]; k++)
            show(def[k], iface);
    return bad;
}
