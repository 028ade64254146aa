#include "signature.h"
#include "report/kinds.h"
#include "report/suppress.h"
#include "util.h"
#include <stdio.h>
#include <string.h>

/* Compiler-made clones and parts of a function are the same function. */
static const char *const clone_suffixes[] = {"isra", "constprop", "part", "cold", "lto_priv", "llvm",
                                             "localalias", "clone", "specialized", "str", "hot"};

void az_normalize_function(const char *name, char *out, size_t cap)
{
    size_t n = strcspn(name, "@"); /* symbol versions: __libc_start_main@@GLIBC_2.34 */
    const char *clone = strstr(name, " [clone ."); /* a demangled C++ clone: f() [clone .isra.0] */
    if (clone && (size_t)(clone - name) < n)
        n = (size_t)(clone - name);
    for (const char *dot = memchr(name, '.', n); dot; dot = memchr(dot + 1, '.', n - (size_t)(dot + 1 - name))) {
        for (size_t i = 0; i < sizeof clone_suffixes / sizeof *clone_suffixes; i++) {
            size_t k = strlen(clone_suffixes[i]);
            if (!strncmp(dot + 1, clone_suffixes[i], k) && (dot[1 + k] == 0 || dot[1 + k] == '.' || dot[1 + k] == '@')) {
                n = (size_t)(dot - name);
                goto done;
            }
        }
    }
done:
    if (n >= cap)
        n = cap - 1;
    memcpy(out, name, n);
    out[n] = 0;
}

/* Frames that are never the guilty one: the allocator and lock wrappers
 * the runtime interposes, thread start-up, libc internals, librtdd_rcu's
 * inline read side (its caller is the one to look at). */
static const char *const boilerplate_functions[] = {
    "malloc", "calloc", "realloc", "reallocarray", "free", "cfree", "posix_memalign", "aligned_alloc",
    "memalign", "valloc", "pvalloc", "_Znwm", "_Znam", "_ZdlPv", "_ZdaPv", "_ZdlPvm", "_ZdaPvm",
    "operator new*", "operator delete*", "pthread_mutex_*", "pthread_rwlock_*", "pthread_spin_*",
    "pthread_cond_*", "pthread_create*", "pthread_join*", "pthread_exit", "start_thread", "clone", "clone3",
    "__clone", "__clone3", "_start", "__libc_*", "__GI_*", "__pthread_*", "___pthread_*", "rtdd_*", "__rtdd_*",
    "rt_report*", "__interceptor_*", "__sanitizer_*", "__asan_*", "__tsan_*", "dump_stack", "dump_stack_lvl",
    "abort", "raise", "__assert_fail", "rcu_read_lock", "rcu_read_unlock",
};
/* The kernel's own: lockdep, the allocators, locking primitives, the
 * -rt debugging code, and the workqueue/kthread frames every worker has
 * (syzkaller skips the same). */
static const char *const kernel_boilerplate[] = {
    "check_no_locks_freed", "debug_check_no_locks_freed", "rt_mutex_debug_*", "lockdep_*", "__lockdep_*",
    "lock_acquire*", "lock_release", "__lock_acquire", "lock_acquired", "lock_contended", "print_*_bug*",
    "check_*_irq*", "validate_chain", "__lock_*", "check_prev_add", "check_prevs_add", "check_noncircular",
    "_raw_spin_*", "_raw_read_*", "_raw_write_*", "__raw_spin_*", "do_raw_spin_*", "rt_spin_lock*",
    "rt_mutex_*", "mutex_lock*", "mutex_unlock*", "__mutex_*", "down_read*", "down_write*", "up_read*",
    "up_write*", "spin_lock*", "spin_unlock*", "_spin_lock*", "_spin_unlock*", "kfree", "kvfree", "kfree_*",
    "kmalloc*", "__kmalloc*", "kmem_cache_*", "slab_*", "__slab_*", "kzalloc*", "debug_check_no_obj_freed",
    "kasan_*", "__kasan_*", "process_one_work", "worker_thread", "kthread", "ret_from_fork*",
    "kernel_thread_helper", "__warn", "warn_slowpath*", "report_bug", "handle_bug", "exc_invalid_op",
    "asm_exc_invalid_op", "show_stack", "sched_show_task",
};
static const char *const boilerplate_modules[] = {
    "librtdd.so*", "libc.so*", "ld-linux*.so*", "libpthread.so*", "libdl.so*", "libasan.so*", "libtsan.so*",
    "libubsan.so*", "libstdc++.so*", "libgcc_s.so*",
};

/* Code from the system's and the compiler's headers, inlined into the
 * program: glibc's wrappers, std::mutex::lock(), gthr-default.h. */
static int in_system_header(const char *file)
{
    return !strncmp(file, "/usr/include/", 13) || !strncmp(file, "/usr/lib/gcc/", 13);
}

static int match_any(const char *const *globs, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (rt_glob_match(globs[i], s))
            return 1;
    return 0;
}

#define COUNT(a) (sizeof(a) / sizeof *(a))

/* The same few names recur in every report of a log: remember the
 * answers (a small direct-mapped cache; a collision just recomputes). */
#define VERDICT_SLOTS 1024
struct verdict {
    uint64_t hash;
    char name[96];
    unsigned char what, boilerplate; /* what: 1 module, 2 user function, 3 kernel function */
};
static _Thread_local struct verdict verdicts[VERDICT_SLOTS];

static int cached(const char *name, unsigned char what, int (*decide)(const char *))
{
    size_t len = strlen(name);
    if (len >= sizeof verdicts[0].name)
        return decide(name);
    uint64_t h = az_fnv1a(AZ_FNV_INIT ^ what, name, len);
    struct verdict *v = &verdicts[h & (VERDICT_SLOTS - 1)];
    if (v->what == what && v->hash == h && !strcmp(v->name, name))
        return v->boilerplate;
    v->what = what;
    v->hash = h;
    memcpy(v->name, name, len + 1);
    v->boilerplate = (unsigned char)decide(name);
    return v->boilerplate;
}

static int module_decision(const char *module)
{
    return match_any(boilerplate_modules, COUNT(boilerplate_modules), module);
}

static int user_decision(const char *function)
{
    char name[256];
    az_normalize_function(function, name, sizeof name);
    return match_any(boilerplate_functions, COUNT(boilerplate_functions), name);
}

static int kernel_decision(const char *function)
{
    char name[256];
    az_normalize_function(function, name, sizeof name);
    return match_any(boilerplate_functions, COUNT(boilerplate_functions), name) ||
           match_any(kernel_boilerplate, COUNT(kernel_boilerplate), name);
}

int az_frame_is_boilerplate(const struct az_frame *f, int kernel)
{
    if (f->module && cached(f->module, 1, module_decision))
        return 1;
    if (!kernel && f->file && in_system_header(f->file))
        return 1;
    if (!f->function)
        return 0;
    return kernel ? cached(f->function, 3, kernel_decision) : cached(f->function, 2, user_decision);
}

/* Name of a kept frame: its function, or MODULE+0xOFF when unsymbolized
 * (valid within one build only, which is the best there is). */
static void frame_key(const struct az_frame *f, char *out, size_t cap)
{
    if (f->function) {
        az_normalize_function(f->function, out, cap);
    } else if (f->module && f->has_module_offset) {
        const char *base = strrchr(f->module, '/');
        snprintf(out, cap, "%s+0x%llx", base ? base + 1 : f->module, (unsigned long long)f->module_offset);
    } else {
        snprintf(out, cap, "??");
    }
}

/* Fills names with up to AZ_SIG_FRAMES kept frames; returns the index of the first one or -1. */
static int top_frames(const struct az_section *sec, int kernel, char names[][128], unsigned *n)
{
    int first = -1;
    *n = 0;
    for (unsigned i = 0; i < sec->nframes && *n < AZ_SIG_FRAMES; i++) {
        if (az_frame_is_boilerplate(&sec->frames[i], kernel))
            continue;
        if (first < 0)
            first = (int)i;
        frame_key(&sec->frames[i], names[(*n)++], 128);
    }
    return first;
}

static int two_stack_kind(int kind)
{
    switch (kind) {
    case RT_KIND_ACTIVE_LOCK_FREED:
    case RT_KIND_LOCK_ORDER_INVERSION:
    case RT_KIND_DEADLOCK:
    case RT_KIND_NON_OWNER_UNLOCK:
    case RT_KIND_CROSS_CPU_UNLOCK:
    case RT_KIND_RCU_FREED_WHILE_REFERENCED:
    case RT_KIND_RECURSIVE_LOCKING:
        return 1;
    default:
        return 0;
    }
}

static int cycle_kind(int kind)
{
    return kind == RT_KIND_LOCK_ORDER_INVERSION || kind == RT_KIND_DEADLOCK;
}

static uint64_t hash_str(uint64_t h, const char *s)
{
    return az_fnv1a(h, s, strlen(s) + 1); /* with the NUL, so "ab","c" != "a","bc" */
}

void az_signature_compute(const struct az_report *r, struct az_signature *sig)
{
    memset(sig, 0, sizeof *sig);
    sig->primary = sig->secondary = sig->guilty_frame = -1;
    int kernel = r->origin == AZ_ORIGIN_KERNEL;
    /* lockdep-RCU's splat lists the locks held (each "at:" a one-frame
     * stack) before the backtrace of the dereference, which locates it. */
    unsigned from = 0;
    if (kernel && r->kind == RT_KIND_RCU_UNPROTECTED_DEREFERENCE)
        for (unsigned i = 0; i < r->nsections; i++)
            if (r->sections[i].nframes && r->sections[i].title &&
                (!strncmp(r->sections[i].title, "stack backtrace", 15) ||
                 !strncmp(r->sections[i].title, "Call Trace", 10))) {
                from = i;
                break;
            }
    /* The primary stack is the first with a kept frame; the second the next one. */
    for (unsigned i = from; i < r->nsections; i++) {
        const struct az_section *sec = &r->sections[i];
        if (!sec->nframes)
            continue;
        int slot = sig->primary < 0 ? 0 : 1;
        unsigned n;
        char names[AZ_SIG_FRAMES][128];
        int first = top_frames(sec, kernel, names, &n);
        if (!n)
            continue;
        memcpy(sig->frames[slot], names, sizeof names);
        sig->nframes[slot] = n;
        if (slot == 0) {
            sig->primary = (int)i;
            sig->guilty_frame = first;
            if (!two_stack_kind(r->kind))
                break;
        } else {
            sig->secondary = (int)i;
            break;
        }
    }
    uint64_t h = hash_str(AZ_FNV_INIT, "rtdd-signature-v1");
    h = hash_str(h, r->kind >= 0 ? rt_kind_table[r->kind].name : "unknown");
    if (cycle_kind(r->kind)) {
        for (unsigned i = 0; i < r->nsections; i++) {
            unsigned n;
            char names[AZ_SIG_FRAMES][128];
            top_frames(&r->sections[i], kernel, names, &n);
            if (!n)
                continue;
            unsigned j = 0;
            while (j < sig->ncycle_functions && strcmp(sig->cycle_functions[j], names[0]) < 0)
                j++;
            if (j < sig->ncycle_functions && !strcmp(sig->cycle_functions[j], names[0]))
                continue;
            memmove(sig->cycle_functions[j + 1], sig->cycle_functions[j],
                    (sig->ncycle_functions - j) * sizeof sig->cycle_functions[0]);
            memcpy(sig->cycle_functions[j], names[0], sizeof names[0]);
            sig->ncycle_functions++;
        }
        for (unsigned i = 0; i < sig->ncycle_functions; i++)
            h = hash_str(h, sig->cycle_functions[i]);
    } else {
        for (unsigned i = 0; i < sig->nframes[0]; i++)
            h = hash_str(h, sig->frames[0][i]);
        h = hash_str(h, "|");
        for (unsigned i = 0; i < sig->nframes[1]; i++)
            h = hash_str(h, sig->frames[1][i]);
    }
    if (cycle_kind(r->kind) && r->ncycle > 1) {
        /* Named locks only (addresses change every run: "[0x...]", a bit
         * lock's "[bit N of the word at 0x...]"), rotated to start at the
         * smallest name: the cycle is the same from any entry. */
        const char *named[AZ_MAX_CYCLE];
        unsigned n = 0, start = 0;
        for (unsigned i = 0; i + 1 < r->ncycle; i++)
            if (!az_starts_with(r->cycle[i], strlen(r->cycle[i]), "[0x") &&
                !az_starts_with(r->cycle[i], strlen(r->cycle[i]), "[bit "))
                named[n++] = r->cycle[i];
        for (unsigned i = 1; i < n; i++)
            if (strcmp(named[i], named[start]) < 0)
                start = i;
        h = hash_str(h, "cycle");
        for (unsigned i = 0; i < n; i++)
            h = hash_str(h, named[(start + i) % n]);
    }
    snprintf(sig->hex, sizeof sig->hex, "%016llx", (unsigned long long)h);
    const char *ktitle = r->kind >= 0 ? rt_kind_table[r->kind].title : "unrecognised report";
    /* A cycle's title must not depend on which of its threads reported it. */
    if (sig->ncycle_functions)
        snprintf(sig->title, sizeof sig->title, "%s in %s", ktitle, sig->cycle_functions[0]);
    else if (sig->nframes[0])
        snprintf(sig->title, sizeof sig->title, "%s in %s", ktitle, sig->frames[0][0]);
    else
        snprintf(sig->title, sizeof sig->title, "%s", ktitle);
}
