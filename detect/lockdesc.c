#include "lockdesc.h"
#include "modules.h"
#include "rt_fmt.h"
#include "runtime.h"
#include "symbolize.h"
#include <string.h>

void rt_lock_name(const struct rt_lock *l, uintptr_t addr, char *out, size_t cap)
{
    struct rt_buf b;
    char sym[128];
    uintptr_t off;
    rt_buf_init(&b, out, cap);
    if (l && l->name)
        rt_buf_puts(&b, l->name);
    else if (rt_opt.symbolize && rt_symbolize_data(addr, sym, sizeof sym, &off) == 0)
        off ? rt_buf_printf(&b, "%s+0x%lx", sym, (unsigned long)off) : rt_buf_puts(&b, sym);
    else
        rt_buf_printf(&b, "[0x%lx]", (unsigned long)addr);
}

void rt_stack_site(rt_stack_id stack, char *out, size_t cap)
{
    const uintptr_t *pcs;
    struct rt_buf b;
    rt_buf_init(&b, out, cap);
    if (!rt_stack_get(stack, &pcs, NULL)) {
        rt_buf_puts(&b, "an unknown place");
        return;
    }
    struct rt_symbol sym;
    if (rt_opt.symbolize && rt_symbolize(pcs[0], &sym) == 0) {
        const struct rt_source_loc *loc = sym.ninline ? &sym.inl[0] : &sym.loc;
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
    char name[160], site[256];
    struct rt_buf b;
    rt_lock_name(l, addr, name, sizeof name);
    rt_buf_init(&b, out, cap);
    if (name[0] == '[')
        rt_buf_puts(&b, name);
    else
        rt_buf_printf(&b, "[0x%lx] %s", (unsigned long)addr, name);
    if (!l) {
        rt_buf_puts(&b, " (unknown lock)");
        return;
    }
    rt_stack_site(l->init_stack, site, sizeof site);
    rt_buf_printf(&b, " (%s, %s %s)", rt_lock_type_name((enum rt_lock_type)l->type),
                  l->statically_initialized ? "static, first used at" : "initialized at", site);
}

void rt_report_held_locks(struct rt_report *r, const struct rt_thread *t, const char *comm)
{
    unsigned n = t->nheld;
    char name[160], site[256];
    if (n == 0) {
        rt_report_text(r, "no locks held by %s/%d.", comm, t->tid);
        return;
    }
    rt_report_text(r, "%u lock%s held by %s/%d:", n, n == 1 ? "" : "s", comm, t->tid);
    for (unsigned i = 0; i < n && i < 16; i++) {
        const struct rt_held *h = &t->held[i];
        rt_lock_name(h->lock, h->addr, name, sizeof name);
        rt_stack_site(h->stack, site, sizeof site);
        rt_report_text(r, " #%u: %s%s, taken at %s", i, name, h->mode == RT_HOLD_READ ? " (read)" : "", site);
    }
    if (n > 16)
        rt_report_text(r, " ... and %u more", n - 16);
}
