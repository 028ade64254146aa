/* Setting the runtime up once, threads coming and going, fork and exit. */
#include "interpose.h"
#include "locks/locks.h"
#include "fastlock.h"
#include "report/report.h"
#include "core/core.h"
#include "order/order.h"
#include "rcu/rcu.h"
#include "hang/hang.h"
#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <time.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

RT_HIDDEN void rti_resolve(void);

static pthread_key_t thread_key;
static _Atomic int setup_started;

__attribute__((noreturn)) static void die_now(int code)
{
    rt_raw_syscall6(SYS_exit_group, code, 0, 0, 0, 0, 0);
    __builtin_unreachable();
}

/* Runs after the program's atexit handlers: the summary, then the exit
 * status that says reports were issued. */
static void at_exit(void)
{
    rti_guard++;
    /* A report another thread has begun is written before the process ends. */
    rt_report_wait_in_flight(3000);
    rt_lockorder_report_latent();
    rt_rcuptr_at_exit();
    /* What the summary counts is what the status below counts: no report
     * claimed after this is counted, none claimed before is left behind. */
    rt_report_close(3000);
    rt_report_exit_summary(getpid());
    if (rt_report_errors() > 0) {
        fflush(stdout);
        fflush(stderr);
        die_now((int)rt_opt.exitcode);
    }
    rti_guard--;
}

/* A deadlock ends the run (exit_on_deadlock): the report and the summary
 * are written; what the program's stdio still holds goes out too, unless a
 * blocked thread holds its lock; no atexit handler runs (they could need
 * the locks of the deadlock). */
static void fatal_exit(int code)
{
    rti_guard++;
    FILE *streams[2] = { stdout, stderr };
    for (int i = 0; i < 2; i++)
        if (ftrylockfile(streams[i]) == 0) {
            fflush_unlocked(streams[i]);
            funlockfile(streams[i]);
        }
    die_now(code);
}

/* A thread's engine state outlives other TSD destructors: re-arm until the
 * last round, then tear down and let later hooks pass through. */
static void thread_exit(void *arg)
{
    static _Thread_local int rounds;
    struct rt_thread *t = arg;
    if (++rounds < PTHREAD_DESTRUCTOR_ITERATIONS) {
        rti_guard++;
        pthread_setspecific(thread_key, t);
        rti_guard--;
        return;
    }
    /* The whole stack dies with the thread: the thread function has
     * returned (or pthread_exit unwound it) and only libc's teardown and
     * this function run on it now, neither of which holds locks there. */
    uintptr_t lo = 0, hi = 0;
    pthread_attr_t attr;
    void *stack_addr;
    size_t stack_size;
    rti_guard++;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        if (pthread_attr_getstack(&attr, &stack_addr, &stack_size) == 0) {
            lo = (uintptr_t)stack_addr;
            hi = lo + stack_size;
        }
        pthread_attr_destroy(&attr);
    }
    rt_on_thread_exit(t, lo, hi);
    rti_guard--;
    rti_rcu_detach(t);
    rti_thread_dead = 1;
    rti_self = NULL;
    rti_guard++;
    rt_thread_free(t);
    rt_thread_walker_exit();
    rt_pool_thread_flush();
    rti_guard--;
}

/* The deadlock watchdog: a thread of the runtime's own, invisible to the
 * checks (its guard is always set) and deaf to signals. */
static void *watchdog_main(void *arg)
{
    (void)arg;
    rti_guard = 1;
    for (;;) {
        unsigned ms = rt_watchdog_period_ms();
        struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L }, now;
        nanosleep(&ts, NULL);
        clock_gettime(CLOCK_MONOTONIC, &now);
        rt_watchdog_scan((uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000);
    }
    return NULL;
}

static void start_watchdog(void)
{
    pthread_t tid;
    pthread_attr_t attr;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    if (rti_real.pthread_create(&tid, &attr, watchdog_main, NULL) == 0)
        pthread_setname_np(tid, "rtdd-watchdog");
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* From our prepare handler to our parent or child one, the forking thread
 * passes straight through the wrappers (its guard is up). The atfork
 * handlers registered before ours run inside that bracket: in the child
 * before the runtime's state is whole again (librtdd_rcu's child handler
 * initializes mutexes there), so they must not enter the runtime; in the
 * parent their calls pair up unseen (a lock in prepare, its unlock in
 * parent). */
static void fork_prepare(void)
{
    struct rt_thread *t = rti_enter();
    if (t) {
        rt_on_fork_prepare(t);
        rti_leave();
    }
    rt_unwind_fork_prepare();
    rt_symbolize_fork_prepare();
    rti_guard++;
}

static void fork_parent(void)
{
    rti_guard--;
    rt_symbolize_fork_parent();
    rt_unwind_fork_parent();
}

/* The child has one thread: what the others held of our internal locks is
 * free again, and the watchdog must be started anew if needed. */
static void fork_child(void)
{
    rti_guard--;
    rt_unwind_fork_child();
    rt_alloc_after_fork();
    rt_modules_after_fork();
    rt_locktab_after_fork();
    rt_lazylock_after_fork();
    rt_lockgroup_after_fork();
    rt_report_after_fork();
    rt_log_after_fork();
    rt_lockorder_after_fork();
    rt_thread_ends_after_fork();
    rt_symbolize_after_fork();
    rt_watchdog_after_fork();
    rt_rcucheck_after_fork();
    rti_guard++;
    rt_on_fork_child(rti_self, (int)rt_raw_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0));
    rti_guard--;
}

RT_HIDDEN extern int rti_glibc_malloc;

/* The loaded object that holds addr: its PT_LOAD extent and its name
 * ("" for the executable). Cheaper than dladdr, which searches the
 * object's symbols, and than rt_module_find, which reads every build-id:
 * start-up runs in every exec'd process. */
struct object_at {
    uintptr_t addr, lo, hi;
    const char *name;
};

static int find_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct object_at *o = arg;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;
        if (a < lo)
            lo = a;
        if (a + ph->p_memsz > hi)
            hi = a + ph->p_memsz;
    }
    if (o->addr < lo || o->addr >= hi)
        return 0;
    o->lo = lo;
    o->hi = hi;
    o->name = info->dlpi_name ? info->dlpi_name : "";
    return 1;
}

static int object_at(uintptr_t addr, struct object_at *o)
{
    o->addr = addr;
    return dl_iterate_phdr(find_object, o) == 1 ? 0 : -1;
}

static void check_interposition(const struct object_at *self)
{
    /* glibc's allocator: its chunk headers can be read directly. */
    struct object_at real_alloc;
    if (rti_real.malloc_usable_size && object_at((uintptr_t)rti_real.malloc_usable_size, &real_alloc) == 0 &&
        strstr(real_alloc.name, "/libc.so."))
        rti_glibc_malloc = 1;
    else
        rt_free_checks_add(RT_FREE_FOREIGN_ALLOC);
    /* An executable that defines malloc wins over LD_PRELOAD: free() is
     * never ours, so freed-lock checks cannot run. Say so once. */
    void *winner = dlsym(RTLD_DEFAULT, "free");
    if (!winner || ((uintptr_t)winner >= self->lo && (uintptr_t)winner < self->hi))
        return; /* ours: the usual case, decided without dladdr */
    Dl_info theirs;
    const ElfW(Sym) *sym = NULL;
    /* A program that takes free's address has a canonical PLT entry for it:
     * an undefined symbol with a value, which still leads to ours. */
    if (dladdr1(winner, &theirs, (void **)&sym, RTLD_DL_SYMENT) && theirs.dli_fname &&
        !strstr(theirs.dli_fname, "libc.so") && sym && sym->st_shndx != SHN_UNDEF) {
        static const char msg[] = "rtdd: warning: the program replaces malloc/free itself; "
                                  "active-lock-freed checks are off\n";
        rt_log_write(msg, sizeof msg - 1);
    }
}

static void setup(void)
{
    char text[2048];
    struct rt_buf err;
    rt_buf_init(&err, text, sizeof text);
    const char *env = secure_getenv("RTDD_OPTIONS");
    /* `rtdd run` names the process it started: one exec'd below it is a
     * descendant, whose clean exit stays silent (rt_report_set_descendant). */
    const char *root = getenv("RTDD_ROOT_PID");
    rt_report_set_root_pid(root && *root ? (int)strtol(root, NULL, 10) : (int)getpid());
    if (rt_runtime_configure(env, &err) < 0 || rt_steer_setup(rt_opt.confirm_plan, &err) < 0) {
        struct rt_buf msg;
        char out[2300];
        rt_buf_init(&msg, out, sizeof out);
        rt_buf_printf(&msg, "rtdd: RTDD_OPTIONS: %s\n", err.data);
        rt_quiet_write(2, msg.data, msg.len);
        die_now(2);
    }
    struct object_at self = { 0, 0, 0, "" };
    if (object_at((uintptr_t)setup, &self) == 0)
        rt_unwind_set_runtime_range(self.lo, self.hi);
    /* The unwinder opens on the first capture or before the second thread
     * (rt_unwind_open): an exec'd process that takes no lock never loads it. */
    pthread_key_create(&thread_key, thread_exit);
    rt_watchdog_start_hook = start_watchdog;
    rt_fatal_exit_hook = fatal_exit;
    rt_report_summary_hook = rt_rcu_summary;
    rti_fastlock_init();
    pthread_atfork(fork_prepare, fork_parent, fork_child);
    atexit(at_exit);
    check_interposition(&self);
}

RT_HIDDEN void rti_install_rcu_hooks(void);

void rti_init(void)
{
    if (__atomic_load_n(&rti_state, __ATOMIC_ACQUIRE) == RTI_READY)
        return;
    rti_resolve();
    if (rti_resolving_here())
        return;
    /* One thread sets up; others pass through untracked until READY. */
    if (__atomic_exchange_n(&setup_started, 1, __ATOMIC_ACQ_REL))
        return;
    rti_guard++;
    setup();
    rti_guard--;
    __atomic_store_n(&rti_state, RTI_READY, __ATOMIC_RELEASE);
    /* After READY: the hooks fire at once (rcu_read_lock may run now). */
    rti_install_rcu_hooks();
}

struct rt_thread *rti_thread_attach(void)
{
    struct rt_thread *t = rt_thread_new((int)rt_raw_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0));
    if (!t)
        return NULL;
    t->handle = (uintptr_t)pthread_self();
    rt_on_thread_start(t);
    rti_self = t;
    pthread_setspecific(thread_key, t);
    return t;
}

__attribute__((constructor(101))) static void rti_constructor(void)
{
    rti_init();
}

/* _exit skips atexit: keep the rule that reports make the status non-zero. */
RTI_EXPORT void _exit(int status)
{
    if (__atomic_load_n(&rti_state, __ATOMIC_ACQUIRE) == RTI_READY) {
        rti_guard++;
        /* Counted reports other threads are writing are waited for; the
         * summary and the status count the same reports. A shell ends with
         * _exit: the root's clean summary says the runtime ran; a clean
         * descendant (a child that _exits) writes nothing. */
        rt_report_close(3000);
        rt_report_exit_summary(getpid());
        if (rt_report_errors() > 0 && status == 0)
            status = (int)rt_opt.exitcode;
    }
    die_now(status);
}

RTI_EXPORT void _Exit(int status)
{
    _exit(status);
}
