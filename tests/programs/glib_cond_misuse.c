/* One GCond waited on with two GMutexes at once (each waiter gives up
 * after 300 ms): a signal may wake the waiter whose predicate the other
 * mutex protects, and be lost. cond-misuse, as for pthread_cond_t. */
// expect: cond-misuse
// log: WARNING: condition variable misuse
// log: (GCond, static, first used at glib_cond_misuse.c:
// log: while other threads wait on it with a different mutex
#include <glib.h>
#include <unistd.h>
static GMutex jobs_lock, stats_lock;
static GCond changed;

static gpointer waiter(gpointer arg)
{
    GMutex *m = arg;
    gint64 until = g_get_monotonic_time() + 300 * G_TIME_SPAN_MILLISECOND;
    g_mutex_lock(m);
    while (g_cond_wait_until(&changed, m, until))
        ;
    g_mutex_unlock(m);
    return NULL;
}

int main(void)
{
    GThread *a = g_thread_new("jobs", waiter, &jobs_lock);
    usleep(50000);
    GThread *b = g_thread_new("stats", waiter, &stats_lock);
    g_thread_join(a);
    g_thread_join(b);
    return 0;
}
