#include "report/report.h"
#include "report/report_items.h"
#include "report/report_sink.h"
#include "report/log.h"
#include "report/modules.h"
#include "core/core.h"
#include "report/runtime.h"
#include "report/symbolize.h"
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define OUT_SPACE (96 * 1024)
#define MAX_REPORT_MODULES 32

struct rt_report {
    enum rt_kind kind;
    enum rt_severity severity; /* the kind's, unless an option raised it */
    int tid;
    uint64_t key;
    int has_key;
    int fatal;
    char headline[1024];
    struct rt_items items; /* the lines, as many as it needs (report_items.h) */
    char out[OUT_SPACE];   /* a long report is written from it in pieces (report_sink.h) */
    struct rt_module mods[MAX_REPORT_MODULES];
    unsigned nmods, more_mods;
    int has_summary;              /* rt_report_summary's location and function */
    char summary_loc[256], summary_fn[256];
};
#define FOR_ITEMS(r, it, x) for (struct rt_item *x = rt_item_first(&(r)->items, &(it)); x; x = rt_item_next(&(it)))

static struct rt_pool report_pool = RT_POOL_INIT(struct rt_report);

static _Atomic unsigned long kind_counts[RT_KIND_COUNT];
static _Atomic unsigned long suppressed_count, error_count;
/* Reports claimed (counted) and not yet written, and this thread's share:
 * the exit path waits for the others' (rt_report_wait_in_flight). */
static _Atomic unsigned in_flight;
static __thread unsigned in_flight_here __attribute__((tls_model("initial-exec")));
/* The process (pid) whose exit path closed the count (rt_report_close),
 * and whether this thread is the one that did: the summary and the exit
 * status are decided from then on, so another thread's new report is
 * not counted (it waits for the end). A pid, not a flag: a vfork'ed
 * child shares this memory with its parent. */
static _Atomic int closed_by;
static __thread int closing_here __attribute__((tls_model("initial-exec")));
/* Reports this thread began (report.h). */
__thread unsigned rt_reports_begun_here __attribute__((tls_model("initial-exec")));

/* Keys of reports already written, for de-duplication. */
#define SEEN_SLOTS 8192
static _Atomic uint64_t seen[SEEN_SLOTS];

static int seen_before(uint64_t key)
{
    if (key == 0)
        key = 1;
    for (unsigned i = 0; i < SEEN_SLOTS; i++) {
        _Atomic uint64_t *slot = &seen[(rt_hash64(key) + i) & (SEEN_SLOTS - 1)];
        uint64_t cur = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
        if (cur == key)
            return 1;
        if (cur == 0) {
            uint64_t expected = 0;
            if (__atomic_compare_exchange_n(slot, &expected, key, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
                return 0;
            if (expected == key)
                return 1;
        }
    }
    return 0; /* table full: report rather than lose it */
}

void rt_thread_comm(int tid, char *out, size_t cap)
{
    char path[64];
    struct rt_buf b;
    rt_buf_init(&b, path, sizeof path);
    rt_buf_printf(&b, "/proc/self/task/%d/comm", tid);
    out[0] = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read(fd, out, cap - 1);
        close(fd);
        if (n > 0) {
            out[n] = 0;
            char *nl = strchr(out, '\n');
            if (nl)
                *nl = 0;
        }
    }
    if (!out[0] && cap > 1) {
        out[0] = '?';
        out[1] = 0;
    }
}

struct rt_report *rt_report_begin_plain(enum rt_kind kind, int tid, char *comm, size_t cap)
{
    rt_thread_comm(tid, comm, cap);
    struct rt_report *r = rt_report_begin(kind, tid);
    if (r)
        rt_report_headline(r, "%s", rt_kind_table[kind].headline);
    return r;
}

struct rt_report *rt_report_begin(enum rt_kind kind, int tid)
{
    rt_reports_begun_here++;
    struct rt_report *r = rt_pool_get(&report_pool);
    if (!r) {
        rt_out_of_memory("a report");
        return NULL;
    }
    r->kind = kind;
    r->severity = rt_kind_table[kind].severity;
    r->tid = tid;
    rt_items_init(&r->items);
    r->has_summary = 0;
    return r;
}

void rt_report_summary(struct rt_report *r, const char *location, const char *function)
{
    struct rt_buf b;
    rt_buf_init(&b, r->summary_loc, sizeof r->summary_loc);
    rt_buf_puts(&b, location);
    rt_buf_init(&b, r->summary_fn, sizeof r->summary_fn);
    rt_buf_puts(&b, function);
    r->has_summary = 1;
}

void rt_report_headline(struct rt_report *r, const char *fmt, ...)
{
    va_list ap;
    struct rt_buf b;
    rt_buf_init(&b, r->headline, sizeof r->headline);
    va_start(ap, fmt);
    rt_buf_vprintf(&b, fmt, ap);
    va_end(ap);
}

void rt_report_text(struct rt_report *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rt_items_add(&r->items, 0, 0, fmt, ap);
    va_end(ap);
}

void rt_report_stack(struct rt_report *r, rt_stack_id stack, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rt_items_add(&r->items, 1, stack, fmt, ap);
    va_end(ap);
}

void rt_report_set_severity(struct rt_report *r, enum rt_severity severity)
{
    r->severity = severity;
}

void rt_report_fatal(struct rt_report *r)
{
    r->fatal = 1;
}

void (*rt_fatal_exit_hook)(int code);

/* A run ended by rtdd has no result of its own: with exitcode=0 (a test
 * suite that keeps its own results) it must still not look passed. */
static int fatal_status(void)
{
    return rt_opt.exitcode ? (int)rt_opt.exitcode : 1;
}

void rt_report_key(struct rt_report *r, uint64_t key)
{
    r->key = key;
    r->has_key = 1;
}

/* One printable frame: module, symbol, and the path shown for its file. */
struct frame {
    uintptr_t pc;
    uint32_t frame_size;
    int have_mod, have_sym;
    struct rt_module mod;
    struct rt_symbol sym;
};

static void resolve_frame(uintptr_t pc, uint32_t fsz, struct frame *f)
{
    f->pc = pc;
    f->frame_size = fsz;
    f->have_mod = rt_module_find(pc, &f->mod) == 0;
    f->have_sym = rt_opt.symbolize && rt_symbolize(pc, &f->sym) == 0;
}

static const char *basename_of(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Source paths are shown relative to the working directory when under it. */
static const char *shown_path(const char *path)
{
    static char cwd[512];
    static size_t cwdlen;
    if (!cwdlen && getcwd(cwd, sizeof cwd - 1)) {
        cwdlen = strlen(cwd);
        cwd[cwdlen++] = '/';
    }
    if (cwdlen > 1 && !strncmp(path, cwd, cwdlen))
        return path + cwdlen;
    return path;
}

static void remember_module(struct rt_report *r, const struct frame *f)
{
    if (!f->have_mod)
        return;
    for (unsigned i = 0; i < r->nmods; i++)
        if (r->mods[i].base == f->mod.base && !strcmp(r->mods[i].path, f->mod.path))
            return;
    if (r->nmods < MAX_REPORT_MODULES)
        r->mods[r->nmods++] = f->mod;
    else
        r->more_mods++; /* counted in the report: its frames still name the module */
}

static void text_frame(struct rt_buf *b, const struct frame *f)
{
    const char *mname = f->have_mod ? f->mod.name : "[unknown]";
    uintptr_t moff = f->have_mod ? f->pc - f->mod.base : f->pc;
    if (f->have_sym) {
        for (int i = 0; i < f->sym.ninline; i++) {
            const struct rt_source_loc *l = &f->sym.inl[i];
            rt_buf_printf(b, " [<%016lx>] %s (inlined) %s+0x%lx", (unsigned long)f->pc, l->function, mname,
                          (unsigned long)moff);
            if (l->file[0])
                rt_buf_printf(b, " %s:%d", shown_path(l->file), l->line);
            rt_buf_putc(b, '\n');
        }
        rt_buf_printf(b, " [<%016lx>] %s+0x%lx/0x%lx (%u) %s+0x%lx", (unsigned long)f->pc, f->sym.loc.function,
                      (unsigned long)f->sym.offset, (unsigned long)f->sym.size, f->frame_size, mname,
                      (unsigned long)moff);
        if (f->sym.loc.file[0])
            rt_buf_printf(b, " %s:%d", shown_path(f->sym.loc.file), f->sym.loc.line);
    } else {
        rt_buf_printf(b, " [<%016lx>] ?? (%u) %s+0x%lx", (unsigned long)f->pc, f->frame_size, mname,
                      (unsigned long)moff);
    }
    rt_buf_putc(b, '\n');
}

static void json_loc(struct rt_buf *b, const struct rt_source_loc *l)
{
    rt_buf_puts(b, "\"function\":\"");
    rt_buf_json_str(b, l->function);
    rt_buf_puts(b, "\"");
    if (l->file[0]) {
        rt_buf_puts(b, ",\"file\":\"");
        rt_buf_json_str(b, shown_path(l->file));
        rt_buf_printf(b, "\",\"line\":%d", l->line);
    }
}

static void json_frame(struct rt_buf *b, const struct frame *f, int *first)
{
    const char *mname = f->have_mod ? f->mod.name : "[unknown]";
    uintptr_t moff = f->have_mod ? f->pc - f->mod.base : f->pc;
    for (int i = 0; f->have_sym && i < f->sym.ninline; i++) {
        rt_buf_printf(b, "%s{\"pc\":\"0x%lx\",\"inlined\":true,", *first ? "" : ",", (unsigned long)f->pc);
        json_loc(b, &f->sym.inl[i]);
        rt_buf_puts(b, ",\"module\":\"");
        rt_buf_json_str(b, mname);
        rt_buf_printf(b, "\",\"module_offset\":\"0x%lx\"}", (unsigned long)moff);
        *first = 0;
    }
    rt_buf_printf(b, "%s{\"pc\":\"0x%lx\",", *first ? "" : ",", (unsigned long)f->pc);
    if (f->have_sym) {
        json_loc(b, &f->sym.loc);
        rt_buf_printf(b, ",\"offset\":%lu,\"size\":%lu,", (unsigned long)f->sym.offset, (unsigned long)f->sym.size);
    }
    rt_buf_printf(b, "\"frame_size\":%u,\"module\":\"", f->frame_size);
    rt_buf_json_str(b, mname);
    rt_buf_printf(b, "\",\"module_offset\":\"0x%lx\"}", (unsigned long)moff);
    *first = 0;
}

/* Walks every frame of every stack item, for rendering and for matching. */
typedef void (*frame_fn)(struct rt_report *r, const struct rt_item *item, const struct frame *f, void *arg);
static void for_frames(struct rt_report *r, const struct rt_item *item, frame_fn fn, void *arg)
{
    const uintptr_t *pcs;
    const uint32_t *fsz;
    unsigned depth = rt_stack_get(item->stack, &pcs, &fsz);
    for (unsigned i = 0; i < depth; i++) {
        struct frame f;
        resolve_frame(pcs[i], fsz[i], &f);
        fn(r, item, &f, arg);
    }
}

struct match_state { int matched; };
static void match_frame(struct rt_report *r, const struct rt_item *item, const struct frame *f, void *arg)
{
    struct match_state *m = arg;
    (void)item;
    if (m->matched)
        return;
    const char *strings[8];
    unsigned n = 0;
    if (f->have_sym) {
        strings[n++] = f->sym.loc.function;
        strings[n++] = f->sym.loc.file;
        strings[n++] = basename_of(f->sym.loc.file);
        for (int i = 0; i < f->sym.ninline && n < 6; i++)
            strings[n++] = f->sym.inl[i].function;
    }
    if (f->have_mod) {
        strings[n++] = f->mod.path;
        strings[n++] = f->mod.name;
    }
    m->matched = rt_suppressions_match(rt_supp, rt_kind_table[r->kind].name, strings, n);
}

static int suppressed(struct rt_report *r)
{
    struct match_state m = { 0 };
    if (!rt_supp)
        return 0;
    struct rt_item_iter it;
    FOR_ITEMS(r, it, x)
        if (x->is_stack && !m.matched)
            for_frames(r, x, match_frame, &m);
    return m.matched;
}

/* SUMMARY location and function: the first frame of the primary stack that
 * is the program's (not libc's, libstdc++'s or in their headers), else
 * its first frame; the frame's innermost location outside rtdd's headers. */
struct summary { int done, have_any; char location[256]; char function[128]; };
static void summary_frame(struct rt_report *r, const struct rt_item *item, const struct frame *f, void *arg)
{
    struct summary *s = arg;
    struct rt_buf b;
    (void)item;
    if (s->done)
        return;
    int system = rt_symbol_in_system_code(f->have_sym ? &f->sym : NULL, f->have_mod ? f->mod.name : NULL);
    if (system && s->have_any)
        return;
    s->have_any = 1;
    s->done = !system;
    rt_buf_init(&b, s->location, sizeof s->location);
    const struct rt_source_loc *loc = f->have_sym ? rt_symbol_site(&f->sym) : &f->sym.loc;
    if (f->have_sym && loc->file[0])
        rt_buf_printf(&b, "%s:%d", basename_of(loc->file), loc->line);
    else
        rt_buf_printf(&b, "%s+0x%lx", f->have_mod ? f->mod.name : "[unknown]",
                      (unsigned long)(f->have_mod ? f->pc - f->mod.base : f->pc));
    rt_buf_init(&b, s->function, sizeof s->function);
    rt_buf_puts(&b, f->have_sym && loc->function[0] ? loc->function : "??");
    (void)r;
}

static void text_item_frame(struct rt_report *r, const struct rt_item *item, const struct frame *f, void *arg)
{
    (void)item;
    remember_module(r, f);
    rt_sink_room(arg);
    text_frame(&((struct rt_sink *)arg)->b, f);
    rt_sink_done(arg);
}

static void json_item_frame(struct rt_report *r, const struct rt_item *item, const struct frame *f, void *arg)
{
    struct rt_sink *s = arg;
    (void)item;
    remember_module(r, f);
    rt_sink_room(s);
    int first = s->first_frame;
    json_frame(&s->b, f, &s->first_frame);
    if (rt_sink_done(s))
        s->first_frame = first;
}

static void iso_time(char *out, size_t cap)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    long days = ts.tv_sec / 86400, secs = ts.tv_sec % 86400;
    /* Civil date from days since 1970-01-01 (Howard Hinnant's algorithm). */
    long z = days + 719468, era = z / 146097, doe = z - era * 146097;
    long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    long doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
    long d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9, y = yoe + era * 400 + (m <= 2);
    struct rt_buf b;
    rt_buf_init(&b, out, cap);
    rt_buf_printf(&b, "%04ld-%02ld-%02ldT%02ld:%02ld:%02ld.%03ldZ", y, m, d, secs / 3600, secs / 60 % 60, secs % 60,
                  ts.tv_nsec / 1000000);
}

/* What a report could not keep or name, said with counts (never silently). */
static const char *lost_line(const struct rt_report *r, char *out, size_t cap)
{
    struct rt_buf b;
    rt_buf_init(&b, out, cap);
    unsigned lost = r->items.lost;
    if (lost)
        rt_buf_printf(&b, "[%u line%s of this report left out: the runtime ran out of memory for it]", lost,
                      lost == 1 ? "" : "s");
    return lost ? out : NULL;
}

static void render_text(struct rt_report *r, struct rt_sink *out, const struct summary *s, const char *comm,
                        const char *when)
{
    struct rt_buf *b = &out->b;
    char lost[128];
    rt_buf_puts(b, RT_REPORT_BEGIN "\n");
    rt_buf_printf(b, "%s\n", r->headline);
    rt_buf_printf(b, "CPU: %d PID: %d TID: %d Comm: %s Time: %s\n", sched_getcpu(), getpid(), r->tid, comm, when);
    struct rt_item_iter it;
    FOR_ITEMS(r, it, x) {
        rt_sink_room(out);
        rt_buf_printf(b, "%s\n", x->text);
        if (rt_sink_done(out))
            continue;
        if (x->is_stack) {
            if (x->stack)
                for_frames(r, x, text_item_frame, out);
            else
                rt_buf_puts(b, " (stack unavailable)\n");
        }
    }
    if (lost_line(r, lost, sizeof lost))
        rt_buf_printf(b, "%s\n", lost);
    if (out->cut)
        rt_buf_puts(b, "[report truncated]\n");
    for (unsigned i = 0; i < r->nmods; i++) {
        rt_sink_room(out);
        rt_buf_printf(b, "module: %s build-id %s base 0x%lx path %s\n", r->mods[i].name,
                      r->mods[i].build_id[0] ? r->mods[i].build_id : "-", (unsigned long)r->mods[i].base,
                      r->mods[i].path);
    }
    if (r->more_mods)
        rt_buf_printf(b, "[%u more module%s not listed: a report lists %d]\n", r->more_mods,
                      r->more_mods == 1 ? "" : "s", MAX_REPORT_MODULES);
    rt_buf_printf(b, "SUMMARY: rtdd: %s %s in %s\n", rt_kind_table[r->kind].name, s->location, s->function);
    rt_buf_puts(b, RT_REPORT_END "\n");
}

static void json_kv(struct rt_buf *b, const char *key, const char *val)
{
    rt_buf_printf(b, ",\"%s\":\"", key);
    rt_buf_json_str(b, val);
    rt_buf_putc(b, '"');
}

static void json_section(struct rt_sink *out, const char *title)
{
    rt_buf_puts(&out->b, out->first_section ? "{\"title\":\"" : ",{\"title\":\"");
    out->first_section = 0;
    rt_buf_json_str(&out->b, title);
    rt_buf_putc(&out->b, '"');
}

static void render_json(struct rt_report *r, struct rt_sink *out, const struct summary *s, const char *comm,
                        const char *when)
{
    struct rt_buf *b = &out->b;
    char lost[128];
    rt_buf_printf(b, "{\"rtdd\":1,\"kind\":\"%s\",\"severity\":\"%s\"", rt_kind_table[r->kind].name,
                  rt_severity_name(r->severity));
    json_kv(b, "headline", r->headline);
    rt_buf_printf(b, ",\"pid\":%d,\"tid\":%d,\"cpu\":%d", getpid(), r->tid, sched_getcpu());
    json_kv(b, "comm", comm);
    json_kv(b, "time", when);
    rt_buf_puts(b, ",\"sections\":[");
    out->first_section = 1;
    struct rt_item_iter it;
    FOR_ITEMS(r, it, x) {
        rt_sink_room(out);
        int first = out->first_section;
        json_section(out, x->text);
        if (rt_sink_done(out)) {
            out->first_section = first;
            continue;
        }
        if (x->is_stack) {
            rt_buf_puts(b, ",\"frames\":[");
            out->in_frames = 1;
            out->first_frame = 1;
            for_frames(r, x, json_item_frame, out);
            out->in_frames = 0;
            rt_buf_putc(b, ']');
        }
        rt_buf_putc(b, '}');
    }
    if (lost_line(r, lost, sizeof lost)) {
        json_section(out, lost);
        rt_buf_putc(b, '}');
    }
    if (out->cut) {
        json_section(out, "[report truncated]");
        rt_buf_putc(b, '}');
    }
    rt_buf_putc(b, ']');
    out->after_sections = 1; /* a piece may end before the modules, and before the cycle */
    rt_sink_room(out);
    rt_buf_puts(b, ",\"modules\":[");
    for (unsigned i = 0; i < r->nmods; i++) {
        rt_buf_puts(b, i ? ",{\"name\":\"" : "{\"name\":\"");
        rt_buf_json_str(b, r->mods[i].name);
        rt_buf_printf(b, "\",\"build_id\":\"%s\",\"base\":\"0x%lx\"", r->mods[i].build_id,
                      (unsigned long)r->mods[i].base);
        json_kv(b, "path", r->mods[i].path);
        rt_buf_putc(b, '}');
    }
    rt_buf_puts(b, "]");
    if (r->more_mods)
        rt_buf_printf(b, ",\"modules_not_listed\":%u", r->more_mods);
    /* The cycle line, also as an array for tools (report-format.md). */
    rt_sink_room(out);
    FOR_ITEMS(r, it, x) {
        const char *text = x->text;
        if (x->is_stack || strncmp(text, "cycle: ", 7))
            continue;
        rt_buf_puts(b, ",\"cycle\":[\"");
        for (const char *p = text + 7; *p; p++) {
            if (!strncmp(p, " -> ", 4)) {
                rt_buf_puts(b, "\",\"");
                p += 3;
            } else {
                char one[2] = { *p, 0 };
                rt_buf_json_str(b, one);
            }
        }
        rt_buf_puts(b, "\"]");
        break;
    }
    json_kv(b, "location", s->location);
    json_kv(b, "function", s->function);
    rt_buf_puts(b, "}\n");
}

static uint64_t default_key(struct rt_report *r)
{
    uint64_t key = (uint64_t)r->kind + 1;
    unsigned stacks = 0;
    struct rt_item_iter it;
    FOR_ITEMS(r, it, x)
        if (x->is_stack && stacks < 2) {
            key = rt_hash64(key ^ ((uint64_t)x->stack << 8));
            stacks++;
        }
    return key;
}

/* A report claimed after this process's exit path closed the count: it
 * is not counted (the summary and exit status are decided), and its
 * thread waits for the exit to end it. 1: it may go on (the exit did not
 * come), counted and written late. Read after the claim (rt_report_finish). */
static int closed_to_others(void)
{
    int pid = __atomic_load_n(&closed_by, __ATOMIC_SEQ_CST);
    if (!pid || closing_here || pid != (int)rt_raw_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0))
        return 0;
    for (unsigned ms = 0; ms < 3000; ms++) {
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
    return 1;
}

static void unclaim(void)
{
    in_flight_here--;
    __atomic_fetch_sub(&in_flight, 1, __ATOMIC_SEQ_CST);
}

int rt_report_finish(struct rt_report *r)
{
    int written = 0;
    const enum rt_severity severity = r->severity;
    uint64_t key = rt_hash64((r->has_key ? r->key : default_key(r)) ^ (uint64_t)r->kind << 56);
    /* In flight before the duplicate check: a duplicate of it in another
     * thread returns at once, and may go on to exit() while this one is
     * still symbolized; the exit path must see this one claimed by then.
     * Sequentially consistent with closed_by (rt_report_close): either
     * the exit path sees the claim and waits, or this sees the count
     * closed. */
    __atomic_fetch_add(&in_flight, 1, __ATOMIC_SEQ_CST);
    in_flight_here++;
    if (seen_before(key)) {
        /* the same bug again: already reported once */
        unclaim();
    } else if (suppressed(r)) {
        __atomic_fetch_add(&suppressed_count, 1, __ATOMIC_RELAXED);
        unclaim();
    } else {
        struct summary s = { 0 };
        char comm[32], when[40];
        struct rt_sink out;
        if (__atomic_load_n(&closed_by, __ATOMIC_SEQ_CST)) {
            unclaim();
            if (!closed_to_others()) {
                rt_items_release(&r->items);
                rt_pool_put(&report_pool, r);
                return 0;
            }
            __atomic_fetch_add(&in_flight, 1, __ATOMIC_SEQ_CST);
            in_flight_here++;
        }
        __atomic_fetch_add(&kind_counts[r->kind], 1, __ATOMIC_RELAXED);
        if (r->severity != RT_SEV_INFO)
            __atomic_fetch_add(&error_count, 1, __ATOMIC_RELAXED);
        struct rt_item_iter it;
        FOR_ITEMS(r, it, x)
            if (x->is_stack && x->stack) {
                for_frames(r, x, summary_frame, &s);
                break;
            }
        if (!s.have_any && r->has_summary) {
            struct rt_buf b;
            rt_buf_init(&b, s.location, sizeof s.location);
            rt_buf_puts(&b, r->summary_loc);
            rt_buf_init(&b, s.function, sizeof s.function);
            rt_buf_puts(&b, r->summary_fn);
        } else if (!s.done) {
            strcpy(s.location, "[no stack]");
            strcpy(s.function, "??");
        }
        if (r->fatal)
            rt_report_text(r, "The program cannot go on: rtdd ends the run here with exit status %d "
                              "(exit_on_deadlock=0 leaves it hanging).", fatal_status());
        rt_thread_comm(r->tid, comm, sizeof comm);
        iso_time(when, sizeof when);
        rt_sink_begin(&out, r->out, sizeof r->out, rt_opt.report_format == RT_FORMAT_JSON);
        if (out.json)
            render_json(r, &out, &s, comm, when);
        else
            render_text(r, &out, &s, comm, when);
        rt_sink_finish(&out); /* the last piece, or the whole report */
        unclaim();
        written = 1;
    }
    int fatal = written && r->fatal;
    rt_items_release(&r->items);
    rt_pool_put(&report_pool, r);
    if (fatal) {
        rt_report_close(3000);
        rt_report_exit_summary(getpid());
        void (*hook)(int) = rt_fatal_exit_hook;
        if (!hook)
            _exit(fatal_status());
        hook(fatal_status());
    } else if (written && rt_opt.halt_on_error && severity != RT_SEV_INFO) {
        rt_report_close(3000);
        rt_report_exit_summary(getpid());
        _exit((int)rt_opt.exitcode);
    }
    return written;
}

unsigned rt_report_close(unsigned max_ms)
{
    closing_here = 1;
    __atomic_store_n(&closed_by, (int)rt_raw_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0), __ATOMIC_SEQ_CST);
    return rt_report_wait_in_flight(max_ms);
}

unsigned long rt_report_count(enum rt_kind kind) { return __atomic_load_n(&kind_counts[kind], __ATOMIC_RELAXED); }
unsigned long rt_report_errors(void) { return __atomic_load_n(&error_count, __ATOMIC_RELAXED); }
unsigned long rt_report_suppressed(void) { return __atomic_load_n(&suppressed_count, __ATOMIC_RELAXED); }

static _Atomic int summary_written;
/* Any other pid is a descendant: forked (or vfork'ed) from the root, or exec'd below it. */
static int root_pid;

void rt_report_set_root_pid(int pid) { root_pid = pid; }

/* A descendant that reported, suppressed and lost nothing has nothing to say. */
static int nothing_to_say(int pid)
{
    if (pid == root_pid || __atomic_load_n(&in_flight, __ATOMIC_ACQUIRE) || rt_report_suppressed())
        return 0;
    for (int k = 0; k < RT_KIND_COUNT; k++)
        if (rt_report_count((enum rt_kind)k))
            return 0;
    int lost_errno;
    return rt_log_lost(&lost_errno) == 0;
}

unsigned rt_report_wait_in_flight(unsigned max_ms)
{
    unsigned others;
    for (unsigned ms = 0; (others = __atomic_load_n(&in_flight, __ATOMIC_SEQ_CST) - in_flight_here) > 0; ms++) {
        if (ms >= max_ms)
            return others;
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
    return 0;
}

void (*rt_report_summary_hook)(struct rt_buf *b);

void rt_report_exit_summary(int pid)
{
    /* A server's children and the programs it execs (a CGI request each)
     * would otherwise leave a line, or a file, per process that found
     * nothing. Judged before the once-per-process flag, which a vfork'ed
     * child shares with its parent. */
    if (!rt_opt.print_summary || nothing_to_say(pid))
        return;
    /* Once per process: halt_on_error, exit() and _exit() may all get here. */
    if (__atomic_exchange_n(&summary_written, 1, __ATOMIC_ACQ_REL))
        return;
    char text[1024];
    struct rt_buf b;
    unsigned long total = 0;
    rt_buf_init(&b, text, sizeof text);
    for (int k = 0; k < RT_KIND_COUNT; k++)
        total += rt_report_count((enum rt_kind)k);
    unsigned unwritten = __atomic_load_n(&in_flight, __ATOMIC_ACQUIRE);
    int lost_errno;
    unsigned long lost = rt_log_lost(&lost_errno);
    rt_buf_printf(&b, "rtdd: summary: pid %d: %lu report%s", pid, total, total == 1 ? "" : "s");
    const char *sep = " (";
    for (int k = 0; k < RT_KIND_COUNT; k++) {
        unsigned long n = rt_report_count((enum rt_kind)k);
        if (n) {
            rt_buf_printf(&b, "%s%s: %lu", sep, rt_kind_table[k].name, n);
            sep = ", ";
        }
    }
    if (total)
        rt_buf_putc(&b, ')');
    rt_buf_printf(&b, ", %lu suppressed", rt_report_suppressed());
    if (unwritten)
        rt_buf_printf(&b, "; %u of the reports %s still being written when the process ended", unwritten,
                      unwritten == 1 ? "was" : "were");
    if (lost)
        rt_buf_printf(&b, "; %lu report%s could not be written anywhere (%s)", lost, lost == 1 ? "" : "s",
                      strerror(lost_errno));
    if (rt_report_summary_hook)
        rt_report_summary_hook(&b);
    rt_buf_putc(&b, '\n');
    rt_sink_write_whole(b.data, b.len);
}

void rt_report_after_fork(void)
{
    rt_sink_after_fork();
    rt_spin_reinit(&report_pool.lock);
    rt_items_after_fork();
    /* Only what is not already so is written: each store to a page copies
     * it into the child, and most children have reported nothing. */
#define RESET(var, value) do { if ((var) != (value)) (var) = (value); } while (0)
    for (int k = 0; k < RT_KIND_COUNT; k++)
        RESET(kind_counts[k], 0);
    RESET(suppressed_count, 0);
    RESET(error_count, 0);
    RESET(summary_written, 0);
    /* The other threads' reports in flight went with them. */
    RESET(in_flight, in_flight_here);
    RESET(closed_by, 0);
#undef RESET
}
