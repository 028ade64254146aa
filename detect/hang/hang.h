/* The real-deadlock watchdog: threads blocked in lock calls longer than
 * deadlock_timeout_ms are followed through the wait-for graph (thread ->
 * lock -> holders); a cycle is reported as a deadlock, and one of waits
 * without a timeout ends the run (exit_on_deadlock). */
#ifndef RTDD_WATCHDOG_H
#define RTDD_WATCHDOG_H
#include "core/core.h"
#include "hang/condsignal.h"
#include "hang/condwait.h"
#include "hang/lockdump.h"
#include "hang/threadends.h"
#include "hang/holdtime.h"
#include <stdint.h>

struct rt_thread;
struct rt_lock;

/* One pass over all threads at time now_ms; reports cycles among threads
 * blocked at least deadlock_timeout_ms. Returns the number of reports. */
int rt_watchdog_scan(uint64_t now_ms);
/* A thread of a deadlock that is happening now: it holds `holds` and is
 * blocked waiting for `waits` (its wait number seq, where it waits: stack). */
struct rt_live_wait {
    struct rt_thread *t;
    int tid;
    const struct rt_lock *holds, *waits;
    uint64_t holds_id, waits_id, seq;
    rt_stack_id stack;
};
/* For a lock-order report: t is about to wait for lock (flags: RT_ACQ_*).
 * Is a holder of it blocked on a lock whose holder is blocked ... on a
 * lock t holds? Fills out with that chain (at most cap threads, not t)
 * and returns its length; 0 when the cycle is not happening now. */
unsigned rt_watchdog_cycle_now(struct rt_thread *t, const struct rt_lock *lock, unsigned flags,
                               struct rt_live_wait *out, unsigned cap);
/* The waits of a cycle a report showed happening (t's own included), and
 * its cycle line: the watchdog's later report of them refers to it. */
void rt_watchdog_note_now(const struct rt_live_wait *w, unsigned n, const char *cycle);
/* The period between scans. */
unsigned rt_watchdog_period_ms(void);
/* Starts the watchdog thread once per process (through the hook that the
 * preload layer installs; tests drive rt_watchdog_scan directly). Creating
 * a thread allocates, so it must not happen where a signal handler may
 * have interrupted the allocator: rt_watchdog_start is for the program's
 * own thread creations (pthread_create is not async-signal-safe, so that
 * context is safe); rt_watchdog_ensure, called where a thread starts to
 * wait, starts it only as a fallback when no creation was seen (threads
 * made before set-up, or not through pthread_create/thrd_create). */
extern void (*rt_watchdog_start_hook)(void);
void rt_watchdog_start(void);
void rt_watchdog_ensure(void);
void rt_watchdog_after_fork(void);
/* deadlock: t is about to wait (untimed) for l, whose holder exited or
 * stayed in the parent at fork: a wait that never ends. */
void rt_report_wait_on_orphan(struct rt_thread *t, struct rt_lock *l);

/* Condition variables: the wait releases and re-takes the mutex inside
 * libc, where no wrapper sees it. */
/* owned_elsewhere: the mutex object itself says this thread owns it (taken
 * where the runtime did not see it, e.g. before it was set up). */
void rt_on_cond_wait_begin(struct rt_thread *t, uintptr_t cond, uintptr_t mutex, int owned_elsewhere, int timed,
                           int shared, uintptr_t pc);
/* cond-misuse: destroying a condition variable on which threads are
 * blocked (waiting and not yet released by a signal or broadcast). */
void rt_report_cond_destroy_busy(struct rt_thread *t, struct rt_lock *c, uintptr_t pc);
/* pthread_cond_destroy: with threads blocked on cond, glibc's waits until
 * they have left: reported (cond-misuse), and the wait is one the watchdog
 * follows (to those waiters) until rt_on_cond_destroy_end; returns 1 then.
 * Otherwise the destroy is rt_on_lock_destroy's, and 0. shared: the
 * condition is process-shared. */
int rt_on_cond_destroy_begin(struct rt_thread *t, uintptr_t cond, int shared, uintptr_t pc);
void rt_on_cond_destroy_end(struct rt_thread *t, uintptr_t cond, uintptr_t pc);
/* How a condition wait ended: as if signalled (0 from pthread_cond_wait);
 * by a timeout or cancellation (the mutex taken again all the same); or
 * failed at once (an error: the mutex was neither released nor taken). */
enum { RT_WAIT_FAILED = -1, RT_WAIT_TIMEDOUT = 0, RT_WAIT_WOKEN = 1 };
void rt_on_cond_wait_end(struct rt_thread *t, uintptr_t cond, uintptr_t mutex, int how, uintptr_t pc);
/* After a signal (all = 0) or broadcast (all = 1) of cond: the waiters it
 * released are no longer blocked, and cond may be destroyed (POSIX). */
void rt_on_cond_released(struct rt_thread *t, uintptr_t cond, int all);
/* Threads blocked on condvar c: in a wait and not released. */
unsigned rt_cond_blocked(const struct rt_lock *c);

/* pthread_join: a wait for the thread whose pthread_t is handle to end,
 * which the deadlock watchdog follows like a wait for a lock that thread
 * holds (detect/hang/join.c). */
void rt_on_join_begin(struct rt_thread *t, uintptr_t handle, int timed, uintptr_t pc);
/* The joined thread's tid, after rt_on_join_begin, where the caller knows it. */
void rt_on_join_target(struct rt_thread *t, int tid);
/* The join ended: joined, or it failed, timed out or was cancelled. */
void rt_on_join_end(struct rt_thread *t, int joined);
/* A thread is known to the runtime (its handle set): for the joins. */
void rt_on_thread_start(struct rt_thread *t);
#endif
