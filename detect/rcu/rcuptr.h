/* RCU pointers as locations (rcuptr.c): for every pointer written with
 * rcu_assign_pointer (or liburcu's set/xchg/cmpxchg), what it holds now,
 * who wrote it holding which locks, and dereferences made outside any
 * read-side section. Three checks come of it:
 *  - rcu-unprotected-dereference: rcu_dereference() outside any read-side
 *    section by a thread that holds none of the locks the pointer's other
 *    updaters hold (rcu_deref_rule=lockdep: by a thread that holds no lock),
 *    never in a call_rcu callback, once per site (or
 *    rcu_dereference_check/_protected whose condition is false);
 *  - rcu-unlocked-update: two threads write the pointer, at least one with a
 *    plain assignment, holding no lock in common and not ordered by a post,
 *    signal, exit or lock handoff (rcuhb.h; xchg and cmpxchg against each
 *    other are their own protection);
 *  - rcu-freed-while-published: memory freed while a live pointer still
 *    holds it (at once for a pointer in static storage while other threads
 *    read; for one inside a heap block, when it is next read or written, or
 *    at exit, unless its own block is freed first); a pointer inside a
 *    retired object (rcuretired.h) holds nothing published. */
#ifndef RTDD_RCUPTR_H
#define RTDD_RCUPTR_H
#include "core/core.h"
#include "locks/locks.h"
#include <stddef.h>
#include <stdint.h>

enum rt_rcu_update {
    RT_RCU_ASSIGN,  /* rcu_assign_pointer, rcu_set_pointer: a plain store */
    RT_RCU_XCHG,    /* rcu_xchg_pointer: returns what it replaced */
    RT_RCU_CMPXCHG, /* a successful rcu_cmpxchg_pointer */
};

/* How a dereference outside a read-side section was made. */
enum rt_rcu_deref_form {
    RT_DEREF_PLAIN,            /* rcu_dereference(): judged against the updaters' locks */
    RT_DEREF_CHECK_FAILED,     /* rcu_dereference_check(p, c) with c false */
    RT_DEREF_PROTECTED_FAILED, /* rcu_dereference_protected(p, c) with c false */
};

/* Lines (linefilter.h) that hold a tracked pointer or what one points to
 * (a count per line): free() looks further only there. */
extern uint8_t rt_rcuptr_filter[RT_FILTER_LINES + RT_FILTER_PAD];

/* A write of fresh into *slot, which held old (slot NULL: unknown,
 * nothing to track). */
void rt_rcuptr_write(struct rt_thread *t, const void *slot, const void *old, const void *fresh, enum rt_rcu_update op,
                     uintptr_t pc);
/* A dereference of value, loaded from slot (NULL when the API passes the
 * value alone: liburcu), outside every read-side section of t. */
void rt_rcuptr_deref_outside(struct rt_thread *t, const void *slot, const void *value, enum rt_rcu_deref_form form,
                             uintptr_t pc);
/* A dereference inside a section: reported only if it loads what was freed
 * while published. */
void rt_rcuptr_deref_inside(const void *slot, const void *value);
/* free() of [start, start+len) (in a callback too): pointers inside the
 * block are forgotten, pointers to it are checked. */
void rt_rcuptr_on_free(struct rt_thread *t, uintptr_t start, size_t len, uintptr_t pc);
/* At exit: pointers left holding freed memory. */
void rt_rcuptr_at_exit(void);
/* Pointers whose object was freed while they held it and that are still
 * waiting for their report (deref_inside needs to look only then). */
extern _Atomic unsigned rt_rcuptr_dangling;
void rt_rcuptr_after_fork(void);
/* A thread registered with liburcu's QSBR flavour: its readers need no
 * read_lock, so no dereference is judged. */
extern _Atomic unsigned rt_rcu_qsbr_registered;

static inline int rt_rcuptr_may_overlap(uintptr_t start, size_t len)
{
    return __atomic_load_n(&rt_rcuptr_tracked, __ATOMIC_RELAXED) &&
           rt_filter_may_overlap(rt_rcuptr_filter, start, len);
}
#endif
