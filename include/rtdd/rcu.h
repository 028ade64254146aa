/* rtdd preemptible userspace RCU (librtdd_rcu) — the classic RCU API.
 *
 * Readers:  rcu_read_lock(); p = rcu_dereference(gp); ... rcu_read_unlock();
 * Updaters: rcu_assign_pointer(gp, n); synchronize_rcu(); free(old);
 *           or call_rcu(&old->rh, free_cb);
 *
 * Read sections nest freely, may be preempted or sleep, may run in signal
 * handlers and never block.  Threads need not register: the first
 * rcu_read_lock() registers the thread and thread exit unregisters it.
 * Link with -lrtdd_rcu (shared or static).  See docs/rcu.md.
 */
#ifndef RTDD_RCU_H
#define RTDD_RCU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rcu_head {
    struct rcu_head *next;
    void (*func)(struct rcu_head *head);
};

/* ---- internal layout used by the inline read side (not API) ---------------
 * Each thread owns one reader slot.  Its word `ctr` holds the nesting depth
 * in the low 32 bits and, from the outermost rcu_read_lock(), a snapshot of
 * the grace-period word: the phase bit (bit 32) and, under a debugging
 * runtime, its clock (bits 33-63; 0 otherwise).  The snapshot is the "slot"
 * the reader entered: unlock only ever decrements the same word, so it
 * releases exactly what the outermost lock took, and one plain store per
 * lock/unlock keeps the word consistent against signal handlers that nest
 * their own read sections. */
#define RTDD_RCU_NEST_MASK 0xffffffffULL
#define RTDD_RCU_PHASE_BIT (1ULL << 32)
#define RTDD_RCU_CLOCK_SHIFT 33

/* Record mode. Under the rtdd runtime, with nothing else to do out of
 * line, the inline read side records sections and dereferences itself into
 * a per-thread record that the runtime owns and attaches to the reader slot,
 * and calls out only for what it cannot record: no record attached (the
 * runtime detaches it while it must see every event), or a reference it
 * must note.  The section's nesting and entry clock are the slot's own
 * word; the record adds where and on which CPU it began and what it
 * dereferenced, as exact call addresses (the runtime turns them into
 * stacks).  The layout is shared with the runtime (detect/locks/thread.h). */
#define RTDD_RCU_REC_DEREFS 16    /* dereferences remembered per section */
#define RTDD_RCU_REC_SITES 64     /* the runtime's site cache, indexed by pc >> 2 */
#define RTDD_RCU_REC_LINE_SHIFT 8 /* the runtime's reference clock per line */
#define RTDD_RCU_REC_LINE_BITS 21
#define RTDD_RCU_REC_PC_BITS 48 /* entry: pc | CPU << 48 (CPU 0xffff: unknown) */
#define RTDD_RCU_REC_LAYOUT 2   /* this layout (1: until the slot's word held the section) */
struct rtdd_rcu_site {
    uintptr_t pc;   /* call site */
    uint32_t stack; /* the runtime's stack id of its first call */
};
struct rtdd_rcu_record {
    /* The outermost rcu_read_lock() of the current section, and the
     * dereferences made in it since (the ring keeps the last ones). Other
     * threads read them without locks. */
    uint64_t entry;
    unsigned nderef;
    /* Sections the runtime tracks itself (other RCU flavours, or
     * librtdd_rcu without record mode): their nesting and entry clock. */
    unsigned depth;
    uint64_t enter_clock;
    uint8_t flavor; /* of the section the runtime tracks */
    uint8_t in_callback;
    /* Set by the runtime when it attaches the record. */
    const volatile uint32_t *cpu_id; /* the thread's rseq cpu_id */
    const uint64_t *line_clock;      /* per line: referenced up to this clock */
    unsigned long sections, migrated; /* ended sections, those that changed CPU */
    unsigned long callouts; /* calls into the runtime while attached (statistics) */
    uint64_t wait_clock;
    struct {
        uintptr_t value;
        uintptr_t pc;
    } deref[RTDD_RCU_REC_DEREFS];
    /* The runtime's call sites (its site cache). */
    struct rtdd_rcu_site sites[RTDD_RCU_REC_SITES];
};

struct rtdd_rcu_reader {
    uint64_t ctr;    /* nesting | grace-period word snapshot; read by grace periods */
    int32_t in_use;  /* slot claimed by a live thread */
    int32_t tid;     /* owner's kernel thread id (diagnostics) */
    uint64_t slow_calls; /* entries into the out-of-line read side (statistics) */
    struct rtdd_rcu_record *record; /* record mode: the runtime's, for this thread */
    /* Record mode: where the inline code that calls out stands, when that
     * is the reason (else 0: the call's return address says it). */
    const void *pending_pc;
    char pad[24];    /* one cache line per reader: no false sharing */
} __attribute__((aligned(64)));

/* Bits of rtdd_rcu_read_slow: any set bit sends the read side out of line. */
#define RTDD_RCU_SLOW_HOOKS 1u  /* debug hooks installed */
#define RTDD_RCU_SLOW_FENCE 2u  /* no membarrier(2): readers must fence */
#define RTDD_RCU_SLOW_WAITER 4u /* a grace period sleeps: wake it on exit */
/* With HOOKS alone: record mode, of the record layout RTDD_RCU_REC_LAYOUT.
 * A new layout takes a new bit, so that code built with an older header
 * never writes a record of this one (it only ever calls out). */
#define RTDD_RCU_SLOW_RECORD 16u
#define RTDD_RCU_RECORDING (RTDD_RCU_SLOW_HOOKS | RTDD_RCU_SLOW_RECORD)

extern __thread struct rtdd_rcu_reader *rtdd_rcu_self
    __attribute__((tls_model("initial-exec")));
extern struct rtdd_rcu_reader rtdd_rcu_unregistered; /* shared all-zero slot */
/* Both sit alone in their cache lines: readers load them on every section. */
extern uint64_t rtdd_rcu_gp_ctr;        /* 1 | current phase bit | clock */
extern unsigned int rtdd_rcu_read_slow; /* the one global the read side tests */

struct rtdd_rcu_reader *rtdd_rcu_register_lazy(void);
void rtdd_rcu_read_lock_slow(void);
void rtdd_rcu_read_unlock_slow(unsigned int depth_before);
void rtdd_rcu_read_unbalanced(void);

/* The address of the code at hand: what record mode records. */
#if defined(__x86_64__)
#define RTDD_RCU_HERE(pc) __asm__ volatile("lea 0(%%rip), %0" : "=r"(pc))
#define RTDD_RCU_CAN_RECORD 1
#elif defined(__aarch64__)
#define RTDD_RCU_HERE(pc) __asm__ volatile("adr %0, ." : "=r"(pc))
#define RTDD_RCU_CAN_RECORD 1
#else
#define RTDD_RCU_HERE(pc) ((pc) = 0)
#define RTDD_RCU_CAN_RECORD 0 /* every event calls out */
#endif

/* Record mode's halves of the read side: 1 if recorded, 0 to call out
 * (with the slot's pending_pc set to the call site when that is what
 * the runtime must learn).  ctr: the slot's word before this lock or
 * unlock; pc: where the program's rcu_read_lock() or rcu_dereference()
 * stands (taken there, so that it reads as the program's own line). */
static inline __attribute__((always_inline)) int rtdd_rcu_record_lock(struct rtdd_rcu_reader *self, uint64_t ctr,
                                                                     uintptr_t pc)
{
#if RTDD_RCU_CAN_RECORD
    struct rtdd_rcu_record *r = self->record;
    if (__builtin_expect(r == NULL, 0)) {
        self->pending_pc = (const void *)pc;
        return 0;
    }
    if (!(ctr & RTDD_RCU_NEST_MASK))
        __atomic_store_n(&r->entry, pc | (uint64_t)(uint16_t)*r->cpu_id << RTDD_RCU_REC_PC_BITS,
                         __ATOMIC_RELAXED);
    return 1;
#else
    (void)self;
    (void)ctr;
    (void)pc;
    return 0;
#endif
}

static inline __attribute__((always_inline)) int rtdd_rcu_record_unlock(struct rtdd_rcu_reader *self, uint64_t ctr)
{
    struct rtdd_rcu_record *r = self->record;
    if (__builtin_expect(r == NULL, 0))
        return 0;
    if ((ctr & RTDD_RCU_NEST_MASK) == 1) {
        /* The ring empties as the section ends, before the next one can
         * begin: whoever sees a section sees only its own dereferences. */
        __atomic_store_n(&r->nderef, 0, __ATOMIC_RELAXED);
        r->sections++;
        if ((uint16_t)*r->cpu_id != (uint16_t)(r->entry >> RTDD_RCU_REC_PC_BITS))
            r->migrated++;
    }
    return 1;
}

static inline __attribute__((always_inline)) int rtdd_rcu_record_dereference(const void *value, uintptr_t pc)
{
#if RTDD_RCU_CAN_RECORD
    /* A record is attached in record mode only. */
    struct rtdd_rcu_reader *self = rtdd_rcu_self;
    struct rtdd_rcu_record *r = self->record;
    if (__builtin_expect(r == NULL, 0))
        return 0;
    /* Outside a section there is nothing to remember (the ring would hand
     * it to the next section), but something to check: the runtime's. */
    uint64_t ctr = __atomic_load_n(&self->ctr, __ATOMIC_RELAXED);
    if (__builtin_expect(!(ctr & RTDD_RCU_NEST_MASK), 0))
        return value == NULL;
    /* The runtime notes a line's first reference after each step of its
     * clock (compared modulo 2^31). */
    uintptr_t line = ((uintptr_t)value >> RTDD_RCU_REC_LINE_SHIFT) & ((1u << RTDD_RCU_REC_LINE_BITS) - 1);
    uint32_t noted = (uint32_t)__atomic_load_n(&r->line_clock[line], __ATOMIC_RELAXED) << 1 | 1;
    if (__builtin_expect((int32_t)(noted - (uint32_t)(ctr >> 32)) < 0, 0)) {
        self->pending_pc = (const void *)pc; /* a record: self is registered */
        return 0;
    }
    unsigned n = r->nderef;
    __atomic_store_n(&r->nderef, n + 1, __ATOMIC_RELAXED);
    n &= RTDD_RCU_REC_DEREFS - 1;
    r->deref[n].pc = pc;
    __atomic_store_n(&r->deref[n].value, (uintptr_t)value, __ATOMIC_RELEASE);
    return 1;
#else
    (void)value;
    (void)pc;
    return 0;
#endif
}

/* ---- read side -------------------------------------------------------- */

/* Enter a read-side critical section: one TLS load, one global load and one
 * plain store; no atomic read-modify-write, no fence (the update side uses
 * membarrier(2) instead). */
static inline __attribute__((always_inline)) void rcu_read_lock(void)
{
    struct rtdd_rcu_reader *self = rtdd_rcu_self;
    if (__builtin_expect(self == &rtdd_rcu_unregistered, 0))
        self = rtdd_rcu_register_lazy();
    uint64_t ctr = __atomic_load_n(&self->ctr, __ATOMIC_RELAXED);
    uint64_t next = (ctr & RTDD_RCU_NEST_MASK)
                        ? ctr + 1
                        : __atomic_load_n(&rtdd_rcu_gp_ctr, __ATOMIC_RELAXED);
    __atomic_store_n(&self->ctr, next, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    unsigned int slow = __atomic_load_n(&rtdd_rcu_read_slow, __ATOMIC_RELAXED);
    if (__builtin_expect(slow != 0, 0)) {
        uintptr_t pc;
        RTDD_RCU_HERE(pc);
        if (!(slow == RTDD_RCU_RECORDING && rtdd_rcu_record_lock(self, ctr, pc)))
            rtdd_rcu_read_lock_slow();
    }
}

/* Leave the section entered by the matching rcu_read_lock().  The release
 * store orders the section's loads before it without a fence (a plain mov on
 * x86); testing the slow word after the store lets a grace period that went
 * to sleep meanwhile be woken by this reader. */
static inline __attribute__((always_inline)) void rcu_read_unlock(void)
{
    struct rtdd_rcu_reader *self = rtdd_rcu_self;
    uint64_t ctr = __atomic_load_n(&self->ctr, __ATOMIC_RELAXED);
    if (__builtin_expect(!(ctr & RTDD_RCU_NEST_MASK), 0)) {
        rtdd_rcu_read_unbalanced();
        return;
    }
    __atomic_store_n(&self->ctr, ctr - 1, __ATOMIC_RELEASE);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    unsigned int slow = __atomic_load_n(&rtdd_rcu_read_slow, __ATOMIC_RELAXED);
    if (__builtin_expect(slow != 0, 0) && !(slow == RTDD_RCU_RECORDING && rtdd_rcu_record_unlock(self, ctr)))
        rtdd_rcu_read_unlock_slow((unsigned int)(ctr & RTDD_RCU_NEST_MASK));
}

/* Nesting depth of the calling thread's read section (0 = not in one). */
static inline unsigned int rcu_read_depth(void)
{
    return (unsigned int)(__atomic_load_n(&rtdd_rcu_self->ctr, __ATOMIC_RELAXED) &
                          RTDD_RCU_NEST_MASK);
}

/* ---- publish / subscribe ---------------------------------------------- */

extern const struct rtdd_rcu_debug_ops *rtdd_rcu_debug_ops_active;
void rtdd_rcu_debug_dereference(const void *value, const void *slot);
void rtdd_rcu_debug_publish(const void *value, const void *slot);
void rtdd_rcu_debug_dereference_unprotected(const void *value, const void *slot, int protected_form);
void rtdd_rcu_debug_publish_atomic(const void *old, const void *value, const void *slot, int cmpxchg);

/* Does the calling thread hold lock (a pthread mutex, rwlock or spinlock,
 * or any lock the checker knows)? For the conditions of
 * rcu_dereference_check() and rcu_dereference_protected(), which evaluate
 * them only under the checker; without it, 1. */
int rtdd_lock_is_held(const void *lock);
#ifndef lockdep_is_held
#define lockdep_is_held(lock) rtdd_lock_is_held((const void *)(lock))
#endif

#define rtdd_rcu_checking_() \
    __builtin_expect(__atomic_load_n(&rtdd_rcu_debug_ops_active, __ATOMIC_RELAXED) != NULL, 0)

/* Load an RCU-protected pointer inside a read section.  Under the checker,
 * a dereference outside every read section is judged against the locks
 * the pointer's updaters hold. */
#define rcu_dereference(p)                                                    \
    __extension__({                                                           \
        __typeof__(p) rtdd_v_ = __atomic_load_n(&(p), __ATOMIC_CONSUME);      \
        if (rtdd_rcu_checking_()) {                                           \
            uintptr_t rtdd_pc_;                                               \
            RTDD_RCU_HERE(rtdd_pc_);                                          \
            if (!rtdd_rcu_record_dereference((const void *)rtdd_v_, rtdd_pc_)) \
                rtdd_rcu_debug_dereference((const void *)rtdd_v_,             \
                                           (const void *)&(p));               \
        }                                                                     \
        rtdd_v_;                                                              \
    })

/* rcu_dereference(), legal outside a read section too where c holds (the
 * kernel's meaning: c says what else protects the pointer here, e.g.
 * lockdep_is_held(&updater_lock)); outside a section with c false it is
 * reported. c is evaluated only under the checker, outside a section. */
#define rcu_dereference_check(p, c)                                           \
    __extension__({                                                           \
        __typeof__(p) rtdd_v_ = __atomic_load_n(&(p), __ATOMIC_CONSUME);      \
        if (rtdd_rcu_checking_()) {                                           \
            uintptr_t rtdd_pc_;                                               \
            RTDD_RCU_HERE(rtdd_pc_);                                          \
            if (!rtdd_rcu_record_dereference((const void *)rtdd_v_, rtdd_pc_)) { \
                if (rcu_read_depth())                                         \
                    rtdd_rcu_debug_dereference((const void *)rtdd_v_,         \
                                               (const void *)&(p));           \
                else if (!(c))                                                \
                    rtdd_rcu_debug_dereference_unprotected(                   \
                        (const void *)rtdd_v_, (const void *)&(p), 0);        \
            }                                                                 \
        }                                                                     \
        rtdd_v_;                                                              \
    })

/* The updater's load of an RCU pointer it protects by c (e.g.
 * lockdep_is_held(&lock)): no ordering, no read section; under the
 * checker, c false is reported. */
#define rcu_dereference_protected(p, c)                                       \
    __extension__({                                                           \
        __typeof__(p) rtdd_v_ = __atomic_load_n(&(p), __ATOMIC_RELAXED);      \
        if (rtdd_rcu_checking_() && !(c))                                     \
            rtdd_rcu_debug_dereference_unprotected((const void *)rtdd_v_,     \
                                                   (const void *)&(p), 1);    \
        rtdd_v_;                                                              \
    })

/* Publish v through the pointer lvalue p: stores that initialised *v are
 * visible to any reader that sees the new pointer. */
#define rcu_assign_pointer(p, v)                                              \
    do {                                                                      \
        __typeof__(p) rtdd_n_ = (v);                                          \
        if (__builtin_expect(__atomic_load_n(&rtdd_rcu_debug_ops_active,      \
                                             __ATOMIC_RELAXED) != NULL, 0))   \
            rtdd_rcu_debug_publish((const void *)rtdd_n_, (const void *)&(p)); \
        __atomic_store_n(&(p), rtdd_n_, __ATOMIC_RELEASE);                    \
    } while (0)

/* Publish v through *pp and return what it replaces, atomically (liburcu's
 * rcu_xchg_pointer): updaters that all use it need no lock among
 * themselves, each retires exactly the object it replaced. */
#define rcu_xchg_pointer(pp, v)                                               \
    __extension__({                                                           \
        __typeof__(*(pp)) rtdd_n_ = (v);                                      \
        __typeof__(*(pp)) rtdd_o_ = __atomic_exchange_n((pp), rtdd_n_, __ATOMIC_SEQ_CST); \
        if (rtdd_rcu_checking_())                                             \
            rtdd_rcu_debug_publish_atomic((const void *)rtdd_o_,              \
                                          (const void *)rtdd_n_, (const void *)(pp), 0); \
        rtdd_o_;                                                              \
    })

/* Publish v through *pp if it still holds old; returns what it held
 * (old on success), as liburcu's rcu_cmpxchg_pointer. */
#define rcu_cmpxchg_pointer(pp, old, v)                                       \
    __extension__({                                                           \
        __typeof__(*(pp)) rtdd_o_ = (old), rtdd_e_ = rtdd_o_, rtdd_n_ = (v);   \
        if (__atomic_compare_exchange_n((pp), &rtdd_e_, rtdd_n_, 0, __ATOMIC_SEQ_CST, \
                                        __ATOMIC_SEQ_CST) &&                  \
            rtdd_rcu_checking_())                                             \
            rtdd_rcu_debug_publish_atomic((const void *)rtdd_o_,              \
                                          (const void *)rtdd_n_, (const void *)(pp), 1); \
        rtdd_e_;                                                              \
    })

/* Read an RCU pointer without dereferencing it (comparisons, NULL tests). */
#define rcu_access_pointer(p) __atomic_load_n(&(p), __ATOMIC_RELAXED)

/* ---- update side ------------------------------------------------------ */

/* Wait until every read section that began before the call has ended.
 * Concurrent callers share grace periods.  Must not be called inside a read
 * section (that self-deadlocks; a message is printed first). */
void synchronize_rcu(void);

/* Queue func(head) to run on the RCU worker thread after a grace period.
 * Never runs func in the caller's context; legal inside a read section and
 * inside callbacks.  Past the hard callback limit a caller outside any read
 * section waits (bounded) for the worker to catch up. */
void call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head));

/* Wait until every callback queued before the call has been invoked.
 * Inside a read section or on the worker it would deadlock: it prints a
 * message and returns at once. */
void rcu_barrier(void);

/* Optional explicit registration (lazy registration makes them unneeded). */
void rcu_register_thread(void);
void rcu_unregister_thread(void);

/* ---- bounded callback memory (requirement 5) -------------------------- */

/* Past the soft limit of outstanding callbacks grace periods are expedited;
 * past the hard limit call_rcu() throttles its caller.  0 = no limit.
 * Defaults: hard 100000, soft hard/8; environment RTDD_RCU_MAX_CALLBACKS
 * (hard) and RTDD_RCU_SOFT_CALLBACKS (soft) override them at start-up. */
void rcu_set_callback_soft_limit(size_t soft);
void rcu_set_callback_hard_limit(size_t hard);
size_t rcu_callback_soft_limit(void);
size_t rcu_callback_hard_limit(void);
/* Callbacks queued and not yet invoked. */
size_t rcu_pending_callbacks(void);

/* Reap now (for low-memory handlers): expedite grace periods and wait until
 * every callback queued before the call has run.  Returns 0, or -1 with
 * errno EDEADLK when called inside a read section or from a callback, where
 * it can only kick the worker. */
int rcu_reclaim_now(void);

/* Counters for tests, torture and diagnostics. */
struct rtdd_rcu_stats {
    uint64_t grace_periods;      /* grace periods completed */
    uint64_t callbacks_invoked;  /* callbacks run by the worker */
    uint64_t callback_batches;   /* worker batches */
    uint64_t throttled_calls;    /* call_rcu() calls that waited at the hard limit */
    uint64_t max_pending;        /* high-water mark of pending callbacks */
    uint64_t read_slow_calls;    /* read-side entries into the out-of-line path (a count made in a signal handler may be lost) */
    uint64_t registered_threads; /* live registered reader slots */
    int membarrier;              /* 1: asymmetric barriers via membarrier(2) */
};
void rtdd_rcu_get_stats(struct rtdd_rcu_stats *out);

#ifdef __cplusplus
}
#endif
#endif
