/* Per-thread engine state: the held-lock stack and the caches that keep
 * repeated lock/unlock of the same lock off shared memory. */
#ifndef RTDD_THREAD_H
#define RTDD_THREAD_H
#include "core/core.h"
#include "locks/locktab.h"
#include <sched.h>
#include <rtdd/rcu.h>
#include <rtdd/rculist.h>
#include <stdint.h>

#define RT_HELD_INLINE 32
#define RT_LOCK_CACHE 256
/* Chain keys (salted, as the global chain cache's) this thread found
 * validated: a nested acquisition seen before reads its own line, not the
 * megabyte-wide global table. */
#define RT_CHAIN_CACHE 64
#define RT_CACHE_VICTIMS 4
#define RT_SITE_CACHE RTDD_RCU_REC_SITES

enum rt_hold_mode { RT_HOLD_WRITE = 0, RT_HOLD_READ = 1 };

/* id and addr come first, together: another thread clears an unnamed
 * entry with one 16-byte compare-and-swap on the pair (rt_held_kill_unnamed). */
struct rt_held {
    _Alignas(16) uint64_t id;
    uintptr_t addr;
    struct rt_lock *lock;
    uint64_t chain;      /* hash of the held-lock sequence up to this entry */
    rt_stack_id stack;   /* stack of the first acquisition from pc */
    union {
        struct {
            int count;       /* recursive re-acquisitions */
            uint8_t mode;    /* enum rt_hold_mode */
            uint8_t trylock; /* taken with a trylock: no edge led into it */
            int16_t cpu;     /* CPU at acquisition (cross-CPU unlock check) */
        };
        uint64_t state;      /* all four, written and tested at once on the fast paths */
    };
    uint64_t taken_ns;       /* when it was taken, with hold_threshold_ms only (hang/holdtime.c) */
};

/* The id of an unnamed entry: a lazy mutex (lazylock.h) taken with nothing
 * held, which has no record yet; its lock is rt_unnamed_lock, and it stands
 * for whatever record its address gets (rt_held_name, rt_held_is). */
#define RT_HELD_UNNAMED UINT64_MAX
extern struct rt_lock rt_unnamed_lock;

/* The state word of a held entry (little-endian layout of the fields). */
#define RT_HELD_STATE(count, mode, trylock, cpu)                                                      \
    ((uint64_t)(uint32_t)(count) | (uint64_t)(uint8_t)(mode) << 32 | (uint64_t)(uint8_t)(trylock) << 40 | \
     (uint64_t)(uint16_t)(cpu) << 48)
/* Mask of count and mode in the state word. */
#define RT_HELD_COUNT_MODE 0xffffffffffULL

/* The thread's RCU read-side state (rcucheck.c): librtdd_rcu's record
 * (include/rtdd/rcu.h), which its inline read side fills itself in record
 * mode. Other threads read it without locks; enter_clock is written before
 * depth, depth cleared first, and a section's dereferences are forgotten
 * before the next section can begin. */
#define RT_RCU_DEREFS RTDD_RCU_REC_DEREFS

/* A thread's RCU update knowledge (rcuhb.c): writes of thread tid up to clock happened before. */
#define RT_RCU_HB 6
struct rt_rcu_hb { struct { int tid; uint64_t clock; } e[RT_RCU_HB]; };

struct rt_thread {
    int tid;
    uint64_t order_salt; /* mixed into chain keys: the chain cache is per thread (lockorder.c) */
    uint64_t rcuptr_birth; /* RCU pointer writes up to this clock came before the thread (rcuptr.h) */
    struct rt_rcu_hb rcu_hb; /* and which other threads' writes came before it since (rcuhb.h) */
    /* rcuhb.h's lock orderings: what the thread knows changed (gen), the
     * lock it last published that into and the lock it last merged, with
     * the publications counted then: repeats skip the table. */
    uint64_t rcu_hb_gen, rcu_hb_pub_id, rcu_hb_pub_gen, rcu_hb_acq_id, rcu_hb_acq_seq;
    union {
        struct {
            uint8_t untracked;  /* out of memory for the held stack: stop checking */
            uint8_t hold_timed; /* hold_threshold_ms is on (or rt_thread_slow_acquire): acquisitions and releases take the slow paths */
            uint8_t rcu_wrote;  /* the thread wrote an RCU pointer: its write-mode lock releases publish (rcuhb.h) */
            _Atomic uint8_t held_freed; /* another thread freed a lock this one holds: its release is reported (freed.c) */
        };
        uint16_t acquire_unusual; /* untracked and hold_timed at once: the acquisition fast paths' one load */
        uint32_t release_unusual; /* all four at once, for the release fast path */
    };
    unsigned nheld, held_cap;
    unsigned unnamed;               /* unnamed entries pushed since the last naming */
    uintptr_t lazy_site_pc;         /* the last lazy init site and its index (lazylock.h) */
    uint32_t lazy_site;
    struct rt_held *held;           /* held_inline, or a larger array once it overflows */
    /* Record mode: the word of the librtdd_rcu reader slot the record is
     * attached to (NULL while detached), which holds the nesting
     * and entry clock of the thread's librtdd_rcu sections. Beside nheld:
     * the lock paths test both. */
    const volatile uint64_t *rcu_ctr;
    /* Set while blocked in a lock call, for the deadlock watchdog. */
    struct rt_lock *_Atomic waiting_for;
    /* Set while in synchronize_rcu/rcu_barrier: a wait for readers, under
     * which the thread may still block on (and wait_for) real locks. */
    struct rt_lock *_Atomic rcu_waiting_for;
    _Atomic uint64_t rcu_wait_seq;
    rt_stack_id rcu_wait_stack;
    _Atomic uint64_t wait_seq; /* counts wait episodes: written by the thread only (rt_wait_seq_next) */
    rt_stack_id wait_stack;
    uint8_t wait_mode;
    uint8_t wait_timed; /* the lock or join wait has a timeout */
    /* The watchdog's own: the wait it last saw and since when (ms). */
    uint64_t wd_seen_seq, wd_since_ms;
    uint64_t wd_hang_seq;       /* the wait episode a blocked-too-long report was made for (+1) */
    uint64_t wd_leader_seq;     /* the lock wait episode whose chain ended in an idle event loop (+1) */
    /* Set while blocked in pthread_join: the pthread_t of the thread joined,
     * and its tid (0 if unknown): reports name it even if the runtime never
     * saw it make a call. */
    _Atomic uintptr_t joining;
    _Atomic int joining_tid;
    /* Set while blocked on a condition variable or semaphore (condwait.c),
     * with its record's id and whether another process may wake it. */
    struct rt_lock *_Atomic event_waiting;
    uint64_t event_waiting_id;
    uint8_t event_shared;
    uint8_t event_destroy; /* the wait is pthread_cond_destroy's, for the condition's waiters to leave */
    uint8_t cond_counted; /* the condition wait is counted in its record's cond_waiters */
    uint8_t cond_retake;  /* its mutex is modelled as taken again when the wait ends: 2 always, 1 unless it failed */
    uintptr_t ann_cond_wait; /* the condition of a wait RTDD_COND_WAIT_BEGIN began and END has not ended */
    /* The last signal or post recorded with no lock held (condwait.c): a
     * repeat from the same call site need not be recorded again. */
    const struct rt_lock *signal_seen;
    uint64_t signal_seen_id;
    uintptr_t signal_seen_pc;
    uintptr_t handle; /* the thread's pthread_t, which pthread_join names it by */
    /* RCU section state and the call-site cache (pc -> stack of its first
     * call): librtdd_rcu's record, which its inline code reads and fills. */
    struct rtdd_rcu_record rcu;
    /* Record mode: the librtdd_rcu reader slot the record is attached to. */
    void *rcu_slot;
    uint8_t rcu_gated; /* the section is on the held stack: the record is withheld */
    struct rt_held held_inline[RT_HELD_INLINE];
    struct { struct rt_lock *lock; uint64_t id; } lock_cache[RT_LOCK_CACHE];
    uint64_t known_chains[RT_CHAIN_CACHE];
    struct rcu_list_head link;      /* registry of live threads (RCU list) */
    struct rcu_head reclaim;        /* back to the pool after a grace period */
    struct rt_held_retired *retired; /* outgrown held arrays, freed with the record */
    /* Addresses of the locks the lock cache evicted last (a ring): with the
     * cache, the locks the thread used lately (hang/condsignal.c). Last: the
     * fields above keep their offsets. */
    uintptr_t cache_victims[RT_CACHE_VICTIMS];
    unsigned cache_victim_next;
};

/* Caches lock l in slot of t's lock cache (a slow path); an evicted
 * lock's address goes to the victims' ring. */
static inline void rt_lock_cache_fill(struct rt_thread *t, unsigned slot, struct rt_lock *l)
{
    struct rt_lock *old = t->lock_cache[slot].lock;
    if (old && old != l)
        t->cache_victims[t->cache_victim_next++ % RT_CACHE_VICTIMS] = __atomic_load_n(&old->addr, __ATOMIC_RELAXED);
    t->lock_cache[slot].lock = l;
    t->lock_cache[slot].id = __atomic_load_n(&l->id, __ATOMIC_RELAXED);
}

/* The CPU the thread runs on (-1: unknown), from its CPU word (t->rcu.cpu_id,
 * cpu.h); _fast only where rt_cpu_rseq is known to be 1. */
static inline int rt_thread_cpu_fast(const struct rt_thread *t)
{
    return rt_cpu_read(t->rcu.cpu_id);
}
static inline int rt_thread_cpu(const struct rt_thread *t)
{
    return rt_cpu_rseq ? rt_thread_cpu_fast(t) : sched_getcpu();
}

/* The thread holds locks or is inside a read section (one the runtime
 * tracks, or one librtdd_rcu's slot tracks in record mode): the lock paths
 * have something to check. */
static inline unsigned rt_thread_busy(const struct rt_thread *t)
{
    const volatile uint64_t *slot_word = t->rcu_ctr;
    return t->nheld | t->rcu.depth | (slot_word ? (uint32_t)*slot_word : 0);
}

/* Is the held lock still the lock it was (not freed or destroyed since)? */
/* A new wait episode of t, by t itself: a plain increment (no locked
 * instruction, which cost a tenth of a nested acquisition), since only the
 * thread writes its own counter and readers only compare values. */
static inline void rt_wait_seq_next(_Atomic uint64_t *seq)
{
    __atomic_store_n(seq, __atomic_load_n(seq, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
}

static inline int rt_held_live(const struct rt_held *h)
{
    uint64_t id = __atomic_load_n(&h->id, __ATOMIC_RELAXED);
    if (id == RT_HELD_UNNAMED)
        return 1; /* cleared (id 0) when its lock goes while held */
    return __atomic_load_n(&h->lock->id, __ATOMIC_RELAXED) == id &&
           __atomic_load_n(&h->lock->addr, __ATOMIC_RELAXED) == h->addr;
}

/* Registry: threads are visible to other threads' checks (deadlock
 * watchdog, reports naming holders). An RCU list of librtdd_rcu: walkers
 * take no lock, and a record (with its held arrays) returns to the pool
 * only after a grace period, so a walker never sees it reused. */
struct rt_thread *rt_thread_new(int tid);
/* Set before threads start (a steering plan with a free edge, order/steer.c):
 * new records take the acquisition slow paths, as with hold_threshold_ms. */
extern int rt_thread_slow_acquire;
void rt_thread_free(struct rt_thread *t);
/* Drops every registered thread but keep (the forking thread in a child),
 * showing each dropped one to gone first. */
void rt_thread_after_fork(struct rt_thread *keep, int new_tid, void (*gone)(struct rt_thread *t, void *arg),
                          void *arg);
/* Makes room for one more held lock; 0 on success. */
int rt_thread_grow_held(struct rt_thread *t);
/* Calls fn for every registered thread, inside an RCU read section: fn must
 * only read, and must not block or wait for a grace period. A thread that
 * exits meanwhile may or may not be shown; its record stays valid. */
void rt_thread_for_each(void (*fn)(struct rt_thread *t, void *arg), void *arg);
/* The calling thread walks the registry no more (it is exiting): release
 * its RCU reader slot now rather than in a late TSD destructor round. */
void rt_thread_walker_exit(void);
#endif
