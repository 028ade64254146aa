/* call_rcu: the rcu_heads queued (one queued twice is reported), and
 * each callback run as a read acquisition of the flavour's callback
 * pseudo-lock, after a check of its grace period. */
#include "rcu/rcu.h"
#include "rcu/rcucheck_internal.h"
#include "locks/locks.h"
#include "report/report.h"
#include "core/core.h"

/* Queued rcu_heads: head -> where and when queued. Not lossy: a head is
 * removed when its callback starts. */
#define QUEUE_BUCKETS 4096
struct queued { struct queued *next; uintptr_t head; void *func; uint64_t clock; rt_stack_id stack; uint8_t flavor; };
static struct queued *queue_buckets[QUEUE_BUCKETS];
static rt_spin_t queue_lock = RT_SPIN_INIT;
static struct rt_pool queue_pool = RT_POOL_INIT(struct queued);

int rt_rcu_call(struct rt_thread *t, enum rt_rcu_flavor f, const void *head, void *func, uintptr_t pc)
{
    rt_rcu_mark_in_use();
    unsigned b = (unsigned)(rt_hash64((uintptr_t)head) & (QUEUE_BUCKETS - 1));
    rt_stack_id stack = rt_site_stack(t, pc);
    struct queued *q, *fresh = rt_pool_get(&queue_pool);
    int inserted = 0;
    rt_stack_id first = 0;
    rt_spin_lock(&queue_lock);
    for (q = queue_buckets[b]; q; q = q->next)
        if (q->head == (uintptr_t)head)
            break;
    if (q) {
        first = q->stack;
    } else if (fresh) {
        fresh->head = (uintptr_t)head;
        fresh->func = func;
        fresh->clock = rt_rcu_tick();
        fresh->stack = stack;
        fresh->flavor = (uint8_t)f;
        fresh->next = queue_buckets[b];
        queue_buckets[b] = fresh;
        inserted = 1;
    }
    rt_spin_unlock(&queue_lock);
    if (inserted)
        return RT_RCU_QUEUED;
    if (fresh)
        rt_pool_put(&queue_pool, fresh);
    if (!q)
        return RT_RCU_UNTRACKED;
    char comm[32];
    rt_thread_comm(t->tid, comm, sizeof comm);
    struct rt_report *r = rt_report_begin(RT_KIND_RCU_DOUBLE_CALL, t->tid);
    if (r) {
        rt_report_headline(r, "BUG: call_rcu() of an rcu_head that is already queued");
        rt_report_stack(r, rt_stack_here(), "%s/%d queues rcu_head [0x%lx] (%s) again at:", comm, t->tid,
                        (unsigned long)(uintptr_t)head, rt_rcu_flavor_names[f]);
        rt_report_stack(r, first, "the same rcu_head is still queued from a call_rcu() at:");
        rt_report_text(r, "Queueing it twice would corrupt the callback list and free the object twice; this "
                          "call is not queued.");
        rt_report_finish(r);
    }
    return RT_RCU_DUPLICATE;
}

void *rt_rcu_callback_begin(struct rt_thread *t, enum rt_rcu_flavor f, const void *head)
{
    void *func = NULL;
    unsigned b = (unsigned)(rt_hash64((uintptr_t)head) & (QUEUE_BUCKETS - 1));
    struct queued *q, **pp;
    rt_spin_lock(&queue_lock);
    for (pp = &queue_buckets[b]; (q = *pp); pp = &q->next)
        if (q->head == (uintptr_t)head) {
            *pp = q->next;
            break;
        }
    rt_spin_unlock(&queue_lock);
    t->rcu.in_callback = 1;
    struct rt_lock *l = rt_rcu_pseudo_lock(t, f, 1, 0);
    if (l) {
        uint64_t chain = rt_on_lock_pre(t, l, RT_ACQ_READ, 0);
        rt_on_lock_acquired(t, l, RT_ACQ_READ, chain, 0);
    }
    if (q) {
        func = q->func;
        rt_rcu_check_gp(t, f, q->clock, "the grace period before a callback");
        /* The callback's grace period began after call_rcu: a floor for
         * programs that never call synchronize_rcu. */
        rt_rcu_grace_period_done(f, q->clock);
        rt_pool_put(&queue_pool, q);
    }
    return func;
}

void rt_rcu_callback_end(struct rt_thread *t, enum rt_rcu_flavor f, const void *head)
{
    (void)head;
    t->rcu.in_callback = 0;
    rt_on_lock_release(t, (uintptr_t)&rt_rcu_anchors[f][1], 0);
}

void rt_rcucallbacks_after_fork(void)
{
    rt_spin_reinit(&queue_lock);
    rt_spin_reinit(&queue_pool.lock);
}
