/* What a thread is doing, from /proc (for threads that wait for no lock
 * rtdd knows): the system call it sits in, on which descriptor, and where
 * in the kernel it sleeps. */
#include "core/procstate.h"
#include "core/rt_fmt.h"
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What a thread that waits for no lock is doing, from /proc: its state
 * and, in a system call, which one and on what (a stack of another thread
 * cannot be taken safely from here). */
static const char *syscall_name(long nr)
{
#if defined(__x86_64__)
    static const struct { long nr; const char *name; } names[] = {
        {0, "read"}, {1, "write"}, {7, "poll"}, {17, "pread64"}, {18, "pwrite64"}, {19, "readv"}, {20, "writev"},
        {23, "select"}, {34, "pause"}, {35, "nanosleep"}, {42, "connect"}, {43, "accept"}, {44, "sendto"},
        {45, "recvfrom"}, {46, "sendmsg"}, {47, "recvmsg"}, {61, "wait4"}, {72, "fcntl"}, {73, "flock"},
        {128, "rt_sigtimedwait"}, {130, "rt_sigsuspend"}, {202, "futex"}, {230, "clock_nanosleep"},
        {232, "epoll_wait"}, {270, "pselect6"}, {271, "ppoll"}, {281, "epoll_pwait"}, {288, "accept4"},
        {441, "epoll_pwait"}, /* epoll_pwait2 */
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (names[i].nr == nr)
            return names[i].name;
#else
    (void)nr;
#endif
    return NULL;
}

static int read_proc(int pid, int tid, const char *what, char *buf, size_t cap)
{
    char path[96];
    struct rt_buf b;
    rt_buf_init(&b, path, sizeof path);
    if (pid)
        rt_buf_printf(&b, "/proc/%d/task/%d/%s", pid, tid, what);
    else
        rt_buf_printf(&b, "/proc/self/task/%d/%s", tid, what);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, cap - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = 0;
    return 0;
}

void rt_thread_activity(int tid, char *out, size_t cap)
{
    rt_task_activity(0, tid, out, cap);
}

char rt_task_state(int pid, int tid)
{
    char text[512];
    if (read_proc(pid, tid, "stat", text, sizeof text) < 0)
        return '?';
    const char *paren = strrchr(text, ')'); /* the name in brackets may hold anything */
    return paren && paren[1] == ' ' && paren[2] ? paren[2] : '?';
}

static const char *state_name(char state)
{
    switch (state) {
    case 'R': return "running";
    case 'S': return "sleeping";
    case 'D': return "in an uninterruptible sleep";
    case 'T': return "stopped (SIGSTOP, SIGTSTP)";
    case 't': return "stopped by a debugger";
    case 'Z': return "a zombie (it has exited)";
    case 'X': return "dead";
    default: return NULL;
    }
}

void rt_task_activity(int pid, int tid, char *out, size_t cap)
{
    struct rt_buf b;
    rt_buf_init(&b, out, cap);
    char text[256], state = rt_task_state(pid, tid);
    /* A stopped thread still shows the call it sits in: say both. */
    if (state == 'T' || state == 't')
        rt_buf_printf(&b, "it is %s; ", state_name(state));
    if (read_proc(pid, tid, "syscall", text, sizeof text) < 0) {
        if (state_name(state) && state != 'T' && state != 't')
            rt_buf_printf(&b, "it is %s (its system call could not be read)", state_name(state));
        else
            rt_buf_puts(&b, "its system call could not be read");
        return;
    }
    if (!strncmp(text, "running", 7)) {
        rt_buf_puts(&b, "it is running (on a CPU, not in a system call)");
        return;
    }
    char *end;
    long nr = strtol(text, &end, 10);
    unsigned long arg0 = strtoul(end, NULL, 0);
    const char *name = syscall_name(nr);
    if (name && (!strcmp(name, "read") || !strcmp(name, "write") || !strcmp(name, "recvfrom") ||
                 !strcmp(name, "sendto") || !strcmp(name, "recvmsg") || !strcmp(name, "sendmsg") ||
                 !strcmp(name, "accept") || !strcmp(name, "accept4") || !strcmp(name, "connect") ||
                 !strcmp(name, "pread64") || !strcmp(name, "pwrite64") || !strcmp(name, "readv") ||
                 !strcmp(name, "writev") || !strcmp(name, "flock") || !strcmp(name, "epoll_wait") ||
                 !strcmp(name, "epoll_pwait")))
        rt_buf_printf(&b, "it is in %s(2) on fd %lu", name, arg0);
    else if (name)
        rt_buf_printf(&b, "it is in %s(2)", name);
    else
        rt_buf_printf(&b, "it is in system call %ld", nr);
    char wchan[64];
    if (read_proc(pid, tid, "wchan", wchan, sizeof wchan) == 0 && wchan[0] && strcmp(wchan, "0"))
        rt_buf_printf(&b, ", sleeping in the kernel's %s", wchan);
}

int rt_thread_awaits_events(int tid)
{
    char text[256];
    if (read_proc(0, tid, "syscall", text, sizeof text) < 0 || !strncmp(text, "running", 7))
        return 0;
    const char *name = syscall_name(strtol(text, NULL, 10));
    return name && (!strcmp(name, "poll") || !strcmp(name, "ppoll") || !strcmp(name, "select") ||
                    !strcmp(name, "pselect6") || !strcmp(name, "epoll_wait") || !strcmp(name, "epoll_pwait"));
}

/* A field of /proc/self/status ("Threads:", "SigCgt:"): its text, or NULL. */
static const char *status_field(const char *field, char *buf, size_t cap)
{
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    ssize_t n = read(fd, buf, cap - 1);
    close(fd);
    if (n <= 0)
        return NULL;
    buf[n] = 0;
    const char *p = strstr(buf, field);
    return p ? p + strlen(field) : NULL;
}

int rt_process_threads(void)
{
    char buf[4096];
    const char *p = status_field("\nThreads:", buf, sizeof buf);
    return p ? (int)strtol(p, NULL, 10) : -1;
}

int rt_process_catches_signals(void)
{
    char buf[4096];
    const char *p = status_field("\nSigCgt:", buf, sizeof buf);
    if (!p)
        return 1;
    unsigned long long caught = strtoull(p, NULL, 16);
    caught &= ~(3ull << 31); /* signals 32 and 33: glibc's cancellation and setxid */
    return caught != 0;
}
