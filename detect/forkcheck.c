/* fork() from a threaded program: the child has only the forking thread,
 * and every lock another thread held at that moment stays locked forever
 * in the child. Worth knowing (INFO): the child must not take them. */
#include "engine.h"
#include "lockdesc.h"
#include "rcucheck.h"
#include "report.h"
#include "runtime.h"
#include "symbolize.h"

#define MAX_STRANDED 16
struct stranded {
    unsigned n, total;
    const struct rt_thread *self;
    struct { struct rt_lock *lock; uintptr_t addr; rt_stack_id stack; int tid; } e[MAX_STRANDED];
};

static void collect(struct rt_thread *t, void *arg)
{
    struct stranded *s = arg;
    if (t == s->self)
        return;
    for (unsigned i = 0; i < t->nheld; i++) {
        /* The child is single-threaded: an unnamed entry's lock gets its record. */
        struct rt_lock *l = rt_held_live(&t->held[i]) ? rt_held_record(&t->held[i], NULL) : NULL;
        if (!l || rt_rcu_forgotten_at_fork(l, t->held[i].addr))
            continue;
        /* Locked for good here: a wait for it is a deadlock (rt_on_lock_wait). */
        __atomic_store_n(&l->held_by_exited, RT_HOLDER_FORKED_AWAY, __ATOMIC_RELEASE);
        s->total++;
        if (s->n < MAX_STRANDED) {
            s->e[s->n].lock = l;
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
     * (the registry renames it). */
    struct stranded s = { 0, 0, self, { { 0 } } };
    rt_thread_after_fork(self, new_tid, collect, &s);
    if (s.n == 0)
        return;
    struct rt_report *r = rt_report_begin(RT_KIND_LOCK_HELD_AT_FORK, new_tid);
    if (!r)
        return;
    rt_report_headline(r, "INFO: locks held across fork() by threads that do not exist in the child");
    for (unsigned i = 0; i < s.n; i++) {
        char desc[512];
        rt_lock_describe(s.e[i].lock, s.e[i].addr, desc, sizeof desc);
        rt_report_stack(r, s.e[i].stack, "lock %s was held by thread %d of the parent, taken at:", desc, s.e[i].tid);
    }
    if (s.total > s.n)
        rt_report_text(r, "... and %u more locks", s.total - s.n);
    rt_report_text(r, "These locks stay locked forever in the child process %d: taking one of them there never "
                      "returns. A child of a threaded program should only call async-signal-safe functions "
                      "before exec().",
                   new_tid);
    rt_report_finish(r);
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
