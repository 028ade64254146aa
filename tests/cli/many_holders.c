/* 1,000 threads, each holding a lock of its own and sleeping in read() on
 * a pipe: the program `rtdd dump` must list whole (tests/cli/dump_long.sh).
 * It says "ready" once every thread holds its lock, and ends when its
 * standard input ends. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
static int holders = 1000;
static int pipefd[2];
static int holding;
static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;

static void *holder(void *arg)
{
    pthread_mutex_t *own = arg;
    char c;
    pthread_mutex_lock(own);
    pthread_mutex_lock(&count_lock);
    holding++;
    pthread_mutex_unlock(&count_lock);
    ssize_t n = read(pipefd[0], &c, 1); /* until main closes the pipe */
    (void)n;
    pthread_mutex_unlock(own);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        holders = atoi(argv[1]);
    if (pipe(pipefd))
        return 2;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    pthread_t *t = calloc((size_t)holders, sizeof *t);
    pthread_mutex_t *locks = calloc((size_t)holders, sizeof *locks);
    for (int i = 0; i < holders; i++) {
        pthread_mutex_init(&locks[i], NULL);
        if (pthread_create(&t[i], &attr, holder, &locks[i]))
            return 3;
    }
    for (int done = 0; !done; usleep(10000)) {
        pthread_mutex_lock(&count_lock);
        done = holding == holders;
        pthread_mutex_unlock(&count_lock);
    }
    printf("ready\n");
    fflush(stdout);
    char c;
    while (read(0, &c, 1) > 0)
        ;
    close(pipefd[1]); /* every read() returns 0 */
    for (int i = 0; i < holders; i++)
        pthread_join(t[i], NULL);
    return 0;
}
