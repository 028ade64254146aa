/* Correct use of TSan's dynamic annotations: a reader-writer lock of the
 * program's own (built on a pthread_rwlock here, described as its own
 * lock) read by three threads at once and written by one, locks always
 * taken in one order, destroyed when no thread holds it. Nothing to
 * report, and the same exit status as without rtdd. */
// expect: none
// exit: 0
#include "dynamic_annotations.h"
#include <pthread.h>
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static struct spin stats;
static int value, reads;

static void *reader(void *arg)
{
    (void)arg;
    for (int i = 0; i < 1000; i++) {
        pthread_rwlock_rdlock(&rw);
        ANNOTATE_RWLOCK_ACQUIRED(&value, 0);
        spin_lock(&stats); /* value's lock, then stats: always this order */
        reads++;
        spin_unlock(&stats);
        ANNOTATE_RWLOCK_RELEASED(&value, 0);
        pthread_rwlock_unlock(&rw);
    }
    return NULL;
}

int main(void)
{
    ANNOTATE_RWLOCK_CREATE(&value);
    spin_init(&stats);
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, reader, NULL);
    for (int i = 0; i < 100; i++) {
        pthread_rwlock_wrlock(&rw);
        ANNOTATE_RWLOCK_ACQUIRED(&value, 1);
        value++;
        ANNOTATE_RWLOCK_RELEASED(&value, 1);
        pthread_rwlock_unlock(&rw);
    }
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    spin_destroy(&stats);
    ANNOTATE_RWLOCK_DESTROY(&value);
    return reads == 3000 && value == 100 ? 0 : 1;
}
