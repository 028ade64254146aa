/* cond-signal-unlocked (condsignal.h).
 *
 * Helgrind's rule (a signal while no thread holds the associated mutex)
 * flags "unlock, then signal", which is correct and common (C++'s
 * notify_one after a scope's unlock): the predicate was changed under the
 * mutex, and a waiter that checked it before is already in its wait. The
 * lost wakeup needs a predicate changed outside the mutex, by a thread
 * that does not take it at all. So rtdd reports a signaller that neither
 * holds the mutex nor has used it lately: the mutex is not on its held
 * stack, not the lock it last released at any nesting depth, and not among
 * the locks its lookup cache holds (64, by address) or evicted last (4). A thread that
 * took the mutex once long ago and now signals without it is not reported.
 *
 * The association is the mutex of the last wait that held it, kept per
 * condvar in a lossy table; a signal before any wait has none. Waits write
 * a slot only when it changes, under a try-lock (a busy slot keeps its old
 * value: a lost update, never a wait), and readers validate a sequence. */
#include "hang/condsignal.h"
#include "locks/lockdesc.h"
#include "locks/locks.h"
#include "report/report.h"
#include "report/unwind.h"

#define ASSOC_SLOTS 1024
#define SITE_SLOTS 256

struct assoc {
    _Atomic unsigned seq; /* odd while a writer changes the slot */
    rt_spin_t writer;
    _Atomic uintptr_t cond;   /* the condvar's record */
    _Atomic uint64_t cond_id;
    _Atomic uintptr_t mutex;  /* its address */
    _Atomic uint64_t mutex_id;
    _Atomic rt_stack_id wait_site;
    _Atomic int wait_tid;
};

static struct assoc table[ASSOC_SLOTS];
/* Signal sites already judged worth a report (written, suppressed or a
 * duplicate): a hot signal loop builds one report, not one per call. */
static _Atomic uintptr_t reported_sites[SITE_SLOTS];

static struct assoc *slot_of(const struct rt_lock *cond)
{
    return &table[rt_hash64((uintptr_t)cond) & (ASSOC_SLOTS - 1)];
}

void rt_cond_note_waiter(struct rt_thread *t, const struct rt_lock *cond, const struct rt_held *h, uintptr_t pc)
{
    struct assoc *a = slot_of(cond);
    uint64_t cond_id = __atomic_load_n(&cond->id, __ATOMIC_RELAXED);
    rt_stack_id site = rt_site_stack(t, pc);
    /* The same wait again (the usual loop) writes nothing. */
    if (__atomic_load_n(&a->cond, __ATOMIC_RELAXED) == (uintptr_t)cond &&
        __atomic_load_n(&a->cond_id, __ATOMIC_RELAXED) == cond_id &&
        __atomic_load_n(&a->mutex, __ATOMIC_RELAXED) == h->addr &&
        __atomic_load_n(&a->mutex_id, __ATOMIC_RELAXED) == h->id &&
        __atomic_load_n(&a->wait_site, __ATOMIC_RELAXED) == site)
        return;
    if (!rt_spin_trylock(&a->writer))
        return;
    __atomic_fetch_add(&a->seq, 1, __ATOMIC_ACQ_REL);
    __atomic_store_n(&a->cond, (uintptr_t)cond, __ATOMIC_RELAXED);
    __atomic_store_n(&a->cond_id, cond_id, __ATOMIC_RELAXED);
    __atomic_store_n(&a->mutex, h->addr, __ATOMIC_RELAXED);
    __atomic_store_n(&a->mutex_id, h->id, __ATOMIC_RELAXED);
    __atomic_store_n(&a->wait_site, site, __ATOMIC_RELAXED);
    __atomic_store_n(&a->wait_tid, t->tid, __ATOMIC_RELAXED);
    __atomic_fetch_add(&a->seq, 1, __ATOMIC_RELEASE);
    rt_spin_unlock(&a->writer);
}

struct association { uintptr_t mutex; uint64_t mutex_id; rt_stack_id wait_site; int wait_tid; };

/* The association of cond (its record), if the table still has one. */
static int association(const struct rt_lock *cond, struct association *out)
{
    const struct assoc *a = slot_of(cond);
    uint64_t cond_id = __atomic_load_n(&cond->id, __ATOMIC_RELAXED);
    for (int tries = 0; tries < 4; tries++) {
        unsigned seq = __atomic_load_n(&a->seq, __ATOMIC_ACQUIRE);
        if (seq & 1)
            continue;
        int mine = __atomic_load_n(&a->cond, __ATOMIC_RELAXED) == (uintptr_t)cond &&
                   __atomic_load_n(&a->cond_id, __ATOMIC_RELAXED) == cond_id;
        out->mutex = __atomic_load_n(&a->mutex, __ATOMIC_RELAXED);
        out->mutex_id = __atomic_load_n(&a->mutex_id, __ATOMIC_RELAXED);
        out->wait_site = __atomic_load_n(&a->wait_site, __ATOMIC_RELAXED);
        out->wait_tid = __atomic_load_n(&a->wait_tid, __ATOMIC_RELAXED);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&a->seq, __ATOMIC_RELAXED) == seq)
            return mine && out->mutex != 0;
    }
    return 0;
}

/* Has t used the mutex at addr lately (see the top of the file)? */
static int used_lately(const struct rt_thread *t, uintptr_t addr)
{
    if (rt_lock_held_by(t, addr) || rt_lock_cached(t, addr))
        return 1;
    for (unsigned i = 0; i < RT_CACHE_VICTIMS; i++)
        if (t->cache_victims[i] == addr)
            return 1;
    /* Slots above the top keep the address of the lock last released at
     * that depth: the release paths clear only the id. */
    for (unsigned i = t->nheld; i < t->held_cap; i++) {
        uintptr_t a = __atomic_load_n(&t->held[i].addr, __ATOMIC_RELAXED);
        if (a == addr)
            return 1;
        if (!a)
            break; /* never used this deep */
    }
    return 0;
}

/* Claims site pc for a report; 0 if it had one (or a colliding site did:
 * the table is lossy, a report may be missed, never repeated). */
static int claim_site(uintptr_t pc)
{
    _Atomic uintptr_t *s = &reported_sites[rt_hash64(pc) & (SITE_SLOTS - 1)];
    uintptr_t seen = __atomic_load_n(s, __ATOMIC_RELAXED);
    if (seen == pc)
        return 0;
    return __atomic_compare_exchange_n(s, &seen, pc, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

void rt_on_cond_signal(struct rt_thread *t, uintptr_t cond, uintptr_t pc)
{
    struct rt_lock *c = rt_locktab_find(cond); /* a condvar: never lazy; not looked up through t's cache */
    struct association as;
    if (!c || !rt_lock_type_cond(c->type) || !association(c, &as) || t->untracked)
        return;
    rt_held_name(t);
    if (used_lately(t, as.mutex))
        return;
    struct rt_lock *m = rt_locktab_find(as.mutex);
    if (!m || __atomic_load_n(&m->id, __ATOMIC_RELAXED) != as.mutex_id)
        return; /* the mutex is gone (destroyed, freed) since the wait */
    if (!claim_site(pc))
        return;
    char comm[32], wcomm[32], cdesc[512], mdesc[512];
    rt_thread_comm(t->tid, comm, sizeof comm);
    rt_thread_comm(as.wait_tid, wcomm, sizeof wcomm);
    rt_lock_describe(c, cond, cdesc, sizeof cdesc);
    rt_lock_describe(m, as.mutex, mdesc, sizeof mdesc);
    struct rt_report *r = rt_report_begin(RT_KIND_COND_SIGNAL_UNLOCKED, t->tid);
    if (!r)
        return;
    rt_report_headline(r, "INFO: condition variable signalled without the mutex its waiters use");
    rt_report_stack(r, rt_stack_capture((unsigned)rt_opt.stack_depth), "%s/%d signals condition variable %s at:",
                    comm, t->tid, cdesc);
    rt_report_text(r, "without holding mutex %s, and without having used it lately (it does not hold it, did not "
                      "just release it, and has not taken it recently),",
                   mdesc);
    rt_report_stack(r, as.wait_site, "the mutex its waiters use: %s/%d waited on the condition with it at:", wcomm,
                    as.wait_tid);
    rt_report_text(r, "A waiter tests its predicate under the mutex, then waits. If the signalling thread changed the "
                      "predicate without the mutex, its signal can fall between the waiter's test and its wait: it "
                      "wakes nobody, and the waiter sleeps until the next signal, perhaps forever (a lost wakeup).");
    rt_report_text(r, "This is correct when the predicate is changed under the mutex by some thread first (then "
                      "signalling after the unlock is fine) or when lost signals are harmless (timed waits): "
                      "INFO, the exit status is unchanged.");
    rt_report_held_locks(r, t, comm);
    rt_report_key(r, rt_hash64(pc) ^ 0xc51);
    rt_report_finish(r);
}
