/* GLib's GMutex is a futex word no pthread call sees: two threads take two
 * GMutexes in opposite orders (one after the other, no hang): the
 * lock-order inversion is reported with GLib's type names. */
// expect: lock-order-inversion
// log: (GMutex, static, first used at glib_lock_order.c:
// log: cycle: index_lock -> store_lock -> index_lock
#include <glib.h>
static GMutex store_lock, index_lock;

static gpointer put(gpointer arg)
{
    (void)arg;
    g_mutex_lock(&store_lock);
    g_mutex_lock(&index_lock);
    g_mutex_unlock(&index_lock);
    g_mutex_unlock(&store_lock);
    return NULL;
}

static gpointer reindex(gpointer arg)
{
    (void)arg;
    g_mutex_lock(&index_lock);
    g_mutex_lock(&store_lock);
    g_mutex_unlock(&store_lock);
    g_mutex_unlock(&index_lock);
    return NULL;
}

int main(void)
{
    g_thread_join(g_thread_new("put", put, NULL));
    g_thread_join(g_thread_new("reindex", reindex, NULL));
    return 0;
}
