/* sem_destroy while a thread is blocked in sem_wait on the semaphore, and
 * no post has released it (DRD reports it too). glibc's sem_destroy does
 * nothing: the waiter sleeps on in freed state. The main thread waits
 * until glibc counts the waiter (the high half of the semaphore's word),
 * so the destroy always finds it blocked; then it exits. */
// expect: sem-misuse
// log: WARNING: semaphore misuse
// log: destroys semaphore
// log: while 1 thread is blocked on it in sem_wait, not released by any post
// log: SUMMARY: rtdd: sem-misuse sem_misuse_destroy_blocked.c:33 in main
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <unistd.h>

static sem_t go;

static void *waiter(void *arg)
{
    (void)arg;
    sem_wait(&go);
    return NULL;
}

int main(void)
{
    pthread_t t;
    sem_init(&go, 0, 0);
    pthread_create(&t, NULL, waiter, NULL);
    /* glibc counts a waiter in the high 32 bits of the 64-bit word. */
    while ((__atomic_load_n((uint64_t *)&go, __ATOMIC_ACQUIRE) >> 32) == 0)
        usleep(1000);
    sem_destroy(&go);
    return 0; /* the waiter is still blocked: exit ends it */
}
