#include "rcucheck.h"
#include "engine.h"
#include "freegate.h"
#include "lockdesc.h"
#include "report.h"
#include "rt_alloc.h"
#include "rt_common.h"
#include "runtime.h"
#include "unwind.h"
#include "watchdog.h"
#include <string.h>
#include <time.h>

_Atomic uint64_t rt_rcu_line_clock[1u << RT_RCU_LINE_BITS];
_Atomic uint64_t rt_rcu_gp_floor;

/* Read-mostly: written once, so the read side does not store to it. */
static inline void mark_in_use(void)
{
    rt_free_checks_add(RT_FREE_RCU);
}
static _Atomic unsigned long migrated, sections;

static const char *const flavor_names[RT_RCU_FLAVORS] = { "librtdd_rcu", "urcu-memb", "urcu-mb", "urcu-bp",
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

static inline uint64_t rcu_tick(void)
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
static void grace_period_done(enum rt_rcu_flavor f, uint64_t began)
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

static struct rt_lock *pseudo(struct rt_thread *t, enum rt_rcu_flavor f, int callbacks, uintptr_t pc)
{
    struct rt_lock *l = rt_lock_lookup(t, (uintptr_t)&anchors[f][callbacks], RT_LOCK_RWLOCK, pc);
    if (l && !callbacks)
        __atomic_store_n(&readers_lock[f], l, __ATOMIC_RELEASE);
    if (l && !l->rcu_pseudo) {
        static const char *const names[2][RT_RCU_FLAVORS] = {
            { "rcu_read_lock", "rcu_read_lock(urcu-memb)", "rcu_read_lock(urcu-mb)", "rcu_read_lock(urcu-bp)",
              "rcu_read_lock(urcu-qsbr)", "rcu_read_lock(urcu-signal)" },
            { "rcu_callbacks", "rcu_callbacks(urcu-memb)", "rcu_callbacks(urcu-mb)", "rcu_callbacks(urcu-bp)",
              "rcu_callbacks(urcu-qsbr)", "rcu_callbacks(urcu-signal)" },
        };
        l->name = names[callbacks][f];
        l->rcu_pseudo = (uint8_t)(1 + callbacks);
    }
    return l;
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

/* The thread's current read section, as the checks see it: one the
 * runtime tracks itself, else the librtdd_rcu section its slot's word
 * holds (record mode). Other threads may ask. */
struct section {
    unsigned depth;
    uint8_t flavor;
    uint64_t clock;
};
static int section_of(const struct rt_thread *t, struct section *s)
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
    struct section s;
    return section_of(t, &s) ? s.clock : 0;
}

uintptr_t rt_rcu_enter_pc(const struct rt_thread *t)
{
    return (uintptr_t)(__atomic_load_n(&t->rcu.entry, __ATOMIC_RELAXED) & PC_MASK);
}

rt_stack_id rt_rcu_enter_stack(const struct rt_thread *t)
{
    return rt_site_stack_known(rt_rcu_enter_pc(t));
}

static rt_stack_id here(void)
{
    return rt_stack_capture((unsigned)rt_opt.stack_depth);
}

/* what == NULL: no stack of the call itself (a thread's exit runs in
 * libc's teardown; the section's entry is what explains it). */
static void report_simple(struct rt_thread *t, enum rt_kind kind, const char *headline, const char *what,
                          const char *explain)
{
    char comm[32];
    rt_thread_comm(t->tid, comm, sizeof comm);
    struct rt_report *r = rt_report_begin(kind, t->tid);
    if (!r)
        return;
    rt_report_headline(r, "%s", headline);
    if (what)
        rt_report_stack(r, here(), "%s/%d %s at:", comm, t->tid, what);
    else
        rt_report_text(r, "%s/%d is exiting", comm, t->tid);
    struct section sec;
    if (section_of(t, &sec))
        rt_report_stack(r, rt_site_stack_complete(rt_rcu_enter_pc(t), 0),
                        "inside the %s read-side critical section (depth %u) it entered at:", flavor_names[sec.flavor],
                        sec.depth);
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
    mark_in_use();
    if (slot_tracked(t, f)) {
        /* The slot counts the nesting and holds the entry clock. */
        if ((__atomic_load_n(t->rcu_ctr, __ATOMIC_RELAXED) & RTDD_RCU_NEST_MASK) != 1)
            return;
        note_flavor(f);
        section_begins(t, pc);
        if (t->nheld) {
            struct rt_lock *l = pseudo(t, f, 0, pc);
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
    struct rt_lock *l = pseudo(t, f, 0, pc);
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
    mark_in_use();
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
    struct section s;
    if (!section_of(t, &s) || s.flavor >= RT_RCU_FLAVORS || section_on_stack(t, s.flavor))
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
    report_simple(t, RT_KIND_RCU_UNBALANCED, "WARNING: bad rcu_read_unlock() nesting",
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

void rt_rcu_dereference(struct rt_thread *t, const void *value, uintptr_t pc)
{
    struct section s;
    if (!value || !section_of(t, &s))
        return;
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

void rt_rcu_publish(struct rt_thread *t, const void *old, const void *fresh, uintptr_t pc)
{
    mark_in_use();
    keep_published(old, fresh);
    if (!old) {
        if (fresh)
            rt_rcu_note_referenced((uintptr_t)fresh, rcu_clock());
        return;
    }
    unsigned slot = (unsigned)(rt_hash64((uintptr_t)old) & (UNPUB_SLOTS - 1));
    rt_stack_id stack = rt_site_stack(t, pc);
    uint64_t clock = rcu_tick();
    rt_rcu_note_referenced((uintptr_t)old, clock);
    note_published(clock);
    rt_spin_lock(&unpub_lock);
    unpub[slot].clock = clock;
    unpub[slot].stack = stack;
    __atomic_store_n(&unpub[slot].ptr, (uintptr_t)old, __ATOMIC_RELAXED);
    rt_spin_unlock(&unpub_lock);
}

void rt_rcu_wait_begin(struct rt_thread *t, enum rt_rcu_flavor f, int barrier, uintptr_t pc)
{
    mark_in_use();
    const char *what = barrier ? "rcu_barrier()" : "synchronize_rcu()";
    struct section sec;
    if (section_of(t, &sec)) {
        char calls[64];
        struct rt_buf b;
        rt_buf_init(&b, calls, sizeof calls);
        rt_buf_printf(&b, "calls %s", what);
        report_simple(t, RT_KIND_RCU_SYNC_IN_READER, "BUG: Illegal synchronize_rcu() in RCU read-side critical section!",
                      calls,
                      barrier ? "rcu_barrier() waits for callbacks, which wait for a grace period, which waits "
                                "for this reader: it can never return."
                              : "synchronize_rcu() waits for every reader that began before it, this one "
                                "included: it can never return.");
        return;
    }
    /* A write acquisition of the pseudo-lock: "M held -> synchronize_rcu"
     * against "rcu_read_lock -> M" is a cycle. */
    struct rt_lock *l = pseudo(t, f, barrier, pc);
    if (!l)
        return;
    rt_on_lock_pre(t, l, 0, pc);
    t->rcu.wait_clock = rcu_tick();
    /* The watchdog sees a thread waiting for the readers that hold it. */
    t->rcu_wait_stack = rt_site_stack(t, pc);
    __atomic_fetch_add(&t->rcu_wait_seq, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&t->rcu_waiting_for, l, __ATOMIC_RELEASE);
    rt_watchdog_ensure();
}

/* Readers of flavour f still inside a section they entered before clock. */
struct stale_search { enum rt_rcu_flavor f; uint64_t before; struct rt_thread *found; uint64_t clock; uintptr_t entry_pc; int tid; };
static void find_stale(struct rt_thread *t, void *arg)
{
    struct stale_search *s = arg;
    struct section sec;
    if (s->found || !section_of(t, &sec) || sec.flavor != s->f)
        return;
    if (sec.clock < s->before) {
        s->found = t;
        s->clock = sec.clock;
        s->entry_pc = rt_rcu_enter_pc(t);
        s->tid = t->tid;
    }
}

/* A grace period or callback ended: were all pre-existing readers gone?
 * The reader's own exit is recorded just after its real unlock, so a
 * suspect is looked at again after a pause before it counts. */
static void check_gp(struct rt_thread *t, enum rt_rcu_flavor f, uint64_t began, const char *what)
{
    struct stale_search s = { f, began, NULL, 0, 0, 0 };
    rt_thread_for_each(find_stale, &s);
    if (!s.found)
        return;
    for (int i = 0; i < 20; i++) {
        struct timespec ts = { 0, 5000000 };
        nanosleep(&ts, NULL);
        struct section sec;
        if (!section_of(s.found, &sec) || sec.clock != s.clock)
            return;
    }
    char comm[32], rcomm[32];
    rt_thread_comm(t->tid, comm, sizeof comm);
    rt_thread_comm(s.tid, rcomm, sizeof rcomm);
    struct rt_report *r = rt_report_begin(RT_KIND_RCU_GP_VIOLATION, t->tid);
    if (!r)
        return;
    rt_report_headline(r, "BUG: grace period ended while a pre-existing reader was still running");
    rt_report_stack(r, here(), "%s/%d: %s (%s) ended at:", comm, t->tid, what, flavor_names[f]);
    rt_report_stack(r, rt_site_stack_complete(s.entry_pc, 0),
                    "while %s/%d is still inside the read-side critical section it entered before "
                                "the grace period began, at:", rcomm, s.tid);
    rt_report_text(r, "The RCU implementation broke its guarantee: memory freed after this grace period may still be "
                      "in use by that reader.");
    rt_report_finish(r);
}

void rt_rcu_wait_end(struct rt_thread *t, enum rt_rcu_flavor f, int barrier, uintptr_t pc)
{
    (void)pc;
    __atomic_store_n(&t->rcu_waiting_for, NULL, __ATOMIC_RELEASE);
    struct section sec;
    if (barrier || section_of(t, &sec))
        return;
    uint64_t began = t->rcu.wait_clock;
    check_gp(t, f, began, "synchronize_rcu()");
    grace_period_done(f, began);
}

/* Queued rcu_heads: head -> where and when queued. Not lossy: a head is
 * removed when its callback starts. */
#define QUEUE_BUCKETS 4096
struct queued { struct queued *next; uintptr_t head; void *func; uint64_t clock; rt_stack_id stack; uint8_t flavor; };
static struct queued *queue_buckets[QUEUE_BUCKETS];
static rt_spin_t queue_lock = RT_SPIN_INIT;
static struct rt_pool queue_pool = RT_POOL_INIT(struct queued);

int rt_rcu_call(struct rt_thread *t, enum rt_rcu_flavor f, const void *head, void *func, uintptr_t pc)
{
    mark_in_use();
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
        fresh->clock = rcu_tick();
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
        rt_report_stack(r, here(), "%s/%d queues rcu_head [0x%lx] (%s) again at:", comm, t->tid,
                        (unsigned long)(uintptr_t)head, flavor_names[f]);
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
    struct rt_lock *l = pseudo(t, f, 1, 0);
    if (l) {
        uint64_t chain = rt_on_lock_pre(t, l, RT_ACQ_READ, 0);
        rt_on_lock_acquired(t, l, RT_ACQ_READ, chain, 0);
    }
    if (q) {
        func = q->func;
        check_gp(t, f, q->clock, "the grace period before a callback");
        /* The callback's grace period began after call_rcu: a floor for
         * programs that never call synchronize_rcu. */
        grace_period_done(f, q->clock);
        rt_pool_put(&queue_pool, q);
    }
    return func;
}

void rt_rcu_callback_end(struct rt_thread *t, enum rt_rcu_flavor f, const void *head)
{
    (void)head;
    t->rcu.in_callback = 0;
    rt_on_lock_release(t, (uintptr_t)&anchors[f][1], 0);
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
    struct section sec;
    if (s->tid || !section_of(t, &sec))
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
    (void)pc;
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
    rt_report_stack(r, here(), "free() by %s/%d at:", comm, t->tid);
    /* Sites recorded inline may never have been captured: their callers
     * come from a stack through the same function, the entry's first. */
    rt_stack_id enter_stack = rt_site_stack_complete(s.entry_pc, 0);
    rt_report_stack(r, enter_stack, "the reader %s/%d is inside the %s read-side critical section it entered at:",
                    rcomm, s.tid, flavor_names[s.flavor]);
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
    struct section sec;
    if (!section_of(t, &sec))
        return;
    report_simple(t, RT_KIND_RCU_EXIT_IN_READER, "WARNING: thread exited inside an RCU read-side critical section",
                  NULL, "A reader that never leaves holds up every later grace period (librtdd_rcu ends the "
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

void rt_rcucheck_after_fork(void)
{
    rt_spin_reinit(&unpub_lock);
    rt_spin_reinit(&queue_lock);
    rt_spin_reinit(&queue_pool.lock);
}
