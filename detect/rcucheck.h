/* RCU-aware checking, for librtdd_rcu (through its debug hooks) and for
 * liburcu (through its exported functions). Each RCU flavour is a pair of
 * pseudo-locks in the lock-order graph: readers read-acquire the RCU lock
 * that synchronize_rcu write-acquires; callbacks run inside a read
 * acquisition of the callback lock that rcu_barrier write-acquires. */
#ifndef RTDD_RCUCHECK_H
#define RTDD_RCUCHECK_H
#include "thread.h"
#include <stddef.h>
#include <stdint.h>

enum rt_rcu_flavor { RT_RCU_RTDD, RT_RCU_MEMB, RT_RCU_MB, RT_RCU_BP, RT_RCU_QSBR, RT_RCU_SIGNAL, RT_RCU_FLAVORS };

/* Set by the first RCU event: from then on free() is checked against RCU
 * readers. */
extern _Atomic int rt_rcu_in_use;

void rt_rcu_read_enter(struct rt_thread *t, enum rt_rcu_flavor f, uintptr_t pc);
void rt_rcu_read_exit(struct rt_thread *t, enum rt_rcu_flavor f, uintptr_t pc);
void rt_rcu_dereference(struct rt_thread *t, const void *value, uintptr_t pc);
/* rcu_assign_pointer/xchg: old is the pointer being replaced (unpublished). */
void rt_rcu_publish(struct rt_thread *t, const void *old, uintptr_t pc);
/* synchronize_rcu (barrier = 0) or rcu_barrier (barrier = 1). */
void rt_rcu_wait_begin(struct rt_thread *t, enum rt_rcu_flavor f, int barrier, uintptr_t pc);
void rt_rcu_wait_end(struct rt_thread *t, enum rt_rcu_flavor f, int barrier, uintptr_t pc);
/* call_rcu of head with callback func: RT_RCU_QUEUED (tracked),
 * RT_RCU_DUPLICATE (already queued: reported, drop the call) or
 * RT_RCU_UNTRACKED (no memory to track it: queue it unobserved). */
enum { RT_RCU_QUEUED, RT_RCU_DUPLICATE, RT_RCU_UNTRACKED };
int rt_rcu_call(struct rt_thread *t, enum rt_rcu_flavor f, const void *head, void *func, uintptr_t pc);
/* The callback of head starts; returns the func given to rt_rcu_call. */
void *rt_rcu_callback_begin(struct rt_thread *t, enum rt_rcu_flavor f, const void *head);
void rt_rcu_callback_end(struct rt_thread *t, enum rt_rcu_flavor f, const void *head);
/* free() of [start, start+len): readers still referencing it, or an
 * unpublished object freed without a grace period. */
void rt_rcu_on_free(struct rt_thread *t, uintptr_t start, size_t len, uintptr_t pc);
/* A thread ends inside a read section. */
void rt_rcu_on_thread_exit(struct rt_thread *t);
/* Read sections that ended, and those of them that ended on another CPU
 * than they began on (the seed's migration case). */
unsigned long rt_rcu_sections(void);
/* A thread's counts move to the totals when its state is freed. */
void rt_rcu_thread_gone(const struct rt_thread *t);
unsigned long rt_rcu_migrated_sections(void);
/* The watchdog's check of grace periods blocked longer than
 * rcu_stall_timeout_ms (INFO rcu-stall). */
int rt_rcu_is_pseudo(const struct rt_lock *l);
/* In a forked child: the tables' locks may have been held by vanished threads. */
void rt_rcucheck_after_fork(void);
#endif
