/* Children of a pre-forking server wait, longer than hang_timeout_ms and
 * deadlock_timeout_ms, for a process-shared accept mutex that another
 * process holds: first a sibling, then a thread of the parent. Each child
 * also has a worker idle on a condition variable, so that every thread of
 * the child waits. A waiter whose lock's holder is another process is
 * neither a hang of this process nor a deadlock: with
 * hang_severity=warning (the CI setting) nothing is reported and the exit
 * status is the native one. */
// expect: none
// options: hang_timeout_ms=100:hang_severity=warning:deadlock_timeout_ms=100
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct shared {
    pthread_mutex_t accept_lock;
    volatile int holding, waiting;
};
static struct shared *sh;
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue = PTHREAD_COND_INITIALIZER;
static int accepted;

static void pause_ms(long ms)
{
    struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };
    nanosleep(&ts, NULL);
}

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&queue_lock);
    while (!accepted)
        pthread_cond_wait(&queue, &queue_lock);
    pthread_mutex_unlock(&queue_lock);
    return NULL;
}

/* A child: a worker idles on the queue while the main thread waits for
 * the accept mutex, then "accepts" and wakes it. */
static void serve(void)
{
    pthread_t w;
    pthread_create(&w, NULL, worker, NULL);
    sh->waiting = 1;
    pthread_mutex_lock(&sh->accept_lock);
    pthread_mutex_unlock(&sh->accept_lock);
    pthread_mutex_lock(&queue_lock);
    accepted = 1;
    pthread_cond_signal(&queue);
    pthread_mutex_unlock(&queue_lock);
    pthread_join(w, NULL);
}

/* Holds the accept mutex until a child waits, then 500 ms more. */
static void hold_while_waited(void)
{
    pthread_mutex_lock(&sh->accept_lock);
    sh->holding = 1;
    while (!sh->waiting)
        pause_ms(1);
    pause_ms(500);
    pthread_mutex_unlock(&sh->accept_lock);
}

static void *parent_holder(void *arg)
{
    (void)arg;
    hold_while_waited();
    return NULL;
}

static int reap(pid_t pid)
{
    int status;
    return waitpid(pid, &status, 0) == pid && WIFEXITED(status) ? WEXITSTATUS(status) : 100;
}

int main(void)
{
    sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED)
        return 1;
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
    pthread_mutex_init(&sh->accept_lock, &ma);

    /* A sibling holds it. */
    pid_t holder = fork();
    if (holder == 0) {
        hold_while_waited();
        _exit(0);
    }
    while (!sh->holding)
        pause_ms(1);
    pid_t waiter = fork();
    if (waiter == 0) {
        serve();
        _exit(0);
    }
    int a = reap(holder), b = reap(waiter);

    /* A thread of the parent holds it. */
    sh->holding = sh->waiting = 0;
    pthread_t t;
    pthread_create(&t, NULL, parent_holder, NULL);
    while (!sh->holding)
        pause_ms(1);
    waiter = fork();
    if (waiter == 0) {
        serve();
        _exit(0);
    }
    int c = reap(waiter);
    pthread_join(t, NULL);
    printf("children: %d %d %d\n", a, b, c);
    return a == 0 && b == 0 && c == 0 ? 0 : 1;
}
