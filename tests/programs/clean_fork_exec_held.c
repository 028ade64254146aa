/* A server that runs a program per request (Apache's mod_cgi): one thread
 * holds a lock the whole time while another forks and execs /bin/true, 40
 * times. The children never touch the held lock before exec: nothing to
 * report, and (tests/cli/cli.sh) no log file for any child. */
// expect: none
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t config_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t held, done;

static void *keeper(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&config_lock);
    pthread_barrier_wait(&held);
    pthread_barrier_wait(&done);
    pthread_mutex_unlock(&config_lock);
    return NULL;
}

int main(void)
{
    pthread_barrier_init(&held, NULL, 2);
    pthread_barrier_init(&done, NULL, 2);
    pthread_t t;
    pthread_create(&t, NULL, keeper, NULL);
    pthread_barrier_wait(&held);
    int ok = 0;
    for (int i = 0; i < 40; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            execl("/bin/true", "true", (char *)NULL);
            _exit(127);
        }
        int status;
        ok += waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    pthread_barrier_wait(&done);
    pthread_join(t, NULL);
    printf("%d of 40 children ran\n", ok);
    return ok == 40 ? 0 : 1;
}
