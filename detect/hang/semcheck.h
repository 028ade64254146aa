/* sem-misuse: semaphores used in ways POSIX leaves undefined (semcheck.c).
 * The waits and posts themselves are followed like condition waits
 * (condwait.h); this is what judges single semaphore calls. */
#ifndef RTDD_SEMCHECK_H
#define RTDD_SEMCHECK_H
#include "locks/locks.h"
#include <stdint.h>

/* What the object's own bytes say (the preload layer reads them): a
 * private semaphore, one another process may have set up (process-shared
 * or named), or bytes no semaphore has (overwritten, never one). */
enum rt_sem_word { RT_SEM_PRIVATE, RT_SEM_SHARED, RT_SEM_BAD };

/* Before sem_init(addr, ..., value): a value past max (the call fails),
 * or a semaphore re-initialized while threads are blocked on it. */
void rt_on_sem_init(struct rt_thread *t, uintptr_t addr, unsigned value, unsigned max, uintptr_t pc);
/* Before sem_destroy: one never initialized, already destroyed, named,
 * or with threads blocked on it. The record then ends. */
void rt_on_sem_destroy(struct rt_thread *t, uintptr_t addr, enum rt_sem_word word, uintptr_t pc);
/* A call (sem_wait, sem_post, ...: call) on the semaphore at addr: its
 * record, after reporting one never initialized, destroyed or closed, or
 * whose bytes are no semaphore's. NULL when out of memory. */
struct rt_lock *rt_on_sem_use(struct rt_thread *t, uintptr_t addr, enum rt_sem_word word, const char *call,
                              uintptr_t pc);
/* sem_post failed with EOVERFLOW: the count would pass max. */
void rt_on_sem_overflow(struct rt_thread *t, uintptr_t addr, unsigned max, uintptr_t pc);
/* sem_open returned addr; sem_close(addr) is called. */
void rt_on_sem_open(struct rt_thread *t, uintptr_t addr, uintptr_t pc);
void rt_on_sem_close(struct rt_thread *t, uintptr_t addr, uintptr_t pc);

/* The blocking side: t may block on sem (its record) in a wait (timed:
 * with a timeout; shared: another process may post it); the wait ended
 * (woken: it took the count, else it timed out, failed or was
 * cancelled). A post releases one blocked waiter. */
void rt_on_sem_wait_begin(struct rt_thread *t, struct rt_lock *sem, int timed, int shared, uintptr_t pc);
void rt_on_sem_wait_end(struct rt_thread *t, int woken);
void rt_on_sem_post(struct rt_thread *t, struct rt_lock *sem, uintptr_t pc);
/* Threads blocked on sem that no post has released. */
unsigned rt_sem_blocked(const struct rt_lock *sem);
#endif
