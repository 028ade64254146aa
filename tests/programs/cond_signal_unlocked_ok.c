/* Signals that are not cond-signal-unlocked: with the mutex held; after
 * an unlock that ended the critical section that changed the predicate
 * (C++'s notify_one after the scope), also with another lock taken and
 * released in between; after a lock/unlock pair that orders the signaller
 * after the waiter (DRD's pth_cond_race); a broadcast before any wait
 * (no mutex is associated yet); and signals from the waiting thread itself. */
// expect: none
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

struct queue {
    pthread_mutex_t m;
    pthread_cond_t cv;
    int items, done;
};

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static long stats;

static void *consumer(void *arg)
{
    struct queue *q = arg;
    int got = 0;
    pthread_mutex_lock(&q->m);
    while (!q->done || q->items) {
        while (!q->items && !q->done)
            pthread_cond_wait(&q->cv, &q->m);
        if (q->items) {
            q->items--;
            got++;
            pthread_cond_signal(&q->cv); /* the waiter signals too, holding the mutex */
        }
    }
    pthread_mutex_unlock(&q->m);
    return (void *)(long)got;
}

static void produce(struct queue *q, int how)
{
    pthread_mutex_lock(&q->m);
    q->items++;
    if (how == 0) {
        pthread_cond_signal(&q->cv); /* held */
        pthread_mutex_unlock(&q->m);
        return;
    }
    pthread_mutex_unlock(&q->m);
    if (how == 2) { /* another lock in between */
        pthread_mutex_lock(&stats_lock);
        stats++;
        pthread_mutex_unlock(&stats_lock);
    }
    pthread_cond_signal(&q->cv); /* unlock, then signal */
}

static struct queue sync_q = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0 };

static void *sync_signaller(void *arg)
{
    (void)arg;
    /* The waiter holds the mutex until it waits: once this thread has
     * taken it, the waiter is waiting (pth_cond_race's way). */
    pthread_mutex_lock(&sync_q.m);
    sync_q.done = 1;
    pthread_mutex_unlock(&sync_q.m);
    pthread_cond_signal(&sync_q.cv);
    return NULL;
}

int main(void)
{
    struct queue q = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0 };
    pthread_cond_broadcast(&q.cv); /* no wait yet: no mutex associated */
    pthread_t c;
    pthread_create(&c, NULL, consumer, &q);
    for (int i = 0; i < 300; i++)
        produce(&q, i % 3);
    pthread_mutex_lock(&q.m);
    q.done = 1;
    pthread_mutex_unlock(&q.m);
    pthread_cond_broadcast(&q.cv);
    void *got;
    pthread_join(c, &got);

    pthread_t s;
    pthread_mutex_lock(&sync_q.m);
    pthread_create(&s, NULL, sync_signaller, NULL);
    while (!sync_q.done)
        pthread_cond_wait(&sync_q.cv, &sync_q.m);
    pthread_mutex_unlock(&sync_q.m);
    pthread_join(s, NULL);
    printf("consumed %ld, stats %ld\n", (long)got, stats);
    return (long)got == 300 ? 0 : 1;
}
