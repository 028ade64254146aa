// A daemon-like program closes every descriptor after its first report
// (which started the helper symbolizer) and fills the numbers with a file
// of its own. The next report must still be symbolized (by a new helper)
// and nothing may be written into the program's file: the runtime checks
// that its socket is still its own before each request.
// expect: bad-unlock bad-unlock
// log: SUMMARY: rtdd: bad-unlock symbolizer_fd_reuse.c:21 in first_site
// log: SUMMARY: rtdd: bad-unlock symbolizer_fd_reuse.c:26 in second_site
// stderr: symbolizer_fd_reuse: the program's file is untouched
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline)) static void first_site(void)
{
    pthread_mutex_unlock(&m);
}

__attribute__((noinline)) static void second_site(void)
{
    pthread_mutex_unlock(&m);
}

int main(void)
{
    first_site();
    close_range(3, ~0u, 0);
    char path[] = "/tmp/rtdd-fd-reuse.XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 2;
    unlink(path);
    for (int i = 3; i < 400; i++)
        if (i != fd)
            dup2(fd, i);
    second_site();
    struct stat st;
    if (fstat(fd, &st) == 0 && st.st_size == 0)
        fprintf(stderr, "symbolizer_fd_reuse: the program's file is untouched\n");
    else
        fprintf(stderr, "symbolizer_fd_reuse: %lld bytes in the program's file\n", (long long)st.st_size);
    return 0;
}
