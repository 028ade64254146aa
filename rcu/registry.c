/* Reader registry: one cache-line slot per thread, claimed lock-free on the
 * first rcu_read_lock() (so registration works inside signal handlers) and
 * released by a pthread key destructor at thread exit.  Slots live in mmap'd
 * chunks that are never unmapped, so grace periods scan them without locks
 * and never touch a dead thread's memory. */
#include "rcu_internal.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>

#define CHUNK_BYTES (16 * 1024)

struct rtdd_rcu_reader rtdd_rcu_unregistered; /* stays all-zero: never written */
__thread struct rtdd_rcu_reader *rtdd_rcu_self
    __attribute__((tls_model("initial-exec"))) = &rtdd_rcu_unregistered;

static struct rtdd_rcu_reader_chunk *chunk_list;
/* Slots for when mmap fails (a program that has used up its address space,
 * as compiler-rt's mmap_lots does): a thread's first read section must not
 * spin until memory comes back, which it may never do. */
static union {
    struct rtdd_rcu_reader_chunk chunk;
    char bytes[CHUNK_BYTES];
} reserve __attribute__((aligned(64)));
static int reserve_taken;
static pthread_key_t exit_key;
static int exit_key_ready;
static uint64_t live_slots;

struct rtdd_rcu_reader_chunk *rtdd_rcu_registry_first(void)
{
    return __atomic_load_n(&chunk_list, __ATOMIC_ACQUIRE);
}

uint64_t rtdd_rcu_registry_count(void)
{
    return __atomic_load_n(&live_slots, __ATOMIC_RELAXED);
}

static struct rtdd_rcu_reader *claim_in(struct rtdd_rcu_reader_chunk *chunk)
{
    for (uint32_t i = 0; i < chunk->nslots; i++) {
        struct rtdd_rcu_reader *slot = &chunk->slots[i];
        int32_t expected = 0;
        if (__atomic_load_n(&slot->in_use, __ATOMIC_RELAXED) == 0 &&
            __atomic_compare_exchange_n(&slot->in_use, &expected, 1, false,
                                        __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
            uint32_t used = __atomic_load_n(&chunk->used, __ATOMIC_RELAXED);
            while (used < i + 1 && !__atomic_compare_exchange_n(&chunk->used, &used, i + 1, true,
                                                                 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
                ;
            return slot;
        }
    }
    return NULL;
}

/* mmap and CAS are async-signal-safe; malloc and mutexes would not be. */
static struct rtdd_rcu_reader *claim_slot(void)
{
    for (;;) {
        for (struct rtdd_rcu_reader_chunk *c = rtdd_rcu_registry_first(); c; c = c->next) {
            struct rtdd_rcu_reader *slot = claim_in(c);
            if (slot)
                return slot;
        }
        struct rtdd_rcu_reader_chunk *chunk = mmap(NULL, CHUNK_BYTES, PROT_READ | PROT_WRITE,
                                                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (chunk == MAP_FAILED && !__atomic_exchange_n(&reserve_taken, 1, __ATOMIC_ACQ_REL))
            chunk = &reserve.chunk;
        if (chunk == MAP_FAILED) {
            static int warned;
            rtdd_rcu_warn_once(&warned, "rtdd_rcu: cannot map reader slots; retrying\n");
            sched_yield();
            continue;
        }
        chunk->nslots = (CHUNK_BYTES - sizeof(*chunk)) / sizeof(struct rtdd_rcu_reader);
        chunk->slots[0].in_use = 1;
        chunk->used = 1;
        struct rtdd_rcu_reader_chunk *head = rtdd_rcu_registry_first();
        do
            chunk->next = head;
        while (!__atomic_compare_exchange_n(&chunk_list, &head, chunk, true, __ATOMIC_RELEASE,
                                            __ATOMIC_ACQUIRE));
        return &chunk->slots[0];
    }
}

static void release_slot(struct rtdd_rcu_reader *slot)
{
    uint64_t ctr = __atomic_load_n(&slot->ctr, __ATOMIC_RELAXED);
    const struct rtdd_rcu_debug_ops *ops = rtdd_rcu_hooks();
    if (ops && ops->slot_released)
        ops->slot_released();
    if (ctr & RTDD_RCU_NEST_MASK) {
        /* Exiting inside a read section would stall every grace period:
         * end the section by force, as the kernel's exit_rcu() does. */
        if (ops && ops->exit_in_reader)
            ops->exit_in_reader(slot->tid, (unsigned int)(ctr & RTDD_RCU_NEST_MASK));
        static int warned;
        rtdd_rcu_warn_once(&warned, "rtdd_rcu: thread left inside an RCU read-side critical "
                                    "section; section ended by force\n");
    }
    __atomic_store_n(&slot->ctr, 0, __ATOMIC_RELEASE);
    /* The runtime's record belongs to this thread, not to the slot's next owner. */
    __atomic_store_n(&slot->record, NULL, __ATOMIC_RELAXED);
    slot->pending_pc = NULL;
    rtdd_rcu_wake_gp_waiter();
    __atomic_store_n(&slot->in_use, 0, __ATOMIC_RELEASE);
    __atomic_fetch_sub(&live_slots, 1, __ATOMIC_RELAXED);
}

static void thread_exit_destructor(void *value)
{
    struct rtdd_rcu_reader *slot = value;
    if (slot && slot == rtdd_rcu_self) {
        rtdd_rcu_self = &rtdd_rcu_unregistered;
        release_slot(slot);
    }
}

struct rtdd_rcu_reader *rtdd_rcu_register_lazy(void)
{
    /* Block signals so a handler cannot register this thread a second time
     * between claiming the slot and publishing it in TLS. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    struct rtdd_rcu_reader *slot = rtdd_rcu_self;
    if (slot == &rtdd_rcu_unregistered) {
        rtdd_rcu_init_once();
        slot = claim_slot();
        slot->tid = (int32_t)syscall(SYS_gettid);
        __atomic_store_n(&slot->record, NULL, __ATOMIC_RELAXED);
        slot->pending_pc = NULL;
        __atomic_store_n(&slot->ctr, 0, __ATOMIC_RELAXED);
        __atomic_fetch_add(&live_slots, 1, __ATOMIC_RELAXED);
        rtdd_rcu_self = slot;
        if (__atomic_load_n(&exit_key_ready, __ATOMIC_ACQUIRE))
            pthread_setspecific(exit_key, slot);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return slot;
}

void rcu_register_thread(void)
{
    if (rtdd_rcu_self == &rtdd_rcu_unregistered)
        rtdd_rcu_register_lazy();
}

void rcu_unregister_thread(void)
{
    struct rtdd_rcu_reader *slot = rtdd_rcu_self;
    if (slot == &rtdd_rcu_unregistered)
        return;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    rtdd_rcu_self = &rtdd_rcu_unregistered;
    if (__atomic_load_n(&exit_key_ready, __ATOMIC_ACQUIRE))
        pthread_setspecific(exit_key, NULL);
    release_slot(slot);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

uint64_t rtdd_rcu_registry_slow_calls(void)
{
    uint64_t sum = 0;
    for (struct rtdd_rcu_reader_chunk *c = rtdd_rcu_registry_first(); c; c = c->next)
        for (uint32_t i = 0; i < c->nslots; i++)
            sum += __atomic_load_n(&c->slots[i].slow_calls, __ATOMIC_RELAXED);
    return sum;
}

/* In a fork child only the forking thread survives: free every other slot
 * so grace periods in the child do not wait for threads that do not exist. */
void rtdd_rcu_registry_after_fork_child(void)
{
    uint64_t live = 0;
    /* Only slots ever claimed: reading the never-used rest would map
     * their pages into the child, one fault each. */
    for (struct rtdd_rcu_reader_chunk *c = rtdd_rcu_registry_first(); c; c = c->next)
        for (uint32_t i = 0; i < c->used && i < c->nslots; i++) {
            struct rtdd_rcu_reader *slot = &c->slots[i];
            if (slot == rtdd_rcu_self) {
                slot->tid = (int32_t)syscall(SYS_gettid);
                live++;
                continue;
            }
            /* A free slot is left unwritten: a store would copy its page
             * into the child (every fork of a program with many threads). */
            if (slot->ctr || slot->record || slot->pending_pc || slot->in_use) {
                slot->ctr = 0;
                slot->record = NULL;
                slot->pending_pc = NULL;
                slot->in_use = 0;
            }
        }
    if (live_slots != live)
        live_slots = live;
}

RTDD_HIDDEN void rtdd_rcu_registry_init(void);
void rtdd_rcu_registry_init(void)
{
    if (pthread_key_create(&exit_key, thread_exit_destructor) == 0)
        __atomic_store_n(&exit_key_ready, 1, __ATOMIC_RELEASE);
    /* A thread registered before the key existed (constructor order). */
    if (rtdd_rcu_self != &rtdd_rcu_unregistered && exit_key_ready)
        pthread_setspecific(exit_key, rtdd_rcu_self);
}

RTDD_HIDDEN void rtdd_rcu_registry_fini(void);
void rtdd_rcu_registry_fini(void)
{
    /* On dlclose the destructor code goes away: detach it from live threads. */
    if (__atomic_exchange_n(&exit_key_ready, 0, __ATOMIC_ACQ_REL))
        pthread_key_delete(exit_key);
}
