/* A GMutex in memory from g_slice_new0, freed with g_slice_free while
 * held: under `rtdd run` GLib's slices are malloc'ed blocks
 * (G_SLICE=always-malloc), so the free is seen: active-lock-freed. */
// expect: active-lock-freed
// log: (GMutex) is held by this thread
#include <glib.h>
struct session { GMutex lock; int refs; };

int main(void)
{
    struct session *s = g_slice_new0(struct session);
    g_mutex_init(&s->lock);
    g_mutex_lock(&s->lock);
    g_slice_free(struct session, s); /* still locked */
    return 0;
}
