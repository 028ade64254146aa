/* Barriers used the right way, close to each barrier-misuse case: three
 * threads through 200 rounds of a count-3 barrier; the thread that
 * completes the last round destroys it at once (the others are released,
 * not waiting: POSIX allows it); the same memory initialized again after
 * the destroy and used by another set of threads (one at a time joining
 * the main thread: a worker that leaves and one that takes its place);
 * and a third thread that is slow to come while the other two wait
 * longer than the watchdog's timeout. */
// expect: none
// options: deadlock_timeout_ms=300
#include <pthread.h>
#include <unistd.h>

static pthread_barrier_t bar;

static void *three(void *arg)
{
    for (int i = 0; i < 200; i++)
        if (pthread_barrier_wait(&bar) == PTHREAD_BARRIER_SERIAL_THREAD && i == 199 && arg)
            pthread_barrier_destroy(&bar);
    return NULL;
}

static void *partner(void *arg)
{
    for (long i = (long)arg; i > 0; i--)
        pthread_barrier_wait(&bar);
    return NULL;
}

static void *slow(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&bar);
    usleep(800 * 1000);
    pthread_barrier_wait(&bar);
    return NULL;
}

int main(void)
{
    pthread_t t[3];
    pthread_barrier_init(&bar, NULL, 3);
    for (int i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, three, (void *)1);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    /* Exactly one thread destroyed it. Made again at the same place: */
    pthread_barrier_init(&bar, NULL, 2);
    for (int phase = 0; phase < 3; phase++) {
        pthread_t p;
        pthread_create(&p, NULL, partner, (void *)5L);
        for (int i = 0; i < 5; i++)
            pthread_barrier_wait(&bar);
        pthread_join(p, NULL);
    }
    pthread_barrier_destroy(&bar);

    pthread_barrier_init(&bar, NULL, 3);
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, partner, (void *)2L);
    pthread_create(&t[2], NULL, slow, NULL);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&bar);
    return 0;
}
