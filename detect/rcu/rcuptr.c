/* RCU pointers as locations: see rcuptr.h for the three checks (reports:
 * rcuptr_report.c; orderings: rcuhb.c; retired objects: rcuretired.c).
 *
 * A location is found by its own address (the slot) or by what it holds
 * (liburcu's rcu_dereference passes the value alone), so each sits in two
 * chains: by the slot's line and by the value's line, which is also how a
 * freed range finds the pointers inside it and the pointers to it. One
 * spin lock guards the tables; reports are built after it is released
 * (they symbolize, walk the thread registry and may take the loader lock,
 * which a thread inside free() may hold). */
#include "rcu/rcuptr_internal.h"
#include "locks/locks.h"
#include "rcu/rcuretired.h"
#include "report/report.h"
#include "rcu/rcucheck_internal.h"
#include "core/core.h"
#include <sys/syscall.h>
#include <sys/uio.h>

#define PTR_WRITERS 3    /* distinct writer threads remembered per pointer */
#define BUCKET_BITS 12
#define BUCKETS (1u << BUCKET_BITS)
#define MAX_LOCATIONS 65536
#define MAX_HITS 8

struct location {
    struct location *by_slot, *by_value;
    uintptr_t slot, value;      /* value: 0 when not known (never written through us, or NULL) */
    uint64_t shared_clock;      /* the first write by a second thread (0: one writer so far) */
    struct access writes[PTR_WRITERS]; /* the last write of each recent writer */
    struct access pending;      /* a dereference outside any section, to judge at the next write */
    /* Set when the object it holds was freed: who freed what, and where. */
    uint8_t dangling, reported;
    uint8_t readers_at_free;    /* other threads that read RCU sections were alive at the free */
    uint8_t reused;             /* the freed address was published again: a load of it by value is not of the freed object */
    int freed_tid;
    uintptr_t freed_start, freed_end;
    rt_stack_id freed_stack;
};

/* Counts, per line, the pointers there and the values that point there, so
 * that a line is clear again once nothing tracked is near it: memory that
 * held published objects is reused for others, whose frees must stay cheap. */
uint8_t rt_rcuptr_filter[RT_FILTER_LINES + RT_FILTER_PAD];
_Atomic unsigned rt_rcuptr_dangling;
_Atomic unsigned rt_rcu_qsbr_registered;
_Atomic int rt_rcuptr_urcu_api;

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

/* A location holding value; one still holding live memory first. One
 * whose freed address was published again is not found by its value: the
 * value now names the new object. */
static struct location *find_value(uintptr_t value)
{
    struct location *dangling = NULL;
    for (struct location *l = value_chain[bucket_of(value)]; l; l = l->by_value)
        if (l->value == value) {
            if (!l->dangling)
                return l;
            if (!l->reused)
                dangling = l;
        }
    return dangling;
}

/* Is a live (not dangling) location holding a value in (lo, hi]? */
static int live_value_between(uintptr_t lo, uintptr_t hi)
{
    for (uintptr_t line = lo >> RT_LINE_SHIFT; line <= hi >> RT_LINE_SHIFT; line++)
        for (struct location *l = value_chain[bucket_of(line << RT_LINE_SHIFT)]; l; l = l->by_value)
            if (l->value > lo && l->value <= hi && !l->dangling)
                return 1;
    return 0;
}

/* Does the cell at slot lie inside a retired object (rcuretired.h)? The
 * nearest retired start below it owns it unless a published object
 * begins in between. */
static int in_retired_object(uintptr_t slot)
{
    uintptr_t obj = rt_rcuretired_below(slot);
    return obj && !live_value_between(obj, slot);
}

/* fresh is published: a dangling pointer that holds freed memory at that
 * address holds the new object's address, not a way to the freed one. */
static void note_reused(uintptr_t fresh)
{
    for (struct location *l = value_chain[bucket_of(fresh)]; l; l = l->by_value)
        if (l->dangling == 1 && fresh >= l->freed_start && fresh < l->freed_end)
            l->reused = 1;
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

void rt_rcuptr_mark_reported(uintptr_t slot, uint8_t bit)
{
    rt_spin_lock(&table_lock);
    struct location *loc = find_slot(slot);
    if (loc)
        loc->reported |= bit;
    rt_spin_unlock(&table_lock);
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

/* Does the object at obj hold a pointer to target in its first bytes
 * (those in its first page)? Read without faulting: a published value
 * need not be memory at all (a sentinel, a tagged word). A read refused
 * (a seccomp filter) finds nothing: the object counts as retired, which
 * can hide a dangling pointer inside it, never make a report. */
static int points_to(uintptr_t obj, uintptr_t target)
{
    uintptr_t words[RT_RETIRED_REACH / 2 / sizeof(uintptr_t)];
    if (!obj || obj % sizeof(uintptr_t))
        return 0;
    size_t len = sizeof words, room = ((obj | 4095) + 1) - obj;
    len = len < room ? len : room;
    struct iovec local = { words, len }, remote = { (void *)obj, len };
    long pid = rt_raw_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0);
    long n = rt_raw_syscall6(SYS_process_vm_readv, pid, (long)&local, 1, (long)&remote, 1, 0);
    for (long k = 0; k < n / (long)sizeof(uintptr_t); k++)
        if (words[k] == target)
            return 1;
    return 0;
}

/* ---- events ------------------------------------------------------------- */

/* A write that another thread's earlier write can interleave with: not in
 * the pointer's first writer's phase alone, not made before t existed, not
 * ordered before t by a post, signal, exit or lock handoff (rcuhb.h), and
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
        if (rt_rcuhb_ordered(t, w->tid, w->clock))
            continue; /* a post, signal, exit or lock release of w's thread after it reached t before now */
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
    t->rcu_wrote = 1; /* its lock releases publish from now on (rcuhb.h) */
    t->rcu_hb_gen++;
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
        if (!have_common_lock(&loc->pending.locks, &now.locks) && !(loc->reported & REPORTED_DEREF) &&
            !rt_rcuhb_ordered(t, loc->pending.tid, loc->pending.clock)) {
            deref = loc->pending;
            unprotected = 1;
        }
        loc->pending.tid = 0;
    }
    remember_write(loc, &now);
    loc->dangling = 0;
    loc->reused = 0;
    set_value(loc, (uintptr_t)fresh);
    if (fresh)
        note_reused((uintptr_t)fresh);
    int retire = old && old != fresh && !live_value_between((uintptr_t)old - 1, (uintptr_t)old);
    rt_spin_unlock(&table_lock);
    if (fresh)
        rt_rcuretired_remove((uintptr_t)fresh);
    /* The replaced object is retired unless a pointer still holds it: a
     * tracked one, or the new object itself (an insertion before it). */
    if (retire && !points_to((uintptr_t)fresh, (uintptr_t)old))
        rt_rcuretired_add((uintptr_t)old);

    if (was_dangling)
        rt_rcuptr_report_freed(&d, "and it was still published until replaced here, at:", rt_stack_here());
    if (conflict && rt_rcuptr_thread_alive(other.tid))
        rt_rcuptr_report_update(t, slot, &now, &other);
    if (unprotected && rt_rcuptr_thread_alive(deref.tid))
        rt_rcuptr_report_deref(NULL, &deref, slot, RT_DEREF_PLAIN, &now);
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
            rt_rcuptr_report_deref(t, NULL, slot, form, NULL);
        return;
    }
    if (!slot && !__atomic_load_n(&rt_rcuptr_urcu_api, __ATOMIC_RELAXED))
        __atomic_store_n(&rt_rcuptr_urcu_api, 1, __ATOMIC_RELAXED); /* reports' hints say what liburcu has */
    /* QSBR readers are inside a read-side section whenever they are online,
     * with no call that says so. */
    if (rt_rcu_flavor_seen(RT_RCU_QSBR) || __atomic_load_n(&rt_rcu_qsbr_registered, __ATOMIC_RELAXED))
        return;
    struct access now, other;
    int unprotected = 0, dangling = 0;
    struct dangling d;
    fill_access(&now, t, 0, 0, __atomic_load_n(&rt_rcuptr_clock, __ATOMIC_RELAXED), pc);
    /* The kernel's PROVE_RCU rule: no section and no lock is enough. */
    int lockdep = rt_opt.rcu_deref_rule == RT_DEREF_LOCKDEP && now.locks.n == 0;
    rt_spin_lock(&table_lock);
    struct location *loc = slot ? find_slot(slot) : value ? find_value(value) : NULL;
    if (!loc && slot && value)
        loc = add_slot(slot); /* value unknown until a write: only the dereference is kept */
    if (!loc) {
        rt_spin_unlock(&table_lock);
        if (lockdep)
            rt_rcuptr_report_deref(t, NULL, slot, RT_DEREF_PLAIN, NULL);
        return;
    }
    slot = loc->slot;
    if (loc->dangling == 1 && value && value == loc->value) {
        take_dangling(loc, &d);
        dangling = 1;
    }
    uint8_t loc_reported = loc->reported;
    if (!(loc->reported & REPORTED_DEREF)) {
        for (unsigned i = 0; i < PTR_WRITERS && !unprotected; i++) {
            const struct access *w = &loc->writes[i];
            if (w->tid && w->tid != t->tid && w->clock > t->rcuptr_birth && !have_common_lock(&now.locks, &w->locks) &&
                !rt_rcuhb_ordered(t, w->tid, w->clock)) {
                other = *w;
                unprotected = 1;
            }
        }
        if (!loc->pending.tid)
            loc->pending = now; /* judged again at the next write (the writer above may have exited) */
    }
    rt_spin_unlock(&table_lock);

    if (dangling)
        rt_rcuptr_report_freed(&d, "and this thread reads it afterwards with rcu_dereference(), at:", rt_stack_here());
    if (unprotected && rt_rcuptr_thread_alive(other.tid))
        rt_rcuptr_report_deref(t, NULL, slot, RT_DEREF_PLAIN, &other);
    else if (lockdep && !(loc_reported & REPORTED_DEREF))
        rt_rcuptr_report_deref(t, NULL, slot, RT_DEREF_PLAIN, NULL);
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
        rt_rcuptr_report_freed(&d, "and a reader obtains it afterwards with rcu_dereference(), at:", rt_stack_here());
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
    rt_rcuretired_freed(start, len);
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
            /* A cell of an object already unpublished publishes nothing. */
            if (in_retired_object(loc->slot))
                continue;
            loc->dangling = 1;
            loc->reused = 0;
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
    rt_stack_id stack = rt_stack_here();
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
            rt_rcuptr_report_freed(&d, NULL, 0);
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
            rt_rcuptr_report_freed(&d, "and it still holds it as the program exits.", 0);
    }
}

void rt_rcuptr_after_fork(void)
{
    rt_spin_reinit(&table_lock);
    rt_rcuhb_after_fork();
    rt_rcuretired_after_fork();
}
