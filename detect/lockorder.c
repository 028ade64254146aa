/* The lock-order graph. Complexity: a chain (held-lock sequence) seen
 * before costs one lock-free hash probe; a new chain adds one edge (from
 * the most recent held lock, plus trylocked ones above it). The graph keeps
 * an incremental topological order of its edges (graphorder.h): a new edge
 * that agrees with it cannot close any cycle, and costs one comparison. Only
 * an edge that closes a cycle of locks at all (whatever gates and read modes
 * say), or any edge once such a cycle exists, runs the depth-first search for
 * a cycle that can deadlock, bounded by the part of the graph reachable from
 * the new lock (nodes x 16 states). */
#include "lockorder.h"
#include "engine.h"
#include "graphorder.h"
#include "lockdesc.h"
#include "report.h"
#include "rt_alloc.h"
#include "rt_common.h"
#include "runtime.h"
#include "unwind.h"
#include "watchdog.h"
#include <string.h>

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
    int tid;
};

#define NODE_BUCKETS (1u << 16)
#define EDGE_BUCKETS (1u << 16)
#define CHAIN_SLOTS (1u << 17)
#define CHAIN_PROBES 8

static rt_spin_t graph_lock = RT_SPIN_INIT;
static struct lo_node **node_buckets;
static struct lo_edge **edge_buckets;
static _Atomic uint64_t *chains;
static unsigned long node_count, edge_count;
static struct rt_pool node_pool = RT_POOL_INIT(struct lo_node), edge_pool = RT_POOL_INIT(struct lo_edge);
static uint32_t epoch;
/* The topological order, and the edges left out of it because they close a
 * cycle of locks (deadlock or not): while there are none, an edge in the
 * order is on no cycle at all. */
static struct go_graph order;
static unsigned long edges_out_of_order;
/* Nodes of destroyed or freed locks, removed by the next holder of the
 * graph lock: forgetting a lock never waits for that lock. */
static struct lo_node *_Atomic doomed_nodes;
static _Atomic unsigned doomed_count;
#define DOOMED_DRAIN 256
static void drain_doomed(void);

int rt_lockorder_chain_known(uint64_t chain)
{
    _Atomic uint64_t *table = __atomic_load_n(&chains, __ATOMIC_ACQUIRE);
    if (!table)
        return 0;
    if (chain == 0)
        chain = 1;
    for (unsigned i = 0; i < CHAIN_PROBES; i++) {
        uint64_t v = __atomic_load_n(&table[(chain + i) & (CHAIN_SLOTS - 1)], __ATOMIC_ACQUIRE);
        if (v == chain)
            return 1;
        if (v == 0)
            return 0;
    }
    return 0;
}

/* A cache, not a record: when the chain's probe window is full (many
 * distinct sequences, or sequences of locks long destroyed), one of its
 * slots is overwritten. A chain that drops out is validated again when
 * next seen (slower, never wrong). Slots never empty again, so a lookup
 * may still stop at the first empty one. */
static void remember_chain(uint64_t chain)
{
    if (chain == 0)
        chain = 1;
    for (unsigned i = 0; i < CHAIN_PROBES; i++) {
        _Atomic uint64_t *slot = &chains[(chain + i) & (CHAIN_SLOTS - 1)];
        uint64_t expected = 0;
        if (__atomic_compare_exchange_n(slot, &expected, chain, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            return;
        }
        if (expected == chain)
            return;
    }
    __atomic_store_n(&chains[(chain + (chain >> 40) % CHAIN_PROBES) & (CHAIN_SLOTS - 1)], chain, __ATOMIC_RELEASE);
}

static int ensure_tables(void)
{
    if (chains)
        return 0;
    node_buckets = rt_zalloc(NODE_BUCKETS * sizeof *node_buckets);
    edge_buckets = rt_zalloc(EDGE_BUCKETS * sizeof *edge_buckets);
    _Atomic uint64_t *c = rt_zalloc(CHAIN_SLOTS * sizeof *c);
    if (!node_buckets || !edge_buckets || !c) {
        rt_out_of_memory("the lock-order graph");
        return -1;
    }
    __atomic_store_n(&chains, c, __ATOMIC_RELEASE);
    return 0;
}

static uint64_t node_key(const struct rt_lock *l)
{
    if (rt_opt.lock_classes == RT_CLASSES_SITE)
        return rt_hash64(l->class_key * 31 + l->next_subclass) | 1;
    return __atomic_load_n(&l->id, __ATOMIC_RELAXED) << 1;
}

static struct lo_node *get_node(const struct rt_lock *l, uintptr_t addr)
{
    uint64_t key = node_key(l);
    unsigned b = (unsigned)(rt_hash64(key) & (NODE_BUCKETS - 1));
    for (struct lo_node *n = node_buckets[b]; n; n = n->hash_next)
        if (n->key == key)
            return n;
    struct lo_node *n = rt_pool_get(&node_pool);
    if (!n) {
        rt_out_of_memory("lock-order graph nodes");
        return NULL;
    }
    n->key = key;
    n->addr = addr;
    n->lock = (struct rt_lock *)l;
    n->lock_id = __atomic_load_n(&l->id, __ATOMIC_RELAXED);
    n->init_stack = l->init_stack;
    go_node_init(&order, &n->order);
    n->hash_next = node_buckets[b];
    __atomic_store_n(&node_buckets[b], n, __ATOMIC_RELEASE); /* found without the graph lock */
    node_count++;
    return n;
}

static struct lo_edge *find_edge(const struct lo_node *from, const struct lo_node *to)
{
    unsigned b = (unsigned)(rt_hash64((uintptr_t)from ^ ((uintptr_t)to << 1)) & (EDGE_BUCKETS - 1));
    for (struct lo_edge *e = edge_buckets[b]; e; e = e->hash_next)
        if (e->from == from && e->to == to)
            return e;
    return NULL;
}

/* Published with an odd version: the caller fills it in and calls edge_done. */
static struct lo_edge *add_edge(struct lo_node *from, struct lo_node *to)
{
    struct lo_edge *e = rt_pool_get(&edge_pool);
    if (!e) {
        rt_out_of_memory("lock-order graph edges");
        return NULL;
    }
    unsigned b = (unsigned)(rt_hash64((uintptr_t)from ^ ((uintptr_t)to << 1)) & (EDGE_BUCKETS - 1));
    e->from = from;
    e->to = to;
    e->version = 1;
    e->hash_next = edge_buckets[b];
    __atomic_store_n(&edge_buckets[b], e, __ATOMIC_RELEASE);
    e->next_out = from->out;
    from->out = e;
    e->next_in = to->in;
    to->in = e;
    edge_count++;
    return e;
}

/* Removes e from every list and returns it to the pool (graph lock held). */
static void drop_edge(struct lo_edge *e)
{
    unsigned b = (unsigned)(rt_hash64((uintptr_t)e->from ^ ((uintptr_t)e->to << 1)) & (EDGE_BUCKETS - 1));
    for (struct lo_edge **p = &edge_buckets[b]; *p; p = &(*p)->hash_next)
        if (*p == e) {
            __atomic_store_n(p, e->hash_next, __ATOMIC_RELEASE);
            break;
        }
    for (struct lo_edge **p = &e->from->out; *p; p = &(*p)->next_out)
        if (*p == e) {
            *p = e->next_out;
            break;
        }
    for (struct lo_edge **p = &e->to->in; *p; p = &(*p)->next_in)
        if (*p == e) {
            *p = e->next_in;
            break;
        }
    if (e->in_order)
        go_remove_edge(&order, &e->from->order, &e->to->order);
    else
        edges_out_of_order--;
    __atomic_fetch_add(&e->version, 1, __ATOMIC_RELAXED); /* odd: readers that matched it give up */
    __atomic_store_n(&e->from, NULL, __ATOMIC_RELEASE);
    __atomic_store_n(&e->to, NULL, __ATOMIC_RELEASE);
    edge_count--;
    rt_pool_put(&edge_pool, e);
}

/* An edge's fields change between edge_begin and edge_done (graph lock held). */
static void edge_begin(struct lo_edge *e)
{
    __atomic_fetch_add(&e->version, 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
}

static void edge_done(struct lo_edge *e)
{
    __atomic_fetch_add(&e->version, 1, __ATOMIC_RELEASE);
}

/* Lookups without the graph lock: nodes and edges are only ever added, at
 * the head of their bucket, fully made (edges: under an odd version). */
static struct lo_node *find_node_published(const struct rt_lock *l)
{
    uint64_t key = node_key(l);
    unsigned b = (unsigned)(rt_hash64(key) & (NODE_BUCKETS - 1));
    for (struct lo_node *n = __atomic_load_n(&node_buckets[b], __ATOMIC_ACQUIRE); n; n = n->hash_next)
        if (n->key == key)
            return n;
    return NULL;
}

static struct lo_edge *find_edge_published(const struct lo_node *from, const struct lo_node *to)
{
    unsigned b = (unsigned)(rt_hash64((uintptr_t)from ^ ((uintptr_t)to << 1)) & (EDGE_BUCKETS - 1));
    for (struct lo_edge *e = __atomic_load_n(&edge_buckets[b], __ATOMIC_ACQUIRE); e; e = e->hash_next)
        if (e->from == from && e->to == to)
            return e;
    return NULL;
}

/* Gate sets shrink to what every observation of the edge had in common. */
static void intersect_gates(struct lo_edge *e, const uint64_t *gates, unsigned ngates)
{
    unsigned kept = 0;
    for (unsigned i = 0; i < e->ngates; i++)
        for (unsigned j = 0; j < ngates; j++)
            if (e->gates[i] == gates[j]) {
                e->gates[kept++] = e->gates[i];
                break;
            }
    e->ngates = (uint8_t)kept;
}

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

/* Returns the number of edges in the found path (kept in search_stack[1..]). */
static unsigned find_cycle(struct lo_node *from, struct lo_node *to, int new_src_read, int new_dst_recursive,
                           const uint64_t *gates, unsigned ngates)
{
    unsigned all = (1u << ngates) - 1, depth = 0;
    epoch++;
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
                if (push_frame(&depth, e->to, state, e) < 0)
                    return 0;
                return depth - 1;
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

/* Everything a report needs, copied out so it is written without the graph lock. */
#define MAX_CYCLE 16
struct cycle_copy {
    unsigned n;
    struct { uintptr_t from_addr, to_addr; struct rt_lock *from_lock, *to_lock; uint64_t from_id, to_id;
             rt_stack_id stack, from_stack; int tid; uint64_t from_key, to_key; } e[MAX_CYCLE];
};

static void copy_cycle(struct cycle_copy *c, unsigned len)
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
        c->e[i].from_key = e->from->key;
        c->e[i].to_key = e->to->key;
    }
}

/* A node's lock record is only trusted for naming while it is the same lock. */
static const struct rt_lock *live(const struct rt_lock *l, uint64_t id)
{
    return l && __atomic_load_n(&l->id, __ATOMIC_RELAXED) == id ? l : NULL;
}

/* One line of the "possible unsafe locking scenario": lock(name), or
 * rcu_read_lock() / synchronize_rcu() for the RCU pseudo-locks. */
static void scenario(struct rt_report *r, const char *indent, const struct rt_lock *l, int read, const char *name)
{
    if (l && l->rcu_pseudo)
        rt_report_text(r, "%s%s();", indent, rt_lock_op(l, read));
    else
        rt_report_text(r, "%s%s(%s);", indent, rt_lock_op(l, read), name);
}

/* The cycle is happening now: say who is blocked where, and tell the
 * watchdog, whose report of the same waits then refers to this one. */
static void report_happening(struct rt_report *r, struct rt_thread *t, struct rt_lock *lock,
                             struct rt_live_wait *w, unsigned n, const char *cycle)
{
    rt_report_text(r, "This deadlock is happening now: the other threads of the cycle are already blocked on its "
                      "locks:");
    for (unsigned i = 1; i <= n; i++) {
        char comm[32], holds[160], waits[160];
        rt_thread_comm(w[i].tid, comm, sizeof comm);
        rt_lock_name(live(w[i].holds, w[i].holds_id), w[i].holds->addr, holds, sizeof holds);
        rt_lock_name(live(w[i].waits, w[i].waits_id), w[i].waits->addr, waits, sizeof waits);
        rt_report_stack(r, w[i].stack, "%s/%d holds %s and is blocked waiting for %s, at:", comm, w[i].tid,
                        holds, waits);
    }
    w[0].t = t;
    w[0].tid = t->tid;
    w[0].waits = lock;
    w[0].waits_id = __atomic_load_n(&lock->id, __ATOMIC_RELAXED);
    w[0].seq = __atomic_load_n(&t->wait_seq, __ATOMIC_RELAXED);
    rt_watchdog_note_now(w, n + 1, cycle);
}

static void report_cycle(struct rt_thread *t, struct rt_lock *lock, unsigned flags, const struct rt_held *h,
                         const struct cycle_copy *c)
{
    char comm[32], desc[512], name_new[160], name_held[160], name[160];
    /* live[0] is this thread; the others from 1. */
    struct rt_live_wait live_waits[MAX_CYCLE + 1];
    unsigned nlive = rt_watchdog_cycle_now(t, lock, flags, live_waits + 1, MAX_CYCLE);
    uintptr_t addr = __atomic_load_n(&lock->addr, __ATOMIC_RELAXED);
    rt_thread_comm(t->tid, comm, sizeof comm);
    rt_lock_name(lock, addr, name_new, sizeof name_new);
    rt_lock_name(h->lock, h->addr, name_held, sizeof name_held);
    /* The cycle as one line: the new lock, then the existing chain back to the held one. */
    char line[1024];
    struct rt_buf b;
    rt_buf_init(&b, line, sizeof line);
    rt_buf_printf(&b, "cycle: %s -> %s", name_held, name_new);
    for (unsigned i = 0; i < c->n; i++) {
        rt_lock_name(live(c->e[i].to_lock, c->e[i].to_id), c->e[i].to_addr, name, sizeof name);
        rt_buf_printf(&b, " -> %s", name);
    }
    struct rt_report *r = rt_report_begin(RT_KIND_LOCK_ORDER_INVERSION, t->tid);
    if (!r)
        return;
    rt_report_headline(r, "WARNING: possible circular locking dependency detected");
    rt_lock_describe(lock, addr, desc, sizeof desc);
    if (lock->rcu_pseudo && !(flags & RT_ACQ_READ))
        rt_report_stack(r, rt_stack_capture((unsigned)rt_opt.stack_depth), "%s/%d calls %s(), which waits for %s, at:",
                        comm, t->tid, rt_lock_op(lock, 0), desc);
    else
        rt_report_stack(r, rt_stack_capture((unsigned)rt_opt.stack_depth), "%s/%d is trying to %s lock %s, at:", comm,
                        t->tid, (flags & RT_ACQ_READ) ? "read-acquire" : "acquire", desc);
    rt_lock_describe(h->lock, h->addr, desc, sizeof desc);
    rt_report_stack(r, h->stack, "but the thread already holds lock %s%s, taken at:", desc,
                    h->mode == RT_HOLD_READ ? " (for reading)" : "");
    rt_report_text(r, "which lock already depends on the new lock.");
    if (nlive)
        report_happening(r, t, lock, live_waits, nlive, line);
    rt_report_text(r, "The existing dependency chain (in reverse order) is:");
    for (unsigned i = c->n; i-- > 0;) {
        char from[160], to[160], who[32];
        rt_lock_name(live(c->e[i].from_lock, c->e[i].from_id), c->e[i].from_addr, from, sizeof from);
        rt_lock_name(live(c->e[i].to_lock, c->e[i].to_id), c->e[i].to_addr, to, sizeof to);
        rt_thread_comm(c->e[i].tid, who, sizeof who);
        rt_report_stack(r, c->e[i].stack, "-> #%u (%s): taken while holding %s, by thread %d, at:", i + 1, to, from,
                        c->e[i].tid);
        if (c->e[i].from_stack)
            rt_report_stack(r, c->e[i].from_stack, "   where %s had been taken at:", from);
    }
    rt_report_text(r, "%s", line);
    /* The thread that learned the last edge of the chain took held after parent. */
    char parent[160];
    const unsigned last = c->n - 1;
    rt_lock_name(live(c->e[last].from_lock, c->e[last].from_id), c->e[last].from_addr, parent, sizeof parent);
    rt_report_text(r, "Possible unsafe locking scenario:");
    rt_report_text(r, "       thread 0                    thread 1");
    rt_report_text(r, "       --------                    --------");
    const struct rt_lock *parent_lock = live(c->e[last].from_lock, c->e[last].from_id);
    scenario(r, "  ", h->lock, h->mode == RT_HOLD_READ, name_held);
    scenario(r, "                                   ", parent_lock, parent_lock && parent_lock->rcu_pseudo, parent);
    scenario(r, "                                   ", h->lock, 0, name_held);
    scenario(r, "  ", lock, (flags & RT_ACQ_READ) != 0, name_new);
    rt_report_text(r, " *** DEADLOCK ***");
    if (c->n > 1)
        rt_report_text(r, "(thread 1 stands for the %u threads that took the chain %s -> ... -> %s)", c->n, name_new,
                       parent);
    rt_report_held_locks(r, t, comm);
    /* Each distinct cycle once per process, whichever edge closes it. */
    uint64_t key = 0;
    for (unsigned i = 0; i < c->n; i++)
        key += rt_hash64(c->e[i].from_key * 3 + c->e[i].to_key);
    rt_report_key(r, key);
    rt_report_finish(r);
}

/* New edges learned at the same call site, under a lock taken at the same
 * place (a lock per object, created and destroyed by the thousand), share
 * the stack captured for the first: one unwind per site pair, not per
 * edge. Lossy: one word per slot, the key's upper half beside the stack. */
#define EDGE_STACK_SLOTS 4096
static _Atomic uint64_t edge_stacks[EDGE_STACK_SLOTS];

static uint64_t edge_stack_key(uintptr_t pc, rt_stack_id from_stack)
{
    return rt_hash64((uint64_t)pc * 31 + from_stack);
}

static rt_stack_id edge_stack_cached(uintptr_t pc, rt_stack_id from_stack)
{
    uint64_t k = edge_stack_key(pc, from_stack);
    uint64_t v = __atomic_load_n(&edge_stacks[k & (EDGE_STACK_SLOTS - 1)], __ATOMIC_RELAXED);
    return pc && (v >> 32) == (k >> 32) ? (rt_stack_id)v : 0;
}

static void edge_stack_remember(uintptr_t pc, rt_stack_id from_stack, rt_stack_id stack)
{
    uint64_t k = edge_stack_key(pc, from_stack);
    if (pc && stack)
        __atomic_store_n(&edge_stacks[k & (EDGE_STACK_SLOTS - 1)], (k >> 32) << 32 | stack, __ATOMIC_RELAXED);
}

/* Gates: the locks the thread took before held[i] (outermost first). */
static unsigned gates_below(const struct rt_thread *t, unsigned i, uint64_t *gates)
{
    unsigned ngates = 0;
    for (unsigned g = 0; g < i && ngates < MAX_GATES; g++)
        if (rt_held_live(&t->held[g]) && !t->held[g].lock->no_order)
            gates[ngates++] = node_key(t->held[g].lock);
    return ngates;
}

/* The common case, without the graph lock: the edge from the most recent
 * held lock is known, and this observation would change nothing in it (no
 * gate it lacks, no stronger mode). Read under the edge's version. */
static int known_and_unchanged(const struct rt_thread *t, const struct rt_lock *lock, int dst_recursive)
{
    if (!__atomic_load_n(&chains, __ATOMIC_ACQUIRE) || t->nheld == 0)
        return 0;
    const struct rt_held *h = &t->held[t->nheld - 1];
    if (h->trylock || !rt_held_live(h) || h->lock->no_order || h->lock == lock)
        return 0;
    struct lo_node *from = find_node_published(h->lock), *to = find_node_published(lock);
    if (!from || !to || from == to)
        return 0;
    struct lo_edge *e = find_edge_published(from, to);
    if (!e)
        return 0;
    uint32_t v = __atomic_load_n(&e->version, __ATOMIC_ACQUIRE);
    if (v & 1)
        return 0;
    int unchanged = !(h->mode != RT_HOLD_READ && e->src_read) && !(!dst_recursive && e->dst_recursive);
    if (unchanged && e->ngates) {
        uint64_t gates[MAX_GATES];
        unsigned ngates = gates_below(t, t->nheld - 1, gates), n = e->ngates < MAX_GATES ? e->ngates : MAX_GATES;
        for (unsigned i = 0; i < n && unchanged; i++) {
            int have = 0;
            for (unsigned j = 0; j < ngates; j++)
                have |= e->gates[i] == gates[j];
            unchanged = have;
        }
    }
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    return unchanged && __atomic_load_n(&e->version, __ATOMIC_RELAXED) == v;
}

void rt_lockorder_check(struct rt_thread *t, struct rt_lock *lock, unsigned flags, uint64_t chain, uintptr_t pc)
{
    struct cycle_copy found;
    const struct rt_held *culprit = NULL;
    uintptr_t addr = __atomic_load_n(&lock->addr, __ATOMIC_RELAXED);
    int dst_recursive = (flags & RT_ACQ_READ) && lock->type == RT_LOCK_RWLOCK && !lock->writer_preferring;
    rt_stack_id stack = 0;

    if (known_and_unchanged(t, lock, dst_recursive)) {
        remember_chain(chain);
        return;
    }
    rt_spin_lock(&graph_lock);
    if (ensure_tables() < 0) {
        rt_spin_unlock(&graph_lock);
        return;
    }
    drain_doomed();
    struct lo_node *to = get_node(lock, addr);
    /* As lockdep: an edge from the most recent lock held (and from any
     * trylocked ones above it); edges from older held locks follow by
     * transitivity, so the graph stays linear in the locking done. */
    for (unsigned i = t->nheld; to && i-- > 0;) {
        const struct rt_held *h = &t->held[i];
        /* A lock freed or destroyed while held is gone: its record may
         * already describe another lock. */
        if (!rt_held_live(h) || h->lock->no_order || h->lock == lock)
            continue;
        struct lo_node *from = get_node(h->lock, h->addr);
        if (!from || from == to)
            continue;
        uint64_t gates[MAX_GATES];
        unsigned ngates = gates_below(t, i, gates);
        struct lo_edge *e = find_edge(from, to);
        if (e) {
            /* Seen again in a new context: the edge can only get stronger
             * (fewer gates, exclusive where it was shared). If it did, the
             * cycles through it must be looked for again. */
            unsigned old_gates = e->ngates;
            int stronger = (h->mode != RT_HOLD_READ && e->src_read) || (!dst_recursive && e->dst_recursive);
            edge_begin(e);
            intersect_gates(e, gates, ngates);
            if (h->mode != RT_HOLD_READ)
                e->src_read = 0;
            if (!dst_recursive)
                e->dst_recursive = 0;
            edge_done(e);
            if ((stronger || e->ngates < old_gates) && !culprit && (!e->in_order || edges_out_of_order)) {
                unsigned len = find_cycle(from, to, e->src_read, e->dst_recursive, e->gates, e->ngates);
                if (len) {
                    copy_cycle(&found, len);
                    culprit = h;
                }
            }
            if (!h->trylock)
                break;
            continue;
        }
        if (!stack && !(stack = edge_stack_cached(pc, h->stack))) {
            rt_spin_unlock(&graph_lock); /* capturing a stack takes libunwind's locks */
            stack = rt_stack_capture((unsigned)rt_opt.stack_depth);
            edge_stack_remember(pc, h->stack, stack);
            rt_spin_lock(&graph_lock);
            if (find_edge(from, to))
                break; /* another thread added it meanwhile */
        }
        /* The search and the insertion happen under one hold of the graph
         * lock: two threads closing the same cycle at once see each other. */
        int ordered = go_add_edge(&order, &from->order, &to->order) == 0;
        if (!ordered)
            edges_out_of_order++;
        if (!culprit && (!ordered || edges_out_of_order)) {
            unsigned len = find_cycle(from, to, h->mode == RT_HOLD_READ, dst_recursive, gates, ngates);
            if (len) {
                copy_cycle(&found, len);
                culprit = h;
            }
        }
        e = add_edge(from, to);
        if (!e)
            break;
        e->in_order = (uint8_t)ordered;
        e->src_read = h->mode == RT_HOLD_READ;
        e->dst_recursive = (uint8_t)dst_recursive;
        e->ngates = (uint8_t)ngates;
        memcpy(e->gates, gates, ngates * sizeof gates[0]);
        e->stack = stack;
        e->from_stack = h->stack;
        e->tid = t->tid;
        edge_done(e);
        if (!h->trylock)
            break;
    }
    rt_spin_unlock(&graph_lock);
    remember_chain(chain);
    if (culprit)
        report_cycle(t, lock, flags, culprit, &found);
}

/* A lock that is destroyed or freed can never be taken again (a new lock at
 * its address is a new lock): in instance mode its node and every edge into
 * or out of it go, as lockdep zaps a freed class, so churn does not grow the
 * graph. A cycle that needed it could only recur through another lock,
 * whose edges are learned when it is taken. Classes (site mode) stay. */
void rt_lockorder_forget(const struct rt_lock *l)
{
    if (rt_opt.lock_classes == RT_CLASSES_SITE || !__atomic_load_n(&chains, __ATOMIC_ACQUIRE))
        return;
    struct lo_node *n = find_node_published(l);
    if (!n)
        return; /* never ordered against another lock: the common case */
    uint8_t no = 0;
    if (!__atomic_compare_exchange_n(&n->doomed, &no, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
        return;
    struct lo_node *head = __atomic_load_n(&doomed_nodes, __ATOMIC_RELAXED);
    do
        n->doomed_next = head;
    while (!__atomic_compare_exchange_n(&doomed_nodes, &head, n, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
    /* Programs that destroy locks and learn no new order for a long time
     * still give the memory back. */
    if (__atomic_add_fetch(&doomed_count, 1, __ATOMIC_RELAXED) >= DOOMED_DRAIN && rt_spin_trylock(&graph_lock)) {
        drain_doomed();
        rt_spin_unlock(&graph_lock);
    }
}

/* Graph lock held. */
static void drain_doomed(void)
{
    struct lo_node *n = __atomic_exchange_n(&doomed_nodes, NULL, __ATOMIC_ACQUIRE);
    for (struct lo_node *next; n; n = next) {
        next = n->doomed_next;
        __atomic_fetch_sub(&doomed_count, 1, __ATOMIC_RELAXED);
        unsigned b = (unsigned)(rt_hash64(n->key) & (NODE_BUCKETS - 1));
        for (struct lo_node **p = &node_buckets[b]; *p; p = &(*p)->hash_next) {
            if (*p != n)
                continue;
            __atomic_store_n(p, n->hash_next, __ATOMIC_RELEASE);
            break;
        }
        while (n->out)
            drop_edge(n->out);
        while (n->in)
            drop_edge(n->in);
        __atomic_store_n(&n->key, 0, __ATOMIC_RELEASE);
        node_count--;
        rt_pool_put(&node_pool, n);
    }
}

static void settle(void)
{
    if (!__atomic_load_n(&doomed_nodes, __ATOMIC_ACQUIRE))
        return;
    rt_spin_lock(&graph_lock);
    drain_doomed();
    rt_spin_unlock(&graph_lock);
}

unsigned long rt_lockorder_nodes(void)
{
    settle();
    return node_count;
}

unsigned long rt_lockorder_edges(void)
{
    settle();
    return edge_count;
}

void rt_lockorder_after_fork(void)
{
    rt_spin_reinit(&graph_lock);
}
