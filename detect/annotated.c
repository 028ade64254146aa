/* Locks the program describes with annotations (include/rtdd/annotate.h,
 * and the dynamic annotations of code annotated for ThreadSanitizer or
 * Helgrind): the library's own lock code does the locking, so the
 * annotations may claim what no real lock allows. Two such claims of the
 * dynamic annotations (AnnotateRWLock*) are checked here, as TSan does: an acquisition of a lock another thread
 * holds (a lock that is not one, or annotations that lie), and a release in
 * the other mode than the thread holds it. */
#include "annotated.h"
#include "lockdesc.h"
#include "report.h"
#include "runtime.h"
#include "unwind.h"

static const struct rt_held *held_by(const struct rt_thread *t, uintptr_t addr)
{
    for (unsigned i = t->nheld; i-- > 0;)
        if (rt_held_live(&t->held[i]) && t->held[i].addr == addr)
            return &t->held[i];
    return NULL;
}

int rt_annotated_acquire_check(struct rt_thread *t, struct rt_lock *l, uintptr_t addr, int read)
{
    rt_held_name(t);
    if (held_by(t, addr))
        return 0; /* its own: recursive-locking's case, judged by the lock path */
    rt_stack_id owner_stack = 0, reader_stack = 0;
    int owner = rt_lock_owner(l, &owner_stack);
    int reader = 0;
    int readers = read ? 0 : rt_lock_readers(l, &reader, &reader_stack);
    if ((!owner || owner == t->tid) && (!readers || reader == t->tid))
        return 0;
    char comm[32], desc[512], ocomm[32];
    int other = owner && owner != t->tid ? owner : reader;
    rt_thread_comm(t->tid, comm, sizeof comm);
    rt_thread_comm(other, ocomm, sizeof ocomm);
    rt_lock_describe(l, addr, desc, sizeof desc);
    struct rt_report *r = rt_report_begin(RT_KIND_DOUBLE_LOCK, t->tid);
    if (!r)
        return 1;
    rt_report_headline(r, "WARNING: lock acquired while another thread holds it");
    rt_report_stack(r, rt_stack_capture((unsigned)rt_opt.stack_depth), "%s/%d %s lock %s, at:", comm, t->tid,
                    read ? "read-acquired" : "acquired", desc);
    rt_report_stack(r, owner && owner != t->tid ? owner_stack : reader_stack, "while %s/%d holds it%s, taken at:",
                    ocomm, other, owner && owner != t->tid ? "" : " for reading");
    rt_report_text(r, "No real lock lets two threads in at once%s, yet the program said so (AnnotateRWLockAcquired): "
                      "the lock does not exclude, or its annotations do not match what its code does.",
                   read ? " when one of them writes" : "");
    rt_report_finish(r);
    return 1;
}

int rt_annotated_release_check(struct rt_thread *t, uintptr_t addr, int read)
{
    rt_held_name(t);
    const struct rt_held *h = held_by(t, addr);
    if (!h || (h->mode == RT_HOLD_READ) == (read != 0))
        return 0;
    char comm[32], desc[512];
    rt_thread_comm(t->tid, comm, sizeof comm);
    rt_lock_describe(h->lock, addr, desc, sizeof desc);
    struct rt_report *r = rt_report_begin(RT_KIND_BAD_UNLOCK, t->tid);
    if (!r)
        return 1;
    rt_report_headline(r, "WARNING: bad unlock balance detected!");
    rt_report_stack(r, rt_stack_capture((unsigned)rt_opt.stack_depth), "%s/%d is trying to %s lock %s, at:", comm,
                    t->tid, read ? "read-unlock" : "write-unlock", desc);
    rt_report_stack(r, h->stack, "but the thread holds it for %s, taken at:", read ? "writing" : "reading");
    rt_report_text(r, "A %s release of a lock held for %s leaves the lock in a state its code does not expect.",
                   read ? "reader's" : "writer's", read ? "writing" : "reading");
    rt_report_held_locks(r, t, comm);
    rt_report_finish(r);
    return 1;
}
