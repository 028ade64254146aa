/* What the lock-order graph (lockorder.c) hands its reports
 * (lockorder_report.c): cycles copied out of the graph, so that they are
 * written without the graph lock. */
#ifndef RTDD_LOCKORDER_INTERNAL_H
#define RTDD_LOCKORDER_INTERNAL_H
#include "order/feasible.h"
#include "order/graphorder.h"
#include "locks/locks.h"
#include "core/core.h"
#include "order/sleeplock.h"
#include <stdint.h>

/* The graph, shared by lockorder.c (the checks) and lockorder_groups.c
 * (lock groups); changed only under lo_graph_lock. */
#define MAX_GATES 3              /* candidate gate locks considered per edge */
#define STATES (2 << MAX_GATES)  /* (arrived by a recursive read) x (gates broken) */

struct lo_edge;
/* Nodes and edges are pooled (type-stable): a lock-free reader that meets a
 * forgotten one reads a key of 0 or null ends and goes on along hash_next,
 * which stays intact until reuse. The pool's free-list link overlays the
 * first word, so that is never one a reader follows. */
struct lo_node {
    uint64_t key;
    struct lo_node *hash_next;
    struct lo_edge *out, *in;
    uintptr_t addr;                /* the lock's address when the node was made */
    struct rt_lock *lock;          /* for naming; validated with lock_id */
    uint64_t lock_id;
    rt_stack_id init_stack;
    uint32_t visited[STATES];      /* search epochs */
    struct go_node order;          /* its place in the topological order */
    _Atomic uint8_t doomed;        /* its lock is gone: on the doomed list */
    uint32_t group;                /* its lock's group (lockgroup.h), while a node of its own */
    struct lo_node *doomed_next;
};

struct lo_edge {
    struct lo_edge *next_out, *hash_next, *next_in;
    struct lo_node *from, *to;
    uint8_t src_read;              /* source only ever held for reading (S) */
    uint8_t dst_recursive;         /* target only ever taken as a recursive read (R) */
    uint8_t ngates;
    uint8_t in_order;              /* part of the topological order (closes no cycle of locks) */
    _Atomic uint32_t version;      /* odd while its fields change: lock-free readers retry */
    uint64_t gates[MAX_GATES];     /* node keys held (taken before from) every time */
    rt_stack_id stack;             /* where to was taken while from was held */
    rt_stack_id from_stack;        /* where from was taken */
    int tid;                       /* the first thread that made it */
    struct rt_threadset threads;   /* the threads that made it (detect/order/feasible.h) */
};

#define NODE_BUCKETS (1u << 16)
#define EDGE_BUCKETS (1u << 16)
extern rt_sleeplock_t lo_graph_lock;
extern struct lo_node **lo_node_buckets;
extern struct go_graph lo_order;
extern unsigned long lo_edges_out_of_order;
extern int lo_widen_pending; /* some group has members enough in the graph */
/* The node of key, made if new (first: placed first in the order, else last). */
struct lo_node *lo_get_node_keyed(uint64_t key, const struct rt_lock *l, uintptr_t addr, int first);
struct lo_edge *lo_find_edge(const struct lo_node *from, const struct lo_node *to);
/* Published with an odd version: the caller fills it in and calls lo_edge_done. */
struct lo_edge *lo_add_edge(struct lo_node *from, struct lo_node *to);
void lo_edge_begin(struct lo_edge *e);
void lo_edge_done(struct lo_edge *e);
void lo_intersect_gates(struct lo_edge *e, const uint64_t *gates, unsigned ngates);
void lo_remove_node(struct lo_node *n);
/* The key of the remnant node of l's split group, or 0 (lockorder_groups.c). */
uint64_t lo_remnant_key(const struct rt_lock *l);
/* Makes the groups that have members enough in the graph one node each. */
void lo_widen_groups(void);

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

/* The search for a path to -> ... -> from that, with the new edge
 * from -> to, closes a cycle that can deadlock (lockorder_search.c).
 * Returns its number of edges (0: none); lo_copy_cycle copies it out. A
 * path no set of distinct threads covers is kept in lo_latent_found
 * (lo_latent_len edges) while the search goes on. Graph lock held. */
unsigned lo_find_cycle(struct lo_node *from, struct lo_node *to, int new_src_read, int new_dst_recursive,
                       const uint64_t *gates, unsigned ngates, const struct rt_threadset *closing, int closer);
void lo_copy_cycle(struct cycle_copy *c, unsigned len);
extern struct cycle_copy lo_latent_found;
extern unsigned lo_latent_len;

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
