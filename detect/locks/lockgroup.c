#include "locks/lockgroup.h"
#include "core/core.h"

struct rt_lock_group rt_lock_groups[RT_LOCK_GROUPS];
_Static_assert(RT_LOCK_GROUPS < 65536, "rt_lock.group holds 1 + a group index in 16 bits");
static _Atomic unsigned groups_made;
static rt_spin_t make_lock = RT_SPIN_INIT;
#define PROBES 64

/* Open addressing on the site: found without a lock; made (once per init
 * site of the program) under one, fully filled before the site makes the
 * slot visible. Slots are never freed: sites are code addresses, few, and
 * they stay. */
static uint32_t find(uintptr_t site, enum rt_lock_type type, uint64_t h, int *free_slot)
{
    *free_slot = -1;
    for (unsigned probe = 0; probe < PROBES; probe++) {
        unsigned i = (unsigned)(h + probe) & (RT_LOCK_GROUPS - 1);
        const struct rt_lock_group *g = &rt_lock_groups[i];
        uintptr_t s = __atomic_load_n(&g->site, __ATOMIC_ACQUIRE);
        if (s == 0) {
            *free_slot = (int)i;
            return 0;
        }
        if (s == site && g->type == type)
            return i + 1;
    }
    return 0;
}

uint32_t rt_lockgroup_get(uintptr_t site, enum rt_lock_type type)
{
    if (site == 0)
        return 0;
    uint64_t h = rt_hash64(site * 31 + type);
    int free_slot;
    uint32_t g = find(site, type, h, &free_slot);
    if (g || free_slot < 0)
        return g;
    rt_spin_lock(&make_lock);
    g = find(site, type, h, &free_slot);
    if (!g && free_slot >= 0) {
        struct rt_lock_group *grp = &rt_lock_groups[free_slot];
        grp->key = rt_hash64(site * 31 + type + 0x6c6f636b) | 1;
        grp->type = (uint8_t)type;
        __atomic_store_n(&grp->site, site, __ATOMIC_RELEASE);
        __atomic_fetch_add(&groups_made, 1, __ATOMIC_RELAXED);
        g = (uint32_t)free_slot + 1;
    }
    rt_spin_unlock(&make_lock);
    return g;
}

int rt_lockgroup_split(uint32_t g)
{
    if (g == 0 || g > RT_LOCK_GROUPS)
        return 0;
    uint8_t no = 0;
    return __atomic_compare_exchange_n(&rt_lock_groups[g - 1].split, &no, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

unsigned rt_lockgroup_count(void)
{
    return __atomic_load_n(&groups_made, __ATOMIC_RELAXED);
}

void rt_lockgroup_after_fork(void)
{
    rt_spin_reinit(&make_lock);
}
