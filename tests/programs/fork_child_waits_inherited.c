/* A thread holds a lock while the main thread forks; the child (which has
 * no threads) takes that lock and would block for ever. rtdd says so at
 * once and ends the child; the parent goes on. */
// expect: lock-held-at-fork deadlock
// log: held at fork by a thread that does not exist in this process
// exit: 0
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t go_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go = PTHREAD_COND_INITIALIZER;
static int held, done;

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&table_lock);
    pthread_mutex_lock(&go_lock);
    held = 1;
    pthread_cond_broadcast(&go);
    while (!done)
        pthread_cond_wait(&go, &go_lock);
    pthread_mutex_unlock(&go_lock);
    pthread_mutex_unlock(&table_lock);
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_mutex_lock(&go_lock);
    while (!held)
        pthread_cond_wait(&go, &go_lock);
    pthread_mutex_unlock(&go_lock);
    pid_t child = fork();
    if (child == 0) {
        pthread_mutex_lock(&table_lock); /* held by the parent's worker: never free here */
        _exit(0);
    }
    int status;
    waitpid(child, &status, 0);
    pthread_mutex_lock(&go_lock);
    done = 1;
    pthread_cond_broadcast(&go);
    pthread_mutex_unlock(&go_lock);
    pthread_join(t, NULL);
    /* The child was ended by rtdd with its exit code (66), not by a hang. */
    return WIFEXITED(status) && WEXITSTATUS(status) == 66 ? 0 : 1;
}
