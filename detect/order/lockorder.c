/* The lock-order graph. Complexity: a chain (held-lock sequence) seen
 * before costs one lock-free hash probe; a new chain adds one edge (from
 * the most recent held lock, plus trylocked ones above it). The graph keeps
 * an incremental topological order of its edges (graphorder.h): a new edge
 * that agrees with it cannot close any cycle, and costs one comparison. Only
 * an edge that closes a cycle of locks at all (whatever gates and read modes
 * say), or any edge once such a cycle exists, runs the depth-first search for
 * a cycle that can deadlock, bounded by the part of the graph reachable from
 * the new lock (nodes x 16 states). */
#include "order/order.h"
#include "locks/locks.h"
#include "order/graphorder.h"
#include "report/report.h"
#include "core/core.h"
#include "hang/hang.h"
#include "order/feasible.h"
#include "order/lockorder_internal.h"
#include <string.h>

#define CHAIN_SLOTS (1u << 17)
#define CHAIN_PROBES 8

rt_sleeplock_t lo_graph_lock = RT_SLEEPLOCK_INIT;
struct lo_node **lo_node_buckets;
static struct lo_edge **edge_buckets;
static _Atomic uint64_t *chains;
static unsigned long node_count, edge_count;
static struct rt_pool node_pool = RT_POOL_INIT(struct lo_node), edge_pool = RT_POOL_INIT(struct lo_edge);
/* The topological order, and the edges left out of it because they close a
 * cycle of locks (deadlock or not): while there are none, an edge in the
 * order is on no cycle at all. */
struct go_graph lo_order;
unsigned long lo_edges_out_of_order;
/* Nodes of destroyed or freed locks, removed by the next holder of the
 * graph lock: forgetting a lock never waits for that lock. */
static struct lo_node *_Atomic doomed_nodes;
static _Atomic unsigned doomed_count;
#define DOOMED_DRAIN 256
static void drain_doomed(void);
/* Some group has members enough in the graph to become one node. */
int lo_widen_pending;
void lo_remove_node(struct lo_node *n);

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
    lo_node_buckets = rt_zalloc(NODE_BUCKETS * sizeof *lo_node_buckets);
    edge_buckets = rt_zalloc(EDGE_BUCKETS * sizeof *edge_buckets);
    _Atomic uint64_t *c = rt_zalloc(CHAIN_SLOTS * sizeof *c);
    if (!lo_node_buckets || !edge_buckets || !c) {
        rt_out_of_memory("the lock-order graph");
        return -1;
    }
    __atomic_store_n(&chains, c, __ATOMIC_RELEASE);
    return 0;
}

/* Instance mode: a lock's id, or its group's key while the group holds
 * (lockgroup.h); site mode: its class. */
static uint64_t node_key(const struct rt_lock *l)
{
    if (rt_opt.lock_classes == RT_CLASSES_SITE)
        return rt_hash64(l->class_key * 31 + l->next_subclass) | 1;
    return rt_lock_order_id(l);
}

/* Gates are locks, not groups: two members of one group held by two
 * threads do not keep them apart. */
static uint64_t gate_key(const struct rt_lock *l)
{
    if (rt_opt.lock_classes == RT_CLASSES_SITE)
        return node_key(l);
    return __atomic_load_n(&l->id, __ATOMIC_RELAXED) << 1;
}

/* A lock's own node (an even key: its id; groups' and classes' keys are
 * odd) is made only here, which leaves it in the lock's record: a record
 * without it has none, and finding it walks no hash chain. */
static struct lo_node *own_node(const struct rt_lock *l, uint64_t key)
{
    struct lo_node *n = __atomic_load_n(&l->order_node, __ATOMIC_ACQUIRE);
    return n && __atomic_load_n(&n->key, __ATOMIC_ACQUIRE) == key ? n : NULL;
}

struct lo_node *lo_get_node_keyed(uint64_t key, const struct rt_lock *l, uintptr_t addr, int first)
{
    unsigned b = (unsigned)(rt_hash64(key) & (NODE_BUCKETS - 1));
    int own = !(key & 1);
    if (own) {
        struct lo_node *n = own_node(l, key);
        if (n)
            return n;
    } else {
        for (struct lo_node *n = lo_node_buckets[b]; n; n = n->hash_next)
            if (n->key == key)
                return n;
    }
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
    n->group = 0;
    if (l->group && !(key & 1)) {
        struct rt_lock_group *grp = &rt_lock_groups[l->group - 1];
        if (!__atomic_load_n(&grp->split, __ATOMIC_RELAXED) && !__atomic_load_n(&grp->wide, __ATOMIC_RELAXED)) {
            n->group = l->group;
            if (++grp->nodes >= RT_GROUP_WIDEN && !grp->widen_pending) {
                grp->widen_pending = 1;
                lo_widen_pending = 1;
            }
        }
    }
    (first ? go_node_init_first : go_node_init)(&lo_order, &n->order);
    n->hash_next = lo_node_buckets[b];
    __atomic_store_n(&lo_node_buckets[b], n, __ATOMIC_RELEASE); /* found without the graph lock */
    if (own)
        __atomic_store_n(&((struct rt_lock *)l)->order_node, n, __ATOMIC_RELEASE);
    node_count++;
    return n;
}

/* A new node goes first in the topological order when it is the source of
 * the edge being learned (a held lock), last when it is the target: that
 * edge then agrees with the order and costs no search. */
static struct lo_node *get_node(const struct rt_lock *l, uintptr_t addr, int first)
{
    return lo_get_node_keyed(node_key(l), l, addr, first);
}

struct lo_edge *lo_find_edge(const struct lo_node *from, const struct lo_node *to)
{
    if (!from->out || !to->in)
        return NULL; /* a lock newly in the graph: no need to walk a cold chain */
    unsigned b = (unsigned)(rt_hash64((uintptr_t)from ^ ((uintptr_t)to << 1)) & (EDGE_BUCKETS - 1));
    for (struct lo_edge *e = edge_buckets[b]; e; e = e->hash_next)
        if (e->from == from && e->to == to)
            return e;
    return NULL;
}

/* Published with an odd version: the caller fills it in and calls edge_done. */
struct lo_edge *lo_add_edge(struct lo_node *from, struct lo_node *to)
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
    __atomic_store_n(&from->out, e, __ATOMIC_RELEASE); /* read without the graph lock */
    e->next_in = to->in;
    __atomic_store_n(&to->in, e, __ATOMIC_RELEASE);
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
        go_remove_edge(&lo_order, &e->from->order, &e->to->order);
    else
        lo_edges_out_of_order--;
    __atomic_fetch_add(&e->version, 1, __ATOMIC_RELAXED); /* odd: readers that matched it give up */
    __atomic_store_n(&e->from, NULL, __ATOMIC_RELEASE);
    __atomic_store_n(&e->to, NULL, __ATOMIC_RELEASE);
    edge_count--;
    rt_pool_put(&edge_pool, e);
}

/* An edge's fields change between edge_begin and edge_done (graph lock held). */
void lo_edge_begin(struct lo_edge *e)
{
    __atomic_fetch_add(&e->version, 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
}

void lo_edge_done(struct lo_edge *e)
{
    __atomic_fetch_add(&e->version, 1, __ATOMIC_RELEASE);
}

/* Lookups without the graph lock: nodes and edges are only ever added, at
 * the head of their bucket, fully made (edges: under an odd version). */
static struct lo_node *find_node_published(const struct rt_lock *l)
{
    uint64_t key = node_key(l);
    if (!(key & 1))
        return own_node(l, key);
    unsigned b = (unsigned)(rt_hash64(key) & (NODE_BUCKETS - 1));
    for (struct lo_node *n = __atomic_load_n(&lo_node_buckets[b], __ATOMIC_ACQUIRE); n; n = n->hash_next)
        if (n->key == key)
            return n;
    return NULL;
}

int rt_lockorder_node_lookups_agree(const struct rt_lock *l)
{
    if (!__atomic_load_n(&chains, __ATOMIC_ACQUIRE))
        return 1;
    rt_sleeplock_lock(&lo_graph_lock);
    uint64_t key = node_key(l);
    struct lo_node *in_table = NULL;
    for (struct lo_node *n = lo_node_buckets[rt_hash64(key) & (NODE_BUCKETS - 1)]; n && !in_table; n = n->hash_next)
        if (n->key == key)
            in_table = n;
    int agree = find_node_published(l) == in_table;
    rt_sleeplock_unlock(&lo_graph_lock);
    return agree;
}

static struct lo_edge *find_edge_published(const struct lo_node *from, const struct lo_node *to)
{
    if (!__atomic_load_n(&from->out, __ATOMIC_ACQUIRE) || !__atomic_load_n(&to->in, __ATOMIC_ACQUIRE))
        return NULL;
    unsigned b = (unsigned)(rt_hash64((uintptr_t)from ^ ((uintptr_t)to << 1)) & (EDGE_BUCKETS - 1));
    for (struct lo_edge *e = __atomic_load_n(&edge_buckets[b], __ATOMIC_ACQUIRE); e; e = e->hash_next)
        if (e->from == from && e->to == to)
            return e;
    return NULL;
}

/* Gate sets shrink to what every observation of the edge had in common. */
void lo_intersect_gates(struct lo_edge *e, const uint64_t *gates, unsigned ngates)
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
            gates[ngates++] = gate_key(t->held[g].lock);
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
    if (lo_remnant_key(h->lock) || lo_remnant_key(lock))
        return 0; /* two edges to learn: under the graph lock */
    /* The requested lock first: a lock new to the graph misses here. */
    struct lo_node *to = find_node_published(lock);
    if (!to)
        return 0;
    struct lo_node *from = find_node_published(h->lock);
    if (!from || from == to)
        return 0;
    struct lo_edge *e = find_edge_published(from, to);
    if (!e)
        return 0;
    uint32_t v = __atomic_load_n(&e->version, __ATOMIC_ACQUIRE);
    if (v & 1)
        return 0;
    int unchanged = !(h->mode != RT_HOLD_READ && e->src_read) && !(!dst_recursive && e->dst_recursive) &&
                    rt_threadset_has(&e->threads, t->tid);
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

/* Cycles that distinct threads could not cover when they were found, kept
 * (graph lock held) until one becomes feasible — then it is reported, and
 * resolved here — or the process exits: then each is one INFO report. */
#define LATENT_MAX 64
static struct latent {
    uint64_t key;
    int resolved;
    struct cycle_copy cycle; /* the path, then the closing edge */
} latent[LATENT_MAX];
static unsigned nlatent, latent_dropped; /* beyond LATENT_MAX: counted, said in the last report */

static uint64_t edge_key(const struct lo_node *from, const struct lo_node *to)
{
    return rt_hash64(from->key * 3 + to->key);
}

static struct latent *latent_find(uint64_t key)
{
    for (unsigned i = 0; i < nlatent; i++)
        if (latent[i].key == key)
            return &latent[i];
    return NULL;
}

/* lo_latent_found (lo_latent_len edges, to -> ... -> from), closed by from -> to. */
static void save_latent(const struct lo_node *from, const struct lo_node *to, rt_stack_id stack,
                        rt_stack_id from_stack, int tid, const struct rt_threadset *threads)
{
    uint64_t key = lo_cycle_key(&lo_latent_found) + edge_key(from, to);
    if (latent_find(key))
        return;
    if (nlatent == LATENT_MAX) {
        latent_dropped++;
        return;
    }
    struct latent *l = &latent[nlatent++];
    l->key = key;
    l->resolved = 0;
    l->cycle = lo_latent_found;
    struct cycle_edge *c = &l->cycle.e[l->cycle.n++];
    *c = (struct cycle_edge){ from->addr, to->addr, from->lock, to->lock, from->lock_id, to->lock_id, stack,
                              from_stack, tid, *threads, from->key, to->key };
}

/* One lock-order check: the acquisition, and what it found. */
struct check {
    struct rt_thread *t;
    struct rt_lock *lock;
    uintptr_t pc;
    int dst_recursive;
    rt_stack_id stack;
    struct cycle_copy found;
    uint64_t found_key;
    const struct rt_held *culprit;
};

/* Learns from -> to, made by the thread holding held[i] as it requests the
 * lock (graph lock held; dropped while a stack is captured). Returns 1 when
 * no more edges should be learned for this acquisition. */
static int learn_edge(struct check *c, unsigned i, struct lo_node *from, struct lo_node *to)
{
    struct rt_thread *t = c->t;
    const struct rt_held *h = &t->held[i];
    uint64_t gates[MAX_GATES];
    unsigned ngates = gates_below(t, i, gates);
    struct lo_edge *e = lo_find_edge(from, to);
    if (e) {
        /* Seen again in a new context: the edge can only get stronger
         * (fewer gates, exclusive where it was shared). If it did, the
         * cycles through it must be looked for again. */
        unsigned old_gates = e->ngates;
        int stronger = (h->mode != RT_HOLD_READ && e->src_read) || (!c->dst_recursive && e->dst_recursive);
        lo_edge_begin(e);
        lo_intersect_gates(e, gates, ngates);
        if (h->mode != RT_HOLD_READ)
            e->src_read = 0;
        if (!c->dst_recursive)
            e->dst_recursive = 0;
        /* Another thread makes it: a latent cycle through it may now
         * have threads enough. */
        int new_thread = rt_threadset_add(&e->threads, t->tid);
        lo_edge_done(e);
        if ((stronger || e->ngates < old_gates || new_thread) && !c->culprit && (!e->in_order || lo_edges_out_of_order)) {
            unsigned len = lo_find_cycle(from, to, e->src_read, e->dst_recursive, e->gates, e->ngates, &e->threads, t->tid);
            if (len) {
                lo_copy_cycle(&c->found, len);
                c->found_key = lo_cycle_key(&c->found) + edge_key(from, to);
                c->culprit = h;
            } else if (lo_latent_len) {
                save_latent(from, to, e->stack, e->from_stack, e->tid, &e->threads);
            }
        }
        return 0;
    }
    if (!c->stack && !(c->stack = edge_stack_cached(c->pc, h->stack))) {
        rt_sleeplock_unlock(&lo_graph_lock); /* capturing a stack takes libunwind's locks */
        c->stack = rt_stack_capture((unsigned)rt_opt.stack_depth);
        edge_stack_remember(c->pc, h->stack, c->stack);
        rt_sleeplock_lock(&lo_graph_lock);
        if (lo_find_edge(from, to))
            return 1; /* another thread added it meanwhile */
    }
    /* The search and the insertion happen under one hold of the graph
     * lock: two threads closing the same cycle at once see each other. */
    rt_sleeplock_searching(&lo_graph_lock); /* the order may have to be re-sorted */
    int ordered = go_add_edge(&lo_order, &from->order, &to->order) == 0;
    if (!ordered)
        lo_edges_out_of_order++;
    struct rt_threadset mine = { { t->tid }, 1, 0 };
    if (!c->culprit && (!ordered || lo_edges_out_of_order)) {
        unsigned len = lo_find_cycle(from, to, h->mode == RT_HOLD_READ, c->dst_recursive, gates, ngates, &mine, t->tid);
        if (len) {
            lo_copy_cycle(&c->found, len);
            c->found_key = lo_cycle_key(&c->found) + edge_key(from, to);
            c->culprit = h;
        } else if (lo_latent_len) {
            save_latent(from, to, c->stack, h->stack, t->tid, &mine);
        }
    }
    e = lo_add_edge(from, to);
    if (!e)
        return 1;
    e->in_order = (uint8_t)ordered;
    e->src_read = h->mode == RT_HOLD_READ;
    e->dst_recursive = (uint8_t)c->dst_recursive;
    e->ngates = (uint8_t)ngates;
    memcpy(e->gates, gates, ngates * sizeof gates[0]);
    e->stack = c->stack;
    e->from_stack = h->stack;
    e->tid = t->tid;
    e->threads = mine;
    lo_edge_done(e);
    return 0;
}

void rt_lockorder_check(struct rt_thread *t, struct rt_lock *lock, unsigned flags, uint64_t chain, uintptr_t pc)
{
    rt_held_name(t);
    /* Not zeroed whole: the cycle copy inside is 3 KB, written only when a cycle is found. */
    struct check c;
    c.t = t;
    c.lock = lock;
    c.pc = pc;
    c.stack = 0;
    c.found_key = 0;
    c.culprit = NULL;
    uintptr_t addr = __atomic_load_n(&lock->addr, __ATOMIC_RELAXED);
    c.dst_recursive = (flags & RT_ACQ_READ) && rt_lock_type_rw(lock->type) && !rt_lock_writer_preferring(lock);

    if (known_and_unchanged(t, lock, c.dst_recursive)) {
        remember_chain(chain);
        return;
    }
    rt_sleeplock_lock(&lo_graph_lock);
    if (ensure_tables() < 0) {
        rt_sleeplock_unlock(&lo_graph_lock);
        return;
    }
    drain_doomed();
    if (lo_widen_pending)
        lo_widen_groups();
    struct lo_node *to = get_node(lock, addr, 0);
    uint64_t to_remnant = lo_remnant_key(lock);
    /* As lockdep: an edge from the most recent lock held (and from any
     * trylocked ones above it); edges from older held locks follow by
     * transitivity, so the graph stays linear in the locking done. */
    for (unsigned i = t->nheld; to && i-- > 0;) {
        const struct rt_held *h = &t->held[i];
        /* A lock freed or destroyed while held is gone: its record may
         * already describe another lock. */
        if (!rt_held_live(h) || h->lock->no_order || h->lock == lock)
            continue;
        struct lo_node *from = get_node(h->lock, h->addr, 1);
        if (!from || from == to)
            continue;
        int stop = learn_edge(&c, i, from, to);
        /* A split group's members also make its old node's edges, so that
         * cycles through what it learned before the split are found. */
        uint64_t from_remnant = lo_remnant_key(h->lock);
        if (!stop && (from_remnant || to_remnant)) {
            struct lo_node *f = from_remnant ? lo_get_node_keyed(from_remnant, h->lock, h->addr, 1) : from;
            struct lo_node *d = to_remnant ? lo_get_node_keyed(to_remnant, lock, addr, 0) : to;
            if (f && d && f != d)
                stop = learn_edge(&c, i, f, d);
        }
        if (stop || !h->trylock)
            break;
    }
    if (c.culprit) {
        struct latent *l = latent_find(c.found_key);
        if (l)
            l->resolved = 1; /* reported now, as a deadlock that can happen */
    }
    rt_sleeplock_unlock(&lo_graph_lock);
    remember_chain(chain);
    if (c.culprit)
        lo_report_cycle(t, lock, flags, c.culprit, &c.found, c.found_key);
}

void rt_lockorder_report_latent(void)
{
    static struct cycle_copy shown[LATENT_MAX];
    static _Atomic int done;
    if (__atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL))
        return;
    unsigned n = 0;
    rt_sleeplock_lock(&lo_graph_lock);
    for (unsigned i = 0; i < nlatent; i++)
        if (!latent[i].resolved)
            shown[n++] = latent[i].cycle;
    rt_sleeplock_unlock(&lo_graph_lock);
    for (unsigned i = 0; i < n; i++)
        lo_report_latent(&shown[i], i + 1 == n ? latent_dropped : 0);
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
    if (rt_lock_collapsed_group(l) || rt_lock_type_is_event(l->type))
        return; /* its node is its group's, which the other members share; conditions have none */
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
    if (__atomic_add_fetch(&doomed_count, 1, __ATOMIC_RELAXED) >= DOOMED_DRAIN && rt_sleeplock_trylock(&lo_graph_lock)) {
        drain_doomed();
        rt_sleeplock_unlock(&lo_graph_lock);
    }
}

/* Unlinks n and its edges and gives it back (graph lock held). */
void lo_remove_node(struct lo_node *n)
{
    unsigned b = (unsigned)(rt_hash64(n->key) & (NODE_BUCKETS - 1));
    for (struct lo_node **p = &lo_node_buckets[b]; *p; p = &(*p)->hash_next) {
        if (*p != n)
            continue;
        __atomic_store_n(p, n->hash_next, __ATOMIC_RELEASE);
        break;
    }
    while (n->out)
        drop_edge(n->out);
    while (n->in)
        drop_edge(n->in);
    if (n->group)
        rt_lock_groups[n->group - 1].nodes--;
    __atomic_store_n(&n->key, 0, __ATOMIC_RELEASE);
    node_count--;
    rt_pool_put(&node_pool, n);
}

/* Graph lock held. */
static void drain_doomed(void)
{
    struct lo_node *n = __atomic_exchange_n(&doomed_nodes, NULL, __ATOMIC_ACQUIRE);
    if (n)
        rt_sleeplock_searching(&lo_graph_lock);
    for (struct lo_node *next; n; n = next) {
        next = n->doomed_next;
        __atomic_fetch_sub(&doomed_count, 1, __ATOMIC_RELAXED);
        lo_remove_node(n);
    }
}

static void settle(void)
{
    if (!__atomic_load_n(&doomed_nodes, __ATOMIC_ACQUIRE))
        return;
    rt_sleeplock_lock(&lo_graph_lock);
    drain_doomed();
    rt_sleeplock_unlock(&lo_graph_lock);
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
    rt_sleeplock_reinit(&lo_graph_lock);
    rt_steer_after_fork();
}
