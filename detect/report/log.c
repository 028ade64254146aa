#include "report/log.h"
#include "core/core.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

/* High descriptor numbers keep the log out of the way of programs that
 * close or dup2 over low ones. */
#define LOG_FD_FLOOR 200

static _Atomic int log_fd = 2;
static char log_template[512];
static int log_is_file;
/* A log file is made by the first report, not at start: a process with
 * nothing to say (a child that execs or _exits) leaves no empty file. */
static _Atomic int log_pending;
static rt_spin_t open_lock = RT_SPIN_INIT;
/* stderr was /dev/null (or closed) at start: the file is the default one,
 * announced to the system log when the first report makes it. */
static int log_instead_of_null;
/* The descriptor is the runtime's own (a file it opened, or its copy of
 * stderr or stdout): the program never reopens it for its own data. */
static int log_fd_own;
static int log_std = 2; /* which standard descriptor a copy was made of */
static void copy_standard(int std);

int rt_log_expand_path(const char *tmpl, int pid, char *out, size_t cap)
{
    struct rt_buf b;
    rt_buf_init(&b, out, cap);
    for (const char *p = tmpl; *p; p++) {
        if (p[0] == '%' && p[1] == 'p') {
            rt_buf_printf(&b, "%d", pid);
            p++;
        } else if (p[0] == '%' && p[1] == '%') {
            rt_buf_putc(&b, '%');
            p++;
        } else {
            rt_buf_putc(&b, *p);
        }
    }
    return b.truncated ? -1 : 0;
}

static void say(const char *a, const char *b, const char *c)
{
    struct rt_buf m;
    char text[1024];
    rt_buf_init(&m, text, sizeof text);
    rt_buf_printf(&m, "rtdd: %s%s%s\n", a, b, c);
    rt_quiet_write(2, m.data, m.len);
}

/* One line to the system log (journald or syslogd, through /dev/log):
 * where a daemon's reports went, said where an administrator looks. */
static void announce(const char *path)
{
    char text[800];
    struct rt_buf m;
    rt_buf_init(&m, text, sizeof text);
    rt_buf_printf(&m, "<12>rtdd[%d]: stderr of pid %d is /dev/null or closed: rtdd reports go to %s", (int)getpid(),
                  (int)getpid(), path);
    int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0)
        return;
    struct sockaddr_un a = { .sun_family = AF_UNIX, .sun_path = "/dev/log" };
    ssize_t r = sendto(s, m.data, m.len, MSG_DONTWAIT | MSG_NOSIGNAL, (struct sockaddr *)&a, sizeof a);
    (void)r;
    close(s);
}

static void open_file(void)
{
    char path[600];
    if (rt_log_expand_path(log_template, getpid(), path, sizeof path) < 0) {
        say("log_path is too long: ", log_template, "; reports go to stderr");
        log_fd = 2;
        return;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        int e = errno;
        say("cannot open log_path '", path, "'");
        say("  reason: ", strerror(e), "; reports go to stderr instead");
        log_fd = 2;
        return;
    }
    int high = fcntl(fd, F_DUPFD_CLOEXEC, LOG_FD_FLOOR);
    if (high >= 0) {
        close(fd);
        fd = high;
    }
    log_fd = fd;
    log_fd_own = 1;
    if (log_instead_of_null) {
        say("stderr is /dev/null or closed: reports go to ", path, "");
        announce(path);
    }
}

/* Makes the log file if no report has yet (any thread's first report). */
static void open_pending(void)
{
    if (!__atomic_load_n(&log_pending, __ATOMIC_ACQUIRE))
        return;
    rt_spin_lock(&open_lock);
    if (__atomic_load_n(&log_pending, __ATOMIC_RELAXED)) {
        open_file();
        __atomic_store_n(&log_pending, 0, __ATOMIC_RELEASE);
    }
    rt_spin_unlock(&open_lock);
}

/* Says at start when the file will not open (a missing or unwritable
 * directory), and falls back to stderr then, rather than at the first
 * report. */
static int file_can_be_made(void)
{
    char path[600], dir[600];
    if (rt_log_expand_path(log_template, getpid(), path, sizeof path) < 0) {
        say("log_path is too long: ", log_template, "; reports go to stderr");
        return 0;
    }
    if (access(path, W_OK) == 0)
        return 1;
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : 0;
    memcpy(dir, slash ? path : ".", slash ? (n ? n : 1) : 1);
    dir[slash ? (n ? n : 1) : 1] = 0;
    if (access(path, F_OK) != 0 && access(dir, W_OK | X_OK) == 0)
        return 1;
    int e = errno;
    say("cannot open log_path '", path, "'");
    say("  reason: ", strerror(e), "; reports go to stderr instead");
    return 0;
}

/* Is this descriptor somewhere a report can be seen? Not /dev/null, not
 * closed, not read-only. */
static int visible(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY)
        return 0;
    struct stat st;
    return !(fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3));
}

/* The file reports go to when stderr goes nowhere: $TMPDIR (or /tmp). */
static void default_file(void)
{
    const char *dir = getenv("TMPDIR");
    struct rt_buf b;
    rt_buf_init(&b, log_template, sizeof log_template);
    rt_buf_printf(&b, "%s/rtdd.%%p.log", dir && dir[0] == '/' ? dir : "/tmp");
}

int rt_log_fd_in(unsigned lo, unsigned hi)
{
    int fd = __atomic_load_n(&log_fd, __ATOMIC_RELAXED);
    return log_fd_own && fd >= 0 && (unsigned)fd >= lo && (unsigned)fd <= hi;
}

int rt_log_move_out_of(unsigned lo, unsigned hi)
{
    int fd = __atomic_load_n(&log_fd, __ATOMIC_ACQUIRE);
    if (!log_fd_own || fd < 0 || (unsigned)fd < lo || (unsigned)fd > hi)
        return 0;
    /* Above the range if there is room, else anywhere from the floor up
     * outside it: the program's call then closes or replaces the old one. */
    int to = hi < 1u << 20 ? fcntl(fd, F_DUPFD_CLOEXEC, (int)hi + 1) : -1;
    if (to < 0 && lo > LOG_FD_FLOOR)
        to = fcntl(fd, F_DUPFD_CLOEXEC, LOG_FD_FLOOR);
    if (to >= 0 && ((unsigned)to < lo || (unsigned)to > hi)) {
        __atomic_store_n(&log_fd, to, __ATOMIC_RELEASE);
        return 0;
    }
    if (to >= 0)
        close(to);
    return -1;
}

void rt_log_reopen(void)
{
    /* The program closed every descriptor above a point (closefrom(3), as
     * daemons do): the log file is opened again (by the next report), or
     * stderr copied again. */
    if (log_is_file) {
        log_fd_own = 0;
        __atomic_store_n(&log_fd, -1, __ATOMIC_RELEASE);
        __atomic_store_n(&log_pending, 1, __ATOMIC_RELEASE);
    } else {
        copy_standard(log_std);
    }
}

/* A copy of stderr or stdout as it is now, on a high number: reports keep
 * going where the user looks when the program closes fd 2, or opens its
 * own file there. If the descriptor is not open, the standard one is used
 * as before. */
static void copy_standard(int std)
{
    log_std = std;
    int fd = fcntl(std, F_DUPFD_CLOEXEC, LOG_FD_FLOOR);
    log_fd = fd >= 0 ? fd : std;
    log_fd_own = fd >= 0;
}

void rt_log_open(const char *log_path)
{
    log_is_file = 0;
    log_instead_of_null = 0;
    __atomic_store_n(&log_pending, 0, __ATOMIC_RELEASE);
    if (log_fd_own && log_fd > 2)
        close(log_fd); /* a second set-up (tests): the old copy goes */
    log_fd_own = 0;
    if ((!log_path[0] || !strcmp(log_path, "stderr")) && !visible(2)) {
        /* A daemon's or service's stderr: reports would vanish. */
        default_file();
        log_instead_of_null = 1;
        log_is_file = 1;
    } else if (!log_path[0] || !strcmp(log_path, "stderr")) {
        copy_standard(2);
        return;
    } else if (!strcmp(log_path, "stdout")) {
        copy_standard(1);
        return;
    } else {
        size_t n = strlen(log_path);
        if (n >= sizeof log_template)
            n = sizeof log_template - 1;
        memcpy(log_template, log_path, n);
        log_template[n] = 0;
        log_is_file = 1;
    }
    if (!file_can_be_made()) {
        log_is_file = 0;
        log_fd = 2;
        return;
    }
    log_fd = -1;
    __atomic_store_n(&log_pending, 1, __ATOMIC_RELEASE);
}

/* Never a SIGPIPE in the program: a write that fails is counted (below). */
static int write_all(int fd, const char *buf, size_t len)
{
    return rt_quiet_write(fd, buf, len);
}

/* Writes that reached neither the log nor stderr, and why the last did not. */
static _Atomic unsigned long lost_writes;
static _Atomic int lost_errno;

int rt_log_write(const char *buf, size_t len)
{
    int saved = errno, ok = 1;
    open_pending();
    int fd = __atomic_load_n(&log_fd, __ATOMIC_ACQUIRE);
    if (write_all(fd, buf, len) < 0) {
        int e = errno;
        ok = 0;
        if (fd != 2) {
            static _Atomic int warned;
            if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
                say("cannot write to the log: ", strerror(e), "; reports go to stderr instead");
            ok = write_all(2, buf, len) == 0;
            if (!ok)
                e = errno;
        }
        if (!ok) {
            __atomic_fetch_add(&lost_writes, 1, __ATOMIC_RELAXED);
            __atomic_store_n(&lost_errno, e, __ATOMIC_RELAXED);
        }
    }
    errno = saved;
    return ok ? 0 : -1;
}

void rt_log_describe(char *out, size_t cap)
{
    struct rt_buf b;
    rt_buf_init(&b, out, cap);
    if (log_is_file) {
        char path[600];
        if (rt_log_expand_path(log_template, getpid(), path, sizeof path) == 0)
            rt_buf_puts(&b, path);
        else
            rt_buf_puts(&b, log_template);
    } else {
        rt_buf_puts(&b, log_std == 1 ? "its stdout (log_path=stdout)" : "its stderr (log_path=stderr)");
    }
}

unsigned long rt_log_lost(int *last_errno)
{
    if (last_errno)
        *last_errno = __atomic_load_n(&lost_errno, __ATOMIC_RELAXED);
    return __atomic_load_n(&lost_writes, __ATOMIC_RELAXED);
}

void rt_log_after_fork(void)
{
    rt_spin_reinit(&open_lock);
    if (log_is_file && strstr(log_template, "%p")) {
        if (log_fd_own && log_fd > 2)
            close(log_fd);
        log_fd_own = 0;
        log_fd = -1;
        __atomic_store_n(&log_pending, 1, __ATOMIC_RELEASE); /* the child's own file, at its first report */
    }
}
