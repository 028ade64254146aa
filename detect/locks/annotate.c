/* Annotations from include/rtdd/annotate.h. */
#include "locks/locks.h"
#include <string.h>
#include "core/core.h"
#include "locks/lockdesc.h"
#include "report/report.h"
#include "hang/hang.h"

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

/* "[0xADDR] NAME (TYPE, ...)" of what the runtime knows at addr, else "[0xADDR]". */
static void describe_at(uintptr_t addr, char *out, size_t cap)
{
    struct rt_lock *l = rt_lock_find(addr);
    if (l) {
        rt_lock_describe(l, addr, out, cap);
    } else {
        char where[64];
        struct rt_buf b;
        rt_lock_where(addr, where, sizeof where);
        rt_buf_init(&b, out, cap);
        rt_buf_printf(&b, "[%s]", where);
    }
}

/* An annotation that does not describe a condition wait: said as the
 * mistake it is, before it can look like a bug of the lock it names. */
static void report_cond_annotation(struct rt_thread *t, const char *call, uintptr_t cond, uintptr_t lock,
                                   const char *problem)
{
    char comm[32], cdesc[512], ldesc[512];
    rt_thread_comm(t->tid, comm, sizeof comm);
    describe_at(cond, cdesc, sizeof cdesc);
    describe_at(lock, ldesc, sizeof ldesc);
    struct rt_report *r = rt_report_begin(RT_KIND_COND_MISUSE, t->tid);
    if (!r)
        return;
    rt_report_headline(r, "WARNING: condition variable misuse");
    rt_report_stack(r, rt_stack_capture((unsigned)rt_opt.stack_depth), "%s/%d calls %s(cond, lock) %s, at:", comm,
                    t->tid, call, problem);
    rt_report_text(r, "cond: %s", cdesc);
    rt_report_text(r, "lock: %s", ldesc);
    rt_report_text(r, "An annotation mistake (include/rtdd/annotate.h): RTDD_COND_WAIT_BEGIN and RTDD_COND_WAIT_END "
                      "describe one condition wait, on one thread, in that order. rtdd leaves what it knows of the "
                      "lock as it was: this call is not taken as a release or an acquisition.");
    rt_report_held_locks(r, t, comm);
    rt_report_key(r, rt_hash64((uint64_t)cond * 31 + lock) ^ 0xa22c);
    rt_report_finish(r);
}

void rt_annotate_cond_wait_begin(struct rt_thread *t, uintptr_t cond, uintptr_t lock, int timed, uintptr_t pc)
{
    if (t->ann_cond_wait) {
        report_cond_annotation(t, "RTDD_COND_WAIT_BEGIN",
                               cond, lock, "while a wait it began has not ended (no RTDD_COND_WAIT_END)");
        return;
    }
    t->ann_cond_wait = cond;
    rt_on_cond_wait_begin(t, cond, lock, 0, timed, 0, pc);
}

void rt_annotate_cond_wait_end(struct rt_thread *t, uintptr_t cond, uintptr_t lock, uintptr_t pc)
{
    if (t->ann_cond_wait != cond) {
        report_cond_annotation(t, "RTDD_COND_WAIT_END", cond, lock,
                               t->ann_cond_wait ? "for another condition than the wait it began"
                                                : "with no RTDD_COND_WAIT_BEGIN before it on this thread");
        return;
    }
    t->ann_cond_wait = 0;
    rt_on_cond_wait_end(t, cond, lock, RT_WAIT_WOKEN, pc);
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
