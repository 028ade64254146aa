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
static int state;             /* 0 not started, 1 running, -1 given up */
static int sock = -1;
static int spare = -1;        /* a forked child's connection, between prepare and the fork's end */
static struct stat sock_stat; /* to tell our socket from a number the program reused */
/* The next child's connection is asked for when a fork ends (no wait) and
 * its answer read at the next use of the socket: a fork does not wait for
 * the helper's round trip, which on busy CPUs costs a scheduling delay. */
static int connect_pending;   /* a CONNECT's answer is still to be read */
static int ready = -1;        /* the connection it brought, for the next fork */
static struct stat ready_stat;

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
    int fd;
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
    sys(SYS_close_range, 3, ~0u, 0, 0, 0); /* the program's descriptors are not the helper's */
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

/* A descriptor that came with an answer (RT_SYMREQ_CONNECT), moved high. */
static int received_fd = -1;

static void take_fd(struct msghdr *msg)
{
    for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(int)))
            continue;
        int fd;
        memcpy(&fd, CMSG_DATA(c), sizeof fd);
        long hi = sys(SYS_fcntl, fd, F_DUPFD_CLOEXEC, HIGH_FD, 0, 0);
        if (hi >= 0) {
            sys(SYS_close, fd, 0, 0, 0, 0);
            fd = (int)hi;
        }
        if (received_fd >= 0)
            sys(SYS_close, received_fd, 0, 0, 0, 0);
        received_fd = fd;
    }
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
        union {
            struct cmsghdr h;
            char buf[CMSG_SPACE(sizeof(int))];
        } control;
        struct iovec iov = {(char *)buf + got, len - got};
        struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = &control, .msg_controllen = sizeof control};
        r = sys(SYS_recvmsg, sock, (long)&msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC, 0, 0);
        if (r > 0)
            take_fd(&msg);
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
    struct child_args args = {sv[1], helper_path, argv, envp, stack + CHILD_STACK};
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

/* Reads the answer to the CONNECT asked when the last fork ended: the
 * connection it brings waits in `ready` for the next fork. */
static int collect_connection(void)
{
    static struct rt_symresp resp;
    if (!connect_pending)
        return 0;
    connect_pending = 0;
    if (recv_all(&resp, sizeof resp) < 0 || resp.magic != RT_SYM_MAGIC) {
        give_up();
        return -1;
    }
    if (resp.ok == 0 && received_fd >= 0) {
        if (ready >= 0)
            sys(SYS_close, ready, 0, 0, 0, 0);
        ready = received_fd;
        if (sys(SYS_fstat, ready, (long)&ready_stat, 0, 0, 0) < 0)
            ready = -1;
    }
    received_fd = -1;
    return 0;
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
        connect_pending = 0;
    }
    if (state == 0)
        start();
    if (state != 1 || collect_connection() < 0)
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

void rt_symclient_fork_prepare(void)
{
    static struct rt_symreq req;
    static struct rt_symresp resp;
    spare = -1;
    if (state != 1)
        return; /* no helper yet: a child that reports starts its own */
    /* The connection asked for when the last fork ended, if the program
     * has not closed its number meanwhile (a daemon's closefrom). */
    struct stat st;
    if (collect_connection() == 0 && ready >= 0) {
        if (sys(SYS_fstat, ready, (long)&st, 0, 0, 0) == 0 && st.st_ino == ready_stat.st_ino &&
            st.st_dev == ready_stat.st_dev) {
            spare = ready;
            ready = -1;
            return;
        }
        ready = -1; /* the number is the program's now: not ours to close */
    }
    if (state != 1)
        return;
    memset(&req, 0, sizeof req);
    req.op = RT_SYMREQ_CONNECT;
    if (ask(&req, &resp) < 0 || resp.ok != 0)
        return;
    /* The answer came with the descriptor (recv_all read it with the bytes). */
    spare = received_fd;
    received_fd = -1;
}

void rt_symclient_fork_parent(void)
{
    static struct rt_symreq req;
    if (spare >= 0)
        sys(SYS_close, spare, 0, 0, 0, 0);
    spare = -1;
    /* The next fork's connection: asked now, its answer read later. */
    if (state == 1 && !connect_pending && ready < 0) {
        memset(&req, 0, sizeof req);
        req.magic = RT_SYM_MAGIC;
        req.op = RT_SYMREQ_CONNECT;
        if (send_all(&req, sizeof req) < 0)
            give_up();
        else
            connect_pending = 1;
    }
}

void rt_symclient_after_fork(void)
{
    connect_pending = 0; /* nothing was pending at the fork (prepare read it) */
    if (ready >= 0)
        sys(SYS_close, ready, 0, 0, 0, 0); /* the parent's, for its next child */
    ready = -1;
    if (sock >= 0)
        sys(SYS_close, sock, 0, 0, 0, 0); /* the parent's: it keeps its own copy */
    sock = -1;
    if (spare >= 0 && sys(SYS_fstat, spare, (long)&sock_stat, 0, 0, 0) == 0) {
        sock = spare; /* the helper's connection for this process */
        state = 1;
    } else if (state == 1) {
        state = 0;
    }
    spare = -1;
}
