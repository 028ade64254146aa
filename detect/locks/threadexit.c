/* A thread's end: locks it still holds, and locks that lived on its stack. */
#include "locks/locks.h"
#include "rcu/rcu.h"
#include "locks/lockdesc.h"
#include "report/report.h"
#include "hang/hang.h"

/* A held lock that still exists (one freed meanwhile was reported then)
 * and that its holder's end leaves locked. A robust mutex is not: the
 * kernel hands it to the next locker with EOWNERDEAD, the recovery the
 * program chose. */
static int stays_locked(const struct rt_held *h)
{
    return rt_held_live(h) && !(h->lock->traits & RT_TRAIT_ROBUST);
}

static unsigned live_held(const struct rt_thread *t)
{
    unsigned n = 0;
    for (unsigned i = 0; i < t->nheld; i++)
        n += stays_locked(&t->held[i]);
    return n;
}

static void report_held_at_exit(struct rt_thread *t)
{
    char comm[32];
    rt_thread_comm(t->tid, comm, sizeof comm);
    struct rt_report *r = rt_report_begin(RT_KIND_LOCK_HELD_AT_EXIT, t->tid);
    if (!r)
        return;
    rt_report_headline(r, "WARNING: thread exited with locks held!");
    /* Where the thread exits is always libc's thread teardown; what matters
     * is where it took the locks it never released. */
    for (unsigned i = 0, shown = 0; i < t->nheld && shown < 8; i++) {
        char desc[512];
        if (!stays_locked(&t->held[i]))
            continue;
        rt_lock_describe(t->held[i].lock, t->held[i].addr, desc, sizeof desc);
        rt_report_stack(r, t->held[i].stack, "%s/%d exited still holding lock #%u %s%s, taken at:", comm, t->tid, i,
                        desc, t->held[i].mode == RT_HOLD_READ ? " for reading" : "");
        shown++;
    }
    rt_report_held_locks(r, t, comm);
    rt_report_text(r, "Threads waiting for these locks will wait forever.");
    /* Key on the held locks' sites so each distinct leak is reported once. */
    uint64_t key = 0x1e5;
    for (unsigned i = 0; i < t->nheld; i++)
        if (stays_locked(&t->held[i]))
            key = key * 31 + t->held[i].stack;
    rt_report_key(r, key);
    rt_report_finish(r);
}

void rt_on_thread_exit(struct rt_thread *t, uintptr_t stack_lo, uintptr_t stack_hi)
{
    rt_thread_ends_exit(t->handle, t->tid); /* for a join to order its life before the joiner's next steps */
    /* An RCU reader that never left: reported as such, not as a held lock. */
    rt_rcu_on_thread_exit(t);
    /* The stack first: a held lock that lived on it is an active lock
     * freed, and is then no longer a lock this thread holds. */
    if (stack_hi > stack_lo)
        rt_on_free(t, stack_lo, stack_hi - stack_lo, 0);
    rt_held_name(t);
    /* The locks stay held (nobody can release them now): their records say
     * so, for a later free or destroy of them. */
    if (t->nheld > 0 && !t->untracked && live_held(t) > 0) {
        report_held_at_exit(t);
        for (unsigned i = 0; i < t->nheld; i++)
            if (stays_locked(&t->held[i]) && !t->held[i].lock->rcu_pseudo)
                __atomic_store_n(&t->held[i].lock->held_by_exited, RT_HOLDER_EXITED, __ATOMIC_RELEASE);
    }
}
