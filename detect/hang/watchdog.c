#include "hang/hang.h"
#include "hang/watchdog_internal.h"
#include "locks/locks.h"
#include "rcu/rcu.h"
#include "report/report.h"
#include "core/core.h"
#include "hang/lockdump.h"
#include <string.h>

void (*rt_watchdog_start_hook)(void);
static _Atomic int started;
static _Atomic int creation_seen; /* a thread creation went through rt_watchdog_start */

static void start_once(void)
{
    if (!__atomic_load_n(&started, __ATOMIC_RELAXED) && !__atomic_exchange_n(&started, 1, __ATOMIC_ACQ_REL))
        rt_watchdog_start_hook();
}

void rt_watchdog_start(void)
{
    if (!rt_watchdog_start_hook)
        return;
    __atomic_store_n(&creation_seen, 1, __ATOMIC_RELAXED);
    start_once();
}

void rt_watchdog_ensure(void)
{
    if (__atomic_load_n(&started, __ATOMIC_RELAXED) || !rt_watchdog_start_hook ||
        __atomic_load_n(&creation_seen, __ATOMIC_RELAXED))
        return;
    start_once();
}

void rt_watchdog_after_fork(void)
{
    if (__atomic_load_n(&started, __ATOMIC_RELAXED))
        __atomic_store_n(&started, 0, __ATOMIC_RELAXED);
    if (__atomic_load_n(&creation_seen, __ATOMIC_RELAXED))
        __atomic_store_n(&creation_seen, 0, __ATOMIC_RELAXED);
}

unsigned rt_watchdog_period_ms(void)
{
    long p = (rt_opt.deadlock_timeout_ms < rt_opt.rcu_stall_timeout_ms ? rt_opt.deadlock_timeout_ms
                                                                       : rt_opt.rcu_stall_timeout_ms) / 4;
    return (unsigned)(p < 5 ? 5 : p > 500 ? 500 : p);
}


struct snap *wd_snaps;
unsigned wd_nsnaps;
static unsigned snap_cap;
struct snap_lock *wd_held_pool;
unsigned wd_held_used;
static unsigned held_cap;
static int snapshot_short; /* out of memory: some thread or lock was not copied */

static void copy_held(struct snap *s, struct rt_lock *lock, uint64_t id, uintptr_t addr, rt_stack_id stack,
                      uint8_t mode)
{
    if (rt_grow_array((void **)&wd_held_pool, &held_cap, wd_held_used + 1, sizeof *wd_held_pool) < 0) {
        snapshot_short = 1;
        return;
    }
    struct snap_lock *h = &wd_held_pool[wd_held_used++];
    h->lock = lock;
    h->id = id;
    h->addr = addr;
    h->stack = stack;
    h->mode = mode;
    h->owner = (unsigned)(s - wd_snaps);
    s->nheld++;
}

static void take_snapshot(struct rt_thread *t, void *arg)
{
    (void)arg;
    if (rt_grow_array((void **)&wd_snaps, &snap_cap, wd_nsnaps + 1, sizeof *wd_snaps) < 0) {
        snapshot_short = 1;
        return;
    }
    struct snap *s = &wd_snaps[wd_nsnaps++];
    memset(s, 0, sizeof *s);
    s->t = t;
    s->tid = t->tid;
    s->handle = t->handle;
    s->next = -1;
    /* A real lock wait, else a wait for RCU readers. */
    s->waiting_for = __atomic_load_n(&t->waiting_for, __ATOMIC_ACQUIRE);
    s->seq = __atomic_load_n(&t->wait_seq, __ATOMIC_RELAXED);
    s->wait_stack = t->wait_stack;
    s->wait_mode = t->wait_mode;
    s->wait_timed = t->wait_timed;
    if (!s->waiting_for && (s->waiting_for = __atomic_load_n(&t->rcu_waiting_for, __ATOMIC_ACQUIRE))) {
        s->seq = __atomic_load_n(&t->rcu_wait_seq, __ATOMIC_RELAXED) | 1ull << 63;
        s->wait_stack = t->rcu_wait_stack;
        s->wait_mode = RT_HOLD_WRITE;
        s->wait_timed = 0;
        s->rcu_wait = 1;
    } else if (s->waiting_for && s->waiting_for->rcu_pseudo) {
        s->rcu_wait = 1; /* synchronize_rcu's order check shows its wait as a lock wait */
        s->wait_timed = 0;
    }
    s->joining = s->waiting_for ? 0 : __atomic_load_n(&t->joining, __ATOMIC_ACQUIRE);
    s->joining_tid = s->joining ? __atomic_load_n(&t->joining_tid, __ATOMIC_ACQUIRE) : 0;
    if (!s->waiting_for && !s->joining && (s->event = __atomic_load_n(&t->event_waiting, __ATOMIC_ACQUIRE))) {
        s->event_id = t->event_waiting_id;
        s->event_shared = t->event_shared;
        s->event_destroy = t->event_destroy;
    }
    s->waiting_id = s->waiting_for ? __atomic_load_n(&s->waiting_for->id, __ATOMIC_RELAXED) : 0;
    s->rcu_enter_clock = rt_rcu_enter_clock(t);
    s->rcu_wait_clock = t->rcu.wait_clock;
    s->held_at = wd_held_used;
    const struct rt_held *held = __atomic_load_n(&t->held, __ATOMIC_ACQUIRE);
    unsigned n = __atomic_load_n(&t->nheld, __ATOMIC_ACQUIRE);
    /* A read section that record mode has not pushed holds its RCU lock
     * all the same, from before any lock on the stack. */
    struct rt_lock *section = rt_rcu_unmaterialized_lock(t);
    if (section) {
        /* Its stack is made after the walk, from section_pc. */
        s->section_pc = rt_rcu_enter_pc(t);
        copy_held(s, section, __atomic_load_n(&section->id, __ATOMIC_RELAXED),
                  __atomic_load_n(&section->addr, __ATOMIC_RELAXED), 0, RT_HOLD_READ);
    }
    for (unsigned i = 0; i < n && held; i++) {
        if (section && held[i].lock == section)
            continue; /* pushed meanwhile */
        uint64_t id;
        struct rt_lock *l = rt_held_record(&held[i], &id);
        if (l)
            copy_held(s, l, id, held[i].addr, held[i].stack, held[i].mode);
    }
}

/* Since when (ms) the thread has been in its current wait: the watchdog
 * keeps that in the thread's record, so no table limits how many it follows. */
static uint64_t blocked_since(struct snap *s, uint64_t now)
{
    if (s->t->wd_seen_seq != s->seq) {
        s->t->wd_seen_seq = s->seq;
        s->t->wd_since_ms = now;
    }
    return s->t->wd_since_ms;
}

int wd_waits(const struct snap *s)
{
    return s->waiting_for || s->joining || s->event;
}

int wd_waits_for_lock(const struct snap *s)
{
    return s->waiting_for || s->joining;
}

/* The rule: the watchdog ends a run only for a deadlock it can prove from
 * what it knows. A report's participants are threads blocked in waits the
 * runtime models (lock calls, joins, condition and semaphore waits, a
 * pthread_cond_destroy waiting for a condition's waiters, grace periods):
 * a thread doing anything else ends every chain of waits, so no cycle and
 * no "all blocked" report can include it. Each participant waits
 * for a holder (or the only known signallers) blocked in this process, or
 * for a lock whose holder is known to be gone. What is left to judge is
 * the wait itself: one with a timeout may end; a robust mutex is handed on
 * by the kernel when its owner dies; a process-shared object may be
 * released or signalled by another process. Those are reported, and the
 * run goes on (docs/design.md, "When the watchdog ends a run"). */
enum wd_doubt wd_wait_doubt(const struct rt_lock *lock, int timed, int shared)
{
    if (timed)
        return WD_TIMED;
    if (shared || (lock && (lock->traits & RT_TRAIT_PSHARED)))
        return WD_PSHARED;
    if (lock && (lock->traits & RT_TRAIT_ROBUST))
        return WD_ROBUST;
    return WD_PROVEN;
}

enum wd_doubt wd_snap_doubt(const struct snap *s)
{
    return wd_wait_doubt(s->waiting_for ? s->waiting_for : s->event, s->wait_timed, s->event_shared);
}

void wd_conclude(struct rt_report *r, enum wd_doubt doubt)
{
    switch (doubt) {
    case WD_PROVEN:
        if (rt_opt.exit_on_deadlock)
            rt_report_fatal(r); /* the only place a watchdog report ends the run */
        break;
    case WD_TIMED:
        rt_report_text(r, "A wait of the cycle has a timeout: when it expires the program may recover, so the run "
                          "goes on.");
        break;
    case WD_ROBUST:
        rt_report_text(r, "A lock waited for here is a robust mutex: if its owner dies, the next locker gets it "
                          "(EOWNERDEAD), so rtdd does not end the run.");
        break;
    case WD_PSHARED:
        rt_report_text(r, "An object waited for here is process-shared: another process may release or signal it, "
                          "so rtdd does not end the run.");
        break;
    }
}

/* A waiter on a condition waits for the threads known to signal it (on a
 * barrier, those known to reach it that are not waiting there now): when
 * every one of them is blocked (one is returned), nothing else is known to
 * wake it; while one of them runs, or one has gone, or another process may
 * signal, -1. */
static int signaller_of(const struct snap *s)
{
    unsigned self = (unsigned)(s - wd_snaps);
    int tids[4];
    rt_stack_id sites[4];
    unsigned n = s->event_shared ? 0 : rt_event_signallers(s->event, s->event_id, tids, sites, 4);
    int pick = -1;
    for (unsigned k = 0; k < n; k++) {
        int j = -1;
        for (unsigned i = 0; i < wd_nsnaps && j < 0; i++)
            if (wd_snaps[i].tid == tids[k])
                j = (int)i;
        if (j < 0 || (unsigned)j == self)
            continue; /* gone, or itself: neither signals now */
        if (s->event->type == RT_LOCK_BARRIER && wd_snaps[j].event == s->event && wd_snaps[j].event_id == s->event_id)
            continue; /* waits in the same round: it reached the barrier already */
        if (!wd_waits(&wd_snaps[j]) || wd_snaps[j].wait_timed)
            return -1;
        if (pick < 0)
            pick = j;
    }
    return pick;
}

/* pthread_cond_destroy waits (in glibc) until the threads blocked on the
 * condition have left it: for one of them; -1 when none is known. */
static int cond_waiter_of(const struct snap *s)
{
    unsigned self = (unsigned)(s - wd_snaps);
    for (unsigned i = 0; i < wd_nsnaps; i++)
        if (i != self && wd_snaps[i].event == s->event && wd_snaps[i].event_id == s->event_id &&
            !wd_snaps[i].event_destroy)
            return (int)i;
    return -1;
}

/* Holders by lock: an open-addressed table of wd_held_pool indices + 1. */
static unsigned *holders;
static unsigned holders_mask;

static unsigned lock_slot(const struct rt_lock *l)
{
    return (unsigned)rt_hash64((uintptr_t)l) & holders_mask;
}

static int index_holders(void)
{
    unsigned need = 16;
    while (need < wd_held_used * 2)
        need *= 2;
    static unsigned cap;
    if (rt_grow_array((void **)&holders, &cap, need, sizeof *holders) < 0)
        return -1;
    holders_mask = need - 1;
    memset(holders, 0, need * sizeof *holders);
    for (unsigned i = 0; i < wd_held_used; i++) {
        unsigned slot = lock_slot(wd_held_pool[i].lock);
        while (holders[slot])
            slot = (slot + 1) & holders_mask;
        holders[slot] = i + 1;
    }
    return 0;
}

/* Does held entry h (of thread o) keep s waiting? */
static int blocks(const struct snap_lock *h, const struct snap *s)
{
    if (h->lock != s->waiting_for || h->id != s->waiting_id)
        return 0;
    if (h->mode == RT_HOLD_READ && s->wait_mode == RT_HOLD_READ)
        return 0;
    /* A grace period waits only for the readers that began before it. */
    const struct snap *o = &wd_snaps[h->owner];
    if (s->rcu_wait && s->waiting_for->rcu_pseudo == 1 && o->rcu_enter_clock >= s->rcu_wait_clock)
        return 0;
    return 1;
}

/* The thread s waits for: itself when it holds what it waits for (it can
 * never go on, whoever else holds it too), else a holder that is itself
 * blocked (the one that can close a cycle), else any holder; or -1. */
int wd_holder_of(const struct snap *s)
{
    unsigned self = (unsigned)(s - wd_snaps);
    if (s->event)
        return s->event_destroy ? cond_waiter_of(s) : signaller_of(s);
    if (s->joining) {
        for (unsigned i = 0; i < wd_nsnaps; i++)
            if (i != self && wd_snaps[i].handle == s->joining)
                return (int)i;
        return -1;
    }
    for (unsigned j = 0; j < s->nheld; j++)
        if (blocks(&wd_held_pool[s->held_at + j], s))
            return (int)self;
    int any = -1;
    for (unsigned slot = lock_slot(s->waiting_for); holders[slot]; slot = (slot + 1) & holders_mask) {
        const struct snap_lock *h = &wd_held_pool[holders[slot] - 1];
        if (h->owner == self || !blocks(h, s))
            continue;
        if (wd_waits(&wd_snaps[h->owner]))
            return (int)h->owner;
        if (any < 0)
            any = (int)h->owner;
    }
    return any;
}

static void reverse(unsigned *a, unsigned n)
{
    for (unsigned i = 0; i < n / 2; i++) {
        unsigned x = a[i];
        a[i] = a[n - 1 - i];
        a[n - 1 - i] = x;
    }
}

/* A cycle starts at a thread that waits for a lock (its stack is the one
 * the SUMMARY names: the lock call, not a join), the one with the lowest
 * tid (usually made first): the same deadlock then reads the same,
 * whichever thread the walk met first. */
static int starts_before(const struct snap *a, const struct snap *b)
{
    int a_lock = a->waiting_for != NULL, b_lock = b->waiting_for != NULL;
    if (a_lock != b_lock)
        return a_lock;
    return a->tid < b->tid;
}

static void rotate_to_oldest(unsigned *cyc, unsigned n)
{
    unsigned k = 0;
    for (unsigned i = 1; i < n; i++)
        if (starts_before(&wd_snaps[cyc[i]], &wd_snaps[cyc[k]]))
            k = i;
    reverse(cyc, k);
    reverse(cyc + k, n - k);
    reverse(cyc, n);
}

static uint64_t hang_limit_ms(void) { return (uint64_t)rt_opt.hang_timeout_ms; }

/* Blocked hang_timeout_ms in a lock wait or a join, and not yet reported
 * for this wait. */
static int hang_due(const struct snap *s, uint64_t now_ms)
{
    return wd_waits_for_lock(s) && now_ms - s->since_ms >= hang_limit_ms() && s->t->wd_hang_seq != s->seq + 1 &&
           s->t->wd_leader_seq != s->seq + 1;
}

/* A lock waiter whose holder's state is worth a look on this scan: blocked
 * a quarter of hang_timeout_ms, neither reported nor known to follow an
 * idle leader. Looking on every scan from then on, not only when the
 * report is due, is what makes the verdict independent of the moment. */
static int leader_watch(const struct snap *s, uint64_t now_ms)
{
    return s->waiting_for && !s->joining && !s->event && now_ms - s->since_ms >= hang_limit_ms() / 4 &&
           s->t->wd_hang_seq != s->seq + 1 && s->t->wd_leader_seq != s->seq + 1;
}

/* The thread at the end of i's chain of joins (i itself when it does not
 * join), or -1: a cycle of joins (a deadlock), or a joined thread the
 * runtime does not see. */
static int join_end(unsigned i)
{
    int cur = (int)i;
    for (unsigned steps = 0; steps <= wd_nsnaps; steps++) {
        if (!wd_snaps[cur].joining)
            return cur;
        if (wd_snaps[cur].next == -2)
            wd_snaps[cur].next = wd_holder_of(&wd_snaps[cur]);
        cur = wd_snaps[cur].next;
        if (cur < 0)
            return -1;
    }
    return -1;
}

/* A join is a hang only when the joins it waits through end in a thread
 * blocked on a lock (hang_timeout_ms, too): the join of a thread that
 * computes, reads its input or idles on a condition is how programs wait
 * for work to end. It is reported once, from the outermost untimed joiner
 * (the whole chain in one report), and the lock waiter is not reported
 * beside it. */
static int report_join(unsigned i, uint64_t now_ms)
{
    int end = join_end(i);
    if (end < 0 || (unsigned)end == i || !wd_snaps[end].waiting_for || !hang_due(&wd_snaps[end], now_ms))
        return 0;
    if (!wd_report_hang(i, now_ms))
        return 0;
    for (int cur = (int)i; cur != end; cur = wd_snaps[cur].next)
        wd_snaps[cur].t->wd_hang_seq = wd_snaps[cur].seq + 1;
    wd_snaps[end].t->wd_hang_seq = wd_snaps[end].seq + 1;
    return 1;
}

static int scan_hangs(uint64_t now_ms, int walked)
{
    if (!hang_limit_ms())
        return 0;
    int any = 0, watch = 0, reports = 0;
    for (unsigned i = 0; i < wd_nsnaps && !any; i++)
        any = hang_due(&wd_snaps[i], now_ms);
    for (unsigned i = 0; i < wd_nsnaps && !watch; i++)
        watch = leader_watch(&wd_snaps[i], now_ms);
    if (!any && !watch)
        return 0;
    if (!walked) {
        if (index_holders() < 0)
            return 0;
        for (unsigned i = 0; i < wd_nsnaps; i++)
            wd_snaps[i].next = wd_waits(&wd_snaps[i]) ? -2 : -1;
    }
    for (unsigned i = 0; i < wd_nsnaps; i++)
        if (leader_watch(&wd_snaps[i], now_ms))
            wd_note_idle_leader(i);
    /* What untimed joins wait for: those threads are reported through
     * their joiners (a timed join may give up: its target speaks alone). */
    for (unsigned i = 0; i < wd_nsnaps; i++)
        wd_snaps[i].joined = 0;
    for (unsigned i = 0; i < wd_nsnaps; i++) {
        if (!wd_snaps[i].joining || wd_snaps[i].wait_timed)
            continue;
        int cur = (int)i;
        for (unsigned steps = 0; steps < wd_nsnaps && wd_snaps[cur].joining; steps++) {
            if (wd_snaps[cur].next == -2)
                wd_snaps[cur].next = wd_holder_of(&wd_snaps[cur]);
            cur = wd_snaps[cur].next;
            if (cur < 0 || wd_snaps[cur].joined)
                break;
            wd_snaps[cur].joined = 1;
        }
    }
    for (unsigned i = 0; i < wd_nsnaps; i++) {
        const struct snap *s = &wd_snaps[i];
        if (!hang_due(s, now_ms) || s->joined)
            continue;
        reports += s->joining ? report_join(i, now_ms) : wd_report_hang(i, now_ms);
    }
    return reports;
}

/* Every thread blocked long enough in an untimed wait, some on a condition
 * (a cycle of lock waits is reported as such): none is left to signal, so
 * none can ever go on — Go's "all goroutines are asleep". Only when the
 * runtime sees every thread of the process (the watchdog aside), no wait
 * can be ended by another process, and no signal handler could post a
 * semaphore. Once per set of waits. */
static int all_blocked(uint64_t now_ms, uint64_t timeout)
{
    static uint64_t reported_episode;
    uint64_t episode = 0;
    unsigned events = 0;
    if (!wd_nsnaps || snapshot_short)
        return 0;
    for (unsigned i = 0; i < wd_nsnaps; i++) {
        const struct snap *s = &wd_snaps[i];
        if (!wd_waits(s) || now_ms - s->since_ms < timeout)
            return 0;
        /* Another process may end a process-shared wait, a timeout any. */
        enum wd_doubt d = wd_snap_doubt(s);
        if (d == WD_TIMED || d == WD_PSHARED)
            return 0;
        events += s->event != NULL;
        episode += rt_hash64((uint64_t)(unsigned)s->tid << 32 ^ s->seq);
    }
    if (!events || episode == reported_episode || rt_process_threads() != (int)wd_nsnaps + 1 ||
        rt_process_catches_signals())
        return 0;
    reported_episode = episode;
    return 1;
}

int rt_watchdog_scan(uint64_t now_ms)
{
    rt_lockdump_poll(now_ms);
    wd_nsnaps = wd_held_used = 0;
    snapshot_short = 0;
    rt_thread_for_each(take_snapshot, NULL);
    if (snapshot_short)
        rt_out_of_memory("the deadlock watchdog's snapshot");
    for (unsigned i = 0; i < wd_nsnaps; i++)
        if (wd_snaps[i].section_pc && wd_snaps[i].nheld)
            wd_held_pool[wd_snaps[i].held_at].stack = rt_site_stack_known(wd_snaps[i].section_pc);
    int reports = 0, any_old = 0;
    uint64_t timeout = (uint64_t)rt_opt.deadlock_timeout_ms;
    for (unsigned i = 0; i < wd_nsnaps; i++) {
        wd_snaps[i].since_ms = wd_waits(&wd_snaps[i]) ? blocked_since(&wd_snaps[i], now_ms) : now_ms;
        if (wd_waits(&wd_snaps[i]) && now_ms - wd_snaps[i].since_ms >= timeout)
            any_old = 1;
    }
    for (unsigned i = 0; i < wd_nsnaps; i++)
        if (wd_snaps[i].rcu_wait && now_ms - wd_snaps[i].since_ms >= (uint64_t)rt_opt.rcu_stall_timeout_ms)
            reports += wd_report_stall(i, now_ms - wd_snaps[i].since_ms);
    if (!any_old || index_holders() < 0)
        return reports + (any_old ? 0 : scan_hangs(now_ms, 0));
    /* Each thread waits for at most one other (holder_of): the wait-for
     * graph is a functional graph, and one walk from every thread blocked
     * long enough finds each of its cycles once, whatever their length. */
    static unsigned *path;
    static unsigned path_cap;
    if (rt_grow_array((void **)&path, &path_cap, wd_nsnaps, sizeof *path) < 0)
        return reports;
    for (unsigned i = 0; i < wd_nsnaps; i++) {
        wd_snaps[i].stamp = 0;
        wd_snaps[i].next = wd_waits(&wd_snaps[i]) ? -2 : -1; /* -2: not looked up yet */
    }
    for (unsigned i = 0; i < wd_nsnaps; i++) {
        if (wd_snaps[i].stamp || !wd_waits(&wd_snaps[i]) || now_ms - wd_snaps[i].since_ms < timeout)
            continue;
        unsigned n = 0, cur = i;
        int cycle_at = -1;
        for (;;) {
            wd_snaps[cur].stamp = i + 1;
            wd_snaps[cur].pos = n;
            path[n++] = cur;
            if (wd_snaps[cur].next == -2)
                wd_snaps[cur].next = wd_holder_of(&wd_snaps[cur]);
            int next = wd_snaps[cur].next;
            if (next < 0 || now_ms - wd_snaps[next].since_ms < timeout || !wd_waits(&wd_snaps[next]))
                break;
            if (wd_snaps[next].stamp == i + 1) {
                cycle_at = (int)wd_snaps[next].pos; /* back on this walk: a cycle */
                break;
            }
            if (wd_snaps[next].stamp)
                break; /* an earlier walk went on from there */
            cur = (unsigned)next;
        }
        if (cycle_at >= 0) {
            unsigned *cyc = &path[cycle_at], len = n - (unsigned)cycle_at;
            rotate_to_oldest(cyc, len);
            reports += wd_report_deadlock(cyc, len, now_ms);
        }
    }
    if (!reports && all_blocked(now_ms, timeout))
        return wd_report_all_blocked(now_ms);
    return reports + scan_hangs(now_ms, 1);
}

/* The live wait-for chain from lock (about to be waited for by t) back to
 * t, for a lock-order report: walked on the threads' own records, not a
 * snapshot (the watchdog's may be in use). */
struct live_search {
    const struct rt_lock *lock;
    uint64_t id;
    uint8_t mode;
    const struct rt_thread *self;
    const struct rt_live_wait *found;
    unsigned nfound;
    struct rt_thread *holder;
};

static int holds_conflicting(const struct rt_thread *t, const struct rt_lock *l, uint64_t id, uint8_t mode)
{
    if (l->rcu_pseudo == 1 && mode != RT_HOLD_READ && rt_rcu_unmaterialized_lock(t) == l)
        return 1;
    const struct rt_held *held = __atomic_load_n(&t->held, __ATOMIC_ACQUIRE);
    unsigned n = __atomic_load_n(&t->nheld, __ATOMIC_ACQUIRE);
    for (unsigned i = 0; i < n && held; i++)
        if (rt_held_is(&held[i], l, id) && !(held[i].mode == RT_HOLD_READ && mode == RT_HOLD_READ))
            return 1;
    return 0;
}

static struct rt_lock *live_wait_of(const struct rt_thread *t, uint8_t *mode)
{
    struct rt_lock *l = __atomic_load_n(&t->waiting_for, __ATOMIC_ACQUIRE);
    *mode = t->wait_mode;
    if (!l && (l = __atomic_load_n(&t->rcu_waiting_for, __ATOMIC_ACQUIRE)))
        *mode = RT_HOLD_WRITE;
    return l;
}

static void find_blocked_holder(struct rt_thread *t, void *arg)
{
    struct live_search *s = arg;
    if (s->holder || t == s->self)
        return;
    for (unsigned i = 0; i < s->nfound; i++)
        if (s->found[i].t == t)
            return;
    uint8_t mode;
    if (live_wait_of(t, &mode) && holds_conflicting(t, s->lock, s->id, s->mode))
        s->holder = t;
}

unsigned rt_watchdog_cycle_now(struct rt_thread *t, const struct rt_lock *lock, unsigned flags,
                               struct rt_live_wait *out, unsigned cap)
{
    struct live_search s = { .lock = lock, .id = __atomic_load_n(&lock->id, __ATOMIC_RELAXED),
                             .mode = (flags & RT_ACQ_READ) ? RT_HOLD_READ : RT_HOLD_WRITE, .self = t, .found = out };
    while (s.nfound < cap) {
        s.holder = NULL;
        rt_thread_for_each(find_blocked_holder, &s);
        if (!s.holder)
            return 0;
        struct rt_live_wait *w = &out[s.nfound++];
        uint8_t mode;
        struct rt_lock *next = live_wait_of(s.holder, &mode);
        if (!next)
            return 0; /* it went on meanwhile */
        w->t = s.holder;
        w->tid = s.holder->tid;
        w->holds = s.lock;
        w->holds_id = s.id;
        w->waits = next;
        w->waits_id = __atomic_load_n(&next->id, __ATOMIC_RELAXED);
        w->seq = s.holder->waiting_for == next ? __atomic_load_n(&s.holder->wait_seq, __ATOMIC_RELAXED)
                                                : __atomic_load_n(&s.holder->rcu_wait_seq, __ATOMIC_RELAXED) | 1ull << 63;
        w->stack = s.holder->waiting_for == next ? s.holder->wait_stack : s.holder->rcu_wait_stack;
        if (holds_conflicting(t, next, w->waits_id, mode))
            return s.nfound; /* back to t: the cycle is closed */
        s.lock = next;
        s.id = w->waits_id;
        s.mode = mode;
    }
    return 0;
}
