/* Opening a provider: fabric, domain, address vector, CQ, endpoint, and the
 * one memory region that peers write to. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dmsg/transport/ofi/ofi.h"

#define OFI_VERSION FI_VERSION(1, 17)

/* What dmsg needs of every provider; missing ones are named in the error. */
static const struct {
    uint64_t cap;
    const char *name;
} need_caps[] = {
    {FI_RMA, "FI_RMA"},
    {FI_READ, "FI_READ"},
    {FI_WRITE, "FI_WRITE"},
    {FI_REMOTE_READ, "FI_REMOTE_READ"},
    {FI_REMOTE_WRITE, "FI_REMOTE_WRITE"},
    {FI_MSG, "FI_MSG"},
};

static struct fi_info *make_hints(const char *prov, uint64_t extra)
{
    struct fi_info *h = ofi_allocinfo();
    if (!h)
        return NULL;
    h->caps = FI_RMA | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE | FI_MSG | FI_SEND |
              FI_RECV | extra;
    h->ep_attr->type = FI_EP_RDM;
    h->mode = 0; /* no FI_CONTEXT: operation contexts are plain pointers */
    h->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    h->domain_attr->av_type = FI_AV_TABLE;
    h->fabric_attr->prov_name = strdup(prov);
    /* Every dmsg wait drives progress itself (ofi_progress.c). A provider's
     * own progress thread competes with the PEs for the cores: sockets'
     * spins while any of its operations is in flight, which at 16 PEs on 2
     * cores made a round of deposit, await and sync take 50-100 ms. Asking
     * for manual progress leaves out no provider (libfabric's attribute
     * check accepts automatic progress where manual is asked). */
    h->domain_attr->data_progress = FI_PROGRESS_MANUAL;
    return h;
}

/* Says which required capability the provider lacks: the failure's detail. */
static dmsg_status explain_missing(const char *prov)
{
    struct fi_info *h = ofi_allocinfo(), *all = NULL;
    if (!h)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "out of memory");
    dmsg_status st = DMSG_ERR_UNSUPPORTED;
    h->fabric_attr->prov_name = strdup(prov);
    int rc = fi_getinfo(OFI_VERSION, NULL, NULL, 0, h, &all);
    if (rc || !all) {
        st = DMSG_FAIL(st, "provider \"%s\" is not available on this host (%s)", prov,
                       fi_strerror(-rc));
        goto out;
    }
    uint64_t have = 0;
    int rdm = 0;
    for (struct fi_info *i = all; i; i = i->next) {
        have |= i->caps;
        rdm |= i->ep_attr->type == FI_EP_RDM;
    }
    if (!rdm) {
        st = DMSG_FAIL(st, "provider \"%s\" lacks reliable datagram endpoints (FI_EP_RDM)", prov);
        goto out;
    }
    for (size_t k = 0; k < sizeof need_caps / sizeof need_caps[0]; k++)
        if (!(have & need_caps[k].cap)) {
            st = DMSG_FAIL(st, "provider \"%s\" lacks %s (RMA and messages are required)", prov,
                           need_caps[k].name);
            goto out;
        }
    st = DMSG_FAIL(st,
                   "provider \"%s\" offers no RDM endpoint with RMA and remote CQ data that dmsg "
                   "can use (memory registration mode or address vector type)",
                   prov);
out:
    fi_freeinfo(all);
    fi_freeinfo(h);
    return st;
}

/* Picks the entry of the list for the wanted interface; IPv4 for IP providers. */
static struct fi_info *pick(struct fi_info *list, const char *iface)
{
    int ip = 0;
    for (struct fi_info *i = list; i; i = i->next)
        ip |= i->addr_format == FI_SOCKADDR_IN || i->addr_format == FI_SOCKADDR_IN6;
    if (!ip)
        return list;
    for (struct fi_info *i = list; i; i = i->next) {
        if (i->addr_format != FI_SOCKADDR_IN || !i->domain_attr->name)
            continue;
        const char *d = i->domain_attr->name;
        if (!strcmp(iface, "auto-net") ? strcmp(d, "lo") != 0 : !strcmp(d, iface))
            return i;
    }
    return NULL;
}

static dmsg_status fab_fail(const char *prov, const char *call, int rc)
{
    return DMSG_FAIL(DMSG_ERR_TRANSPORT, "provider \"%s\": %s failed: %s", prov, call,
                     fi_strerror(-rc));
}

/* The provider's best fi_info for an endpoint opened `how`, duplicated
 * into *out: asks with FI_RMA_EVENT again where it is advertised and
 * wanted (some providers list it only when asked). */
static dmsg_status find_info(const char *prov, const char *iface, int how, struct fi_info **out)
{
    struct fi_info *hints = make_hints(prov, FI_ATOMIC), *list = NULL, *info;
    dmsg_status st = DMSG_ERR_UNSUPPORTED;
    uint64_t atomic = FI_ATOMIC;
    if (!hints)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "out of memory");
    /* Atomics are asked for, and done without where the provider has none
     * (dmsg's software atomics then serve, ofi_amo.c). */
    if (fi_getinfo(OFI_VERSION, NULL, NULL, 0, hints, &list) || !list || !pick(list, iface)) {
        fi_freeinfo(list);
        list = NULL;
        atomic = 0;
        hints->caps &= ~(uint64_t)FI_ATOMIC;
        if (fi_getinfo(OFI_VERSION, NULL, NULL, 0, hints, &list) || !list) {
            st = explain_missing(prov);
            goto out_hints;
        }
    }
    info = pick(list, iface);
    if (!info) {
        st = DMSG_FAIL(st, "provider \"%s\" has no IPv4 endpoint on interface \"%s\"", prov,
                       iface);
        goto out_list;
    }
    if (info->domain_attr->cq_data_size < 8) {
        st = DMSG_FAIL(st, "provider \"%s\" lacks 8 bytes of remote CQ data (has %zu)", prov,
                       info->domain_attr->cq_data_size);
        goto out_list;
    }
    /* A remote write counter is only asked for when advertised: the probe
     * then checks whether it really counts. */
    int rma_event = (info->caps & FI_RMA_EVENT) != 0;
    if (how == OFI_OPEN_RMA_EVENT && !rma_event) {
        st = DMSG_FAIL(st, "provider \"%s\" lacks remote write counters (FI_RMA_EVENT)", prov);
        goto out_list;
    }
    if (how != OFI_OPEN_PLAIN && rma_event) {
        struct fi_info *h2 = make_hints(prov, FI_RMA_EVENT | atomic), *l2 = NULL;
        if (h2 && fi_getinfo(OFI_VERSION, NULL, NULL, 0, h2, &l2) == 0 && l2) {
            struct fi_info *i2 = pick(l2, iface);
            if (i2) {
                fi_freeinfo(list);
                list = l2;
                info = i2;
                l2 = NULL;
            }
        }
        fi_freeinfo(l2);
        fi_freeinfo(h2);
        if (how == OFI_OPEN_RMA_EVENT && !(info->caps & FI_RMA_EVENT)) {
            st = DMSG_FAIL(st,
                           "provider \"%s\" gives no endpoint with remote write counters "
                           "(FI_RMA_EVENT)",
                           prov);
            goto out_list;
        }
    }
    *out = fi_dupinfo(info);
    st = *out ? DMSG_OK : DMSG_FAIL(DMSG_ERR_NOMEM, "out of memory");
out_list:
    fi_freeinfo(list);
out_hints:
    fi_freeinfo(hints);
    return st;
}

/* What the attributes say; the probe fills in what they cannot (-1). */
static void caps_from_info(const struct fi_info *info, ofi_caps *c)
{
    snprintf(c->prov, sizeof c->prov, "%s", info->fabric_attr->prov_name);
    snprintf(c->domain, sizeof c->domain, "%s", info->domain_attr->name);
    c->inject = info->tx_attr->inject_size;
    c->iov_limit = info->tx_attr->iov_limit ? info->tx_attr->iov_limit : 1;
    c->rma_iov_limit = info->tx_attr->rma_iov_limit ? info->tx_attr->rma_iov_limit : 1;
    c->max_msg = info->ep_attr->max_msg_size;
    c->virt_addr = (info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) != 0;
    c->prov_key = (info->domain_attr->mr_mode & FI_MR_PROV_KEY) != 0;
    c->mr_endpoint = (info->domain_attr->mr_mode & FI_MR_ENDPOINT) != 0;
    c->manual = info->domain_attr->data_progress == FI_PROGRESS_MANUAL;
    c->rma_event_adv = (info->caps & FI_RMA_EVENT) != 0;
    c->cq_data_size = (int)info->domain_attr->cq_data_size;
    c->rcntr_write = c->rcntr_writemsg = c->rcntr_inject = c->rcntr_writedata = -1;
    c->cqdata_works = c->delivery_complete = c->writemsg_chain = -1;
    c->t_write8_us = c->t_write8_dc_us = -1;
    c->order_sas = (info->tx_attr->msg_order & FI_ORDER_SAS) != 0;
    c->order_was = (info->tx_attr->msg_order & FI_ORDER_WAS) != 0;
    c->order_raw = (info->tx_attr->msg_order & FI_ORDER_RAW) != 0;
    c->order_ras = (info->tx_attr->msg_order & FI_ORDER_RAS) != 0;
    c->order_waw = (info->tx_attr->msg_order & FI_ORDER_WAW) != 0;
    c->max_order_waw = info->ep_attr->max_order_waw_size;
    c->rcntr_mr = -1;
    c->atomic_cap = (info->caps & FI_ATOMIC) != 0;
    /* udp;ofi_rxd (libfabric 1.17 here) passes the probe's one atomic at a
     * time, yet crashes in its progress (SIGSEGV in fi_cq_read, at the
     * target or the origin) once a PE has two atomics in flight, or PEs'
     * atomics meet other traffic. A crash cannot be probed for: the
     * provider is named. */
    c->amo_broken = !strcmp(c->prov, "udp;ofi_rxd")
                        ? "udp;ofi_rxd's atomics crash its progress when several are in flight"
                        : NULL;
    c->amo_works = -1;
}

/* The CQ, with a file descriptor to sleep on where the provider gives one:
 * a PE with nothing to do then leaves its core to the PEs it waits for
 * (ofi_progress.c, dmsg_ofi_idle). Providers without one get a CQ without. */
static int open_cq(ofi_fab *f)
{
    struct fi_cq_attr cq = {.format = FI_CQ_FORMAT_DATA, .size = 4096, .wait_obj = FI_WAIT_FD};
    f->wait_fd = -1;
    if (fi_cq_open(f->domain, &cq, &f->cq, NULL) == 0) {
        int fd = -1;
        if (fi_control(&f->cq->fid, FI_GETWAIT, &fd) == 0 && fd >= 0) {
            f->wait_fd = fd;
            return 0;
        }
        fi_close(&f->cq->fid);
        f->cq = NULL;
    }
    cq.wait_obj = FI_WAIT_NONE;
    return fi_cq_open(f->domain, &cq, &f->cq, NULL);
}

/* Fabric, domain, address table, CQ, endpoint, bindings, name. One
 * failure path: `call` names the step that failed, and dmsg_ofi_fab_close
 * closes whatever was opened. */
static dmsg_status open_objects(ofi_fab *f, int how, const char *prov)
{
    struct fi_info *info = f->info;
    int rc;
    const char *call = "fi_fabric";
    if ((rc = fi_fabric(info->fabric_attr, &f->fabric, NULL)))
        goto fail;
    call = "fi_domain";
    if ((rc = fi_domain(f->fabric, info, &f->domain, NULL)))
        goto fail;
    call = "fi_av_open";
    struct fi_av_attr av = {.type = FI_AV_TABLE};
    if ((rc = fi_av_open(f->domain, &av, &f->av, NULL)))
        goto fail;
    call = "fi_cq_open";
    if ((rc = open_cq(f)))
        goto fail;
    call = "fi_endpoint";
    if ((rc = fi_endpoint(f->domain, info, &f->ep, NULL)))
        goto fail;
    call = "fi_ep_bind";
    if ((rc = fi_ep_bind(f->ep, &f->av->fid, 0)) ||
        (rc = fi_ep_bind(f->ep, &f->cq->fid, FI_TRANSMIT | FI_RECV)))
        goto fail;
    if (how == OFI_OPEN_PROBE && f->rma_event) {
        struct fi_cntr_attr ca = {.events = FI_CNTR_EVENTS_COMP, .wait_obj = FI_WAIT_NONE};
        if (fi_cntr_open(f->domain, &ca, &f->rcntr, NULL) == 0 &&
            fi_ep_bind(f->ep, &f->rcntr->fid, FI_REMOTE_WRITE) != 0) {
            fi_close(&f->rcntr->fid);
            f->rcntr = NULL;
        }
    }
    call = "fi_enable";
    if ((rc = fi_enable(f->ep)))
        goto fail;
    call = "fi_getname (address longer than 64 bytes?)";
    f->namelen = sizeof f->name;
    if ((rc = fi_getname(&f->ep->fid, f->name, &f->namelen)))
        goto fail;
    return DMSG_OK;
fail:
    return fab_fail(prov, call, rc);
}

dmsg_status dmsg_ofi_fab_open(const char *prov, const char *iface, int how, ofi_fab *f,
                              ofi_caps *c)
{
    memset(f, 0, sizeof *f);
    memset(c, 0, sizeof *c);
    dmsg_status st = find_info(prov, iface, how, &f->info);
    if (st)
        return st;
    caps_from_info(f->info, c);
    f->rma_event = (f->info->caps & FI_RMA_EVENT) != 0;
    if ((st = open_objects(f, how, prov)))
        dmsg_ofi_fab_close(f);
    return st;
}

dmsg_status dmsg_ofi_fab_register(ofi_fab *f, char *base, size_t len)
{
    int rc = fi_mr_reg(f->domain, base, len,
                       FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE, 0, 0, 0, &f->mr,
                       NULL);
    if (rc)
        return DMSG_FAIL(DMSG_ERR_TRANSPORT, "fi_mr_reg of %zu bytes: %s", len, fi_strerror(-rc));
    if (f->info->domain_attr->mr_mode & FI_MR_ENDPOINT) {
        if ((rc = fi_mr_bind(f->mr, &f->ep->fid, 0)) || (rc = fi_mr_enable(f->mr))) {
            fi_close(&f->mr->fid);
            f->mr = NULL;
            return DMSG_FAIL(DMSG_ERR_TRANSPORT, "binding the memory region: %s",
                             fi_strerror(-rc));
        }
    }
    f->key = fi_mr_key(f->mr);
    f->base = base;
    f->len = len;
    return DMSG_OK;
}

void dmsg_ofi_fab_close(ofi_fab *f)
{
    /* Endpoint first: nothing may complete into objects already closed. */
    if (f->ep)
        fi_close(&f->ep->fid);
    if (f->mr)
        fi_close(&f->mr->fid);
    if (f->rcntr)
        fi_close(&f->rcntr->fid);
    if (f->cq)
        fi_close(&f->cq->fid);
    if (f->av)
        fi_close(&f->av->fid);
    if (f->domain)
        fi_close(&f->domain->fid);
    if (f->fabric)
        fi_close(&f->fabric->fid);
    if (f->info)
        fi_freeinfo(f->info);
    memset(f, 0, sizeof *f);
}

/* The providers "auto" tries, best first: shm needs every PE on one host. */
static const char *const auto_local[] = {"shm", "tcp;ofi_rxm", "udp;ofi_rxd"};
static const char *const auto_net[] = {"tcp;ofi_rxm", "udp;ofi_rxd"};

dmsg_status dmsg_ofi_choose(const char *want, const char *iface, int local, ofi_fab *f,
                            ofi_caps *c)
{
    char last[256] = "";
    if (strcmp(want, "auto") != 0) {
        dmsg_status st = dmsg_ofi_fab_open(want, iface, OFI_OPEN_PLAIN, f, c);
        if (st)
            return DMSG_FAIL(st, "DMSG_OFI_PROVIDER=%s: %s", want, dmsg_last_error());
        return DMSG_OK;
    }
    const char *const *list = local ? auto_local : auto_net;
    size_t n = local ? 3 : 2;
    /* Every PE chooses alone, so a passing failure must not make one PE
     * fall back while the others take the first choice: each provider gets
     * a few tries before the next is taken. */
    for (size_t i = 0; i < n; i++)
        for (int t = 0; t < OFI_OPEN_TRIES; t++) {
            dmsg_status st = dmsg_ofi_fab_open(list[i], iface, OFI_OPEN_PLAIN, f, c);
            if (st == DMSG_OK)
                return DMSG_OK;
            snprintf(last, sizeof last, "%s", dmsg_last_error());
            (void)DMSG_FAIL(st, "auto: try %d of %s: %s", t + 1, list[i], last);
            if (st != DMSG_ERR_TRANSPORT)
                break; /* not on this host, or lacking a capability: final */
            usleep(20000);
        }
    return DMSG_FAIL(DMSG_ERR_UNSUPPORTED, "DMSG_OFI_PROVIDER=auto: no provider works; last: %s",
                     last);
}
