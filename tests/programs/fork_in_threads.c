/* fork() while other threads lock and allocate; the child locks,
 * allocates and frees, and reports nothing. A churn thread may hold m at
 * the moment of a fork: the child never touches m, so that is nothing to
 * report either (lock-held-at-fork waits for a use). */
// expect: none
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile int stop;

static void *churn(void *arg)
{
    (void)arg;
    while (!stop) {
        pthread_mutex_lock(&m);
        free(malloc(128));
        pthread_mutex_unlock(&m);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, churn, NULL);
    for (int i = 0; i < 20; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            pthread_mutex_t *own = malloc(sizeof *own);
            pthread_mutex_init(own, NULL);
            pthread_mutex_lock(own);
            pthread_mutex_unlock(own);
            free(own);
            exit(0);
        }
        int status;
        if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
            return 1;
    }
    stop = 1;
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    return 0;
}
