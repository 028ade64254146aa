/* GLib's bit locks (a futex on one bit): a bit lock and a GMutex taken in
 * opposite orders by two threads is a lock-order inversion; a pointer bit
 * lock used correctly (nested inside a GMutex every time, and tried) adds
 * nothing. */
// expect: lock-order-inversion
// log: (GLib bit lock, static, first used at glib_bit_lock.c:
// log: cycle: bit 0 of flags -> registry_lock -> bit 0 of flags
// log: already holds lock [bit 0 of the word at 0x
#include <glib.h>
static volatile gint flags;
static GMutex registry_lock;
static gpointer volatile slot;

static gpointer add(gpointer arg)
{
    (void)arg;
    g_mutex_lock(&registry_lock);
    g_bit_lock(&flags, 0);
    g_bit_unlock(&flags, 0);
    g_pointer_bit_lock(&slot, 0);
    if (g_pointer_bit_trylock(&slot, 1))
        g_pointer_bit_unlock(&slot, 1);
    g_pointer_bit_unlock(&slot, 0);
    g_mutex_unlock(&registry_lock);
    return NULL;
}

static gpointer scan(gpointer arg)
{
    (void)arg;
    g_bit_lock(&flags, 0);
    g_mutex_lock(&registry_lock);
    g_mutex_unlock(&registry_lock);
    g_bit_unlock(&flags, 0);
    return NULL;
}

int main(void)
{
    g_thread_join(g_thread_new("add", add, NULL));
    g_thread_join(g_thread_new("scan", scan, NULL));
    return 0;
}
