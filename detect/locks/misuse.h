/* Lock misuse: the reports that judge single lock operations. */
#ifndef RTDD_MISUSE_H
#define RTDD_MISUSE_H
#include "locks/thread.h"

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
/* A lock starts a new life at addr: an earlier life's destroy is not its
 * history (a fork inherits the table; the next destroy may happen in
 * another process, unseen). */
void rt_forget_destroy(uintptr_t addr);
#endif
