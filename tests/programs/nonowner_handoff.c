/* Regression from check-real (xfs_repair's buffer cache, reduced): a mutex
 * handed off between threads gives one non-owner-unlock report and nothing
 * else: the producer exits holding nothing, and the buffer freed later has
 * an unlocked mutex. */
// expect: non-owner-unlock
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct buf { pthread_mutex_t lock; int data; };
static struct buf *b;
static pthread_barrier_t locked, released;

static void *producer(void *a)
{
    (void)a;
    pthread_mutex_lock(&b->lock);
    b->data = 42;
    pthread_barrier_wait(&locked);   /* hand the locked buffer over */
    pthread_barrier_wait(&released); /* the consumer has unlocked it */
    return NULL;                     /* exits holding nothing */
}

static void *consumer(void *a)
{
    (void)a;
    pthread_barrier_wait(&locked);
    printf("data %d\n", b->data);
    pthread_mutex_unlock(&b->lock);  /* non-owner unlock: the one true report */
    pthread_barrier_wait(&released);
    return NULL;
}

int main(void)
{
    pthread_barrier_init(&locked, NULL, 2);
    pthread_barrier_init(&released, NULL, 2);
    b = malloc(sizeof *b);
    pthread_mutex_init(&b->lock, NULL);
    pthread_t p, c;
    pthread_create(&p, NULL, producer, NULL);
    pthread_create(&c, NULL, consumer, NULL);
    pthread_join(p, NULL);
    pthread_join(c, NULL);
    free(b);                         /* its mutex is unlocked: no lock is freed */
    return 0;
}
