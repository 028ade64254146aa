/* The active-lock-freed check: memory being freed must not contain a lock
 * that any thread holds (lockdep checks only the freeing task; the -rt
 * patch's check found the xfrm_policy bug this way). */
#include "locks/locks.h"
#include "locks/freegate.h"
#include "locks/lazylock.h"
#include "locks/lockdesc.h"
#include "report/report.h"

_Atomic unsigned rt_free_checks;

struct free_ctx {
    struct rt_thread *t;
    uintptr_t start;
    size_t len;
    rt_stack_id free_stack;
    int thread_exit; /* the range is the thread's own stack */
    int unmapped;    /* the memory is gone already: judge by the held-lock records only */
    const char *what; /* what the memory was, when not a heap block */
    const struct rt_unmap_held *before; /* unmapped: the holds before it went */
};

/* Threads that held a lock when another freed it, until they release it:
 * that release writes to freed memory and gets its own report (as
 * Helgrind's and TSan's do). A small ring, filled only with a report. */
#define FREED_HELD_SLOTS 64
static struct freed_held {
    _Atomic uintptr_t addr; /* written last, read first */
    int holder, freer;
    rt_stack_id free_stack;
    uint8_t unmapped;
} freed_held[FREED_HELD_SLOTS];
static _Atomic unsigned freed_held_next;

struct mark_holders {
    const struct rt_lock *lock;
    uint64_t id;
    uintptr_t addr;
    const struct free_ctx *c;
};

static void mark_holder(struct rt_thread *t, void *arg)
{
    struct mark_holders *m = arg;
    if (t == m->c->t && m->c->thread_exit)
        return;
    const struct rt_held *held = __atomic_load_n(&t->held, __ATOMIC_ACQUIRE);
    unsigned n = __atomic_load_n(&t->nheld, __ATOMIC_ACQUIRE);
    for (unsigned i = 0; i < n && held; i++)
        if (rt_held_is(&held[i], m->lock, m->id)) {
            struct freed_held *f =
                &freed_held[__atomic_fetch_add(&freed_held_next, 1, __ATOMIC_RELAXED) % FREED_HELD_SLOTS];
            __atomic_store_n(&f->addr, 0, __ATOMIC_RELAXED);
            f->holder = t->tid;
            f->freer = m->c->t->tid;
            f->free_stack = m->c->free_stack;
            f->unmapped = (uint8_t)(m->c->what != NULL);
            __atomic_store_n(&f->addr, m->addr, __ATOMIC_RELEASE);
            __atomic_store_n(&t->held_freed, 1, __ATOMIC_RELEASE);
            return;
        }
}

static void report_freed_lock(struct free_ctx *c, struct rt_lock *l)
{
    char comm[32];
    /* A bit lock's object is its word: the holders' line below names the bit. */
    uintptr_t addr = rt_lock_object_start(__atomic_load_n(&l->addr, __ATOMIC_RELAXED));
    if (!c->free_stack && !c->thread_exit)
        c->free_stack = rt_stack_capture((unsigned)rt_opt.stack_depth);
    rt_thread_comm(c->t->tid, comm, sizeof comm);
    struct rt_report *r = rt_report_begin(RT_KIND_ACTIVE_LOCK_FREED, c->t->tid);
    if (!r)
        return;
    rt_report_headline(r, "BUG: %s/%d, active lock [0x%lx(0x%lx-0x%lx)] freed!", comm, c->t->tid,
                       (unsigned long)addr, (unsigned long)c->start, (unsigned long)(c->start + c->len));
    if (c->thread_exit)
        rt_report_text(r, "memory [0x%lx-0x%lx] is the stack of %s/%d, which is exiting:", (unsigned long)c->start,
                       (unsigned long)(c->start + c->len), comm, c->t->tid);
    else if (c->what)
        rt_report_stack(r, c->free_stack, "memory [0x%lx-0x%lx], %s, unmapped by %s/%d at:", (unsigned long)c->start,
                        (unsigned long)(c->start + c->len), c->what, comm, c->t->tid);
    else
        rt_report_stack(r, c->free_stack, "memory [0x%lx-0x%lx] freed by %s/%d at:", (unsigned long)c->start,
                        (unsigned long)(c->start + c->len), comm, c->t->tid);
    rt_report_holders(r, l, c->t->tid);
    rt_report_stack(r, l->init_stack, "the lock was %s by thread %d at:",
                    l->statically_initialized ? "statically initialized; first used" : "initialized", l->init_tid);
    rt_report_finish(r);
    struct mark_holders m = { l, __atomic_load_n(&l->id, __ATOMIC_RELAXED),
                              __atomic_load_n(&l->addr, __ATOMIC_RELAXED), c };
    rt_thread_for_each(mark_holder, &m);
}

static int own_slot(const struct freed_held *f, const struct rt_thread *t, uintptr_t addr)
{
    return __atomic_load_n(&f->addr, __ATOMIC_ACQUIRE) == addr && addr && f->holder == t->tid;
}

int rt_release_of_freed(struct rt_thread *t, uintptr_t addr)
{
    /* Cleared before the look: a freer that marks t meanwhile sets it again. */
    __atomic_store_n(&t->held_freed, 0, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    struct freed_held *slot = NULL;
    int others = 0;
    for (unsigned i = 0; i < FREED_HELD_SLOTS; i++) {
        struct freed_held *f = &freed_held[i];
        uintptr_t a = __atomic_load_n(&f->addr, __ATOMIC_ACQUIRE);
        if (!a || f->holder != t->tid)
            continue;
        if (a == addr && !slot)
            slot = f;
        else
            others = 1;
    }
    if (others)
        __atomic_store_n(&t->held_freed, 1, __ATOMIC_RELAXED);
    if (!slot)
        return -1;
    int index = -1;
    for (unsigned i = t->nheld; i-- > 0;)
        if (t->held[i].addr == addr) {
            index = rt_held_live(&t->held[i]) ? -1 : (int)i;
            break;
        }
    if (index < 0) /* taken again since (a new lock at the same address) */
        return -1;
    char comm[32], who[32];
    int freer = slot->freer, unmapped = slot->unmapped;
    rt_stack_id free_stack = slot->free_stack;
    if (!own_slot(slot, t, addr))
        return index; /* reused meanwhile: the entry still goes, without a report */
    uintptr_t expected = addr;
    __atomic_compare_exchange_n(&slot->addr, &expected, 0, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    rt_thread_comm(t->tid, comm, sizeof comm);
    rt_thread_comm(freer, who, sizeof who);
    struct rt_report *r = rt_report_begin(RT_KIND_USE_AFTER_DESTROY, t->tid);
    if (!r)
        return index;
    rt_report_headline(r, "WARNING: use of a destroyed lock");
    rt_report_stack(r, rt_stack_capture((unsigned)rt_opt.stack_depth),
                    "%s/%d releases lock [0x%lx], whose memory %s/%d %s while this thread held it, at:", comm, t->tid,
                    (unsigned long)rt_lock_object_start(addr), who, freer, unmapped ? "unmapped" : "freed");
    if (free_stack)
        rt_report_stack(r, free_stack, "the memory was %s by %s/%d at:", unmapped ? "unmapped" : "freed", who, freer);
    rt_report_text(r, "The release writes to memory that is no longer the lock's (a later allocation there may "
                      "be anything): a lock is released before the object that contains it is freed.");
    rt_report_held_locks(r, t, comm);
    rt_report_finish(r);
    return index;
}

/* Did a thread that holds l now hold it before the memory went? */
static int held_since_before(const struct rt_unmap_held *b, const struct rt_lock *l)
{
    if (b->overflow)
        return 1;
    uintptr_t addr = __atomic_load_n(&l->addr, __ATOMIC_RELAXED);
    int owner = rt_lock_owner(l, NULL), reader = 0;
    if (!owner)
        rt_lock_readers(l, &reader, NULL);
    for (unsigned i = 0; i < b->n; i++)
        if (b->held[i].addr == addr && (b->held[i].tid == owner || b->held[i].tid == reader))
            return 1;
    return 0;
}

static void check_lock(struct rt_lock *l, void *arg)
{
    struct free_ctx *c = arg;
    if (!c->unmapped) {
        if (rt_lock_is_held(l) && !rt_lock_held_since_fork_only(l))
            report_freed_lock(c, l);
    } else if (rt_lock_is_held_by_record(l)) {
        if (!held_since_before(c->before, l))
            return; /* taken in what was mapped there since */
        report_freed_lock(c, l);
    }
    rt_lock_retire(l, c->unmapped);
}

/* A lazy mutex in the range: unlocked (its word says so), it never needed
 * a record; otherwise it gets one now and is judged as any other. */
static void check_lazy(uintptr_t addr, const struct rt_lazy_init *init, void *arg)
{
    struct free_ctx *c = arg;
    if (!c->unmapped && rt_mutex_word_unlocked(addr))
        return;
    struct rt_lock *l = rt_lock_record_lazy(addr, init);
    if (l)
        check_lock(l, c);
}

void rt_on_free(struct rt_thread *t, uintptr_t start, size_t len, uintptr_t pc)
{
    (void)pc;
    /* pc 0: the thread's stack at its exit, where no free() stack exists. */
    struct free_ctx c = { t, start, len, 0, pc == 0, 0, NULL, NULL };
    rt_lazylock_take_range(start, len, check_lazy, &c);
    rt_locktab_for_range(start, len, check_lock, &c);
}

static void take_holds(struct rt_thread *t, void *arg)
{
    struct rt_unmap_held *b = arg;
    const struct rt_held *held = __atomic_load_n(&t->held, __ATOMIC_ACQUIRE);
    unsigned n = __atomic_load_n(&t->nheld, __ATOMIC_ACQUIRE);
    for (unsigned i = 0; i < n && held; i++) {
        uintptr_t addr = __atomic_load_n(&held[i].addr, __ATOMIC_RELAXED);
        if (addr < b->lo || addr >= b->hi || !rt_held_live(&held[i]))
            continue;
        if (b->n == RT_UNMAP_HELD_MAX) {
            b->overflow = 1;
            return;
        }
        b->held[b->n].tid = t->tid;
        b->held[b->n].addr = addr;
        b->n++;
    }
}

void rt_unmap_held_take(struct rt_unmap_held *before, uintptr_t lo, uintptr_t hi)
{
    before->lo = lo;
    before->hi = hi;
    before->n = 0;
    before->overflow = 0;
    rt_thread_for_each(take_holds, before);
}

void rt_on_unmapped(struct rt_thread *t, uintptr_t start, size_t len, const char *what, uintptr_t pc,
                    const struct rt_unmap_held *before)
{
    struct free_ctx c = { t, start, len, 0, 0, 1, what, before };
    (void)pc;
    rt_lazylock_take_range(start, len, check_lazy, &c);
    rt_locktab_for_range(start, len, check_lock, &c);
}
