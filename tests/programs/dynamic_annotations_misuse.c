/* What TSan's dynamic annotations can claim and no real lock allows, and
 * a destroy of a held annotated lock: a reader-writer lock of the
 * program's own released for reading while held for writing (bad-unlock),
 * a spinlock whose "acquired" annotation comes while another thread holds
 * it (double-lock: the lock's code is broken), and one destroyed held. */
// expect: bad-unlock double-lock destroy-locked
// log: is trying to read-unlock lock
// log: but the thread holds it for writing, taken at:
// log: WARNING: lock acquired while another thread holds it
// log: BUG: destroying a held lock
// exit: 66
#include "dynamic_annotations.h"
#include <pthread.h>
#include <semaphore.h>
static int table_lock; /* the rwlock's word: only its annotations matter here */
static struct spin broken;
static sem_t held, done;

static void *second(void *arg)
{
    (void)arg;
    sem_wait(&held);
    ANNOTATE_RWLOCK_ACQUIRED(&broken, 1); /* its code let this thread in */
    ANNOTATE_RWLOCK_RELEASED(&broken, 1);
    sem_post(&done);
    return NULL;
}

int main(void)
{
    ANNOTATE_RWLOCK_CREATE(&table_lock);
    ANNOTATE_RWLOCK_ACQUIRED(&table_lock, 1);
    ANNOTATE_RWLOCK_RELEASED(&table_lock, 0);

    sem_init(&held, 0, 0);
    sem_init(&done, 0, 0);
    spin_init(&broken);
    pthread_t t;
    pthread_create(&t, NULL, second, NULL);
    spin_lock(&broken);
    sem_post(&held);
    sem_wait(&done);
    spin_destroy(&broken);
    spin_unlock(&broken);
    pthread_join(t, NULL);
    return 0;
}
