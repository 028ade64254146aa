/* RCU pointers as locations: see rcuptr.h for the three checks.
 *
 * A location is found by its own address (the slot) or by what it holds
 * (liburcu's rcu_dereference passes the value alone), so each sits in two
 * chains: by the slot's line and by the value's line, which is also how a
 * freed range finds the pointers inside it and the pointers to it. One
 * spin lock guards the tables; reports are built after it is released
 * (they symbolize, walk the thread registry and may take the loader lock,
 * which a thread inside free() may hold). */
#include "rcuptr.h"
#include "engine.h"
#include "kinds.h"
#include "lockdesc.h"
#include "modules.h"
#include "rcucheck_internal.h"
#include "report.h"
#include "raw_syscall.h"
#include "rt_alloc.h"
#include <sys/syscall.h>
#include <sys/uio.h>

#define PTR_LOCKS 4      /* locks remembered per access (the innermost) */
#define PTR_WRITERS 3    /* distinct writer threads remembered per pointer */
#define BUCKET_BITS 12
#define BUCKETS (1u << BUCKET_BITS)
#define MAX_LOCATIONS 65536
#define MAX_HITS 8

struct lockset {
    uint8_t n;
    struct { uint64_t id; uintptr_t addr; } lock[PTR_LOCKS];
};

struct access {
    int tid;
    uint8_t op;        /* enum rt_rcu_update (writes) */
    uint64_t clock;    /* rt_rcuptr_clock when it happened */
    rt_stack_id stack;
    struct lockset locks;
};

enum { REPORTED_DEREF = 1, REPORTED_UPDATE = 2 };

struct location {
    struct location *by_slot, *by_value;
    uintptr_t slot, value;      /* value: 0 when not known (never written through us, or NULL) */
    uint64_t shared_clock;      /* the first write by a second thread (0: one writer so far) */
    struct access writes[PTR_WRITERS]; /* the last write of each recent writer */
    struct access pending;      /* a dereference outside any section, to judge at the next write */
    /* Set when the object it holds was freed: who freed what, and where. */
    uint8_t dangling, reported;
    uint8_t readers_at_free;    /* other threads that read RCU sections were alive at the free */
    int freed_tid;
    uintptr_t freed_start, freed_end;
    rt_stack_id freed_stack;
};

_Atomic uint64_t rt_rcuptr_clock;
/* Counts, per line, the pointers there and the values that point there, so
 * that a line is clear again once nothing tracked is near it: memory that
 * held published objects is reused for others, whose frees must stay cheap. */
uint8_t rt_rcuptr_filter[RT_FILTER_LINES + RT_FILTER_PAD];
_Atomic unsigned rt_rcuptr_tracked;
_Atomic unsigned rt_rcuptr_dangling;
_Atomic unsigned rt_rcu_qsbr_registered;

static struct location *slot_chain[BUCKETS], *value_chain[BUCKETS];
static unsigned nlocations;
static rt_spin_t table_lock = RT_SPIN_INIT;
static struct rt_pool location_pool = RT_POOL_INIT_SHARED(struct location);

static inline unsigned bucket_of(uintptr_t addr)
{
    return (unsigned)(rt_hash64(addr >> RT_LINE_SHIFT) >> (64 - BUCKET_BITS));
}

static struct location *find_slot(uintptr_t slot)
{
    for (struct location *l = slot_chain[bucket_of(slot)]; l; l = l->by_slot)
        if (l->slot == slot)
            return l;
    return NULL;
}

/* A location holding value; one still holding live memory first. */
static struct location *find_value(uintptr_t value)
{
    struct location *dangling = NULL;
    for (struct location *l = value_chain[bucket_of(value)]; l; l = l->by_value)
        if (l->value == value) {
            if (!l->dangling)
                return l;
            dangling = l;
        }
    return dangling;
}

static void unlink_value(struct location *loc)
{
    if (!loc->value)
        return;
    for (struct location **pp = &value_chain[bucket_of(loc->value)]; *pp; pp = &(*pp)->by_value)
        if (*pp == loc) {
            *pp = loc->by_value;
            break;
        }
    rt_filter_count(rt_rcuptr_filter, loc->value, -1);
    loc->by_value = NULL;
    loc->value = 0;
}

static void set_value(struct location *loc, uintptr_t value)
{
    unlink_value(loc);
    if (!value)
        return;
    loc->value = value;
    rt_filter_count(rt_rcuptr_filter, value, 1);
    unsigned b = bucket_of(value);
    loc->by_value = value_chain[b];
    value_chain[b] = loc;
}

static struct location *add_slot(uintptr_t slot)
{
    if (nlocations >= MAX_LOCATIONS)
        return NULL; /* lossy beyond the bound: only checks are lost */
    struct location *loc = rt_pool_get(&location_pool);
    if (!loc)
        return NULL;
    loc->slot = slot;
    unsigned b = bucket_of(slot);
    loc->by_slot = slot_chain[b];
    slot_chain[b] = loc;
    nlocations++;
    rt_filter_count(rt_rcuptr_filter, slot, 1);
    if (!__atomic_load_n(&rt_rcuptr_tracked, __ATOMIC_RELAXED))
        __atomic_store_n(&rt_rcuptr_tracked, 1, __ATOMIC_RELEASE);
    return loc;
}

static void drop(struct location *loc)
{
    for (struct location **pp = &slot_chain[bucket_of(loc->slot)]; *pp; pp = &(*pp)->by_slot)
        if (*pp == loc) {
            *pp = loc->by_slot;
            break;
        }
    unlink_value(loc);
    rt_filter_count(rt_rcuptr_filter, loc->slot, -1);
    if (loc->dangling == 1)
        __atomic_fetch_sub(&rt_rcuptr_dangling, 1, __ATOMIC_RELAXED);
    nlocations--;
    rt_pool_put(&location_pool, loc);
}

/* The locks t holds (write-held only, for a write), innermost first. */
static void lockset_of(const struct rt_thread *t, int write_only, struct lockset *s)
{
    s->n = 0;
    for (unsigned i = t->nheld; i-- > 0 && s->n < PTR_LOCKS;) {
        const struct rt_held *h = &t->held[i];
        if (h->lock->rcu_pseudo || !rt_held_live(h) || (write_only && h->mode == RT_HOLD_READ))
            continue;
        s->lock[s->n].id = h->id;
        s->lock[s->n].addr = h->addr;
        s->n++;
    }
}

static int have_common_lock(const struct lockset *a, const struct lockset *b)
{
    for (unsigned i = 0; i < a->n; i++)
        for (unsigned j = 0; j < b->n; j++)
            if (a->lock[i].id == b->lock[j].id)
                return 1;
    return 0;
}

static void fill_access(struct access *a, struct rt_thread *t, int write_only, uint8_t op, uint64_t clock,
                        uintptr_t pc)
{
    a->tid = t->tid;
    a->op = op;
    a->clock = clock;
    a->stack = rt_site_stack(t, pc);
    rt_held_name(t);
    lockset_of(t, write_only, &a->locks);
}

/* ---- reports (built with the table unlocked) ---------------------------- */

struct tid_search { int tid, found; };
static void match_tid(struct rt_thread *t, void *arg)
{
    struct tid_search *s = arg;
    s->found |= t->tid == s->tid;
}

/* Threads that have exited race with nobody any more. */
static int thread_alive(int tid)
{
    struct tid_search s = { tid, 0 };
    rt_thread_for_each(match_tid, &s);
    return s.found;
}

static void pointer_name(uintptr_t slot, char *out, size_t cap)
{
    char name[160];
    rt_lock_name(NULL, slot, name, sizeof name);
    struct rt_buf b;
    rt_buf_init(&b, out, cap);
    if (name[0] == '[')
        rt_buf_printf(&b, "the RCU pointer at %s", name);
    else
        rt_buf_printf(&b, "the RCU pointer %s [0x%lx]", name, (unsigned long)slot);
}

static void describe_locks(const struct lockset *s, char *out, size_t cap)
{
    struct rt_buf b;
    rt_buf_init(&b, out, cap);
    if (!s->n) {
        rt_buf_puts(&b, "holding no lock");
        return;
    }
    rt_buf_puts(&b, "holding ");
    for (unsigned i = 0; i < s->n; i++) {
        char name[160];
        rt_lock_name(rt_lock_find(s->lock[i].addr), s->lock[i].addr, name, sizeof name);
        rt_buf_printf(&b, "%s%s", i ? ", " : "", name);
    }
}

static const char *op_name(uint8_t op)
{
    return op == RT_RCU_XCHG ? "rcu_xchg_pointer()" : op == RT_RCU_CMPXCHG ? "rcu_cmpxchg_pointer()"
                                                                           : "rcu_assign_pointer()";
}

static void report_key(struct rt_report *r, enum rt_kind kind, uintptr_t slot)
{
    rt_report_key(r, rt_hash64(slot ^ (uint64_t)kind << 48));
}

static void mark_reported(uintptr_t slot, uint8_t bit)
{
    rt_spin_lock(&table_lock);
    struct location *loc = find_slot(slot);
    if (loc)
        loc->reported |= bit;
    rt_spin_unlock(&table_lock);
}

static const char *form_text(enum rt_rcu_deref_form form)
{
    switch (form) {
    case RT_DEREF_CHECK_FAILED: return "calls rcu_dereference_check() whose condition is false, outside any read-side critical section,";
    case RT_DEREF_PROTECTED_FAILED: return "calls rcu_dereference_protected() whose condition is false";
    default: return "calls rcu_dereference() outside any read-side critical section";
    }
}

/* t: the dereferencing thread, when it is the caller; else deref, a
 * dereference remembered earlier. writer: the update that makes it unsafe
 * (NULL for a condition that failed). */
static void report_deref(struct rt_thread *t, const struct access *deref, uintptr_t slot,
                         enum rt_rcu_deref_form form, const struct access *writer)
{
    char comm[32], wcomm[32], name[200], locks[400];
    int tid = t ? t->tid : deref->tid;
    rt_thread_comm(tid, comm, sizeof comm);
    struct rt_report *r = rt_report_begin(RT_KIND_RCU_UNPROTECTED_DEREFERENCE, tid);
    if (!r)
        return;
    rt_report_headline(r, "WARNING: suspicious RCU usage");
    pointer_name(slot, name, sizeof name);
    rt_report_stack(r, t ? rt_rcu_stack_here() : deref->stack, "%s/%d %s, on %s, at:", comm, tid,
                    form_text(form), name);
    if (writer) {
        rt_thread_comm(writer->tid, wcomm, sizeof wcomm);
        describe_locks(&writer->locks, locks, sizeof locks);
        rt_report_stack(r, writer->stack, "while %s/%d updates it with %s %s, at:", wcomm, writer->tid,
                        op_name(writer->op), locks);
        rt_report_text(r, "Once the updater waits for a grace period and frees the old object, this thread may "
                          "still be using it: neither a read-side critical section nor a lock of the updater's "
                          "protects it.");
    } else {
        rt_report_text(r, "The condition given with the dereference says what protects the pointer here, and it "
                          "does not hold.");
    }
    if (t) {
        rt_report_held_locks(r, t, comm);
    } else {
        describe_locks(&deref->locks, locks, sizeof locks);
        rt_report_text(r, "%s/%d was %s.", comm, tid, locks);
    }
    rt_report_text(r, "Hint: dereference inside rcu_read_lock()/rcu_read_unlock(), or hold the updaters' lock "
                      "(and say so with rcu_dereference_protected(p, lockdep_is_held(&lock))).");
    report_key(r, RT_KIND_RCU_UNPROTECTED_DEREFERENCE, slot);
    rt_report_finish(r);
    mark_reported(slot, REPORTED_DEREF);
}

static void report_update(struct rt_thread *t, uintptr_t slot, const struct access *now, const struct access *other)
{
    char comm[32], ocomm[32], name[200], locks[400];
    rt_thread_comm(t->tid, comm, sizeof comm);
    rt_thread_comm(other->tid, ocomm, sizeof ocomm);
    struct rt_report *r = rt_report_begin(RT_KIND_RCU_UNLOCKED_UPDATE, t->tid);
    if (!r)
        return;
    rt_report_headline(r, "WARNING: RCU pointer updated by concurrent updaters with no lock in common");
    pointer_name(slot, name, sizeof name);
    describe_locks(&now->locks, locks, sizeof locks);
    rt_report_stack(r, rt_rcu_stack_here(), "%s/%d updates %s with %s %s, at:", comm, t->tid, name,
                    op_name(now->op), locks);
    describe_locks(&other->locks, locks, sizeof locks);
    rt_report_stack(r, other->stack, "%s/%d updated it with %s %s, at:", ocomm, other->tid, op_name(other->op),
                    locks);
    rt_report_text(r, "Two updates that do not exclude each other can interleave: both read the same old object, "
                      "one new object is lost (and leaks), the old one is retired twice (a double free).");
    rt_report_text(r, "Hint: serialize the updaters with one lock, or use rcu_xchg_pointer()/rcu_cmpxchg_pointer() "
                      "in every updater.");
    report_key(r, RT_KIND_RCU_UNLOCKED_UPDATE, slot);
    rt_report_finish(r);
    mark_reported(slot, REPORTED_UPDATE);
}

/* What a freed-while-published report needs, copied out of the table. */
struct dangling {
    uintptr_t slot, value, start, end;
    int freed_tid;
    rt_stack_id freed_stack;
    struct access publish;
};

/* when: NULL at the free itself; else what shows the pointer still held
 * the freed memory afterwards, with the stack of that event (0: none). */
static void report_freed(const struct dangling *d, const char *when, rt_stack_id when_stack)
{
    char comm[32], pcomm[32], name[200];
    rt_thread_comm(d->freed_tid, comm, sizeof comm);
    struct rt_report *r = rt_report_begin(RT_KIND_RCU_FREED_WHILE_PUBLISHED, d->freed_tid);
    if (!r)
        return;
    rt_report_headline(r, "BUG: %s/%d, freeing [0x%lx-0x%lx] still published in an RCU pointer!", comm,
                       d->freed_tid, (unsigned long)d->start, (unsigned long)d->end);
    rt_report_stack(r, d->freed_stack, "free() by %s/%d at:", comm, d->freed_tid);
    pointer_name(d->slot, name, sizeof name);
    rt_thread_comm(d->publish.tid, pcomm, sizeof pcomm);
    if (d->value == d->start)
        rt_report_text(r, "%s still holds it: every later reader gets freed memory.", name);
    else
        rt_report_text(r, "%s still holds 0x%lx, inside it (+0x%lx): every later reader gets freed memory.", name,
                       (unsigned long)d->value, (unsigned long)(d->value - d->start));
    if (d->publish.tid)
        rt_report_stack(r, d->publish.stack, "published there by %s/%d with %s at:", pcomm, d->publish.tid,
                        op_name(d->publish.op));
    if (when)
        when_stack ? rt_report_stack(r, when_stack, "%s", when) : rt_report_text(r, "%s", when);
    rt_report_text(r, "Hint: unpublish it first (rcu_assign_pointer() of its successor or NULL), then free it "
                      "after a grace period (synchronize_rcu() or call_rcu()).");
    report_key(r, RT_KIND_RCU_FREED_WHILE_PUBLISHED, d->slot ^ d->value);
    rt_report_finish(r);
}

/* Copies a dangling location out and marks it reported (the caller holds
 * the table lock). */
static void take_dangling(struct location *loc, struct dangling *d)
{
    d->slot = loc->slot;
    d->value = loc->value;
    d->start = loc->freed_start;
    d->end = loc->freed_end;
    d->freed_tid = loc->freed_tid;
    d->freed_stack = loc->freed_stack;
    d->publish = loc->writes[0];
    for (unsigned i = 1; i < PTR_WRITERS; i++)
        if (loc->writes[i].clock > d->publish.clock)
            d->publish = loc->writes[i];
    if (loc->dangling == 1)
        __atomic_fetch_sub(&rt_rcuptr_dangling, 1, __ATOMIC_RELAXED);
    loc->dangling = 2; /* reported */
}

/* ---- events ------------------------------------------------------------- */

/* A write that another thread's earlier write can interleave with: not in
 * the pointer's first writer's phase alone, not made before t existed, and
 * without a lock in common (two atomic read-modify-writes exclude each other). */
static const struct access *conflicting_write(const struct location *loc, const struct rt_thread *t,
                                              const struct access *now)
{
    if (!loc->shared_clock)
        return NULL; /* one writer so far: this write is the first that may share it */
    for (unsigned i = 0; i < PTR_WRITERS; i++) {
        const struct access *w = &loc->writes[i];
        if (!w->tid || w->tid == t->tid || w->clock <= t->rcuptr_birth || w->clock < loc->shared_clock)
            continue;
        if (now->op != RT_RCU_ASSIGN && w->op != RT_RCU_ASSIGN)
            continue;
        if (!have_common_lock(&now->locks, &w->locks))
            return w;
    }
    return NULL;
}

static void remember_write(struct location *loc, const struct access *now)
{
    unsigned slot = 0;
    for (unsigned i = 0; i < PTR_WRITERS; i++) {
        if (loc->writes[i].tid == now->tid || !loc->writes[i].tid) {
            slot = i;
            break;
        }
        if (loc->writes[i].clock < loc->writes[slot].clock)
            slot = i;
    }
    if (!loc->shared_clock)
        for (unsigned i = 0; i < PTR_WRITERS; i++)
            if (loc->writes[i].tid && loc->writes[i].tid != now->tid)
                loc->shared_clock = now->clock;
    loc->writes[slot] = *now;
}

void rt_rcuptr_write(struct rt_thread *t, const void *slotp, const void *old, const void *fresh, enum rt_rcu_update op,
                     uintptr_t pc)
{
    uintptr_t slot = (uintptr_t)slotp;
    if (!slot)
        return;
    struct access now;
    fill_access(&now, t, 1, (uint8_t)op, __atomic_add_fetch(&rt_rcuptr_clock, 1, __ATOMIC_RELAXED), pc);
    struct access other, deref;
    int conflict = 0, unprotected = 0, was_dangling = 0;
    struct dangling d;
    rt_spin_lock(&table_lock);
    struct location *loc = find_slot(slot);
    if (!loc)
        loc = add_slot(slot);
    if (!loc) {
        rt_spin_unlock(&table_lock);
        return;
    }
    if (loc->dangling == 1 && loc->value == (uintptr_t)old) {
        take_dangling(loc, &d);
        was_dangling = 1;
    } else if (loc->dangling == 1) {
        __atomic_fetch_sub(&rt_rcuptr_dangling, 1, __ATOMIC_RELAXED); /* changed behind our back */
    }
    const struct access *w = conflicting_write(loc, t, &now);
    if (w && !(loc->reported & REPORTED_UPDATE)) {
        other = *w;
        conflict = 1;
    }
    /* A dereference outside any section that this write now makes unsafe. */
    if (loc->pending.tid && loc->pending.tid != t->tid) {
        if (!have_common_lock(&loc->pending.locks, &now.locks) && !(loc->reported & REPORTED_DEREF)) {
            deref = loc->pending;
            unprotected = 1;
        }
        loc->pending.tid = 0;
    }
    remember_write(loc, &now);
    loc->dangling = 0;
    set_value(loc, (uintptr_t)fresh);
    rt_spin_unlock(&table_lock);

    if (was_dangling)
        report_freed(&d, "and it was still published until replaced here, at:", rt_rcu_stack_here());
    if (conflict && thread_alive(other.tid))
        report_update(t, slot, &now, &other);
    if (unprotected && thread_alive(deref.tid))
        report_deref(NULL, &deref, slot, RT_DEREF_PLAIN, &now);
}

void rt_rcuptr_deref_outside(struct rt_thread *t, const void *slotp, const void *valuep, enum rt_rcu_deref_form form,
                             uintptr_t pc)
{
    uintptr_t slot = (uintptr_t)slotp, value = (uintptr_t)valuep;
    if (form != RT_DEREF_PLAIN) {
        if (!slot)
            return;
        /* Once per pointer: a loop over a false condition must not build
         * a report each time round. */
        rt_spin_lock(&table_lock);
        struct location *loc = find_slot(slot);
        if (!loc)
            loc = add_slot(slot);
        int reported = loc && (loc->reported & REPORTED_DEREF);
        rt_spin_unlock(&table_lock);
        if (!reported)
            report_deref(t, NULL, slot, form, NULL);
        return;
    }
    /* QSBR readers are inside a read-side section whenever they are online,
     * with no call that says so. */
    if (rt_rcu_flavor_seen(RT_RCU_QSBR) || __atomic_load_n(&rt_rcu_qsbr_registered, __ATOMIC_RELAXED))
        return;
    struct access now, other;
    int unprotected = 0, dangling = 0;
    struct dangling d;
    fill_access(&now, t, 0, 0, __atomic_load_n(&rt_rcuptr_clock, __ATOMIC_RELAXED), pc);
    rt_spin_lock(&table_lock);
    struct location *loc = slot ? find_slot(slot) : value ? find_value(value) : NULL;
    if (!loc && slot && value)
        loc = add_slot(slot); /* value unknown until a write: only the dereference is kept */
    if (!loc) {
        rt_spin_unlock(&table_lock);
        return;
    }
    slot = loc->slot;
    if (loc->dangling == 1 && value && value == loc->value) {
        take_dangling(loc, &d);
        dangling = 1;
    }
    if (!(loc->reported & REPORTED_DEREF)) {
        for (unsigned i = 0; i < PTR_WRITERS && !unprotected; i++) {
            const struct access *w = &loc->writes[i];
            if (w->tid && w->tid != t->tid && w->clock > t->rcuptr_birth && !have_common_lock(&now.locks, &w->locks)) {
                other = *w;
                unprotected = 1;
            }
        }
        if (!loc->pending.tid)
            loc->pending = now; /* judged again at the next write (the writer above may have exited) */
    }
    rt_spin_unlock(&table_lock);

    if (dangling)
        report_freed(&d, "and this thread reads it afterwards with rcu_dereference(), at:", rt_rcu_stack_here());
    if (unprotected && thread_alive(other.tid))
        report_deref(t, NULL, slot, RT_DEREF_PLAIN, &other);
}

void rt_rcuptr_deref_inside(const void *slotp, const void *valuep)
{
    uintptr_t value = (uintptr_t)valuep;
    if (!value || !__atomic_load_n(&rt_rcuptr_dangling, __ATOMIC_RELAXED))
        return;
    struct dangling d;
    int dangling = 0;
    rt_spin_lock(&table_lock);
    struct location *loc = slotp ? find_slot((uintptr_t)slotp) : find_value(value);
    if (loc && loc->dangling == 1 && loc->value == value) {
        take_dangling(loc, &d);
        dangling = 1;
    }
    rt_spin_unlock(&table_lock);
    if (dangling)
        report_freed(&d, "and a reader obtains it afterwards with rcu_dereference(), at:", rt_rcu_stack_here());
}

struct reader_search { int self, found; };
static void match_reader(struct rt_thread *t, void *arg)
{
    struct reader_search *s = arg;
    struct rt_rcu_section sec;
    if (t->tid != s->self && (t->rcu.sections || rt_rcu_section_of(t, &sec)))
        s->found = 1;
}

/* Could another thread still read an RCU pointer (it has read-side
 * sections behind it and is alive)? At a program's teardown, after its
 * readers are joined, a pointer left holding freed memory harms nobody
 * unless it is used again. */
static int other_readers_alive(int self)
{
    struct reader_search s = { self, 0 };
    rt_thread_for_each(match_reader, &s);
    return s.found;
}

/* What the pointer holds now, read without faulting (its memory may be
 * gone: a stack, an unmapping the runtime does not see). 1: read; 0: the
 * memory is not there; -1: cannot tell (the system call is refused). */
static int read_slot(uintptr_t slot, uintptr_t *out)
{
    struct iovec local = { out, sizeof *out }, remote = { (void *)slot, sizeof *out };
    long pid = rt_raw_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0);
    long n = rt_raw_syscall6(SYS_process_vm_readv, pid, (long)&local, 1, (long)&remote, 1, 0);
    return n == (long)sizeof *out ? 1 : n == -14 /* EFAULT */ ? 0 : -1;
}

/* Does the pointer still hold value? A store the runtime does not see (an
 * inlined liburcu operation, a plain store, cds_list_del_rcu) may have
 * changed it; then the table follows what it holds. */
static int still_holds(uintptr_t slot, uintptr_t value)
{
    uintptr_t now;
    int r = read_slot(slot, &now);
    if (r < 0)
        return 1;
    if (r == 1 && now == value)
        return 1;
    rt_spin_lock(&table_lock);
    struct location *loc = find_slot(slot);
    if (loc && loc->value == value) {
        if (loc->dangling == 1)
            __atomic_fetch_sub(&rt_rcuptr_dangling, 1, __ATOMIC_RELAXED);
        loc->dangling = 0;
        if (r == 1)
            set_value(loc, now);
        else
            drop(loc);
    }
    rt_spin_unlock(&table_lock);
    return 0;
}

/* Is the pointer in static storage (always reachable)? */
static int static_storage(uintptr_t slot)
{
    struct rt_module m;
    return rt_module_find(slot, &m) == 0;
}

void rt_rcuptr_on_free(struct rt_thread *t, uintptr_t start, size_t len, uintptr_t pc)
{
    (void)pc;
    uintptr_t end = start + len;
    uintptr_t first = (start - RT_FILTER_REACH) >> RT_LINE_SHIFT, last = (end - 1) >> RT_LINE_SHIFT;
    int every_bucket = last - first >= BUCKETS;
    uintptr_t hits[MAX_HITS], held[MAX_HITS];
    unsigned nhits = 0;
    rt_spin_lock(&table_lock);
    /* Pointers inside the block end with it, whatever they hold. */
    for (uintptr_t line = first; line <= last; line++) {
        unsigned b = every_bucket ? (unsigned)(line - first) : bucket_of(line << RT_LINE_SHIFT);
        if (every_bucket && b >= BUCKETS)
            break;
        for (struct location *loc = slot_chain[b], *next; loc; loc = next) {
            next = loc->by_slot;
            if (loc->slot >= start && loc->slot < end)
                drop(loc);
        }
    }
    for (uintptr_t line = first; line <= last; line++) {
        unsigned b = every_bucket ? (unsigned)(line - first) : bucket_of(line << RT_LINE_SHIFT);
        if (every_bucket && b >= BUCKETS)
            break;
        for (struct location *loc = value_chain[b]; loc; loc = loc->by_value) {
            if (loc->value < start || loc->value >= end || loc->dangling)
                continue;
            loc->dangling = 1;
            loc->freed_tid = t->tid;
            loc->freed_start = start;
            loc->freed_end = end;
            loc->freed_stack = 0;
            __atomic_fetch_add(&rt_rcuptr_dangling, 1, __ATOMIC_RELAXED);
            if (nhits < MAX_HITS) {
                held[nhits] = loc->value;
                hits[nhits++] = loc->slot;
            }
        }
    }
    rt_spin_unlock(&table_lock);
    if (!nhits)
        return;
    rt_stack_id stack = rt_rcu_stack_here();
    int readers = other_readers_alive(t->tid);
    /* Readers that start from now on must call out at their first
     * dereference of it (record mode's line clocks). */
    rt_rcu_tick();
    for (unsigned i = 0; i < nhits; i++) {
        if (!still_holds(hits[i], held[i]))
            continue;
        int now = readers && static_storage(hits[i]);
        struct dangling d;
        int take = 0;
        rt_spin_lock(&table_lock);
        struct location *loc = find_slot(hits[i]);
        if (loc && loc->dangling == 1 && loc->freed_tid == t->tid && loc->freed_start == start) {
            loc->freed_stack = stack;
            loc->readers_at_free = (uint8_t)readers;
            if (now) {
                take_dangling(loc, &d);
                take = 1;
            }
        }
        rt_spin_unlock(&table_lock);
        if (take)
            report_freed(&d, NULL, 0);
    }
}

/* Pointers left holding memory freed while readers ran: in a heap block
 * that was never freed (a static one was reported at the free). */
void rt_rcuptr_at_exit(void)
{
    if (!__atomic_load_n(&rt_rcuptr_dangling, __ATOMIC_RELAXED))
        return;
    for (;;) {
        struct dangling d;
        int take = 0;
        rt_spin_lock(&table_lock);
        for (unsigned b = 0; b < BUCKETS && !take; b++)
            for (struct location *loc = slot_chain[b]; loc && !take; loc = loc->by_slot)
                if (loc->dangling == 1 && loc->readers_at_free) {
                    take_dangling(loc, &d);
                    take = 1;
                }
        rt_spin_unlock(&table_lock);
        if (!take)
            return;
        if (still_holds(d.slot, d.value))
            report_freed(&d, "and it still holds it as the program exits.", 0);
    }
}

void rt_rcuptr_after_fork(void)
{
    rt_spin_reinit(&table_lock);
}
