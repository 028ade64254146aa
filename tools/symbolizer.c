/* `rtdd __symbolizer PID`: the helper process a program's runtime starts to
 * symbolize its reports (detect/symclient.h), so that libdw's memory is the
 * helper's, not the program's. It answers one request per frame on fd 0/1
 * until the program closes the socket (it ends, or execs). Not for users:
 * `rtdd --help` does not list it. */
#include "cli.h"
#include "symclient.h"
#include <errno.h>
#include <signal.h>
#include <string.h>
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
    static struct rt_symreq req;
    static struct rt_symresp resp;
    while (read_all(0, &req, sizeof req) == 0) {
        if (req.magic != RT_SYM_MAGIC)
            return 1;
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
        if (write_all(1, &resp, sizeof resp) < 0)
            return 1;
    }
    return 0;
}
