/* libfabric, loaded when the ofi transport starts, not when a program
 * starts. Debian's libfabric links the psm provider's libinfinipath, whose
 * constructor sleeps about 0.2 s at load time; linked into libdmsg, every
 * dmsgrun and every PE paid that even over shm. Only the six functions of
 * ofi_lib are real exports; the rest of libfabric's API is inline calls through the
 * fid ops tables. Symbols are taken at the versions the headers were built
 * against, so the fi_info layout matches. */
#include <dlfcn.h>
#include <stdio.h>
#include "dmsg/transport/ofi/ofi.h"

ofi_lib dmsg_ofi_fn;

static void *sym(void *h, const char *name, const char *version)
{
    void *p = dlvsym(h, name, version);
    return p ? p : dlsym(h, name);
}

dmsg_status dmsg_ofi_lib_load(const char *name)
{
    if (dmsg_ofi_fn.getinfo)
        return DMSG_OK;
    void *h = dlopen(name, RTLD_NOW | RTLD_GLOBAL);
    if (!h)
        return DMSG_FAIL(DMSG_ERR_UNSUPPORTED, "cannot load libfabric (DMSG_OFI_LIBRARY=%s): %s",
                         name, dlerror());
    ofi_lib l = {
        .getinfo = (ofi_getinfo_fn)sym(h, "fi_getinfo", "FABRIC_1.3"),
        .freeinfo = (ofi_freeinfo_fn)sym(h, "fi_freeinfo", "FABRIC_1.3"),
        .dupinfo = (ofi_dupinfo_fn)sym(h, "fi_dupinfo", "FABRIC_1.3"),
        .fabric = (ofi_fabric_fn)sym(h, "fi_fabric", "FABRIC_1.1"),
        .strerror = (ofi_strerror_fn)sym(h, "fi_strerror", "FABRIC_1.0"),
        .version = (ofi_version_fn)sym(h, "fi_version", "FABRIC_1.0"),
    };
    if (!l.getinfo || !l.freeinfo || !l.dupinfo || !l.fabric || !l.strerror || !l.version) {
        dlclose(h);
        return DMSG_FAIL(DMSG_ERR_UNSUPPORTED,
                         "%s lacks a function dmsg calls (fi_getinfo, fi_freeinfo, fi_dupinfo, "
                         "fi_fabric, fi_strerror, fi_version)",
                         name);
    }
    dmsg_ofi_fn = l; /* kept loaded until the process ends: providers keep threads */
    return DMSG_OK;
}
