/* The runtime's end of the helper symbolizer (symclient.h). Everything here
 * runs at report time under the symbolizer's lock and uses system calls
 * directly: the program's close/dup2 wrappers are ours (interpose/fd.c),
 * and no libc function may be called in the vfork child. */
#include "report/symclient.h"
#include "core/core.h"
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A helper that has not answered in this long is given up (it is loading
 * debug info: a first answer takes up to a second of CPU). */
#define ANSWER_TIMEOUT_S 20
#define CHILD_STACK (64 * 1024)
#define HIGH_FD 210 /* where the socket lives: clear of the program's low numbers */

static char helper_path[512];
static int path_state;        /* 0 not looked for, 1 found, -1 none */
static int state;             /* 0 not started, 1 running, 2 to dial (a forked child), -1 given up */
static int sock = -1;
static struct stat sock_stat; /* to tell our socket from a number the program reused */
/* The helper also listens on an abstract socket of this name (the
 * program's pid and a random word), so that a forked child that reports
 * connects to it then: a fork costs the helper nothing, and a child that
 * never reports never connects. The helper serves only our uid. */
static struct sockaddr_un listen_addr;
static socklen_t listen_len; /* 0: no listener (the child starts its own helper) */

static long sys(long n, long a, long b, long c, long d, long e)
{
    return rt_raw_syscall6(n, a, b, c, d, e, 0);
}

static int find_helper(char *path, size_t cap)
{
    /* librtdd.so is lib/librtdd.so in the build tree and lib/rtdd/librtdd.so
     * installed; rtdd is bin/rtdd in both. */
    Dl_info info;
    if (!dladdr((void *)rt_symclient_prepare, &info) || !info.dli_fname || info.dli_fname[0] != '/')
        return -1;
    const char *slash = strrchr(info.dli_fname, '/');
    size_t dir = (size_t)(slash - info.dli_fname);
    static const char *const rel[] = {"/../bin/rtdd", "/../../bin/rtdd"};
    for (unsigned i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        if (dir + strlen(rel[i]) >= cap)
            break;
        memcpy(path, info.dli_fname, dir);
        strcpy(path + dir, rel[i]);
        if (sys(SYS_faccessat, AT_FDCWD, (long)path, X_OK, 0, 0) == 0)
            return 1;
    }
    return -1;
}

int rt_symclient_prepare(void)
{
    int found = __atomic_load_n(&path_state, __ATOMIC_ACQUIRE);
    if (!found) {
        /* No lock of ours around dladdr (it takes the loader's): threads
         * may all look; the first to finish publishes its path. */
        static rt_spin_t lock = RT_SPIN_INIT;
        char path[sizeof helper_path];
        int r = find_helper(path, sizeof path);
        rt_spin_lock(&lock);
        if (!(found = path_state)) {
            if (r > 0)
                memcpy(helper_path, path, sizeof path);
            __atomic_store_n(&path_state, found = r, __ATOMIC_RELEASE);
        }
        rt_spin_unlock(&lock);
    }
    return found > 0 ? 0 : -1;
}

struct child_args {
    int fd, listener; /* listener: -1 when none */
    const char *path;
    char *const *argv, *const *envp;
    char *stack; /* the grandchild's */
};

/* The helper, in the program's memory until its exec: system calls only. */
static int helper_main(void *p)
{
    const struct child_args *a = p;
    int null = (int)sys(SYS_openat, AT_FDCWD, (long)"/dev/null", O_RDWR, 0, 0);
    if (sys(SYS_dup3, a->fd, 0, 0, 0, 0) < 0 || sys(SYS_dup3, a->fd, 1, 0, 0, 0) < 0)
        sys(SYS_exit, 127, 0, 0, 0, 0);
    if (null >= 0)
        sys(SYS_dup3, null, 2, 0, 0, 0);
    /* The listener as fd 3 (the helper checks it is one); the program's
     * descriptors are not the helper's. */
    int keep = 3;
    if (a->listener >= 0 && sys(SYS_dup3, a->listener, 3, 0, 0, 0) == 3)
        keep = 4;
    sys(SYS_close_range, (long)keep, ~0u, 0, 0, 0);
    sys(SYS_execve, (long)a->path, (long)a->argv, (long)a->envp, 0, 0);
    sys(SYS_exit, 127, 0, 0, 0, 0);
    return 0;
}

/* The go-between: the program's own child with exit signal 0 (its wait()
 * cannot see it, its end sends no SIGCHLD), which starts the helper and
 * ends at once, so that the helper is an orphan that init (or a
 * subreaper) reaps. The helper cannot be that child itself: an exec makes
 * any exit signal SIGCHLD, and a program that waits for all its children
 * would wait for the helper, which lives as long as the program. */
static int intermediate_main(void *p)
{
    const struct child_args *a = p;
    clone(helper_main, a->stack + CHILD_STACK, CLONE_VM | CLONE_VFORK | SIGCHLD, p);
    sys(SYS_exit, 0, 0, 0, 0, 0);
    return 0;
}

/* Closing the socket ends the helper (it reads end of file), or, if it is
 * stuck, the next answer it writes (SIGPIPE): it is not ours to kill or reap. */
static void give_up(void)
{
    if (sock >= 0)
        sys(SYS_close, sock, 0, 0, 0, 0);
    sock = -1;
    state = -1;
}

/* Waits for all of len bytes, at most ANSWER_TIMEOUT_S in all. */
static int recv_all(void *buf, size_t len)
{
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    size_t got = 0;
    while (got < len) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        long left_ms = ANSWER_TIMEOUT_S * 1000L - ((now.tv_sec - start.tv_sec) * 1000L +
                                                   (now.tv_nsec - start.tv_nsec) / 1000000L);
        if (left_ms <= 0)
            return -1;
        struct pollfd pfd = {.fd = sock, .events = POLLIN};
        struct timespec ts = {left_ms / 1000, (left_ms % 1000) * 1000000L};
        long r = sys(SYS_ppoll, (long)&pfd, 1, (long)&ts, 0, 0);
        if (r == -EINTR)
            continue;
        if (r <= 0)
            return -1;
        r = sys(SYS_recvfrom, sock, (long)((char *)buf + got), (long)(len - got), MSG_DONTWAIT, 0);
        if (r == -EINTR || r == -EAGAIN)
            continue;
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    return 0;
}

static int send_all(const void *buf, size_t len)
{
    size_t sent = 0;
    while (sent < len) {
        long r = sys(SYS_sendto, sock, (long)((const char *)buf + sent), (long)(len - sent), MSG_NOSIGNAL, 0);
        if (r == -EINTR)
            continue;
        if (r <= 0)
            return -1;
        sent += (size_t)r;
    }
    return 0;
}

/* A listening socket for the forked children, named in the abstract
 * namespace "rtdd-sym.PID.RANDOM"; -1 (and no name) when it cannot be. */
static int open_listener(const char *pid_arg)
{
    listen_len = 0;
    uint64_t word = 0;
    if (sys(SYS_getrandom, (long)&word, sizeof word, 0x1 /* GRND_NONBLOCK */, 0, 0) != sizeof word)
        return -1;
    long fd = sys(SYS_socket, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, 0, 0);
    if (fd < 0)
        return -1;
    long hi = sys(SYS_fcntl, fd, F_DUPFD_CLOEXEC, HIGH_FD + 2, 0, 0);
    if (hi >= 0) {
        sys(SYS_close, fd, 0, 0, 0, 0);
        fd = hi;
    }
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    char *p = a.sun_path + 1; /* sun_path[0] == 0: abstract */
    static const char prefix[] = "rtdd-sym.";
    memcpy(p, prefix, sizeof prefix - 1);
    p += sizeof prefix - 1;
    for (const char *q = pid_arg; *q; q++)
        *p++ = *q;
    *p++ = '.';
    for (int i = 0; i < 16; i++, word >>= 4)
        *p++ = "0123456789abcdef"[word & 15];
    socklen_t len = (socklen_t)(p - (char *)&a);
    if (sys(SYS_bind, fd, (long)&a, len, 0, 0) < 0 || sys(SYS_listen, fd, 64, 0, 0, 0) < 0) {
        sys(SYS_close, fd, 0, 0, 0, 0);
        return -1;
    }
    listen_addr = a;
    listen_len = len;
    return (int)fd;
}

/* A forked child's connection to its parent's helper, made at its first
 * question; 0, or -1 when the helper is gone (the child starts its own). */
static int dial(void)
{
    long fd = sys(SYS_socket, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, 0, 0);
    if (fd < 0)
        return -1;
    long hi = sys(SYS_fcntl, fd, F_DUPFD_CLOEXEC, HIGH_FD, 0, 0);
    if (hi >= 0) {
        sys(SYS_close, fd, 0, 0, 0, 0);
        fd = hi;
    }
    long r;
    do
        r = sys(SYS_connect, fd, (long)&listen_addr, listen_len, 0, 0);
    while (r == -EINTR);
    if (r < 0 || sys(SYS_fstat, fd, (long)&sock_stat, 0, 0, 0) < 0) {
        sys(SYS_close, fd, 0, 0, 0, 0);
        return -1;
    }
    sock = (int)fd;
    return 0;
}

static void start(void)
{
    static char *stack;
    int sv[2];
    state = -1;
    if (path_state <= 0 || (!stack && !(stack = rt_zalloc(2 * CHILD_STACK))))
        return;
    if (sys(SYS_socketpair, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, (long)sv, 0) < 0)
        return;
    /* Both ends high: the child's end must not be 0, 1 or 2 (it is dup'ed there). */
    for (int i = 0; i < 2; i++) {
        long hi = sys(SYS_fcntl, sv[i], F_DUPFD_CLOEXEC, HIGH_FD + i, 0, 0);
        if (hi >= 0) {
            sys(SYS_close, sv[i], 0, 0, 0, 0);
            sv[i] = (int)hi;
        }
    }
    char pid_arg[24];
    long pid = sys(SYS_getpid, 0, 0, 0, 0, 0);
    int n = 0;
    char digits[24];
    do
        digits[n++] = (char)('0' + pid % 10);
    while ((pid /= 10) && n < 20);
    for (int i = 0; i < n; i++)
        pid_arg[i] = digits[n - 1 - i];
    pid_arg[n] = 0;
    char *argv[] = {"rtdd", "__symbolizer", pid_arg, NULL};
    char *envp[] = {"PATH=/usr/bin:/bin", NULL}; /* no LD_PRELOAD: the helper runs plain */
    int listener = open_listener(pid_arg);
    struct child_args args = {sv[1], listener, helper_path, argv, envp, stack + CHILD_STACK};
    /* Signals blocked across the vfork: no handler of the program may run
     * on the child's stack; the helper unblocks them. errno is shared with
     * the child (same thread pointer) and restored. */
    uint64_t all = ~0ull, old;
    int saved_errno = errno;
    sys(SYS_rt_sigprocmask, SIG_SETMASK, (long)&all, (long)&old, 8, 0);
    /* Both vforks return once the helper has exec'd (or failed to). */
    long between = clone(intermediate_main, stack + CHILD_STACK, CLONE_VM | CLONE_VFORK, &args);
    if (between > 0)
        sys(SYS_wait4, between, 0, __WCLONE, 0, 0);
    sys(SYS_rt_sigprocmask, SIG_SETMASK, (long)&old, 0, 8, 0);
    errno = saved_errno;
    sys(SYS_close, sv[1], 0, 0, 0, 0);
    if (listener >= 0)
        sys(SYS_close, listener, 0, 0, 0, 0); /* the helper's now */
    sock = sv[0];
    if (between <= 0) {
        give_up();
        return;
    }
    struct rt_symhello hello;
    if (recv_all(&hello, sizeof hello) < 0 || hello.magic != RT_SYM_MAGIC ||
        hello.req_size != sizeof(struct rt_symreq) || hello.resp_size != sizeof(struct rt_symresp) ||
        hello.sym_size != sizeof(struct rt_symbol) || sys(SYS_fstat, sock, (long)&sock_stat, 0, 0, 0) < 0) {
        give_up();
        return;
    }
    state = 1;
}

/* One question, one answer; -1 (and no helper from now on) on any failure. */
static int ask(struct rt_symreq *req, struct rt_symresp *resp)
{
    /* The program may have closed our socket (a daemon's closefrom) and
     * reused the number: the descriptor is no longer ours; start anew. */
    struct stat st;
    if (state == 1 && (sys(SYS_fstat, sock, (long)&st, 0, 0, 0) < 0 || st.st_ino != sock_stat.st_ino ||
                       st.st_dev != sock_stat.st_dev)) {
        sock = -1;
        state = 0;
    }
    if (state == 2)
        state = dial() == 0 ? 1 : 0;
    if (state == 0)
        start();
    if (state != 1)
        return -1;
    req->magic = RT_SYM_MAGIC;
    if (send_all(req, sizeof *req) < 0 || recv_all(resp, sizeof *resp) < 0 || resp->magic != RT_SYM_MAGIC) {
        give_up();
        return -1;
    }
    return 0;
}

static void fill(struct rt_symreq *req, int op, const struct rt_module *m, uintptr_t pc)
{
    memset(req, 0, sizeof *req);
    req->op = (uint32_t)op;
    req->pc = pc;
    req->base = m->base;
    req->lo = m->lo;
    size_t n = strlen(m->path);
    memcpy(req->path, m->path, n < sizeof req->path ? n : sizeof req->path - 1);
}

int rt_symclient_function(const struct rt_module *m, uintptr_t pc, struct rt_symbol *out, int *ok)
{
    static struct rt_symreq req;
    static struct rt_symresp resp; /* under the symbolizer's lock: static, off the stack */
    fill(&req, RT_SYMREQ_FUNCTION, m, pc);
    if (ask(&req, &resp) < 0)
        return -1;
    *ok = resp.ok == 0 ? 0 : -1;
    if (*ok == 0) {
        *out = resp.sym;
        out->loc.function[sizeof out->loc.function - 1] = 0;
        out->loc.file[sizeof out->loc.file - 1] = 0;
        if (out->ninline < 0 || out->ninline > RT_SYM_INLINE_MAX)
            out->ninline = 0;
        for (int i = 0; i < out->ninline; i++) {
            out->inl[i].function[sizeof out->inl[i].function - 1] = 0;
            out->inl[i].file[sizeof out->inl[i].file - 1] = 0;
        }
    }
    return 0;
}

int rt_symclient_data(const struct rt_module *m, uintptr_t addr, char *name, unsigned cap, uintptr_t *offset,
                      int *ok)
{
    static struct rt_symreq req;
    static struct rt_symresp resp;
    fill(&req, RT_SYMREQ_DATA, m, addr);
    if (cap == 0 || ask(&req, &resp) < 0)
        return -1;
    *ok = resp.ok == 0 ? 0 : -1;
    if (*ok == 0) {
        size_t n = strnlen(resp.name, sizeof resp.name);
        if (n >= cap)
            n = cap - 1;
        memcpy(name, resp.name, n);
        name[n] = 0;
        *offset = (uintptr_t)resp.offset;
    }
    return 0;
}

/* A forked child: the parent's socket is the parent's; the child dials
 * the helper by name at its first question, if the parent had one. */
void rt_symclient_after_fork(void)
{
    if (sock >= 0) {
        sys(SYS_close, sock, 0, 0, 0, 0); /* the parent keeps its own copy */
        sock = -1;
    }
    if (state == 1)
        state = listen_len ? 2 : 0;
}
