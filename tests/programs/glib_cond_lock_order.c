/* A GCond waited on while holding another GMutex that the condition's only
 * signaller holds when it calls g_cond_signal: no hang in this run (the
 * waiter gives up after 200 ms), reported as cond-lock-order. */
// expect: cond-lock-order
// log: waits on condition variable
// log: (GCond, static, first used at glib_cond_lock_order.c:
// log: holds stats_lock when it does, taken at:
#include <glib.h>
static GMutex stats_lock, m;
static GCond flushed;
static int done, stats;

static gpointer reporter(gpointer arg)
{
    (void)arg;
    gint64 until = g_get_monotonic_time() + 200 * G_TIME_SPAN_MILLISECOND;
    g_mutex_lock(&stats_lock);
    g_mutex_lock(&m);
    while (!done && g_cond_wait_until(&flushed, &m, until))
        ;
    g_mutex_unlock(&m);
    g_mutex_unlock(&stats_lock);
    return NULL;
}

static gpointer flusher(gpointer arg)
{
    (void)arg;
    g_mutex_lock(&stats_lock);
    stats++;
    g_mutex_lock(&m);
    done = 1;
    g_cond_signal(&flushed);
    g_mutex_unlock(&m);
    g_mutex_unlock(&stats_lock);
    return NULL;
}

int main(void)
{
    g_thread_join(g_thread_new("reporter", reporter, NULL));
    g_thread_join(g_thread_new("flusher", flusher, NULL));
    return 0;
}
