/* invalid-lock (invalid.h): judging and naming objects that are not locks.
 * Runs only where a lock is first seen or misused, never on a fast path. */
#include "locks/invalid.h"
#include "locks/locks.h"
#include "locks/lazylock.h"
#include "locks/lockdesc.h"
#include "report/report.h"
#include "core/core.h"
#include <pthread.h>
#include <semaphore.h>

enum family { F_NONE, F_MUTEX, F_RWLOCK, F_COND, F_SEM, F_SPIN };

static enum family family_of(unsigned type)
{
    switch (type) {
    case RT_LOCK_MUTEX:
    case RT_LOCK_MUTEX_RECURSIVE:
    case RT_LOCK_MUTEX_ERRORCHECK: return F_MUTEX;
    case RT_LOCK_RWLOCK: return F_RWLOCK;
    case RT_LOCK_COND: return F_COND;
    case RT_LOCK_SEM: return F_SEM;
    case RT_LOCK_SPIN: return F_SPIN;
    default: return F_NONE; /* annotated and GLib locks may share an address with a pthread object */
    }
}

static size_t align_of(enum family f)
{
    switch (f) {
    case F_MUTEX: return _Alignof(pthread_mutex_t);
    case F_RWLOCK: return _Alignof(pthread_rwlock_t);
    case F_COND: return _Alignof(pthread_cond_t);
    default: return 1;
    }
}

static void say_object(struct rt_buf *b, const struct rt_lock *l, uintptr_t addr)
{
    char desc[512];
    rt_lock_describe(l, addr, desc, sizeof desc);
    rt_buf_printf(b, "%s", desc);
}

int rt_lock_inside_another(uintptr_t addr, char *why, size_t cap)
{
    /* Lock objects are at least 4-byte aligned and at most 56 bytes. */
    for (uintptr_t a = (addr - 1) & ~(uintptr_t)3; a + 56 > addr && a < addr; a -= 4) {
        struct rt_lock *l = rt_locktab_find(a);
        uint32_t size = 0;
        if (l && family_of(l->type) != F_NONE)
            size = rt_lock_type_size((enum rt_lock_type)l->type);
        else if (!l && (a & 7) == 0 && rt_lazylock_test(a))
            size = sizeof(pthread_mutex_t); /* a mutex initialized with no record yet */
        if (size && a + size > addr) {
            if (!l)
                l = rt_lock_find(a); /* its record, made from its init */
            struct rt_buf b;
            rt_buf_init(&b, why, cap);
            rt_buf_printf(&b, "it lies %lu byte%s inside another lock object, ", (unsigned long)(addr - a),
                          addr - a == 1 ? "" : "s");
            say_object(&b, l, a);
            return 1;
        }
        if (a < 4)
            break;
    }
    return 0;
}

int rt_lock_invalid(uintptr_t addr, enum rt_lock_type type, char *why, size_t cap)
{
    enum family want = family_of(type);
    if (want == F_NONE || !addr)
        return 0;
    struct rt_lock *l = rt_locktab_find(addr);
    if (l) {
        enum family have = family_of(l->type);
        if (have == F_NONE || have == want)
            return 0; /* known as a lock of its kind */
        struct rt_buf b;
        rt_buf_init(&b, why, cap);
        rt_buf_printf(&b, "it is another kind of object, ");
        say_object(&b, l, addr);
        return 1;
    }
    if (rt_lock_inside_another(addr, why, cap))
        return 1;
    /* Misaligned and never initialized through pthread_*_init (a lazy
     * mutex was): no compiler puts a lock there. */
    if (addr % align_of(want) && !(want == F_MUTEX && rt_lazylock_test(addr))) {
        struct rt_buf b;
        rt_buf_init(&b, why, cap);
        rt_buf_printf(&b, "its address is not %zu-byte aligned, as every %s is, and it was never initialized as one",
                      align_of(want), rt_lock_type_name(type));
        return 1;
    }
    return 0;
}

void rt_report_invalid_lock(struct rt_thread *t, uintptr_t addr, enum rt_lock_type type, const char *doing,
                            const char *why)
{
    char comm[32], name[160];
    rt_thread_comm(t->tid, comm, sizeof comm);
    rt_lock_name(NULL, addr, name, sizeof name); /* a symbol's name, or the address in brackets */
    struct rt_report *r = rt_report_begin(RT_KIND_INVALID_LOCK, t->tid);
    if (!r)
        return;
    rt_report_headline(r, "WARNING: invalid lock: an object that is not a lock is used as one");
    rt_stack_id here = rt_stack_capture((unsigned)rt_opt.stack_depth);
    const char *as = family_of(type) == F_NONE ? "lock" : rt_lock_type_name(type);
    if (name[0] == '[')
        rt_report_stack(r, here, "%s/%d uses %s as a %s in %s, at:", comm, t->tid, name, as, doing);
    else
        rt_report_stack(r, here, "%s/%d uses [0x%lx] %s as a %s in %s, at:", comm, t->tid, (unsigned long)addr, name, as,
                        doing);
    rt_report_text(r, "but it is not a lock: %s.", why);
    rt_report_text(r, "What the call does to that memory is undefined (glibc may fail it with EINVAL, or treat the "
                      "bytes as a lock word and change another object). rtdd does not track it: it is in no "
                      "thread's held locks and in no lock order.");
    rt_report_held_locks(r, t, comm);
    rt_report_key(r, rt_hash64(addr) ^ 0x1a1d);
    rt_report_finish(r);
}
