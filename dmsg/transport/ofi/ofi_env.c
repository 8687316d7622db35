/* The ofi transport's settings rows. */
#include "dmsg/transport/ofi/ofi.h"

#define F(field) DMSG_ENV_FIELD(ofi_settings, field)

static const dmsg_env_entry rows[] = {
    {"DMSG_OFI_PROVIDER", DMSG_ENV_STRING, "auto",
     "ofi: libfabric provider (shm, \"tcp;ofi_rxm\", \"udp;ofi_rxd\", ...); auto = the best that "
     "works (shm on one host)",
     F(provider)},
    {"DMSG_OFI_IFACE", DMSG_ENV_STRING, "auto",
     "ofi: network interface of IP providers; auto = lo under dmsgrun, else the first other one",
     F(iface)},
    {"DMSG_OFI_MECH", DMSG_ENV_STRING, "auto",
     "ofi: non-contiguous deposits by auto (cheaper), chained (fi_writemsg iov lists) or packed "
     "(a message for the target's deposit engine)",
     F(mech)},
    {"DMSG_OFI_COUNT", DMSG_ENV_STRING, "auto",
     "ofi: how deposits are counted at the target: cqdata (remote CQ data), counter (remote write "
     "counters bound to memory regions), auto = cqdata where it works, else counter",
     F(count)},
    {"DMSG_OFI_LIBRARY", DMSG_ENV_STRING, "libfabric.so.1",
     "ofi: the libfabric shared library to open (a name the dynamic loader searches, or a path)",
     F(library)},
    {"DMSG_OFI_ATOMICS", DMSG_ENV_STRING, "auto",
     "ofi: how atomics and signals travel, one way for every word: native (the provider's "
     "atomics), emulated (the provider's compare-swap in a loop), software (messages the target "
     "executes in its progress); auto = native where the provider has every op, else emulated "
     "where it has compare-swap, else software",
     F(atomics)},
};

const dmsg_env_table dmsg_ofi_env_table = {rows, sizeof rows / sizeof rows[0], sizeof(ofi_settings)};
