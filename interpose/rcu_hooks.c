/* librtdd_rcu's debug hooks, installed when the program uses it: every
 * event becomes an rcucheck event of the librtdd_rcu flavour. */
#include "interpose.h"
#include "report/report.h"
#include "rcu/rcu.h"
#include <dlfcn.h>
#include <link.h>
#include <stddef.h>
#include <sys/rseq.h>
#include <rtdd/rcu_debug.h>

#define HOOK_ENTER()                        \
    struct rt_thread *t = rti_enter();      \
    if (!t)                                 \
        return
#define HOOK_ENTER_OR(value)                \
    struct rt_thread *t = rti_enter();      \
    if (!t)                                 \
        return value

/* The read side's common cases run as leaves (detect/rcu/rcu.h), without
 * entering the runtime; the rest, and anything to report, the general way
 * (out of line, so that the leaves stay small where they are inlined). */
__attribute__((noinline)) static void read_enter_general(uintptr_t caller)
{
    HOOK_ENTER();
    rt_rcu_read_enter(t, RT_RCU_RTDD, caller);
    rti_leave();
}

static inline __attribute__((always_inline)) void record_read_enter(uintptr_t caller)
{
    struct rt_thread *self = rti_self_unguarded();
    if (likely(self && rt_rcu_read_enter_fast(self, RT_RCU_RTDD, caller)))
        return;
    read_enter_general(caller);
}

__attribute__((noinline)) static void read_exit_general(uintptr_t caller)
{
    HOOK_ENTER();
    /* The library counted a section we did not see begin (the hooks came
     * in meanwhile): nothing to end. An unlock with no lock at all arrives
     * as read_unbalanced instead. */
    if (t->rcu.depth != 0 || t->rcu_slot)
        rt_rcu_read_exit(t, RT_RCU_RTDD, caller);
    rti_leave();
}

static inline __attribute__((always_inline)) void record_read_exit(uintptr_t caller)
{
    struct rt_thread *self = rti_self_unguarded();
    if (likely(self && rt_rcu_read_exit_fast(self, RT_RCU_RTDD)))
        return;
    read_exit_general(caller);
}

__attribute__((noinline)) static void dereference_general(const void *value, const void *slot, uintptr_t caller)
{
    HOOK_ENTER();
    rt_rcu_dereference(t, slot, value, caller);
    rti_leave();
}

static inline __attribute__((always_inline)) void record_dereference(const void *value, const void *slot,
                                                                      uintptr_t caller)
{
    struct rt_thread *self = rti_self_unguarded();
    if (likely(self && rt_rcu_dereference_fast(self, value, caller)))
        return;
    dereference_general(value, slot, caller);
}

static void read_enter(const void *caller, unsigned int depth)
{
    (void)depth;
    record_read_enter((uintptr_t)caller);
}

static void read_exit(const void *caller, unsigned int depth)
{
    (void)depth;
    record_read_exit((uintptr_t)caller);
}

static void read_unbalanced(const void *caller)
{
    HOOK_ENTER();
    if (t->rcu.depth == 0) /* the library saw none: neither did we */
        rt_rcu_read_unbalanced(t, (uintptr_t)caller);
    rti_leave();
}

static void dereference(const void *value, const void *slot, const void *caller)
{
    record_dereference(value, slot, (uintptr_t)caller);
}

static void dereference_unprotected(const void *value, const void *slot, const void *caller, int protected_form)
{
    HOOK_ENTER();
    rt_rcu_dereference_unprotected(t, slot, value, protected_form ? RT_DEREF_PROTECTED_FAILED : RT_DEREF_CHECK_FAILED,
                                   (uintptr_t)caller);
    rti_leave();
}

static int lock_held(const void *lock)
{
    struct rt_thread *t = rti_enter();
    if (!t)
        return 1; /* cannot tell from inside the runtime: do not accuse */
    int held = rt_lock_held_by(t, (uintptr_t)lock);
    rti_leave();
    return held;
}

static void publish(const void *value, const void *slot, const void *caller)
{
    HOOK_ENTER();
    rt_rcu_publish(t, slot, __atomic_load_n((void *const *)slot, __ATOMIC_RELAXED), value, RT_RCU_ASSIGN,
                   (uintptr_t)caller);
    rti_leave();
}

static void publish_atomic(const void *old, const void *value, const void *slot, const void *caller, int cmpxchg)
{
    HOOK_ENTER();
    rt_rcu_publish(t, slot, old, value, cmpxchg ? RT_RCU_CMPXCHG : RT_RCU_XCHG, (uintptr_t)caller);
    rti_leave();
}

static void sync_begin(const void *caller, unsigned int depth)
{
    (void)depth;
    HOOK_ENTER();
    rt_rcu_wait_begin(t, RT_RCU_RTDD, 0, (uintptr_t)caller);
    rti_leave();
}

static void sync_end(const void *caller)
{
    HOOK_ENTER();
    rt_rcu_wait_end(t, RT_RCU_RTDD, 0, (uintptr_t)caller);
    rti_leave();
}

static void barrier_begin(const void *caller, unsigned int depth)
{
    (void)depth;
    HOOK_ENTER();
    rt_rcu_wait_begin(t, RT_RCU_RTDD, 1, (uintptr_t)caller);
    rti_leave();
}

static void barrier_end(const void *caller)
{
    HOOK_ENTER();
    rt_rcu_wait_end(t, RT_RCU_RTDD, 1, (uintptr_t)caller);
    rti_leave();
}

static int call_enqueue(struct rcu_head *head, void (*func)(struct rcu_head *), const void *caller)
{
    HOOK_ENTER_OR(0);
    int r = rt_rcu_call(t, RT_RCU_RTDD, head, (void *)func, (uintptr_t)caller);
    rti_leave();
    return r == RT_RCU_DUPLICATE;
}

static void callback_begin(struct rcu_head *head, void (*func)(struct rcu_head *))
{
    (void)func;
    HOOK_ENTER();
    rt_rcu_callback_begin(t, RT_RCU_RTDD, head);
    rti_leave();
}

static void callback_end(struct rcu_head *head, void (*func)(struct rcu_head *))
{
    (void)func;
    HOOK_ENTER();
    rt_rcu_callback_end(t, RT_RCU_RTDD, head);
    rti_leave();
}

/* ---- the read side bound straight from the program ----------------------
 * With librtdd_rcu a shared library, the program's calls to its out-of-line
 * read side (rtdd_rcu_read_lock_slow and friends, called from the inline
 * rcu_read_lock() etc. once the hooks are installed) land here first: we are
 * earlier in the lookup order. That saves the library's own function and the
 * indirect hook call on every section. The library's function still runs
 * when the library needs it for itself: a fence (no membarrier) or a
 * sleeping grace period to wake. */
typedef void (*read_lock_slow_fn)(void);
typedef void (*read_unlock_slow_fn)(unsigned int);
typedef void (*debug_dereference_fn)(const void *, const void *);
static read_lock_slow_fn lib_read_lock_slow;
static read_unlock_slow_fn lib_read_unlock_slow;
static debug_dereference_fn lib_debug_dereference;
static const unsigned int *lib_read_slow_word;
/* 1: the hooks are installed without read_enter/read_exit/dereference and
 * these entry points record the sections. */
static int read_side_direct;

/* The library's own function, resolved on first use (the program may read
 * before the runtime is set up): next after us in the global scope, or, for
 * a library that a dlopen(RTLD_LOCAL)ed module brought in, in the scope of
 * the module that called. */
__attribute__((noinline)) static void *lib_function(const char *name, const void *caller)
{
    void *f = dlsym(RTLD_NEXT, name);
    Dl_info module;
    if (!f && caller && dladdr(caller, &module) && module.dli_fname) {
        void *handle = dlopen(module.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
        if (handle) {
            f = dlsym(handle, name);
            dlclose(handle);
        }
        if (f == dlsym(RTLD_DEFAULT, name))
            f = NULL; /* found ourselves again */
    }
    return f;
}

#define LIB(fn, caller) (__atomic_load_n(&lib_##fn, __ATOMIC_ACQUIRE) ? lib_##fn : resolve_##fn(caller))
#define RESOLVER(fn)                                                               \
    static fn##_fn resolve_##fn(uintptr_t caller)                                  \
    {                                                                              \
        fn##_fn f = (fn##_fn)lib_function("rtdd_rcu_" #fn, (const void *)caller); \
        if (f)                                                                     \
            __atomic_store_n(&lib_##fn, f, __ATOMIC_RELEASE);                      \
        return f;                                                                  \
    }
RESOLVER(read_lock_slow)
RESOLVER(read_unlock_slow)
RESOLVER(debug_dereference)

/* Does the library want its own slow function, and are the hooks on?
 * (Record mode's bit changes nothing here: a call-out is the general case.) */
static inline unsigned int lib_read_slow_flags(void)
{
    return __atomic_load_n(lib_read_slow_word, __ATOMIC_RELAXED) & ~RTDD_RCU_SLOW_RECORD;
}

/* ---- record mode (include/rtdd/rcu.h) -----------------------------------
 * The program's inline read side records into the thread's t->rcu, which
 * we attach to its librtdd_rcu reader slot, and calls out only for what it
 * cannot record. A call-out from inline code that stopped at a site it
 * could not use leaves that site in the slot's pending_pc: it is the
 * site's key. */
static int read_record;
/* rtdd_rcu_self's offset from the thread pointer (static TLS: the same in
 * every thread), and the slot of threads not registered. */
static ptrdiff_t reader_self_offset;
static const void *reader_unregistered;

static inline struct rtdd_rcu_reader *reader_slot(void)
{
    struct rtdd_rcu_reader *slot = *(struct rtdd_rcu_reader **)((char *)__builtin_thread_pointer() + reader_self_offset);
    return slot != reader_unregistered ? slot : NULL;
}

static inline uintptr_t call_site(struct rt_thread *t, uintptr_t ret)
{
    if (!read_record)
        return ret;
    if (t && t->rcu_slot)
        t->rcu.callouts++;
    struct rtdd_rcu_reader *slot = reader_slot();
    if (slot && __builtin_expect(slot->pending_pc != NULL, 0)) {
        ret = (uintptr_t)slot->pending_pc;
        slot->pending_pc = NULL;
    }
    return ret;
}

__attribute__((noinline)) static void attach_record(struct rt_thread *t, struct rtdd_rcu_reader *slot)
{
    rti_guard++;
    rt_rcu_attach(t, slot);
    rti_guard--;
}

/* On a call-out to begin a section: the record goes with the thread's
 * slot, once the thread has one (registered again, it has a new one),
 * before the event, so that the slot tracks the section from its start. */
static inline void ensure_attached(struct rt_thread *t)
{
    if (!read_record || !t || rti_guard)
        return;
    struct rtdd_rcu_reader *slot = reader_slot();
    if (slot && !t->rcu_gated && __atomic_load_n(&slot->record, __ATOMIC_RELAXED) != &t->rcu)
        attach_record(t, slot);
}

/* The thread's state goes away: its slot stops pointing at it (unless the
 * slot has gone to another thread meanwhile). */
RT_HIDDEN void rti_rcu_detach(struct rt_thread *t)
{
    rt_rcu_detach(t);
}

/* librtdd_rcu releases the calling thread's slot. */
static void slot_released(void)
{
    HOOK_ENTER();
    rt_rcu_slot_released(t);
    rti_leave();
}

/* The library's function, for what only it does (or all of it, before the
 * hooks are in). */
__attribute__((noinline)) static void lib_lock_side(unsigned int flags, uintptr_t caller)
{
    if (read_side_direct && (flags & RTDD_RCU_SLOW_HOOKS))
        record_read_enter(caller);
    read_lock_slow_fn lib = LIB(read_lock_slow, caller);
    if (lib)
        lib();
    else
        __atomic_thread_fence(__ATOMIC_SEQ_CST); /* what the library's would do at worst */
}

RTI_EXPORT void rtdd_rcu_read_lock_slow(void)
{
    unsigned int flags = __atomic_load_n(&read_side_direct, __ATOMIC_ACQUIRE) ? lib_read_slow_flags() : 0;
    struct rt_thread *t = rti_self_unguarded();
    uintptr_t pc = call_site(t, RTI_CALLER());
    ensure_attached(t);
    if (likely(flags == RTDD_RCU_SLOW_HOOKS))
        record_read_enter(pc);
    else
        lib_lock_side(flags, pc);
}

__attribute__((noinline)) static void lib_unlock_side(unsigned int flags, unsigned int depth_before, uintptr_t caller)
{
    if (read_side_direct && (flags & RTDD_RCU_SLOW_HOOKS))
        record_read_exit(caller);
    read_unlock_slow_fn lib = LIB(read_unlock_slow, caller);
    if (lib)
        lib(depth_before);
}

RTI_EXPORT void rtdd_rcu_read_unlock_slow(unsigned int depth_before)
{
    unsigned int flags = __atomic_load_n(&read_side_direct, __ATOMIC_ACQUIRE) ? lib_read_slow_flags() : 0;
    uintptr_t pc = call_site(rti_self_unguarded(), RTI_CALLER());
    if (likely(flags == RTDD_RCU_SLOW_HOOKS))
        record_read_exit(pc);
    else
        lib_unlock_side(flags, depth_before, pc);
}

RTI_EXPORT void rtdd_rcu_debug_dereference(const void *value, const void *slot)
{
    if (likely(__atomic_load_n(&read_side_direct, __ATOMIC_ACQUIRE))) {
        record_dereference(value, slot, call_site(rti_self_unguarded(), RTI_CALLER()));
        return;
    }
    debug_dereference_fn lib = LIB(debug_dereference, RTI_CALLER());
    if (lib)
        lib(value, slot);
}

static const struct rtdd_rcu_debug_ops ops = {
    .read_enter = read_enter,
    .read_exit = read_exit,
    .read_unbalanced = read_unbalanced,
    .dereference = dereference,
    .publish = publish,
    .dereference_unprotected = dereference_unprotected,
    .lock_held = lock_held,
    .publish_atomic = publish_atomic,
    .sync_begin = sync_begin,
    .sync_end = sync_end,
    .call_enqueue = call_enqueue,
    .callback_begin = callback_begin,
    .callback_end = callback_end,
    .barrier_begin = barrier_begin,
    .barrier_end = barrier_end,
    /* exit_in_reader: the runtime sees thread exits itself. */
    .slot_released = slot_released,
};

/* What is installed: ops, less the read side when the entry points above
 * record it (static: the library reads it until it is replaced). */
static struct rtdd_rcu_debug_ops installed_ops;

/* librtdd_rcu's exported functions that call a hook (rcu/). */
static const char *const hook_callers[] = {
    "synchronize_rcu",           "call_rcu",
    "rcu_barrier",               "rtdd_rcu_read_lock_slow",
    "rtdd_rcu_read_unlock_slow", "rtdd_rcu_read_unbalanced",
    "rtdd_rcu_debug_dereference", "rtdd_rcu_debug_publish",
    "rtdd_rcu_debug_dereference_unprotected", "rtdd_lock_is_held",
    "rtdd_rcu_debug_publish_atomic",
};

static void skip_linked_in_library(void)
{
    for (size_t i = 0; i < sizeof hook_callers / sizeof hook_callers[0]; i++) {
        void *f = dlsym(RTLD_DEFAULT, hook_callers[i]);
        Dl_info info;
        const ElfW(Sym) *sym = NULL;
        if (f && dladdr1(f, &info, (void **)&sym, RTLD_DL_SYMENT) && sym && sym->st_size)
            rt_unwind_add_skip_range((uintptr_t)f, (uintptr_t)f + sym->st_size);
    }
}

/* Called once the runtime is set up: a program linked with librtdd_rcu
 * exports its hook setter. */
RT_HIDDEN void rti_install_rcu_hooks(void)
{
    const struct rtdd_rcu_debug_ops *(*set)(const struct rtdd_rcu_debug_ops *) =
        (const struct rtdd_rcu_debug_ops *(*)(const struct rtdd_rcu_debug_ops *))dlsym(RTLD_DEFAULT,
                                                                                     "rtdd_rcu_set_debug_hooks");
    /* A library that knows the table's size takes all of it; an older one
     * reads the first layout only. */
    const struct rtdd_rcu_debug_ops *(*set_sized)(const struct rtdd_rcu_debug_ops *, size_t) =
        (const struct rtdd_rcu_debug_ops *(*)(const struct rtdd_rcu_debug_ops *, size_t))dlsym(
            RTLD_DEFAULT, "rtdd_rcu_set_debug_hooks_sized");
    if (!set)
        return;
    /* Reports start at the program's call into the library, not inside it:
     * the library's module is left out of their leading frames, or, where
     * the library is linked into the program itself, its functions that
     * call hooks (exported: the program was linked with -rdynamic). */
    struct rt_module m, prog;
    if (rt_module_find((uintptr_t)set, &m) == 0 &&
        !(rt_module_find((uintptr_t)dlsym(RTLD_DEFAULT, "main"), &prog) == 0 && prog.base == m.base))
        rt_unwind_add_skip_range(m.lo, m.hi);
    else
        skip_linked_in_library();
    /* The program's read side reaches our entry points unless the program
     * itself defines them (librtdd_rcu linked in statically, exported):
     * then its calls stay inside it and only the hooks can see them. */
    lib_read_slow_word = (const unsigned int *)dlsym(RTLD_DEFAULT, "rtdd_rcu_read_slow");
    installed_ops = ops;
    if (lib_read_slow_word && dlsym(RTLD_DEFAULT, "rtdd_rcu_read_lock_slow") == (void *)rtdd_rcu_read_lock_slow &&
        dlsym(RTLD_DEFAULT, "rtdd_rcu_read_unlock_slow") == (void *)rtdd_rcu_read_unlock_slow &&
        dlsym(RTLD_DEFAULT, "rtdd_rcu_debug_dereference") == (void *)rtdd_rcu_debug_dereference && LIB(read_lock_slow, 0) &&
        LIB(read_unlock_slow, 0)) {
        installed_ops.read_enter = NULL;
        installed_ops.read_exit = NULL;
        installed_ops.dereference = NULL;
        __atomic_store_n(&read_side_direct, 1, __ATOMIC_RELEASE);
    }
    if (set_sized)
        set_sized(&installed_ops, sizeof installed_ops);
    else
        set(&installed_ops);
    /* Record mode needs the bound entry points (its call-outs land here),
     * the CPU from rseq, and a library that has it, of our record layout. */
    void (*set_record)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "rtdd_rcu_set_read_record");
    char *self_here = dlsym(RTLD_DEFAULT, "rtdd_rcu_self");
    reader_unregistered = dlsym(RTLD_DEFAULT, "rtdd_rcu_unregistered");
    uint64_t *gp_word = dlsym(RTLD_DEFAULT, "rtdd_rcu_gp_ctr");
    const unsigned *layout = dlsym(RTLD_DEFAULT, "rtdd_rcu_record_layout");
    if (read_side_direct && rt_cpu_rseq && set_record && self_here && reader_unregistered && gp_word && layout &&
        *layout == RTDD_RCU_REC_LAYOUT) {
        reader_self_offset = self_here - (char *)__builtin_thread_pointer();
        rt_rcu_set_clock_word(gp_word);
        read_record = 1;
        set_record(1);
    }
}
