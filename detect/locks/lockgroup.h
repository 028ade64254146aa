/* Lock groups: the locks one init site makes (an array of bucket locks, a
 * lock per object of a pool). Each is its own node of the lock-order graph
 * at first. When many of one group's locks are in the graph at once
 * (RT_GROUP_WIDEN), and no thread ever waited for one of them while holding
 * another, the group widens: its locks become one node, their edges move to
 * it, and from then on thousands of instances cost what one lock costs (the
 * order of the group is checked as lockdep checks a class). A thread that
 * waits for a member while holding another splits the group for good: its
 * locks are their own nodes again. A wide group that splits keeps its node
 * (the remnant) and the members' later edges are learned on it too, so a
 * cycle through an edge learned while it was wide is still found. */
#ifndef RTDD_LOCKGROUP_H
#define RTDD_LOCKGROUP_H
#include "locks/locktab.h"
#include <stdint.h>

struct rt_lock_group {
    _Atomic uintptr_t site;   /* the init call site; 0: a free slot */
    uint64_t key;             /* its graph node key: odd (instance keys are even) */
    uint8_t type;
    _Atomic uint8_t wide;     /* its locks are one node */
    _Atomic uint8_t split;    /* a thread nested two members: never (again) one node */
    _Atomic uint8_t remnant;  /* split while wide: members' edges are learned on its node too */
    uint8_t widen_pending;    /* graph lock: enough members in the graph */
    unsigned nodes;           /* graph lock: members with a node of their own */
};

/* Members with nodes of their own at once that make a group one node. */
#define RT_GROUP_WIDEN 32

#define RT_LOCK_GROUPS (1u << 12)
extern struct rt_lock_group rt_lock_groups[RT_LOCK_GROUPS];

/* The group of locks of this type made at site, made on first use; 0 when
 * the table is full (those locks are not grouped). */
uint32_t rt_lockgroup_get(uintptr_t site, enum rt_lock_type type);
/* Marks group g split (returns 1 for the caller that did). */
int rt_lockgroup_split(uint32_t g);
/* The number of groups made (tests, statistics). */
unsigned rt_lockgroup_count(void);
void rt_lockgroup_after_fork(void);

/* The group a lock stands in for in the graph, or NULL when it is its own node. */
static inline const struct rt_lock_group *rt_lock_collapsed_group(const struct rt_lock *l)
{
    uint32_t g = l->group;
    if (__builtin_expect(g == 0, 1))
        return 0;
    const struct rt_lock_group *grp = &rt_lock_groups[g - 1];
    return __atomic_load_n(&grp->wide, __ATOMIC_ACQUIRE) && !__atomic_load_n(&grp->split, __ATOMIC_ACQUIRE) ? grp : 0;
}

/* The identity the chain keys and the graph use for a lock (instance
 * mode): its group's key while the group is one node, else its id. */
static inline uint64_t rt_lock_order_id(const struct rt_lock *l)
{
    const struct rt_lock_group *grp = rt_lock_collapsed_group(l);
    return grp ? grp->key : __atomic_load_n(&l->id, __ATOMIC_RELAXED) << 1;
}
#endif
