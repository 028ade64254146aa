/* GLib bit locks are one lock per bit: a word whose bits 0 and 1 guard two
 * different things (GLib's API takes the bit so that one word can carry
 * several locks). One thread holds both bits of one int, then bits 0 and 1
 * of one pointer, tries bit 2 while holding them, and releases them out of
 * order. Nothing to report; halt_on_error=1 would end the run at a false
 * recursive-locking. */
// expect: none
// options: halt_on_error=1
#include <glib.h>
static volatile gint flags;
static gpointer volatile slot;
static int moved;

int main(void)
{
    for (int i = 0; i < 100; i++) {
        g_bit_lock(&flags, 0);
        g_bit_lock(&flags, 1);
        if (g_bit_trylock(&flags, 2))
            g_bit_unlock(&flags, 2);
        g_bit_unlock(&flags, 0); /* not the most recent one */
        g_bit_unlock(&flags, 1);
        g_pointer_bit_lock(&slot, 0);
        g_pointer_bit_lock(&slot, 1);
        moved++;
        g_pointer_bit_unlock(&slot, 1);
        g_pointer_bit_unlock(&slot, 0);
        /* Bits in the second byte of the word: each one lock too. */
        g_bit_lock(&flags, 8);
        g_bit_lock(&flags, 9);
        g_bit_unlock(&flags, 9);
        g_bit_unlock(&flags, 8);
    }
    return moved == 100 && flags == 0 && slot == NULL ? 0 : 1;
}
