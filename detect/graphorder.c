/* Pearce-Kelly dynamic topological order (graphorder.h). For a new edge
 * x -> y with ord(y) < ord(x), only nodes with ord in [ord(y), ord(x)] can
 * be on a path y -> ... -> x: a forward search from y bounded above by
 * ord(x) finds x (a cycle) or the set F it reaches; a backward search from
 * x bounded below by ord(y) finds the set B that reaches x. B must come
 * before F: the places of B and F together, in increasing order, are given
 * first to B's nodes, then to F's, each set keeping its internal order. */
#include "graphorder.h"
#include "rt_alloc.h"
#include <string.h>

struct go_link {
    struct go_node *node; /* in an out list, the target; in an in list, the source */
    struct go_link *next;
};

static struct rt_pool link_pool = RT_POOL_INIT(struct go_link);

void go_node_init(struct go_graph *g, struct go_node *n)
{
    n->ord = g->next_ord++;
    n->visit = 0;
    n->out = n->in = NULL;
}

static int grow_ptrs(struct go_node ***arr, unsigned *cap, unsigned need)
{
    if (need <= *cap)
        return 0;
    unsigned n = *cap ? *cap * 2 : 256;
    while (n < need)
        n *= 2;
    struct go_node **bigger = rt_zalloc((size_t)n * sizeof *bigger);
    if (!bigger)
        return -1;
    if (*arr)
        memcpy(bigger, *arr, (size_t)*cap * sizeof *bigger);
    *arr = bigger;
    *cap = n;
    return 0;
}

/* The two found arrays and the list of places (as long as both) grow together. */
static int ensure_found(struct go_graph *g, unsigned need)
{
    if (need <= g->found_cap)
        return 0;
    unsigned n = g->found_cap ? g->found_cap * 2 : 256;
    while (n < need)
        n *= 2;
    struct go_node **fwd = rt_zalloc((size_t)n * sizeof *fwd), **bwd = rt_zalloc((size_t)n * sizeof *bwd);
    uint64_t *ords = rt_zalloc((size_t)n * sizeof *ords);
    if (!fwd || !bwd || !ords)
        return -1; /* the engine's memory is never returned: what was taken stays unused */
    if (g->found_cap) {
        memcpy(fwd, g->found_fwd, (size_t)g->found_cap * sizeof *fwd);
        memcpy(bwd, g->found_bwd, (size_t)g->found_cap * sizeof *bwd);
    }
    g->found_fwd = fwd;
    g->found_bwd = bwd;
    g->ords = ords;
    g->found_cap = n;
    return 0;
}

/* Depth-first from start over out links (forward) or in links, visiting
 * nodes whose ord is within the bound; collects them into found. Returns
 * the count, or -1 if stop was reached (forward: a cycle) or out of memory
 * (-2). */
static int search(struct go_graph *g, struct go_node *start, int forward, uint64_t bound, struct go_node *stop,
                  struct go_node ***found)
{
    unsigned depth = 0, n = 0;
    if (grow_ptrs(&g->stack, &g->stack_cap, 1) < 0)
        return -2;
    g->stack[depth++] = start;
    start->visit = g->epoch;
    while (depth) {
        struct go_node *v = g->stack[--depth];
        if (ensure_found(g, n + 1) < 0)
            return -2;
        (*found)[n++] = v;
        for (struct go_link *l = forward ? v->out : v->in; l; l = l->next) {
            struct go_node *w = l->node;
            if (forward && w == stop)
                return -1;
            if (w->visit == g->epoch || (forward ? w->ord > bound : w->ord < bound))
                continue;
            w->visit = g->epoch;
            if (grow_ptrs(&g->stack, &g->stack_cap, depth + 1) < 0)
                return -2;
            g->stack[depth++] = w;
        }
    }
    return (int)n;
}

/* Heapsorts (no allocation: the runtime must not call malloc here). */
static void sift_nodes(struct go_node **a, unsigned root, unsigned n)
{
    for (unsigned child; (child = 2 * root + 1) < n; root = child) {
        if (child + 1 < n && a[child + 1]->ord > a[child]->ord)
            child++;
        if (a[root]->ord >= a[child]->ord)
            return;
        struct go_node *x = a[root];
        a[root] = a[child];
        a[child] = x;
    }
}

static void sort_by_ord(struct go_node **a, unsigned n)
{
    for (unsigned i = n / 2; i-- > 0;)
        sift_nodes(a, i, n);
    for (unsigned end = n; end-- > 1;) {
        struct go_node *x = a[0];
        a[0] = a[end];
        a[end] = x;
        sift_nodes(a, 0, end);
    }
}

static void sift_ords(uint64_t *a, unsigned root, unsigned n)
{
    for (unsigned child; (child = 2 * root + 1) < n; root = child) {
        if (child + 1 < n && a[child + 1] > a[child])
            child++;
        if (a[root] >= a[child])
            return;
        uint64_t x = a[root];
        a[root] = a[child];
        a[child] = x;
    }
}

static void sort_ords(uint64_t *a, unsigned n)
{
    for (unsigned i = n / 2; i-- > 0;)
        sift_ords(a, i, n);
    for (unsigned end = n; end-- > 1;) {
        uint64_t x = a[0];
        a[0] = a[end];
        a[end] = x;
        sift_ords(a, 0, end);
    }
}

static int link(struct go_link **head, struct go_node *node)
{
    struct go_link *l = rt_pool_get(&link_pool);
    if (!l)
        return -1;
    l->node = node;
    l->next = *head;
    *head = l;
    return 0;
}

static void unlink_one(struct go_link **head, const struct go_node *node)
{
    for (struct go_link **p = head; *p; p = &(*p)->next)
        if ((*p)->node == node) {
            struct go_link *l = *p;
            *p = l->next;
            rt_pool_put(&link_pool, l);
            return;
        }
}

static int insert(struct go_node *from, struct go_node *to)
{
    if (link(&from->out, to) < 0)
        return -1;
    if (link(&to->in, from) < 0) {
        unlink_one(&from->out, to);
        return -1;
    }
    return 0;
}

int go_add_edge(struct go_graph *g, struct go_node *from, struct go_node *to)
{
    if (from == to)
        return 1;
    if (from->ord < to->ord)
        return insert(from, to) < 0 ? -1 : 0;
    /* to comes first: what lies between may have to move. */
    g->epoch++;
    int nf = search(g, to, 1, from->ord, from, &g->found_fwd);
    if (nf == -1)
        return 1;
    if (nf < 0)
        return -1;
    /* The backward search must not take F's nodes for unvisited: a node
     * reached both ways would mean a cycle, which the forward search rules
     * out, so one epoch serves both. */
    int nb = search(g, from, 0, to->ord, NULL, &g->found_bwd);
    if (nb < 0)
        return -1;
    unsigned nfu = (unsigned)nf, nbu = (unsigned)nb;
    if (ensure_found(g, nfu + nbu) < 0)
        return -1;
    sort_by_ord(g->found_fwd, nfu);
    sort_by_ord(g->found_bwd, nbu);
    unsigned k = 0;
    for (unsigned i = 0; i < nbu; i++)
        g->ords[k++] = g->found_bwd[i]->ord;
    for (unsigned i = 0; i < nfu; i++)
        g->ords[k++] = g->found_fwd[i]->ord;
    sort_ords(g->ords, k);
    k = 0;
    for (unsigned i = 0; i < nbu; i++)
        g->found_bwd[i]->ord = g->ords[k++];
    for (unsigned i = 0; i < nfu; i++)
        g->found_fwd[i]->ord = g->ords[k++];
    return insert(from, to) < 0 ? -1 : 0;
}

void go_remove_edge(struct go_graph *g, struct go_node *from, struct go_node *to)
{
    (void)g;
    for (struct go_link *l = from->out; l; l = l->next)
        if (l->node == to) {
            unlink_one(&from->out, to);
            unlink_one(&to->in, from);
            return;
        }
}

int go_path_exists(struct go_graph *g, struct go_node *from, struct go_node *to)
{
    if (from == to)
        return 1;
    g->epoch++;
    return search(g, from, 1, UINT64_MAX, to, &g->found_fwd) == -1;
}
