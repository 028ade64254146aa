#include "locks/lockdesc.h"
#include "locks/locks.h"
#include "report/report.h"
#include "rcu/rcu.h"
#include "core/core.h"
#include <string.h>

void rt_lock_where(uintptr_t addr, char *out, size_t cap)
{
    struct rt_buf b;
    rt_buf_init(&b, out, cap);
    if (rt_is_bit_key(addr))
        rt_buf_printf(&b, "bit %u of the word at 0x%lx", rt_bit_key_bit(addr), (unsigned long)rt_bit_key_word(addr));
    else
        rt_buf_printf(&b, "0x%lx", (unsigned long)addr);
}

/* The annotated or symbol name of the lock's object (a bit lock's word),
 * "" when it has none. */
static void object_name(const struct rt_lock *l, uintptr_t addr, struct rt_buf *b)
{
    char sym[128];
    uintptr_t off;
    const char *name = l ? rt_lock_annotated_name(l) : NULL;
    if (name)
        rt_buf_puts(b, name);
    else if (rt_opt.symbolize && rt_symbolize_data(rt_lock_object_start(addr), sym, sizeof sym, &off) == 0)
        off ? rt_buf_printf(b, "%s+0x%lx", sym, (unsigned long)off) : rt_buf_puts(b, sym);
}

void rt_lock_name(const struct rt_lock *l, uintptr_t addr, char *out, size_t cap)
{
    struct rt_buf b;
    char name[160], where[64];
    rt_buf_init(&b, out, cap);
    if (l && l->rcu_pseudo) {
        rt_buf_printf(&b, "[%s]", rt_rcu_pseudo_name(l));
        return;
    }
    struct rt_buf nb;
    rt_buf_init(&nb, name, sizeof name);
    object_name(l, addr, &nb);
    rt_lock_where(addr, where, sizeof where);
    if (!name[0])
        rt_buf_printf(&b, "[%s]", where);
    else if (rt_is_bit_key(addr) && !(l && rt_lock_annotated_name(l)))
        rt_buf_printf(&b, "bit %u of %s", rt_bit_key_bit(addr), name);
    else
        rt_buf_puts(&b, name);
}

/* The first frame that is the program's, not the C or C++ runtime's (or
 * in their headers), else the first. */
static unsigned program_frame(const uintptr_t *pcs, unsigned depth)
{
    for (unsigned i = 0; i < depth; i++) {
        struct rt_symbol sym;
        struct rt_module m;
        int have_sym = rt_opt.symbolize && rt_symbolize(pcs[i], &sym) == 0;
        int have_mod = rt_module_find(pcs[i], &m) == 0;
        if (!rt_symbol_in_system_code(have_sym ? &sym : NULL, have_mod ? m.name : NULL))
            return i;
    }
    return 0;
}

void rt_stack_site(rt_stack_id stack, char *out, size_t cap)
{
    const uintptr_t *all;
    struct rt_buf b;
    rt_buf_init(&b, out, cap);
    unsigned depth = rt_stack_get(stack, &all, NULL);
    if (!depth) {
        rt_buf_puts(&b, "an unknown place");
        return;
    }
    const uintptr_t *pcs = all + program_frame(all, depth);
    struct rt_symbol sym;
    if (rt_opt.symbolize && rt_symbolize(pcs[0], &sym) == 0) {
        const struct rt_source_loc *loc = rt_symbol_site(&sym);
        const char *file = strrchr(loc->file, '/') ? strrchr(loc->file, '/') + 1 : loc->file;
        if (file[0])
            rt_buf_printf(&b, "%s:%d in %s", file, loc->line, loc->function);
        else
            rt_buf_printf(&b, "%s+0x%lx", sym.loc.function, (unsigned long)sym.offset);
        return;
    }
    struct rt_module m;
    if (rt_module_find(pcs[0], &m) == 0)
        rt_buf_printf(&b, "%s+0x%lx", m.name, (unsigned long)(pcs[0] - m.base));
    else
        rt_buf_printf(&b, "0x%lx", (unsigned long)pcs[0]);
}

void rt_lock_describe(const struct rt_lock *l, uintptr_t addr, char *out, size_t cap)
{
    char name[160], where[64], site[256];
    struct rt_buf b;
    rt_buf_init(&b, out, cap);
    if (l && l->rcu_pseudo) {
        rt_lock_name(l, addr, name, sizeof name);
        rt_buf_printf(&b, "%s (%s)", name,
                      l->rcu_pseudo == 1 ? "RCU read-side critical sections, which synchronize_rcu() waits for"
                                         : "RCU callbacks, which rcu_barrier() waits for");
        return;
    }
    /* "[where] name": a bit lock's where says its bit, its name is its word's. */
    struct rt_buf nb;
    rt_buf_init(&nb, name, sizeof name);
    object_name(l, addr, &nb);
    rt_lock_where(addr, where, sizeof where);
    rt_buf_printf(&b, name[0] ? "[%s] %s" : "[%s]%s", where, name);
    if (!l) {
        rt_buf_puts(&b, " (unknown lock)");
        return;
    }
    rt_stack_site(l->init_stack, site, sizeof site);
    rt_buf_printf(&b, " (%s, %s %s)", rt_lock_type_name((enum rt_lock_type)l->type),
                  l->statically_initialized ? "static, first used at" : "initialized at", site);
}

const char *rt_lock_op(const struct rt_lock *l, int read)
{
    if (l && l->rcu_pseudo == 1)
        return read ? "rcu_read_lock" : "synchronize_rcu";
    if (l && l->rcu_pseudo == 2)
        return read ? "rcu_callback" : "rcu_barrier";
    return read ? "read_lock" : "lock";
}

void rt_report_held_locks(struct rt_report *r, const struct rt_thread *t, const char *comm)
{
    /* Locks destroyed or freed while held are gone: not listed. A read
     * section that record mode has not pushed comes first. */
    struct rt_lock *section = rt_rcu_unmaterialized_lock(t);
    unsigned n = section != NULL;
    for (unsigned i = 0; i < t->nheld; i++)
        n += rt_held_live(&t->held[i]);
    char name[160], site[256];
    if (n == 0) {
        rt_report_text(r, "no locks held by %s/%d.", comm, t->tid);
        return;
    }
    rt_report_text(r, "%u lock%s held by %s/%d:", n, n == 1 ? "" : "s", comm, t->tid);
    unsigned shown = 0;
    if (section) {
        rt_lock_name(section, section->addr, name, sizeof name);
        rt_stack_site(rt_rcu_enter_stack(t), site, sizeof site);
        rt_report_text(r, " #%u: %s (read), taken at %s", shown++, name, site);
    }
    for (unsigned i = 0; i < t->nheld && shown < 16; i++) {
        const struct rt_held *h = &t->held[i];
        if (!rt_held_live(h))
            continue;
        rt_lock_name(rt_held_record(h, NULL), h->addr, name, sizeof name);
        rt_stack_site(h->stack, site, sizeof site);
        rt_report_text(r, " #%u: %s%s, taken at %s", shown++, name, h->mode == RT_HOLD_READ ? " (read)" : "", site);
    }
    if (n > 16)
        rt_report_text(r, " ... and %u more", n - 16);
}

void rt_report_holders(struct rt_report *r, const struct rt_lock *l, int self_tid)
{
    char comm[32], where[64];
    rt_stack_id owner_stack = 0;
    rt_lock_where(__atomic_load_n(&l->addr, __ATOMIC_RELAXED), where, sizeof where);
    int owner = rt_lock_owner(l, &owner_stack);
    if (owner) {
        rt_thread_comm(owner, comm, sizeof comm);
        rt_report_stack(r, owner_stack, "the lock [%s] (%s) is held by %s%s/%d, taken at:", where,
                        rt_lock_type_name((enum rt_lock_type)l->type), owner == self_tid ? "this thread, " : "", comm,
                        owner);
        return;
    }
    int tid = 0;
    rt_stack_id stack = 0;
    int readers = rt_lock_readers(l, &tid, &stack);
    if (readers) {
        rt_thread_comm(tid, comm, sizeof comm);
        rt_report_stack(r, stack, "the lock [%s] (%s) is held for reading by %s%s/%d (%d reader%s in all), taken at:",
                        where, rt_lock_type_name((enum rt_lock_type)l->type), tid == self_tid ? "this thread, " : "", comm,
                        tid, readers, readers == 1 ? "" : "s");
    } else if (__atomic_load_n(&l->held_by_exited, __ATOMIC_ACQUIRE) == RT_HOLDER_EXITED) {
        rt_report_text(r, "the lock [%s] (%s) is held by a thread that exited (or was cancelled) while holding "
                          "it: see its lock-held-at-exit report; nobody can release it now",
                       where, rt_lock_type_name((enum rt_lock_type)l->type));
    } else {
        rt_report_text(r, "no thread holds the lock any more");
    }
}

