/* Setting the runtime up once, threads coming and going, fork and exit. */
#include "interpose.h"
#include "log.h"
#include "modules.h"
#include "report.h"
#include "runtime.h"
#include "symbolize.h"
#include "unwind.h"
#include <dlfcn.h>
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
    syscall(SYS_exit_group, code);
    __builtin_unreachable();
}

/* Runs after the program's atexit handlers: the summary, then the exit
 * status that says reports were issued. */
static void at_exit(void)
{
    rti_guard++;
    rt_report_exit_summary(getpid());
    if (rt_report_errors() > 0) {
        fflush(stdout);
        fflush(stderr);
        die_now((int)rt_opt.exitcode);
    }
    rti_guard--;
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
    rti_thread_dead = 1;
    rti_self = NULL;
    rt_thread_free(t);
}

static void fork_child(void)
{
    rt_locktab_after_fork();
    rt_report_after_fork();
    rt_log_after_fork();
    rt_thread_after_fork(rti_self, (int)syscall(SYS_gettid));
}

static void check_interposition(void)
{
    /* An executable that defines malloc wins over LD_PRELOAD: free() is
     * never ours, so freed-lock checks cannot run. Say so once. */
    void *winner = dlsym(RTLD_DEFAULT, "free");
    Dl_info ours, theirs;
    if (winner && dladdr((void *)check_interposition, &ours) && dladdr(winner, &theirs) &&
        ours.dli_fbase != theirs.dli_fbase && theirs.dli_fname && !strstr(theirs.dli_fname, "libc.so")) {
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
    if (rt_runtime_configure(env, &err) < 0) {
        struct rt_buf msg;
        char out[2300];
        rt_buf_init(&msg, out, sizeof out);
        rt_buf_printf(&msg, "rtdd: RTDD_OPTIONS: %s\n", err.data);
        ssize_t r = write(2, msg.data, msg.len);
        (void)r;
        die_now(2);
    }
    struct rt_module self;
    if (rt_module_find((uintptr_t)setup, &self) == 0)
        rt_unwind_set_runtime_range(self.lo, self.hi);
    rt_unwind_init();
    rt_stack_capture(4); /* warm libunwind up outside any application lock */
    pthread_key_create(&thread_key, thread_exit);
    pthread_atfork(NULL, NULL, fork_child);
    atexit(at_exit);
    check_interposition();
}

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
}

struct rt_thread *rti_thread_attach(void)
{
    struct rt_thread *t = rt_thread_new((int)syscall(SYS_gettid));
    if (!t)
        return NULL;
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
    if (__atomic_load_n(&rti_state, __ATOMIC_ACQUIRE) == RTI_READY && rt_report_errors() > 0) {
        rti_guard++;
        rt_report_exit_summary(getpid());
        if (status == 0)
            status = (int)rt_opt.exitcode;
    }
    die_now(status);
}

RTI_EXPORT void _Exit(int status)
{
    _exit(status);
}
