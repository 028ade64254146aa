/* The DWARF half of symbolization (elfutils libdw): a pc's function,
 * file:line and inlined callees, a data address's variable, in a module
 * found by its caller — the program's own Dwfl (symbolize.c), or, in the
 * helper process (tools/symbolizer.c), one the modules are reported into
 * by path and load bias as the program's runtime sends them. */
#include "report/symbolize_dwarf.h"
#include "report/demangle.h"
#include "report/dwlib.h"
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

struct rt_dwlib rt_dw;

int rt_dwlib_load(void)
{
    static _Atomic int state; /* 0 not tried, 1 open, -1 cannot be */
    int s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
    if (s)
        return s > 0 ? 0 : -1;
    /* Racing first callers both open it: dlopen counts, the table is the same. */
    void *h = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
    struct rt_dwlib t;
    int ok = h != NULL;
#define RT_DWLIB_RESOLVE(name) \
    if (ok && !(t.name = (__typeof__(t.name))dlsym(h, #name))) \
        ok = 0;
    RT_DWLIB_FUNCS(RT_DWLIB_RESOLVE)
#undef RT_DWLIB_RESOLVE
    if (ok)
        rt_dw = t;
    __atomic_store_n(&state, ok ? 1 : -1, __ATOMIC_RELEASE);
    return ok ? 0 : -1;
}

void rt_sym_copy_str(char *dst, size_t cap, const char *src)
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
    const char *name = rt_dw.dwarf_diename(die);
    if (name)
        return name;
    if (rt_dw.dwarf_attr_integrate(die, DW_AT_abstract_origin, &attr) && rt_dw.dwarf_formref_die(&attr, &origin))
        return rt_dw.dwarf_diename(&origin);
    return NULL;
}

static void inline_name(Dwarf_Die *die, char *out, size_t cap)
{
    Dwarf_Attribute attr;
    const char *linkage = NULL;
    if (rt_dw.dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) || rt_dw.dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
        linkage = rt_dw.dwarf_formstring(&attr);
    if (!linkage || !rt_demangle(linkage, out, cap))
        rt_sym_copy_str(out, cap, die_name(die));
}

/* Inlined frames: each DW_TAG_inlined_subroutine scope is a callee whose
 * call site (DW_AT_call_file/line) lies in the next scope out. */
static void add_inlines(Dwfl_Module *mod, Dwarf_Addr addr, struct rt_symbol *out)
{
    Dwarf_Addr bias;
    Dwarf_Die *cu = rt_dw.dwfl_module_addrdie(mod, addr, &bias);
    Dwarf_Die *scopes = NULL;
    if (!cu)
        return;
    int n = rt_dw.dwarf_getscopes(cu, addr - bias, &scopes);
    if (n <= 0)
        return;
    /* dwarf_getscopes follows the innermost inlined function into its
     * abstract definition; the concrete chain of callers (a function
     * inlined into one inlined into ...) is that DIE's own parents. */
    Dwarf_Die innermost = scopes[0];
    free(scopes);
    scopes = NULL;
    n = rt_dw.dwarf_getscopes_die(&innermost, &scopes);
    if (n <= 0)
        return;
    Dwarf_Files *files = NULL;
    rt_dw.dwarf_getsrcfiles(cu, &files, NULL);
    /* Walk from the innermost scope: the line table's line belongs to the
     * innermost inlined callee; each call site line belongs to the next. */
    int line = out->loc.line;
    const char *file = out->loc.file;
    char file_buf[192];
    for (int i = 0; i < n && out->ninline < RT_SYM_INLINE_MAX; i++) {
        if (rt_dw.dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
            continue;
        struct rt_source_loc *l = &out->inl[out->ninline++];
        inline_name(&scopes[i], l->function, sizeof l->function);
        rt_sym_copy_str(l->file, sizeof l->file, file);
        l->line = line;
        Dwarf_Attribute attr;
        Dwarf_Word v;
        line = 0;
        if (rt_dw.dwarf_attr(&scopes[i], DW_AT_call_line, &attr) && rt_dw.dwarf_formudata(&attr, &v) == 0)
            line = (int)v;
        file = "";
        if (files && rt_dw.dwarf_attr(&scopes[i], DW_AT_call_file, &attr) && rt_dw.dwarf_formudata(&attr, &v) == 0) {
            rt_sym_copy_str(file_buf, sizeof file_buf, rt_dw.dwarf_filesrc(files, v, NULL, NULL));
            file = file_buf;
        }
    }
    if (out->ninline) {
        /* The outer (ELF) function's own location is the outermost call site. */
        out->loc.line = line;
        rt_sym_copy_str(out->loc.file, sizeof out->loc.file, file);
    }
    free(scopes);
}

int rt_dwarf_function(Dwfl_Module *mod, uintptr_t pc, struct rt_symbol *out)
{
    Dwarf_Addr addr = pc - 1;
    GElf_Off off = 0;
    GElf_Sym sym;
    const char *name = rt_dw.dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
    if (!name)
        return -1;
    if (!rt_demangle(name, out->loc.function, sizeof out->loc.function))
        rt_sym_copy_str(out->loc.function, sizeof out->loc.function, name);
    out->offset = off + 1;
    out->size = sym.st_size;
    Dwfl_Line *line = rt_dw.dwfl_module_getsrc(mod, addr);
    if (line) {
        int lineno = 0;
        const char *file = rt_dw.dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
        rt_sym_copy_str(out->loc.file, sizeof out->loc.file, file);
        out->loc.line = lineno;
    }
    add_inlines(mod, addr, out);
    return 0;
}

/* The variable of mod that contains addr. */
int rt_dwarf_data(Dwfl_Module *mod, uintptr_t addr, char *name, unsigned cap, uintptr_t *offset)
{
    GElf_Off off = 0;
    GElf_Sym sym;
    const char *n = rt_dw.dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
    if (!n || GELF_ST_TYPE(sym.st_info) != STT_OBJECT || off >= sym.st_size)
        return -1;
    if (!rt_demangle(n, name, cap))
        rt_sym_copy_str(name, cap, n);
    *offset = off;
    return 0;
}

/* The helper's side (tools/symbolizer.c): modules are reported by path and
 * load bias, as the program's runtime sends them, into a Dwfl of their own. */
static Dwfl *offline;
static char *debuginfo_path;
static Dwfl_Callbacks offline_callbacks = { .debuginfo_path = &debuginfo_path };

static Dwfl_Module *module_at(const char *path, uintptr_t base, uintptr_t addr, uintptr_t lo)
{
    if (rt_dwlib_load() < 0)
        return NULL;
    offline_callbacks.find_elf = rt_dw.dwfl_build_id_find_elf;
    offline_callbacks.find_debuginfo = rt_dw.dwfl_standard_find_debuginfo;
    offline_callbacks.section_address = rt_dw.dwfl_offline_section_address;
    if (!offline && !(offline = rt_dw.dwfl_begin(&offline_callbacks)))
        return NULL;
    Dwfl_Module *mod = rt_dw.dwfl_addrmodule(offline, addr);
    if (!mod)
        mod = rt_dw.dwfl_addrmodule(offline, lo);
    if (mod) {
        const char *name = rt_dw.dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
        if (name && !strcmp(name, path))
            return mod;
        /* Another object at the same address (dlclose, dlopen): start over. */
        rt_dw.dwfl_end(offline);
        if (!(offline = rt_dw.dwfl_begin(&offline_callbacks)))
            return NULL;
    }
    rt_dw.dwfl_report_begin_add(offline);
    mod = rt_dw.dwfl_report_elf(offline, path, path, -1, base, false);
    rt_dw.dwfl_report_end(offline, NULL, NULL);
    return mod;
}

int rt_symbolize_at(const char *path, uintptr_t base, uintptr_t lo, uintptr_t pc, struct rt_symbol *out)
{
    memset(out, 0, sizeof *out);
    Dwfl_Module *mod = pc ? module_at(path, base, pc - 1, lo) : NULL;
    return mod ? rt_dwarf_function(mod, pc, out) : -1;
}

int rt_symbolize_data_at(const char *path, uintptr_t base, uintptr_t lo, uintptr_t addr, char *name, unsigned cap,
                         uintptr_t *offset)
{
    Dwfl_Module *mod = module_at(path, base, addr, lo);
    return mod ? rt_dwarf_data(mod, addr, name, cap, offset) : -1;
}
