/* Which threads have ended, and who joined them. A join orders the whole
 * life of the joined thread before everything its joiner does afterwards
 * (and, through a chain of joins, before what the last joiner does): a lock
 * order that thread made can never meet, in a deadlock, one its joiner
 * makes after the join. The lock-order feasibility rule uses this, as
 * Goodlock's segmentation of threads by start and join does (Bensalem and
 * Havelund, 2005): the inversion knotd makes at shutdown, in a thread it
 * joined before, is latent, not a potential deadlock. */
#ifndef RTDD_THREADENDS_H
#define RTDD_THREADENDS_H
#include <stdint.h>

/* A thread with this pthread_t starts: an earlier thread's record under the
 * same handle (glibc reuses them with their stacks) is forgotten. */
void rt_thread_ends_start(uintptr_t handle, int tid);
/* The thread with this handle and tid is ending. */
void rt_thread_ends_exit(uintptr_t handle, int tid);
/* joiner's pthread_join of handle returned 0. */
void rt_thread_ends_joined(uintptr_t handle, int joiner);
/* 1 if thread tid has ended and its end happened before what observer
 * does now: observer joined it, or joined a thread that had (up to a few
 * joins deep). 0 otherwise or when unknown. */
int rt_thread_ended_before(int tid, int observer);
/* Has any join been seen? (Programs that never join pay nothing.) */
int rt_thread_ends_any_joined(void);
void rt_thread_ends_after_fork(void);
#endif
