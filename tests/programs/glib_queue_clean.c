/* GLib's queues used as GLib means them: a GAsyncQueue between a producer
 * and two consumers, and a GThreadPool whose tasks push results into
 * another GAsyncQueue, with a pause in which the pool's threads idle.
 * Idle waits are not hangs and GLib's internal locks are consistent:
 * nothing to report, even with the watchdog's timeouts short and its
 * hang reports made warnings. */
// expect: none
// options: deadlock_timeout_ms=20:hang_timeout_ms=100:hang_severity=warning
#include <glib.h>
#define ITEMS 2000
static GAsyncQueue *work, *results;
static gint consumed;

static gpointer consumer(gpointer arg)
{
    (void)arg;
    for (;;) {
        gpointer item = g_async_queue_pop(work);
        if (GPOINTER_TO_INT(item) < 0)
            return NULL;
        g_atomic_int_inc(&consumed);
    }
}

static void task(gpointer data, gpointer user_data)
{
    (void)user_data;
    g_async_queue_push(results, GINT_TO_POINTER(GPOINTER_TO_INT(data) * 2));
}

int main(void)
{
    work = g_async_queue_new();
    results = g_async_queue_new();
    GThread *c1 = g_thread_new("consumer", consumer, NULL), *c2 = g_thread_new("consumer", consumer, NULL);
    for (int i = 1; i <= ITEMS; i++)
        g_async_queue_push(work, GINT_TO_POINTER(i));
    g_usleep(300 * 1000); /* the consumers idle in g_async_queue_pop */
    g_async_queue_push(work, GINT_TO_POINTER(-1));
    g_async_queue_push(work, GINT_TO_POINTER(-1));
    g_thread_join(c1);
    g_thread_join(c2);

    GThreadPool *pool = g_thread_pool_new(task, NULL, 4, FALSE, NULL);
    long sum = 0;
    for (int round = 0; round < 2; round++) {
        for (int i = 1; i <= 500; i++)
            g_thread_pool_push(pool, GINT_TO_POINTER(i), NULL);
        for (int i = 0; i < 500; i++)
            sum += GPOINTER_TO_INT(g_async_queue_pop(results));
        g_usleep(300 * 1000); /* the pool's threads idle */
    }
    g_thread_pool_free(pool, FALSE, TRUE);
    g_async_queue_unref(work);
    g_async_queue_unref(results);
    return consumed == ITEMS && sum == 2L * 500 * 501 ? 0 : 1;
}
