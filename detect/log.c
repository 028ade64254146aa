#include "log.h"
#include "rt_fmt.h"
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* High descriptor numbers keep the log out of the way of programs that
 * close or dup2 over low ones. */
#define LOG_FD_FLOOR 200

static _Atomic int log_fd = 2;
static char log_template[512];
static int log_is_file;
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
    ssize_t r = write(2, m.data, m.len);
    (void)r;
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
     * daemons do): the log file is opened again, or stderr copied again. */
    if (log_is_file)
        open_file();
    else
        copy_standard(log_std);
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
    if (log_fd_own && log_fd > 2)
        close(log_fd); /* a second set-up (tests): the old copy goes */
    log_fd_own = 0;
    if (!log_path[0] || !strcmp(log_path, "stderr")) {
        copy_standard(2);
    } else if (!strcmp(log_path, "stdout")) {
        copy_standard(1);
    } else {
        size_t n = strlen(log_path);
        if (n >= sizeof log_template)
            n = sizeof log_template - 1;
        memcpy(log_template, log_path, n);
        log_template[n] = 0;
        log_is_file = 1;
        open_file();
    }
}

static int write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

void rt_log_write(const char *buf, size_t len)
{
    int saved = errno;
    int fd = __atomic_load_n(&log_fd, __ATOMIC_ACQUIRE);
    if (write_all(fd, buf, len) < 0 && fd != 2) {
        static _Atomic int warned;
        int e = errno;
        if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
            say("cannot write to the log: ", strerror(e), "; reports go to stderr instead");
        write_all(2, buf, len);
    }
    errno = saved;
}

void rt_log_after_fork(void)
{
    if (log_is_file && strstr(log_template, "%p")) {
        if (log_fd > 2)
            close(log_fd);
        log_fd_own = 0;
        open_file();
    }
}
