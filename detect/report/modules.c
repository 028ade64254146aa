#include "report/modules.h"
#include "core/core.h"
#include <elf.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

#define MAX_MODULES 1024

struct module_set {
    unsigned count;
    unsigned long long adds, subs;
    struct rt_module mods[MAX_MODULES];
};

static struct module_set *_Atomic current;
static rt_spin_t swap_lock = RT_SPIN_INIT;

static void hexify(const unsigned char *p, unsigned n, char *out)
{
    if (n > 20)
        n = 20;
    for (unsigned i = 0; i < n; i++) {
        out[2 * i] = "0123456789abcdef"[p[i] >> 4];
        out[2 * i + 1] = "0123456789abcdef"[p[i] & 15];
    }
    out[2 * n] = 0;
}

static void read_build_id(struct dl_phdr_info *info, struct rt_module *m)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
        const char *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
            const char *name = p + sizeof *nh;
            const unsigned char *desc = (const unsigned char *)name + ((nh->n_namesz + 3) & ~3u);
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(name, "GNU", 4)) {
                hexify(desc, nh->n_descsz, m->build_id);
                return;
            }
            p = (const char *)desc + ((nh->n_descsz + 3) & ~3u);
        }
    }
}

static int collect(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct module_set *set = arg;
    (void)size;
    if (set->count >= MAX_MODULES)
        return 1;
    struct rt_module *m = &set->mods[set->count];
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t s = info->dlpi_addr + ph->p_vaddr;
        if (s < lo)
            lo = s;
        if (s + ph->p_memsz > hi)
            hi = s + ph->p_memsz;
    }
    if (hi == 0)
        return 0;
    m->base = info->dlpi_addr;
    m->lo = lo;
    m->hi = hi;
    if (info->dlpi_name && info->dlpi_name[0]) {
        strncpy(m->path, info->dlpi_name, sizeof m->path - 1);
    } else if (set->count == 0) {
        ssize_t n = readlink("/proc/self/exe", m->path, sizeof m->path - 1);
        m->path[n > 0 ? n : 0] = 0;
    }
    if (!m->path[0])
        strcpy(m->path, "[unknown]");
    const char *slash = strrchr(m->path, '/');
    strncpy(m->name, slash ? slash + 1 : m->path, sizeof m->name - 1);
    read_build_id(info, m);
    set->adds = info->dlpi_adds;
    set->subs = info->dlpi_subs;
    set->count++;
    return 0;
}

static const struct rt_module *lookup(const struct module_set *set, uintptr_t pc)
{
    for (unsigned i = 0; set && i < set->count; i++)
        if (pc >= set->mods[i].lo && pc < set->mods[i].hi)
            return &set->mods[i];
    return NULL;
}

static int unchanged(struct dl_phdr_info *info, size_t size, void *arg)
{
    const struct module_set *set = arg;
    (void)size;
    return info->dlpi_adds == set->adds && info->dlpi_subs == set->subs ? 1 : 2;
}

int rt_module_find(uintptr_t pc, struct rt_module *out)
{
    struct module_set *set = __atomic_load_n(&current, __ATOMIC_ACQUIRE);
    const struct rt_module *m = lookup(set, pc);
    if (!m && (!set || dl_iterate_phdr(unchanged, set) != 1)) {
        /* Built without holding our lock: dl_iterate_phdr takes the loader's. */
        struct module_set *fresh = rt_zalloc(sizeof *fresh);
        if (!fresh)
            return -1;
        dl_iterate_phdr(collect, fresh);
        rt_spin_lock(&swap_lock);
        __atomic_store_n(&current, fresh, __ATOMIC_RELEASE); /* the old set is leaked: readers may use it */
        rt_spin_unlock(&swap_lock);
        set = fresh;
        m = lookup(set, pc);
    }
    if (!m)
        return -1;
    *out = *m;
    return 0;
}

void rt_modules_after_fork(void)
{
    rt_spin_reinit(&swap_lock);
}
