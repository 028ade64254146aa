#include "report/symbolize.h"
#include "report/modules.h"
#include "report/demangle.h"
#include "core/core.h"
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
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
static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .debuginfo_path = &debuginfo_path,
};

static int report_modules(void)
{
    if (!dwfl) {
        dwfl = dwfl_begin(&callbacks);
        if (!dwfl)
            return -1;
    }
    dwfl_report_begin(dwfl);
    int r = dwfl_linux_proc_report(dwfl, getpid());
    dwfl_report_end(dwfl, NULL, NULL);
    return r == 0 ? 0 : -1;
}

static void copy_str(char *dst, size_t cap, const char *src)
{
    if (!src)
        src = "";
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
}

/* An inlined C++ function by its qualified name (std::mutex::lock()), from
 * its linkage name; a C function by its name. */
static void inline_name(Dwarf_Die *die, char *out, size_t cap);

static const char *die_name(Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    Dwarf_Die origin;
    const char *name = dwarf_diename(die);
    if (name)
        return name;
    if (dwarf_attr_integrate(die, DW_AT_abstract_origin, &attr) && dwarf_formref_die(&attr, &origin))
        return dwarf_diename(&origin);
    return NULL;
}

static void inline_name(Dwarf_Die *die, char *out, size_t cap)
{
    Dwarf_Attribute attr;
    const char *linkage = NULL;
    if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) || dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
        linkage = dwarf_formstring(&attr);
    if (!linkage || !rt_demangle(linkage, out, cap))
        copy_str(out, cap, die_name(die));
}

/* Inlined frames: each DW_TAG_inlined_subroutine scope is a callee whose
 * call site (DW_AT_call_file/line) lies in the next scope out. */
static void add_inlines(Dwfl_Module *mod, Dwarf_Addr addr, struct rt_symbol *out)
{
    Dwarf_Addr bias;
    Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, &bias);
    Dwarf_Die *scopes = NULL;
    if (!cu)
        return;
    int n = dwarf_getscopes(cu, addr - bias, &scopes);
    if (n <= 0)
        return;
    /* dwarf_getscopes follows the innermost inlined function into its
     * abstract definition; the concrete chain of callers (a function
     * inlined into one inlined into ...) is that DIE's own parents. */
    Dwarf_Die innermost = scopes[0];
    free(scopes);
    scopes = NULL;
    n = dwarf_getscopes_die(&innermost, &scopes);
    if (n <= 0)
        return;
    Dwarf_Files *files = NULL;
    dwarf_getsrcfiles(cu, &files, NULL);
    /* Walk from the innermost scope: the line table's line belongs to the
     * innermost inlined callee; each call site line belongs to the next. */
    int line = out->loc.line;
    const char *file = out->loc.file;
    char file_buf[192];
    for (int i = 0; i < n && out->ninline < RT_SYM_INLINE_MAX; i++) {
        if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
            continue;
        struct rt_source_loc *l = &out->inl[out->ninline++];
        inline_name(&scopes[i], l->function, sizeof l->function);
        copy_str(l->file, sizeof l->file, file);
        l->line = line;
        Dwarf_Attribute attr;
        Dwarf_Word v;
        line = 0;
        if (dwarf_attr(&scopes[i], DW_AT_call_line, &attr) && dwarf_formudata(&attr, &v) == 0)
            line = (int)v;
        file = "";
        if (files && dwarf_attr(&scopes[i], DW_AT_call_file, &attr) && dwarf_formudata(&attr, &v) == 0) {
            copy_str(file_buf, sizeof file_buf, dwarf_filesrc(files, v, NULL, NULL));
            file = file_buf;
        }
    }
    if (out->ninline) {
        /* The outer (ELF) function's own location is the outermost call site. */
        out->loc.line = line;
        copy_str(out->loc.file, sizeof out->loc.file, file);
    }
    free(scopes);
}

static int lookup(uintptr_t pc, struct rt_symbol *out)
{
    Dwarf_Addr addr = pc - 1;
    Dwfl_Module *mod = dwfl_addrmodule(dwfl, addr);
    if (!mod) {
        if (report_modules() < 0 || !(mod = dwfl_addrmodule(dwfl, addr)))
            return -1;
    }
    GElf_Off off = 0;
    GElf_Sym sym;
    const char *name = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
    if (!name)
        return -1;
    if (!rt_demangle(name, out->loc.function, sizeof out->loc.function))
        copy_str(out->loc.function, sizeof out->loc.function, name);
    out->offset = off + 1;
    out->size = sym.st_size;
    Dwfl_Line *line = dwfl_module_getsrc(mod, addr);
    if (line) {
        int lineno = 0;
        const char *file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
        copy_str(out->loc.file, sizeof out->loc.file, file);
        out->loc.line = lineno;
    }
    add_inlines(mod, addr, out);
    return 0;
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
    return site->file[0] && in_system_header(site->file);
}

int rt_symbolize(uintptr_t pc, struct rt_symbol *out)
{
    memset(out, 0, sizeof *out);
    if (pc == 0)
        return -1;
    rt_spin_lock(&sym_lock);
    if (!cache)
        cache = rt_zalloc(CACHE_SLOTS * sizeof *cache);
    struct cache_slot *slot = cache ? &cache[rt_hash64(pc) & (CACHE_SLOTS - 1)] : NULL;
    int ok;
    if (slot && slot->pc == pc) {
        *out = slot->sym;
        ok = slot->ok;
    } else {
        ok = (dwfl || report_modules() == 0) ? lookup(pc, out) : -1;
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
    int have_module = rt_module_find(addr, &m) == 0;
    rt_spin_lock(&sym_lock);
    if (dwfl || report_modules() == 0) {
        Dwfl_Module *mod = dwfl_addrmodule(dwfl, addr);
        if (!mod && have_module)
            mod = dwfl_addrmodule(dwfl, m.lo);
        GElf_Off off = 0;
        GElf_Sym sym;
        const char *n = mod ? dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL) : NULL;
        if (n && GELF_ST_TYPE(sym.st_info) == STT_OBJECT && off < sym.st_size) {
            if (!rt_demangle(n, name, cap))
                copy_str(name, cap, n);
            *offset = off;
            ok = 0;
        }
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
}
