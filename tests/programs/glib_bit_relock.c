/* Bits 0 and 1 of one word are two locks, but bit 1 taken again by the
 * thread that holds it is a thread waiting for itself: reported before it
 * blocks (as bit 1, not as the word), then the watchdog ends the run. */
// expect: recursive-locking deadlock
// options: deadlock_timeout_ms=300
// log: lock(bit 1 of state);
// log: is trying to lock [bit 1 of the word at 0x
// log: BUG: deadlock detected, 1 thread blocked in a cycle
#include <glib.h>
static volatile gint state;

static void flush(void)
{
    g_bit_lock(&state, 1); /* the caller holds bit 1 already */
    g_bit_unlock(&state, 1);
}

static gpointer worker(gpointer arg)
{
    (void)arg;
    g_bit_lock(&state, 0);
    g_bit_lock(&state, 1); /* another lock: fine */
    flush();
    g_bit_unlock(&state, 1);
    g_bit_unlock(&state, 0);
    return NULL;
}

int main(void)
{
    g_thread_join(g_thread_new("worker", worker, NULL));
    return 0;
}
