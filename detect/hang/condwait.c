/* Condition variables and semaphores in the dependency graph (condwait.h).
 *
 * For each condition variable or semaphore the runtime remembers, in a
 * bounded table, the locks its signallers held when they signalled (the
 * signal side), the locks its waiters held besides the wait's own mutex
 * (the wait side), and the threads that signalled it. (Locks a signaller
 * took and released before signalling are not counted: a thread's history
 * says too little about which of them the signal needs — GStreamer's
 * pipelines showed the false reports that follows.) A lock on both sides, put there by distinct threads, is a
 * cycle: the waiter holds it until it is woken, the signaller needs it
 * before it signals. Waits that hold no other lock (idle workers, queues,
 * thread pools) cost a store of the wait and nothing else. */
#include "hang/condwait.h"
#include "locks/locks.h"
#include "rcu/rcu.h"
#include "report/report.h"
#include "core/core.h"
#include "hang/hang.h"
#include <string.h>

#define EVENT_SLOTS 1024 /* conditions with a history; more evict the oldest by hash */
#define EVENT_PROBES 4
#define SIGNAL_LOCKS 8
#define WAIT_LOCKS 6
#define SIGNALLERS 4
#define SITES 8
#define REPORTED 8

struct side {
    uint64_t lock_id;
    struct rt_lock *lock; /* for naming, while its id matches */
    uintptr_t addr;
    rt_stack_id taken;    /* where the lock was taken */
    rt_stack_id site;     /* the signal or the wait */
    int tid;
    char comm[16];        /* the thread's name then: it may be gone by the report */
};

struct event_info {
    rt_spin_t lock;
    const struct rt_lock *obj; /* NULL: a free slot */
    uint64_t obj_id;
    unsigned nsig, nwait, nsignallers, nreported;
    struct side sig[SIGNAL_LOCKS];
    struct side wait[WAIT_LOCKS];
    struct { int tid; rt_stack_id site; } signallers[SIGNALLERS]; /* newest first */
    rt_stack_id sites[SITES]; /* every place it was signalled from (SITES + 1: more) */
    unsigned nsites;
    uint64_t reported[REPORTED];
};

static struct event_info *_Atomic events;

static struct event_info *table(void)
{
    struct event_info *e = __atomic_load_n(&events, __ATOMIC_ACQUIRE);
    if (e)
        return e;
    struct event_info *fresh = rt_zalloc(EVENT_SLOTS * sizeof *fresh);
    if (!fresh) {
        rt_out_of_memory("the condition-variable table");
        return NULL;
    }
    /* Two threads may race here: the loser's table is never used. */
    if (!__atomic_compare_exchange_n(&events, &e, fresh, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return e;
    return fresh;
}

/* The slot of obj, locked; made (evicting another condition's history if
 * its probes are full) when create, else NULL when obj has none. */
static struct event_info *slot_of(const struct rt_lock *obj, uint64_t id, int create)
{
    struct event_info *tab = create ? table() : __atomic_load_n(&events, __ATOMIC_ACQUIRE);
    if (!tab)
        return NULL;
    unsigned h = (unsigned)rt_hash64((uintptr_t)obj ^ id * 0x9e3779b97f4a7c15ULL);
    for (unsigned p = 0; p < EVENT_PROBES; p++) {
        struct event_info *e = &tab[(h + p) & (EVENT_SLOTS - 1)];
        rt_spin_lock(&e->lock);
        if (e->obj == obj && e->obj_id == id)
            return e;
        if (create && (!e->obj || p == EVENT_PROBES - 1)) {
            /* Fields after the slot's lock start afresh. */
            memset((char *)e + sizeof e->lock, 0, sizeof *e - sizeof e->lock);
            e->obj = obj;
            e->obj_id = id;
            return e;
        }
        rt_spin_unlock(&e->lock);
    }
    return NULL;
}

/* A lock that may stand on either side: really held (not freed since, not
 * an RCU pseudo-lock, not excluded from ordering). */
static int counts(const struct rt_held *h, uintptr_t except)
{
    return rt_held_live(h) && h->addr != except && !h->lock->rcu_pseudo && !h->lock->no_order;
}

static void add_side(struct side *sides, unsigned *n, unsigned cap, struct side *s)
{
    for (unsigned i = 0; i < *n; i++)
        if (sides[i].lock_id == s->lock_id && sides[i].tid == s->tid && sides[i].site == s->site) {
            memcpy(s->comm, sides[i].comm, sizeof s->comm);
            return;
        }
    if (*n == cap)
        return; /* full: not kept, its name read only if it is reported */
    rt_thread_comm(s->tid, s->comm, sizeof s->comm); /* only what is new reads it */
    sides[(*n)++] = *s;
}

/* Is lock_id held at every place the condition is signalled from? A
 * waiter holding it then has no wake-up that does not need it (GStreamer's
 * queue signals one condition with a pad's stream lock held, and from
 * another place without: no deadlock there). */
static int held_at_every_site(const struct event_info *e, uint64_t lock_id)
{
    if (e->nsites > SITES)
        return 0; /* more places than remembered: not known */
    for (unsigned s = 0; s < e->nsites; s++) {
        int held = 0;
        for (unsigned k = 0; k < e->nsig && !held; k++)
            held = e->sig[k].lock_id == lock_id && e->sig[k].site == e->sites[s];
        if (!held)
            return 0;
    }
    return e->nsites > 0;
}

/* Reported once per condition and lock. */
static int first_report(struct event_info *e, uint64_t lock_id)
{
    uint64_t key = rt_hash64(lock_id) ^ (uintptr_t)e->obj;
    for (unsigned i = 0; i < e->nreported && i < REPORTED; i++)
        if (e->reported[i] == key)
            return 0;
    e->reported[e->nreported++ % REPORTED] = key;
    return 1;
}

static const struct rt_lock *live(const struct side *s)
{
    return s->lock && __atomic_load_n(&s->lock->id, __ATOMIC_RELAXED) == s->lock_id ? s->lock : NULL;
}

/* wait: a waiter's held lock; sig: a signaller's held lock, the same
 * lock. The report is written by whichever side came second (tid). */
static void report(int tid, const struct rt_lock *obj, uintptr_t obj_addr, const struct side *wait,
                   const struct side *sig)
{
    char odesc[512], lname[160], oname[160], wbuf[32], sbuf[32];
    const char *wcomm = wait->comm, *scomm = sig->comm;
    if (!wcomm[0]) { /* a pair the table had no room for */
        rt_thread_comm(wait->tid, wbuf, sizeof wbuf);
        wcomm = wbuf;
    }
    if (!scomm[0]) {
        rt_thread_comm(sig->tid, sbuf, sizeof sbuf);
        scomm = sbuf;
    }
    rt_lock_describe(obj, obj_addr, odesc, sizeof odesc);
    rt_lock_name(live(wait), wait->addr, lname, sizeof lname);
    rt_lock_name(obj, obj_addr, oname, sizeof oname);
    int sem = obj->type == RT_LOCK_SEM, bar = obj->type == RT_LOCK_BARRIER;
    const char *what = rt_event_noun(obj->type);
    struct rt_report *r = rt_report_begin(RT_KIND_COND_LOCK_ORDER, tid);
    if (!r)
        return;
    rt_report_headline(r, "WARNING: possible circular locking dependency detected through a wait on a condition "
                          "variable or semaphore");
    rt_report_stack(r, wait->site, "%s/%d waits on %s %s while holding %s, at:", wcomm, wait->tid, what, odesc,
                    lname);
    rt_report_stack(r, wait->taken, "%s was taken by %s/%d at:", lname, wcomm, wait->tid);
    rt_report_stack(r, sig->taken, "but %s/%d, which %s %s, holds %s when it does, taken at:", scomm, sig->tid,
                    sem ? "posts" : bar ? "reaches" : "signals", oname, lname);
    rt_report_stack(r, sig->site, "and %s %s at:", rt_event_verb(obj->type, 1), oname);
    rt_report_text(r, "If %s/%d is the thread that wakes %s/%d, neither can go on: the waiter keeps %s until it is "
                      "woken, and the %s needs %s before it %s.",
                   scomm, sig->tid, wcomm, wait->tid, lname, sem ? "poster" : bar ? "other thread" : "signaller",
                   lname, sem ? "posts" : bar ? "reaches the barrier" : "signals");
    rt_report_text(r, "Possible unsafe scenario:");
    rt_report_text(r, "       thread 0                    thread 1");
    rt_report_text(r, "       --------                    --------");
    rt_report_text(r, "  lock(%s);", lname);
    rt_report_text(r, "  %s(%s);", sem ? "sem_wait" : bar ? "barrier_wait" : "wait", oname);
    rt_report_text(r, "                                   lock(%s);", lname);
    rt_report_text(r, "                                   %s(%s);", sem ? "sem_post" : bar ? "barrier_wait" : "signal",
                   oname);
    rt_report_text(r, " *** DEADLOCK ***");
    rt_report_text(r, "Release %s before waiting, or signal without taking it.", lname);
    rt_report_key(r, rt_hash64(wait->site * 31 + sig->site) ^ rt_hash64(wait->taken) ^ 0xc0d);
    rt_report_finish(r);
}

void rt_on_event_wait_begin(struct rt_thread *t, struct rt_lock *obj, uintptr_t mutex, int timed, int shared,
                            uintptr_t pc)
{
    rt_held_name(t);
    uint64_t id = __atomic_load_n(&obj->id, __ATOMIC_RELAXED);
    t->wait_stack = rt_site_stack(t, pc);
    t->wait_mode = RT_HOLD_WRITE;
    t->wait_timed = (uint8_t)(timed != 0);
    t->event_waiting_id = id;
    t->event_shared = (uint8_t)(shared != 0);
    rt_wait_seq_next(&t->wait_seq);
    __atomic_store_n(&t->event_waiting, obj, __ATOMIC_RELEASE);
    rt_watchdog_ensure();

    unsigned others = 0;
    for (unsigned i = 0; i < t->nheld; i++)
        others += counts(&t->held[i], mutex);
    if (!others || !rt_opt.detect_deadlocks)
        return;
    struct event_info *e = slot_of(obj, id, 1);
    if (!e)
        return;
    struct side found_wait, found_sig;
    int found = 0;
    for (unsigned i = 0; i < t->nheld; i++) {
        const struct rt_held *h = &t->held[i];
        if (!counts(h, mutex))
            continue;
        struct side w = { h->id, h->lock, h->addr, h->stack, t->wait_stack, t->tid, "" };
        add_side(e->wait, &e->nwait, WAIT_LOCKS, &w);
        for (unsigned k = 0; k < e->nsig && !found; k++)
            if (e->sig[k].lock_id == h->id && e->sig[k].tid != t->tid && held_at_every_site(e, h->id) &&
                first_report(e, h->id)) {
                found_wait = w;
                found_sig = e->sig[k];
                found = 1;
            }
    }
    rt_spin_unlock(&e->lock);
    if (found)
        report(t->tid, obj, __atomic_load_n(&obj->addr, __ATOMIC_RELAXED), &found_wait, &found_sig);
}

void rt_on_event_wait_end(struct rt_thread *t)
{
    struct rt_lock *obj = __atomic_load_n(&t->event_waiting, __ATOMIC_RELAXED);
    if (obj) {
        if (obj->type != RT_LOCK_BARRIER) /* barriers order nothing for the RCU checks (rcuhb.h) */
            rt_rcuhb_acquire(t, __atomic_load_n(&obj->addr, __ATOMIC_RELAXED));
        __atomic_store_n(&t->event_waiting, NULL, __ATOMIC_RELEASE);
    }
}

void rt_on_event_signal(struct rt_thread *t, uintptr_t addr, enum rt_lock_type type, uintptr_t pc)
{
    if (type != RT_LOCK_BARRIER)
        rt_rcuhb_release(t, addr);
    rt_held_name(t);
    struct rt_lock *obj = rt_lock_lookup(t, addr, type, pc);
    if (!obj || !rt_opt.detect_deadlocks)
        return;
    uint64_t id = __atomic_load_n(&obj->id, __ATOMIC_RELAXED);
    rt_stack_id site = rt_site_stack(t, pc);
    struct event_info *e = slot_of(obj, id, 1);
    if (!e)
        return;
    unsigned k = 0;
    while (k < e->nsignallers && e->signallers[k].tid != t->tid)
        k++;
    if (k == SIGNALLERS)
        k--;
    else if (k == e->nsignallers)
        e->nsignallers++;
    for (; k > 0; k--)
        e->signallers[k] = e->signallers[k - 1];
    e->signallers[0].tid = t->tid;
    e->signallers[0].site = site;
    unsigned si = 0;
    while (si < e->nsites && si < SITES && e->sites[si] != site)
        si++;
    if (si == e->nsites && e->nsites <= SITES) {
        if (e->nsites < SITES)
            e->sites[si] = site;
        e->nsites++;
    }

    if (!t->nheld) {
        t->signal_seen = obj;
        t->signal_seen_id = id;
        t->signal_seen_pc = pc;
    }
    struct side found_wait, found_sig;
    int found = 0;
    for (unsigned i = 0; i < t->nheld; i++) {
        const struct rt_held *h = &t->held[i];
        if (!counts(h, 0))
            continue;
        struct side s = { h->id, h->lock, h->addr, h->stack, site, t->tid, "" };
        add_side(e->sig, &e->nsig, SIGNAL_LOCKS, &s);
    }
    for (unsigned i = 0; i < t->nheld && !found; i++) {
        const struct rt_held *h = &t->held[i];
        if (!counts(h, 0) || !held_at_every_site(e, h->id))
            continue;
        struct side s = { h->id, h->lock, h->addr, h->stack, site, t->tid, "" };
        for (unsigned j = 0; j < e->nsig; j++)
            if (e->sig[j].lock_id == h->id && e->sig[j].tid == t->tid && e->sig[j].site == site)
                s = e->sig[j]; /* with the thread's name as recorded */
        for (unsigned w = 0; w < e->nwait && !found; w++)
            if (e->wait[w].lock_id == s.lock_id && e->wait[w].tid != t->tid && first_report(e, s.lock_id)) {
                found_wait = e->wait[w];
                found_sig = s;
                found = 1;
            }
    }
    rt_spin_unlock(&e->lock);
    if (found)
        report(t->tid, obj, addr, &found_wait, &found_sig);
}

unsigned rt_event_signallers(const struct rt_lock *obj, uint64_t id, int *tids, rt_stack_id *sites, unsigned max)
{
    struct event_info *e = slot_of(obj, id, 0);
    if (!e)
        return 0;
    unsigned n = 0;
    for (; n < e->nsignallers && n < max; n++) {
        tids[n] = e->signallers[n].tid;
        sites[n] = e->signallers[n].site;
    }
    rt_spin_unlock(&e->lock);
    return n;
}
