/* A GMutex is not recursive: taken again by its holder, the thread waits
 * for itself. Reported before it blocks, then the watchdog ends the run. */
// expect: recursive-locking deadlock
// options: deadlock_timeout_ms=300
// log: (GMutex, static, first used at glib_relock.c:
// log: BUG: deadlock detected, 1 thread blocked in a cycle
#include <glib.h>
static GMutex cache_lock;

static void refresh(void)
{
    g_mutex_lock(&cache_lock); /* the caller holds it already */
    g_mutex_unlock(&cache_lock);
}

static gpointer worker(gpointer arg)
{
    (void)arg;
    g_mutex_lock(&cache_lock);
    refresh();
    g_mutex_unlock(&cache_lock);
    return NULL;
}

int main(void)
{
    g_thread_join(g_thread_new("worker", worker, NULL));
    return 0;
}
