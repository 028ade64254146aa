/* Grace periods.  One thread at a time runs a grace period; callers that
 * arrive meanwhile share the next one.  A grace period is two phases around
 * one flip of the global phase bit:
 *
 *   master barrier      removal stores before the scans; readers' slot
 *                       stores visible to us
 *   phase 1: wait until no reader holds a snapshot of the *old* phase
 *            (it entered before the previous flip, or loaded the phase bit
 *            just before it and stored it late)
 *   flip the phase bit
 *   phase 2: wait until no reader holds the pre-flip phase
 *   master barrier      readers' section loads done before we return
 *
 * New readers take the current phase, so neither phase waits for a reader
 * that began after the grace period: a stream of overlapping readers cannot
 * starve it.  Phase 1 closes the stale-phase race: a reader that loaded the
 * phase bit, was preempted across a whole grace period and then published
 * it would look current after the next single flip (rcu/model proves it). */
#include "rcu_internal.h"

#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t gp_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gp_done = PTHREAD_COND_INITIALIZER;
static RTDD_CACHELINE uint64_t gp_started; /* grace periods begun (under gp_lock) */
static uint64_t gp_completed; /* grace periods finished (under gp_lock) */
static uint64_t gp_count;     /* gp_completed, readable without the lock */
static RTDD_CACHELINE uint32_t gp_wake_seq; /* futex word readers bump to wake a sleeping scan */

uint64_t rtdd_rcu_gp_count(void)
{
    return __atomic_load_n(&gp_count, __ATOMIC_RELAXED);
}

void rtdd_rcu_wake_gp_waiter(void)
{
    if (__atomic_load_n(&rtdd_rcu_read_slow, __ATOMIC_RELAXED) & RTDD_RCU_SLOW_WAITER) {
        __atomic_fetch_add(&gp_wake_seq, 1, __ATOMIC_SEQ_CST);
        rtdd_futex_wake_all(&gp_wake_seq);
    }
}

static bool holds_old_phase(const struct rtdd_rcu_reader *slot, uint64_t phase)
{
    uint64_t ctr = __atomic_load_n(&slot->ctr, __ATOMIC_RELAXED);
    return (ctr & RTDD_RCU_NEST_MASK) && ((ctr ^ phase) & RTDD_RCU_PHASE_BIT);
}

/* Spin briefly (short readers on other CPUs), then sleep rather than yield:
 * a reader preempted on our CPU runs at once, and readers leaving their
 * outermost section wake us
 * through the WAITER bit.  The master barrier after setting the bit pairs
 * with the reader's "store slot, then test bit": either the reader sees the
 * bit or we see its store.  The timeout is a backstop (fence fallback). */
static void wait_for_slot(const struct rtdd_rcu_reader *slot, uint64_t phase)
{
    unsigned int attempt = 0;
    bool sleeping = false;
    long timeout_ns = 1000000;
    while (holds_old_phase(slot, phase)) {
        if (attempt < 100) {
            rtdd_cpu_relax();
        } else {
            if (!sleeping) {
                __atomic_fetch_or(&rtdd_rcu_read_slow, RTDD_RCU_SLOW_WAITER, __ATOMIC_SEQ_CST);
                rtdd_rcu_master_barrier();
                sleeping = true;
                continue;
            }
            uint32_t seq = __atomic_load_n(&gp_wake_seq, __ATOMIC_SEQ_CST);
            if (holds_old_phase(slot, phase))
                rtdd_futex_wait(&gp_wake_seq, seq, timeout_ns);
            if (timeout_ns < 8000000)
                timeout_ns *= 2;
        }
        attempt++;
    }
    if (sleeping)
        __atomic_fetch_and(&rtdd_rcu_read_slow, ~RTDD_RCU_SLOW_WAITER, __ATOMIC_SEQ_CST);
}

static void wait_for_readers(uint64_t phase)
{
    for (struct rtdd_rcu_reader_chunk *c = rtdd_rcu_registry_first(); c; c = c->next)
        for (uint32_t i = 0; i < c->nslots; i++)
            wait_for_slot(&c->slots[i], phase);
}

static void run_grace_period(void)
{
    rtdd_rcu_master_barrier();
    uint64_t phase = __atomic_load_n(&rtdd_rcu_gp_ctr, __ATOMIC_RELAXED);
    wait_for_readers(phase);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    /* An atomic flip: a debugging runtime advances its clock in the
     * word's upper bits meanwhile (include/rtdd/rcu.h). */
    __atomic_fetch_xor(&rtdd_rcu_gp_ctr, RTDD_RCU_PHASE_BIT, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    wait_for_readers(phase ^ RTDD_RCU_PHASE_BIT);
    rtdd_rcu_master_barrier();
}

void rtdd_rcu_wait_grace_period(void)
{
    pthread_mutex_lock(&gp_lock);
    /* A grace period already running may have begun before our removal:
     * only the one after it counts for us. */
    uint64_t target = gp_completed + 1 + (gp_started != gp_completed);
    while (gp_completed < target) {
        if (gp_started == gp_completed) {
            gp_started++;
            pthread_mutex_unlock(&gp_lock);
            run_grace_period();
            pthread_mutex_lock(&gp_lock);
            gp_completed = gp_started;
            __atomic_store_n(&gp_count, gp_completed, __ATOMIC_RELAXED);
            pthread_cond_broadcast(&gp_done);
        } else {
            pthread_cond_wait(&gp_done, &gp_lock);
        }
    }
    pthread_mutex_unlock(&gp_lock);
}

void synchronize_rcu(void)
{
    const void *caller = __builtin_return_address(0);
    unsigned int depth = rcu_read_depth();
    const struct rtdd_rcu_debug_ops *ops = rtdd_rcu_hooks();
    if (ops && ops->sync_begin)
        ops->sync_begin(caller, depth);
    if (depth) {
        static int warned;
        rtdd_rcu_warn_once(&warned, "rtdd_rcu: BUG: synchronize_rcu() inside an RCU read-side "
                                    "critical section: this thread now deadlocks\n");
    }
    rtdd_rcu_wait_grace_period();
    ops = rtdd_rcu_hooks();
    if (ops && ops->sync_end)
        ops->sync_end(caller);
}

/* The grace-period runner, if any, did not survive fork. */
void rtdd_rcu_gp_after_fork_child(void)
{
    pthread_mutex_init(&gp_lock, NULL);
    pthread_cond_init(&gp_done, NULL);
    gp_started = gp_completed;
    gp_wake_seq = 0;
    __atomic_fetch_and(&rtdd_rcu_read_slow, ~RTDD_RCU_SLOW_WAITER, __ATOMIC_SEQ_CST);
}
