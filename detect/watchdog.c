#include "watchdog.h"
#include "engine.h"
#include "lockdesc.h"
#include "rcucheck.h"
#include "report.h"
#include "rt_alloc.h"
#include "lockdump.h"
#include "procstate.h"
#include "runtime.h"
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
    __atomic_store_n(&started, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&creation_seen, 0, __ATOMIC_RELAXED);
}

unsigned rt_watchdog_period_ms(void)
{
    long p = (rt_opt.deadlock_timeout_ms < rt_opt.rcu_stall_timeout_ms ? rt_opt.deadlock_timeout_ms
                                                                       : rt_opt.rcu_stall_timeout_ms) / 4;
    return (unsigned)(p < 5 ? 5 : p > 500 ? 500 : p);
}

/* What the watchdog knows of one thread, copied in one registry walk. Its
 * held locks are all copied (a pool shared by the snapshot): a wait behind
 * a deep nest of locks is a wait all the same. */
struct snap_lock {
    struct rt_lock *lock;
    uint64_t id;
    uintptr_t addr;
    rt_stack_id stack;
    uint8_t mode;
    unsigned owner; /* its snapshot's index */
};
struct snap {
    struct rt_thread *t;
    int tid;
    struct rt_lock *waiting_for;
    uintptr_t joining; /* else, the pthread_t it waits for in pthread_join */
    uintptr_t handle;  /* its own pthread_t */
    uint64_t waiting_id, seq, since_ms;
    rt_stack_id wait_stack;
    uint8_t wait_mode, wait_timed, rcu_wait;
    uint64_t rcu_enter_clock, rcu_wait_clock;
    uintptr_t section_pc; /* its first held entry is a read section recorded inline, begun here */
    unsigned held_at, nheld;
    int next;             /* the thread it waits for (itself for a self-deadlock), -1 none */
    unsigned stamp, pos;  /* cycle search */
};

static struct snap *snaps;
static unsigned nsnaps, snap_cap;
static struct snap_lock *held_pool;
static unsigned held_used, held_cap;
static int snapshot_short; /* out of memory: some thread or lock was not copied */

static void copy_held(struct snap *s, struct rt_lock *lock, uint64_t id, uintptr_t addr, rt_stack_id stack,
                      uint8_t mode)
{
    if (rt_grow_array((void **)&held_pool, &held_cap, held_used + 1, sizeof *held_pool) < 0) {
        snapshot_short = 1;
        return;
    }
    struct snap_lock *h = &held_pool[held_used++];
    h->lock = lock;
    h->id = id;
    h->addr = addr;
    h->stack = stack;
    h->mode = mode;
    h->owner = (unsigned)(s - snaps);
    s->nheld++;
}

static void take_snapshot(struct rt_thread *t, void *arg)
{
    (void)arg;
    if (rt_grow_array((void **)&snaps, &snap_cap, nsnaps + 1, sizeof *snaps) < 0) {
        snapshot_short = 1;
        return;
    }
    struct snap *s = &snaps[nsnaps++];
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
    s->waiting_id = s->waiting_for ? __atomic_load_n(&s->waiting_for->id, __ATOMIC_RELAXED) : 0;
    s->rcu_enter_clock = rt_rcu_enter_clock(t);
    s->rcu_wait_clock = t->rcu.wait_clock;
    s->held_at = held_used;
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
        copy_held(s, held[i].lock, held[i].id, held[i].addr, held[i].stack, held[i].mode);
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

static int waits(const struct snap *s)
{
    return s->waiting_for || s->joining;
}

/* Holders by lock: an open-addressed table of held_pool indices + 1. */
static unsigned *holders;
static unsigned holders_mask;

static unsigned lock_slot(const struct rt_lock *l)
{
    return (unsigned)rt_hash64((uintptr_t)l) & holders_mask;
}

static int index_holders(void)
{
    unsigned need = 16;
    while (need < held_used * 2)
        need *= 2;
    static unsigned cap;
    if (rt_grow_array((void **)&holders, &cap, need, sizeof *holders) < 0)
        return -1;
    holders_mask = need - 1;
    memset(holders, 0, need * sizeof *holders);
    for (unsigned i = 0; i < held_used; i++) {
        unsigned slot = lock_slot(held_pool[i].lock);
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
    const struct snap *o = &snaps[h->owner];
    if (s->rcu_wait && s->waiting_for->rcu_pseudo == 1 && o->rcu_enter_clock >= s->rcu_wait_clock)
        return 0;
    return 1;
}

/* The thread s waits for: itself when it holds what it waits for (it can
 * never go on, whoever else holds it too), else a holder that is itself
 * blocked (the one that can close a cycle), else any holder; or -1. */
static int holder_of(const struct snap *s)
{
    unsigned self = (unsigned)(s - snaps);
    if (s->joining) {
        for (unsigned i = 0; i < nsnaps; i++)
            if (i != self && snaps[i].handle == s->joining)
                return (int)i;
        return -1;
    }
    for (unsigned j = 0; j < s->nheld; j++)
        if (blocks(&held_pool[s->held_at + j], s))
            return (int)self;
    int any = -1;
    for (unsigned slot = lock_slot(s->waiting_for); holders[slot]; slot = (slot + 1) & holders_mask) {
        const struct snap_lock *h = &held_pool[holders[slot] - 1];
        if (h->owner == self || !blocks(h, s))
            continue;
        if (waits(&snaps[h->owner]))
            return (int)h->owner;
        if (any < 0)
            any = (int)h->owner;
    }
    return any;
}

static const struct snap_lock *held_entry(const struct snap *s, const struct rt_lock *l, uint64_t id)
{
    for (unsigned j = 0; j < s->nheld; j++)
        if (held_pool[s->held_at + j].lock == l && held_pool[s->held_at + j].id == id)
            return &held_pool[s->held_at + j];
    return NULL;
}

static const char *held_site(const struct snap *s, const struct rt_lock *l, uint64_t id, char *out, size_t cap)
{
    const struct snap_lock *h = held_entry(s, l, id);
    if (!h)
        return "an unknown place";
    rt_stack_site(h->stack, out, cap);
    return out;
}

static const struct rt_lock *live_lock(const struct rt_lock *l, uint64_t id)
{
    return l && __atomic_load_n(&l->id, __ATOMIC_RELAXED) == id ? l : NULL;
}

/* Cycles a lock-order report already showed happening (rt_watchdog_note_now):
 * the watchdog's report of the same waits refers to it. */
#define NOTED_EPISODES 8
#define NOTED_THREADS 16
static struct {
    unsigned n;
    struct { const struct rt_thread *t; uint64_t seq; } w[NOTED_THREADS];
    char cycle[256];
} noted[NOTED_EPISODES];
static unsigned noted_next;
static rt_spin_t noted_lock = RT_SPIN_INIT;

void rt_watchdog_note_now(const struct rt_live_wait *w, unsigned n, const char *cycle)
{
    rt_spin_lock(&noted_lock);
    unsigned e = noted_next++ % NOTED_EPISODES;
    noted[e].n = n < NOTED_THREADS ? n : NOTED_THREADS;
    for (unsigned i = 0; i < noted[e].n; i++) {
        noted[e].w[i].t = w[i].t;
        noted[e].w[i].seq = w[i].seq;
    }
    struct rt_buf b;
    rt_buf_init(&b, noted[e].cycle, sizeof noted[e].cycle);
    rt_buf_puts(&b, cycle);
    rt_spin_unlock(&noted_lock);
}

/* The episode that noted every wait of the cycle, copied to out; 0 if none. */
static int noted_episode(const unsigned *cycle, unsigned n, char *out, size_t cap)
{
    int found = 0;
    rt_spin_lock(&noted_lock);
    for (unsigned e = 0; e < NOTED_EPISODES && !found; e++) {
        unsigned hits = 0;
        for (unsigned i = 0; i < n; i++)
            for (unsigned k = 0; k < noted[e].n; k++)
                if (noted[e].w[k].t == snaps[cycle[i]].t && noted[e].w[k].seq == snaps[cycle[i]].seq) {
                    hits++;
                    break;
                }
        if (n && hits == n) {
            struct rt_buf b;
            rt_buf_init(&b, out, cap);
            rt_buf_puts(&b, noted[e].cycle);
            found = 1;
        }
    }
    rt_spin_unlock(&noted_lock);
    return found;
}

void rt_report_wait_on_orphan(struct rt_thread *t, struct rt_lock *l)
{
    char comm[32], desc[512];
    int why = __atomic_load_n(&l->held_by_exited, __ATOMIC_ACQUIRE);
    rt_thread_comm(t->tid, comm, sizeof comm);
    rt_lock_describe(l, __atomic_load_n(&l->addr, __ATOMIC_RELAXED), desc, sizeof desc);
    struct rt_report *r = rt_report_begin(RT_KIND_DEADLOCK, t->tid);
    if (!r)
        return;
    rt_report_headline(r, "BUG: deadlock detected, 1 thread blocked on a lock whose holder does not exist");
    rt_report_stack(r, t->wait_stack, "%s/%d blocks waiting for %s, at:", comm, t->tid, desc);
    if (why == RT_HOLDER_FORKED_AWAY)
        rt_report_text(r, "The lock was held at fork() by a thread of the parent (see the lock-held-at-fork report): "
                          "it was held at fork by a thread that does not exist in this process, so nobody can "
                          "release it and this wait never ends.");
    else
        rt_report_text(r, "The lock's holder exited or was cancelled while holding it (see the lock-held-at-exit "
                          "report): nobody can release it and this wait never ends.");
    rt_report_held_locks(r, t, comm);
    if (rt_opt.exit_on_deadlock)
        rt_report_fatal(r);
    rt_report_key(r, rt_hash64(__atomic_load_n(&l->id, __ATOMIC_RELAXED)) ^ 0x0f4a);
    rt_report_finish(r);
}

static int report_deadlock(const unsigned *cycle, unsigned n, uint64_t now)
{
    struct rt_report *r = rt_report_begin(RT_KIND_DEADLOCK, snaps[cycle[0]].tid);
    if (!r)
        return 0;
    char line[1024], earlier[256];
    struct rt_buf cyc;
    rt_buf_init(&cyc, line, sizeof line);
    if (n == 1)
        rt_report_headline(r, "BUG: deadlock detected, 1 thread blocked in a cycle");
    else
        rt_report_headline(r, "BUG: deadlock detected, %u threads blocked in a cycle", n);
    int again = n > 1 && noted_episode(cycle, n, earlier, sizeof earlier);
    uint64_t key = 0;
    int joins = 0, timed = 0;
    for (unsigned i = 0; i < n; i++) {
        const struct snap *s = &snaps[cycle[i]], *h = &snaps[cycle[(i + 1) % n]];
        char comm[32], hcomm[32], desc[512], name[160];
        unsigned long ms = (unsigned long)(now - s->since_ms);
        rt_thread_comm(s->tid, comm, sizeof comm);
        rt_thread_comm(h->tid, hcomm, sizeof hcomm);
        timed |= s->wait_timed;
        if (s->joining) {
            rt_report_stack(r, s->wait_stack, "%s/%d blocked %lu ms joining %s/%d (waiting for it to end), at:",
                            comm, s->tid, ms, hcomm, h->tid);
            /* Named without its tid: the cycle line is part of the signature. */
            rt_buf_printf(&cyc, "%sthread %s", i ? " -> " : "cycle: ", hcomm);
            key += rt_hash64(0x6a6f696e); /* tids differ from run to run */
            joins++;
            continue;
        }
        rt_lock_describe(live_lock(s->waiting_for, s->waiting_id), s->waiting_for->addr, desc, sizeof desc);
        const char *how = s->rcu_wait ? "in a grace-period wait " : s->wait_mode == RT_HOLD_READ ? "to read " : "";
        if (n == 1)
            rt_report_stack(r, s->wait_stack, "%s/%d blocked %lu ms waiting %sfor %s, which it holds itself, at:",
                            comm, s->tid, ms, how, desc);
        else if (again && i > 0)
            rt_report_text(r, "%s/%d blocked %lu ms waiting %sfor %s, held by %s/%d;", comm, s->tid, ms, how, desc,
                           hcomm, h->tid);
        else
            rt_report_stack(r, s->wait_stack, "%s/%d blocked %lu ms waiting %sfor %s, held by %s/%d, at:", comm,
                            s->tid, ms, how, desc, hcomm, h->tid);
        rt_lock_name(live_lock(s->waiting_for, s->waiting_id), s->waiting_for->addr, name, sizeof name);
        rt_buf_printf(&cyc, "%s%s", i ? " -> " : "cycle: ", name);
        key += rt_hash64(s->waiting_id);
    }
    unsigned last_lock = 0; /* the last wait for a lock, whose line ends the list */
    for (unsigned i = 0; i < n; i++)
        if (!snaps[cycle[i]].joining)
            last_lock = i;
    for (unsigned i = 0; i < n && !again; i++) {
        const struct snap *s = &snaps[cycle[i]], *h = &snaps[cycle[(i + 1) % n]];
        char hcomm[32], name[160], site[256];
        rt_thread_comm(h->tid, hcomm, sizeof hcomm);
        if (s->joining)
            continue;
        rt_lock_name(live_lock(s->waiting_for, s->waiting_id), s->waiting_for->addr, name, sizeof name);
        rt_report_text(r, "%s was %s by %s/%d at %s%s", name, s->rcu_wait ? "entered" : "taken", hcomm, h->tid,
                       held_site(h, s->waiting_for, s->waiting_id, site, sizeof site), i < last_lock ? ";" : ".");
    }
    {
        char name[160];
        const struct snap *s = &snaps[cycle[0]];
        if (s->joining) {
            const struct snap *h = &snaps[cycle[n > 1 ? 1 : 0]];
            char hcomm[32];
            rt_thread_comm(h->tid, hcomm, sizeof hcomm);
            rt_buf_printf(&cyc, " -> thread %s", hcomm);
        } else {
            rt_lock_name(live_lock(s->waiting_for, s->waiting_id), s->waiting_for->addr, name, sizeof name);
            rt_buf_printf(&cyc, " -> %s", name);
        }
    }
    rt_report_text(r, "%s", line);
    if (again)
        rt_report_text(r, "This is the deadlock the lock-order-inversion report above showed happening (%s); "
                          "the threads are still blocked.", earlier);
    else if (n == 1)
        rt_report_text(r, "The thread waits for itself and can never go on (%s reported it when the wait began).",
                       snaps[cycle[0]].rcu_wait ? "rcu-sync-in-reader" : "recursive-locking");
    else
        rt_report_text(r, joins ? "None of these threads can go on: each waits for a lock that the next one holds, "
                                  "or for the next one to end."
                                : "None of these threads can go on: each waits for a lock that the next one holds.");
    if (timed)
        rt_report_text(r, "A wait of the cycle has a timeout: when it expires the program may recover, so the run "
                          "goes on.");
    else if (rt_opt.exit_on_deadlock)
        rt_report_fatal(r);
    rt_report_key(r, key + n);
    return rt_report_finish(r);
}

/* A grace period blocked too long: name the readers that block it. */
static int report_stall(unsigned waiter, uint64_t blocked_ms)
{
    const struct snap *w = &snaps[waiter];
    char comm[32];
    rt_thread_comm(w->tid, comm, sizeof comm);
    struct rt_report *r = rt_report_begin(RT_KIND_RCU_STALL, w->tid);
    if (!r)
        return 0;
    rt_report_headline(r, "INFO: rcu detected stall: grace period blocked %lu ms by readers", (unsigned long)blocked_ms);
    rt_report_stack(r, w->wait_stack, "%s/%d has waited %lu ms in %s at:", comm, w->tid, (unsigned long)blocked_ms,
                    w->waiting_for->rcu_pseudo == 2 ? "rcu_barrier()" : "synchronize_rcu()");
    unsigned readers = 0;
    for (unsigned k = 0; k < held_used; k++) {
        const struct snap_lock *h = &held_pool[k];
        const struct snap *o = &snaps[h->owner];
        /* Only readers older than the grace period hold it up. */
        if (h->lock != w->waiting_for || h->mode != RT_HOLD_READ ||
            (w->waiting_for->rcu_pseudo == 1 && o->rcu_enter_clock >= w->rcu_wait_clock))
            continue;
        char rcomm[32];
        rt_thread_comm(o->tid, rcomm, sizeof rcomm);
        rt_stack_id entered = k == o->held_at && o->section_pc ? rt_site_stack_complete(o->section_pc, 0) : h->stack;
        rt_report_stack(r, entered, "blocked by reader %s/%d, in the section it entered at:", rcomm, o->tid);
        readers++;
    }
    if (!readers)
        rt_report_text(r, "no reader is known to the runtime (a reader in code it does not see, or a callback)");
    rt_report_key(r, (uint64_t)w->tid << 32 ^ w->seq);
    return rt_report_finish(r);
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
    if (!a->joining != !b->joining)
        return !a->joining;
    return a->tid < b->tid;
}

static void rotate_to_oldest(unsigned *cyc, unsigned n)
{
    unsigned k = 0;
    for (unsigned i = 1; i < n; i++)
        if (starts_before(&snaps[cyc[i]], &snaps[cyc[k]]))
            k = i;
    reverse(cyc, k);
    reverse(cyc + k, n - k);
    reverse(cyc, n);
}

/* Where the chain of waits from s ends: -1 when it goes round a cycle (a
 * deadlock, reported as such), else the last thread of the chain. */
static int chain_end(unsigned s)
{
    int cur = (int)s;
    for (unsigned steps = 0; steps <= nsnaps; steps++) {
        if (snaps[cur].next == -2)
            snaps[cur].next = holder_of(&snaps[cur]);
        int next = snaps[cur].next;
        if (next < 0 || next == cur || !waits(&snaps[next]))
            return next == cur ? -1 : (next < 0 ? cur : next);
        cur = next;
    }
    return -1;
}

/* The kernel's hung-task report, for a thread blocked hang_timeout_ms on a
 * lock, a join or a grace period with no cycle behind it: the waiter, the
 * holder and what it is doing now, and every thread's locks and waits.
 * Once per waiting episode; the same shape of hang once per process. */
static int report_hang(unsigned i, uint64_t now)
{
    struct snap *s = &snaps[i];
    int end = chain_end(i);
    if (end < 0)
        return 0;
    s->t->wd_hang_seq = s->seq + 1;
    unsigned long ms = (unsigned long)(now - s->since_ms);
    char secs[32];
    struct rt_buf sb;
    rt_buf_init(&sb, secs, sizeof secs);
    if (ms < 10000)
        rt_buf_printf(&sb, "%lu.%lu", ms / 1000, ms % 1000 / 100); /* short timeouts (tests) */
    else
        rt_buf_printf(&sb, "%lu", ms / 1000);
    char comm[32], desc[512];
    rt_thread_comm(s->tid, comm, sizeof comm);
    struct rt_report *r = rt_report_begin(RT_KIND_BLOCKED_TOO_LONG, s->tid);
    if (!r)
        return 0;
    int warn = rt_opt.hang_severity == RT_HANG_WARNING;
    if (warn)
        rt_report_set_severity(r, RT_SEV_WARNING);
    rt_report_headline(r, "%s: thread %s/%d blocked for more than %s seconds", warn ? "WARNING" : "INFO", comm,
                       s->tid, secs);
    int next = snaps[i].next;
    if (s->joining) {
        char hcomm[32] = "a thread";
        int htid = next >= 0 ? snaps[next].tid : 0;
        if (htid)
            rt_thread_comm(htid, hcomm, sizeof hcomm);
        rt_report_stack(r, s->wait_stack, "%s/%d has been blocked %lu ms joining %s/%d, at:", comm, s->tid,
                        (unsigned long)(now - s->since_ms), hcomm, htid);
    } else {
        rt_lock_describe(live_lock(s->waiting_for, s->waiting_id), s->waiting_for->addr, desc, sizeof desc);
        rt_report_stack(r, s->wait_stack, "%s/%d has been blocked %lu ms waiting %sfor %s, at:", comm, s->tid,
                        (unsigned long)(now - s->since_ms), s->rcu_wait ? "in a grace period " : "", desc);
    }
    /* Along the chain: who holds what the previous one waits for. */
    for (int cur = (int)i, hops = 0; hops < 8; hops++) {
        int h = snaps[cur].next;
        if (h < 0 || h == cur)
            break;
        char hcomm[32], name[160], act[256];
        rt_thread_comm(snaps[h].tid, hcomm, sizeof hcomm);
        if (!snaps[cur].joining) {
            const struct snap_lock *e = held_entry(&snaps[h], snaps[cur].waiting_for, snaps[cur].waiting_id);
            rt_lock_name(live_lock(snaps[cur].waiting_for, snaps[cur].waiting_id), snaps[cur].waiting_for->addr, name,
                         sizeof name);
            rt_report_stack(r, e ? e->stack : 0, "%s is held by %s/%d, taken at:", name, hcomm, snaps[h].tid);
        }
        if (waits(&snaps[h])) {
            if (snaps[h].joining) {
                rt_report_text(r, "%s/%d is itself blocked %lu ms joining another thread.", hcomm, snaps[h].tid,
                               (unsigned long)(now - snaps[h].since_ms));
            } else {
                rt_lock_name(live_lock(snaps[h].waiting_for, snaps[h].waiting_id), snaps[h].waiting_for->addr, name,
                             sizeof name);
                rt_report_stack(r, snaps[h].wait_stack, "%s/%d is itself blocked %lu ms waiting for %s, at:", hcomm,
                                snaps[h].tid, (unsigned long)(now - snaps[h].since_ms), name);
            }
            cur = h;
            continue;
        }
        rt_thread_activity(snaps[h].tid, act, sizeof act);
        rt_report_text(r, "%s/%d is not waiting for a lock: %s.", hcomm, snaps[h].tid, act);
        break;
    }
    rt_report_text(r, "Locks held and waits of every thread:");
    for (unsigned k = 0; k < nsnaps; k++) {
        if (!snaps[k].nheld && !waits(&snaps[k]))
            continue;
        char kcomm[32];
        rt_thread_comm(snaps[k].tid, kcomm, sizeof kcomm);
        if (snaps[k].nheld)
            rt_report_held_locks(r, snaps[k].t, kcomm);
        if (waits(&snaps[k]) && !snaps[k].joining) {
            char name[160];
            rt_lock_name(live_lock(snaps[k].waiting_for, snaps[k].waiting_id), snaps[k].waiting_for->addr, name,
                         sizeof name);
            rt_report_text(r, " %s/%d waits for %s (%lu ms)", kcomm, snaps[k].tid, name,
                           (unsigned long)(now - snaps[k].since_ms));
        } else if (snaps[k].joining) {
            rt_report_text(r, " %s/%d waits in pthread_join (%lu ms)", kcomm, snaps[k].tid,
                           (unsigned long)(now - snaps[k].since_ms));
        }
    }
    rt_report_text(r, "No cycle of waits holds these threads (that would be a deadlock): the chain ends in a thread "
                      "that does not wait for a lock. hang_timeout_ms=%ld; hang_severity=warning makes this fail a "
                      "CI run.",
                   rt_opt.hang_timeout_ms);
    rt_report_key(r, rt_hash64((uint64_t)s->wait_stack * 31 + s->waiting_id) ^ 0x4a4e47);
    return rt_report_finish(r);
}

/* Threads blocked hang_timeout_ms in one wait, each reported once per
 * episode (the holders' index is made here if the deadlock walk did not). */
static int scan_hangs(uint64_t now_ms, int walked)
{
    uint64_t limit = (uint64_t)rt_opt.hang_timeout_ms;
    if (!limit)
        return 0;
    int any = 0, reports = 0;
    for (unsigned i = 0; i < nsnaps && !any; i++)
        any = waits(&snaps[i]) && now_ms - snaps[i].since_ms >= limit && snaps[i].t->wd_hang_seq != snaps[i].seq + 1;
    if (!any)
        return 0;
    if (!walked) {
        if (index_holders() < 0)
            return 0;
        for (unsigned i = 0; i < nsnaps; i++)
            snaps[i].next = waits(&snaps[i]) ? -2 : -1;
    }
    for (unsigned i = 0; i < nsnaps; i++)
        if (waits(&snaps[i]) && now_ms - snaps[i].since_ms >= limit && snaps[i].t->wd_hang_seq != snaps[i].seq + 1)
            reports += report_hang(i, now_ms);
    return reports;
}

int rt_watchdog_scan(uint64_t now_ms)
{
    rt_lockdump_poll(now_ms);
    nsnaps = held_used = 0;
    snapshot_short = 0;
    rt_thread_for_each(take_snapshot, NULL);
    if (snapshot_short)
        rt_out_of_memory("the deadlock watchdog's snapshot");
    for (unsigned i = 0; i < nsnaps; i++)
        if (snaps[i].section_pc && snaps[i].nheld)
            held_pool[snaps[i].held_at].stack = rt_site_stack_known(snaps[i].section_pc);
    int reports = 0, any_old = 0;
    uint64_t timeout = (uint64_t)rt_opt.deadlock_timeout_ms;
    for (unsigned i = 0; i < nsnaps; i++) {
        snaps[i].since_ms = waits(&snaps[i]) ? blocked_since(&snaps[i], now_ms) : now_ms;
        if (waits(&snaps[i]) && now_ms - snaps[i].since_ms >= timeout)
            any_old = 1;
    }
    for (unsigned i = 0; i < nsnaps; i++)
        if (snaps[i].rcu_wait && now_ms - snaps[i].since_ms >= (uint64_t)rt_opt.rcu_stall_timeout_ms)
            reports += report_stall(i, now_ms - snaps[i].since_ms);
    if (!any_old || index_holders() < 0)
        return reports + (any_old ? 0 : scan_hangs(now_ms, 0));
    /* Each thread waits for at most one other (holder_of): the wait-for
     * graph is a functional graph, and one walk from every thread blocked
     * long enough finds each of its cycles once, whatever their length. */
    static unsigned *path;
    static unsigned path_cap;
    if (rt_grow_array((void **)&path, &path_cap, nsnaps, sizeof *path) < 0)
        return reports;
    for (unsigned i = 0; i < nsnaps; i++) {
        snaps[i].stamp = 0;
        snaps[i].next = waits(&snaps[i]) ? -2 : -1; /* -2: not looked up yet */
    }
    for (unsigned i = 0; i < nsnaps; i++) {
        if (snaps[i].stamp || !waits(&snaps[i]) || now_ms - snaps[i].since_ms < timeout)
            continue;
        unsigned n = 0, cur = i;
        int cycle_at = -1;
        for (;;) {
            snaps[cur].stamp = i + 1;
            snaps[cur].pos = n;
            path[n++] = cur;
            if (snaps[cur].next == -2)
                snaps[cur].next = holder_of(&snaps[cur]);
            int next = snaps[cur].next;
            if (next < 0 || now_ms - snaps[next].since_ms < timeout || !waits(&snaps[next]))
                break;
            if (snaps[next].stamp == i + 1) {
                cycle_at = (int)snaps[next].pos; /* back on this walk: a cycle */
                break;
            }
            if (snaps[next].stamp)
                break; /* an earlier walk went on from there */
            cur = (unsigned)next;
        }
        if (cycle_at >= 0) {
            unsigned *cyc = &path[cycle_at], len = n - (unsigned)cycle_at;
            rotate_to_oldest(cyc, len);
            reports += report_deadlock(cyc, len, now_ms);
        }
    }
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
        if (held[i].lock == l && held[i].id == id && !(held[i].mode == RT_HOLD_READ && mode == RT_HOLD_READ))
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
