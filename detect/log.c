#include "log.h"
#include "rt_fmt.h"
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* High descriptor numbers keep the log out of the way of programs that
 * close or dup2 over low ones. */
#define LOG_FD_FLOOR 200

static int log_fd = 2;
static char log_template[512];
static int log_is_file;

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
}

void rt_log_open(const char *log_path)
{
    log_is_file = 0;
    if (!log_path[0] || !strcmp(log_path, "stderr")) {
        log_fd = 2;
    } else if (!strcmp(log_path, "stdout")) {
        log_fd = 1;
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
    if (write_all(log_fd, buf, len) < 0 && log_fd != 2) {
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
        open_file();
    }
}
