/* Can distinct threads cover a lock-order cycle? Each edge of the cycle
 * ("B taken while A held") was made by some set of threads; the cycle can
 * deadlock only if every edge can be given one of its threads, all of them
 * different, since each thread of a deadlock holds one lock of the cycle
 * and waits for the next (the condition of iGoodlock / DeadlockFuzzer,
 * PLDI 2009). A cycle whose edges one thread made alone cannot deadlock
 * in any interleaving of the threads that made them. */
#ifndef RTDD_FEASIBLE_H
#define RTDD_FEASIBLE_H
#include <stdint.h>

/* The threads that made an edge: up to RT_EDGE_THREADS by id, then only
 * "more": a set with more has at least RT_EDGE_THREADS + 1 threads. */
#define RT_EDGE_THREADS 4
struct rt_threadset {
    int tid[RT_EDGE_THREADS];
    uint8_t n;
    uint8_t more;
};

/* 1 if tid is in the set, or the set is past its size (nothing to add). */
int rt_threadset_has(const struct rt_threadset *s, int tid);
/* Adds tid; 1 if the set changed. */
int rt_threadset_add(struct rt_threadset *s, int tid);

/* Up to this many edges are matched; a longer cycle is taken as feasible. */
#define RT_FEASIBLE_MAX 64
/* 1 if the n edges whose thread sets are sets[0..n-1] can be given
 * pairwise distinct threads. A set with "more" always finds a thread of
 * its own when n <= RT_EDGE_THREADS + 1 (it has more threads than the
 * other edges can take); in longer cycles it is assumed to. */
int rt_threads_distinct(const struct rt_threadset *const *sets, unsigned n);

/* The cycle whose last edge (sets[n-1]) thread closer's acquisition makes
 * now: 1 if distinct threads can cover it with every thread of the
 * deadlock alive at once. When the closing edge is given to closer, a
 * thread whose end happened before closer's acquisition
 * (ended_before(tid, closer): closer joined it) cannot hold another edge
 * beside it; given to another thread that made it earlier, the rule is
 * rt_threads_distinct's. ended_before NULL: rt_threads_distinct. */
int rt_cycle_feasible(const struct rt_threadset *const *sets, unsigned n, int closer,
                      int (*ended_before)(int tid, int observer));
#endif
