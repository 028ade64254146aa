/* `rtdd __symbolizer PID`: the helper process a program's runtime starts to
 * symbolize its reports (detect/symclient.h), so that libdw's memory is the
 * helper's, not the program's. It answers one request per frame on fd 0,
 * and on the connections it made for the program's forked children, until
 * all are closed (the processes ended, or exec'd). Not for users:
 * `rtdd --help` does not list it. */
#include "cli.h"
#include "report/symclient.h"
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

static int read_all(int fd, void *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t r = read(fd, (char *)buf + got, len - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    return 0;
}

static int write_all(int fd, const void *buf, size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t r = write(fd, (const char *)buf + done, len - done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        done += (size_t)r;
    }
    return 0;
}

/* A new connection for a child the program is about to fork: one end is
 * served here, the other goes back with the answer (SCM_RIGHTS). */
static int connect_child(int fd, struct rt_symresp *resp, int *newfd)
{
    int sv[2];
    resp->ok = -1;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
        return write_all(fd, resp, sizeof *resp);
    resp->ok = 0;
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int))];
    } control;
    memset(&control, 0, sizeof control);
    struct iovec iov = {resp, sizeof *resp};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = &control, .msg_controllen = sizeof control};
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &sv[1], sizeof(int));
    ssize_t r;
    do
        r = sendmsg(fd, &msg, MSG_NOSIGNAL);
    while (r < 0 && errno == EINTR);
    close(sv[1]);
    if (r < 0) {
        close(sv[0]);
        return -1;
    }
    if ((size_t)r < sizeof *resp && write_all(fd, (char *)resp + r, sizeof *resp - (size_t)r) < 0) {
        close(sv[0]);
        return -1;
    }
    *newfd = sv[0];
    return 0;
}

/* One request from fd, one answer; -1 when the connection is done. */
static int serve(int fd, int *newfd)
{
    static struct rt_symreq req;
    static struct rt_symresp resp;
    if (read_all(fd, &req, sizeof req) < 0 || req.magic != RT_SYM_MAGIC)
        return -1;
    req.path[sizeof req.path - 1] = 0;
    memset(&resp, 0, sizeof resp);
    resp.magic = RT_SYM_MAGIC;
    if (req.op == RT_SYMREQ_FUNCTION) {
        resp.ok = rt_symbolize_at(req.path, req.base, req.lo, req.pc, &resp.sym);
    } else if (req.op == RT_SYMREQ_DATA) {
        uintptr_t off = 0;
        resp.ok = rt_symbolize_data_at(req.path, req.base, req.lo, req.pc, resp.name, sizeof resp.name, &off);
        resp.offset = off;
    } else if (req.op == RT_SYMREQ_CONNECT) {
        return connect_child(fd, &resp, newfd);
    } else {
        resp.ok = -1;
    }
    return write_all(fd, &resp, sizeof resp);
}

int rtdd_symbolizer_main(int argc, char **argv)
{
    (void)argc;
    (void)argv; /* the program's pid: for ps(1) and people, the requests carry all */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL); /* the runtime blocked all across the vfork */
    signal(SIGPIPE, SIG_DFL);
    struct rt_symhello hello = {RT_SYM_MAGIC, sizeof(struct rt_symreq), sizeof(struct rt_symresp),
                                sizeof(struct rt_symbol)};
    if (write_all(1, &hello, sizeof hello) < 0)
        return 1;
    close(1); /* fd 0 is the same socket, read and written */
    /* The program's connection and its forked children's: the helper ends
     * when the last of them is closed. */
    struct pollfd *conns = malloc(sizeof *conns);
    size_t n = 1, cap = 1;
    if (!conns)
        return 1;
    conns[0] = (struct pollfd){.fd = 0, .events = POLLIN};
    while (n > 0) {
        if (poll(conns, n, -1) < 0) {
            if (errno == EINTR)
                continue;
            return 1;
        }
        for (size_t i = 0; i < n; i++) {
            if (!conns[i].revents)
                continue;
            int newfd = -1;
            if (serve(conns[i].fd, &newfd) < 0) {
                close(conns[i].fd);
                conns[i--] = conns[--n];
                continue;
            }
            if (newfd >= 0) {
                if (n == cap) {
                    struct pollfd *grown = realloc(conns, 2 * cap * sizeof *conns);
                    if (!grown) {
                        close(newfd);
                        continue;
                    }
                    conns = grown;
                    cap *= 2;
                }
                conns[n++] = (struct pollfd){.fd = newfd, .events = POLLIN};
            }
        }
    }
    free(conns);
    return 0;
}
