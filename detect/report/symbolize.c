#include "report/symbolize.h"
#include "report/modules.h"
#include "report/demangle.h"
#include "report/symclient.h"
#include "report/symbolize_dwarf.h"
#include "report/dwlib.h"
#include "report/runtime.h"
#include "core/core.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static rt_spin_t sym_lock = RT_SPIN_INIT;
static Dwfl *dwfl;

/* A small cache: symbolizing a pc costs a DWARF walk; reports repeat pcs. */
#define CACHE_SLOTS 512
struct cache_slot { uintptr_t pc; int ok; struct rt_symbol sym; };
static struct cache_slot *cache;

static char *debuginfo_path;
static Dwfl_Callbacks callbacks = { .debuginfo_path = &debuginfo_path };

static int report_modules(void)
{
    if (!dwfl) {
        callbacks.find_elf = rt_dw.dwfl_linux_proc_find_elf;
        callbacks.find_debuginfo = rt_dw.dwfl_standard_find_debuginfo;
        dwfl = rt_dw.dwfl_begin(&callbacks);
        if (!dwfl)
            return -1;
    }
    rt_dw.dwfl_report_begin(dwfl);
    int r = rt_dw.dwfl_linux_proc_report(dwfl, getpid());
    rt_dw.dwfl_report_end(dwfl, NULL, NULL);
    return r == 0 ? 0 : -1;
}

static int lookup(uintptr_t pc, struct rt_symbol *out)
{
    Dwfl_Module *mod = rt_dw.dwfl_addrmodule(dwfl, pc - 1);
    if (!mod && (report_modules() < 0 || !(mod = rt_dw.dwfl_addrmodule(dwfl, pc - 1))))
        return -1;
    return rt_dwarf_function(mod, pc, out);
}

/* .../rtdd/NAME.h: one of our public headers, wherever it is installed. */
static int in_rtdd_header(const char *file)
{
    const char *base = strrchr(file, '/');
    size_t n = strlen(file);
    return base && base - file >= 4 && strncmp(base - 4, "rtdd", 4) == 0 &&
           (base - file == 4 || base[-5] == '/') && n > 2 && strcmp(file + n - 2, ".h") == 0;
}

/* The system's and the compiler's headers: glibc's inline wrappers, the
 * C++ library's (std::mutex, std::unique_lock, gthr-default.h). */
static int in_system_header(const char *file)
{
    return !strncmp(file, "/usr/include/", 13) || !strncmp(file, "/usr/lib/gcc/", 13);
}

const struct rt_source_loc *rt_symbol_site(const struct rt_symbol *sym)
{
    const struct rt_source_loc *first = NULL;
    for (int i = 0; i < sym->ninline; i++) {
        if (in_rtdd_header(sym->inl[i].file))
            continue;
        if (!in_system_header(sym->inl[i].file))
            return &sym->inl[i];
        if (!first)
            first = &sym->inl[i];
    }
    if (!in_system_header(sym->loc.file) || !first)
        return &sym->loc;
    return first;
}

/* Modules whose frames a one-line site passes over: the C and C++
 * runtimes and the loader. */
static int system_module(const char *name)
{
    static const char *const prefixes[] = { "libc.so", "libstdc++.so", "libgcc_s.so", "ld-linux", "libm.so",
                                            "libpthread.so" };
    for (unsigned i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
            return 1;
    return 0;
}

int rt_symbol_in_system_code(const struct rt_symbol *sym, const char *module)
{
    if (module && system_module(module))
        return 1;
    if (!sym)
        return 0;
    const struct rt_source_loc *site = rt_symbol_site(sym);
    /* rtdd's own inline helpers (annotate.h's, not inlined at -O0) too:
     * the program's frame is the one that called them. */
    return site->file[0] && (in_system_header(site->file) || in_rtdd_header(site->file));
}

/* symbolize=1: the helper process, given the frame's module (found before
 * the lock: this may take the loader's); in-process when it cannot help. */
static int use_helper(uintptr_t addr, struct rt_module *m, int *have_module)
{
    *have_module = rt_module_find(addr, m) == 0;
    return rt_opt.symbolize == 1 && rt_symclient_prepare() == 0;
}

int rt_symbolize(uintptr_t pc, struct rt_symbol *out)
{
    memset(out, 0, sizeof *out);
    if (pc == 0)
        return -1;
    struct rt_module m;
    int have_module, helper = use_helper(pc - 1, &m, &have_module);
    /* libdw only where symbolization runs here: opened before our lock
     * (dlopen takes the loader's), or under it if the helper fails. */
    int have_dw = !helper && rt_dwlib_load() == 0;
    rt_spin_lock(&sym_lock);
    if (!cache)
        cache = rt_zalloc(CACHE_SLOTS * sizeof *cache);
    struct cache_slot *slot = cache ? &cache[rt_hash64(pc) & (CACHE_SLOTS - 1)] : NULL;
    int ok;
    if (slot && slot->pc == pc) {
        *out = slot->sym;
        ok = slot->ok;
    } else {
        ok = -1; /* with a helper, a pc in no module is not looked for in-process */
        if (!helper || (have_module && rt_symclient_function(&m, pc, out, &ok) < 0)) {
            memset(out, 0, sizeof *out);
            if (!have_dw)
                have_dw = rt_dwlib_load() == 0;
            ok = have_dw && (dwfl || report_modules() == 0) ? lookup(pc, out) : -1;
        }
        if (slot) {
            slot->pc = pc;
            slot->ok = ok;
            slot->sym = *out;
        }
    }
    rt_spin_unlock(&sym_lock);
    return ok;
}

int rt_symbolize_data(uintptr_t addr, char *name, unsigned cap, uintptr_t *offset)
{
    int ok = -1;
    /* The bss beyond the file's last page is an anonymous mapping that the
     * process's maps do not name: its module is found by its segments
     * (before the symbolizer's lock: this may take the loader's). */
    struct rt_module m;
    int have_module, helper = use_helper(addr, &m, &have_module);
    int have_dw = !helper && rt_dwlib_load() == 0;
    rt_spin_lock(&sym_lock);
    if (helper && (!have_module || rt_symclient_data(&m, addr, name, cap, offset, &ok) == 0)) {
        rt_spin_unlock(&sym_lock);
        return ok;
    }
    if (!have_dw)
        have_dw = rt_dwlib_load() == 0;
    if (have_dw && (dwfl || report_modules() == 0)) {
        Dwfl_Module *mod = rt_dw.dwfl_addrmodule(dwfl, addr);
        if (!mod && have_module)
            mod = rt_dw.dwfl_addrmodule(dwfl, m.lo);
        ok = mod ? rt_dwarf_data(mod, addr, name, cap, offset) : -1;
    }
    rt_spin_unlock(&sym_lock);
    return ok;
}

/* The forking thread holds the symbolizer across fork, so the child gets
 * it whole (no other thread was inside it) and keeps it: the modules are
 * the same, and a child's report then costs no new DWARF walk. */
void rt_symbolize_fork_prepare(void)
{
    rt_spin_lock(&sym_lock);
}

void rt_symbolize_fork_parent(void)
{
    rt_spin_unlock(&sym_lock);
}

void rt_symbolize_after_fork(void)
{
    rt_spin_reinit(&sym_lock);
    rt_symclient_after_fork();
}
