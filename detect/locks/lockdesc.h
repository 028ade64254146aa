/* How reports name and describe locks and the locks a thread holds. */
#ifndef RTDD_LOCKDESC_H
#define RTDD_LOCKDESC_H
#include "locks/locktab.h"
#include "report/report.h"
#include "locks/thread.h"
#include <stddef.h>

/* "cfg_mutex" (annotated or symbol name) or "[0x5581c0a04100]"; a GLib
 * bit lock's: "bit 1 of flags" or "[bit 1 of the word at 0x5581c0a04100]". */
void rt_lock_name(const struct rt_lock *l, uintptr_t addr, char *out, size_t cap);
/* "[0xADDR] NAME (TYPE, initialized at FILE:LINE)" for a report line (a
 * bit lock's: "[bit N of the word at 0xADDR] NAME (...)"). */
void rt_lock_describe(const struct rt_lock *l, uintptr_t addr, char *out, size_t cap);
/* Where the lock is: "0xADDR", or "bit N of the word at 0xADDR". */
void rt_lock_where(uintptr_t addr, char *out, size_t cap);
/* The verb of a locking scenario line: lock, read_lock, rcu_read_lock,
 * synchronize_rcu, rcu_callback, rcu_barrier. */
const char *rt_lock_op(const struct rt_lock *l, int read);
/* "FILE:LINE in FUNCTION" of a stack's first frame, or "MODULE+0xOFF". */
void rt_stack_site(rt_stack_id stack, char *out, size_t cap);
/* The section "N locks held by COMM/TID:" with one line per held lock. */
void rt_report_held_locks(struct rt_report *r, const struct rt_thread *t, const char *comm);
/* Who holds the lock (owner, or a reader of an rwlock) and where they took it. */
void rt_report_holders(struct rt_report *r, const struct rt_lock *l, int self_tid);
#endif
