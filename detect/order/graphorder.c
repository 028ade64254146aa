/* Pearce-Kelly dynamic topological order (graphorder.h). For a new edge
 * x -> y with ord(y) < ord(x), only nodes with ord in [ord(y), ord(x)] can
 * be on a path y -> ... -> x: a forward search from y bounded above by
 * ord(x) finds x (a cycle) or the set F it reaches; a backward search from
 * x bounded below by ord(y) finds the set B that reaches x. B must come
 * before F: the places of B and F together, in increasing order, are given
 * first to B's nodes, then to F's, each set keeping its internal order. */
#include "order/graphorder.h"
#include "core/core.h"

struct go_link {
    struct go_node *node; /* in an out list, the target; in an in list, the source */
    struct go_link *next;
};

static struct rt_pool link_pool = RT_POOL_INIT(struct go_link);

/* New nodes take places at either end: last ones count up from the
 * middle of the range, first ones down from it. */
#define ORD_MIDDLE (1ull << 63)
static void ends_ready(struct go_graph *g)
{
    if (g->next_ord == 0) {
        g->next_ord = ORD_MIDDLE;
        g->first_ord = ORD_MIDDLE - 1;
    }
}

void go_node_init(struct go_graph *g, struct go_node *n)
{
    ends_ready(g);
    n->ord = g->next_ord++;
    n->visit = 0;
    n->out = n->in = NULL;
}

void go_node_init_first(struct go_graph *g, struct go_node *n)
{
    ends_ready(g);
    n->ord = g->first_ord--;
    n->visit = 0;
    n->out = n->in = NULL;
}

/* Depth-first from start over out links (forward) or in links, visiting
 * nodes whose ord is within the bound; collects them into g->found[dir].
 * Returns the count, or -1 if stop was reached (forward: a cycle), or -2
 * when out of memory. */
static int search(struct go_graph *g, struct go_node *start, int forward, uint64_t bound, struct go_node *stop)
{
    unsigned depth = 0, n = 0, dir = forward ? 0 : 1;
    if (rt_grow_array((void **)&g->stack, &g->stack_cap, 1, sizeof *g->stack) < 0)
        return -2;
    g->stack[depth++] = start;
    start->visit = g->epoch;
    while (depth) {
        struct go_node *v = g->stack[--depth];
        if (rt_grow_array((void **)&g->found[dir], &g->found_cap[dir], n + 1, sizeof *g->found[dir]) < 0)
            return -2;
        g->found[dir][n++] = v;
        for (struct go_link *l = forward ? v->out : v->in; l; l = l->next) {
            struct go_node *w = l->node;
            if (forward && w == stop)
                return -1;
            if (w->visit == g->epoch || (forward ? w->ord > bound : w->ord < bound))
                continue;
            w->visit = g->epoch;
            if (rt_grow_array((void **)&g->stack, &g->stack_cap, depth + 1, sizeof *g->stack) < 0)
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
    int nf = search(g, to, 1, from->ord, from);
    if (nf == -1)
        return 1;
    if (nf < 0)
        return -1;
    /* The backward search must not take F's nodes for unvisited: a node
     * reached both ways would mean a cycle, which the forward search rules
     * out, so one epoch serves both. */
    int nb = search(g, from, 0, to->ord, NULL);
    if (nb < 0)
        return -1;
    unsigned nfu = (unsigned)nf, nbu = (unsigned)nb;
    if (rt_grow_array((void **)&g->ords, &g->ords_cap, nfu + nbu, sizeof *g->ords) < 0)
        return -1;
    struct go_node **fwd = g->found[0], **bwd = g->found[1];
    sort_by_ord(fwd, nfu);
    sort_by_ord(bwd, nbu);
    unsigned k = 0;
    for (unsigned i = 0; i < nbu; i++)
        g->ords[k++] = bwd[i]->ord;
    for (unsigned i = 0; i < nfu; i++)
        g->ords[k++] = fwd[i]->ord;
    sort_ords(g->ords, k);
    k = 0;
    for (unsigned i = 0; i < nbu; i++)
        bwd[i]->ord = g->ords[k++];
    for (unsigned i = 0; i < nfu; i++)
        fwd[i]->ord = g->ords[k++];
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
    return search(g, from, 1, UINT64_MAX, to) == -1;
}
