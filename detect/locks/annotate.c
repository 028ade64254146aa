/* Annotations from include/rtdd/annotate.h. */
#include "locks/locks.h"
#include <string.h>
#include "core/core.h"
#include "locks/lockdesc.h"
#include "report/report.h"

static struct rt_lock *known(struct rt_thread *t, uintptr_t addr, uintptr_t pc)
{
    struct rt_lock *l = rt_lock_find(addr);
    return l ? l : rt_lock_lookup(t, addr, RT_LOCK_MUTEX, pc);
}

/* Annotated names, by lock id (ids are never reused): few locks have one,
 * so the record keeps no field for it. Read only to write reports. */
#define NAME_BUCKETS 1024
struct lock_name {
    uint64_t id;
    struct lock_name *next;
    char name[];
};
static struct lock_name *name_buckets[NAME_BUCKETS];
static rt_spin_t names_lock = RT_SPIN_INIT;

static void add_name(uint64_t id, const char *name)
{
    /* Copied: the caller's string may not outlive the lock. */
    size_t n = strlen(name);
    struct lock_name *e = rt_zalloc(sizeof *e + n + 1);
    if (!e)
        return;
    e->id = id;
    memcpy(e->name, name, n);
    struct lock_name **head = &name_buckets[rt_hash64(e->id) % NAME_BUCKETS];
    rt_spin_lock(&names_lock);
    e->next = *head; /* a later name of the same lock comes first */
    *head = e;
    rt_spin_unlock(&names_lock);
}

void rt_annotate_name(struct rt_thread *t, uintptr_t addr, const char *name, uintptr_t pc)
{
    struct rt_lock *l = known(t, addr, pc);
    if (l && name)
        add_name(__atomic_load_n(&l->id, __ATOMIC_RELAXED), name);
}

/* Entries are never freed: a name found stays valid. */
static const char *find_name(uint64_t id)
{
    const char *name = NULL;
    rt_spin_lock(&names_lock);
    for (struct lock_name *e = name_buckets[rt_hash64(id) % NAME_BUCKETS]; e && !name; e = e->next)
        if (e->id == id)
            name = e->name;
    rt_spin_unlock(&names_lock);
    return name;
}

void rt_lock_name_follows(const struct rt_lock *l, uint64_t old_id)
{
    const char *name = find_name(old_id);
    if (name)
        add_name(__atomic_load_n(&l->id, __ATOMIC_RELAXED), name);
}

const char *rt_lock_annotated_name(const struct rt_lock *l)
{
    return find_name(__atomic_load_n(&l->id, __ATOMIC_RELAXED));
}

void rt_annotate_no_order(struct rt_thread *t, uintptr_t addr, uintptr_t pc)
{
    struct rt_lock *l = known(t, addr, pc);
    if (l)
        l->no_order = 1;
}

void rt_annotate_nested(struct rt_thread *t, uintptr_t addr, unsigned subclass, uintptr_t pc)
{
    struct rt_lock *l = known(t, addr, pc);
    if (l)
        l->next_subclass = (uint8_t)(subclass < 255 ? subclass : 255);
}

/* Locks the program describes with annotations (include/rtdd/annotate.h,
 * and the dynamic annotations of code annotated for ThreadSanitizer or
 * Helgrind): the library's own lock code does the locking, so the
 * annotations may claim what no real lock allows. Two such claims of the
 * dynamic annotations (AnnotateRWLock*) are checked here, as TSan does: an acquisition of a lock another thread
 * holds (a lock that is not one, or annotations that lie), and a release in
 * the other mode than the thread holds it. */
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
