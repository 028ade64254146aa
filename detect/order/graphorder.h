/* An incremental topological order of a directed graph (Pearce and Kelly's
 * dynamic topological sort, as Abseil's graphcycles keeps one): adding an
 * edge that agrees with the order costs one comparison; one that does not
 * searches only the nodes whose order lies between its two ends, and either
 * finds a cycle or moves those nodes. The lock-order graph keeps one over
 * its edges, so that the search for a deadlock cycle runs only when a path
 * back can exist at all.
 *
 * Not thread-safe: the caller serializes every call on one graph. */
#ifndef RTDD_GRAPHORDER_H
#define RTDD_GRAPHORDER_H
#include <stdint.h>

struct go_link;
struct go_node {
    uint64_t ord;           /* the node's place in the order */
    uint32_t visit;         /* search epoch */
    struct go_link *out, *in;
};

struct go_graph {
    uint64_t next_ord;      /* the next last place (0: none given yet) */
    uint64_t first_ord;     /* the next first place */
    uint32_t epoch;
    struct go_node **found[2];  /* the forward and backward searches' results */
    unsigned found_cap[2];
    uint64_t *ords;             /* the places they take */
    unsigned ords_cap;
    struct go_node **stack;
    unsigned stack_cap;
};

/* A new node, last in the order: right for a node whose first edge enters
 * it (the edge then agrees with the order, and costs no search). */
void go_node_init(struct go_graph *g, struct go_node *n);
/* A new node, first in the order: right for one whose first edge leaves it. */
void go_node_init_first(struct go_graph *g, struct go_node *n);

/* Adds from -> to and returns 0, keeping the order; or returns 1 and adds
 * nothing when the edge would close a cycle (a path to -> ... -> from, or
 * from == to); -1 when out of memory (nothing added: the caller must then
 * assume a cycle may exist). Adding an edge that is already there is
 * allowed and adds it once more (the caller keeps edges unique). */
int go_add_edge(struct go_graph *g, struct go_node *from, struct go_node *to);

/* Removes one from -> to edge added before (no-op if there is none). The
 * order stays valid: removing an edge never breaks it. */
void go_remove_edge(struct go_graph *g, struct go_node *from, struct go_node *to);

/* Is there a path from -> ... -> to (for tests; a plain search). */
int go_path_exists(struct go_graph *g, struct go_node *from, struct go_node *to);
#endif
