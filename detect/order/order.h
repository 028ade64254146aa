/* Lockdep-style lock-order validation: a graph of "B was taken while A was
 * held" edges over locks (lock_classes=instance) or lock classes
 * (lock_classes=site); a new edge that closes a cycle is reported before
 * the thread blocks on it. */
#ifndef RTDD_LOCKORDER_H
#define RTDD_LOCKORDER_H
#include "locks/locks.h"
#include <stdint.h>

/* Was this held-lock sequence validated already, by this thread (the chain
 * key mixed with the thread's order_salt)? Lock-free. */
int rt_lockorder_chain_known(uint64_t chain);
/* Adds the edges from every held lock to lock, checks each new one for a
 * cycle, reports, and records the chain as validated. */
void rt_lockorder_check(struct rt_thread *t, struct rt_lock *lock, unsigned flags, uint64_t chain, uintptr_t pc);
/* The lock is destroyed or freed (before its record is retired): its node
 * and edges leave the graph (instance mode). */
void rt_lockorder_forget(const struct rt_lock *l);
/* A thread requests a member of lock group g (lockgroup.h) while holding
 * another: the group splits into its locks. */
void rt_lockorder_split_group(uint32_t g);
/* Graph size, for tests and benchmarks. */
unsigned long rt_lockorder_nodes(void);
unsigned long rt_lockorder_edges(void);
/* For tests: the lock's node as its record gives it (without the graph
 * lock) is the one the node table holds for its key (both NULL: none). */
int rt_lockorder_node_lookups_agree(const struct rt_lock *l);
void rt_lockorder_after_fork(void);
/* At exit: each cycle found that distinct threads could not cover, and that
 * never became one they could, as an INFO latent-lock-order report. */
void rt_lockorder_report_latent(void);

/* Steering into a cycle for `rtdd run --confirm` (order/steer.c): set once
 * a plan is installed (confirm_plan), cleared when steering gives up. */
extern int rt_steer_on;
/* Reads and installs the plan file path ("" : none); -1 with a message. */
int rt_steer_setup(const char *path, struct rt_buf *err);
/* Before a nested acquisition's wait, or (with rt_thread_slow_acquire) a
 * lone acquisition: may pause the thread (bounded). */
void rt_steer_before_wait(struct rt_thread *t, uintptr_t pc);
/* Before a condition or semaphore wait: the same for a plan's wait edges. */
void rt_steer_before_event_wait(struct rt_thread *t, uintptr_t pc);
void rt_steer_after_fork(void);
#endif
