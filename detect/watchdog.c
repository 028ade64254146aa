#include "watchdog.h"
#include "engine.h"
#include "lockdesc.h"
#include "rcucheck.h"
#include "report.h"
#include "rt_alloc.h"
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

/* What the watchdog knows of one thread, copied in one registry walk. */
#define SNAP_HELD 16
struct snap {
    struct rt_thread *t;
    int tid;
    struct rt_lock *waiting_for;
    uintptr_t joining; /* else, the pthread_t it waits for in pthread_join */
    uintptr_t handle;  /* its own pthread_t */
    uint64_t waiting_id, seq;
    rt_stack_id wait_stack;
    uint8_t wait_mode;
    uint64_t rcu_enter_clock, rcu_wait_clock;
    uintptr_t section_pc; /* held[0] is a read section recorded inline, begun here */
    unsigned nheld;
    struct { struct rt_lock *lock; uint64_t id; uintptr_t addr; rt_stack_id stack; uint8_t mode; } held[SNAP_HELD];
};

/* The watchdog's memory of when each wait began, by thread and wait seq. */
#define TRACK_SLOTS 4096
static struct { struct rt_thread *t; uint64_t seq; uint64_t since_ms; } track[TRACK_SLOTS];
static struct snap *snaps;
static unsigned nsnaps, snap_cap;

static void take_snapshot(struct rt_thread *t, void *arg)
{
    (void)arg;
    if (nsnaps >= snap_cap)
        return;
    struct snap *s = &snaps[nsnaps++];
    s->t = t;
    s->tid = t->tid;
    s->handle = t->handle;
    /* A real lock wait, else a wait for RCU readers. */
    s->waiting_for = __atomic_load_n(&t->waiting_for, __ATOMIC_ACQUIRE);
    s->seq = __atomic_load_n(&t->wait_seq, __ATOMIC_RELAXED);
    s->wait_stack = t->wait_stack;
    s->wait_mode = t->wait_mode;
    if (!s->waiting_for && (s->waiting_for = __atomic_load_n(&t->rcu_waiting_for, __ATOMIC_ACQUIRE))) {
        s->seq = __atomic_load_n(&t->rcu_wait_seq, __ATOMIC_RELAXED) | 1ull << 63;
        s->wait_stack = t->rcu_wait_stack;
        s->wait_mode = RT_HOLD_WRITE;
    }
    s->joining = s->waiting_for ? 0 : __atomic_load_n(&t->joining, __ATOMIC_ACQUIRE);
    s->waiting_id = s->waiting_for ? __atomic_load_n(&s->waiting_for->id, __ATOMIC_RELAXED) : 0;
    s->rcu_enter_clock = rt_rcu_enter_clock(t);
    s->rcu_wait_clock = t->rcu.wait_clock;
    const struct rt_held *held = __atomic_load_n(&t->held, __ATOMIC_ACQUIRE);
    unsigned n = __atomic_load_n(&t->nheld, __ATOMIC_ACQUIRE);
    /* A read section that record mode has not pushed holds its RCU lock
     * all the same, from before any lock on the stack. */
    struct rt_lock *section = rt_rcu_unmaterialized_lock(t);
    unsigned k = 0;
    s->section_pc = 0;
    if (section) {
        s->held[0].lock = section;
        s->held[0].id = __atomic_load_n(&section->id, __ATOMIC_RELAXED);
        s->held[0].addr = __atomic_load_n(&section->addr, __ATOMIC_RELAXED);
        s->held[0].stack = 0; /* made after the walk, from section_pc */
        s->section_pc = rt_rcu_enter_pc(t);
        s->held[0].mode = RT_HOLD_READ;
        k = 1;
    }
    unsigned i = 0;
    for (; i < n && k < SNAP_HELD; i++) {
        if (section && held[i].lock == section)
            continue; /* pushed meanwhile */
        s->held[k].lock = held[i].lock;
        s->held[k].id = held[i].id;
        s->held[k].addr = held[i].addr;
        s->held[k].stack = held[i].stack;
        s->held[k].mode = held[i].mode;
        k++;
    }
    s->nheld = k + (n - i); /* beyond SNAP_HELD only counted */
}

static uint64_t blocked_since(struct snap *s, uint64_t now)
{
    unsigned slot = (unsigned)(((uintptr_t)s->t >> 6) % TRACK_SLOTS);
    if (track[slot].t != s->t || track[slot].seq != s->seq) {
        track[slot].t = s->t;
        track[slot].seq = s->seq;
        track[slot].since_ms = now;
    }
    return track[slot].since_ms;
}

static int waits(const struct snap *s)
{
    return s->waiting_for || s->joining;
}

/* A thread that holds the lock s waits for (in a conflicting mode), or
 * that s joins; or -1. */
static int holder_of(const struct snap *s)
{
    if (s->joining) {
        for (unsigned i = 0; i < nsnaps; i++)
            if (&snaps[i] != s && snaps[i].handle == s->joining)
                return (int)i;
        return -1;
    }
    for (unsigned i = 0; i < nsnaps; i++) {
        const struct snap *o = &snaps[i];
        if (o == s)
            continue;
        for (unsigned j = 0; j < o->nheld && j < SNAP_HELD; j++)
            if (o->held[j].lock == s->waiting_for && o->held[j].id == s->waiting_id &&
                !(o->held[j].mode == RT_HOLD_READ && s->wait_mode == RT_HOLD_READ))
                return (int)i;
    }
    return -1;
}

static const char *held_site(const struct snap *s, const struct rt_lock *l, uint64_t id, char *out, size_t cap)
{
    for (unsigned j = 0; j < s->nheld && j < SNAP_HELD; j++)
        if (s->held[j].lock == l && s->held[j].id == id) {
            rt_stack_site(s->held[j].stack, out, cap);
            return out;
        }
    return "an unknown place";
}

static const struct rt_lock *live_lock(const struct rt_lock *l, uint64_t id)
{
    return l && __atomic_load_n(&l->id, __ATOMIC_RELAXED) == id ? l : NULL;
}

static int report_deadlock(const unsigned *cycle, unsigned n, const uint64_t *since, uint64_t now)
{
    struct rt_report *r = rt_report_begin(RT_KIND_DEADLOCK, snaps[cycle[0]].tid);
    if (!r)
        return 0;
    char line[1024];
    struct rt_buf cyc;
    rt_buf_init(&cyc, line, sizeof line);
    rt_report_headline(r, "BUG: deadlock detected, %u threads blocked in a cycle", n);
    uint64_t key = 0;
    int joins = 0;
    for (unsigned i = 0; i < n; i++) {
        const struct snap *s = &snaps[cycle[i]], *h = &snaps[cycle[(i + 1) % n]];
        char comm[32], hcomm[32], desc[512], name[160];
        rt_thread_comm(s->tid, comm, sizeof comm);
        rt_thread_comm(h->tid, hcomm, sizeof hcomm);
        if (s->joining) {
            rt_report_stack(r, s->wait_stack, "%s/%d blocked %lu ms joining %s/%d (waiting for it to end), at:",
                            comm, s->tid, (unsigned long)(now - since[i]), hcomm, h->tid);
            /* Named without its tid: the cycle line is part of the signature. */
            rt_buf_printf(&cyc, "%sthread %s", i ? " -> " : "cycle: ", hcomm);
            key += rt_hash64(0x6a6f696e); /* tids differ from run to run */
            joins++;
            continue;
        }
        rt_lock_describe(live_lock(s->waiting_for, s->waiting_id), s->waiting_for->addr, desc, sizeof desc);
        rt_report_stack(r, s->wait_stack, "%s/%d blocked %lu ms waiting %sfor %s, held by %s/%d, at:", comm, s->tid,
                        (unsigned long)(now - since[i]), s->wait_mode == RT_HOLD_READ ? "to read " : "", desc, hcomm,
                        h->tid);
        rt_lock_name(live_lock(s->waiting_for, s->waiting_id), s->waiting_for->addr, name, sizeof name);
        rt_buf_printf(&cyc, "%s%s", i ? " -> " : "cycle: ", name);
        key += rt_hash64(s->waiting_id);
    }
    unsigned last_lock = 0; /* the last wait for a lock, whose line ends the list */
    for (unsigned i = 0; i < n; i++)
        if (!snaps[cycle[i]].joining)
            last_lock = i;
    for (unsigned i = 0; i < n; i++) {
        const struct snap *s = &snaps[cycle[i]], *h = &snaps[cycle[(i + 1) % n]];
        char hcomm[32], name[160], site[256];
        rt_thread_comm(h->tid, hcomm, sizeof hcomm);
        if (s->joining)
            continue;
        rt_lock_name(live_lock(s->waiting_for, s->waiting_id), s->waiting_for->addr, name, sizeof name);
        rt_report_text(r, "%s was taken by %s/%d at %s%s", name, hcomm, h->tid,
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
    rt_report_text(r, joins ? "None of these threads can go on: each waits for a lock that the next one holds, or "
                              "for the next one to end."
                            : "None of these threads can go on: each waits for a lock that the next one holds.");
    rt_report_key(r, key);
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
    for (unsigned i = 0; i < nsnaps; i++)
        for (unsigned j = 0; j < snaps[i].nheld && j < SNAP_HELD; j++)
            /* Only readers older than the grace period hold it up. */
            if (snaps[i].held[j].lock == w->waiting_for && snaps[i].held[j].mode == RT_HOLD_READ &&
                (w->waiting_for->rcu_pseudo != 1 || snaps[i].rcu_enter_clock < w->rcu_wait_clock)) {
                char rcomm[32];
                rt_thread_comm(snaps[i].tid, rcomm, sizeof rcomm);
                rt_stack_id entered = j == 0 && snaps[i].section_pc ? rt_site_stack_complete(snaps[i].section_pc, 0)
                                                                       : snaps[i].held[j].stack;
                rt_report_stack(r, entered, "blocked by reader %s/%d, in the section it entered at:", rcomm,
                                snaps[i].tid);
                readers++;
            }
    if (!readers)
        rt_report_text(r, "no reader is known to the runtime (a reader in code it does not see, or a callback)");
    rt_report_key(r, (uint64_t)w->tid << 32 ^ w->seq);
    return rt_report_finish(r);
}

int rt_watchdog_scan(uint64_t now_ms)
{
    if (!snaps) {
        snap_cap = 4096;
        snaps = rt_zalloc(snap_cap * sizeof *snaps);
        if (!snaps)
            return 0;
    }
    nsnaps = 0;
    rt_thread_for_each(take_snapshot, NULL);
    for (unsigned i = 0; i < nsnaps; i++)
        if (snaps[i].section_pc)
            snaps[i].held[0].stack = rt_site_stack_known(snaps[i].section_pc);
    int reports = 0;
    uint64_t timeout = (uint64_t)rt_opt.deadlock_timeout_ms;
    static uint64_t since[TRACK_SLOTS];
    for (unsigned i = 0; i < nsnaps; i++)
        since[i % TRACK_SLOTS] = waits(&snaps[i]) ? blocked_since(&snaps[i], now_ms) : now_ms;
    for (unsigned i = 0; i < nsnaps; i++)
        if (snaps[i].waiting_for && snaps[i].waiting_for->rcu_pseudo &&
            now_ms - since[i] >= (uint64_t)rt_opt.rcu_stall_timeout_ms)
            reports += report_stall(i, now_ms - since[i]);
    for (unsigned i = 0; i < nsnaps; i++) {
        if (!waits(&snaps[i]) || now_ms - since[i] < timeout)
            continue;
        /* Follow waits: i -> holder -> holder's wait -> ...; a return to a
         * thread already on the path is a cycle. */
        unsigned path[64], n = 0, cur = i;
        int cycle_at = -1;
        while (n < 64) {
            path[n++] = cur;
            if (!waits(&snaps[cur]))
                break;
            int next = holder_of(&snaps[cur]);
            if (next < 0)
                break;
            for (unsigned k = 0; k < n; k++)
                if (path[k] == (unsigned)next)
                    cycle_at = (int)k;
            if (cycle_at >= 0)
                break;
            cur = (unsigned)next;
        }
        if (cycle_at < 0)
            continue;
        /* Report each cycle from its lowest thread only, and only when all of
         * its threads have been blocked long enough. */
        unsigned len = n - (unsigned)cycle_at, lowest = path[cycle_at];
        int ready = 1;
        uint64_t cyc_since[64];
        for (unsigned k = 0; k < len; k++) {
            unsigned idx = path[cycle_at + k];
            if (idx < lowest)
                lowest = idx;
            cyc_since[k] = since[idx];
            if (now_ms - since[idx] < timeout)
                ready = 0;
        }
        if (ready && lowest == i) {
            reports += report_deadlock(&path[cycle_at], len, cyc_since, now_ms);
        }
    }
    return reports;
}
