/* Lock-order reports: a cycle that can deadlock (lock-order-inversion,
 * lockdep's text), and one that distinct threads cannot cover
 * (latent-lock-order, at exit). */
#include "locks/locks.h"
#include "order/lockorder_internal.h"
#include "report/report.h"
#include "core/core.h"
#include "hang/hang.h"
#include <string.h>

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

/* A wide lock group's node (lockgroup.h) in the cycle: say that it stands
 * for many locks, so that two of them in the report are no surprise. */
static void note_group(struct rt_report *r, const struct cycle_copy *c)
{
    if (rt_opt.lock_classes != RT_CLASSES_AUTO)
        return;
    for (unsigned i = 0; i < c->n; i++) {
        int to = (c->e[i].to_key & 1) != 0;
        if (!to && !(c->e[i].from_key & 1))
            continue;
        char name[160];
        if (to)
            rt_lock_name(live(c->e[i].to_lock, c->e[i].to_id), c->e[i].to_addr, name, sizeof name);
        else
            rt_lock_name(live(c->e[i].from_lock, c->e[i].from_id), c->e[i].from_addr, name, sizeof name);
        rt_report_text(r, "Here %s stands for every lock initialized where it was: many locks made at one place "
                          "(an array of locks, a lock per object), of which no thread holds two at once, are "
                          "ordered as one, as lockdep orders a class; the cycle can close through any two of "
                          "them. lock_classes=instance orders each lock on its own.",
                       name);
        return;
    }
}

uint64_t lo_cycle_key(const struct cycle_copy *c)
{
    uint64_t key = 0;
    for (unsigned i = 0; i < c->n; i++)
        key += rt_hash64(c->e[i].from_key * 3 + c->e[i].to_key);
    return key;
}

void lo_report_cycle(struct rt_thread *t, struct rt_lock *lock, unsigned flags, const struct rt_held *h,
                     const struct cycle_copy *c, uint64_t key)
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
    note_group(r, c);
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
    rt_report_key(r, key);
    rt_report_finish(r);
}

/* "by thread 12", "by threads 12 and 14", "by threads 12, 14, 15 and others". */
static void name_threads(struct rt_buf *b, const struct rt_threadset *s, int first)
{
    if (s->n <= 1 && !s->more) {
        rt_buf_printf(b, "by thread %d", s->n ? s->tid[0] : first);
        return;
    }
    rt_buf_puts(b, "by threads ");
    for (unsigned i = 0; i < s->n; i++)
        rt_buf_printf(b, "%s%d", i == 0 ? "" : (i + 1 == s->n && !s->more) ? " and " : ", ", s->tid[i]);
    if (s->more)
        rt_buf_puts(b, " and others");
}

void lo_report_latent(const struct cycle_copy *c, unsigned more_not_kept)
{
    const struct cycle_edge *closing = &c->e[c->n - 1];
    char name[160], from[160], to[160], who[128], line[1024];
    struct rt_buf b;
    /* Threads named by the edges: the fewest a deadlock would need beyond them. */
    int distinct[(MAX_CYCLE + 1) * RT_EDGE_THREADS];
    unsigned ndistinct = 0;
    for (unsigned i = 0; i < c->n; i++)
        for (unsigned k = 0; k < c->e[i].threads.n; k++) {
            unsigned j = 0;
            while (j < ndistinct && distinct[j] != c->e[i].threads.tid[k])
                j++;
            if (j == ndistinct)
                distinct[ndistinct++] = c->e[i].threads.tid[k];
        }
    struct rt_report *r = rt_report_begin(RT_KIND_LATENT_LOCK_ORDER, closing->tid);
    if (!r)
        return;
    rt_report_headline(r, "INFO: latent circular locking dependency: %u threads would have to run these paths at once",
                       c->n);
    /* As lock-order-inversion's: the held lock, the new one, the chain back. */
    rt_buf_init(&b, line, sizeof line);
    rt_lock_name(live(closing->from_lock, closing->from_id), closing->from_addr, name, sizeof name);
    rt_buf_printf(&b, "cycle: %s", name);
    for (unsigned k = 0; k < c->n; k++) {
        const struct cycle_edge *e = &c->e[k == 0 ? c->n - 1 : k - 1];
        rt_lock_name(live(e->to_lock, e->to_id), e->to_addr, name, sizeof name);
        rt_buf_printf(&b, " -> %s", name);
    }
    rt_report_text(r, "%s", line);
    /* Threads enough, but one had ended before the closer's edge: a join. */
    int ended = 0, closer = 0;
    for (unsigned i = 0; ndistinct >= c->n && !ended && i + 1 < c->n; i++)
        for (unsigned k = 0; !ended && k < c->e[i].threads.n; k++)
            for (unsigned m = 0; !ended && m < closing->threads.n; m++)
                if (rt_thread_ended_before(c->e[i].threads.tid[k], closing->threads.tid[m])) {
                    ended = c->e[i].threads.tid[k];
                    closer = closing->threads.tid[m];
                }
    if (ended)
        rt_report_text(r, "These locks were taken in orders that close a cycle, and %u distinct threads made its %u edges, "
                          "but not at the same time: thread %d had ended before thread %d closed the cycle, and %d "
                          "joined it (pthread_join orders the joined thread's whole life before what the joiner does "
                          "next). No interleaving of this run's threads can deadlock here. It deadlocks only if a "
                          "thread still running makes %d's edges while another makes the closing one.",
                       ndistinct, c->n, ended, closer, closer, ended);
    else
        rt_report_text(r, "These locks were taken in orders that close a cycle, but a deadlock needs %u threads at once, each holding one "
                          "lock of the cycle, and only %u distinct thread%s made its %u edges: no interleaving of this "
                          "run's threads can deadlock here. It deadlocks only if more threads run these paths at once "
                          "(the same code on two threads, say).",
                       c->n, ndistinct, ndistinct == 1 ? "" : "s", c->n);
    rt_report_text(r, "The edges of the cycle, the last one learned first:");
    for (unsigned k = 0; k < c->n; k++) {
        unsigned i = k == 0 ? c->n - 1 : k - 1; /* the closing edge, then the chain in order */
        const struct cycle_edge *e = &c->e[i];
        rt_lock_name(live(e->from_lock, e->from_id), e->from_addr, from, sizeof from);
        rt_lock_name(live(e->to_lock, e->to_id), e->to_addr, to, sizeof to);
        rt_buf_init(&b, who, sizeof who);
        name_threads(&b, &e->threads, e->tid);
        rt_report_stack(r, e->stack, "-> %s taken while holding %s, %s, at:", to, from, who);
        if (e->from_stack)
            rt_report_stack(r, e->from_stack, "   where %s had been taken at:", from);
    }
    note_group(r, c);
    rt_report_text(r, "With lock_order_rule=lockdep this cycle is a lock-order-inversion WARNING.");
    if (more_not_kept)
        rt_report_text(r, "%u more latent cycles were found and not kept (the table holds 64).", more_not_kept);
    rt_report_key(r, lo_cycle_key(c) ^ 0x1a7e);
    rt_report_finish(r);
}

