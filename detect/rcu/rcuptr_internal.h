/* Between the parts of the RCU pointer checks: rcuptr.c (the table of
 * locations and the events) and rcuptr_report.c (the reports, built from
 * copies taken out of the table with its lock released). */
#ifndef RTDD_RCUPTR_INTERNAL_H
#define RTDD_RCUPTR_INTERNAL_H
#include "rcu/rcuptr.h"
#include "core/core.h"
#include "locks/locks.h"
#include <stdint.h>

#define PTR_LOCKS 4      /* locks remembered per access (the innermost) */

struct lockset {
    uint8_t n;
    struct { uint64_t id; uintptr_t addr; } lock[PTR_LOCKS];
};

struct access {
    int tid;
    uint8_t op;        /* enum rt_rcu_update (writes) */
    uint64_t clock;    /* rt_rcuptr_clock when it happened */
    rt_stack_id stack;
    struct lockset locks;
};

enum { REPORTED_DEREF = 1, REPORTED_UPDATE = 2 };
/* What a freed-while-published report needs, copied out of the table. */
struct dangling {
    uintptr_t slot, value, start, end;
    int freed_tid;
    rt_stack_id freed_stack;
    struct access publish;
};

/* liburcu's rcu_dereference() (the value alone, no slot) was seen. */
extern _Atomic int rt_rcuptr_urcu_api;
/* Threads that have exited race with nobody any more. */
int rt_rcuptr_thread_alive(int tid);
/* Sets a REPORTED_* bit on the pointer at slot (takes the table lock). */
void rt_rcuptr_mark_reported(uintptr_t slot, uint8_t bit);
/* t: the dereferencing thread, when it is the caller; else deref, a
 * dereference remembered earlier. writer: the update that makes it unsafe
 * (NULL for a condition that failed). */
void rt_rcuptr_report_deref(struct rt_thread *t, const struct access *deref, uintptr_t slot,
                            enum rt_rcu_deref_form form, const struct access *writer);
void rt_rcuptr_report_update(struct rt_thread *t, uintptr_t slot, const struct access *now,
                             const struct access *other);
/* when: NULL at the free itself; else what shows the pointer still held
 * the freed memory afterwards, with the stack of that event (0: none). */
void rt_rcuptr_report_freed(const struct dangling *d, const char *when, rt_stack_id when_stack);
#endif
