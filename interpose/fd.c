/* The program's close, dup2, dup3, close_range and closefrom may reach the
 * runtime's own log descriptor (a copy of stderr, or the log file, kept on
 * a high number): it moves out of the way first, so reports never stop
 * and never go into a file the program opened in its place. */
#include "interpose.h"
#include "report/report.h"
#include "core/core.h"
#include <errno.h>
#include <limits.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

static long raw_result(long r)
{
    if (r < 0 && r > -4096) {
        errno = (int)-r;
        return -1;
    }
    return r;
}

/* 1 when the log could not move and must be opened again after the call. */
static inline int protect(unsigned lo, unsigned hi)
{
    return unlikely(rt_log_fd_in(lo, hi)) && rt_log_move_out_of(lo, hi) < 0;
}

static void reopen_log(void)
{
    int saved = errno;
    rt_log_reopen();
    errno = saved;
}

RTI_EXPORT int close(int fd)
{
    if (fd >= 0)
        protect((unsigned)fd, (unsigned)fd);
    if (unlikely(!rti_real.close))
        return (int)raw_result(rt_raw_syscall6(SYS_close, fd, 0, 0, 0, 0, 0));
    return rti_real.close(fd);
}

RTI_EXPORT int dup2(int oldfd, int newfd)
{
    if (newfd >= 0 && newfd != oldfd)
        protect((unsigned)newfd, (unsigned)newfd);
    if (unlikely(!rti_real.dup2))
        return (int)raw_result(rt_raw_syscall6(SYS_dup2, oldfd, newfd, 0, 0, 0, 0));
    return rti_real.dup2(oldfd, newfd);
}

RTI_EXPORT int dup3(int oldfd, int newfd, int flags)
{
    if (newfd >= 0 && newfd != oldfd)
        protect((unsigned)newfd, (unsigned)newfd);
    if (unlikely(!rti_real.dup3))
        return (int)raw_result(rt_raw_syscall6(SYS_dup3, oldfd, newfd, flags, 0, 0, 0));
    return rti_real.dup3(oldfd, newfd, flags);
}

RTI_EXPORT int close_range(unsigned first, unsigned last, int flags)
{
    int reopen = !(flags & CLOSE_RANGE_CLOEXEC) && first <= last && protect(first, last);
    int r = unlikely(!rti_real.close_range)
                ? (int)raw_result(rt_raw_syscall6(SYS_close_range, first, last, flags, 0, 0, 0))
                : rti_real.close_range(first, last, flags);
    if (reopen)
        reopen_log();
    return r;
}

RTI_EXPORT void closefrom(int lowfd)
{
    int reopen = lowfd >= 0 && protect((unsigned)lowfd, UINT_MAX);
    if (unlikely(!rti_real.closefrom))
        rt_raw_syscall6(SYS_close_range, lowfd < 0 ? 0 : lowfd, ~0u, 0, 0, 0, 0);
    else
        rti_real.closefrom(lowfd);
    if (reopen)
        reopen_log();
}
