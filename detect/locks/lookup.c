/* The lock-record lookup: an address to its record, in one place. Records
 * live in the lock table (locktab.c); a mutex initialized without one
 * lives in the lazy table (lazylock.c) until something needs its record,
 * which is then made here from what the lazy entry kept; the line filter
 * (rt_line_filter, core/linefilter.h) says cheaply that a line has
 * neither. In front of this: each thread's cache (locks.h, rt_lock_lookup). */
#include "locks/lookup.h"
#include "locks/locks.h"
#include "core/core.h"
#include "report/report.h"

uint8_t (*rt_lock_object_traits)(uintptr_t addr, enum rt_lock_type type);

/* What the live object at addr says of itself (robust, process-shared). */
uint8_t rt_lock_traits_read(uintptr_t addr, enum rt_lock_type type)
{
    uint8_t (*traits)(uintptr_t, enum rt_lock_type) = __atomic_load_n(&rt_lock_object_traits, __ATOMIC_ACQUIRE);
    return traits ? traits(addr, type) : 0;
}

/* A fresh record for a mutex that was lazy (lazylock.h) until now: what
 * rt_on_lock_init would have written. */
static void fill_lazy(struct rt_lock *l, const struct rt_lazy_init *init)
{
    l->type = RT_LOCK_MUTEX;
    l->traits = 0; /* a robust or process-shared mutex is never lazy (rt_on_lock_init) */
    l->statically_initialized = 0;
    l->init_stack = init->stack;
    l->init_tid = init->tid;
    l->class_key = init->pc;
    l->history_known = 1;
    if (rt_opt.lock_classes == RT_CLASSES_AUTO && rt_opt.detect_deadlocks)
        l->group = rt_lockgroup_get(init->pc, RT_LOCK_MUTEX);
}

struct rt_lock *rt_lock_record_lazy(uintptr_t addr, const struct rt_lazy_init *init)
{
    int created;
    struct rt_lock *l = rt_locktab_get(addr, RT_LOCK_MUTEX, &created);
    if (l && created)
        fill_lazy(l, init);
    return l;
}

/* A record just made at addr: if addr was a lazy mutex, its lazy life is
 * taken and the record is filled from it. */
static int fill_if_lazy(struct rt_lock *l, uintptr_t addr)
{
    struct rt_lazy_init init;
    if (!rt_lazylock_take(addr, &init))
        return 0;
    fill_lazy(l, &init);
    return 1;
}

struct rt_lock *rt_lock_find(uintptr_t addr)
{
    struct rt_lock *l = rt_locktab_find(addr);
    if (l || !rt_lazylock_test(addr))
        return l;
    int created;
    l = rt_locktab_get(addr, RT_LOCK_MUTEX, &created);
    if (!l || !created || fill_if_lazy(l, addr))
        return l;
    /* Its life ended meanwhile (destroyed or freed unlocked): no lock. */
    rt_locktab_retire(l);
    return rt_locktab_find(addr);
}

struct rt_lock *rt_lock_lookup_slow(struct rt_thread *t, uintptr_t addr, enum rt_lock_type type, uintptr_t pc)
{
    unsigned slot = (unsigned)(addr >> 3) & (RT_LOCK_CACHE - 1);
    int created;
    struct rt_lock *l = rt_locktab_get(addr, type, &created);
    if (!l)
        return NULL;
    if (created && !fill_if_lazy(l, addr)) {
        /* Never initialized through us: statically initialized (or set up
         * before the runtime was ready); its first use stands for its init. */
        l->statically_initialized = 1;
        l->traits = rt_lock_traits_read(addr, type);
        l->init_stack = rt_site_stack(t, pc);
        l->init_tid = t->tid;
        if (!rt_lock_type_is_event(type))
            l->class_key = pc;
        l->history_known = 1;
    }
    rt_lock_cache_fill(t, slot, l);
    return l;
}

/* A lazy mutex's init: no record, a bit in its line's entry. 0 when it
 * needs a record (one is there already, or the line cannot hold it). */
int rt_lock_lazy_init(struct rt_thread *t, uintptr_t addr, uintptr_t pc)
{
    if ((rt_filter_test(rt_line_filter, addr >> RT_LINE_SHIFT) & RT_FILTER_RECORDS) && rt_locktab_find(addr))
        return 0;
    if (t->lazy_site_pc != pc) {
        uint32_t site = rt_lazylock_site(pc, rt_site_stack(t, pc));
        if (!site)
            return 0;
        t->lazy_site_pc = pc;
        t->lazy_site = site;
    }
    /* The filter first: a free() that finds it clear has no lock to check. */
    rt_filter_mark(rt_line_filter, addr, RT_FILTER_LAZY);
    rt_free_checks_add(RT_FREE_LOCKS);
    return rt_lazylock_add(addr, t->lazy_site, t->tid);
}
