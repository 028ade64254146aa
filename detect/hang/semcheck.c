/* sem-misuse (semcheck.h). A semaphore's record lives from sem_init (or
 * sem_open) to sem_destroy (or its last sem_close): a call that finds no
 * record uses one never initialized, or one destroyed (misuse.c remembers
 * where). glibc's semaphore calls accept any memory, so the program gets
 * no error for either: the record is made at that first use, and the
 * misuse reported once.
 *
 * Each record counts its waiters and, of them, those no post has released
 * (cond_waiters, as condition variables do, cond.c): POSIX allows
 * destroying a semaphore once no thread is blocked on it, so a waiter a
 * post has released (it has yet to return) does not count. */
#include "hang/semcheck.h"
#include "hang/hang.h"
#include "locks/locks.h"
#include "report/report.h"

#define WAITER 1u
#define BLOCKED (1u << 16)
#define COUNT_MAX 0xffffu

static unsigned waiters_of(uint32_t v) { return v & COUNT_MAX; }
static unsigned blocked_of(uint32_t v) { return v >> 16; }

unsigned rt_sem_blocked(const struct rt_lock *sem)
{
    return blocked_of(__atomic_load_n(&sem->cond_waiters, __ATOMIC_ACQUIRE));
}

/* One waiter fewer; one not woken was among the blocked. At most as many
 * blocked as remain waiting. */
static uint32_t leave(uint32_t v, int woken)
{
    unsigned w = waiters_of(v), b = blocked_of(v);
    if (!w)
        return v;
    w--;
    if (!woken && b)
        b--;
    if (b > w)
        b = w;
    return w | b << 16;
}

static uint32_t release_one(uint32_t v, int unused)
{
    (void)unused;
    return blocked_of(v) ? v - BLOCKED : v;
}

static void update(struct rt_lock *s, uint32_t (*fn)(uint32_t, int), int arg)
{
    uint32_t v = __atomic_load_n(&s->cond_waiters, __ATOMIC_RELAXED), n;
    do
        n = fn(v, arg);
    while (n != v && !__atomic_compare_exchange_n(&s->cond_waiters, &v, n, 1, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
}

/* The record at addr, if it is a semaphore's. */
static struct rt_lock *sem_record(uintptr_t addr)
{
    struct rt_lock *l = rt_locktab_find(addr);
    return l && l->type == RT_LOCK_SEM ? l : NULL;
}

/* No record at addr: why, as the report says it. */
static void report_unknown(struct rt_thread *t, uintptr_t addr, enum rt_sem_word word, const char *call)
{
    char comm[32], desc[512];
    rt_stack_id where = 0;
    int by = 0;
    int destroyed = rt_destroyed_at(addr, &where, &by);
    struct rt_report *r = rt_report_begin_plain(RT_KIND_SEM_MISUSE, t->tid, comm, sizeof comm);
    if (!r)
        return;
    rt_lock_name(NULL, addr, desc, sizeof desc);
    if (destroyed) {
        char who[32];
        rt_report_stack(r, rt_stack_here(), "%s/%d calls %s() on semaphore %s, which was destroyed (or, named, closed) and "
                        "not initialized again, at:", comm, t->tid, call, desc);
        rt_thread_comm(by, who, sizeof who);
        if (where)
            rt_report_stack(r, where, "it was destroyed by %s/%d at:", who, by);
    } else {
        rt_report_stack(r, rt_stack_here(), "%s/%d calls %s() on semaphore %s, which was never initialized, at:", comm,
                        t->tid, call, desc);
    }
    if (word == RT_SEM_BAD)
        rt_report_text(r, "Its bytes are not a semaphore's either (glibc's count or sharing word holds a value no "
                          "semaphore has): the memory was overwritten, or is not a semaphore.");
    rt_report_text(r, "POSIX leaves every call but sem_init undefined on such an object; glibc does not check, so "
                      "the call goes on with whatever count the memory holds.");
    rt_report_held_locks(r, t, comm);
    rt_report_finish(r);
}

/* A live record whose object's bytes no longer are a semaphore's. */
static void report_overwritten(struct rt_thread *t, struct rt_lock *l, uintptr_t addr, const char *call)
{
    char comm[32], desc[512];
    struct rt_report *r = rt_report_begin_plain(RT_KIND_SEM_MISUSE, t->tid, comm, sizeof comm);
    if (!r)
        return;
    rt_lock_describe(l, addr, desc, sizeof desc);
    rt_report_stack(r, rt_stack_here(), "%s/%d calls %s() on semaphore %s, at:", comm, t->tid, call, desc);
    rt_report_text(r, "but its bytes are not a semaphore's any more (glibc's count or sharing word holds a value no "
                      "semaphore has): the memory was overwritten since it was initialized. The call works on "
                      "garbage: a wait may return without any post, a post may fail.");
    rt_report_held_locks(r, t, comm);
    rt_report_finish(r);
}

struct rt_lock *rt_on_sem_use(struct rt_thread *t, uintptr_t addr, enum rt_sem_word word, const char *call,
                              uintptr_t pc)
{
    struct rt_lock *l = sem_record(addr);
    if (l) {
        if (word == RT_SEM_BAD && !(l->traits & RT_TRAIT_NAMED))
            report_overwritten(t, l, addr, call);
        return rt_lock_lookup(t, addr, RT_LOCK_SEM, pc); /* caches it */
    }
    /* Set up by another process (process-shared memory, a named one
     * opened elsewhere), or a record of another kind there: not judged. */
    if (word != RT_SEM_SHARED && !rt_locktab_find(addr))
        report_unknown(t, addr, word, call);
    return rt_lock_lookup(t, addr, RT_LOCK_SEM, pc);
}

void rt_on_sem_init(struct rt_thread *t, uintptr_t addr, unsigned value, unsigned max, uintptr_t pc)
{
    char comm[32], desc[512];
    struct rt_lock *l = sem_record(addr);
    unsigned blocked = l ? rt_sem_blocked(l) : 0;
    (void)pc;
    if (value <= max && !blocked)
        return;
    struct rt_report *r = rt_report_begin_plain(RT_KIND_SEM_MISUSE, t->tid, comm, sizeof comm);
    if (!r)
        return;
    if (l)
        rt_lock_describe(l, addr, desc, sizeof desc);
    else
        rt_lock_name(NULL, addr, desc, sizeof desc);
    if (value > max) {
        rt_report_stack(r, rt_stack_here(), "%s/%d initializes semaphore %s with the count %u, at:", comm, t->tid, desc,
                        value);
        rt_report_text(r, "which is past SEM_VALUE_MAX (%u): sem_init fails with EINVAL and the semaphore is not "
                          "initialized; every later call on it uses an uninitialized semaphore.",
                       max);
    } else {
        rt_report_stack(r, rt_stack_here(), "%s/%d initializes semaphore %s again, at:", comm, t->tid, desc);
        rt_report_text(r, "while %u thread%s %s blocked on it, not released by any post: POSIX leaves this "
                          "undefined, and the blocked threads now wait on a fresh count.",
                       blocked, blocked == 1 ? "" : "s", blocked == 1 ? "is" : "are");
    }
    rt_report_held_locks(r, t, comm);
    rt_report_finish(r);
}

void rt_on_sem_destroy(struct rt_thread *t, uintptr_t addr, enum rt_sem_word word, uintptr_t pc)
{
    char comm[32], desc[512];
    struct rt_lock *l = sem_record(addr);
    if (!l) {
        if (word != RT_SEM_SHARED && !rt_locktab_find(addr))
            report_unknown(t, addr, word, "sem_destroy");
        rt_on_lock_destroy(t, addr, pc);
        return;
    }
    unsigned blocked = rt_sem_blocked(l);
    int named = (l->traits & RT_TRAIT_NAMED) != 0;
    if (blocked || named) {
        struct rt_report *r = rt_report_begin_plain(RT_KIND_SEM_MISUSE, t->tid, comm, sizeof comm);
        if (r) {
            rt_lock_describe(l, addr, desc, sizeof desc);
            rt_report_stack(r, rt_stack_here(), "%s/%d destroys semaphore %s, at:", comm, t->tid, desc);
            if (blocked)
                rt_report_text(r, "while %u thread%s %s blocked on it in sem_wait, not released by any post. POSIX "
                                  "leaves this undefined: glibc's sem_destroy does nothing, and the blocked thread%s "
                                  "sleep%s on in a semaphore that no longer exists (and in whatever reuses its memory).",
                               blocked, blocked == 1 ? "" : "s", blocked == 1 ? "is" : "are", blocked == 1 ? "" : "s",
                               blocked == 1 ? "s" : "");
            else
                rt_report_text(r, "but it is a named semaphore, from sem_open: sem_destroy is undefined on it (only "
                                  "sem_close ends its use, sem_unlink removes its name).");
            rt_report_held_locks(r, t, comm);
            rt_report_finish(r);
        }
    }
    if (!named)
        rt_on_lock_destroy(t, addr, pc);
}

void rt_on_sem_overflow(struct rt_thread *t, uintptr_t addr, unsigned max, uintptr_t pc)
{
    char comm[32], desc[512];
    struct rt_report *r = rt_report_begin_plain(RT_KIND_SEM_MISUSE, t->tid, comm, sizeof comm);
    (void)pc;
    if (!r)
        return;
    rt_lock_describe(sem_record(addr), addr, desc, sizeof desc);
    rt_report_stack(r, rt_stack_here(), "%s/%d posts semaphore %s, at:", comm, t->tid, desc);
    rt_report_text(r, "but its count is already SEM_VALUE_MAX (%u): sem_post fails with EOVERFLOW and the post is "
                      "lost. More posts than waits: a semaphore used as a lock released once too often, or a "
                      "counter that nobody consumes.",
                   max);
    rt_report_held_locks(r, t, comm);
    rt_report_finish(r);
}

/* A named semaphore: sem_open of a name already open in the process
 * returns the same address, and only the last sem_close unmaps it. */
void rt_on_sem_open(struct rt_thread *t, uintptr_t addr, uintptr_t pc)
{
    struct rt_lock *l = sem_record(addr);
    if (!l || !(l->traits & RT_TRAIT_NAMED)) {
        rt_on_lock_init(t, addr, RT_LOCK_SEM, pc);
        l = sem_record(addr);
        if (!l)
            return;
        l->traits |= RT_TRAIT_NAMED | RT_TRAIT_PSHARED; /* other processes may post it */
        __atomic_store_n(&l->sem_opens, 0, __ATOMIC_RELAXED);
    }
    __atomic_fetch_add(&l->sem_opens, 1, __ATOMIC_RELAXED);
}

void rt_on_sem_close(struct rt_thread *t, uintptr_t addr, uintptr_t pc)
{
    struct rt_lock *l = sem_record(addr);
    if (!l || !(l->traits & RT_TRAIT_NAMED))
        return; /* glibc fails it with EINVAL: not a named semaphore of this process */
    if (__atomic_sub_fetch(&l->sem_opens, 1, __ATOMIC_RELAXED) == 0)
        rt_on_lock_destroy(t, addr, pc);
}

void rt_on_sem_wait_begin(struct rt_thread *t, struct rt_lock *sem, int timed, int shared, uintptr_t pc)
{
    uint32_t before = __atomic_load_n(&sem->cond_waiters, __ATOMIC_RELAXED);
    t->cond_counted = waiters_of(before) < COUNT_MAX; /* else not counted: never wraps */
    if (t->cond_counted)
        __atomic_fetch_add(&sem->cond_waiters, WAITER | BLOCKED, __ATOMIC_ACQ_REL);
    rt_on_event_wait_begin(t, sem, 0, timed, shared, pc);
}

void rt_on_sem_wait_end(struct rt_thread *t, int woken)
{
    struct rt_lock *sem = __atomic_load_n(&t->event_waiting, __ATOMIC_RELAXED);
    uint64_t id = t->event_waiting_id;
    rt_on_event_wait_end(t);
    /* Counted in the record it began on, not in one made there since. */
    if (sem && t->cond_counted && __atomic_load_n(&sem->id, __ATOMIC_RELAXED) == id)
        update(sem, leave, woken);
    t->cond_counted = 0;
}

void rt_on_sem_post(struct rt_thread *t, struct rt_lock *sem, uintptr_t pc)
{
    uintptr_t addr = __atomic_load_n(&sem->addr, __ATOMIC_RELAXED);
    if (rt_sem_blocked(sem))
        update(sem, release_one, 0);
    rt_on_event_signal(t, addr, RT_LOCK_SEM, pc);
}
