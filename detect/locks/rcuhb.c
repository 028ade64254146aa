/* Happens-before for RCU pointer updates (rcuhb.h). Objects' knowledge is
 * kept in a small table keyed by address: lossy (a full probe sequence
 * overwrites), which can only make an ordering unknown, never invent one. */
#include "locks/rcuhb.h"
#include "core/core.h"
#include "report/report.h"

#define OBJ_BITS 9
#define OBJS (1u << OBJ_BITS)
#define PROBES 8

static struct { uintptr_t obj; struct rt_rcu_hb hb; } objs[OBJS];
static rt_spin_t objs_lock = RT_SPIN_INIT;

/* dst learns (tid, clock): the later clock of a thread it knows, else a
 * free entry, else the entry with the oldest clock goes. 1: dst changed. */
static int learn(struct rt_rcu_hb *dst, int tid, uint64_t clock)
{
    unsigned victim = 0;
    for (unsigned i = 0; i < RT_RCU_HB; i++) {
        if (dst->e[i].tid == tid) {
            if (dst->e[i].clock >= clock)
                return 0;
            dst->e[i].clock = clock;
            return 1;
        }
        if (!dst->e[i].tid || (dst->e[victim].tid && dst->e[i].clock < dst->e[victim].clock))
            victim = i;
    }
    if (dst->e[victim].tid && dst->e[victim].clock >= clock)
        return 0;
    dst->e[victim].tid = tid;
    dst->e[victim].clock = clock;
    return 1;
}

/* dst learns src's pairs but those of thread self (a thread knows its own
 * writes). 1: dst changed. */
static int merge(struct rt_rcu_hb *dst, const struct rt_rcu_hb *src, int self)
{
    int changed = 0;
    for (unsigned i = 0; i < RT_RCU_HB; i++)
        if (src->e[i].tid && src->e[i].tid != self)
            changed |= learn(dst, src->e[i].tid, src->e[i].clock);
    return changed;
}

static unsigned home(uintptr_t obj)
{
    return (unsigned)(rt_hash64(obj) >> (64 - OBJ_BITS));
}

/* The entry of obj (the caller holds the lock); create: take one. */
static struct rt_rcu_hb *find(uintptr_t obj, int create)
{
    unsigned h = home(obj);
    for (unsigned i = 0; i < PROBES; i++) {
        unsigned k = (h + i) & (OBJS - 1);
        if (objs[k].obj == obj)
            return &objs[k].hb;
        if (!objs[k].obj) {
            if (!create)
                return NULL;
            objs[k].obj = obj;
            return &objs[k].hb;
        }
    }
    if (!create)
        return NULL;
    objs[h].obj = obj;
    __builtin_memset(&objs[h].hb, 0, sizeof objs[h].hb);
    return &objs[h].hb;
}

void rt_rcuhb_release_slow(struct rt_thread *t, uintptr_t obj)
{
    /* Every write of t so far has a clock at or below this one. */
    uint64_t now = __atomic_load_n(&rt_rcuptr_clock, __ATOMIC_ACQUIRE);
    rt_spin_lock(&objs_lock);
    struct rt_rcu_hb *o = find(obj, 1);
    merge(o, &t->rcu_hb, 0);
    learn(o, t->tid, now);
    rt_spin_unlock(&objs_lock);
}

void rt_rcuhb_acquire_slow(struct rt_thread *t, uintptr_t obj)
{
    struct rt_rcu_hb got;
    rt_spin_lock(&objs_lock);
    const struct rt_rcu_hb *o = find(obj, 0);
    if (o)
        got = *o;
    rt_spin_unlock(&objs_lock);
    if (o && merge(&t->rcu_hb, &got, t->tid))
        t->rcu_hb_gen++; /* new knowledge: the next lock release publishes it */
}

_Atomic uint64_t rt_rcuhb_lock_pubs;
_Atomic uint64_t rt_rcuptr_clock;
_Atomic unsigned rt_rcuptr_tracked;

/* A lock's id is never reused: its key is odd, so never an object's address. */
static uintptr_t lock_key(uint64_t id)
{
    return (uintptr_t)(id << 1 | 1);
}

void rt_rcuhb_lock_release(struct rt_thread *t, struct rt_lock *lock, uint64_t id)
{
    /* A read section's pseudo-lock orders nothing, and a record that
     * changed identity is another lock's now. */
    if (lock->rcu_pseudo || __atomic_load_n(&lock->id, __ATOMIC_RELAXED) != id ||
        (t->rcu_hb_pub_id == id && t->rcu_hb_pub_gen == t->rcu_hb_gen))
        return;
    rt_rcuhb_release_slow(t, lock_key(id));
    __atomic_fetch_add(&rt_rcuhb_lock_pubs, 1, __ATOMIC_RELEASE);
    t->rcu_hb_pub_id = id;
    t->rcu_hb_pub_gen = t->rcu_hb_gen;
    /* Before the real unlock: its next acquirer sees the flag. */
    if (!__atomic_load_n(&lock->rcu_hb, __ATOMIC_RELAXED))
        __atomic_store_n(&lock->rcu_hb, 1, __ATOMIC_RELAXED);
}

void rt_rcuhb_lock_acquire(struct rt_thread *t, struct rt_lock *lock)
{
    uint64_t id = __atomic_load_n(&lock->id, __ATOMIC_RELAXED);
    uint64_t seq = __atomic_load_n(&rt_rcuhb_lock_pubs, __ATOMIC_ACQUIRE);
    if (t->rcu_hb_acq_id == id && t->rcu_hb_acq_seq == seq)
        return; /* merged this lock since the last publication anywhere */
    rt_rcuhb_acquire_slow(t, lock_key(id));
    t->rcu_hb_acq_id = id;
    t->rcu_hb_acq_seq = seq;
}

int rt_rcuhb_ordered(const struct rt_thread *t, int tid, uint64_t clock)
{
    for (unsigned i = 0; i < RT_RCU_HB; i++)
        if (t->rcu_hb.e[i].tid == tid && t->rcu_hb.e[i].clock >= clock)
            return 1;
    return 0;
}

void rt_rcuhb_after_fork(void)
{
    rt_spin_reinit(&objs_lock);
}
