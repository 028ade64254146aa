/* The RCU pointer checks' reports (rcuptr.h), built with the table
 * unlocked: they symbolize, walk the thread registry and may take the
 * loader lock, which a thread inside free() may hold. */
#include "rcu/rcuptr_internal.h"
#include "locks/locks.h"
#include "report/report.h"
#include "rcu/rcucheck_internal.h"
struct tid_search { int tid, found; };
static void match_tid(struct rt_thread *t, void *arg)
{
    struct tid_search *s = arg;
    s->found |= t->tid == s->tid;
}

int rt_rcuptr_thread_alive(int tid)
{
    struct tid_search s = { tid, 0 };
    rt_thread_for_each(match_tid, &s);
    return s.found;
}

static void pointer_name(uintptr_t slot, char *out, size_t cap)
{
    char name[160];
    struct rt_buf b;
    rt_buf_init(&b, out, cap);
    if (!slot) { /* liburcu's rcu_dereference() passes the value alone */
        rt_buf_puts(&b, "an RCU pointer");
        return;
    }
    rt_lock_name(NULL, slot, name, sizeof name);
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

static const char *form_text(enum rt_rcu_deref_form form)
{
    switch (form) {
    case RT_DEREF_CHECK_FAILED: return "calls rcu_dereference_check() whose condition is false, outside any read-side critical section,";
    case RT_DEREF_PROTECTED_FAILED: return "calls rcu_dereference_protected() whose condition is false";
    default: return "calls rcu_dereference() outside any read-side critical section";
    }
}

/* Dereference sites already reported (lossy beyond SITES_KEPT; the report
 * key still folds repeats): one report per site, not per pointer, so that
 * a loop over many objects is one finding. */
#define SITES_KEPT 64
static _Atomic rt_stack_id sites_reported[SITES_KEPT];
static _Atomic unsigned sites_next;

static int site_reported(rt_stack_id site)
{
    for (unsigned i = 0; i < SITES_KEPT; i++)
        if (__atomic_load_n(&sites_reported[i], __ATOMIC_RELAXED) == site)
            return 1;
    return 0;
}

/* What to write instead depends on the RCU: liburcu has no
 * rcu_dereference_protected(); its updaters load with a plain load. */
static void deref_hint(struct rt_report *r)
{
    int liburcu = __atomic_load_n(&rt_rcuptr_urcu_api, __ATOMIC_RELAXED);
    for (int f = RT_RCU_MEMB; f < RT_RCU_FLAVORS; f++)
        liburcu |= rt_rcu_flavor_seen((enum rt_rcu_flavor)f);
    if (liburcu && !rt_rcu_flavor_seen(RT_RCU_RTDD))
        rt_report_text(r, "Hint: dereference inside rcu_read_lock()/rcu_read_unlock(), or hold the updaters' lock; "
                          "liburcu has no rcu_dereference_protected(): where the lock (or the object being "
                          "unreachable) protects it, load the pointer plainly (CMM_LOAD_SHARED(p)).");
    else
        rt_report_text(r, "Hint: dereference inside rcu_read_lock()/rcu_read_unlock(), or hold the updaters' lock "
                          "(and say so with rcu_dereference_protected(p, lockdep_is_held(&lock))).");
}

void rt_rcuptr_report_deref(struct rt_thread *t, const struct access *deref, uintptr_t slot,
                            enum rt_rcu_deref_form form, const struct access *writer)
{
    char comm[32], wcomm[32], name[200], locks[400];
    int tid = t ? t->tid : deref->tid;
    rt_stack_id site = t ? rt_stack_here() : deref->stack;
    rt_rcuptr_mark_reported(slot, REPORTED_DEREF);
    if (site && site_reported(site))
        return;
    rt_thread_comm(tid, comm, sizeof comm);
    struct rt_report *r = rt_report_begin(RT_KIND_RCU_UNPROTECTED_DEREFERENCE, tid);
    if (!r)
        return;
    rt_report_headline(r, "WARNING: suspicious RCU usage");
    pointer_name(slot, name, sizeof name);
    rt_report_stack(r, site, "%s/%d %s, on %s, at:", comm, tid, form_text(form), name);
    if (writer) {
        rt_thread_comm(writer->tid, wcomm, sizeof wcomm);
        describe_locks(&writer->locks, locks, sizeof locks);
        rt_report_stack(r, writer->stack, "while %s/%d updates it with %s %s, at:", wcomm, writer->tid,
                        op_name(writer->op), locks);
        rt_report_text(r, "Once the updater waits for a grace period and frees the old object, this thread may "
                          "still be using it: neither a read-side critical section nor a lock of the updater's "
                          "protects it.");
    } else if (form == RT_DEREF_PLAIN) {
        rt_report_text(r, "rcu_deref_rule=lockdep: a dereference outside any read-side critical section by a "
                          "thread that holds no lock is reported at once, as the kernel's PROVE_RCU does.");
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
    deref_hint(r);
    if (site) {
        rt_report_key(r, rt_hash64((uint64_t)site ^ (uint64_t)RT_KIND_RCU_UNPROTECTED_DEREFERENCE << 48));
        __atomic_store_n(&sites_reported[__atomic_fetch_add(&sites_next, 1, __ATOMIC_RELAXED) % SITES_KEPT], site,
                         __ATOMIC_RELAXED);
    } else {
        report_key(r, RT_KIND_RCU_UNPROTECTED_DEREFERENCE, slot);
    }
    rt_report_finish(r);
}

void rt_rcuptr_report_update(struct rt_thread *t, uintptr_t slot, const struct access *now, const struct access *other)
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
    rt_report_stack(r, rt_stack_here(), "%s/%d updates %s with %s %s, at:", comm, t->tid, name,
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
    rt_rcuptr_mark_reported(slot, REPORTED_UPDATE);
}


void rt_rcuptr_report_freed(const struct dangling *d, const char *when, rt_stack_id when_stack)
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
