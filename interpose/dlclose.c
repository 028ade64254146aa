/* dlclose ends the life of the library's memory: locks in its data and
 * bss are forgotten (a library loaded again at the same address has new
 * locks), and one held across the dlclose is an active lock freed. */
#include "interpose.h"
#include "core/core.h"
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <string.h>

#define MAX_SEGMENTS 16
struct library {
    uintptr_t base;
    const char *name;
    unsigned nsegments;
    struct { uintptr_t lo, hi; } segment[MAX_SEGMENTS];
    int found;
};

/* The writable PT_LOAD segments of the module loaded at base (locks live
 * in data and bss), and whether that module is loaded at all. */
static int find_library(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct library *lib = arg;
    (void)size;
    if (info->dlpi_addr != lib->base || !info->dlpi_name || strcmp(info->dlpi_name, lib->name) != 0)
        return 0;
    lib->found = 1;
    lib->nsegments = 0;
    for (unsigned i = 0; i < info->dlpi_phnum && lib->nsegments < MAX_SEGMENTS; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W) || ph->p_memsz == 0)
            continue;
        lib->segment[lib->nsegments].lo = info->dlpi_addr + ph->p_vaddr;
        lib->segment[lib->nsegments].hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
        lib->nsegments++;
    }
    return 1;
}

static __thread int closing __attribute__((tls_model("initial-exec")));

RTI_EXPORT int dlclose(void *handle)
{
    if (unlikely(!rti_resolved()) || !rti_real.dlclose)
        return -1;
    struct link_map *lm = NULL;
    struct library lib = { 0 };
    struct rt_unmap_held held_before;
    char name[512];
    /* A dlclose from a destructor run by dlclose: the outer call sees
     * whatever goes away with it. */
    struct rt_thread *t = closing ? NULL : rti_enter();
    if (t) {
        if (dlinfo(handle, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && lm->l_name[0]) {
            size_t n = strlen(lm->l_name);
            if (n < sizeof name) {
                memcpy(name, lm->l_name, n + 1);
                lib.base = lm->l_addr;
                lib.name = name;
                dl_iterate_phdr(find_library, &lib);
            }
        }
        if (lib.found && lib.nsegments) {
            uintptr_t lo = lib.segment[0].lo, hi = lib.segment[0].hi;
            for (unsigned i = 1; i < lib.nsegments; i++) {
                lo = lib.segment[i].lo < lo ? lib.segment[i].lo : lo;
                hi = lib.segment[i].hi > hi ? lib.segment[i].hi : hi;
            }
            rt_unmap_held_take(&held_before, lo, hi);
        }
        rti_leave();
    }
    closing++;
    int r = rti_real.dlclose(handle);
    closing--;
    if (r == 0 && lib.found && lib.nsegments && (t = rti_enter()) != NULL) {
        int saved = errno;
        struct library after = { .base = lib.base, .name = name };
        dl_iterate_phdr(find_library, &after);
        if (!after.found) { /* unloaded, not just one reference fewer */
            char what[600];
            struct rt_buf b;
            rt_buf_init(&b, what, sizeof what);
            rt_buf_printf(&b, "the data of %s, unloaded by dlclose()", name);
            for (unsigned i = 0; i < lib.nsegments; i++)
                rt_on_unmapped(t, lib.segment[i].lo, lib.segment[i].hi - lib.segment[i].lo, what, RTI_CALLER(),
                               &held_before);
        }
        errno = saved;
        rti_leave();
    }
    return r;
}
