/* Symmetric static data: the executable's global and static variables.
 *
 * At shmem_init every PE takes a block of the symmetric heap as large as
 * the page range of the main program's writable data and BSS, and the
 * transport copies those pages into it and maps the block's pages over
 * them (dmsg_seg_alias). From then on the variables ARE symmetric heap
 * memory at their own addresses: a local store lands in the segment, and a
 * peer's put to the block lands in the variable. A remote address is the
 * block's address plus the variable's offset in the range (dmsg_shmem_sym).
 *
 * The range: the main program's writable PT_LOAD segment (dl_iterate_phdr,
 * first object; PIE or not), less its RELRO pages, which the loader made
 * read-only after relocation (glibc protects RELRO rounded down to a page,
 * so the page that holds RELRO's end stays writable and is taken). The brk
 * heap starts on a later page. Shared libraries' data is not symmetric, as
 * in every OpenSHMEM. */
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "dmsg/core/alias.h"
#include "dmsg/front/shmem/shmem_impl.h"

dmsg_shmem_static dmsg_shmem_sd;

typedef struct range {
    uintptr_t lo, hi, relro_end;
} range;

static int main_program(struct dl_phdr_info *info, size_t size, void *data)
{
    range *r = data;
    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_GNU_RELRO)
            r->relro_end = a + ph->p_memsz;
        else if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W) && ph->p_memsz &&
                 a + ph->p_memsz > r->hi) {
            r->lo = a;
            r->hi = a + ph->p_memsz;
        }
    }
    return 1; /* the first object is the program itself */
}

void dmsg_shmem_static_init(void)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    range r = {0, 0, 0};
    dl_iterate_phdr(main_program, &r);
    uintptr_t lo = r.lo & ~(page - 1), hi = (r.hi + page - 1) & ~(page - 1);
    if (r.relro_end > lo && r.relro_end <= hi)
        lo = r.relro_end & ~(page - 1);
    /* Every PE runs this collective, the same program giving the same size. */
    size_t len = hi > lo ? (size_t)(hi - lo) : 0;
    void *blk = NULL;
    int st = dmsg_alloc(len ? len + page : 0, &blk);
    if (st)
        dmsg_shmem_die("shmem_init", st, "symmetric heap for static data (DMSG_SEGMENT_SIZE)");
    if (!len)
        return;
    char *al = (char *)(((uintptr_t)blk + page - 1) & ~(page - 1));
    st = dmsg_seg_alias(al, len, (void *)lo);
    if (st)
        dmsg_shmem_die("shmem_init", st, "making static data symmetric");
    dmsg_shmem_sd.lo = (char *)lo;
    dmsg_shmem_sd.hi = (char *)hi;
    dmsg_shmem_sd.alias = al;
    /* No peer may put into our static data before it is in place. */
    st = dmsg_sync();
    if (st)
        dmsg_shmem_die("shmem_init", st, NULL);
}
