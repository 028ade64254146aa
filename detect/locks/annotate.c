/* Annotations from include/rtdd/annotate.h. */
#include "locks/locks.h"
#include <string.h>
#include "core/core.h"

static struct rt_lock *known(struct rt_thread *t, uintptr_t addr, uintptr_t pc)
{
    struct rt_lock *l = rt_lock_find(addr);
    return l ? l : rt_lock_lookup(t, addr, RT_LOCK_MUTEX, pc);
}

/* Annotated names, by lock id (ids are never reused): few locks have one,
 * so the record keeps no field for it. Read only to write reports. */
#define NAME_BUCKETS 1024
struct lock_name {
    uint64_t id;
    struct lock_name *next;
    char name[];
};
static struct lock_name *name_buckets[NAME_BUCKETS];
static rt_spin_t names_lock = RT_SPIN_INIT;

static void add_name(uint64_t id, const char *name)
{
    /* Copied: the caller's string may not outlive the lock. */
    size_t n = strlen(name);
    struct lock_name *e = rt_zalloc(sizeof *e + n + 1);
    if (!e)
        return;
    e->id = id;
    memcpy(e->name, name, n);
    struct lock_name **head = &name_buckets[rt_hash64(e->id) % NAME_BUCKETS];
    rt_spin_lock(&names_lock);
    e->next = *head; /* a later name of the same lock comes first */
    *head = e;
    rt_spin_unlock(&names_lock);
}

void rt_annotate_name(struct rt_thread *t, uintptr_t addr, const char *name, uintptr_t pc)
{
    struct rt_lock *l = known(t, addr, pc);
    if (l && name)
        add_name(__atomic_load_n(&l->id, __ATOMIC_RELAXED), name);
}

/* Entries are never freed: a name found stays valid. */
static const char *find_name(uint64_t id)
{
    const char *name = NULL;
    rt_spin_lock(&names_lock);
    for (struct lock_name *e = name_buckets[rt_hash64(id) % NAME_BUCKETS]; e && !name; e = e->next)
        if (e->id == id)
            name = e->name;
    rt_spin_unlock(&names_lock);
    return name;
}

void rt_lock_name_follows(const struct rt_lock *l, uint64_t old_id)
{
    const char *name = find_name(old_id);
    if (name)
        add_name(__atomic_load_n(&l->id, __ATOMIC_RELAXED), name);
}

const char *rt_lock_annotated_name(const struct rt_lock *l)
{
    return find_name(__atomic_load_n(&l->id, __ATOMIC_RELAXED));
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
