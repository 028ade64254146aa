/* The watchdog's reports: deadlocks, RCU stalls, threads blocked too long,
 * waits for locks whose holder is gone. */
#include "hang/hang.h"
#include "hang/watchdog_internal.h"
#include "locks/locks.h"
#include "core/core.h"
#include "rcu/rcu.h"
#include "report/report.h"
#include <string.h>

static const struct snap_lock *held_entry(const struct snap *s, const struct rt_lock *l, uint64_t id)
{
    for (unsigned j = 0; j < s->nheld; j++)
        if (wd_held_pool[s->held_at + j].lock == l && wd_held_pool[s->held_at + j].id == id)
            return &wd_held_pool[s->held_at + j];
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

void wd_wait_name(const struct snap *s, char *out, size_t cap)
{
    if (s->waiting_for)
        rt_lock_name(live_lock(s->waiting_for, s->waiting_id), s->waiting_for->addr, out, cap);
    else if (s->event)
        rt_lock_name(live_lock(s->event, s->event_id), s->event->addr, out, cap);
    else if (cap)
        out[0] = 0;
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
                if (noted[e].w[k].t == wd_snaps[cycle[i]].t && noted[e].w[k].seq == wd_snaps[cycle[i]].seq) {
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
    else if (l->traits & RT_TRAIT_PSHARED)
        rt_report_text(r, "The lock's holder exited or was cancelled while holding it (see the lock-held-at-exit "
                          "report): no thread of this process can release it.");
    else
        rt_report_text(r, "The lock's holder exited or was cancelled while holding it (see the lock-held-at-exit "
                          "report): nobody can release it and this wait never ends.");
    rt_report_held_locks(r, t, comm);
    wd_conclude(r, wd_wait_doubt(l, 0, 0));
    rt_report_key(r, rt_hash64(__atomic_load_n(&l->id, __ATOMIC_RELAXED)) ^ 0x0f4a);
    rt_report_finish(r);
}

int wd_report_deadlock(const unsigned *cycle, unsigned n, uint64_t now)
{
    struct rt_report *r = rt_report_begin(RT_KIND_DEADLOCK, wd_snaps[cycle[0]].tid);
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
    int joins = 0, events = 0, destroys = 0;
    enum wd_doubt doubt = WD_PROVEN;
    for (unsigned i = 0; i < n; i++) {
        const struct snap *s = &wd_snaps[cycle[i]], *h = &wd_snaps[cycle[(i + 1) % n]];
        char comm[32], hcomm[32], desc[512], name[160];
        unsigned long ms = (unsigned long)(now - s->since_ms);
        rt_thread_comm(s->tid, comm, sizeof comm);
        rt_thread_comm(h->tid, hcomm, sizeof hcomm);
        if (wd_snap_doubt(s) > doubt)
            doubt = wd_snap_doubt(s);
        if (s->joining) {
            rt_report_stack(r, s->wait_stack, "%s/%d blocked %lu ms joining %s/%d (waiting for it to end), at:",
                            comm, s->tid, ms, hcomm, h->tid);
            /* Named without its tid: the cycle line is part of the signature. */
            rt_buf_printf(&cyc, "%sthread %s", i ? " -> " : "cycle: ", hcomm);
            key += rt_hash64(0x6a6f696e); /* tids differ from run to run */
            joins++;
            continue;
        }
        if (s->event) {
            const char *what = s->event->type == RT_LOCK_SEM ? "semaphore" : "condition variable";
            rt_lock_describe(live_lock(s->event, s->event_id), s->event->addr, desc, sizeof desc);
            if (s->event_destroy)
                rt_report_stack(r, s->wait_stack,
                                "%s/%d blocked %lu ms in pthread_cond_destroy of %s %s, which waits until %s/%d, "
                                "blocked on it, has left, at:",
                                comm, s->tid, ms, what, desc, hcomm, h->tid);
            else
                rt_report_stack(r, s->wait_stack,
                                "%s/%d blocked %lu ms waiting on %s %s, which only %s/%d is known to %s, at:", comm,
                                s->tid, ms, what, desc, hcomm, h->tid,
                                s->event->type == RT_LOCK_SEM ? "post" : "signal");
            wd_wait_name(s, name, sizeof name);
            rt_buf_printf(&cyc, "%s%s", i ? " -> " : "cycle: ", name);
            key += rt_hash64(s->event_id ^ (s->event_destroy ? 0xd35 : 0xe7e));
            events++;
            destroys += s->event_destroy;
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
        if (wd_snaps[cycle[i]].waiting_for)
            last_lock = i;
    for (unsigned i = 0; i < n && !again; i++) {
        const struct snap *s = &wd_snaps[cycle[i]], *h = &wd_snaps[cycle[(i + 1) % n]];
        char hcomm[32], name[160], site[256];
        rt_thread_comm(h->tid, hcomm, sizeof hcomm);
        if (s->joining || s->event_destroy)
            continue;
        if (s->event) {
            rt_stack_id site = 0;
            int tids[4];
            rt_stack_id sites[4];
            unsigned k = 0, ns = rt_event_signallers(s->event, s->event_id, tids, sites, 4);
            while (k < ns && tids[k] != h->tid)
                k++;
            if (k < ns)
                site = sites[k];
            char where[256] = "an unknown place";
            if (site)
                rt_stack_site(site, where, sizeof where);
            wd_wait_name(s, name, sizeof name);
            rt_report_text(r, "%s was last %s by %s/%d at %s%s", name,
                           s->event->type == RT_LOCK_SEM ? "posted" : "signalled", hcomm, h->tid, where,
                           i < last_lock ? ";" : ".");
            continue;
        }
        rt_lock_name(live_lock(s->waiting_for, s->waiting_id), s->waiting_for->addr, name, sizeof name);
        rt_report_text(r, "%s was %s by %s/%d at %s%s", name, s->rcu_wait ? "entered" : "taken", hcomm, h->tid,
                       held_site(h, s->waiting_for, s->waiting_id, site, sizeof site), i < last_lock ? ";" : ".");
    }
    {
        char name[160];
        const struct snap *s = &wd_snaps[cycle[0]];
        if (s->joining) {
            const struct snap *h = &wd_snaps[cycle[n > 1 ? 1 : 0]];
            char hcomm[32];
            rt_thread_comm(h->tid, hcomm, sizeof hcomm);
            rt_buf_printf(&cyc, " -> thread %s", hcomm);
        } else {
            wd_wait_name(s, name, sizeof name);
            rt_buf_printf(&cyc, " -> %s", name);
        }
    }
    rt_report_text(r, "%s", line);
    if (again)
        rt_report_text(r, "This is the deadlock the lock-order-inversion report above showed happening (%s); "
                          "the threads are still blocked.", earlier);
    else if (n == 1)
        rt_report_text(r, "The thread waits for itself and can never go on (%s reported it when the wait began).",
                       wd_snaps[cycle[0]].rcu_wait ? "rcu-sync-in-reader" : "recursive-locking");
    else if (destroys)
        rt_report_text(r, "None of these threads can go on: each waits for a lock that the next one holds, for the "
                          "next one to end, for a condition that only the next one signals, or, in "
                          "pthread_cond_destroy, for the next one to leave its wait on the condition.");
    else if (events)
        rt_report_text(r, "None of these threads can go on: each waits for a lock that the next one holds, for the "
                          "next one to end, or for a condition that only the next one signals (the cond-lock-order "
                          "report, if shown, named the lock the signaller needs).");
    else
        rt_report_text(r, joins ? "None of these threads can go on: each waits for a lock that the next one holds, "
                                  "or for the next one to end."
                                : "None of these threads can go on: each waits for a lock that the next one holds.");
    wd_conclude(r, doubt);
    rt_report_key(r, key + n);
    return rt_report_finish(r);
}

/* A grace period blocked too long: name the readers that block it. */
int wd_report_stall(unsigned waiter, uint64_t blocked_ms)
{
    const struct snap *w = &wd_snaps[waiter];
    char comm[32];
    rt_thread_comm(w->tid, comm, sizeof comm);
    struct rt_report *r = rt_report_begin(RT_KIND_RCU_STALL, w->tid);
    if (!r)
        return 0;
    rt_report_headline(r, "INFO: rcu detected stall: grace period blocked %lu ms by readers", (unsigned long)blocked_ms);
    rt_report_stack(r, w->wait_stack, "%s/%d has waited %lu ms in %s at:", comm, w->tid, (unsigned long)blocked_ms,
                    w->waiting_for->rcu_pseudo == 2 ? "rcu_barrier()" : "synchronize_rcu()");
    unsigned readers = 0;
    for (unsigned k = 0; k < wd_held_used; k++) {
        const struct snap_lock *h = &wd_held_pool[k];
        const struct snap *o = &wd_snaps[h->owner];
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

/* Where the chain of waits from s ends: -1 when it goes round a cycle (a
 * deadlock, reported as such), else the last thread of the chain. */
static int chain_end(unsigned s)
{
    int cur = (int)s;
    for (unsigned steps = 0; steps <= wd_nsnaps; steps++) {
        if (wd_snaps[cur].next == -2)
            wd_snaps[cur].next = wd_holder_of(&wd_snaps[cur]);
        int next = wd_snaps[cur].next;
        if (next < 0 || next == cur || !wd_waits(&wd_snaps[next]))
            return next == cur ? -1 : (next < 0 ? cur : next);
        cur = next;
    }
    return -1;
}

/* The chain ends in a wait for a process-shared lock that no thread of
 * this process holds: its holder is another process (a pre-forking
 * server's accept mutex, held by a sibling). That is neither a hang of
 * this process nor a deadlock: nothing to say. */
static int holder_elsewhere(const struct snap *e)
{
    return e->waiting_for && e->next < 0 && (e->waiting_for->traits & RT_TRAIT_PSHARED);
}

/* The leader/followers pattern: an event-driven server's leader holds a
 * lock while it waits for events in poll, select or epoll_wait, and the
 * followers queue on that lock until it hands over (redis parks its I/O
 * threads so). A chain of waits that ends in such a thread is a server
 * idling, not a hang. One sighting marks the waiter's episode: the leader
 * leaves its poll for a moment at each event, and the verdict must not
 * depend on the moment the watchdog looks. */
void wd_note_idle_leader(unsigned i)
{
    struct snap *s = &wd_snaps[i];
    int end = chain_end(i);
    if (end < 0 || wd_waits(&wd_snaps[end]))
        return;
    if (rt_thread_awaits_events(wd_snaps[end].tid))
        s->t->wd_leader_seq = s->seq + 1;
}

/* The kernel's hung-task report, for a thread blocked hang_timeout_ms on a
 * lock, a grace period or a join behind one, with no cycle behind it: the waiter, the
 * holder and what it is doing now, and every thread's locks and waits.
 * Once per waiting episode; the same shape of hang once per process. */
int wd_report_hang(unsigned i, uint64_t now)
{
    struct snap *s = &wd_snaps[i];
    int end = chain_end(i);
    if (end < 0 || holder_elsewhere(&wd_snaps[end]))
        return 0;
    if (!wd_waits(&wd_snaps[end]) && rt_thread_awaits_events(wd_snaps[end].tid)) {
        s->t->wd_leader_seq = s->seq + 1; /* an idle leader, seen only now */
        return 0;
    }
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
    int next = wd_snaps[i].next;
    if (s->joining) {
        char hcomm[32] = "a thread";
        int htid = next >= 0 ? wd_snaps[next].tid : 0;
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
        int h = wd_snaps[cur].next;
        if (h < 0 || h == cur)
            break;
        char hcomm[32], name[160], act[256];
        rt_thread_comm(wd_snaps[h].tid, hcomm, sizeof hcomm);
        if (!wd_snaps[cur].joining) {
            const struct snap_lock *e = held_entry(&wd_snaps[h], wd_snaps[cur].waiting_for, wd_snaps[cur].waiting_id);
            rt_lock_name(live_lock(wd_snaps[cur].waiting_for, wd_snaps[cur].waiting_id), wd_snaps[cur].waiting_for->addr, name,
                         sizeof name);
            rt_report_stack(r, e ? e->stack : 0, "%s is held by %s/%d, taken at:", name, hcomm, wd_snaps[h].tid);
        }
        if (wd_waits(&wd_snaps[h])) {
            if (wd_snaps[h].event) {
                wd_wait_name(&wd_snaps[h], name, sizeof name);
                rt_report_stack(r, wd_snaps[h].wait_stack, "%s/%d is itself blocked %lu ms %s %s, at:", hcomm,
                                wd_snaps[h].tid, (unsigned long)(now - wd_snaps[h].since_ms),
                                wd_snaps[h].event_destroy ? "in pthread_cond_destroy of" : "waiting on", name);
                break;
            }
            if (wd_snaps[h].joining) {
                rt_report_text(r, "%s/%d is itself blocked %lu ms joining another thread.", hcomm, wd_snaps[h].tid,
                               (unsigned long)(now - wd_snaps[h].since_ms));
            } else {
                rt_lock_name(live_lock(wd_snaps[h].waiting_for, wd_snaps[h].waiting_id), wd_snaps[h].waiting_for->addr, name,
                             sizeof name);
                rt_report_stack(r, wd_snaps[h].wait_stack, "%s/%d is itself blocked %lu ms waiting for %s, at:", hcomm,
                                wd_snaps[h].tid, (unsigned long)(now - wd_snaps[h].since_ms), name);
            }
            cur = h;
            continue;
        }
        rt_thread_activity(wd_snaps[h].tid, act, sizeof act);
        rt_report_text(r, "%s/%d is not waiting for a lock: %s.", hcomm, wd_snaps[h].tid, act);
        break;
    }
    rt_report_text(r, "Locks held and waits of every thread:");
    for (unsigned k = 0; k < wd_nsnaps; k++) {
        if (!wd_snaps[k].nheld && !wd_waits(&wd_snaps[k]))
            continue;
        char kcomm[32];
        rt_thread_comm(wd_snaps[k].tid, kcomm, sizeof kcomm);
        if (wd_snaps[k].nheld)
            rt_report_held_locks(r, wd_snaps[k].t, kcomm);
        if (wd_waits(&wd_snaps[k]) && !wd_snaps[k].joining) {
            char name[160];
            wd_wait_name(&wd_snaps[k], name, sizeof name);
            rt_report_text(r, " %s/%d %s %s (%lu ms)", kcomm, wd_snaps[k].tid,
                           wd_snaps[k].event_destroy ? "waits in pthread_cond_destroy of" : "waits for", name,
                           (unsigned long)(now - wd_snaps[k].since_ms));
        } else if (wd_snaps[k].joining) {
            rt_report_text(r, " %s/%d waits in pthread_join (%lu ms)", kcomm, wd_snaps[k].tid,
                           (unsigned long)(now - wd_snaps[k].since_ms));
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

int wd_report_all_blocked(uint64_t now)
{
    /* A destroy that waits for the waiters is the bug; else a condition wait. */
    unsigned first = 0;
    while (first < wd_nsnaps && !wd_snaps[first].event_destroy)
        first++;
    if (first == wd_nsnaps)
        for (first = 0; first < wd_nsnaps && !wd_snaps[first].event;)
            first++;
    struct rt_report *r = rt_report_begin(RT_KIND_DEADLOCK, wd_snaps[first].tid);
    if (!r)
        return 0;
    rt_report_headline(r, "BUG: deadlock detected, all %u threads blocked, none can wake another", wd_nsnaps);
    uint64_t key = 0;
    enum wd_doubt doubt = WD_PROVEN;
    /* Destroys of conditions, then waits on them: the first stack is the report's. */
    for (unsigned pass = 0; pass < 3; pass++)
        for (unsigned k = 0; k < wd_nsnaps; k++) {
            const struct snap *s = &wd_snaps[k];
            if (pass != (s->event_destroy ? 0u : s->event ? 1u : 2u))
                continue;
            char comm[32], desc[512];
            unsigned long ms = (unsigned long)(now - s->since_ms);
            rt_thread_comm(s->tid, comm, sizeof comm);
            if (wd_snap_doubt(s) > doubt)
                doubt = wd_snap_doubt(s);
            if (s->event) {
                rt_lock_describe(live_lock(s->event, s->event_id), s->event->addr, desc, sizeof desc);
                rt_report_stack(r, s->wait_stack, "%s/%d blocked %lu ms %s %s %s, at:", comm, s->tid, ms,
                                s->event_destroy ? "in pthread_cond_destroy of" : "waiting on",
                                s->event->type == RT_LOCK_SEM ? "semaphore" : "condition variable", desc);
                key += rt_hash64(s->wait_stack);
            } else if (s->joining) {
                rt_report_stack(r, s->wait_stack, "%s/%d blocked %lu ms in pthread_join, at:", comm, s->tid, ms);
            } else {
                rt_lock_describe(live_lock(s->waiting_for, s->waiting_id), s->waiting_for->addr, desc, sizeof desc);
                int h = s->next >= 0 ? s->next : wd_holder_of(s);
                if (h >= 0) {
                    char hcomm[32];
                    rt_thread_comm(wd_snaps[h].tid, hcomm, sizeof hcomm);
                    rt_report_stack(r, s->wait_stack, "%s/%d blocked %lu ms waiting for %s, held by %s/%d, at:",
                                    comm, s->tid, ms, desc, hcomm, wd_snaps[h].tid);
                } else {
                    rt_report_stack(r, s->wait_stack, "%s/%d blocked %lu ms waiting for %s, at:", comm, s->tid, ms,
                                    desc);
                }
            }
            if (s->nheld)
                rt_report_held_locks(r, s->t, comm);
        }
    rt_report_text(r, "Every thread of the process waits, without a timeout, for a lock, for another thread to end, "
                      "for a condition variable or semaphore to be signalled, or (in pthread_cond_destroy) for a "
                      "condition's waiters to leave; a signal can only come from a thread that runs, and none does "
                      "(none of these objects is process-shared, and the program catches no signal whose handler "
                      "could post a semaphore).");
    wd_conclude(r, doubt);
    rt_report_key(r, key ^ 0xa11b);
    return rt_report_finish(r);
}
