/* fork() while another thread holds a lock: the child is told (INFO) which
 * locks stay locked forever there; INFO does not change the exit status. */
// expect: lock-held-at-fork
// exit: 0
// log: INFO: locks held across fork() by threads that do not exist in the child
// log: was held by thread
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>
static pthread_mutex_t busy = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t held, forked;
static void *holder(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&busy);
    pthread_barrier_wait(&held);
    pthread_barrier_wait(&forked);
    pthread_mutex_unlock(&busy);
    return NULL;
}
int main(void)
{
    pthread_t t;
    pthread_barrier_init(&held, NULL, 2);
    pthread_barrier_init(&forked, NULL, 2);
    pthread_create(&t, NULL, holder, NULL);
    pthread_barrier_wait(&held);
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    int status;
    waitpid(pid, &status, 0);
    pthread_barrier_wait(&forked);
    pthread_join(t, NULL);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
