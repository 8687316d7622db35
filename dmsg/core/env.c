/* Environment settings: one table, parsed in one place. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "dmsg/core/env.h"

#define F(field) offsetof(dmsg_config, field), sizeof(((dmsg_config *)0)->field)

const dmsg_env_entry dmsg_env_table[] = {
    {"DMSG_TRANSPORT", DMSG_ENV_STRING, "shm",
     "transport: shm (native shared memory, one host), sim (simulated machine, virtual time), "
     "ofi (libfabric RMA, one or many hosts)",
     F(transport)},
    {"DMSG_SEGMENT_SIZE", DMSG_ENV_SIZE, "128M",
     "bytes of each PE's symmetric segment (suffix K, M, G, T); memory is used only when touched",
     F(seg_size)},
    {"DMSG_MAX_COUNTERS", DMSG_ENV_UINT, "256", "number of deposit counters that may exist at once",
     F(max_counters)},
    {"DMSG_TIMEOUT", DMSG_ENV_SECONDS, "0",
     "seconds any single wait (await, sync, collective, init) may block before it returns "
     "DMSG_ERR_TIMEOUT; 0 = no limit",
     F(timeout)},
    {"DMSG_SPIN", DMSG_ENV_LONG, "-1",
     "polls before a waiting PE sleeps (futex); -1 = automatic (short when PEs outnumber cores)",
     F(spin)},
    {"DMSG_TILE_BYTES", DMSG_ENV_SIZE, "64K",
     "working set per side of one tile of a strided 2-D copy (transpose)", F(tile_bytes)},
    {"DMSG_DEBUG", DMSG_ENV_BOOL, "0", "1: print a diagnostic to stderr where an error is detected",
     F(debug)},
    {"DMSG_MACHINE", DMSG_ENV_STRING, "t3d",
     "sim: machine to simulate: a built-in (iwarp, t3d, t3e-scap, t3e-vscap, paragon), a name in "
     "$DMSG_MACHINE_DIR, or a description file",
     F(machine)},
    {"DMSG_SIM_MECH", DMSG_ENV_STRING, "auto",
     "sim: non-contiguous deposits by auto (cheaper allowed), packed or chained transfer",
     F(sim_mech)},
    {"DMSG_SIM_CONGESTION", DMSG_ENV_SECONDS, "0",
     "sim: average network congestion factor, 1 to 1024; 0 = the machine's typical value",
     F(sim_congestion)},
    {"DMSG_SIM_FETCH", DMSG_ENV_STRING, "auto",
     "sim: fetch strategy auto, blocking (one remote read per word), pipelined (SCAP), vector "
     "(VSCAP)",
     F(sim_fetch)},
    {"DMSG_SIM_REPORT", DMSG_ENV_BOOL, "0",
     "sim: PE 0 prints every PE's virtual time breakdown at dmsg_finalize", F(sim_report)},
    {"DMSG_OFI_PROVIDER", DMSG_ENV_STRING, "auto",
     "ofi: libfabric provider (shm, \"tcp;ofi_rxm\", \"udp;ofi_rxd\", ...); auto = the best that "
     "works (shm on one host)",
     F(ofi_provider)},
    {"DMSG_OFI_IFACE", DMSG_ENV_STRING, "auto",
     "ofi: network interface of IP providers; auto = lo under dmsgrun, else the first other one",
     F(ofi_iface)},
    {"DMSG_OFI_MECH", DMSG_ENV_STRING, "auto",
     "ofi: non-contiguous deposits by auto (cheaper), chained (fi_writemsg iov lists) or packed "
     "(a message for the target's deposit engine)",
     F(ofi_mech)},
    {"DMSG_OFI_COUNT", DMSG_ENV_STRING, "auto",
     "ofi: how deposits are counted at the target: cqdata (remote CQ data), counter (remote write "
     "counters bound to memory regions), auto = cqdata where it works, else counter",
     F(ofi_count)},
    {"DMSG_OFI_LIBRARY", DMSG_ENV_STRING, "libfabric.so.1",
     "ofi: the libfabric shared library to open (a name the dynamic loader searches, or a path)",
     F(ofi_library)},
    {"DMSG_OFI_TIMEOUT", DMSG_ENV_SECONDS, "60",
     "ofi: seconds any wait may last when DMSG_TIMEOUT is 0, so that a dead peer ends the job "
     "with DMSG_ERR_TIMEOUT instead of a hang",
     F(ofi_timeout)},
};
const size_t dmsg_env_count = sizeof dmsg_env_table / sizeof dmsg_env_table[0];

static dmsg_status parse_size(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)*s))
        return DMSG_ERR_ENV;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return DMSG_ERR_ENV;
    unsigned shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K': shift = 10; end++; break;
    case 'M': shift = 20; end++; break;
    case 'G': shift = 30; end++; break;
    case 'T': shift = 40; end++; break;
    default: break;
    }
    if (toupper((unsigned char)*end) == 'B' || (*end == 'i' && toupper((unsigned char)end[1]) == 'B'))
        end += (*end == 'i') ? 2 : 1;
    if (*end != '\0' || (shift && v > (UINT64_MAX >> shift)))
        return DMSG_ERR_ENV;
    *out = (uint64_t)v << shift;
    return DMSG_OK;
}

dmsg_status dmsg_env_parse(dmsg_env_type type, const char *s, void *out, size_t outlen)
{
    char *end;
    errno = 0;
    switch (type) {
    case DMSG_ENV_STRING:
        if (strlen(s) >= outlen || !*s)
            return DMSG_ERR_ENV;
        strcpy(out, s);
        return DMSG_OK;
    case DMSG_ENV_SIZE: {
        uint64_t v;
        if (parse_size(s, &v))
            return DMSG_ERR_ENV;
        if (outlen != sizeof v)
            return DMSG_ERR_ENV;
        *(uint64_t *)out = v;
        return DMSG_OK;
    }
    case DMSG_ENV_UINT: {
        if (outlen != sizeof(uint32_t) || !isdigit((unsigned char)*s))
            return DMSG_ERR_ENV;
        unsigned long v = strtoul(s, &end, 10);
        if (errno || *end || v > UINT32_MAX)
            return DMSG_ERR_ENV;
        *(uint32_t *)out = (uint32_t)v;
        return DMSG_OK;
    }
    case DMSG_ENV_SECONDS: {
        double v = strtod(s, &end);
        if (outlen != sizeof v || errno || *end || end == s || !isfinite(v) || v < 0)
            return DMSG_ERR_ENV;
        *(double *)out = v;
        return DMSG_OK;
    }
    case DMSG_ENV_LONG: {
        long v = strtol(s, &end, 10);
        if (outlen != sizeof v || errno || *end || end == s || v < -1)
            return DMSG_ERR_ENV;
        *(long *)out = v;
        return DMSG_OK;
    }
    case DMSG_ENV_BOOL:
        if (outlen != sizeof(int))
            return DMSG_ERR_ENV;
        if (!strcmp(s, "0") || !strcmp(s, "no") || !strcmp(s, "false") || !strcmp(s, "off"))
            *(int *)out = 0;
        else if (!strcmp(s, "1") || !strcmp(s, "yes") || !strcmp(s, "true") || !strcmp(s, "on"))
            *(int *)out = 1;
        else
            return DMSG_ERR_ENV;
        return DMSG_OK;
    }
    return DMSG_ERR_ENV;
}

dmsg_status dmsg_env_load(dmsg_config *cfg, char *err, size_t errlen)
{
    dmsg_config c;
    memset(&c, 0, sizeof c);
    for (size_t i = 0; i < dmsg_env_count; i++) {
        const dmsg_env_entry *e = &dmsg_env_table[i];
        const char *v = getenv(e->name);
        const char *text = (v && *v) ? v : e->def;
        if (dmsg_env_parse(e->type, text, (char *)&c + e->field, e->size)) {
            snprintf(err, errlen, "%s=\"%s\" is not valid (%s)", e->name, text, e->help);
            return DMSG_ERR_ENV;
        }
    }
    /* Range rules that the types alone do not express. */
    if (c.seg_size < 4096 || c.seg_size > ((uint64_t)1 << 40)) {
        snprintf(err, errlen, "DMSG_SEGMENT_SIZE must be between 4K and 1T");
        return DMSG_ERR_ENV;
    }
    c.seg_size = (c.seg_size + 4095) & ~(uint64_t)4095;
    if (c.max_counters < 1 || c.max_counters > 65536) {
        snprintf(err, errlen, "DMSG_MAX_COUNTERS must be between 1 and 65536");
        return DMSG_ERR_ENV;
    }
    if (c.tile_bytes < 256 || c.tile_bytes > ((uint64_t)64 << 20)) {
        snprintf(err, errlen, "DMSG_TILE_BYTES must be between 256 and 64M");
        return DMSG_ERR_ENV;
    }
    *cfg = c;
    return DMSG_OK;
}

void dmsg_env_print(FILE *f)
{
    /* Columns as wide as their longest entry, so no row runs two together. */
    int wname = 0, wdef = 0;
    for (size_t i = 0; i < dmsg_env_count; i++) {
        int n = (int)strlen(dmsg_env_table[i].name), d = (int)strlen(dmsg_env_table[i].def);
        wname = n > wname ? n : wname;
        wdef = d > wdef ? d : wdef;
    }
    fprintf(f, "dmsg environment settings (read by every PE at dmsg_init):\n\n");
    for (size_t i = 0; i < dmsg_env_count; i++) {
        const dmsg_env_entry *e = &dmsg_env_table[i];
        fprintf(f, "  %-*s  default %-*s  %s\n", wname, e->name, wdef, e->def, e->help);
    }
}
