/* Lock misuse: the reports that judge single lock operations. */
#ifndef RTDD_MISUSE_H
#define RTDD_MISUSE_H
#include "thread.h"

/* destroy-locked: destroying (or re-initializing: verb) a held lock. */
void rt_report_destroy_locked(struct rt_thread *t, struct rt_lock *l, const char *verb, uintptr_t pc);
/* destroy-locked: a lock the thread holds whose memory was reset to an
 * unlocked initializer (seen at its next lock call). */
void rt_report_reset_while_held(struct rt_thread *t, struct rt_lock *l, const struct rt_held *held, uintptr_t pc);
/* recursive-locking: about to block on a lock the thread already holds. */
void rt_report_recursive_locking(struct rt_thread *t, struct rt_lock *l, const struct rt_held *held,
                                 unsigned flags, uintptr_t pc);
/* An unlock of a lock this thread does not hold: cross-cpu-unlock,
 * non-owner-unlock or bad-unlock. */
int rt_check_unheld_release(struct rt_thread *t, uintptr_t addr, uintptr_t pc, int word_unlocked);
/* Remembers where the lock at addr was destroyed (a lossy table). */
void rt_remember_destroy(struct rt_thread *t, uintptr_t addr, uintptr_t pc);
/* Was the object at addr destroyed, as far as that table remembers? Where
 * and by whom in *stack and *tid (either may be NULL). */
int rt_destroyed_at(uintptr_t addr, rt_stack_id *stack, int *tid);
#endif
