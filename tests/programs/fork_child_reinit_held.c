/* The look-alike's bug: in a forked child, a lock taken *after* the fork is
 * initialized again while still held. Only what the forking thread held at
 * the fork is the child's to reset: this one is destroying a held lock. */
// expect: destroy-locked
// log: is re-initializing lock
// log: SUMMARY: rtdd: destroy-locked fork_child_reinit_held.c:
// exit: 0
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

int main(void)
{
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
    pid_t p = fork();
    if (p == 0) {
        pthread_mutex_lock(&m);
        pthread_mutex_init(&m, NULL); /* held, taken in the child */
        _exit(0);
    }
    int status;
    waitpid(p, &status, 0);
    return 0;
}
