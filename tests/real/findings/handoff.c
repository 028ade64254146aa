/* check-real finding (xfs_repair's buffer cache, reduced): a mutex handed
 * off between threads. The producer locks a buffer and passes it on; the
 * consumer unlocks it (non-owner-unlock: true, POSIX leaves this undefined
 * for default mutexes, glibc allows it); the producer exits afterwards,
 * holding nothing; main frees the buffer, whose mutex is unlocked.
 * Expected: 1 report (non-owner-unlock). rtdd as of fe4b6b4 also reports
 * lock-held-at-exit for the producer and active-lock-freed in main, both
 * false: it never clears the owner on a non-owner unlock.
 * Build: gcc -g -O1 -pthread -o handoff handoff.c */
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
