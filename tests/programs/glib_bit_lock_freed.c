/* A bit lock is one bit of its word, but freeing the word frees the lock:
 * an object freed while bit 9 of its flags is held is active-lock-freed
 * (the report names the bit); another object freed after its pointer bit
 * lock was released, and a third whose held bit lives in a word outside
 * the freed range, are fine. */
// expect: active-lock-freed
// log: the lock [bit 9 of the word at 0x
// log: (GLib bit lock) is held by this thread
#include <glib.h>
struct node { gpointer next; gint pad; volatile gint flags; };

int main(void)
{
    struct node *released = g_new0(struct node, 1), *held = g_new0(struct node, 1);
    g_pointer_bit_lock(&released->next, 0);
    g_pointer_bit_unlock(&released->next, 0);
    g_free(released);

    static volatile gint outside;
    struct node *other = g_new0(struct node, 1);
    g_bit_lock(&outside, 3);
    g_free(other);
    g_bit_unlock(&outside, 3);

    g_bit_lock(&held->flags, 9);
    g_free(held); /* bit 9 still held */
    return 0;
}
