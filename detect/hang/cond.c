/* Condition variables: the wait's hidden unlock and relock of the mutex,
 * and cond-misuse (waiting without holding the mutex, one condvar waited
 * on with two mutexes at once, or destroyed while a thread is blocked on
 * it).
 *
 * POSIX lets a condvar be destroyed once no thread is blocked on it: a
 * waiter released by a signal or broadcast, which has yet to re-take its
 * mutex and return, is not blocked (compiler-rt's cond_destruction). So
 * each record counts its waiters and, of them, those not yet released: a
 * signal releases one, a broadcast all that are counted then. */
#include "hang/hang.h"
#include "locks/locks.h"
#include "report/report.h"

static const struct rt_held *held_entry(const struct rt_thread *t, uintptr_t addr, unsigned *index)
{
    for (unsigned i = t->nheld; i-- > 0;)
        if (t->held[i].addr == addr) {
            *index = i;
            return &t->held[i];
        }
    return NULL;
}

static void report_cond_misuse(struct rt_thread *t, struct rt_lock *cond, uintptr_t mutex, const char *what,
                               uintptr_t other_addr)
{
    char comm[32], cdesc[512], mdesc[512], odesc[512];
    rt_thread_comm(t->tid, comm, sizeof comm);
    rt_lock_describe(cond, cond ? cond->addr : 0, cdesc, sizeof cdesc);
    rt_lock_describe(rt_lock_find(mutex), mutex, mdesc, sizeof mdesc);
    struct rt_report *r = rt_report_begin(RT_KIND_COND_MISUSE, t->tid);
    if (!r)
        return;
    rt_report_headline(r, "WARNING: condition variable misuse");
    rt_report_stack(r, rt_stack_capture((unsigned)rt_opt.stack_depth), "%s/%d waits on condition variable %s at:",
                    comm, t->tid, cdesc);
    rt_report_text(r, "with mutex %s,", mdesc);
    if (other_addr) {
        rt_lock_describe(rt_lock_find(other_addr), other_addr, odesc, sizeof odesc);
        rt_report_text(r, "%s: %s.", what, odesc);
        rt_report_text(r, "A condition variable must be used with one mutex at a time: a signal may wake a waiter "
                          "whose predicate is protected by the other mutex, and be lost.");
    } else {
        rt_report_text(r, "%s.", what);
    }
    rt_report_held_locks(r, t, comm);
    rt_report_finish(r);
}

/* cond_waiters: waiters in the low half, of them not released in the high. */
#define WAITER 1u
#define BLOCKED (1u << 16)
#define COUNT_MAX 0xffffu

static unsigned waiters_of(uint32_t v) { return v & COUNT_MAX; }
static unsigned blocked_of(uint32_t v) { return v >> 16; }

unsigned rt_cond_blocked(const struct rt_lock *c)
{
    return blocked_of(__atomic_load_n(&c->cond_waiters, __ATOMIC_ACQUIRE));
}

/* Applies fn to the counters; returns the new value. */
static uint32_t update(struct rt_lock *c, uint32_t (*fn)(uint32_t, int), int arg)
{
    uint32_t v = __atomic_load_n(&c->cond_waiters, __ATOMIC_RELAXED), n;
    do
        n = fn(v, arg);
    while (n != v && !__atomic_compare_exchange_n(&c->cond_waiters, &v, n, 1, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
    return n;
}

static uint32_t release(uint32_t v, int all)
{
    unsigned b = blocked_of(v);
    return (v & COUNT_MAX) | (all || !b ? 0 : b - 1) << 16;
}

/* A waiter returns: one that timed out (or was cancelled) was among the
 * blocked; one woken was released, unless none was left to be (a wakeup
 * no signal accounts for): at most as many blocked as remain waiting. */
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

void rt_on_cond_released(struct rt_thread *t, uintptr_t cond, int all)
{
    struct rt_lock *c = rt_lock_cached(t, cond); /* looked up for the signal just before */
    if (!c)
        c = rt_locktab_find(cond); /* a condvar: never lazy */
    if (c && rt_lock_type_cond(c->type) && rt_cond_blocked(c))
        update(c, release, all);
}

void rt_report_cond_destroy_busy(struct rt_thread *t, struct rt_lock *c, uintptr_t pc)
{
    char comm[32], desc[512];
    (void)pc;
    rt_thread_comm(t->tid, comm, sizeof comm);
    rt_lock_describe(c, c->addr, desc, sizeof desc);
    struct rt_report *r = rt_report_begin(RT_KIND_COND_MISUSE, t->tid);
    if (!r)
        return;
    unsigned blocked = rt_cond_blocked(c);
    rt_report_headline(r, "WARNING: condition variable misuse");
    rt_report_stack(r, rt_stack_capture((unsigned)rt_opt.stack_depth),
                    "%s/%d destroys condition variable %s at:", comm, t->tid, desc);
    rt_report_text(r, "while %u thread%s %s blocked on it, not released by any signal or broadcast. POSIX leaves "
                      "this undefined; glibc's pthread_cond_destroy waits until every waiter has been woken, so the "
                      "destroying thread hangs if nobody signals.",
                   blocked, blocked == 1 ? "" : "s", blocked == 1 ? "is" : "are");
    rt_report_held_locks(r, t, comm);
    rt_report_finish(r);
}

int rt_on_cond_destroy_begin(struct rt_thread *t, uintptr_t cond, int shared, uintptr_t pc)
{
    struct rt_lock *c = rt_locktab_find(cond); /* a condvar: never lazy */
    if (!c || !rt_lock_type_cond(c->type) || !rt_cond_blocked(c)) {
        rt_on_lock_destroy(t, cond, pc);
        return 0;
    }
    rt_report_cond_destroy_busy(t, c, pc);
    /* The record lives until the destroy returns: its waiters leave it. */
    t->wait_stack = rt_site_stack(t, pc);
    t->wait_mode = RT_HOLD_WRITE;
    t->wait_timed = 0;
    t->event_waiting_id = __atomic_load_n(&c->id, __ATOMIC_RELAXED);
    t->event_shared = (uint8_t)(shared != 0);
    t->event_destroy = 1;
    rt_wait_seq_next(&t->wait_seq);
    __atomic_store_n(&t->event_waiting, c, __ATOMIC_RELEASE);
    rt_watchdog_ensure();
    return 1;
}

void rt_on_cond_destroy_end(struct rt_thread *t, uintptr_t cond, uintptr_t pc)
{
    uint64_t id = t->event_waiting_id;
    __atomic_store_n(&t->event_waiting, NULL, __ATOMIC_RELEASE);
    t->event_destroy = 0;
    rt_remember_destroy(t, cond, pc);
    struct rt_lock *c = rt_locktab_find(cond);
    if (c && __atomic_load_n(&c->id, __ATOMIC_RELAXED) == id)
        rt_lock_retire(c, 0);
}

void rt_on_cond_wait_begin(struct rt_thread *t, uintptr_t cond, uintptr_t mutex, int owned_elsewhere, int timed,
                           int shared, uintptr_t pc)
{
    rt_held_name(t);
    t->cond_counted = 0;
    struct rt_lock *c = rt_lock_lookup(t, cond, RT_LOCK_COND, pc);
    unsigned index;
    const struct rt_held *h = held_entry(t, mutex, &index);
    /* The held stack answers, whether the mutex was ever seen or not. */
    t->cond_retake = 2;
    if (!h && !t->untracked && !owned_elsewhere) {
        char why[384];
        struct rt_lock *m;
        if (rt_lock_invalid(mutex, RT_LOCK_MUTEX, why, sizeof why)) {
            /* Not a mutex at all: say so, and keep it out of the model. */
            rt_report_invalid_lock(t, mutex, RT_LOCK_MUTEX, "a condition wait", why);
            t->cond_retake = 0;
        } else {
            report_cond_misuse(t, c, mutex, "but the thread does not hold that mutex", 0);
            /* libc takes it when the wait ends, unless another thread holds
             * it: then the model would hold one mutex twice. */
            t->cond_retake = (m = rt_lock_find(mutex)) != NULL && rt_lock_is_held(m) ? 0 : 1;
        }
    }
    if (c && h) {
        rt_cond_note_waiter(t, c, h, pc);
        /* The first waiter names the mutex; a waiter that finds none named
         * yet (the first is between its count and its store) names it. */
        uintptr_t expected = 0;
        uint32_t before = __atomic_load_n(&c->cond_waiters, __ATOMIC_RELAXED);
        t->cond_counted = waiters_of(before) < COUNT_MAX; /* else not counted: never wraps */
        if (t->cond_counted &&
            waiters_of(__atomic_fetch_add(&c->cond_waiters, WAITER | BLOCKED, __ATOMIC_ACQ_REL)) == 0)
            __atomic_store_n(&c->cond_mutex_addr, mutex, __ATOMIC_RELEASE);
        else if (!__atomic_compare_exchange_n(&c->cond_mutex_addr, &expected, mutex, 0, __ATOMIC_ACQ_REL,
                                              __ATOMIC_ACQUIRE) &&
                 expected != mutex)
            report_cond_misuse(t, c, mutex, "while other threads wait on it with a different mutex", expected);
    }
    if (c)
        rt_on_event_wait_begin(t, c, mutex, timed, shared, pc);
    /* The wait releases the mutex inside libc. */
    if (h)
        rt_on_lock_release(t, mutex, pc);
}

void rt_on_cond_wait_end(struct rt_thread *t, uintptr_t cond, uintptr_t mutex, int how, uintptr_t pc)
{
    int woken = how == RT_WAIT_WOKEN, retake = t->cond_retake == 2 || (t->cond_retake && how != RT_WAIT_FAILED);
    t->cond_retake = 0;
    rt_on_event_wait_end(t);
    /* Counted in the record it began on (a condvar: never lazy), not in
     * one made at the same address since. */
    struct rt_lock *c = t->cond_counted ? rt_locktab_find(cond) : NULL;
    t->cond_counted = 0;
    if (c && __atomic_load_n(&c->id, __ATOMIC_RELAXED) == t->event_waiting_id &&
        waiters_of(update(c, leave, woken)) == 0)
        __atomic_store_n(&c->cond_mutex_addr, 0, __ATOMIC_RELEASE);
    /* ...and takes it again: the same checks as a lock call, though the
     * thread can no longer be stopped before it blocks. */
    struct rt_lock *m = retake ? rt_lock_lookup(t, mutex, RT_LOCK_MUTEX, pc) : NULL;
    if (!m)
        return;
    uint64_t chain = rt_on_lock_pre(t, m, 0, pc);
    rt_on_lock_acquired(t, m, 0, chain, pc);
}
