/* join_deadlock.c with an rwlock and C11 threads: main reads the table
 * under its read lock and joins the writer, which waits for the write lock
 * holding nothing else. */
// expect: deadlock
// options: halt_on_error=1:deadlock_timeout_ms=300
// log: BUG: deadlock detected, 2 threads blocked in a cycle
// log: (waiting for it to end), at:
// log: cycle: table_lock -> thread join_deadlock_r -> table_lock
#include <pthread.h>
#include <threads.h>
static pthread_rwlock_t table_lock = PTHREAD_RWLOCK_INITIALIZER;
static int table;
static int refresh_table(void *arg)
{
    (void)arg;
    pthread_rwlock_wrlock(&table_lock);
    table++;
    pthread_rwlock_unlock(&table_lock);
    return 0;
}
int main(void)
{
    thrd_t writer;
    pthread_rwlock_rdlock(&table_lock);
    thrd_create(&writer, refresh_table, NULL);
    thrd_join(writer, NULL); /* still reading */
    pthread_rwlock_unlock(&table_lock);
    return table != 1;
}
