/* Barriers (barrier.h). A barrier's record lives from pthread_barrier_init
 * to pthread_barrier_destroy; a bounded table keeps, per barrier, its
 * count, how many threads wait in the current round, the rounds completed
 * and, for up to THREADS threads, the round each first reached and how
 * many rounds it has passed since.
 *
 * A barrier of count N serves N threads that each reach it once per round.
 * A thread that comes back having passed fewer rounds than were completed
 * since it first came was left out of rounds that other threads completed
 * without it: more threads use the barrier than its count (or the count
 * is too small), and the rounds no longer line the threads up. */
#include "hang/barrier.h"
#include "hang/hang.h"
#include "locks/locks.h"
#include "report/report.h"
#include "core/core.h"
#include <string.h>

#define SLOTS 256 /* barriers remembered; more evict the oldest by hash */
#define PROBES 4
#define THREADS 16

struct bar_info {
    rt_spin_t lock;
    const struct rt_lock *obj; /* NULL: a free slot */
    uint64_t obj_id;
    unsigned count, waiting, round;
    uint8_t lockstep_reported;
    unsigned nthreads;
    struct { int tid; unsigned first, passed, in_round; } th[THREADS]; /* in_round: round + 1 it waits in */
};

static struct bar_info *_Atomic bars;

static struct bar_info *table(void)
{
    struct bar_info *b = __atomic_load_n(&bars, __ATOMIC_ACQUIRE);
    if (b)
        return b;
    struct bar_info *fresh = rt_zalloc(SLOTS * sizeof *fresh);
    if (!fresh) {
        rt_out_of_memory("the barrier table");
        return NULL;
    }
    /* Two threads may race here: the loser's table is never used. */
    if (!__atomic_compare_exchange_n(&bars, &b, fresh, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return b;
    return fresh;
}

/* The slot of obj, locked; made (count: its count) when create, else NULL
 * when it has none. */
static struct bar_info *slot_of(const struct rt_lock *obj, uint64_t id, int create, unsigned count)
{
    struct bar_info *tab = create ? table() : __atomic_load_n(&bars, __ATOMIC_ACQUIRE);
    if (!tab)
        return NULL;
    unsigned h = (unsigned)rt_hash64((uintptr_t)obj ^ id * 0x9e3779b97f4a7c15ULL);
    for (unsigned p = 0; p < PROBES; p++) {
        struct bar_info *b = &tab[(h + p) & (SLOTS - 1)];
        rt_spin_lock(&b->lock);
        if (b->obj == obj && b->obj_id == id)
            return b;
        if (create && (!b->obj || p == PROBES - 1)) {
            memset((char *)b + sizeof b->lock, 0, sizeof *b - sizeof b->lock);
            b->obj = obj;
            b->obj_id = id;
            b->count = count;
            return b;
        }
        rt_spin_unlock(&b->lock);
    }
    return NULL;
}

/* Threads waiting in the current round of the barrier's record l. */
static unsigned waiting_on(const struct rt_lock *l)
{
    struct bar_info *b = slot_of(l, __atomic_load_n(&l->id, __ATOMIC_RELAXED), 0, 0);
    if (!b)
        return 0;
    unsigned n = b->waiting;
    rt_spin_unlock(&b->lock);
    return n;
}

static struct rt_lock *barrier_record(uintptr_t addr)
{
    struct rt_lock *l = rt_locktab_find(addr);
    return l && l->type == RT_LOCK_BARRIER ? l : NULL;
}

static void say_made(struct rt_report *r, const struct rt_lock *l)
{
    char who[32];
    if (!l || !l->init_stack)
        return;
    rt_thread_comm(l->init_tid, who, sizeof who);
    rt_report_stack(r, l->init_stack, "it was initialized by %s/%d at:", who, l->init_tid);
}

/* No record at addr: never initialized, or destroyed. */
static void report_unknown(struct rt_thread *t, uintptr_t addr, enum rt_barrier_word word, const char *call)
{
    char comm[32], desc[512], who[32];
    rt_stack_id where = 0;
    int by = 0;
    int destroyed = rt_destroyed_at(addr, &where, &by);
    struct rt_report *r = rt_report_begin_plain(RT_KIND_BARRIER_MISUSE, t->tid, comm, sizeof comm);
    if (!r)
        return;
    rt_lock_name(NULL, addr, desc, sizeof desc);
    rt_report_stack(r, rt_stack_here(), "%s/%d calls %s() on barrier %s, which %s, at:", comm, t->tid, call, desc,
                    destroyed ? "was destroyed and not initialized again" : "was never initialized");
    if (destroyed && where) {
        rt_thread_comm(by, who, sizeof who);
        rt_report_stack(r, where, "it was destroyed by %s/%d at:", who, by);
    }
    if (word == RT_BARRIER_BAD)
        rt_report_text(r, "Its bytes are not a barrier's either (glibc's sharing word holds a value no barrier "
                          "has).");
    rt_report_text(r, "POSIX leaves this undefined; glibc does not check: the call works on whatever the memory "
                      "holds, and a wait may never return or return at once.");
    rt_report_held_locks(r, t, comm);
    rt_report_finish(r);
}

void rt_on_barrier_init(struct rt_thread *t, uintptr_t addr, unsigned count, uintptr_t pc)
{
    char comm[32], desc[512];
    struct rt_lock *l = barrier_record(addr);
    (void)pc;
    if (count && !l)
        return;
    unsigned waiting = l ? waiting_on(l) : 0;
    struct rt_report *r = rt_report_begin_plain(RT_KIND_BARRIER_MISUSE, t->tid, comm, sizeof comm);
    if (!r)
        return;
    if (l)
        rt_lock_describe(l, addr, desc, sizeof desc);
    else
        rt_lock_name(NULL, addr, desc, sizeof desc);
    if (!count) {
        rt_report_stack(r, rt_stack_here(), "%s/%d initializes barrier %s with a count of 0, at:", comm, t->tid, desc);
        rt_report_text(r, "A barrier needs a count of at least 1: pthread_barrier_init fails with EINVAL and the "
                          "barrier is not initialized; a wait on it then uses an uninitialized barrier.");
    } else {
        rt_report_stack(r, rt_stack_here(), "%s/%d initializes barrier %s again, at:", comm, t->tid, desc);
        say_made(r, l);
        if (waiting)
            rt_report_text(r, "while %u thread%s wait%s on it: POSIX leaves this undefined; glibc resets the "
                              "barrier under %s, which may then never be released.",
                           waiting, waiting == 1 ? "" : "s", waiting == 1 ? "s" : "", waiting == 1 ? "it" : "them");
        else
            rt_report_text(r, "and it was not destroyed since: POSIX leaves initializing an initialized barrier "
                              "undefined. Destroy it first (pthread_barrier_destroy), once no thread uses it.");
    }
    rt_report_held_locks(r, t, comm);
    rt_report_finish(r);
}

void rt_on_barrier_inited(struct rt_thread *t, uintptr_t addr, unsigned count, uintptr_t pc)
{
    rt_on_lock_init(t, addr, RT_LOCK_BARRIER, pc);
    struct rt_lock *l = barrier_record(addr);
    if (!l)
        return;
    struct bar_info *b = slot_of(l, __atomic_load_n(&l->id, __ATOMIC_RELAXED), 1, count);
    if (b)
        rt_spin_unlock(&b->lock);
}

void rt_on_barrier_destroy(struct rt_thread *t, uintptr_t addr, enum rt_barrier_word word, uintptr_t pc)
{
    char comm[32], desc[512];
    struct rt_lock *l = barrier_record(addr);
    if (!l) {
        if (word != RT_BARRIER_SHARED && !rt_locktab_find(addr))
            report_unknown(t, addr, word, "pthread_barrier_destroy");
        rt_on_lock_destroy(t, addr, pc);
        return;
    }
    unsigned waiting = waiting_on(l);
    if (waiting) {
        struct rt_report *r = rt_report_begin_plain(RT_KIND_BARRIER_MISUSE, t->tid, comm, sizeof comm);
        if (r) {
            rt_lock_describe(l, addr, desc, sizeof desc);
            rt_report_stack(r, rt_stack_here(), "%s/%d destroys barrier %s, at:", comm, t->tid, desc);
            rt_report_text(r, "while %u thread%s wait%s on it, in a round that is not complete. POSIX leaves this "
                              "undefined; glibc's pthread_barrier_destroy waits until the round completes, so the "
                              "destroying thread hangs if no more threads come.",
                           waiting, waiting == 1 ? "" : "s", waiting == 1 ? "s" : "");
            say_made(r, l);
            rt_report_held_locks(r, t, comm);
            rt_report_finish(r);
        }
    }
    rt_on_lock_destroy(t, addr, pc);
}

static void report_lockstep(struct rt_thread *t, const struct rt_lock *l, unsigned count, unsigned missed)
{
    char comm[32], desc[512];
    struct rt_report *r = rt_report_begin_plain(RT_KIND_BARRIER_MISUSE, t->tid, comm, sizeof comm);
    if (!r)
        return;
    rt_lock_describe(l, __atomic_load_n(&l->addr, __ATOMIC_RELAXED), desc, sizeof desc);
    rt_report_stack(r, rt_stack_here(), "%s/%d waits on barrier %s (count %u), at:", comm, t->tid, desc, count);
    rt_report_text(r, "but %u round%s of this barrier completed without this thread since it last passed it: other "
                      "threads went through it without this one. More threads wait on the barrier "
                      "than its count, so each round releases a different subset of them and the rounds no longer "
                      "keep the threads in step.",
                   missed, missed == 1 ? "" : "s");
    say_made(r, l);
    rt_report_held_locks(r, t, comm);
    rt_report_finish(r);
}

void rt_on_barrier_wait_begin(struct rt_thread *t, uintptr_t addr, enum rt_barrier_word word, unsigned count,
                              int shared, uintptr_t pc)
{
    struct rt_lock *l = rt_lock_cached(t, addr);
    if (!l || l->type != RT_LOCK_BARRIER)
        l = barrier_record(addr);
    if (!l) {
        if (word != RT_BARRIER_SHARED && !rt_locktab_find(addr))
            report_unknown(t, addr, word, "pthread_barrier_wait");
        l = rt_lock_lookup(t, addr, RT_LOCK_BARRIER, pc);
        if (!l || l->type != RT_LOCK_BARRIER)
            return;
    }
    uint64_t id = __atomic_load_n(&l->id, __ATOMIC_RELAXED);
    /* Its arrival may wake the others: they wait for the threads that reach
     * it. A repeat from the same place with no lock held is known already. */
    if (t->nheld || t->signal_seen != l || t->signal_seen_id != id || t->signal_seen_pc != pc)
        rt_on_event_signal(t, addr, RT_LOCK_BARRIER, pc);
    struct bar_info *b = slot_of(l, id, 1, count);
    int last = 0, report = 0;
    unsigned missed = 0, n = count;
    if (b) {
        if (!b->count)
            b->count = count ? count : 1;
        n = b->count;
        unsigned k = 0;
        while (k < b->nthreads && b->th[k].tid != t->tid)
            k++;
        if (k == b->nthreads && k < THREADS) {
            b->th[k].tid = t->tid;
            b->th[k].first = b->round;
            b->th[k].passed = 0;
            b->nthreads++;
        }
        if (k < b->nthreads) {
            unsigned due = b->round - b->th[k].first;
            if (b->th[k].passed < due && !b->lockstep_reported) {
                missed = due - b->th[k].passed;
                b->lockstep_reported = report = 1;
            }
            b->th[k].passed = due; /* in step again from here */
            b->th[k].in_round = b->round + 1;
        }
        if (++b->waiting >= b->count) {
            /* The round completes: everyone in it passes. */
            for (unsigned i = 0; i < b->nthreads; i++)
                if (b->th[i].in_round == b->round + 1) {
                    b->th[i].passed++;
                    b->th[i].in_round = 0;
                }
            b->round++;
            b->waiting = 0;
            last = 1;
        }
        rt_spin_unlock(&b->lock);
    }
    if (report)
        report_lockstep(t, l, n, missed);
    if (!last)
        rt_on_event_wait_begin(t, l, 0, 0, shared, pc);
}

void rt_on_barrier_wait_end(struct rt_thread *t)
{
    rt_on_event_wait_end(t);
}
