#include "thread.h"
#include "rcucheck.h"
#include "rt_alloc.h"
#include "rt_common.h"

static struct rt_pool thread_pool = RT_POOL_INIT(struct rt_thread);
static rt_spin_t registry_lock = RT_SPIN_INIT;
static struct rt_thread *registry;

struct rt_thread *rt_thread_new(int tid)
{
    struct rt_thread *t = rt_pool_get(&thread_pool);
    if (!t) {
        rt_out_of_memory("thread state");
        return NULL;
    }
    t->tid = tid;
    t->held = t->held_inline;
    t->held_cap = RT_HELD_INLINE;
    rt_spin_lock(&registry_lock);
    t->next = registry;
    if (registry)
        registry->prev = t;
    registry = t;
    rt_spin_unlock(&registry_lock);
    return t;
}

void rt_thread_free(struct rt_thread *t)
{
    rt_rcu_thread_gone(t);
    rt_spin_lock(&registry_lock);
    if (t->prev)
        t->prev->next = t->next;
    else
        registry = t->next;
    if (t->next)
        t->next->prev = t->prev;
    rt_spin_unlock(&registry_lock);
    rt_pool_put(&thread_pool, t);
}

void rt_thread_after_fork(struct rt_thread *keep, int new_tid, void (*gone)(struct rt_thread *t, void *arg),
                          void *arg)
{
    /* Other threads may have held the lock when the parent forked. */
    rt_spin_reinit(&registry_lock);
    for (struct rt_thread *t = registry; t && gone; t = t->next)
        if (t != keep)
            gone(t, arg);
    rt_spin_reinit(&thread_pool.lock);
    registry = keep;
    if (keep) {
        keep->next = keep->prev = NULL;
        keep->tid = new_tid;
    }
}

int rt_thread_grow_held(struct rt_thread *t)
{
    unsigned cap = t->held_cap * 2;
    struct rt_held *bigger = rt_zalloc(cap * sizeof *bigger);
    if (!bigger) {
        rt_out_of_memory("held-lock stacks");
        return -1;
    }
    for (unsigned i = 0; i < t->nheld; i++)
        bigger[i] = t->held[i];
    /* The old array is not freed: the watchdog may be reading it. */
    __atomic_store_n(&t->held, bigger, __ATOMIC_RELEASE);
    t->held_cap = cap;
    return 0;
}

void rt_thread_for_each(void (*fn)(struct rt_thread *t, void *arg), void *arg)
{
    rt_spin_lock(&registry_lock);
    for (struct rt_thread *t = registry; t; t = t->next)
        fn(t, arg);
    rt_spin_unlock(&registry_lock);
}
