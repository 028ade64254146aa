/* A GLib GMutex / GRecMutex inversion, the halves 200 ms apart. */
#include <glib.h>
#include <stdio.h>

static GMutex queue_lock;
static GRecMutex state_lock;
static long n;

static gpointer one(gpointer arg)
{
    (void)arg;
    g_mutex_lock(&queue_lock);
    g_rec_mutex_lock(&state_lock);
    n++;
    g_rec_mutex_unlock(&state_lock);
    g_mutex_unlock(&queue_lock);
    return NULL;
}

static gpointer two(gpointer arg)
{
    (void)arg;
    g_usleep(200 * 1000);
    g_rec_mutex_lock(&state_lock);
    g_mutex_lock(&queue_lock);
    n++;
    g_mutex_unlock(&queue_lock);
    g_rec_mutex_unlock(&state_lock);
    return NULL;
}

int main(void)
{
    GThread *a = g_thread_new("one", one, NULL);
    GThread *b = g_thread_new("two", two, NULL);
    g_thread_join(a);
    g_thread_join(b);
    printf("n %ld\n", n);
    return 0;
}
