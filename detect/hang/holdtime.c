/* lock-held-too-long (holdtime.h): one INFO report per pair of places,
 * where the lock was taken and where it was released. */
#include "hang/holdtime.h"
#include "locks/locks.h"
#include "report/report.h"
#include "core/core.h"

/* The innermost frame of a stack: the place, whatever called it. */
static uintptr_t place(rt_stack_id stack)
{
    const uintptr_t *pcs;
    const uint32_t *sizes;
    return stack && rt_stack_get(stack, &pcs, &sizes) > 0 ? pcs[0] : 0;
}

void rt_hold_check(struct rt_thread *t, const struct rt_held *h, uintptr_t pc)
{
    uint64_t now = rt_hold_clock_ns(), limit = (uint64_t)rt_opt.hold_threshold_ms * 1000000u;
    if (!limit || now < h->taken_ns || now - h->taken_ns <= limit)
        return;
    unsigned long ms = (unsigned long)((now - h->taken_ns) / 1000000u);
    rt_stack_id released = rt_stack_capture((unsigned)rt_opt.stack_depth);
    char comm[32], desc[512];
    rt_thread_comm(t->tid, comm, sizeof comm);
    rt_lock_describe(rt_held_live(h) ? h->lock : NULL, h->addr, desc, sizeof desc);
    struct rt_report *r = rt_report_begin(RT_KIND_LOCK_HELD_TOO_LONG, t->tid);
    if (!r)
        return;
    rt_report_headline(r, "INFO: lock held for more than %ld ms", rt_opt.hold_threshold_ms);
    rt_report_stack(r, h->stack, "%s/%d held lock %s%s for %lu ms (hold_threshold_ms=%ld), taken at:", comm, t->tid,
                    desc, h->mode == RT_HOLD_READ ? " for reading" : "", ms, rt_opt.hold_threshold_ms);
    rt_report_stack(r, released, "and released it at:");
    rt_report_text(r, "Every thread that needs this lock waits meanwhile: a long critical section is latency for "
                      "all of them (and a priority inversion where threads have priorities).");
    rt_report_key(r, rt_hash64((uint64_t)place(h->stack) * 31 + (pc ? pc : place(released))) ^ 0x401d);
    rt_report_finish(r);
}
