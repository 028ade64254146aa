/* A reader of the table takes the index's write lock; a writer of the
 * index, 200 ms later, takes the table's write lock: a read/write cycle
 * (write-preferring or not, the writer waits for the reader). */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static pthread_rwlock_t table = PTHREAD_RWLOCK_INITIALIZER, index_lock = PTHREAD_RWLOCK_INITIALIZER;
static long rows;

static void *lookup(void *arg)
{
    (void)arg;
    pthread_rwlock_rdlock(&table);
    pthread_rwlock_wrlock(&index_lock);
    rows++;
    pthread_rwlock_unlock(&index_lock);
    pthread_rwlock_unlock(&table);
    return NULL;
}

static void *reindex(void *arg)
{
    (void)arg;
    struct timespec ts = { 0, 200 * 1000000L };
    nanosleep(&ts, NULL);
    pthread_rwlock_wrlock(&index_lock);
    pthread_rwlock_wrlock(&table);
    rows--;
    pthread_rwlock_unlock(&table);
    pthread_rwlock_unlock(&index_lock);
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, lookup, NULL);
    pthread_create(&b, NULL, reindex, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("rows %ld\n", rows);
    return 0;
}
