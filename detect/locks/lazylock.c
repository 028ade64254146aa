#include "locks/lazylock.h"
#include "core/core.h"
#include "locks/locktab.h"
#include <stdbool.h>

#define ENTRY_BITS 21
#define ENTRIES (1u << ENTRY_BITS)
#define LINE_BITS 40 /* lines above 2^40 (addresses above 2^48) get records */
#define TID_MAX ((1u << 24) - 1)
#define SITES (1u << 16)   /* site indexes fit 16 bits */
#define SLOT_SHIFT 3 /* a mutex is 8-byte aligned: 32 slots per line */
#define MUTEX_SIZE 40

/* lo: line + 1 (0: never used) in the low 40 bits, the tid above;
 * hi: the slots' bits in the low 32 bits, the site index in the next 16,
 * and a generation in the top 16 that changes whenever the entry is taken
 * for a line (claimed). An entry whose slot bits are all clear is free,
 * whatever else it says. A claim changes both words with one 16-byte
 * compare-and-swap; adding or taking a slot changes hi alone with an
 * 8-byte one (cheaper): hi is read before lo, so a successful swap of hi
 * proves no claim came between, and lo was what was read. */
struct entry {
    _Alignas(16) uint64_t lo;
    uint64_t hi;
};
_Static_assert(sizeof(struct entry) == 16, "an entry is one 16-byte word");
static struct entry *entries;
static uint32_t *used;            /* per line (mod ENTRIES): slots acquired once */
static struct rt_lazy_init *sites; /* index - 1 -> site */
static uint32_t *site_index;       /* open addressing on pc: index, 0 empty */
static uint32_t nsites;
static rt_spin_t sites_lock = RT_SPIN_INIT;
static rt_spin_t init_lock = RT_SPIN_INIT;

static bool ensure_tables(void)
{
    if (likely(__atomic_load_n(&used, __ATOMIC_ACQUIRE) != NULL))
        return true;
    rt_spin_lock(&init_lock);
    if (!used) {
        entries = rt_zalloc(ENTRIES * sizeof *entries);
        sites = rt_zalloc(SITES * sizeof *sites);
        site_index = rt_zalloc(2 * SITES * sizeof *site_index);
        uint32_t *u = rt_zalloc(ENTRIES * sizeof *used);
        if (entries && sites && site_index && u)
            __atomic_store_n(&used, u, __ATOMIC_RELEASE);
    }
    rt_spin_unlock(&init_lock);
    return used != NULL;
}

uint32_t rt_lazylock_site(uintptr_t pc, rt_stack_id stack)
{
    if (!pc || !ensure_tables())
        return 0;
    rt_spin_lock(&sites_lock);
    uint32_t found = 0;
    for (uint32_t i = (uint32_t)rt_hash64(pc) & (2 * SITES - 1);; i = (i + 1) & (2 * SITES - 1)) {
        uint32_t idx = site_index[i];
        if (idx == 0) {
            if (nsites < SITES - 1) { /* the probe sequence always ends at a free cell */
                sites[nsites] = (struct rt_lazy_init){ pc, stack, 0 };
                found = site_index[i] = ++nsites;
            }
            break;
        }
        if (sites[idx - 1].pc == pc) {
            found = idx;
            break;
        }
    }
    rt_spin_unlock(&sites_lock);
    return found;
}

static inline uint64_t line_of(uintptr_t addr) { return (uint64_t)addr >> RT_LINE_SHIFT; }
static inline struct entry *entry_of(uint64_t line) { return &entries[line & (ENTRIES - 1)]; }
static inline uint32_t slot_bit(uintptr_t addr) { return 1u << ((addr & ((1u << RT_LINE_SHIFT) - 1)) >> SLOT_SHIFT); }
static inline uint64_t lo_line(uint64_t lo) { return (lo & ((1ull << LINE_BITS) - 1)) - 1; }
static inline uint32_t hi_slots(uint64_t hi) { return (uint32_t)hi; }
static inline uint32_t hi_site(uint64_t hi) { return (uint32_t)(hi >> 32) & 0xffff; }
#define HI_GEN (1ull << 48)

static inline struct entry load(const struct entry *e)
{
    /* hi first (see above); a torn pair makes the swap fail. */
    uint64_t hi = __atomic_load_n(&e->hi, __ATOMIC_ACQUIRE);
    return (struct entry){ __atomic_load_n(&e->lo, __ATOMIC_ACQUIRE), hi };
}

static inline bool cas_hi(struct entry *e, uint64_t old, uint64_t new)
{
    return __atomic_compare_exchange_n(&e->hi, &old, new, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

static inline bool cas(struct entry *e, struct entry old, struct entry new)
{
    return rt_cas_pair(&e->lo, old.lo, old.hi, new.lo, new.hi);
}

int rt_lazylock_add(uintptr_t addr, uint32_t site, int tid)
{
    uint64_t line = line_of(addr);
    if (site == 0 || site >= SITES || (addr & 7) || line + 1 >= 1ull << LINE_BITS || tid <= 0 || (unsigned)tid > TID_MAX ||
        !ensure_tables())
        return 0;
    struct entry *e = entry_of(line);
    uint32_t bit = slot_bit(addr);
    uint64_t lo = (line + 1) | (uint64_t)tid << LINE_BITS;
    for (;;) {
        struct entry old = load(e);
        if (hi_slots(old.hi) == 0) {
            uint64_t hi = ((old.hi & ~(HI_GEN - 1)) + HI_GEN) | (uint64_t)site << 32 | bit;
            if (cas(e, old, (struct entry){ lo, hi }))
                break;
        } else if (old.lo == lo && hi_site(old.hi) == site) {
            if ((old.hi & bit) || cas_hi(e, old.hi, old.hi | bit))
                break; /* (already set: initialized again from the same place) */
        } else {
            return 0;
        }
    }
    /* Not acquired yet in this life. Plain: a lost update only moves the
     * record's making. */
    uint32_t *u = &used[line & (ENTRIES - 1)];
    if (*u & bit)
        *u &= ~bit;
    return 1;
}

/* A lazy mutex is 8-byte aligned: an address inside one (a bogus pointer
 * one byte into it) is not it, though it maps to its slot. */
static inline int misaligned(uintptr_t addr) { return (addr & ((1u << SLOT_SHIFT) - 1)) != 0; }

int rt_lazylock_test(uintptr_t addr)
{
    if (!__atomic_load_n(&used, __ATOMIC_ACQUIRE) || misaligned(addr))
        return 0;
    uint64_t line = line_of(addr);
    struct entry old = load(entry_of(line));
    return (hi_slots(old.hi) & slot_bit(addr)) && lo_line(old.lo) == line;
}

int rt_lazylock_first_use(uintptr_t addr)
{
    if (!rt_lazylock_test(addr))
        return 0;
    uint32_t *u = &used[line_of(addr) & (ENTRIES - 1)], bit = slot_bit(addr);
    if (*u & bit)
        return 0;
    *u |= bit;
    return 1;
}

static void fill(struct rt_lazy_init *init, struct entry old)
{
    uint32_t idx = hi_site(old.hi);
    *init = sites[idx - 1];
    init->tid = (int)(old.lo >> LINE_BITS);
}

/* Clears the bits of want in line's entry; the bits cleared are returned
 * with the entry they were cleared from. */
static uint32_t take_bits(uint64_t line, uint32_t want, struct entry *was)
{
    struct entry *e = entry_of(line);
    for (;;) {
        struct entry old = load(e);
        uint32_t bits = hi_slots(old.hi) & want;
        if (!bits || lo_line(old.lo) != line)
            return 0;
        if (cas_hi(e, old.hi, old.hi & ~(uint64_t)bits)) {
            *was = old;
            return bits;
        }
    }
}

int rt_lazylock_take(uintptr_t addr, struct rt_lazy_init *init)
{
    if (!__atomic_load_n(&used, __ATOMIC_ACQUIRE) || misaligned(addr))
        return 0;
    struct entry was;
    if (!take_bits(line_of(addr), slot_bit(addr), &was))
        return 0;
    if (init)
        fill(init, was);
    return 1;
}

/* Takes line's lazy mutexes in [from, end), calling fn for each. */
static unsigned take_line(uint64_t line, uintptr_t from, uintptr_t end, rt_lazy_visit_fn fn, void *arg)
{
    uintptr_t base = (uintptr_t)line << RT_LINE_SHIFT;
    uint32_t want = 0;
    for (unsigned s = 0; s < 32; s++) {
        uintptr_t a = base + ((uintptr_t)s << SLOT_SHIFT);
        if (a >= from && a < end)
            want |= 1u << s;
    }
    struct entry was;
    uint32_t bits = want ? take_bits(line, want, &was) : 0;
    if (!bits)
        return 0;
    struct rt_lazy_init init;
    fill(&init, was);
    for (unsigned s = 0; s < 32; s++)
        if (bits & (1u << s))
            fn(base + ((uintptr_t)s << SLOT_SHIFT), &init, arg);
    return (unsigned)__builtin_popcount(bits);
}

unsigned rt_lazylock_take_range(uintptr_t start, size_t len, rt_lazy_visit_fn fn, void *arg)
{
    if (!__atomic_load_n(&used, __ATOMIC_ACQUIRE) || len == 0)
        return 0;
    /* A mutex that starts before the range may reach into it. */
    uintptr_t from = start > MUTEX_SIZE ? start - (MUTEX_SIZE - 1) : 0, end = start + len;
    uint64_t first = line_of(from), last = line_of(end - 1);
    unsigned total = 0;
    if (last - first < ENTRIES) {
        for (uint64_t line = first; line <= last; line++)
            if (rt_filter_test(rt_line_filter, line))
                total += take_line(line, from, end, fn, arg);
        return total;
    }
    /* A range wider than the table: every entry, by the line it holds. */
    for (unsigned i = 0; i < ENTRIES; i++) {
        struct entry old = load(&entries[i]);
        uint64_t line = lo_line(old.lo);
        if (hi_slots(old.hi) && line >= first && line <= last)
            total += take_line(line, from, end, fn, arg);
    }
    return total;
}

void rt_lazylock_after_fork(void)
{
    rt_spin_reinit(&sites_lock);
    rt_spin_reinit(&init_lock);
}
