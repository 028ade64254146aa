/* The table of ended threads (threadends.h): open addressing by pthread_t,
 * a fixed size. A thread that falls out of it is simply not known to have
 * been joined, which only keeps a cycle reportable (the rule as before). */
#include "hang/threadends.h"
#include "core/core.h"
#include "locks/locks.h"

#define ENDS_SLOTS 4096 /* a power of two */
#define ENDS_PROBE 8
#define JOIN_DEPTH 8

struct thread_end {
    uintptr_t handle; /* 0: free */
    int tid;
    int joined_by; /* 0: not joined (yet) */
};

static struct thread_end ends[ENDS_SLOTS];
static rt_spin_t ends_lock = RT_SPIN_INIT;
static _Atomic unsigned joins_seen;

static unsigned home(uintptr_t handle)
{
    uint64_t h = (uint64_t)handle * 0x9e3779b97f4a7c15ull;
    return (unsigned)(h >> 40) & (ENDS_SLOTS - 1);
}

static struct thread_end *find(uintptr_t handle)
{
    for (unsigned k = 0, i = home(handle); k < ENDS_PROBE; k++, i = (i + 1) & (ENDS_SLOTS - 1))
        if (ends[i].handle == handle)
            return &ends[i];
    return NULL;
}

void rt_thread_ends_start(uintptr_t handle, int tid)
{
    if (!handle)
        return;
    rt_spin_lock(&ends_lock);
    (void)tid; /* a tid handed out again is caught where it is asked about */
    struct thread_end *e = find(handle);
    if (e)
        e->handle = 0;
    rt_spin_unlock(&ends_lock);
}

void rt_thread_ends_exit(uintptr_t handle, int tid)
{
    if (!handle)
        return;
    rt_spin_lock(&ends_lock);
    struct thread_end *e = find(handle);
    for (unsigned k = 0, i = home(handle); !e && k < ENDS_PROBE; k++, i = (i + 1) & (ENDS_SLOTS - 1))
        if (!ends[i].handle)
            e = &ends[i];
    if (!e)
        e = &ends[home(handle)]; /* full: the oldest knowledge goes */
    *e = (struct thread_end){ handle, tid, 0 };
    rt_spin_unlock(&ends_lock);
}

void rt_thread_ends_joined(uintptr_t handle, int joiner)
{
    rt_spin_lock(&ends_lock);
    struct thread_end *e = find(handle);
    if (e && !e->joined_by) {
        e->joined_by = joiner;
        __atomic_fetch_add(&joins_seen, 1, __ATOMIC_RELAXED);
    }
    rt_spin_unlock(&ends_lock);
}

int rt_thread_ends_any_joined(void)
{
    return __atomic_load_n(&joins_seen, __ATOMIC_RELAXED) != 0;
}

/* Who joined tid (0: nobody, or not known). ends_lock held. */
static int joiner_of(int tid)
{
    for (unsigned i = 0; i < ENDS_SLOTS; i++)
        if (ends[i].handle && ends[i].tid == tid)
            return ends[i].joined_by;
    return 0;
}

static void find_live(struct rt_thread *t, void *arg)
{
    int *tid = arg;
    if (t->tid == *tid)
        *tid = 0;
}

/* A thread of that tid runs now (the kernel gave the tid out again). */
static int alive(int tid)
{
    rt_thread_for_each(find_live, &tid);
    return tid == 0;
}

int rt_thread_ended_before(int tid, int observer)
{
    if (!rt_thread_ends_any_joined() || tid == observer || alive(tid))
        return 0;
    int found = 0;
    rt_spin_lock(&ends_lock);
    for (unsigned depth = 0; depth < JOIN_DEPTH; depth++) {
        int j = joiner_of(tid);
        if (!j || j == tid)
            break;
        if (j == observer) {
            found = 1;
            break;
        }
        tid = j; /* j ended too, and whoever joined it knows what j knew */
    }
    rt_spin_unlock(&ends_lock);
    return found;
}

void rt_thread_ends_after_fork(void)
{
    rt_spin_reinit(&ends_lock);
}
