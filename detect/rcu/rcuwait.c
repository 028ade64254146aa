/* Grace-period waits (synchronize_rcu, rcu_barrier): a write acquisition
 * of the flavour's pseudo-lock for the order check, the wait as the
 * watchdog sees it, and the check that no pre-existing reader outlived
 * the grace period. */
#include "rcu/rcu.h"
#include "rcu/rcucheck_internal.h"
#include "locks/locks.h"
#include "report/report.h"
#include "hang/hang.h"
#include <time.h>

/* The watchdog sees a thread waiting for the readers that hold l. */
static void rcu_wait_shown(struct rt_thread *t, struct rt_lock *l, uintptr_t pc)
{
    t->rcu.wait_clock = rt_rcu_tick();
    t->rcu_wait_stack = rt_site_stack(t, pc);
    rt_wait_seq_next(&t->rcu_wait_seq);
    __atomic_store_n(&t->rcu_waiting_for, l, __ATOMIC_RELEASE);
    rt_watchdog_ensure();
}

void rt_rcu_wait_begin(struct rt_thread *t, enum rt_rcu_flavor f, int barrier, uintptr_t pc)
{
    rt_rcu_mark_in_use();
    const char *what = barrier ? "rcu_barrier()" : "synchronize_rcu()";
    struct rt_rcu_section sec;
    if (rt_rcu_section_of(t, &sec)) {
        char calls[64];
        struct rt_buf b;
        rt_buf_init(&b, calls, sizeof calls);
        rt_buf_printf(&b, "calls %s", what);
        rt_rcu_report_simple(t, RT_KIND_RCU_SYNC_IN_READER,
                             "BUG: Illegal synchronize_rcu() in RCU read-side critical section!", calls,
                             barrier ? "rcu_barrier() waits for callbacks, which wait for a grace period, which "
                                       "waits for this reader: it can never return."
                                     : "synchronize_rcu() waits for every reader that began before it, this one "
                                       "included: it can never return.");
        /* ...so it waits for its own section: the watchdog sees the thread
         * wait for the readers' pseudo-lock it holds, confirms the hang,
         * and ends the run (exit_on_deadlock). */
        struct rt_lock *readers = rt_rcu_pseudo_lock(t, f, 0, pc);
        if (readers)
            rcu_wait_shown(t, readers, pc);
        return;
    }
    /* In a forked child, readers of the parent's other threads never leave. */
    if (__builtin_expect(__atomic_load_n(&rt_fork_strays_pending, __ATOMIC_RELAXED), 0)) {
        struct rt_lock *readers = rt_rcu_pseudo_lock(t, f, 0, pc);
        if (readers)
            rt_on_fork_stray_use(t, readers, barrier ? "waits in rcu_barrier() for" : "waits in synchronize_rcu() for",
                                 pc);
    }
    /* A write acquisition of the pseudo-lock: "M held -> synchronize_rcu"
     * against "rcu_read_lock -> M" is a cycle. */
    struct rt_lock *l = rt_rcu_pseudo_lock(t, f, barrier, pc);
    if (!l)
        return;
    rt_on_lock_pre(t, l, 0, pc);
    rcu_wait_shown(t, l, pc);
}

/* Readers of flavour f still inside a section they entered before clock. */
struct stale_search { enum rt_rcu_flavor f; uint64_t before; struct rt_thread *found; uint64_t clock; uintptr_t entry_pc; int tid; };
static void find_stale(struct rt_thread *t, void *arg)
{
    struct stale_search *s = arg;
    struct rt_rcu_section sec;
    if (s->found || !rt_rcu_section_of(t, &sec) || sec.flavor != s->f)
        return;
    if (sec.clock < s->before) {
        s->found = t;
        s->clock = sec.clock;
        s->entry_pc = rt_rcu_enter_pc(t);
        s->tid = t->tid;
    }
}

/* A grace period or callback ended: were all pre-existing readers gone?
 * The reader's own exit is recorded just after its real unlock, so a
 * suspect is looked at again after a pause before it counts. */
void rt_rcu_check_gp(struct rt_thread *t, enum rt_rcu_flavor f, uint64_t began, const char *what)
{
    struct stale_search s = { f, began, NULL, 0, 0, 0 };
    rt_thread_for_each(find_stale, &s);
    if (!s.found)
        return;
    for (int i = 0; i < 20; i++) {
        struct timespec ts = { 0, 5000000 };
        nanosleep(&ts, NULL);
        struct rt_rcu_section sec;
        if (!rt_rcu_section_of(s.found, &sec) || sec.clock != s.clock)
            return;
    }
    char comm[32], rcomm[32];
    rt_thread_comm(t->tid, comm, sizeof comm);
    rt_thread_comm(s.tid, rcomm, sizeof rcomm);
    struct rt_report *r = rt_report_begin(RT_KIND_RCU_GP_VIOLATION, t->tid);
    if (!r)
        return;
    rt_report_headline(r, "BUG: grace period ended while a pre-existing reader was still running");
    rt_report_stack(r, rt_stack_here(), "%s/%d: %s (%s) ended at:", comm, t->tid, what, rt_rcu_flavor_names[f]);
    rt_report_stack(r, rt_site_stack_complete(s.entry_pc, 0),
                    "while %s/%d is still inside the read-side critical section it entered before "
                                "the grace period began, at:", rcomm, s.tid);
    rt_report_text(r, "The RCU implementation broke its guarantee: memory freed after this grace period may still be "
                      "in use by that reader.");
    rt_report_finish(r);
}

void rt_rcu_wait_end(struct rt_thread *t, enum rt_rcu_flavor f, int barrier, uintptr_t pc)
{
    (void)pc;
    __atomic_store_n(&t->rcu_waiting_for, NULL, __ATOMIC_RELEASE);
    /* The order check showed the wait as one for the pseudo-lock too. */
    struct rt_lock *w = __atomic_load_n(&t->waiting_for, __ATOMIC_RELAXED);
    if (w && w->rcu_pseudo)
        __atomic_store_n(&t->waiting_for, NULL, __ATOMIC_RELEASE);
    struct rt_rcu_section sec;
    if (barrier || rt_rcu_section_of(t, &sec))
        return;
    uint64_t began = t->rcu.wait_clock;
    rt_rcu_check_gp(t, f, began, "synchronize_rcu()");
    rt_rcu_grace_period_done(f, began);
}
