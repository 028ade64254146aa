/* The lock-order graph's cycle search (lockorder.c learns the edges): from
 * the new edge's target, depth first, for a path back to its source that
 * closes a cycle which can deadlock. Graph lock held. */
#include "hang/hang.h"
#include "order/lockorder_internal.h"
#include "report/report.h"
#include <string.h>

static uint32_t epoch;

static int edge_has_gate(const struct lo_edge *e, uint64_t gate)
{
    for (unsigned i = 0; i < e->ngates; i++)
        if (e->gates[i] == gate)
            return 1;
    return 0;
}

/* The search for a path to -> ... -> from that, with the new edge
 * from -> to, closes a cycle that can deadlock:
 *  - strong: no lock is entered by a recursive read and then left while
 *    held for reading (lockdep's rule for recursive read locks);
 *  - not gated: for each candidate gate (a lock the new edge's thread took
 *    before from), some edge of the cycle was learned without it. */
struct frame { struct lo_node *node; unsigned state; struct lo_edge *next; struct lo_edge *via; };
static struct frame *search_stack;
static unsigned search_cap;

static unsigned gate_bits(const struct lo_edge *e, const uint64_t *gates, unsigned ngates)
{
    unsigned broken = 0;
    for (unsigned g = 0; g < ngates; g++)
        if (!edge_has_gate(e, gates[g]))
            broken |= 1u << g;
    return broken;
}

static int push_frame(unsigned *depth, struct lo_node *n, unsigned state, struct lo_edge *via)
{
    if (*depth == search_cap) {
        unsigned cap = search_cap ? search_cap * 2 : 1024;
        struct frame *bigger = rt_zalloc(cap * sizeof *bigger);
        if (!bigger)
            return -1;
        if (search_stack)
            memcpy(bigger, search_stack, search_cap * sizeof *bigger);
        search_stack = bigger;
        search_cap = cap;
    }
    search_stack[*depth] = (struct frame){ n, state, n->out, via };
    (*depth)++;
    n->visited[state] = epoch;
    return 0;
}

/* The path search_stack[1..depth-1] then last, closed by an edge made by
 * closing's threads, closer's now: can distinct threads, alive at once,
 * cover it? */
static int path_feasible(unsigned depth, const struct lo_edge *last, const struct rt_threadset *closing, int closer)
{
    if (rt_opt.lock_order_rule == RT_RULE_LOCKDEP || depth + 1 > RT_FEASIBLE_MAX)
        return 1;
    const struct rt_threadset *sets[RT_FEASIBLE_MAX];
    unsigned n = 0;
    for (unsigned i = 1; i < depth; i++)
        sets[n++] = &search_stack[i].via->threads;
    sets[n++] = &last->threads;
    sets[n++] = closing;
    return rt_cycle_feasible(sets, n, closer, rt_thread_ends_any_joined() ? rt_thread_ended_before : NULL);
}

/* The first cycle a search found that distinct threads cannot cover. */
struct cycle_copy lo_latent_found;
unsigned lo_latent_len;

/* Returns the number of edges in the found path (kept in search_stack[1..]).
 * A path that closes a cycle no set of distinct threads covers is not
 * returned: the search goes on, and the first such path is kept in
 * lo_latent_found (lo_latent_len edges). */
unsigned lo_find_cycle(struct lo_node *from, struct lo_node *to, int new_src_read, int new_dst_recursive,
                           const uint64_t *gates, unsigned ngates, const struct rt_threadset *closing, int closer)
{
    unsigned all = (1u << ngates) - 1, depth = 0;
    rt_sleeplock_searching(&lo_graph_lock);
    epoch++;
    lo_latent_len = 0;
    unsigned start = (new_dst_recursive ? 1u : 0u) | (0u << 1);
    if (push_frame(&depth, to, start, NULL) < 0)
        return 0;
    while (depth > 0) {
        struct frame *f = &search_stack[depth - 1];
        struct lo_edge *e = f->next;
        if (!e) {
            depth--;
            continue;
        }
        f->next = e->next_out;
        int arrived_recursive = f->state & 1;
        if (arrived_recursive && e->src_read)
            continue; /* R then S: a reader re-entering cannot deadlock here */
        unsigned broken = (f->state >> 1) | gate_bits(e, gates, ngates);
        unsigned state = (e->dst_recursive ? 1u : 0u) | (broken << 1);
        if (e->to == from) {
            if (e->dst_recursive && new_src_read)
                continue;
            if ((broken & all) == all) {
                int feasible = path_feasible(depth, e, closing, closer);
                if (!feasible && lo_latent_len)
                    continue;
                if (push_frame(&depth, e->to, state, e) < 0)
                    return 0;
                if (feasible)
                    return depth - 1;
                lo_latent_len = depth - 1;
                lo_copy_cycle(&lo_latent_found, lo_latent_len);
                depth--;
            }
            continue;
        }
        if (e->to->visited[state] == epoch)
            continue;
        if (push_frame(&depth, e->to, state, e) < 0)
            return 0;
    }
    return 0;
}

void lo_copy_cycle(struct cycle_copy *c, unsigned len)
{
    c->n = len < MAX_CYCLE ? len : MAX_CYCLE;
    for (unsigned i = 0; i < c->n; i++) {
        struct lo_edge *e = search_stack[i + 1].via;
        c->e[i].from_addr = e->from->addr;
        c->e[i].to_addr = e->to->addr;
        c->e[i].from_lock = e->from->lock;
        c->e[i].to_lock = e->to->lock;
        c->e[i].from_id = e->from->lock_id;
        c->e[i].to_id = e->to->lock_id;
        c->e[i].stack = e->stack;
        c->e[i].from_stack = e->from_stack;
        c->e[i].tid = e->tid;
        c->e[i].threads = e->threads;
        c->e[i].from_key = e->from->key;
        c->e[i].to_key = e->to->key;
    }
}
