/* The lock table: address -> lock record. Ids are never reused, so a new
 * object at an old address is a new lock. Records are type-stable (pooled),
 * which lets lookups run without locks: a reader validates what it found. */
#ifndef RTDD_LOCKTAB_H
#define RTDD_LOCKTAB_H
#include "core/core.h"
#include <stddef.h>
#include <stdint.h>

enum rt_lock_type {
    RT_LOCK_MUTEX,
    RT_LOCK_MUTEX_RECURSIVE,
    RT_LOCK_MUTEX_ERRORCHECK,
    RT_LOCK_RWLOCK,
    RT_LOCK_SPIN,
    RT_LOCK_COND,        /* condition variables: tracked for misuse, never held */
    RT_LOCK_SEM,         /* semaphores: waits and posts (condwait.c), never held */
    /* Locks of other libraries, described with include/rtdd/annotate.h. */
    RT_LOCK_USER,           /* not recursive */
    RT_LOCK_USER_RECURSIVE,
    RT_LOCK_USER_RW,        /* reader-writer, readers may recurse */
    /* GLib's (interpose/glib.c). */
    RT_LOCK_GMUTEX,
    RT_LOCK_GRECMUTEX,
    RT_LOCK_GRWLOCK,
    RT_LOCK_GCOND,
    RT_LOCK_GBITLOCK,       /* g_bit_lock, g_pointer_bit_lock: one bit, keyed by rt_bit_key */
};

/* A GLib bit lock is one lock per bit (g_bit_lock(&w, 0) and (&w, 1) are
 * two locks), but the table, the held stacks, the order graph and the
 * watchdog know a lock by one address: a bit's key is its own address in
 * a bit-addressed space above every user address (bit 63 set): the 4-byte
 * int that holds the bit, shifted by 6, or'ed with the bit (0..31) shifted
 * by 3. No object address can equal it, and the caches, which index by
 * address >> 3, tell a word's bits apart. Bits are counted in the word's
 * memory order (x86-64 and others are little-endian): bit 33 of a pointer
 * is bit 1 of its second int, the same bit g_bit_lock sees there. */
#define RT_BIT_KEY_FLAG ((uintptr_t)1 << 63)
static inline uintptr_t rt_bit_key(uintptr_t word, unsigned bit)
{
    uintptr_t at = word * 8 + (bit & 63); /* the bit's absolute position */
    return RT_BIT_KEY_FLAG | ((at >> 5) << 8) | ((at & 31) << 3);
}
static inline int rt_is_bit_key(uintptr_t key) { return (key & RT_BIT_KEY_FLAG) != 0; }
/* The int that holds a bit key's bit, and its bit in that int. */
static inline uintptr_t rt_bit_key_word(uintptr_t key) { return ((key & ~RT_BIT_KEY_FLAG) >> 8) << 2; }
static inline unsigned rt_bit_key_bit(uintptr_t key) { return (unsigned)(key >> 3) & 31; }
/* Where a lock's object starts in memory (freed-memory checks): a bit
 * lock's is its int. */
static inline uintptr_t rt_lock_object_start(uintptr_t key)
{
    return rt_is_bit_key(key) ? rt_bit_key_word(key) : key;
}

static inline int rt_lock_type_rw(unsigned type)
{
    return type == RT_LOCK_RWLOCK || type == RT_LOCK_USER_RW || type == RT_LOCK_GRWLOCK;
}

static inline int rt_lock_type_recursive(unsigned type)
{
    return type == RT_LOCK_MUTEX_RECURSIVE || type == RT_LOCK_USER_RECURSIVE || type == RT_LOCK_GRECMUTEX;
}

static inline int rt_lock_type_cond(unsigned type)
{
    return type == RT_LOCK_COND || type == RT_LOCK_GCOND;
}

/* Waited on and signalled, never held (condwait.c): no order node. */
static inline int rt_lock_type_is_event(unsigned type)
{
    return rt_lock_type_cond(type) || type == RT_LOCK_SEM;
}

/* 64 bytes: with a million locks each byte is a megabyte to fault in. */
struct lo_node;
struct rt_lock {
    struct rt_lock *_Atomic next; /* bucket chain */
    _Atomic uintptr_t addr;       /* 0 once retired */
    _Atomic uint64_t id;
    rt_stack_id init_stack;       /* pthread_*_init, or first use for static locks */
    int init_tid;
    _Atomic uint32_t cond_waiters; /* condvars: threads in a wait (low 16 bits), of them not released (high 16) */
    uint16_t group;               /* 1 + its lock group (lockgroup.h, < 4096), 0: none */
    _Atomic uint8_t rcu_hb;       /* a release published RCU update knowledge (rcuhb.h): acquirers merge it */
    uint8_t spare;
    uint8_t type;                 /* enum rt_lock_type */
    uint8_t statically_initialized;
    uint8_t traits;               /* RT_TRAIT_*: what the object's attributes say (set from the object) */
    uint8_t no_order;             /* annotated: excluded from order checking */
    uint8_t next_subclass;        /* annotated nesting level (RTDD_LOCK_NESTED): its own class */
    uint8_t history_known;        /* seen from init or from a lock call, not first at unlock */
    uint8_t rcu_pseudo;           /* an RCU pseudo-lock (rcucheck.c), never a real object */
    _Atomic uint8_t held_by_exited; /* its holder is gone, it stays locked: RT_HOLDER_EXITED or _FORKED_AWAY */
    struct lo_node *_Atomic order_node; /* its own node in the lock-order graph (lockorder.c), when it has one */
    union {
        uintptr_t class_key;               /* locks: init site pc, or first-use site pc for static locks */
        _Atomic uintptr_t cond_mutex_addr; /* condvars: the mutex current waiters use, 0 when none wait */
    };
};

/* rt_lock.traits. Robust and process-shared locks can be released by
 * what the runtime does not see (the kernel, at their owner's death;
 * another process): waits on them are never proven deadlocks (watchdog.c). */
enum {
    RT_TRAIT_WRITER_PREFERRING = 1, /* rwlock whose readers must not recurse */
    RT_TRAIT_ROBUST = 2,            /* robust mutex: its owner's death hands it on with EOWNERDEAD */
    RT_TRAIT_PSHARED = 4,           /* process-shared: holders and waiters may be other processes */
};

static inline int rt_lock_writer_preferring(const struct rt_lock *l)
{
    return (l->traits & RT_TRAIT_WRITER_PREFERRING) != 0;
}

/* Why a lock's holder does not exist (rt_lock.held_by_exited). */
enum { RT_HOLDER_EXITED = 1, RT_HOLDER_FORKED_AWAY = 2 };

const char *rt_lock_type_name(enum rt_lock_type t);
uint32_t rt_lock_type_size(enum rt_lock_type t);

/* Finds the live record for addr, or NULL. */
struct rt_lock *rt_locktab_find(uintptr_t addr);
/* Finds or creates the record for addr; *created says which. NULL only when
 * out of memory. */
struct rt_lock *rt_locktab_get(uintptr_t addr, enum rt_lock_type type, int *created);
/* Retires the record: removes it from the table; its id is never seen again. */
void rt_locktab_retire(struct rt_lock *lock);
/* Number of live records (a sum over the table: for tests and statistics). */
long rt_locktab_live(void);
/* A fresh, never used lock id: gives a record a new identity, which makes
 * every held-lock entry that names the old one stale (rt_held_live). */
uint64_t rt_locktab_new_id(void);
/* Calls fn for each live record whose object overlaps [start, start+len);
 * the callback may retire the record. Returns the number visited. */
typedef void (*rt_lock_visit_fn)(struct rt_lock *lock, void *arg);
unsigned rt_locktab_for_range(uintptr_t start, size_t len, rt_lock_visit_fn fn, void *arg);
void rt_locktab_after_fork(void);

/* Lines that have ever held a lock record or a lazy mutex (linefilter.h;
 * the byte's bits say which): never cleared, so a clear byte proves no
 * lock is there; it keeps free() of ordinary memory to a load and a test. */
enum { RT_FILTER_RECORDS = 1, RT_FILTER_LAZY = 2 };
extern uint8_t rt_line_filter[RT_FILTER_LINES + RT_FILTER_PAD];

static inline int rt_locktab_may_overlap_small(uintptr_t start)
{
    return rt_filter_may_overlap_small(rt_line_filter, start);
}

static inline int rt_locktab_may_overlap_medium(uintptr_t start, size_t len)
{
    return rt_filter_may_overlap_medium(rt_line_filter, start, len);
}

static inline int rt_locktab_may_overlap(uintptr_t start, size_t len)
{
    return rt_filter_may_overlap(rt_line_filter, start, len);
}
#endif
