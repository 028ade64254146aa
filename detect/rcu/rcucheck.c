#include "rcu/rcu.h"
#include "locks/locks.h"
#include "rcu/rcucheck_internal.h"
#include "report/report.h"
#include "core/core.h"
#include <string.h>

_Atomic uint64_t rt_rcu_line_clock[1u << RT_RCU_LINE_BITS];
_Atomic uint64_t rt_rcu_gp_floor;

static _Atomic unsigned long migrated, sections;

const char *const rt_rcu_flavor_names[RT_RCU_FLAVORS] = { "librtdd_rcu", "urcu-memb", "urcu-mb", "urcu-bp",
                                                          "urcu-qsbr", "urcu-signal" };

/* The RCU clock: an epoch that only update-side events advance (a grace
 * period's start, an unpublish), so readers just load it. A reader that
 * loaded epoch e entered before every event numbered above e. */
_Atomic uint64_t rt_rcu_epoch = 1;
static inline uint64_t rcu_clock(void)
{
    return __atomic_load_n(&rt_rcu_epoch, __ATOMIC_ACQUIRE);
}

/* In record mode the clock is librtdd_rcu's grace-period word's upper 31
 * bits (RTDD_RCU_CLOCK_SHIFT): every rcu_read_lock() snapshots them into
 * its slot's word, so a section's entry clock costs the reader nothing.
 * rt_rcu_epoch follows it as the full 64-bit clock. */
static uint64_t *_Atomic clock_word;
#define CLOCK_BITS (64 - RTDD_RCU_CLOCK_SHIFT)

/* The full clock a 31-bit one stands for: the one nearest the current
 * clock (sections and notes are never 2^30 steps old). */
static uint64_t clock_from_word(uint64_t word)
{
    uint64_t now = rcu_clock();
    uint32_t c = (uint32_t)(word >> RTDD_RCU_CLOCK_SHIFT);
    int32_t diff = (int32_t)((c - (uint32_t)now) << 1) >> 1;
    return now + (uint64_t)(int64_t)diff;
}

/* The inline read side compares a line's clock with its section's modulo
 * 2^31: every 2^29 steps, lines more than that far behind are raised to
 * stay inside the window. Not while grace periods lag that far behind (the
 * raised lines would look referenced to free()); such a program may miss
 * notes after 2^30 more steps. */
#define LINE_REFRESH (1ull << (CLOCK_BITS - 2))
static void refresh_lines(uint64_t now)
{
    if (now < LINE_REFRESH)
        return;
    uint64_t target = now - LINE_REFRESH;
    if (__atomic_load_n(&rt_rcu_gp_floor, __ATOMIC_ACQUIRE) <= target)
        return;
    for (size_t i = 0; i < (1u << RT_RCU_LINE_BITS); i++) {
        uint64_t c = __atomic_load_n(&rt_rcu_line_clock[i], __ATOMIC_RELAXED);
        while (c < target && !__atomic_compare_exchange_n(&rt_rcu_line_clock[i], &c, target, 1, __ATOMIC_RELAXED,
                                                          __ATOMIC_RELAXED))
            ;
    }
}

uint64_t rt_rcu_tick(void)
{
    uint64_t *word = __atomic_load_n(&clock_word, __ATOMIC_ACQUIRE);
    if (!word)
        return __atomic_add_fetch(&rt_rcu_epoch, 1, __ATOMIC_ACQ_REL);
    uint64_t now = clock_from_word(__atomic_add_fetch(word, 1ull << RTDD_RCU_CLOCK_SHIFT, __ATOMIC_SEQ_CST));
    uint64_t cur = __atomic_load_n(&rt_rcu_epoch, __ATOMIC_RELAXED);
    while (cur < now && !__atomic_compare_exchange_n(&rt_rcu_epoch, &cur, now, 1, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
        ;
    if ((now & (LINE_REFRESH - 1)) == 0)
        refresh_lines(now);
    return now;
}

void rt_rcu_set_clock_word(uint64_t *gp_word)
{
    const uint64_t low = (1ull << RTDD_RCU_CLOCK_SHIFT) - 1;
    uint64_t w = __atomic_load_n(gp_word, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(gp_word, &w, (w & low) | rcu_clock() << RTDD_RCU_CLOCK_SHIFT, 1,
                                        __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
        ;
    __atomic_store_n(&clock_word, gp_word, __ATOMIC_RELEASE);
}

/* The begin clock of the latest grace period that completed, per flavour:
 * every reader that entered before it has left. */
static _Atomic uint64_t gp_done[RT_RCU_FLAVORS];

/* The RCUs seen in read sections, and the grace-period floor over them
 * (rt_rcu_gp_floor): recomputed when a grace period completes or a new RCU
 * shows up, and again if one showed up meanwhile, so it never stays above
 * an RCU in use. */
static _Atomic unsigned flavors_used;

static void refresh_gp_floor(void)
{
    unsigned used;
    do {
        used = __atomic_load_n(&flavors_used, __ATOMIC_ACQUIRE);
        uint64_t floor = UINT64_MAX;
        for (int f = 0; f < RT_RCU_FLAVORS; f++)
            if (used & (1u << f)) {
                uint64_t d = __atomic_load_n(&gp_done[f], __ATOMIC_ACQUIRE);
                floor = d < floor ? d : floor;
            }
        __atomic_store_n(&rt_rcu_gp_floor, used ? floor : 0, __ATOMIC_RELEASE);
    } while (__atomic_load_n(&flavors_used, __ATOMIC_ACQUIRE) != used);
}

static void note_flavor(enum rt_rcu_flavor f)
{
    if (!(__atomic_load_n(&flavors_used, __ATOMIC_RELAXED) & (1u << f))) {
        __atomic_fetch_or(&flavors_used, 1u << f, __ATOMIC_ACQ_REL);
        refresh_gp_floor();
    }
}

/* Every reader of f that entered before clock began has left. */
void rt_rcu_grace_period_done(enum rt_rcu_flavor f, uint64_t began)
{
    uint64_t done = __atomic_load_n(&gp_done[f], __ATOMIC_RELAXED);
    while (done < began &&
           !__atomic_compare_exchange_n(&gp_done[f], &done, began, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
        ;
    refresh_gp_floor();
}

/* The pseudo-locks: addresses inside the runtime that no program object
 * can have. */
char rt_rcu_anchors[RT_RCU_FLAVORS][2];
#define anchors rt_rcu_anchors

/* The record the inline read side shares with us. */
_Static_assert(RTDD_RCU_REC_LINE_SHIFT == RT_LINE_SHIFT && RTDD_RCU_REC_LINE_BITS == RT_RCU_LINE_BITS,
               "record mode indexes the line clocks as the runtime does");
_Static_assert(sizeof(rt_stack_id) == sizeof(uint32_t), "the record's site cache holds stack ids");

/* The RCU pseudo-locks once created, by flavour (they are never retired). */
static struct rt_lock *_Atomic readers_lock[RT_RCU_FLAVORS];

struct rt_lock *rt_rcu_pseudo_lock(struct rt_thread *t, enum rt_rcu_flavor f, int callbacks, uintptr_t pc)
{
    struct rt_lock *l = rt_lock_lookup(t, (uintptr_t)&anchors[f][callbacks], RT_LOCK_RWLOCK, pc);
    if (l && !callbacks)
        __atomic_store_n(&readers_lock[f], l, __ATOMIC_RELEASE);
    if (l && !l->rcu_pseudo)
        l->rcu_pseudo = (uint8_t)(1 + callbacks);
    return l;
}

const char *rt_rcu_pseudo_name(const struct rt_lock *l)
{
    static const char *const names[RT_RCU_FLAVORS][2] = {
        { "rcu_read_lock", "rcu_callbacks" },
        { "rcu_read_lock(urcu-memb)", "rcu_callbacks(urcu-memb)" },
        { "rcu_read_lock(urcu-mb)", "rcu_callbacks(urcu-mb)" },
        { "rcu_read_lock(urcu-bp)", "rcu_callbacks(urcu-bp)" },
        { "rcu_read_lock(urcu-qsbr)", "rcu_callbacks(urcu-qsbr)" },
        { "rcu_read_lock(urcu-signal)", "rcu_callbacks(urcu-signal)" },
    };
    uintptr_t off = __atomic_load_n(&l->addr, __ATOMIC_RELAXED) - (uintptr_t)&anchors[0][0];
    return off < sizeof anchors ? names[off / 2][off % 2] : "rcu";
}

int rt_rcu_is_pseudo(const struct rt_lock *l)
{
    return l && l->rcu_pseudo;
}

int rt_rcu_forgotten_at_fork(const struct rt_lock *l, uintptr_t addr)
{
    return rt_rcu_is_pseudo(l) &&
           (addr == (uintptr_t)&anchors[RT_RCU_RTDD][0] || addr == (uintptr_t)&anchors[RT_RCU_RTDD][1]);
}

int rt_rcu_section_of(const struct rt_thread *t, struct rt_rcu_section *s)
{
    unsigned depth = __atomic_load_n(&t->rcu.depth, __ATOMIC_ACQUIRE);
    if (depth) {
        s->depth = depth;
        s->flavor = __atomic_load_n(&t->rcu.flavor, __ATOMIC_RELAXED);
        s->clock = __atomic_load_n(&t->rcu.enter_clock, __ATOMIC_RELAXED);
        return 1;
    }
    const volatile uint64_t *slot_word = __atomic_load_n(&t->rcu_ctr, __ATOMIC_ACQUIRE);
    uint64_t word = slot_word ? __atomic_load_n(slot_word, __ATOMIC_ACQUIRE) : 0;
    if (!(word & RTDD_RCU_NEST_MASK))
        return 0;
    s->depth = (unsigned)(word & RTDD_RCU_NEST_MASK);
    s->flavor = RT_RCU_RTDD;
    s->clock = clock_from_word(word);
    return 1;
}

/* Does librtdd_rcu's slot track f's sections of this thread? */
static inline int slot_tracked(const struct rt_thread *t, enum rt_rcu_flavor f)
{
    return f == RT_RCU_RTDD && t->rcu_slot != NULL;
}

#define PC_MASK ((1ull << RTDD_RCU_REC_PC_BITS) - 1)
static inline uint64_t entry_of(uintptr_t pc, int cpu)
{
    return (pc & PC_MASK) | (uint64_t)(uint16_t)cpu << RTDD_RCU_REC_PC_BITS;
}
static inline int entry_cpu(uint64_t entry)
{
    uint16_t cpu = (uint16_t)(entry >> RTDD_RCU_REC_PC_BITS);
    return cpu == 0xffff ? -1 : cpu;
}

uint64_t rt_rcu_enter_clock(const struct rt_thread *t)
{
    struct rt_rcu_section s;
    return rt_rcu_section_of(t, &s) ? s.clock : 0;
}

uintptr_t rt_rcu_enter_pc(const struct rt_thread *t)
{
    return (uintptr_t)(__atomic_load_n(&t->rcu.entry, __ATOMIC_RELAXED) & PC_MASK);
}

rt_stack_id rt_rcu_enter_stack(const struct rt_thread *t)
{
    return rt_site_stack_known(rt_rcu_enter_pc(t));
}

/* what == NULL: no stack of the call itself (a thread's exit runs in
 * libc's teardown; the section's entry is what explains it). */
void rt_rcu_report_simple(struct rt_thread *t, enum rt_kind kind, const char *headline, const char *what,
                          const char *explain)
{
    char comm[32];
    rt_thread_comm(t->tid, comm, sizeof comm);
    struct rt_report *r = rt_report_begin(kind, t->tid);
    if (!r)
        return;
    rt_report_headline(r, "%s", headline);
    if (what)
        rt_report_stack(r, rt_stack_here(), "%s/%d %s at:", comm, t->tid, what);
    else
        rt_report_text(r, "%s/%d is exiting", comm, t->tid);
    struct rt_rcu_section sec;
    if (rt_rcu_section_of(t, &sec))
        rt_report_stack(r, rt_site_stack_complete(rt_rcu_enter_pc(t), 0),
                        "inside the %s read-side critical section (depth %u) it entered at:",
                        rt_rcu_flavor_names[sec.flavor], sec.depth);
    if (explain)
        rt_report_text(r, "%s", explain);
    rt_report_held_locks(r, t, comm);
    rt_report_finish(r);
}

/* Record mode: while the section's pseudo-lock is on the held stack, its
 * events must all reach us (its end pops it): the record is withheld from
 * the inline read side. */
static void gate(struct rt_thread *t, int on)
{
    struct rtdd_rcu_reader *slot = t->rcu_slot;
    t->rcu_gated = (uint8_t)on;
    if (slot)
        __atomic_store_n(&slot->record, on ? NULL : &t->rcu, __ATOMIC_RELEASE);
}

/* Is the thread's section (of its current flavour) on its held stack?
 * Other threads may ask: the stack is read as the watchdog reads it. */
static int section_on_stack(const struct rt_thread *t, unsigned f)
{
    const struct rt_held *held = __atomic_load_n(&t->held, __ATOMIC_ACQUIRE);
    unsigned n = __atomic_load_n(&t->nheld, __ATOMIC_ACQUIRE);
    uintptr_t anchor = (uintptr_t)&anchors[f][0];
    for (unsigned i = n; i-- > 0;)
        if (__atomic_load_n(&held[i].addr, __ATOMIC_RELAXED) == anchor)
            return 1;
    return 0;
}

/* A section begins: where, and on which CPU; its dereferences so far are
 * none. */
static void section_begins(struct rt_thread *t, uintptr_t pc)
{
    if (pc)
        rt_site_stack(t, pc); /* captured now: reports name the site later */
    __atomic_store_n(&t->rcu.entry, entry_of(pc, rt_thread_cpu(t)), __ATOMIC_RELAXED);
    __atomic_store_n(&t->rcu.nderef, 0, __ATOMIC_RELEASE);
}

/* A section ends: counted (per thread, no shared write), and its
 * dereferences are forgotten before another section can begin. */
static void section_ends(struct rt_thread *t)
{
    __atomic_store_n(&t->rcu.nderef, 0, __ATOMIC_RELAXED);
    t->rcu.sections++;
    int cpu = entry_cpu(t->rcu.entry);
    if (cpu >= 0 && rt_thread_cpu(t) != cpu)
        t->rcu.migrated++;
}

void rt_rcu_read_enter(struct rt_thread *t, enum rt_rcu_flavor f, uintptr_t pc)
{
    rt_rcu_mark_in_use();
    if (slot_tracked(t, f)) {
        /* The slot counts the nesting and holds the entry clock. */
        if ((__atomic_load_n(t->rcu_ctr, __ATOMIC_RELAXED) & RTDD_RCU_NEST_MASK) != 1)
            return;
        note_flavor(f);
        section_begins(t, pc);
        if (t->nheld) {
            struct rt_lock *l = rt_rcu_pseudo_lock(t, f, 0, pc);
            if (l) {
                uint64_t chain = rt_on_lock_pre(t, l, RT_ACQ_READ, pc);
                rt_on_lock_acquired(t, l, RT_ACQ_READ, chain, pc);
                gate(t, 1);
            }
        }
        return;
    }
    unsigned depth = t->rcu.depth;
    if (depth) {
        t->rcu.depth = depth + 1;
        return;
    }
    /* Outermost: a read acquisition of the flavour's RCU lock. */
    note_flavor(f);
    struct rt_lock *l = rt_rcu_pseudo_lock(t, f, 0, pc);
    t->rcu.flavor = (uint8_t)f;
    section_begins(t, pc);
    /* Pushed before the depth is set, so that the push is not taken for
     * a lock inside a section recorded inline (rt_rcu_materialize). */
    if (l) {
        uint64_t chain = rt_on_lock_pre(t, l, RT_ACQ_READ, pc);
        rt_on_lock_acquired(t, l, RT_ACQ_READ, chain, pc);
    }
    __atomic_store_n(&t->rcu.enter_clock, rcu_clock(), __ATOMIC_RELAXED);
    __atomic_store_n(&t->rcu.depth, 1, __ATOMIC_RELEASE);
}

void rt_rcu_attach(struct rt_thread *t, struct rtdd_rcu_reader *slot)
{
    if (t->rcu_slot == slot && (t->rcu_gated || __atomic_load_n(&slot->record, __ATOMIC_RELAXED) == &t->rcu))
        return;
    /* A librtdd_rcu section the runtime tracks itself is seen to its end. */
    if (t->rcu.depth && t->rcu.flavor == RT_RCU_RTDD)
        return;
    if (t->rcu_slot && t->rcu_slot != slot)
        rt_rcu_detach(t);
    rt_rcu_mark_in_use();
    note_flavor(RT_RCU_RTDD);
    t->rcu.line_clock = (const uint64_t *)rt_rcu_line_clock;
    /* A section already open here began unseen: where is unknown, and
     * the CPU it began on is taken to be this one. */
    if (__atomic_load_n(&slot->ctr, __ATOMIC_RELAXED) & RTDD_RCU_NEST_MASK) {
        __atomic_store_n(&t->rcu.entry, entry_of(0, rt_thread_cpu(t)), __ATOMIC_RELAXED);
        __atomic_store_n(&t->rcu.nderef, 0, __ATOMIC_RELAXED);
    }
    t->rcu_slot = slot;
    __atomic_store_n(&t->rcu_ctr, &slot->ctr, __ATOMIC_RELEASE);
    gate(t, 0);
}

void rt_rcu_detach(struct rt_thread *t)
{
    struct rtdd_rcu_reader *slot = t->rcu_slot;
    if (!slot)
        return;
    struct rtdd_rcu_record *mine = &t->rcu;
    __atomic_compare_exchange_n(&slot->record, &mine, NULL, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
    __atomic_store_n(&t->rcu_ctr, NULL, __ATOMIC_RELEASE);
    t->rcu_slot = NULL;
    t->rcu_gated = 0;
}

struct rt_lock *rt_rcu_unmaterialized_lock(const struct rt_thread *t)
{
    struct rt_rcu_section s;
    if (!rt_rcu_section_of(t, &s) || s.flavor >= RT_RCU_FLAVORS || section_on_stack(t, s.flavor))
        return NULL;
    return __atomic_load_n(&readers_lock[s.flavor], __ATOMIC_ACQUIRE);
}

void rt_rcu_materialize(struct rt_thread *t)
{
    struct rt_lock *l = rt_rcu_unmaterialized_lock(t);
    if (!l)
        return;
    /* Pushed as if taken when the section began: no edge into it (none
     * is needed: a read section never waits, so no deadlock goes through
     * an edge that leads into it). */
    uint64_t entry = __atomic_load_n(&t->rcu.entry, __ATOMIC_RELAXED);
    rt_on_lock_acquired_at(t, l, RT_ACQ_READ, rt_site_stack_known((uintptr_t)(entry & PC_MASK)), entry_cpu(entry));
    if (!t->rcu.depth && t->rcu_slot)
        gate(t, 1);
}

void rt_rcu_read_unbalanced(struct rt_thread *t, uintptr_t pc)
{
    (void)pc;
    rt_rcu_report_simple(t, RT_KIND_RCU_UNBALANCED, "WARNING: bad rcu_read_unlock() nesting",
                         "calls rcu_read_unlock() outside any read-side critical section",
                         "There is no matching rcu_read_lock(): the unlock would end a section that another "
                         "rcu_read_lock() of this thread still needs, or underflow the nesting count.");
}

void rt_rcu_read_exit(struct rt_thread *t, enum rt_rcu_flavor f, uintptr_t pc)
{
    if (slot_tracked(t, f)) {
        /* Called after the slot's word dropped: 0 now is the outermost. */
        if (__atomic_load_n(t->rcu_ctr, __ATOMIC_RELAXED) & RTDD_RCU_NEST_MASK)
            return;
        section_ends(t);
        if (t->nheld && section_on_stack(t, f))
            rt_on_lock_release(t, (uintptr_t)&anchors[f][0], pc);
        if (t->rcu_gated)
            gate(t, 0);
        return;
    }
    unsigned depth = t->rcu.depth;
    if (depth == 0) {
        rt_rcu_read_unbalanced(t, pc);
        return;
    }
    if (depth > 1) {
        t->rcu.depth = depth - 1;
        return;
    }
    __atomic_store_n(&t->rcu.depth, 0, __ATOMIC_RELEASE);
    section_ends(t);
    if (t->nheld && section_on_stack(t, f))
        rt_on_lock_release(t, (uintptr_t)&anchors[f][0], pc);
}

int rt_rcu_flavor_seen(enum rt_rcu_flavor f)
{
    return (__atomic_load_n(&flavors_used, __ATOMIC_RELAXED) >> f) & 1;
}

void rt_rcu_dereference_unprotected(struct rt_thread *t, const void *slot, const void *value,
                                    enum rt_rcu_deref_form form, uintptr_t pc)
{
    struct rt_rcu_section s;
    /* rcu_dereference_check()'s condition is an alternative to a section. */
    if (form == RT_DEREF_CHECK_FAILED && rt_rcu_section_of(t, &s)) {
        rt_rcu_dereference(t, slot, value, pc);
        return;
    }
    rt_rcu_mark_in_use();
    rt_rcuptr_deref_outside(t, slot, value, form, pc);
}

void rt_rcu_dereference(struct rt_thread *t, const void *slot, const void *value, uintptr_t pc)
{
    struct rt_rcu_section s;
    if (!value)
        return;
    if (!rt_rcu_section_of(t, &s)) {
        /* A callback reclaims what call_rcu retired: unreachable by then,
         * its pointers (and what they hold) are the callback's alone. */
        if (!t->rcu.in_callback)
            rt_rcuptr_deref_outside(t, slot, value, RT_DEREF_PLAIN, pc);
        return;
    }
    rt_rcuptr_deref_inside(slot, value);
    rt_rcu_note_referenced((uintptr_t)value, s.clock);
    rt_site_stack(t, pc); /* captured now: reports name the site later */
    unsigned i = t->rcu.nderef % RT_RCU_DEREFS;
    __atomic_store_n(&t->rcu.nderef, t->rcu.nderef + 1, __ATOMIC_RELAXED);
    t->rcu.deref[i].pc = pc;
    __atomic_store_n(&t->rcu.deref[i].value, (uintptr_t)value, __ATOMIC_RELEASE);
}

/* Objects unpublished recently: pointer -> when and where. Lossy (a
 * collision forgets the older entry): it only refines reports. */
#define UNPUB_SLOTS 4096
static struct { uintptr_t ptr; uint64_t clock; rt_stack_id stack; } unpub[UNPUB_SLOTS];
static rt_spin_t unpub_lock = RT_SPIN_INIT;

/* The objects published most recently (lossy): their lines are noted at
 * each publish, a clock step after which every reader would otherwise call
 * out at its first dereference of what is published now (record mode's
 * line check). A replaced object leaves. Not at a grace period's start:
 * the lines would stay live to free() while the object stays published,
 * and frees of its neighbours would all look at the readers. */
#define PUBLISHED_KEEP 8
static _Atomic uintptr_t published[PUBLISHED_KEEP];
static _Atomic unsigned published_next;

static void note_published(uint64_t clock)
{
    for (unsigned i = 0; i < PUBLISHED_KEEP; i++) {
        uintptr_t p = __atomic_load_n(&published[i], __ATOMIC_RELAXED);
        if (p)
            rt_rcu_note_referenced(p, clock);
    }
}

static void keep_published(const void *old, const void *fresh)
{
    for (unsigned i = 0; i < PUBLISHED_KEEP; i++) {
        uintptr_t expect = (uintptr_t)old;
        if (old && __atomic_compare_exchange_n(&published[i], &expect, (uintptr_t)fresh, 0, __ATOMIC_RELAXED,
                                               __ATOMIC_RELAXED))
            return;
    }
    if (fresh)
        __atomic_store_n(&published[__atomic_fetch_add(&published_next, 1, __ATOMIC_RELAXED) % PUBLISHED_KEEP],
                         (uintptr_t)fresh, __ATOMIC_RELAXED);
}

void rt_rcu_publish(struct rt_thread *t, const void *slot, const void *old, const void *fresh, enum rt_rcu_update op,
                    uintptr_t pc)
{
    rt_rcu_mark_in_use();
    rt_rcuptr_write(t, slot, old, fresh, op, pc);
    keep_published(old, fresh);
    if (!old) {
        if (fresh)
            rt_rcu_note_referenced((uintptr_t)fresh, rcu_clock());
        return;
    }
    unsigned u = (unsigned)(rt_hash64((uintptr_t)old) & (UNPUB_SLOTS - 1));
    rt_stack_id stack = rt_site_stack(t, pc);
    uint64_t clock = rt_rcu_tick();
    rt_rcu_note_referenced((uintptr_t)old, clock);
    note_published(clock);
    rt_spin_lock(&unpub_lock);
    unpub[u].clock = clock;
    unpub[u].stack = stack;
    __atomic_store_n(&unpub[u].ptr, (uintptr_t)old, __ATOMIC_RELAXED);
    rt_spin_unlock(&unpub_lock);
}

/* A running reader that holds a reference into the freed range. */
struct ref_search {
    uintptr_t start, end, unpub_clock;
    int tid;
    uintptr_t entry_pc, deref_pc;
    uint8_t flavor;
};
static void find_reference(struct rt_thread *t, void *arg)
{
    struct ref_search *s = arg;
    struct rt_rcu_section sec;
    if (s->tid || !rt_rcu_section_of(t, &sec))
        return;
    /* A grace period that began after this reader entered has completed:
     * the reader has left already; its state lags behind. */
    if (sec.clock < __atomic_load_n(&gp_done[sec.flavor], __ATOMIC_ACQUIRE))
        return;
    unsigned nderef = __atomic_load_n(&t->rcu.nderef, __ATOMIC_ACQUIRE);
    unsigned n = nderef < RT_RCU_DEREFS ? nderef : RT_RCU_DEREFS;
    for (unsigned i = 0; i < n; i++) {
        uintptr_t v = __atomic_load_n(&t->rcu.deref[i].value, __ATOMIC_ACQUIRE);
        if (v >= s->start && v < s->end) {
            s->tid = t->tid;
            s->entry_pc = rt_rcu_enter_pc(t);
            s->deref_pc = __atomic_load_n(&t->rcu.deref[i].pc, __ATOMIC_RELAXED);
            s->flavor = sec.flavor;
            return;
        }
    }
    /* Unpublished and freed with no grace period in between, while this
     * reader, older than the unpublish, still runs. */
    if (s->unpub_clock && sec.clock < s->unpub_clock) {
        s->tid = t->tid;
        s->entry_pc = rt_rcu_enter_pc(t);
        s->deref_pc = 0;
        s->flavor = sec.flavor;
    }
}

/* Forgets the unpublish in slot; when no grace period completed since, its
 * clock and stack explain a free that came too early. */
static void take_unpublished(unsigned slot, uint64_t *clock, rt_stack_id *stack)
{
    int gp_since = 0;
    for (int f = 0; f < RT_RCU_FLAVORS; f++)
        gp_since |= __atomic_load_n(&gp_done[f], __ATOMIC_ACQUIRE) > unpub[slot].clock;
    if (!gp_since) {
        *clock = unpub[slot].clock;
        *stack = unpub[slot].stack;
    }
    __atomic_store_n(&unpub[slot].ptr, 0, __ATOMIC_RELAXED);
}

void rt_rcu_on_free(struct rt_thread *t, uintptr_t start, size_t len, uintptr_t pc)
{
    if (rt_rcuptr_may_overlap(start, len))
        rt_rcuptr_on_free(t, start, len, pc);
    if (t->rcu.in_callback)
        return; /* a callback runs after its grace period by definition */
    if (!rt_rcu_may_reference(start, len))
        return; /* never dereferenced nor unpublished: no reader can hold it */
    struct ref_search s = { start, start + len, 0, 0, 0, 0, 0 };
    rt_stack_id unpub_stack = 0;
    unsigned slot = (unsigned)(rt_hash64(start) & (UNPUB_SLOTS - 1));
    /* Most freed blocks were never unpublished: a plain look first keeps
     * those off the lock. */
    if (__atomic_load_n(&unpub[slot].ptr, __ATOMIC_RELAXED) == start) {
        rt_spin_lock(&unpub_lock);
        if (unpub[slot].ptr == start)
            take_unpublished(slot, &s.unpub_clock, &unpub_stack);
        rt_spin_unlock(&unpub_lock);
    }
    rt_thread_for_each(find_reference, &s);
    if (!s.tid)
        return;
    char comm[32], rcomm[32];
    rt_thread_comm(t->tid, comm, sizeof comm);
    rt_thread_comm(s.tid, rcomm, sizeof rcomm);
    struct rt_report *r = rt_report_begin(RT_KIND_RCU_FREED_WHILE_REFERENCED, t->tid);
    if (!r)
        return;
    rt_report_headline(r, "BUG: %s/%d, freeing [0x%lx-0x%lx] still referenced by an RCU reader!", comm, t->tid,
                       (unsigned long)start, (unsigned long)(start + len));
    rt_report_stack(r, rt_stack_here(), "free() by %s/%d at:", comm, t->tid);
    /* Sites recorded inline may never have been captured: their callers
     * come from a stack through the same function, the entry's first. */
    rt_stack_id enter_stack = rt_site_stack_complete(s.entry_pc, 0);
    rt_report_stack(r, enter_stack, "the reader %s/%d is inside the %s read-side critical section it entered at:",
                    rcomm, s.tid, rt_rcu_flavor_names[s.flavor]);
    if (s.deref_pc)
        rt_report_stack(r, rt_site_stack_complete(s.deref_pc, enter_stack),
                        "and obtained this object with rcu_dereference() at:");
    if (unpub_stack)
        rt_report_stack(r, unpub_stack, "the object was unpublished with no grace period before this free, at:");
    rt_report_text(r, "Hint: free it with call_rcu(), or after synchronize_rcu().");
    rt_report_finish(r);
}

void rt_rcu_on_thread_exit(struct rt_thread *t)
{
    struct rt_rcu_section sec;
    rt_rcuhb_release(t, t->handle); /* for its joiner */
    if (!rt_rcu_section_of(t, &sec))
        return;
    rt_rcu_report_simple(t, RT_KIND_RCU_EXIT_IN_READER,
                         "WARNING: thread exited inside an RCU read-side critical section", NULL,
                         "A reader that never leaves holds up every later grace period (librtdd_rcu ends the "
                         "section by force; liburcu waits forever).");
    if (t->rcu.depth)
        __atomic_store_n(&t->rcu.depth, 0, __ATOMIC_RELEASE);
    else
        rt_rcu_detach(t); /* the slot's section: librtdd_rcu ends it */
    if (sec.flavor < RT_RCU_FLAVORS && section_on_stack(t, sec.flavor))
        rt_on_lock_release(t, (uintptr_t)&anchors[sec.flavor][0], 0);
}

void rt_rcu_slot_released(struct rt_thread *t)
{
    if (!t->rcu_slot)
        return;
    if (!t->rcu.depth && (__atomic_load_n(t->rcu_ctr, __ATOMIC_RELAXED) & RTDD_RCU_NEST_MASK))
        rt_rcu_on_thread_exit(t); /* detaches */
    else
        rt_rcu_detach(t);
}

void rt_rcu_thread_gone(const struct rt_thread *t)
{
    __atomic_fetch_add(&sections, t->rcu.sections, __ATOMIC_RELAXED);
    __atomic_fetch_add(&migrated, t->rcu.migrated, __ATOMIC_RELAXED);
}

struct counts { unsigned long sections, migrated; };
static void add_counts(struct rt_thread *t, void *arg)
{
    struct counts *c = arg;
    c->sections += t->rcu.sections;
    c->migrated += t->rcu.migrated;
}

static struct counts all_counts(void)
{
    struct counts c = { __atomic_load_n(&sections, __ATOMIC_RELAXED), __atomic_load_n(&migrated, __ATOMIC_RELAXED) };
    rt_thread_for_each(add_counts, &c);
    return c;
}

unsigned long rt_rcu_migrated_sections(void)
{
    return all_counts().migrated;
}

unsigned long rt_rcu_sections(void)
{
    return all_counts().sections;
}

void rt_rcu_summary(struct rt_buf *b)
{
    struct counts c = all_counts();
    if (c.sections)
        rt_buf_printf(b, "; %lu RCU read sections, %lu of them migrated to another CPU (harmless: each unlock "
                         "releases what its lock took)",
                      c.sections, c.migrated);
}

void rt_rcucheck_after_fork(void)
{
    rt_spin_reinit(&unpub_lock);
    rt_rcucallbacks_after_fork();
    rt_rcuptr_after_fork();
}
