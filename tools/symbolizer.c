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
#include <stdio.h>
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

/* Whether pid descends from the program (a child that dropped its
 * privileges, as a server's workers do, is still one of its own). */
static int descends_from(pid_t pid, pid_t program)
{
    for (int depth = 0; depth < 64 && pid > 1; depth++) {
        if (pid == program)
            return 1;
        char path[64], buf[512];
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
        FILE *f = fopen(path, "r");
        if (!f)
            return 0;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = 0;
        const char *after = strrchr(buf, ')'); /* the name may hold spaces and parentheses */
        int ppid;
        if (!after || sscanf(after + 1, " %*c %d", &ppid) != 1)
            return 0;
        pid = ppid;
    }
    return 0;
}

/* A forked child of the program dials the listener (fd 3, made by the
 * runtime). Served: a descendant of the program, or a process of our own
 * user (one whose parent has ended); no other process may make the helper
 * read files for it. */
static int accept_child(int listener, pid_t program)
{
    int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0)
        return -1;
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 ||
        (cred.uid != getuid() && !descends_from(cred.pid, program))) {
        close(fd);
        return -1;
    }
    return fd;
}

/* One request from fd, one answer; -1 when the connection is done. */
static int serve(int fd)
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
    } else {
        resp.ok = -1;
    }
    return write_all(fd, &resp, sizeof resp);
}

int rtdd_symbolizer_main(int argc, char **argv)
{
    /* The program's pid: whose descendants the listener serves (and for ps(1)). */
    pid_t program = argc > 1 ? (pid_t)atoi(argv[1]) : 0;
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
     * when the last of them is closed (the listener, slot 0, keeps no
     * helper alive). */
    int listening = 0;
    socklen_t optlen = sizeof listening;
    if (getsockopt(3, SOL_SOCKET, SO_ACCEPTCONN, &listening, &optlen) < 0)
        listening = 0;
    struct pollfd *conns = malloc(2 * sizeof *conns);
    size_t n = 2, cap = 2;
    if (!conns)
        return 1;
    conns[0] = (struct pollfd){.fd = listening ? 3 : -1, .events = POLLIN};
    conns[1] = (struct pollfd){.fd = 0, .events = POLLIN};
    while (n > 1) {
        if (poll(conns, n, -1) < 0) {
            if (errno == EINTR)
                continue;
            return 1;
        }
        for (size_t i = 1; i < n; i++) {
            if (!conns[i].revents)
                continue;
            if (serve(conns[i].fd) < 0) {
                close(conns[i].fd);
                conns[i--] = conns[--n];
            }
        }
        int newfd;
        if (conns[0].revents && (newfd = accept_child(3, program)) >= 0) {
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
    free(conns);
    return 0;
}
