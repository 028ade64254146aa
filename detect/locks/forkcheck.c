/* fork() from a threaded program: the child has only the forking thread,
 * and every lock another thread held at that moment stays locked forever
 * in the child. Worth knowing (INFO) when the child uses one of them: a
 * child that execs (or exits) without touching them has nothing to say,
 * so the report waits for the child's first use of such a lock.
 * Process-shared locks are not stranded: the thread that holds one still
 * runs, in the parent, and releases it in the shared memory. */
#include "locks/locks.h"
#include "locks/lockdesc.h"
#include "rcu/rcu.h"
#include "report/report.h"

#define MAX_STRANDED 16
struct stranded {
    unsigned n, total;
    const struct rt_thread *self;
    struct { struct rt_lock *lock; uint64_t id; uintptr_t addr; rt_stack_id stack; int tid; } e[MAX_STRANDED];
};
/* The child's strays, collected at the fork, reported at the first use. */
static struct stranded strays;
_Atomic int rt_fork_strays_pending;

/* The locks the forking thread held at the fork, in the child: a copy of
 * the parent's state, that a child handler resets by initializing them
 * again (jemalloc re-initializes every arena mutex its prepare handler
 * took) or by freeing their memory, as children clean up. */
static struct {
    const struct rt_thread *self;
    unsigned n, cap;
    struct inherited { uintptr_t addr; uint64_t id; } *e;
} inherited;

static void collect(struct rt_thread *t, void *arg)
{
    struct stranded *s = arg;
    if (t == s->self)
        return;
    for (unsigned i = 0; i < t->nheld; i++) {
        /* The child is single-threaded: an unnamed entry's lock gets its record. */
        uint64_t id;
        struct rt_lock *l = rt_held_live(&t->held[i]) ? rt_held_record(&t->held[i], &id) : NULL;
        if (!l || rt_rcu_forgotten_at_fork(l, t->held[i].addr) || (l->traits & RT_TRAIT_PSHARED))
            continue;
        /* Locked for good here: a wait for it is a deadlock (rt_on_lock_wait). */
        __atomic_store_n(&l->held_by_exited, RT_HOLDER_FORKED_AWAY, __ATOMIC_RELEASE);
        s->total++;
        if (s->n < MAX_STRANDED) {
            s->e[s->n].lock = l;
            s->e[s->n].id = id;
            s->e[s->n].addr = t->held[i].addr;
            s->e[s->n].stack = t->held[i].stack;
            s->e[s->n].tid = t->tid;
            s->n++;
        }
    }
}

void rt_on_fork_child(struct rt_thread *self, int new_tid)
{
    /* The forking thread keeps its locks in the child, under its new tid
     * (the registry renames it), except process-shared ones: the lock
     * object is the parent's, held by the parent's thread. */
    strays.n = strays.total = 0;
    strays.self = self;
    rt_thread_after_fork(self, new_tid, collect, &strays);
    if (self)
        rt_held_forget_shared(self);
    __atomic_store_n(&rt_fork_strays_pending, strays.n > 0, __ATOMIC_RELEASE);
    inherited.self = self;
    inherited.n = 0;
    for (unsigned i = 0; self && i < self->nheld; i++) {
        /* An unnamed entry (a lazy mutex taken with nothing held) may have
         * no record yet: its address alone stands for it. */
        uint64_t id = __atomic_load_n(&self->held[i].id, __ATOMIC_RELAXED);
        if (!rt_held_live(&self->held[i]))
            continue;
        if (inherited.n == inherited.cap) {
            unsigned cap = inherited.cap ? inherited.cap * 2 : 64;
            struct inherited *e = rt_zalloc(cap * sizeof *e); /* the old array is not reused: a child's lifetime */
            if (!e)
                break;
            if (inherited.n)
                __builtin_memcpy(e, inherited.e, inherited.n * sizeof *e);
            inherited.e = e;
            inherited.cap = cap;
        }
        inherited.e[inherited.n].addr = self->held[i].addr;
        inherited.e[inherited.n].id = id;
        inherited.n++;
    }
}

int rt_lock_held_since_fork_only(const struct rt_lock *l)
{
    if (!inherited.self || !inherited.n ||
        __atomic_load_n(&l->held_by_exited, __ATOMIC_ACQUIRE) == RT_HOLDER_EXITED)
        return 0;
    uintptr_t addr = __atomic_load_n(&l->addr, __ATOMIC_RELAXED);
    uint64_t id = __atomic_load_n(&l->id, __ATOMIC_RELAXED);
    int found = 0;
    for (unsigned i = 0; i < inherited.n && !found; i++)
        found = inherited.e[i].addr == addr && (inherited.e[i].id == id || inherited.e[i].id == RT_HELD_UNNAMED);
    if (!found)
        return 0;
    /* Held by the forking thread alone (nobody else took it since). */
    int reader = 0, owner = rt_lock_owner(l, NULL), readers = rt_lock_readers(l, &reader, NULL);
    return (owner == 0 || owner == inherited.self->tid) && (readers == 0 || (readers == 1 && reader == inherited.self->tid));
}

void rt_on_fork_stray_use(struct rt_thread *t, struct rt_lock *l, const char *how, uintptr_t pc)
{
    if (!__atomic_load_n(&rt_fork_strays_pending, __ATOMIC_ACQUIRE) ||
        __atomic_load_n(&l->held_by_exited, __ATOMIC_ACQUIRE) != RT_HOLDER_FORKED_AWAY)
        return;
    unsigned used = strays.n;
    uint64_t id = __atomic_load_n(&l->id, __ATOMIC_RELAXED);
    for (unsigned i = 0; i < strays.n && used == strays.n; i++)
        if (strays.e[i].lock == l && strays.e[i].id == id)
            used = i;
    /* Once per process: the report names every lock the child inherited locked. */
    if (!__atomic_exchange_n(&rt_fork_strays_pending, 0, __ATOMIC_ACQ_REL))
        return;
    char comm[32], desc[512];
    rt_thread_comm(t->tid, comm, sizeof comm);
    rt_lock_describe(l, __atomic_load_n(&l->addr, __ATOMIC_RELAXED), desc, sizeof desc);
    struct rt_report *r = rt_report_begin(RT_KIND_LOCK_HELD_AT_FORK, t->tid);
    if (!r)
        return;
    rt_report_headline(r, "INFO: locks held across fork() by threads that do not exist in the child");
    rt_report_stack(r, rt_site_stack(t, pc), "%s/%d %s lock %s in the child, at:", comm, t->tid, how, desc);
    if (used < strays.n)
        rt_report_stack(r, strays.e[used].stack, "it was held at the fork by thread %d of the parent, taken at:",
                        strays.e[used].tid);
    for (unsigned i = 0; i < strays.n; i++) {
        if (i == used || __atomic_load_n(&strays.e[i].lock->id, __ATOMIC_RELAXED) != strays.e[i].id)
            continue; /* the one above, or gone since (destroyed, freed) */
        rt_lock_describe(strays.e[i].lock, strays.e[i].addr, desc, sizeof desc);
        rt_report_stack(r, strays.e[i].stack, "lock %s was held by thread %d of the parent, taken at:", desc,
                        strays.e[i].tid);
    }
    if (strays.total > strays.n)
        rt_report_text(r, "... and %u more locks", strays.total - strays.n);
    rt_report_text(r, "These locks stay locked forever in the child process %d: taking one of them there never "
                      "returns. A child of a threaded program should only call async-signal-safe functions "
                      "before exec().",
                   t->tid);
    rt_report_finish(r);
}

void rt_on_lock_refused(struct rt_thread *t, uintptr_t addr, uintptr_t pc)
{
    struct rt_lock *l;
    if (__atomic_load_n(&rt_fork_strays_pending, __ATOMIC_ACQUIRE) && (l = rt_locktab_find(addr)) != NULL)
        rt_on_fork_stray_use(t, l, "tries to take", pc);
}

/* In the parent, before fork: what a child will report (the locks other
 * threads hold: where they were taken and made) is symbolized here, once,
 * into the symbolizer's cache, which the child inherits (symbolize.c keeps
 * it across fork). A program that forks 200 children then pays for one
 * DWARF walk, not 200. Only code addresses: naming a lock's data may take
 * the loader's lock, which another thread could hold here. */
static void warm_stack(rt_stack_id stack)
{
    const uintptr_t *pcs;
    const uint32_t *sizes;
    unsigned depth = stack ? rt_stack_get(stack, &pcs, &sizes) : 0;
    for (unsigned k = 0; k < depth; k++) {
        struct rt_symbol sym;
        rt_symbolize(pcs[k], &sym);
    }
}

static void warm(struct rt_thread *t, void *arg)
{
    const struct rt_thread *self = arg;
    if (t == self)
        return;
    unsigned n = __atomic_load_n(&t->nheld, __ATOMIC_ACQUIRE);
    const struct rt_held *held = __atomic_load_n(&t->held, __ATOMIC_ACQUIRE);
    for (unsigned i = 0; i < n && i < 16 && held; i++) {
        if (!rt_held_live(&held[i]))
            continue;
        warm_stack(held[i].stack);
        if (__atomic_load_n(&held[i].id, __ATOMIC_RELAXED) != RT_HELD_UNNAMED) /* no record to read */
            warm_stack(held[i].lock->init_stack);
    }
}

void rt_on_fork_prepare(struct rt_thread *self)
{
    if (rt_opt.symbolize)
        rt_thread_for_each(warm, self);
}
