/* What the lock-order graph (lockorder.c) hands its reports
 * (lockorder_report.c): cycles copied out of the graph, so that they are
 * written without the graph lock. */
#ifndef RTDD_LOCKORDER_INTERNAL_H
#define RTDD_LOCKORDER_INTERNAL_H
#include "feasible.h"
#include "thread.h"
#include <stdint.h>

#define MAX_CYCLE 16
struct cycle_edge {
    uintptr_t from_addr, to_addr;
    struct rt_lock *from_lock, *to_lock; /* for naming, while their ids match */
    uint64_t from_id, to_id;
    rt_stack_id stack, from_stack;
    int tid;                             /* the first thread that made it */
    struct rt_threadset threads;
    uint64_t from_key, to_key;
};
/* A path of the graph; a latent cycle also has its closing edge last. */
struct cycle_copy {
    unsigned n;
    struct cycle_edge e[MAX_CYCLE + 1];
};

/* The same for every edge that closes the same cycle. */
uint64_t lo_cycle_key(const struct cycle_copy *c);
/* The acquisition of lock by t, holding h, closes the chain c (a feasible
 * cycle): a lock-order-inversion report. */
void lo_report_cycle(struct rt_thread *t, struct rt_lock *lock, unsigned flags, const struct rt_held *h,
                     const struct cycle_copy *c, uint64_t key);
/* A cycle whose edges distinct threads cannot cover (all of c, its closing
 * edge included): a latent-lock-order report; more_not_kept latent cycles
 * beyond the table's size are counted in it. */
void lo_report_latent(const struct cycle_copy *c, unsigned more_not_kept);
#endif
