/* Three threads share a barrier of count 2: each round releases two of
 * them, so the rounds no longer line the three up. The order is forced
 * with semaphores: round 1 is a and b, round 2 a and c (b held back until
 * a passed it), round 3 b and c: b comes back having missed round 2. */
// expect: barrier-misuse
// log: WARNING: barrier misuse
// log: (count 2), at:
// log: but 1 round of this barrier completed without this thread since it last passed it
// log: More threads wait on the barrier than its count
// log: SUMMARY: rtdd: barrier-misuse barrier_misuse_too_many.c:41 in b
#include <pthread.h>
#include <semaphore.h>

static pthread_barrier_t bar;
static sem_t c_go, b_go;

static void *a(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&bar); /* round 1, with b */
    sem_post(&c_go);
    pthread_barrier_wait(&bar); /* round 2, with c */
    sem_post(&b_go);
    return NULL;
}

static void *c(void *arg)
{
    (void)arg;
    sem_wait(&c_go);
    pthread_barrier_wait(&bar); /* round 2 */
    pthread_barrier_wait(&bar); /* round 3 */
    return NULL;
}

static void *b(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&bar); /* round 1 */
    sem_wait(&b_go);
    pthread_barrier_wait(&bar); /* round 3: round 2 went by without it */
    return NULL;
}

int main(void)
{
    pthread_t t[3];
    sem_init(&c_go, 0, 0);
    sem_init(&b_go, 0, 0);
    pthread_barrier_init(&bar, NULL, 2);
    pthread_create(&t[0], NULL, a, NULL);
    pthread_create(&t[1], NULL, b, NULL);
    pthread_create(&t[2], NULL, c, NULL);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&bar);
    return 0;
}
