/* Semaphores used the right way, close to each sem-misuse case: a
 * destroy right after the post that releases the last waiter (the waiter
 * has yet to return: POSIX allows it), a semaphore destroyed and
 * initialized again and reused, counts up to SEM_VALUE_MAX exactly, a
 * timed wait that times out and a trywait that finds nothing, a
 * process-shared semaphore posted by a child process, and a named one
 * opened twice (one address), closed twice and unlinked. */
// expect: none
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static sem_t handoff;

static void *waiter(void *arg)
{
    (void)arg;
    sem_wait(&handoff);
    return NULL;
}

int main(void)
{
    int bad = 0;
    for (int round = 0; round < 3; round++) {
        pthread_t t;
        sem_init(&handoff, 0, 0);
        pthread_create(&t, NULL, waiter, NULL);
        while ((__atomic_load_n((uint64_t *)&handoff, __ATOMIC_ACQUIRE) >> 32) == 0)
            usleep(1000); /* blocked in sem_wait */
        sem_post(&handoff);
        sem_destroy(&handoff); /* no thread is blocked any more */
        pthread_join(t, NULL);
    }

    sem_t full;
    sem_init(&full, 0, SEM_VALUE_MAX - 1);
    bad += sem_post(&full) != 0; /* reaches SEM_VALUE_MAX, no further */
    int v = 0;
    sem_getvalue(&full, &v);
    bad += v != SEM_VALUE_MAX;
    sem_destroy(&full);

    sem_t empty;
    sem_init(&empty, 0, 0);
    bad += sem_trywait(&empty) == 0 || errno != EAGAIN;
    struct timespec when;
    clock_gettime(CLOCK_REALTIME, &when);
    when.tv_nsec += 1000000;
    if (when.tv_nsec >= 1000000000) {
        when.tv_sec++;
        when.tv_nsec -= 1000000000;
    }
    bad += sem_timedwait(&empty, &when) == 0 || errno != ETIMEDOUT;
    sem_destroy(&empty);

    sem_t *shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    sem_init(shared, 1, 0);
    pid_t child = fork();
    if (child == 0) {
        sem_post(shared);
        _exit(0);
    }
    sem_wait(shared);
    waitpid(child, NULL, 0);
    sem_destroy(shared);
    munmap(shared, sizeof *shared);

    char name[64];
    snprintf(name, sizeof name, "/rtdd-clean-sem-%d", (int)getpid());
    sem_t *a = sem_open(name, O_CREAT | O_EXCL, 0600, 1);
    sem_t *b = sem_open(name, 0);
    if (a == SEM_FAILED || b == SEM_FAILED)
        return 1;
    sem_wait(a);
    sem_post(b);
    sem_close(a);
    sem_wait(b); /* still open through b */
    sem_post(b);
    sem_close(b);
    sem_unlink(name);
    return bad;
}
