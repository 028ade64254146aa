#include "locks/misuse.h"
#include "locks/locks.h"
#include "locks/invalid.h"
#include "locks/lockdesc.h"
#include "report/report.h"
#include <errno.h>

/* Where locks were destroyed, for a later use of one: lossy, one slot per
 * address hash (an entry is the address, then the stack and thread). */
#define DESTROY_SLOTS 1024
static struct destroyed {
    _Atomic uintptr_t addr;
    _Atomic uint64_t stack_tid;
} destroyed[DESTROY_SLOTS];

void rt_remember_destroy(struct rt_thread *t, uintptr_t addr, uintptr_t pc)
{
    struct destroyed *d = &destroyed[rt_hash64(addr) & (DESTROY_SLOTS - 1)];
    uint64_t v = (uint64_t)rt_site_stack(t, pc) << 32 | (uint32_t)t->tid;
    if (__atomic_load_n(&d->addr, __ATOMIC_RELAXED) != addr)
        __atomic_store_n(&d->addr, addr, __ATOMIC_RELAXED);
    if (__atomic_load_n(&d->stack_tid, __ATOMIC_RELAXED) != v)
        __atomic_store_n(&d->stack_tid, v, __ATOMIC_RELAXED);
}

/* One store, and only where this address's destroy is remembered (a lock
 * made and destroyed over and over at one address pays it each time). */
void rt_forget_destroy(uintptr_t addr)
{
    struct destroyed *d = &destroyed[rt_hash64(addr) & (DESTROY_SLOTS - 1)];
    if (__atomic_load_n(&d->addr, __ATOMIC_RELAXED) == addr)
        __atomic_store_n(&d->addr, 0, __ATOMIC_RELAXED);
}

int rt_destroyed_at(uintptr_t addr, rt_stack_id *stack, int *tid)
{
    const struct destroyed *d = &destroyed[rt_hash64(addr) & (DESTROY_SLOTS - 1)];
    uint64_t v = __atomic_load_n(&d->stack_tid, __ATOMIC_RELAXED);
    if (__atomic_load_n(&d->addr, __ATOMIC_RELAXED) != addr)
        return 0;
    if (stack)
        *stack = (rt_stack_id)(v >> 32);
    if (tid)
        *tid = (int)(uint32_t)v;
    return 1;
}

/* Did rtdd ever see a lock at addr? Its destroy remembered, or a record
 * or lazy mutex ever in its line (the line filter is never cleared). */
static int ever_a_lock(uintptr_t addr)
{
    const struct destroyed *d = &destroyed[rt_hash64(addr) & (DESTROY_SLOTS - 1)];
    return __atomic_load_n(&d->addr, __ATOMIC_RELAXED) == addr || rt_locktab_may_overlap(addr, 1);
}

void rt_on_destroyed_lock_use(struct rt_thread *t, uintptr_t addr, const char *call, int marked, uintptr_t pc)
{
    char comm[32], desc[512];
    (void)pc;
    const struct destroyed *seen = &destroyed[rt_hash64(addr) & (DESTROY_SLOTS - 1)];
    int seen_destroyed = __atomic_load_n(&seen->addr, __ATOMIC_RELAXED) == addr;
    const char *not_a_mutex = NULL;
    if (!marked && !seen_destroyed)
        /* kind -1 with users or a lock word: glibc marks only an unlocked,
         * unused mutex destroyed, so these bytes are no mutex (Helgrind's
         * tc20 fills one with 0xff) -- unless rtdd saw this one destroyed
         * (free() then scribbled on its first words). */
        not_a_mutex = "its bytes are neither a live mutex nor a destroyed one (glibc's kind field holds -1, "
                      "but its lock word or user count is not 0, which no destroyed mutex has)";
    else if (!ever_a_lock(addr))
        /* glibc's exact mark of a destroyed mutex, where no lock ever was. */
        not_a_mutex = "no lock was ever initialized, used or destroyed at this address, and its bytes "
                      "read as no live mutex (glibc's kind field holds -1, its mark of a destroyed one)";
    if (not_a_mutex) {
        char doing[64];
        struct rt_buf b;
        rt_buf_init(&b, doing, sizeof doing);
        rt_buf_printf(&b, "%s()", call);
        rt_report_invalid_lock(t, addr, RT_LOCK_MUTEX, doing, not_a_mutex);
        return;
    }
    rt_thread_comm(t->tid, comm, sizeof comm);
    rt_lock_name(NULL, addr, desc, sizeof desc);
    struct rt_report *r = rt_report_begin(RT_KIND_USE_AFTER_DESTROY, t->tid);
    if (!r)
        return;
    rt_report_headline(r, "WARNING: use of a destroyed lock");
    rt_report_stack(r, rt_stack_here(), "%s/%d calls %s() on lock %s, which was destroyed and not initialized again, at:",
                    comm, t->tid, call, desc);
    const struct destroyed *d = &destroyed[rt_hash64(addr) & (DESTROY_SLOTS - 1)];
    uint64_t v = __atomic_load_n(&d->stack_tid, __ATOMIC_RELAXED);
    const struct rt_lock *l;
    if (__atomic_load_n(&d->addr, __ATOMIC_RELAXED) == addr && v) {
        char who[32];
        rt_thread_comm((int)(uint32_t)v, who, sizeof who);
        rt_report_stack(r, (rt_stack_id)(v >> 32), "it was destroyed by %s/%d at:", who, (int)(uint32_t)v);
    } else if ((l = rt_locktab_find(addr)) != NULL && (l->traits & RT_TRAIT_PSHARED)) {
        rt_report_text(r, "rtdd did not see it destroyed in this process: it is a process-shared lock, so another "
                          "process that shares its memory destroyed it.");
    } else {
        rt_report_text(r, "rtdd did not see it destroyed (or no longer remembers where): the memory holds glibc's "
                          "mark of a destroyed mutex, or is not a mutex at all.");
    }
    rt_report_text(r, "glibc marks a destroyed mutex invalid: the call fails with EINVAL and does not lock or "
                      "unlock anything, so the code it guards runs unprotected.");
    rt_report_held_locks(r, t, comm);
    rt_report_finish(r);
}

void rt_report_destroy_locked(struct rt_thread *t, struct rt_lock *l, const char *verb, uintptr_t pc)
{
    char comm[32], desc[512];
    uintptr_t addr = __atomic_load_n(&l->addr, __ATOMIC_RELAXED);
    (void)pc;
    rt_thread_comm(t->tid, comm, sizeof comm);
    rt_lock_describe(l, addr, desc, sizeof desc);
    struct rt_report *r = rt_report_begin(RT_KIND_DESTROY_LOCKED, t->tid);
    if (!r)
        return;
    rt_report_headline(r, "BUG: destroying a held lock");
    rt_report_stack(r, rt_stack_here(), "%s/%d is %s lock %s at:", comm, t->tid, verb, desc);
    rt_report_holders(r, l, t->tid);
    rt_report_held_locks(r, t, comm);
    rt_report_finish(r);
}

void rt_report_reset_while_held(struct rt_thread *t, struct rt_lock *l, const struct rt_held *held, uintptr_t pc)
{
    char comm[32], desc[512];
    (void)pc;
    rt_thread_comm(t->tid, comm, sizeof comm);
    rt_lock_describe(l, held->addr, desc, sizeof desc);
    struct rt_report *r = rt_report_begin(RT_KIND_DESTROY_LOCKED, t->tid);
    if (!r)
        return;
    rt_report_headline(r, "BUG: destroying a held lock");
    rt_report_stack(r, rt_stack_here(), "%s/%d locks %s again, at:", comm, t->tid, desc);
    rt_report_stack(r, held->stack, "but the lock's memory was reset to an unlocked state while this thread held it "
                                    "(taken at the stack below): an initializer assigned over a held lock destroys "
                                    "it, as pthread_mutex_init would:");
    rt_report_text(r, "The new lock call succeeds on the reset object: two holders may now be inside the critical "
                      "section.");
    rt_report_held_locks(r, t, comm);
    rt_report_finish(r);
}

static const char *acquire_verb(const struct rt_lock *l, unsigned flags)
{
    if (rt_lock_type_rw(l->type))
        return (flags & RT_ACQ_READ) ? "read-lock" : "write-lock";
    return "lock";
}

void rt_report_recursive_locking(struct rt_thread *t, struct rt_lock *l, const struct rt_held *held,
                                 unsigned flags, uintptr_t pc)
{
    char comm[32], desc[512], name[160];
    (void)pc;
    rt_thread_comm(t->tid, comm, sizeof comm);
    rt_lock_describe(l, held->addr, desc, sizeof desc);
    rt_lock_name(l, held->addr, name, sizeof name);
    struct rt_report *r = rt_report_begin(RT_KIND_RECURSIVE_LOCKING, t->tid);
    if (!r)
        return;
    rt_report_headline(r, "WARNING: possible recursive locking detected");
    rt_report_stack(r, rt_stack_here(), "%s/%d is trying to %s %s, at:", comm, t->tid, acquire_verb(l, flags), desc);
    rt_report_stack(r, held->stack, "but the thread already holds it%s, taken at:",
                    held->mode == RT_HOLD_READ ? " for reading" : "");
    rt_report_text(r, "Possible unsafe locking scenario:");
    rt_report_text(r, "       thread 0");
    rt_report_text(r, "       --------");
    rt_report_text(r, "  %s(%s);", held->mode == RT_HOLD_READ ? "read_lock" : "lock", name);
    rt_report_text(r, "  %s(%s);", (flags & RT_ACQ_READ) ? "read_lock" : "lock", name);
    rt_report_text(r, " *** DEADLOCK ***");
    rt_report_text(r, "The thread would wait for itself forever%s.",
                   rt_lock_type_rw(l->type) && (flags & RT_ACQ_READ)
                       ? " (this rwlock prefers writers: a waiting writer blocks the second read)"
                       : "");
    rt_report_held_locks(r, t, comm);
    rt_report_finish(r);
}

struct class_search { const struct rt_thread *t; const struct rt_lock *released; const struct rt_held *found; };

/* The seed's implementation #4: per-CPU locks, the reader migrated, and the
 * unlock released the new CPU's lock while the old CPU's stays held. */
static const struct rt_held *same_class_other_cpu(const struct rt_thread *t, const struct rt_lock *l, int cpu)
{
    for (unsigned i = t->nheld; i-- > 0;) {
        const struct rt_held *h = &t->held[i];
        if (rt_held_live(h) && h->lock != l && h->lock->class_key == l->class_key && h->cpu >= 0 && cpu >= 0 && h->cpu != cpu)
            return h;
    }
    return NULL;
}

/* The unlock released a mutex another thread holds (a hand-off, or
 * confusion): the object is unlocked now, whoever took it. The record gets
 * a new identity so that the owner's held-lock entry goes stale (holders
 * are known only from held entries): its exit, later frees of the object and the lock-order checks no
 * longer count it as held. */
static void model_foreign_release(struct rt_lock *l)
{
    uint64_t old_id = __atomic_exchange_n(&l->id, rt_locktab_new_id(), __ATOMIC_ACQ_REL);
    rt_lock_name_follows(l, old_id);
    if (l->type == RT_LOCK_MUTEX)
        rt_held_kill_unnamed(__atomic_load_n(&l->addr, __ATOMIC_RELAXED)); /* they name it by address */
}

/* A bad-unlock of a lock rtdd knows nothing of: why, in one sentence. */
static void report_unknown_unlock(struct rt_thread *t, uintptr_t addr, const char *why)
{
    char comm[32], desc[512];
    rt_thread_comm(t->tid, comm, sizeof comm);
    rt_lock_describe(rt_lock_find(addr), addr, desc, sizeof desc);
    struct rt_report *r = rt_report_begin(RT_KIND_BAD_UNLOCK, t->tid);
    if (!r)
        return;
    rt_report_headline(r, "WARNING: bad unlock balance detected!");
    rt_report_stack(r, rt_stack_here(), "%s/%d is trying to release lock %s at:", comm, t->tid, desc);
    rt_report_text(r, "%s", why);
    rt_report_held_locks(r, t, comm);
    rt_report_finish(r);
}

void rt_on_unlock_rejected(struct rt_thread *t, uintptr_t addr, const char *call, int err, uintptr_t pc)
{
    char why[256], doing[64];
    struct rt_buf b;
    (void)pc;
    rt_buf_init(&b, why, sizeof why);
    rt_buf_printf(&b, "%s() failed (%s), and rtdd never saw this memory initialized or locked as one", call,
                  err == EINVAL ? "EINVAL" : err == EPERM ? "EPERM" : "an error");
    rt_buf_init(&b, doing, sizeof doing);
    rt_buf_printf(&b, "%s()", call);
    rt_report_invalid_lock(t, addr, RT_LOCK_MUTEX, doing, why);
}

int rt_check_unheld_release(struct rt_thread *t, uintptr_t addr, uintptr_t pc, int word_unlocked)
{
    rt_held_name(t);
    struct rt_lock *l = rt_lock_find(addr);
    (void)pc;
    /* A lock never seen before, or locked before the runtime was ready:
     * nothing is known about who holds it, but its own word. */
    if (!l || !l->history_known || rt_lock_type_cond(l->type)) {
        char why[384];
        if (!l && rt_lock_inside_another(addr, why, sizeof why)) {
            rt_report_invalid_lock(t, addr, RT_LOCK_USER, "an unlock", why); /* of some lock type */
            return 0;
        }
        if (word_unlocked != 1 || (l && rt_lock_type_cond(l->type)))
            return 1;
        /* Its own word says nobody holds it: released once too often, or never a lock. */
        report_unknown_unlock(t, addr, "but no thread holds it: rtdd never saw it locked, and its lock word says it "
                                       "is not locked (a lock released once too often, one never taken, or memory "
                                       "that is not a lock).");
        return 0;
    }
    int orphan = __atomic_load_n(&l->held_by_exited, __ATOMIC_ACQUIRE);
    if (orphan == RT_HOLDER_FORKED_AWAY) {
        /* A forked child releasing what a parent's thread held (an atfork
         * handler's recovery): the lock is free again; a use of it all the
         * same, which its first-use report names. */
        rt_on_fork_stray_use(t, l, "releases", pc);
        __atomic_store_n(&l->held_by_exited, 0, __ATOMIC_RELEASE);
        return 0;
    }
    char comm[32], desc[512], other[512];
    int cpu = rt_thread_cpu(t);
    rt_thread_comm(t->tid, comm, sizeof comm);
    rt_lock_describe(l, addr, desc, sizeof desc);
    const struct rt_held *mine = same_class_other_cpu(t, l, cpu);
    int owner = rt_lock_owner(l, NULL);
    int readers = rt_lock_readers(l, NULL, NULL);
    /* Held by another thread: that is the fact to report (a hand-off of
     * the lock between threads, as xfs_repair's buffer cache does). A
     * same-class lock this thread holds from another CPU is then only a
     * hint, not proof of per-CPU confusion. */
    int foreign = owner != 0 && owner != t->tid && !rt_lock_type_rw(l->type);
    struct rt_report *r;
    if (mine && !foreign) {
        r = rt_report_begin(RT_KIND_CROSS_CPU_UNLOCK, t->tid);
        if (!r)
            goto out;
        rt_lock_describe(mine->lock, mine->addr, other, sizeof other);
        rt_report_headline(r, "BUG: cross-CPU unlock confusion: lock taken on CPU %d released as CPU %d's lock",
                           mine->cpu, cpu);
        rt_report_stack(r, rt_stack_here(), "%s/%d, now on CPU %d, released CPU %d's lock %s, which it does not hold, at:",
                        comm, t->tid, cpu, cpu, desc);
        rt_report_stack(r, mine->stack, "while it still holds CPU %d's lock of the same class %s, taken on CPU %d at:",
                        mine->cpu, other, mine->cpu);
        rt_report_text(r, "The thread moved from CPU %d to CPU %d inside its critical section and released the lock of "
                          "the CPU it runs on, not the one it took: CPU %d's lock stays held forever and CPU %d's "
                          "lock is released under its owner.",
                       mine->cpu, cpu, mine->cpu, cpu);
        rt_report_text(r, "Hint: remember which lock (or CPU) the lock call used and release that one.");
    } else if (owner || readers || orphan) {
        r = rt_report_begin(RT_KIND_NON_OWNER_UNLOCK, t->tid);
        if (!r)
            goto out;
        rt_report_headline(r, "WARNING: lock released by a thread that does not hold it");
        rt_report_stack(r, rt_stack_here(), "%s/%d is releasing lock %s at:", comm, t->tid, desc);
        rt_report_holders(r, l, t->tid);
        if (mine) {
            rt_lock_describe(mine->lock, mine->addr, other, sizeof other);
            rt_report_text(r, "%s/%d holds lock %s of the same class, taken on CPU %d; it now runs on CPU %d: "
                              "if these are per-CPU locks, it released the wrong CPU's lock.",
                           comm, t->tid, other, mine->cpu, cpu);
        }
    } else {
        r = rt_report_begin(RT_KIND_BAD_UNLOCK, t->tid);
        if (!r)
            goto out;
        rt_report_headline(r, "WARNING: bad unlock balance detected!");
        rt_report_stack(r, rt_stack_here(), "%s/%d is trying to release lock %s at:", comm, t->tid, desc);
        rt_report_text(r, "but there are no more locks to release: no thread holds it.");
    }
    rt_report_held_locks(r, t, comm);
    rt_report_finish(r);
out:
    /* Whether reported, suppressed or a duplicate: the mutex is unlocked. */
    if (foreign)
        model_foreign_release(l);
    if (orphan)
        __atomic_store_n(&l->held_by_exited, 0, __ATOMIC_RELEASE);
    return 0;
}
