/* syscall(2) goes through rtdd (interpose/rseq.c, for SYS_rseq) and must
 * behave as glibc's for every other call: the kernel's result, -1 and
 * errno on failure, six arguments passed on. */
// expect: none
// no-output: FAIL
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CHECK(cond, ...)                      \
    do {                                      \
        if (!(cond)) {                        \
            printf("FAIL: " __VA_ARGS__);     \
            printf("\n");                     \
        }                                     \
    } while (0)

int main(void)
{
    CHECK(syscall(SYS_getpid) == getpid(), "getpid");
    CHECK(syscall(SYS_gettid) == gettid(), "gettid");
    errno = 0;
    long r = syscall(100000);
    CHECK(r == -1 && errno == ENOSYS, "an unknown number: %ld, %s", r, strerror(errno));
    errno = 0;
    r = syscall(SYS_close, -1);
    CHECK(r == -1 && errno == EBADF, "close(-1): %ld, %s", r, strerror(errno));
    int fds[2];
    CHECK(pipe(fds) == 0, "pipe");
    CHECK(syscall(SYS_write, fds[1], "rtdd", 4) == 4, "write");
    char buf[8] = { 0 };
    CHECK(syscall(SYS_read, fds[0], buf, sizeof buf) == 4 && !memcmp(buf, "rtdd", 4), "read");
    /* Six arguments: mmap's offset is the sixth. */
    void *p = (void *)syscall(SYS_mmap, NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(p != MAP_FAILED, "mmap: %s", strerror(errno));
    if (p != MAP_FAILED) {
        memset(p, 1, 4096);
        CHECK(syscall(SYS_munmap, p, 4096) == 0, "munmap");
    }
    errno = 0;
    r = syscall(SYS_mmap, NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 1);
    CHECK(r == -1 && errno == EINVAL, "mmap with a bad sixth argument: %ld, %s", r, strerror(errno));
    printf("done\n");
    return 0;
}
