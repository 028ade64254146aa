/* Condition variables and semaphores in the dependency graph (DEPT's idea,
 * with rtdd's rules). A wait on a condition ends only when some thread
 * signals it; the locks that thread holds when it signals are locks the
 * wake-up needs. A wait made while holding one of them, where distinct
 * threads made the two sides, is a deadlock waiting to happen
 * (cond-lock-order); the watchdog follows a blocked waiter to the threads
 * that signal its condition (watchdog.c). */
#ifndef RTDD_CONDWAIT_H
#define RTDD_CONDWAIT_H
#include "locks/locks.h"
#include <stdint.h>

/* obj (a pthread_cond_t or sem_t, type RT_LOCK_COND or RT_LOCK_SEM) is
 * signalled, broadcast or posted. */
void rt_on_event_signal(struct rt_thread *t, uintptr_t obj, enum rt_lock_type type, uintptr_t pc);
/* The thread blocks on obj (mutex: the one a condition wait releases, 0 for
 * a semaphore); timed: the wait has a timeout; shared: another process may
 * end it (a process-shared condition or semaphore). */
void rt_on_event_wait_begin(struct rt_thread *t, struct rt_lock *obj, uintptr_t mutex, int timed, int shared,
                            uintptr_t pc);
void rt_on_event_wait_end(struct rt_thread *t);

/* For the watchdog: the threads known to signal obj (its id: id), newest
 * first, up to max; their tids in tids, where they signalled in sites. */
unsigned rt_event_signallers(const struct rt_lock *obj, uint64_t id, int *tids, rt_stack_id *sites, unsigned max);
#endif
