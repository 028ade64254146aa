/* Re-executes itself DEPTH times while threads lock and allocate, and on
 * every level other threads run posix_spawn() (vfork inside glibc), system()
 * and fork+exec of /bin/true at the same time. Exit 0, nothing reported. */
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile int stop;

static void *churn(void *arg)
{
    (void)arg;
    while (!stop) {
        pthread_mutex_lock(&m);
        free(malloc(48));
        pthread_mutex_unlock(&m);
    }
    return NULL;
}

static void *spawner(void *arg)
{
    long kind = (long)arg, bad = 0;
    for (int i = 0; i < 4; i++) {
        int st = -1;
        if (kind == 0) {
            pid_t p;
            char *argv[] = { "true", NULL };
            if (posix_spawn(&p, "/bin/true", NULL, NULL, argv, environ) || waitpid(p, &st, 0) != p)
                bad++;
        } else if (kind == 1) {
            st = system("true");
        } else {
            pid_t p = fork();
            if (p == 0) {
                execl("/bin/true", "true", (char *)NULL);
                _exit(127);
            }
            if (p < 0 || waitpid(p, &st, 0) != p)
                bad++;
        }
        if (!WIFEXITED(st) || WEXITSTATUS(st))
            bad++;
    }
    return (void *)bad;
}

int main(int argc, char **argv)
{
    int depth = argc > 1 ? atoi(argv[1]) : 20;
    pthread_t c[2], s[3];
    long bad = 0;
    for (int i = 0; i < 2; i++)
        pthread_create(&c[i], NULL, churn, NULL);
    for (long i = 0; i < 3; i++)
        pthread_create(&s[i], NULL, spawner, (void *)i);
    for (int i = 0; i < 3; i++) {
        void *r;
        pthread_join(s[i], &r);
        bad += (long)r;
    }
    if (bad) {
        fprintf(stderr, "exec_chain: %ld spawns failed at depth %d\n", bad, depth);
        return 1;
    }
    if (depth == 0) {
        stop = 1;
        printf("exec_chain: bottom reached\n");
        return 0;
    }
    /* exec while the churn threads still run (and may hold m) */
    char next[16];
    snprintf(next, sizeof next, "%d", depth - 1);
    execl("/proc/self/exe", argv[0], next, (char *)NULL);
    perror("execl");
    return 1;
}
