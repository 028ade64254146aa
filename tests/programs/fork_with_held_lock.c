/* fork() while another thread holds a lock, and the child _exits without
 * touching it: the lock stays locked forever in the child, but a child
 * that never uses it has nothing to report (fork_child_uses_inherited.c
 * is the child that does). */
// expect: none
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
