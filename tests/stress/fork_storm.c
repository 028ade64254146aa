/* Forks from 4 threads at once, 60 times each, while 4 other threads lock,
 * allocate and free; each child creates a thread, locks, allocates, forks a
 * grandchild and leaves through exit() or _exit(). The program's locks are
 * made fork-safe with pthread_atfork, as a correct program must (the rwlock,
 * which glibc cannot unlock in a child, is never used by the children). Nothing may
 * be reported but the INFO lock-held-at-fork, every process must exit 0,
 * nothing hangs. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static volatile int stop;

static void *churn(void *arg)
{
    long n = (long)arg;
    while (!stop) {
        pthread_mutex_lock(&a);
        pthread_mutex_lock(&b);
        free(malloc(64 + n));
        pthread_mutex_unlock(&b);
        pthread_mutex_unlock(&a);
        pthread_rwlock_rdlock(&rw);
        pthread_rwlock_unlock(&rw);
    }
    return NULL;
}

static void *child_thread(void *arg)
{
    pthread_mutex_t *m = arg;
    pthread_mutex_lock(m);
    pthread_mutex_unlock(m);
    return NULL;
}

static int child(int depth)
{
    pthread_mutex_t *m = malloc(sizeof *m);
    pthread_mutex_init(m, NULL);
    pthread_t t;
    if (pthread_create(&t, NULL, child_thread, m) || pthread_join(t, NULL))
        return 1;
    pthread_mutex_lock(&a); /* released by the atfork child handler */
    free(malloc(100));
    pthread_mutex_unlock(&a);
    pthread_mutex_destroy(m);
    free(m);
    if (depth == 0) {
        pid_t g = fork();
        if (g == 0)
            _exit(child(1));
        int st;
        if (g < 0 || waitpid(g, &st, 0) != g || !WIFEXITED(st) || WEXITSTATUS(st))
            return 1;
    }
    return 0;
}

static void *forker(void *arg)
{
    long id = (long)arg, bad = 0;
    for (int i = 0; i < 60; i++) {
        pid_t p = fork();
        if (p == 0) {
            int r = child(0);
            if (i % 2)
                exit(r);
            _exit(r);
        }
        int st;
        if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st)) {
            fprintf(stderr, "forker %ld: child %d failed (status 0x%x)\n", id, i, st);
            bad++;
        }
    }
    return (void *)bad;
}

static void prepare(void)
{
    pthread_mutex_lock(&a);
    pthread_mutex_lock(&b);
}

static void release(void)
{
    pthread_mutex_unlock(&b);
    pthread_mutex_unlock(&a);
}

int main(void)
{
    pthread_t c[4], f[4];
    pthread_atfork(prepare, release, release);
    long bad = 0;
    for (long i = 0; i < 4; i++)
        pthread_create(&c[i], NULL, churn, (void *)i);
    for (long i = 0; i < 4; i++)
        pthread_create(&f[i], NULL, forker, (void *)i);
    for (int i = 0; i < 4; i++) {
        void *r;
        pthread_join(f[i], &r);
        bad += (long)r;
    }
    stop = 1;
    for (int i = 0; i < 4; i++)
        pthread_join(c[i], NULL);
    printf("fork_storm: %d forks, %ld failed\n", 4 * 60 * 2, bad);
    return bad != 0;
}
