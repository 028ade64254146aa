/* GLib's locks used correctly: a GRecMutex taken recursively, a GRWLock
 * read by two threads at once, GMutexes always nested in one order with
 * trylocks that back off, and a GCond producer/consumer queue. Nothing to
 * report. */
// expect: none
#include <glib.h>
static GRecMutex big;
static GRWLock table;
static GMutex outer, inner, qlock;
static GCond qcond;
static int queue, consumed;

static void nested(int depth)
{
    g_rec_mutex_lock(&big);
    if (depth)
        nested(depth - 1);
    g_rec_mutex_unlock(&big);
}

static gpointer reader(gpointer arg)
{
    (void)arg;
    for (int i = 0; i < 1000; i++) {
        g_rw_lock_reader_lock(&table);
        if (g_rw_lock_reader_trylock(&table))
            g_rw_lock_reader_unlock(&table);
        g_rw_lock_reader_unlock(&table);
        g_mutex_lock(&outer);
        g_mutex_lock(&inner);
        g_mutex_unlock(&inner);
        g_mutex_unlock(&outer);
        if (g_mutex_trylock(&inner)) {
            if (g_mutex_trylock(&outer))
                g_mutex_unlock(&outer);
            g_mutex_unlock(&inner);
        }
    }
    nested(3);
    return NULL;
}

static gpointer consumer(gpointer arg)
{
    (void)arg;
    g_mutex_lock(&qlock);
    while (consumed < 5000) {
        while (!queue)
            g_cond_wait(&qcond, &qlock);
        queue--;
        consumed++;
    }
    g_mutex_unlock(&qlock);
    return NULL;
}

int main(void)
{
    g_rec_mutex_init(&big);
    g_rw_lock_init(&table);
    GThread *r1 = g_thread_new("r1", reader, NULL), *r2 = g_thread_new("r2", reader, NULL);
    GThread *c = g_thread_new("consumer", consumer, NULL);
    for (int i = 0; i < 5000; i++) {
        g_mutex_lock(&qlock);
        queue++;
        g_cond_signal(&qcond);
        g_mutex_unlock(&qlock);
    }
    g_thread_join(r1);
    g_thread_join(r2);
    g_thread_join(c);
    g_rw_lock_writer_lock(&table);
    g_rw_lock_writer_unlock(&table);
    g_rw_lock_clear(&table);
    g_rec_mutex_clear(&big);
    return consumed == 5000 ? 0 : 1;
}
