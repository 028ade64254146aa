/* Lock groups in the lock-order graph (lockgroup.h): a group with members
 * enough in the graph becomes one node (its members' edges merged into
 * it), and a group whose members are nested in each other splits for good,
 * keeping a wide group's node as a remnant that its members' new edges
 * also reach. Graph lock held, except where said. */
#include "order/lockorder_internal.h"
#include "locks/locks.h"
#include "core/core.h"
#include "report/report.h"
#include <string.h>

/* The key of the remnant node of l's split group, or 0. */
uint64_t lo_remnant_key(const struct rt_lock *l)
{
    uint32_t g = l->group;
    if (__builtin_expect(g == 0, 1) || !__atomic_load_n(&rt_lock_groups[g - 1].remnant, __ATOMIC_ACQUIRE))
        return 0;
    return rt_lock_groups[g - 1].key;
}

/* Called when a thread requests a member of group g while it holds
 * another: the group's locks are their own nodes from now on. A wide
 * group's node stays; if it has edges, the members' new edges are learned
 * on it too. */
void rt_lockorder_split_group(uint32_t g)
{
    if (!rt_lockgroup_split(g))
        return;
    if (!__atomic_load_n(&lo_node_buckets, __ATOMIC_ACQUIRE))
        return;
    struct rt_lock_group *grp = &rt_lock_groups[g - 1];
    rt_sleeplock_lock(&lo_graph_lock);
    unsigned b = (unsigned)(rt_hash64(grp->key) & (NODE_BUCKETS - 1));
    for (struct lo_node *n = lo_node_buckets[b]; n && __atomic_load_n(&grp->wide, __ATOMIC_RELAXED); n = n->hash_next)
        if (n->key == grp->key && (n->out || n->in))
            __atomic_store_n(&grp->remnant, 1, __ATOMIC_RELEASE);
    rt_sleeplock_unlock(&lo_graph_lock);
}

/* Folds the edges of e into from -> to, made or merged (graph lock held). */
static void merge_edge(struct lo_node *from, struct lo_node *to, const struct lo_edge *e)
{
    struct lo_edge *m = lo_find_edge(from, to);
    if (m) {
        lo_edge_begin(m);
        lo_intersect_gates(m, e->gates, e->ngates);
        m->src_read &= e->src_read;
        m->dst_recursive &= e->dst_recursive;
        for (unsigned i = 0; i < e->threads.n; i++)
            rt_threadset_add(&m->threads, e->threads.tid[i]);
        m->threads.more |= e->threads.more;
        lo_edge_done(m);
        return;
    }
    int ordered = go_add_edge(&lo_order, &from->order, &to->order) == 0;
    if (!ordered)
        lo_edges_out_of_order++;
    if (!(m = lo_add_edge(from, to)))
        return;
    m->in_order = (uint8_t)ordered;
    m->src_read = e->src_read;
    m->dst_recursive = e->dst_recursive;
    m->ngates = e->ngates;
    memcpy(m->gates, e->gates, sizeof m->gates);
    m->stack = e->stack;
    m->from_stack = e->from_stack;
    m->tid = e->tid;
    m->threads = e->threads;
    lo_edge_done(m);
}

/* A group with members enough in the graph becomes one node: their edges
 * move to it (merged), their nodes go. Cycles the merge closes between
 * different members are not reported here; from now on the group's lo_order
 * is checked as one lock's (graph lock held). */
static void widen_group(uint32_t g)
{
    struct rt_lock_group *grp = &rt_lock_groups[g - 1];
    if (__atomic_load_n(&grp->split, __ATOMIC_ACQUIRE) || __atomic_load_n(&grp->wide, __ATOMIC_RELAXED))
        return;
    struct lo_node *node = NULL;
    for (unsigned b = 0; b < NODE_BUCKETS; b++) {
        for (struct lo_node *n = lo_node_buckets[b], *next; n; n = next) {
            next = n->hash_next;
            if (n->group != g)
                continue;
            if (__atomic_load_n(&n->doomed, __ATOMIC_ACQUIRE))
                continue; /* its lock is gone: the next drain removes it */
            if (!node) {
                if (!(node = lo_get_node_keyed(grp->key, n->lock, n->addr, 0)))
                    return;
                node->lock_id = n->lock_id; /* named after a member, while it lives */
            }
            for (struct lo_edge *e = n->out; e; e = e->next_out)
                if (e->to->group != g && e->to != node)
                    merge_edge(node, e->to, e);
            for (struct lo_edge *e = n->in; e; e = e->next_in)
                if (e->from->group != g && e->from != node)
                    merge_edge(e->from, node, e);
            lo_remove_node(n);
        }
    }
    __atomic_store_n(&grp->wide, 1, __ATOMIC_RELEASE);
}

void lo_widen_groups(void)
{
    lo_widen_pending = 0;
    rt_sleeplock_searching(&lo_graph_lock);
    for (unsigned i = 0; i < RT_LOCK_GROUPS; i++)
        if (rt_lock_groups[i].widen_pending) {
            rt_lock_groups[i].widen_pending = 0;
            widen_group(i + 1);
        }
}

