/* Annotations from include/rtdd/annotate.h. */
#include "engine.h"
#include <string.h>
#include "rt_alloc.h"

static struct rt_lock *known(struct rt_thread *t, uintptr_t addr, uintptr_t pc)
{
    struct rt_lock *l = rt_locktab_find(addr);
    return l ? l : rt_lock_lookup(t, addr, RT_LOCK_MUTEX, pc);
}

void rt_annotate_name(struct rt_thread *t, uintptr_t addr, const char *name, uintptr_t pc)
{
    struct rt_lock *l = known(t, addr, pc);
    if (!l || !name)
        return;
    /* Copied: the caller's string may not outlive the lock. */
    size_t n = strlen(name);
    char *copy = rt_zalloc(n + 1);
    if (copy) {
        memcpy(copy, name, n);
        l->name = copy;
    }
}

void rt_annotate_no_order(struct rt_thread *t, uintptr_t addr, uintptr_t pc)
{
    struct rt_lock *l = known(t, addr, pc);
    if (l)
        l->no_order = 1;
}

void rt_annotate_nested(struct rt_thread *t, uintptr_t addr, unsigned subclass, uintptr_t pc)
{
    struct rt_lock *l = known(t, addr, pc);
    if (l)
        l->next_subclass = (uint8_t)(subclass < 255 ? subclass : 255);
}
