/* RCU-aware checking, for librtdd_rcu (through its debug hooks) and for
 * liburcu (through its exported functions). Each RCU flavour is a pair of
 * pseudo-locks in the lock-order graph: readers read-acquire the RCU lock
 * that synchronize_rcu write-acquires; callbacks run inside a read
 * acquisition of the callback lock that rcu_barrier write-acquires. */
#ifndef RTDD_RCUCHECK_H
#define RTDD_RCUCHECK_H
#include "locks/locks.h"
#include "core/core.h"
#include "rcu/rcuptr.h"
#include <stddef.h>
#include <stdint.h>

enum rt_rcu_flavor { RT_RCU_RTDD, RT_RCU_MEMB, RT_RCU_MB, RT_RCU_BP, RT_RCU_QSBR, RT_RCU_SIGNAL, RT_RCU_FLAVORS };

/* Since the first RCU event (its bit in the free-checks word), free() is
 * checked against RCU readers. */
static inline int rt_rcu_in_use(void)
{
    return (__atomic_load_n(&rt_free_checks, __ATOMIC_RELAXED) & RT_FREE_RCU) != 0;
}

/* What free() needs to know cheaply: per 256-byte line (mod 2^21), the
 * latest RCU clock at which an object there was obtained with
 * rcu_dereference (the reader's entry clock) or unpublished (0: never).
 * Once every RCU in use has completed a grace period that began after
 * that clock, no reader can still hold the line's objects and no unpublish
 * there can be premature: a free() of memory on such lines, and of memory
 * RCU never touched, is decided without looking at any thread. */
#define RT_RCU_LINE_BITS 21
extern _Atomic uint64_t rt_rcu_line_clock[1u << RT_RCU_LINE_BITS];
/* The smallest latest-completed grace-period begin clock over the RCUs in
 * use (each grace period's readers entered below it). */
extern _Atomic uint64_t rt_rcu_gp_floor;

static inline _Atomic uint64_t *rt_rcu_line_slot(uintptr_t line)
{
    return &rt_rcu_line_clock[line & ((1u << RT_RCU_LINE_BITS) - 1)];
}

/* Raises the line clock of p to clock; a plain load first keeps lines
 * already that recent read-only. */
static inline void rt_rcu_note_referenced(uintptr_t p, uint64_t clock)
{
    _Atomic uint64_t *slot = rt_rcu_line_slot(p >> RT_LINE_SHIFT);
    uint64_t cur = __atomic_load_n(slot, __ATOMIC_RELAXED);
    while (cur < clock && !__atomic_compare_exchange_n(slot, &cur, clock, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
        ;
}

static inline int rt_rcu_referenced_known(uintptr_t p, uint64_t clock)
{
    return __atomic_load_n(rt_rcu_line_slot(p >> RT_LINE_SHIFT), __ATOMIC_RELAXED) >= clock;
}

static inline int rt_rcu_line_live(uintptr_t line, uint64_t floor)
{
    uint64_t c = __atomic_load_n(rt_rcu_line_slot(line), __ATOMIC_RELAXED);
    return c != 0 && c >= floor;
}

/* May a reader still use memory in [start, start+len), or was an object
 * there unpublished too recently? 0 proves neither. */
static inline int rt_rcu_may_reference(uintptr_t start, size_t len)
{
    uint64_t floor = __atomic_load_n(&rt_rcu_gp_floor, __ATOMIC_ACQUIRE);
    uintptr_t first = (start - RT_FILTER_REACH) >> RT_LINE_SHIFT, last = (start + len - 1) >> RT_LINE_SHIFT;
    if (last - first > 64)
        return 1;
    for (uintptr_t line = first; line <= last; line++)
        if (rt_rcu_line_live(line, floor))
            return 1;
    return 0;
}

/* The same for a block of at most RT_SMALL_RANGE bytes: two lines. */
static inline int rt_rcu_may_reference_small(uintptr_t start)
{
    uint64_t floor = __atomic_load_n(&rt_rcu_gp_floor, __ATOMIC_ACQUIRE);
    uintptr_t line = (start - RT_FILTER_REACH) >> RT_LINE_SHIFT;
    return rt_rcu_line_live(line, floor) | rt_rcu_line_live(line + 1, floor);
}

/* The pseudo-lock addresses: [f][0] is flavour f's RCU lock, [f][1] its
 * callback lock. */
extern char rt_rcu_anchors[RT_RCU_FLAVORS][2];
/* The name reports give an RCU pseudo-lock (rcu_read_lock, rcu_callbacks, by flavour). */
const char *rt_rcu_pseudo_name(const struct rt_lock *l);
/* The RCU clock (see rcucheck.c): readers only load it. */
extern _Atomic uint64_t rt_rcu_epoch;

/* The thread's current read section (0 if none): its entry clock, and the
 * stack of its rcu_read_lock(). */
uint64_t rt_rcu_enter_clock(const struct rt_thread *t);
rt_stack_id rt_rcu_enter_stack(const struct rt_thread *t);
uintptr_t rt_rcu_enter_pc(const struct rt_thread *t);

void rt_rcu_read_enter(struct rt_thread *t, enum rt_rcu_flavor f, uintptr_t pc);
void rt_rcu_read_exit(struct rt_thread *t, enum rt_rcu_flavor f, uintptr_t pc);
/* rcu_read_unlock() outside any section. */
void rt_rcu_read_unbalanced(struct rt_thread *t, uintptr_t pc);
/* value loaded from slot (NULL: the API passes the value alone). */
void rt_rcu_dereference(struct rt_thread *t, const void *slot, const void *value, uintptr_t pc);
/* rcu_dereference_check/_protected whose condition is false. */
void rt_rcu_dereference_unprotected(struct rt_thread *t, const void *slot, const void *value,
                                    enum rt_rcu_deref_form form, uintptr_t pc);
/* rcu_assign_pointer/xchg/cmpxchg of fresh into slot (NULL: unknown): old
 * is the pointer being replaced (unpublished). */
void rt_rcu_publish(struct rt_thread *t, const void *slot, const void *old, const void *fresh, enum rt_rcu_update op,
                    uintptr_t pc);
/* Has a program used flavour f? */
int rt_rcu_flavor_seen(enum rt_rcu_flavor f);
/* synchronize_rcu (barrier = 0) or rcu_barrier (barrier = 1). */
void rt_rcu_wait_begin(struct rt_thread *t, enum rt_rcu_flavor f, int barrier, uintptr_t pc);
void rt_rcu_wait_end(struct rt_thread *t, enum rt_rcu_flavor f, int barrier, uintptr_t pc);
/* call_rcu of head with callback func: RT_RCU_QUEUED (tracked),
 * RT_RCU_DUPLICATE (already queued: reported, drop the call) or
 * RT_RCU_UNTRACKED (no memory to track it: queue it unobserved). */
enum { RT_RCU_QUEUED, RT_RCU_DUPLICATE, RT_RCU_UNTRACKED };
int rt_rcu_call(struct rt_thread *t, enum rt_rcu_flavor f, const void *head, void *func, uintptr_t pc);
/* The callback of head starts; returns the func given to rt_rcu_call. */
void *rt_rcu_callback_begin(struct rt_thread *t, enum rt_rcu_flavor f, const void *head);
void rt_rcu_callback_end(struct rt_thread *t, enum rt_rcu_flavor f, const void *head);
/* free() of [start, start+len): readers still referencing it, or an
 * unpublished object freed without a grace period. */
void rt_rcu_on_free(struct rt_thread *t, uintptr_t start, size_t len, uintptr_t pc);
/* A thread ends inside a read section. */
void rt_rcu_on_thread_exit(struct rt_thread *t);
/* Read sections that ended, and those of them that ended on another CPU
 * than they began on (the seed's migration case). */
unsigned long rt_rcu_sections(void);
/* A thread's counts move to the totals when its state is freed. */
void rt_rcu_thread_gone(const struct rt_thread *t);
unsigned long rt_rcu_migrated_sections(void);
/* The exit summary's clause on them (rt_report_summary_hook). */
void rt_rcu_summary(struct rt_buf *b);
/* The watchdog's check of grace periods blocked longer than
 * rcu_stall_timeout_ms (INFO rcu-stall). */
int rt_rcu_is_pseudo(const struct rt_lock *l);
/* librtdd_rcu forgets the readers and callbacks of vanished threads in a
 * forked child (rcu/fork.c): its pseudo-locks (l at addr) are not left
 * held there, unlike liburcu's. */
int rt_rcu_forgotten_at_fork(const struct rt_lock *l, uintptr_t addr);
/* In a forked child: the tables' locks may have been held by vanished threads. */
void rt_rcucheck_after_fork(void);

/* Record mode (include/rtdd/rcu.h). The clock moves into the upper bits
 * of librtdd_rcu's grace-period word, where readers pick it up for free. */
void rt_rcu_set_clock_word(uint64_t *gp_word);
/* The calling thread's record goes with its reader slot (after a
 * section the runtime tracks itself has ended); detached when the slot is
 * released or the thread's state goes away. */
void rt_rcu_attach(struct rt_thread *t, struct rtdd_rcu_reader *slot);
void rt_rcu_detach(struct rt_thread *t);
/* librtdd_rcu releases the thread's slot (exit, or unregistration):
 * a section still open there is reported as exit_in_reader is. */
void rt_rcu_slot_released(struct rt_thread *t);
/* A section that record mode entered inline is not on the held-lock stack
 * until something needs it there: a lock taken inside it (the
 * rcu_read_lock -> M order) pushes it first. */
void rt_rcu_materialize(struct rt_thread *t);
/* The RCU pseudo-lock such a section read-holds without its entry on the
 * stack (those who look for holders count it), or NULL. Whether it is on
 * the stack is read from the stack itself: a flag kept beside it could
 * disagree with it after a signal handler's section in between. */
struct rt_lock *rt_rcu_unmaterialized_lock(const struct rt_thread *t);

/* The read side's common cases as leaves, for callers outside the runtime
 * (no guard needed): they return 0, having changed nothing, when the
 * general function must run. A nested section only counts; the outermost
 * one of a thread holding no lock, whose pseudo-lock and call site the
 * caches know, is recorded and pushed as rt_rcu_read_enter would.
 * librtdd_rcu's sections in record mode are the slot's: the general way. */
RT_FAST int rt_rcu_read_enter_fast(struct rt_thread *t, enum rt_rcu_flavor f, uintptr_t pc)
{
    if (__builtin_expect(f == RT_RCU_RTDD && t->rcu_slot != NULL, 0))
        return 0;
    unsigned depth = __atomic_load_n(&t->rcu.depth, __ATOMIC_RELAXED);
    if (__builtin_expect(depth != 0, 0)) {
        __atomic_store_n(&t->rcu.depth, depth + 1, __ATOMIC_RELAXED);
        return 1;
    }
    if (__builtin_expect((t->nheld | (unsigned)t->acquire_unusual) != 0 || !rt_cpu_rseq ||
                             !rt_rcu_in_use(), 0))
        return 0;
    uint64_t id;
    uintptr_t addr = (uintptr_t)&rt_rcu_anchors[f][0];
    struct rt_lock *l = rt_lock_cached_id(t, addr, &id);
    unsigned slot = (unsigned)(pc >> 2) & (RT_SITE_CACHE - 1);
    if (__builtin_expect(!l || t->rcu.sites[slot].pc != pc, 0))
        return 0;
    int cpu = rt_thread_cpu_fast(t);
    t->rcu.flavor = (uint8_t)f;
    __atomic_store_n(&t->rcu.entry, pc | (uint64_t)(uint16_t)cpu << RTDD_RCU_REC_PC_BITS, __ATOMIC_RELAXED);
    t->rcu.nderef = 0;
    __atomic_store_n(&t->rcu.enter_clock, __atomic_load_n(&rt_rcu_epoch, __ATOMIC_ACQUIRE), __ATOMIC_RELAXED);
    __atomic_store_n(&t->rcu.depth, 1, __ATOMIC_RELEASE);
    return rt_lock_first_acquired_fast(t, l, id, addr, RT_ACQ_READ, pc, cpu); /* 1: the site is cached */
}

RT_FAST int rt_rcu_read_exit_fast(struct rt_thread *t, enum rt_rcu_flavor f)
{
    if (__builtin_expect(f == RT_RCU_RTDD && t->rcu_slot != NULL, 0))
        return 0;
    unsigned depth = __atomic_load_n(&t->rcu.depth, __ATOMIC_RELAXED);
    if (__builtin_expect(depth > 1, 0)) {
        __atomic_store_n(&t->rcu.depth, depth - 1, __ATOMIC_RELAXED);
        return 1;
    }
    /* Locks held: the section's pseudo-lock must be the top one. */
    if (__builtin_expect(depth == 0 || !rt_cpu_rseq, 0) ||
        (t->nheld && !rt_lock_release_fast(t, (uintptr_t)&rt_rcu_anchors[f][0])))
        return 0;
    __atomic_store_n(&t->rcu.depth, 0, __ATOMIC_RELEASE);
    t->rcu.sections++;
    if ((uint16_t)rt_thread_cpu_fast(t) != (uint16_t)(t->rcu.entry >> RTDD_RCU_REC_PC_BITS))
        t->rcu.migrated++;
    return 1;
}

RT_FAST int rt_rcu_dereference_fast(struct rt_thread *t, const void *value, uintptr_t pc)
{
    if (!value)
        return 1; /* NULL: nothing to remember, nothing to check */
    if (__builtin_expect(__atomic_load_n(&rt_rcuptr_dangling, __ATOMIC_RELAXED) != 0, 0))
        return 0; /* something was freed while published: every dereference is looked at */
    /* Outside a section the runtime tracks: checked, or the slot's section;
     * online QSBR readers are in a section that no call shows. */
    if (!__atomic_load_n(&t->rcu.depth, __ATOMIC_RELAXED))
        return !t->rcu_slot && __atomic_load_n(&rt_rcu_qsbr_registered, __ATOMIC_RELAXED);
    unsigned slot = (unsigned)(pc >> 2) & (RT_SITE_CACHE - 1);
    if (__builtin_expect(t->rcu.sites[slot].pc != pc ||
                             !rt_rcu_referenced_known((uintptr_t)value, __atomic_load_n(&t->rcu.enter_clock, __ATOMIC_RELAXED)),
                         0))
        return 0;
    unsigned i = t->rcu.nderef++ % RT_RCU_DEREFS;
    t->rcu.deref[i].pc = pc;
    __atomic_store_n(&t->rcu.deref[i].value, (uintptr_t)value, __ATOMIC_RELEASE);
    return 1;
}
#endif
