/* Mutexes made by pthread_mutex_init in the ways programs use them, none
 * of them wrong: an array taken once each (no lock records), objects made
 * and freed, locks destroyed and made again at the same address, taken
 * alone and then nested in one order by two threads, a condition variable
 * waited on with one, handed between threads. Nothing to report. */
// expect: none
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { N = 5000, OBJS = 200 };
static pthread_mutex_t array[N];
struct obj { pthread_mutex_t lock; int value; char pad[24]; };
static pthread_mutex_t outer, inner;
static pthread_mutex_t cond_lock;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int ready;

static void nest_in_order(void)
{
    for (int i = 0; i < 1000; i++) {
        pthread_mutex_lock(&outer);
        pthread_mutex_lock(&inner);
        pthread_mutex_unlock(&inner);
        pthread_mutex_unlock(&outer);
    }
}

static void *worker(void *arg)
{
    (void)arg;
    nest_in_order();
    pthread_mutex_lock(&cond_lock);
    ready = 1;
    pthread_cond_signal(&cond);
    pthread_mutex_unlock(&cond_lock);
    return NULL;
}

int main(void)
{
    for (int i = 0; i < N; i++) {
        pthread_mutex_init(&array[i], NULL);
        pthread_mutex_lock(&array[i]);
        pthread_mutex_unlock(&array[i]);
    }
    for (int round = 0; round < 20; round++) {
        struct obj *objs[OBJS];
        for (int i = 0; i < OBJS; i++) {
            objs[i] = malloc(sizeof *objs[i]);
            memset(objs[i], 0x5a, sizeof *objs[i]);
            pthread_mutex_init(&objs[i]->lock, NULL);
            for (int k = 0; k <= i % 3; k++) {
                pthread_mutex_lock(&objs[i]->lock);
                objs[i]->value = k;
                pthread_mutex_unlock(&objs[i]->lock);
            }
        }
        for (int i = 0; i < OBJS; i++) {
            if (i % 2)
                pthread_mutex_destroy(&objs[i]->lock);
            free(objs[i]);
        }
    }
    for (int i = 0; i < N; i += 7) {
        pthread_mutex_destroy(&array[i]);
        pthread_mutex_init(&array[i], NULL);
        pthread_mutex_lock(&array[i]);
        pthread_mutex_unlock(&array[i]);
    }
    pthread_mutex_init(&outer, NULL);
    pthread_mutex_init(&inner, NULL);
    pthread_mutex_init(&cond_lock, NULL);
    pthread_mutex_lock(&outer);
    pthread_mutex_unlock(&outer);
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    nest_in_order();
    pthread_mutex_lock(&cond_lock);
    while (!ready)
        pthread_cond_wait(&cond, &cond_lock);
    pthread_mutex_unlock(&cond_lock);
    pthread_join(t, NULL);
    return 0;
}
