/* exec from a threaded program, and system(): the runtime follows into the
 * new program images (LD_PRELOAD is inherited) without trouble. The
 * spinning thread may hold m at the fork: a child that execs without
 * touching it has nothing to report. */
// expect: none
// args: first
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static void *spin(void *arg)
{
    (void)arg;
    for (int i = 0; i < 100000; i++) {
        pthread_mutex_lock(&m);
        pthread_mutex_unlock(&m);
    }
    return NULL;
}
int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "second"))
        return system("true") == 0 ? 0 : 1;
    pthread_t t;
    pthread_create(&t, NULL, spin, NULL);
    pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/true", "true", (char *)NULL);
        _exit(127);
    }
    int status;
    waitpid(pid, &status, 0);
    pthread_join(t, NULL);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return 1;
    execl("/proc/self/exe", argv[0], "second", (char *)NULL);
    return 1;
}
