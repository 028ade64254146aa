#include "locks/rcu_private_read.h" /* before <rtdd/rcu.h> */
#include "locks/thread.h"
#include "rcu/rcu.h"
#include "core/core.h"
#include <sys/syscall.h>
#include <rtdd/rcu.h>
#include <rtdd/rculist.h>

/* Records come back from the RCU worker: kept by no thread, so the next
 * thread reuses them. */
static struct rt_pool thread_pool = RT_POOL_INIT_SHARED(struct rt_thread);
int rt_thread_slow_acquire;
static rt_spin_t registry_lock = RT_SPIN_INIT; /* writers only: walkers use RCU */
static RCU_LIST_HEAD(registry);

/* Held arrays beyond the inline one, by size class: class c holds
 * RT_HELD_INLINE << (c + 1) entries. */
#define HELD_CLASSES 20
#define HELD_POOL(c) { (size_t)(RT_HELD_INLINE << ((c) + 1)) * sizeof(struct rt_held), NULL, RT_SPIN_INIT, RT_POOL_SHARED }
static struct rt_pool held_pools[HELD_CLASSES] = {
    HELD_POOL(0),  HELD_POOL(1),  HELD_POOL(2),  HELD_POOL(3),  HELD_POOL(4),  HELD_POOL(5),  HELD_POOL(6),
    HELD_POOL(7),  HELD_POOL(8),  HELD_POOL(9),  HELD_POOL(10), HELD_POOL(11), HELD_POOL(12), HELD_POOL(13),
    HELD_POOL(14), HELD_POOL(15), HELD_POOL(16), HELD_POOL(17), HELD_POOL(18), HELD_POOL(19),
};

/* An outgrown held array, kept until the thread's record is reclaimed. */
struct rt_held_retired {
    struct rt_held_retired *next;
    struct rt_held *array;
    unsigned cap;
};
static struct rt_pool retired_pool = RT_POOL_INIT_SHARED(struct rt_held_retired);

static int held_class(unsigned cap)
{
    for (int c = 0; c < HELD_CLASSES; c++)
        if ((unsigned)RT_HELD_INLINE << (c + 1) == cap)
            return c;
    return -1;
}

static void put_held(struct rt_held *array, unsigned cap)
{
    int c = held_class(cap);
    if (c >= 0)
        rt_pool_put(&held_pools[c], array);
}

/* After a grace period: no walker can still be reading the record or its
 * held arrays. */
static void reclaim_thread(struct rcu_head *head)
{
    struct rt_thread *t = rcu_container_of(head, struct rt_thread, reclaim);
    if (t->held != t->held_inline)
        put_held(t->held, t->held_cap);
    for (struct rt_held_retired *r = t->retired, *next; r; r = next) {
        next = r->next;
        put_held(r->array, r->cap);
        rt_pool_put(&retired_pool, r);
    }
    rt_pool_put(&thread_pool, t);
}

struct rt_thread *rt_thread_new(int tid)
{
    struct rt_thread *t = rt_pool_get(&thread_pool);
    if (!t) {
        rt_out_of_memory("thread state");
        return NULL;
    }
    t->tid = tid;
    static _Atomic uint64_t salts;
    t->order_salt = rt_hash64(__atomic_add_fetch(&salts, 1, __ATOMIC_RELAXED));
    /* Threads are known from their first call into the runtime; the main
     * thread was there before anything. */
    t->rcuptr_birth = tid == (int)rt_raw_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0)
                          ? 0
                          : __atomic_load_n(&rt_rcuptr_clock, __ATOMIC_RELAXED);
    __builtin_memset(&t->rcu_hb, 0, sizeof t->rcu_hb); /* a reused record knows nothing */
    t->rcu.cpu_id = rt_cpu_thread_word();
    t->held = t->held_inline;
    t->held_cap = RT_HELD_INLINE;
    t->release_unusual = 0;
    t->hold_timed = rt_opt.hold_threshold_ms != 0 || rt_thread_slow_acquire;
    rt_spin_lock(&registry_lock);
    rcu_list_add(&t->link, &registry); /* publishes the filled record */
    rt_spin_unlock(&registry_lock);
    return t;
}

void rt_thread_free(struct rt_thread *t)
{
    static _Atomic int limits_set;
    /* Reclaiming records never waits for the worker (whatever limits the
     * environment sets for the program's RCU): if it lags or cannot start,
     * records are reused late or never, which is safe. */
    if (!__atomic_exchange_n(&limits_set, 1, __ATOMIC_RELAXED)) {
        rcu_set_callback_hard_limit(0);
        rcu_set_callback_soft_limit(0);
    }
    rt_rcu_thread_gone(t);
    rt_spin_lock(&registry_lock);
    rcu_list_del(&t->link);
    rt_spin_unlock(&registry_lock);
    call_rcu(&t->reclaim, reclaim_thread);
}

void rt_thread_walker_exit(void)
{
    rcu_unregister_thread();
}

void rt_thread_after_fork(struct rt_thread *keep, int new_tid, void (*gone)(struct rt_thread *t, void *arg),
                          void *arg)
{
    /* Other threads may have held the lock when the parent forked; forward
     * links are always whole (they are published last), back links may not. */
    rt_spin_reinit(&registry_lock);
    for (struct rcu_list_head *p = registry.next; p != &registry && gone; p = p->next) {
        struct rt_thread *t = rcu_list_entry(p, struct rt_thread, link);
        if (t != keep)
            gone(t, arg);
    }
    rt_spin_reinit(&thread_pool.lock);
    rt_spin_reinit(&retired_pool.lock);
    for (int c = 0; c < HELD_CLASSES; c++)
        rt_spin_reinit(&held_pools[c].lock);
    rcu_list_init(&registry);
    if (keep) {
        keep->tid = new_tid;
        rcu_list_add(&keep->link, &registry);
    }
}

int rt_thread_grow_held(struct rt_thread *t)
{
    unsigned cap = t->held_cap * 2;
    int c = held_class(cap);
    struct rt_held_retired *r = t->held != t->held_inline ? rt_pool_get(&retired_pool) : NULL;
    struct rt_held *bigger = c >= 0 ? rt_pool_get(&held_pools[c]) : NULL;
    if (!bigger || (t->held != t->held_inline && !r)) {
        if (r)
            rt_pool_put(&retired_pool, r);
        if (bigger)
            rt_pool_put(&held_pools[c], bigger);
        rt_out_of_memory("held-lock stacks");
        return -1;
    }
    for (unsigned i = 0; i < t->nheld; i++)
        bigger[i] = t->held[i];
    struct rt_held *old = t->held;
    __atomic_store_n(&t->held, bigger, __ATOMIC_RELEASE);
    /* Walkers may be reading the old array, and so may this thread itself:
     * a signal handler that grows the array interrupts a push that still
     * fills its slot in the old one. So it is freed only with the record,
     * a grace period after the thread has left the registry. */
    if (r) {
        r->array = old;
        r->cap = t->held_cap;
        r->next = t->retired;
        t->retired = r;
    }
    t->held_cap = cap;
    return 0;
}

void rt_thread_for_each(void (*fn)(struct rt_thread *t, void *arg), void *arg)
{
    struct rt_thread *t;
    rcu_read_lock();
    rcu_list_for_each_entry(t, &registry, link)
        fn(t, arg);
    rcu_read_unlock();
}
