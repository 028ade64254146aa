/* Barriers (barrier.c): barrier-misuse, and a wait at a barrier as a wait
 * the deadlock watchdog follows (the threads that reach it are its
 * wakers, as a condition's signallers are: condwait.h). */
#ifndef RTDD_BARRIER_H
#define RTDD_BARRIER_H
#include "locks/locks.h"
#include <stdint.h>

/* What the object's own bytes say (the preload layer reads them): a
 * private barrier, one another process may have set up, or bytes no
 * barrier has. */
enum rt_barrier_word { RT_BARRIER_PRIVATE, RT_BARRIER_SHARED, RT_BARRIER_BAD };

/* Before pthread_barrier_init(addr, ..., count): a count of 0 (the call
 * fails), or a barrier initialized again while it is (threads may wait on
 * it). After it succeeded: rt_on_barrier_inited. */
void rt_on_barrier_init(struct rt_thread *t, uintptr_t addr, unsigned count, uintptr_t pc);
void rt_on_barrier_inited(struct rt_thread *t, uintptr_t addr, unsigned count, uintptr_t pc);
/* Before pthread_barrier_destroy: one never initialized, destroyed, or
 * with threads waiting on it. The record then ends. */
void rt_on_barrier_destroy(struct rt_thread *t, uintptr_t addr, enum rt_barrier_word word, uintptr_t pc);
/* t reaches the barrier at addr (count: what the object holds, used when
 * rtdd no longer remembers the count it was made with). Judged, counted
 * in its round; unless it completes the round, t then waits (shared:
 * another process may complete it). rt_on_barrier_wait_end when the call
 * returns. */
void rt_on_barrier_wait_begin(struct rt_thread *t, uintptr_t addr, enum rt_barrier_word word, unsigned count,
                              int shared, uintptr_t pc);
void rt_on_barrier_wait_end(struct rt_thread *t);
#endif
