/* GLib lock misuse: an object whose GMutex is held is freed with g_free
 * (active-lock-freed); a GRWLock reader-unlocked by a thread that never
 * read-locked it (bad-unlock); a thread that ends holding a GMutex
 * (lock-held-at-exit). (A GMutex unlocked that nobody holds is reported
 * too, but GLib then aborts the program itself.) */
// expect: active-lock-freed bad-unlock lock-held-at-exit
// log: (GMutex) is held by this thread
// log: GRWLock, initialized at glib_misuse.c:
#include <glib.h>
struct session { GMutex lock; int refs; };
static GMutex left_locked;
static GRWLock table;

static gpointer worker(gpointer arg)
{
    (void)arg;
    g_mutex_lock(&left_locked);
    return NULL; /* still holding it */
}

int main(void)
{
    struct session *s = g_new0(struct session, 1);
    g_mutex_init(&s->lock);
    g_mutex_lock(&s->lock);
    s->refs = 1;
    g_free(s);

    g_rw_lock_init(&table);
    g_rw_lock_reader_unlock(&table);

    g_thread_join(g_thread_new("worker", worker, NULL));
    return 0;
}
