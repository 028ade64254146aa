#include "core/quietwrite.h"
#include "core/raw_syscall.h"
#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>

/* The kernel's sigset_t is one word: SIGPIPE's bit of it. Raw system calls:
 * no libc wrapper that a program or the runtime interposes, and no
 * cancellation point while a report is being written. */
#define KSIGSET_SIZE 8
#define SIGPIPE_BIT (1UL << (SIGPIPE - 1))

int rt_quiet_write(int fd, const void *buf, size_t len)
{
    unsigned long block = SIGPIPE_BIT, old = 0, pending = 0;
    int masked = rt_raw_syscall6(SYS_rt_sigprocmask, SIG_BLOCK, (long)&block, (long)&old, KSIGSET_SIZE, 0, 0) == 0;
    /* A SIGPIPE pending before the write is the program's: it must stay. */
    if (masked && rt_raw_syscall6(SYS_rt_sigpending, (long)&pending, KSIGSET_SIZE, 0, 0, 0, 0) != 0)
        pending = SIGPIPE_BIT; /* unknown: leave whatever is pending alone */
    const char *p = buf;
    int err = 0;
    while (len > 0) {
        long n = rt_raw_syscall6(SYS_write, fd, (long)p, (long)len, 0, 0, 0);
        if (n == -EINTR)
            continue;
        if (n <= 0) {
            err = n < 0 ? (int)-n : EIO;
            break;
        }
        p += n;
        len -= (size_t)n;
    }
    if (masked) {
        /* EPIPE sent this thread a SIGPIPE, held by the mask: taken back
         * (a zero timeout: it is there already) before the mask lets it in. */
        if (err == EPIPE && !(pending & SIGPIPE_BIT)) {
            struct timespec zero = { 0, 0 };
            rt_raw_syscall6(SYS_rt_sigtimedwait, (long)&block, 0, (long)&zero, KSIGSET_SIZE, 0, 0);
        }
        rt_raw_syscall6(SYS_rt_sigprocmask, SIG_SETMASK, (long)&old, 0, KSIGSET_SIZE, 0, 0);
    }
    if (err) {
        errno = err;
        return -1;
    }
    return 0;
}
