#define UNW_LOCAL_ONLY
#include "report/unwind.h"
#include <dlfcn.h>
#include <libunwind.h>
#include <sched.h>
#include <time.h>

/* Code whose leading frames are left out: the runtime, and RCU libraries
 * whose hooks call into it. */
#define MAX_SKIP 16
static struct { uintptr_t lo, hi; } skip[MAX_SKIP];
static unsigned nskip;

void rt_unwind_set_runtime_range(uintptr_t lo, uintptr_t hi)
{
    skip[0].lo = lo;
    skip[0].hi = hi;
    if (nskip == 0)
        nskip = 1;
}

void rt_unwind_add_skip_range(uintptr_t lo, uintptr_t hi)
{
    if (nskip == 0)
        nskip = 1; /* slot 0 is the runtime's */
    if (nskip < MAX_SKIP) {
        skip[nskip].lo = lo;
        skip[nskip].hi = hi;
        nskip++;
    }
}

static int skipped(uintptr_t ip)
{
    for (unsigned i = 0; i < nskip; i++)
        if (ip >= skip[i].lo && ip < skip[i].hi)
            return 1;
    return 0;
}

/* The compiler's own unwinder (libgcc_s) finds a frame's unwind table
 * through glibc's _dl_find_object: no system call, no loader lock, no
 * allocation (libunwind blocks signals twice per frame: 4 us for 15
 * frames on this machine, against 1.4 us). Its interface is declared here
 * by hand: the compiler's <unwind.h> shares this header's name. libunwind
 * stays as the fallback where libgcc_s cannot be loaded. */
typedef int (*gcc_trace_fn)(void *context, void *arg);
#define GCC_URC_NO_REASON 0
#define GCC_URC_END_OF_STACK 5
static int (*gcc_backtrace)(gcc_trace_fn fn, void *arg);
static uintptr_t (*gcc_get_ip)(void *context);
static uintptr_t (*gcc_get_cfa)(void *context);

/* libunwind, opened only where it is used (libgcc_s missing, or a caller
 * that asks for it by name): linked, it and liblzma cost every exec'd
 * process about 0.1 ms of loading. */
#define UNW_STR2(x) #x
#define UNW_STR(x) UNW_STR2(x)
static struct {
    __typeof__(&unw_tdep_getcontext) getcontext;
    __typeof__(&unw_init_local) init_local;
    __typeof__(&unw_get_reg) get_reg;
    __typeof__(&unw_step) step;
} unw;
static _Atomic int unw_state; /* 0 not tried, 1 open, -1 cannot be */

static int unw_load(void)
{
    int s = __atomic_load_n(&unw_state, __ATOMIC_ACQUIRE);
    if (s)
        return s > 0 ? 0 : -1;
    void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
    int ok = 0;
    if (h) {
        unw.getcontext = (__typeof__(unw.getcontext))dlsym(h, UNW_STR(unw_tdep_getcontext));
        unw.init_local = (__typeof__(unw.init_local))dlsym(h, UNW_STR(unw_init_local));
        unw.get_reg = (__typeof__(unw.get_reg))dlsym(h, UNW_STR(unw_get_reg));
        unw.step = (__typeof__(unw.step))dlsym(h, UNW_STR(unw_step));
        __typeof__(&unw_set_caching_policy) policy =
            (__typeof__(policy))dlsym(h, UNW_STR(unw_set_caching_policy));
        unw_addr_space_t *local = (unw_addr_space_t *)dlsym(h, UNW_STR(unw_local_addr_space));
        ok = unw.getcontext && unw.init_local && unw.get_reg && unw.step && policy && local;
        /* Per-thread caches keep warm unwinds free of libunwind's own locks. */
        if (ok)
            policy(*local, UNW_CACHE_PER_THREAD);
    }
    __atomic_store_n(&unw_state, ok ? 1 : -1, __ATOMIC_RELEASE);
    return ok ? 0 : -1;
}

/* Opening the unwinder costs an exec'd process about 0.1 ms (libgcc_s's
 * loading and CPU probe): it is opened on the first capture or before the
 * process's second thread starts, whichever comes first. Either point is
 * safe for dlopen: a process with one thread cannot find the loader's
 * lock held by another; thread creation runs where the program may
 * allocate (threads.c). */
static _Atomic int unwinder_opened;

void rt_unwind_open(void)
{
    if (__atomic_load_n(&unwinder_opened, __ATOMIC_ACQUIRE))
        return;
    void *gcc = dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_LOCAL);
    int have_gcc = 0;
    if (gcc) {
        gcc_get_ip = (uintptr_t (*)(void *))dlsym(gcc, "_Unwind_GetIP");
        gcc_get_cfa = (uintptr_t (*)(void *))dlsym(gcc, "_Unwind_GetCFA");
        void *bt = dlsym(gcc, "_Unwind_Backtrace");
        if (gcc_get_ip && gcc_get_cfa && bt) {
            __atomic_store_n(&gcc_backtrace, (int (*)(gcc_trace_fn, void *))bt, __ATOMIC_RELEASE);
            have_gcc = 1;
        }
    }
    if (!have_gcc)
        unw_load(); /* the fallback */
    __atomic_store_n(&unwinder_opened, 1, __ATOMIC_RELEASE);
}

void rt_unwind_init(void)
{
    rt_unwind_open();
}

/* libunwind keeps pthread mutexes of its own. A fork while another thread
 * unwinds would leave one locked in the child, whose first capture would
 * then hang; so fork waits for running unwinds and holds new ones back, as
 * glibc does with its malloc arenas. A thread's own (signal-nested)
 * unwinds never wait, and are not waited for. */
static _Atomic unsigned unwinds_running;
static _Atomic unsigned forks_pending;
static __thread unsigned unwind_depth;
/* Set in a child forked while an unwind would not finish: libunwind may
 * be locked there for good, so stacks are not captured. */
static int unwinder_unusable;

static void pause_briefly(void)
{
    struct timespec ts = {0, 100000};
    nanosleep(&ts, NULL);
}

static void unwind_begin(void)
{
    if (unwind_depth++ == 0)
        for (;;) {
            __atomic_fetch_add(&unwinds_running, 1, __ATOMIC_SEQ_CST);
            if (!__atomic_load_n(&forks_pending, __ATOMIC_SEQ_CST))
                return;
            __atomic_fetch_sub(&unwinds_running, 1, __ATOMIC_SEQ_CST);
            while (__atomic_load_n(&forks_pending, __ATOMIC_SEQ_CST))
                pause_briefly();
        }
}

static void unwind_end(void)
{
    if (--unwind_depth == 0)
        __atomic_fetch_sub(&unwinds_running, 1, __ATOMIC_SEQ_CST);
}

/* At most about one second: an unwind takes microseconds. */
#define FORK_WAIT_PAUSES 10000

static int fork_found_unwinder_busy;

void rt_unwind_fork_prepare(void)
{
    __atomic_fetch_add(&forks_pending, 1, __ATOMIC_SEQ_CST);
    unsigned own = unwind_depth ? 1 : 0;
    for (unsigned i = 0; __atomic_load_n(&unwinds_running, __ATOMIC_SEQ_CST) > own; i++) {
        if (i == FORK_WAIT_PAUSES) {
            __atomic_store_n(&fork_found_unwinder_busy, 1, __ATOMIC_RELAXED);
            return;
        }
        if (i < 64)
            sched_yield();
        else
            pause_briefly();
    }
    __atomic_store_n(&fork_found_unwinder_busy, own, __ATOMIC_RELAXED);
}

void rt_unwind_fork_parent(void)
{
    __atomic_fetch_sub(&forks_pending, 1, __ATOMIC_SEQ_CST);
}

void rt_unwind_fork_child(void)
{
    if (__atomic_load_n(&fork_found_unwinder_busy, __ATOMIC_RELAXED))
        unwinder_unusable = 1;
    __atomic_store_n(&forks_pending, 0, __ATOMIC_SEQ_CST);
    unsigned running = unwind_depth ? 1 : 0;
    if (__atomic_load_n(&unwinds_running, __ATOMIC_SEQ_CST) != running)
        __atomic_store_n(&unwinds_running, running, __ATOMIC_SEQ_CST);
}

static rt_stack_id capture(unsigned max_depth);
static rt_stack_id capture_libunwind(unsigned max_depth);

/* Every capture passes the fork gate (above). */
static rt_stack_id gated(rt_stack_id (*how)(unsigned), unsigned max_depth)
{
    if (unwinder_unusable)
        return 0;
    unwind_begin();
    rt_stack_id id = how(max_depth);
    unwind_end();
    return id;
}

rt_stack_id rt_stack_capture_libunwind(unsigned max_depth) { return gated(capture_libunwind, max_depth); }

rt_stack_id rt_stack_capture(unsigned max_depth) { return gated(capture, max_depth); }

struct gcc_walk {
    uintptr_t *pcs, *sps;
    unsigned n, max;
    int leading;
};

/* libgcc's "CFA" of a frame's context is that frame's own stack pointer
 * (the canonical frame address of the frame it called). */
static int gcc_frame(void *context, void *arg)
{
    struct gcc_walk *w = arg;
    uintptr_t ip = gcc_get_ip(context);
    if (ip == 0)
        return GCC_URC_END_OF_STACK;
    if (w->leading && skipped(ip))
        return GCC_URC_NO_REASON;
    w->leading = 0;
    w->pcs[w->n] = ip;
    w->sps[w->n] = gcc_get_cfa(context);
    return ++w->n < w->max ? GCC_URC_NO_REASON : GCC_URC_END_OF_STACK;
}

static rt_stack_id intern_with_sizes(uintptr_t *pcs, const uintptr_t *sps, unsigned n)
{
    uint32_t frame_sizes[RT_STACK_MAX];
    /* A frame's size is the distance from its stack pointer to its caller's. */
    for (unsigned i = 0; i < n; i++)
        frame_sizes[i] = i + 1 < n && sps[i + 1] > sps[i] ? (uint32_t)(sps[i + 1] - sps[i]) : 0;
    return rt_stack_intern(pcs, frame_sizes, n);
}

static rt_stack_id capture(unsigned max_depth)
{
    rt_unwind_open();
    int (*bt)(gcc_trace_fn, void *) = __atomic_load_n(&gcc_backtrace, __ATOMIC_ACQUIRE);
    if (!bt)
        return capture_libunwind(max_depth);
    uintptr_t pcs[RT_STACK_MAX], sps[RT_STACK_MAX];
    struct gcc_walk w = { pcs, sps, 0, max_depth > RT_STACK_MAX ? RT_STACK_MAX : max_depth, 1 };
    if (w.max == 0)
        return 0;
    bt(gcc_frame, &w);
    return intern_with_sizes(pcs, sps, w.n);
}

static rt_stack_id capture_libunwind(unsigned max_depth)
{
    uintptr_t pcs[RT_STACK_MAX];
    uintptr_t sps[RT_STACK_MAX];
    unw_context_t ctx;
    unw_cursor_t cur;
    unsigned n = 0;
    int leading = 1;

    if (max_depth > RT_STACK_MAX)
        max_depth = RT_STACK_MAX;
    if (unw_load() < 0 || unw.getcontext(&ctx) < 0 || unw.init_local(&cur, &ctx) < 0)
        return 0;
    do {
        unw_word_t ip, sp;
        if (unw.get_reg(&cur, UNW_REG_IP, &ip) < 0 || ip == 0)
            break;
        unw.get_reg(&cur, UNW_REG_SP, &sp);
        if (leading && skipped(ip))
            continue;
        leading = 0;
        pcs[n] = ip;
        sps[n] = sp;
        n++;
    } while (n < max_depth && unw.step(&cur) > 0);
    return intern_with_sizes(pcs, sps, n);
}
