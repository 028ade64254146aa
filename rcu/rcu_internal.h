/* Internal interfaces between the parts of librtdd_rcu. */
#ifndef RTDD_RCU_INTERNAL_H
#define RTDD_RCU_INTERNAL_H

#include <rtdd/rcu.h>
#include <rtdd/rcu_debug.h>
#include <errno.h>
#include <linux/futex.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RTDD_HIDDEN __attribute__((visibility("hidden")))
#define RTDD_CACHELINE __attribute__((aligned(64)))

/* ---- futex helpers: the library's only blocking primitive that is
 * async-signal-safe, used where a waiter may sit in a signal handler. ---- */
static inline void rtdd_futex_wake_all(uint32_t *word)
{
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 0x7fffffff, NULL, NULL, 0);
}

/* Sleep while *word == expected, at most timeout_ns (0 = no timeout).
 * Returns false on timeout. */
static inline bool rtdd_futex_wait(uint32_t *word, uint32_t expected, long timeout_ns)
{
    struct timespec ts = {timeout_ns / 1000000000L, timeout_ns % 1000000000L};
    long rc = syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected,
                      timeout_ns ? &ts : NULL, NULL, 0);
    return !(rc != 0 && errno == ETIMEDOUT);
}

static inline void rtdd_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
#endif
}

static inline bool rtdd_rcu_in_reader(void)
{
    return (__atomic_load_n(&rtdd_rcu_self->ctr, __ATOMIC_RELAXED) & RTDD_RCU_NEST_MASK) != 0;
}

/* ---- registry.c: reader slots ---- */
struct rtdd_rcu_reader_chunk {
    struct rtdd_rcu_reader_chunk *next;
    uint32_t nslots;
    uint32_t used; /* slots ever claimed are [0, used): a claim takes the lowest free one */
    struct rtdd_rcu_reader slots[];
};
RTDD_HIDDEN struct rtdd_rcu_reader_chunk *rtdd_rcu_registry_first(void);
RTDD_HIDDEN void rtdd_rcu_registry_after_fork_child(void);
RTDD_HIDDEN uint64_t rtdd_rcu_registry_count(void);
/* Out-of-line read-side entries, summed over every slot (slots outlive
 * their threads, so the sum covers exited threads too). */
RTDD_HIDDEN uint64_t rtdd_rcu_registry_slow_calls(void);

/* ---- barrier.c: asymmetric (update-side) memory barrier ---- */
RTDD_HIDDEN void rtdd_rcu_barrier_init(void);
RTDD_HIDDEN void rtdd_rcu_barrier_after_fork_child(void);
RTDD_HIDDEN void rtdd_rcu_master_barrier(void);
RTDD_HIDDEN bool rtdd_rcu_has_membarrier(void);

/* ---- grace_period.c ---- */
/* Wait for a full grace period that starts after the call (shared). */
RTDD_HIDDEN void rtdd_rcu_wait_grace_period(void);
RTDD_HIDDEN void rtdd_rcu_gp_after_fork_child(void);
RTDD_HIDDEN void rtdd_rcu_wake_gp_waiter(void);
RTDD_HIDDEN uint64_t rtdd_rcu_gp_count(void);

/* ---- callbacks.c ---- */
RTDD_HIDDEN void rtdd_rcu_callbacks_after_fork_child(void);
RTDD_HIDDEN void rtdd_rcu_callbacks_shutdown(void);
RTDD_HIDDEN void rtdd_rcu_callbacks_stats(struct rtdd_rcu_stats *out);
RTDD_HIDDEN void rtdd_rcu_kick_worker(void);
RTDD_HIDDEN extern __thread int rtdd_rcu_on_worker;

/* ---- limits.c ---- */
RTDD_HIDDEN void rtdd_rcu_limits_init(void);

/* ---- debug_hooks.c ---- */
static inline const struct rtdd_rcu_debug_ops *rtdd_rcu_hooks(void)
{
    return __atomic_load_n(&rtdd_rcu_debug_ops_active, __ATOMIC_ACQUIRE);
}

/* ---- init.c ---- */
RTDD_HIDDEN void rtdd_rcu_init_once(void);

/* One message per kind per process, written with write(2) (signal-safe). */
RTDD_HIDDEN void rtdd_rcu_warn_once(int *flag, const char *msg);

#endif
