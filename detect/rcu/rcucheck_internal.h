/* Internal interfaces between the parts of the RCU checker: rcucheck.c (the
 * clock, the pseudo-locks, read sections, publish and free), rcuwait.c
 * (grace-period waits) and rcucallbacks.c (call_rcu and its callbacks). */
#ifndef RTDD_RCUCHECK_INTERNAL_H
#define RTDD_RCUCHECK_INTERNAL_H
#include "locks/locks.h"
#include "report/report.h"
#include "rcu/rcu.h"
#include <stdint.h>

/* Read-mostly: written once, so the read side does not store to it. */
static inline void rt_rcu_mark_in_use(void)
{
    rt_free_checks_add(RT_FREE_RCU);
}

/* Indexed by enum rt_rcu_flavor, for reports. */
extern const char *const rt_rcu_flavor_names[RT_RCU_FLAVORS];

/* Advances the RCU clock (an update-side event) and returns its new value. */
uint64_t rt_rcu_tick(void);

/* Every reader of f that entered before clock began has left. */
void rt_rcu_grace_period_done(enum rt_rcu_flavor f, uint64_t began);

/* Flavour f's RCU lock (callbacks = 0) or callback lock (callbacks = 1),
 * named when first seen; NULL if it cannot be tracked. */
struct rt_lock *rt_rcu_pseudo_lock(struct rt_thread *t, enum rt_rcu_flavor f, int callbacks, uintptr_t pc);

/* The thread's current read section, as the checks see it: one the
 * runtime tracks itself, else the librtdd_rcu section its slot's word
 * holds (record mode). Other threads may ask. */
struct rt_rcu_section {
    unsigned depth;
    uint8_t flavor;
    uint64_t clock;
};
int rt_rcu_section_of(const struct rt_thread *t, struct rt_rcu_section *s);

/* A report on t alone: the call (what), the section it is inside, why it
 * is wrong (explain), and the locks it holds. */
void rt_rcu_report_simple(struct rt_thread *t, enum rt_kind kind, const char *headline, const char *what,
                          const char *explain);

/* Reports a reader of f still inside a section it entered before began,
 * once a grace period (what) that should have waited for it has ended. */
void rt_rcu_check_gp(struct rt_thread *t, enum rt_rcu_flavor f, uint64_t began, const char *what);

/* In a forked child: the queued rcu_heads' locks (rt_rcucheck_after_fork). */
void rt_rcucallbacks_after_fork(void);
#endif
