#include "symbolize.h"
#include "report/demangle.h"
#include "util.h"
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_INLINE 8

/* One resolved address: the inlined callees innermost first, then the
 * function that contains them (or only the function). */
struct resolved {
    uint64_t offset;
    unsigned n;          /* 0 when unresolvable */
    struct az_frame frames[];
};

struct module {
    char *key;           /* build-id, or "path:NAME" without one */
    Dwfl *dwfl;          /* NULL when no ELF file was found */
    Dwfl_Module *mod;
    GElf_Addr bias;
    struct resolved **slots; /* open-addressed by offset */
    size_t nslots, nused;
    struct module *next;
};

struct az_symbolizer {
    char *debuginfo_path;   /* for libdwfl: "-:.debug:DIR:..." */
    char **dirs;
    unsigned ndirs;
    Dwfl_Callbacks callbacks;
    struct module *modules;
    struct az_arena strings; /* resolved names, shared by all lookups */
    char cwd[1024];
    size_t cwdlen;
    struct az_symbolizer_stats stats;
};

struct az_symbolizer *az_symbolizer_new(const char *const *debug_dirs, unsigned ndirs, int use_debuginfod)
{
    if (!use_debuginfod)
        unsetenv("DEBUGINFOD_URLS"); /* libdw would otherwise reach the network */
    struct az_symbolizer *s = az_xcalloc(1, sizeof *s);
    s->ndirs = ndirs + 1;
    s->dirs = az_xcalloc(s->ndirs, sizeof *s->dirs);
    size_t len = 16 + strlen("/usr/lib/debug");
    for (unsigned i = 0; i < ndirs; i++) {
        s->dirs[i] = az_xstrdup(debug_dirs[i]);
        len += strlen(debug_dirs[i]) + 1;
    }
    s->dirs[ndirs] = az_xstrdup("/usr/lib/debug");
    s->debuginfo_path = az_xmalloc(len);
    strcpy(s->debuginfo_path, "-:.debug");
    for (unsigned i = 0; i < s->ndirs; i++) {
        strcat(s->debuginfo_path, ":");
        strcat(s->debuginfo_path, s->dirs[i]);
    }
    s->callbacks.find_elf = dwfl_build_id_find_elf;
    s->callbacks.find_debuginfo = dwfl_standard_find_debuginfo;
    s->callbacks.section_address = dwfl_offline_section_address;
    s->callbacks.debuginfo_path = &s->debuginfo_path;
    az_arena_init(&s->strings, 65536);
    if (getcwd(s->cwd, sizeof s->cwd - 2)) {
        s->cwdlen = strlen(s->cwd);
        s->cwd[s->cwdlen++] = '/';
        s->cwd[s->cwdlen] = 0;
    }
    return s;
}

void az_symbolizer_free(struct az_symbolizer *s)
{
    if (!s)
        return;
    for (struct module *m = s->modules, *next; m; m = next) {
        next = m->next;
        if (m->dwfl)
            dwfl_end(m->dwfl);
        for (size_t i = 0; i < m->nslots; i++)
            free(m->slots[i]);
        free(m->slots);
        free(m->key);
        free(m);
    }
    for (unsigned i = 0; i < s->ndirs; i++)
        free(s->dirs[i]);
    free(s->dirs);
    free(s->debuginfo_path);
    az_arena_free(&s->strings);
    free(s);
}

void az_symbolizer_stats(const struct az_symbolizer *s, struct az_symbolizer_stats *out)
{
    *out = s->stats;
}

static void hex_build_id(const unsigned char *bits, int len, char *out, size_t cap)
{
    size_t o = 0;
    for (int i = 0; i < len && o + 2 < cap; i++)
        o += (size_t)snprintf(out + o, cap - o, "%02x", bits[i]);
    out[o] = 0;
}

/* Reports `path` in a Dwfl of its own; keeps it when its build-id is `want` (or want is NULL). */
static int try_open(struct az_symbolizer *s, struct module *m, const char *name, const char *path, const char *want)
{
    if (access(path, R_OK) != 0)
        return 0;
    Dwfl *d = dwfl_begin(&s->callbacks);
    if (!d)
        return 0;
    dwfl_report_begin(d);
    Dwfl_Module *mod = dwfl_report_offline(d, name, path, -1);
    dwfl_report_end(d, NULL, NULL);
    if (!mod) {
        dwfl_end(d);
        return 0;
    }
    if (want) {
        const unsigned char *bits;
        GElf_Addr vaddr;
        int len = dwfl_module_build_id(mod, &bits, &vaddr);
        char hex[129];
        hex_build_id(bits, len > 0 ? len : 0, hex, sizeof hex);
        if (len <= 0 || strcmp(hex, want)) {
            dwfl_end(d);
            return 0;
        }
    }
    GElf_Addr bias = 0;
    if (!dwfl_module_getelf(mod, &bias)) {
        dwfl_end(d);
        return 0;
    }
    m->dwfl = d;
    m->mod = mod;
    m->bias = bias;
    return 1;
}

static void open_module(struct az_symbolizer *s, struct module *m, const struct az_module *info)
{
    const char *id = info->build_id;
    if (info->path && try_open(s, m, info->name, info->path, id))
        return;
    char path[4096];
    for (unsigned i = 0; id && strlen(id) > 2 && i < s->ndirs; i++) {
        snprintf(path, sizeof path, "%s/.build-id/%.2s/%s.debug", s->dirs[i], id, id + 2);
        if (try_open(s, m, info->name, path, id))
            return;
        snprintf(path, sizeof path, "%s/.build-id/%.2s/%s", s->dirs[i], id, id + 2);
        if (try_open(s, m, info->name, path, id))
            return;
    }
    for (unsigned i = 0; id && i + 1 < s->ndirs; i++) {
        /* A --debug-dir may also hold the unstripped binaries by name. */
        snprintf(path, sizeof path, "%s/%s", s->dirs[i], info->name);
        if (try_open(s, m, info->name, path, id))
            return;
    }
}

static struct module *find_module(struct az_symbolizer *s, const struct az_module *info)
{
    char key[4200];
    if (info->build_id)
        snprintf(key, sizeof key, "%s", info->build_id);
    else
        snprintf(key, sizeof key, "path:%s:%s", info->name, info->path ? info->path : "");
    for (struct module *m = s->modules; m; m = m->next)
        if (!strcmp(m->key, key))
            return m;
    struct module *m = az_xcalloc(1, sizeof *m);
    m->key = az_xstrdup(key);
    m->next = s->modules;
    s->modules = m;
    open_module(s, m, info);
    if (m->dwfl)
        s->stats.modules_opened++;
    else
        s->stats.modules_missing++;
    return m;
}

static const char *keep(struct az_symbolizer *s, const char *str)
{
    if (!str || !*str)
        return NULL;
    char plain[512];
    if (rt_demangle(str, plain, sizeof plain))
        return az_arena_strdup(&s->strings, plain);
    /* Paths under the working directory are shown relative to it, as the runtime does. */
    if (s->cwdlen > 1 && !strncmp(str, s->cwd, s->cwdlen))
        str += s->cwdlen;
    return az_arena_strdup(&s->strings, str);
}

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

/* An inlined C++ function by its linkage name (keep() demangles it into
 * the qualified name), a C function by its name. */
static const char *inline_name(Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    const char *linkage = NULL;
    if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) || dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
        linkage = dwarf_formstring(&attr);
    return linkage ? linkage : die_name(die);
}

static struct resolved *resolve(struct az_symbolizer *s, struct module *m, uint64_t offset)
{
    struct resolved *res = az_xcalloc(1, sizeof *res + (MAX_INLINE + 1) * sizeof(struct az_frame));
    res->offset = offset;
    if (!m->mod || offset == 0)
        return res;
    /* A return address: look up the call instruction before it, as the runtime does. */
    Dwarf_Addr addr = m->bias + offset - 1;
    GElf_Off off = 0;
    GElf_Sym sym;
    const char *name = dwfl_module_addrinfo(m->mod, addr, &off, &sym, NULL, NULL, NULL);
    if (!name)
        return res;
    const char *file = NULL;
    int line = 0;
    Dwfl_Line *l = dwfl_module_getsrc(m->mod, addr);
    if (l)
        file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
    const char *file_now = file;
    unsigned n = 0;
    Dwarf_Addr cubias;
    Dwarf_Die *cu = dwfl_module_addrdie(m->mod, addr, &cubias);
    Dwarf_Die *scopes = NULL;
    int nscopes = cu ? dwarf_getscopes(cu, addr - cubias, &scopes) : 0;
    if (nscopes > 0) {
        /* The concrete chain of inlined callers: the innermost DIE's parents
         * (dwarf_getscopes goes on into its abstract definition). */
        Dwarf_Die innermost = scopes[0];
        free(scopes);
        scopes = NULL;
        nscopes = dwarf_getscopes_die(&innermost, &scopes);
        if (nscopes < 0)
            nscopes = 0;
    }
    Dwarf_Files *files = NULL;
    if (nscopes > 0)
        dwarf_getsrcfiles(cu, &files, NULL);
    for (int i = 0; i < nscopes && n < MAX_INLINE; i++) {
        if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
            continue;
        struct az_frame *f = &res->frames[n++];
        f->function = keep(s, inline_name(&scopes[i]));
        f->file = keep(s, file_now);
        f->line = (unsigned)line;
        f->inlined = 1;
        Dwarf_Attribute attr;
        Dwarf_Word v;
        line = 0;
        if (dwarf_attr(&scopes[i], DW_AT_call_line, &attr) && dwarf_formudata(&attr, &v) == 0)
            line = (int)v;
        file_now = NULL;
        if (files && dwarf_attr(&scopes[i], DW_AT_call_file, &attr) && dwarf_formudata(&attr, &v) == 0)
            file_now = dwarf_filesrc(files, v, NULL, NULL);
    }
    free(scopes);
    struct az_frame *f = &res->frames[n++];
    f->function = keep(s, name);
    f->file = keep(s, file_now);
    f->line = (unsigned)line;
    res->n = n;
    return res;
}

static struct resolved *lookup(struct az_symbolizer *s, struct module *m, uint64_t offset)
{
    if (m->nused * 2 >= m->nslots) {
        size_t nslots = m->nslots ? m->nslots * 2 : 256;
        struct resolved **slots = az_xcalloc(nslots, sizeof *slots);
        for (size_t i = 0; i < m->nslots; i++) {
            if (!m->slots[i])
                continue;
            size_t j = az_fnv1a(AZ_FNV_INIT, &m->slots[i]->offset, 8) & (nslots - 1);
            while (slots[j])
                j = (j + 1) & (nslots - 1);
            slots[j] = m->slots[i];
        }
        free(m->slots);
        m->slots = slots;
        m->nslots = nslots;
    }
    size_t j = az_fnv1a(AZ_FNV_INIT, &offset, 8) & (m->nslots - 1);
    while (m->slots[j]) {
        if (m->slots[j]->offset == offset) {
            s->stats.cache_hits++;
            return m->slots[j];
        }
        j = (j + 1) & (m->nslots - 1);
    }
    m->slots[j] = resolve(s, m, offset);
    m->nused++;
    return m->slots[j];
}

static void symbolize_section(struct az_symbolizer *s, struct az_report *r, struct az_section *sec)
{
    int need = 0;
    for (unsigned i = 0; i < sec->nframes; i++)
        need |= !sec->frames[i].function && sec->frames[i].has_module_offset;
    if (!need)
        return;
    unsigned cap = sec->nframes * (MAX_INLINE + 1);
    if (cap > AZ_MAX_FRAMES)
        cap = AZ_MAX_FRAMES;
    struct az_frame *out = az_arena_alloc(&r->arena, cap * sizeof *out);
    unsigned n = 0;
    for (unsigned i = 0; i < sec->nframes && n < cap; i++) {
        struct az_frame f = sec->frames[i];
        const struct az_module *info = f.function || !f.has_module_offset ? NULL : az_report_module(r, f.module);
        struct resolved *res = info ? lookup(s, find_module(s, info), f.module_offset) : NULL;
        if (!res || !res->n) {
            if (info)
                s->stats.frames_unresolved++;
            out[n++] = f;
            continue;
        }
        s->stats.frames_resolved++;
        for (unsigned k = 0; k < res->n && n < cap; k++) {
            struct az_frame g = f;
            g.function = res->frames[k].function;
            g.file = res->frames[k].file;
            g.line = res->frames[k].line;
            g.inlined = res->frames[k].inlined;
            out[n++] = g;
        }
    }
    sec->frames = out;
    sec->nframes = n;
    sec->capacity = cap;
}

void az_symbolize_report(struct az_symbolizer *s, struct az_report *r)
{
    for (unsigned i = 0; s && i < r->nsections; i++)
        symbolize_section(s, r, &r->sections[i]);
}
